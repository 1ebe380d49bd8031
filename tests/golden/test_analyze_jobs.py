"""`tracemux analyze` decoded on every core: the same bytes whatever --jobs.

analyze formats each event's record on the runner's threads and runs the
kernel state on the calling thread in the trace's order (src/tools/analyze/
an_event.c, an_core.c).  Every command, as text and as --mi, on kernel CTF
traces of test_analyze.py, trace.dat files of test_analyze_tracedat.py and
the I/O trace of test_analyze_io.py, with --jobs 1, 2 and 4: the same exit
status, standard output and standard error.  Also with --begin/--end (the
run ended by the analysis, not the source), on copies cut short (a read
error mid-trace: what was analysed before it, then the error), and with
TRACEMUX_SEGMENT_BYTES=4096 (a trace.dat CPU read in segments by several
threads, src/par/split.c).

--reference BIN: also compare --jobs 1 with BIN's output (BIN without
--jobs: the sequential analyze before this change).
--quick: a small subset, for the ThreadSanitizer build.
"""
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from bt2ref import Report, parse_args, run
from jobsdiff import jobs_difference, take_quick_flag

JOBS = ["1", "2", "4"]
HERE = os.path.dirname(os.path.abspath(__file__))
IO_TRACE = os.path.join(HERE, "..", "data", "analyze-io", "kernel")
CMDS = ["cputop", "schedstats", "schedtop", "schedlog", "schedfreq", "syscallstats",
        "irqstats", "irqlog", "irqfreq", "memtop", "iolatencystats", "iolatencytop",
        "iolatencyfreq", "iolog", "iousagetop"]
CTF = ["tracecompass/tc-bug446190", "tracecompass/tc-flipping-endianness",
       "babeltrace-tests/ctf-traces/succeed/multi-domains/kernel",
       "tracecompass/tc-synctraces_scp_src"]
# corpus trace.dat files, and the repository's with system calls and their arguments
DAT = ["tracecmd-samples/sched-v7-zstd.dat", os.path.join(HERE, "..", "data", "analyze", "kernel-v6.dat"),
       "tracecmd-external/lisa_tests_raw_trace_adfb4498.dat"]
# a period inside the I/O trace (test_analyze_io.py): events after --end end the run
IO_PERIOD = ["--begin", "22:13:20.005000000", "--end", "22:13:20.015000000", "--gmt"]


def results_of(args, argv, env_note):
    """argv run with each job count (and with --reference's binary)."""
    res = {j: run(args.tracemux, ["analyze"] + argv[:1] + ["--jobs", j] + argv[1:], timeout=300)
           for j in JOBS}
    if args.reference:
        res["ref"] = run(args.reference, ["analyze"] + argv, timeout=300)
    return res, env_note


def check(report, what, res):
    keys = JOBS + (["ref"] if "ref" in res else [])
    detail = jobs_difference(res, keys)
    if not detail and not res[JOBS[0]][1] and not res[JOBS[0]][2]:
        detail = "no output at all"
    # a damaged copy: the analysis of what was read, then the read error
    if not detail and "(damaged)" in what and (res[JOBS[0]][0] != 1 or
                                               b"at byte" not in res[JOBS[0]][2]):
        detail = f"no error mid-trace: exit {res[JOBS[0]][0]}"
    if detail:
        report.fail(what, detail)
    else:
        report.ok()


# (trace, data file, offset, bytes written there): damaged copies with a fault
# mid-trace, read after events were analysed (test_analyze.py's bug446190 damage;
# a bit of a ring-buffer page's event header in a compressed chunk)
DAMAGES = [("tracecompass/tc-bug446190", "channel0_1", 230000, b"\xff" * 64),
           ("tracecmd-samples/sched-v7-zstd.dat", None, 1035897, None)]


def damaged_copy(corpus, work, k):
    """DAMAGES[k] in a copy under `work`."""
    rel, name, off, data = DAMAGES[k]
    src = os.path.join(corpus, rel)
    dst = os.path.join(work, f"damaged{k}" + (".dat" if name is None else ""))
    if name is None:
        victim = dst
        shutil.copyfile(src, dst)
    else:
        shutil.copytree(src, dst)
        victim = os.path.join(dst, name)
    with open(victim, "rb") as f:
        b = bytearray(f.read())
    if data is None:
        b[off] ^= 2
    else:
        b[off:off + len(data)] = data
    os.chmod(victim, 0o644)
    with open(victim, "wb") as f:
        f.write(b)
    return dst


def runs(args, corpus, work, quick):
    """(what, argv) of every comparison."""
    ctf = [os.path.join(corpus, t) for t in CTF]
    dat = [os.path.join(corpus, t) for t in DAT]
    traces = ([ctf[0], dat[0], IO_TRACE] if quick else ctf + dat + [IO_TRACE])
    cmds = CMDS[::4] if quick else CMDS
    for t in traces:
        for cmd in cmds:
            for mode in ([], ["--mi"]):
                yield f"{cmd} {' '.join(mode)} {os.path.basename(t)}", [cmd] + mode + [t]
    for cmd in ["iolog", "iousagetop", "cputop"]:
        for mode in ([], ["--mi"]):
            yield f"{cmd} {' '.join(mode)} --begin/--end io", [cmd] + mode + IO_PERIOD + [IO_TRACE]
    for k in range(len(DAMAGES)):
        t = damaged_copy(corpus, work, k)
        for cmd in (["cputop", "irqstats"] if quick else CMDS):
            for mode in ([], ["--mi"]):
                yield f"{cmd} {' '.join(mode)} {os.path.basename(t)} (damaged)", [cmd] + mode + [t]


def segment_runs(corpus, quick):
    for t in DAT[:1 if quick else 3]:
        path = os.path.join(corpus, t)
        for cmd in (["cputop", "schedlog", "irqstats"] if quick else CMDS):
            for mode in ([], ["--mi"]):
                yield f"{cmd} {' '.join(mode)} {os.path.basename(t)} (segments)", [cmd] + mode + [path]


def compare_all(report, args, todo):
    # two comparisons at a time: each runs its --jobs one after the other
    with ThreadPoolExecutor(max_workers=2) as pool:
        for what, (res, _) in zip([w for w, _ in todo],
                                  pool.map(lambda t: results_of(args, t[1], None), todo)):
            check(report, what, res)


def main():
    quick = take_quick_flag()
    args = parse_args(("--reference", dict(help="a tracemux binary without analyze --jobs")))
    report = Report("analyze-jobs")
    work = tempfile.mkdtemp(prefix="tmx-anjobs-")
    try:
        compare_all(report, args, list(runs(args, args.corpus, work, quick)))
        os.environ["TRACEMUX_SEGMENT_BYTES"] = "4096"
        try:
            compare_all(report, args, list(segment_runs(args.corpus, quick)))
        finally:
            del os.environ["TRACEMUX_SEGMENT_BYTES"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
