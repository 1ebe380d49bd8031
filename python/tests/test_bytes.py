"""Byte strings (BLOBs, arrays of uint8) without a Python object per row.

to_pandas gives them as a BytesArray (tracemux._bytes: Arrow's binary
layout, offsets and one buffer of bytes, over NumPy); to_numpy as a 2-D
uint8 array when their length is static, else bytes objects.  The values are
checked against `tracemux -o json` (BLOBs as hex text, arrays of uint8 as
lists of integers); the array's operations (take, slices, concatenation,
masks, copies) against the same operations on a list of bytes.
"""
import numpy as np
import pandas as pd
import pytest

import tracemux
from tracemux._bytes import BytesArray, BytesDtype
from conftest import json_events

ALL = "ctf2/synthetic/bt2py-all-field-classes"
LTTNG = "babeltrace-tests/ctf-traces/succeed/session-rotation"


def json_values(cli, trace, name, field):
    events, code, err = json_events(cli, [trace])
    assert code == 0, err
    out = []
    for e in events:
        if e["name"] == name:
            v = e["payload"][field]
            out.append(bytes.fromhex(v) if isinstance(v, str) else bytes(v))
    return out


@pytest.mark.parametrize("trace, name, field, width", [
    (ALL, "blobs", "sblob", 6), (ALL, "blobs", "dblob", None),
    (LTTNG, "lttng_ust_statedump:build_id", "build_id", None)])
def test_columns_are_byte_arrays(corpus, cli, trace, name, field, width):
    t = tracemux.open(corpus / trace)
    df = t.to_pandas(events=name)[name]
    col = df[field]
    assert isinstance(col.dtype, BytesDtype) and isinstance(col.array, BytesArray)
    want = json_values(cli, corpus / trace, name, field)
    assert list(col) == want and len(want) > 0
    # One buffer of bytes and the offsets: no object per row.
    assert col.array.values_buffer.nbytes == sum(map(len, want))
    assert col.array.offsets.dtype == np.int64 and len(col.array.offsets) == len(want) + 1
    assert df.memory_usage(deep=True)[field] == col.array.nbytes
    arr = t.to_numpy(name)[field]
    if width:   # static length: a 2-D uint8 array
        assert arr.dtype == np.uint8 and arr.shape == (len(want), width)
        assert [bytes(r) for r in arr] == want
    else:
        assert arr.dtype == object and list(arr) == want
    # The event API gives the same bytes.
    assert [ev[field] for ev in t.events(events=name)] == want


ROWS = [b"ab", None, b"", b"\x00\xffz", b"longer value", None, b"x"]


def array():
    return BytesArray._from_sequence(ROWS)


def test_array_basics():
    a = array()
    assert len(a) == len(ROWS) and list(a) == ROWS
    assert list(a.isna()) == [r is None for r in ROWS]
    assert a[3] == b"\x00\xffz" and a[-1] == b"x" and a[1] is None
    with pytest.raises(IndexError):
        a[len(ROWS)]
    assert list(a[2:5]) == ROWS[2:5]
    assert list(a[np.array([True, False] * 3 + [True])]) == [r for i, r in enumerate(ROWS) if i % 2 == 0]
    assert list(a.take([6, 0, 0, 3])) == [ROWS[6], ROWS[0], ROWS[0], ROWS[3]]
    assert list(a.take([0, -1, 4], allow_fill=True)) == [ROWS[0], None, ROWS[4]]
    assert list(a.take([-1])) == [ROWS[-1]]
    with pytest.raises(IndexError):
        a.take([7])
    c = a[2:5].copy()
    assert list(c) == ROWS[2:5] and c.values_buffer.nbytes == sum(len(r) for r in ROWS[2:5])
    both = BytesArray._concat_same_type([a[3:], a[:2]])
    assert list(both) == ROWS[3:] + ROWS[:2]
    assert list(np.asarray(a)) == ROWS
    assert list(BytesArray._from_sequence([])) == []


def test_array_in_pandas():
    s = pd.Series(array())
    assert str(s.dtype) == "tracemux.bytes"
    assert list(s.iloc[::-1]) == ROWS[::-1]
    assert list(pd.concat([s, s], ignore_index=True)) == ROWS + ROWS
    assert s.isna().sum() == 2 and list(s.dropna()) == [r for r in ROWS if r is not None]
    df = pd.DataFrame({"b": s, "k": np.arange(len(ROWS)) % 2})
    assert list(df.sort_values("k", kind="stable")["b"]) == \
        [r for i, r in enumerate(ROWS) if i % 2 == 0] + [r for i, r in enumerate(ROWS) if i % 2]
    assert list(s.astype(object)) == ROWS


METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
trace { major = 1; minor = 8; byte_order = le; };
stream { event.header := struct { uint32_t id; }; };
event {
    name = "e"; id = 0;
    fields := struct {
        enum : uint8_t { A = 0, B = 1 } sel;
        variant <sel> { uint8_t A[3]; uint32_t B; } v;
        uint8_t n;
        uint8_t seq[n];
    };
};
"""
# (option A's bytes or option B's integer, the sequence's bytes)
EVENTS = [(b"abc", b"xy"), (7, b""), (b"\x00\x00\x01", b"\xff")]


def byte_trace(tmp_path):
    """A CTF 1.8 trace with a static uint8 array inside a variant (a nullable column:
    missing where the other option is selected) and a sequence of uint8."""
    d = tmp_path / "bytes-trace"
    d.mkdir()
    (d / "metadata").write_text(METADATA)
    data = b""
    for v, seq in EVENTS:
        data += (0).to_bytes(4, "little")
        data += (bytes([0]) + v) if isinstance(v, bytes) else bytes([1]) + v.to_bytes(4, "little")
        data += bytes([len(seq)]) + seq
    (d / "stream").write_bytes(data)
    return d


def test_nullable_and_variable(cli, tmp_path):
    d = byte_trace(tmp_path)
    t = tracemux.open(d)
    df = t.to_pandas()["e"]
    want_a = [v if isinstance(v, bytes) else None for v, _ in EVENTS]
    want_seq = [s for _, s in EVENTS]
    assert isinstance(df["v.A"].dtype, BytesDtype) and list(df["v.A"]) == want_a
    assert list(df["seq"]) == want_seq and list(df["v.B"].astype(object)) == [pd.NA, 7, pd.NA]
    arr = t.to_numpy("e")
    assert arr["v.A"].shape == (3, 3) and list(np.ma.getmaskarray(arr["v.A"]).any(axis=1)) == \
        [False, True, False]
    assert [bytes(r) for r, v in zip(np.ma.getdata(arr["v.A"]), want_a) if v] == [v for v in want_a if v]
    assert list(arr["seq"]) == want_seq
    assert [ev.fields.get("v.A") for ev in t.events()] == want_a
    # The CLI reads the same values (JSON: arrays of uint8 as lists of integers).
    events, code, err = json_events(cli, [d])
    assert code == 0, err
    assert [bytes(e["payload"]["seq"]) for e in events] == want_seq
    assert [bytes(e["payload"]["v"]["value"]) if e["payload"]["v"]["option"] == "A" else None
            for e in events] == want_a
