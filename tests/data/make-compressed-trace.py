#!/usr/bin/env python3
"""Makes tests/data/compressed-trace and its uncompressed twin.

CTF 1.8 (section 5) lists a packet compression scheme (1 bzip2, 2 gzip,
3 xz) without fixing the framing; tracemux reads it as: the packet header
has `compression_scheme`, and the bytes after the header and context, up to
the content size, are one compressed stream holding the event records.
Packets of the compressed trace use every scheme in turn; the twin has the
same events uncompressed (scheme 0), so that babeltrace2 can read it and
give the reference output (compressed-trace.expect).

    make-compressed-trace.py OUTDIR    (writes OUTDIR/compressed-trace, OUTDIR/uncompressed-twin)
"""
import bz2
import gzip
import lzma
import os
import struct
import sys
import uuid

UUID = uuid.UUID("6d6f6e74-7261-6365-6d75-782d7a697021")
METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace {
	major = 1;
	minor = 8;
	uuid = "%s";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t uuid[16];
		uint32_t stream_id;
		uint8_t compression_scheme;
	};
};
env { hostname = "packer"; };
clock { name = c; freq = 1000000000; offset_s = 1700000000; };
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := clk64;
stream {
	id = 0;
	packet.context := struct {
		clk64 timestamp_begin;
		clk64 timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
	};
	event.header := struct { uint32_t id; clk64 timestamp; };
};
event {
	name = "pack:item";
	id = 0;
	stream_id = 0;
	fields := struct {
		uint32_t n;
		string label;
		integer { size = 16; align = 8; signed = true; } delta;
	};
};
""" % UUID

COMPRESS = {0: lambda b: b, 1: bz2.compress, 2: gzip.compress, 3: lzma.compress}


def events(first, count, t0):
    out = b""
    for i in range(first, first + count):
        label = ("item-%d " % i) * (1 + i % 4)
        out += struct.pack("<IQ", 0, t0 + i * 1000) + struct.pack("<I", i) + label.encode() + b"\0"
        out += struct.pack("<h", (i * 37) % 2000 - 1000)
    return out


def packet(scheme, first, count, t0):
    body = events(first, count, t0)
    payload = COMPRESS[scheme](body)
    header = struct.pack("<I16sIB", 0xC1FC1FC1, UUID.bytes, 0, scheme)   # 25 bytes
    content = len(header) + 32 + len(payload)
    size = (content + 63) // 64 * 64
    ctx = struct.pack("<QQQQ", t0 + first * 1000, t0 + (first + count - 1) * 1000, content * 8, size * 8)
    return header + ctx + payload + b"\0" * (size - content)


def write(outdir, compressed):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "metadata"), "w") as f:
        f.write(METADATA)
    with open(os.path.join(outdir, "stream"), "wb") as f:
        for k in range(8):
            scheme = k % 4 if compressed else 0
            f.write(packet(scheme, k * 50, 50, 5000))


def main():
    out = sys.argv[1]
    write(os.path.join(out, "compressed-trace"), True)
    write(os.path.join(out, "uncompressed-twin"), False)


if __name__ == "__main__":
    main()
