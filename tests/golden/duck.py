"""DuckDB for the tests that read Parquet: node and the npm package
@duckdb/node-api, installed into tests/duckdb/node_modules on first use."""
import fcntl
import json
import os
import shutil
import subprocess
import sys

DUCK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "duckdb")


def fail(why):
    """Not a skip: a check that needs DuckDB fails without it."""
    print(f"FAIL: {why}")
    sys.exit(1)


def setup_duckdb():
    """node and DuckDB's npm package, installed once (under a lock: builds test in parallel)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        fail("node and npm are needed to read Parquet with DuckDB (Debian: nodejs npm, "
             "see scripts/install-deps.sh test)")
    with open(os.path.join(DUCK, ".install.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(os.path.join(DUCK, "node_modules", "@duckdb", "node-api", "package.json")):
            p = subprocess.run([npm, "install", "--prefix", DUCK, "--no-audit", "--no-fund"],
                               capture_output=True, timeout=600)
            if p.returncode:
                fail("npm could not install @duckdb/node-api: " + p.stderr.decode(errors="replace")[-500:])
    return node


def duck_read(node, dataset, files):
    p = subprocess.run([node, os.path.join(DUCK, "pqread.mjs"), dataset] + files,
                       capture_output=True, timeout=600)
    if p.returncode:
        raise RuntimeError("DuckDB: " + p.stderr.decode(errors="replace")[-1500:])
    return json.loads(p.stdout)
