#!/usr/bin/env python3
"""Makes tests/data/conformance/: small CTF 1.8 traces for the differences
with babeltrace2 2.0.4 that other people's traces showed (issue 29), each
compared with babeltrace2 run live by tests/golden/test_conformance.py.

  discarded/      no trace UUID, no stream instance IDs, 2 packets per
                  stream and 3 events discarded between them: babeltrace2
                  prints the stream's path in its warning and in the port
                  names of `query trace-infos` (read through a symbolic link
                  made by the test: paths must keep the link).
  keywords-ok/    reserved keywords where babeltrace2 accepts them: env
                  keys and values, enumeration labels, attribute names, an
                  `_enum` field (printed `enum`) that a variant tag names.
  keyword-field/, keyword-typedef/, keyword-tag/, keyword-struct-name/,
  keyword-option/, keyword-label/
                  one reserved keyword where babeltrace2 refuses it (a field
                  named `struct`, `typedef ... int;`, `variant <enum>`,
                  `struct trace {...}`, a variant option `string`, an
                  enumeration label `typealias`).
  escapes/        env strings with \\x escapes of zero (a NUL byte, which
                  ends the string) to three hexadecimal digits ("\\x0231" is
                  "#1"), printed through -f trace:...
  clock-end/      a barectf-like stream whose only clock-mapped field is the
                  packet context's timestamp_end (events have no time of
                  their own): babeltrace2 gives each event the stream's clock
                  value as it stands, the last packet end read.
  many-streams/   12 streams (instance IDs 0 to 11) in files stream_0 to
                  stream_11: `info` lists them by number, not by file name.

    make-conformance.py [OUTDIR]   (default: this script's directory;
                                    writes OUTDIR/conformance)
"""
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = 0xC1FC1FC1

COMMON = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := u8;
typealias integer { size = 32; align = 8; signed = false; } := u32;
typealias integer { size = 64; align = 8; signed = false; } := u64;
"""


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


# ---------------------------------------------------------------- discarded
DISCARDED_META = COMMON + """
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := u64c;
clock { name = c; freq = 1000000000; offset_s = 1700000000; };
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { u32 magic; }; };
env { hostname = "conf-host"; };
stream {
	packet.context := struct { u64 packet_size; u64 content_size;
		u64c timestamp_begin; u64c timestamp_end; u32 events_discarded; };
	event.header := struct { u8 id; u64c timestamp; };
};
event { name = tick; id = 0; fields := struct { u32 n; }; };
"""


def discarded_packet(begin, end, discarded, events):
    body = b"".join(struct.pack("<BQI", 0, ts, n) for ts, n in events)
    size = 4 + 8 + 8 + 8 + 8 + 4 + len(body)
    head = struct.pack("<IQQQQI", MAGIC, size * 8, size * 8, begin, end, discarded)
    return head + body


def make_discarded(out):
    d = os.path.join(out, "discarded")
    write(d, "metadata", DISCARDED_META)
    for s, base in ((0, 1000), (1, 1500)):
        data = discarded_packet(base, base + 300, 0, [(base + 10, 1), (base + 200, 2)])
        data += discarded_packet(base + 1000, base + 1300, 3,
                                 [(base + 1010, 3), (base + 1200, 4)])
        write(d, "chan_%d" % s, data)


# ---------------------------------------------------------------- keywords
KW_STREAM = """
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { u32 magic; }; };
stream { event.header := struct { u8 id; }; };
"""


def keyword_trace(out, name, body, payload):
    d = os.path.join(out, name)
    write(d, "metadata", COMMON + KW_STREAM + body)
    write(d, "stream", struct.pack("<IB", MAGIC, 0) + payload)


def make_keywords(out):
    # Accepted by babeltrace2: keywords as env keys, attribute names and
    # values, enumeration labels, and a field `_enum` named in a tag.
    keyword_trace(out, "keywords-ok", """
env { enum = 1; struct = "s"; typedef = int; variant = 2; string = integer; };
event {
	name = int;
	id = 0;
	struct = 1;
	fields := struct {
		enum : u8 { int, struct, variant = 5, stream } kind;
		enum : u8 { a, b } _enum;
		variant <_enum> { u8 a; u32 b; } _variant;
		u8 _align;
	};
};
""", bytes([5, 1]) + struct.pack("<I", 77) + bytes([9]))
    refused = {
        "keyword-field": "event { name = e; id = 0; fields := struct { u8 x; u8 struct; }; };\n",
        "keyword-typedef": "typedef integer { size = 8; align = 8; } int;\n"
                           "event { name = e; id = 0; fields := struct { u8 x; u8 y; }; };\n",
        "keyword-tag": "event { name = e; id = 0; fields := struct {\n"
                       "\tenum : u8 { a, b } _enum;\n"
                       "\tvariant <enum> { u8 a; u8 b; } v; }; };\n",
        "keyword-struct-name": "event { name = e; id = 0; fields := struct {\n"
                               "\tstruct trace { u8 a; } s; u8 y; }; };\n",
        "keyword-option": "event { name = e; id = 0; fields := struct {\n"
                          "\tenum : u8 { a, string } t;\n"
                          "\tvariant <t> { u8 a; u8 string; } v; }; };\n",
        "keyword-label": "event { name = e; id = 0; fields := struct {\n"
                         "\tenum : u8 { a, typealias } t; u8 y; }; };\n",
    }
    for name, body in refused.items():
        keyword_trace(out, name, body, bytes([0, 0]))


# ---------------------------------------------------------------- escapes
ESCAPES_META = COMMON + r"""
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { u32 magic; }; };
env {
	hostname = "h\x0231\x41";
	domain = "\x414-\xABCD-\x7e-\xz, a \\x without digits ends the string";
	procname = "a\x2-\x02g\101\1011";
	vpid = 7;
};
stream { event.header := struct { u8 id; }; };
event { name = e; id = 0; fields := struct { u8 x; }; };
"""


def make_escapes(out):
    d = os.path.join(out, "escapes")
    write(d, "metadata", ESCAPES_META)
    write(d, "stream", struct.pack("<IBBBB", MAGIC, 0, 5, 0, 6))


# ---------------------------------------------------------------- clock-end
CLOCK_END_META = COMMON + """
typealias integer { size = 64; align = 8; signed = false; map = clock.default.value; } := u64c;
typealias integer { size = 16; align = 8; signed = false; } := u16;
clock { name = default; freq = 1000000000; offset_s = 1600000000; };
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { u32 magic; u32 stream_id; }; };
env { tracer_name = "barectf"; tracer_major = 3; tracer_minor = 1; tracer_patch = 2; };
stream {
	id = 0;
	packet.context := struct { u64 packet_size; u64 content_size;
		u64c timestamp_end; u64 events_discarded; };
	event.header := struct { u16 id; };
};
event { name = start; id = 0; fields := struct { u32 value; }; };
event { name = stop; id = 1; fields := struct { u32 value; }; };
"""


def clock_end_packet(end, discarded, events):
    body = b"".join(struct.pack("<HI", eid, v) for eid, v in events)
    size = 8 + 8 * 4 + len(body)
    return struct.pack("<IIQQQQ", MAGIC, 0, size * 8, size * 8, end, discarded) + body


def make_clock_end(out):
    d = os.path.join(out, "clock-end")
    write(d, "metadata", CLOCK_END_META)
    data = clock_end_packet(5000, 0, [(0, 1), (1, 2), (0, 3)])
    data += clock_end_packet(9000, 0, [(1, 4), (0, 5)])
    data += clock_end_packet(9000, 2, [(1, 6)])
    data += clock_end_packet(12345, 2, [])
    data += clock_end_packet(20000, 2, [(0, 7), (1, 8)])
    write(d, "stream", data)


# ---------------------------------------------------------------- many-streams
# Packets with a beginning time: babeltrace2 2.0.4 groups the files of a
# stream by instance ID only then (else each file is a stream of its own).
MANY_META = COMMON + """
typealias integer { size = 64; align = 8; signed = false; map = clock.c.value; } := u64c;
clock { name = c; freq = 1000000000; };
trace { major = 1; minor = 8; byte_order = le;
	packet.header := struct { u32 magic; u32 stream_id; u32 stream_instance_id; }; };
stream { id = 3; packet.context := struct { u64c timestamp_begin; u64c timestamp_end; };
	event.header := struct { u8 id; }; };
event { name = e; id = 0; stream_id = 3; fields := struct { u32 n; }; };
"""


def make_many_streams(out):
    d = os.path.join(out, "many-streams")
    write(d, "metadata", MANY_META)
    for i in range(12):
        write(d, "stream_%d" % i,
              struct.pack("<IIIQQBI", MAGIC, 3, i, 100 + i, 100 + i, 0, i))


def main():
    out = os.path.join(os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else HERE),
                       "conformance")
    shutil.rmtree(out, ignore_errors=True)
    make_discarded(out)
    make_keywords(out)
    make_escapes(out)
    make_clock_end(out)
    make_many_streams(out)


if __name__ == "__main__":
    main()
