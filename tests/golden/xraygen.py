"""Hand-made LLVM XRay logs for the golden tests, and llvm-xray helpers.

Basic ("naive") mode logs, written byte by byte from
../shared/spec/xray-format-notes.md section 2: a 32-byte file header
(version, type 0, constant/nonstop TSC bits, cycle frequency) and 32-byte
records (record type 0, cpu, kind 0 enter / 1 exit / 2 tail exit / 3 enter
with argument, function id, absolute TSC, thread id, process id from
version 3).  The records of one thread are one chunk, as the runtime writes
them; chunks of several threads follow each other in the file.
"""
import os
import re
import shutil
import struct
import subprocess

ENTER, EXIT, TAIL_EXIT, ENTER_ARG = 0, 1, 2, 3


def basic_log(path, records, version=3, freq=1000000000):
    """records: (kind, func_id, tsc, tid[, pid[, cpu]]) tuples, in file order."""
    out = bytearray(struct.pack("<HHIQ16x", version, 0, 3, freq))
    for r in records:
        kind, func, tsc, tid = r[:4]
        pid = r[4] if len(r) > 4 else tid
        cpu = r[5] if len(r) > 5 else 0
        out += struct.pack("<HBBiQII8x", 0, cpu, kind, func, tsc, tid, pid if version >= 3 else 0)
    with open(path, "wb") as f:
        f.write(out)


def calls(tid, t0, spec, step=100, pid=None):
    """Records of one thread from a compact spec: "+3" enters 3, "-3" exits 3,
    "t3" tail-exits 3; one TSC step between records."""
    recs, t = [], t0
    for tok in spec.split():
        kind = {"+": ENTER, "-": EXIT, "t": TAIL_EXIT}[tok[0]]
        recs.append((kind, int(tok[1:]), t, tid, pid if pid is not None else tid))
        t += step
    return recs


def llvm_xray():
    """The llvm-xray 14 program, or None (scripts/install-deps.sh test installs llvm-14)."""
    for name in (os.environ.get("LLVM_XRAY"), "llvm-xray-14", "llvm-xray"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def run_llvm(argv, timeout=300):
    p = subprocess.run(argv, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def sorted_yaml(llvm, log, out_path):
    """`llvm-xray convert -f yaml` of a log (records sorted by TSC), with the
    header version set to 1: llvm-xray 14 reads YAML traces of version 1
    only.  Reading this back, llvm-xray account sees each thread's records in
    time order and its "TSC below the first record's" check never fires."""
    code, out, err = run_llvm([llvm, "convert", "-f", "yaml", log])
    if code != 0:
        raise RuntimeError(f"llvm-xray convert {log}: {err.decode(errors='replace')}")
    lines = out.decode().splitlines(True)
    lines = ["  version:         1\n" if l.startswith("  version:") else l for l in lines]
    with open(out_path, "w") as f:
        f.writelines(lines)


def build_sample(corpus, out_dir, debug=True):
    """The corpus's sample program (its source is in xray-samples/INDEX.md),
    built as INDEX.md says with clang-14's XRay instrumentation (-g or not):
    the instrumentation map of the corpus logs (same function ids).  None
    when clang-14 is missing."""
    clang = shutil.which("clang-14")
    if not clang:
        return None
    with open(os.path.join(corpus, "xray-samples", "INDEX.md")) as f:
        src = re.search(r"```c\n(.*?)```", f.read(), re.S).group(1)
    c = os.path.join(out_dir, "sample.c")
    with open(c, "w") as f:
        f.write(src)
    exe = os.path.join(out_dir, "sample" + ("" if debug else "-nog"))
    cmd = [clang, "-O1", "-fxray-instrument", "-fxray-instruction-threshold=1",
           "-fxray-instrumentation-bundle=all", "-pthread", c, "-o", exe]
    if debug:
        cmd.insert(1, "-g")
    p = subprocess.run(cmd, capture_output=True)
    if p.returncode != 0:
        raise RuntimeError(f"clang-14: {p.stderr.decode(errors='replace')}")
    return exe
