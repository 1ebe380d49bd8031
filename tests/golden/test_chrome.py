"""Chrome Trace Event / Perfetto JSON (-o chrome) for CTF input, checked
with a real JSON parser: the instant events are babeltrace2's events in its
order (stored bt2-pretty references), one process per trace and one thread
per stream are named, and timestamps are microseconds with the exact
nanoseconds (babeltrace2's --clock-seconds values)."""
import decimal
import json
import os
import re

from bt2ref import Report, parse_args, read_ref as read, ref_trace_path as trace_path, run

TRACES = ["succeed__wk-heartbeat-u.txt", "succeed__multi-domains.txt.gz",
          "packet-seq-num__2-streams-lost-in-2.txt", "succeed__sequence.txt"]




def load(out):
    return json.loads(out.decode("utf-8", "strict"), parse_float=decimal.Decimal)["traceEvents"]


def main():
    args = parse_args()
    bt = os.path.join(args.corpus, "babeltrace-tests")
    refs = os.path.join(bt, "generated-reference")
    report = Report("chrome json")
    for ref in TRACES:
        path = trace_path(bt, ref)
        code, out, err = run(args.tracemux, ["-o", "chrome", path])
        try:
            events = load(out)
        except (ValueError, UnicodeDecodeError, KeyError) as e:
            report.fail(ref, f"not a trace-event JSON object: {e}")
            continue
        inst = [e for e in events if e["ph"] == "i" and not e["name"].startswith("discarded ")]
        lines = read(os.path.join(refs, "bt2-pretty", ref)).splitlines()
        same = len(lines) == len(inst) and all((" %s: " % e["name"]).encode() in l
                                               for e, l in zip(inst, lines))
        procs = {e["pid"] for e in events if e["name"] == "process_name"}
        threads = {(e["pid"], e["tid"]) for e in events if e["name"] == "thread_name"}
        used = {(e["pid"], e["tid"]) for e in inst}
        if code != 0 or not same:
            report.fail(ref, f"exit {code}: {len(inst)} events, babeltrace2 printed {len(lines)}")
        elif not used <= threads or {p for p, _ in used} - procs:
            report.fail(ref, "a process or thread without a name")
        else:
            report.ok()
    ref = "succeed__wk-heartbeat-u.txt"
    secs = re.findall(rb"^\[(\d+)\.(\d{9})\]", read(os.path.join(refs, "bt2-pretty-nodelta-seconds", ref)), re.M)
    code, out, _ = run(args.tracemux, ["-o", "chrome", trace_path(bt, ref)])
    ts = [e["ts"] * 1000 for e in load(out) if e["ph"] == "i"]
    want = [decimal.Decimal(int(s) * 1000000000 + int(ns)) for s, ns in secs]
    if not ts or ts != want:
        report.fail("exact timestamps", f"{ts[:2]} vs {want[:2]}")
    else:
        report.ok()
    report.finish()


if __name__ == "__main__":
    main()
