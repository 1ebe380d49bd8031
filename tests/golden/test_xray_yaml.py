"""-o xray-yaml against llvm-xray 14's `convert --output-format=yaml`.

1. The corpus (xray-samples/expected/*.convert-yaml*.txt[.gz]): traces
   recorded with compiler-rt 14, converted by llvm-xray 14.0.6, with and
   without --symbolize.  The symbolized references name functions of the
   corpus' sample program: it is rebuilt here from the source in
   xray-samples/INDEX.md with clang-14 (same function ids; addresses may
   differ, names do not), so those cases need clang-14.
2. LLVM's own tests (xray-samples/upstream-llvm-tests/): their expected
   outputs, against the inputs rebuilt by tests/data/xray/make-inputs.py.
   Those tests are older than the `data` field: when the expected text has
   no `data:`, our `, data: ''` is removed before comparing (FileCheck
   would have matched the rest of the line the same way).
   The hand-built inputs' llvm-xray 14 outputs are stored too
   (tests/data/xray/expected/, made by make-inputs.py --llvm-refs).
3. llvm-xray-14 run live (when installed) on every hand-built input and on
   random valid logs of every version, with --sort=true and --sort=false; on the corpus traces with --sort=false; with
   a YAML instrumentation map and --symbolize; on a C++ program recorded
   here (demangled names; needs clang++-14).  It also checks that the
   rebuilt upstream inputs are what the upstream tests describe (llvm-xray
   prints their expected outputs, fdr-dump --verify its expected dump).
4. Damaged logs: exit 1, an error naming the byte offset, the records
   before the damage printed.
"""
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

from bt2ref import Report, first_diff, parse_args, run, tool

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "xray")
LLVM_XRAY = shutil.which("llvm-xray-14") or (
    "/usr/lib/llvm-14/bin/llvm-xray" if os.path.exists("/usr/lib/llvm-14/bin/llvm-xray") else None)
CLANG = shutil.which("clang-14")
CLANGXX = shutil.which("clang++-14")
RANDOM_LOGS = 60   # seeds of random logs compared with llvm-xray live


def read(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        return f.read()


def corpus_ref(path):
    """(command line, expected stdout) of an expected/ file."""
    text = read(path)
    lines = text.split(b"\n")
    cmd = lines[0].decode().split(": ", 1)[1]
    body = lines[1:]
    while body and (body[-1] == b"" or body[-1].startswith(b"# exit=")):
        body.pop()
    return cmd, b"\n".join(body) + b"\n"


def llvm(argv):
    p = subprocess.run([LLVM_XRAY] + argv, capture_output=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def build_sample(corpus, tmp):
    """The corpus' sample program, rebuilt with the flags INDEX.md gives."""
    if not CLANG:
        return None
    index = read(os.path.join(corpus, "xray-samples", "INDEX.md")).decode()
    m = re.search(r"```c\n(.*?)```", index, re.S)
    src = os.path.join(tmp, "sample.c")
    with open(src, "w") as f:
        f.write(m.group(1))
    exe = os.path.join(tmp, "sample")
    flags = ["-O1", "-g", "-fxray-instrument", "-fxray-instruction-threshold=1",
             "-fxray-instrumentation-bundle=all", "-pthread"]
    p = subprocess.run([CLANG] + flags + [src, "-o", exe], capture_output=True)
    # The object file too: its sleds are relocations (R_X86_64_PC64).
    subprocess.run([CLANG] + flags + ["-c", src, "-o", exe + ".o"], capture_output=True)
    return exe if p.returncode == 0 else None


def record_cxx(tmp):
    """A C++ program (templates, namespaces, std types) recorded in FDR mode."""
    if not CLANGXX:
        return None, None
    exe = os.path.join(tmp, "cxx")
    p = subprocess.run([CLANGXX, "-O1", "-fxray-instrument", "-fxray-instruction-threshold=1",
                        os.path.join(DATA, "cxx-sample.cc"), "-o", exe], capture_output=True)
    if p.returncode:
        return None, None
    env = dict(os.environ, XRAY_OPTIONS=f"xray_logfile_base={tmp}/cxxlog- verbosity=0")
    subprocess.run([exe], capture_output=True, env=env)
    logs = glob.glob(os.path.join(tmp, "cxxlog-*"))
    return exe, (logs[0] if logs else None)


def compare(report, what, expected, code, out, err):
    if code != 0:
        report.fail(what, f"exit {code}: {err.decode(errors='replace')}")
    elif out != expected:
        report.fail(what, first_diff(expected, out))
    else:
        report.ok()


def main():
    args = parse_args()
    samples = os.path.join(args.corpus, "xray-samples")
    report = Report("xray yaml")
    tool(report, "llvm-xray-14", "llvm-14")   # run live below: fail here without it
    tool(report, "clang-14", "clang-14")   # run live below: fail here without it
    tool(report, "clang++-14", "clang-14")   # run live below: fail here without it
    notes = []
    tmp = tempfile.mkdtemp(prefix="tmx-xray-yaml-")
    try:
        # Fresh inputs from the generator, compared with the stored ones.
        gen = os.path.join(tmp, "gen")
        subprocess.run([sys.executable, os.path.join(DATA, "make-inputs.py"), gen], check=True)
        for path in sorted(glob.glob(os.path.join(gen, "*.xray"))):
            stored = os.path.join(DATA, os.path.basename(path))
            if not os.path.exists(stored) or read(stored) != read(path):
                report.fail(f"make-inputs {os.path.basename(path)}", "stored input differs from the generator's")
            else:
                report.ok()

        # 1. Corpus references.
        sample = build_sample(args.corpus, tmp)
        for ref in sorted(glob.glob(os.path.join(samples, "expected", "*.convert-yaml*.txt*"))):
            cmd, expected = corpus_ref(ref)
            trace = os.path.join(samples, cmd.split()[-1])
            argv = ["-o", "xray-yaml"]
            if "--symbolize" in cmd:
                if not sample:
                    notes.append(f"{os.path.basename(ref)}: not checked (needs clang-14)")
                    continue
                argv += ["--symbolize", "--instr-map", sample]
            code, out, err = run(args.tracemux, argv + [trace])
            compare(report, os.path.basename(ref), expected, code, out, err)

        # Stored llvm-xray 14 outputs of the hand-built inputs (make-inputs.py --llvm-refs).
        for path in sorted(glob.glob(os.path.join(DATA, "*.xray"))):
            name = os.path.basename(path)
            for sort, suffix in (("true", ".yaml"), ("false", ".nosort.yaml")):
                ref = os.path.join(DATA, "expected", name + suffix)
                if not os.path.exists(ref):
                    report.fail(f"stored {name}{suffix}", "no stored llvm-xray output")
                    continue
                code, out, err = run(args.tracemux, ["-o", "xray-yaml", f"--sort={sort}", path])
                compare(report, f"stored {name} --sort={sort}", read(ref), code, out, err)

        # 2. LLVM's test expectations on the rebuilt inputs.
        upstream = os.path.join(samples, "upstream-llvm-tests")
        for ref in sorted(glob.glob(os.path.join(upstream, "*.convert-yaml.expected.txt"))):
            name = os.path.basename(ref).split(".convert-yaml")[0]
            expected = read(ref)
            code, out, err = run(args.tracemux, ["-o", "xray-yaml", os.path.join(DATA, name)])
            if b"data:" not in expected:
                out = out.replace(b", data: '' }", b" }")
            compare(report, f"upstream {name}", expected, code, out, err)
            if LLVM_XRAY:
                lcode, lout, _ = llvm(["convert", "-f", "yaml", os.path.join(DATA, name)])
                if b"data:" not in expected:
                    lout = lout.replace(b", data: '' }", b" }")
                if lcode or lout != expected:
                    report.fail(f"input {name}", "llvm-xray does not print the upstream expected output on it")
                else:
                    report.ok()
        if LLVM_XRAY:
            for ref in sorted(glob.glob(os.path.join(upstream, "*.fdr-dump-verify.expected.txt"))):
                name = os.path.basename(ref).split(".fdr-dump")[0]
                _, out, _ = llvm(["fdr-dump", "--verify", os.path.join(DATA, name)])
                norm = lambda b: [l.strip() for l in b.decode().splitlines() if l.strip()]
                if norm(out) != norm(read(ref)):
                    report.fail(f"input {name} (fdr-dump)", first_diff(read(ref), out))
                else:
                    report.ok()

        # 3. llvm-xray live.
        if not LLVM_XRAY:
            notes.append("llvm-xray-14 not installed: live comparisons not run")
        else:
            cases = []
            for path in sorted(glob.glob(os.path.join(DATA, "*.xray"))):
                for sort in ("true", "false"):
                    cases.append((f"live {os.path.basename(path)} --sort={sort}", [f"--sort={sort}"], path))
            for path in sorted(glob.glob(os.path.join(samples, "*.xray"))):
                cases.append((f"live {os.path.basename(path)} --sort=false", ["--sort=false"], path))
            yaml_map = os.path.join(samples, "instrmap.yaml")
            cases.append(("live YAML instr map --symbolize", ["--symbolize", f"--instr_map={yaml_map}"],
                          os.path.join(samples, "fdr-v5-small.xray")))
            cases.append(("live YAML instr map", [f"--instr_map={yaml_map}"],
                          os.path.join(samples, "basic-v3-small.xray")))
            cases.append(("live --symbolize without a map", ["--symbolize"],
                          os.path.join(samples, "fdr-v5-small.xray")))
            if sample and os.path.exists(sample + ".o"):
                cases.append(("live object file as instr map", ["--symbolize", f"--instr_map={sample}.o"],
                              os.path.join(samples, "fdr-v5-small.xray")))
            if sample:
                cases.append(("live sample binary --sort=false", ["--symbolize", f"--instr_map={sample}", "--sort=false"],
                              os.path.join(samples, "fdr-v5-tinybuf-dropped.xray")))
            exe, log = record_cxx(tmp)
            if log:
                cases.append(("live C++ names", ["--symbolize", f"--instr_map={exe}"], log))
            else:
                notes.append("C++ demangling not checked (needs clang++-14 and the XRay runtime)")
            # Random valid logs of every version (tests/data/xray/random_logs.py).
            sys.path.insert(0, DATA)
            sys.dont_write_bytecode = True   # no __pycache__ in the source tree
            import random_logs
            for seed in range(RANDOM_LOGS):
                for kind, make in (("fdr", random_logs.fdr_log), ("basic", random_logs.basic_log)):
                    path = os.path.join(tmp, f"random-{kind}-{seed}.xray")
                    with open(path, "wb") as f:
                        f.write(make(seed))
                    for sort in ("true", "false"):
                        cases.append((f"live random {kind} seed {seed} --sort={sort}", [f"--sort={sort}"], path))
            for what, opts, path in cases:
                lcode, expected, lerr = llvm(["convert", "-f", "yaml"] + opts + [path])
                if lcode:
                    report.fail(what, f"llvm-xray failed: {lerr.decode(errors='replace')}")
                    continue
                ours = []
                for o in opts:
                    if o.startswith("--instr_map="):
                        ours += ["--instr-map", o.split("=", 1)[1]]
                    else:
                        ours.append(o)
                code, out, err = run(args.tracemux, ["-o", "xray-yaml"] + ours + [path])
                compare(report, what, expected, code, out, err)

        # 4. Damaged logs: what comes before the damage, then the error.
        small = read(os.path.join(samples, "fdr-v5-small.xray"))
        _, full, _ = run(args.tracemux, ["-o", "xray-yaml", os.path.join(samples, "fdr-v5-small.xray")])
        full_lines = set(full.splitlines())
        for cut, what in ((700, "inside a function record"), (len(small) - 3, "at the end")):
            path = os.path.join(tmp, f"cut{cut}.xray")
            with open(path, "wb") as f:
                f.write(small[:cut])
            code, out, err = run(args.tracemux, ["-o", "xray-yaml", path])
            recs = [l for l in out.splitlines() if l.startswith(b"  - {")]
            if code != 1 or b"at byte" not in err or not recs or not set(recs) <= full_lines:
                report.fail(f"truncated {what}", f"exit {code}, {len(recs)} records, stderr {err!r}")
            else:
                report.ok()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for n in notes:
        print("note:", n)
    report.finish()


if __name__ == "__main__":
    main()
