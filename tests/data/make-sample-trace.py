#!/usr/bin/env python3
"""Makes tests/data/sample-trace and its babeltrace2 references.

The sample trace is a small run of the benchmark's LTTng-like generator
(bench/gen-lttng-like.py): 80 events in two per-CPU streams of 512-byte
packets, with integers of several sizes and bases, char arrays, strings, a
sequence, an enum, a double, compact and extended event headers, a clock
with an offset and 5 discarded events.  The generator is seeded, so this
rewrites the same bytes; the golden tests and the fuzz seeds rely on them
(test_sample_trace.py cuts the streams at 512-byte packet boundaries).

The references are what babeltrace2 prints for it with TZ=UTC: stdout in
sample-trace.expect, stderr in sample-trace.expect-stderr with the trace's
absolute path written @SAMPLE@.

    make-sample-trace.py [OUTDIR]     (default: the directory of this script)
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GENERATOR = os.path.join(HERE, "..", "..", "bench", "gen-lttng-like.py")
GENERATOR_ARGS = ["--events", "80", "--streams", "2", "--packet-size", "512", "--seed", "1"]


def main():
    outdir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else HERE)
    trace = os.path.join(outdir, "sample-trace")
    subprocess.run([sys.executable, GENERATOR, trace] + GENERATOR_ARGS, check=True)
    bt2 = subprocess.run(["babeltrace2", trace], capture_output=True,
                         env=dict(os.environ, TZ="UTC"))
    if bt2.returncode != 0:
        sys.exit("babeltrace2 failed on %s:\n%s" % (trace, bt2.stderr.decode(errors="replace")))
    with open(os.path.join(outdir, "sample-trace.expect"), "wb") as f:
        f.write(bt2.stdout)
    with open(os.path.join(outdir, "sample-trace.expect-stderr"), "wb") as f:
        f.write(bt2.stderr.replace(trace.encode(), b"@SAMPLE@"))


if __name__ == "__main__":
    main()
