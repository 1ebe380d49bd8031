"""tracemux.dask on a distributed.LocalCluster of worker processes (2 workers, 1 thread each).

to_parquet's dataset is read back by DuckDB (the npm package the golden
tests use, tests/golden/duck.py) and compared with the CLI's
`-o parquet --partition host,trace` on the same traces: per event class,
host and trace, the number of rows and the sum of DuckDB's hash of every
row (the whole row, every column), and the same of `_streams.parquet` and
`_traces.parquet`.  A damaged trace among them fails alone, with its file
and byte offset, and the others are written.  read() gives the frames of
Trace.to_pandas, one partition per trace, in the meta's dtypes.
"""
import json
import os
import re
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT, run_cli

try:
    import dask.dataframe  # noqa: F401
    from distributed import Client, LocalCluster
except ImportError:
    pytest.fail("tracemux.dask needs Dask: Debian's python3-dask and python3-distributed "
                "(scripts/install-deps.sh test)", pytrace=False)

import tracemux
import tracemux.dask

sys.path.insert(0, str(ROOT / "tests" / "golden"))
import duck  # noqa: E402

FLEET = ["babeltrace-tests/ctf-traces/succeed/wk-heartbeat-u",
         "babeltrace-tests/ctf-traces/succeed/trace-with-index",
         "tracecmd-samples/sched-v6.dat", "tracecmd-samples/sched-v7-zstd.dat",
         "xray-samples/fdr-v5-small.xray"]
DAMAGED = ROOT / "tests" / "data" / "xray" / "fdr-v5-many-blocks.xray"


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def node():
    try:
        return duck.setup_duckdb()
    except SystemExit:
        pytest.fail("DuckDB (npm @duckdb/node-api) is needed to read the datasets: Debian's "
                    "nodejs and npm", pytrace=False)


def sql(node, query, cwd):
    p = subprocess.run([node, os.path.join(duck.DUCK, "sql.mjs"), query], capture_output=True,
                       cwd=cwd, timeout=300)
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-1500:]
    return json.loads(p.stdout)


def summary(node, dataset):
    """{(table, host, trace): (rows, sum of row hashes)} of a dataset, read by DuckDB."""
    classes = sorted(d for d in os.listdir(dataset) if d.startswith("event="))
    parts = [f"SELECT {i} AS k, host, trace, count(*) AS n, sum(hash(t))::VARCHAR AS h "
             f"FROM read_parquet('{c}/**/*.parquet', union_by_name = true, "
             f"hive_partitioning = false) t GROUP BY ALL" for i, c in enumerate(classes)]
    for i, meta in enumerate(["_streams.parquet", "_traces.parquet", "_discarded/*.parquet"]):
        if os.path.exists(os.path.join(dataset, meta.split("/")[0])):
            parts.append(f"SELECT {len(classes) + i} AS k, NULL AS host, NULL AS trace, "
                         f"count(*) AS n, sum(hash(t))::VARCHAR AS h FROM '{meta}' t")
    names = classes + ["_streams", "_traces", "_discarded"]
    got = {}
    for r in sql(node, " UNION ALL ".join(parts), dataset):
        got[(names[int(r["k"])], r["host"], r["trace"])] = (int(r["n"]), int(r["h"]))
    return got


def add(a, b):
    """Two summaries of disjoint inputs as one (hash sums add up)."""
    out = dict(a)
    for k, (n, h) in b.items():
        n0, h0 = out.get(k, (0, 0))
        out[k] = (n0 + n, h0 + h)
    return out


def cli_dataset(cli, paths, dataset, expect=0, partition="host,trace"):
    part = ["--partition", partition] if partition else []
    code, _, err = run_cli(cli, ["-o", "parquet", "-w", dataset] + part + paths)
    assert code == expect, err
    return err


@pytest.mark.parametrize("partition", [["host", "trace"], ["host"], None])
def test_to_parquet_as_the_cli(client, node, cli, corpus, tmp_path, partition):
    paths = [str(corpus / p) for p in FLEET]
    cli_dataset(cli, paths, str(tmp_path / "cli"), partition=",".join(partition or []))
    result = tracemux.dask.to_parquet(paths, tmp_path / "dask", client=client,
                                      partition=partition)
    assert result.ok and [t.path for t in result.traces] == paths, result.failed
    want, got = summary(node, str(tmp_path / "cli")), summary(node, str(tmp_path / "dask"))
    assert got == want
    # Every format and both meta tables took part; nothing was left in the staging area.
    assert {t for _, _, t in want if t} >= {paths[2], paths[4]}
    assert ("_traces.parquet" in os.listdir(tmp_path / "dask") and
            want[("_traces", None, None)][0] == 5)
    assert not os.path.exists(tmp_path / "dask" / tracemux.dask.STAGING)


def test_damaged_trace_fails_alone(client, node, cli, corpus, tmp_path):
    damaged = tmp_path / "cut.xray"
    data = DAMAGED.read_bytes()
    damaged.write_bytes(data[:len(data) // 2])
    good = [str(corpus / p) for p in FLEET[:3]]
    paths = good[:1] + [str(damaged)] + good[1:]
    # References: the CLI on the good traces, and on the damaged one alone
    # (exit 1, what it read before the fault written).
    cli_dataset(cli, good, str(tmp_path / "cli-good"))
    err = cli_dataset(cli, [str(damaged)], str(tmp_path / "cli-cut"), expect=1)
    where = re.search(r"error: (.*): at byte (\d+): (.*)", err)
    assert where, err
    result = tracemux.dask.to_parquet(paths, tmp_path / "dask", client=client,
                                      partition=["host", "trace"])
    assert [t.path for t in result.failed] == [str(damaged)]
    failed = result.failed[0]
    assert (failed.kind, failed.file, failed.offset) == ("DataError", str(damaged), int(where.group(2)))
    assert failed.message == where.group(3).strip()
    want = add(summary(node, str(tmp_path / "cli-good")), summary(node, str(tmp_path / "cli-cut")))
    got = summary(node, str(tmp_path / "dask"))
    assert got == want
    assert any(t == str(damaged) and n for (_, _, t), (n, _) in got.items())   # its partial rows


def test_open_failure_is_reported(client, tmp_path):
    missing = str(tmp_path / "no-such-trace.dat")
    result = tracemux.dask.to_parquet([missing], tmp_path / "dask", client=client)
    assert [t.path for t in result.failed] == [missing]
    assert result.failed[0].kind == "InputError" and missing in result.failed[0].error


def test_read(client, corpus):
    paths = [str(corpus / p) for p in FLEET]
    ddf = tracemux.dask.read(paths, "sched_switch")
    assert ddf.npartitions == len(paths)
    got = ddf.compute()
    want = [tracemux.open(p).to_pandas(events="sched:sched_switch")["sched:sched_switch"]
            for p in paths[2:4]]
    assert len(got) == sum(len(w) for w in want) > 0
    assert [str(d) for d in got.dtypes] == [str(d) for d in ddf.dtypes]   # categories apart
    for w, (_, g) in zip(want, got.groupby("trace", observed=True, sort=False)):
        g = g.reset_index(drop=True)
        for c in w.columns:   # categoricals compared as their values
            assert list(g[c].astype(object)) == list(w[c].astype(object)), c
    # A partition computed alone: the trace's events.
    assert len(ddf.get_partition(2).compute()) == len(want[0])
    # Grouped on the cluster, as Dask does it.
    by_cpu = ddf.groupby("cpu").size().compute()
    assert by_cpu.sum() == len(got)


def test_read_meta_from_schema(corpus):
    ddf = tracemux.dask.read([str(corpus / FLEET[0])], "heartbeat:msg")
    assert list(ddf.columns[:8]) == ["ts", "cycles", "event", "host", "trace", "stream_id",
                                     "stream_class_id", "cpu"]
    assert isinstance(ddf.dtypes["event"], pd.CategoricalDtype)
    assert str(ddf.dtypes["ts"]) == "int64"
    with pytest.raises(KeyError):
        tracemux.dask.read([str(corpus / FLEET[0])], "no_such_class")


def test_read_byte_columns(client, corpus):
    """Byte strings cross the cluster as BytesArrays (tracemux._bytes), their meta too."""
    path = str(corpus / "ctf2/synthetic/bt2py-all-field-classes")
    ddf = tracemux.dask.read([path, path], "blobs")
    assert str(ddf.dtypes["sblob"]) == "tracemux.bytes"
    got = ddf.compute()
    want = tracemux.open(path).to_pandas(events="blobs")["blobs"]
    assert list(got["sblob"]) == list(want["sblob"]) * 2
    assert list(got["dblob"]) == list(want["dblob"]) * 2
    assert str(got["dblob"].dtype) == "tracemux.bytes"


def test_same_partition_numbered_on(client, node, cli, tmp_path):
    """Two traces of one host and trace name (bench/gen-lttng-like.py with two seeds) share
    every partition: their part files are numbered on, the rows are the CLI's."""
    paths = []
    for seed in (1, 2):
        paths.append(str(tmp_path / f"gen{seed}"))
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen-lttng-like.py"), paths[-1],
                        "--events", "4000", "--seed", str(seed)], check=True, capture_output=True)
    cli_dataset(cli, paths, str(tmp_path / "cli"))
    result = tracemux.dask.to_parquet(paths, tmp_path / "dask", client=client,
                                      partition=["host", "trace"])
    assert result.ok
    got, want = summary(node, str(tmp_path / "dask")), summary(node, str(tmp_path / "cli"))
    assert got == want and want[("_traces", None, None)][0] == 2
    part = tmp_path / "dask" / "event=net%3Apacket" / "host=bench-host" / "trace=bench-host"
    assert sorted(os.listdir(part)) == ["part-0.parquet", "part-1.parquet"]
