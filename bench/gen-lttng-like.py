#!/usr/bin/env python3
"""Generate an LTTng-UST-like CTF 1.8 trace.

Used for the benchmark (millions of events) and, with small numbers, for the
sample trace kept in tests/data/sample-trace.  The layout follows what
LTTng writes: packet header (magic, UUID, stream id, instance id), packet
context (timestamps, sizes, sequence number, discarded events, cpu_id),
the compact/extended event header (5-bit id + 27-bit timestamp, or 32-bit
id + 64-bit timestamp), a common context and a mix of payloads: integers
of several sizes and bases, char arrays, strings, sequences, enums, floats.

    gen-lttng-like.py OUTDIR [--events N] [--streams S] [--packet-size BYTES]
"""
import argparse
import os
import random
import struct
import uuid as uuidlib

MAGIC = 0xC1FC1FC1
CLOCK_OFFSET_S = 1700000000
CLOCK_OFFSET_CYCLES = 123456789
HEADER_BYTES = 4 + 16 + 4 + 8                # magic, uuid, stream_id, instance id
CONTEXT_BYTES = 8 * 6 + 4                   # ts begin/end, content, packet, seq, discarded, cpu

METADATA = """/* CTF 1.8 */

typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;
typealias integer {{ size = 16; align = 8; signed = false; }} := uint16_t;
typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := uint64_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := unsigned long;
typealias integer {{ size = 5; align = 1; signed = false; }} := uint5_t;
typealias integer {{ size = 27; align = 1; signed = false; }} := uint27_t;

trace {{
	major = 1;
	minor = 8;
	uuid = "{uuid}";
	byte_order = le;
	packet.header := struct {{
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	}};
}};

env {{
	hostname = "bench-host";
	domain = "ust";
	tracer_name = "lttng-ust";
	tracer_major = 2;
	tracer_minor = 13;
	procname = "bench-app";
	vpid = 4242;
}};

clock {{
	name = "monotonic";
	uuid = "{clock_uuid}";
	description = "Monotonic Clock";
	freq = 1000000000; /* Frequency, in Hz */
	/* clock value offset from Epoch is: offset * (1/freq) */
	offset_s = {offset_s};
	offset = {offset};
	precision = 1;
	absolute = TRUE;
}};

typealias integer {{
	size = 27; align = 1; signed = false;
	map = clock.monotonic.value;
}} := uint27_clock_monotonic_t;

typealias integer {{
	size = 64; align = 8; signed = false;
	map = clock.monotonic.value;
}} := uint64_clock_monotonic_t;

struct packet_context {{
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	unsigned long events_discarded;
	uint32_t cpu_id;
}};

struct event_header_compact {{
	enum : uint5_t {{ compact = 0 ... 30, extended = 31 }} id;
	variant <id> {{
		struct {{
			uint27_clock_monotonic_t timestamp;
		}} compact;
		struct {{
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		}} extended;
	}} v;
}} align(8);

stream {{
	id = 0;
	event.header := struct event_header_compact;
	packet.context := struct packet_context;
	event.context := struct {{
		integer {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} _vtid;
	}};
}};

event {{
	name = "sched:switch";
	id = 0;
	stream_id = 0;
	loglevel = 13;
	fields := struct {{
		integer {{ size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; }} _prev_comm[16];
		integer {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} _prev_tid;
		integer {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} _prev_prio;
		integer {{ size = 64; align = 8; signed = 1; encoding = none; base = 10; }} _prev_state;
		integer {{ size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; }} _next_comm[16];
		integer {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} _next_tid;
		integer {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} _next_prio;
	}};
}};

event {{
	name = "syscall:openat";
	id = 1;
	stream_id = 0;
	loglevel = 13;
	fields := struct {{
		integer {{ size = 32; align = 8; signed = 1; encoding = none; base = 10; }} _dfd;
		string _filename;
		integer {{ size = 32; align = 8; signed = 0; encoding = none; base = 16; }} _flags;
		integer {{ size = 16; align = 8; signed = 0; encoding = none; base = 8; }} _mode;
	}};
}};

event {{
	name = "net:packet";
	id = 2;
	stream_id = 0;
	loglevel = 13;
	fields := struct {{
		enum : integer {{ size = 8; align = 8; signed = 0; encoding = none; base = 10; }} {{
			"TCP" = 6,
			"UDP" = 17,
			"ICMP" = 1,
		}} _proto;
		integer {{ size = 32; align = 8; signed = 0; encoding = none; base = 10; }} __data_length;
		integer {{ size = 8; align = 8; signed = 0; encoding = none; base = 16; }} _data[ __data_length ];
	}};
}};

event {{
	name = "app:measure";
	id = 3;
	stream_id = 0;
	loglevel = 6;
	fields := struct {{
		string _msg;
		floating_point {{ exp_dig = 11; mant_dig = 53; align = 8; }} _value;
		integer {{ size = 64; align = 8; signed = 0; encoding = none; base = 10; }} _count;
	}};
}};
"""

COMMS = [b"swapper/0", b"bash", b"kworker/u8:2", b"sshd", b"tracemux", b"python3", b"rcu_sched"]
FILES = [b"/etc/passwd", b"/usr/lib/x86_64-linux-gnu/libc.so.6", b"/proc/self/maps",
         b"/tmp/x", b"/home/user/.config/app/settings.json"]
MSGS = [b"tick", b"request served", b"cache miss on key 42", b"flushing buffers"]


def comm16(name):
    return name[:15].ljust(16, b"\0")


def payload(rng, ev_id, i):
    if ev_id == 0:
        return struct.pack("<16siiq16sii", comm16(rng.choice(COMMS)), rng.randrange(1, 40000),
                           120, rng.randrange(0, 3), comm16(rng.choice(COMMS)),
                           rng.randrange(1, 40000), 120)
    if ev_id == 1:
        return (struct.pack("<i", -100) + rng.choice(FILES) + b"\0" +
                struct.pack("<IH", 0x80000 | rng.randrange(0, 4), 0o644))
    if ev_id == 2:
        n = rng.randrange(0, 24)
        return struct.pack("<BI", rng.choice((6, 17, 1)), n) + bytes(rng.randrange(256) for _ in range(n))
    return rng.choice(MSGS) + b"\0" + struct.pack("<dQ", rng.random() * 1000.0, i)


def event_bytes(ev_id, ts, prev_ts, vtid, body):
    if ts - prev_ts < (1 << 27):
        header = struct.pack("<I", ev_id | ((ts & ((1 << 27) - 1)) << 5))
    else:
        header = struct.pack("<BIQ", 31, ev_id, ts)
    return header + struct.pack("<i", vtid) + body


def write_stream(path, stream_index, n_events, packet_size, trace_uuid, rng, t0):
    seq = 0
    ts = t0 + stream_index * 137
    discarded = 0
    with open(path, "wb") as f:
        remaining = n_events
        while remaining > 0:
            begin = ts
            events = []
            used = HEADER_BYTES + CONTEXT_BYTES
            prev = begin
            while remaining > 0:
                # mostly small gaps (compact headers), sometimes a long pause (extended)
                ts += rng.randrange(200, 5000) if remaining % 37 else (1 << 28)
                ev_id = rng.choice((0, 0, 1, 2, 3))
                data = event_bytes(ev_id, ts, prev, 1000 + stream_index, payload(rng, ev_id, remaining))
                if used + len(data) > packet_size:
                    ts = prev
                    break
                events.append(data)
                used += len(data)
                prev = ts
                remaining -= 1
            end = prev
            if seq == 3 and stream_index == 0:
                discarded += 5          # a few discarded events, as a real tracer reports
            head = struct.pack("<I16sIQ", MAGIC, trace_uuid.bytes, 0, stream_index)
            ctx = struct.pack("<QQQQQQI", begin, end, used * 8, packet_size * 8, seq, discarded,
                              stream_index)
            body = head + ctx + b"".join(events)
            f.write(body + b"\0" * (packet_size - len(body)))
            seq += 1
            ts = end + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--events", type=int, default=2_000_000, help="total number of events")
    ap.add_argument("--streams", type=int, default=4, help="number of per-CPU stream files")
    ap.add_argument("--packet-size", type=int, default=256 * 1024, help="packet size in bytes")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    trace_uuid = uuidlib.UUID(int=rng.getrandbits(128))
    clock_uuid = uuidlib.UUID(int=rng.getrandbits(128))
    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "metadata"), "w") as f:
        f.write(METADATA.format(uuid=trace_uuid, clock_uuid=clock_uuid, offset_s=CLOCK_OFFSET_S,
                                offset=CLOCK_OFFSET_CYCLES))
    per_stream = args.events // args.streams
    for s in range(args.streams):
        n = per_stream + (1 if s < args.events % args.streams else 0)
        write_stream(os.path.join(args.outdir, f"channel0_{s}"), s, n, args.packet_size,
                     trace_uuid, rng, 5_000_000_000)


if __name__ == "__main__":
    main()
