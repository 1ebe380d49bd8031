"""LTTng index files (`index/*.idx`).

- A trace with a good index prints what babeltrace2 prints, without warnings.
- The index is what gives the packet times: an index whose last end time is
  changed (offsets still right) changes `query trace-infos` accordingly.
- An index that contradicts its data file (wrong offset, truncated, bad
  magic) is reported on stderr, and the file's packet headers are read
  instead: the output is still babeltrace2's (which itself fails on such an
  index: we recover and say so).
"""
import gzip
import os
import shutil
import struct
import tempfile

from bt2ref import Report, first_diff, parse_args, run

TRACE = "babeltrace-tests/ctf-traces/succeed/trace-with-index"
REF = "babeltrace-tests/generated-reference/bt2-pretty/succeed__trace-with-index.txt.gz"
IDX = "index/ust_channel_0.idx"


def main():
    args = parse_args()
    report = Report("lttng index")
    with gzip.open(os.path.join(args.corpus, REF), "rb") as f:
        expected = f.read()
    work = tempfile.mkdtemp(prefix="tracemux-index-")
    try:
        trace = os.path.join(work, "t")
        shutil.copytree(os.path.join(args.corpus, TRACE), trace)
        idx = os.path.join(trace, IDX)
        with open(idx, "rb") as f:
            original = f.read()

        code, out, err = run(args.tracemux, [trace])
        if code != 0 or out != expected or b"index" in err:
            report.fail("good index", f"exit {code}, stderr {err[-300:]!r}\n" + first_diff(expected, out))
        else:
            report.ok()

        # Change the last entry's timestamp_end (bytes 32..40 of the entry).
        entry_len = struct.unpack(">I", original[12:16])[0]
        last = len(original) - entry_len
        old_end = struct.unpack(">Q", original[last + 32:last + 40])[0]
        changed = bytearray(original)
        changed[last + 32:last + 40] = struct.pack(">Q", old_end + 1000)
        with open(idx, "wb") as f:
            f.write(changed)
        code, before, _ = run(args.tracemux, ["query", "trace-infos", os.path.join(args.corpus, TRACE)])
        code2, after, _ = run(args.tracemux, ["query", "trace-infos", trace])
        if code or code2 or before == after:
            report.fail("index times used", "trace-infos did not follow the index")
        else:
            report.ok()

        lies = {
            "wrong offset": lambda d: d[:16] + struct.pack(">Q", 8) + d[24:],
            "truncated entry": lambda d: d[:-3],
            "bad magic": lambda d: b"\0\0\0\0" + d[4:],
            "too short": lambda d: d[:8],
        }
        for name, damage in lies.items():
            with open(idx, "wb") as f:
                f.write(damage(original))
            code, out, err = run(args.tracemux, [trace])
            if code != 0 or out != expected:
                report.fail(name, f"exit {code}: {err.decode(errors='replace')[-300:]}")
            elif b"ust_channel_0.idx" not in err or b"instead" not in err:
                report.fail(name, f"not reported: {err.decode(errors='replace')}")
            else:
                report.ok()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
