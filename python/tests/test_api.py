"""The API around the columns: selection, time bounds, metadata, types, memory over many reads."""
import gc
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import tracemux

BT = "babeltrace-tests/ctf-traces/succeed/"


@pytest.fixture(scope="module")
def kernel(corpus):
    return tracemux.open(corpus / BT / "lttng-tracefile-rotation")


def test_metadata(kernel, corpus):
    assert len(kernel.event_classes) > 0
    assert [c.index for c in kernel.event_classes] == list(range(len(kernel.event_classes)))
    assert kernel.environment["domain"] == "kernel"
    assert kernel.clocks and kernel.clocks[0].origin_is_unix_epoch
    assert sum(s.files for s in kernel.streams) > len(kernel.streams)   # rotated files
    begin, end = kernel.time_range
    assert begin == min(s.begin_ns for s in kernel.streams)
    assert end == max(s.end_ns for s in kernel.streams)
    t = tracemux.open(corpus / "xray-samples/fdr-v5-small.xray",
                      instr_map=corpus / "xray-samples/instrmap-symbolized.yaml")
    assert t.traces[0].format == "xray"
    assert tracemux.open(corpus / "tracecmd-samples/sched-v7-zstd.dat").traces[0].format \
        == "trace.dat"


def test_selection_by_glob(kernel):
    every = kernel.to_pandas()
    sched = kernel.to_pandas(events=["sched_*"])
    assert set(sched) == {n for n in every if n.startswith("sched_")}
    for name, df in sched.items():
        assert df.equals(every[name])
    with pytest.raises(tracemux.UsageError, match="no_such_event"):
        kernel.to_pandas(events="no_such_event")
    n = sum(1 for ev in kernel.events(events="sched_switch"))
    assert n == len(every["sched_switch"])
    with pytest.raises(tracemux.UsageError):
        kernel.to_numpy("no_such_event")
    with pytest.raises(ValueError):
        kernel.to_numpy("sched_*")   # several classes


def plain(df):
    """A frame with its categoricals as objects: frames of other reads have other categories."""
    return df.astype({c: object for c in df.columns if str(df[c].dtype) == "category"}
                     ).reset_index(drop=True)


def test_time_bounds(kernel):
    df = kernel.to_pandas(events="sched_switch")["sched_switch"]
    ts = df["ts"].astype("int64").to_numpy()
    begin, end = int(ts[len(ts) // 4]), int(ts[len(ts) // 2])
    inside = df[(ts >= begin) & (ts <= end)]
    part = kernel.to_pandas(events="sched_switch", begin=begin, end=end)["sched_switch"]
    assert plain(part).equals(plain(inside))
    evs = list(kernel.events(events="sched_switch", begin=np.datetime64(begin, "ns"),
                             end=pd.Timestamp(end, tz="UTC")))
    assert [ev.ts for ev in evs] == list(ts[(ts >= begin) & (ts <= end)])


def test_filter(kernel, corpus):
    """filter= is the library's expression filter: the same rows as selecting in pandas."""
    every = kernel.to_pandas(events="sched_switch")["sched_switch"]
    kept = kernel.to_pandas(events="sched_switch", filter="prev_tid > 0 && $cpu == 1")
    want = every[(every["prev_tid"] > 0) & (every["cpu"] == 1)]
    assert 0 < len(want) < len(every)
    assert plain(kept["sched_switch"]).equals(plain(want))
    evs = list(kernel.events(filter='prev_comm =~ "^swapper" || next_comm == "bash"'))
    assert evs and all(ev["prev_comm"].startswith("swapper") or ev["next_comm"] == "bash"
                       for ev in evs)
    # Classes the expression cannot hold for are left out; the others keep a frame.
    assert set(kernel.to_pandas(filter="prev_tid >= 0")) == {"sched_switch"}
    tc = tracemux.open(corpus / "tracecmd-samples/sched-v7-zstd.dat")
    frames = tc.to_pandas(events="sched:*", filter="common_pid != 0")
    assert frames and all(n.startswith("sched:") for n in frames)
    assert all((df["common_pid"] != 0).all() for df in frames.values())
    with pytest.raises(tracemux.UsageError) as e:
        kernel.to_pandas(filter="prev_tid ==")
    assert e.value.line == 1 and e.value.column == 12
    with pytest.raises(tracemux.UsageError, match="no_such_field"):
        next(kernel.events(filter="no_such_field == 1"))


def test_column_types(kernel, corpus):
    df = kernel.to_pandas(events="sched_switch")["sched_switch"]
    # The Parquet output's fixed columns and types, whatever the clock's origin.
    assert list(df.columns[:8]) == ["ts", "cycles", "event", "host", "trace", "stream_id",
                                    "stream_class_id", "cpu"]
    assert df["ts"].dtype == np.int64
    assert df["cycles"].dtype == np.uint64
    assert df["prev_tid"].dtype == np.int32
    # Text as categoricals (dictionary codes from C, no Python object per row).
    for c in ("prev_comm", "event", "host", "trace"):
        assert str(df[c].dtype) == "category" and isinstance(df[c].iloc[0], str)
    assert kernel.to_numpy("sched_switch")["prev_comm"].dtype == object
    assert df["cpu"].dtype == np.uint32
    assert set(df["event"]) == {"sched_switch"}
    host = kernel.environment["hostname"]   # the Parquet output's host, the same rule
    assert set(df["host"]) == {host} and host
    arrays = kernel.to_numpy("sched_switch")
    assert arrays["ts"].dtype == np.int64 and arrays["prev_tid"].dtype == np.int32
    # Enumerations: the integer and a categorical label.
    md = tracemux.open(corpus / BT / "multi-domains").to_pandas()["lttng_test_filter_event"]
    assert str(md["enum202_label"].dtype) == "category"
    assert set(md["enum202_label"].cat.categories) == {"RANGE: 101 TO 303"}
    # No clock: ts and cycles are missing values (pandas NA), of the same types.
    nc = tracemux.open(corpus / BT / "succeed1").to_pandas()
    assert all(df["ts"].isna().all() and str(df["ts"].dtype) == "Int64" for df in nc.values())
    # trace.dat (a clock that counts from boot) and XRay: the same fixed types.
    for path in ("tracecmd-samples/sched-v6.dat", "xray-samples/fdr-v5-small.xray"):
        for df in tracemux.open(corpus / path).to_pandas().values():
            assert df["ts"].dtype == np.int64 and df["stream_id"].dtype == np.uint64
            assert str(df["cpu"].dtype) in ("uint32", "UInt32")
    # Variants and optionals: the options not selected are missing values (pandas NA).
    v = tracemux.open(corpus / "ctf2/synthetic/bt2py-all-field-classes").to_pandas()
    nullable = [c for c in v["variants"].columns if v["variants"][c].isna().any()]
    assert nullable


def test_event_access(kernel):
    ev = next(kernel.events(events="sched_switch"))
    assert ev.name == "sched_switch"
    assert isinstance(ev["prev_comm"], str) and ev["prev_comm"] == ev.fields["prev_comm"]
    assert ev["cpu_id"] == ev.cpu
    with pytest.raises(KeyError):
        ev["no_such_field"]
    assert repr(ev).startswith("<tracemux.Event 'sched_switch' ts=")


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_no_leak_over_many_reads(corpus):
    """200 open + to_pandas cycles and 200 event loops: Python and C memory stay flat."""
    path = corpus / BT / "multi-domains"

    def cycle():
        t = tracemux.open(path)
        frames = t.to_pandas()
        assert sum(len(df) for df in frames.values()) == 4272
        for i, ev in enumerate(t.events()):
            ev.fields
            if i == 100:
                break

    for _ in range(20):   # warm-up: caches, allocator pools
        cycle()
    gc.collect()
    tracemalloc.start()
    rss0 = rss_kib()
    snap0 = tracemalloc.take_snapshot()
    for _ in range(200):
        cycle()
    gc.collect()
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(snap0, "filename"))
    tracemalloc.stop()
    # A leaked frame set is ~2 MB a cycle here, a leaked Event or Reader several KiB.
    assert grown < 256 * 1024
    assert rss_kib() - rss0 < 16 * 1024
