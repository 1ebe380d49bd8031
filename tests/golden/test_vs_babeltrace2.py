"""Differential test against the real babeltrace2 (Debian's 2.0.4, installed
by the test command): the same traces with many option combinations must
give byte-identical standard output.  This covers option mixes that the
stored references do not (trace names, field/name sets with every clock
format, trimming by dates, the sample trace)."""
import os
import shutil
import subprocess

from bt2ref import Report, first_diff, parse_args, run

TRACES = [
    "@SAMPLE@",
    "babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u",
    "babeltrace-tests/ctf-traces/succeed/multi-domains",
    "babeltrace-tests/ctf-traces/succeed/sequence",
    "babeltrace-tests/ctf-traces/succeed/debug-info",
    "babeltrace-tests/ctf-traces/packet-seq-num/2-streams-lost-in-2",
    "babeltrace-tests/ctf-traces/succeed/lttng-tracefile-rotation",
    "babeltrace-tests/ctf-traces/succeed/session-rotation",
    "babeltrace-tests/ctf-traces/succeed/trace-with-index",
    "babeltrace-tests/ctf-traces/succeed/lttng-crash",
    "babeltrace-tests/ctf-traces/succeed/barectf-event-before-packet",
    "babeltrace-tests/ctf-traces/succeed/no-packet-context",
]

OPTION_SETS = [
    [],
    ["--fields=all"],
    ["--fields=trace"],
    ["-n", "all", "-f", "all"],
    ["-n", "none", "-f", "trace,loglevel,emf"],
    ["--names=header,scope", "--no-delta"],
    ["--clock-cycles"],
    ["--clock-cycles", "--names=header"],
    ["--clock-date", "--clock-gmt"],
    ["--clock-seconds", "--no-delta"],
    ["--clock-offset=3600", "--clock-offset-ns=-5"],
    ["--trace-name=renamed", "--fields=trace,trace:hostname"],
]


def main():
    args = parse_args()
    report = Report("vs babeltrace2")
    bt2 = shutil.which("babeltrace2")
    if not bt2:
        report.fail("babeltrace2", "not installed (the test command installs it)")
        report.finish()
    sample = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sample-trace")
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    for trace in TRACES:
        path = sample if trace == "@SAMPLE@" else os.path.join(args.corpus, trace)
        for opts in OPTION_SETS:
            bt2_opts = [("--params=trace-name=\"%s\"" % o.split("=", 1)[1]) if o.startswith("--trace-name=") else o
                        for o in opts]
            ref = subprocess.run([bt2, path] + bt2_opts, capture_output=True, env=env, timeout=120)
            code, out, err = run(args.tracemux, opts + [path])
            what = f"{trace} {' '.join(opts)}"
            if ref.returncode != 0:
                report.fail(what, f"babeltrace2 failed: {ref.stderr.decode(errors='replace')[-500:]}")
            elif code != 0:
                report.fail(what, f"exit {code}: {err.decode(errors='replace')[-500:]}")
            elif out != ref.stdout:
                report.fail(what, first_diff(ref.stdout, out))
            else:
                report.ok()
        check_trimming(report, args, bt2, path, trace, env)
    report.finish()


def check_trimming(report, args, bt2, path, trace, env):
    """--begin/--end at a third and two thirds of the events, both tools."""
    code, out, _ = run(args.tracemux, ["--clock-seconds", "--no-delta", path])
    times = [line[1:line.index(b"]")].decode() for line in out.splitlines() if line.startswith(b"[")]
    if code != 0 or len(times) < 3:
        return
    begin, end = times[len(times) // 3], times[2 * len(times) // 3]
    for opts in (["--begin", begin], ["--end", end], ["--begin", begin, "--end", end],
                 [f"--timerange=[{begin},{end}]", "--clock-gmt", "--clock-date"]):
        ref = subprocess.run([bt2, path] + opts, capture_output=True, env=env, timeout=120)
        code, out, err = run(args.tracemux, opts + [path])
        what = f"{trace} {' '.join(opts)}"
        if ref.returncode != 0 or code != 0:
            report.fail(what, f"exit {code}, babeltrace2 {ref.returncode}: {err.decode(errors='replace')[-300:]}")
        elif out != ref.stdout:
            report.fail(what, first_diff(ref.stdout, out))
        else:
            report.ok()


if __name__ == "__main__":
    main()
