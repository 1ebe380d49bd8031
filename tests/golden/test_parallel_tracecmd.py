"""`-o tracecmd` on trace.dat files (the trace-cmd report emulation): output
bytes never depend on the number of jobs.

With several jobs, worker threads read the CPUs of every buffer ahead and
write the parts of each line that depend on the record alone; the main
thread merges in libtracecmd's order and adds what depends on the records
before (src/tools/tracecmd/report_par.c).  This runs every trace.dat of the
corpus and of tests/data (instances, guests, function graphs, odd clocks,
both byte orders, v6 and v7) under the option sets that touch the merge or
the main thread's part -- --ts-diff, -l, -R, --nsec, --cpu, -F / -v filters,
--pid, -I, --wakeup, --ts-check, -O fgraph options, --events / --filter, the
timestamp options, --profile -- alone and merged (several files, a host
with its guests), and cut and bit-flipped copies (with and without
--lenient) with --jobs 1, 2 and 8, in both --report-version (3.3, the
default, and 3.1), and requires identical standard output,
standard error and exit status.  --jobs 1 is the sequential report, which
the other tracecmd tests compare with trace-cmd itself.

--quick: a small subset, for the ThreadSanitizer build (label tsan).
"""
import glob
import os
import random
import re
import shutil
import subprocess
import tempfile

from bt2ref import Report, parse_args, run
from jobsdiff import jobs_difference, take_quick_flag

JOBS = ["1", "2", "8"]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "../data")

OPTION_SETS = [
    [],
    ["--ts-diff"],
    ["-l"],
    ["-l", "-R", "--ts-diff"],
    ["-R"],
    ["--nsec", "--ts-diff"],
    ["-N"],
    ["--cpu", "0"],
    ["--cpu", "1,3"],
    ["-F", "sched_switch"],
    ["-F", "common_pid != 0"],
    ["-v", "-F", "sched", "--ts-diff"],
    ["--pid", "1"],
    ["-I", "-S"],
    ["--wakeup"],
    ["--ts-check"],
    ["-O", "fgraph:tailprint", "-O", "fgraph:depth"],
    ["--events=sched:*"],
    ["--filter=$name =~ \"[aeiou]$\""],
    ["--raw-ts"],
    ["--align-ts", "--nodate"],
    ["--profile"],
]
QUICK_OPTION_SETS = [[], ["--ts-diff", "-l"], ["-F", "sched_switch", "--cpu", "0"]]
# The option sets above run with the default --report-version (3.3: a flags
# column the main thread writes between the parts the workers wrote); these
# with --report-version=3.1 too.
V31_SETS = [[], ["--ts-diff"], ["-R"], ["-l"]]
QUICK_V31_SETS = [[], ["-R"]]
# Files whose damaged copies are compared: per-CPU data, compressed chunks,
# instances, a function graph (the look-ahead meets the damage).
DAMAGED = [
    "corpus:tracecmd-samples/sched-v6.dat",
    "corpus:tracecmd-samples/sched-v7-zstd.dat",
    "corpus:tracecmd-samples/multibuf-v7-zstd.dat",
    "data:tracedat/funcgraph/fg-le8-v7.dat",
]
DAMAGES_PER_FILE = 6


def locate(args, name):
    kind, rel = name.split(":", 1)
    return os.path.join(args.corpus if kind == "corpus" else DATA, rel)


def inputs(args, quick):
    corpus = sorted(glob.glob(os.path.join(args.corpus, "tracecmd-samples/*.dat")) +
                    glob.glob(os.path.join(args.corpus, "tracecmd-samples/external/*.dat")) +
                    glob.glob(os.path.join(args.corpus, "tracecmd-3.4/*.dat")))
    data = sorted(glob.glob(os.path.join(DATA, "tracedat/*.dat")) +
                  glob.glob(os.path.join(DATA, "tracedat/funcgraph/*.dat")) +
                  glob.glob(os.path.join(DATA, "tracecmd-report/*.dat")) +
                  glob.glob(os.path.join(DATA, "kvm/*.dat")))
    single = [[p] for p in corpus + data]
    kvm = os.path.join(DATA, "kvm")
    merged = [
        # several files: prefixes, CPUs numbered across files, first file wins ties
        [os.path.join(args.corpus, "tracecmd-samples/sched-v6.dat"),
         os.path.join(args.corpus, "tracecmd-samples/multibuf-v7-zstd.dat")],
        [os.path.join(DATA, "tracedat/funcgraph/fg-pair-a.dat"),
         os.path.join(DATA, "tracedat/funcgraph/fg-pair-b.dat")],
        # a KVM host and its guests (guest symbols in the host's kvm events)
        [os.path.join(kvm, "host.dat"), os.path.join(kvm, "guest-a.dat"),
         os.path.join(kvm, "guest-b.dat")],
    ]
    if quick:
        return [s for s in single if "sched-v7-zstd.dat" in s[0] or "multibuf" in s[0] or
                "t4_v7_instance" in s[0]] + merged[:1]
    return single + merged


def compare(report, args, what, argv):
    results = {j: run(args.tracemux, ["--jobs", j, "-o", "tracecmd"] + argv, timeout=300)
               for j in JOBS}
    detail = jobs_difference(results, JOBS)
    if detail:
        report.fail(what, detail)
    else:
        report.ok()


def cpu_data(path):
    """(offset, size) of the CPU data of every buffer, from `trace-cmd dump --flyrecord`;
    without trace-cmd, the end of the file (where the ring-buffer data is)."""
    try:
        p = subprocess.run(["trace-cmd", "dump", "--flyrecord", "-i", path],
                           capture_output=True, timeout=60)
        spans = []
        for line in p.stdout.decode(errors="replace").splitlines():
            m = re.match(r"\s*\d+\s+(\d+)\s+(\d+)\s+\[id, data offset and size\]", line)
            if m and int(m.group(2)):
                spans.append((int(m.group(1)), int(m.group(2))))
        if spans:
            return spans
    except (OSError, subprocess.SubprocessError):
        pass
    size = os.path.getsize(path)
    return [(size - min(size // 4, 32768), min(size // 4, 32768))]


def damaged_copies(args, work, rng, quick):
    """Yields (name, path) for copies of DAMAGED's files with bits flipped or bytes
    zeroed inside their CPU data (page headers, record headers, compressed chunks):
    errors and, with --lenient, warnings in the middle of the records."""
    for name in DAMAGED[:2] if quick else DAMAGED:
        src = locate(args, name)
        if not os.path.isfile(src):
            continue
        with open(src, "rb") as f:
            original = f.read()
        spans = cpu_data(src)
        path = os.path.join(work, os.path.basename(src))
        for k in range(2 if quick else DAMAGES_PER_FILE):
            damaged = bytearray(original)
            off, size = spans[rng.randrange(len(spans))]
            # past the first page or chunk: some records come before the damage
            pos = off + rng.randrange(min(size, 4096) // 2, size)
            if k % 2:
                n = rng.randrange(8, 64)
                damaged[pos:pos + n] = bytes(len(damaged[pos:pos + n]))
                kind = f"{n} bytes zeroed at {pos}"
            else:
                for _ in range(1 + k):
                    damaged[pos + rng.randrange(16)] ^= 1 << rng.randrange(8)
                kind = f"{1 + k} bits flipped at {pos}"
            with open(path, "wb") as f:
                f.write(damaged)
            yield f"{name} {kind}", path


def main():
    quick = take_quick_flag()
    args = parse_args()
    report = Report("-o tracecmd on trace.dat (--jobs 1, 2, 8)")
    option_sets = QUICK_OPTION_SETS if quick else OPTION_SETS
    for paths in inputs(args, quick):
        if not all(os.path.isfile(p) for p in paths):
            continue
        names = " + ".join(os.path.basename(p) for p in paths)
        for opts in option_sets:
            compare(report, args, f"{names} {' '.join(opts)}", opts + paths)
        for opts in QUICK_V31_SETS if quick else V31_SETS:
            opts = ["--report-version=3.1"] + opts
            compare(report, args, f"{names} {' '.join(opts)}", opts + paths)
    work = tempfile.mkdtemp(prefix="tracemux-partc-")
    try:
        rng = random.Random(1616)
        for what, path in damaged_copies(args, work, rng, quick):
            for opts in ([], ["--lenient"], ["--lenient", "--ts-diff", "-F", "sched_switch"],
                         ["--cpu", "1"]):
                compare(report, args, f"{what} {' '.join(opts)}", opts + [path])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
