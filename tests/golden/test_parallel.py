"""The parallel runner: output bytes never depend on the number of jobs.

Runs the text, json, dummy and tracecmd outputs (and text with trimming,
--lenient, cycles and field names) of many corpus traces -- CTF 1.8, CTF 2, trace.dat,
XRay, traces that fail midway, damaged copies (cuts and bit flips of
multi-stream traces), the fuzz regressions that are whole input files --
with --jobs 1, 2 and 8, and requires identical standard output, standard
error and exit status.  --jobs 1 is the sequential path that the other
golden tests check against the real tools; this test makes the parallel
path answer for the same bytes.

--quick: a small subset, for the ThreadSanitizer build (tests/run-all.sh).
"""
import glob
import os
import random
import shutil
import tempfile

from bt2ref import Report, parse_args, run
from jobsdiff import cut_or_flip, jobs_difference, take_quick_flag

JOBS = ["1", "2", "8"]
# Any trace has class names: about half of them end with a vowel.
FILTER = ["--filter=$name =~ \"[aeiou]$\""]
OPTION_SETS = [
    [],
    ["-o", "json"],
    ["-o", "dummy"],
    ["--clock-cycles", "-n", "all", "-f", "all"],
    ["--stream-intersection"],
    ["--lenient"],
    ["-o", "tracecmd"],   # the layout of model events; trace.dat: the report emulation
    FILTER,               # events dropped within their streams (readers' muxers / workers)
    ["-o", "json", "--filter=$name !~ \"^sched\""],
]
QUICK_OPTION_SETS = [[], ["-o", "json"], ["-o", "dummy"], ["-o", "tracecmd"]]
# Multi-stream traces whose damaged copies are compared.
DAMAGED = [
    "babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u",     # 8 streams
    "babeltrace-tests/ctf-traces/succeed/multi-domains/ust",
    "tracecmd-samples/sched-v6.dat",                          # per-CPU streams
    "tracecmd-samples/sched-v7-zstd.dat",                     # compressed chunks
]
DAMAGES_PER_FILE = 4


def corpus_groups(corpus):
    """The corpus's CTF 1.8 traces (babeltrace's tests), CTF 2 conversions,
    trace.dat files and XRay logs, each list sorted."""
    bt = os.path.join(corpus, "babeltrace-tests/ctf-traces")
    ctf = sorted(os.path.dirname(m) for m in glob.glob(os.path.join(bt, "**/metadata"), recursive=True))
    ctf2 = sorted(d for d in glob.glob(os.path.join(corpus, "ctf2/converted/*"))
                  if os.path.isfile(os.path.join(d, "metadata")))
    dat = sorted(glob.glob(os.path.join(corpus, "tracecmd-samples/*.dat")))
    xray = sorted(glob.glob(os.path.join(corpus, "xray-samples/*.xray")))
    return ctf, ctf2, dat, xray


def corpus_inputs(corpus, quick):
    ctf, ctf2, dat, xray = corpus_groups(corpus)
    here = os.path.dirname(os.path.abspath(__file__))
    regressions = sorted(glob.glob(os.path.join(here, "../../fuzz/regressions/tracedat/*")) +
                         glob.glob(os.path.join(here, "../../fuzz/regressions/xray/*")))
    if quick:
        return ctf[::6] + ctf2[::8] + dat[:2] + xray[:1] + regressions[:2]
    return ctf + ctf2 + dat + xray + regressions


def trim_range(args, path):
    """--begin/--end at a third and two thirds of the events' times, or None."""
    code, out, _ = run(args.tracemux, ["--jobs", "1", "-o", "json", path])
    times = [int(m.split(b'"ts_ns":')[1].split(b",")[0]) for m in out.splitlines()
             if m.startswith(b'{"type":"event"') and b'"ts_ns":' in m]
    if code != 0 or len(times) < 6:
        return None
    times.sort()
    def text(ns):
        sign = "-" if ns < 0 else ""
        return f"{sign}{abs(ns) // 1000000000}.{abs(ns) % 1000000000:09d}"
    return ["--begin", text(times[len(times) // 3]), "--end", text(times[2 * len(times) // 3])]


def compare(report, args, what, argv):
    results = {j: run(args.tracemux, ["--jobs", j] + argv, timeout=120) for j in JOBS}
    detail = jobs_difference(results, JOBS)
    if detail:
        report.fail(what, detail)
    else:
        report.ok()


def damaged_copies(args, work, rng):
    """Yields (name, path, trim options of the intact trace) for cut and bit-flipped copies
    of DAMAGED's data files."""
    corpus = args.corpus
    for rel in DAMAGED:
        src = os.path.join(corpus, rel)
        if os.path.isfile(src):   # a trace.dat: the file itself
            trace = os.path.join(work, os.path.basename(src))
            shutil.copyfile(src, trace)
            targets = [(os.path.basename(src), trace)]
        else:
            trace = os.path.join(work, "t")
            shutil.rmtree(trace, ignore_errors=True)
            shutil.copytree(src, trace)
            files = sorted(f for f in os.listdir(trace) if f != "metadata" and
                           os.path.isfile(os.path.join(trace, f)) and not f.startswith("."))
            targets = [(name, os.path.join(trace, name)) for name in files[:3]]
        trim = trim_range(args, trace)
        for name, path in targets:
            with open(path, "rb") as f:
                original = f.read()
            if len(original) < 8:
                continue
            for k in range(DAMAGES_PER_FILE):
                # trace.dat: the data is in the second half, after the headers.
                low = len(original) // 2 if trace == path else 0
                pos = rng.randrange(low, len(original))
                damaged, kind = cut_or_flip(original, pos, k, rng)
                with open(path, "wb") as f:
                    f.write(damaged)
                yield f"{rel}/{name} {kind}", trace, trim
            with open(path, "wb") as f:
                f.write(original)


def main():
    quick = take_quick_flag()
    args = parse_args()
    report = Report("parallel runner (--jobs 1, 2, 8)")
    option_sets = QUICK_OPTION_SETS if quick else OPTION_SETS
    for path in corpus_inputs(args.corpus, quick):
        sets = list(option_sets)
        trim = trim_range(args, path)
        if trim:   # trimming: dropped messages, the stop at the end time
            sets += [trim, ["-o", "json"] + trim]
        for opts in sets:
            compare(report, args, f"{os.path.relpath(path, args.corpus)} {' '.join(opts)}", opts + [path])
    # Inputs of several formats at once: several readers, merged by the source's muxer
    # (XRay has no per-stream iterators: its reader is one unit).
    dat = sorted(glob.glob(os.path.join(args.corpus, "tracecmd-samples/*.dat")))
    xray = sorted(glob.glob(os.path.join(args.corpus, "xray-samples/*.xray")))
    ctf = os.path.join(args.corpus, DAMAGED[0])
    for opts in option_sets:
        compare(report, args, f"ctf + trace.dat {' '.join(opts)}", opts + [ctf] + dat[:1])
        compare(report, args, f"ctf + xray {' '.join(opts)}", opts + [ctf] + xray[:1])
    # Times on both sides of the origin: the first negative one is printed as
    # seconds after a warning, in merged order (a hole the merge fills).
    for opts in ([], ["-n", "header", "--no-delta"], ["--clock-date"], ["-o", "json"]):
        compare(report, args, f"negative times {' '.join(opts)}",
                ["--clock-offset=-1351532898"] + opts + [ctf])
    work = tempfile.mkdtemp(prefix="tracemux-parallel-")
    try:
        rng = random.Random(16)
        for what, trace, trim in damaged_copies(args, work, rng):
            sets = [[], ["--lenient"]] if quick else [[], ["--lenient"], ["-o", "json"], FILTER]
            if trim:   # an error or a warning after a message trimming dropped
                sets += [trim, ["--lenient"] + trim]
            for opts in sets:
                compare(report, args, f"{what} {' '.join(opts)}", opts + [trace])
            if quick:
                break
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
