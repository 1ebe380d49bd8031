#!/usr/bin/env python3
"""`tracemux analyze COMMAND` against lttng-analyses 0.6.1 run live
(Debian python3-lttnganalyses: lttng-COMMAND and lttng-COMMAND-mi).

lttng-analyses reads the tracer version only from a directory named
`kernel`, so each trace is linked as TMP/NAME/kernel.  Text is compared
byte for byte (stdout, exit status, and stderr for command-line errors),
MI as JSON (integers and strings equal, floats to 1e-9 relative).  The
CTF 2 conversions of the same traces (tracecompass-ctf2/) must give
tracemux's own CTF 1.8 answers byte for byte.  lttng-analyses reads about
200 KB/s: the suite runs small traces and a few option sets per command;
tests/analyze-all.sh (this script with --all) runs every command on every
kernel trace of the corpus with more options.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import Report, first_diff, parse_args, run  # noqa: E402

# name -> path under the corpus (CTF 1.8), and its CTF 2 conversion when there is one
TRACES = {
    "bug446190": ("tracecompass/tc-bug446190", "tracecompass-ctf2/tc-bug446190"),
    "flipping": ("tracecompass/tc-flipping-endianness", "tracecompass-ctf2/tc-flipping-endianness"),
    "multidomains": ("babeltrace-tests/ctf-traces/succeed/multi-domains/kernel", None),
    "synctraces": ("tracecompass/tc-synctraces_scp_src", "tracecompass-ctf2/tc-synctraces_scp_src"),
    "perf": ("tracecompass/tc-perf-taskset2", "tracecompass-ctf2/tc-perf-taskset2"),
}
EXTRA_TRACES = {
    "many-threads": ("tracecompass/tc-many-threads", "tracecompass-ctf2/tc-many-threads"),
    "rotation": ("babeltrace-tests/ctf-traces/succeed/lttng-tracefile-rotation/kernel", None),
}

# command -> list of (trace, options); the suite's subset first
SUITE = {
    "cputop": [
        ("bug446190", []),
        ("bug446190", ["--begin", "08:36:03", "--end", "08:36:05.500000000"]),
        ("bug446190", ["--cpu", "1,3", "--limit", "3"]),
        ("bug446190", ["--procname", "sh,lttng-consumerd", "--tid", "482,496,526", "--skip-validation"]),
        ("flipping", ["--no-intersection", "--gmt"]),
        ("multidomains", []),
    ],
    "schedstats": [
        ("bug446190", ["--total", "--per-prio", "--begin", "08:36:03"]),
        ("bug446190", ["--procname", "sh,lttng-consumerd,weston", "--min", "5", "--max", "200"]),
    ],
    "schedtop": [("bug446190", ["--limit", "5", "--cpu", "0,1"])],
    "schedlog": [("bug446190", ["--tid", "338,526,403"])],
    "schedfreq": [("bug446190", ["--freq-series", "--end", "08:36:05"])],
    "syscallstats": [
        ("bug446190", []),
        ("bug446190", ["--cpu", "1", "--procname", "sh,lttng-consumerd", "--timerange", "[08:36:02,08:36:06]"]),
    ],
    "irqstats": [
        ("bug446190", ["--freq", "--softirq", "1,7", "--min", "3"]),
        ("flipping", ["--irq", "19"]),
    ],
    "irqlog": [("bug446190", ["--cpu", "1,2", "--end", "08:36:03"])],
    "irqfreq": [("bug446190", ["--freq-uniform", "--begin", "08:36:04"])],
    "memtop": [("bug446190", ["--cpu", "0,1", "--limit", "4", "--begin", "08:36:03"])],
}
# --all: also these, and every command on every trace with ALL_OPTS
MORE = [
    ("cputop", "bug446190", ["--timerange", "[2014-10-07 08:36:02,08:36:04.000000001]", "--limit", "0"]),
    ("schedstats", "bug446190", []),
    ("schedfreq", "bug446190", ["--total", "--per-prio", "--freq-resolution", "7"]),
    ("schedlog", "bug446190", ["--stats", "--top", "--freq", "--total", "--per-prio", "--per-tid"]),
    ("irqstats", "bug446190", []),
    ("irqstats", "bug446190", ["--stats", "--freq", "--log", "--freq-series"]),
    ("irqlog", "bug446190", ["--min", "3", "--max", "50", "--freq-uniform"]),
    ("memtop", "bug446190", []),
    ("memtop", "bug446190", ["--procname", "sh,lttng-consumerd", "--limit", "0"]),
]
# logs: babeltrace 1 orders events of equal time stamps on different CPUs by
# its heap's layout (and the order in which readdir() found the stream
# files), tracemux by stream as babeltrace2: rows with the same time are
# compared as a set (their order aside, everything else is compared)
LOG_KEY = {
    # command: (text line -> key or None, MI table class, MI row -> key)
    "irq": (lambda l: l[22:40] if l.startswith("[") else None, "log",
            lambda r: r[0]["end"]["value"]),
    "sched": (lambda l: l[22:40] if l.startswith("[") else None, "log",
              lambda r: r[1]["value"]),
}
# command-line errors: text (stderr) and MI (stdout JSON) as lttng-analyses
ERRORS = [
    # a block_rq_issue without `tid`: lttng-analyses' KeyError ends the analysis
    ("cputop", "synctraces", []),
    # perf's CTF (domain kernel, no lttng-modules version): lttng-analyses refuses it
    ("irqstats", "perf", []),
    ("schedstats", "bug446190", ["--begin", "25:00:00"]),
    ("cputop", "bug446190", ["--begin", "yesterday"]),
    ("cputop", "bug446190", ["--end", "01:00:00"]),
    ("cputop", "bug446190", ["--timerange", "08:36:03"]),
]
ALL_OPTS = [[], ["--limit", "0"], ["--cpu", "0"], ["--no-intersection"]]

LTTNG_PKG = "python3-lttnganalyses (with python3-babeltrace and babeltrace)"


def float_eq(a, b):
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def json_diff(a, b, path="$"):
    """The first difference between two JSON values, or None."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None if a is b else f"{path}: {a!r} != {b!r}"
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return None if a == b else f"{path}: {a} != {b}"
        return None if float_eq(float(a), float(b)) else f"{path}: {a!r} != {b!r}"
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            d = json_diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = json_diff(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


def family(cmd):
    return "irq" if cmd.startswith("irq") else "sched" if cmd.startswith("sched") else None


def sort_ties(items, key):
    """Items with equal keys next to each other, sorted among themselves."""
    out, run, run_key = [], [], object()
    for it in items:
        k = key(it)
        if k is None or k != run_key:
            out += sorted(run, key=repr)
            run, run_key = [], k
        if k is None:
            out.append(it)
        else:
            run.append(it)
    return out + sorted(run, key=repr)


def norm_text(cmd, data):
    f = LOG_KEY.get(family(cmd))
    if not f:
        return data
    lines = data.decode("utf-8", "replace").split("\n")
    return "\n".join(sort_ties(lines, f[0])).encode()


def norm_mi(cmd, obj):
    f = LOG_KEY.get(family(cmd))
    if f and isinstance(obj, dict):
        for t in obj.get("results", []):
            if t.get("class") == f[1]:
                t["data"] = sort_ties(t["data"], f[2])
    return obj


def lttng(cmd, argv, timeout=600):
    env = dict(os.environ, TZ="UTC", LC_ALL="C.UTF-8")
    p = subprocess.run([cmd] + argv, capture_output=True, env=env, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def link_kernel(tmp, name, rel, corpus):
    """TMP/NAME/kernel -> the trace (a directory of links when the trace is not named kernel)."""
    src = os.path.join(corpus, rel)
    top = os.path.join(tmp, name)
    os.makedirs(top, exist_ok=True)
    k = os.path.join(top, "kernel")
    if not os.path.exists(k):
        os.symlink(os.path.abspath(src), k)
    return k


def check_one(rep, tracemux, cmd, trace, kpath, opts):
    what = f"{cmd} {trace} {' '.join(opts)}".strip()
    rc, out, err = lttng(f"lttng-{cmd}", ["--no-progress"] + opts + [kpath])
    trc, tout, terr = run(tracemux, ["analyze", cmd] + opts + [kpath])
    if (rc, norm_text(cmd, out)) != (trc, norm_text(cmd, tout)):
        rep.fail(f"text {what}", f"exit {rc} vs {trc}\n" + first_diff(out, tout) + terr.decode()[:500])
    else:
        rep.ok()
    rc, out, err = lttng(f"lttng-{cmd}-mi", opts + [kpath])
    trc, tout, terr = run(tracemux, ["analyze", cmd, "--mi"] + opts + [kpath])
    compare_mi(rep, what, cmd, (rc, out), (trc, tout))


def compare_mi(rep, what, cmd, want, got):
    """lttng-COMMAND-mi's (exit, output) against tracemux analyze --mi's."""
    (rc, out), (trc, tout) = want, got
    if rc == trc == 2 and not out and not tout:
        rep.ok()   # an option the command does not take: a usage error for both
        return
    try:
        d = json_diff(norm_mi(cmd, json.loads(out)), norm_mi(cmd, json.loads(tout)))
    except ValueError as e:
        d = f"not JSON: {e}: {out[:200]!r} / {tout[:200]!r}"
    if d or rc != trc:
        rep.fail(f"mi {what}", f"exit {rc} vs {trc}: {d}")
    else:
        rep.ok()


def require_tools(rep, tools):
    """Fail (naming the Debian package) when lttng-analyses or babeltrace 1 is missing."""
    for tool in tools:
        if not shutil.which(tool):
            rep.fail(f"{tool} not found", f"install the Debian package {LTTNG_PKG}")
            rep.finish()


def check_error(rep, tracemux, cmd, trace, kpath, opts):
    what = f"error {cmd} {trace} {' '.join(opts)}"
    r = lttng(f"lttng-{cmd}", ["--no-progress"] + opts + [kpath])
    t = run(tracemux, ["analyze", cmd] + opts + [kpath])
    if r != t:
        rep.fail(f"text {what}", f"{r!r}\n{t!r}")
    else:
        rep.ok()
    r = lttng(f"lttng-{cmd}-mi", opts + [kpath])
    t = run(tracemux, ["analyze", cmd, "--mi"] + opts + [kpath])
    if r[0] != t[0] or json.loads(r[1]) != json.loads(t[1]):
        rep.fail(f"mi {what}", f"{r!r}\n{t!r}")
    else:
        rep.ok()


def check_ctf2(rep, tracemux, corpus, cmd, trace, rel1, rel2, opts):
    """The CTF 2 conversion: the same text and MI as the CTF 1.8 original."""
    for mode in ([], ["--mi"]):
        a = run(tracemux, ["analyze", cmd] + mode + opts + [os.path.join(corpus, rel1)])
        b = run(tracemux, ["analyze", cmd] + mode + opts + [os.path.join(corpus, rel2)])
        if a != b:
            rep.fail(f"ctf2 {cmd} {trace} {' '.join(mode + opts)}", first_diff(a[1], b[1]))
        else:
            rep.ok()


def damage_bug446190(tracemux, corpus, tmp, off):
    """tc-bug446190 copied to TMP/damaged/kernel with 64 bytes of channel0_1
    at `off` (an event boundary) overwritten; returns the copy's directory and
    the time stamp of the last event read before the fault."""
    src = os.path.join(corpus, TRACES["bug446190"][0])
    kdir = os.path.join(tmp, "damaged", "kernel")
    os.makedirs(kdir, exist_ok=True)
    for f in os.listdir(src):
        if f.startswith("channel") or f == "metadata":
            shutil.copy(os.path.join(src, f), kdir)
    with open(os.path.join(src, "channel0_1"), "rb") as f:
        data = bytearray(f.read())
    data[off:off + 64] = b"\xff" * 64
    with open(os.path.join(kdir, "channel0_1"), "wb") as f:
        f.write(data)
    _, js, _ = run(tracemux, ["-o", "json", "--jobs", "1", kdir])
    events = [json.loads(l) for l in js.splitlines() if l.startswith(b"{")]
    return kdir, [e["ts_ns"] for e in events if e.get("type") == "event"][-1]


def compare_damaged(rep, tracemux, cmd, kdir, intact, last_ts, stream, off):
    """`analyze CMD` on the damaged trace `kdir`: exit 1 naming `stream`'s
    fault, and the text lttng-analyses prints for the intact trace up to
    the last event read (`--end last_ts`)."""
    trc, tout, terr = run(tracemux, ["analyze", cmd, kdir])
    erc, eout, _ = lttng(f"lttng-{cmd}", ["--no-progress", "--end", str(last_ts), intact])
    what = f"damaged {cmd} at byte {off}"
    if trc != 1 or f"{stream}: at byte".encode() not in terr:
        rep.fail(what, f"exit {trc}, stderr {terr[:300]!r}")
    elif erc != 0 or eout != tout:
        rep.fail(what, first_diff(eout, tout))
    else:
        rep.ok()


def check_damaged(rep, tracemux, corpus, tmp):
    """A trace damaged in a later packet: the analysis of the events read
    before the fault (lttng-analyses on the intact trace up to the last of
    them, --end), then the error naming the file and offset, exit 1."""
    intact = os.path.join(tmp, "bug446190", "kernel")
    for off, cmd in ((230000, "irqstats"), (260004, "cputop")):  # event boundaries
        kdir, last_ts = damage_bug446190(tracemux, corpus, tmp, off)
        compare_damaged(rep, tracemux, cmd, kdir, intact, last_ts, "channel0_1", off)


def check_not_kernel(rep, tracemux, corpus):
    """An XRay log is not a kernel trace: a clear refusal, exit 1, no tables
    (trace.dat files are analysed: test_analyze_tracedat.py)."""
    log = os.path.join(corpus, "xray-samples", "basic-v3-small.xray")
    rc, out, err = run(tracemux, ["analyze", "cputop", log])
    if rc != 1 or out or b"not a Linux kernel trace" not in err:
        rep.fail("XRay log refused", f"exit {rc}, {out[:200]!r}, {err[:200]!r}")
    else:
        rep.ok()


def main():
    args = parse_args(("--all", dict(action="store_true", help="every command on every kernel trace")))
    rep = Report("analyze")
    require_tools(rep, ("lttng-cputop", "babeltrace"))
    traces = dict(TRACES)
    plan = [(c, t, o) for c, runs in SUITE.items() for t, o in runs]
    if args.all:
        traces.update(EXTRA_TRACES)
        # rotated tracefiles: one stream per file for babeltrace 1, whose
        # intersection is empty (see the manual): compared without it
        plan += MORE + [(c, t, o + (["--no-intersection"] if t == "rotation" and
                                    "--no-intersection" not in o else []))
                        for c in SUITE for t in traces for o in ALL_OPTS]
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        kpaths = {t: link_kernel(tmp, t, rel, args.corpus) for t, (rel, _) in traces.items()}
        for cmd, trace, opts in plan:
            check_one(rep, args.tracemux, cmd, trace, kpaths[trace], opts)
        for cmd, trace, opts in ERRORS:
            check_error(rep, args.tracemux, cmd, trace, kpaths[trace], opts)
        check_damaged(rep, args.tracemux, args.corpus, tmp)
        check_not_kernel(rep, args.tracemux, args.corpus)
        for cmd in SUITE:
            for trace, (rel1, rel2) in traces.items():
                if rel2:
                    check_ctf2(rep, args.tracemux, args.corpus, cmd, trace, rel1, rel2, [])
    print(f"analyze: {time.time() - start:.1f} s")
    rep.finish()


if __name__ == "__main__":
    main()
