"""`tracemux xray-account` against `llvm-xray account` (llvm-xray 14, run live).

1. The corpus logs (FDR v5 and basic v3, multi-threaded, recorded with
   compiler-rt 14): llvm-xray account on the binary log rejects every record
   older than the first one it reads (whole threads of a multi-threaded log)
   and pairs calls of out-of-order FDR blocks; on the log converted to YAML
   (sorted by TSC) it gives the right per-thread figures.  tracemux on the
   binary log must print exactly that, for each sort field and order, -top,
   csv, -d and --recursive-calls-only.
2. Hand-made basic logs (tests/golden/xraygen.py) for what LLVM's own
   account-*.yaml tests exercise: a simple call, sibling-call deduction
   (-d), exits with no entry (skipped: llvm-xray needs -k), recursion with
   --recursive-calls-only, more than 16 functions with equal figures (the
   order of ties comes from llvm's DenseMap and std::sort, not from a
   stable sort), two threads written one after the other.  These are read
   by llvm-xray straight from the binary log.
3. What tracemux says it skipped (stderr), and --strict.

Names: without an instrumentation map both print "(unknown): #ID"; with the
corpus's YAML map llvm-xray prints "<invalid>:0:0: @(address)" (it cannot
symbolize a YAML file); with the sample program rebuilt from the corpus's
INDEX.md (clang-14), symbol names and DWARF file:line:column (with -g) or
the STT_FILE name of static functions (without).
"""
import os
import re
import sys
import tempfile

from bt2ref import Report, first_diff, parse_args, run
from xraygen import (ENTER, EXIT, basic_log, build_sample, calls, llvm_xray, run_llvm,
                     sorted_yaml)

CORPUS_LOGS = ["fdr-v5-small", "fdr-v5-tinybuf-dropped", "fdr-v5-large", "basic-v3-small",
               "basic-v3-large"]
OPTION_SETS = [
    [], ["-sort=count", "-sortorder=dsc"], ["-sort=min"], ["-sort=med", "-sortorder=dsc"],
    ["-sort=90p"], ["-sort=99p", "-sortorder=dsc"], ["-sort=max"], ["-sort=sum", "-top=3"],
    ["-sortorder=dsc", "-top=4"], ["-format=csv"], ["-format=csv", "-sort=count"], ["-d"],
    ["--recursive-calls-only"],
]


def compare(report, what, tmx_argv, llvm_argv, args, llvm, want_skip=None):
    code, out, err = run(args.tracemux, ["xray-account"] + tmx_argv)
    lcode, lout, lerr = run_llvm([llvm, "account"] + llvm_argv)
    if lcode != 0:
        report.fail(what, f"llvm-xray failed: {lerr.decode(errors='replace')[:500]}")
    elif code != 0:
        report.fail(what, f"exit {code}: {err.decode(errors='replace')[:500]}")
    elif out != lout:
        report.fail(what, first_diff(lout, out))
    elif want_skip is not None and want_skip not in err.decode():
        report.fail(what, f"stderr lacks {want_skip!r}: {err.decode(errors='replace')}")
    else:
        report.ok()
    return err


def corpus_tests(report, args, llvm, tmp):
    xs = os.path.join(args.corpus, "xray-samples")
    ymap = os.path.join(xs, "instrmap.yaml")
    binaries = [b for b in (build_sample(args.corpus, tmp, True), build_sample(args.corpus, tmp, False))
                if b]
    if not binaries:
        report.fail("clang-14 is not installed (scripts/install-deps.sh test): no instrumented binary")
    for name in CORPUS_LOGS:
        log = os.path.join(xs, name + ".xray")
        yaml = os.path.join(tmp, name + ".yaml")
        sorted_yaml(llvm, log, yaml)
        # The large logs take llvm-xray a second or two each: fewer option sets.
        for opts in OPTION_SETS if "large" not in name else OPTION_SETS[::4]:
            # -k: the tinybuf log starts with exits whose entries were dropped.
            compare(report, f"{name} {' '.join(opts)}", opts + [log], ["-k"] + opts + [yaml],
                    args, llvm)
        compare(report, f"{name} with the YAML map", ["-m", ymap, log],
                ["-k", "-instr_map=" + ymap, yaml], args, llvm)
        # The binary: names from its symbols, file:line:column from its DWARF
        # lines (-g) or the STT_FILE of static functions (no -g).
        for exe in binaries:
            compare(report, f"{name} with {os.path.basename(exe)}",
                    ["--instr-map", exe, "-sort=sum"] + [log],
                    ["-k", "-instr_map=" + exe, "-sort=sum", yaml], args, llvm)


def scenario_tests(report, args, llvm, tmp):
    def log(name, recs, **kw):
        path = os.path.join(tmp, name + ".xray")
        basic_log(path, recs, **kw)
        return path

    simple = log("simple", calls(1, 10000, "+1 -1 +1 +2 -2 -1", step=1000))
    compare(report, "simple", [simple], [simple], args, llvm)
    compare(report, "simple, cycle frequency 0 (figures in cycles)",
            [log("nofreq", calls(1, 10000, "+1 +2 -2 -1"), freq=0)],
            [os.path.join(tmp, "nofreq.xray")], args, llvm)

    # f1 -> f2 -> f3, f3 exits, then f1 exits: f2's exit is missing.
    sib = log("sibling", calls(1, 10000, "+1 +2 +3 -3 -1 +4 -4"))
    compare(report, "sibling calls, -d", ["-d", sib], ["-d", sib], args, llvm,
            want_skip=None)
    compare(report, "sibling calls, no -d (the mismatched exit is skipped)", [sib],
            ["-k", sib], args, llvm, want_skip="1 exit of a function that is not the innermost")
    # -d and an exit of a function that is not on the stack at all.
    compare(report, "-d, exit of a function not open", ["-d", log("notopen", calls(
        1, 10000, "+1 +2 -5 -2 -1"))], ["-d", "-k", os.path.join(tmp, "notopen.xray")], args,
        llvm, want_skip="1 exit of a function that is not open")

    # Exits before any entry (a flight-recorder log starting mid-stack).
    early = log("early", calls(1, 10000, "-3 -2 +1 -1 +2 -2"))
    compare(report, "exits with no entry, skipped (llvm-xray needs -k)", [early], ["-k", early],
            args, llvm, want_skip="2 exit with no open call on its thread")

    # Recursion: 1 -> 1 -> 1, 2 -> 3 -> 2 (indirect), 4 alone.
    rec = log("recursion", calls(1, 10000, "+1 +1 +1 -1 -1 -1 +2 +3 +2 -2 -3 -2 +4 -4 +1 -1"))
    compare(report, "recursion", [rec], [rec], args, llvm)
    compare(report, "--recursive-calls-only", ["--recursive-calls-only", rec],
            ["--recursive-calls-only", rec], args, llvm)

    # 40 functions with the same count and latencies, and 25 with equal
    # counts but different latencies: ties ordered as llvm's std::sort does.
    recs, t = [], 1000
    for f in list(range(40, 0, -1)) + list(range(100, 125)):
        for rep in range(2 if f < 100 else 3):
            lat = 50 if f < 100 else 10 + (f * 7) % 13
            recs += [(ENTER, f, t, 1, 1), (EXIT, f, t + lat, 1, 1)]
            t += 100
    ties = log("ties", recs)
    for opts in OPTION_SETS[:9] + [["-sort=sum", "-sortorder=dsc"], ["-sort=count", "-top=20"]]:
        compare(report, f"ties {' '.join(opts)}", opts + [ties], opts + [ties], args, llvm)

    # Two threads, thread 2's chunk first in the file although it starts
    # later: llvm-xray's check rejects thread 1 (-k drops it); the YAML
    # route and tracemux account both.
    two = log("threads", calls(2, 20000, "+1 +2 -2 -1 +3 -3") + calls(1, 10000, "+1 -1 +1 +2 -2 -1 +5 -5"))
    yaml = os.path.join(tmp, "threads.yaml")
    sorted_yaml(llvm, two, yaml)
    compare(report, "two threads (llvm-xray on the sorted YAML)", [two], ["-k", yaml], args, llvm)
    code, out, _ = run_llvm([llvm, "account", "-k", two])
    if code == 0 and b"       5 " in out:
        report.fail("two threads: llvm-xray -k was expected to drop thread 1 (function 5)")
    else:
        report.ok()

    # Calls never exited are reported; --strict stops at the first unmatched record.
    open_calls = log("open", calls(1, 10000, "+1 +2 -2 +3"))
    code, _, err = run(args.tracemux, ["xray-account", open_calls])
    if code != 0 or b"2 calls never exited" not in err:
        report.fail("calls never exited", err.decode(errors="replace"))
    else:
        report.ok()
    code, out, err = run(args.tracemux, ["xray-account", "--strict", early])
    if code != 1 or not re.search(rb"error: thread 1: exit with no open call.*function id 3, tsc 10000", err):
        report.fail("--strict", f"exit {code}: {err.decode(errors='replace')}")
    else:
        report.ok()
    # A damaged log: the table of what came before, then the error with its offset.
    with open(os.path.join(args.corpus, "xray-samples", "fdr-v5-small.xray"), "rb") as f:
        cut = f.read()[:1000]
    cut_path = os.path.join(tmp, "cut.xray")
    with open(cut_path, "wb") as f:
        f.write(cut)
    code, out, err = run(args.tracemux, ["xray-account", cut_path])
    if code != 1 or not out.startswith(b"Functions with latencies: ") or \
            not re.search(rb"error: .*cut.xray: at byte \d+: ", err):
        report.fail("damaged log", f"exit {code}: {out[:200]!r} {err[:300]!r}")
    else:
        report.ok()
    code, _, err = run(args.tracemux, ["xray-account", "-sort=bogus", simple])
    if code != 2 or b"invalid -sort value `bogus`" not in err:
        report.fail("bad -sort value", err.decode(errors="replace"))
    else:
        report.ok()


def main():
    args = parse_args()
    report = Report("xray-account vs llvm-xray account")
    llvm = llvm_xray()
    if not llvm:
        report.fail("llvm-xray 14 is not installed (scripts/install-deps.sh test installs llvm-14)")
        report.finish()
    with tempfile.TemporaryDirectory() as tmp:
        corpus_tests(report, args, llvm, tmp)
        scenario_tests(report, args, llvm, tmp)
    report.finish()


if __name__ == "__main__":
    main()
