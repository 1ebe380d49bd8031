"""`-o tracecmd` on several trace.dat files, on instance buffers and on damaged
files, against trace-cmd 3.1.6.

trace-cmd 3.1.6 reads several files (and the instance buffers of a file)
through libtracecmd's multi-handle iterator, which shapes its options:

  --cpu       numbers the CPUs of all handles in one sequence: the files'
              top buffers in command-line order, then the instances, each
              from the sum of the CPU counts before it (with two 2-CPU
              files, --cpu 2 is the second file's CPU 0);
  -F, -v, --pid, --comm, -T
              filter the first file only, the other files print unfiltered;
              a filter that the first file cannot take is an error (trace-cmd
              exits 2 or 255, tracemux 2 naming the file), one that only a
              later file cannot take is not;
  --ts-check  compares each record with the one printed before it, from
              any file, and names its CPU by that sequence.

Compared with stored references (tests/data/tracecmd-multi/, made by
tests/data/make-tracecmd-multi.py with trace-cmd 3.1.6, on the small files
of tests/data/tracedat) and with trace-cmd run live on the corpus files and
on files that trace-cmd convert/split make (a v6 file with an instance, a
file with CPU 1 only).  Standard output and success/failure must match.

Also:
  --lenient on a damaged file: everything but the damaged page prints,
  then the summary warning, and the exit status is 1 (as the other outputs
  and the --help text say); without damage, 0.
  --profile: trace-cmd orders the entries that rank equal by hashes of heap
  addresses, which change from run to run (fg-be8-v7-zstd.dat prints two
  orders of its two 300 ns calls of bash-1234); those runs are compared as
  sets, files on which trace-cmd's order is stable exactly.
"""
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import Report, first_diff, parse_args, tool  # noqa: E402
from test_tracecmd_options import TC_SPELLING, compare_live, tracemux  # noqa: E402
from test_tracecmd_report import profile_lines  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
FUNCGRAPH = os.path.join(DATA, "tracedat", "funcgraph")
TRACECMD = {v: k for k, v in TC_SPELLING.items()}   # trace-cmd spelling -> tracemux

# Files (in the corpus' tracecmd-samples, or made in the temporary directory) read together.
CPU_SETS = [["sched-v6.dat", "sched-v7-nocomp.dat"], ["multibuf-v7-zstd.dat", "sched-v6.dat"],
            ["sched-v6.dat", "multibuf-v7-zstd.dat"], ["multibuf-v7-zstd.dat"],
            ["clock-mono-v7-zstd.dat", "sched-v7-nocomp.dat", "sched-v7-zstd.dat"],
            ["multibuf-to-v6.dat"], ["sched-cpu1-only.dat", "multibuf-to-v6.dat"]]
CPU_LISTS = ["0", "1", "2", "3", "4", "5", "6", "1,3", "0-5"]
CPU_WITH = [["--cpu", "2", "-F", "sched_switch"], ["--cpu", "1,2", "--ts-diff", "-l"],
            ["--cpu", "3", "--nsec"]]
FILTER_SETS = [["sched-v6.dat", "sched-v7-nocomp.dat"], ["sched-v7-nocomp.dat", "sched-v6.dat"],
               ["sched-v6.dat", "multibuf-v7-zstd.dat"]]
FILTERS = [["-F", "sched_switch"], ["-F", "sched_switch: prev_pid != 0", "-F", "sys_exit"],
           ["-v", "-F", "sched_switch"], ["--pid", "21"], ["--comm", "sleep"],
           ["--comm", "nosuch"], ["-T", "-F", "sched_switch"], ["-T"], ["-I", "-F", "sys_enter"]]
MADE = [("multibuf-v7-zstd.dat", "multibuf-to-v6.dat", ["convert", "--file-version", "6"]),
        ("sched-v7-zstd.dat", "sched-cpu1-only.dat", ["split", "-C", "1"])]
# --profile on the function graph files: trace-cmd's order stable on these (not on fg-be8).
PROFILE_EXACT = ["fg-migrate.dat", "fg-noexit.dat", "fg-badfields.dat", "fg-pair-a.dat"]


def stored(report, args):
    """The references of tests/data/tracecmd-multi: the arguments are in each one's first line."""
    ref_dir = os.path.join(DATA, "tracecmd-multi")
    for name in sorted(os.listdir(ref_dir)):
        with open(os.path.join(ref_dir, name), "rb") as f:
            text = f.read()
        head, rest = text.split(b"\n", 1)
        body, tail = rest.rsplit(b"# exit=", 1)
        tc_args = shlex.split(head.decode().split("trace-cmd report ", 1)[1])
        ref_code = int(tail)
        opts = [TRACECMD.get(a, a) for a in tc_args if a != "-i"]
        code, out, err = tracemux(args, opts, [], DATA)
        if code < 0 or (code == 0) != (ref_code == 0) or out != body:
            report.fail(f"stored {name}: trace-cmd report {shlex.join(tc_args)}",
                        f"exit {code} (trace-cmd {ref_code}) {err.decode(errors='replace')[:300]}\n"
                        + first_diff(body, out))
        elif ref_code and b"Error filtering" not in err:
            report.fail(f"stored {name}: the error does not say what failed", err.decode(errors="replace"))
        else:
            report.ok()


def backwards_copy(src, dst):
    """A v6 file whose CPU 0 third page starts before its second page's records."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    at = data.index(b"flyrecord\0") + 10
    off, size = struct.unpack_from("<QQ", data, at)
    assert size >= 3 * 4096
    second = struct.unpack_from("<Q", data, off + 4096)[0]
    struct.pack_into("<Q", data, off + 2 * 4096, second - 500)
    with open(dst, "wb") as f:
        f.write(data)


def ts_check(report, args, tc, tmp):
    """--ts-check: the same output, and the same warnings (CPU in trace-cmd's sequence, times)."""
    path = os.path.join(tmp, "backwards-v6.dat")
    backwards_copy(os.path.join(DATA, "tracedat", "tsc-raw-v6.dat"), path)
    pair = os.path.join(FUNCGRAPH, "fg-pair-a.dat")
    for files in ([path], [path, path], [pair, path]):
        ref = subprocess.run([tc, "report", "--ts-check"] + [a for f in files for a in ("-i", f)],
                             capture_output=True, cwd=tmp, timeout=60)
        code, out, err = tracemux(args, ["--ts-check"], files, tmp)
        warn = re.compile(rb"Record on cpu (\d+) went backwards: (\d+) to (\d+)")
        want, got = warn.findall(ref.stdout + ref.stderr), warn.findall(err)
        # trace-cmd's warnings go to stderr among the lines on stdout: compare without them
        ref_out = b"".join(line for line in ref.stdout.splitlines(True) if b"went backwards" not in line)
        what = "--ts-check " + " ".join(os.path.basename(f) for f in files)
        if code or ref.returncode or out != ref_out or not want or got != want:
            report.fail(what, f"exit {code}, warnings {got} (trace-cmd {want})\n" + first_diff(ref_out, out))
        else:
            report.ok()


def lenient(report, args, tmp):
    """--lenient: exit 1 after all the output when a damaged page was skipped, 0 otherwise."""
    src = os.path.join(DATA, "tracedat", "tsc-raw-v6.dat")
    with open(src, "rb") as f:
        data = bytearray(f.read())
    at = data.index(b"flyrecord\0") + 10
    off, _ = struct.unpack_from("<QQ", data, at)
    struct.pack_into("<I", data, off + 4096 + 8, 0x0fffffff)   # page 1's commit past the page
    bad = os.path.join(tmp, "damaged-v6.dat")
    with open(bad, "wb") as f:
        f.write(data)
    _, good, _ = tracemux(args, [], [src], tmp)
    code, strict, _ = tracemux(args, [], [bad], tmp)
    if code != 1 or not good.startswith(strict.rsplit(b"\n", 2)[0]):
        report.fail("damaged page without --lenient", f"exit {code}")
    else:
        report.ok()
    for files in ([bad], [bad, src], [src, bad]):
        code, out, err = tracemux(args, ["--lenient"], files, tmp)
        last = err.decode(errors="replace").strip().split("\n")[-1]
        lines = out.split(b"\n")
        what = "--lenient " + " ".join(os.path.basename(f) for f in files)
        if code != 1 or not re.fullmatch(r"tracemux: warning: skipped 1 damaged packet \(\d+ bytes\)", last):
            report.fail(what, f"exit {code}, last warning {last!r}")
        elif len(files) == 1 and (len(lines) <= len(strict.split(b"\n")) or not is_subsequence(lines, good.split(b"\n"))):
            report.fail(what, "the lines are not the good report's minus the damaged page's")
        else:
            report.ok()
    code, _, err = tracemux(args, ["--lenient"], [src], tmp)
    if code or b"skipped" in err:
        report.fail("--lenient on an intact file", f"exit {code} {err.decode(errors='replace')[:200]}")
    else:
        report.ok()


def is_subsequence(part, whole):
    it = iter(whole)
    return all(line in it for line in part)


def profiles(report, args, tc):
    """--profile on the function graph files (fg-le4/le8: trace-cmd 3.1.6 crashes, not compared)."""
    for name in PROFILE_EXACT + ["fg-be8-v7-zstd.dat"]:
        ref = subprocess.run([tc, "report", "--profile", "-i", name], capture_output=True, cwd=FUNCGRAPH,
                             timeout=60)
        code, out, err = tracemux(args, ["--profile"], [name], FUNCGRAPH)
        exact = name in PROFILE_EXACT
        same = out == ref.stdout if exact else profile_lines(out) == profile_lines(ref.stdout)
        if code or ref.returncode or not same:
            report.fail(f"--profile {name}" + ("" if exact else " (equal entries as sets)"),
                        f"exit {code} (trace-cmd {ref.returncode})\n" + first_diff(ref.stdout, out))
        else:
            report.ok()


def main():
    args = parse_args()
    args.tracemux = os.path.abspath(args.tracemux)
    base = os.path.join(args.corpus, "tracecmd-samples")
    report = Report("trace-cmd report on several files (-o tracecmd)")
    tool(report, "trace-cmd", "trace-cmd")   # run live below: fail here without it
    notes = []
    tc = shutil.which("trace-cmd")
    tmp = tempfile.mkdtemp(prefix="tmx-tcmulti-")
    try:
        stored(report, args)
        lenient(report, args, tmp)
        if not tc:
            print("FAIL: trace-cmd is not installed (scripts/install-deps.sh test): the live comparisons "
                  "are not run")
            report.fail("trace-cmd missing")
            report.finish()
            return
        for name in os.listdir(base):
            if name.endswith(".dat"):
                os.symlink(os.path.join(base, name), os.path.join(tmp, name))
        for src, name, cmd in MADE:
            dst = os.path.join(tmp, name)
            p = subprocess.run([tc, cmd[0], "-i", os.path.join(base, src), "-o", dst] + cmd[1:],
                               capture_output=True, cwd=tmp, timeout=300)
            if cmd[0] == "split" and os.path.exists(dst + ".1"):
                os.rename(dst + ".1", dst)
            if p.returncode or not os.path.exists(dst):
                report.fail(f"trace-cmd {' '.join(cmd)} {src}", p.stderr.decode(errors="replace")[-300:])
        for files in CPU_SETS:
            for cpus in CPU_LISTS:
                compare_live(args, report, tc, ["--cpu", cpus], files, tmp, notes)
        for opts in CPU_WITH:
            compare_live(args, report, tc, opts, CPU_SETS[0], tmp, notes)
            compare_live(args, report, tc, opts, CPU_SETS[2], tmp, notes)
        compare_live(args, report, tc, ["--cpu", "2", "--profile"], CPU_SETS[0], tmp, notes, orderless=True)
        for files in FILTER_SETS:
            for opts in FILTERS:
                compare_live(args, report, tc, opts, files, tmp, notes)
        # a filter that only the first file cannot take: an error for both
        compare_live(args, report, tc, ["-F", "sched_switch"],
                     [os.path.join(DATA, "tracedat", "rich-fields-be-v7.dat"), "sched-v6.dat"], tmp, notes)
        ts_check(report, args, tc, tmp)
        profiles(report, args, tc)
    finally:
        shutil.rmtree(tmp)
    if notes:
        print("NOT COMPARED:")
        for n in notes:
            print("  " + n)
    report.finish()


if __name__ == "__main__":
    main()
