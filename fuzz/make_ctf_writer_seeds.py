#!/usr/bin/env python3
"""Seeds of fuzz_ctf_writer: small CTF traces (TSDL, "--DATA--", one stream)
built from the CTF 1.8 specification, each aimed at what the CTF writer must
carry over: variants (tag named by its labels, tag the writer must generate),
signed enumerations, text arrays and sequences, sequences of structures,
floats, odd bit-sizes at odd offsets, keyword-like and underscored names,
discarded events and packets, clocks with offsets, several stream classes.

    fuzz/make_ctf_writer_seeds.py OUTDIR
"""
import struct
import sys
import uuid

UUID = uuid.UUID("2a6422d0-6cee-11e0-8c08-cb07d7b3a564").bytes


class Bits:
    """A little- or big-endian CTF bit writer (spec 4.1.5)."""

    def __init__(self, be):
        self.be = be
        self.bits = []

    def align(self, n):
        while len(self.bits) % n:
            self.bits.append((0, self.be))

    def int(self, v, size, align=8, be=None):
        """Bit k of the stream is bit k % 8 of its byte from the LSB (little
        endian) or from the MSB (big endian): the byte order of the field."""
        be = self.be if be is None else be
        self.align(align)
        v &= (1 << size) - 1
        if be:
            self.bits += [((v >> (size - 1 - k)) & 1, be) for k in range(size)]
        else:
            self.bits += [((v >> k) & 1, be) for k in range(size)]

    def raw(self, data):
        self.align(8)
        for b in data:
            self.int(b, 8)

    def string(self, s):
        self.raw(s + b"\0")

    def f64(self, d):
        self.int(struct.unpack("<Q", struct.pack("<d", d))[0], 64)

    def f32(self, d):
        self.int(struct.unpack("<I", struct.pack("<f", d))[0], 32)

    def __len__(self):
        return len(self.bits)

    def to_bytes(self):
        self.align(8)
        out = bytearray()
        for i in range(0, len(self.bits), 8):
            byte = 0
            for k, (bit, be) in enumerate(self.bits[i:i + 8]):
                byte |= bit << (7 - k if be else k)
            out.append(byte)
        return bytes(out)


def packet(be, body, ctx_fn, total_bytes=None):
    """Header + context (ctx_fn(bits, content_bits, packet_bits)) + body."""
    # Two passes: the sizes depend on the context itself.
    probe = Bits(be)
    header(probe)
    ctx_fn(probe, 0, 0)
    body(probe)
    content = len(probe)
    size = total_bytes * 8 if total_bytes else (content + 7) // 8 * 8
    b = Bits(be)
    header(b)
    ctx_fn(b, content, size)
    body(b)
    data = b.to_bytes()
    return data + b"\0" * (size // 8 - len(data))


def header(b):
    b.int(0xC1FC1FC1, 32)
    b.raw(UUID)
    b.int(HEADER_STREAM_ID[0], 8)


HEADER_STREAM_ID = [0]

PRELUDE = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; } := u8;
typealias integer { size = 16; align = 8; } := u16;
typealias integer { size = 32; align = 8; } := u32;
typealias integer { size = 64; align = 8; } := u64;
typealias integer { size = 8; align = 8; signed = true; } := i8;
typealias integer { size = 32; align = 8; signed = true; } := i32;
typealias integer { size = 64; align = 8; signed = true; } := i64;
"""


def trace_block(bo):
    return """
trace {
	major = 1;
	minor = 8;
	uuid = "%s";
	byte_order = %s;
	packet.header := struct {
		u32 magic;
		u8 uuid[16];
		u8 stream_id;
	};
};
""" % (str(uuid.UUID(bytes=UUID)), bo)


def seed_types(be, negative_tag=False):
    """Every field class kind in one event, two packets, a discard.  With
    `negative_tag`, the first event selects its option with a negative tag
    (tracemux's reader does not sign-extend tags yet: it fails there)."""
    meta = PRELUDE + trace_block("be" if be else "le") + """
env {
	hostname = "seed-host";
	domain = "kernel";
	answer = 42;
};

clock {
	name = mono_clk;
	description = "a \\"quoted\\" clock";
	freq = 1000000;
	offset_s = 1600000000;
	offset = 1500000;
	precision = 3;
	absolute = true;
};

typealias integer { size = 64; align = 8; map = clock.mono_clk.value; } := ts64;
typealias integer { size = 20; align = 1; map = clock.mono_clk.value; } := ts20;

stream {
	id = 0;
	packet.context := struct {
		u64 packet_size;
		u64 content_size;
		ts64 timestamp_begin;
		ts64 timestamp_end;
		u32 events_discarded;
		u16 packet_seq_num;
		u16 cpu_id;
		string host_tag;
	};
	event.header := struct {
		integer { size = 4; align = 1; } id;
		ts20 timestamp;
	};
	event.context := struct {
		i32 _tid;
		string _struct;
	};
};

event {
	name = "sched:switch \\x01";
	id = 1;
	stream_id = 0;
	loglevel = 7;
	model.emf.uri = "http://example.com/\\"x\\"";
	context := struct {
		u8 prio;
	};
	fields := struct {
		enum : i8 { neg = -5 ... -1, zero = 0, pos = 1 ... 100, _enum = 101 } sel;
		variant <sel> {
			i32 neg;
			string zero;
			struct { u8 a; u16 b; } pos;
			u8 _enum;
		} choice;
		integer { size = 3; align = 1; } three;
		integer { size = 13; align = 8; signed = true; byte_order = be; } thirteen;
		integer { size = 8; align = 8; encoding = UTF8; } text[6];
		u8 tlen;
		integer { size = 8; align = 8; encoding = ASCII; } tseq[tlen];
		u32 n;
		struct { u16 x; string s; } items[n];
		floating_point { exp_dig = 8; mant_dig = 24; align = 32; } f;
		floating_point { exp_dig = 11; mant_dig = 53; align = 64; } d;
		u8 arr[3];
		integer { size = 64; align = 8; signed = true; base = x; } big;
	};
};

event {
	name = "empty";
	id = 2;
	stream_id = 0;
};
"""

    def ev_header(b, eid, ts):
        b.align(8)
        b.int(eid, 4, 1)
        b.int(ts, 20, 1)

    def common(b, tid, s):
        b.int(tid, 32)
        b.string(s)

    def ev1(b, ts, sel, choice_fn, text, tseq, items, f, d):
        ev_header(b, 1, ts)
        common(b, -1 if ts % 2 else 1234, b"common")
        b.int(9, 8)                              # prio
        b.align(64)                              # the payload: aligned as its double
        b.int(sel, 8)
        choice_fn(b)
        b.int(5, 3, 1)
        b.int(-77, 13, 8, be=True)
        b.raw(text)
        b.int(len(tseq), 8)
        b.raw(tseq)
        b.int(len(items), 32)
        for x, s in items:
            b.int(x, 16)
            b.string(s)
        b.align(32)
        b.f32(f)
        b.align(64)
        b.f64(d)
        b.raw(b"\x01\x02\x03")
        b.int(-(1 << 62), 64)

    def ev2(b, ts):
        ev_header(b, 2, ts)
        common(b, 7, b"")

    def body1(b):
        if negative_tag:
            ev1(b, 100, -3, lambda b: b.int(-123456, 32), b"ab\0cd\0", b"xyz", [(1, b"one"), (2, b"")],
                1.5, -0.0)
        ev1(b, 100, 1, lambda b: (b.int(7, 8), b.int(0xBEEF, 16)), b"ab\0cd\0", b"xyz", [(1, b"one"), (2, b"")],
            1.5, -0.0)
        ev2(b, 200)
        ev1(b, 0xFFFF0, 0, lambda b: b.string(b"zero-opt"), b"123456", b"", [], float("inf"), 3.25)
        ev1(b, 0x00010, 50, lambda b: (b.int(7, 8), b.int(0xBEEF, 16)), b"\xff\xfe\0\0\0\0", b"\0a",
            [(65535, b"\xc3\xa9t\xc3\xa9")], -2.0, 1e300)

    def body2(b):
        ev1(b, 0x20000, 101, lambda b: b.int(9, 8), b"zzzzzz", b"q", [], 0.1, float("nan"))
        ev2(b, 0x20005)

    def ctx(seq, disc, begin, end):
        def fn(b, content, size):
            b.int(size, 64)
            b.int(content, 64)
            b.int(begin, 64)
            b.int(end, 64)
            b.int(disc, 32)
            b.int(seq, 16)
            b.int(3, 16)
            b.string(b"tag-%d" % seq)
        return fn

    data = packet(be, body1, ctx(0, 0, 50, 0x100020), total_bytes=None)
    data += packet(be, body2, ctx(3, 17, 0x120000, 0x120010), total_bytes=512)
    return meta, data


def seed_generated_refs():
    """Lengths and tags the writer cannot name: it must generate them."""
    meta = PRELUDE + trace_block("le") + """
stream {
	id = 0;
	packet.context := struct {
		u8 n_ctx;
	};
	event.header := struct { u8 id; };
	event.context := struct {
		u8 m;
	};
};

event {
	name = "refs";
	id = 0;
	stream_id = 0;
	fields := struct {
		u8 ctx_seq[stream.packet.context.n_ctx];
		u8 ctxev_seq[stream.event.context.m];
		struct { u8 len; } inner[2];
		enum : u8 { A = 0, B = 1, C = 2 ... 5 } tag;
		variant <tag> {
			u16 A;
			string B;
			struct { u8 len; u8 data[len]; } C;
		} v;
		variant <tag> {
			u8 A;
			u8 B;
			u8 C;
		} w[2];
	};
};
"""

    def body(b):
        for tag in (0, 1, 3):
            b.int(0, 8)            # event id
            b.int(2, 8)            # m
            b.raw(b"\x0a\x0b")     # ctx_seq (n_ctx = 2)
            b.raw(b"\x0c\x0d")     # ctxev_seq (m = 2)
            b.raw(b"\x01\x02")     # inner[2].len
            b.int(tag, 8)
            if tag == 0:
                b.int(0x1234, 16)
            elif tag == 1:
                b.string(b"bee")
            else:
                b.int(3, 8)
                b.raw(b"xyz")
            b.raw(bytes([tag, tag]))

    def ctx(b, content, size):
        b.int(2, 8)

    HEADER_STREAM_ID[0] = 0
    return meta, packet(False, body, ctx)


def seed_two_streams():
    """Two stream classes, no clock, events without payload, a large id."""
    meta = PRELUDE + trace_block("be") + """
stream {
	id = 0;
	event.header := struct { u32 id; };
};
stream {
	id = 1;
	event.header := struct { u32 id; };
	event.context := struct { string where; };
};
event { name = "a"; id = 70000; stream_id = 0; fields := struct { string s; }; };
event { name = "b"; id = 0; stream_id = 0; };
event { name = "c"; id = 5; stream_id = 1; fields := struct { i64 v; }; };
"""

    def body0(b):
        b.int(70000, 32)
        b.string(b"first")
        b.int(0, 32)

    HEADER_STREAM_ID[0] = 0
    return meta, packet(True, body0, lambda b, c, s: None)


def seed_lttng_paths():
    """An LTTng 2.12 environment whose names try to leave the output
    directory: the writer's trace path comes from it."""
    meta = PRELUDE + trace_block("le") + """
env {
	tracer_name = "lttng-ust";
	tracer_major = 2;
	tracer_minor = 12;
	hostname = "../evil/..";
	trace_name = "s/../..";
	trace_creation_datetime = "20200101T000000+0000";
	domain = "ust";
	tracer_buffering_scheme = "pid";
	procname = "../../../../p";
	vpid = 12;
	vpid_datetime = "20200101T000000+0000";
};
stream {
	id = 0;
	event.header := struct { u8 id; };
};
event { name = "e"; id = 0; stream_id = 0; fields := struct { string s; }; };
"""

    def body(b):
        b.int(0, 8)
        b.string(b"inside")

    HEADER_STREAM_ID[0] = 0
    return meta, packet(False, body, lambda b, c, s: None)


def main():
    out = sys.argv[1]
    if len(sys.argv) > 2 and sys.argv[2] == "negative-tag":
        meta, data = seed_types(False, negative_tag=True)
        with open("%s/reader-negative-variant-tag" % out, "wb") as f:
            f.write(meta.encode() + b"\n--DATA--\n" + data)
        return
    seeds = {
        "types-le": seed_types(False),
        "types-be": seed_types(True),
        "generated-refs": seed_generated_refs(),
        "two-streams": seed_two_streams(),
        "lttng-paths": seed_lttng_paths(),
    }
    for name, (meta, data) in seeds.items():
        with open("%s/%s" % (out, name), "wb") as f:
            f.write(meta.encode() + b"\n--DATA--\n" + data)


if __name__ == "__main__":
    main()
