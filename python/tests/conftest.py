"""What the tests share: where the corpus and the CLI are, the CLI's outputs as references.

The references are the CLI's own outputs (`tracemux info`, `tracemux -o json`):
the CLI is checked against babeltrace2, trace-cmd and llvm-xray by the golden
tests, and these tests check that the Python package reads the same events
and values through the public API.  TMX_CORPUS and TRACEMUX_CLI override the
default places (../shared/corpus next to the checkout, build/tracemux).
"""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]


def generated_trace(tmp_path_factory, name, events):
    """A trace of `events` events written by bench/gen-lttng-like.py (LTTng-like CTF)."""
    out = tmp_path_factory.mktemp(name) / "trace"
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen-lttng-like.py"), str(out),
                    "--events", str(events)], check=True, capture_output=True)
    return out


def corpus_dir():
    env = os.environ.get("TMX_CORPUS")
    for d in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "corpus",
                                             Path("/work/shared/corpus")]:
        if (d / "babeltrace-tests").is_dir():
            return d
    pytest.fail("the trace corpus is missing (set TMX_CORPUS)", pytrace=False)


def cli_path():
    cli = Path(os.environ.get("TRACEMUX_CLI", ROOT / "build" / "tracemux"))
    if not cli.is_file():
        pytest.fail(f"the tracemux CLI is not built ({cli}; set TRACEMUX_CLI)", pytrace=False)
    return cli


@pytest.fixture(scope="session")
def corpus():
    return corpus_dir()


@pytest.fixture(scope="session")
def cli():
    return cli_path()


def run_cli(cli, args):
    """(exit status, stdout, stderr) of the CLI."""
    p = subprocess.run([str(cli)] + [str(a) for a in args], capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def info_counts(cli, args):
    """{class name: events} from `tracemux info` (classes of one name summed)."""
    code, out, err = run_cli(cli, ["info"] + args)
    assert code == 0, err
    counts = {}
    for line in out.decode().splitlines():
        m = re.match(r"^ +(\d+)  (.*) \(stream class \d+, ID \d+\)$", line)
        if m:
            counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1))
    total = re.search(r"^(\d+) events", out.decode(), re.M)
    return counts, int(total.group(1)) if total else None


def json_events(cli, args):
    """The event records of `tracemux -o json`, and its exit status and stderr."""
    code, out, err = run_cli(cli, ["-o", "json"] + args)
    events = [json.loads(l) for l in out.splitlines()]
    return [e for e in events if e["type"] == "event"], code, err


# ---- the column model, from a JSON Lines record ----

SCOPES = ("packet_context", "common_context", "specific_context", "payload")


def plain(v):
    """A JSON value as the package gives array elements: enums and bit maps as their
    integer, variants as their selected value, BLOBs as hex text (see `cell`)."""
    if isinstance(v, dict):
        if set(v) in ({"value", "labels"}, {"value", "flags"}):
            return v["value"]
        if set(v) == {"option", "value"}:
            return plain(v["value"])
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def unique(taken, name):
    out, n = name, 1
    while out in taken:
        n += 1
        out = f"{name}_{n}"
    return out


def flatten(value, prefix, taken, out):
    """The columns of one field value (JSON) under `prefix`, added to `out`."""
    name = unique(taken, prefix)
    if isinstance(value, dict) and set(value) == {"value", "labels"}:
        taken.add(name)
        out[name] = value["value"]
        label = unique(taken, prefix + "_label")
        taken.add(label)
        out[label] = ", ".join(value["labels"]) or None
    elif isinstance(value, dict) and set(value) == {"value", "flags"}:
        taken.add(name)
        out[name] = value["value"]
        flags = unique(taken, prefix + "_flags")
        taken.add(flags)
        out[flags] = ", ".join(value["flags"]) or None
    elif isinstance(value, dict) and set(value) == {"option", "value"}:
        taken.add(name)
        out[name] = value["option"]
        flatten(value["value"], f"{name}.{value['option']}", taken, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            flatten(v, unique(taken, f"{prefix}.{k}" if prefix else k), taken, out)
    elif value is None:   # an absent optional: its columns are null
        return
    else:
        taken.add(name)
        out[name] = plain(value)


def packet_cpu(rec):
    """The event's CPU: the packet context's integer cpu_id (an enumeration's value too),
    XRay's own cpu field (common context {cpu, tid, pid}), else None."""
    cpu = rec.get("packet_context", {}).get("cpu_id")
    common = rec.get("common_context", {})
    if cpu is None and not rec.get("packet_context") and set(common) == {"cpu", "tid", "pid"}:
        cpu = common["cpu"]
    if isinstance(cpu, dict):
        cpu = cpu.get("value")
    return cpu if isinstance(cpu, int) and not isinstance(cpu, bool) else None


def fixed_columns(rec):
    """The fixed columns of an event's table: every table has them (the Parquet output's)."""
    return list(FIXED)


def json_row(rec, fixed):
    """{column: value} of a JSON Lines event, with the fixed columns `fixed` of its table
    (but `host`, which the JSON output does not have: see test_api's test_fixed_columns)."""
    out = {"ts": rec.get("ts_ns"), "cycles": rec.get("cycles"), "event": rec["name"],
           "trace": rec["trace"], "stream_id": rec["stream"]["id"],
           "stream_class_id": rec["stream"]["class_id"], "cpu": packet_cpu(rec)}
    taken = set(fixed)
    for scope in SCOPES:
        for k, v in rec.get(scope, {}).items():
            flatten(v, f"{scope}.{k}" if k in taken else k, taken, out)
    return out


class Hex(str):
    """The hex text of a bytes value (BLOBs, arrays of uint8), for align_bytes."""


def align_bytes(expected, got):
    """`expected` (from JSON) with the arrays of uint8 that the package gives as bytes (a
    Hex in `got` at the same place) as their hex text: the JSON output writes them as
    lists of integers, BLOBs as hex text already."""
    if isinstance(got, Hex) and isinstance(expected, list) and \
            all(isinstance(x, int) and 0 <= x < 256 for x in expected):
        return bytes(expected).hex()
    if isinstance(got, dict) and isinstance(expected, dict):
        return {k: align_bytes(v, got.get(k)) for k, v in expected.items()}
    if isinstance(got, list) and isinstance(expected, list) and len(got) == len(expected):
        return [align_bytes(e, g) for e, g in zip(expected, got)]
    return expected


def cell(v):
    """A DataFrame or NumPy value as plain Python, comparable with JSON."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (np.datetime64, pd.Timestamp)):
        return int(pd.Timestamp(v).value)
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None   # JSON writes NaN and infinities as null
    if isinstance(v, bytes):
        return Hex(v.hex())
    if isinstance(v, list):
        return [cell(x) for x in v]
    if isinstance(v, dict):
        return {k: cell(x) for k, x in v.items()}
    return v


FIXED = ("ts", "cycles", "event", "host", "trace", "stream_id", "stream_class_id", "cpu")


def frame_rows(df):
    """The rows of a DataFrame as {column: plain value} dicts."""
    cols = {c: [cell(v) for v in df[c].astype(object).tolist()] for c in df.columns}
    return [{c: cols[c][i] for c in df.columns} for i in range(len(df))]
