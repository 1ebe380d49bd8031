"""Parquet files of one schema concatenated into one file, their bytes copied as they are.

tracemux.dask converts each trace on its own worker; the event tables of
different traces never share a file, but `_streams.parquet` and
`_traces.parquet` are one file per dataset (as the command line writes
them).  Each worker writes its own, and they are joined here: the column
chunks of every file are copied one after the other and a new footer lists
every file's row groups with their offsets moved by where the file's bytes
now start.  Only the footer is decoded (Thrift's compact protocol, the
encoding of Parquet's FileMetaData), as a tree of (field id, type, value)
that is written back with the few offsets changed, so fields this module
does not know pass through untouched.  No Parquet library is needed
(Debian 12 has no python3-pyarrow).
"""
import struct

MAGIC = b"PAR1"

# Compact protocol types.
T_STOP, T_TRUE, T_FALSE, T_BYTE, T_I16, T_I32, T_I64, T_DOUBLE, T_BINARY, T_LIST, T_SET, T_MAP, \
    T_STRUCT = range(13)


class _Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def varint(self):
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def zigzag(self):
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, t):
        if t in (T_TRUE, T_FALSE):
            return t == T_TRUE
        if t == T_BYTE:
            return self.byte()
        if t in (T_I16, T_I32, T_I64):
            return self.zigzag()
        if t == T_DOUBLE:
            self.pos += 8
            return self.data[self.pos - 8:self.pos]
        if t == T_BINARY:
            n = self.varint()
            self.pos += n
            return self.data[self.pos - n:self.pos]
        if t in (T_LIST, T_SET):
            head = self.byte()
            n, et = head >> 4, head & 0x0F
            if n == 15:
                n = self.varint()
            # Booleans in containers are one byte each: 1 true, 2 (or 0) false.
            return et, [self.byte() == T_TRUE if et in (T_TRUE, T_FALSE) else self.value(et)
                        for _ in range(n)]
        if t == T_MAP:
            n = self.varint()
            kv = self.byte() if n else 0
            return kv, [(self.value(kv >> 4), self.value(kv & 0x0F)) for _ in range(n)]
        if t == T_STRUCT:
            return self.struct()
        raise ValueError(f"Parquet footer: unknown Thrift type {t} at byte {self.pos}")

    def struct(self):
        fields, last = [], 0
        while True:
            head = self.byte()
            t = head & 0x0F
            if t == T_STOP:
                return fields
            last = last + (head >> 4) if head >> 4 else self.zigzag()
            fields.append([last, t, self.value(t)])


class _Writer:
    def __init__(self):
        self.out = bytearray()

    def varint(self, n):
        while n > 0x7F:
            self.out.append((n & 0x7F) | 0x80)
            n >>= 7
        self.out.append(n)

    def zigzag(self, n):
        self.varint((n << 1) ^ (n >> 63))

    def value(self, t, v):
        if t in (T_TRUE, T_FALSE):
            return   # in the field header
        if t == T_BYTE:
            self.out.append(v)
        elif t in (T_I16, T_I32, T_I64):
            self.zigzag(v)
        elif t == T_DOUBLE:
            self.out += v
        elif t == T_BINARY:
            self.varint(len(v))
            self.out += v
        elif t in (T_LIST, T_SET):
            et, items = v
            if len(items) < 15:
                self.out.append(len(items) << 4 | et)
            else:
                self.out.append(0xF0 | et)
                self.varint(len(items))
            for item in items:
                if et in (T_TRUE, T_FALSE):
                    self.out.append(T_TRUE if item else T_FALSE)
                else:
                    self.value(et, item)
        elif t == T_MAP:
            kv, items = v
            self.varint(len(items))
            if items:
                self.out.append(kv)
            for k, x in items:
                self.value(kv >> 4, k)
                self.value(kv & 0x0F, x)
        else:
            self.struct(v)

    def struct(self, fields):
        last = 0
        for fid, t, v in fields:
            if t in (T_TRUE, T_FALSE):
                t = T_TRUE if v else T_FALSE
            if 0 < fid - last <= 15:
                self.out.append((fid - last) << 4 | t)
            else:
                self.out.append(t)
                self.zigzag(fid)
            last = fid
            self.value(t, v)
        self.out.append(T_STOP)


def _field(fields, fid):
    return next((f for f in fields if f[0] == fid), None)


def _shift(fields, fids, by):
    for f in fields:
        if f[0] in fids and f[2] > 0:
            f[2] += by


def _footer(data, path):
    if len(data) < 12 or data[:4] != MAGIC or data[-4:] != MAGIC:
        raise ValueError(f"{path}: not a Parquet file")
    n = struct.unpack("<I", data[-8:-4])[0]
    if n > len(data) - 12:
        raise ValueError(f"{path}: the footer length {n} runs past the file's start")
    return _Reader(data[-8 - n:-8]).struct(), len(data) - 8 - n


def concat(paths, out):
    """Writes the rows of the Parquet files `paths` (in that order; one schema) to `out`."""
    body, row_groups, rows, first, schema = bytearray(MAGIC), [], 0, None, None
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        meta, end = _footer(data, path)
        mine = _Writer()
        mine.value(T_LIST, _field(meta, 2)[2])
        if schema is None:
            first, schema = meta, bytes(mine.out)
        elif bytes(mine.out) != schema:
            raise ValueError(f"{path}: its schema differs from {paths[0]}'s")
        shift = len(body) - 4   # its bytes after PAR1 now start there
        body += data[4:end]
        rows += _field(meta, 3)[2]
        groups = _field(meta, 4)
        for rg in groups[2][1] if groups else []:
            _shift(rg, (5,), shift)                       # RowGroup.file_offset
            for chunk in _field(rg, 1)[2][1]:
                _shift(chunk, (2, 4, 6), shift)           # file, offset and column index offsets
                cmd = _field(chunk, 3)
                if cmd:                                   # ColumnMetaData: data, index,
                    _shift(cmd[2], (9, 10, 11, 14), shift)  # dictionary pages, bloom filter
            row_groups.append(rg)
    if first is None:
        raise ValueError("no Parquet file to join")
    meta = [list(f) for f in first]
    _field(meta, 3)[2] = rows
    if _field(meta, 4):
        _field(meta, 4)[2] = (T_STRUCT, row_groups)
    w = _Writer()
    w.struct(meta)
    with open(out, "wb") as f:
        f.write(body + w.out + struct.pack("<I", len(w.out)) + MAGIC)
