"""Differential test against babeltrace 2.1.2 run live (/opt/bt21/bt21, which
the test command builds with ../shared/tools/build-babeltrace-2.1.sh): CTF 2
traces with every option set of test_vs_babeltrace2.py, trimming by time,
stream intersection, and CTF 1.8 and CTF 2 traces given together (merged by
time).  Standard output must be byte-identical, and the discarded-event
warnings the same."""
import os
import subprocess

from bt2ref import Report, first_diff, parse_args, run
from test_vs_babeltrace2 import OPTION_SETS, check_trimming, same_output, warnings

BT21 = os.environ.get("TMX_BT21", "/opt/bt21/bt21")

TRACES = [
    "ctf2/handmade/edge-cases",
    "ctf2/synthetic/bt2py-all-field-classes",
    "ctf2/bt-tests/2/succeed/multi-domains",
    "ctf2/bt-tests/2/succeed/session-rotation",
    "ctf2/bt-tests/2/succeed/lttng-tracefile-rotation",
    "ctf2/bt-tests/2/succeed/debug-info",
    "ctf2/bt-tests/2/succeed/2packets",
    "ctf2/bt-tests/2/succeed/barectf-event-before-packet",
    "ctf2/bt-tests/2/succeed/ev-disc-no-ts-begin-end",
    "ctf2/bt-tests/2/succeed/fl-bm",
    "ctf2/bt-tests/2/succeed/meta-variant-reserved-keywords",
    "ctf2/converted/wk-heartbeat-u",
    "ctf2/converted/trace-with-index",
    "ctf2/converted/packet-seq-num--2-streams-lost-in-2",
    "ctf2/converted/gen-trace-double",
    "ctf2/converted/lttng-crash",
]

# Several inputs in one run: CTF 2 with CTF 2, and CTF 1.8 with CTF 2.
GROUPS = [
    ["ctf2/converted/intersection--3eventsintersect", "ctf2/converted/wk-heartbeat-u"],
    ["babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u", "ctf2/converted/trace-with-index"],
    ["babeltrace-tests/ctf-traces/intersection/3eventsintersect", "ctf2/converted/intersection--3eventsintersectreverse"],
    ["ctf2/bt-tests/2/intersection/3eventsintersect", "ctf2/converted/intersection--3eventsintersectreverse"],
]


def compare(report, args, what, paths, opts, env, bt_opts=None):
    """bt21 with `bt_opts` (default: `opts`) and tracemux with `opts` on `paths`."""
    ref = subprocess.run([BT21] + paths + (opts if bt_opts is None else bt_opts),
                         capture_output=True, env=env, timeout=120)
    code, out, err = run(args.tracemux, opts + paths)
    if ref.returncode != 0:
        report.fail(what, f"babeltrace 2.1.2 failed: {ref.stderr.decode(errors='replace')[-500:]}")
    elif code != 0:
        report.fail(what, f"exit {code}: {err.decode(errors='replace')[-500:]}")
    elif not same_output(ref.stdout, out):
        report.fail(what, first_diff(ref.stdout, out))
    elif not opts and warnings(ref.stderr) != warnings(err):
        report.fail(what + " (stderr)", first_diff(warnings(ref.stderr), warnings(err)))
    else:
        report.ok()


def main():
    args = parse_args()
    report = Report("vs babeltrace 2.1.2")
    if not os.access(BT21, os.X_OK):
        report.fail("babeltrace 2.1.2", f"{BT21} not installed (the test command builds it)")
        report.finish()
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    for trace in TRACES:
        path = os.path.join(args.corpus, trace)
        for opts in OPTION_SETS:
            bt_opts = [("--params=trace-name=\"%s\"" % o.split("=", 1)[1]) if o.startswith("--trace-name=") else o
                       for o in opts]
            compare(report, args, f"{trace} {' '.join(opts)}", [path], opts, env, bt_opts)
        check_trimming(report, args, BT21, path, trace, env)
    for group in GROUPS:
        paths = [os.path.join(args.corpus, t) for t in group]
        option_sets = [[], ["--clock-seconds", "--no-delta", "-n", "all"]]
        if all("intersection" in t for t in group):
            # Only traces whose streams overlap in time have an intersection.
            option_sets.append(["--stream-intersection"])
        for opts in option_sets:
            compare(report, args, f"{' + '.join(group)} {' '.join(opts)}", paths, opts, env)
    report.finish()


if __name__ == "__main__":
    main()
