"""JSON Lines output (-o json).

- Every line is a JSON object, the whole output strict UTF-8.
- The events are babeltrace2's, in its order (the names of the stored
  bt2-pretty references), and the discard records match its warnings.
- Timestamps are exact 64-bit integers: ts_ns equals babeltrace2's
  --clock-seconds value to the nanosecond (bt2-pretty-nodelta-seconds).
- A string with bytes that are not UTF-8 still gives valid JSON, each such
  byte as the code point of its value (\\u00XX, as Parquet, Perfetto and
  the Python package give it).
"""
import json
import os
import re
import shutil
import tempfile

from bt2ref import Report, parse_args, read_ref as read, ref_trace_path as trace_path, run

TRACES = ["succeed__wk-heartbeat-u.txt", "succeed__multi-domains.txt.gz", "succeed__sequence.txt",
          "succeed__lttng-tracefile-rotation.txt.gz", "packet-seq-num__2-streams-lost-in-2.txt"]




def parse_lines(out):
    text = out.decode("utf-8", "strict")
    return [json.loads(line) for line in text.splitlines()]


def main():
    args = parse_args()
    bt = os.path.join(args.corpus, "babeltrace-tests")
    refs = os.path.join(bt, "generated-reference")
    report = Report("json lines")
    for ref in TRACES:
        path = trace_path(bt, ref)
        code, out, err = run(args.tracemux, ["-o", "json", path])
        try:
            objs = parse_lines(out)
        except (ValueError, UnicodeDecodeError) as e:
            report.fail(ref, f"not JSON Lines: {e}")
            continue
        names = [o["name"] for o in objs if o["type"] == "event"]
        lines = read(os.path.join(refs, "bt2-pretty", ref)).splitlines()
        same = len(lines) == len(names) and all((" %s: " % n).encode() in l for n, l in zip(names, lines))
        _, _, text_err = run(args.tracemux, [path])
        warnings = text_err.count(b"WARNING: Tracer discarded")
        discards = sum(1 for o in objs if o["type"].startswith("discarded_"))
        if code != 0 or not same:
            report.fail(ref, f"exit {code}: {len(names)} events, babeltrace2 printed {len(lines)}")
        elif discards != warnings:
            report.fail(ref, f"{discards} discard records, {warnings} warnings")
        else:
            report.ok()

    # Exact timestamps against babeltrace2's --clock-seconds.
    ref = "succeed__wk-heartbeat-u.txt"
    secs = re.findall(rb"^\[(\d+)\.(\d{9})\]", read(os.path.join(refs, "bt2-pretty-nodelta-seconds", ref)), re.M)
    code, out, _ = run(args.tracemux, ["-o", "json", trace_path(bt, ref)])
    ts = [o["ts_ns"] for o in parse_lines(out) if o["type"] == "event"]
    if ts != [int(s) * 1000000000 + int(ns) for s, ns in secs] or not ts:
        report.fail("exact timestamps", f"{ts[:3]} vs {secs[:3]}")
    else:
        report.ok()

    # Bytes that are not UTF-8 in a string.
    work = tempfile.mkdtemp(prefix="tracemux-json-")
    try:
        trace = os.path.join(work, "t")
        shutil.copytree(os.path.join(bt, "ctf-traces/succeed/smalltrace"), trace)
        stream = os.path.join(trace, "dummystream")
        with open(stream, "rb") as f:
            data = bytearray(f.read())
        at = data.index(b"This is")
        data[at:at + 2] = b"\xc3\x28"      # an invalid two-byte sequence
        with open(stream, "wb") as f:
            f.write(data)
        code, out, err = run(args.tracemux, ["-o", "json", trace])
        try:
            first = parse_lines(out)[0]["payload"]["str"]
        except (ValueError, UnicodeDecodeError, KeyError, IndexError) as e:
            report.fail("invalid UTF-8", f"{e}: {out[:200]!r}")
        else:
            if first != "\u00c3(is is a test trace":
                report.fail("invalid UTF-8", repr(first))
            else:
                report.ok()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
