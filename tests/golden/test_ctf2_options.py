"""CTF 2 traces with every option set of test_vs_babeltrace2.py, trimming
by time, and CTF 1.8 and CTF 2 traces given together (merged by time),
without a live CTF 2 reader: babeltrace 2.1.2 is not packaged, and only its
default and `--no-delta --clock-seconds` texts are stored beside each trace.

The reference of a CTF 2 trace with an option set is Debian's babeltrace2
2.0.4, run live with that option set on a CTF 1.8 trace with the same
content:
- a trace that babeltrace 2.1.2 converted from a CTF 1.8 trace of the
  corpus (ctf2/converted/X, tracecompass-ctf2/tc-X): that original;
- a CTF 2 trace of its own: tracemux's CTF 1.8 translation of it
  (-o ctf --ctf-version=1.8).
A route is used only once it is shown to hold: babeltrace2 2.0.4 on the
CTF 1.8 trace prints exactly the stored babeltrace 2.1.2 texts of the CTF 2
trace (both of them; else the test fails, naming the route).  Translations
that print CTF 2's field classes differently (bit maps, BLOBs, booleans,
optionals: TRANSLATED in test_ctf_writer_ctf2.py) are compared through the
entry's rewrites, or, without rewrites, by each event's time, names and
header fields (the text before the payload), the payload being checked by
test_ctf2_corpus.py against the stored texts.

Standard output must be identical (babeltrace2 2.0.4's stale text for an
empty string, its known bug, accepted where tracemux prints ""), and the
discarded-event warnings the same, stream paths and trace IDs aside.
"""
import os
import re
import shutil
import subprocess
import tempfile

from bt2ref import Report, bt2_options, first_diff, parse_args, run, tool
from test_vs_babeltrace2 import OPTION_SETS, same_output, trimming_option_sets
from test_ctf_writer_ctf2 import TRANSLATED, blanked, reference

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
    "tracecompass-ctf2/CTF2-vl-ints",
    "tracecompass-ctf2/tc-flipping-endianness",
    "tracecompass-ctf2/tc-mpi_pthread",
    "tracecompass-ctf2/tc-ros2",
]

# Several inputs in one run: CTF 2 with CTF 2, and CTF 1.8 with CTF 2.
GROUPS = [
    ["ctf2/converted/intersection--3eventsintersect", "ctf2/converted/wk-heartbeat-u"],
    ["babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u", "ctf2/converted/trace-with-index"],
    ["babeltrace-tests/ctf-traces/intersection/3eventsintersect",
     "ctf2/converted/intersection--3eventsintersectreverse"],
    ["ctf2/bt-tests/2/intersection/3eventsintersect", "ctf2/converted/intersection--3eventsintersectreverse"],
]

CONVERTED_GROUPS = {"packet-seq-num--": "packet-seq-num", "intersection--": "intersection"}


def original(corpus, trace):
    """The CTF 1.8 trace that babeltrace 2.1.2 converted into `trace`, or None."""
    top, _, rest = trace.partition("/")
    if top == "tracecompass-ctf2" and rest.startswith("tc-"):
        return os.path.join(corpus, "tracecompass", rest)
    if top == "ctf2" and rest.startswith("converted/"):
        name = rest[len("converted/"):]
        if name.startswith("gen-trace-"):
            return os.path.join(corpus, "ctf2", "converted", "_ctf1-generated", name)
        group = "succeed"
        for prefix, g in CONVERTED_GROUPS.items():
            if name.startswith(prefix):
                group, name = g, name[len(prefix):]
        return os.path.join(corpus, "babeltrace-tests", "ctf-traces", group, name)
    return None


class Routes:
    """The CTF 1.8 trace babeltrace2 2.0.4 reads for each CTF 2 trace, once
    its route is shown to hold (None: the route failed, reported once)."""

    def __init__(self, report, args, bt2, env, tmp):
        self.report, self.args, self.bt2, self.env, self.tmp = report, args, bt2, env, tmp
        self.known = {}

    def bt2_run(self, argv):
        p = subprocess.run([self.bt2] + argv, capture_output=True, env=self.env, timeout=300)
        return p.returncode, p.stdout, p.stderr

    def of(self, trace):
        if trace not in self.known:
            self.known[trace] = self.find(trace)
        return self.known[trace]

    def translate(self, trace, path):
        """Each trace of `path` (each directory with a metadata file) written
        as CTF 1.8 at the same place below a new directory, which is
        returned: babeltrace2 names traces by their paths below its input,
        as the CTF 2 traces are named by theirs."""
        top = os.path.join(self.tmp, re.sub(r"[^A-Za-z0-9]+", "_", trace))
        for d, _, files in os.walk(path):
            if "metadata" not in files:
                continue
            rel = os.path.relpath(d, path)
            scratch = os.path.join(self.tmp, "scratch")
            code, _, err = run(self.args.tracemux, ["-o", "ctf", "--ctf-version=1.8", "-w", scratch, d])
            written = [w for w, _, f in os.walk(scratch) if "metadata" in f]
            if code != 0 or len(written) != 1:
                self.report.fail(f"{trace}: route", f"-o ctf --ctf-version=1.8 of {rel} failed: "
                                 f"{err.decode(errors='replace')[-500:]}")
                return None
            target = os.path.normpath(os.path.join(top, rel))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.rename(written[0], target)
            shutil.rmtree(scratch)
        return top

    def find(self, trace):
        path = os.path.join(self.args.corpus, trace)
        if trace.startswith("babeltrace-tests/"):
            return path  # CTF 1.8 already
        ref = original(self.args.corpus, trace)
        how = "its CTF 1.8 original"
        if ref is None:
            how = "tracemux's CTF 1.8 translation"
            ref = self.translate(trace, path)
            if ref is None:
                return None
        text, seconds, _ = reference(path)
        for opts, want in (([], text), (["--no-delta", "--clock-seconds"], seconds)):
            got = self.bt2_run(opts + [ref])
            if got[0] != 0:
                self.report.fail(f"{trace}: route through {how}",
                                 f"babeltrace2 2.0.4 fails on it: {got[2].decode(errors='replace')[-500:]}")
                return None
            if trace not in TRANSLATED and not same_output(got[1], want):
                self.report.fail(f"{trace}: route through {how} {' '.join(opts)}",
                                 "babeltrace2 2.0.4 on it does not print the stored babeltrace 2.1.2 text:\n"
                                 + first_diff(want, got[1]))
                return None
        self.report.ok()
        return ref


def rewrite(trace, text, heads_only):
    """What tracemux prints for a TRANSLATED trace, as its translation prints."""
    rewrites = TRANSLATED[trace][1]
    if heads_only:
        return [line.split(b"{")[0] for line in text.splitlines()]
    for pattern, repl in rewrites:
        text = re.sub(pattern, repl, text)
    return text


def compare(report, routes, what, traces, opts, bt_opts=None, warnings_too=True):
    refs = [routes.of(t) for t in traces]
    if None in refs:
        return  # the route's failure is reported
    ref = routes.bt2_run(refs + (opts if bt_opts is None else bt_opts))
    code, out, err = run(routes.args.tracemux, opts + [os.path.join(routes.args.corpus, t) for t in traces])
    translated = [t for t in traces if t in TRANSLATED]
    heads_only = any(TRANSLATED[t][1] is None for t in translated)
    want = ref[1]
    if translated:
        out = rewrite(translated[0], out, heads_only)
        want = rewrite(translated[0], want, True) if heads_only else want
    if ref[0] != 0:
        report.fail(what, f"babeltrace2 2.0.4 failed: {ref[2].decode(errors='replace')[-500:]}")
    elif code != 0:
        report.fail(what, f"exit {code}: {err.decode(errors='replace')[-500:]}")
    elif heads_only and out != want:
        report.fail(what, first_diff(b"\n".join(want), b"\n".join(out)))
    elif not heads_only and not same_output(want, out):
        report.fail(what, first_diff(want, out))
    elif warnings_too and blanked(ref[2]) != blanked(err):
        report.fail(what + " (stderr)", first_diff(blanked(ref[2]), blanked(err)))
    else:
        report.ok()


def check_trimming(report, routes, trace):
    """--begin/--end at a third and two thirds of the events."""
    for opts in trimming_option_sets(routes.args.tracemux, os.path.join(routes.args.corpus, trace)):
        compare(report, routes, f"{trace} {' '.join(opts)}", [trace], opts, warnings_too=False)


def main():
    args = parse_args()
    report = Report("CTF 2 with babeltrace2's options")
    bt2 = tool(report, "babeltrace2", "babeltrace2")
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    with tempfile.TemporaryDirectory(prefix="tmx-ctf2opt-") as tmp:
        routes = Routes(report, args, bt2, env, tmp)
        for trace in TRACES:
            for opts in OPTION_SETS:
                bt_opts = bt2_options(opts)
                compare(report, routes, f"{trace} {' '.join(opts)}", [trace], opts, bt_opts,
                        warnings_too=not opts)
            check_trimming(report, routes, trace)
        for group in GROUPS:
            option_sets = [[], ["--clock-seconds", "--no-delta", "-n", "all"]]
            if all("intersection" in t for t in group):
                # Only traces whose streams overlap in time have an intersection.
                option_sets.append(["--stream-intersection"])
            for opts in option_sets:
                compare(report, routes, f"{' + '.join(group)} {' '.join(opts)}", group, opts,
                        warnings_too=not opts)
    report.finish()


if __name__ == "__main__":
    main()
