"""Random but valid XRay logs (every FDR version, basic v1-v3) for the
differential test in tests/golden/test_xray_yaml.py: llvm-xray 14 and
tracemux must print the same YAML for each of them.

What varies: threads and processes (ties between threads, tid 0), blocks
per thread (more than 16: llvm's introsort permutes them), wall times
(ties: llvm's comparator is not a strict weak order), function kinds and
ids, deltas (0, large), TSC wraps, CPU changes, call arguments, custom and
typed events of every layout, v1 EndOfBuffer with fill.  Deterministic for
a given seed.
"""
import importlib.util
import os
import random
import struct

_spec = importlib.util.spec_from_file_location(
    "make_inputs", os.path.join(os.path.dirname(os.path.abspath(__file__)), "make-inputs.py"))
mi = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mi)


def _body(rnd, version, tid, pid, t0):
    b = mi.new_buffer(tid) + mi.walltime(rnd.choice([5, 6, 7]), rnd.choice([0, 1, 2, 999999]))
    if version >= 3:
        b += mi.pid_rec(pid)
    b += mi.new_cpu(rnd.randrange(4), t0)
    if version == 3 and rnd.random() < 0.2:
        b += mi.new_cpu(0, t0) + mi.tsc_wrap(t0)
    last_was_fn = False
    for _ in range(rnd.randrange(0, 12)):
        r = rnd.random()
        if r < 0.55:
            kind = rnd.choice([0, 0, 1, 1, 2, 3])
            fid = rnd.choice([1, 2, 3, rnd.randrange(1, 2**28)])
            delta = rnd.choice([0, 1, 5, 100, 2**31 - 1, rnd.randrange(2**32)])
            b += mi.fn(kind, fid, delta)
            last_was_fn = True
            continue
        if r < 0.65 and last_was_fn:
            b += mi.call_arg(rnd.randrange(2**64))
            continue
        last_was_fn = False
        if r < 0.72:
            b += mi.tsc_wrap(t0 + rnd.randrange(-1000, 10**6))
        elif r < 0.78:
            b += mi.new_cpu(rnd.randrange(8), t0 + rnd.randrange(-1000, 10**6))
        elif r < 0.9:
            data = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 9)))
            if rnd.random() < 0.5:
                data = rnd.choice([b'ev', b'true', b'12', b'a b', b"x'y", b'-q'])
            if version == 1:
                # llvm-xray parses v1 fill as records: keep it 8-byte aligned.
                data = (data * 8)[:8]
            if version >= 5:
                b += mi.custom_v5(data, rnd.randrange(-50, 50))
            elif version == 4:
                b += mi.custom_v4(data, t0 + rnd.randrange(10**6), rnd.randrange(4))
            else:
                b += mi.custom_v1(data, t0 + rnd.randrange(10**6))
        else:
            data = rnd.choice([b'typed', b'\x00\x01', b'7'])
            if version == 1:
                data = (data * 8)[:8]
            b += mi.typed(data, rnd.randrange(-50, 50), rnd.randrange(0, 70000) % 65536)
    return b


def fdr_log(seed):
    rnd = random.Random(seed)
    version = rnd.choice([1, 2, 3, 4, 5])
    mi.GARBAGE = rnd.choice([b'\0', b'\xa5'])
    buffer_size = 1024
    threads = [(rnd.choice([0, 1, 2, 3, 7, 100]), rnd.choice([10, 11])) for _ in range(rnd.randrange(1, 5))]
    blocks = []
    for tid, pid in threads:
        for _ in range(rnd.choice([1, 2, 3, 17, 20])):
            body = _body(rnd, version, tid, pid, rnd.choice([10**6, 10**6 + rnd.randrange(10**5)]))
            if version == 1:
                blocks.append(mi.v1_buffer(body, buffer_size))
            else:
                blocks.append(mi.buf(body))
    rnd.shuffle(blocks)
    return mi.header(version, 1, rnd.choice([1000000000, 2445424000]), buffer_size=buffer_size) + b''.join(blocks)


def basic_log(seed):
    rnd = random.Random(seed)
    version = rnd.choice([1, 2, 3])
    d = mi.header(version, 0, 3900000000)
    for _ in range(rnd.randrange(1, 6)):
        tid = rnd.choice([0, 5, 6, 7])
        pid = rnd.choice([0, 9]) if version >= 3 else 0
        t = rnd.randrange(1000)
        for _ in range(rnd.randrange(1, 10)):
            kind = rnd.choice([0, 1, 2, 3] if version >= 2 else [0, 1, 3])
            fid = rnd.choice([1, 2, -5, 2**31 - 1])
            t += rnd.choice([0, 0, 3, 50])
            d += mi.basic(kind, fid, t, tid, pid, rnd.randrange(256))
            if kind == 3:
                for _ in range(rnd.randrange(0, 3)):
                    d += mi.basic_arg(fid, tid, pid, rnd.randrange(2**64))
    return d
