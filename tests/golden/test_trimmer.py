"""Trimming and stream intersection against babeltrace's own test oracles
(corpus babeltrace-tests/INDEX.md: cli/test-trimmer.sh and
cli/test-intersection.sh): the number of events kept, and the failures."""
import os

from bt2ref import Report, parse_args, run

WK = "ctf-traces/succeed/wk-heartbeat-u"

# (environment TZ, arguments, expected event count) from cli/test-trimmer.sh
TRIM_CASES = [
    ("UTC", ["--clock-gmt", "--begin", "17:48:17.587029529"], 18),
    ("UTC", ["--clock-gmt", "--end", "17:48:17.588680018"], 9),
    ("UTC", ["--clock-gmt", "--begin", "17:48:17.587029529", "--end", "17:48:17.588680018"], 7),
    ("UTC", ["--clock-gmt", "--begin", "18:48:17.587029529"], 0),
    ("UTC", ["--clock-gmt", "--end", "16:48:17.588680018"], 0),
    ("UTC", ["--clock-gmt", "--begin", "2012-10-29 17:48:17.587029529"], 18),
    ("UTC", ["--clock-gmt", "--end", "2012-10-29 17:48:17.588680018"], 9),
    ("UTC", ["--clock-gmt", "--begin", "2012-10-29 17:48:17.587029529",
             "--end", "2012-10-29 17:48:17.588680018"], 7),
    ("UTC", ["--clock-gmt", "--begin", "2012-10-29 18:48:17.587029529"], 0),
    ("UTC", ["--clock-gmt", "--end", "2012-10-29 16:48:17.588680018"], 0),
    ("EST5", ["--begin", "12:48:17.587029529"], 18),
    ("EST5", ["--begin", "2012-10-29 12:48:17.588"], 13),
    ("EST5", ["--clock-offset-ns=411282268", "--begin", "2012-10-29 12:48:18"], 11),
    ("EST5", ["--clock-offset=42", "--clock-offset-ns=411282268", "--begin", "2012-10-29 12:49"], 11),
    ("EST5", ["--begin=1351532897.588717732"], 11),
    ("EST5", ["--begin=1351532897.58871773"], 11),
    ("EST5", ["--clock-offset-ns=411282268", "--begin=1351532898"], 11),
    ("UTC", ["--clock-gmt", "--timerange=[17:48:17.587029529,17:48:17.588680018]"], 7),
]

# Malformed times (cli/test-trimmer.sh): "Invalid date/time format".
BAD_TIMES = [
    "2012-10-29 12:48:17.1231231231",   # 10 digits of nanoseconds
    "2012-10-29 12:48:17.",             # trailing dot
    "2012-10-29 12:48:123",             # 3-digit seconds
    "2012-10-29 12:123:17",             # 3-digit minutes
    "2012-10-29 12:48:1",               # 1-digit seconds
    "2012-10-29 12:4:17",               # 1-digit minutes
    "2012-10-29 1:48:17",               # 1-digit hours
    "2012-10-29 12:48:",                # missing seconds
    "2012-10-29 12:",                   # missing minutes
    "2012-10-29 ",                      # missing time
    "12345-10-29 12:48:17",             # 5-digit year
    "2012-1-29 12:48:17",               # 1-digit month
    "2012-10-2 12:48:17",               # 1-digit day
    "1351532897.",                      # trailing dot after seconds
]

# cli/test-intersection.sh
INTERSECTION = [
    ("ctf-traces/intersection/3eventsintersect", 8, 3),
    ("ctf-traces/intersection/3eventsintersectreverse", 8, 3),
    ("ctf-traces/intersection/onestream", 3, 3),
    ("ctf-traces/intersection/nointersect", 6, None),
    ("ctf-traces/intersection/nostream", 0, None),
]


def count_events(out):
    return sum(1 for line in out.splitlines() if line.startswith(b"["))


def main():
    args = parse_args()
    bt = os.path.join(args.corpus, "babeltrace-tests")
    report = Report("trimmer")
    for tz, argv, want in TRIM_CASES:
        code, out, err = run(args.tracemux, argv + [os.path.join(bt, WK)], tz=tz)
        what = f"TZ={tz} {' '.join(argv)}"
        if code != 0:
            report.fail(what, err.decode(errors="replace"))
        elif count_events(out) != want:
            report.fail(what, f"{count_events(out)} events, babeltrace2 keeps {want}")
        else:
            report.ok()
    for bad in BAD_TIMES:
        code, out, err = run(args.tracemux, ["--begin", bad, os.path.join(bt, WK)])
        if code != 2 or b"Invalid date/time format" not in err:
            report.fail(f"--begin '{bad}'", f"exit {code}: {err.decode(errors='replace')}")
        else:
            report.ok()
    for trace, total, kept in INTERSECTION:
        path = os.path.join(bt, trace)
        code, out, err = run(args.tracemux, [path])
        if code != 0 or count_events(out) != total:
            report.fail(f"{trace} (all)", f"exit {code}, {count_events(out)} events, want {total}")
            continue
        code, out, err = run(args.tracemux, ["--stream-intersection", path])
        if kept is None:
            ok = code == 1 and err.strip()
        else:
            ok = code == 0 and count_events(out) == kept
        if ok:
            report.ok()
        else:
            report.fail(f"{trace} --stream-intersection",
                        f"exit {code}, {count_events(out)} events, want {kept}: {err.decode(errors='replace')}")
    report.finish()


if __name__ == "__main__":
    main()
