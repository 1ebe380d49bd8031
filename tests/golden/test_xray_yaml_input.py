"""llvm-xray's YAML traces as input, against llvm-xray 14 run live.

`llvm-xray convert --output-format=yaml` writes YAML traces that
`llvm-xray convert/account/stack/graph` read back; so does tracemux.

1. Inputs: tests/data/xray/yaml-*.yaml (made by llvm-xray 14 from the corpus
   logs with make-yaml-inputs.sh, and written by hand: comments, quoted
   keys and names, block and flow styles, tail exits, custom and typed
   events, several threads and processes, records out of order, arguments,
   keys in another order, a second document), and every corpus log
   converted here by llvm-xray, sorted and --sort=false, and the hand-built
   binary logs of tests/data/xray converted (-o xray-yaml only).  llvm-xray 14 reads
   only version 1 from YAML: it is given copies with `version: 1` (and is
   checked to refuse the others, which tracemux reads, printing the same
   records).  On each:
   - `-o xray-yaml` (--sort=true and false) = `llvm-xray convert -f yaml`
     (which stable-sorts YAML records by TSC, or keeps the file order);
   - `xray-account` (option sets, and a memory budget that takes several
     passes) = `llvm-xray account -k` on llvm-xray's sorted conversion of
     the same input: llvm-xray account reads YAML
     records in file order and drops those older than the first one, while
     tracemux accounts the records sorted by TSC (src/tools/xray/account.c);
     on an input already sorted, llvm-xray gets the same input;
   - `-o chrome` = `llvm-xray convert -f trace_event` (as parsed JSON, our
     "ph":"M" metadata left out, as test_xray_chrome.py compares);
   - with the corpus's YAML instrumentation map, --symbolize and account -m.
   Spellings of numbers and booleans (radix prefixes, signs, quotes, null,
   out of range): taken or refused as llvm-xray does, with the same value.
   Raw DEL bytes in data, which llvm-xray writes and reads back although
   YAML forbids them: read back too.
2. Faults: broken YAML, missing and unknown keys, values of the wrong type
   or out of range, unsupported versions: exit 1, the file and line:column
   and what was expected; the records before the fault printed, which must
   be llvm-xray's output on the file without the faulty part; llvm-xray
   refuses each input too (except a repeated key, which tracemux refuses
   and llvm-xray takes).  --lenient: the records at fault are left out
   (llvm-xray's output on the file without them), with a warning each.
3. Instrumentation maps that llvm-xray refuses (an empty file, a YAML
   mapping, entries that are not mappings, missing keys, bad values):
   tracemux refuses them too, with the position; an empty YAML document is
   an empty map for both.  Truncated ELF files: "truncated ELF file" and
   the byte where the file ends, for a cut in the ELF header, in the data,
   in the section header table, and in the xray_instr_map section.
"""
import json
import os
import re
import sys
import tempfile

from bt2ref import Report, first_diff, parse_args, run
from xraygen import build_sample, llvm_xray, run_llvm

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "xray")
CORPUS_LOGS = ["fdr-v5-small", "fdr-v5-tinybuf-dropped", "fdr-v5-large", "basic-v3-small",
               "basic-v3-large"]
ACCOUNT_OPTS = [[], ["-sort=count", "-sortorder=dsc"], ["-d"], ["-format=csv"],
                ["--recursive-calls-only"]]


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def as_version(text, version):
    """The YAML text with its header's version line set to `version`."""
    return re.sub(r"(?m)^(  version:\s+)\d+", lambda m: m.group(1) + str(version), text, count=1)


def version_1_copy(path, tmp):
    with open(path) as f:
        text = f.read()
    return write(os.path.join(tmp, "v1-" + os.path.basename(path)), as_version(text, 1))


class Live:
    """llvm-xray runs, each command line once."""

    def __init__(self, llvm):
        self.llvm = llvm
        self.runs = {}

    def __call__(self, argv):
        key = tuple(argv)
        if key not in self.runs:
            self.runs[key] = run_llvm([self.llvm] + argv)
        return self.runs[key]


def same(report, what, got, want):
    """got, want: (exit status, stdout)."""
    if want[0] != 0:
        report.fail(what, f"llvm-xray failed (exit {want[0]})")
    elif got[0] != 0:
        report.fail(what, f"tracemux exit {got[0]}: {got[2].decode(errors='replace')[:500]}")
    elif got[1] != want[1]:
        report.fail(what, first_diff(want[1], got[1]))
    else:
        report.ok()


def chrome_events(data):
    doc = json.loads(data.decode("utf-8"))
    return ([e for e in doc["traceEvents"] if e.get("ph") != "M"], doc.get("stackFrames"),
            doc.get("displayTimeUnit"))


def compare_input(report, args, live, name, path, llvm_path, tmp, chrome=True, large=False):
    """Every comparison of part 1 on one YAML input (llvm_path: its version-1 copy);
    fewer on a large one (llvm-xray takes seconds each)."""
    tmx = lambda argv: run(args.tracemux, argv)
    for sort in ("true", "false"):
        code, out, err = tmx(["-o", "xray-yaml", "--sort=" + sort, path])
        lcode, lout, _ = live(["convert", "-f", "yaml", "--sort=" + sort, llvm_path])
        if path != llvm_path:   # our copy of the version line back
            lout = as_version(lout.decode(), version_of(path)).encode()
        same(report, f"{name}: -o xray-yaml --sort={sort}", (code, out, err), (lcode, lout))
    # llvm-xray account on its own sorted conversion of the input.
    lcode, sorted_yaml, _ = live(["convert", "-f", "yaml", llvm_path])
    sorted_path = write(os.path.join(tmp, "sorted-" + os.path.basename(path)), sorted_yaml)
    for opts in ACCOUNT_OPTS[:1] if large else ACCOUNT_OPTS:
        code, out, err = tmx(["xray-account"] + opts + [path])
        lcode, lout, _ = live(["account", "-k"] + opts + [sorted_path])
        same(report, f"{name}: xray-account {' '.join(opts)}", (code, out, err), (lcode, lout))
    # Over the memory budget: the YAML is read again for each pass.
    code, out, err = tmx(["xray-account", "--account-memory=1", path])
    same(report, f"{name}: xray-account --account-memory=1", (code, out, err),
         live(["account", "-k", sorted_path]))
    if chrome:
        code, out, err = tmx(["-o", "chrome", path])
        lcode, lout, _ = live(["convert", "-f", "trace_event", llvm_path])
        if code != 0 or lcode != 0:
            report.fail(f"{name}: -o chrome", f"exit {code} / llvm-xray {lcode}: "
                        f"{err.decode(errors='replace')[:300]}")
        elif chrome_events(out) != chrome_events(lout):
            report.fail(f"{name}: -o chrome", "trace events differ from llvm-xray's trace_event")
        else:
            report.ok()


def version_of(path):
    with open(path) as f:
        return int(re.search(r"\bversion:\s*(\d+)", f.read()).group(1))


def inputs_tests(report, args, live, tmp):
    xs = os.path.join(args.corpus, "xray-samples")
    ymap = os.path.join(xs, "instrmap.yaml")
    for f in sorted(os.listdir(DATA)):
        if not (f.startswith("yaml-") and f.endswith(".yaml")):
            continue
        path = os.path.join(DATA, f)
        v1 = path if version_of(path) == 1 else version_1_copy(path, tmp)
        if v1 != path:   # llvm-xray 14 refuses it as it is
            lcode, _, lerr = live(["convert", "-f", "yaml", path])
            if lcode == 0 or b"Unsupported XRay file version" not in lerr:
                report.fail(f"{f}: llvm-xray should refuse version {version_of(path)}")
            else:
                report.ok()
        compare_input(report, args, live, f, path, v1, tmp, chrome=v1 == path)
    for name in CORPUS_LOGS:
        large = "large" in name
        for sort in ("true",) if large else ("true", "false"):
            code, out, err = live(["convert", "-f", "yaml", "--sort=" + sort,
                                   os.path.join(xs, name + ".xray")])
            path = write(os.path.join(tmp, f"{name}-{sort}.yaml"), as_version(out.decode(), 1))
            compare_input(report, args, live, f"{name} (--sort={sort})", path, path, tmp,
                          chrome=not large, large=large)
            if large:
                continue
            # Names from the YAML map: llvm-xray symbolizes to @(address).
            code, out, err = run(args.tracemux, ["-o", "xray-yaml", "--symbolize", "--instr-map",
                                                 ymap, path])
            same(report, f"{name}-{sort}: --symbolize with the YAML map", (code, out, err),
                 live(["convert", "-f", "yaml", "--symbolize", "--instr_map=" + ymap, path]))
    # The hand-built binary logs of tests/data/xray (every version, typed and
    # custom events with every byte value, many threads...) through YAML.
    for f in sorted(os.listdir(DATA)):
        if not f.endswith(".xray"):
            continue
        code, out, err = live(["convert", "-f", "yaml", "--sort=false", os.path.join(DATA, f)])
        if code != 0:
            report.fail(f"{f}: llvm-xray convert failed")
            continue
        path = write(os.path.join(tmp, f + ".yaml"), as_version(out.decode("latin-1"), 1)
                     .encode("latin-1"))
        for sort in ("true", "false"):
            got = run(args.tracemux, ["-o", "xray-yaml", "--sort=" + sort, path])
            want = live(["convert", "-f", "yaml", "--sort=" + sort, path])
            # llvm-xray writes some data unquoted where YAML reads more
            # (`data: a,b` in a flow mapping: a key b): it cannot read those
            # back, nor can tracemux.
            if want[0] != 0 and got[0] != 0:
                report.ok()
            else:
                same(report, f"{f} as YAML: -o xray-yaml --sort={sort}", got, want)
    code, out, err = run(args.tracemux, ["xray-account", "-m", ymap,
                                         os.path.join(tmp, "fdr-v5-small-true.yaml")])
    same(report, "account -m with the YAML map", (code, out, err),
         live(["account", "-k", "-instr_map=" + ymap, os.path.join(tmp, "fdr-v5-small-true.yaml")]))


# ------------------------------------------------------------------ faults

HEAD = """---
header:
  version:         1
  type:            1
  constant-tsc:    true
  nonstop-tsc:     true
  cycle-frequency: 1000000000
"""
GOOD = """records:
  - { type: 0, func-id: 1, cpu: 0, thread: 2, kind: function-enter, tsc: 300 }
  - { type: 0, func-id: 2, cpu: 0, thread: 3, kind: function-enter, tsc: 100 }
"""
# (name, text after HEAD + GOOD, position, what the message says, how llvm-xray takes
# it: "same" refuses it at the same line:column, "refuses" elsewhere (its own parser's
# syntax errors, the start of a mapping's first key for a mapping), "accepts").
RECORD_FAULTS = [
    ("unterminated flow mapping", "  - { type: 0, cpu: 0, kind: function-exit, tsc: 1\n",
     "12:1", "YAML syntax error: did not find expected ',' or '}' (while parsing a flow "
     "mapping started at 11:5)", "refuses"),
    ("unterminated quoted string", "  - { type: 0, cpu: 0, kind: 'function-exit, tsc: 1 }\n",
     "12:1", "YAML syntax error: found unexpected end of stream (while scanning a quoted "
     "scalar started at 11:30)", "refuses"),
    ("bad indentation", " bad: 1\n", "11:2", "YAML syntax error: did not find expected key", "refuses"),
    ("missing key", "  - { type: 0, cpu: 0, tsc: 1 }\n", "11:7",
     "missing required key 'kind' in a record", "same"),
    ("unknown key", "  - { type: 0, cpu: 0, kind: function-exit, tsc: 1, color: red }\n",
     "11:53", "unknown key 'color' in a record", "same"),
    ("repeated key", "  - { type: 0, cpu: 0, kind: function-exit, tsc: 1, tsc: 2 }\n",
     "11:53", "key 'tsc' given twice in a record", "accepts"),
    ("not a number", "  - { type: 0, cpu: 0, kind: function-exit, tsc: soon }\n", "11:50",
     "invalid number 'soon' for 'tsc'", "same"),
    ("negative thread", "  - { type: 0, cpu: 0, thread: -1, kind: function-exit, tsc: 1 }\n",
     "11:32", "invalid number '-1' for 'thread'", "same"),
    ("cpu out of range", "  - { type: 0, cpu: 65536, kind: function-exit, tsc: 1 }\n", "11:21",
     "out of range number '65536' for 'cpu': expected an integer from 0 to 65535", "same"),
    ("func-id out of range",
     "  - { type: 0, func-id: 2147483648, cpu: 0, kind: function-exit, tsc: 1 }\n", "11:25",
     "out of range number '2147483648' for 'func-id'", "same"),
    ("unknown kind", "  - { type: 0, cpu: 0, kind: function-entry, tsc: 1 }\n", "11:30",
     "unknown record kind 'function-entry'", "same"),
    ("record not a mapping", "  - 42\n", "11:5", "not a mapping: expected a record", "same"),
    ("args not a sequence", "  - { type: 0, cpu: 0, kind: function-exit, tsc: 1, args: 5 }\n",
     "11:59", "not a sequence: expected the call arguments 'args'", "same"),
    ("an argument not a number",
     "  - { type: 0, cpu: 0, kind: function-exit, tsc: 1, args: [ 1, two ] }\n", "11:64",
     "invalid number 'two' for 'args'", "same"),
    ("data not a string",
     "  - { type: 0, cpu: 0, kind: custom-event, tsc: 1, data: { a: 1 } }\n", "11:58",
     "expected a string for 'data', found a mapping", "refuses"),
    ("empty value", "  - { type: 0, cpu: 0, kind: function-exit, tsc: }\n", "11:50",
     "expected an unsigned integer for 'tsc', found an empty value", "same"),
    ("alias", "  - *r\n", "11:5", "YAML alias *r: aliases are not supported", "refuses"),
    ("key after the records", "extra: 1\n", "11:1", "unknown key 'extra' in the trace", "same"),
    ("text after the document", "]\n", "11:1", "YAML syntax error: did not find expected key",
     "refuses"),
]
# (name, whole text, position, message, header_out): faults before any record;
# header_out: the header is known, so its YAML (no record) is printed first.
HEADER_FAULTS = [
    ("version 0", as_version(HEAD, 0) + "records: []\n", "3:20",
     "XRay file version 0 is not supported: expected 1 to 5", False),
    ("version 6", as_version(HEAD, 6) + "records: []\n", "3:20",
     "XRay file version 6 is not supported", False),
    ("bad boolean", HEAD.replace("nonstop-tsc:     true", "nonstop-tsc:     1") + "records: []\n",
     "6:20", "invalid boolean '1' for 'nonstop-tsc'", False),
    ("missing header key", HEAD.replace("  cycle-frequency: 1000000000\n", "") + "records: []\n",
     "3:3", "missing required key 'cycle-frequency' in the header", False),
    ("header not a mapping", "---\nheader: 1\nrecords: []\n", "2:9",
     "not a mapping: expected the header", False),
    ("no header", "---\n" + GOOD, "2:1", "missing required key 'header' in the trace", False),
    ("records before a broken header", "---\n" + GOOD + "header: { version: 1 }\n", "5:11",
     "missing required key 'type' in the header", False),
    ("a broken record before the header", "---\n" + GOOD + "  - 5\n" + HEAD[4:], "5:5",
     "not a mapping: expected a record", False),
    ("empty document", "---\n", "2:1", "empty YAML document: expected an XRay trace", False),
    ("a sequence", "---\n- 1\n", "2:1", "not a mapping: expected an XRay trace", False),
    ("records not a sequence", HEAD + "records: 5\n", "8:10",
     "not a sequence: expected the records", True),
    ("no records", HEAD, "2:1", "missing required key 'records' in the trace", True),
]


def llvm_refusal(report, what, live, path, how, pos):
    """Checks how llvm-xray takes a faulty input (see RECORD_FAULTS)."""
    lcode, _, lerr = live(["convert", "-f", "yaml", path])
    if how == "accepts" and lcode != 0:
        report.fail(what, "llvm-xray refuses it (we expected it to accept it)")
    elif how != "accepts" and lcode == 0:
        report.fail(what, "llvm-xray accepts it")
    elif how == "same" and f"YAML:{pos}: error".encode() not in lerr:
        report.fail(what, f"llvm-xray places it elsewhere: {lerr.decode(errors='replace')[:200]}")
    else:
        return True
    return False


# Spellings of numbers and booleans: llvm's ScalarTraits decide what they mean.
NUMBERS = ["0", "7", "00", "010", "08", "0x1F", "0X1f", "0x", "0b101", "0B11", "0b2", "0o17",
           "0O17", "1e3", "+1", "-0", "-1", "-0x10", "-2147483648", "-2147483649", "2147483647",
           "1_000", "'42'", '"0x10"', "4294967295", "4294967296", "18446744073709551615",
           "18446744073709551616", "0xFFFFFFFFFFFFFFFF", "0x10000000000000000", "~", "null",
           "' 5'", "5 # comment", "0xg", "１"]
BOOLEANS = ["true", "True", "TRUE", "tRue", "false", "False", "FALSE", "yes", "Yes", "YES", "yEs",
            "no", "No", "NO", "on", "On", "ON", "oN", "off", "Off", "OFF", "y", "Y", "n", "N",
            "1", "0", "'true'", "~"]


def value_tests(report, args, live, tmp):
    """Each spelling as a signed (func-id), an unsigned 32-bit (thread) and
    64-bit (tsc) integer, and as a boolean: accepted or refused as llvm-xray
    does, with the same value."""
    cases = []
    for i, v in enumerate(NUMBERS):
        for key in ("func-id", "thread", "tsc"):
            rec = {"type": "0", "cpu": "0", "kind": "function-enter", "tsc": "1", key: v}
            cases.append((f"{key}: {v}", f"n{i}-{key}", HEAD + "records:\n  - { " +
                          ", ".join(f"{k}: {x}" for k, x in rec.items()) + " }\n"))
    for i, v in enumerate(BOOLEANS):
        cases.append((f"constant-tsc: {v}", f"b{i}", HEAD.replace(
            "constant-tsc:    true", "constant-tsc:    " + v) + "records: []\n"))
    for what, fname, text in cases:
        path = write(os.path.join(tmp, f"value-{fname}.yaml"), text)
        code, out, err = run(args.tracemux, ["-o", "xray-yaml", path])
        lcode, lout, _ = live(["convert", "-f", "yaml", path])
        if (code == 0) != (lcode == 0):
            report.fail(f"value {what}", f"tracemux exit {code}, llvm-xray exit {lcode}: "
                        f"{err.decode(errors='replace')[:300]}")
        elif code == 0 and out != lout:
            report.fail(f"value {what}", first_diff(lout, out))
        else:
            report.ok()


def del_tests(report, args, live, tmp):
    """llvm-xray writes the DEL bytes of custom-event data raw in double
    quotes (YAML does not allow them; libyaml refuses them) and reads them
    back: so does tracemux, unless the text also holds U+FDD0 (the stand-in
    it gives libyaml), when it refuses the DEL with its byte offset."""
    data = b'"del \x7f, \x7f\x7f, escaped \\x7f"'
    text = (HEAD + "records:\n").encode() + \
        b"  - { type: 0, cpu: 0, kind: custom-event, tsc: 5, data: " + data + b" }\n"
    path = write(os.path.join(tmp, "del.yaml"), text)
    same(report, "raw DEL in data", run(args.tracemux, ["-o", "xray-yaml", path]),
         live(["convert", "-f", "yaml", path]))
    path = write(os.path.join(tmp, "del-fdd0.yaml"), text.replace(b"escaped", "\ufdd0".encode()))
    code, out, err = run(args.tracemux, ["-o", "xray-yaml", path])
    offset = text.index(b"\x7f")
    if code != 1 or f"{path}: at byte {offset}: not a YAML text: control characters are not " \
            "allowed (byte 0x7f)" not in err.decode(errors="replace"):
        report.fail("raw DEL with U+FDD0", f"exit {code}: {err.decode(errors='replace')}")
    else:
        report.ok()


def fault_tests(report, args, live, tmp):
    good = write(os.path.join(tmp, "good.yaml"), HEAD + GOOD)
    lcode, want, _ = live(["convert", "-f", "yaml", good])
    for i, (name, tail, pos, msg, how) in enumerate(RECORD_FAULTS):
        path = write(os.path.join(tmp, f"fault-{i}.yaml"), HEAD + GOOD + tail)
        code, out, err = run(args.tracemux, ["-o", "xray-yaml", path])
        text = err.decode(errors="replace")
        if code != 1 or f"{path}:{pos}: {msg}" not in text:
            report.fail(f"fault: {name}", f"exit {code}, expected '{path}:{pos}: {msg}' in: {text}")
        elif out != want:
            report.fail(f"fault: {name}: the records before the fault", first_diff(want, out))
        elif llvm_refusal(report, f"fault: {name}", live, path, how, pos):
            report.ok()
    header_only = write(os.path.join(tmp, "header-only.yaml"), HEAD + "records: []\n")
    _, want_header, _ = live(["convert", "-f", "yaml", header_only])
    for i, (name, text_in, pos, msg, header_out) in enumerate(HEADER_FAULTS):
        path = write(os.path.join(tmp, f"header-fault-{i}.yaml"), text_in)
        code, out, err = run(args.tracemux, ["-o", "xray-yaml", path])
        text = err.decode(errors="replace")
        if code != 1 or f"{path}:{pos}: {msg}" not in text:
            report.fail(f"fault: {name}", f"exit {code}, expected '{path}:{pos}: {msg}' in: {text}")
        elif out != (want_header if header_out else b""):
            report.fail(f"fault: {name}: output", first_diff(want_header if header_out else b"",
                                                             out))
        elif live(["convert", "-f", "yaml", path])[0] == 0:
            report.fail(f"fault: {name}", "llvm-xray accepts it")
        else:
            report.ok()
    # Not UTF-8: libyaml knows the byte, not the line.
    path = write(os.path.join(tmp, "not-utf8.yaml"), (HEAD + GOOD).encode() + b"  - \xff\n")
    code, out, err = run(args.tracemux, ["-o", "xray-yaml", path])
    if code != 1 or not re.search(re.escape(path) + r": at byte \d+: not a YAML text: invalid "
                                  r"leading UTF-8 octet", err.decode(errors="replace")):
        report.fail("fault: not UTF-8", f"exit {code}: {err.decode(errors='replace')}")
    else:
        report.ok()
    # Not YAML at all: not taken for a trace of any format.
    path = write(os.path.join(tmp, "notes.txt"), "just some notes\n")
    code, out, err = run(args.tracemux, [path])
    if code == 0 or b"unknown trace format" not in err or b"YAML trace" not in err:
        report.fail("not a trace", f"exit {code}: {err.decode(errors='replace')}")
    else:
        report.ok()

    # --lenient: the faulty records left out, one warning each, exit 1.
    bad = [t for _, t, _, _, _ in RECORD_FAULTS[3:16]]   # faults inside one record
    mixed = HEAD + GOOD + "".join(b + "  - { type: 0, func-id: 3, cpu: 1, thread: 2, "
                                  f"kind: function-exit, tsc: {400 + i} }}\n"
                                  for i, b in enumerate(bad))
    clean = HEAD + GOOD + "".join("  - { type: 0, func-id: 3, cpu: 1, thread: 2, "
                                  f"kind: function-exit, tsc: {400 + i} }}\n"
                                  for i in range(len(bad)))
    path = write(os.path.join(tmp, "mixed.yaml"), mixed)
    code, out, err = run(args.tracemux, ["-o", "xray-yaml", "--lenient", path])
    lcode, want, _ = live(["convert", "-f", "yaml", write(os.path.join(tmp, "clean.yaml"), clean)])
    warnings = err.decode(errors="replace").count("(record skipped)")
    if code != 1 or warnings != len(bad):
        report.fail("--lenient", f"exit {code}, {warnings} warnings for {len(bad)} bad records: "
                    f"{err.decode(errors='replace')}")
    elif out != want:
        report.fail("--lenient: the good records", first_diff(want, out))
    else:
        report.ok()


# ------------------------------------------------------------------ maps

# (name, map text, position or None, message): maps llvm-xray refuses.
BAD_MAPS = [
    ("empty file", "", None, "instrumentation map: empty file: expected an instrumented ELF "
     "binary or llvm-xray extract's YAML map"),
    ("a mapping", "functions: 3\n", "1:1", "instrumentation map: not a sequence"),
    ("entries not mappings", "- 1\n- 2\n", "1:3",
     "instrumentation map: not a mapping: expected a sled entry"),
    ("missing key", "- { id: 1, address: 0x10, function: 0x10, kind: function-enter }\n", "1:5",
     "instrumentation map: missing required key 'always-instrument' in a sled entry"),
    ("unknown kind", "- { id: 1, address: 0x10, function: 0x10, kind: entry, "
     "always-instrument: false }\n", "1:49", "instrumentation map: unknown sled kind 'entry'"),
    ("version out of range", "- { id: 1, address: 0x10, function: 0x10, kind: tail-exit, "
     "always-instrument: false, version: 256 }\n", "1:95",
     "instrumentation map: out of range number '256' for 'version'"),
    ("unknown key", "- { id: 1, address: 0x10, function: 0x10, kind: tail-exit, "
     "always-instrument: false, size: 3 }\n", "1:86", "instrumentation map: unknown key 'size'"),
]


def check_map_error(report, args, what, log, mp, expect):
    for argv in (["-o", "xray-yaml", "--instr-map", mp, log], ["xray-account", "-m", mp, log]):
        code, out, err = run(args.tracemux, argv)
        if code != 1 or expect not in err.decode(errors="replace"):
            report.fail(f"map: {what} ({argv[0]})", f"exit {code}, expected {expect!r} in: "
                        f"{err.decode(errors='replace')}")
        else:
            report.ok()


def map_tests(report, args, live, tmp):
    log = os.path.join(args.corpus, "xray-samples", "fdr-v5-small.xray")
    for i, (name, text, pos, msg) in enumerate(BAD_MAPS):
        mp = write(os.path.join(tmp, f"map-{i}.yaml"), text)
        check_map_error(report, args, name, log, mp, f"{mp}:{pos}: {msg}" if pos else f"{mp}: {msg}")
        for argv in (["convert", "-f", "yaml", "--instr_map=" + mp, log],
                     ["account", "-k", "--instr_map=" + mp, log]):
            if live(argv)[0] == 0:
                report.fail(f"map: {name}", f"llvm-xray {argv[0]} accepts it")
    # An empty document: an empty map for both (every name "#id").
    mp = write(os.path.join(tmp, "map-empty-document.yaml"), "---\n...\n")
    code, out, err = run(args.tracemux, ["-o", "xray-yaml", "--symbolize", "--instr-map", mp, log])
    same(report, "map: empty document", (code, out, err),
         live(["convert", "-f", "yaml", "--symbolize", "--instr_map=" + mp, log]))

    # Truncated ELF files: the sample program when clang-14 is there, and
    # any ELF file (tracemux itself) for cuts before the sections.
    elves = [args.tracemux]
    exe = build_sample(args.corpus, tmp)
    if exe:
        elves.append(exe)
    else:
        report.fail("clang-14 is not installed (scripts/install-deps.sh test): no "
                    "instrumented binary for the cut xray_instr_map section")
    for elf in elves:
        with open(elf, "rb") as f:
            data = f.read()
        for size in (10, 63, 4096, len(data) // 2, len(data) - 1):
            mp = write(os.path.join(tmp, f"cut-{os.path.basename(elf)}-{size}.elf"), data[:size])
            check_map_error(report, args, f"{os.path.basename(elf)} cut at {size}", log, mp,
                            f"{mp}: at byte {size}: instrumentation map: truncated ELF file: "
                            "the file ends here, " +
                            ("inside the 64-byte ELF header" if size < 64 else
                             "before the end of its section header table"))
            if live(["convert", "-f", "yaml", "--instr_map=" + mp, log])[0] == 0:
                report.fail(f"map: {elf} cut at {size}: llvm-xray accepts it")
    if exe:
        # A file whose section header table comes first (right after the
        # program headers), cut in the middle of xray_instr_map: the
        # sections are found, the cut one is named by its index (the name
        # table is lost with the end of the file).
        shoff = int.from_bytes(data[0x28:0x30], "little")
        shnum = int.from_bytes(data[0x3c:0x3e], "little")
        at = int.from_bytes(data[0x20:0x28], "little") + \
            int.from_bytes(data[0x36:0x38], "little") * int.from_bytes(data[0x38:0x3a], "little")
        table = bytearray(data[shoff:shoff + shnum * 64])
        for i in range(shnum):
            off = int.from_bytes(table[i * 64 + 0x18:i * 64 + 0x20], "little")
            if off >= at:
                table[i * 64 + 0x18:i * 64 + 0x20] = (off + len(table)).to_bytes(8, "little")
        index, start, size = map_section(data, data[shoff:shoff + shnum * 64])
        start += len(table)
        moved = bytearray(data[:at]) + table + data[at:]
        moved[0x28:0x30] = at.to_bytes(8, "little")
        mp = write(os.path.join(tmp, "cut-in-section.elf"), bytes(moved[:start + 16]))
        check_map_error(report, args, "cut in xray_instr_map", log, mp,
                        f"{mp}: at byte {start + 16}: instrumentation map: truncated ELF file: "
                        f"the file ends here, before the end of section [{index}] (bytes "
                        f"{start} to {start + size})")


def map_section(data, table):
    """(index, file offset, size) of the xray_instr_map section of a 64-bit ELF file."""
    shstrndx = int.from_bytes(data[0x3e:0x40], "little")
    str_off = int.from_bytes(table[shstrndx * 64 + 0x18:shstrndx * 64 + 0x20], "little")
    for i in range(len(table) // 64):
        sh = table[i * 64:i * 64 + 64]
        name_off = int.from_bytes(sh[0:4], "little")
        if data[str_off + name_off:].startswith(b"xray_instr_map\0"):
            return (i, int.from_bytes(sh[0x18:0x20], "little"),
                    int.from_bytes(sh[0x20:0x28], "little"))
    raise RuntimeError("no xray_instr_map section")


def main():
    args = parse_args()
    report = Report("llvm-xray YAML traces as input vs llvm-xray 14")
    llvm = llvm_xray()
    if not llvm:
        print("FAIL: llvm-xray 14 is not installed: install Debian's llvm-14 (scripts/install-deps.sh "
              "test): this test compares tracemux with it run live")
        sys.exit(1)
    live = Live(llvm)
    with tempfile.TemporaryDirectory() as tmp:
        inputs_tests(report, args, live, tmp)
        value_tests(report, args, live, tmp)
        del_tests(report, args, live, tmp)
        fault_tests(report, args, live, tmp)
        map_tests(report, args, live, tmp)
    report.finish()


if __name__ == "__main__":
    main()
