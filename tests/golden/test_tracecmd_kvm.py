"""KVM hosts and guests: `-o tracecmd HOST GUEST...` against
`trace-cmd report -i HOST -i GUEST...` (trace-cmd 3.1.6), byte for byte.

trace-cmd maps each guest's vCPUs to the host tasks that run them (the
host's GUEST options, the guests' TRACEID) and appends the guest kernel
function to the guest addresses of the host's kvm_entry / kvm_exit events
(`rip 0xffffffffa13f2e30 default_idle+0x10`); see src/tools/tracecmd/guest.h.

  - the real recordings of ../shared/corpus/tracecmd-samples/external/
    (INDEX.md: a Linux 6.5 host and its 5.15 guest, v7 files compressed
    with zlib, which Debian's trace-cmd cannot open): the merged report,
    and each file's report and -R report, against the stored references of
    trace-cmd 3.1.6 built with zlib;
  - tests/data/kvm/ (tests/data/make-kvm-tracedat.sh): hand-built hosts and
    guests (two guests, a task claimed by two guests, GUEST options that
    trace-cmd drops or reads in its own way, vCPU counts that differ from the
    guest's CPU count, a guest before its host, a host of another session,
    a guest without symbols, -R, -N, -t) against trace-cmd's reports of them,
    which the first line of each reference names; again live when trace-cmd
    is installed.  Where trace-cmd prints no mapping, tracemux prints the
    same and says why on stderr (checked here); where it maps, nothing.
    inj-exception.dat holds a format on which libtraceevent leaks (run
    under the sanitizers with tests/lsan.supp);
  - GUEST options damaged byte by byte: the same report or a located error,
    never a crash.
"""
import gzip
import os
import shutil
import subprocess
import tempfile

from bt2ref import Report, first_diff, parse_args, tool
from bt2ref import run as bt2ref_run

HERE = os.path.dirname(os.path.abspath(__file__))
KVM = os.path.join(HERE, "..", "data", "kvm")
HOST = "hip24_documentation_tca_test_trace_a0496a7c.dat"
GUEST = "hip24_documentation_tca_test_trace-Salamander4_4780888b.dat"

# What tracemux says on stderr about the inputs trace-cmd maps no guest of
# (every other case: nothing).
WARNINGS = {
    "bad-vcpu": ["host-bad-vcpu.dat: the GUEST option at offset", "a vCPU number not below",
                 "guest-a.dat: recorded as a guest of host-bad-vcpu.dat, but no GUEST option"],
    "short": ["host-short.dat: the GUEST option at offset", "fewer (vCPU, host pid) pairs"],
    "nonul": ["host-nonul.dat: the GUEST option at offset", "no terminating NUL"],
    "mismatch": ["host-mismatch.dat: its GUEST option gives guest-a.dat 3 vCPU(s), but that "
                 "file has 2 CPU(s)"],
    "twice": ["host-twice.dat: its GUEST option gives guest-a.dat 3 vCPU(s)"],
    "dup-pid-a-b": ["gives guest-b.dat 2 vCPU(s), but that file has 1 CPU(s)"],
    "dup-pid-b-a": ["gives guest-b.dat 2 vCPU(s), but that file has 1 CPU(s)"],
    "other": ["guest-a.dat: recorded as a guest of trace 0x1111, but the first input "
              "host-other.dat is another trace"],
    "guest-a-host": ["guest-a.dat: recorded as a guest of host.dat, which is not the first input"],
}


def run(tracemux, argv, cwd):
    return bt2ref_run(tracemux, argv, timeout=300, cwd=cwd)


def split_ref(data):
    """(trace-cmd arguments, expected stdout, expected exit code) of a stored reference."""
    lines = data.split(b"\n")
    assert lines[0].startswith(b"# trace-cmd") and b"trace-cmd report " in lines[0], "no header"
    assert lines[-1] == b"" and lines[-2].startswith(b"# exit="), "no exit line"
    args = lines[0].split(b"trace-cmd report ", 1)[1].decode().split()
    return args, b"\n".join(lines[1:-2]) + (b"\n" if len(lines) > 3 else b""), int(lines[-2][7:])


def tracemux_args(args):
    """trace-cmd report's arguments as tracemux's (-t is --nsec, -R also --raw, -i FILE: FILE)."""
    out, files, it = [], [], iter(args)
    for a in it:
        if a == "-i":
            files.append(next(it))
        else:
            out.append({"-t": "--nsec", "-R": "--raw"}.get(a, a))
    return ["-o", "tracecmd", "--report-version=3.1", "--report-version=3.1"] + out + files


def compare(report, what, expected, exp_code, got):
    code, out, err = got
    if code != exp_code or out != expected:
        report.fail(what, f"exit {code} (trace-cmd: {exp_code}) {err.decode(errors='replace')[:500]}\n"
                    + first_diff(expected, out))
        return False
    report.ok()
    return True


def check_external(report, tracemux, corpus):
    ext = os.path.join(corpus, "tracecmd-samples", "external")
    cases = [("kvm-host-guest.report.txt.gz", [HOST, GUEST])]
    for f in (HOST, GUEST):
        cases += [(f + ".report.txt.gz", [f]), (f + ".report-R.txt.gz", ["--raw", f])]
    for ref, argv in cases:
        with gzip.open(os.path.join(ext, ref), "rb") as f:
            expected = f.read()
        got = run(tracemux, ["-o", "tracecmd", "--report-version=3.1", "--report-version=3.1"] + argv, ext)
        if compare(report, "external/" + ref, expected, 0, got) and got[2]:
            report.fail("external/" + ref + " (stderr)", got[2].decode(errors="replace")[:500])


def check_stored(report, tracemux):
    cases = {}
    for name in sorted(os.listdir(KVM)):
        if not name.endswith(".report.txt"):
            continue
        case = name[:-len(".report.txt")]
        with open(os.path.join(KVM, name), "rb") as f:
            args, expected, exp_code = split_ref(f.read())
        cases[case] = args
        code, out, err = got = run(tracemux, tracemux_args(args), KVM)
        if not compare(report, "tests/data/kvm/" + name, expected, exp_code, got):
            continue
        text = err.decode(errors="replace")
        want = WARNINGS.get(case, [])
        if case == "inj-exception":
            report.ok()   # libtraceevent's parse failure may say more on stderr
        elif (not want and text) or any(w not in text for w in want):
            report.fail(f"tests/data/kvm/{name} (stderr)", f"expected {want}, got:\n{text[:800]}")
        else:
            report.ok()
    missing = set(WARNINGS) - set(cases)
    if missing:
        report.fail("references missing for " + ", ".join(sorted(missing)))
    return cases


def check_live(report, tracemux, cases):
    tc = shutil.which("trace-cmd")
    if not tc:
        print("trace-cmd not installed: the live comparisons are skipped")
        return
    env = dict(os.environ, TZ="UTC", LC_ALL="C")
    for case, args in sorted(cases.items()):
        ref = subprocess.run([tc, "report"] + args, capture_output=True, env=env, cwd=KVM, timeout=120)
        compare(report, f"live trace-cmd report {' '.join(args)}", ref.stdout, ref.returncode,
                run(tracemux, tracemux_args(args), KVM))


def check_damaged(report, tracemux):
    """Every byte of host.dat's GUEST options (their id and size too) set to 0xff, then 0."""
    with open(os.path.join(KVM, "host.dat"), "rb") as f:
        data = f.read()
    spans = []
    for name in (b"guest-a\0", b"guest-b\0"):
        at = data.index(name) - 6
        size = int.from_bytes(data[at + 2:at + 6], "little")
        spans.append((at, at + 6 + size))
    with tempfile.TemporaryDirectory() as tmp:
        for f in ("guest-a.dat", "guest-b.dat"):
            shutil.copy(os.path.join(KVM, f), tmp)
        bad = []
        for lo, hi in spans:
            for i in range(lo, hi):
                for v in (0xff, 0):
                    if data[i] == v:
                        continue
                    with open(os.path.join(tmp, "host.dat"), "wb") as f:
                        f.write(data[:i] + bytes([v]) + data[i + 1:])
                    code, out, err = run(tracemux, ["-o", "tracecmd", "--report-version=3.1", "host.dat", "guest-a.dat",
                                                    "guest-b.dat"], tmp)
                    # A byte of the option's id or size may break the options list: an
                    # error naming the file; anything else reads (maybe without a guest).
                    if code < 0 or code > 1 or (code == 1 and b"host.dat" not in err) or \
                            (code == 0 and not out.startswith(b"   host.dat: cpus=2\n")):
                        bad.append(f"byte {i} = {v:#x}: exit {code} {err.decode(errors='replace')[:300]}")
        if bad:
            report.fail(f"damaged GUEST options ({len(bad)} cases)", "\n".join(bad[:10]))
        else:
            report.ok()


def main():
    args = parse_args()
    report = Report("KVM host and guests (-o tracecmd)")
    tool(report, "trace-cmd", "trace-cmd")   # run live below: fail here without it
    check_external(report, args.tracemux, args.corpus)
    cases = check_stored(report, args.tracemux)
    check_live(report, args.tracemux, cases)
    check_damaged(report, args.tracemux)
    report.finish()


if __name__ == "__main__":
    main()
