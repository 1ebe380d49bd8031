#!/usr/bin/env python3
"""Builds small XRay logs byte by byte from the format notes
(/work/shared/spec/xray-format-notes.md), as test data.

- The inputs of LLVM's own llvm-xray tests (llvm/test/tools/llvm-xray/X86/
  Inputs/*.xray are binary and not available here), rebuilt so that
  llvm-xray 14 prints the expected outputs stored in the corpus
  (upstream-llvm-tests/): FDR v1 and v3, basic v1, v2 and v3, with and
  without call arguments.
- More logs for what real traces rarely show: FDR v2 and v4, custom and
  typed events with every byte value, TSC wraps, CPU migration, many
  blocks per thread (llvm's block sort), many threads (llvm's DenseMap
  order), garbage between v3+ buffers, v1 EndOfBuffer with fill, the
  short BufferExtents of compiler-rt's typed events, basic-mode chunks.

Run: tests/data/xray/make-inputs.py [--llvm-refs] [OUTDIR]   (default: this directory)
     --llvm-refs also stores llvm-xray-14's YAML of each file in OUTDIR/expected/.
The files are deterministic; tests/golden/test_xray_yaml.py compares
tracemux against the stored upstream outputs and against llvm-xray run live.
"""
import os
import random
import struct
import sys

# ---------------------------------------------------------------- header

def header(version, type_, freq, bits=3, buffer_size=0, freeform=None):
    h = struct.pack('<HHIQ', version, type_, bits, freq)
    if freeform is not None:
        h += freeform.ljust(16, b'\0')[:16]
    elif type_ == 1:
        h += struct.pack('<QQ', buffer_size, 0)
    else:
        h += b'\0' * 16
    assert len(h) == 32
    return h

# ---------------------------------------------------------------- FDR records

GARBAGE = b'\0'


def meta(kind, payload=b''):
    """16-byte metadata record; unused bytes filled with GARBAGE (the runtime
    leaves stack garbage there: readers must not look at them)."""
    body = payload + GARBAGE * (15 - len(payload))
    return bytes([kind << 1 | 1]) + body[:15]


def new_buffer(tid):
    return meta(0, struct.pack('<i', tid))


def end_of_buffer():
    return meta(1)


def new_cpu(cpu, tsc):
    return meta(2, struct.pack('<HQ', cpu, tsc))


def tsc_wrap(tsc):
    return meta(3, struct.pack('<Q', tsc))


def walltime(sec, usec):
    return meta(4, struct.pack('<QI', sec, usec))


def custom_v1(data, tsc):          # versions 1 to 3: absolute TSC
    return meta(5, struct.pack('<iQ', len(data), tsc)) + data


def custom_v4(data, tsc, cpu):     # version 4: absolute TSC and CPU
    return meta(5, struct.pack('<iQH', len(data), tsc, cpu)) + data


def custom_v5(data, delta):        # version 5: signed TSC delta
    return meta(5, struct.pack('<ii', len(data), delta)) + data


def call_arg(v):
    return meta(6, struct.pack('<Q', v))


def extents(n):
    return meta(7, struct.pack('<Q', n))


def typed(data, delta, etype):
    return meta(8, struct.pack('<iiH', len(data), delta, etype)) + data


def pid_rec(p):
    return meta(9, struct.pack('<i', p))


ENTER, EXIT, TAIL, ENTER_ARG = 0, 1, 2, 3


def fn(kind, fid, delta):
    return struct.pack('<II', (fid << 4) | (kind << 1), delta)


def buf(body):
    """A v2+ buffer: BufferExtents with the body's size, then the body."""
    return extents(len(body)) + body


def v1_buffer(body, buffer_size):
    """A v1 buffer: written whole, EndOfBuffer then zero fill."""
    b = body + end_of_buffer()
    assert len(b) <= buffer_size
    return b + b'\0' * (buffer_size - len(b))

# ---------------------------------------------------------------- basic records


def basic(kind, fid, tsc, tid, pid=0, cpu=0):
    return struct.pack('<HBBiQII', 0, cpu, kind, fid, tsc, tid, pid) + b'\0' * 8


def basic_arg(fid, tid, pid, value):
    return struct.pack('<HHiIIQ', 1, 0, fid, tid, pid, value) + b'\0' * 8

# ---------------------------------------------------------------- upstream inputs


def fdr_log_version_1():
    # convert-fdr-to-yaml.txt: v1, frequency 5678, thread 5, CPU 5 then 6,
    # a tail exit, function id 268435455 (the largest 28-bit id).
    t0 = 7238225556407340
    body = new_buffer(5) + walltime(1500000000, 123456) + new_cpu(5, t0)
    body += fn(ENTER, 1, 0) + fn(EXIT, 1, 6) + fn(ENTER, 2, 1) + fn(ENTER, 3, 40)
    body += fn(EXIT, 3, 50) + fn(EXIT, 2, 30) + fn(ENTER, 4, 25) + fn(ENTER, 5, 25)
    body += fn(TAIL, 5, 25) + fn(ENTER, 268435455, 10) + fn(EXIT, 268435455, 10)
    body += new_cpu(6, 7238225556407682) + fn(ENTER, 6, 0) + fn(EXIT, 6, 73)
    return header(1, 1, 5678, buffer_size=512) + v1_buffer(body, 512)


def fdr_log_arg1():
    # convert-fdr-arg1-to-yaml.txt / fdr-dump-arg1.txt: v1, a CallArgument
    # after a plain enter, a TSCWrap, EndOfBuffer.
    t0 = 18828908666540172
    body = new_buffer(14648) + walltime(1452786, 250689) + new_cpu(49, t0) + tsc_wrap(t0)
    body += fn(ENTER, 1, 3146) + call_arg(1) + fn(EXIT, 1, 52286)
    # No fill: llvm-xray's fdr-dump would list it as records.
    size = len(body) + 16
    return header(1, 1, 3500000000, buffer_size=size) + v1_buffer(body, size)


def fdr_log_version_3():
    # convert-fdr-log-version3-to-yaml.txt: v3 with a Pid record.
    tscs = [2069294857657498, 2069294857707502, 2069295590705912, 2069295590734308,
            2069296377598128, 2069296377627032]
    kinds = [(ENTER, 1), (EXIT, 1), (ENTER, 2), (EXIT, 2), (ENTER, 1), (EXIT, 1)]
    body = new_buffer(25190) + walltime(599000, 100) + pid_rec(25190) + new_cpu(4, tscs[0])
    prev = tscs[0]
    for (k, f), t in zip(kinds, tscs):
        body += fn(k, f, t - prev)
        prev = t
    return header(3, 1, 3900000000, buffer_size=16384) + buf(body)


def fdr_log_arg1_version_3():
    # convert-fdr-log-arg1-version3-to-yaml.txt / fdr-dump-arg1-version-3.txt:
    # the same CPU record twice, a TSC wrap, an argument.
    t0 = 2034042117104344
    body = new_buffer(2631) + walltime(599605, 32403) + pid_rec(2631)
    body += new_cpu(6, t0) + new_cpu(6, t0) + tsc_wrap(t0)
    body += fn(ENTER, 3, 0) + fn(EXIT, 3, 94744) + fn(ENTER, 2, 1028487290) + fn(EXIT, 2, 75822)
    body += tsc_wrap(2034049739853430) + fn(ENTER, 1, 0) + call_arg(67) + fn(EXIT, 1, 24724)
    return header(3, 1, 3900000000, buffer_size=16384) + buf(body)


def naive_log_simple():
    # convert-to-yaml.txt: basic v1, frequency 2601000000.
    tid, cpu = 84697, 37
    recs = [(ENTER, 3, 3315356841453914), (ENTER, 2, 3315356841454542),
            (EXIT, 2, 3315356841454670), (ENTER, 1, 3315356841454762),
            (EXIT, 1, 3315356841454802), (EXIT, 3, 3315356841494828)]
    return header(1, 0, 2601000000) + b''.join(basic(k, f, t, tid, 0, cpu) for k, f, t in recs)


def naive_with_arg1_entries():
    # convert-basic-arg1-to-yaml.txt: basic v2 with an argument record.
    tid, cpu = 8715, 17
    d = header(2, 0, 3500000000)
    d += basic(ENTER, 1, 22555670288232728, tid, 0, cpu) + basic(EXIT, 1, 22555670288334784, tid, 0, cpu)
    d += basic(ENTER_ARG, 2, 22555670288335768, tid, 0, cpu) + basic_arg(2, tid, 0, 1)
    d += basic(EXIT, 2, 22555670288365224, tid, 0, cpu)
    return d


def basic_log_version_3():
    tid, cpu = 25518, 7
    recs = [(ENTER, 1, 2070767347414784), (EXIT, 1, 2070767347496472),
            (ENTER, 2, 2070768324320264), (EXIT, 2, 2070768324344100),
            (ENTER, 1, 2070768921602152), (EXIT, 1, 2070768921625968),
            (ENTER, 2, 2070769627174140), (EXIT, 2, 2070769627197624)]
    return header(3, 0, 3900000000) + b''.join(basic(k, f, t, tid, tid, cpu) for k, f, t in recs)


def basic_log_arg1_version_3():
    tid = 2590
    d = header(3, 0, 3900000000)
    d += basic(ENTER, 3, 2033303630902004, tid, tid) + basic(EXIT, 3, 2033403115246844, tid, tid)
    d += basic(ENTER, 2, 2033490200702516, tid, tid) + basic(EXIT, 2, 2033504122687120, tid, tid)
    d += basic(ENTER_ARG, 1, 2033505343905936, tid, tid) + basic_arg(1, tid, tid, 67)
    d += basic(EXIT, 1, 2033505343936752, tid, tid)
    return d

# ---------------------------------------------------------------- more cases


def fdr_v2_threads():
    # v2: BufferExtents but no Pid record: llvm-xray reports process = thread.
    d = header(2, 1, 1000000000, buffer_size=4096)
    for tid, t0 in ((101, 5000), (102, 5000), (101, 9000)):
        body = new_buffer(tid) + walltime(10, tid) + new_cpu(1, t0)
        body += fn(ENTER, 1, 0) + fn(ENTER, 2, 5) + fn(EXIT, 2, 5) + fn(EXIT, 1, 0)
        d += buf(body)
    return d


def fdr_v4_custom():
    # v4: custom events with absolute TSC and a CPU; they keep the last
    # function id and do not move the running TSC.
    body = new_buffer(7) + walltime(20, 1) + pid_rec(70) + new_cpu(3, 1000)
    body += custom_v4(b'before any function', 999, 9)
    body += fn(ENTER, 4, 10) + custom_v4(b'in 4', 1015, 2) + fn(EXIT, 4, 20)
    body += custom_v4(b"quote ' and: colon", 1030, 3) + fn(ENTER, 5, 1)
    return header(4, 1, 2000000000, buffer_size=4096) + buf(body)


def fdr_v3_custom():
    body = new_buffer(8) + walltime(20, 1) + pid_rec(80) + new_cpu(3, 1000)
    body += fn(ENTER, 4, 10) + custom_v1(b'v3 event', 1005) + fn(EXIT, 4, 20)
    return header(3, 1, 2000000000, buffer_size=4096) + buf(body)


def fdr_v5_events():
    # v5 custom and typed events, payloads of every byte value (unaligned
    # records after them), typed event types that stick to later records.
    body = new_buffer(9) + walltime(30, 5) + pid_rec(90) + new_cpu(0, 10**12)
    body += fn(ENTER, 1, 0)
    for i, chunk in enumerate((bytes(range(0, 32)), bytes(range(32, 127)), bytes([127]),
                               bytes(range(128, 256)), 'é ü – 中'.encode(), b'x\xff\xfey',
                               b'\xc3', b'true', b'~', b'12', b'0x1f', b'-x', b' lead', b'tail ',
                               b'a,b', b'#c', b'a\tb', b'a\nb', b'a\rb', b'\x00', b'.5', b'1e3',
                               b'null', b'a: b', b'x\xc2\x85y', b'\xe2\x80\xa8')):
        body += custom_v5(chunk, 3) + fn(ENTER, 2, 1) + fn(EXIT, 2, 1)
        if i % 5 == 0:
            body += typed(chunk, -1, 40 + i)
    body += fn(EXIT, 1, 7)
    return header(5, 1, 1000000000, buffer_size=8192) + buf(body)


def fdr_v5_wrap_migrate():
    # TSC wraps (forward and backward), CPU migration, deltas of 0 after
    # them, a tail exit chain and an enter with two call arguments.
    body = new_buffer(11) + walltime(40, 7) + pid_rec(110) + new_cpu(0, 2**40)
    body += fn(ENTER, 1, 0) + fn(ENTER_ARG, 2, 100) + call_arg(7) + call_arg(2**64 - 1)
    body += tsc_wrap(2**40 + 2**33) + fn(EXIT, 2, 0) + new_cpu(1, 2**40 + 2**33 + 50)
    body += fn(ENTER, 3, 0) + fn(TAIL, 3, 2**31 - 1) + tsc_wrap(2**40 - 500)
    body += fn(EXIT, 1, 0) + new_cpu(1, 2**40 + 2**34) + fn(ENTER, 268435455, 0)
    body += fn(EXIT, 268435455, 4294967295)
    return header(5, 1, 2445424000, buffer_size=8192) + buf(body)


def fdr_v5_many_blocks():
    # One thread with 40 blocks whose wall times are not in file order
    # (llvm sorts them with a comparator that is not a strict weak order:
    # libstdc++'s introsort decides), three more threads whose records tie.
    rnd = random.Random(5)
    d = header(5, 1, 1000000000, buffer_size=1024)
    blocks = []
    for i in range(40):
        sec, usec = rnd.randrange(100, 110), rnd.randrange(0, 1000000)
        t0 = 10**9 + rnd.randrange(0, 10**6)
        body = new_buffer(21) + walltime(sec, usec) + pid_rec(200) + new_cpu(0, t0)
        body += fn(ENTER, 1 + i % 7, 0) + fn(EXIT, 1 + i % 7, rnd.randrange(0, 3))
        blocks.append(buf(body))
    for tid in (22, 23, 24):
        for j in range(3):
            body = new_buffer(tid) + walltime(100, j) + pid_rec(200) + new_cpu(0, 10**9 + 500 * j)
            body += fn(ENTER, 8, 0) + fn(EXIT, 8, 0) + fn(ENTER, 9, 0) + fn(EXIT, 9, 1)
            blocks.append(buf(body))
    rnd.shuffle(blocks)
    return d + b''.join(blocks)


def fdr_v5_many_threads():
    # 60 threads (llvm's DenseMap grows past 48 keys), equal TSCs across them.
    d = header(5, 1, 1000000000, buffer_size=1024)
    for tid in range(1000, 1060):
        body = new_buffer(tid) + walltime(1, 2) + pid_rec(999) + new_cpu(tid % 4, 777)
        body += fn(ENTER, tid % 5 + 1, 0) + fn(EXIT, tid % 5 + 1, tid % 3)
        d += buf(body)
    return d


def fdr_v3_garbage_between():
    # v3+: after a buffer's extents are used up, llvm seeks the next 0x0f
    # byte: whatever lies between buffers is skipped.
    d = header(3, 1, 1000000000, buffer_size=4096)
    body = new_buffer(31) + walltime(5, 5) + pid_rec(300) + new_cpu(0, 100) + fn(ENTER, 1, 0) + fn(EXIT, 1, 3)
    d += buf(body) + b'\x00\x02\x04\xfe' * 5
    body = new_buffer(32) + walltime(5, 6) + pid_rec(300) + new_cpu(0, 101) + fn(ENTER, 2, 0) + fn(EXIT, 2, 3)
    d += buf(body)
    return d


def fdr_v1_two_buffers():
    # v1: EndOfBuffer then fill up to buffer_size; a second thread; a
    # thread with two buffers.
    d = header(1, 1, 1000000000, buffer_size=256)
    d += v1_buffer(new_buffer(41) + walltime(3, 1) + new_cpu(2, 500) + fn(ENTER, 1, 0) + fn(EXIT, 1, 9), 256)
    d += v1_buffer(new_buffer(42) + walltime(3, 2) + new_cpu(3, 505) + fn(ENTER_ARG, 2, 0) + call_arg(5) + fn(EXIT, 2, 1), 256)
    d += v1_buffer(new_buffer(41) + walltime(4, 3) + new_cpu(2, 600) + fn(ENTER, 3, 0) + fn(EXIT, 3, 1), 256)
    return d


def fdr_v5_short_extents():
    # compiler-rt 14's writeTypedEvent adds only the payload to the extents:
    # the buffer's last 16 bytes never reach the file (here: two whole
    # function records, lost as llvm-xray loses them).
    body = new_buffer(51) + walltime(6, 6) + pid_rec(500) + new_cpu(0, 1000)
    body += fn(ENTER, 1, 0) + typed(b'typed payload', 5, 3) + fn(ENTER, 2, 1) + fn(EXIT, 2, 1)
    body += fn(EXIT, 1, 1) + fn(ENTER, 3, 2)
    short = len(body) - 16
    d = header(5, 1, 1000000000, buffer_size=4096) + extents(short) + body[:short]
    body2 = new_buffer(52) + walltime(6, 7) + pid_rec(500) + new_cpu(0, 1001) + fn(ENTER, 4, 0) + fn(EXIT, 4, 0)
    return d + buf(body2)


def basic_v2_chunks():
    # basic: per-thread chunks appended out of time order, equal TSCs across
    # threads, tail exits, a negative function id, an enter with 2 arguments.
    d = header(2, 0, 1000000000, freeform=b'garbage garbage!')
    chunk_b = basic(ENTER, 5, 100, 62, 0, 1) + basic(TAIL, 5, 150, 62, 0, 1) + basic(EXIT, -4, 150, 62, 0, 1)
    chunk_a = basic(ENTER_ARG, 1, 100, 61, 0, 2) + basic_arg(1, 61, 0, 11) + basic_arg(1, 61, 0, 12)
    chunk_a += basic(EXIT, 1, 150, 61, 0, 2)
    chunk_c = basic(ENTER, 7, 90, 61, 0, 2) + basic(EXIT, 7, 95, 61, 0, 0)
    return d + chunk_b + chunk_a + chunk_c

# ---------------------------------------------------------------- main


UPSTREAM = ('fdr-log-version-1.xray', 'fdr-log-arg1.xray', 'fdr-log-version-3.xray',
            'fdr-log-arg1-version-3.xray', 'naive-log-simple.xray',
            'naive-with-arg1-entries.xray', 'basic-log-version-3.xray',
            'basic-log-arg1-version-3.xray')

FILES = {
    'fdr-log-version-1.xray': fdr_log_version_1,
    'fdr-log-arg1.xray': fdr_log_arg1,
    'fdr-log-version-3.xray': fdr_log_version_3,
    'fdr-log-arg1-version-3.xray': fdr_log_arg1_version_3,
    'naive-log-simple.xray': naive_log_simple,
    'naive-with-arg1-entries.xray': naive_with_arg1_entries,
    'basic-log-version-3.xray': basic_log_version_3,
    'basic-log-arg1-version-3.xray': basic_log_arg1_version_3,
    'fdr-v2-threads.xray': fdr_v2_threads,
    'fdr-v3-custom.xray': fdr_v3_custom,
    'fdr-v4-custom.xray': fdr_v4_custom,
    'fdr-v5-events.xray': fdr_v5_events,
    'fdr-v5-wrap-migrate.xray': fdr_v5_wrap_migrate,
    'fdr-v5-many-blocks.xray': fdr_v5_many_blocks,
    'fdr-v5-many-threads.xray': fdr_v5_many_threads,
    'fdr-v3-garbage-between.xray': fdr_v3_garbage_between,
    'fdr-v1-two-buffers.xray': fdr_v1_two_buffers,
    'fdr-v5-short-extents.xray': fdr_v5_short_extents,
    'basic-v2-chunks.xray': basic_v2_chunks,
}


def llvm_refs(out):
    """expected/NAME.yaml and NAME.nosort.yaml: llvm-xray 14's output on each
    file (--sort=true and false), so that the golden test checks them even
    where llvm-xray is not installed."""
    import subprocess
    exp = os.path.join(out, 'expected')
    os.makedirs(exp, exist_ok=True)
    for name in FILES:
        for sort, suffix in (('true', '.yaml'), ('false', '.nosort.yaml')):
            p = subprocess.run(['llvm-xray-14', 'convert', '--output-format=yaml', f'--sort={sort}',
                                os.path.join(out, name)], capture_output=True, check=True)
            with open(os.path.join(exp, name + suffix), 'wb') as f:
                f.write(p.stdout)


def main():
    global GARBAGE
    args = [a for a in sys.argv[1:] if a != '--llvm-refs']
    out = args[0] if args else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    for name, make in FILES.items():
        # Unused metadata bytes hold garbage in real logs: the files made
        # for this corpus use 0xA5 there, except the upstream ones.
        GARBAGE = b'\0' if name in UPSTREAM else b'\xa5'
        with open(os.path.join(out, name), 'wb') as f:
            f.write(make())
    if '--llvm-refs' in sys.argv[1:]:
        llvm_refs(out)


if __name__ == '__main__':
    main()
