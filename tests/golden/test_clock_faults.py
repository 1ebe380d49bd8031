"""Golden test: CTF 1.8 clock faults seen on real traces.

1. tests/data/ctf-duplicate-clocks (an LTTng-UST trace with two channels
   rewritten by babeltrace2's sink.ctf.fs, tests/data/make-duplicate-clocks.sh)
   declares its clock once per stream class.  babeltrace2 2.0.4 reads it;
   tracemux prints exactly its output (ctf-duplicate-clocks.expect).
2. The same trace with a repeat that differs (its `freq`) is rejected,
   naming the metadata file, the line:column of the differing property and
   both values.  (babeltrace2 silently uses the first declaration.)
3. The same trace with an offset_s of 1.35e18 s, whose times cannot be
   nanoseconds from origin in an int64: the events print without their time,
   and one warning says which clock of which trace.  (babeltrace2 2.0.4 and
   2.1.2 reject such a trace: "Cannot convert clock cycles to nanoseconds
   from origin".)
"""
import os
import re
import shutil
import tempfile

from bt2ref import Report, first_diff, parse_args, run

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
TRACE = os.path.realpath(os.path.join(DATA, "ctf-duplicate-clocks"))
TIME_PREFIX = re.compile(rb"^\[[^]]*\] \([^)]*\) ")


def copy_with_metadata(work, edit):
    """A copy of the trace in `work` whose metadata text goes through `edit`."""
    dst = os.path.join(work, "trace")
    shutil.copytree(TRACE, dst)
    path = os.path.join(dst, "metadata")
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(edit(text))
    return dst, text


def check_identical_repeats(report, args, expected):
    with open(os.path.join(TRACE, "metadata")) as f:
        if f.read().count("\nclock {") != 2:
            report.fail("the test trace has two clock blocks")
            return
    code, out, err = run(args.tracemux, [TRACE])
    if code != 0:
        report.fail("identical repeats: exit status", f"{code}: {err.decode(errors='replace')}")
    elif out != expected:
        report.fail("identical repeats: stdout", first_diff(expected, out))
    elif err:
        report.fail("identical repeats: stderr", err.decode(errors="replace"))
    else:
        report.ok()


def line_col(text, index):
    line = text.count("\n", 0, index) + 1
    return line, index - text.rfind("\n", 0, index)


def check_differing_repeat(report, args, work):
    def edit(text):
        i = text.rindex("freq = 1000000000;")
        return text[:i] + "freq = 1000;" + text[i + len("freq = 1000000000;"):]

    trace, text = copy_with_metadata(work, edit)
    second = text.rindex("freq = 1000000000;") + len("freq = ")
    first = text.index("freq = 1000000000;") + len("freq = ")
    line, col = line_col(text, second)
    fline, fcol = line_col(text, first)
    want = (f"tracemux: error: {trace}/metadata:{line}:{col}: clock `monotonic` declared "
            f"again with a different `freq`: 1000 here, 1000000000 at {fline}:{fcol}\n")
    code, out, err = run(args.tracemux, [trace])
    if code != 1 or out or err.decode(errors="replace") != want:
        report.fail("differing repeat", f"exit {code}, stdout {out[:200]!r}\n"
                    f"stderr {err.decode(errors='replace')!r}\nwanted {want!r}")
    else:
        report.ok()


def check_offset_overflow(report, args, work, expected):
    trace, _ = copy_with_metadata(
        work, lambda t: re.sub(r"offset_s = \d+;", "offset_s = 1350000000000000000;", t))
    code, out, err = run(args.tracemux, [trace])
    # Without times the streams are not merged by time: compare the lines as sets.
    want_lines = sorted(TIME_PREFIX.sub(b"", l) for l in expected.splitlines())
    got_lines = sorted(out.splitlines())
    warnings = err.decode(errors="replace").splitlines()
    if code != 0:
        report.fail("offset overflow: exit status", f"{code}: {err.decode(errors='replace')}")
    elif got_lines != want_lines:
        report.fail("offset overflow: stdout",
                    first_diff(b"\n".join(want_lines), b"\n".join(got_lines)))
    elif (len(warnings) != 1 or
          not warnings[0].startswith(f"tracemux: warning: {trace}: clock `monotonic` "
                                     "(freq = 1000000000, offset_s = 1350000000000000000,") or
          "cannot be converted to nanoseconds from origin" not in warnings[0]):
        report.fail("offset overflow: one warning naming the trace and the clock",
                    "\n".join(warnings))
    else:
        report.ok()


def main():
    args = parse_args()
    report = Report("clock faults")
    with open(os.path.join(DATA, "ctf-duplicate-clocks.expect"), "rb") as f:
        expected = f.read()
    check_identical_repeats(report, args, expected)
    work = tempfile.mkdtemp(prefix="tracemux-clock-faults-")
    try:
        os.makedirs(os.path.join(work, "a"))
        os.makedirs(os.path.join(work, "b"))
        check_differing_repeat(report, args, os.path.join(work, "a"))
        check_offset_overflow(report, args, os.path.join(work, "b"), expected)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
