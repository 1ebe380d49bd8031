"""`-o tracecmd` against `trace-cmd report` (trace-cmd 3.1.6), byte for byte.

The references are ../shared/corpus/tracecmd-samples/expected/*.txt, made
with Debian's trace-cmd 3.1.6 (LC_ALL=C TZ=UTC).  Each starts with a
"# trace-cmd ...: trace-cmd ARGS" line and ends with "# exit=N"; what is in
between is trace-cmd's standard output, compared byte for byte.

Covered: the default report, -N, -R, -t of every .dat (v6, v7 zstd, v7
uncompressed, the v6 made by `trace-cmd convert`, two buffers, a mono
clock), --cpu, -F (event names and a field filter), -v -F, --stat, -l,
--ts-diff, -w (here --wakeup), --first-event/--last-event, --cpus, -E,
--check-events, --uname/--version (here --tracecmd-version), --raw-ts,
--align-ts, --ts2secs, -e (here --endian), --profile (equal entries, which
trace-cmd orders differently from run to run, sorted), the multi-file merge, and the
v6/v7 equivalence (sched-v7-zstd.dat and its conversion to v6 print the
same events).  The cases run in the corpus directory with the file names
that trace-cmd was given (--cpus prints them).  tests/golden/
test_tracecmd_options.py compares these options live on more files.

Also: tests/data/tracedat (hand-built files: both byte orders, missed events,
time options) and tests/data/tracecmd-report (kernel stack traces) with
trace-cmd's reports of them, a CTF trace through the model path, and, when
trace-cmd is installed, more option sets and file combinations run live.

The references of report options that tracemux does not implement are
listed by name with the reason at the end of the run (NOT COVERED), never
silently dropped.
"""
import os
import re
import shutil
import subprocess

from bt2ref import Report, first_diff, parse_args, read_ref, run, tool

DATS = ["sched-v6", "sched-v7-zstd", "sched-v7-nocomp", "sched-v7-zstd.converted-to-v6",
        "multibuf-v7-zstd", "clock-mono-v7-zstd"]

# reference -> (tracemux options, input files).  trace-cmd's -t is --nsec here
# (tracemux's -t is --timerange), its -R is also --raw.
CASES = {}
for d in DATS:
    CASES[f"{d}.report.txt"] = ([], [d])
    CASES[f"{d}.report-N.txt"] = (["-N"], [d])
    CASES[f"{d}.report-R.txt"] = (["--raw"], [d])
    CASES[f"{d}.report-t.txt"] = (["--nsec"], [d])
CASES.update({
    "sched-v6.report-cpu0.txt": (["--cpu", "0"], ["sched-v6"]),
    "sched-v6.report-F-sched_switch.txt": (["-F", "sched_switch"], ["sched-v6"]),
    "sched-v6.report-F-prev_pid.txt": (["-F", "sched_switch: prev_pid != 0"], ["sched-v6"]),
    "sched-v6.report-v-F-syscalls.txt": (["-v", "-F", "raw_syscalls"], ["sched-v6"]),
    "sched-v6.report-stat.txt": (["--stat"], ["sched-v6"]),
    "multibuf.report-stat.txt": (["--stat"], ["multibuf-v7-zstd"]),
    "multi-file-merge.txt": ([], ["sched-v6", "sched-v7-zstd"]),
    "sched-v6.report-l.txt": (["-l"], ["sched-v6"]),
    "sched-v6.report-ts-diff.txt": (["--ts-diff"], ["sched-v6"]),
    "sched-v6.report-w.txt": (["--wakeup", "-F", "sched_switch, sched_wakeup.*"], ["sched-v6"]),
    "sched-v6.report-first-last.txt": (["--first-event", "--last-event"], ["sched-v6"]),
    "sched-v6.report-cpus.txt": (["--cpus"], ["sched-v6"]),
    "sched-v6.report-E.txt": (["-E"], ["sched-v6"]),
    "sched-v6.report-check-events.txt": (["--check-events"], ["sched-v6"]),
    "sched-v6.report-uname-version.txt": (["--uname", "--tracecmd-version"], ["sched-v6"]),
    "sched-v6.report-raw-ts.txt": (["--raw-ts"], ["sched-v6"]),
    "sched-v6.report-align-ts.txt": (["--align-ts"], ["sched-v6"]),
    "sched-v6.report-ts2secs.txt": (["--ts2secs", "1000000000"], ["sched-v6"]),
    "sched-v6.report-e.txt": (["--endian"], ["sched-v6"]),
})

# Every other reference in expected/, and why it is not compared.
# --profile: trace-cmd orders the entries that compare equal (same event and total
# time, or two wakeups) by hashes of heap addresses, so its own output changes from
# run to run.  Those runs of lines are sorted on both sides before comparing.
ORDERLESS = {
    "sched-v6.report-profile.txt": (["--profile"], ["sched-v6"]),
}

NOT_COVERED = {
    "dump-": "trace-cmd dump is a file-structure dump, not report output (see tracemux info)",
}


def profile_lines(out):
    """--profile text with each run of equal-ranking entries sorted (see ORDERLESS).

    An entry is its "  Event:" line and the stack tree under it; "task:" and
    empty lines stand alone.  --by-comm groups (which trace-cmd orders by heap
    addresses too) are sorted by their text.
    """
    parts = re.split(r"(?=\n(?:group|task): )", out.decode("utf-8", "replace"))
    groups = sorted(p for p in parts[1:] if p.startswith("\ngroup: "))
    text = parts[0] + "".join(groups) + "".join(p for p in parts[1:] if not p.startswith("\ngroup: "))
    units = []
    for line in text.split("\n"):
        m = re.match(r"  Event: ([^:]+):.*? \(\d+\)(?: Total: (\d+))?", line)
        if m:
            key = m.group(1) if m.group(1) == "sched_wakeup" else (m.group(1), m.group(2))
            units.append([key, line])
        elif units and units[-1][0] is not None and line and not line.startswith("task: "):
            units[-1].append(line)
        else:
            units.append([None, line])
    res, run, run_key = [], [], None
    for u in units:
        if u[0] is not None and u[0] == run_key:
            run.append(u[1:])
            continue
        for r in sorted(run):
            res += r
        run, run_key = [u[1:]], u[0]
    for r in sorted(run):
        res += r
    return res


def split_ref(data):
    """(expected stdout, expected exit code) of a stored reference."""
    lines = data.split(b"\n")
    assert lines[0].startswith(b"# trace-cmd"), "no header line"
    assert lines[-1] == b"" and lines[-2].startswith(b"# exit="), "no exit line"
    return b"\n".join(lines[1:-2]) + (b"\n" if len(lines) > 3 else b""), int(lines[-2][7:])


def main():
    args = parse_args()
    base = os.path.join(args.corpus, "tracecmd-samples")
    exp_dir = os.path.join(base, "expected")
    report = Report("trace-cmd report (-o tracecmd)")
    tool(report, "trace-cmd", "trace-cmd")   # run live below: fail here without it
    outputs = {}

    for ref, (opts, dats) in sorted(CASES.items()):
        with open(os.path.join(exp_dir, ref), "rb") as f:
            expected, exp_code = split_ref(f.read())
        code, out, err = run(args.tracemux, ["-o", "tracecmd", "--report-version=3.1", "--report-version=3.1"] + opts + [d + ".dat" for d in dats],
                             cwd=base)
        outputs[ref] = out
        if code != exp_code or out != expected:
            report.fail(ref, f"exit {code} (trace-cmd: {exp_code}) {err.decode(errors='replace')[:500]}\n"
                        + first_diff(expected, out))
        else:
            report.ok()

    for ref, (opts, dats) in sorted(ORDERLESS.items()):
        with open(os.path.join(exp_dir, ref), "rb") as f:
            expected, exp_code = split_ref(f.read())
        code, out, err = run(args.tracemux, ["-o", "tracecmd", "--report-version=3.1", "--report-version=3.1"] + opts + [d + ".dat" for d in dats], cwd=base)
        if code != exp_code or profile_lines(out) != profile_lines(expected) or not out:
            report.fail(ref, f"exit {code} (trace-cmd: {exp_code}) {err.decode(errors='replace')[:500]}\n"
                        + first_diff(expected, out))
        else:
            report.ok()

    # The hand-built files of tests/data/tracedat (tests/data/make-tracedat.sh: big-endian
    # 4-byte longs, missed events with and without counts, time extends, DATE/OFFSET,
    # TIME_SHIFT, TSC2NSEC, a raw x86-tsc clock) and trace-cmd's -t and -R reports of them.
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tracedat")
    for name in sorted(os.listdir(data)) if os.path.isdir(data) else []:
        if not name.endswith(".txt") or ".report-" not in name:
            continue
        dat, kind = name.split(".report-")
        opt = {"t.txt": ["--nsec"], "R.txt": ["--raw"], "N.txt": ["-N"], "txt": []}.get(kind)
        if opt is None:
            continue
        with open(os.path.join(data, name), "rb") as f:
            expected, exp_code = split_ref(f.read())
        code, out, err = run(args.tracemux, ["-o", "tracecmd", "--report-version=3.1", "--report-version=3.1"] + opt + [os.path.join(data, dat + ".dat")])
        if code != exp_code or out != expected:
            report.fail("tests/data/tracedat/" + name, f"exit {code} {err.decode(errors='replace')[:300]}\n"
                        + first_diff(expected, out))
        else:
            report.ok()

    # tests/data/tracecmd-report (tests/data/make-tracecmd-report.sh): kernel stack traces
    # (trace-cmd's stack-trace follow-up of -F filters; records shorter than their format,
    # which libtraceevent reads past their end inside the page).
    stack = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tracecmd-report")
    for ref, opts in [("stack-v7.report.txt.gz", []), ("stack-v7.report-N.txt.gz", ["-N"]),
                      ("stack-v7.report-R.txt.gz", ["--raw"]),
                      ("stack-v7.report-F-sched_switch.txt.gz", ["-F", "sched_switch"]),
                      ("stack-v7.report-v-F-sched_wakeup.txt.gz", ["-v", "-F", "sched_wakeup"])]:
        expected, exp_code = split_ref(read_ref(os.path.join(stack, ref)))
        code, out, err = run(args.tracemux, ["-o", "tracecmd", "--report-version=3.1", "--report-version=3.1"] + opts + [os.path.join(stack, "stack-v7.dat")])
        if code != exp_code or out != expected:
            report.fail("tests/data/tracecmd-report/" + ref, f"exit {code} {err.decode(errors='replace')[:300]}\n"
                        + first_diff(expected, out))
        else:
            report.ok()

    # v6/v7 equivalence: the conversion of sched-v7-zstd.dat to v6 prints the same.
    for kind in ["report.txt", "report-N.txt", "report-R.txt", "report-t.txt"]:
        a = outputs.get(f"sched-v7-zstd.{kind}")
        b = outputs.get(f"sched-v7-zstd.converted-to-v6.{kind}")
        if a is None or b is None or a != b or not a:
            report.fail(f"v6/v7 equivalence {kind}", first_diff(a or b"", b or b""))
        else:
            report.ok()

    # The same bytes when the output goes to a file (-w) rather than a pipe.
    out_path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tmx-tcreport-{os.getpid()}.txt")
    try:
        code, _, _ = run(args.tracemux, ["-o", "tracecmd", "--report-version=3.1", "-w", out_path, os.path.join(base, "sched-v6.dat")])
        with open(out_path, "rb") as f:
            written = f.read()
        if code != 0 or written != outputs.get("sched-v6.report.txt"):
            report.fail("-w FILE", f"exit {code}, {len(written)} bytes")
        else:
            report.ok()
    finally:
        if os.path.exists(out_path):
            os.unlink(out_path)

    # A bad filter is a usage error (trace-cmd: "Error filtering"), nothing printed.
    code, out, err = run(args.tracemux, ["-o", "tracecmd", "--report-version=3.1", "-F", "no_such_event",
                                         os.path.join(base, "sched-v6.dat")])
    if code == 0 or b"no_such_event" not in err or out:
        report.fail("bad -F", f"exit {code}: {err!r}")
    else:
        report.ok()

    # Other traces through the model (documented layout, no trace-cmd reference):
    # one line per event, babeltrace2's events in its order, the CPU from cpu_id,
    # the pid from vtid and the time rounded to microseconds as trace-cmd rounds.
    bt = os.path.join(args.corpus, "babeltrace-tests")
    ref = os.path.join(bt, "generated-reference", "bt2-pretty-nodelta-seconds", "succeed__wk-heartbeat-u.txt")
    code, out, err = run(args.tracemux, ["-o", "tracecmd", "--report-version=3.1", os.path.join(bt, "ctf-traces", "succeed", "wk-heartbeat-u")])
    with open(ref, "rb") as f:
        bt2 = re.findall(rb"^\[(\d+)\.(\d{9})\] \S+ (\S+): \{ cpu_id = (\d+) \}, \{ vtid = (\d+),", f.read(), re.M)
    ours = re.findall(rb"^ *(\S+)-(\d+) +\[(\d{3})\] +(\d+)\.(\d{6}): (\S+): +(.*)$", out, re.M)
    expect = [(b"<...>", vtid, b"%03d" % int(cpu), *divmod(int(s_) * 1000000 + (int(ns) + 500) // 1000, 1000000), name)
              for s_, ns, name, cpu, vtid in bt2]
    got = [(c, pid, cpu, int(s_), int(us), name) for c, pid, cpu, s_, us, name, _ in ours]
    if code != 0 or not bt2 or len(ours) != len(out.splitlines()) or got != expect:
        report.fail("CTF trace through -o tracecmd", f"exit {code}, {len(ours)} lines, babeltrace2 {len(bt2)} events")
    else:
        report.ok()

    # Live, when trace-cmd is installed: more option sets and file combinations.
    # Not compared, deliberately: -F or --cpu over several files or over a file with
    # instances.  trace-cmd 3.1.6 filters only the first file (and with --cpu prints
    # nothing of the other files and instances); tracemux applies them to every file and
    # buffer (see the manual).  When trace-cmd itself crashes the case is listed.
    live_notes = []
    if shutil.which("trace-cmd"):
        live = []
        # (sched-v7-nocomp and the converted v6 add nothing here to the two below)
        for d in ["sched-v6", "sched-v7-zstd", "multibuf-v7-zstd", "clock-mono-v7-zstd"]:
            for opts in (["--cpu", "1"], ["-N", "--nsec"], ["-R", "--cpu", "0,1"], ["-F", "sys_enter, sched.*"],
                         ["-v", "-F", "sched_switch: next_pid == 0"], ["--stat"], ["-l", "-R"],
                         ["--ts-diff", "--nsec"], ["-l", "--ts-diff"]):
                if d.startswith("multibuf") and ("--cpu" in opts or "-F" in opts):
                    continue
                live.append((opts, [d]))
        for combo in (["multibuf-v7-zstd", "sched-v6"], ["clock-mono-v7-zstd", "multibuf-v7-zstd", "sched-v7-nocomp"]):
            for opts in ([], ["--raw"], ["--stat"], ["-N", "--nsec"], ["-l", "--ts-diff"]):
                live.append((opts, combo))
        tc_opt = {"--nsec": "-t", "--raw": "-R"}
        for opts, dats in live:
            paths = [os.path.join(base, d + ".dat") for d in dats]
            tc_args = ["report"] + [tc_opt.get(o, o) for o in opts]
            for p in paths:
                tc_args += ["-i", p]
            tc = subprocess.run(["trace-cmd"] + tc_args, capture_output=True, env=dict(os.environ, LC_ALL="C", TZ="UTC"))
            code, out, err = run(args.tracemux, ["-o", "tracecmd", "--report-version=3.1", "--report-version=3.1"] + opts + paths)
            what = "live: trace-cmd " + " ".join(tc_args).replace(base + "/", "")
            if tc.returncode < 0:
                live_notes.append(f"{what}: trace-cmd crashed (signal {-tc.returncode}), not compared")
                continue
            # trace-cmd exits 255 where tracemux says 1 or 2: compare failure, not the number.
            if (code == 0) != (tc.returncode == 0) or out != tc.stdout:
                report.fail(what, f"exit {code} (trace-cmd {tc.returncode})\n" + first_diff(tc.stdout, out))
            else:
                report.ok()
    else:
        print("trace-cmd is not installed: the live comparisons are not run")

    not_covered = []
    for name in sorted(os.listdir(exp_dir)):
        if name in CASES or name in ORDERLESS:
            continue
        why = next((r for k, r in NOT_COVERED.items() if name.endswith(k) or name.split(".")[-2].startswith(k)), None)
        if why is None:
            report.fail(name, "reference not covered and not listed in NOT_COVERED")
        else:
            not_covered.append(f"{name}: {why}")
    print("NOT COVERED (listed, not compared):")
    for line in not_covered + live_notes:
        print("  " + line)
    report.finish()


if __name__ == "__main__":
    main()
