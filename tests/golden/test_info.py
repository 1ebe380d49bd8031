"""`tracemux info`: the event counts by class and the discarded events must
agree with what babeltrace2 printed for the same traces (the stored
references: one line per event, one WARNING per discard)."""
import collections
import gzip
import os
import re

from bt2ref import Report, parse_args, run

HERE = os.path.dirname(os.path.abspath(__file__))


def bt2_counts(text):
    """Event names counted in babeltrace2's default text output."""
    counts = collections.Counter()
    for line in text.splitlines():
        m = re.match(rb"\[[^]]*\] \([^)]*\) (?:[^ ]+ )?([^ ]+): ", line)
        if m:
            counts[m.group(1).decode()] += 1
    return counts


def info_counts(out):
    counts = collections.Counter()
    for m in re.finditer(rb"^ +(\d+)  (\S+) \(stream class", out, re.M):
        counts[m.group(2).decode()] += int(m.group(1))
    return +counts


def main():
    args = parse_args()
    refs = os.path.join(args.corpus, "babeltrace-tests/generated-reference/bt2-pretty")
    report = Report("info")
    cases = [(os.path.join(HERE, "..", "data", "sample-trace"),
              open(os.path.join(HERE, "..", "data", "sample-trace.expect"), "rb").read(), 5)]
    # session-rotation: logical traces of several directories (one set of classes each).
    for name, discarded in (("succeed__multi-domains.txt.gz", 728), ("succeed__wk-heartbeat-u.txt", 0),
                            ("succeed__session-rotation.txt.gz", 0)):
        path = os.path.join(args.corpus, "babeltrace-tests/ctf-traces", *name.split(".txt")[0].split("__"))
        opener = gzip.open if name.endswith(".gz") else open
        with opener(os.path.join(refs, name), "rb") as f:
            cases.append((path, f.read(), discarded))
    for path, ref, discarded in cases:
        code, out, err = run(args.tracemux, ["info", path])
        want = bt2_counts(ref)
        got = info_counts(out)
        m = re.search(rb"discarded by the tracer: (\d+) events", out)
        if code != 0:
            report.fail(path, err.decode(errors="replace"))
        elif got != want:
            report.fail(path, f"counts {dict(got)}, babeltrace2 printed {dict(want)}")
        elif not m or int(m.group(1)) != discarded:
            report.fail(path, f"discarded events: {m and m.group(1)}, want {discarded}")
        else:
            report.ok()
    report.finish()


if __name__ == "__main__":
    main()
