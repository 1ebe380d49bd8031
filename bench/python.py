#!/usr/bin/python3
"""The Python package against babeltrace2's Python bindings, same trace, same run.

    bench/python.py [EVENTS] [RUNS]      defaults: 1000000 events, best of 3

Builds one DataFrame of every `sched:switch` event of a generated LTTng-like
trace (bench/gen-lttng-like.py, 40% of its events) twice: with
tracemux.open(...).to_pandas() and with bt2.TraceCollectionMessageIterator,
collecting the same columns (ts, cycles, stream ids, cpu, packet context,
common context, payload) into lists and then pandas.  Checks that both
frames hold the same values, then prints wall times (best of RUNS, each in
a fresh process), the ratio, and the peak RSS growth of the read next to the
DataFrame's own size (memory_usage(deep=True)).  Then to_pandas() of every
class (its default jobs: every CPU) against `tracemux -o parquet` of the
same trace (the CLI next to the package: TRACEMUX_CLI, else
build/tracemux), best of RUNS each, with the peak RSS growth of
to_pandas() against the frames' own size, and to_pandas() of every class
with jobs 1, 2, 4 ... up to every CPU.  Needs the package installed
for /usr/bin/python3 (or PYTHONPATH) and Debian's python3-bt2.  Not part of
the test suite.
"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLASS = "sched:switch"


def status_kib(key):
    """VmRSS (now) or VmHWM (peak) of this process: ru_maxrss would also count the
    parent's peak before the exec."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def with_tracemux(trace):
    import tracemux
    return tracemux.open(trace).to_pandas(events=CLASS)[CLASS]


def every_class(trace, jobs=None):
    import tracemux
    return tracemux.open(trace).to_pandas(jobs=jobs)


def with_bt2(trace):
    """The same columns as to_pandas() makes, from bt2's objects, one event at a time."""
    import bt2
    import numpy as np
    import pandas as pd

    cols = {k: [] for k in ("ts", "cycles", "trace", "stream_id", "stream_class_id", "cpu")}
    names = None
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is not bt2._EventMessageConst or msg.event.name != CLASS:
            continue
        ev = msg.event
        snap = msg.default_clock_snapshot
        pc, cc, pl = ev.packet.context_field, ev.common_context_field, ev.payload_field
        if names is None:
            names = [("p", k) for k in pc] + [("c", k) for k in cc] + [("e", k) for k in pl]
            for _, k in names:
                cols[k] = []
        cols["ts"].append(snap.ns_from_origin)
        cols["cycles"].append(snap.value)
        cols["trace"].append(ev.stream.trace.name)
        cols["stream_id"].append(ev.stream.id)
        cols["stream_class_id"].append(ev.stream.cls.id)
        cols["cpu"].append(int(pc["cpu_id"]))
        for scope, k in names:
            f = (pc if scope == "p" else cc if scope == "c" else pl)[k]
            cols[k].append(str(f) if isinstance(f, bt2._StringFieldConst) else int(f))
    df = pd.DataFrame(cols)
    df["ts"] = df["ts"].astype(np.int64)   # ns from the clock's origin, as to_pandas()
    for k in ("cycles", "stream_id", "stream_class_id"):
        df[k] = df[k].astype(np.uint64)
    df["cpu"] = df["cpu"].astype(np.uint32)
    return df


def measure(tool, trace):
    """One read in this process: wall time, peak RSS growth and the frame's size, as JSON."""
    import pandas  # noqa: F401  (imports are not part of the read)
    if tool == "bt2":
        import bt2  # noqa: F401
    else:
        import tracemux  # noqa: F401
    before = status_kib("VmRSS")
    t0 = time.perf_counter()
    cpu0 = time.process_time()
    if tool.startswith("all"):   # "all": the default jobs (every CPU), "all:N": N jobs
        frames = list(every_class(trace, int(tool[4:]) if tool[3:4] == ":" else None).values())
    else:
        frames = [with_bt2(trace) if tool == "bt2" else with_tracemux(trace)]
    wall = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    peak = status_kib("VmHWM")
    print(json.dumps({"wall": wall, "cpu": cpu, "rows": sum(len(df) for df in frames),
                      "peak_growth_kib": peak - before,
                      "deep_bytes": sum(int(df.memory_usage(deep=True).sum()) for df in frames),
                      "shallow_bytes": sum(int(df.memory_usage(deep=False).sum()) for df in frames)}))


def parquet_cli(trace):
    """`tracemux -o parquet` of the trace into a temporary directory: wall and CPU seconds."""
    import shutil
    import tempfile
    cli = os.environ.get("TRACEMUX_CLI") or os.path.join(os.path.dirname(HERE), "build", "tracemux")
    out = tempfile.mkdtemp(prefix="tracemux-bench-pq-")
    try:
        t0 = time.perf_counter()
        before = os.times()
        subprocess.run([cli, "-o", "parquet", "-w", out, trace], check=True)
        after = os.times()
        return {"wall": time.perf_counter() - t0,
                "cpu": after.children_user + after.children_system
                - before.children_user - before.children_system}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def run(tool, trace):
    out = subprocess.run([sys.executable, __file__, "--measure", tool, trace], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def same_frames(trace):
    ours, theirs = with_tracemux(trace), with_bt2(trace)
    common = [c for c in theirs.columns if c in ours.columns]
    missing = set(theirs.columns) - set(ours.columns)
    if missing or len(ours) != len(theirs):
        return f"columns {missing} or rows {len(ours)} vs {len(theirs)} differ"
    for c in common:
        if not (ours[c].astype(object).to_numpy() == theirs[c].astype(object).to_numpy()).all():
            return f"column {c} differs"
    return None


def main():
    if sys.argv[1:2] == ["--measure"]:
        measure(sys.argv[2], sys.argv[3])
        return
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    trace = os.environ.get("BENCH_TRACE_DIR", f"/tmp/tracemux-bench-{events}")
    if not os.path.isfile(os.path.join(trace, "metadata")):
        print(f"generating {events} events into {trace} ...")
        subprocess.run([sys.executable, os.path.join(HERE, "gen-lttng-like.py"), trace,
                        "--events", str(events)], check=True)
    problem = same_frames(trace)
    if problem:
        sys.exit(f"the two DataFrames differ: {problem}")
    results = {}
    for tool in ("tracemux", "bt2"):
        best = min((run(tool, trace) for _ in range(runs if tool == "tracemux" else 1)),
                   key=lambda r: r["wall"])
        results[tool] = best
        print(f"{tool:9} {best['rows']} rows in {best['wall']:.3f} s "
              f"({best['rows'] / best['wall'] / 1e6:.2f} M rows/s), peak RSS growth "
              f"{best['peak_growth_kib'] / 1024:.1f} MiB; DataFrame {best['deep_bytes'] / 2**20:.1f} MiB "
              f"(deep), {best['shallow_bytes'] / 2**20:.1f} MiB (shallow)")
    t, b = results["tracemux"], results["bt2"]
    print(f"bt2 / tracemux: {b['wall'] / t['wall']:.1f}x wall, {b['cpu'] / t['cpu']:.1f}x CPU "
          f"(a busy machine stretches the wall times); tracemux's peak RSS growth / DataFrame "
          f"(deep): {t['peak_growth_kib'] * 1024 / t['deep_bytes']:.2f}")
    # Every class: to_pandas() against -o parquet, same trace, same run.
    a = min((run("all", trace) for _ in range(runs)), key=lambda r: r["wall"])
    pq = min((parquet_cli(trace) for _ in range(runs)), key=lambda r: r["wall"])
    print(f"to_pandas() of every class: {a['rows']} rows in {a['wall']:.3f} s ({a['cpu']:.3f} s CPU), "
          f"peak RSS growth {a['peak_growth_kib'] / 1024:.1f} MiB; DataFrames "
          f"{a['deep_bytes'] / 2**20:.1f} MiB (deep), {a['shallow_bytes'] / 2**20:.1f} MiB (shallow)")
    print(f"-o parquet: {pq['wall']:.3f} s ({pq['cpu']:.3f} s CPU)")
    print(f"to_pandas() (every class) / -o parquet: {a['wall'] / pq['wall']:.2f}x wall, "
          f"{a['cpu'] / pq['cpu']:.2f}x CPU; "
          f"peak RSS growth / DataFrames (deep): {a['peak_growth_kib'] * 1024 / a['deep_bytes']:.2f}")
    # to_pandas() of every class on 1, 2, 4 ... threads, up to every CPU.
    cpus = len(os.sched_getaffinity(0))
    jobs = sorted({1 << k for k in range(cpus.bit_length()) if 1 << k <= cpus} | {cpus})
    for j in jobs:
        b = min((run(f"all:{j}", trace) for _ in range(runs)), key=lambda r: r["wall"])
        print(f"to_pandas() of every class, jobs {j}: {b['wall']:.3f} s ({b['cpu']:.3f} s CPU), "
              f"{b['wall'] / a['wall']:.2f}x the default's wall")


if __name__ == "__main__":
    main()
