"""`-o tracecmd --report-version=3.3` (the default): what trace-cmd 3.3.x/3.4
with libtraceevent 1.8 prints.

1. The stored references of ../shared/corpus/tracecmd-3.4/ (files written by
   trace-cmd 3.4; `trace-cmd report` and `report -R` of trace-cmd 3.3.4, and
   of Debian 12's 3.1.6) byte for byte: the default version, --jobs 2,
   TRACEMUX_REPORT_VERSION=3.3, and 3.1 by --report-version and by the
   environment.

   `tracemux info` names the BTF section of t5 (the reader passes over it).

2. Every trace.dat of tracecmd-samples (and its external/), tracecmd-external
   and tests/data: the 3.3 layout derived from what Debian 12's trace-cmd
   3.1.6 prints, run live, by the three rules that separate the releases,
   written here independently of tracemux's code:
     - the default report has, after "[CPU]", a space and the flags field of
       `trace-cmd report -l` for the same record;
     - `-R` has "-0x%x" of the record's common_flags glued to "[CPU]", as
       `trace-cmd report -l -R` prints it;
     - sched_switch's prev_state letters come from the __print_flags() table of
       prev_state in the file's own sched_switch print fmt (`trace-cmd dump
       --events`): bit i of the state is the letter of the entry whose value
       has its lowest set bit at i, up to the first bit without one (else
       "SDTtXZPI"), "|" between letters, "R" for none; the state is the
       prev_state=N of `report -R`.
   Every other byte of the line is 3.1.6's.  trace-cmd 3.1.6 (Debian package
   trace-cmd) is a test dependency.
"""
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import Report, first_diff, parse_args  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "../data")
V34 = ["t1_v7_zstd", "t4_v7_instance", "t5_v7_extract"]
# files whose 3.1 report has fewer lines than trace-cmd 3.1.6's (no line-by-line derivation)
KNOWN_3_1 = {"fg-migrate.dat": "test_funcgraph.py's known difference after the leaf taken from CPU 1"}


def tracemux(args, argv, env=None, cwd=None):
    e = dict(os.environ)
    e.pop("TRACEMUX_REPORT_VERSION", None)
    e.update(env or {})
    p = subprocess.run([args.tracemux] + argv, capture_output=True, env=e, cwd=cwd, timeout=300)
    return p.returncode, p.stdout, p.stderr


def stored_references(report, args):
    base = os.path.join(args.corpus, "tracecmd-3.4")
    for name in V34:
        dat = os.path.join(base, name + ".dat")
        for raw in (False, True):
            opt = ["-R"] if raw else []
            suffix = "report-R" if raw else "report"
            refs = {}
            for v in ("tc33", "tc31"):
                with gzip.open(f"{dat}.{v}.{suffix}.txt.gz", "rb") as f:
                    refs[v] = f.read()
            runs = [
                ("tc33", "default", [], None),
                ("tc33", "--jobs 2", ["--jobs", "2"], None),
                ("tc33", "TRACEMUX_REPORT_VERSION=3.3", [], {"TRACEMUX_REPORT_VERSION": "3.3"}),
                ("tc33", "--report-version=3.3 over TRACEMUX_REPORT_VERSION=3.1",
                 ["--report-version=3.3"], {"TRACEMUX_REPORT_VERSION": "3.1"}),
                ("tc31", "--report-version=3.1", ["--report-version=3.1"], None),
                ("tc31", "--report-version=3.1 --jobs 2", ["--report-version=3.1", "--jobs", "2"], None),
                ("tc31", "TRACEMUX_REPORT_VERSION=3.1", [], {"TRACEMUX_REPORT_VERSION": "3.1"}),
            ]
            for ref, what, extra, env in runs:
                code, out, err = tracemux(args, ["-o", "tracecmd"] + extra + opt + [dat], env)
                label = f"{name} {' '.join(opt)} {what} against trace-cmd {ref[2]}.{ref[3]}"
                if code or out != refs[ref]:
                    report.fail(label, f"exit {code} {err[:200]!r}\n" + first_diff(refs[ref], out))
                else:
                    report.ok()
    code, _, err = tracemux(args, ["-o", "tracecmd", os.path.join(base, V34[0] + ".dat")],
                            {"TRACEMUX_REPORT_VERSION": "3.2"})
    if code == 0 or b"TRACEMUX_REPORT_VERSION" not in err:
        report.fail("TRACEMUX_REPORT_VERSION=3.2 is refused", f"exit {code} {err[:200]!r}")
    else:
        report.ok()
    code, _, err = tracemux(args, ["-o", "tracecmd", "--report-version=3.4",
                                   os.path.join(base, V34[0] + ".dat")])
    if code == 0 or b"--report-version" not in err:
        report.fail("--report-version=3.4 is refused", f"exit {code} {err[:200]!r}")
    else:
        report.ok()


def info_skipped(report, args):
    """`tracemux info` names what the reader passes over: t5's BTF section (trace-cmd 3.4 extract)."""
    base = os.path.join(args.corpus, "tracecmd-3.4")
    for name, want in (("t5_v7_extract", rb"\n  skipped by the reader: BTF \(option 23: section 23 at offset \d+, \d+ bytes\)\n"),
                       ("t1_v7_zstd", None)):
        code, out, err = tracemux(args, ["info", os.path.join(base, name + ".dat")])
        found = re.search(rb"skipped by the reader", out)
        if code or (want and not re.search(want, out)) or (not want and found):
            report.fail(f"info {name}.dat: skipped sections", f"exit {code} {err[:200]!r}\n{out[:600]!r}")
        else:
            report.ok()


# ---- 2. The 3.3 layout derived from trace-cmd 3.1.6's live output ----

# "-PID [CPU]" of the default report, "-PID CPU" then the flags of -l ("%8.8s-%-5d %3d"):
# a comm may end in "-", so every "-" is tried (lookahead: overlapping matches)
CPU_COL = re.compile(rb"(?=-(\d+) *\[(\d{3,})\])")
LAT_COL = re.compile(rb"(?=-(\d+) +(\d+)([^\d\s]\S*))")
STATE = re.compile(rb"(\[-?\d+\] )(\S+)( ==> )")
PREV_STATE = re.compile(rb"\bprev_state=(\d+)\b")
# the time after the CPU column ("%12d:" or "%6.1000d:" ...)
TIME = re.compile(rb"\s+(\d+(?:\.\d+)?):")


def states_of(formats):
    """Letters by bit from sched_switch's print fmt in `dump --events` (None: no sched_switch)."""
    m = re.search(rb"name: sched_switch\n.*?print fmt: ([^\n]*)", formats, re.S)
    if not m:
        return None
    fmt = m.group(1)
    table = re.search(rb"__print_flags\(\s*REC->prev_state[^,]*,\s*\"[^\"]*\",((?:\s*\{[^}]*\}\s*,?)*)", fmt)
    if not table:
        return b"SDTtXZPI"
    by_bit = {}
    for value, text in re.findall(rb"\{\s*([^,]+?)\s*,\s*\"([^\"]*)\"\s*\}", table.group(1)):
        try:
            bits = int(value, 0)
        except ValueError:
            continue
        if bits and text:
            by_bit[(bits & -bits).bit_length() - 1] = text[:1]
    letters = b""
    while len(letters) in by_bit and len(letters) < 32:
        letters += by_bit[len(letters)]
    return letters


def state_text(letters, value):
    found = [letters[i:i + 1] for i in range(len(letters)) if value & (1 << i)]
    return b"|".join(found) if found else b"R"


def live(tc, argv, cwd, command="report"):
    try:
        p = subprocess.run([tc, command] + argv, capture_output=True, timeout=120, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None
    return p.stdout if p.returncode == 0 else None


def cpu_col(line):
    """(pid, cpu, end of "[CPU]") of a default or -R line, None for other lines."""
    m = next(iter(CPU_COL.finditer(line)), None)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), line.index(b"]", m.start()) + 1


def lat_field(line, pid, cpu):
    """The flags field that -l prints for the record of pid on cpu."""
    return next((m.group(3) for m in LAT_COL.finditer(line)
                 if int(m.group(1)) == pid and int(m.group(2)) == cpu), None)


def prev_states(raw31):
    """prev_state of each sched_switch of `report -R`, by (pid, CPU, time)."""
    states = {}
    for line in raw31.split(b"\n"):
        col, ps = cpu_col(line), PREV_STATE.search(line)
        t = col and TIME.match(line, col[2])
        if col and ps and t and b" sched_switch: " in line:
            states[(col[0], col[1], t.group(1))] = int(ps.group(1))
    return states


SAMPLE = 4000        # lines checked per output at most, evenly spread, and
SAMPLE_SWITCHES = 1000   # sched_switch lines besides them


def sample(lines):
    """The indices checked: every line of a short output, else an even sample plus sched_switch lines."""
    step = max(1, len(lines) // SAMPLE)
    picked = set(range(0, len(lines), step))
    switches = [i for i, line in enumerate(lines) if b" sched_switch: " in line]
    picked.update(switches[::max(1, len(switches) // SAMPLE_SWITCHES)])
    return sorted(picked)


def derive(base31, lat31, flags_text, states=None, letters=None):
    """The 3.3 lines, by index, from 3.1.6's (default or -R) text and its -l twin (the
    same lines), on a sample of lines: each event line gets flags_text(-l's field) after
    "[CPU]", each sched_switch its state letters (default report).  A str: why it cannot."""
    b, lat = base31.rstrip(b"\n").split(b"\n"), lat31.rstrip(b"\n").split(b"\n")
    if len(b) != len(lat):
        return f"line counts {len(b)} and {len(lat)} with -l"
    out, counts = {}, {"flags": 0, "states": 0}
    for i in sample(b):
        bl, ll = b[i], lat[i]
        col = cpu_col(bl)
        if not col:
            out[i] = bl
            continue
        pid, cpu, end = col
        field = lat_field(ll, pid, cpu)
        if field is None:
            return f"no -l field for {bl!r} in {ll!r}"
        line = bl[:end] + flags_text(field) + bl[end:]
        counts["flags"] += 1
        t = TIME.match(bl, end)
        key = t and (pid, cpu, t.group(1))
        if states is not None and letters is not None and b" sched_switch: " in bl and key in states:
            sm = STATE.search(line, end)
            if sm:
                line = line[:sm.start(2)] + state_text(letters, states[key]) + line[sm.end(2):]
                counts["states"] += 1
        out[i] = line
    return (out, len(b)), counts


def hex_flags(field):
    if not field.startswith(b"-0x"):
        raise ValueError(field)
    return field


def compare_derived(args, totals, cwd, argv, want, base31):
    """tracemux's 3.3 text (argv) against the derived lines (want: (lines by index, count)):
    None when they match, else what differs."""
    lines, count = want
    code, out, err = tracemux(args, ["-o", "tracecmd"] + argv, cwd=cwd)
    o = out.rstrip(b"\n").split(b"\n")
    if code or len(o) != count:
        return f"exit {code} {err[:200]!r}, {len(o)} lines, {count} in trace-cmd 3.1.6's"
    bad = [i for i, line in lines.items() if o[i] != line]
    if bad:
        # a line where tracemux's 3.1 report already differs from trace-cmd 3.1.6 (the
        # known differences other tests list) is not the layout's doing
        _, ours31, _ = tracemux(args, ["-o", "tracecmd", "--report-version=3.1"] + argv, cwd=cwd)
        o31, t31 = ours31.rstrip(b"\n").split(b"\n"), base31.rstrip(b"\n").split(b"\n")
        known = [i for i in bad if len(o31) == len(t31) and o31[i] != t31[i]]
        totals["known"] += len(known)
        bad = [i for i in bad if i not in known]
    totals["lines"] += len(lines)
    if bad:
        i = bad[0]
        return (f"{len(bad)} lines differ, the first:\n  derived  {lines[i]!r}\n"
                f"  tracemux {o[i]!r}")
    return None


def live_texts(tc, cwd, inputs, tc_opts, raw, parallel):
    """3.1.6's report, -l, and with raw -R and -l -R, then `dump --events` when the report
    has sched_switch lines; None when trace-cmd cannot report the files."""
    sets = [[], ["-l"]] + ([["-R"], ["-l", "-R"]] if raw else [])
    if parallel:
        with ThreadPoolExecutor(2) as pool:   # the machine's two cores
            texts = list(pool.map(lambda o: live(tc, tc_opts + o + inputs, cwd), sets))
    else:
        texts = [live(tc, tc_opts + o + inputs, cwd) for o in sets]
    if any(t is None for t in texts):
        return None
    # the file's event formats, for sched_switch's print fmt
    texts.append(live(tc, ["--events", "-i", inputs[1]], cwd, "dump")
                 if b" sched_switch: " in texts[0] else b"")
    texts.append(texts[2] if raw else live(tc, tc_opts + ["-R"] + inputs, cwd))
    return texts


def derived_case(report, args, tc, totals, cwd, names, tc_opts, tm_opts, raw=True):
    """One run: 3.1.6's report (tc_opts) and its -l twin give the 3.3 text of tracemux
    (tm_opts), and with raw the same for -R.  False when trace-cmd cannot report the files.
    trace-cmd 3.1.6 has been seen (rarely, on a loaded machine) to print a different text
    for the same file; a mismatch is therefore judged again on fresh runs of trace-cmd, one
    at a time, and only when those print something else than the first runs."""
    inputs = [a for n in names for a in ("-i", n)]
    label = " ".join(names + tm_opts)
    texts = live_texts(tc, cwd, inputs, tc_opts, raw, True)
    if texts is None:
        return False
    for attempt in range(3):
        failures, counted = derived_failures(args, cwd, names, tm_opts, raw, texts)
        if not failures:
            break
        fresh = live_texts(tc, cwd, inputs, tc_opts, raw, False)
        if fresh is None or fresh == texts:
            break
        print(f"{label}: trace-cmd 3.1.6 printed another text on run {attempt + 2}; judged again")
        texts = fresh
    for k, v in counted.items():
        totals[k] += v
    for what, detail in failures:
        report.fail(f"{label} {what}", detail)
    if not failures:
        report.ok()
    return True


def derived_failures(args, cwd, names, tm_opts, raw, texts):
    """([(what, detail)] of the derivations from texts (live_texts) that tracemux does not
    print, the counts for the totals)."""
    got = [derive(texts[0], texts[1], lambda f: b" " + f, prev_states(texts[-1] or b""),
                  states_of(texts[-2]))]
    if raw:
        got.append(derive(texts[2], texts[3], hex_flags))
    bad = [g for g in got if isinstance(g, str)]
    if bad:
        return [(": derivation", "3.1.6's outputs do not align: " + bad[0])], {}
    failures, totals = [], {"flags": 0, "hex": 0, "states": 0, "known": 0, "lines": 0}
    for (want, counts), opt, base31 in zip(got, ([], ["-R"]), (texts[0], texts[2] if raw else None)):
        detail = compare_derived(args, totals, cwd, tm_opts + opt + names, want, base31)
        if detail:
            failures.append((f"{' '.join(opt)}: 3.3 layout derived from trace-cmd 3.1.6", detail))
        totals["hex" if opt else "flags"] += counts["flags"]
        totals["states"] += counts["states"]
    return failures, totals


# Other report options on a few files: (trace-cmd's options, tracemux's, files under tests/data
# or the corpus); the KVM host with its guests and two function graph files are merged.
OPTION_CASES = [
    (["--ts-diff"], ["--ts-diff"], ["corpus:tracecmd-samples/sched-v7-zstd.dat"]),
    (["-t"], ["--nsec"], ["corpus:tracecmd-samples/sched-v6.dat"]),
    (["--cpu", "1"], ["--cpu", "1"], ["corpus:tracecmd-samples/multibuf-v7-zstd.dat"]),
    (["-F", "sched_switch"], ["-F", "sched_switch"], ["corpus:tracecmd-3.4/t1_v7_zstd.dat"]),
    # (trace-cmd 3.1.6 crashes on -F with the instance file t4)
    (["-v", "-F", "sys_enter"], ["-v", "-F", "sys_enter"], ["corpus:tracecmd-3.4/t1_v7_zstd.dat"]),
    ([], [], ["data:kvm/host.dat", "data:kvm/guest-a.dat", "data:kvm/guest-b.dat"]),
    ([], [], ["data:tracedat/funcgraph/fg-pair-a.dat", "data:tracedat/funcgraph/fg-pair-b.dat"]),
    (["-O", "fgraph:tailprint"], ["-O", "fgraph:tailprint"], ["data:tracedat/funcgraph/fg-le8-v7.dat"]),
]


def derived_layout(report, args, tc):
    files = sorted(glob.glob(os.path.join(args.corpus, "tracecmd-samples", "*.dat")) +
                   glob.glob(os.path.join(args.corpus, "tracecmd-samples", "external", "*.dat")) +
                   glob.glob(os.path.join(args.corpus, "tracecmd-external", "*.dat")) +
                   glob.glob(os.path.join(DATA, "**", "*.dat"), recursive=True))
    checked = skipped = 0
    totals = {"flags": 0, "hex": 0, "states": 0, "known": 0, "lines": 0}
    for path in files:
        cwd, name = os.path.dirname(path), os.path.basename(path)
        if name in KNOWN_3_1:
            print(f"{name}: not derived ({KNOWN_3_1[name]})")
            skipped += 1
        elif derived_case(report, args, tc, totals, cwd, [name], [], []):
            checked += 1
        else:
            # trace-cmd 3.1.6 fails or crashes on it (damaged or odd test files): nothing to derive
            skipped += 1
    options = 0
    for tc_opts, tm_opts, names in OPTION_CASES:
        paths = [os.path.join(args.corpus if n.startswith("corpus:") else DATA, n.split(":", 1)[1])
                 for n in names]
        cwd = os.path.dirname(paths[0])
        rel = [os.path.relpath(p, cwd) for p in paths]
        if derived_case(report, args, tc, totals, cwd, rel, tc_opts, tm_opts):
            options += 1
        else:
            report.fail(" ".join(tm_opts + rel), "trace-cmd 3.1.6 cannot report it")
    print(f"derived layout: {checked} files checked ({skipped} left out: trace-cmd 3.1.6 cannot "
          f"report them, or KNOWN_3_1), {options} option cases; {totals['lines']} sampled lines, "
          f"{totals['flags']} flags columns, "
          f"{totals['hex']} -0x columns, {totals['states']} sched_switch states; {totals['known']} "
          f"lines left out where tracemux's 3.1 report differs from trace-cmd 3.1.6 too")
    if checked < 40 or not totals["states"]:
        report.fail("derived layout coverage", f"{checked} files, {totals['states']} sched_switch states")
    else:
        report.ok()


def main():
    args = parse_args()
    args.tracemux = os.path.abspath(args.tracemux)
    report = Report("trace-cmd report 3.3 (-o tracecmd --report-version)")
    stored_references(report, args)
    info_skipped(report, args)
    tc = shutil.which("trace-cmd")
    if not tc:
        report.fail("trace-cmd", "trace-cmd 3.1.6 is needed: install the Debian package trace-cmd "
                                 "(scripts/install-deps.sh test)")
    else:
        derived_layout(report, args, tc)
    sys.exit(report.finish())


if __name__ == "__main__":
    main()
