#!/usr/bin/env python3
"""`tracemux analyze COMMAND --format=csv` (and parquet) against lttng-analyses 0.6.1 run live.

Expected tables come from lttng-COMMAND-mi (Debian python3-lttnganalyses):
its MI JSON turned into CSV tables here by a rule written from the MI
structure (the table classes of `lttng-COMMAND-mi --metadata`, the result
tables of the run), independently of tracemux's C writer:
  - one CSV table per MI table class name (an inline class inherits one;
    one that declares its own columns, --freq-series, is named from its
    title), consecutive MI tables of a name in one CSV table;
  - columns period_begin, period_end (the MI table's time range),
    subtitle (the "[...]" ending an inline class's title, else empty),
    then per column of the class its title made a name (ASCII letters and
    digits lowercased, other runs `_`, a minus sign before a digit kept) and one column per part of its
    class (process: _name _pid _tid, irq: _hard _nr _name, time-range:
    _begin _end, cpu id, syscall/disk/part/netif name, path, fd, else the
    value), a name already taken getting _2, _3...
Cells are compared one by one: integers equal, floats to 1e-9 relative,
strings equal, null as an empty field.  Every command runs on
tc-bug446190 and tc-flipping-endianness, the I/O ones also on
tests/data/analyze-io, plus a few option sets; `-w DIR` against the same
tables; a trace.dat (no lttng-analyses for it) checks the CSV against
tracemux's own --mi by the same rule: that is a CSV/MI consistency check,
not a check of the numbers; a damaged trace gives the CSV of what was read
(lttng-analyses on the intact trace up to the last event read), the error
and exit 1.
--format=parquet -w DIR: the files read back by DuckDB (tests/duckdb, from
npm, as test_parquet.py) against the same expected tables, with the column
types the MI classes give (BIGINT, DOUBLE, BOOLEAN, VARCHAR).
"""
import concurrent.futures
import csv
import io
import json
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import Report, parse_args, run  # noqa: E402
from duck import duck_read, setup_duckdb  # noqa: E402
from test_analyze import (TRACES, damage_bug446190, float_eq, link_kernel, lttng,  # noqa: E402
                          require_tools)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMANDS = ["cputop", "schedstats", "schedtop", "schedlog", "schedfreq", "syscallstats",
            "irqstats", "irqlog", "irqfreq", "iolatencystats", "iolatencytop",
            "iolatencyfreq", "iolog", "iousagetop", "memtop"]
IO_COMMANDS = [c for c in COMMANDS if c.startswith("io")]
# (command, trace, options) beyond every command on both traces without options
EXTRA = [
    ("cputop", "bug446190", ["--begin", "08:36:03", "--end", "08:36:05.5", "--limit", "3"]),
    ("schedfreq", "bug446190", ["--freq-series"]),
    ("schedfreq", "bug446190", ["--freq-series", "--per-prio"]),   # "Priority: -100"
    ("schedstats", "bug446190", ["--total", "--per-prio", "--per-tid", "--freq"]),
    ("irqstats", "bug446190", ["--freq", "--freq-series", "--log"]),
    ("syscallstats", "flipping", ["--tid", "1,2,3,4,5,6,7,8,9,10"]),
    # a text line before the JSON (lttng-analyses' warning): on stderr, the rows as without it
    ("iolatencystats", "io", ["--cpu", "0"]),
]
TRACEDAT = "tracecmd-samples/sched-v7-zstd.dat"
# --format=parquet: these runs of the plan (every value class, inline classes, --freq-series)
PARQUET = {("cputop", "bug446190"), ("syscallstats", "bug446190"), ("irqstats", "bug446190"),
           ("schedlog", "bug446190"), ("schedfreq", "bug446190"), ("iolog", "io"),
           ("iousagetop", "io"), ("memtop", "bug446190")}
# logs: lttng-analyses orders events of equal times by babeltrace 1's heap
# (see test_analyze.py): rows of equal key are compared as a set
LOG_KEYS = {"sched": "switch_timestamp", "irq": "time_range_end"}

PARTS = {
    "process": [("_name", "name"), ("_pid", "pid"), ("_tid", "tid")],
    "irq": [("_hard", "hard"), ("_nr", "nr"), ("_name", "name")],
    "time-range": [("_begin", "begin"), ("_end", "end")],
    "cpu": [("", "id")],
    "syscall": [("", "name")], "disk": [("", "name")], "part": [("", "name")],
    "netif": [("", "name")],
    "path": [("", "path")],
    "fd": [("", "fd")],
}


def family_of(cmd):
    """The command whose --metadata gives cmd's table classes (a family shares them)."""
    for f in ("sched", "irq", "io"):
        if cmd.startswith(f):
            return {"sched": "schedstats", "irq": "irqstats", "io": "iolatencystats"}[f]
    return cmd


def check(rep, ok, what, detail):
    if ok:
        rep.ok()
    else:
        rep.fail(what, detail)


def slug(title):
    s = re.sub(r"-(?=[0-9])", "\x00", title)   # a minus sign before a digit is kept
    s = "".join(c.lower() if c.isascii() and c.isalnum() or c == "\x00" else " " for c in s)
    return "_".join(s.split()).replace("\x00", "-")


def scalar(v):
    if isinstance(v, dict):   # a time-range's timestamp
        v = v.get("value")
    return v


def mi_tables(doc, classes, merge=False):
    """MI results -> [(name, header, rows)], rows of typed cells."""
    out = []
    for t in doc["results"]:
        cls, subtitle = t["class"], ""
        if isinstance(cls, str):
            name, cols = cls, classes[cls]["column-descriptions"]
        elif "inherit" in cls:
            name, cols = cls["inherit"], classes[cls["inherit"]]["column-descriptions"]
            title = cls.get("title", "")
            i = title.find(" [")
            if i >= 0 and title.endswith("]"):
                subtitle = title[i + 2:-1]
        else:
            name, cols = slug(cls["title"]), cls["column-descriptions"]
        header = ["period_begin", "period_end", "subtitle"]
        for c in cols:
            for suf, _ in PARTS.get(c["class"], [("", "value")]):
                h, n = slug(c["title"]) + suf, 2
                while h in header:   # a name taken: NAME_2, NAME_3...
                    h, n = f"{slug(c['title'])}{suf}_{n}", n + 1
                header.append(h)
        rng = t["time-range"]
        rows = []
        for r in t["data"]:
            row = [rng["begin"]["value"], rng["end"]["value"], subtitle]
            for c, cell in zip(cols, r):
                for _, key in PARTS.get(c["class"], [("", "value")]):
                    row.append(scalar(cell.get(key)) if isinstance(cell, dict) else None)
            rows.append(row)
        same = [x for x in out if x[0] == name] if merge else out[-1:] if out and out[-1][0] == name else []
        if same:
            same[0][2].extend(rows)
        else:
            out.append((name, header, rows))
    return out


def parse_csv_stdout(data):
    """tracemux's stdout: `# table: NAME`, header, rows; a blank line between tables."""
    out = []
    for row in csv.reader(io.StringIO(data.decode())):
        if not row:
            continue
        if len(row) == 1 and row[0].startswith("# table: "):
            out.append([row[0][9:], None, []])
        elif out and out[-1][1] is None:
            out[-1][1] = row
        elif out:
            out[-1][2].append(row)
        else:
            raise ValueError(f"row before any table: {row!r}")
    return [tuple(t) for t in out]


def canon(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, float) else str(v)


def cell_diff(want, got):
    if isinstance(want, bool) or want is None or isinstance(want, str):
        return None if canon(want) == got else f"{canon(want)!r} != {got!r}"
    try:
        if isinstance(want, int):
            return None if int(got) == want else f"{want} != {got}"
        g = float(got)
        return None if float_eq(want, g) or (want != want and g != g) else f"{want!r} != {got}"
    except ValueError:
        return f"{want!r} != {got!r} (not a number)"


def sort_ties(rows, key, text):
    """Rows of equal key next to each other in one order (their text)."""
    out, i = [], 0
    while i < len(rows):
        j = i
        while j < len(rows) and text(rows[j][key]) == text(rows[i][key]):
            j += 1
        out += sorted(rows[i:j], key=lambda r: [text(x) for x in r])
        i = j
    return out


def tables_diff(cmd, want, got):
    """The first difference between expected (typed) and tracemux's (text) tables, or None."""
    if [t[0] for t in want] != [t[0] for t in got]:
        return f"tables {[t[0] for t in want]} != {[t[0] for t in got]}"
    fam = "irq" if cmd.startswith("irq") else "sched" if cmd.startswith("sched") else None
    for (name, wh, wr), (_, gh, gr) in zip(want, got):
        if wh != gh:
            return f"{name}: header {wh} != {gh}"
        if len(wr) != len(gr):
            return f"{name}: {len(wr)} rows != {len(gr)}"
        if name == "log" and fam in LOG_KEYS:
            k = wh.index(LOG_KEYS[fam])
            wr, gr = sort_ties(wr, k, canon), sort_ties(gr, k, str)
        d = first_cell_diff(name, wh, wr, gr, cell_diff)
        if d:
            return d
    return None


def first_cell_diff(name, header, want, got, diff):
    for i, (w, g) in enumerate(zip(want, got)):
        if len(g) != len(w):
            return f"{name} row {i}: {len(g)} fields != {len(w)}"
        for col, x, y in zip(header, w, g):
            d = diff(x, y)
            if d:
                return f"{name} row {i} {col}: {d}"
    return None


def compare(rep, what, cmd, classes, want_rc, want_out, trc, tout, terr):
    """lttng-COMMAND-mi's (exit, JSON) against tracemux's (exit, CSV, stderr)."""
    lines = want_out.split(b"\n")
    warn = [l for l in lines if l and not l.startswith(b"{")]
    if warn and not all(w in terr for w in warn):
        rep.fail(what, f"warnings {warn!r} not on stderr: {terr[:300]!r}")
        return
    try:
        doc = json.loads(b"\n".join(l for l in lines if l not in warn))
    except ValueError as e:
        rep.fail(what, f"lttng-analyses' MI is not JSON: {e}: {want_out[:200]!r}")
        return
    if "error-message" in doc:
        ok = trc == want_rc and not tout and doc["error-message"].encode() in terr
        check(rep, ok, what, f"exit {trc} (want {want_rc}), stdout {tout[:100]!r}, "
                            f"stderr {terr[:200]!r}, want {doc['error-message']!r}")
        return
    try:
        d = tables_diff(cmd, mi_tables(doc, classes), parse_csv_stdout(tout))
    except (ValueError, KeyError) as e:
        d = f"unreadable: {e!r}: {tout[:200]!r}"
    if d or trc != want_rc:
        rep.fail(what, f"exit {trc} vs {want_rc}: {d}; stderr {terr[:300]!r}")
    else:
        rep.ok()


def check_dir(rep, tracemux, cmd, classes, kpath, tmp, wrc, wout):
    """-w DIR: one NAME.csv per table, the same rows as lttng-analyses' MI (wrc, wout)."""
    d = os.path.join(tmp, f"dir-{cmd}")
    rc, out, err = run(tracemux, ["analyze", cmd, "--format=csv", "-w", d, kpath])
    want = mi_tables(json.loads(wout), classes, merge=True)
    got = []
    for name, _, _ in want:
        path = os.path.join(d, name + ".csv")
        if not os.path.exists(path):
            rep.fail(f"-w {cmd}", f"{path} missing; files {sorted(os.listdir(d))}")
            return
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        got.append((name, rows[0], rows[1:]))
    extra = sorted(set(os.listdir(d)) - {n + ".csv" for n, _, _ in want})
    diff = tables_diff(cmd, want, got)
    ok = rc == wrc == 0 and not out and not extra and not diff and len(want) > 1
    check(rep, ok, f"-w {cmd}", f"exit {rc}, stdout {out[:100]!r}, extra {extra}, {diff}, "
                               f"{len(want)} tables, {err[:200]!r}")


def check_tracedat(rep, tracemux, corpus, classes):
    """CSV/MI consistency on a trace.dat: --format=csv against tracemux's own --mi
    by the rule above (lttng-analyses cannot read trace.dat)."""
    path = os.path.join(corpus, TRACEDAT)
    n_rows = 0
    for cmd in COMMANDS:
        mrc, mout, _ = run(tracemux, ["analyze", cmd, "--mi", path])
        crc, cout, cerr = run(tracemux, ["analyze", cmd, "--format=csv", path])
        what = f"csv/mi consistency (tracemux's own MI) {cmd} {TRACEDAT}"
        doc = json.loads(mout)
        if "error-message" in doc:
            check(rep, crc == mrc and not cout, what, f"exit {crc}/{mrc}, {cout[:100]!r}")
            continue
        want = mi_tables(doc, classes[cmd])
        n_rows += sum(len(t[2]) for t in want)
        d = tables_diff(cmd, want, parse_csv_stdout(cout))
        check(rep, not d and crc == mrc == 0, what, f"exit {crc}/{mrc}: {d} {cerr[:200]!r}")
    check(rep, n_rows > 100, f"{TRACEDAT} has rows", f"only {n_rows} rows over all commands")


def check_damaged(rep, tracemux, corpus, classes, tmp):
    """A trace damaged in a later packet: the CSV of the events read before the
    fault (lttng-analyses on the intact trace up to the last of them), then the
    error naming the file and offset, exit 1."""
    off = 260004   # an event boundary (test_analyze.py)
    kdir, last_ts = damage_bug446190(tracemux, corpus, tmp, off)
    intact = os.path.join(tmp, "bug446190", "kernel")
    for cmd in ("cputop", "syscallstats"):
        trc, tout, terr = run(tracemux, ["analyze", cmd, "--format=csv", kdir])
        erc, eout, _ = lttng(f"lttng-{cmd}-mi", ["--end", str(last_ts), intact])
        what = f"damaged {cmd} --format=csv at byte {off}"
        if trc != 1 or b"channel0_1: at byte" not in terr or not tout:
            rep.fail(what, f"exit {trc}, stdout {len(tout)} bytes, stderr {terr[:300]!r}")
            continue
        d = tables_diff(cmd, mi_tables(json.loads(eout), classes[cmd]), parse_csv_stdout(tout))
        check(rep, erc == 0 and not d, what, f"lttng exit {erc}: {d}")


# DuckDB's types of the Parquet columns, by the MI class of the column (and part)
PQ_TYPES = {"timestamp": "BIGINT", "number": "BIGINT", "size": "BIGINT", "cpu": "BIGINT",
            "fd": "BIGINT", "duration": "DOUBLE", "ratio": "DOUBLE", "bitrate": "DOUBLE",
            "bool": "BOOLEAN", "process": ("VARCHAR", "BIGINT", "BIGINT"),
            "irq": ("BOOLEAN", "BIGINT", "VARCHAR"), "time-range": ("BIGINT", "BIGINT")}


def pq_types(doc, classes, name):
    """The expected DuckDB type of each column of table `name`."""
    for t in doc["results"]:
        cls = t["class"]
        n = cls if isinstance(cls, str) else cls.get("inherit") or slug(cls["title"])
        if n != name:
            continue
        cols = (classes[n] if n in classes else cls)["column-descriptions"]
        out = ["BIGINT", "BIGINT", "VARCHAR"]
        for c in cols:
            ty = PQ_TYPES.get(c["class"], "VARCHAR")
            out += list(ty) if isinstance(ty, tuple) else [ty]
        return out
    return None


def pq_cell_diff(want, got):
    if want is None or isinstance(want, (bool, str)):
        return None if want == got else f"{want!r} != {got!r}"
    try:
        if isinstance(want, int):   # DuckDB's JSON gives 64-bit integers as strings
            return None if int(got) == want else f"{want} != {got!r}"
        return None if float_eq(want, float(got)) else f"{want!r} != {got!r}"
    except (TypeError, ValueError):
        return f"{want!r} != {got!r}"


def check_parquet(rep, tracemux, node, runs, classes, tmp):
    """--format=parquet -w DIR read by DuckDB: one NAME.parquet per table, typed
    columns, the rows of lttng-COMMAND-mi's tables (the rule above) cell by cell."""
    todo, files = [], []
    for cmd, kpath, opts, wout in runs:
        d = os.path.join(tmp, "pq-" + "-".join([cmd] + opts))
        rc, out, err = run(tracemux, ["analyze", cmd, "--format=parquet", "-w", d] + opts + [kpath])
        doc = json.loads(wout)
        want = mi_tables(doc, classes[cmd], merge=True)
        what = f"parquet {cmd} {' '.join(opts)}".strip()
        names = sorted(os.listdir(d)) if os.path.isdir(d) else []
        if rc or out or names != sorted(n + ".parquet" for n, _, _ in want):
            rep.fail(what, f"exit {rc}, stdout {out[:100]!r}, files {names}, stderr {err[:300]!r}")
            continue
        todo.append((what, cmd, d, doc, want))
        files += [os.path.join(d, n) for n in names]
    try:
        got = duck_read(node, tmp, files)["files"]   # one DuckDB run for all
    except RuntimeError as e:
        rep.fail("parquet read by DuckDB", str(e))
        return
    n_rows = 0
    for what, cmd, d, doc, want in todo:
        diff = None
        fam = "irq" if cmd.startswith("irq") else "sched" if cmd.startswith("sched") else None
        for name, header, rows in want:
            f = got[os.path.join(d, name + ".parquet")]
            types = pq_types(doc, classes[cmd], name)
            grows = [[r[c] for c in header] for r in f["rows"]] if [c[0] for c in f["columns"]] == header else []
            if [c[0] for c in f["columns"]] != header or [c[1] for c in f["columns"]] != types:
                diff = f"{name}: columns {f['columns']} != {header} {types}"
            elif len(grows) != len(rows):
                diff = f"{name}: {len(grows)} rows != {len(rows)}"
            else:
                if name == "log" and fam in LOG_KEYS:
                    k = header.index(LOG_KEYS[fam])
                    rows, grows = sort_ties(rows, k, canon), sort_ties(grows, k, canon)
                diff = first_cell_diff(name, header, rows, grows, pq_cell_diff)
            n_rows += len(rows)
            if diff:
                break
        check(rep, not diff, what, diff)
    check(rep, n_rows > 100, "parquet rows compared", f"only {n_rows}")


def check_usage(rep, tracemux, kpath):
    for argv, what in ((["--format=xml"], "unknown format"), (["-w", "/nonexistent/x"], "-w without csv"),
                       (["--format=parquet"], "parquet without -w")):
        rc, out, err = run(tracemux, ["analyze", "cputop"] + argv + [kpath])
        check(rep, rc == 2 and not out and err, f"usage: {what}", f"exit {rc}, {out[:100]!r} {err[:200]!r}")


def main():
    args = parse_args()
    rep = Report("analyze_csv")
    require_tools(rep, ("lttng-cputop-mi", "babeltrace"))
    node = setup_duckdb()
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        kpaths = {t: link_kernel(tmp, t, TRACES[t][0], args.corpus) for t in ("bug446190", "flipping")}
        kpaths["io"] = os.path.join(REPO, "tests", "data", "analyze-io", "kernel")
        plan = [(c, t, []) for c in COMMANDS for t in ("bug446190", "flipping")]
        plan += [(c, "io", []) for c in IO_COMMANDS] + EXTRA
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            # one --metadata per family (the commands of a family share their table classes)
            fams = {family_of(c) for c in COMMANDS}
            meta = {f: pool.submit(lttng, f"lttng-{f}-mi", ["--metadata"]) for f in fams}
            want = [pool.submit(lttng, f"lttng-{c}-mi", o + [kpaths[t]]) for c, t, o in plan]
            by_fam = {f: json.loads(x.result()[1])["table-classes"] for f, x in meta.items()}
            classes = {c: by_fam[family_of(c)] for c in COMMANDS}
            pq_runs, mi = [], {}
            for (cmd, trace, opts), fut in zip(plan, want):
                wrc, wout, _ = fut.result()
                mi[cmd, trace, tuple(opts)] = (wrc, wout)
                if (cmd, trace) in PARQUET and not wrc:
                    pq_runs.append((cmd, kpaths[trace], opts, wout))
                trc, tout, terr = run(args.tracemux, ["analyze", cmd, "--format=csv"] + opts + [kpaths[trace]])
                compare(rep, f"{cmd} {trace} {' '.join(opts)}".strip(), cmd, classes[cmd],
                        wrc, wout, trc, tout, terr)
        check_parquet(rep, args.tracemux, node, pq_runs, classes, tmp)
        for cmd, trace in (("iousagetop", "io"), ("cputop", "bug446190")):
            check_dir(rep, args.tracemux, cmd, classes[cmd], kpaths[trace], tmp, *mi[cmd, trace, ()])
        check_tracedat(rep, args.tracemux, args.corpus, classes)
        check_damaged(rep, args.tracemux, args.corpus, classes, tmp)
        check_usage(rep, args.tracemux, kpaths["bug446190"])
    print(f"analyze_csv: {time.time() - start:.1f} s")
    rep.finish()


if __name__ == "__main__":
    main()
