"""Differences with babeltrace2 2.0.4 that other people's traces showed
(issue 29), each on a small trace of tests/data/conformance (made by
tests/data/make-conformance.py) compared with babeltrace2 run live:

1. paths through symbolic links: stream paths printed absolute with the
   links as given and `..` removed lexically (discarded-event warnings,
   `query trace-infos` port names, JSON stream names); a path whose `..`
   only works through the link is refused by both;
2. reserved keywords as field, typedef, struct, variant option names,
   variant tags and enumeration labels (`typealias`): refused by both, ours
   at the line babeltrace2 names, at the keyword; keywords where
   babeltrace2 takes them (env keys, attribute names and values, labels)
   read alike;
3. `\\x` escapes of up to three hexadecimal digits in env strings, also
   once written back by `-o ctf`;
4. a stream whose only clock-mapped field is the packet context's
   `timestamp_end`: every event printed with the stream's clock value;
5. `info` lists streams by ID as numbers (the IDs of babeltrace2's
   trace-infos query, which lists them in file name order).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

from bt2ref import Report, first_diff, parse_args, run_env, tool

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.realpath(os.path.join(HERE, "..", "data", "conformance"))


def run(argv, cwd=None):
    env = run_env()
    if cwd:
        env["PWD"] = cwd   # as a shell sets it: the way the user went there
    p = subprocess.run(argv, capture_output=True, env=env, cwd=cwd, timeout=60)
    return p.returncode, p.stdout, p.stderr


def bt2_warnings(err):
    """babeltrace2's WARNING lines (its log lines and error report left out)."""
    return b"".join(l for l in err.splitlines(keepends=True) if l.startswith(b"WARNING:"))


def compare(report, what, expected, actual):
    if expected != actual:
        report.fail(what, first_diff(expected, actual))
    else:
        report.ok()


def check_paths(report, tm, bt2):
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="tmx-conf-"))
    try:
        os.makedirs(os.path.join(tmp, "real"))
        os.symlink(os.path.join(DATA, "discarded"), os.path.join(tmp, "real", "trace"))
        os.symlink("real", os.path.join(tmp, "lnk"))
        inputs = ["lnk/trace", os.path.join(tmp, "lnk", "trace"), "./lnk/../lnk/./trace/",
                  "lnk//trace/."]
        expected_dir = os.path.join(tmp, "lnk", "trace")
        for path in inputs:
            b = run([bt2, path], cwd=tmp)
            t = run([tm, path], cwd=tmp)
            if b[0] != 0 or t[0] != 0:
                report.fail(f"paths: {path}", f"exit bt2 {b[0]}, tracemux {t[0]}: "
                            f"{t[2].decode(errors='replace')[-300:]}")
                continue
            warnings = bt2_warnings(b[2])
            if (expected_dir + "/chan_0").encode() not in warnings:
                report.fail(f"paths: {path}: babeltrace2's warning", warnings.decode())
            else:
                report.ok()
            compare(report, f"paths: {path}: stdout", b[1], t[1])
            compare(report, f"paths: {path}: warnings", warnings, t[2])
            q = ["inputs=[\"%s\"]" % path]
            bq = run([bt2, "query", "src.ctf.fs", "babeltrace.trace-infos", "-p", q[0]], cwd=tmp)
            tq = run([tm, "query", "trace-infos", path], cwd=tmp)
            compare(report, f"paths: {path}: query trace-infos", bq[1], tq[1])
            # JSON stream names: the paths babeltrace2 gives its ports.
            ports = re.findall(rb"port-name: .* \| (\S+)\n", bq[1])
            tj = run([tm, "-o", "json", path], cwd=tmp)
            names = sorted({json.loads(l)["stream"]["name"].encode()
                            for l in tj[1].splitlines() if l.strip()})
            if tj[0] != 0 or len(ports) != 2 or names != sorted(ports):
                report.fail(f"paths: {path}: JSON stream names", f"{names} vs ports {ports}")
            else:
                report.ok()
        # `..` removed lexically: tmp/lnk/trace/../../conformance... names
        # tmp/conformance/discarded, which does not exist (through the links it
        # would be tests/data/conformance/discarded).
        path = "lnk/trace/../../conformance/discarded"
        b = run([bt2, path], cwd=tmp)
        t = run([tm, path], cwd=tmp)
        if b[0] == 0 or t[0] == 0 or t[1]:
            report.fail(f"paths: {path}: both must refuse", f"exit bt2 {b[0]}, tracemux {t[0]}")
        else:
            report.ok()
    finally:
        shutil.rmtree(tmp)


KEYWORD_TRACES = {   # trace: the keyword refused
    "keyword-field": "struct",
    "keyword-typedef": "int",
    "keyword-tag": "enum",
    "keyword-struct-name": "trace",
    "keyword-option": "string",
    "keyword-label": "typealias",
}


def check_keywords(report, tm, bt2):
    for name, kw in KEYWORD_TRACES.items():
        trace = os.path.join(DATA, name)
        b = run([bt2, trace])
        t = run([tm, trace])
        m = re.search(rb"At line (\d+) in metadata stream: syntax error", b[2])
        if b[0] == 0 or not m:
            report.fail(f"keywords: {name}: babeltrace2 no longer refuses it", b[2][-300:])
            continue
        err = t[2].decode(errors="replace")
        tm_at = re.search(r"metadata:(\d+):(\d+): `([^`]*)` is a reserved keyword", err)
        if t[0] == 0 or not tm_at:
            report.fail(f"keywords: {name}: tracemux must refuse `{kw}`", err[-300:])
            continue
        line, col = int(tm_at.group(1)), int(tm_at.group(2))
        with open(os.path.join(trace, "metadata")) as f:
            text = f.read().splitlines()[line - 1]
        if (tm_at.group(3) != kw or line != int(m.group(1)) or
                not text[col - 1:].startswith(kw)):
            report.fail(f"keywords: {name}", f"tracemux: {err.strip()}\n"
                        f"babeltrace2: line {m.group(1).decode()}")
        else:
            report.ok()
    trace = os.path.join(DATA, "keywords-ok")
    b = run([bt2, trace])
    t = run([tm, trace])
    if b[0] != 0 or t[0] != 0:
        report.fail("keywords-ok: both must read it", f"exit bt2 {b[0]}, tracemux {t[0]}: "
                    f"{t[2].decode(errors='replace')[-300:]}")
    else:
        compare(report, "keywords-ok", b[1], t[1])


def check_escapes(report, tm, bt2):
    trace = os.path.join(DATA, "escapes")
    opts = ["-f", "trace:hostname,trace:domain,trace:procname,trace:vpid"]
    b = run([bt2] + opts + [trace])
    t = run([tm] + opts + [trace])
    if b[0] != 0 or t[0] != 0 or b"#1A" not in b[1]:
        report.fail("escapes", f"exit bt2 {b[0]}, tracemux {t[0]}: {b[1][:200]}")
        return
    compare(report, "escapes", b[1], t[1])
    # Written back (-o ctf) and read by babeltrace2: the same values.  The
    # writer says a byte before a hexadecimal digit in octal, where
    # babeltrace2's sink.ctf.fs writes "\xbcD", which it reads back as 0xcd.
    tmp = tempfile.mkdtemp(prefix="tmx-conf-")
    try:
        w = run([tm, "-o", "ctf", "-w", tmp, trace])
        rb = run([bt2] + opts + [tmp])
        if w[0] != 0 or rb[0] != 0:
            report.fail("escapes written back", f"exit {w[0]}, babeltrace2 {rb[0]}")
        else:
            compare(report, "escapes written back, read by babeltrace2", b[1], rb[1])
    finally:
        shutil.rmtree(tmp)


def check_clock_end(report, tm, bt2):
    trace = os.path.join(DATA, "clock-end")
    for opts in ([], ["--clock-cycles"], ["--clock-seconds"], ["--clock-date"], ["-n", "all"]):
        b = run([bt2] + opts + [trace])
        t = run([tm] + opts + [trace])
        what = "clock-end " + " ".join(opts)
        if b[0] != 0 or t[0] != 0 or b"12345" not in b[1]:
            report.fail(what, f"exit bt2 {b[0]}, tracemux {t[0]}")
            continue
        compare(report, what, b[1], t[1])
        compare(report, what + " (warnings)", bt2_warnings(b[2]), t[2])


def check_info_order(report, tm, bt2):
    trace = os.path.join(DATA, "many-streams")
    bq = run([bt2, "query", "src.ctf.fs", "babeltrace.trace-infos", "-p",
              "inputs=[\"%s\"]" % trace])
    ids = [int(x) for x in re.findall(rb"port-name: .* \| 3 \| (\d+)\n", bq[1])]
    t = run([tm, "info", trace])
    listed = [int(x) for x in re.findall(rb"  stream (\d+) \(class 3\)", t[1])]
    if bq[0] != 0 or len(ids) != 12 or t[0] != 0:
        report.fail("info order", f"babeltrace2's IDs {ids}, exit {t[0]}")
    elif listed != sorted(ids):
        report.fail("info order", f"listed {listed}, expected {sorted(ids)}")
    else:
        report.ok()


def main():
    args = parse_args()
    report = Report("conformance (issue 29)")
    bt2 = tool(report, "babeltrace2", "babeltrace2")
    if not os.path.isdir(DATA):
        report.fail("tests/data/conformance", "missing: run tests/data/make-conformance.py")
        report.finish()
    args.tracemux = os.path.abspath(args.tracemux)   # run from other directories
    check_paths(report, args.tracemux, bt2)
    check_keywords(report, args.tracemux, bt2)
    check_escapes(report, args.tracemux, bt2)
    check_clock_end(report, args.tracemux, bt2)
    check_info_order(report, args.tracemux, bt2)
    report.finish()


if __name__ == "__main__":
    main()
