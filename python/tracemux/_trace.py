"""tracemux.open() and Trace: a trace's metadata, its events one at a time or as columns."""
import datetime
import os
from typing import NamedTuple, Optional

import numpy as np

from . import _frames
from ._tracemux import Reader


class EventClass(NamedTuple):
    index: int               # position in Trace.event_classes (the library's dense number)
    name: Optional[str]
    id: int
    stream_class_id: int
    log_level: Optional[int]


class Stream(NamedTuple):
    id: int
    name: str
    class_id: int
    trace: str
    begin_ns: Optional[int]  # first packet beginning, when the index knows it
    end_ns: Optional[int]    # last packet end
    packets: int
    bytes: int
    files: int


class Clock(NamedTuple):
    trace: str
    name: str
    description: Optional[str]
    frequency: int
    offset_s: int
    offset_cycles: int
    precision: int
    uuid: Optional[bytes]
    origin_is_unix_epoch: bool


class TraceInfo(NamedTuple):
    name: str
    format: str              # "ctf", "trace.dat" or "xray"
    version: tuple
    uuid: Optional[bytes]
    environment: dict
    clocks: list


def _ns(t):
    """A time as ns from the clock's origin: an int, numpy.datetime64, or an aware
    pandas.Timestamp or datetime (ns since the Unix epoch)."""
    if t is None or isinstance(t, (int, np.integer)):
        return None if t is None else int(t)
    if isinstance(t, np.datetime64):
        return int(t.astype("datetime64[ns]").astype(np.int64))
    if hasattr(t, "value") and hasattr(t, "nanosecond"):   # pandas.Timestamp: ns since 1970 UTC
        if t.tzinfo is None:
            raise ValueError("begin/end: a Timestamp needs a time zone (the clock's origin is UTC)")
        return int(t.value)
    if isinstance(t, datetime.datetime):
        if t.tzinfo is None:
            raise ValueError("begin/end: a datetime needs a time zone (the clock's origin is UTC)")
        delta = t - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
    raise TypeError(f"begin/end: ns as an int, numpy.datetime64, Timestamp or datetime, "
                    f"not {type(t).__name__}")


class Trace:
    """Traces opened together (see tracemux.open); every read starts from the beginning."""

    def __init__(self, paths, instr_map=None, symbolize=False, lenient=False):
        if isinstance(paths, (str, bytes, os.PathLike)):
            paths = [paths]
        self._paths = [os.fsdecode(p) for p in paths]
        self._opts = {"symbolize": bool(symbolize), "lenient": bool(lenient)}
        if instr_map is not None:
            self._opts["instr_map"] = os.fsdecode(instr_map)
        # Kept open for the metadata; each read opens its own source.
        self._meta = self._reader()
        self.event_classes = [EventClass(i, *c) for i, c in enumerate(self._meta.event_classes())]
        self.streams = [Stream(**s) for s in self._meta.streams()]
        self.traces = [TraceInfo(t["name"], t["format"], t["version"], t["uuid"],
                                 t["environment"], [Clock(t["name"], **c) for c in t["clocks"]])
                       for t in self._meta.traces()]

    def _reader(self):
        return Reader(self._paths, **self._opts)

    def close(self):
        """Releases the trace's files (reads already made keep what they returned)."""
        self._meta = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<tracemux.Trace {self._paths!r}: {len(self.event_classes)} event classes>"

    @property
    def clocks(self):
        """Every clock class of every trace."""
        return [c for t in self.traces for c in t.clocks]

    @property
    def environment(self):
        """The first trace's environment (Trace.traces has every trace's)."""
        return dict(self.traces[0].environment) if self.traces else {}

    @property
    def time_range(self):
        """(begin, end) in ns over every stream that has a range, or None."""
        spans = [(s.begin_ns, s.end_ns) for s in self.streams if s.begin_ns is not None]
        if not spans:
            return None
        return min(b for b, _ in spans), max(e for _, e in spans)

    def _selected(self, events, filter):
        """
        A reader of the events that `events` (a glob or a list of globs on
        class names: `sched_*`, trace.dat's `sched:*`) and `filter` (an
        expression over fields: `prev_tid > 0 && $cpu == 1`, see the
        manual's FILTERS) select: the library's event filter, so the same
        selection as the command line's --events and --filter.  A glob that
        matches no class or a bad expression raises tracemux.UsageError.
        """
        reader = self._reader()
        if events is not None or filter is not None:
            globs = None if events is None else [events] if isinstance(events, str) else list(events)
            reader.select(globs, filter)
        return reader

    def events(self, events=None, filter=None, begin=None, end=None):
        """
        The events in time order, one Event at a time: `events` and
        `filter` select them (see _selected), `begin`/`end` bound the time
        (ns from the clock's origin, inclusive; events without a time are
        left out then).  An error in the data raises a tracemux.Error once
        every event before it has been yielded.
        """
        reader = self._selected(events, filter)
        begin, end = _ns(begin), _ns(end)
        while True:
            ev = reader.next(begin, end)
            if ev is None:
                return
            yield ev

    def _read(self, events, filter, begin, end, jobs):
        """(the tables, grouped by class name, and the error that stopped the read or None)"""
        if jobs is None:
            jobs = 0
        if not isinstance(jobs, (int, np.integer)) or jobs < 0:
            raise ValueError(f"jobs: a number of threads (0 or None: every CPU), not {jobs!r}")
        tables, error = self._selected(events, filter).read(_ns(begin), _ns(end), int(jobs))
        return _frames.group_by_name(tables), error

    def to_numpy(self, event, filter=None, begin=None, end=None, jobs=None):
        """
        {column: NumPy array} of every event of class `event` (a name or
        glob; classes of one name in different streams are merged in
        reading order).  Columns as to_pandas() makes them, but `ts` stays
        int64 ns, text, labels and option names are object arrays, and
        columns that can miss values are numpy.ma masked arrays.  On a data
        error, the raised tracemux.Error has the arrays of what came before
        it in `partial`.  `jobs`: threads that decode (None or 0: every
        CPU the process may run on, as the command line's --jobs; 1: the
        calling thread only); the arrays are the same whatever the number.
        """
        groups, error = self._read(event, filter, begin, end, jobs)
        if len(groups) > 1:
            raise ValueError(f"{event!r} matches several event classes: {sorted(groups, key=str)}")
        if not groups:
            raise KeyError(event)
        arrays = _frames.numpy_tables(next(iter(groups.values())))
        if error is not None:
            error.partial = arrays
            raise error
        return arrays

    def to_pandas(self, events=None, filter=None, begin=None, end=None, jobs=None):
        """
        {event class name: DataFrame} of every selected class (`events`:
        a glob or a list of them; every class when None), with the Parquet
        output's columns and types: ts (int64 ns from the clock's origin,
        whatever the clock: Trace.clocks says whether it is the Unix
        epoch, then pd.to_datetime(df.ts) is the time of day), cycles
        (uint64), event, host, trace, stream_id, stream_class_id (uint64),
        cpu (uint32); nullable (Int64, UInt32) where a value is missing
        (no clock, no CPU), then the
        fields of the packet context, common context, specific context and
        payload, structures flattened with dots.  On a data error, the
        raised tracemux.Error has the frames of what came before it in
        `partial`.  `jobs`: threads that decode (None or 0: every CPU the
        process may run on, as the command line's --jobs; 1: the calling
        thread only); the frames are the same whatever the number.
        """
        groups, error = self._read(events, filter, begin, end, jobs)
        frames = {name: _frames.pandas_tables(tables) for name, tables in groups.items()}
        if error is not None:
            error.partial = frames
            raise error
        return frames


def open(paths, instr_map=None, symbolize=False, lenient=False):
    """
    Opens a trace: a CTF trace directory (or a directory of traces), a
    trace-cmd trace.dat file, an XRay log or llvm-xray YAML trace, or a list
    of them merged by time.  `instr_map`: the XRay instrumented binary or
    its YAML map (function names with `symbolize`); `lenient`: damaged
    packets are skipped with a tracemux.TraceWarning instead of stopping.
    """
    return Trace(paths, instr_map=instr_map, symbolize=symbolize, lenient=lenient)
