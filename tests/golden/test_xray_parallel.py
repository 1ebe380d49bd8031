"""XRay outputs never depend on the number of jobs.

The XRay reader cuts its sorted output (llvm-xray's stable sort by TSC)
into TSC chunks decoded on jobs - 1 threads, the chunk size depending on
the number of jobs (about 1/8 of a job's share, at least 64 records), and
finds the runs of each FDR thread on a thread of its own: so --jobs 1, 2
and 8 cut every log differently.  This test runs -o xray-yaml (sorted and
--sort=false), -o chrome, the text and JSON outputs, instrumentation maps,
and xray-account (also with several passes over the log) on every XRay
log of the corpus and of tests/data/xray, llvm-xray YAML traces, the XRay
fuzz regressions and damaged copies (cuts and bit flips, strict and
--lenient) of the large logs, with --jobs 1, 2 and 8, and requires
identical standard output, standard error and exit status.  --jobs 1 is
what test_xray_yaml.py, test_xray_chrome.py and test_xray_account.py
compare with llvm-xray.

--quick: a small subset, for the ThreadSanitizer build (tests/run-all.sh).
"""
import glob
import os
import random
import shutil
import sys
import tempfile

from bt2ref import Report, parse_args, run
from jobsdiff import cut_or_flip, jobs_difference, take_quick_flag

JOBS = ["1", "2", "8"]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "../data/xray")
# Output options (None: xray-account, given as a subcommand).
OUTPUTS = [
    ["-o", "xray-yaml"],
    ["-o", "xray-yaml", "--sort=false"],
    ["-o", "chrome"],
    [],
    ["-o", "json"],
    ["xray-account"],
    ["xray-account", "-d", "-sort=count"],
    ["xray-account", "--account-memory=1K"],   # percentiles from more passes over the log
]
QUICK_OUTPUTS = [["-o", "xray-yaml"], ["-o", "chrome"], ["xray-account"]]
DAMAGED = ["fdr-v5-large.xray", "basic-v3-large.xray", "fdr-v5-tinybuf-dropped.xray"]
DAMAGES_PER_FILE = 6
DAMAGED_OUTPUTS = [["-o", "xray-yaml"], ["-o", "chrome"], ["xray-account"], []]


def argv_for(opts, jobs, path):
    if opts and opts[0] == "xray-account":
        return opts[:1] + ["--jobs", jobs] + opts[1:] + [path]
    return ["--jobs", jobs] + opts + [path]


def compare(report, args, what, opts, path):
    results = {j: run(args.tracemux, argv_for(opts, j, path), timeout=300) for j in JOBS}
    detail = jobs_difference(results, JOBS)
    if detail:
        report.fail(what, detail)
    else:
        report.ok()


def inputs(samples, quick):
    logs = sorted(glob.glob(os.path.join(samples, "*.xray")))
    data = sorted(glob.glob(os.path.join(DATA, "*.xray")) + glob.glob(os.path.join(DATA, "*.yaml")))
    regressions = sorted(glob.glob(os.path.join(HERE, "../../fuzz/regressions/xray/*")))
    if quick:
        return [p for p in logs if os.path.basename(p) in ("fdr-v5-large.xray", "basic-v3-small.xray")]
    return logs + data + regressions


def damaged_copies(samples, work, rng, quick):
    """Yields (name, path) for cut and bit-flipped copies of DAMAGED's logs, past their header."""
    for name in DAMAGED[:1] if quick else DAMAGED:
        with open(os.path.join(samples, name), "rb") as f:
            original = f.read()
        path = os.path.join(work, name)
        for k in range(2 if quick else DAMAGES_PER_FILE):
            pos = rng.randrange(32, len(original))
            damaged, kind = cut_or_flip(original, pos, k, rng)
            with open(path, "wb") as f:
                f.write(damaged)
            yield f"{name} {kind}", path


def main():
    quick = take_quick_flag()
    args = parse_args()
    samples = os.path.join(args.corpus, "xray-samples")
    if not os.path.isdir(samples):
        print(f"FAIL: the XRay corpus is missing: {samples}")
        sys.exit(1)
    report = Report("XRay outputs (--jobs 1, 2, 8)")
    for path in inputs(samples, quick):
        for opts in QUICK_OUTPUTS if quick else OUTPUTS:
            compare(report, args, f"{os.path.basename(path)} {' '.join(opts)}", opts, path)
    # Names from instrumentation maps (the reader's function texts).
    yaml_map = os.path.join(samples, "instrmap.yaml")
    for opts in ([] if quick else (["-o", "xray-yaml", "--symbolize", "--instr-map", yaml_map],
                                   ["-o", "chrome", "--instr-map", yaml_map],
                                   ["xray-account", "--instr-map", yaml_map])):
        compare(report, args, f"fdr-v5-small.xray {' '.join(opts)}", opts,
                os.path.join(samples, "fdr-v5-small.xray"))
    work = tempfile.mkdtemp(prefix="tracemux-xray-parallel-")
    try:
        rng = random.Random(16)
        for what, path in damaged_copies(samples, work, rng, quick):
            for out in QUICK_OUTPUTS if quick else DAMAGED_OUTPUTS:
                lenient = (out[:1] + ["--lenient"] + out[1:] if out[:1] == ["xray-account"]
                           else ["--lenient"] + out)
                for opts in (out, lenient):
                    compare(report, args, f"{what} {' '.join(opts)}", opts, path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
