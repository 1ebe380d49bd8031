"""Reader.read on several threads (jobs): the same frames, dtypes, categories and errors whatever the number.

to_pandas()/to_numpy() decode and format on `jobs` threads (tmx_run and the
extension's custom sink) and fill the tables in the read's order: the
frames of jobs 2 and 4 must be those of jobs 1, dictionary codes
(categories' order) included, on every format, with a time range, and on
damaged traces (the same rows before the same error).
"""
import shutil

import numpy as np
import pandas as pd
import pytest

import tracemux
from conftest import generated_trace
from test_errors import damaged_tracedat

JOBS = (2, 4)
# A few traces of every format (paths in the corpus, XRay instrumentation map or None).
CORPUS = [
    ("babeltrace-tests/ctf-traces/succeed/multi-domains", None),
    ("babeltrace-tests/ctf-traces/succeed/lttng-tracefile-rotation", None),
    ("babeltrace-tests/ctf-traces/succeed/meta-variant-same-with-underscore", None),
    ("ctf2/synthetic/bt2py-all-field-classes", None),
    ("ctf2/handmade/edge-cases", None),
    ("ctf2/bt-tests/2/succeed/fl-bm", None),
    ("tracecmd-samples/sched-v7-zstd.dat", None),
    ("tracecmd-samples/sched-v6.dat", None),
    ("tracecmd-samples/multibuf-v7-zstd.dat", None),
    ("xray-samples/fdr-v5-small.xray", "xray-samples/instrmap-symbolized.yaml"),
    ("xray-samples/basic-v3-small.xray", "xray-samples/instrmap.yaml"),
    ("xray-samples/fdr-v5-tinybuf-dropped.xray", None),
]


def assert_same_frames(a, b):
    assert list(a) == list(b)
    for name in a:
        x, y = a[name], b[name]
        assert list(x.columns) == list(y.columns), name
        assert list(map(str, x.dtypes)) == list(map(str, y.dtypes)), name
        assert x.equals(y), name
        for c in x.columns:
            if isinstance(x[c].dtype, pd.CategoricalDtype):   # codes in order of first appearance
                assert list(x[c].cat.categories) == list(y[c].cat.categories), (name, c)
                assert np.array_equal(x[c].cat.codes.to_numpy(), y[c].cat.codes.to_numpy()), (name, c)


def read(path, jobs, instr_map=None, **kw):
    """(frames, the error's (type, file, offset, message) or None)"""
    try:
        return tracemux.open(path, instr_map=instr_map).to_pandas(jobs=jobs, **kw), None
    except tracemux.Error as e:
        return e.partial, (type(e).__name__, e.file, e.offset, e.message)


def assert_jobs_agree(path, instr_map=None, **kw):
    base, error = read(path, 1, instr_map, **kw)
    for jobs in JOBS:
        frames, err = read(path, jobs, instr_map, **kw)
        assert err == error, jobs
        assert_same_frames(base, frames)
    return base, error


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    return generated_trace(tmp_path_factory, "parallel", 30000)


def test_generated_trace(trace):
    frames, error = assert_jobs_agree(trace)
    assert error is None and sum(len(df) for df in frames.values()) == 30000


def test_to_numpy(trace):
    one = tracemux.open(trace).to_numpy("sched:switch", jobs=1)
    for jobs in JOBS + (None, 0):
        arrays = tracemux.open(trace).to_numpy("sched:switch", jobs=jobs)
        assert list(arrays) == list(one)
        for c in one:
            assert arrays[c].dtype == one[c].dtype, c
            assert np.array_equal(arrays[c], one[c]), c


def test_time_range(trace):
    t = tracemux.open(trace)
    lo, hi = t.time_range
    begin, end = lo + (hi - lo) // 3, lo + 2 * (hi - lo) // 3
    frames, _ = assert_jobs_agree(trace, begin=begin, end=end)
    rows = sum(len(df) for df in frames.values())
    assert 0 < rows < 30000
    assert all(((df.ts.astype("int64") >= begin) & (df.ts.astype("int64") <= end)).all()
               for df in frames.values() if len(df))
    frames, _ = assert_jobs_agree(trace, begin=begin)
    assert 0 < sum(len(df) for df in frames.values()) < 30000


def test_selection(trace):
    assert_jobs_agree(trace, events=["sched:*", "net:*"], filter="$cpu == 1")


@pytest.mark.parametrize("path,instr_map", CORPUS, ids=[p.split("/")[-1] for p, _ in CORPUS])
def test_corpus(corpus, path, instr_map):
    assert_jobs_agree(corpus / path, corpus / instr_map if instr_map else None)


def test_tracedat_segments(corpus, monkeypatch):
    """Long trace.dat streams split into segments read by several threads."""
    monkeypatch.setenv("TRACEMUX_SEGMENT_BYTES", "4096")
    for name in ("sched-v7-zstd.dat", "sched-v6.dat"):
        assert_jobs_agree(corpus / "tracecmd-samples" / name)


def test_damaged(corpus, tmp_path):
    """The same rows before the same error: trace.dat faults and a truncated CTF stream."""
    for name, where, bad in damaged_tracedat(corpus, tmp_path):
        frames, error = assert_jobs_agree(bad)
        assert error is not None and error[2] == where and frames
    src = corpus / "babeltrace-tests/ctf-traces/succeed/multi-domains"
    cut = tmp_path / "cut"
    shutil.copytree(src, cut)
    data = cut / "kernel" / "kernel_channel_0"
    data.chmod(0o644)
    with open(data, "r+b") as f:
        f.truncate(data.stat().st_size * 2 // 3 + 13)
    frames, error = assert_jobs_agree(cut)
    assert error is not None and error[0] == "DataError" and frames


def test_jobs_argument(trace):
    with pytest.raises(ValueError):
        tracemux.open(trace).to_pandas(jobs=-1)
