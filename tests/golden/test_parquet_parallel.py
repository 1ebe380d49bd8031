"""-o parquet on the parallel runner: the dataset's bytes never depend on the number of jobs.

Runs -o parquet on corpus CTF 1.8 and CTF 2 traces, trace.dat files, XRay logs, a fleet
of the three formats with --partition host,trace, and damaged copies (cuts and bit flips,
see test_parallel.py), each with the default row groups and with row groups of 7 rows in
parts of 2 groups (many row groups: the queue of groups being encoded on the runner's
threads is full most of the time), with --jobs 1, 2 and 4, and requires the same exit
status, standard output and standard error and the same files with the same bytes.
--jobs 1 is the sequential path that test_parquet.py reads back with DuckDB against
-o json and the real tools; this test makes the parallel path answer for the same bytes.

Then the trace.dat inputs with their streams read in segments (src/par/split.c,
TRACEMUX_SEGMENT_BYTES: every stream of two pages or compressed chunks or more cut into
segments of one), several threads making one stream's records at once: a one-CPU trace of
79 compressed chunks, a third of the corpus and repository files, and damaged copies of the one-CPU
trace, the same dataset bytes with --jobs 1, 2 and 4.

Also a trace made by tests/data/make-long-records.py, whose records (up to 580 KB) are
longer than the room a worker writes them in (src/sink/parquet/format.c).

--quick: a small subset, for the ThreadSanitizer build.
"""
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile

from bt2ref import Report, parse_args, run
from jobsdiff import cut_or_flip, files_difference, jobs_difference, take_quick_flag
from test_parallel import damaged_copies

JOBS = ["1", "2", "4"]
SETS = [[], ["--parquet-row-group-rows=7", "--parquet-part-row-groups=2"]]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(os.path.dirname(HERE), "data")


def inputs(corpus, quick):
    bt = os.path.join(corpus, "babeltrace-tests/ctf-traces/succeed")
    ctf = sorted(os.path.dirname(m) for m in glob.glob(os.path.join(bt, "**/metadata"), recursive=True))
    ctf2 = sorted(d for d in glob.glob(os.path.join(corpus, "ctf2/converted/*"))
                  if os.path.isfile(os.path.join(d, "metadata")))
    dat = sorted(glob.glob(os.path.join(corpus, "tracecmd-samples/*.dat")) +
                 glob.glob(os.path.join(DATA, "tracedat/*.dat")))
    xray = sorted(glob.glob(os.path.join(corpus, "xray-samples/*.xray")) +
                  glob.glob(os.path.join(DATA, "xray/*.xray")))
    ours = [os.path.join(DATA, "sample-trace")]
    if quick:
        return ctf[::10] + ctf2[::60] + dat[:2] + xray[:1] + ours
    return ctf + ctf2[::4] + dat + xray + ours


def written(out_dir):
    """Every file under out_dir: relative path -> bytes."""
    files = {}
    for root, _, names in os.walk(out_dir):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, out_dir)] = f.read()
    return files


def compare(report, args, work, what, argv, need_events=False):
    out_dir = os.path.join(work, "ds")
    results = {}
    for j in JOBS:
        shutil.rmtree(out_dir, ignore_errors=True)
        code, out, err = run(args.tracemux, ["--jobs", j, "-o", "parquet", "-w", out_dir] + argv,
                             timeout=120)
        results[j] = (code, out, err, written(out_dir))
    ref = results[JOBS[0]][3]
    detail = jobs_difference(results, JOBS)
    if not detail and need_events and not any("/part-" in name for name in ref):
        detail = f"no event table written: {sorted(ref)}"
    detail = detail or files_difference(results, JOBS)
    if detail:
        report.fail(what, detail)
    else:
        report.ok()


ONE_CPU = "tracecmd-samples/external/hip24_documentation_tca_test_trace-Salamander4_4780888b.dat"


def segments(report, args, work, quick, each_set, rng):
    """trace.dat streams read in segments of one page or chunk."""
    one_cpu = os.path.join(args.corpus, ONE_CPU)
    dat = [p for p in inputs(args.corpus, quick) if p.endswith(".dat")][::3]
    os.environ["TRACEMUX_SEGMENT_BYTES"] = "4096"
    try:
        for n, path in enumerate([one_cpu] + dat):
            each_set(f"segments: {os.path.relpath(path, args.corpus)}", [path],
                     SETS if n % 2 == 0 else SETS[:1], need_events=True)
        with open(one_cpu, "rb") as f:
            original = f.read()
        trace = os.path.join(work, os.path.basename(one_cpu))
        for k in range(1 if quick else 2):
            pos = rng.randrange(len(original) // 2, len(original))
            damaged, kind = cut_or_flip(original, pos, k, rng)
            with open(trace, "wb") as f:
                f.write(damaged)
            each_set(f"segments: {ONE_CPU} {kind}", [trace], SETS[:1])
            each_set(f"segments: {ONE_CPU} {kind} --lenient", ["--lenient", trace], SETS[:1])
    finally:
        del os.environ["TRACEMUX_SEGMENT_BYTES"]


def main():
    quick = take_quick_flag()
    args = parse_args()
    report = Report("-o parquet on the parallel runner (--jobs 1, 2, 4)")
    work = tempfile.mkdtemp(prefix="tracemux-parquet-parallel-")
    try:
        def each_set(what, argv, sets=SETS, need_events=False):
            for opts in sets:
                compare(report, args, work, f"{what} {' '.join(opts)}".strip(), opts + argv,
                        need_events)

        # Small row groups on every other input: the time stays under a minute.
        for n, path in enumerate(inputs(args.corpus, quick)):
            each_set(os.path.relpath(path, args.corpus), [path], SETS if n % 2 == 0 else SETS[:1],
                     path.endswith("sample-trace"))
        # A fleet: CTF, trace.dat and XRay in one dataset, partitioned.
        ctf = os.path.join(args.corpus, "babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u")
        dat = sorted(glob.glob(os.path.join(args.corpus, "tracecmd-samples/*.dat")))[:2]
        xray = sorted(glob.glob(os.path.join(args.corpus, "xray-samples/*.xray")))[:1]
        fleet = [ctf, os.path.join(DATA, "sample-trace")] + dat + xray
        each_set("fleet --partition host,trace", ["--partition", "host,trace"] + fleet,
                 need_events=True)
        each_set("fleet --partition trace", ["--partition", "trace"] + fleet)
        # Records longer than a worker's output buffer, or than the room left in it.
        subprocess.run([sys.executable, os.path.join(DATA, "make-long-records.py"), work], check=True)
        each_set("long records", [os.path.join(work, "long-records")], need_events=True)
        # Damaged inputs: what is written before the fault, then the same error.
        rng = random.Random(28)
        for what, trace, _ in damaged_copies(args, work, rng):
            each_set(what, [trace])
            if quick:
                break
        segments(report, args, work, quick, each_set, rng)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
