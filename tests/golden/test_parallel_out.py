"""The parallel runner with the Chrome output and the CTF writer: output bytes never
depend on the number of jobs.

Runs -o chrome (and --sched-slices) and -o ctf (CTF 1.8 and CTF 2 output, and small
packets, which splits input packets) on corpus CTF 1.8 and CTF 2 traces, trace.dat
files, XRay logs, inputs of several formats and damaged copies (cuts and bit flips, see
test_parallel.py), with --jobs 1, 2 and 8, and requires identical standard output,
standard error, exit status and, for -o ctf, the same files with the same bytes.
--jobs 1 is the sequential path that test_ctf_writer.py and the Chrome tests check;
this test makes the parallel path answer for the same bytes.  A trace without a UUID
gets a random one per run: it is masked in the metadata and the packet headers.

Then trace.dat streams read in segments (src/par/split.c): with TRACEMUX_SEGMENT_BYTES
every stream of two pages (or compressed chunks) or more is cut into segments of one or
two of them, read by several threads at once and merged back as one stream.  The corpus's
trace.dat files and the repository's (among them a one-CPU trace of 79 compressed chunks),
and damaged copies of the one-CPU trace and of a v6 file (cuts and bit flips in the CPU
data, strict and --lenient), give with --jobs 1, 2 and 4 the same bytes, warnings and
status for the text, json, chrome, perfetto, dummy and tracecmd outputs (the one-CPU trace
also trimmed and filtered).

--quick: a small subset, for the ThreadSanitizer build.
"""
import glob
import os
import random
import re
import shutil
import tempfile

from bt2ref import Report, parse_args, run
from jobsdiff import cut_or_flip, files_difference, jobs_difference, take_quick_flag
from test_parallel import DAMAGED, FILTER, corpus_groups, damaged_copies, trim_range

JOBS = ["1", "2", "8"]
CTF_SETS = [["-o", "ctf"], ["-o", "ctf", "--ctf-version=2"], ["-o", "ctf", "--ctf-packet-size=200"]]
CHROME_SETS = [["-o", "chrome"], ["-o", "chrome", "--sched-slices"]]


def inputs(corpus, quick):
    # XRay: one unit of several streams (threads) for the CTF writer; Chrome sequential.
    ctf, ctf2, dat, xray = corpus_groups(corpus)
    if quick:
        return ctf[::12] + ctf2[::60] + dat[:2] + xray[:1]
    return ctf + ctf2[::4] + dat + xray


def uuids(out_dir):
    """The UUIDs written, as (text form, JSON array form, bytes), from each metadata file."""
    found = []
    for meta in glob.glob(os.path.join(out_dir, "**/metadata"), recursive=True):
        with open(meta, "rb") as f:
            text = f.read()
        m = re.search(rb'uuid = "([0-9a-f-]{36})"', text)
        if m:
            raw = bytes.fromhex(m.group(1).decode().replace("-", ""))
        else:
            m = re.search(rb'"uuid":\[([0-9,]+)\]', text)
            if not m:
                continue
            raw = bytes(int(x) for x in m.group(1).split(b","))
        found.append((m.group(1), raw))
    return found


def written(out_dir):
    """Every file under out_dir: relative path -> bytes, with the UUIDs masked."""
    masks = uuids(out_dir)
    files = {}
    for root, _, names in os.walk(out_dir):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                data = f.read()
            for text, raw in masks:
                data = data.replace(text, b"UUID").replace(raw, b"\0" * 16)
            files[os.path.relpath(path, out_dir)] = data
    return files


def compare(report, args, work, what, argv, ctf):
    out_dir = os.path.join(work, "out")
    results = {}
    for j in JOBS:
        shutil.rmtree(out_dir, ignore_errors=True)
        extra = ["-w", out_dir] if ctf else []
        code, out, err = run(args.tracemux, ["--jobs", j] + extra + argv, timeout=120)
        results[j] = (code, out, err, written(out_dir) if ctf else {})
    detail = jobs_difference(results, JOBS) or files_difference(results, JOBS)
    if detail:
        report.fail(what, detail)
    else:
        report.ok()


SEGMENT_JOBS = ["1", "2", "4"]
SEGMENT_OUTPUTS = [[], ["-o", "json"], ["-o", "chrome"], ["-o", "perfetto"], ["-o", "dummy"],
                   ["-o", "tracecmd"]]
HERE = os.path.dirname(os.path.abspath(__file__))
ONE_CPU = "tracecmd-samples/external/hip24_documentation_tca_test_trace-Salamander4_4780888b.dat"


def segment_inputs(corpus, quick):
    dat = sorted(glob.glob(os.path.join(corpus, "tracecmd-samples/*.dat")) +
                 glob.glob(os.path.join(corpus, "tracecmd-samples/external/*.dat")) +
                 glob.glob(os.path.join(HERE, "../data/tracedat/*.dat")))
    one = os.path.join(corpus, ONE_CPU)
    dat = [one] + [d for d in dat if os.path.abspath(d) != os.path.abspath(one)]
    return dat[:3] if quick else dat


def compare_segments(report, args, what, argv):
    """--jobs 1, 2 and 4 with the streams cut into segments: the same results."""
    results = {j: run(args.tracemux, ["--jobs", j] + argv, timeout=120) for j in SEGMENT_JOBS}
    detail = jobs_difference(results, SEGMENT_JOBS)
    if detail:
        report.fail(what, detail)
    else:
        report.ok()


def segments(report, args, work, quick):
    """trace.dat streams read in segments of one page or chunk (two for some)."""
    rng = random.Random(28)
    os.environ["TRACEMUX_SEGMENT_BYTES"] = "4096"
    try:
        for n, path in enumerate(segment_inputs(args.corpus, quick)):
            name = os.path.relpath(path, args.corpus)
            for opts in SEGMENT_OUTPUTS[:2] if quick else SEGMENT_OUTPUTS:
                compare_segments(report, args, f"segments: {name} {' '.join(opts)}", opts + [path])
            if n == 0:   # the one-CPU trace: trimming (a stop, dropped messages), a filter
                trim = trim_range(args, path)
                for opts in ([trim, ["-o", "json"] + trim] if trim else []) + [FILTER]:
                    compare_segments(report, args, f"segments: {name} {' '.join(opts)}",
                                     opts + [path])
            if n % 3 == 0:
                os.environ["TRACEMUX_SEGMENT_BYTES"] = "8192"
                compare_segments(report, args, f"segments of 8 KiB: {name}", [path])
                os.environ["TRACEMUX_SEGMENT_BYTES"] = "4096"
        # Damaged copies: the output up to the fault, then the same error (or warnings).
        for rel in [ONE_CPU, "tracecmd-samples/sched-v6.dat"]:
            src = os.path.join(args.corpus, rel)
            with open(src, "rb") as f:
                original = f.read()
            trace = os.path.join(work, os.path.basename(src))
            for k in range(2 if quick else 6):
                # the CPU data is the file's second half
                pos = rng.randrange(len(original) // 2, len(original))
                damaged, kind = cut_or_flip(original, pos, k, rng)
                with open(trace, "wb") as f:
                    f.write(damaged)
                for opts in ([], ["--lenient"], ["-o", "json", "--lenient"], ["-o", "perfetto"]):
                    compare_segments(report, args, f"segments: {rel} {kind} {' '.join(opts)}",
                                     opts + [trace])
                if quick:
                    break
    finally:
        del os.environ["TRACEMUX_SEGMENT_BYTES"]


def main():
    quick = take_quick_flag()
    args = parse_args()
    report = Report("parallel runner, chrome and ctf outputs (--jobs 1, 2, 8)")
    work = tempfile.mkdtemp(prefix="tracemux-parallel-out-")
    ctf_sets = CTF_SETS[:2] if quick else CTF_SETS
    try:
        def both(what, argv, lenient=False):
            extra = ["--lenient"] if lenient else []
            for opts in CHROME_SETS[:1] + ctf_sets:
                compare(report, args, work, f"{what} {' '.join(extra + opts)}", extra + opts + argv,
                        "ctf" in opts)

        for path in inputs(args.corpus, quick):
            both(os.path.relpath(path, args.corpus), [path])
            if path.endswith(".dat") or "lttng" in path or "kernel" in path:
                compare(report, args, work, f"{os.path.relpath(path, args.corpus)} --sched-slices",
                        CHROME_SETS[1] + [path], False)
        # Several readers at once; with XRay, Chrome stays sequential (llvm-xray's order).
        dat = sorted(glob.glob(os.path.join(args.corpus, "tracecmd-samples/*.dat")))
        xray = sorted(glob.glob(os.path.join(args.corpus, "xray-samples/*.xray")))
        ctf = os.path.join(args.corpus, DAMAGED[0])
        both("ctf + trace.dat", [ctf] + dat[:2])
        compare(report, args, work, "ctf + xray -o chrome", ["-o", "chrome", ctf] + xray[:1], False)
        # Damaged inputs: what is written before the fault, then the same error.
        rng = random.Random(16)
        for what, trace, _ in damaged_copies(args, work, rng):
            both(what, [trace])
            both(what, [trace], lenient=True)
            if quick:
                break
        segments(report, args, work, quick)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
