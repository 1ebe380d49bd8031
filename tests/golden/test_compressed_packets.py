"""Compressed packets (CTF 1.8 section 5, compression_scheme 1 bzip2,
2 gzip, 3 xz; framing as tests/data/make-compressed-trace.py describes).

- tests/data/compressed-trace (packets in every scheme) prints exactly what
  babeltrace2 printed for its uncompressed twin (compressed-trace.expect).
- A decompression bomb is refused with a clear error, not expanded.
- Damaged compressed data and an unknown scheme are clear errors, after the
  packets before them are printed; never a crash.
- The same field named encryption_scheme or checksum_scheme: packets that
  use one are refused as unsupported, not misdecoded.
"""
import gzip
import os
import shutil
import struct
import tempfile

from bt2ref import Report, first_diff, parse_args, run

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")


def packets(data):
    """(offset, size) of each packet: packet_size at byte 49 (after the 25-byte header)."""
    out, off = [], 0
    while off < len(data):
        size = struct.unpack("<Q", data[off + 49:off + 57])[0] // 8
        out.append((off, size))
        off += size
    return out


def main():
    args = parse_args()
    report = Report("compressed packets")
    trace = os.path.join(DATA, "compressed-trace")
    with open(os.path.join(DATA, "compressed-trace.expect"), "rb") as f:
        expected = f.read()
    code, out, err = run(args.tracemux, [trace])
    if code != 0 or out != expected:
        report.fail("compressed trace", f"exit {code} {err!r}\n" + first_diff(expected, out))
    else:
        report.ok()

    with open(os.path.join(trace, "stream"), "rb") as f:
        stream = f.read()
    pk = packets(stream)
    work = tempfile.mkdtemp(prefix="tracemux-compressed-")
    try:
        copy = os.path.join(work, "t")
        shutil.copytree(trace, copy)

        def damaged(name, data, message):
            with open(os.path.join(copy, "stream"), "wb") as f:
                f.write(data)
            code, out, err = run(args.tracemux, [copy])
            if code != 1 or message not in err or not expected.startswith(out):
                report.fail(name, f"exit {code}: {err.decode(errors='replace')[-400:]}")
            else:
                report.ok()

        # Packet 2 is gzip: its payload replaced by 80 MB of zeros, gzipped.
        off, size = pk[2]
        bomb = gzip.compress(b"\0" * (80 << 20), 9)
        header = bytearray(stream[off:off + 57])
        content = 57 + len(bomb)
        psize = (content + 63) // 64 * 64
        header[41:49] = struct.pack("<Q", content * 8)
        header[49:57] = struct.pack("<Q", psize * 8)
        bombed = stream[:off] + bytes(header) + bomb + b"\0" * (psize - content) + stream[off + size:]
        damaged("decompression bomb", bombed, b"exceeds")

        # Packet 3 (xz): flip bytes in the middle of its compressed payload.
        off, size = pk[3]
        broken = bytearray(stream)
        for i in range(off + 70, off + 80):
            broken[i] ^= 0x5A
        damaged("corrupt xz data", bytes(broken), b"not valid")

        # encryption_scheme / checksum_scheme instead: packet 1 (value 1) is refused.
        with open(os.path.join(trace, "metadata")) as f:
            metadata = f.read()
        with open(os.path.join(copy, "stream"), "wb") as f:
            f.write(stream)
        for field in ("encryption_scheme", "checksum_scheme"):
            with open(os.path.join(copy, "metadata"), "w") as f:
                f.write(metadata.replace("compression_scheme", field))
            code, out, err = run(args.tracemux, [copy])
            word = field.split("_")[0]
            if code != 1 or f"{word} scheme 1 is not supported".encode() not in err \
                    or not expected.startswith(out) or not out:
                report.fail(field, f"exit {code}: {err.decode(errors='replace')[-400:]}")
            else:
                report.ok()
        with open(os.path.join(copy, "metadata"), "w") as f:
            f.write(metadata)

        # Packet 1: a scheme the spec does not define.
        off, _ = pk[1]
        unknown = bytearray(stream)
        unknown[off + 24] = 7
        damaged("unknown scheme", bytes(unknown), b"compression scheme 7")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
