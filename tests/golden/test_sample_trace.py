"""Golden test: the sample trace kept in the repository (made by
bench/gen-lttng-like.py) prints exactly what babeltrace2 2.0.4 printed for
it, stdout and stderr (tests/data/sample-trace.expect*, made with TZ=UTC;
the trace's absolute path is @SAMPLE@ in the stderr reference)."""
import os

from bt2ref import Report, first_diff, parse_args, run

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")


def main():
    args = parse_args()
    report = Report("sample trace")
    trace = os.path.realpath(os.path.join(DATA, "sample-trace"))
    with open(os.path.join(DATA, "sample-trace.expect"), "rb") as f:
        expected_out = f.read()
    with open(os.path.join(DATA, "sample-trace.expect-stderr"), "rb") as f:
        expected_err = f.read().replace(b"@SAMPLE@", trace.encode())
    code, out, err = run(args.tracemux, [trace])
    if code != 0:
        report.fail("exit status", f"{code}: {err.decode(errors='replace')}")
    elif out != expected_out:
        report.fail("stdout", first_diff(expected_out, out))
    elif err != expected_err:
        report.fail("stderr", first_diff(expected_err, err))
    else:
        report.ok()
    report.finish()


if __name__ == "__main__":
    main()
