"""Golden test against trace-cmd run live: layouts the corpus lacks.

`trace-cmd convert` rewrites corpus files as a v6 file with an instance
buffer (multibuf), a v7 file without compression and a v7 file with zstd
from a v6 one; `trace-cmd split -C 1` keeps CPU 1 alone (a sparse CPU list); `trace-cmd report -R` and `-t` on each converted file are the
references, checked with test_tracedat_model's comparison (events, times,
CPUs, buffers, every field value).  trace-cmd (Debian package trace-cmd)
is a test dependency (scripts/install-deps.sh test).
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import parse_args  # noqa: E402
from test_tracedat_model import Checker, check_file  # noqa: E402

CONVERSIONS = [
    # (source, name, trace-cmd command and options; "-i SRC -o OUT" are added)
    ("multibuf-v7-zstd.dat", "multibuf-to-v6", ["convert", "--file-version", "6"]),
    ("sched-v7-zstd.dat", "sched-to-v7-none", ["convert", "--file-version", "7", "--compression", "none"]),
    ("sched-v6.dat", "sched-to-v7-zstd", ["convert", "--file-version", "7", "--compression", "zstd"]),
    ("clock-mono-v7-zstd.dat", "mono-to-v6", ["convert", "--file-version", "6"]),
    # CPU 1 alone: a sparse CPU list (BUFFER option with one CPU, id 1); split writes OUT.1.
    ("sched-v7-zstd.dat", "sched-cpu1-only", ["split", "-C", "1"]),
]


def main():
    args = parse_args()
    corpus = os.path.join(args.corpus, "tracecmd-samples")
    tc = shutil.which("trace-cmd")
    if not tc:
        print("FAIL: trace-cmd is not installed (scripts/install-deps.sh test)")
        sys.exit(1)
    version = subprocess.run([tc, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             timeout=60).stdout.decode()
    if "3.1.6" not in version:
        # The reference parser knows 3.1.6's output; other versions may print differently.
        print("note: trace-cmd is not 3.1.6: %s" % version.strip().splitlines()[0])
    ck = Checker()
    tmp = tempfile.mkdtemp(prefix="tmx-tdat-live-")
    try:
        for src, name, opts in CONVERSIONS:
            dat = os.path.join(tmp, name + ".dat")
            p = subprocess.run([tc, opts[0], "-i", os.path.join(corpus, src), "-o", dat] + opts[1:],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300, cwd=tmp)
            if opts[0] == "split" and os.path.exists(dat + ".1"):
                os.rename(dat + ".1", dat)
            if p.returncode != 0 or not os.path.exists(dat):
                ck.fail("trace-cmd convert %s %s: exit %d: %s" %
                        (src, " ".join(opts), p.returncode, p.stdout.decode()[-500:]))
                continue
            for opt in ("R", "t"):
                p = subprocess.run([tc, "report", "-" + opt, "-i", dat], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, timeout=300, cwd=tmp,
                                   env=dict(os.environ, LC_ALL="C", TZ="UTC"))
                with open(os.path.join(tmp, "%s.report-%s.txt" % (name, opt)), "wb") as f:
                    f.write(b"# trace-cmd 3.1.6 (live): trace-cmd report -%s\n" % opt.encode())
                    f.write(p.stdout)
                    f.write(b"# exit=%d\n" % p.returncode)
            check_file(args.tracemux, tmp, dat, ck)
    finally:
        shutil.rmtree(tmp)
    print("%d converted files, %d events, %d field values compared (%d symbolic)" %
          (len(CONVERSIONS), ck.stats["events"], ck.stats["fields"], ck.stats["symbolic"]))
    if ck.failures:
        print("%d failure(s)" % len(ck.failures))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
