"""CTF 1.8: an empty array whose alignment goes past the packet's content
size, at the very end of a packet (tests/data/empty-array-end, made by
tests/data/make-empty-array-end.py).

Nothing is read past the content, so the event is decoded and the next
packet follows.  babeltrace2 2.0.4 decodes that event too, then stops with
an error (its position past the content fails its next event header check):
an exception to the babeltrace2 contract, listed here.  Its output must be
exactly what tracemux prints up to that event."""
import os
import subprocess

from bt2ref import Report, first_diff, parse_args, run, tool

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = os.path.join(HERE, "..", "data", "empty-array-end")

EXPECTED = (b"e: { x = 1, n = 1, seq = [ [0] = 100 ] }\n"
            b"e: { x = 2, n = 0, seq = [ ] }\n"
            b"e: { x = 3, n = 1, seq = [ [0] = 300 ] }\n")
# The events of the first packet: the second ends with the empty array.
FIRST_PACKET = b"".join(EXPECTED.splitlines(keepends=True)[:2])


def main():
    args = parse_args()
    report = Report("empty array at the end of a packet")
    code, out, err = run(args.tracemux, [TRACE])
    if code != 0:
        report.fail("tracemux", f"exit {code}: {err.decode(errors='replace')[-500:]}")
    elif out != EXPECTED:
        report.fail("tracemux", first_diff(EXPECTED, out))
    else:
        report.ok()
    bt2 = tool(report, "babeltrace2", "babeltrace2")
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    ref = subprocess.run([bt2, TRACE], capture_output=True, env=env, timeout=60)
    if ref.returncode == 0:
        # A babeltrace2 that goes on must print what tracemux prints.
        if ref.stdout != out:
            report.fail("babeltrace2 (exit 0)", first_diff(ref.stdout, out))
        else:
            report.ok()
    elif ref.stdout != FIRST_PACKET:
        report.fail("babeltrace2 (the known error)", first_diff(FIRST_PACKET, ref.stdout))
    else:
        report.ok()
    report.finish()


if __name__ == "__main__":
    main()
