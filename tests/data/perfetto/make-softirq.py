#!/usr/bin/env python3
"""A tiny LTTng-kernel-like CTF 1.8 trace for test_perfetto.py: softirq
events whose vectors Perfetto's typed payloads cannot carry (10 and more:
lttng-modules records the kernel's number, and kernels past the ten
standard softirqs exist), between ordinary ones.

    make-softirq.py OUTDIR
"""
import os
import struct
import sys

METADATA = """/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;

trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; };
};

env {
	domain = "kernel";
	tracer_name = "lttng-modules";
	sysname = "Linux";
	kernel_release = "6.1.0";
	hostname = "softirq-test";
};

clock {
	name = "monotonic";
	freq = 1000000000;
	offset_s = 1700000000;
};

typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; }
	:= uint64_clock_t;

stream {
	id = 0;
	packet.context := struct {
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint32_t cpu_id;
	};
	event.header := struct { uint32_t id; uint64_clock_t timestamp; };
};

event { name = "irq_softirq_raise"; id = 0; stream_id = 0;
	fields := struct { uint32_t _vec; }; };
event { name = "irq_softirq_entry"; id = 1; stream_id = 0;
	fields := struct { uint32_t _vec; }; };
event { name = "irq_softirq_exit"; id = 2; stream_id = 0;
	fields := struct { uint32_t _vec; }; };
"""

VECTORS = [1, 9, 10, 12, 31, 3]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(METADATA)
    for cpu in range(2):
        events = b""
        ts = 1000 + cpu
        for vec in VECTORS:
            for ev_id in (0, 1, 2):
                events += struct.pack("<IQI", ev_id, ts, vec + cpu)
                ts += 100
        head = 8 + 8 * 4 + 4
        size = head + len(events)
        packet = struct.pack("<II", 0xC1FC1FC1, 0) + struct.pack(
            "<QQQQI", 1000 + cpu, ts, size * 8, size * 8, cpu) + events
        with open(os.path.join(out, f"channel0_{cpu}"), "wb") as f:
            f.write(packet)


if __name__ == "__main__":
    main()
