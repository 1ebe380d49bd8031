"""-o perfetto: the protobuf trace decoded by Debian's protoc and compared with -o json.

Each output is decoded with `protoc --decode=perfetto.protos.Trace` and the
project's tests/data/perfetto/tracemux_perfetto.proto (Perfetto's field
numbers, exactly the messages tracemux writes).  Checks, per trace:

Kernel traces (trace.dat, CTF with env domain "kernel"):
- every FtraceEvent has a timestamp and a pid, and exactly one payload;
- per CPU, timestamps never go back across bundles, and the events of each
  CPU, in order, are the JSON output's events of that CPU (count, class,
  time): a typed payload where PERFETTO.md lists one for the class, else a
  generic event whose id has its descriptor in the same bundle and whose
  descriptor names the class;
- typed payload values equal the JSON values (LTTng names mapped:
  prev_tid -> prev_pid..., LTTng priorities below 100 plus 100, LTTng
  syscall_entry_NAME's id is NAME's number in asm/unistd_64.h and its args
  the integer fields);
- the pid is trace.dat's (and perf's) common_pid; LTTng's tid context, a
  sched_switch's prev_tid, else the next_tid of the CPU's last sched_switch;
- generic fields, named by the descriptor, equal the JSON payload's
  (structures dotted; arrays, variants... as their JSON text);
- at least one SystemInfo with a utsname.

User-space traces (LTTng-UST, CTF 2, XRay):
- per track (thread from vpid/vtid or XRay's pid/tid, else stream), the
  sequence of track events (type, name, time) is what the JSON events give
  with the rule of the output (entries begin slices named by function, an
  exit ends the innermost open call of its function and those above it,
  other events and unmatched exits are instants named by class), slices
  never end below depth 0, every track has a descriptor first, every
  packet a trusted sequence id, instants' annotations equal the payload
  (debug annotations and the fields of the class's TrackEvent extension,
  which the test declares from the trace's ExtensionDescriptor packets to
  decode them: each described once, before its first use, as
  `debug` extending .perfetto.protos.TrackEvent in 3000..9899);
  a track event without track_uuid is on its sequence's
  TracePacketDefaults track (forgotten when the sequence's state is
  cleared);
- no packet (nor TracePacketDefaults) sets timestamp_clock_id;
- time (check_time): when the clocks count from the Unix epoch, one
  ClockSnapshot {BOOTTIME T, REALTIME T + R}, primary clock BOOTTIME, T + R
  the first event's epoch ns, R the least epoch offset of the traces'
  clocks (from -o json's ts_ns and cycles), and every time written (track
  events, descriptors, process trees, FtraceEvents) an event's epoch ns less
  that R, never below 0 (undoing the rebase fails); else (trace.dat) no
  snapshot and the times of -o json.

Also: a class whose signed values are positive in some events and negative
in others uses both its extensions (sint64, int64; make-kernel.py --ust);
two such traces with clocks of different epoch offsets merged share one R;
concatenated outputs name each extension file by its number and content
hash, never give one name or one number to two contents, and an output
gives the same descriptors again.

Also: --jobs 1, 2 and 4 give the same bytes (kernel, kernel + UST, UST:
formatted per stream on the workers; XRay, one unit for the runner, which
-o perfetto does not split; --jobs-only runs just that, under
ThreadSanitizer); --events, --filter and --begin/--end give
the events of -o json with the same options; a damaged LTTng kernel trace
fails (exit 1) and its output decodes, holding every event -o json printed
before the error, the same with any --jobs.

protoc comes from Debian's protobuf-compiler (scripts/install-deps.sh).
Default: a quick set (about 30 s); --all: every trace.dat and LTTng trace
of the corpus.
"""
import argparse
import codecs
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from bt2ref import Report, run

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "data", "perfetto")
PROTO = os.path.join(PROTO_DIR, "tracemux_perfetto.proto")
UNISTD = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"

QUICK = [
    "tracecmd-samples/sched-v6.dat",
    "tracecmd-samples/sched-v7-zstd.dat",
    "tracecmd-samples/multibuf-v7-zstd.dat",
    "tracecmd-samples/clock-mono-v7-zstd.dat",
    "tracecmd-3.4/t1_v7_zstd.dat",
    "tracecmd-external/wsdias_trace_0d40fd58.dat",
    "tracecmd-external/kinmax_tracing_trace.192.168.1.10_52046_cc1f2b4f.dat",
    "tracecompass/tc-bug446190",
    "tracecompass/tc-perf-taskset2",
    "tracecompass-ctf2/tc-bug446190",
    "tracecompass-ctf2/tc-perf-taskset2",
    "babeltrace-tests/ctf-traces/succeed/multi-domains",
    "tracecompass/tc-cyg-profile_glxgears-cyg-profile",
    "tracecompass/tc-context-switches_context-switches-ust",
    "tracecompass-ctf2/tc-debuginfo-test-app3",
    "xray-samples/fdr-v5-small.xray",
    "xray-samples/basic-v3-small.xray",
    "xray-samples/fdr-v5-tinybuf-dropped.xray",
]

# PERFETTO.md's typed payloads: event name (ftrace's, then lttng-modules')
# -> (payload, {payload field: (JSON names, kind)}).
WAKEUP = {"comm": (["comm"], "str"), "pid": (["pid", "tid"], "int"),
          "prio": (["prio"], "prio"), "success": (["success"], "int"),
          "target_cpu": (["target_cpu"], "int")}
TYPED = {
    "sched_switch": ("sched_switch", {
        "prev_comm": (["prev_comm"], "str"), "prev_pid": (["prev_pid", "prev_tid"], "int"),
        "prev_prio": (["prev_prio"], "prio"), "prev_state": (["prev_state"], "int"),
        "next_comm": (["next_comm"], "str"), "next_pid": (["next_pid", "next_tid"], "int"),
        "next_prio": (["next_prio"], "prio")}),
    "sched_waking": ("sched_waking", WAKEUP),
    "sched_wakeup": ("sched_wakeup", WAKEUP),
    "sched_wakeup_new": ("sched_wakeup_new", WAKEUP),
    "sched_process_exec": ("sched_process_exec", {
        "filename": (["filename"], "str"), "pid": (["pid", "tid"], "int"),
        "old_pid": (["old_pid", "old_tid"], "int")}),
    "sched_process_exit": ("sched_process_exit", {
        "comm": (["comm"], "str"), "pid": (["pid", "tid"], "int"), "tgid": (["tgid"], "int"),
        "prio": (["prio"], "prio")}),
    "sched_process_fork": ("sched_process_fork", {
        "parent_comm": (["parent_comm"], "str"),
        "parent_pid": (["parent_tid", "parent_pid"], "int"),
        "child_comm": (["child_comm"], "str"), "child_pid": (["child_tid", "child_pid"], "int")}),
    "sched_process_free": ("sched_process_free", {
        "comm": (["comm"], "str"), "pid": (["pid", "tid"], "int"), "prio": (["prio"], "prio")}),
    "sched_migrate_task": ("sched_migrate_task", {
        "comm": (["comm"], "str"), "pid": (["pid", "tid"], "int"), "prio": (["prio"], "prio"),
        "orig_cpu": (["orig_cpu"], "int"), "dest_cpu": (["dest_cpu"], "int")}),
    "task_newtask": ("task_newtask", {
        "pid": (["pid", "tid"], "int"), "comm": (["comm"], "str"),
        "clone_flags": (["clone_flags"], "int"), "oom_score_adj": (["oom_score_adj"], "int")}),
    "task_rename": ("task_rename", {
        "pid": (["pid", "tid"], "int"), "oldcomm": (["oldcomm"], "str"),
        "newcomm": (["newcomm"], "str"), "oom_score_adj": (["oom_score_adj"], "int")}),
    "cpu_frequency": ("cpu_frequency", {"state": (["state"], "int"), "cpu_id": (["cpu_id"], "int")}),
    "cpu_idle": ("cpu_idle", {"state": (["state"], "int"), "cpu_id": (["cpu_id"], "int")}),
    "irq_handler_entry": ("irq_handler_entry", {
        "irq": (["irq"], "int"), "name": (["name"], "str"), "handler": (["handler"], "int")}),
    "irq_handler_exit": ("irq_handler_exit", {"irq": (["irq"], "int"), "ret": (["ret"], "int")}),
    "softirq_entry": ("softirq_entry", {"vec": (["vec"], "int")}),
    "softirq_exit": ("softirq_exit", {"vec": (["vec"], "int")}),
    "softirq_raise": ("softirq_raise", {"vec": (["vec"], "int")}),
    "workqueue_execute_start": ("workqueue_execute_start", {
        "work": (["work"], "int"), "function": (["function"], "int")}),
    "workqueue_execute_end": ("workqueue_execute_end", {
        "work": (["work"], "int"), "function": (["function"], "int")}),
    "sys_enter": ("sys_enter", {"id": (["id"], "int"), "args": (["args"], "args")}),
    "sys_exit": ("sys_exit", {"id": (["id"], "int"), "ret": (["ret"], "int")}),
    "print": ("print", {"ip": (["ip"], "int"), "buf": (["buf"], "str")}),
}
LTTNG_ALIASES = {
    "power_cpu_frequency": "cpu_frequency", "power_cpu_idle": "cpu_idle",
    "irq_softirq_entry": "softirq_entry", "irq_softirq_exit": "softirq_exit",
    "irq_softirq_raise": "softirq_raise",
    "syscall_entry_unknown": "sys_enter", "syscall_exit_unknown": "sys_exit",
}
INT32 = {"pid", "prev_pid", "next_pid", "prio", "prev_prio", "next_prio", "success",
         "target_cpu", "old_pid", "tgid", "parent_pid", "child_pid", "orig_cpu", "dest_cpu",
         "oom_score_adj", "irq", "ret_irq"}
UINT32 = {"state", "cpu_id", "vec", "handler"}


def syscall_numbers():
    nr = {}
    with open(UNISTD) as f:
        for line in f:
            m = re.match(r"#define __NR_(\w+)\s+(\d+)", line)
            if m:
                nr[m.group(1)] = int(m.group(2))
    return nr


# ---- protoc's text format, parsed into nested lists of (key, value) ----

def parse_text(text):
    root = []
    stack = [root]
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if s == "}":
            stack.pop()
        elif s.endswith(" {"):
            node = []
            stack[-1].append((s[:-2], node))
            stack.append(node)
        else:
            k, _, v = s.partition(": ")
            stack[-1].append((k, v))
    return root


def unq(v):
    """A protoc text string as bytes."""
    return codecs.escape_decode(v[1:-1].encode("latin-1"))[0]


def get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default


def get_all(node, key):
    return [v for k, v in node if k == key]


def pb_fields(data):
    """A serialized message's fields as (number, wire type, value) (DescriptorProto)."""
    out, i = [], 0
    while i < len(data):
        key, i = varint(data, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(data, i)
        elif wt == 2:
            n, i = varint(data, i)
            v, i = data[i:i + n], i + n
        elif wt == 1:
            v, i = data[i:i + 8], i + 8
        else:
            v, i = data[i:i + 4], i + 4
        out.append((num, wt, v))
    return out


def varint(data, i):
    v = shift = 0
    while True:
        b = data[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def descriptor(raw):
    """DescriptorProto -> (name, {number: (field name, type)})."""
    name, fields = None, {}
    for num, _, v in pb_fields(raw):
        if num == 1:
            name = v.decode()
        elif num == 2:
            f = {n: x for n, _, x in pb_fields(v)}
            fields[f[3]] = (f[1].decode(), f[5])
    return name, fields


# ---- the JSON side ----

def trace_domains(tracemux, paths):
    """trace name -> [kernel?, lttng-modules?, every clock from the Unix epoch?, the first
    clock's frequency] from `tracemux info` of the inputs `paths`."""
    rc, out, err = run(tracemux, ["info"] + paths)
    doms, cur = {}, None
    for line in out.decode("utf-8", "replace").splitlines():
        m = re.match(r'trace "(.*)"(?: \(UUID [^)]*\))?$', line)
        if m:
            cur = m.group(1)
            doms[cur] = [cur.endswith(".dat") or all(p.endswith(".dat") for p in paths), False,
                         True, None]
        elif cur is not None and line.strip() == "domain: kernel":
            doms[cur][0] = True
        elif cur is not None and line.strip() == "tracer_name: lttng-modules":
            doms[cur][1] = True
        elif cur is not None and (m := re.match(r"  clock .*: (\d+) Hz(.*)$", line)):
            doms[cur][2] = doms[cur][2] and m.group(2) == ", origin: Unix epoch"
            if doms[cur][3] is None:
                doms[cur][3] = int(m.group(1))
    for d in doms.values():
        d[2] = d[2] and d[3] is not None
    return doms


def json_events(tracemux, argv):
    rc, out, err = run(tracemux, ["-o", "json"] + argv)
    evs = [json.loads(l) for l in out.decode().splitlines() if l.startswith('{"type":"event"')]
    return rc, evs


def short(name):
    return name.rsplit(":", 1)[-1]


def typed_row(name, lttng):
    s = short(name)
    if lttng and s in LTTNG_ALIASES:
        s = LTTNG_ALIASES[s]
    if s == "print" and ":" in name and not name.startswith("ftrace:"):
        return None
    return TYPED.get(s)


def atrace(buf):
    return len(buf) >= 3 and buf[0] in "BECSFI" and buf[1] == "|" and buf[2].isdigit()


def json_cpu(e):
    pc = e.get("packet_context") or {}
    if isinstance(pc.get("cpu_id"), int):
        return min(pc["cpu_id"], 1023)
    pl = e.get("payload") or {}
    if isinstance(pl.get("perf_cpu"), int):
        return pl["perf_cpu"]
    return 0


def as_int(v):
    if isinstance(v, dict) and "value" in v and "labels" in v:   # an enumeration
        v = v["value"]
    if isinstance(v, bool):
        return int(v)
    return v


def leaves(v, prefix=""):
    """JSON payload leaves as the output flattens them."""
    if isinstance(v, dict) and not ("value" in v and "labels" in v) and "option" not in v:
        for k, x in v.items():
            yield from leaves(x, f"{prefix}.{k}" if prefix else k)
    else:
        yield prefix or "value", v


def expected_kernel(e, lttng, nr):
    """(payload key, checks) for a JSON kernel event: typed name or generic short name."""
    pl = e.get("payload") or {}
    row = typed_row(e["name"], lttng)
    s = short(e["name"])
    if lttng and row is None:
        for pre, kind in (("syscall_entry_", "sys_enter"), ("syscall_exit_", "sys_exit")):
            if s.startswith(pre):
                n = s[len(pre):]
                num = nr.get(n, nr.get(n[3:]) if n.startswith("new") else None)
                if num is not None:
                    return kind, ("syscall", num)
    if row and row[0] == "print" and not atrace(pl.get("buf", "")):
        row = None
    if row and row[0].startswith("softirq_") and not 0 <= as_int(pl.get("vec", -1)) < 10:
        row = None   # Perfetto's importer takes vectors below 10 only
    if row:
        return row[0], ("typed", row[1])
    return s, ("generic",)


def tc_int(v, bits=64, signed=True):
    m = 1 << bits
    v %= m
    return v - m if signed and v >= m // 2 else v


# ---- the checks ----

class Checker:
    def __init__(self, rep, tracemux, nr):
        self.rep, self.tracemux, self.nr = rep, tracemux, nr
        self.named = 0   # threads named from saved_cmdlines (check_task_names)
        self.no_reference = []   # trace.dat files trace-cmd dump cannot read

    def decode(self, data, what, errs=None):
        """The trace as parse_text's lists; with `errs`, its TrackEvent extensions declared
        from its ExtensionDescriptor packets (extensions()) and decoded by name."""
        p = subprocess.run(["protoc", f"--proto_path={PROTO_DIR}",
                            "--decode=perfetto.protos.Trace", PROTO],
                           input=data, capture_output=True)
        if p.returncode:
            self.rep.fail(f"{what}: protoc --decode", p.stderr.decode()[:2000])
            return None
        root = parse_text(p.stdout.decode("utf-8", "replace"))
        self.exts = {}
        if errs is None:
            return root
        self.exts, text = extensions(root, errs)
        if not self.exts:
            return root
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "tracemux_ext.proto"), "w") as f:
                f.write(text)
            p = subprocess.run(["protoc", f"--proto_path={PROTO_DIR}", f"--proto_path={tmp}",
                                "--decode=perfetto.protos.Trace", "tracemux_ext.proto"],
                               input=data, capture_output=True)
        if p.returncode:
            self.rep.fail(f"{what}: protoc --decode with the trace's extensions",
                          p.stderr.decode()[:2000] + "\n" + text[:2000])
            return None
        return parse_text(p.stdout.decode("utf-8", "replace"))

    def check(self, path, extra=(), what=None):
        what = what or path
        rc, out, err = run(self.tracemux, ["-o", "perfetto"] + list(extra) + [path])
        jrc, evs = json_events(self.tracemux, list(extra) + [path])
        if rc != jrc:
            self.rep.fail(f"{what}: exit status {rc}, -o json {jrc}", err.decode()[:500])
            return None
        errs = []
        root = self.decode(out, what, errs)
        if root is None:
            return None
        # the traces of every input (others may be in `extra`)
        doms = trace_domains(self.tracemux, [x for x in extra if os.path.isdir(x)] + [path])
        kern = [e for e in evs if doms.get(e["trace"], [False])[0]]
        user = [e for e in evs if not doms.get(e["trace"], [False])[0]]
        self.shift = self.check_time(root, evs, doms, errs)
        # PERFETTO.md: one time domain, no timestamp_clock_id anywhere
        for _, pkt in root:
            tpd = get(pkt, "trace_packet_defaults")
            if get(pkt, "timestamp_clock_id") is not None or (
                    tpd is not None and get(tpd, "timestamp_clock_id") is not None):
                errs.append("a packet sets timestamp_clock_id")
                break
        self.check_kernel(root, kern, doms, errs)
        if path.endswith(".dat"):
            self.check_task_names(path, root, kern, errs)
        self.check_user(root, user, errs)
        if errs:
            self.rep.fail(what, "\n".join(errs[:15]))
        else:
            self.rep.ok()
        return out

    @staticmethod
    def check_time(root, evs, doms, errs):
        """The time domain: when the clocks count from the Unix epoch, every time written
        is the event's epoch ns less one R for the whole output, the least epoch offset of
        the traces' clocks (the tracers' own values: for LTTng, ns since boot), and one
        ClockSnapshot {BOOTTIME T, REALTIME T + R} (primary clock BOOTTIME) says R, T being
        the first event's time (the first that has one); else (trace.dat...) no snapshot and
        the model's ns.  Each
        trace's offset comes from -o json's ts_ns and cycles (ts_ns = offset +
        cycles * 1e9 / frequency).  Returns R, which maps the written times to -o json's."""
        snaps = [get(pkt, "clock_snapshot") for _, pkt in root
                 if get(pkt, "clock_snapshot") is not None]
        offsets = {}
        for e in evs:
            d = doms.get(e["trace"])
            if d and d[3] and "cycles" in e and "ts_ns" in e:
                c = e["cycles"] if d[3] == 10 ** 9 else int(1e9 * e["cycles"] / d[3])
                offsets.setdefault(e["trace"], set()).add(e["ts_ns"] - c)
        for t, o in offsets.items():
            if len(o) != 1:
                errs.append(f"time: trace {t}: ts_ns - cycles not constant in -o json ({sorted(o)[:3]})")
        epoch = bool(doms) and all(d[2] for d in doms.values())
        # the first event with a time (a clock beyond int64 gives none: tc-funky_trace)
        first = next((e for e in evs if "ts_ns" in e), None)
        want_snap = first is not None and doms.get(first["trace"], [0, 0, False])[2]
        want_r = 0
        if epoch and offsets and all(t in offsets for t in doms):
            want_r = max(min(min(o) for o in offsets.values()), 0)
        if len(snaps) > 1 or bool(snaps) != bool(want_snap):
            errs.append(f"time: {len(snaps)} ClockSnapshot packets, expected "
                        f"{1 if want_snap else 0}")
            return want_r
        if not snaps:
            r = 0
        else:
            cs = snaps[0]
            clocks = {int(get(c, "clock_id")): int(get(c, "timestamp"))
                      for c in get_all(cs, "clocks")}
            if set(clocks) != {1, 6} or get(cs, "primary_trace_clock") != "6":
                errs.append(f"time: ClockSnapshot {cs}: expected BOOTTIME (6) and REALTIME (1), "
                            f"primary_trace_clock 6")
                return want_r
            r = clocks[1] - clocks[6]
            if clocks[1] != max(first.get("ts_ns", 0), 0):
                errs.append(f"time: ClockSnapshot T + R = {clocks[1]}, the first event's "
                            f"epoch ns {first.get('ts_ns')}")
        if r != want_r:
            errs.append(f"time: R = REALTIME - BOOTTIME = {r}, expected the least epoch "
                        f"offset {want_r} (per trace {sorted((t, sorted(o)) for t, o in offsets.items())})")
        # every packet kind in the same domain: each time written, plus R, is an event's
        # (a descriptor's or process tree's is the time of the event that made it)
        times = {max(e.get("ts_ns", 0), 0) for e in evs}
        for _, pkt in root:
            stamps = [get(pkt, "timestamp")]
            b = get(pkt, "ftrace_events")
            if b is not None:
                stamps += [get(ev, "timestamp") for ev in get_all(b, "event")]
            for ts in stamps:
                if ts is None:
                    continue
                ts = int(ts)
                if ts >= 1 << 63:
                    errs.append(f"time: timestamp {ts} underflowed")
                elif ts + r not in times:
                    errs.append(f"time: timestamp {ts} + R {r} is no event's time "
                                f"({sorted(k for k, _ in pkt)})")
                elif ts + want_r not in times:
                    errs.append(f"time: timestamp {ts} not rebased by R {want_r}")
                else:
                    continue
                return r
        return r

    # kernel

    def check_kernel(self, root, kern, doms, errs):
        per_cpu = {}
        for e in kern:
            per_cpu.setdefault(json_cpu(e), []).append(e)
        got, last = {}, {}
        has_uts = False
        for _, pkt in root:
            si = get(pkt, "system_info")
            if si is not None and get(si, "utsname") is not None:
                has_uts = True
            b = get(pkt, "ftrace_events")
            if b is None:
                continue
            cpu = int(get(b, "cpu", "-1"))
            descs = {}
            for d in get_all(b, "generic_event_descriptors"):
                descs[int(get(d, "field_id"))] = descriptor(unq(get(d, "event_descriptor")))
            for ev in get_all(b, "event"):
                ts, pid = get(ev, "timestamp"), get(ev, "pid")
                payload = [(k, v) for k, v in ev if k not in ("timestamp", "pid")]
                if ts is None or pid is None or len(payload) != 1:
                    errs.append(f"cpu {cpu}: event without timestamp/pid/one payload: {ev}")
                    continue
                ts = int(ts) + self.shift
                if ts < last.get(cpu, 0):
                    errs.append(f"cpu {cpu}: time goes back to {ts}")
                last[cpu] = ts
                k, v = payload[0]
                if k.isdigit():
                    if int(k) not in descs:
                        errs.append(f"cpu {cpu}: generic id {k} without its descriptor")
                        continue
                    got.setdefault(cpu, []).append((descs[int(k)][0], ts, int(pid), v,
                                                    descs[int(k)][1]))
                else:
                    got.setdefault(cpu, []).append((k, ts, int(pid), v, None))
        if kern and not has_uts:
            errs.append("no SystemInfo utsname")
        self.check_tree(root, kern, doms, errs)
        for cpu in sorted(set(per_cpu) | set(got)):
            je, pe = per_cpu.get(cpu, []), got.get(cpu, [])
            if len(je) != len(pe):
                cj, cp = {}, {}
                for e in je:
                    cj[e["name"]] = cj.get(e["name"], 0) + 1
                for p in pe:
                    cp[p[0]] = cp.get(p[0], 0) + 1
                errs.append(f"cpu {cpu}: {len(pe)} events, -o json {len(je)} "
                            f"(json {sorted(cj.items())[:8]}, perfetto {sorted(cp.items())[:8]})")
                continue
            cur = None   # LTTng: the task the last sched_switch put on this CPU
            for e, p in zip(je, pe):
                lttng = doms[e["trace"]][1]
                self.compare_kernel(cpu, e, p, lttng, errs)
                if lttng:
                    cur = self.check_lttng_pid(cpu, e, p[2], cur, errs)
                if len(errs) > 20:
                    return

    @staticmethod
    def check_tree(root, kern, doms, errs):
        """ProcessTree entries against -o json's forks, execs and LTTng state dumps: every
        process is one of them, its parent the forking task (or that task's process);
        ftrace's task_newtask says which forks make processes and which make threads,
        and of which process (the emitter's)."""
        procs, tgid, threads = [], {}, []
        for _, pkt in root:
            pt = get(pkt, "process_tree")
            if pt is None:
                continue
            for pr in get_all(pt, "processes"):
                procs.append((int(get(pr, "pid")), get(pr, "ppid"),
                              [unq(c).decode("utf-8", "replace") for c in get_all(pr, "cmdline")]))
            for th in get_all(pt, "threads"):
                tgid[int(get(th, "tid"))] = int(get(th, "tgid"))
                threads.append((int(get(th, "tid")), int(get(th, "tgid"))))
        parent, want = {}, {}   # child -> forking task; process pid -> (ppid, cmdline)
        jtgid, want_threads = {}, set()   # from task_newtask
        for e in kern:
            s, pl = short(e["name"]), e.get("payload") or {}
            lttng = doms[e["trace"]][1]
            emitter = (e.get("common_context") or {}).get("common_pid")
            if s == "task_newtask" and not lttng and "pid" in pl and emitter is not None:
                if pl.get("clone_flags", 0) & 0x10000:
                    if emitter in jtgid:
                        jtgid[pl["pid"]] = jtgid[emitter]
                else:
                    jtgid[pl["pid"]] = pl["pid"]
                    parent[pl["pid"]] = emitter
            if s == "sched_process_fork" and "child_pid" in pl:
                child = pl.get("child_tid", pl["child_pid"])
                parent[child] = pl.get("parent_pid")
                if lttng and pl.get("child_tid") == pl["child_pid"]:
                    want.setdefault(child, set()).add((pl.get("parent_pid"), pl.get("child_comm")))
                elif not lttng and jtgid.get(child) == child:
                    want.setdefault(child, set()).add((pl.get("parent_pid"), pl.get("child_comm")))
                elif not lttng and child in jtgid:
                    want_threads.add((child, jtgid[child]))
            elif s == "sched_process_exec" and not lttng and "pid" in pl:
                jtgid[pl["pid"]] = pl["pid"]
                want.setdefault(pl["pid"], set()).add((parent.get(pl["pid"]), pl.get("filename")))
            elif s == "lttng_statedump_process_state" and pl.get("tid") == pl.get("pid"):
                want.setdefault(pl["pid"], set()).add((pl.get("ppid"), pl.get("name")))
        seen = set()
        for pid, ppid, cmd in procs:
            ok = False
            for wp, wname in want.get(pid, ()):
                parents = {wp, tgid.get(wp)} if wp is not None else {None}
                if (None if ppid is None else int(ppid)) in parents and cmd == [wname]:
                    ok = True
            if not ok:
                errs.append(f"process tree: process {pid} (ppid {ppid}, {cmd}) matches no fork, "
                            f"exec or state dump of -o json ({sorted(want.get(pid, ()), key=str)})")
            seen.add(pid)
        for pid in want:
            if pid not in seen:
                errs.append(f"process tree: no process {pid} ({sorted(want[pid], key=str)})")
        for tid, tg in want_threads:
            if (tid, tg) not in threads:
                errs.append(f"process tree: no thread {tid} of process {tg} (task_newtask)")

    def check_task_names(self, path, root, kern, errs):
        """Thread names from saved_cmdlines, as trace-cmd 3.1.6's `trace-cmd dump --cmd-lines`
        prints them: every saved task whose process -o json's task_newtask or
        sched_process_exec make known is a thread {tid, comm, tgid}; and every thread
        name written is the task's saved comm or the child_comm of a fork of it."""
        # (some files make it fail after the cmdlines, on what follows them)
        p = subprocess.run(["trace-cmd", "dump", "--cmd-lines", path], capture_output=True)
        saved, started = {}, False
        for line in p.stdout.decode("utf-8", "surrogateescape").split("\n"):
            if line.strip().startswith("[Saved command lines"):
                started = True
                continue
            m = re.match(r"\s*(-?\d+)\s+(.*\S)", line) if started else None
            if m:
                saved[int(m.group(1))] = m.group(2)
        if not started:
            # trace-cmd 3.1.6 cannot read the file (some zlib v7 files: "cannot uncompress
            # the file"): no reference; said at the end, and the quick set must name some
            self.no_reference.append(f"{path} (trace-cmd dump: exit {p.returncode}, "
                                     f"{p.stderr.decode(errors='replace').strip()[:60]!r})")
            return
        got, forks = set(), {}
        for _, pkt in root:
            pt = get(pkt, "process_tree")
            for th in get_all(pt, "threads") if pt is not None else ():
                if get(th, "name") is not None:
                    got.add((int(get(th, "tid")),
                             unq(get(th, "name")).decode("utf-8", "surrogateescape"),
                             int(get(th, "tgid"))))
        tgid = {}
        for e in kern:
            s, pl = short(e["name"]), e.get("payload") or {}
            emitter = (e.get("common_context") or {}).get("common_pid")
            if s == "task_newtask" and "pid" in pl and emitter is not None:
                if not pl.get("clone_flags", 0) & 0x10000:
                    tgid[pl["pid"]] = pl["pid"]
                elif emitter in tgid:
                    tgid[pl["pid"]] = tgid[emitter]
            elif s == "sched_process_exec" and "pid" in pl:
                tgid[pl["pid"]] = pl["pid"]
            elif s == "sched_process_fork" and "child_pid" in pl:
                forks.setdefault(pl["child_pid"], set()).add(pl.get("child_comm"))
        for tid, comm in sorted(saved.items()):
            if tid > 0 and tid in tgid and (tid, comm, tgid[tid]) not in got:
                errs.append(f"task names: no thread {{tid {tid}, name {comm!r}, tgid {tgid[tid]}}} "
                            f"(saved_cmdlines)")
            elif tid > 0 and tid in tgid:
                self.named += 1
        for tid, name, _ in got:
            if name != saved.get(tid) and name not in forks.get(tid, ()):
                errs.append(f"task names: thread {tid} named {name!r}: neither its saved "
                            f"comm {saved.get(tid)!r} nor a fork's child_comm")

    @staticmethod
    def check_lttng_pid(cpu, e, pid, cur, errs):
        """An LTTng event's pid: its tid context, a switch's prev_tid, else the CPU's
        task after its last sched_switch (not checked before the first one)."""
        ctx = dict(e.get("common_context") or {}, **(e.get("specific_context") or {}))
        pl = e.get("payload") or {}
        switch = short(e["name"]) == "sched_switch"
        want = ctx.get("tid", pl.get("prev_tid") if switch else cur)
        if want is not None and pid != want:
            errs.append(f"cpu {cpu} {e['name']} at {e.get('ts_ns')}: pid {pid}, expected {want}")
        return pl.get("next_tid", cur) if switch else cur

    def compare_kernel(self, cpu, e, p, lttng, errs):
        key, checks = expected_kernel(e, lttng, self.nr)
        name, ts, pid, v, fields = p
        where = f"cpu {cpu} {e['name']} at {e.get('ts_ns')}"
        if name != key or ts != max(e.get("ts_ns", 0), 0):
            errs.append(f"{where}: perfetto has {name} at {ts}")
            return
        cc = e.get("common_context") or {}
        pl = e.get("payload") or {}
        cpid = cc.get("common_pid", pl.get("common_pid"))   # trace.dat; perf's CTF
        if cpid is not None and pid != tc_int(cpid, 32, False):
            errs.append(f"{where}: pid {pid}, common_pid {cpid}")
        if checks[0] == "syscall":
            # every argument keeps its place; what LTTng recorded instead of a
            # pointer (a path, a structure) is 0
            want_args = [as_int(x) % (1 << 64) if isinstance(as_int(x), int) else 0
                         for x in pl.values()][:6]
            if int(get(v, "id")) != checks[1]:
                errs.append(f"{where}: id {get(v, 'id')}, unistd_64.h {checks[1]}")
            if key == "sys_enter" and [int(a) for a in get_all(v, "args")] != want_args:
                errs.append(f"{where}: args {get_all(v, 'args')}, want {want_args}")
            if key == "sys_exit" and "ret" in pl and int(get(v, "ret")) != pl["ret"]:
                errs.append(f"{where}: ret {get(v, 'ret')}, want {pl['ret']}")
        elif checks[0] == "typed":
            for f, (names, kind) in checks[1].items():
                src = next((n for n in names if n in pl), None)
                if src is None:
                    continue
                want = pl[src]
                if kind == "args":
                    gotv = [int(a) for a in get_all(v, f)]
                    want = [x % (1 << 64) for x in want][:6]
                elif kind == "str":
                    gotv = get(v, f)
                    gotv = None if gotv is None else unq(gotv).decode("utf-8", "replace")
                else:
                    want = as_int(want)
                    if kind == "prio" and lttng and want < 100:
                        want += 100
                    if f in INT32:
                        want = tc_int(want, 32)
                    elif f in UINT32:
                        want = tc_int(want, 32, False)
                    gotv = get(v, f)
                    gotv = None if gotv is None else int(gotv)
                if gotv != want:
                    errs.append(f"{where}: {f} = {gotv!r}, JSON {src} = {want!r}")
        else:
            self.compare_generic(where, pl, v, fields, errs)

    def compare_generic(self, where, pl, v, fields, errs):
        want = list(leaves(pl)) if pl else []
        if isinstance(v, str):   # an empty payload: `65536: ""`
            v = []
        byname = {}
        for k, x in v:
            if k.isdigit() and int(k) in fields:
                byname[fields[int(k)][0]] = (fields[int(k)][1], x)
        if len(want) > 31:
            want = want[:30]
        for name, jv in want:
            if name not in byname:
                errs.append(f"{where}: generic field {name} missing")
                continue
            typ, x = byname[name]
            if isinstance(x, list):
                continue   # a string protoc could read as a message: not compared
            jv = as_int(jv)
            if typ == 9:   # string
                s = unq(x).decode("utf-8", "replace")
                if isinstance(jv, str):
                    ok = s == jv
                else:
                    ok = json.loads(s) == jv
            elif typ == 1:   # double: fixed64 printed in hexadecimal
                d = struct.unpack("<d", struct.pack("<Q", int(x, 16)))[0]
                ok = jv is None or d == jv or abs(d - jv) <= 1e-9 * abs(jv)
            else:
                ok = int(x) == jv % (1 << 64)
            if not ok:
                errs.append(f"{where}: generic {name} = {x}, JSON {jv!r}")

    # user space

    def check_user(self, root, user, errs):
        want = {}
        stacks = {}
        for e in user:
            cc = dict(e.get("common_context") or {}, **(e.get("specific_context") or {}))
            tid = cc.get("vtid", cc.get("tid"))
            if tid is not None:
                key = ("thread", tid)
            else:
                key = ("stream", e["stream"]["name"])
            seq = want.setdefault(key, [])
            st = stacks.setdefault(key, [])
            n, pl = e["name"], e.get("payload") or {}
            ts = max(e.get("ts_ns", 0), 0)
            if n in ("function-enter", "function-enter-arg") or (
                    "cyg_profile" in n and n.endswith(":func_entry")):
                fk = pl["func_id"] if "func_id" in pl else pl["addr"]
                fname = pl.get("function", str(fk)) if "func_id" in pl else hex(fk)
                st.append(fk)
                seq.append(("begin", fname, ts))
                continue
            if n in ("function-exit", "function-tail-exit") or (
                    "cyg_profile" in n and n.endswith(":func_exit")):
                fk = pl["func_id"] if "func_id" in pl else pl["addr"]
                if fk in st:
                    d = len(st) - 1 - st[::-1].index(fk)
                    for _ in range(len(st) - d):
                        seq.append(("end", None, ts))
                    del st[d:]
                    continue
            seq.append(("instant", n, ts, pl))
        # interning is per trusted packet sequence: its state starts (and
        # starts again) at a packet with SEQ_INCREMENTAL_STATE_CLEARED, and
        # every iid used must have been defined before, on that sequence
        interned, cleared, tracks = {}, set(), {}
        defaults = {}   # sequence -> TrackEventDefaults.track_uuid (dropped with its state)
        got = {}
        depth = {}

        def lookup(seq, kind, iid, what):
            v = interned.get(seq, {}).get(kind, {}).get(iid)
            if v is None:
                errs.append(f"sequence {seq}: {what} iid {iid} used before it is defined")
            return v

        for at, (_, pkt) in enumerate(root):
            seq = get(pkt, "trusted_packet_sequence_id")
            if int(get(pkt, "sequence_flags", "0")) & 1:
                interned[seq] = {"names": {}, "da": {}, "str": {}}
                cleared.add(seq)
                defaults.pop(seq, None)
            tpd = get(pkt, "trace_packet_defaults")
            if tpd is not None:
                ted = get(tpd, "track_event_defaults")
                if ted is not None and get(ted, "track_uuid") is not None:
                    defaults[seq] = get(ted, "track_uuid")
            idata = get(pkt, "interned_data")
            if idata is not None:
                if seq not in cleared:
                    errs.append(f"sequence {seq}: interned data before the state was cleared")
                st = interned.setdefault(seq, {"names": {}, "da": {}, "str": {}})
                for kind, field, sub in (("names", "event_names", "name"),
                                         ("da", "debug_annotation_names", "name"),
                                         ("str", "debug_annotation_string_values", "str")):
                    for en in get_all(idata, field):
                        iid = int(get(en, "iid"))
                        if iid in st[kind]:
                            errs.append(f"sequence {seq}: {field} iid {iid} defined twice")
                        st[kind][iid] = unq(get(en, sub)).decode("utf-8", "replace")
            td = get(pkt, "track_descriptor")
            if td is not None:
                th = get(td, "thread")
                if th is not None:
                    tracks[get(td, "uuid")] = ("thread", int(get(th, "tid")))
                else:
                    tracks[get(td, "uuid")] = ("stream", unq(get(td, "name")).decode())
            te = get(pkt, "track_event")
            if te is None:
                continue
            if seq is None:
                errs.append("track event without trusted_packet_sequence_id")
            uuid = get(te, "track_uuid", defaults.get(seq))
            if uuid not in tracks:
                errs.append(f"track event on track {uuid} before its descriptor")
                continue
            typ = get(te, "type")
            ts = int(get(pkt, "timestamp")) + self.shift
            tseq = got.setdefault(tracks[uuid], [])
            if typ == "TYPE_SLICE_BEGIN":
                depth[uuid] = depth.get(uuid, 0) + 1
                tseq.append(("begin", lookup(seq, "names", int(get(te, "name_iid", "0")), "name"),
                             ts))
            elif typ == "TYPE_SLICE_END":
                depth[uuid] = depth.get(uuid, 0) - 1
                if depth[uuid] < 0:
                    errs.append(f"track {tracks[uuid]}: slice end below depth 0")
                tseq.append(("end", None, ts))
            else:
                ann = {}
                for a in get_all(te, "debug_annotations"):
                    a = list(a)
                    siid = get(a, "string_value_iid")
                    if siid is not None:
                        sv = lookup(seq, "str", int(siid), "string value")
                        a.append(("string_text", sv))
                    ann[lookup(seq, "da", int(get(a, "name_iid", "0")), "annotation name")] = a
                # the class's extension (uext.c): described before, each field a leaf
                # that no debug annotation of the event also holds
                for k, v in te:
                    if k.isdigit():
                        errs.append(f"track event field {k} without a descriptor")
                    if not k.startswith("["):
                        continue
                    d = self.exts.get(k)
                    if d is None or d[0] > at:
                        errs.append(f"extension {k} used before its ExtensionDescriptor")
                        continue
                    arrays = {}
                    for fname, val in v:
                        if d[1].get(fname) == "array":
                            arrays.setdefault(fname, []).append(int(val))
                            continue
                        if fname in ann:
                            errs.append(f"{k}: {fname} both an annotation and an extension field")
                        ann[fname] = [(ANN_KEY.get(d[1].get(fname)), val)]
                    for fname, vals in arrays.items():
                        if fname in ann:
                            errs.append(f"{k}: {fname} both an annotation and an extension field")
                        ann[fname] = [("array_values", vals)]
                tseq.append(("instant", lookup(seq, "names", int(get(te, "name_iid", "0")),
                                               "name"), ts, ann))
        for key in sorted(set(want) | set(got), key=str):
            w, g = want.get(key, []), got.get(key, [])
            if len(w) != len(g):
                errs.append(f"track {key}: {len(g)} track events, expected {len(w)}")
                continue
            for a, b in zip(w, g):
                if a[:3] != b[:3]:
                    errs.append(f"track {key}: {b[:3]}, expected {a[:3]}")
                    break
                if a[0] == "instant" and not self.annotations_equal(a[3], b[3]):
                    errs.append(f"track {key}: {a[1]} at {a[2]}: annotations {b[3]}, "
                                f"payload {a[3]}")
                    break

    @staticmethod
    def annotations_equal(pl, ann):
        want = list(leaves(pl)) if pl else []
        if len(want) > 31:
            want = want[:30]
        for name, jv in want:
            a = ann.get(name)
            if a is None:
                return False
            jv = as_int(jv)
            for k in ("int_value", "uint_value"):
                if get(a, k) is not None and int(get(a, k)) != jv:
                    return False
            arr = get(a, "array_values")
            if arr is not None and arr != jv:
                return False
            d = get(a, "double_value")
            if d is not None and isinstance(jv, (int, float)) and not isinstance(jv, bool) \
                    and float(d) != float(jv):
                return False
            s = get(a, "string_value")
            if s is not None:
                s = unq(s).decode("utf-8", "replace")
            s = get(a, "string_text", s)
            if s is not None:
                if (s != jv) if isinstance(jv, str) else (json.loads(s) != jv):
                    return False
        return True


# FieldDescriptorProto types of the extensions' fields: as .proto text, as DebugAnnotation's field
EXT_TYPES = {1: "double", 3: "int64", 4: "uint64", 9: "string", 18: "sint64"}
ANN_KEY = {1: "double_value", 3: "int_value", 4: "uint_value", 9: "string_value", 18: "int_value"}


def extensions(root, errs):
    """The TrackEvent extensions the trace describes, as ({"[package.Message.debug]":
    (index of the describing packet, {field name: type})}, a .proto declaring them),
    with what Perfetto's importer needs of them checked (uext.c)."""
    exts, files, pkgs, body = {}, set(), set(), []
    for at, (_, pkt) in enumerate(root):
        ed = get(pkt, "extension_descriptor")
        if ed is None:
            continue
        for fd in get_all(get(ed, "extension_set") or [], "file"):
            fname, pkg = unq(get(fd, "name")).decode(), unq(get(fd, "package")).decode()
            if fname in files:
                errs.append(f"extension file {fname} described twice")
            files.add(fname)
            pkgs.add(pkg)
            for m in get_all(fd, "message_type"):
                mname = unq(get(m, "name")).decode()
                fields, lines = {}, []
                for f in get_all(m, "field"):
                    n, num, typ = unq(get(f, "name")).decode(), int(get(f, "number")), \
                        int(get(f, "type"))
                    label, packed = get(f, "label"), get(get(f, "options") or [], "packed")
                    if label == "3" and typ in (3, 4) and packed == "true":
                        # an array of integers: packed repeated int64 / uint64
                        fields[n] = "array"
                        lines.append(f"  repeated {EXT_TYPES[typ]} {n} = {num} [packed = true];")
                        continue
                    if typ not in EXT_TYPES or label != "1":
                        errs.append(f"{mname}.{n}: type {typ}, label {label}")
                        continue
                    fields[n] = typ
                    lines.append(f"  optional {EXT_TYPES[typ]} {n} = {num};")
                for x in get_all(m, "extension"):
                    num = int(get(x, "number"))
                    if (unq(get(x, "name")), unq(get(x, "extendee")), get(x, "type"),
                            unq(get(x, "type_name")).decode()) != (
                            b"debug", b".perfetto.protos.TrackEvent", "11", f".{pkg}.{mname}") \
                            or not 3000 <= num <= 9899:
                        errs.append(f"{mname}: extension {x}")
                        continue
                    lines.append(f"  extend perfetto.protos.TrackEvent {{ optional {mname} debug = "
                                 f"{num}; }}")
                    exts[f"[{pkg}.{mname}.debug]"] = (at, fields)
                body += [f"message {mname} {{"] + lines + ["}"]
    if len(pkgs) > 1:
        errs.append(f"extension packages {sorted(pkgs)}")
    text = "\n".join(['syntax = "proto2";', 'import "tracemux_perfetto.proto";',
                      f"package {min(pkgs) if pkgs else 'tracemux'};"] + body) + "\n"
    return exts, text


def descriptor_files(root):
    """Each ExtensionDescriptor file of a decoded trace: (name, its extension's number, its
    message's name and fields as decoded)."""
    out = []
    for _, pkt in root:
        ed = get(pkt, "extension_descriptor")
        for fd in get_all(get(ed, "extension_set") or [], "file") if ed is not None else ():
            for m in get_all(fd, "message_type"):
                nums = [int(get(x, "number")) for x in get_all(m, "extension")]
                out.append((unq(get(fd, "name")).decode(), nums[0] if nums else None,
                            unq(get(m, "name")).decode(), repr(get_all(m, "field"))))
    return out


def check_concatenated(rep, checker, tracemux, paths):
    """Concatenated outputs (Perfetto reads them as one trace, loading a descriptor file
    name once and keeping the first definition of an extension number): a file name is
    the same for the same content only, a number is never given to two contents, and the
    names are E<number>_<16 hex digits> (uext.c), the same in every output."""
    outs = [run(tracemux, ["-o", "perfetto", p])[1] for p in paths]
    root = checker.decode(b"".join(outs + outs[:1]), "concatenated outputs")
    if root is None:
        return
    files = descriptor_files(root)
    by_name, by_num, errs = {}, {}, []
    for name, num, mname, fields in files:
        content = (num, mname, fields)
        if by_name.setdefault(name, content) != content:
            errs.append(f"file {name}: two contents")
        if by_num.setdefault(num, (mname, fields)) != (mname, fields):
            errs.append(f"extension number {num}: two contents ({by_num[num][0]}, {mname})")
        if not re.fullmatch(rf"tracemux/E{num}_[0-9a-f]{{16}}\.proto", name) or \
                name != f"tracemux/{mname}.proto":
            errs.append(f"file {name}: not named by its number and hash ({mname})")
    first = descriptor_files(checker.decode(outs[0], "first output") or [])
    if [f for f in files if f in first] != first + first:
        errs.append("the first output's descriptors differ when it comes again")
    if len(by_name) < 2:
        errs.append(f"only {len(by_name)} descriptor files")
    if errs:
        rep.fail(f"concatenated outputs of {[os.path.basename(p) for p in paths]}",
                 "\n".join(errs[:10]))
    else:
        rep.ok()


def check_both_extensions(rep, exts, what):
    """A class's two extensions both used: the same fields, signed ones sint64 in one and
    int64 in the other (uext.c)."""
    kinds = {}
    for _, fields in exts.values():
        signed = tuple(sorted(n for n, t in fields.items() if t in (3, 18)))
        if signed:
            kinds.setdefault(signed, set()).update(t for t in fields.values() if t in (3, 18))
    if any(k == {3, 18} for k in kinds.values()):
        rep.ok()
    else:
        rep.fail(f"{what}: no class with both its sint64 and int64 extensions ({exts})")


# --jobs: the same bytes for N = 1, 2, 4 (kernel, LTTng kernel, kernel +
# UST, UST instants and slices, XRay, the 1M-event benchmark trace when
# bench/perfetto.sh made it)
JOBS_TRACES = ["tracecmd-samples/sched-v7-zstd.dat", "tracecompass/tc-bug446190",
               "babeltrace-tests/ctf-traces/succeed/multi-domains",
               "tracecompass/tc-context-switches_context-switches-ust",
               "tracecompass/tc-cyg-profile_glxgears-cyg-profile",
               "xray-samples/fdr-v5-small.xray"]


def check_jobs(rep, tracemux, corpus, traces=JOBS_TRACES):
    for t in traces:
        outs = [run(tracemux, ["-o", "perfetto", "--jobs", j, os.path.join(corpus, t)])
                for j in ("1", "2", "4")]
        if any(o[0] != 0 for o in outs):
            rep.fail(f"{t}: exit status {[o[0] for o in outs]} with --jobs 1, 2, 4",
                     "\n".join(o[2].decode("utf-8", "replace")[:500] for o in outs))
        elif outs[0][1] != outs[1][1] or outs[0][1] != outs[2][1] or not outs[0][1]:
            rep.fail(f"{t}: --jobs 1, 2 and 4 differ")
        else:
            rep.ok()


def check_zstd(rep, tracemux, corpus):
    """--perfetto-compress=zstd: one zstd frame that zstd(1) turns into the plain output."""
    if not shutil.which("zstd"):
        rep.fail("zstd not found: install Debian's zstd")
        return
    for t in ("tracecmd-samples/sched-v6.dat",
              "tracecompass/tc-context-switches_context-switches-ust"):
        path = os.path.join(corpus, t)
        plain = run(tracemux, ["-o", "perfetto", path])[1]
        rc, z, err = run(tracemux, ["-o", "perfetto", "--perfetto-compress=zstd", "--jobs", "2",
                                    path])
        d = subprocess.run(["zstd", "-d", "-c"], input=z, capture_output=True)
        if rc or d.returncode or d.stdout != plain or not plain or len(z) >= len(plain):
            rep.fail(f"{t}: --perfetto-compress=zstd (exit {rc}, zstd -d {d.returncode}: "
                     f"{len(d.stdout)} bytes, plain {len(plain)}, compressed {len(z)})",
                     err.decode()[:300] + d.stderr.decode()[:300])
        else:
            rep.ok()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracemux", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--all", action="store_true",
                    help="every trace.dat and LTTng trace of the corpus (slow)")
    ap.add_argument("--jobs-only", action="store_true",
                    help="only the --jobs comparisons (the ThreadSanitizer build's test)")
    args = ap.parse_args()
    rep = Report("perfetto")
    if not shutil.which("protoc"):
        rep.fail("protoc not found: install Debian's protobuf-compiler")
        rep.finish()
    if not shutil.which("trace-cmd"):
        rep.fail("trace-cmd not found: install Debian's trace-cmd")
        rep.finish()
    if not os.path.exists(UNISTD):
        rep.fail(f"{UNISTD} not found: install Debian's linux-libc-dev")
        rep.finish()
    c = Checker(rep, args.tracemux, syscall_numbers())
    corpus = args.corpus
    if args.jobs_only:
        check_jobs(rep, args.tracemux, corpus)
        rep.finish()
    traces = [os.path.join(corpus, t) for t in QUICK]
    if args.all:
        for sub in ("tracecmd-samples", "tracecmd-external", "tracecmd-3.4"):
            traces += sorted(os.path.join(corpus, sub, f)
                             for f in os.listdir(os.path.join(corpus, sub)) if f.endswith(".dat"))
        for sub in ("tracecompass", "tracecompass-ctf2"):
            traces += sorted(os.path.join(corpus, sub, f)
                             for f in os.listdir(os.path.join(corpus, sub))
                             if os.path.isdir(os.path.join(corpus, sub, f)))
        traces = list(dict.fromkeys(traces))
    for t in traces:
        c.check(t)
    if not c.named:
        rep.fail("no thread named from saved_cmdlines in the trace.dat files checked")
    for f in c.no_reference:
        print(f"note: thread names not checked (trace-cmd cannot read the file): {f}")

    # --events: the counts of -o json --events (a typed and a generic class)
    t = os.path.join(corpus, "tracecmd-samples/sched-v6.dat")
    c.check(t, ["--events=sched:sched_switch,timer:*"], "sched-v6.dat --events")
    # --filter and trimming: the events of -o json with the same options
    t = os.path.join(corpus, "tracecompass/tc-bug446190")
    c.check(t, ["--filter=$cpu == 1 || prio > 100"], "tc-bug446190 --filter")
    c.check(t, ["--clock-gmt", "--begin", "08:36:01.5", "--end", "08:36:03"], "tc-bug446190 trimmed")
    # LTTng system calls with a path argument (sys_enter's args keep their places)
    t = os.path.join(corpus, "tracecompass/tc-many-threads")
    c.check(t, ["--clock-gmt", "--begin", "17:46:22.8142", "--end", "17:46:22.83"],
            "tc-many-threads trimmed (openat, its path as 0)")
    # tests/data/perfetto/make-kernel.py: softirq vectors of 10 and more
    # (generic events); task_newtask with and without CLONE_THREAD before
    # forks (the process tree of ftrace-shaped traces)
    for opt, what in (([], "softirq vectors 1..31"), (["--tasks"], "task_newtask, forks, execs")):
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, os.path.join(PROTO_DIR, "make-kernel.py")] + opt +
                           [tmp], check=True)
            c.check(tmp, what=f"{what} (make-kernel.py {' '.join(opt)})")
    # tests/data/sample-trace (bench/gen-lttng-like.py): UST values of every leaf type in the
    # classes' extensions (negative integers, doubles, byte sequences, empty ones as "[]")
    c.check(os.path.join(HERE, "..", "data", "sample-trace"), what="sample-trace (extensions)")
    # make-kernel.py --ust: a class whose signed values are positive in some events (its
    # int64 extension) and negative in others (its sint64 one); two such traces of clocks
    # 1.6e9 and 1.7e9 s from the epoch merged: one R, the least offset
    with tempfile.TemporaryDirectory() as tmp:
        u1, u2 = os.path.join(tmp, "u1"), os.path.join(tmp, "u2")
        for sec, d in (("1700000000", u1), ("1600000000", u2)):
            subprocess.run([sys.executable, os.path.join(PROTO_DIR, "make-kernel.py"), "--ust",
                            sec, d], check=True)
        c.check(u1, what="UST signed values (make-kernel.py --ust)")
        check_both_extensions(rep, c.exts, "app:signed")
        c.check(u2, [u1], what="two UST traces, clocks 1.6e9 and 1.7e9 s from the epoch")
        # their outputs and sample-trace's concatenated: class 0 of each has other fields
        check_concatenated(rep, c, args.tracemux,
                           [os.path.join(HERE, "..", "data", "sample-trace"), u1, u2])
    check_jobs(rep, args.tracemux, corpus)
    check_zstd(rep, args.tracemux, corpus)
    # a damaged LTTng kernel trace (bytes overwritten in a packet of one of
    # its 4 streams, where -o json fails after some events): exit 1, a
    # decodable output holding what -o json printed, the same bytes with
    # --jobs 1 and 4
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "damaged")
        shutil.copytree(os.path.join(corpus, "tracecompass/tc-bug446190"), bad)
        path = os.path.join(bad, "channel0_1")
        data = open(path, "rb").read()
        found = False
        for frac in range(30, 100, 5):
            pos = len(data) * frac // 100
            with open(path, "wb") as f:
                f.write(data[:pos] + b"\xff" * 64 + data[pos + 64:])
            jrc, evs = json_events(args.tracemux, [bad])
            if jrc == 1 and evs:
                found = True
                break
        if not found:
            rep.fail("damaged tc-bug446190: no damage made -o json fail midway")
        else:
            outs = [run(args.tracemux, ["-o", "perfetto", "--jobs", j, bad]) for j in ("1", "4")]
            if outs[0] != outs[1]:
                rep.fail("damaged tc-bug446190: --jobs 1 and --jobs 4 differ")
            elif outs[0][0] != 1 or not outs[0][2]:
                rep.fail(f"damaged tc-bug446190: exit {outs[0][0]}, expected 1 with an error")
            else:
                c.check(bad, what=f"damaged tc-bug446190 ({len(evs)} events before the error)")
    rep.finish()


if __name__ == "__main__":
    main()
