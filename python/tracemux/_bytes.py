"""Byte strings (BLOBs, arrays of uint8) as a pandas column without a Python object per row.

The extension fills a byte column as Arrow lays out a binary column: one
buffer of every row's bytes, one after the other, and each row's end offset
in it.  BytesArray is a pandas ExtensionArray over those two NumPy arrays
(and a mask of missing rows): pandas copies, slices, takes, concatenates and
measures it without making a `bytes` per row; one is made only when a row
is read (df.col[i], iteration, astype(object)).  Debian 12 has no pyarrow,
so no pandas.ArrowDtype: this is its layout without the library.
"""
import numbers

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray, ExtensionDtype, register_extension_dtype


@register_extension_dtype
class BytesDtype(ExtensionDtype):
    """The dtype of a BytesArray: `bytes` values, None where missing."""
    name = "tracemux.bytes"
    type = bytes
    kind = "O"
    na_value = None

    @classmethod
    def construct_array_type(cls):
        return BytesArray

    @classmethod
    def construct_from_string(cls, string):
        if string == cls.name:
            return cls()
        raise TypeError(f"Cannot construct a '{cls.__name__}' from '{string}'")


class BytesArray(ExtensionArray):
    """Rows of bytes: `offsets` (int64, rows + 1: row i is values[offsets[i]:offsets[i+1]]),
    `values` (uint8), `mask` (bool, True where a row is missing, or None)."""

    def __init__(self, offsets, values, mask=None):
        self._offsets = np.asarray(offsets, dtype=np.int64)
        self._values = np.asarray(values, dtype=np.uint8)
        self._mask = None if mask is None or not mask.any() else np.asarray(mask, dtype=bool)

    @classmethod
    def from_ends(cls, ends, values, mask=None):
        """From each row's end offset (what the extension fills): offsets start at 0."""
        offsets = np.empty(len(ends) + 1, dtype=np.int64)
        offsets[0] = 0
        offsets[1:] = ends
        return cls(offsets, values, mask)

    @classmethod
    def _from_sequence(cls, scalars, dtype=None, copy=False):
        items = list(scalars)
        mask = np.array([x is None or x is pd.NA or (isinstance(x, float) and np.isnan(x))
                         for x in items], dtype=bool)
        data = [b"" if m else bytes(x) for x, m in zip(items, mask)]
        ends = np.cumsum([len(x) for x in data], dtype=np.int64)
        values = np.frombuffer(b"".join(data), dtype=np.uint8)
        return cls.from_ends(ends, values.copy(), mask)

    @classmethod
    def _from_factorized(cls, values, original):
        return cls._from_sequence(values)

    @classmethod
    def _concat_same_type(cls, to_concat):
        arrays = list(to_concat)
        values = np.concatenate([a._values[a._offsets[0]:a._offsets[-1]] for a in arrays])
        ends, base = [], 0
        for a in arrays:
            ends.append(a._offsets[1:] - a._offsets[0] + base)
            base += int(a._offsets[-1] - a._offsets[0])
        mask = (np.concatenate([a.isna() for a in arrays])
                if any(a._mask is not None for a in arrays) else None)
        return cls.from_ends(np.concatenate(ends) if ends else np.empty(0, np.int64), values, mask)

    @property
    def dtype(self):
        return BytesDtype()

    @property
    def offsets(self):
        return self._offsets

    @property
    def values_buffer(self):
        return self._values

    @property
    def nbytes(self):
        used = int(self._offsets[-1] - self._offsets[0]) if len(self._offsets) else 0
        return self._offsets.nbytes + used + (self._mask.nbytes if self._mask is not None else 0)

    def __len__(self):
        return len(self._offsets) - 1

    def _row(self, i):
        if self._mask is not None and self._mask[i]:
            return None
        return self._values[self._offsets[i]:self._offsets[i + 1]].tobytes()

    def __getitem__(self, item):
        if isinstance(item, numbers.Integral):
            n = len(self)
            if not -n <= item < n:
                raise IndexError(f"index {item} out of bounds for {n} rows")
            return self._row(item % n if item < 0 else item)
        if isinstance(item, slice) and item.step in (None, 1):
            start, stop, _ = item.indices(len(self))
            stop = max(start, stop)
            mask = self._mask[start:stop] if self._mask is not None else None
            return type(self)(self._offsets[start:stop + 1], self._values, mask)
        if isinstance(item, slice):   # another step: the rows it names
            return self.take(np.arange(len(self))[item])
        item = pd.api.indexers.check_array_indexer(self, item)
        if item.dtype == bool:
            item = np.flatnonzero(item)
        return self.take(item)

    def __iter__(self):
        for i in range(len(self)):
            yield self._row(i)

    def isna(self):
        return self._mask.copy() if self._mask is not None else np.zeros(len(self), dtype=bool)

    def take(self, indices, allow_fill=False, fill_value=None):
        idx = np.asarray(indices, dtype=np.int64)
        missing = np.zeros(len(idx), dtype=bool)
        if allow_fill:
            if fill_value is not None and fill_value is not pd.NA:
                raise ValueError("BytesArray.take: only a missing value can fill")
            if (idx < -1).any():
                raise ValueError("BytesArray.take: indices below -1 with allow_fill")
            missing = idx == -1
            idx = np.where(missing, 0, idx)
        elif len(idx):
            idx = np.where(idx < 0, idx + len(self), idx)
        if len(idx) and (idx.min() < 0 or idx.max() >= len(self)):
            raise IndexError("BytesArray.take: index out of bounds")
        starts = self._offsets[idx] if len(self) else np.zeros(len(idx), np.int64)
        lengths = np.where(missing, 0, (self._offsets[idx + 1] - starts) if len(self) else 0)
        ends = np.cumsum(lengths, dtype=np.int64)
        total = int(ends[-1]) if len(ends) else 0
        # Every byte's place in the source: its row's start plus its position in the row.
        rows = np.repeat(np.arange(len(idx)), lengths)
        src = starts[rows] + (np.arange(total) - (ends - lengths)[rows])
        mask = missing
        if self._mask is not None and len(self):
            mask = mask | self._mask[idx]
        return type(self).from_ends(ends, self._values[src], mask)

    def copy(self):
        o0, o1 = (int(self._offsets[0]), int(self._offsets[-1])) if len(self._offsets) else (0, 0)
        mask = self._mask.copy() if self._mask is not None else None
        return type(self)(self._offsets - o0, self._values[o0:o1].copy(), mask)

    def __array__(self, dtype=None):
        out = np.empty(len(self), dtype=object)
        out[:] = list(self)
        return out if dtype is None or dtype == object else out.astype(dtype)

    def astype(self, dtype, copy=True):
        if isinstance(dtype, BytesDtype) or dtype == BytesDtype.name:
            return self.copy() if copy else self
        return np.asarray(self).astype(dtype, copy=False) if dtype != object else np.asarray(self)

    def _values_for_factorize(self):
        return np.asarray(self), None

    def __eq__(self, other):
        other = list(other) if not isinstance(other, (bytes, type(None))) else [other] * len(self)
        return np.array([a is not None and a == b for a, b in zip(self, other)], dtype=bool)

    def __repr__(self):
        head = ", ".join(repr(x) for x in list(self[:5]))
        return f"<BytesArray [{head}{', ...' if len(self) > 5 else ''}] ({len(self)} rows)>"
