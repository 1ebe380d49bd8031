"""Real traces of every format: counts, values and the three ways of reading them agree with the CLI."""
import numpy as np
import pytest

import tracemux
from conftest import FIXED, align_bytes, cell, fixed_columns, frame_rows, info_counts, json_events, json_row

BT = "babeltrace-tests/ctf-traces/succeed/"
# (path in the corpus, XRay instrumentation map or None): CTF 1.8 (LTTng kernel
# and UST, several traces, no clock, big endian, enumerations, arrays,
# sequences, variants), CTF 2 (every field class kind), trace.dat (v6, v7
# compressed, several buffers), XRay (FDR, basic, a map).
TRACES = [
    (BT + "multi-domains", None),
    (BT + "lttng-tracefile-rotation", None),
    (BT + "wk-heartbeat-u", None),
    (BT + "succeed1", None),
    (BT + "sequence", None),
    (BT + "session-rotation", None),
    (BT + "no-packet-context", None),
    (BT + "ev-disc-no-ts-begin-end", None),
    (BT + "meta-variant-same-with-underscore", None),
    (BT + "struct-array-align-elem", None),
    (BT + "debug-info", None),
    ("ctf2/synthetic/bt2py-all-field-classes", None),
    ("ctf2/handmade/edge-cases", None),
    ("ctf2/handmade/static-blob-len0", None),
    ("ctf2/bt-tests/2/succeed/fl-bm", None),
    ("ctf2/converted/2packets", None),
    ("tracecmd-samples/sched-v7-zstd.dat", None),
    ("tracecmd-samples/sched-v6.dat", None),
    ("tracecmd-samples/multibuf-v7-zstd.dat", None),
    ("tracecmd-samples/external/kinmax_trace_22063697.dat", None),
    ("xray-samples/fdr-v5-small.xray", "xray-samples/instrmap-symbolized.yaml"),
    ("xray-samples/basic-v3-small.xray", "xray-samples/instrmap.yaml"),
    ("xray-samples/fdr-v5-tinybuf-dropped.xray", None),
]
IDS = [p.split("/")[-1] for p, _ in TRACES]
# Events compared one by one between events() and to_pandas(), per trace.
ITER_MAX = 3000


def open_trace(corpus, path, instr_map):
    return tracemux.open(corpus / path, instr_map=corpus / instr_map if instr_map else None)


def cli_args(corpus, path, instr_map):
    return ([f"--instr-map={corpus / instr_map}"] if instr_map else []) + [corpus / path]


@pytest.fixture(scope="module", params=TRACES, ids=IDS)
def case(request, corpus, cli):
    path, instr_map = request.param
    t = open_trace(corpus, path, instr_map)
    return {"trace": t, "frames": t.to_pandas(), "args": cli_args(corpus, path, instr_map),
            "cli": cli}


def test_counts_equal_info(case):
    counts, total = info_counts(case["cli"], case["args"][-1:])
    frames = {k: len(v) for k, v in case["frames"].items()}
    assert sum(frames.values()) == total
    assert {c.name for c in case["trace"].event_classes} == set(counts)
    events, code, err = json_events(case["cli"], case["args"])
    assert code == 0, err
    by_name = dict.fromkeys(frames, 0)
    for rec in events:
        by_name[rec["name"]] = by_name.get(rec["name"], 0) + 1
    assert frames == by_name
    assert sum(counts.values()) == total
    assert frames == counts


def test_values_equal_json_lines(case):
    events, code, err = json_events(case["cli"], case["args"])
    assert code == 0, err
    by_name = {}
    for rec in events:
        by_name.setdefault(rec["name"], []).append(rec)
    for name, df in case["frames"].items():
        recs = by_name.get(name, [])
        assert len(df) == len(recs), name
        for i, (row, rec) in enumerate(zip(frame_rows(df), recs)):
            got = {k: row[k] for k in json_row(rec, fixed_columns(rec))}
            expected = align_bytes(json_row(rec, fixed_columns(rec)), got)
            assert got == expected, f"{name} row {i}"
            # Every other column belongs to an option not selected or an absent optional.
            rest = {k: v for k, v in row.items() if k not in expected and k != "host" and v is not None}
            assert rest == {}, f"{name} row {i}"


def test_iteration_agrees_with_frames(case):
    frames = case["frames"]
    rows = {name: iter(frame_rows(df)) for name, df in frames.items()}
    n = 0
    for ev in case["trace"].events():
        row = next(rows[ev.name])
        fixed = set(row) - set(ev.fields)
        assert fixed <= set(FIXED)
        assert cell(ev.ts) == row.get("ts")
        assert ev.cycles == row.get("cycles")
        # The cpu column, or XRay's own cpu field (the same rule, tmx_event_cpu).
        assert ev.cpu == (row["cpu"] if "cpu" in fixed or ev.cpu is not None else None)
        assert (ev.trace, ev.stream_id, ev.stream_class_id) == \
            (row["trace"], row["stream_id"], row["stream_class_id"])
        assert {k: cell(v) for k, v in ev.fields.items()} == \
            {k: v for k, v in row.items() if k not in fixed}
        n += 1
        if n == ITER_MAX:
            break


def test_numpy_agrees_with_pandas(case):
    t = case["trace"]
    for name, df in case["frames"].items():
        if name is None or sum(c.name == name for c in t.event_classes) > 1:
            continue
        arrays = t.to_numpy(name)
        assert list(arrays) == list(df.columns)
        for col, a in arrays.items():
            assert len(a) == len(df)
            if a.ndim == 2:   # fixed-length byte strings: a row of uint8 each
                mask = np.ma.getmaskarray(a).any(axis=1)
                rows = [bytes(r) for r in np.ma.getdata(a)]
            else:
                mask = np.ma.getmaskarray(a)
                rows = np.ma.getdata(a).tolist()
            ours = [None if m else cell(v) for v, m in zip(rows, mask)]
            theirs = [cell(v) for v in df[col].astype(object).tolist()]
            assert ours == theirs, (name, col)


def test_events_kept_after_the_loop(case):
    """Events are copies: they stay valid once the source moved on (buffers reused)."""
    kept = []
    for i, ev in enumerate(case["trace"].events()):
        kept.append(ev)
        if i == 500:
            break
    fresh = []
    for i, ev in enumerate(case["trace"].events()):
        fresh.append(ev.fields)
        if i == 500:
            break
    assert [ev.fields for ev in kept] == fresh
