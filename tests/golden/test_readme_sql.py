"""The README's SQL over a Parquet dataset runs, on real traces.

Builds the README's `fleet` dataset (`-o parquet --partition host,trace`)
from corpus traces that have what the queries read: a trace.dat with
raw_syscalls and sched events, an LTTng kernel trace with sched_wakeup and
sched_switch, an XRay log.  The whole dataset read as one table has the
three traces, `_traces.parquet` their clocks.  Each ```sql block of the README's "SQL over
traces" section then runs in DuckDB from the dataset's parent directory and
must give rows; the system-call counts must equal what trace-cmd report
prints (`sys_enter: NR <id> (...)` lines, counted per id).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

from bt2ref import Report, parse_args, run, tool
from duck import DUCK, setup_duckdb

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def readme_sql():
    """The ```sql blocks of the README's SQL section, in order."""
    with open(os.path.join(REPO, "README.md")) as f:
        text = f.read()
    section = text.split("## SQL over traces", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sql\n(.*?)```", section, re.S)


def duck_sql(node, cwd, sql):
    p = subprocess.run([node, os.path.join(DUCK, "sql.mjs"), sql], capture_output=True, cwd=cwd,
                       timeout=600)
    if p.returncode:
        raise RuntimeError(p.stderr.decode(errors="replace")[-1500:])
    return json.loads(p.stdout)


def trace_cmd_syscalls(tracedat):
    """sys_enter events per syscall number, as trace-cmd report prints them."""
    tc = shutil.which("trace-cmd")
    if not tc:
        return None
    out = subprocess.run([tc, "report", "-i", tracedat], capture_output=True, timeout=300,
                         env=dict(os.environ, LC_ALL="C")).stdout
    counts = {}
    for m in re.finditer(rb" sys_enter: +NR (\d+) ", out):
        counts[int(m.group(1))] = counts.get(int(m.group(1)), 0) + 1
    return counts


def main():
    args = parse_args()
    node = setup_duckdb()
    report = Report("README SQL")
    tool(report, "trace-cmd", "trace-cmd")   # run live below: fail here without it
    tracedat = os.path.join(args.corpus, "tracecmd-samples/sched-v7-zstd.dat")
    inputs = [tracedat,
              os.path.join(args.corpus, "babeltrace-tests/ctf-traces/succeed/lttng-tracefile-rotation/kernel"),
              os.path.join(args.corpus, "xray-samples/fdr-v5-large.xray"),
              "--instr-map", os.path.join(args.corpus, "xray-samples/instrmap.yaml")]
    work = tempfile.mkdtemp(prefix="tracemux-readme-sql-")
    try:
        code, _, err = run(args.tracemux, ["-o", "parquet", "-w", os.path.join(work, "fleet"),
                                           "--partition", "host,trace"] + inputs, timeout=300)
        if code:
            report.fail("the fleet dataset", f"exit {code}: {err.decode(errors='replace')[-500:]}")
            report.finish()
        blocks = readme_sql()
        if len(blocks) != 5:
            report.fail("README", f"{len(blocks)} SQL blocks in the SQL section, 5 expected")
        results = []
        for sql in blocks:
            what = sql.strip().split("\n")[0]
            try:
                rows = duck_sql(node, work, sql)
            except RuntimeError as e:
                report.fail(what, str(e))
                continue
            results.append(rows)
            if not rows:
                report.fail(what, "no rows")
            else:
                report.ok()
        if len(results) == 5:
            # The whole dataset as one table: its three formats' traces; their clocks.
            traces = {r["trace"] for r in results[0]}
            clocks = {r["clock"] for r in results[1]}
            if len(traces) != 3 or not {"xray_tsc"} <= clocks or len(results[1]) < 3:
                report.fail("the dataset as one table", f"traces {traces}, clocks {results[1]}")
            else:
                report.ok()
        want = trace_cmd_syscalls(tracedat)
        syscalls = results[2] if len(results) == 5 else None
        if want is not None and syscalls:
            # The README's top-10: its counts are the 10 largest of trace-cmd's.
            got = sorted((int(r["calls"]) for r in syscalls), reverse=True)
            top = sorted(want.values(), reverse=True)[:len(got)]
            ids = {int(r["syscall"]): int(r["calls"]) for r in syscalls}
            if got != top or any(want.get(i) != n for i, n in ids.items()):
                report.fail("top system calls vs trace-cmd report", f"DuckDB {ids}, trace-cmd {want}")
            else:
                report.ok()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
