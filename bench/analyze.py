#!/usr/bin/python3
"""`tracemux analyze COMMAND` against lttng-analyses 0.6.1 (lttng-COMMAND,
Debian python3-lttnganalyses) on the same traces, in the same run.

    bench/analyze.py [--runs N] [--groups G,...] [--commands C,...] [TRACE]

Without TRACE, three groups (--groups picks some):
  kernel    Trace Compass's tc-many-threads (8 MB LTTng kernel trace, 28k
            sched_switch, 98k system calls): cputop, the sched*, syscallstats,
            the irq* commands and memtop;
  io        the I/O commands (iolatencystats, iolatencytop, iolatencyfreq,
            iolog, iousagetop) on a trace made by tests/data/make-io-trace.py
            --scale $IO_SCALE (default 100, about 8 MB: no corpus trace has
            block or network events);
  tracedat  a large trace.dat ($BENCH_TRACEDAT, default the 1.6 million
            event recording of bench/tracecmd.sh,
            /tmp/tracemux-bench-tracecmd/big.dat; `bench/tracecmd.sh` records
            it, as root): cputop and syscallstats (lttng-analyses takes
            minutes per command on it).  lttng-analyses reads the bridge's
            conversion (`tracemux -o ctf --lttng-kernel`, made once, not
            timed), tracemux the trace.dat itself.
With TRACE (a kernel trace directory or a trace.dat): --commands on it (all
15 by default).

lttng-analyses finds the tracer version only in a directory named `kernel`:
each trace is linked (or converted) as $BENCH_TMP/GROUP/kernel.  Both tools'
standard outputs are kept and compared byte for byte (and their exit
statuses) before any figure is printed.  lttng-analyses runs RUNS times
(default 1: it is slow), tracemux 5 x RUNS times; per command the best wall
time of each and their ratio, the least CPU time (user + system of the
child, from wait4: microseconds, not GNU time's hundredths) of each and
their ratio, and the peak RSS of each (tracemux's from one more run under
GNU time, since wait4's counts this script's memory), with the load
average at each group's start (the machine may be shared: the CPU ratio is
the one to judge by).  tracemux decodes on every core by default; each
command is also timed with --jobs 1, 2, 4 ... up to every CPU (best wall
and least CPU of 5 x RUNS runs each), so the same script shows the scaling
on a larger machine.  Needs build/tracemux (or $TMX).  Not part of the test
suite.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMX = os.environ.get("TMX", os.path.join(REPO, "build", "tracemux"))
TMP = os.environ.get("BENCH_TMP", "/tmp/tracemux-bench-analyze")
CORPUS = os.path.join(REPO, "..", "shared", "corpus")

KERNEL_COMMANDS = ["cputop", "schedstats", "schedtop", "schedlog", "schedfreq", "syscallstats",
                   "irqstats", "irqlog", "irqfreq", "memtop"]
IO_COMMANDS = ["iolatencystats", "iolatencytop", "iolatencyfreq", "iolog", "iousagetop"]
GROUPS = {
    "kernel": (os.path.join(CORPUS, "tracecompass", "tc-many-threads"), KERNEL_COMMANDS),
    "io": (None, IO_COMMANDS),
    "tracedat": (os.environ.get("BENCH_TRACEDAT", "/tmp/tracemux-bench-tracecmd/big.dat"),
                 ["cputop", "syscallstats"]),
}


def run(argv, out):
    """Runs argv, stdout to the file out: (exit status, wall s, CPU s, peak RSS KB)."""
    with open(out, "wb") as f:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.DEVNULL, env=dict(os.environ, TZ="UTC"))
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def peak_rss(argv, out):
    """Peak RSS (KB) of one run as GNU time reports it: wait4's ru_maxrss of a child
    that Python forked counts this script's own memory at the exec."""
    tfile = os.path.join(TMP, "time")
    with open(out, "wb") as f:
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tfile] + argv, stdout=f,
                       stderr=subprocess.DEVNULL, env=dict(os.environ, TZ="UTC"))
    with open(tfile) as f:
        return int(f.read().split()[-1])


def best(argv, runs, out):
    rcs, walls, cpus, rss = set(), [], [], 0
    for _ in range(runs):
        rc, wall, cpu, kb = run(argv, out)
        rcs.add(rc)
        walls.append(wall)
        cpus.append(cpu)
        rss = max(rss, kb)
    return rcs, min(walls), min(cpus), rss


def job_counts():
    """1, 2, 4 ... and every CPU the process may run on."""
    n = len(os.sched_getaffinity(0))
    counts, j = [], 1
    while j < n:
        counts.append(j)
        j *= 2
    return counts + [n]


def kernel_dir(group, trace):
    """The trace as lttng-analyses reads it (TMP/group/kernel) and what tracemux reads."""
    top = os.path.join(TMP, group)
    if os.path.islink(top) or os.path.isfile(top):   # left by an older bench layout
        os.remove(top)
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    k = os.path.join(top, "kernel")
    if group == "io" and trace is None:
        scale = os.environ.get("IO_SCALE", "100")
        subprocess.run([sys.executable, os.path.join(REPO, "tests", "data", "make-io-trace.py"),
                        "--scale", scale, k], check=True)
        return k, k
    if os.path.isfile(trace):
        conv = os.path.join(top, "conv")
        subprocess.run([TMX, "-o", "ctf", "--lttng-kernel", "-w", conv, trace], check=True)
        for root, _, files in os.walk(conv):
            if "metadata" in files:
                os.rename(root, k)
                return k, trace
        sys.exit(f"{trace}: the conversion has no metadata")
    os.symlink(os.path.abspath(trace), k)
    return k, k


def size(path):
    total = 0
    for root, _, files in os.walk(path, followlinks=True):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total if os.path.isdir(path) else os.path.getsize(path)


def bench_group(group, trace, commands, runs):
    if trace is not None and not os.path.exists(trace):
        print(f"{group}: no {trace} (bench/tracecmd.sh records it, as root; or set BENCH_TRACEDAT)")
        return []
    k, inp = kernel_dir(group, trace)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"\n{group}: {trace or 'make-io-trace.py'} ({size(inp) / 1e6:.1f} MB; "
          f"lttng-analyses reads {size(k) / 1e6:.1f} MB), load average {load}")
    print(f"{'command':<15}{'lttng-s':>9}{'tmx-s':>8}{'ratio':>8}{'lttng-cpu':>11}{'tmx-cpu':>9}"
          f"{'ratio':>8}{'tmx-KB':>9}{'lttng-KB':>10}", flush=True)
    rows = []
    ref_out, tmx_out = os.path.join(TMP, "ref.txt"), os.path.join(TMP, "tmx.txt")
    for cmd in commands:
        lttng = shutil.which(f"lttng-{cmd}")
        if lttng is None:
            sys.exit(f"no lttng-{cmd}: apt-get install python3-lttnganalyses")
        r_rc, r_wall, r_cpu, r_kb = best([lttng, "--no-progress", k], runs, ref_out)
        t_rc, t_wall, t_cpu, _ = best([TMX, "analyze", cmd, inp], 5 * runs, tmx_out)
        t_kb = peak_rss([TMX, "analyze", cmd, inp], tmx_out)
        with open(ref_out, "rb") as a, open(tmx_out, "rb") as b:
            same = a.read() == b.read()
        if not same or r_rc != t_rc or len(r_rc) != 1:
            sys.exit(f"{group} {cmd}: outputs differ (exit {r_rc} / {t_rc}; diff {ref_out} {tmx_out})")
        print(f"{cmd:<15}{r_wall:9.2f}{t_wall:8.3f}{r_wall / t_wall:8.1f}{r_cpu:11.2f}{t_cpu:9.3f}"
              f"{r_cpu / t_cpu:8.1f}{t_kb:9d}{r_kb:10d}", flush=True)
        scaling = []
        for j in job_counts():
            _, j_wall, j_cpu, _ = best([TMX, "analyze", cmd, "--jobs", str(j), inp], 5 * runs, tmx_out)
            scaling.append(f"--jobs {j} {j_wall:.3f} s ({j_cpu:.3f} s CPU)")
        print(f"{'':<15}" + ", ".join(scaling), flush=True)
        rows.append((group, cmd, r_wall / t_wall, r_cpu / t_cpu))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", nargs="?")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--groups", default="kernel,io,tracedat")
    ap.add_argument("--commands")
    args = ap.parse_args()
    if not os.access(TMX, os.X_OK):
        sys.exit(f"no {TMX}: build it first")
    os.makedirs(TMP, exist_ok=True)
    only = args.commands.split(",") if args.commands else None
    rows = []
    if args.trace:
        rows += bench_group("trace", args.trace, only or KERNEL_COMMANDS + IO_COMMANDS, args.runs)
    else:
        for g in args.groups.split(","):
            trace, cmds = GROUPS[g]
            rows += bench_group(g, trace, [c for c in cmds if only is None or c in only], args.runs)
    slow = [f"{g} {c} ({cpu:.1f}x)" for g, c, _, cpu in rows if cpu < 100]
    print("\nCPU ratio under 100x: " + (", ".join(slow) if slow else "none"))


if __name__ == "__main__":
    main()
