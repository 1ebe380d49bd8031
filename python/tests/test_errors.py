"""Errors: damaged traces raise with the file and byte offset the CLI names, after what came before.

The damaged copies are made here: bit flips in a CTF data file (the first
ones, from a fixed seed, that make the CLI stop with an error at a byte
offset after some events) and the trace.dat faults of
tests/golden/test_tracedat_damaged.py (offsets from the files' layout).
Choice documented in tracemux.Trace: events() yields every event before the
fault, then raises; to_pandas()/to_numpy() raise with the frames/arrays of
those events in `partial`.
"""
import random
import re
import shutil
import struct
import warnings

import pytest

import tracemux
from conftest import json_events, run_cli

ERROR_AT = re.compile(r"error: (.*): at byte (\d+): (.*)")


def cli_failure(cli, path):
    """(events printed before the fault, file, offset, message) of a failing CLI run, or None."""
    events, code, err = json_events(cli, [path])
    m = ERROR_AT.search(err)
    if code != 1 or not events or not m:
        return None
    return events, m.group(1), int(m.group(2)), m.group(3).strip()


def check_damaged(path, expected):
    events, file, offset, message = expected
    t = tracemux.open(path)
    seen = []
    with pytest.raises(tracemux.DataError) as info:
        for ev in t.events():
            seen.append((ev.name, ev.ts, ev.stream_id))
    assert seen == [(e["name"], e.get("ts_ns"), e["stream"]["id"]) for e in events]
    err = info.value
    assert (err.file, err.offset, err.message) == (file, offset, message)
    assert err.code == "invalid data"   # tmx_status_name(TMX_ERR_DATA)
    with pytest.raises(tracemux.DataError) as info:
        t.to_pandas()
    err = info.value
    assert (err.file, err.offset) == (file, offset)
    partial = err.partial
    assert sum(len(df) for df in partial.values()) == len(events)
    for name, df in partial.items():
        ts = [e.get("ts_ns") for e in events if e["name"] == name]
        if "ts" in df:
            assert [int(v) for v in df["ts"].astype("int64")] == ts
    return err


@pytest.fixture(scope="module")
def ctf_flips(corpus, cli, tmp_path_factory):
    """Copies of multi-domains/kernel with one flipped bit each, and the CLI's failures on them."""
    src = corpus / "babeltrace-tests/ctf-traces/succeed/multi-domains/kernel"
    data = (src / "kernel_channel_0").read_bytes()
    rng = random.Random(2026)
    cases = []
    for k in range(200):
        pos, bit = rng.randrange(len(data)), rng.randrange(8)
        d = tmp_path_factory.mktemp(f"flip{k}")
        trace = d / "kernel"
        shutil.copytree(src, trace)
        damaged = bytearray(data)
        damaged[pos] ^= 1 << bit
        (trace / "kernel_channel_0").chmod(0o644)
        (trace / "kernel_channel_0").write_bytes(bytes(damaged))
        failure = cli_failure(cli, trace)
        if failure:
            cases.append((trace, failure))
            if len(cases) == 4:
                break
        else:
            shutil.rmtree(d)
    assert len(cases) == 4, "not enough damaging flips found"
    return cases


def test_ctf_damaged_data(ctf_flips):
    for trace, failure in ctf_flips:
        check_damaged(trace, failure)


def zstd_chunk_data(path, cpu_offset, k):
    """File offset of the compressed bytes of chunk k of a CPU's data (as test_tracedat_damaged)."""
    with open(path, "rb") as f:
        pos = cpu_offset + 4
        for _ in range(k):
            f.seek(pos)
            csize, _usize = struct.unpack("<II", f.read(8))
            pos += 8 + csize
    return pos + 8


def tracedat_cases(corpus):
    chunk1 = zstd_chunk_data(corpus / "tracecmd-samples/sched-v7-zstd.dat", 1019904, 1)
    return [
        # A commit larger than the page (CPU 1, third page).
        ("sched-v6.dat", 5513216 + 2 * 4096 + 8, struct.pack("<Q", 0x0fffffff)),
        # A first event of type_len 0 whose length runs past the page (CPU 0, fifth page).
        ("sched-v6.dat", 5447680 + 4 * 4096 + 16, struct.pack("<II", 1 << 5, 0x10000)),
        # The zstd frame magic of CPU 0's second chunk.
        ("sched-v7-zstd.dat", chunk1, b"XXXX"),
    ]


def damaged_tracedat(corpus, tmp_path):
    """(name, offset, path) of a copy of each tracedat_cases() file with its fault written in."""
    for i, (name, where, data) in enumerate(tracedat_cases(corpus)):
        bad = tmp_path / f"{i}-{name}"
        shutil.copyfile(corpus / "tracecmd-samples" / name, bad)
        with open(bad, "r+b") as f:
            f.seek(where)
            f.write(data)
        yield name, where, bad


def test_tracedat_damaged(corpus, cli, tmp_path):
    for name, where, bad in damaged_tracedat(corpus, tmp_path):
        failure = cli_failure(cli, bad)
        assert failure, f"{name}@{where}: the CLI does not fail after some events"
        err = check_damaged(bad, failure)
        assert err.offset == where
        # lenient: the damaged page or chunk is skipped with a warning.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                frames = tracemux.open(bad, lenient=True).to_pandas()
            except tracemux.DataError as e:   # the skip is still reported at the end
                frames = e.partial
        assert any(issubclass(w.category, tracemux.TraceWarning) for w in caught)
        assert sum(len(df) for df in frames.values()) > len(failure[0])


def test_open_errors(corpus, tmp_path):
    with pytest.raises(tracemux.InputError) as info:
        tracemux.open(tmp_path / "missing")
    assert info.value.file == str(tmp_path / "missing")
    assert info.value.offset is None
    # Invalid metadata: a text position instead of a byte offset.
    fail = corpus / "babeltrace-tests/ctf-traces/fail"
    with pytest.raises(tracemux.Error) as info:
        tracemux.open(fail / "invalid-sequence-length-field-class")
    assert info.value.file and info.value.message
    # Not a trace at all.
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a trace\n")
    with pytest.raises(tracemux.UnsupportedError):
        tracemux.open(junk)
