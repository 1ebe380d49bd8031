"""Tables filled by the extension (Reader.read) as NumPy arrays and pandas DataFrames.

A table is a dict: "name" (its event class's), "class" (the class's number
in the Reader), "rows", "seq" (each row's
event number in the read, to merge classes of one name in reading order)
and "columns", each a dict: name, dtype (a NumPy dtype name, or "text",
"label", "option", "bytes", "object"), data (a buffer of the dtype,
dictionary codes for the text kinds, a list for "object", for "bytes" a
tuple: 0 then each row's end offset (int64), the rows' bytes one after the other,
and the length of every value when it is fixed, else -1), valid (one byte per row, or None
when every row has a value), strings ([None, str...] for the text kinds),
nullable (inside a variant or an optional).  Every buffer is wrapped,
not copied.
"""
import numpy as np

_TEXT_KINDS = ("text", "label", "option")


def _bytes(col, rows):
    """A "bytes" column as a BytesArray (offsets and values, no object per row)."""
    from ._bytes import BytesArray

    offsets, values, _ = col["data"]
    return BytesArray(np.frombuffer(offsets, dtype=np.int64, count=rows + 1),
                      np.frombuffer(values, dtype=np.uint8), _mask(col, rows))


def _bytes_numpy(col, rows):
    """A "bytes" column for NumPy: a 2-D uint8 array (rows, length) when every value has
    the same length (a static array or BLOB), else an object array of bytes."""
    ends, values, width = col["data"]
    mask = _mask(col, rows)
    if width < 0:   # NumPy has no variable-length bytes: objects (no pandas needed)
        data = bytes(memoryview(values))
        offsets = np.frombuffer(ends, dtype=np.int64, count=rows + 1).tolist()
        out = _objects([data[a:b] for a, b in zip(offsets[:-1], offsets[1:])])
        if mask is not None:
            out[mask] = None
        return out
    grid = np.frombuffer(values, dtype=np.uint8).reshape(rows, width)
    if mask is None and not col["nullable"]:
        return grid
    rmask = np.zeros(rows, bool) if mask is None else mask
    return np.ma.MaskedArray(grid, mask=np.repeat(rmask[:, None], width, axis=1))


def _objects(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _mask(col, rows):
    """True where a row has no value, or None when the column has no missing value."""
    if col["valid"] is None:
        return None
    return ~np.frombuffer(col["valid"], dtype=bool, count=rows)


def numpy_column(col, rows):
    """A column as a NumPy array: typed, masked (numpy.ma) when it can have missing values."""
    kind = col["dtype"]
    if kind == "object":
        return _objects(col["data"])
    if kind == "bytes":
        return _bytes_numpy(col, rows)
    if kind in _TEXT_KINDS:
        codes = np.frombuffer(col["data"], dtype=np.uint32, count=rows)
        return _objects(col["strings"]).take(codes)
    values = np.frombuffer(col["data"], dtype=kind, count=rows)
    mask = _mask(col, rows)
    if mask is None and not col["nullable"]:
        return values
    return np.ma.MaskedArray(values, mask=np.zeros(rows, bool) if mask is None else mask)


def _codes(col, rows):
    """The dictionary codes less 1 (-1: no value) in the integer type pandas keeps them in
    for that many categories, made in one pass (no intermediate copy)."""
    n = len(col["strings"]) - 1
    dtype = np.int8 if n < 127 else np.int16 if n < 32767 else np.int32
    codes = np.empty(rows, dtype)
    np.subtract(np.frombuffer(col["data"], dtype=np.uint32, count=rows), 1, out=codes,
                casting="unsafe")   # 0 - 1 wraps to all ones: -1 in every width
    return codes


def _categorical(col, rows):
    import pandas as pd

    codes = _codes(col, rows)
    categories = col["strings"][1:]
    if len(set(categories)) != len(categories):
        # Two byte strings can read as one text (a byte that is not UTF-8
        # reads as the code point of its value).
        return pd.Categorical(_objects(col["strings"]).take(codes.astype(np.int64) + 1))
    return pd.Categorical.from_codes(codes, categories=categories)


def pandas_column(col, rows):
    """A column as pandas holds it: the NumPy array, or a pandas array for nulls and categories."""
    import pandas as pd

    kind = col["dtype"]
    # Text of every kind is a categorical: the C side has its dictionary codes
    # already (no Python object per row), and a column's type does not depend
    # on how repeated its values happen to be.
    if kind in _TEXT_KINDS:
        return _categorical(col, rows)
    if kind == "object":
        return numpy_column(col, rows)
    if kind == "bytes":
        return _bytes(col, rows)
    values = np.frombuffer(col["data"], dtype=kind, count=rows)
    mask = _mask(col, rows)
    if mask is None and not col["nullable"]:
        return values
    mask = np.zeros(rows, bool) if mask is None else mask
    if kind == "bool":
        return pd.arrays.BooleanArray(values, mask)
    if kind.startswith("float"):
        return pd.arrays.FloatingArray(values, mask)
    return pd.arrays.IntegerArray(values, mask)


def _seq(table):
    return np.frombuffer(table["seq"], dtype=np.uint64, count=table["rows"])


def _signature(table):
    return [(c["name"], c["dtype"]) for c in table["columns"]]


def numpy_tables(tables):
    """Tables of one event class name merged into {column: array}, in reading order."""
    if any(_signature(t) != _signature(tables[0]) for t in tables):
        raise ValueError("event classes of this name have different fields: use to_pandas()")
    parts = [{c["name"]: numpy_column(c, t["rows"]) for c in t["columns"]} for t in tables]
    if len(parts) == 1:
        return parts[0]
    order = np.argsort(np.concatenate([_seq(t) for t in tables]), kind="stable")
    merged = {}
    for name, first in parts[0].items():
        join = np.ma.concatenate if np.ma.isMaskedArray(first) else np.concatenate
        merged[name] = join([p[name] for p in parts])[order]
    return merged


def pandas_tables(tables):
    """Tables of one event class name as one DataFrame, rows in reading order."""
    import pandas as pd

    frames = []
    if len(tables) == 1:
        tables[0]["seq"] = None   # no merge: the reading order is not needed
    for t in tables:
        columns = {}
        for c in t["columns"]:
            columns[c["name"]] = pandas_column(c, t["rows"])
            if c["dtype"] in _TEXT_KINDS:
                c["data"] = None   # the C codes, copied: freed now rather than at the end
        # copy=False: each column keeps its own array (no consolidation into
        # 2-D blocks, which would copy every column once more).
        frames.append(pd.DataFrame(columns, copy=False))
    if len(frames) == 1:
        return frames[0]
    # Categoricals stay categoricals over the tables: one set of categories.
    for c in frames[0].columns:
        if all(c in f and isinstance(f[c].dtype, pd.CategoricalDtype) for f in frames):
            cats = pd.api.types.union_categoricals([f[c] for f in frames]).categories
            for f in frames:
                f[c] = f[c].cat.set_categories(cats)
    order = np.argsort(np.concatenate([_seq(t) for t in tables]), kind="stable")
    return pd.concat(frames, ignore_index=True).take(order).reset_index(drop=True)


def group_by_name(tables):
    """{class name: [tables]} in class order."""
    groups = {}
    for t in tables:
        groups.setdefault(t["name"], []).append(t)
    return groups
