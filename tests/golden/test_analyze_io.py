#!/usr/bin/env python3
"""`tracemux analyze`'s I/O commands (iolatencystats, iolatencytop,
iolatencyfreq, iolog, iousagetop) against lttng-analyses 0.6.1 run live
(Debian python3-lttnganalyses: lttng-COMMAND and lttng-COMMAND-mi).

No kernel trace of the corpus has block or network events: the main input
is tests/data/analyze-io/kernel, made by tests/data/make-io-trace.py (a
state dump with file descriptors and block devices, I/O system calls on
four CPUs, failed ones, block requests remapped, merged, completed or not,
packets sent and received, a fork and an exec); tc-bug446190 (system calls
and forks of a real LTTng trace) is run too.  lttng-analyses reads the
tracer version only from a directory named `kernel`: each trace is linked
as TMP/NAME/kernel.  Text is compared byte for byte with the exit status,
MI as JSON (integers and strings equal, floats to 1e-9 relative; the
warning line that --cpu prints before the JSON, as text).  The trace's CTF
2 conversion (tracemux -o ctf --ctf-version=2) must give the CTF 1.8
answers byte for byte.  The trace damaged in a stream gives the analysis of
the events before the fault (lttng-analyses on the intact trace up to the
last of them), then the error.  --all adds the other kernel traces of the corpus
and more option sets (tests/analyze-all.sh).
"""
import json
import os
import shutil
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import Report, first_diff, parse_args, run  # noqa: E402
from test_analyze import compare_damaged, json_diff, link_kernel, lttng, require_tools  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
IO_TRACE = os.path.join(HERE, "..", "data", "analyze-io", "kernel")
CORPUS_TRACES = {
    "bug446190": "tracecompass/tc-bug446190",
}
EXTRA_TRACES = {
    "flipping": "tracecompass/tc-flipping-endianness",
    "multidomains": "babeltrace-tests/ctf-traces/succeed/multi-domains/kernel",
    "many-threads": "tracecompass/tc-many-threads",
}
B, E = "22:13:20.005000000", "22:13:20.015000000"
CMDS = ["iolatencystats", "iolatencytop", "iolatencyfreq", "iolog", "iousagetop"]
SUITE = [
    ("io", c, []) for c in CMDS
] + [
    ("io", "iolatencystats", ["--begin", B, "--end", E]),
    ("io", "iolatencystats", ["--minsize", "100", "--maxsize", "70000", "--min", "2", "--max", "300"]),
    ("io", "iolatencystats", ["--stats", "--top", "--freq", "--log", "--usage", "--limit", "2"]),
    ("io", "iolatencytop", ["--limit", "3", "--maxsize", "5000", "--min", "5"]),
    ("io", "iolatencytop", ["--limit", "0", "--begin", "22:13:20.008000000", "--gmt"]),
    ("io", "iolatencyfreq", ["--freq-resolution", "7", "--min", "1", "--max", "500"]),
    ("io", "iolatencyfreq", ["--freq-uniform", "--freq-series", "--end", E, "--minsize", "64"]),
    ("io", "iolog", ["--begin", B, "--end", E]),
    ("io", "iolog", ["--cpu", "1", "--minsize", "512", "--no-intersection"]),
    ("io", "iousagetop", ["--limit", "3", "--timerange", f"[{B},{E}]"]),
    ("io", "iousagetop", ["--limit", "0"]),
    ("bug446190", "iolatencystats", []),
    ("bug446190", "iolog", ["--begin", "08:36:03", "--end", "08:36:05"]),
    ("bug446190", "iousagetop", ["--limit", "5"]),
]
# --all: every command on every trace with these
ALL_OPTS = [[], ["--limit", "0"], ["--stats", "--top", "--freq", "--log", "--usage"]]
# options lttng-analyses' I/O commands do not take (both: usage error, exit 2), bad dates
ERRORS = [
    ("io", "iolog", ["--tid", "120"]),
    ("io", "iousagetop", ["--procname", "bash"]),
    ("io", "iolatencystats", ["--begin", "yesterday"]),
]


def split_warning(out):
    """(leading "Warning: ..." lines, the rest): lttng-analyses prints --cpu's warning
    before its MI JSON."""
    head = b""
    while out.startswith(b"Warning:"):
        nl = out.find(b"\n")
        head, out = head + out[:nl + 1], out[nl + 1:]
    return head, out


def check_one(rep, tracemux, cmd, trace, kpath, opts, expect_rows=True):
    what = f"{cmd} {trace} {' '.join(opts)}".strip()
    rc, out, err = lttng(f"lttng-{cmd}", ["--no-progress"] + opts + [kpath])
    trc, tout, terr = run(tracemux, ["analyze", cmd] + opts + [kpath])
    if rc != trc or out != tout:
        rep.fail(f"text {what}", f"exit {rc} vs {trc}\n" + first_diff(out, tout) + terr.decode()[:500])
    elif expect_rows and (rc != 0 or out.count(b"\n") < 4):
        rep.fail(f"text {what}", f"nothing analysed (exit {rc}): {out[:300]!r} {err[-300:]!r}")
    else:
        rep.ok()
    rc, out, err = lttng(f"lttng-{cmd}-mi", opts + [kpath])
    trc, tout, terr = run(tracemux, ["analyze", cmd, "--mi"] + opts + [kpath])
    (wa, out), (wb, tout) = split_warning(out), split_warning(tout)
    try:
        d = None if wa == wb else f"warning {wa!r} != {wb!r}"
        d = d or json_diff(json.loads(out), json.loads(tout))
    except ValueError as e:
        d = f"not JSON: {e}: {out[:200]!r} / {tout[:200]!r}"
    if d or rc != trc:
        rep.fail(f"mi {what}", f"exit {rc} vs {trc}: {d}")
    else:
        rep.ok()


def check_error(rep, tracemux, cmd, trace, kpath, opts):
    what = f"error {cmd} {trace} {' '.join(opts)}"
    rc, out, _ = lttng(f"lttng-{cmd}", ["--no-progress"] + opts + [kpath])
    trc, tout, _ = run(tracemux, ["analyze", cmd] + opts + [kpath])
    # a usage error: argparse's text is not compared, only that both refuse with 2
    if rc != trc or (rc != 2 and out != tout) or rc == 0:
        rep.fail(f"text {what}", f"exit {rc} vs {trc}\n{out[:300]!r}\n{tout[:300]!r}")
    else:
        rep.ok()


def event_starts(data, lo, hi):
    """Offsets of the events of a packet of the I/O trace: every event has the
    large header's extended form (0xffff, a 32-bit id, a 64-bit time stamp)."""
    out = []
    p = data.find(b"\xff\xff", 84)
    while 0 <= p < len(data) - 14:
        ev_id, ts = struct.unpack_from("<IQ", data, p + 2)
        if ev_id < 200 and lo <= ts <= hi:
            out.append(p)
        p = data.find(b"\xff\xff", p + 1)
    return out


def check_damaged(rep, tracemux, tmp):
    """The I/O trace damaged in the middle of a stream (an event of an unknown
    class): the analysis of the events read before the fault (lttng-analyses on
    the intact trace up to the last of them, --end), then the error, exit 1."""
    kdir = os.path.join(tmp, "damaged", "kernel")
    shutil.copytree(IO_TRACE, kdir)
    victim = os.path.join(kdir, "channel0_2")
    with open(victim, "rb") as f:
        data = bytearray(f.read())
    lo, hi = struct.unpack_from("<QQ", data, 32)
    starts = event_starts(data, lo, hi)
    off = starts[len(starts) * 2 // 3]
    data[off + 2:off + 6] = b"\xff\xff\xff\xff"
    with open(victim, "wb") as f:
        f.write(data)
    rc, js, _ = run(tracemux, ["-o", "json", "--jobs", "1", kdir])
    ts = [json.loads(line)["ts_ns"] for line in js.splitlines() if line.startswith(b'{"type":"event"')]
    if rc != 1 or not ts:
        rep.fail("damaged: the fault", f"exit {rc}, {len(ts)} events")
        return
    intact = os.path.join(tmp, "io", "kernel")
    for cmd in ("iolog", "iousagetop"):
        compare_damaged(rep, tracemux, cmd, kdir, intact, ts[-1], "channel0_2", off)


def check_ctf2(rep, tracemux, tmp):
    """The CTF 2 conversion of the I/O trace: the CTF 1.8 answers, byte for byte."""
    out = os.path.join(tmp, "ctf2")
    code, _, err = run(tracemux, ["-o", "ctf", "--ctf-version=2", "-w", out, IO_TRACE])
    dirs = [os.path.join(out, d) for d in os.listdir(out)] if code == 0 else []
    if code != 0 or len(dirs) != 1:
        rep.fail("ctf2 conversion", f"exit {code}: {err[:300]!r}")
        return
    with open(os.path.join(dirs[0], "metadata"), "rb") as f:
        if not f.read(1) == b"\x1e":
            rep.fail("ctf2 conversion", "the metadata is not CTF 2's JSON text sequence")
            return
    for cmd, opts in [(c, []) for c in CMDS] + [("iolog", ["--begin", B, "--end", E]),
                                               ("iousagetop", ["--limit", "2"])]:
        for mode in ([], ["--mi"]):
            a = run(tracemux, ["analyze", cmd] + mode + opts + [IO_TRACE])
            b = run(tracemux, ["analyze", cmd] + mode + opts + [dirs[0]])
            if a != b or a[0] != 0:
                rep.fail(f"ctf2 {cmd} {' '.join(mode + opts)}", first_diff(a[1], b[1]))
            else:
                rep.ok()


def main():
    args = parse_args(("--all", dict(action="store_true", help="every I/O command on every kernel trace")))
    rep = Report("analyze_io")
    require_tools(rep, ("lttng-iolatencystats", "babeltrace"))
    traces = dict(CORPUS_TRACES)
    plan = list(SUITE)
    if args.all:
        traces.update(EXTRA_TRACES)
        plan += [(t, c, o) for t in ["io"] + list(traces) for c in CMDS for o in ALL_OPTS]
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        kpaths = {t: link_kernel(tmp, t, rel, args.corpus) for t, rel in traces.items()}
        os.makedirs(os.path.join(tmp, "io"))
        kpaths["io"] = os.path.join(tmp, "io", "kernel")
        os.symlink(os.path.abspath(IO_TRACE), kpaths["io"])
        for i, (trace, cmd, opts) in enumerate(plan):
            # the suite's runs all have rows; --all's traces may have no I/O
            check_one(rep, args.tracemux, cmd, trace, kpaths[trace], opts, i < len(SUITE))
        for trace, cmd, opts in ERRORS:
            check_error(rep, args.tracemux, cmd, trace, kpaths[trace], opts)
        check_damaged(rep, args.tracemux, tmp)
        check_ctf2(rep, args.tracemux, tmp)
    print(f"analyze_io: {time.time() - start:.1f} s")
    rep.finish()


if __name__ == "__main__":
    main()
