"""`tracemux -o chrome` on XRay logs against `llvm-xray convert
--output-format=trace_event`, compared as parsed JSON: the "traceEvents"
list without our metadata events ("ph":"M") must equal llvm-xray's, and
"stackFrames" and "displayTimeUnit" too.

1. Stored references (no llvm-xray needed): the corpus's
   expected/<log>.convert-trace_event-symbolized.txt, made by llvm-xray 14
   with --symbolize: compared with tracemux --symbolize on the sample
   program rebuilt from INDEX.md (clang-14), and, names turned back into ids
   with the corpus's instrmap-symbolized.yaml, with tracemux without
   --symbolize.
2. llvm-xray 14 run live on the corpus logs and on hand-made basic logs
   (tests/golden/xraygen.py): exits that unwind several frames or exit a
   function that is not on the stack (all frames are closed), exits on an
   empty stack (dropped), call paths shared by threads (one stack-frame id),
   file versions 1 and 2 (three decimals, no pid), a cycle frequency that
   is not 1 GHz (inexact microseconds).
3. The metadata: every (pid, tid) of a B/E event has a "thread_name".
"""
import gzip
import json
import os
import re
import tempfile

from bt2ref import Report, parse_args, run
from xraygen import basic_log, build_sample, calls, llvm_xray, run_llvm

CORPUS_LOGS = ["fdr-v5-small", "fdr-v5-tinybuf-dropped", "fdr-v5-large", "basic-v3-small",
               "basic-v3-large"]


def load(data):
    return json.loads(data.decode("utf-8", "strict"))


def stored_ref(xs, name):
    path = os.path.join(xs, "expected", name + ".convert-trace_event-symbolized.txt")
    if not os.path.exists(path):
        path += ".gz"
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        lines = f.read().split(b"\n")
    # "# llvm-xray ..." first, "# exit=0" last.
    return b"\n".join(l for l in lines if not l.startswith(b"# "))


def ids_by_name(xs):
    ids = {}
    with open(os.path.join(xs, "instrmap-symbolized.yaml")) as f:
        for m in re.finditer(r"id: (\d+),.*function-name: (\w+)", f.read()):
            ids[m.group(2)] = m.group(1)
    return ids


def check(report, what, ours, theirs, rename=None):
    try:
        doc = load(ours)
    except ValueError as e:
        report.fail(what, f"not JSON: {e}")
        return
    ref = load(theirs)
    if rename:
        for e in ref["traceEvents"]:
            e["name"] = rename[e["name"]]
        for f in ref["stackFrames"].values():
            f["name"] = rename[f["name"]]
    events = [e for e in doc["traceEvents"] if e.get("ph") != "M"]
    named = {(e.get("pid"), e["tid"]) for e in doc["traceEvents"] if e["name"] == "thread_name"}
    used = {(e.get("pid"), e["tid"]) for e in events}
    if events != ref["traceEvents"]:
        bad = next((i for i, (a, b) in enumerate(zip(events, ref["traceEvents"])) if a != b),
                   min(len(events), len(ref["traceEvents"])))
        report.fail(what, f"{len(events)} events, llvm-xray {len(ref['traceEvents'])}; first "
                    f"difference at {bad}: {events[bad:bad + 1]} vs {ref['traceEvents'][bad:bad + 1]}")
    elif doc.get("stackFrames") != ref["stackFrames"]:
        report.fail(what, f"stackFrames differ: {str(doc.get('stackFrames'))[:300]} vs "
                    f"{str(ref['stackFrames'])[:300]}")
    elif doc.get("displayTimeUnit") != ref.get("displayTimeUnit"):
        report.fail(what, "displayTimeUnit")
    elif not used <= named:
        report.fail(what, f"threads without a thread_name: {sorted(used - named)[:5]}")
    else:
        report.ok()


def main():
    args = parse_args()
    report = Report("chrome json of xray logs vs llvm-xray trace_event")
    xs = os.path.join(args.corpus, "xray-samples")
    rename = ids_by_name(xs)
    for name in CORPUS_LOGS:
        code, out, err = run(args.tracemux, ["-o", "chrome", os.path.join(xs, name + ".xray")])
        if code != 0:
            report.fail(f"{name} (stored)", f"exit {code}: {err.decode(errors='replace')[:300]}")
            continue
        check(report, f"{name} (stored reference)", out, stored_ref(xs, name), rename)

    # --symbolize with the sample rebuilt from INDEX.md: llvm-xray's names as stored.
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_sample(args.corpus, tmp)
        if not exe:
            report.fail("clang-14 is not installed (scripts/install-deps.sh test)")
        for name in CORPUS_LOGS if exe else []:
            code, out, err = run(args.tracemux, ["-o", "chrome", "--symbolize", "--instr-map", exe,
                                                 os.path.join(xs, name + ".xray")])
            if code != 0:
                report.fail(f"{name} --symbolize", f"exit {code}: {err.decode(errors='replace')[:300]}")
                continue
            check(report, f"{name} --symbolize (stored reference)", out, stored_ref(xs, name))

    llvm = llvm_xray()
    if not llvm:
        report.fail("llvm-xray 14 is not installed (scripts/install-deps.sh test installs llvm-14)")
        report.finish()
    with tempfile.TemporaryDirectory() as tmp:
        logs = [os.path.join(xs, n + ".xray") for n in ("fdr-v5-small", "basic-v3-small")]

        def log(name, recs, **kw):
            path = os.path.join(tmp, name + ".xray")
            basic_log(path, recs, **kw)
            logs.append(path)

        # 1 -> 2 -> 3, exit of 1 closes 3, 2 and 1; exit of 9 (not open)
        # closes everything; exits on an empty stack are dropped.
        log("unwind", calls(7, 10000, "-4 +1 +2 +3 -1 -1 +1 +2 +5 -9 +4 t4 -4"))
        # Two threads walk the same paths (shared stack-frame ids), and a
        # third a different one; chunks not in time order.
        log("threads", calls(12, 50000, "+1 +2 -2 +3 -3 -1", pid=11) +
            calls(11, 10000, "+1 +2 -2 -1 +2 -2", pid=11) + calls(13, 30000, "+2 +1 -1 -2", pid=11))
        for v in (1, 2):
            log(f"version{v}", calls(5, 123456789, "+1 +2 -2 -1 +3 t3"), version=v)
        # The upstream naive-log-simple frequency: microseconds are not exact.
        log("freq", calls(3, 13770712352301, "+1 +2 -2 -1", step=1234567), freq=2601000000)
        log("big-tsc", calls(3, 2**63 + 12345, "+1 +2 -2 -1", step=777), freq=3000000000)
        # Small times: fractions with many bits (printf's rounding path).
        log("small-tsc", calls(3, 1, "+1 +2 -2 -1 +1 -1", step=3), freq=2601000000)
        log("ties", calls(3, 5, "+1 +2 -2 -1", step=10), freq=16000000)
        for path in logs:
            what = os.path.basename(path)
            code, out, err = run(args.tracemux, ["-o", "chrome", path])
            lcode, lout, lerr = run_llvm([llvm, "convert", "--output-format=trace_event", path])
            if code != 0 or lcode != 0:
                report.fail(what, f"exit {code} ({err[:300]!r}), llvm-xray {lcode} ({lerr[:300]!r})")
            else:
                check(report, f"{what} (llvm-xray live)", out, lout)
    report.finish()


if __name__ == "__main__":
    main()
