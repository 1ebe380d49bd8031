"""Traces as NumPy arrays and pandas DataFrames, decoded by libtracemux.

    import tracemux
    t = tracemux.open("lttng-trace/")        # CTF 1.8/2, trace.dat, XRay (instr_map=)
    frames = t.to_pandas(events=["sched_*"])  # {class name: DataFrame}
    switches = t.to_numpy("sched_switch")     # {column: array}, filled in C
    for ev in t.events(events="sched_switch", begin=t.time_range[0]):
        print(ev.name, ev.ts, ev.cpu, ev["prev_comm"])

Byte strings (BLOBs, arrays of uint8) are bytes, and in DataFrames a
"tracemux.bytes" column (tracemux._bytes.BytesArray: offsets and one buffer
of bytes, no object per row).  Many traces on a Dask cluster: tracemux.dask
(to_parquet, read).

Errors are tracemux.Error subclasses with the file, byte offset and
message of the library's error; what was read before a data error stays
available (see Trace.events, Trace.to_pandas).
"""
from ._trace import Clock, EventClass, Stream, Trace, TraceInfo, open
from ._tracemux import (DataError, Error, Event, InputError, LimitError, MetadataError,
                        OutOfMemoryError, TraceWarning, UnsupportedError, UsageError,
                        library_version)

__version__ = library_version
__all__ = [
    "open", "Trace", "Event", "EventClass", "Stream", "Clock", "TraceInfo",
    "Error", "InputError", "OutOfMemoryError", "MetadataError", "DataError",
    "UnsupportedError", "UsageError", "LimitError", "TraceWarning",
]
