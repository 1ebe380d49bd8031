"""Shared helpers for the golden tests against babeltrace2 2.0.4 references.

The references live in ../shared/corpus/babeltrace-tests/generated-reference
(made with TZ=UTC LC_ALL=C; absolute paths replaced by @BT_TESTS_DATA@/).
"""
import argparse
import difflib
import gzip
import os
import shutil
import subprocess
import sys


def parse_args(*extra):
    """--tracemux, --corpus, -v; and a test's own options: `extra` are
    (name, add_argument's keywords) pairs."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracemux", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("-v", "--verbose", action="store_true")
    for name, kw in extra:
        ap.add_argument(name, **kw)
    args = ap.parse_args()
    # Absolute, so that tools run from another directory (trace-cmd split
    # and convert run in a scratch one) find the corpus and the binary.
    args.corpus = os.path.abspath(args.corpus)
    if os.sep in args.tracemux:
        args.tracemux = os.path.abspath(args.tracemux)
    return args


def read_ref(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read()


def ref_trace_path(bt, ref):
    """The trace of a generated-reference file name: SET__TRACE.txt[.gz]."""
    return os.path.join(bt, "ctf-traces", *ref.split(".txt")[0].split("__"))


def bt2_path(path):
    """A path as babeltrace2 (and tracemux) print it: absolute from the
    working directory as glib sees it ($PWD when it names ".", else the
    resolved one), `..` removed lexically, symbolic links kept."""
    if os.path.isabs(path):
        return os.path.normpath(path)
    cwd = os.getcwd()
    pwd = os.environ.get("PWD")
    try:
        if pwd and os.path.isabs(pwd) and os.path.samefile(pwd, "."):
            cwd = pwd
    except OSError:
        pass
    return os.path.normpath(os.path.join(cwd, path))


def run_env(tz="UTC"):
    """The environment tracemux runs in: a fixed time zone and locale, and
    sanitizer findings that look like crashes (abort), not like our exit 1."""
    return dict(os.environ, TZ=tz, LC_ALL="C",
                ASAN_OPTIONS="abort_on_error=1:detect_leaks=1",
                UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1")


def run(tracemux, argv, timeout=120, tz="UTC", cwd=None):
    p = subprocess.run([os.path.abspath(tracemux) if cwd else tracemux] + argv,
                       capture_output=True, env=run_env(tz), cwd=cwd, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def run_expect(report, what, tracemux, argv, expected, want_status, ref_name):
    """Run tracemux and check it against a reference tool's run: no crash,
    success when the tool succeeded (failure with a message on stderr when
    it failed), and stdout equal to `expected`.  A difference is reported as
    a failure of `what`; returns (status, stdout, stderr), or None then."""
    try:
        code, out, err = run(tracemux, argv)
    except Exception as e:  # timeout
        report.fail(what, str(e))
        return None
    if code < 0 or code > 2:
        report.fail(what, f"crashed with status {code}\n{err.decode(errors='replace')[-2000:]}")
        return None
    if (code == 0) != (want_status == 0):
        report.fail(what, f"exit status {code}, {ref_name}'s {want_status}\n"
                    f"stderr: {err.decode(errors='replace')[-1500:]}")
        return None
    if code != 0 and not err.strip():
        report.fail(what, "failed without a message on stderr")
        return None
    if out != expected:
        report.fail(what, first_diff(expected, out))
        return None
    return code, out, err


def tool(report, name, package):
    """The path of a reference tool run live; without it the test fails,
    naming the Debian package to install (no check is skipped)."""
    path = shutil.which(name)
    if not path:
        report.fail(name, f"not installed: install Debian's {package} (scripts/install-deps.sh test)")
        report.finish()
    return path


def bt2_options(opts):
    """tracemux's options as babeltrace2 spells them (--trace-name is a
    parameter of its source component)."""
    return [('--params=trace-name="%s"' % o.split("=", 1)[1]) if o.startswith("--trace-name=") else o
            for o in opts]


def first_diff(expected, actual, context=3):
    exp = expected.decode("utf-8", "replace").splitlines()
    act = actual.decode("utf-8", "replace").splitlines()
    diff = list(difflib.unified_diff(exp, act, "expected", "tracemux", n=context, lineterm=""))
    return "\n".join(diff[:40])


class Report:
    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = []

    def ok(self):
        self.passed += 1

    def fail(self, what, detail=""):
        self.failed.append(what)
        print(f"FAIL {what}\n{detail}\n", flush=True)

    def finish(self):
        print(f"{self.name}: {self.passed} passed, {len(self.failed)} failed")
        for f in self.failed:
            print(f"  failed: {f}")
        sys.exit(1 if self.failed else 0)
