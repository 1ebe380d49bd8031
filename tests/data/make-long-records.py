#!/usr/bin/env python3
"""Makes a CTF 1.8 trace of two streams whose events are mostly small but
some very long: strings and sequences of integers (a LIST column) of up to
300 KB.  The Parquet output's parallel path writes each event's record in
the room left in the worker's output buffer (256 KiB, src/sink/outbuf.h);
records longer than that room, or than the whole buffer, take the other
way (src/sink/parquet/format.c).  test_parquet_parallel.py makes this trace
in its work directory and requires the same dataset with --jobs 1, 2 and 4.

    make-long-records.py OUTDIR    (writes OUTDIR/long-records)
"""
import os
import struct
import sys

METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := u8;
typealias integer { size = 32; align = 8; signed = false; } := u32;
typealias integer { size = 64; align = 8; signed = false; } := u64;
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := ctime;

trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct { u32 magic; };
};

clock {
	name = c;
	freq = 1000000000;
};

stream {
	packet.context := struct {
		u64 packet_size;
		u64 content_size;
		ctime timestamp_begin;
		ctime timestamp_end;
	};
	event.header := struct { u8 id; ctime timestamp; };
};

event {
	name = small;
	id = 0;
	fields := struct { u32 x; };
};

event {
	name = long;
	id = 1;
	fields := struct { u32 x; string s; u32 n; u32 a[n]; };
};
"""

# (string length, sequence length) of the long events, in turn
LONG = [(10, 3), (5000, 20000), (70000, 0), (300000, 70000), (0, 0), (200000, 1), (1, 66000)]


def events(stream):
    """(timestamp, payload bytes with the id) of one stream's events."""
    out = []
    for i in range(400):
        ts = 1000 + 10 * i + stream
        if i % 37 == 5:
            slen, n = LONG[(i // 37 + stream) % len(LONG)]
            text = bytes(0x41 + (k * 7 + i) % 26 for k in range(slen)) + b"\0"
            body = struct.pack("<I", i) + text + struct.pack("<I", n) + \
                b"".join(struct.pack("<I", (k * 2654435761 + i) & 0xFFFFFFFF) for k in range(n))
            out.append((ts, bytes([1]) + struct.pack("<Q", ts) + body))
        else:
            out.append((ts, bytes([0]) + struct.pack("<Q", ts) + struct.pack("<I", i * 3 + stream)))
    return out


def packet(evs):
    body = b"".join(e for _, e in evs)
    size = 4 + 32 + len(body)
    head = struct.pack("<IQQQQ", 0xC1FC1FC1, size * 8, size * 8, evs[0][0], evs[-1][0])
    return head + body


def main():
    out = os.path.join(sys.argv[1], "long-records")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(METADATA)
    for s in range(2):
        with open(os.path.join(out, f"stream_{s}"), "wb") as f:
            f.write(packet(events(s)))


if __name__ == "__main__":
    main()
