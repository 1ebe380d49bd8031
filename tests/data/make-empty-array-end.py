#!/usr/bin/env python3
"""Makes tests/data/empty-array-end: a CTF 1.8 trace whose first packet ends
with an empty sequence of 64-bit-aligned elements, and that alignment goes
past the packet's content size.

The event `e` is { u8 x; u8 n; u64 seq[n] } (64-bit aligned).  Packet 0
holds two events; the second (x = 2, n = 0) ends at byte 42, the content's
end, and its empty `seq` would be aligned to byte 48.  Nothing is read past
the content: tracemux decodes that event and goes on with packet 1 (one
event, x = 3).  babeltrace2 2.0.4 prints the event too, then stops with an
error, its position being past the content (tests/golden/test_empty_array_end.py).

    make-empty-array-end.py OUTDIR    (writes OUTDIR/empty-array-end)
"""
import os
import struct
import sys

METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := u8;
typealias integer { size = 32; align = 8; signed = false; } := u32;
typealias integer { size = 64; align = 64; signed = false; } := u64a;

trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct { u32 magic; };
};

stream {
	packet.context := struct { u32 packet_size; u32 content_size; };
	event.header := struct { u8 id; };
};

event {
	name = e;
	id = 0;
	fields := struct { u8 x; u8 n; u64a seq[n]; };
};
"""


def pad_to(buf, align):
    return buf + b"\0" * (-len(buf) % align)


def event(buf, x, seq):
    """Appends an event at the end of `buf` (a packet so far): its offsets
    count from the packet's start, as the alignments do."""
    buf += bytes([0])                       # id
    buf = pad_to(buf, 8) + bytes([x, len(seq)])
    if seq:
        buf = pad_to(buf, 8)
        for v in seq:
            buf += struct.pack("<Q", v)
    return buf


def packet(events, padding):
    body = b"\0" * 12
    for x, seq in events:
        body = event(body, x, seq)
    content = len(body)
    total = content + padding
    head = struct.pack("<III", 0xC1FC1FC1, total * 8, content * 8)
    return head + body[12:] + b"\0" * padding


def main():
    out = os.path.join(sys.argv[1], "empty-array-end")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(METADATA)
    data = packet([(1, [100]), (2, [])], 6) + packet([(3, [300])], 0)
    with open(os.path.join(out, "stream"), "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
