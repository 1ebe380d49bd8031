"""-o parquet: the dataset read back by a real reader, DuckDB.

For every trace of the corpus (CTF 1.8 and 2, trace.dat, XRay):
- DuckDB reads every file of the dataset (each part, _streams, _traces,
  _discarded) and the whole dataset with Hive partitioning;
- each event class's rows, in order, equal the events `tracemux -o json`
  prints for it: the same count and every column's value (the JSON fields
  flattened as the Parquet output names its columns: structures dotted,
  enumeration labels in NAME_label, variants as NAME plus NAME.OPTION...,
  lists as lists);
- _streams counts the events of each stream, _discarded has the JSON
  output's discard records, _traces one row per trace;
- the rows per class equal what the real tools count: babeltrace2's
  sink.text.details (babeltrace 2.1.2 for CTF 2) and trace-cmd report.
--partition host,trace: a fleet of CTF, trace.dat and XRay traces in one
dataset; the rows of each (event, host, trace) partition equal the JSON
output's events of that trace, hosts as babeltrace2 and trace-cmd report
them; `read_parquet('DATASET/**/*.parquet', union_by_name = true)` reads
it as one table (the partition keys are columns of the files too) with
the same rows, every event file has each fixed column (ts, cycles, event,
host, trace, stream_id, stream_class_id, cpu) with one Parquet type, and
the rows per class of each trace equal babeltrace2's, trace-cmd report's
and llvm-xray's (convert, fdr-dump) counts; _traces.parquet has each
trace's host and, for CTF, the clocks babeltrace2 prints.
Small row groups and parts (--parquet-row-group-rows/--parquet-part-row-groups)
give the same rows, with min/max statistics of each row group equal to its
values, and strings dictionary-encoded.  Damaged inputs give exit 1 with
the error, and a dataset that DuckDB reads holding what was read before the
fault (what -o json prints).

DuckDB comes from npm (@duckdb/node-api, tests/duckdb/package.json),
installed into tests/duckdb/node_modules on the first run; without node and
npm (Debian: nodejs, npm) the test fails, naming them.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.parse

from bt2ref import Report, bt2_path, parse_args, run, tool
from duck import DUCK, duck_read, setup_duckdb

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCOPES = ("packet_context", "common_context", "specific_context", "payload")


# ---- the JSON output, flattened as the Parquet output names its columns ----

def is_enum(v):
    return isinstance(v, dict) and set(v) == {"value", "labels"}


def is_bitmap(v):
    return isinstance(v, dict) and set(v) == {"value", "flags"}


def is_variant(v):
    return isinstance(v, dict) and set(v) == {"option", "value"}


def flatten(name, v, out):
    if is_enum(v) or is_bitmap(v):
        labels = v["labels"] if is_enum(v) else v["flags"]
        out[name] = v["value"]
        out[name + ("_label" if is_enum(v) else "_flags")] = ", ".join(labels) if labels else None
    elif is_variant(v):
        out[name] = v["option"]
        flatten(f"{name}.{v['option']}", v["value"], out)
    elif isinstance(v, dict):
        for k, m in v.items():
            flatten(f"{name}.{k}" if name else k, m, out)
    elif isinstance(v, list):
        out[name] = [element(e) for e in v]
    elif v is not None:   # null: an absent optional (its columns are null)
        out[name] = v


def element(e):
    """A list element: a leaf's value, a structure's members, or `value`..."""
    if isinstance(e, dict) and not (is_enum(e) or is_bitmap(e) or is_variant(e)):
        d = {}
        flatten("", e, d)
        return d
    if isinstance(e, list):
        return [element(x) for x in e]
    if isinstance(e, dict):
        d = {}
        flatten("value", e, d)
        return d
    return e


# The `host` column: compared with the real tools by check_fleet (the JSON output has no host).
HOST = object()


def expected_row(o):
    out = {"ts": o.get("ts_ns"), "cycles": o.get("cycles"), "event": o["name"], "host": HOST,
           "trace": o["trace"], "stream_id": o["stream"]["id"], "stream_class_id": o["stream"]["class_id"]}
    # cpu: the packet context's integer cpu_id (trace.dat, LTTng), XRay's own `cpu` field
    # (common context {cpu, tid, pid}, also its column common_context.cpu); null elsewhere.
    cpu = (o.get("packet_context") or {}).get("cpu_id")
    common = o.get("common_context") or {}
    if cpu is None and not o.get("packet_context") and set(common) == {"cpu", "tid", "pid"}:
        cpu = common["cpu"]
    if isinstance(cpu, dict):
        cpu = cpu.get("value")
    out["cpu"] = cpu if isinstance(cpu, int) else None
    for scope in SCOPES:
        for k, v in (o.get(scope) or {}).items():
            flatten(f"{scope}.{k}" if k in out else k, v, out)
    return out


def same(exp, got):
    if exp is HOST:
        return got is None or isinstance(got, str)
    if exp is None:   # JSON writes non-finite floats as null
        return got is None or got in ("NaN", "Infinity", "-Infinity")
    if isinstance(exp, bool):
        return got is exp
    if isinstance(exp, int):
        return got is not None and not isinstance(got, bool) and int(got) == exp
    if isinstance(exp, float):
        return isinstance(got, (int, float)) and float(got) == exp
    if isinstance(exp, list):
        return isinstance(got, list) and len(got) == len(exp) and all(map(same, exp, got))
    if isinstance(exp, dict):
        return (isinstance(got, dict) and set(exp) <= set(got)
                and all(same(exp.get(k), got[k]) for k in got))
    return exp == got


# ---- one dataset against the JSON output ----

def part_number(path):
    m = re.search(r"part-(\d+)\.parquet$", path)
    return int(m.group(1)) if m else -1


def event_files(dataset):
    """{class name: [part files in part order]}"""
    out = {}
    for d in glob.glob(os.path.join(dataset, "event=*")):
        value = os.path.basename(d)[len("event="):]
        name = None if value == "__HIVE_DEFAULT_PARTITION__" else urllib.parse.unquote(value)
        out[name] = sorted(glob.glob(os.path.join(d, "*.parquet")), key=part_number)
    return out


def compare_rows(what, rows_by_file, events):
    """Rows of the files (in order) against the JSON events; returns an error or None."""
    rows = [(cols, r) for cols, rs in rows_by_file for r in rs]
    if len(rows) != len(events):
        return f"{what}: {len(rows)} rows, -o json has {len(events)} events"
    for n, ((cols, row), o) in enumerate(zip(rows, events)):
        exp = expected_row(o)
        missing = sorted(set(exp) - set(cols))
        if missing:
            return f"{what} row {n}: no column for {missing} (columns {cols})"
        for c in cols:
            if not same(exp.get(c), row[c]):
                return f"{what} row {n}, column {c}: {row[c]!r}, -o json has {exp.get(c)!r}"
    return None


def check_dataset(node, dataset, objs):
    """Everything the module docstring says about one dataset; returns the errors."""
    errors = []
    classes = event_files(dataset)
    meta = [os.path.join(dataset, f) for f in ("_streams.parquet", "_traces.parquet")]
    meta = [f for f in meta if os.path.exists(f)]
    discarded = sorted(glob.glob(os.path.join(dataset, "_discarded", "*.parquet")), key=part_number)
    files = [f for fs in classes.values() for f in fs] + meta + discarded
    got = duck_read(node, dataset, files)
    events = [o for o in objs if o["type"] == "event"]
    by_name = {}
    for o in events:
        by_name.setdefault(o["name"], []).append(o)
    if set(by_name) != set(classes):
        errors.append(f"classes {sorted(map(str, classes))}, -o json has {sorted(map(str, by_name))}")
    for name, fs in classes.items():
        tables = [(tuple(c for c, _ in got["files"][f]["columns"]), got["files"][f]["rows"]) for f in fs]
        # Classes of one name with other columns write other parts: each
        # event goes with the first columns that have all its fields.
        schemas = list(dict.fromkeys(cols for cols, _ in tables))
        share = {cols: [] for cols in schemas}
        for o in by_name.get(name, []):
            keys = set(expected_row(o))
            fit = next((cols for cols in schemas if keys <= set(cols)), schemas[0])
            share[fit].append(o)
        for cols in schemas:
            err = compare_rows(f"class {name}" + (f" {cols}" if len(schemas) > 1 else ""),
                               [t for t in tables if t[0] == cols], share[cols])
            if err:
                errors.append(err)
    counts = {name: len(evs) for name, evs in by_name.items() if name is not None}
    if {k: v for k, v in got["counts"].items() if k is not None} != counts:
        errors.append(f"whole dataset per class {got['counts']}, -o json {counts}")
    if events and not meta:
        errors.append("no _streams.parquet / _traces.parquet")
    for f in meta:
        if f.endswith("_streams.parquet"):
            total = sum(int(r["events"]) for r in got["files"][f]["rows"])
            if total != len(events):
                errors.append(f"_streams counts {total} events, -o json {len(events)}")
        elif not got["files"][f]["rows"]:
            errors.append("_traces.parquet has no row")
    discards = [o for o in objs if o["type"].startswith("discarded_")]
    rows = [r for f in discarded for r in got["files"][f]["rows"]]
    want = [(o["type"][len("discarded_"):], o["trace"], o["stream"]["id"], o["count"],
             o.get("begin_ns"), o.get("end_ns")) for o in discards]
    have = [(r["kind"], r["trace"], int(r["stream_id"]), int(r["count"]),
             None if r["begin_ns"] is None else int(r["begin_ns"]),
             None if r["end_ns"] is None else int(r["end_ns"])) for r in rows]
    if want != have:
        errors.append(f"_discarded {have[:3]}..., -o json {want[:3]}...")
    return errors, got


def convert(report, args, node, work, what, argv, extra=()):
    """-o json and -o parquet of the same input, the dataset checked; returns DuckDB's view."""
    code_j, out_j, _ = run(args.tracemux, ["-o", "json"] + argv, timeout=300)
    dataset = os.path.join(work, "ds")
    shutil.rmtree(dataset, ignore_errors=True)
    code_p, _, err_p = run(args.tracemux, ["-o", "parquet", "-w", dataset] + list(extra) + argv, timeout=300)
    if code_p != code_j:
        report.fail(what, f"exit {code_p}, -o json exits {code_j}\n{err_p.decode(errors='replace')[-800:]}")
        return None, code_p, err_p
    objs = [json.loads(l) for l in out_j.decode().split("\n") if l]
    try:
        errors, got = check_dataset(node, dataset, objs)
    except RuntimeError as e:
        report.fail(what, str(e))
        return None, code_p, err_p
    if errors:
        report.fail(what, "\n".join(errors[:5]))
        return None, code_p, err_p
    report.ok()
    return got, code_p, err_p


def corpus_traces(args):
    ctf = sorted(glob.glob(os.path.join(args.corpus, "babeltrace-tests/ctf-traces/succeed/*/")))
    ctf2 = sorted(glob.glob(os.path.join(args.corpus, "ctf2/bt-tests/2/succeed/*/")) +
                  [d for d in glob.glob(os.path.join(args.corpus, "ctf2/handmade/*/")) +
                   glob.glob(os.path.join(args.corpus, "ctf2/synthetic/*/"))])
    tracecmd = sorted(glob.glob(os.path.join(args.corpus, "tracecmd-samples", "*.dat")) +
                      glob.glob(os.path.join(args.corpus, "tracecmd-samples", "external", "*.dat")))
    xray = sorted(glob.glob(os.path.join(args.corpus, "xray-samples", "*.xray")))
    data = os.path.join(REPO, "tests", "data")
    return ([d.rstrip("/") for d in ctf + ctf2] + [os.path.join(data, "sample-trace")] + tracecmd +
            sorted(glob.glob(os.path.join(data, "tracedat", "*.dat"))) + xray +
            sorted(glob.glob(os.path.join(data, "xray", "*.xray"))))


def check_row_groups(report, args, node, work):
    """Small row groups and parts: same rows, right statistics, dictionaries."""
    trace = os.path.join(REPO, "tests", "data", "sample-trace")
    got, _, _ = convert(report, args, node, work, "row groups of 7 rows, parts of 2",
                        [trace], ["--parquet-row-group-rows=7", "--parquet-part-row-groups=2"])
    if not got:
        return
    files = {f: v for f, v in got["files"].items() if "/event=" in f}
    parts = max(part_number(f) for f in files)
    groups = [v["row_groups"] for v in files.values()]
    if parts < 1 or max(len({g["row_group_id"] for g in gs}) for gs in groups) != 2:
        report.fail("row groups and parts", f"{parts + 1} parts, row groups {[len(g) for g in groups]}")
        return
    for f, v in files.items():
        at = 0
        for rg in sorted({g["row_group_id"] for g in v["row_groups"]}):
            meta = {g["column"]: g for g in v["row_groups"] if g["row_group_id"] == rg}
            n = int(meta["ts"]["num_rows"])
            rows = v["rows"][at:at + n]
            at += n
            for col in ("ts", "cycles", "stream_id"):
                vals = [int(r[col]) for r in rows]
                lo, hi = meta[col]["min"], meta[col]["max"]
                if int(lo) != min(vals) or int(hi) != max(vals):
                    report.fail("statistics", f"{f} row group {rg} {col}: [{lo}, {hi}], values {vals}")
                    return
            if "RLE_DICTIONARY" not in meta["trace"]["encodings"]:
                report.fail("dictionary", f"{f}: trace column encodings {meta['trace']['encodings']}")
                return
        if at != len(v["rows"]):
            report.fail("row groups", f"{f}: row groups hold {at} rows of {len(v['rows'])}")
            return
    report.ok()


def truncated_copy(src, work, name, keep):
    """A copy of a trace (file or directory) whose data is cut at `keep` (a fraction)."""
    dst = os.path.join(work, name)
    shutil.rmtree(dst, ignore_errors=True)
    if os.path.isdir(src):
        shutil.copytree(src, dst)
        victim = os.path.join(dst, sorted(f for f in os.listdir(dst) if f != "metadata" and not f.startswith(".")
                                          and os.path.isfile(os.path.join(dst, f)))[0])
    else:
        shutil.copy(src, dst)
        victim = dst
    with open(victim, "r+b") as f:
        size = f.seek(0, 2)
        f.truncate(int(size * keep))
    return dst, victim


def check_damaged(report, args, node, work):
    """Exit 1, the error naming the file, and a valid dataset of what was read before."""
    data = os.path.join(REPO, "tests", "data")
    cases = [
        (os.path.join(args.corpus, "babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u"), 0.6),
        (os.path.join(data, "sample-trace"), 0.7),
        (os.path.join(data, "tracedat", "rich-fields-be-v7.dat"), 0.8),
        (os.path.join(data, "xray", "fdr-v5-many-blocks.xray"), 0.5),
    ]
    for src, keep in cases:
        what = f"damaged {os.path.basename(src)} (cut at {keep:.0%})"
        trace, victim = truncated_copy(src, work, "damaged-" + os.path.basename(src), keep)
        got, code, err = convert(report, args, node, work, what, [trace])
        if got is None:
            continue
        if code != 1 or b"error:" not in err or os.path.basename(victim).encode() not in err:
            report.fail(what + ": the error", f"exit {code}: {err.decode(errors='replace')[-500:]}")
        else:
            report.ok()


def check_invalid_utf8(report, args, node, work):
    """A string with a byte that is not UTF-8: the code point of its value, as in JSON."""
    trace = os.path.join(work, "bad-utf8")
    shutil.rmtree(trace, ignore_errors=True)
    shutil.copytree(os.path.join(args.corpus, "babeltrace-tests/ctf-traces/succeed/smalltrace"), trace)
    stream = os.path.join(trace, "dummystream")
    with open(stream, "rb") as f:
        data = bytearray(f.read())
    at = data.index(b"This is")
    data[at:at + 2] = b"\xc3\x28"
    with open(stream, "wb") as f:
        f.write(data)
    got, _, _ = convert(report, args, node, work, "invalid UTF-8", [trace])
    if got:
        rows = [r for f, v in got["files"].items() if "/event=" in f for r in v["rows"]]
        if not rows or rows[0].get("str") != "\u00c3(is is a test trace":
            report.fail("invalid UTF-8 value", repr(rows[:1]))
        else:
            report.ok()


def check_same_name(report, args, node, work):
    """Two classes of one name with other fields: other parts of the same directory.

    The copies get different UUIDs (metadata and packet headers): with the
    same one they would be one logical trace, all decoded with one metadata."""
    src = os.path.join(args.corpus, "babeltrace-tests/ctf-traces/succeed/smalltrace")
    uuid = "2a6422d0-6cee-11e0-8c08-cb07d7b3a564"
    traces = []
    for n, field in enumerate(("str", "txt")):
        trace = os.path.join(work, "same-name-" + field)
        shutil.rmtree(trace, ignore_errors=True)
        shutil.copytree(src, trace)
        other = uuid[:-1] + str(n)
        with open(os.path.join(trace, "metadata"), "rb") as f:
            meta = f.read()
        with open(os.path.join(trace, "metadata"), "wb") as f:
            f.write(meta.replace(b"string str;", b"string %s;" % field.encode())
                    .replace(uuid.encode(), other.encode()))
        with open(os.path.join(trace, "dummystream"), "rb") as f:
            data = f.read()
        with open(os.path.join(trace, "dummystream"), "wb") as f:
            f.write(data.replace(bytes.fromhex(uuid.replace("-", "")),
                                 bytes.fromhex(other.replace("-", ""))))
        traces.append(trace)
    got, _, _ = convert(report, args, node, work, "one class name, two sets of fields", traces)
    if got:
        parts = sorted(os.path.basename(f) for f in got["files"] if "/event=" in f)
        if parts != ["part-0.parquet", "part-1.parquet"]:
            report.fail("one class name, two sets of fields: parts", repr(parts))
        else:
            report.ok()


def check_usage(report, args, work):
    trace = os.path.join(REPO, "tests", "data", "sample-trace")
    code, _, err = run(args.tracemux, ["-o", "parquet", trace])
    if code != 2 or b"-w DIR" not in err:
        report.fail("-o parquet without -w", f"exit {code}: {err!r}")
    else:
        report.ok()
    code, _, err = run(args.tracemux, ["-o", "parquet", "-w", os.path.join(work, "x"),
                                       "--parquet-row-group-rows=0", trace])
    if code != 2 or b"row-group-rows" not in err:
        report.fail("--parquet-row-group-rows=0", f"exit {code}: {err!r}")
    else:
        report.ok()
    blocker = os.path.join(work, "a-file")
    open(blocker, "w").close()
    code, _, err = run(args.tracemux, ["-o", "parquet", "-w", os.path.join(blocker, "sub"), trace])
    if code != 1 or b"sub" not in err:
        report.fail("-o parquet into a path that cannot be a directory", f"exit {code}: {err!r}")
    else:
        report.ok()


BT2_EVENT = re.compile(rb"\} Event `(.*)` \(\d+\)$")
BT21_EVENT = re.compile(rb"^Event `(.*)` \(Class ID \d+\):$")
TC_EVENT = re.compile(rb"^.*?\[\d+\]\s+\d+(?:\.\d+)?:\s+([^:\s]+):")


def count_events(text, pattern):
    counts = {}
    for line in text.split(b"\n"):
        m = pattern.search(line)
        if m:
            name = m.group(1).decode()
            counts[name] = counts.get(name, 0) + 1
    return counts


def reference_counts(trace):
    """Events per class as the real tools count them: babeltrace 2.1.2's
    stored sink.text.details output (CTF 2 corpus), babeltrace2 2.0.4 (CTF
    1.8) or trace-cmd report (trace.dat) run live; None where the tool
    itself cannot read the trace, and for XRay logs."""
    if "/ctf2/" in trace:
        with open(trace + ".bt21.rc") as f:
            if f.read().strip() != "0":
                return None
        with open(trace + ".bt21.details.txt", "rb") as f:
            return count_events(f.read(), BT21_EVENT)
    if os.path.isdir(trace):
        tool, pkg = "babeltrace2", "babeltrace2"
        argv = [trace, "-c", "sink.text.details", "--params=with-metadata=false,compact=true"]
        pattern = BT2_EVENT
    elif trace.endswith(".dat"):
        tool, pkg = "trace-cmd", "trace-cmd"
        argv, pattern = ["report", "-i", trace], TC_EVENT
    else:
        return None  # XRay: compared with llvm-xray by the XRay tests
    path = shutil.which(tool)
    if not path:
        raise SystemExit(f"FAIL: {tool} is not installed: install Debian's {pkg} (scripts/install-deps.sh test)")
    p = subprocess.run([path] + argv, capture_output=True, timeout=300, env=dict(os.environ, LC_ALL="C"))
    if p.returncode:
        return None
    return count_events(p.stdout, pattern)


def check_reference_counts(report, what, trace, got):
    """The dataset's rows per class against the real tool's count (trace-cmd: names without system)."""
    want = reference_counts(trace)
    if want is None:
        return 0
    have = {}
    for name, n in got["counts"].items():
        key = name.split(":", 1)[-1] if trace.endswith(".dat") else name
        have[key] = have.get(key, 0) + n
    if have != want:
        diff = {k: (have.get(k), want.get(k)) for k in set(have) | set(want) if have.get(k) != want.get(k)}
        report.fail(what + ": rows per class vs the real tool", f"(parquet, tool): {dict(list(diff.items())[:6])}")
    else:
        report.ok()
    return 1


def trace_hosts(trace):
    """The host name as the real tools show it: the CTF metadata's env, trace-cmd report --uname."""
    if os.path.isdir(trace):
        p = subprocess.run([shutil.which("babeltrace2"), "-o", "ctf-metadata", trace], capture_output=True)
        m = re.search(rb'\bhostname = "([^"]*)";', p.stdout)
    elif trace.endswith(".dat"):
        p = subprocess.run([shutil.which("trace-cmd"), "report", "--uname", "-i", trace], capture_output=True)
        m = re.search(rb"^cpus=\d+\n\S+ (\S+) ", p.stdout)
    else:
        return None
    return m.group(1).decode() if m else None


LLVM_XRAY = shutil.which("llvm-xray-14") or shutil.which("llvm-xray")
XRAY_KIND = re.compile(rb"\bkind:\s*([a-z-]+)")
XRAY_WALLTIME = re.compile(rb"^<(Wall) Time")


def xray_reference_counts(log):
    """Records per kind as llvm-xray counts them: `convert -f yaml` (function
    enters/exits, custom events) and `fdr-dump` (wall-time records)."""
    if not LLVM_XRAY:
        raise SystemExit("FAIL: llvm-xray is not installed: install Debian's llvm-14 (scripts/install-deps.sh test)")
    counts = {}
    for argv, pattern in ((["convert", "-f", "yaml", log], XRAY_KIND), (["fdr-dump", log], XRAY_WALLTIME)):
        p = subprocess.run([LLVM_XRAY] + argv, capture_output=True, timeout=300)
        if p.returncode:
            raise SystemExit(f"FAIL: llvm-xray {argv[0]} {log}: {p.stderr.decode(errors='replace')}")
        counts.update(count_events(p.stdout, pattern))
    if "Wall" in counts:
        counts["walltime"] = counts.pop("Wall")
    return counts


FIXED_TYPES = {"ts": "BIGINT", "cycles": "UBIGINT", "event": "VARCHAR", "host": "VARCHAR",
               "trace": "VARCHAR", "stream_id": "UBIGINT", "stream_class_id": "UBIGINT", "cpu": "UINTEGER"}


def check_fleet_types(report, got):
    """Every event file has each fixed column with one Parquet type; the union has the documented types."""
    files = {r["name"]: (r["types"], int(r["files"])) for r in got["file_types"]}
    bad = {c: files.get(c) for c in FIXED_TYPES
           if c not in files or len(files[c][0]) != 1 or files[c][1] != got["event_files"]}
    union = {r["column_name"]: r["column_type"] for r in got["fleet_types"]}
    if bad:
        report.fail("fleet: one type per fixed column", f"{bad} over {got['event_files']} files")
    elif union != FIXED_TYPES:
        report.fail("fleet: column types of DATASET/**/*.parquet", f"{union}, expected {FIXED_TYPES}")
    else:
        report.ok()


def check_fleet_counts(report, traces, sources, got):
    """Rows per class of each trace in the one-table read against the real tools
    (`sources`: the input of each trace name)."""
    names = {}
    for r in got["fleet"]:
        names.setdefault(r["trace"], {})
        names[r["trace"]][r["event"]] = names[r["trace"]].get(r["event"], 0) + int(r["n"])
    for t in traces:
        key = next((k for k, src in sources.items() if src == t), None)
        rows = names.pop(key, None)
        want = xray_reference_counts(t) if t.endswith(".xray") else reference_counts(t)
        if rows is None or want is None:
            report.fail(f"fleet: {os.path.basename(t)}", f"rows {rows}, reference {want}")
            continue
        have = {}
        for name, n in rows.items():
            k = name.split(":", 1)[-1] if t.endswith(".dat") else name
            have[k] = have.get(k, 0) + n
        if have != want:
            diff = {k: (have.get(k), want.get(k)) for k in set(have) | set(want) if have.get(k) != want.get(k)}
            report.fail(f"fleet: {os.path.basename(t)} rows per class vs the real tool", f"(parquet, tool): {diff}")
        else:
            report.ok()
    if names:
        report.fail("fleet: traces", f"rows of unexpected traces {sorted(names)}")


CLOCK_BLOCK = re.compile(rb"^clock \{\n(.*?)^\};", re.S | re.M)
CLOCK_ITEM = re.compile(rb"^\s*(\w+) = \"?([^\";]*)\"?;", re.M)


def check_fleet_clocks(report, sources, got):
    """_traces.parquet's clocks of each CTF trace against the clock blocks babeltrace2 prints
    (name, description, frequency, offset in cycles), and the host as the partition's."""
    rows = {r["name"]: r for r in got["traces"]}
    checked = 0
    for name, src in sources.items():
        row = rows.get(name)
        if row is None:
            report.fail("fleet: _traces.parquet", f"no row for trace {name!r}")
            continue
        if row["host"] != trace_hosts(src):
            report.fail("fleet: _traces.parquet host", f"{name!r}: {row['host']!r}, the tool: {trace_hosts(src)!r}")
        if not os.path.isdir(src):
            continue
        p = subprocess.run([shutil.which("babeltrace2"), "-o", "ctf-metadata", src], capture_output=True)
        want = []
        for block in CLOCK_BLOCK.findall(p.stdout):
            items = {k.decode(): v.decode() for k, v in CLOCK_ITEM.findall(block)}
            freq = int(items.get("freq", 1000000000))
            want.append((items["name"], items.get("description"), freq,
                         int(items.get("offset_s", 0)) * freq + int(items.get("offset", 0))))
        have = [(c["name"], c["description"], int(c["frequency"]),
                 int(c["offset_s"]) * int(c["frequency"]) + int(c["offset_cycles"])) for c in row["clocks"]]
        if sorted(have) != sorted(want) or not want:
            report.fail(f"fleet: clocks of {os.path.basename(src)}", f"_traces.parquet {have}, babeltrace2 {want}")
        else:
            checked += 1
    if checked:
        report.ok()


def check_partition(report, args, node, work):
    """Several traces of the three formats, one dataset partitioned by host and trace,
    read by DuckDB as one table: `read_parquet('DATASET/**/*.parquet', union_by_name = true)`."""
    traces = [os.path.join(args.corpus, "babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u"),
              os.path.join(args.corpus, "babeltrace-tests/ctf-traces/succeed/trace-with-index"),
              os.path.join(args.corpus, "tracecmd-samples/sched-v6.dat"),
              os.path.join(args.corpus, "tracecmd-samples/sched-v7-zstd.dat"),
              os.path.join(args.corpus, "xray-samples/fdr-v5-small.xray")]
    dataset = os.path.join(work, "partitioned")
    shutil.rmtree(dataset, ignore_errors=True)
    code, _, err = run(args.tracemux, ["-o", "parquet", "-w", dataset, "--partition", "host,trace"] + traces,
                       timeout=300)
    _, out_j, _ = run(args.tracemux, ["-o", "json"] + traces, timeout=300)
    if code:
        report.fail("--partition host,trace", f"exit {code}: {err.decode(errors='replace')[-500:]}")
        return
    hosts, sources = {}, {}
    want, want_fleet = {}, {}
    for line in out_j.decode().split("\n"):
        o = json.loads(line) if line else {}
        if o.get("type") == "event":
            if o["trace"] not in hosts:
                # An XRay stream is a thread: its trace is named after the log.
                src = next(t for t in traces if o["trace"] == t or
                           o["stream"]["name"].startswith(bt2_path(t) + "/"))
                hosts[o["trace"]] = trace_hosts(src)
                sources[o["trace"]] = src
            # An empty name is Hive's default partition, which DuckDB reads as NULL.
            key = (o["name"], hosts[o["trace"]] or None, o["trace"] or None)
            want[key] = want.get(key, 0) + 1
            # In the files: the trace's name as it is, no host: null.
            key = (o["name"], hosts[o["trace"]] or None, o["trace"])
            want_fleet[key] = want_fleet.get(key, 0) + 1
    p = subprocess.run([node, os.path.join(DUCK, "pqread.mjs"), "--partitions", dataset],
                       capture_output=True, timeout=600)
    if p.returncode:
        report.fail("--partition host,trace: DuckDB", p.stderr.decode(errors="replace")[-800:])
        return
    got = json.loads(p.stdout)
    have = {(r["event"], r["host"], r["trace"]): int(r["n"]) for r in got["partitions"]}
    fleet = {(r["event"], r["host"], r["trace"]): int(r["n"]) for r in got["fleet"]}
    if have != want:
        report.fail("--partition host,trace: rows per (event, host, trace)",
                    f"DuckDB {sorted(have.items())[:4]}...\n-o json {sorted(want.items())[:4]}...")
    elif fleet != want_fleet:
        report.fail("DATASET/**/*.parquet as one table: rows per (event, host, trace)",
                    f"DuckDB {sorted(fleet.items(), key=str)[:4]}...\n-o json {sorted(want_fleet.items(), key=str)[:4]}...")
    elif not {"event", "host", "trace"} <= set(got["file_columns"]):
        report.fail("--partition host,trace", f"the files lack a partition key column: {got['file_columns'][:10]}")
    elif {h for _, h, _ in have} != {None, "joraj-alpa", "vm"}:
        report.fail("--partition host,trace", f"hosts {sorted({str(h) for _, h, _ in have})}: "
                    "expected joraj-alpa, vm and none (the XRay log, a trace without hostname)")
    else:
        report.ok()
    check_fleet_types(report, got)
    check_fleet_counts(report, traces, sources, got)
    check_fleet_clocks(report, sources, got)
    code, _, err = run(args.tracemux, ["-o", "parquet", "-w", dataset, "--partition", "cpu", traces[0]])
    if code != 2 or b"host, trace or host,trace" not in err:
        report.fail("--partition cpu", f"exit {code}: {err!r}")
    else:
        report.ok()


def main():
    args = parse_args()
    node = setup_duckdb()
    report = Report("parquet")
    tool(report, "llvm-xray-14", "llvm-14")   # run live below: fail here without it
    tool(report, "trace-cmd", "trace-cmd")   # run live below: fail here without it
    tool(report, "babeltrace2", "babeltrace2")   # run live below: fail here without it
    work = tempfile.mkdtemp(prefix="tracemux-parquet-")
    try:
        checked = 0
        for trace in corpus_traces(args):
            what = (os.path.relpath(trace, args.corpus) if trace.startswith(args.corpus)
                    else os.path.relpath(trace, REPO))
            got, code, _ = convert(report, args, node, work, what, [trace])
            if got and code == 0:
                checked += check_reference_counts(report, what, trace, got)
        if checked < 20:
            report.fail("rows per class vs the real tools", f"only {checked} traces compared")
        print(f"rows per class compared with babeltrace2 / trace-cmd report on {checked} traces")
        check_partition(report, args, node, work)
        check_row_groups(report, args, node, work)
        check_damaged(report, args, node, work)
        check_invalid_utf8(report, args, node, work)
        check_same_name(report, args, node, work)
        check_usage(report, args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
