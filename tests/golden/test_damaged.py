"""Damaged traces: truncations and bit flips of real traces.

For each damaged copy, tracemux must exit with 0 or 1 (never a crash, an
abort from the sanitizers, or a hang), say what is wrong on stderr naming the
file when it fails, and -- for truncations -- print exactly a prefix of what
it prints for the intact trace: everything decoded before the damage.
Every damaged copy is also read with --lenient: no crash either, never fewer
events than without --lenient, and for truncations only events of the intact
trace (a subsequence: only what was damaged is missing).  A flipped bit in a
value is not detectable, so flipped copies may show changed values.
"""
import os
import random
import re
import shutil
import tempfile

from bt2ref import Report, parse_args, run

TRACES = [
    "babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u",     # packetized metadata, 8 streams
    "babeltrace-tests/ctf-traces/succeed/smalltrace",         # no packet context
    "babeltrace-tests/ctf-traces/succeed/multi-domains/ust",  # LTTng-UST 2.11
    "babeltrace-tests/ctf-traces/succeed/no-packet-context",  # big endian
    "babeltrace-tests/ctf-traces/succeed/sequence",
]
FLIPS_PER_FILE = 12
CUTS_PER_FILE = 12


def data_files(trace):
    return sorted(f for f in os.listdir(trace)
                  if not f.startswith(".") and f != "metadata" and os.path.isfile(os.path.join(trace, f)))


def is_subsequence(lines, of):
    it = iter(of)
    return all(line in it for line in lines)


def check_lenient(report, args, what, trace, intact_out, strict_out, truncated):
    code, out, err = run(args.tracemux, ["--lenient", trace], timeout=30)
    # The (+delta) column depends on the previous event printed: ignore it.
    def events_of(text):
        return [re.sub(rb"\(\+[^)]*\) ", b"", l) for l in text.splitlines() if l.startswith(b"[")]
    events, intact, strict = events_of(out), events_of(intact_out), events_of(strict_out)
    if code not in (0, 1):
        report.fail("--lenient " + what, f"exit status {code}\n{err.decode(errors='replace')[-1500:]}")
    elif truncated and not is_subsequence(events, intact):
        report.fail("--lenient " + what, "events that the intact trace does not have")
    elif len(events) < len(strict):
        report.fail("--lenient " + what, f"{len(events)} events, fewer than the {len(strict)} without it")
    else:
        report.ok()


def check(report, args, what, trace, intact_out, truncated):
    code, out, err = run(args.tracemux, [trace], timeout=30)
    check_lenient(report, args, what, trace, intact_out, out, truncated)
    if code not in (0, 1):
        report.fail(what, f"exit status {code}\n{err.decode(errors='replace')[-1500:]}")
        return
    # The message names a file of the trace (the damaged one, or a data file
    # that no longer matches a truncated metadata).
    if code == 1 and (b"error:" not in err or trace.encode() not in err):
        report.fail(what, f"unclear error: {err.decode(errors='replace')[-500:]}")
        return
    if truncated and not intact_out.startswith(out):
        report.fail(what, "output is not a prefix of the intact trace's output")
        return
    check_dummy(report, args, what, trace, code, err)
    report.ok()


def check_dummy(report, args, what, trace, code, err):
    """-o dummy steps over event bodies that no one reads: same errors as the text output."""
    dcode, _, derr = run(args.tracemux, ["-o", "dummy", trace], timeout=30)
    def errors(text):
        return [l for l in text.splitlines() if b"error" in l]
    if dcode != code or errors(derr) != errors(err):
        report.fail("-o dummy " + what, f"exit {dcode} vs {code}\n{derr[-500:]!r}\nvs\n{err[-500:]!r}")


# An LTTng-UST stream whose packet context's content_size (bits, 64-bit
# little endian at byte 48 of its first packet) is made smaller byte by
# byte: the last events of the packet then end past its content.
SHRINK_TRACE = "babeltrace-tests/ctf-traces/succeed/multi-domains/ust"
SHRINK_FILE, CONTENT_SIZE_AT = "ust2_channel_0", 48


def check_shrunk_content(report, args, work):
    trace = os.path.join(work, "shrunk")
    shutil.copytree(os.path.join(args.corpus, SHRINK_TRACE), trace)
    path = os.path.join(trace, SHRINK_FILE)
    with open(path, "rb") as f:
        original = bytearray(f.read())
    content = int.from_bytes(original[CONTENT_SIZE_AT:CONTENT_SIZE_AT + 8], "little")
    failed = 0
    for less in range(1, 97):
        damaged = bytearray(original)
        damaged[CONTENT_SIZE_AT:CONTENT_SIZE_AT + 8] = (content - 8 * less).to_bytes(8, "little")
        with open(path, "wb") as f:
            f.write(damaged)
        code, _, err = run(args.tracemux, [trace], timeout=30)
        failed += code == 1
        check_dummy(report, args, f"{SHRINK_FILE} content {less} bytes smaller", trace, code, err)
        report.ok()
    # The shrinking must cut events, else the comparison above proves nothing.
    if failed == 0:
        report.fail("content_size made smaller", "no error at all: the offset is wrong")


def main():
    args = parse_args()
    report = Report("damaged traces")
    rng = random.Random(2026)
    work = tempfile.mkdtemp(prefix="tracemux-damaged-")
    try:
        for rel in TRACES:
            src = os.path.join(args.corpus, rel)
            trace = os.path.join(work, "t")
            shutil.rmtree(trace, ignore_errors=True)
            shutil.copytree(src, trace)
            code, intact_out, _ = run(args.tracemux, [trace])
            assert code == 0, rel
            for name in data_files(trace) + ["metadata"]:
                path = os.path.join(trace, name)
                with open(path, "rb") as f:
                    original = f.read()
                if not original:
                    continue
                cuts = {len(original) - 1, 1, 4, 40} | {rng.randrange(len(original)) for _ in range(CUTS_PER_FILE)}
                for cut in sorted(cuts):
                    with open(path, "wb") as f:
                        f.write(original[:cut])
                    check(report, args, f"{rel}/{name} cut at {cut}", trace, intact_out,
                          truncated=name != "metadata")
                for _ in range(FLIPS_PER_FILE):
                    pos = rng.randrange(len(original))
                    damaged = bytearray(original)
                    damaged[pos] ^= 1 << rng.randrange(8)
                    with open(path, "wb") as f:
                        f.write(damaged)
                    check(report, args, f"{rel}/{name} bit flip at byte {pos}", trace,
                          intact_out, truncated=False)
                with open(path, "wb") as f:
                    f.write(original)
        check_shrunk_content(report, args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
