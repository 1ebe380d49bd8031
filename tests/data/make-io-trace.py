#!/usr/bin/env python3
"""Write a small LTTng kernel trace with I/O events, for `tracemux analyze`'s
I/O commands (iolatencystats, iolatencytop, iolatencyfreq, iolog, iousagetop)
and lttng-analyses' (none of the corpus' kernel traces has block or network
events).

The metadata has the shape of lttng-modules' (tracecompass/tc-many-threads:
env with domain "kernel" and the tracer's version, the monotonic clock, the
packet context with cpu_id, the large event header, one data stream file per
CPU, a stream event context with the `pid`) and lttng-modules 2.10's event
fields: lttng-analyses 0.6.1 reads `pid` in lttng_statedump_file_descriptor,
which 2.11 replaced by a file table address.  The version says 2.10.10:
earlier ones have packet end times that babeltrace 2 (and tracemux) replace
by the last event's, babeltrace 1 (lttng-analyses) not, and the streams'
common time range would differ.
The events are made up, with a fixed seed: a state dump (tasks, file
descriptors opened before the trace, block devices), tasks scheduled on four
CPUs making open/openat/close/read/write/pread64/pwrite64/readv/writev/
recvmsg/sendmsg/recvfrom/sendto/fsync/fdatasync/sync/sync_file_range/dup2/
fcntl/socket/connect/splice calls (and a few that are no I/O) with varied sizes and
latencies, failed ones (ENOENT, EBADF, EAGAIN), block requests issued,
remapped, merged and completed (some never), packets received and sent.

    make-io-trace.py OUTDIR [--scale N]

tests/data/analyze-io/kernel is this script's output with the defaults
(`--scale N` multiplies the events, for bench/analyze.sh).
"""
import argparse
import itertools
import os
import random
import struct

CLOCK_OFFSET = 1700000000000000000   # 2023-11-14 22:13:20 UTC
CPUS = 4
PAGE = 4096

INT = {
    "u8": (8, 0, 10), "u16": (16, 0, 10), "u32": (32, 0, 10), "u64": (64, 0, 10),
    "i32": (32, 1, 10), "i64": (64, 1, 10), "x64": (64, 0, 16), "o32": (32, 0, 8),
}

# lttng-modules 2.10's fields (x86_64 system call signatures)
EVENTS = [
    ("lttng_statedump_block_device", [("dev", "u32"), ("diskname", "s")]),
    ("lttng_statedump_process_state", [
        ("tid", "i32"), ("vtid", "i32"), ("pid", "i32"), ("vpid", "i32"), ("ppid", "i32"),
        ("vppid", "i32"), ("name", "c16"), ("type", "i32"), ("mode", "i32"), ("submode", "i32"),
        ("status", "i32"), ("ns_level", "u32")]),
    ("lttng_statedump_file_descriptor", [
        ("pid", "i32"), ("fd", "i32"), ("flags", "o32"), ("fmode", "u32"), ("filename", "s")]),
    ("lttng_statedump_start", []),
    ("lttng_statedump_end", []),
    ("sched_switch", [
        ("prev_comm", "c16"), ("prev_tid", "i32"), ("prev_prio", "i32"), ("prev_state", "i64"),
        ("next_comm", "c16"), ("next_tid", "i32"), ("next_prio", "i32")]),
    ("sched_process_fork", [
        ("parent_comm", "c16"), ("parent_tid", "i32"), ("parent_pid", "i32"),
        ("child_comm", "c16"), ("child_tid", "i32"), ("child_pid", "i32")]),
    ("sched_process_exec", [("filename", "s"), ("tid", "i32"), ("old_tid", "i32")]),
    ("block_rq_insert", [
        ("dev", "u32"), ("sector", "u64"), ("nr_sector", "u32"), ("bytes", "u32"),
        ("tid", "i32"), ("rwbs", "u32"), ("comm", "c16")]),
    ("block_rq_issue", [
        ("dev", "u32"), ("sector", "u64"), ("nr_sector", "u32"), ("bytes", "u32"),
        ("tid", "i32"), ("rwbs", "u32"), ("comm", "c16")]),
    ("block_rq_complete", [
        ("dev", "u32"), ("sector", "u64"), ("nr_sector", "u32"), ("error", "i32"),
        ("rwbs", "u32")]),
    ("block_bio_remap", [
        ("dev", "u32"), ("sector", "u64"), ("nr_sector", "u32"), ("rwbs", "u32"),
        ("old_dev", "u32"), ("old_sector", "u64")]),
    ("block_bio_backmerge", [
        ("dev", "u32"), ("sector", "u64"), ("nr_sector", "u32"), ("rwbs", "u32"),
        ("tid", "i32"), ("comm", "c16")]),
    ("netif_receive_skb", [("skbaddr", "x64"), ("len", "u32"), ("name", "s")]),
    ("net_dev_xmit", [("skbaddr", "x64"), ("rc", "i32"), ("len", "u32"), ("name", "s")]),
    ("syscall_entry_open", [("filename", "s"), ("flags", "i32"), ("mode", "u16")]),
    ("syscall_entry_openat", [("dfd", "i32"), ("filename", "s"), ("flags", "i32"), ("mode", "u16")]),
    ("syscall_entry_close", [("fd", "u32")]),
    ("syscall_entry_read", [("fd", "u32"), ("count", "u64")]),
    ("syscall_entry_write", [("fd", "u32"), ("buf", "x64"), ("count", "u64")]),
    ("syscall_entry_pread64", [("fd", "u32"), ("count", "u64"), ("pos", "i64")]),
    ("syscall_entry_pwrite64", [("fd", "u32"), ("buf", "x64"), ("count", "u64"), ("pos", "i64")]),
    ("syscall_entry_readv", [("fd", "u64"), ("vlen", "u64")]),
    ("syscall_entry_writev", [("fd", "u64"), ("vec", "x64"), ("vlen", "u64")]),
    ("syscall_entry_recvmsg", [("fd", "i32"), ("flags", "u32")]),
    ("syscall_entry_sendmsg", [("fd", "i32"), ("msg", "x64"), ("flags", "u32")]),
    ("syscall_entry_recvfrom", [("fd", "i32"), ("size", "u64"), ("flags", "u32")]),
    ("syscall_entry_sendto", [("fd", "i32"), ("buff", "x64"), ("len", "u64"), ("flags", "u32")]),
    ("syscall_entry_fsync", [("fd", "u32")]),
    ("syscall_entry_fdatasync", [("fd", "u32")]),
    ("syscall_entry_sync", []),
    ("syscall_entry_sync_file_range", [
        ("fd", "i32"), ("offset", "i64"), ("nbytes", "i64"), ("flags", "u32")]),
    ("syscall_entry_dup2", [("oldfd", "u32"), ("newfd", "u32")]),
    ("syscall_entry_fcntl", [("fd", "u32"), ("cmd", "u32"), ("arg", "u64")]),
    ("syscall_entry_socket", [("family", "i32"), ("type", "i32"), ("protocol", "i32")]),
    ("syscall_entry_connect", [
        ("fd", "i32"), ("uservaddr", "x64"), ("addrlen", "i32"), ("family", "i32"),
        ("dport", "be16"), ("v4addr", "a4"), ("v6addr", "a8be16")]),
    ("syscall_entry_splice", [
        ("fd_in", "i32"), ("off_in", "x64"), ("fd_out", "i32"), ("off_out", "x64"),
        ("len", "u64"), ("flags", "u32")]),
    ("syscall_entry_nanosleep", [("rqtp", "x64")]),
    ("syscall_entry_getpid", []),
]
EXIT_EXTRA = {"read": [("buf", "x64")], "pread64": [("buf", "x64")], "readv": [("vec", "x64")],
              "recvmsg": [("msg", "x64")], "recvfrom": [("ubuf", "x64")],
              "nanosleep": [("rmtp", "x64")]}
for _name, _ in list(EVENTS):
    if _name.startswith("syscall_entry_"):
        s = _name[len("syscall_entry_"):]
        EVENTS.append(("syscall_exit_" + s, [("ret", "i64")] + EXIT_EXTRA.get(s, [])))
EVENT_ID = {name: i for i, (name, _) in enumerate(EVENTS)}
FIELDS = dict(EVENTS)

METADATA_HEAD = """/* CTF 1.8 */

typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 16; align = 8; signed = false; } := uint16_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
typealias integer { size = 64; align = 8; signed = false; } := unsigned long;
typealias integer { size = 5; align = 1; signed = false; } := uint5_t;
typealias integer { size = 27; align = 1; signed = false; } := uint27_t;

trace {
	major = 1;
	minor = 8;
	uuid = "5f0e1c2a-93b4-4d6e-8a1b-2c3d4e5f6a7b";
	byte_order = le;
	packet.header := struct {
		uint32_t magic;
		uint8_t  uuid[16];
		uint32_t stream_id;
		uint64_t stream_instance_id;
	};
};

env {
	hostname = "iohost";
	domain = "kernel";
	sysname = "Linux";
	kernel_release = "4.9.0-io";
	kernel_version = "#1 SMP Debian 4.9.0";
	tracer_name = "lttng-modules";
	tracer_major = 2;
	tracer_minor = 10;
	tracer_patchlevel = 10;
};

clock {
	name = "monotonic";
	uuid = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9";
	description = "Monotonic Clock";
	freq = 1000000000; /* Frequency, in Hz */
	/* clock value offset from Epoch is: offset * (1/freq) */
	offset = %d;
};

typealias integer {
	size = 27; align = 1; signed = false;
	map = clock.monotonic.value;
} := uint27_clock_monotonic_t;

typealias integer {
	size = 32; align = 8; signed = false;
	map = clock.monotonic.value;
} := uint32_clock_monotonic_t;

typealias integer {
	size = 64; align = 8; signed = false;
	map = clock.monotonic.value;
} := uint64_clock_monotonic_t;

struct packet_context {
	uint64_clock_monotonic_t timestamp_begin;
	uint64_clock_monotonic_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
	uint64_t packet_seq_num;
	unsigned long events_discarded;
	uint32_t cpu_id;
};

struct event_header_large {
	enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
	variant <id> {
		struct {
			uint32_clock_monotonic_t timestamp;
		} compact;
		struct {
			uint32_t id;
			uint64_clock_monotonic_t timestamp;
		} extended;
	} v;
} align(8);

stream {
	id = 0;
	event.header := struct event_header_large;
	packet.context := struct packet_context;
	event.context := struct {
		integer { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _pid;
	};
};
""" % CLOCK_OFFSET


def tsdl_field(name, t):
    if t == "be16":
        return ("\t\tinteger { size = 16; align = 8; signed = 0; encoding = none; base = 10; "
                "byte_order = be; } _%s;\n" % name)
    if t == "a4":
        return ("\t\tinteger { size = 8; align = 8; signed = 0; encoding = none; base = 10; } "
                "_%s[4];\n" % name)
    if t == "a8be16":
        return ("\t\tinteger { size = 16; align = 8; signed = 0; encoding = none; base = 16; "
                "byte_order = be; } _%s[8];\n" % name)
    if t == "s":
        return "\t\tstring _%s;\n" % name
    if t == "c16":
        return ("\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } "
                "_%s[16];\n" % name)
    size, signed, base = INT[t]
    return ("\t\tinteger { size = %d; align = 8; signed = %d; encoding = none; base = %d; } "
            "_%s;\n" % (size, signed, base, name))


def metadata():
    out = [METADATA_HEAD]
    for name, fields in EVENTS:
        out.append('\nevent {\n\tname = "%s";\n\tid = %d;\n\tstream_id = 0;\n' % (name, EVENT_ID[name]))
        if fields:
            out.append("\tfields := struct {\n")
            out += [tsdl_field(n, t) for n, t in fields]
            out.append("\t};\n")
        else:
            out.append("\tfields := struct { };\n")
        out.append("};\n")
    return "".join(out)


class Packet:
    """One packet of one CPU's stream: little-endian fields, byte-aligned."""

    def __init__(self):
        self.b = bytearray()

    def put(self, t, v):
        if t == "be16":
            self.b += int(v).to_bytes(2, "big")
        elif t == "a4":
            self.b += bytes(v)
        elif t == "a8be16":
            self.b += b"".join(int(x).to_bytes(2, "big") for x in v)
        elif t == "s":
            self.b += v.encode() + b"\0"
        elif t == "c16":
            self.b += v.encode()[:15].ljust(16, b"\0")
        else:
            size, signed, _ = INT[t]
            self.b += int(v).to_bytes(size // 8, "little", signed=bool(signed))

    def event(self, ts, pid, name, values):
        # every field is byte-aligned (align = 8 bits), as in lttng-modules' metadata
        self.put("u16", 65535)
        self.put("u32", EVENT_ID[name])
        self.put("u64", ts)
        self.put("i32", pid)
        for n, t in FIELDS[name]:
            self.put(t, values[n])


def write_trace(outdir, events, begin, end):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "metadata"), "w") as f:
        f.write(metadata())
    for cpu in range(CPUS):
        body = Packet()
        body.b = bytearray(84)   # header and context, written below
        for ts, c, pid, name, values in events:
            if c == cpu:
                body.event(ts, pid, name, values)
        content = len(body.b)
        size = (content + PAGE - 1) // PAGE * PAGE
        hdr = struct.pack("<I16sIQ", 0xC1FC1FC1, bytes.fromhex("5f0e1c2a93b44d6e8a1b2c3d4e5f6a7b"),
                          0, cpu)
        ctx = struct.pack("<QQQQQQI", begin, end, content * 8, size * 8, 0, 0, cpu)
        body.b[0:84] = hdr + ctx
        body.b += bytes(size - content)
        with open(os.path.join(outdir, "channel0_%d" % cpu), "wb") as f:
            f.write(body.b)


# The made-up system
# tid -> (pid, comm, prio)
TASKS = {
    1: (1, "systemd", 20), 120: (120, "bash", 20), 200: (200, "dd", 20), 300: (300, "nginx", 20),
    301: (300, "nginx", 20), 302: (300, "nginx", 20), 400: (400, "sshd", 20),
    500: (500, "postgres", 20), 501: (500, "postgres", 20), 600: (600, "rsync", 20),
    # not in the state dump: its pid comes from the `pid` context (a thread of 700)
    701: (700, "java", 20), 90: (90, "kworker/u8:1", 20),
    # forked by bash after the state dump: its fds, but for the close-on-exec one
    130: (130, "ls", 20),
}
DUMPED = [1, 120, 200, 300, 301, 302, 400, 500, 501, 600, 90]
DISKS = [(8 << 20 | 0, "sda"), (8 << 20 | 1, "sda1"), (8 << 20 | 2, "sda2"), (253 << 20 | 0, "dm-0")]
FILES = ["/var/log/syslog", "/etc/passwd", "/usr/lib/x86_64-linux-gnu/libc.so.6",
         "/var/lib/postgresql/base/16384/2619", "/srv/www/index.html", "/home/user/big.iso",
         "/tmp/scratch.dat", "/proc/self/maps", "/dev/null"]
# fds open before the trace (lttng_statedump_file_descriptor): pid -> {fd: name}
DUMP_FDS = {
    1: {0: "/dev/null", 1: "/dev/null", 2: "/dev/null", 7: "anon_inode:[eventfd]"},
    120: {0: "/dev/pts/0", 1: "/dev/pts/0", 2: "/dev/pts/0", 255: "/dev/pts/0"},
    200: {0: "/dev/zero", 1: "/home/user/big.iso", 3: "pipe:[4242]"},
    300: {4: "socket:[1234]", 5: "/srv/www/index.html", 6: "socket:[1240]"},
    400: {3: "socket:[777]", 4: "/dev/ptmx"},
    500: {3: "/var/lib/postgresql/base/16384/2619", 8: "socket:[888]"},
    600: {3: "/home/user/src.tar"},
}


def scenario(scale, seed=27):
    rnd = random.Random(seed)
    ev = []
    used = set()

    def stamp(t):
        while t in used:   # distinct times: no ties between CPUs
            t += 1
        used.add(t)
        return t

    def add(t, cpu, who, evname, **v):
        t = stamp(t)
        ev.append((t, cpu, TASKS[who][0] if who in TASKS else who, evname, v))
        return t

    t0 = 1000000
    # the state dump, on CPU 0
    t = add(t0, 0, 0, "lttng_statedump_start")
    for dev, name in DISKS:
        t = add(t + 700, 0, 0, "lttng_statedump_block_device", dev=dev, diskname=name)
    for tid in DUMPED:
        pid, comm, _ = TASKS[tid]
        t = add(t + 900, 0, 0, "lttng_statedump_process_state", tid=tid, vtid=tid, pid=pid,
                vpid=pid, ppid=1, vppid=1, name=comm, type=0, mode=0, submode=0, status=2,
                ns_level=0)
    for pid, fds in DUMP_FDS.items():
        for fd, name in fds.items():
            t = add(t + 500, 0, 0, "lttng_statedump_file_descriptor", pid=pid, fd=fd,
                    flags=0o2000000 if fd == 255 else 0o2, fmode=0x1f, filename=name)
    t = add(t + 800, 0, 0, "lttng_statedump_end")
    t = add(t + 3000, 0, 120, "sched_process_fork", parent_comm="bash", parent_tid=120,
            parent_pid=120, child_comm="bash", child_tid=130, child_pid=130)
    t = add(t + 2000, 1, 130, "sched_process_exec", filename="/bin/ls", tid=130, old_tid=130)

    runnable = [1, 120, 130, 200, 300, 301, 302, 400, 500, 501, 600, 701, 90]
    cur = {c: 0 for c in range(CPUS)}
    clock = {c: t + 10000 + c * 1777 for c in range(CPUS)}
    fds = {p: dict(f) for p, f in DUMP_FDS.items()}
    fds[700] = {}
    fds[130] = {k: v for k, v in DUMP_FDS[120].items() if k != 255}
    pending_block = []        # (complete_time, cpu, fields) of requests issued
    sector = {d: 1000 * (i + 1) for i, (d, _) in enumerate(DISKS)}

    def switch(cpu, tid):
        prev = cur[cpu]
        pc = TASKS[prev][1] if prev else "swapper/%d" % cpu
        nc = TASKS[tid][1] if tid else "swapper/%d" % cpu
        clock[cpu] = add(clock[cpu] + rnd.randint(500, 3000), cpu, prev, "sched_switch",
                         prev_comm=pc, prev_tid=prev, prev_prio=20, prev_state=1,
                         next_comm=nc, next_tid=tid, next_prio=20)
        cur[cpu] = tid

    def syscall(cpu, tid, name, entry, ret, lat, extra_exit=None):
        pid = TASKS[tid][0]
        clock[cpu] = add(clock[cpu] + rnd.randint(200, 2000), cpu, tid, "syscall_entry_" + name,
                         **entry)
        fields = {"ret": ret}
        for n, _ in FIELDS["syscall_exit_" + name][1:]:
            fields[n] = 0x7ffd0000 + rnd.randint(0, 0xffff)
        # some I/O happens during the call
        if extra_exit:
            extra_exit(cpu, clock[cpu] + lat // 2)
        clock[cpu] = add(clock[cpu] + lat, cpu, tid, "syscall_exit_" + name, **fields)
        return pid

    def block(cpu, t_issue, tid, write, nr, dev_i=None, complete=True, remap=False):
        dev, _ = DISKS[dev_i if dev_i is not None else rnd.randrange(len(DISKS))]
        s = sector[dev]
        sector[dev] += nr + rnd.randint(0, 64)
        rwbs = (1 if write else 0) | (rnd.choice([0, 8, 16]))
        comm = TASKS.get(tid, (0, "swapper"))[1]
        if remap:
            # dm-0 remapped to sda2
            add(t_issue - 300, cpu, tid, "block_bio_remap", dev=DISKS[2][0], sector=s + 5000,
                nr_sector=nr, rwbs=rwbs, old_dev=dev, old_sector=s)
            dev, s = DISKS[2][0], s + 5000
        add(t_issue - 150, cpu, tid, "block_rq_insert", dev=dev, sector=s, nr_sector=nr,
            bytes=nr * 512, tid=tid, rwbs=rwbs, comm=comm)
        add(t_issue, cpu, tid, "block_rq_issue", dev=dev, sector=s, nr_sector=nr, bytes=nr * 512,
            tid=tid, rwbs=rwbs, comm=comm)
        if complete:
            pending_block.append((t_issue + rnd.randint(20000, 4000000), rnd.randrange(CPUS),
                                  dict(dev=dev, sector=s, nr_sector=nr, error=0, rwbs=rwbs)))

    n_rounds = 160 * scale
    for rnd_i in range(n_rounds):
        cpu = rnd_i % CPUS
        tid = rnd.choice(runnable)
        # a task runs on one CPU at a time
        while tid in cur.values() and cur[cpu] != tid:
            tid = rnd.choice(runnable)
        clock[cpu] += rnd.randint(0, 150000)
        if cur[cpu] != tid:
            switch(cpu, tid)
        pid = TASKS[tid][0]
        pfds = fds.setdefault(pid, {})
        for _ in range(rnd.randint(2, 7)):
            kind = rnd.random()
            lat = int(rnd.lognormvariate(9, 1.3)) + 300
            if kind < 0.12:
                # open / openat, sometimes failing
                path = rnd.choice(FILES)
                fail = rnd.random() < 0.15
                fd = next(i for i in itertools.count(3) if i not in pfds)
                name = rnd.choice(["open", "openat"])
                entry = {"filename": path, "flags": rnd.choice([0, 0o2000000, 0o101]), "mode": 0o644}
                if name == "openat":
                    entry["dfd"] = -100
                syscall(cpu, tid, name, entry, -2 if fail else fd, lat)
                if not fail:
                    pfds[fd] = path
            elif kind < 0.20 and len(pfds) > 3:
                fd = rnd.choice(sorted(pfds))
                fail = rnd.random() < 0.1
                if fail:
                    fd = 90 + rnd.randint(0, 5)
                syscall(cpu, tid, "close", {"fd": fd}, -9 if fail else 0, lat // 3)
                if not fail:
                    del pfds[fd]
            elif kind < 0.60:
                # reads and writes, on known fds or (now and then) unknown ones
                name = rnd.choice(["read", "write", "pread64", "pwrite64", "readv", "writev",
                                   "recvmsg", "sendmsg", "recvfrom", "sendto"])
                fd = rnd.choice(sorted(pfds)) if pfds and rnd.random() < 0.9 else rnd.randint(10, 20)
                size = rnd.choice([1, 64, 512, 4096, 8192, 65536, 131072, 1 << 20, 3000, 77])
                entry = {"fd": fd}
                for n, ty in FIELDS["syscall_entry_" + name]:
                    if n in ("count", "len", "size", "nbytes"):
                        entry[n] = size
                    elif n == "vlen":
                        entry[n] = rnd.randint(1, 8)
                    elif n not in entry:
                        entry[n] = rnd.randint(0, 1 << 20) if ty != "u32" else 0
                r = rnd.random()
                ret = -11 if r < 0.08 else size if r < 0.7 else rnd.randint(0, size)
                extra = None
                if name in ("write", "pwrite64", "sendmsg", "sendto", "writev") and rnd.random() < 0.3:
                    def extra(c, tt, size=size):
                        add(tt, c, tid, "net_dev_xmit", skbaddr=0xffff880012340000 + tt % 4096,
                            rc=0, len=min(size, 1514) + 66, name=rnd.choice(["eth0", "wlan0"]))
                if name in ("write", "pwrite64", "writev") and rnd.random() < 0.3:
                    def extra(c, tt, nr=max(1, size // 512)):
                        block(c, tt, tid, True, min(nr, 2048))
                syscall(cpu, tid, name, entry, ret, lat, extra)
            elif kind < 0.70:
                name = rnd.choice(["fsync", "fdatasync", "sync", "sync_file_range"])
                entry = {}
                if name != "sync":
                    entry["fd"] = rnd.choice(sorted(pfds)) if pfds else 3
                if name == "sync_file_range":
                    entry.update(offset=0, nbytes=rnd.choice([0, 4096, 1 << 20]), flags=2)

                def extra(c, tt):
                    block(c, tt, tid, True, rnd.choice([8, 64, 256]), remap=rnd.random() < 0.3)
                syscall(cpu, tid, name, entry, 0 if rnd.random() < 0.9 else -5, lat * 10, extra)
            elif kind < 0.76:
                # dup2 over an open fd, fcntl(F_DUPFD) and fcntl(F_GETFL)
                if pfds and rnd.random() < 0.5:
                    old = rnd.choice(sorted(pfds))
                    new = rnd.choice([1, 2, 9, 33])
                    syscall(cpu, tid, "dup2", {"oldfd": old, "newfd": new}, new, lat // 4)
                    pfds[new] = pfds[old]
                else:
                    old = rnd.choice(sorted(pfds)) if pfds else 5
                    cmd = rnd.choice([0, 3])
                    new = next(i for i in itertools.count(10) if i not in pfds)
                    syscall(cpu, tid, "fcntl", {"fd": old, "cmd": cmd, "arg": 10},
                            new if cmd == 0 else 2, lat // 4)
                    if cmd == 0 and old in pfds:
                        pfds[new] = pfds[old]
            elif kind < 0.80:
                fd = next(i for i in itertools.count(3) if i not in pfds)
                fam = rnd.choice([2, 10, 1])
                syscall(cpu, tid, "socket", {"family": fam, "type": 1, "protocol": 0}, fd, lat // 2)
                pfds[fd] = "socket"
                if fam != 1 and rnd.random() < 0.7:
                    # connect(): lttng-analyses names an AF_INET socket after its peer
                    syscall(cpu, tid, "connect", {
                        "fd": fd, "uservaddr": 0x7ffd4000, "addrlen": 16, "family": fam,
                        "dport": rnd.choice([80, 443, 5432]), "v4addr": [10, 0, 0, rnd.randint(1, 9)],
                        "v6addr": [0] * 8}, 0 if rnd.random() < 0.9 else -111, lat)
            elif kind < 0.83 and len(pfds) >= 2:
                a, b = rnd.sample(sorted(pfds), 2)
                n = rnd.choice([4096, 65536])
                syscall(cpu, tid, "splice", {"fd_in": a, "off_in": 0, "fd_out": b, "off_out": 0,
                                             "len": n, "flags": 0}, n, lat)
            elif kind < 0.90:
                syscall(cpu, tid, rnd.choice(["nanosleep", "getpid"]), {"rqtp": 0x7ffd1234}, 0, lat)
            else:
                # kernel work: a packet received, a readahead or writeback by a kworker
                add(clock[cpu] + 100, cpu, tid, "netif_receive_skb",
                    skbaddr=0xffff880056780000 + rnd.randint(0, 4095), len=rnd.randint(60, 1514),
                    name=rnd.choice(["eth0", "eth0", "lo", "wlan0"]))
                clock[cpu] += 200
                if rnd.random() < 0.5:
                    block(cpu, clock[cpu] + 300, rnd.choice([tid, 90, 0]), rnd.random() < 0.5,
                          rnd.choice([8, 16, 128, 1024]), complete=rnd.random() < 0.9)
                    clock[cpu] += 600
        # complete the block requests due by now
        now = min(clock.values())
        for item in sorted(p for p in pending_block if p[0] < now):
            pending_block.remove(item)
            tt, c, f = item
            add(tt, c, 0, "block_rq_complete", **f)
    # edge cases at the end: a back merge, a completion without issue, one with another size
    end = max(clock.values()) + 5000
    dev = DISKS[0][0]
    add(end, 1, 0, "block_bio_backmerge", dev=dev, sector=sector[dev], nr_sector=8, rwbs=1,
        tid=200, comm="dd")
    add(end + 100, 2, 0, "block_rq_complete", dev=dev, sector=123, nr_sector=8, error=0, rwbs=0)
    # the requests still pending: three completed with another size, two never, the others
    for i, (tt, c, f) in enumerate(sorted(pending_block)):
        if i < 3:
            f = dict(f, nr_sector=f["nr_sector"] + 1)
        if i not in (3, 4):
            add(max(tt, end + 200 + i * 1000), c, 0, "block_rq_complete", **f)
    # a system call entered and not left, on every CPU
    for c in range(CPUS):
        if cur[c]:
            add(end + 2000 + c * 10, c, cur[c], "syscall_entry_read", fd=3, count=4096)
    ev.sort(key=lambda e: e[0])
    return ev, t0 - 500, max(e[0] for e in ev) + 100


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--scale", type=int, default=1)
    args = ap.parse_args()
    events, begin, end = scenario(args.scale)
    write_trace(args.outdir, events, begin, end)


if __name__ == "__main__":
    main()
