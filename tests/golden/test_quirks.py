"""Tracer quirks (babeltrace2 source.ctf.fs manual, "Trace quirks") seen
through `tracemux query trace-infos`: the stream time ranges must be the
ones babeltrace's own tests expect (corpus babeltrace-tests/INDEX.md,
test_query_trace_info, and the sink.text.details expect files)."""
import os
import re

from bt2ref import Report, parse_args, run

CASES = [
    # lttng-crash: the last packets' timestamp_end is 0; they end at their last event.
    ("ctf-traces/succeed/lttng-crash", 1565891729288866738, 1565891729293526525),
    # LTTng-UST 2.10: packets end at their last event, not at timestamp_end.
    ("ctf-traces/succeed/lttng-event-after-packet", 1565957300948091100, 1565957302180016069),
    # barectf 2.3.0: the first packet keeps its timestamp_begin (trace-barectf-event-before-packet.expect).
    ("ctf-traces/succeed/barectf-event-before-packet", 1435121820916574076, 1435121820916609657),
]


def main():
    args = parse_args()
    bt = os.path.join(args.corpus, "babeltrace-tests")
    report = Report("tracer quirks")
    for trace, begin, end in CASES:
        code, out, err = run(args.tracemux, ["query", "trace-infos", os.path.join(bt, trace)])
        got = [int(x) for x in re.findall(rb"(?:begin|end): (-?\d+)", out)]
        if code != 0 or got != [begin, end]:
            report.fail(trace, f"exit {code}, range {got}, want {[begin, end]}: {err.decode(errors='replace')}")
        else:
            report.ok()
    report.finish()


if __name__ == "__main__":
    main()
