#!/usr/bin/env python3
"""`tracemux analyze COMMAND file.dat` against lttng-analyses 0.6.1 run live
(Debian python3-lttnganalyses) on the bridge's conversion of the same file
(`tracemux -o ctf --lttng-kernel`: ftrace's events as lttng-modules 2.13
records them, src/model/kmap.c).

For every trace.dat of the corpus (tracecmd-samples, tracecmd-external,
tracecmd-3.4) and of tests/data: the conversion is written to TMP/NAME/
kernel (lttng-analyses finds the tracer version only in a directory named
`kernel`), babeltrace2 must read it without an error, and each command's
text (exit status and standard output byte for byte) and MI JSON (integers
and strings equal, floats to 1e-9 relative) must be lttng-analyses' on the
conversion.  A damaged trace.dat (a record cut short) is converted up to
the fault: tracemux's analysis of what it read (--no-intersection: the
conversion ends at the fault, the .dat's streams do not) must be
lttng-analyses' on that partial conversion, followed by the error naming
the file and the byte offset, exit 1.  A trace that lacks a command's
events gets lttng-analyses' empty tables and a warning naming the ftrace
events on stderr.  The bridge's CTF 2 conversion (--ctf-version=2) must
give tracemux's answers on the .dat (lttng-analyses cannot read CTF 2).

lttng-analyses reads about 200 KB/s: the suite runs a few small traces;
--all (tests/analyze-all.sh) every trace.dat with every command and more
option sets.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import Report, first_diff, parse_args, run  # noqa: E402
from test_analyze import LTTNG_PKG, compare_mi, lttng, norm_text  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS_DIRS = ("tracecmd-samples", "tracecmd-external", "tracecmd-3.4")
# the suite's subset (file names): raw_syscalls + sched + irq (x86_64),
# every mapped kind (tests/data/analyze: kmem, block, fork, an unknown
# system call...), empty CPUs, an empty trace, damaged files
SUITE_TRACES = (
    "sched-v7-zstd.dat",
    "kernel-v6.dat",
    "lisa_tests_raw_trace_adfb4498.dat",
    "akshu_trace_23ab9d79.dat",
    "stack-v7.dat",
    "fg-le8-v7.dat",
)
COMMANDS = ("cputop", "schedstats", "syscallstats", "irqstats", "memtop")
MORE_COMMANDS = ("schedtop", "schedlog", "schedfreq", "irqlog", "irqfreq")
# the I/O commands: in the suite on the trace that has block events and I/O
# system calls with their arguments (kernel-v6.dat), with --all on every file
IO_COMMANDS = ("iolatencystats", "iolatencytop", "iolatencyfreq", "iolog", "iousagetop")
IO_TRACE = "kernel-v6.dat"
ALL_OPTS = [[], ["--limit", "0"], ["--cpu", "0"], ["--no-intersection"]]


def find_dats(corpus):
    out = []
    for d in [os.path.join(corpus, c) for c in CORPUS_DIRS] + [os.path.join(REPO, "tests", "data")]:
        for root, _, files in os.walk(d):
            out += [os.path.join(root, f) for f in files if f.endswith(".dat")]
    return sorted(out)


def convert(tracemux, dat, top):
    """The conversion in TOP/kernel: (exit status, stderr, path or None)."""
    out = os.path.join(top, "out")
    rc, _, err = run(tracemux, ["-o", "ctf", "--lttng-kernel", "--jobs", "1", "-w", out, dat])
    for root, _, files in os.walk(out):
        if "metadata" in files:
            k = os.path.join(top, "kernel")
            os.rename(root, k)
            return rc, err, k
    return rc, err, None


def check_cmd(rep, tracemux, cmd, name, dat, kpath, opts, damaged):
    what = f"{cmd} {name} {' '.join(opts)}".strip()
    rc, out, err = lttng(f"lttng-{cmd}", ["--no-progress"] + opts + [kpath])
    trc, tout, terr = run(tracemux, ["analyze", cmd] + opts + [dat])
    if damaged:
        # lttng-analyses read the whole partial conversion; tracemux stops at the fault
        if trc != 1 or b"at byte" not in terr or os.path.basename(dat).encode() not in terr:
            rep.fail(f"damaged {what}", f"exit {trc}, stderr {terr[:300]!r}")
            return
        trc = rc
    if (rc, norm_text(cmd, out)) != (trc, norm_text(cmd, tout)):
        rep.fail(f"text {what}", f"exit {rc} vs {trc}\n" + first_diff(out, tout) + terr.decode()[:500])
        return
    # an error of lttng-analyses (no intersection, an empty trace): the same words
    last = err.decode(errors="replace").strip().split("\n")[-1] if rc else ""
    if rc and last.startswith("Error:") and last.encode() not in terr:
        rep.fail(f"error {what}", f"{last!r} not in {terr[:300]!r}")
        return
    rep.ok()
    rc, out, _ = lttng(f"lttng-{cmd}-mi", opts + [kpath])
    trc, tout, terr = run(tracemux, ["analyze", cmd, "--mi"] + opts + [dat])
    if damaged and trc == 1 and b"at byte" in terr:
        trc = rc
    compare_mi(rep, what, cmd, (rc, out), (trc, tout))


def check_ctf2(rep, tracemux, dat, top, commands):
    """The bridge's CTF 2 conversion: tracemux's answers on it are its answers on the .dat."""
    out = os.path.join(top, "ctf2")
    rc, _, err = run(tracemux, ["-o", "ctf", "--lttng-kernel", "--ctf-version=2", "-w", out, dat])
    path = next((r for r, _, f in os.walk(out) if "metadata" in f), None)
    if rc or not path:
        rep.fail(f"ctf2 convert {os.path.basename(dat)}", f"exit {rc}: {err[:300]!r}")
        return
    if not any(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path) if f != "metadata"):
        return   # no event: lttng-analyses' error on the .dat is babeltrace 1's, not tracemux's on CTF
    for cmd in commands:
        for mode in ([], ["--mi"]):
            a = run(tracemux, ["analyze", cmd] + mode + [dat])
            b = run(tracemux, ["analyze", cmd] + mode + [path])
            # the warning naming ftrace's missing events is the .dat's own
            if a[:2] != b[:2]:
                rep.fail(f"ctf2 {cmd} {os.path.basename(dat)} {' '.join(mode)}", first_diff(a[1], b[1]))
            else:
                rep.ok()


def check_missing(rep, tracemux, corpus):
    """memtop on a trace without kmem events: the events named on stderr."""
    dat = os.path.join(corpus, "tracecmd-samples", "sched-v7-zstd.dat")
    rc, out, err = run(tracemux, ["analyze", "memtop", dat])
    if rc != 0 or b"memtop needs kmem:mm_page_alloc and mm_page_free events" not in err:
        rep.fail("missing events named", f"exit {rc}, stderr {err[:300]!r}")
    else:
        rep.ok()


def main():
    args = parse_args(
        ("--all", dict(action="store_true", help="every trace.dat, every command, more options")),
        ("--only", dict(action="append", default=[],
                        help="the trace.dat files whose path contains this (repeatable)")),
        ("--options", dict(action="store_true", help="with --only: the commands and option sets of --all")))
    rep = Report("analyze_tracedat")
    for tool, pkg in (("lttng-cputop", LTTNG_PKG), ("babeltrace", LTTNG_PKG), ("babeltrace2", "babeltrace2")):
        if not shutil.which(tool):
            rep.fail(f"{tool} not found", f"install the Debian package {pkg}")
            rep.finish()
    dats = find_dats(args.corpus)
    if args.only:
        dats = [d for d in dats if any(o in d for o in args.only)]
    elif not args.all:
        dats = [d for d in dats if os.path.basename(d) in SUITE_TRACES and "/external/" not in d]
        if len(dats) != len(SUITE_TRACES):
            rep.fail("suite traces", f"found {len(dats)} of {len(SUITE_TRACES)} in the corpus and tests/data")
    commands = COMMANDS + (MORE_COMMANDS if args.all or args.options else ())
    opt_sets = ALL_OPTS if args.all or args.options else [[]]
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for i, dat in enumerate(dats):
            name = os.path.basename(dat)
            top = os.path.join(tmp, str(i))
            os.makedirs(top)
            t0 = time.time()
            crc, cerr, kpath = convert(args.tracemux, dat, top)
            damaged = crc != 0
            if crc not in (0, 1) or (damaged and b"at byte" not in cerr) or not kpath:
                rep.fail(f"convert {name}", f"exit {crc}: {cerr[:300]!r}")
                continue
            rep.ok()
            brc, _, berr = run("babeltrace2", ["-o", "dummy", kpath])
            if brc != 0:
                rep.fail(f"babeltrace2 reads {name}", berr.decode(errors="replace")[-600:])
            else:
                rep.ok()
            cmds = commands + (IO_COMMANDS if args.all or name == IO_TRACE else ())
            for cmd in cmds:
                for opts in opt_sets:
                    if damaged and "--no-intersection" not in opts:
                        opts = opts + ["--no-intersection"]
                    check_cmd(rep, args.tracemux, cmd, name, dat, kpath, opts, damaged)
            if not damaged:
                check_ctf2(rep, args.tracemux, dat, top, cmds)
            print(f"  {name}: {time.time() - t0:.1f} s{' (damaged)' if damaged else ''}")
        check_missing(rep, args.tracemux, args.corpus)
    print(f"analyze_tracedat: {len(dats)} trace.dat files, {time.time() - start:.1f} s")
    rep.finish()


if __name__ == "__main__":
    main()
