"""Many traces on a Dask cluster: one Parquet dataset, or one dask DataFrame per event class.

    from distributed import Client
    import tracemux.dask
    client = Client("scheduler:8786")          # or distributed.LocalCluster()
    result = tracemux.dask.to_parquet(paths, "fleet", client=client, partition=["host", "trace"])
    for t in result.failed:                    # the others were converted all the same
        print(t.path, t.file, t.offset, t.message)
    df = tracemux.dask.read(paths, event="sched_switch")   # a dask DataFrame

Dask (Debian: python3-dask, python3-distributed) schedules; tracemux runs
no scheduler of its own.  Each trace is converted by one task on a worker,
by the library's Parquet output (the `-o parquet` of the command line) into
a staging directory inside the dataset, so the workers must see `out` and
the traces at the same paths (one machine, or a shared file system).  When
every task is done the driver moves each trace's files into the dataset
(part files numbered on, per class and partition, in the order of `paths`)
and joins the per-trace `_streams.parquet` and `_traces.parquet` into one
each (tracemux._pqconcat): the dataset has the rows, per class and
partition, of `tracemux -o parquet -w OUT --partition ... PATHS...`.

A trace that fails (damaged data, metadata, a missing file) does not stop
the others: what it had written before the fault stays in the dataset (as
the command line writes it), and its TraceResult says what failed, where
(file and byte offset) and why.
"""
import fnmatch
import os
import shutil
from typing import NamedTuple, Optional

import numpy as np

from . import _pqconcat
from ._bytes import BytesArray, BytesDtype
from ._trace import open as _open
from ._tracemux import Error, Reader, UsageError

STAGING = ".tracemux-staging"
_META_TABLES = ("_streams.parquet", "_traces.parquet")


class TraceResult(NamedTuple):
    path: str
    ok: bool
    kind: Optional[str] = None      # the tracemux.Error subclass: DataError, MetadataError...
    file: Optional[str] = None      # where the fault is, and at which byte
    offset: Optional[int] = None
    message: Optional[str] = None   # the library's message
    error: Optional[str] = None     # the whole error text, as the command line prints it


class Conversion(NamedTuple):
    out: str
    traces: list                    # a TraceResult per input, in the order of `paths`

    @property
    def failed(self):
        return [t for t in self.traces if not t.ok]

    @property
    def ok(self):
        return not self.failed


def _failure(path, e):
    return TraceResult(path, False, type(e).__name__, getattr(e, "file", None),
                       getattr(e, "offset", None), getattr(e, "message", None) or str(e), str(e))


def convert_one(path, staging, partition, instr_map=None, lenient=False, jobs=1):
    """
    One trace into a dataset of its own at `staging` (the task each worker
    runs): the library's parquet sink through tmx_run, as the command line.
    Returns the TraceResult (as a tuple: plain data back to the driver).
    """
    params = [("path", staging)]
    if partition:
        params.append(("partition", ",".join(partition)))
    try:
        opts = {"lenient": bool(lenient)}
        if instr_map is not None:
            opts["instr_map"] = os.fsdecode(instr_map)
        error = Reader([path], **opts).run("parquet", params, int(jobs))
    except UsageError:
        raise   # a bad partition key: the caller's mistake, not the trace's
    except Error as e:   # cannot be opened: bad metadata, not a trace, no such file
        return tuple(_failure(path, e))
    return tuple(TraceResult(path, True) if error is None else _failure(path, error))


def _part_number(name):
    return int(name[5:-8]) if name.startswith("part-") and name.endswith(".parquet") else -1


def _move_parts(src, dst):
    """The part files under `src` moved to the same directories under `dst`, numbered after
    the ones there (in their own order); other files moved as they are."""
    for root, dirs, files in os.walk(src):
        dirs.sort()
        target = os.path.join(dst, os.path.relpath(root, src))
        os.makedirs(target, exist_ok=True)
        parts = sorted((f for f in files if _part_number(f) >= 0), key=_part_number)
        if parts:
            base = 1 + max((_part_number(f) for f in os.listdir(target)), default=-1)
            for k, f in enumerate(parts):
                os.rename(os.path.join(root, f), os.path.join(target, f"part-{base + k}.parquet"))
        for f in files:
            if _part_number(f) < 0 and root != src:
                os.replace(os.path.join(root, f), os.path.join(target, f))


def _assemble(out, stagings):
    """Every staging dataset into `out`, in order, then the staging directories removed."""
    for staging in stagings:
        if os.path.isdir(staging):
            _move_parts(staging, out)
    for name in _META_TABLES:
        files = [os.path.join(s, name) for s in stagings if os.path.exists(os.path.join(s, name))]
        if files:
            _pqconcat.concat(files, os.path.join(out, name))
    shutil.rmtree(os.path.join(out, STAGING), ignore_errors=True)


def _gather(tasks, client):
    """Results of convert_one for each (args, kwargs) in `tasks`, by Dask."""
    if client is None:
        try:
            from distributed import default_client
            client = default_client()
        except (ImportError, ValueError):
            client = None
    if client is not None:
        futures = [client.submit(convert_one, *a, pure=False, **kw) for a, kw in tasks]
        return client.gather(futures)
    import dask
    return dask.compute(*[dask.delayed(convert_one, pure=False)(*a, **kw) for a, kw in tasks],
                        scheduler="processes")


def to_parquet(paths, out, client=None, partition=None, instr_map=None, lenient=False, jobs=1):
    """
    Converts each trace of `paths` on a Dask worker into one Parquet
    dataset at `out` (a new or empty directory), with the rows, per class
    and partition, of `tracemux -o parquet -w OUT [--partition P] PATHS...`
    (`partition`: ["host"], ["trace"] or ["host", "trace"]).  `client`: a
    distributed.Client (default: the current one, else Dask's local
    processes); `jobs`: threads per conversion (tmx_run's; 0: every CPU
    of the worker); `instr_map`, `lenient`: as tracemux.open.  Returns a
    Conversion: a TraceResult per input, the failed ones in `.failed` with
    the file, byte offset and message of their error.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = [os.fsdecode(p) for p in paths]
    out = os.fsdecode(out)
    if partition is not None and isinstance(partition, str):
        partition = [partition]
    if os.path.exists(out) and os.listdir(out):
        raise ValueError(f"{out}: the dataset's directory must be new or empty")
    os.makedirs(os.path.join(out, STAGING), exist_ok=True)
    stagings = [os.path.join(out, STAGING, str(k)) for k in range(len(paths))]
    tasks = [((p, s, list(partition or ())), {"instr_map": instr_map, "lenient": lenient,
                                              "jobs": jobs})
             for p, s in zip(paths, stagings)]
    results = [TraceResult(*r) for r in _gather(tasks, client)]
    _assemble(out, stagings)
    return Conversion(out, results)


# ---- read: a dask DataFrame of one class ----

_NULLABLE = {"bool": "boolean", "float32": "Float32", "float64": "Float64"}


def _meta_dtype(dtype, nullable):
    import pandas as pd

    if dtype in ("text", "label", "option"):
        return pd.CategoricalDtype()
    if dtype == "bytes":
        return BytesDtype()
    if dtype == "object":
        return np.dtype(object)
    if nullable:
        return pd.api.types.pandas_dtype(_NULLABLE.get(dtype, dtype.capitalize().replace("Ui", "UI")))
    return np.dtype(dtype)


def _matches(name, pattern):
    """The library's glob rule (--events): the name, or its part after `system:`."""
    return name is not None and (fnmatch.fnmatchcase(name, pattern) or
                                 (":" in name and fnmatch.fnmatchcase(name.split(":", 1)[1], pattern)))


def _class_columns(path, event, opts):
    """[(name, dtype, nullable)] of the class `event` of the trace at `path`, or None."""
    t = _open(path, **opts)
    found = [c for c in t.event_classes if c.name == event] or \
        [c for c in t.event_classes if _matches(c.name, event)]
    if len({c.name for c in found}) > 1:
        raise ValueError(f"{event!r} matches several event classes in {path}: "
                         f"{sorted({c.name for c in found})}")
    return t._meta.columns(found[0].index) if found else None


def _register_with_dask():
    """Dask makes a non-empty meta of each extension dtype it meets."""
    from dask.dataframe.extensions import make_array_nonempty

    make_array_nonempty.register(BytesDtype)(lambda dtype: BytesArray._from_sequence([b"a", None]))


def meta_frame(columns):
    """An empty DataFrame with the columns and dtypes the frames of that class have."""
    import pandas as pd
    from dask.dataframe.utils import clear_known_categories

    frame = pd.DataFrame({n: pd.Series(dtype=_meta_dtype(d, nullable)) for n, d, nullable in columns})
    return clear_known_categories(frame)   # categories differ per trace: unknown to Dask


def read_one(path, event, meta, filter=None, opts=None, jobs=1):
    """The frame of class `event` of one trace, in the dtypes of `meta` (a task of read())."""
    import pandas as pd

    opts = opts or {}
    if _class_columns(path, event, opts) is None:
        return meta.iloc[:0].copy()   # no such class in this trace
    frames = _open(path, **opts).to_pandas(events=event, filter=filter, jobs=jobs)
    if not frames:
        return meta.iloc[:0].copy()
    (df,) = frames.values()
    missing = [c for c in meta.columns if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: class {event!r} has no {missing[:5]} column: its fields differ "
                         "from the first trace's")
    df = df[list(meta.columns)]
    cast = {c: t for c, t in meta.dtypes.items()
            if not isinstance(t, pd.CategoricalDtype) and df[c].dtype != t}
    return df.astype(cast) if cast else df


def read(paths, event, filter=None, instr_map=None, lenient=False, jobs=1):
    """
    A dask DataFrame of the events of class `event` (a name, or a glob
    that names one class) of every trace of `paths`, a partition per trace
    in the order of `paths` (rows in each in reading order), made by
    Trace.to_pandas on the workers.  Its meta (columns and dtypes) is the
    class's schema in the first trace that has it, read from the metadata
    only: text columns are categoricals whose categories differ per trace
    (unknown to Dask), integer columns that can miss a value nullable.
    `filter` selects events as --filter; a trace without the class gives
    an empty partition; one whose class lacks a column of the meta (other
    fields under the same name) fails its partition with a ValueError, and
    columns the meta does not have are left out.  `jobs`: threads that
    decode each partition (Trace.to_pandas's; 0 or None: every CPU of the
    worker; the default 1 leaves the cores to Dask's own parallelism).
    """
    import dask
    import dask.dataframe as dd

    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = [os.fsdecode(p) for p in paths]
    opts = {"lenient": bool(lenient)}
    if instr_map is not None:
        opts["instr_map"] = os.fsdecode(instr_map)
    columns = None
    for p in paths:
        columns = _class_columns(p, event, opts)
        if columns is not None:
            break
    if columns is None:
        raise KeyError(f"no trace has an event class {event!r}")
    _register_with_dask()
    meta = meta_frame(columns)
    parts = [dask.delayed(read_one, pure=True)(p, event, meta, filter, opts, jobs) for p in paths]
    return dd.from_delayed(parts, meta=meta, verify_meta=False)
