"""A read long enough for the tables' larger paths: the same values as the events one by one.

Reader.read's columns of 256 KiB or more are mappings grown by mremap, its
classes without variants or sequences (and net:packet up to its sequence)
are read at places learnt from the first event (python/src/table.c); the
events one by one (Trace.events, Event.fields) take the library's walk of
every event instead.  A generated trace of 100,000 events (bench/gen-lttng-like.py)
puts more than 32,768 rows in a class: its 8-byte columns pass 256 KiB.
"""

import pytest
import tracemux
from conftest import FIXED, cell, frame_rows, generated_trace


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    return generated_trace(tmp_path_factory, "big", 100000)


def test_frames_equal_events(trace):
    frames = tracemux.open(trace).to_pandas()
    assert max(len(df) for df in frames.values()) > 32768
    rows = {name: iter(frame_rows(df)) for name, df in frames.items()}
    n = 0
    for ev in tracemux.open(trace).events():
        row = next(rows[ev.name])
        fixed = set(row) - set(ev.fields)
        assert fixed <= set(FIXED)
        assert (cell(ev.ts), ev.cycles, ev.cpu, ev.trace, ev.stream_id, ev.stream_class_id) == \
            tuple(row[k] for k in ("ts", "cycles", "cpu", "trace", "stream_id", "stream_class_id"))
        assert {k: cell(v) for k, v in ev.fields.items()} == \
            {k: v for k, v in row.items() if k not in fixed}
        n += 1
    assert n == sum(len(df) for df in frames.values())
