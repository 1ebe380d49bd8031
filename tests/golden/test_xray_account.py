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
4. The memory budget (--account-memory): with a budget too small for the
   latencies, the median/90p/99p come from more passes over the log
   (histograms, then candidates); the table must still be llvm-xray's, byte
   for byte.  On the corpus logs, and on generated logs (fixed seeds) where
   several functions and all three percentiles need refinement: latencies
   from 1 cycle to 2^62 (many passes), at and above 2^32 (stored apart),
   all equal, ties at the ranks, functions with 1 and 2 calls, nested,
   recursive and sibling calls (-d, --recursive-calls-only), figures in
   cycles (cycle frequency 0) so that every cycle shows.

Names: without an instrumentation map both print "(unknown): #ID"; with the
corpus's YAML map llvm-xray prints "<invalid>:0:0: @(address)" (it cannot
symbolize a YAML file); with the sample program rebuilt from the corpus's
INDEX.md (clang-14), symbol names and DWARF file:line:column (with -g) or
the STT_FILE name of static functions (without).
"""
import os
import random
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


_llvm_runs = {}


def llvm_account(llvm, argv):
    """llvm-xray account, each command line run once (the large logs take it seconds)."""
    key = tuple(argv)
    if key not in _llvm_runs:
        _llvm_runs[key] = run_llvm([llvm, "account"] + argv)
    return _llvm_runs[key]


def compare(report, what, tmx_argv, llvm_argv, args, llvm, want_skip=None):
    code, out, err = run(args.tracemux, ["xray-account"] + tmx_argv)
    lcode, lout, lerr = llvm_account(llvm, llvm_argv)
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


# A budget of 1 byte: nothing stored, every percentile refined with the
# smallest histograms from [min, max] (most passes); 3K: some functions
# collected at once; 20K: pass 1's log-linear histograms (7.6 KiB each) for
# the first two functions, [min, max] for the others.
BUDGETS = ["--account-memory=1", "--account-memory=3K", "--account-memory=20K"]


def compare_budgets(report, what, tmx_argv, llvm_argv, args, llvm, min_passes=None):
    """tracemux with each of BUDGETS against one llvm-xray run.  min_passes:
    the tiny budget must have taken at least that many passes (the
    multi-pass path did run)."""
    lcode, lout, lerr = llvm_account(llvm, llvm_argv)
    if lcode != 0:
        report.fail(what, f"llvm-xray failed: {lerr.decode(errors='replace')[:500]}")
        return
    for budget in BUDGETS:
        code, out, err = run(args.tracemux, ["xray-account", budget] + tmx_argv)
        m = re.search(rb"(\d+) passes over the log", err)
        passes = int(m.group(1)) if m else 1
        if code != 0:
            report.fail(f"{what} {budget}", f"exit {code}: {err.decode(errors='replace')[:500]}")
        elif out != lout:
            report.fail(f"{what} {budget}", first_diff(lout, out))
        elif budget == BUDGETS[0] and min_passes and passes < min_passes:
            report.fail(f"{what} {budget}", f"{passes} passes, expected at least {min_passes}")
        elif passes > 10:
            report.fail(f"{what} {budget}", f"{passes} passes (at most 10)")
        else:
            report.ok()


def cut_sample(args, tmp, sample, size, name):
    """The first `size` bytes of a corpus XRay sample, as tmp/name."""
    with open(os.path.join(args.corpus, "xray-samples", sample), "rb") as f:
        cut = f.read()[:size]
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(cut)
    return path


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
        # Over the memory budget: the same tables from more passes (on the
        # large logs, option sets whose llvm-xray run is already done).
        budget_sets = [[], ["-d"], ["--recursive-calls-only"], ["-format=csv"]]
        for opts in budget_sets if "large" not in name else budget_sets[::2]:
            compare_budgets(report, f"{name} {' '.join(opts)}", opts + [log],
                            ["-k"] + opts + [yaml], args, llvm,
                            min_passes=3 if "large" in name and not opts else None)
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
    cut_path = cut_sample(args, tmp, "fdr-v5-small.xray", 1000, "cut.xray")
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


def budget_log(path, seed, n_top):
    """A basic log (cycle frequency 0: figures in cycles) of two threads of
    random call trees whose functions have chosen latency distributions:
      1 calls 2-9 (uniform 1..10^6 plus its callees' time)
      2 always 500 cycles          3 2^40 + 0..2^20 (all >= 2^32)
      4 half 1..1000, half 2^33 + 0..1000
      5 one call                   6 two calls
      7 2^(0..50) and once 2^62    8 100..120 (ties at the ranks)
      9 recursive (calls itself), 10 sometimes loses its exit (-d)"""
    rng = random.Random(seed)
    dist = {
        1: lambda: rng.randint(1, 10**6), 2: lambda: 500,
        3: lambda: (1 << 40) + rng.randint(0, 1 << 20),
        4: lambda: rng.randint(1, 1000) if rng.random() < 0.5 else (1 << 33) + rng.randint(0, 1000),
        5: lambda: rng.randint(1, 100), 6: lambda: rng.randint(1, 100),
        7: lambda: 1 << rng.randint(0, 50), 8: lambda: rng.randint(100, 120),
        9: lambda: rng.randint(10, 5000), 10: lambda: rng.randint(10, 5000),
    }
    leaves = [2, 3, 4, 7, 8]
    state = {"t": 1000, "once": set()}
    recs = []

    def call(tid, f, depth):
        recs.append((ENTER, f, state["t"], tid, tid))
        if f not in leaves:
            state["t"] += rng.randint(1, 50)
        lose_child_exit = False
        if f == 9 and depth < 6 and rng.random() < 0.6:
            call(tid, 9, depth + 1)
        elif f in (1, 10) and depth < 4:
            for _ in range(rng.randint(0, 3)):
                call(tid, rng.choice(leaves + [9, 10]), depth + 1)
            if f == 10 and rng.random() < 0.2:
                # A callee whose exit record is missing: -d closes it at 10's exit.
                recs.append((ENTER, rng.choice(leaves), state["t"], tid, tid))
                lose_child_exit = True
        state["t"] += dist[f]()
        if f == 7 and "2^62" not in state["once"] and rng.random() < 0.01:
            state["once"].add("2^62")
            state["t"] += 1 << 62
        recs.append((EXIT, f, state["t"], tid, tid))
        state["t"] += rng.randint(1, 50)
        return lose_child_exit

    for tid in (1, 2):
        for i in range(n_top):
            call(tid, rng.choice([1, 1, 1, 10, 9, 2, 3, 4, 7, 8]), 0)
            if tid == 1 and i == 3:
                call(tid, 5, 0)
            if i in (5, 7):
                call(tid, 6, 0)
    basic_log(path, recs, freq=0)


def budget_tests(report, args, llvm, tmp):
    for seed, n_top in ((1, 1500), (2, 400)):
        log = os.path.join(tmp, f"budget-{seed}.xray")
        budget_log(log, seed, n_top)
        yaml = os.path.join(tmp, f"budget-{seed}.yaml")
        sorted_yaml(llvm, log, yaml)
        for opts in [[], ["-d"], ["--recursive-calls-only"], ["-sort=med", "-sortorder=dsc"],
                     ["-sort=90p"], ["-sort=99p", "-top=4"]]:
            what = f"generated log {seed} {' '.join(opts)}"
            compare(report, what, opts + [log], ["-k"] + opts + [yaml], args, llvm)
            # Function 7's range (1 to 2^62 cycles) takes 256-bucket histograms
            # several passes (log 2 is small enough to be collected at once).
            compare_budgets(report, what, opts + [log], ["-k"] + opts + [yaml], args, llvm,
                            min_passes=5 if seed == 1 and not opts else None)
    # The worst case for the histograms: a cluster of 1001 calls (too many
    # to collect with a 1-byte budget) 2^51 cycles above the minimum and
    # 2^51 below the maximum (exact in a double): each pass narrows by
    # 256 buckets only.
    recs, n, top = [], 1001, 1 << 51
    for i in range(n):
        recs.append((ENTER, 3, 1000 + i, 1, 1))
    for j in range(n):
        recs.append((EXIT, 3, top + 5000 + j, 1, 1))
    recs += [(ENTER, 4, top + 9000, 1, 1), (EXIT, 4, top + 9001, 1, 1),
             (ENTER, 3, top + 9100, 1, 1), (EXIT, 3, top + 9101, 1, 1),
             (ENTER, 3, top + 9200, 1, 1), (EXIT, 3, top + 9200 + (1 << 52), 1, 1)]
    deep = os.path.join(tmp, "deep.xray")
    basic_log(deep, recs, freq=0)
    for opts in [[], ["--recursive-calls-only"]]:
        compare(report, f"deep cluster {' '.join(opts)}", opts + [deep], opts + [deep], args, llvm)
        compare_budgets(report, f"deep cluster {' '.join(opts)}", opts + [deep], opts + [deep],
                        args, llvm, min_passes=None if opts else 7)
    # A damaged log over the budget: every pass stops at the damage, so the
    # table is the one of the records before it, as without a budget (a
    # property check: llvm-xray prints no table on a damaged log).
    cut_path = cut_sample(args, tmp, "fdr-v5-large.xray", 900001, "cut-large.xray")
    code, out, err = run(args.tracemux, ["xray-account", cut_path])
    bcode, bout, berr = run(args.tracemux, ["xray-account", "--account-memory=1", cut_path])
    where = re.search(rb"error: .*cut-large.xray: at byte \d+: .*", err)
    if code != 1 or bcode != 1 or not where or where.group(0) not in berr or \
            not out.startswith(b"Functions with latencies: ") or bout != out or \
            b"passes over the log" not in berr:
        report.fail("damaged log over the budget", f"exit {code}/{bcode}: {berr[-400:]!r}")
    else:
        report.ok()
    # Bad values.
    for bad in ("0", "-5", "12X", "", "99999999999999999999"):
        code, _, err = run(args.tracemux, ["xray-account", f"--account-memory={bad}", log])
        if code != 2 or b"invalid --account-memory value" not in err:
            report.fail(f"--account-memory={bad}", f"exit {code}: {err.decode(errors='replace')}")
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
        budget_tests(report, args, llvm, tmp)
    report.finish()


if __name__ == "__main__":
    main()
