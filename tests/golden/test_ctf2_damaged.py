"""Damaged CTF 2 traces: truncated and corrupted data and metadata.

Copies of small CTF 2 corpus traces are cut at every few bytes and have
bytes overwritten; tracemux must never crash (sanitizers abort, which shows
as a signal), must exit non-zero with an error naming the file and a byte
offset (data) or line:column (metadata) when it stops, and must print only
whole events that the undamaged trace also prints, in the same order, before
the error (for cuts; a flipped byte may also change values)."""
import os
import re
import shutil
import tempfile

from bt2ref import Report, parse_args, run

TRACES = ["handmade/edge-cases", "synthetic/bt2py-all-field-classes", "bt-tests/2/succeed/debug-info"]
# Where the fault is; a metadata stream that ends before any data stream
# class is reported as a whole, in babeltrace 2.1's words.
LOCATION = re.compile(rb"(metadata:\d+:\d+|offset \d+|byte \d+|: \d+:|Missing data stream class fragment)")


def data_file(trace_dir):
    files = [f for f in sorted(os.listdir(trace_dir)) if f != "metadata" and os.path.isfile(os.path.join(trace_dir, f))]
    return files[0]


def check(report, args, what, path, full_lines, exact=True):
    try:
        code, out, err = run(args.tracemux, ["--no-delta", path], timeout=60)
    except Exception as e:  # a hang
        report.fail(what, str(e))
        return
    if code < 0 or code > 2:
        report.fail(what, f"crashed with status {code}\n{err.decode(errors='replace')[-1500:]}")
        return
    lines = out.splitlines()
    # A cut trace prints only events of the whole one; a flipped byte may
    # change values (still whole events), so only the contract below holds.
    if exact and any(line not in full_lines for line in lines):
        bad = next(line for line in lines if line not in full_lines)
        report.fail(what, f"printed a line the undamaged trace does not: {bad[:200]!r}")
        return
    if code != 0:
        msg = err.decode(errors="replace")
        if "error" not in msg or not LOCATION.search(err):
            report.fail(what, f"exit {code} without a located error: {msg[-500:]}")
            return
    report.ok()


def main():
    args = parse_args()
    report = Report("ctf2 damaged")
    work = tempfile.mkdtemp(prefix="tmx-ctf2-damaged-")
    try:
        for trace in TRACES:
            src = os.path.join(args.corpus, "ctf2", trace)
            code, full, _ = run(args.tracemux, ["--no-delta", src])
            if code != 0:
                report.fail(trace, "the undamaged trace does not read")
                continue
            full_lines = set(full.splitlines())
            name = data_file(src)
            with open(os.path.join(src, name), "rb") as f:
                data = f.read()
            with open(os.path.join(src, "metadata"), "rb") as f:
                meta = f.read()
            dst = os.path.join(work, trace.replace("/", "_"))
            shutil.copytree(src, dst)
            step = max(1, len(data) // 60)
            for cut in range(0, len(data), step):
                with open(os.path.join(dst, name), "wb") as f:
                    f.write(data[:cut])
                check(report, args, f"{trace} data cut at {cut}", dst, full_lines)
            for pos in range(0, len(data), step):
                damaged = bytearray(data)
                damaged[pos] ^= 0xFF
                with open(os.path.join(dst, name), "wb") as f:
                    f.write(bytes(damaged))
                check(report, args, f"{trace} data byte {pos} flipped", dst, full_lines, exact=False)
            with open(os.path.join(dst, name), "wb") as f:
                f.write(data)
            mstep = max(1, len(meta) // 40)
            for cut in range(1, len(meta), mstep):
                with open(os.path.join(dst, "metadata"), "wb") as f:
                    f.write(meta[:cut])
                check(report, args, f"{trace} metadata cut at {cut}", dst, full_lines)
            with open(os.path.join(dst, "metadata"), "wb") as f:
                f.write(meta)
    finally:
        shutil.rmtree(work)
    report.finish()


if __name__ == "__main__":
    main()
