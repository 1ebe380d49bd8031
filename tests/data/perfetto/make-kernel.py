#!/usr/bin/env python3
"""Tiny kernel CTF 1.8 traces for test_perfetto.py.

    make-kernel.py OUTDIR             LTTng-kernel-like: softirq events whose
                                      vectors Perfetto's typed payloads cannot
                                      carry (10 and more: lttng-modules records
                                      the kernel's number, and kernels past the
                                      ten standard softirqs exist), between
                                      ordinary ones
    make-kernel.py --tasks OUTDIR     ftrace-shaped (perf's names, common_pid):
                                      task_newtask with and without
                                      CLONE_THREAD, sched_process_fork and
                                      sched_process_exec, for the process tree
    make-kernel.py --ust SEC OUTDIR   LTTng-UST-like (vtid context), its clock
                                      SEC s from the epoch: one class whose
                                      signed fields are all positive in some
                                      events and negative in others (both of
                                      its TrackEvent extensions), named
                                      ust-SEC
"""
import os
import struct
import sys

def metadata(types, env, event_context, events, offset_s=1700000000):
    """The TSDL text both traces share (one stream, one clock, LTTng's
    packet context), with their integer types, env, event context and events."""
    return ("/* CTF 1.8 */\n" + "".join(
        f"typealias integer {{ size = {size}; align = 8; signed = {str(signed).lower()}; }} := {name};\n"
        for name, size, signed in types) + """
trace {
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; };
};

env {
""" + "".join(f"\t{k} = \"{v}\";\n" for k, v in env) + """};

clock {
	name = "monotonic";
	freq = 1000000000;
	offset_s = """ + str(offset_s) + """;
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
""" + (f"\tevent.context := struct {{ {event_context} }};\n" if event_context else "") + """};

""" + "".join(f"event {{ name = \"{name}\"; id = {i}; stream_id = 0;\n\tfields := struct {{ {fields} }}; }};\n"
              for i, (name, fields) in enumerate(events)))


U8, U32, I32, U64 = ("uint8_t", 8, False), ("uint32_t", 32, False), ("int32_t", 32, True), ("uint64_t", 64, False)
KERNEL_ENV = [("domain", "kernel"), ("tracer_name", "lttng-modules"), ("sysname", "Linux"),
              ("kernel_release", "6.1.0")]

METADATA = metadata([U8, U32, U64], KERNEL_ENV + [("hostname", "softirq-test")], None,
                    [(f"irq_softirq_{what}", "uint32_t _vec;") for what in ("raise", "entry", "exit")])

VECTORS = [1, 9, 10, 12, 31, 3]


TASKS_METADATA = metadata(
    [U8, U32, I32, U64], [e for e in KERNEL_ENV if e[0] != "tracer_name"] + [("hostname", "tasks-test")],
    "int32_t _common_pid;",
    [("task:task_newtask", "int32_t _pid; string _comm; uint64_t _clone_flags; int32_t _oom_score_adj;"),
     ("sched:sched_process_fork",
      "string _parent_comm; int32_t _parent_pid; string _child_comm; int32_t _child_pid;"),
     ("sched:sched_process_exec", "string _filename; int32_t _pid; int32_t _old_pid;")])

CLONE_THREAD = 0x10000


def write_packet(out, cpu, begin, end, events):
    """channel0_CPU: one packet (header, context) of these events."""
    size = 8 + 8 * 4 + 4 + len(events)
    packet = struct.pack("<II", 0xC1FC1FC1, 0) + struct.pack(
        "<QQQQI", begin, end, size * 8, size * 8, cpu) + events
    with open(os.path.join(out, f"channel0_{cpu}"), "wb") as f:
        f.write(packet)


def tasks(out):
    """A shell (100) starts a process (101) that starts a thread (102) and
    execs; then forks a child (103) with no task_newtask, which execs."""
    def s(x):
        return x.encode() + b"\0"
    evs = [
        (100, 0, struct.pack("<i", 101) + s("sh") + struct.pack("<Qi", 0x1200011, 0)),
        (100, 1, s("sh") + struct.pack("<i", 100) + s("sh") + struct.pack("<i", 101)),
        (101, 0, struct.pack("<i", 102) + s("sh") + struct.pack("<Qi", 0x3d0f00 | CLONE_THREAD, 0)),
        (101, 1, s("sh") + struct.pack("<i", 101) + s("worker") + struct.pack("<i", 102)),
        (101, 2, s("/bin/ls") + struct.pack("<ii", 101, 101)),
        (100, 1, s("sh") + struct.pack("<i", 100) + s("sh") + struct.pack("<i", 103)),
        (103, 2, s("/bin/cat") + struct.pack("<ii", 103, 103)),
    ]
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(TASKS_METADATA)
    events, ts = b"", 1000
    for pid, ev_id, body in evs:
        events += struct.pack("<IQi", ev_id, ts, pid) + body
        ts += 100
    write_packet(out, 0, 1000, ts, events)


def ust(out, offset_s):
    """Signed values (a, b) positive, negative and mixed (a positive a whose zig-zag form is
    longer, then a negative b: the int64 a rewritten), an unsigned c between them, on two
    threads."""
    md = metadata([U8, U32, I32, U64], [("domain", "ust"), ("tracer_name", "lttng-ust"),
                                        ("hostname", f"ust-{offset_s}")], "int32_t _vtid;",
                  [("app:signed", "int32_t _a; uint32_t _c; int32_t _b; string _msg;")], offset_s)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(md)
    events, ts = b"", 1000 + offset_s % 7
    for i, (a, b) in enumerate([(5, 120), (-100, 7), (3, -1), (0, 0), (20000, 120), (-5, -6),
                                (100, -2), (9000, -1)]):
        events += struct.pack("<IQiiIi", 0, ts, 200 + i % 2, a, 7 * i, b) + b"hello\0"
        ts += 100
    write_packet(out, 0, 1000, ts, events)


def main():
    if sys.argv[1] == "--ust":
        os.makedirs(sys.argv[3], exist_ok=True)
        ust(sys.argv[3], int(sys.argv[2]))
        return
    if sys.argv[1] == "--tasks":
        os.makedirs(sys.argv[2], exist_ok=True)
        tasks(sys.argv[2])
        return
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
        write_packet(out, cpu, 1000 + cpu, ts, events)


if __name__ == "__main__":
    main()
