"""`-o tracecmd` report options against trace-cmd 3.1.6 run live, byte for byte.

The stored corpus references (../shared/corpus/tracecmd-samples/expected,
compared by test_tracecmd_report.py) cover each option once, on
sched-v6.dat.  Here trace-cmd itself (a test dependency, Debian package
trace-cmd) is the reference for the same options on every corpus file, on
the hand-built files of tests/data/tracedat (big endian, 4-byte longs, a raw
x86-tsc clock, TSC2NSEC, TIME_SHIFT, DATE and OFFSET options, missed
events), on files that trace-cmd convert/split make (a v6 file with an
instance, a sparse CPU list) and on several files at once:

  --raw-ts, --align-ts, --ts2secs (a double product as libtracecmd's, an
  overflow to 0 included), --nodate, --cpus, --first-event, --last-event,
  --uname, --tracecmd-version (report --version), -E, --events, --event,
  --endian (report -e),
  --page-size (report -p), --check-events, --funcs (report -f), -P, -I, -S,
  --wakeup (report -w), --pid, --comm, -r, --no-handler (report -n), -L,
  -T, --ts-check, -q, --kallsyms,
  --profile, -G, --by-comm and -H (runs of equal-ranking entries and the groups
  sorted on both sides: trace-cmd's
  own order of those changes from run to run), and combinations with -t
  (--nsec), --ts-diff, -l, --stat, -F.

Standard output and success/failure must be the same (trace-cmd exits 255
or 22 where tracemux exits 1 or 2).  Known differences that are not
compared would be listed at the end (-F when the first file has instances:
trace-cmd 3.1.6 crashes; see the manual).  Several files at once with
--cpu and the filters: test_tracecmd_multi.py.

Also, without trace-cmd: bad arguments are usage errors that print
nothing, --check-events names the format that cannot be parsed (in copies
of sched-v6.dat with one format damaged in place), and the options refuse
inputs that are not trace.dat files.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import Report, first_diff, parse_args, run_env, tool  # noqa: E402
from test_tracecmd_report import profile_lines  # noqa: E402

# tracemux spelling -> trace-cmd report spelling
TC_SPELLING = {"--nsec": "-t", "--raw": "-R", "--endian": "-e", "--tracecmd-version": "--version",
               "--wakeup": "-w", "--page-size": "-p", "--no-handler": "-n", "--funcs": "-f"}
# (the other options have trace-cmd's spelling: -E, -I, -S, -r, -L, -P, -G, -H, -T, -q, --cpus...)

# Options that print the events, run on the event-rich corpus files and every made file.
EVENTS = [
    ["--raw-ts"], ["--raw-ts", "--ts-diff"], ["--align-ts", "--ts-diff"], ["--align-ts", "-l"],
    ["--ts2secs", "1000"], ["--ts2secs", "3"], ["--ts2secs", "3000000000", "--nsec"],
    ["--nodate", "--ts-diff", "--nsec"], ["-I"], ["-S", "--nsec"], ["--wakeup"], ["--wakeup", "--nsec"],
    ["-r", "ev|rich"],
]
# Options about sched and syscall events: on the corpus files only.
SCHED_EVENTS = [
    ["--pid", "21,15"], ["--comm", "work.sh,sleep", "--pid", "15", "-F", "sys_exit"], ["--comm", "nosuch"],
    ["-r", "sched_switch"], ["--no-handler", "sched_switch"], ["-r", "SYS_.*", "--no-handler", "sched"],
    ["-L"], ["-T", "-F", "sched_switch: prev_pid != 0", "-F", "sys_e.*"], ["-T", "-v", "-F", "sched_switch", "--pid", "21"],
    ["-T", "--comm", "cat,sleep", "--pid", "21,015", "--pid", "7"], ["-T"], ["-T", "--comm", "nosuch"],
    ["--ts-check"], ["-q", "--comm", "nosuch"],
]
EVENT_FILES = ["sched-v6.dat", "multibuf-v7-zstd.dat"]
# Options that print something else: on the event-rich corpus files and every made file.
INFO = [
    ["--cpus"], ["--first-event", "--last-event", "--nsec"], ["--last-event", "--raw-ts"],
    ["--ts2secs", "1000", "--first-event", "--last-event"], ["--uname"], ["--tracecmd-version"],
    ["--uname", "--stat"], ["-E"], ["--endian"], ["--page-size"], ["--check-events"],
]
# The stored event formats: every regex form (SYSTEM:EVENT, one regex for both, a trailing or
# leading colon, case, anchors), --events winning over --event, -E, --page-size.
FORMATS = [
    ["--events"], ["--event", "sched"], ["--event", "wakeup"], ["--event", "sched:sched_switch"],
    ["--event", "^sys"], ["--event", "irq"], ["--event", "SCHED_SWITCH"], ["--event", "x"],
    ["--event", ":sched_switch"], ["--event", "irq:"], ["--event", "timer:.*start"],
    ["--event", "nosuch"], ["--event", "x", "--events"], ["--events", "-E"], ["--events", "--page-size"],
    ["--event", "ev|rich"],
]
# The corpus files that only INFO and plain --profile run on (their events are like the others').
OTHER_CORPUS = ["sched-v7-zstd.dat", "sched-v7-nocomp.dat", "sched-v7-zstd.converted-to-v6.dat"]
# Long listings (kallsyms, printk formats), on two files only.
LISTINGS = [["--funcs"], ["-P"], ["--check-events", "--funcs"], ["--funcs", "-P", "-E"]]
LISTING_FILES = ["sched-v6.dat", "sched-v7-zstd.dat"]
# Options run on several files at once (report -i A -i B ...).
MULTI = [
    ["--raw-ts"], ["--align-ts", "--ts-diff", "--nsec"], ["--ts2secs", "1000"], ["--nodate"],
    ["--cpus"], ["--first-event", "--last-event", "--nsec"], ["--uname"], ["--tracecmd-version"],
    ["-E"], ["--endian"], ["--check-events"], ["-I", "-S"],
    ["--wakeup"],   # an error for both
]
COMBOS = [["sched-v6.dat", "multibuf-v7-zstd.dat"],
          ["clock-mono-v7-zstd.dat", "sched-v7-nocomp.dat", "sched-v7-zstd.dat"]]

# Files that trace-cmd makes from corpus files: (source, name, command; "-i SRC -o OUT" added).
MADE = [
    ("multibuf-v7-zstd.dat", "multibuf-to-v6.dat", ["convert", "--file-version", "6"]),
    ("sched-v7-zstd.dat", "sched-cpu1-only.dat", ["split", "-C", "1"]),
]


def tracemux(args, opts, files, cwd):
    p = subprocess.run([args.tracemux, "-o", "tracecmd", "--report-version=3.1", "--report-version=3.1"] + opts + files, capture_output=True, env=run_env(),
                       cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


TIME_OPTS = {"--raw-ts", "--align-ts", "--ts2secs", "--nodate", "--first-event", "--last-event", "--cpus"}
# The hand-built files that the options without a time effect run on (big endian, raw clock).
SOME_DATA = ["be4-v7-zstd-missed.dat", "tsc-raw-v6.dat"]


def worth(opts, cwd, d, base, data):
    """Whether a single-file case adds anything: time options on every file, others on a few."""
    if cwd == base:
        return d in EVENT_FILES
    return cwd != data or d in SOME_DATA or any(o in TIME_OPTS for o in opts)


def known_difference(opts, files):
    """trace-cmd 3.1.6 crashes when the first file, which it filters, has instances."""
    return os.path.basename(files[0]).startswith("multibuf") and "-F" in opts


def compare_live(args, report, tc, opts, files, cwd, notes, orderless=False):
    tc_args = ["report"] + [TC_SPELLING.get(o, o) for o in opts]
    for f in files:
        tc_args += ["-i", f]
    what = "trace-cmd " + " ".join(tc_args)
    if known_difference(opts, files):
        notes.append(what + ": not compared (-F/--cpu with instances, see the manual)")
        return
    ref = subprocess.run([tc] + tc_args, capture_output=True, env=dict(os.environ, LC_ALL="C", TZ="UTC"),
                         cwd=cwd, timeout=300)
    if ref.returncode < 0:
        notes.append(f"{what}: trace-cmd crashed (signal {-ref.returncode}), not compared")
        return
    code, out, err = tracemux(args, opts, files, cwd)
    same = profile_lines(out) == profile_lines(ref.stdout) if orderless else out == ref.stdout
    if code < 0 or (code == 0) != (ref.returncode == 0) or not same:
        report.fail(what, f"exit {code} (trace-cmd {ref.returncode}) {err.decode(errors='replace')[:300]}\n"
                    + first_diff(ref.stdout, out))
    else:
        report.ok()


def damaged_copy(src, dst, event, old, new):
    """sched-v6.dat with `old` replaced by `new` (same length) in one event's format."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    at = data.find(b"name: " + event + b"\n")
    at = data.find(old, at)
    assert at > 0 and len(old) == len(new)
    data[at:at + len(old)] = new
    with open(dst, "wb") as f:
        f.write(data)


def main():
    args = parse_args()
    args.tracemux = os.path.abspath(args.tracemux)
    base = os.path.join(args.corpus, "tracecmd-samples")
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tracedat")
    report = Report("trace-cmd report options (-o tracecmd)")
    tool(report, "trace-cmd", "trace-cmd")   # run live below: fail here without it
    notes = []
    tc = shutil.which("trace-cmd")
    tmp = tempfile.mkdtemp(prefix="tmx-tcopts-")
    try:
        # --- Errors and refusals: no trace-cmd needed --------------------------------
        v6 = "sched-v6.dat"
        for opts, what in ((["--ts2secs", "0"], "--ts2secs"), (["--ts2secs", "1e9"], "--ts2secs"),
                           (["--ts2secs", "-5"], "--ts2secs"), (["--pid", "abc"], "--pid"),
                           (["--pid", "12,x"], "--pid"), (["-r", "sched_\\(switch"], "-r"),
                           (["--no-handler", "[a"], "-n"), (["--profile", "-H", "garbage"], "-H"),
                           (["--event", "[a"], "--event"), (["--event", "::"], "--event"),
                           (["--event", "sched:[a"], "--event")):
            code, out, err = tracemux(args, opts, [v6], base)
            if code != 2 or out or what.encode() not in err:
                report.fail("bad argument " + " ".join(opts), f"exit {code}, {len(out)} bytes out: {err!r}")
            else:
                report.ok()
        code, out, err = tracemux(args, ["--wakeup"], [v6, "sched-v7-zstd.dat"], base)
        if code != 2 or out or b"single input" not in err:
            report.fail("--wakeup with two files", f"exit {code}, {len(out)} bytes out: {err!r}")
        else:
            report.ok()
        ctf = os.path.join(args.corpus, "babeltrace-tests", "ctf-traces", "succeed", "wk-heartbeat-u")
        for opts in (["--cpus"], ["--raw-ts"], ["--wakeup"], ["-E"], ["--check-events"], ["--pid", "1"],
                     ["--funcs"]):
            code, out, err = tracemux(args, opts, [ctf], base)
            if code != 2 or out or b"trace.dat" not in err:
                report.fail("non-trace.dat input with " + " ".join(opts), f"exit {code}: {err!r}")
            else:
                report.ok()
        # --check-events: formats libtraceevent cannot parse (no ID: line, no name: line),
        # and damage it parses anyway (trace-cmd says 0 for those too).
        damaged = [("no-id.dat", b"sched_switch", b"ID:", b"IX:", "sched:sched_switch"),
                   ("no-name.dat", b"sys_enter", b"name:", b"nXme:", "raw_syscalls:"),
                   ("bad-print.dat", b"sched_switch", b"print fmt:", b"print fXt:", None)]
        for name, event, old, new, failing in damaged:
            path = os.path.join(tmp, name)
            damaged_copy(os.path.join(base, v6), path, event, old, new)
            code, out, err = tracemux(args, ["--check-events"], [name], tmp)
            ok = out == b"" and (code == 0 if failing is None else
                                 code == 1 and name.encode() in err and failing.encode() in err)
            if not ok:
                report.fail("--check-events " + name, f"exit {code}: {err!r}")
            else:
                report.ok()
            if tc:
                ref = subprocess.run([tc, "report", "--check-events", "-i", name], capture_output=True, cwd=tmp)
                if (ref.returncode == 0) != (code == 0) or ref.stdout != out:
                    report.fail("--check-events vs trace-cmd " + name, f"exit {code}, trace-cmd {ref.returncode}")
                else:
                    report.ok()
        code, out, err = tracemux(args, ["--profile", "-H", "sched_waking,nofield/sched_wakeup,pid"], [v6], base)
        if code != 1 or b"sched-v6.dat" not in err or b"-H" not in err:
            report.fail("-H with a missing field", f"exit {code}: {err!r}")
        else:
            report.ok()
        # --kallsyms FILE: more symbols (read before the file's own), seen in the events and -f.
        ksyms = os.path.join(tmp, "kallsyms.txt")
        with open(ksyms, "w") as f:
            f.write("ffffffff81000000 T tmx_text_start\nffffffff8149895a t tmx_print_ip\n")
        if tc:
            for opts in (["--kallsyms", ksyms], ["--kallsyms", ksyms, "--funcs"], ["--kallsyms", ksyms, "-R"]):
                compare_live(args, report, tc, opts, [v6], base, notes)
        code, out, err = tracemux(args, ["--kallsyms", os.path.join(tmp, "none.txt")], [v6], base)
        if code != 1 or out or b"none.txt" not in err:
            report.fail("--kallsyms missing file", f"exit {code}: {err!r}")
        else:
            report.ok()
        # -q: no warnings (here: a comm without pids).
        code, out, err = tracemux(args, ["-q", "--comm", "nosuch"], [v6], base)
        code2, _, err2 = tracemux(args, ["--comm", "nosuch"], [v6], base)
        if code or code2 or err or b"nosuch" not in err2:
            report.fail("-q", f"exit {code}/{code2}: {err!r} / {err2!r}")
        else:
            report.ok()
        # -w FILE: the same bytes as standard output (also for what libtraceevent prints itself).
        for opts in (["--funcs"], ["-T", "-F", "sched_switch"]):
            out_path = os.path.join(tmp, "listing.txt")
            code, out, _ = tracemux(args, opts, [v6], base)
            code2, out2, _ = tracemux(args, opts + ["-w", out_path], [v6], base)
            with open(out_path, "rb") as f:
                if code or code2 or out2 or f.read() != out or not out:
                    report.fail(" ".join(opts) + " -w FILE", f"exit {code}/{code2}")
                else:
                    report.ok()
        out_path = os.path.join(tmp, "out.txt")
        code, out, _ = tracemux(args, ["--wakeup", "-F", "sched_switch, sched_wakeup.*"], [v6], base)
        code2, _, _ = tracemux(args, ["--wakeup", "-F", "sched_switch, sched_wakeup.*", "-w", out_path], [v6], base)
        with open(out_path, "rb") as f:
            if code or code2 or f.read() != out or b"Average wakeup latency" not in out:
                report.fail("--wakeup -w FILE", f"exit {code}/{code2}")
            else:
                report.ok()

        # --- Live: trace-cmd is the reference ----------------------------------------
        if not tc:
            print("FAIL: trace-cmd is not installed (scripts/install-deps.sh test): the live comparisons "
                  "are not run")
            report.fail("trace-cmd missing")
            report.finish()
            return
        for src, name, cmd in MADE:
            dst = os.path.join(tmp, name)
            p = subprocess.run([tc, cmd[0], "-i", os.path.join(base, src), "-o", dst] + cmd[1:],
                               capture_output=True, cwd=tmp, timeout=300)
            if cmd[0] == "split" and os.path.exists(dst + ".1"):
                os.rename(dst + ".1", dst)
            if p.returncode or not os.path.exists(dst):
                report.fail(f"trace-cmd {' '.join(cmd)} {src}", p.stderr.decode(errors="replace")[-300:])
        singles = [(base, d) for d in sorted(os.listdir(base)) if d.endswith(".dat")]
        singles += [(data, d) for d in sorted(os.listdir(data)) if d.endswith(".dat")]
        singles += [(tmp, name) for _, name, _ in MADE if os.path.exists(os.path.join(tmp, name))]
        for opts in INFO:
            for cwd, d in singles:
                if worth(opts, cwd, d, base, data) or (cwd == base and opts in (["--cpus"], ["-E"])):
                    compare_live(args, report, tc, opts, [d], cwd, notes)
        for opts in LISTINGS:
            for d in LISTING_FILES:
                compare_live(args, report, tc, opts, [d], base, notes)
        # --events / --event on the version 6 files (trace-cmd 3.1.6 prints nothing for a v7
        # file); a v7 file prints what trace-cmd prints for its conversion to v6.
        for opts in FORMATS:
            for cwd, d in singles:
                if open(os.path.join(cwd, d), "rb").read(12)[10:11] == b"6":
                    compare_live(args, report, tc, opts, [d], cwd, notes)
        for opts in (["--events"], ["--event", "sched:.*wak"]):
            ref = subprocess.run([tc, "report"] + opts + ["-i", "sched-v7-zstd.converted-to-v6.dat"],
                                 capture_output=True, cwd=base, timeout=300)
            code, out, err = tracemux(args, opts, ["sched-v7-zstd.dat"], base)
            what = f"{' '.join(opts)} on sched-v7-zstd.dat vs trace-cmd on its v6 conversion"
            if code or not out or out != ref.stdout:
                report.fail(what, first_diff(ref.stdout, out) if out else err.decode(errors="replace"))
            else:
                report.ok()
        for opts in SCHED_EVENTS:
            compare_live(args, report, tc, opts, ["sched-v6.dat"], base, notes)
        for opts in EVENTS:
            for cwd, d in singles:
                if worth(opts, cwd, d, base, data) or (cwd == data and opts == ["-r", "ev|rich"]):
                    compare_live(args, report, tc, opts, [d], cwd, notes)
        for i, opts in enumerate(MULTI):
            for files in COMBOS if i % 2 == 0 else COMBOS[:1]:
                compare_live(args, report, tc, opts, files, base, notes)
        # --profile: runs of equal-ranking entries sorted on both sides (trace-cmd's order of
        # those changes from run to run); instances make both fail after the same bytes.
        for opts in (["--profile"], ["--profile", "--nsec", "-F", "sched.*, sys_enter"], ["--profile", "--align-ts"],
                     ["--profile", "-G"], ["--profile", "--by-comm"], ["--profile", "--by-comm", "-G"]):
            for cwd, d in singles:
                if (opts == ["--profile"] and d not in OTHER_CORPUS) or d == "sched-v6.dat":
                    compare_live(args, report, tc, opts, [d], cwd, notes, orderless=True)
        for files in COMBOS:
            compare_live(args, report, tc, ["--profile"], files, base, notes, orderless=True)
        # -H hooks: more event pairs (printed when parsed, also without --profile); one whose
        # start event does not exist (a warning); one that replaces the sched_wakeup pairing.
        for opts in (["--profile", "-H", "sched_waking,pid/sched_wakeup,pid"],
                     ["--profile", "-H", "raw_syscalls:sys_enter,id/sys_exit,id,G"],
                     ["--profile", "-H", "softirq_raise,vec/softirq_exit,vec", "-H", "sched:sched_waking,pid,pid/"
                      "sched_switch,next_pid,P"],
                     ["--profile", "-H", "nosuch,a/sched_wakeup,pid"],
                     ["--profile", "-H", "hrtimer_start,hrtimer/hrtimer_expire_entry,hrtimer,pg", "--by-comm"],
                     ["-H", "sched_waking,pid/sched_wakeup,pid"]):
            compare_live(args, report, tc, opts, ["sched-v6.dat"], base, notes, orderless=True)
        # Kernel stack traces: trees of callers under the entries.
        stack = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "tracecmd-report")
        for opts in (["--profile"], ["--profile", "-F", "sched_switch"], ["--profile", "--cpu", "1"],
                     ["--profile", "-v", "-F", "sched_wakeup"], ["--profile", "-G"], ["--profile", "--by-comm"]):
            compare_live(args, report, tc, opts, ["stack-v7.dat"], stack, notes, orderless=True)
    finally:
        shutil.rmtree(tmp)
    if notes:
        print("NOT COMPARED:")
        for n in notes:
            print("  " + n)
    report.finish()


if __name__ == "__main__":
    main()
