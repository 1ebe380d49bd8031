"""Golden test: the sample trace kept in the repository (made by
bench/gen-lttng-like.py) prints exactly what babeltrace2 2.0.4 printed for
it, stdout and stderr (tests/data/sample-trace.expect*, made with TZ=UTC;
the trace's absolute path is @SAMPLE@ in the stderr reference).

Also as two overlapping "snapshots" (same UUID, packets 0-2 and 1-4 of each
stream in two directories): the duplicated packets are read once and the
output is the whole trace's, as babeltrace2 prints it for such snapshots."""
import os
import shutil
import tempfile

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
    check_snapshots(report, args, trace, expected_out)
    report.finish()


def check_snapshots(report, args, trace, expected_out):
    work = tempfile.mkdtemp(prefix="tracemux-snapshots-")
    try:
        for snap, first, last in (("s1", 0, 3), ("s2", 1, 5)):
            os.makedirs(os.path.join(work, snap))
            shutil.copy(os.path.join(trace, "metadata"), os.path.join(work, snap))
            for name in ("channel0_0", "channel0_1"):
                with open(os.path.join(trace, name), "rb") as f:
                    data = f.read()
                with open(os.path.join(work, snap, name), "wb") as f:
                    f.write(data[first * 512:last * 512])   # 512-byte packets
        code, out, err = run(args.tracemux, [work])
        if code != 0:
            report.fail("snapshots: exit status", err.decode(errors="replace"))
        elif out != expected_out:
            report.fail("snapshots: stdout", first_diff(expected_out, out))
        else:
            report.ok()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
