#!/usr/bin/env python3
"""--progress / --no-progress through a pseudo-terminal (Python's pty module).

On a generated LTTng-like trace (bench/gen-lttng-like.py, 200,000 events)
with updates every millisecond (TRACEMUX_PROGRESS_MS=1, so that a run of a
fraction of a second draws several):

- standard error a terminal, the output elsewhere (a pipe, or -w): progress
  lines on standard error ("R / T  P%  N events  RATE/s  M:SS left",
  redrawn with \\r), the last one with every event and 100%, their event
  counts growing; nothing of them on standard output;
- standard error not a terminal: none; --progress forces them (a line per
  update), --no-progress suppresses them on a terminal; the output on a
  terminal (standard output the same terminal): none by default;
- the output's bytes (-o json on standard output, -o text with 2 jobs, the
  -o parquet dataset) are the same with and without progress;
- the same for the commands that read a trace themselves (info on that
  trace, analyze cputop on a kernel trace of the corpus, xray-account and
  xray-stack on an XRay log, -o tracecmd of a trace.dat with 1 and 2 jobs):
  lines on a terminal, --progress to a pipe, none with --no-progress,
  standard output byte-identical to a run without progress; their event
  counts against references that are not tracemux's (the generator's count,
  babeltrace2's lines, llvm-xray's YAML records);
- in every line the bytes read are at most the total (and grow), and in
  the last line they are the total (the readers' own counters, see
  tests/unit/test_run_progress.c for the figure without the final call).
"""
import gzip
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bt2ref import Report, parse_args, tool  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINE = re.compile(rb"([\d.]+ [KMG]?i?B) / ([\d.]+ [KMG]?i?B) +(\d+)%  (\d+) events  [\d.]+ [KMG]?i?B/s")
UNITS = {b"B": 1, b"KiB": 1 << 10, b"MiB": 1 << 20, b"GiB": 1 << 30}
EVENTS = 200000


def run_pty(argv, stdout_tty=False, env=None):
    """(exit status, stdout bytes, stderr bytes) with stderr (and stdout if asked) on a
    pseudo-terminal; stdout otherwise a pipe."""
    master, slave = pty.openpty()
    out = slave if stdout_tty else subprocess.PIPE
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=slave, env=env)
    os.close(slave)
    tty, piped = bytearray(), bytearray()
    streams = [master] + ([p.stdout.fileno()] if not stdout_tty else [])
    while streams:
        ready, _, _ = select.select(streams, [], [], 60)
        if not ready:
            p.kill()
            break
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:   # EIO: the terminal's last holder closed it
                chunk = b""
            if not chunk:
                streams.remove(fd)
            else:
                (tty if fd == master else piped).extend(chunk)
    os.close(master)
    code = p.wait(timeout=60)
    if not stdout_tty:
        p.stdout.close()
    return code, bytes(piped), bytes(tty)


def run_plain(argv, env=None):
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def progress_lines(err):
    """The progress lines of a standard error (split at \\r and \\n), as (done%, events)."""
    return [(int(m.group(3)), int(m.group(4))) for part in re.split(rb"[\r\n]", err)
            for m in [LINE.search(part)] if m]


def size_of(text):
    """b"12.3 MiB" as a number of bytes (as cli/progress.c rounds it)."""
    num, unit = text.split()
    return float(num) * UNITS[unit]


def byte_figures(err):
    """(read, total, read text, total text) of each progress line."""
    return [(size_of(m.group(1)), size_of(m.group(2)), m.group(1), m.group(2))
            for part in re.split(rb"[\r\n]", err) for m in [LINE.search(part)] if m]


def check_lines(report, what, err, final_events, min_lines=2):
    lines, figures = progress_lines(err), byte_figures(err)
    if len(lines) < min_lines:
        report.fail(what + ": progress lines on standard error", repr(err[-400:]))
    elif final_events is not None and lines[-1] != (100, final_events):
        report.fail(what + ": the last line", f"{lines[-1]} (want 100%, {final_events} events)")
    elif any(b[1] < a[1] or b[0] < a[0] for a, b in zip(lines, lines[1:])):
        report.fail(what + ": growing counts", str(lines[:20]))
    elif any(f[0] > f[1] or f[1] != figures[0][1] for f in figures) or \
            any(b[0] < a[0] for a, b in zip(figures, figures[1:])):
        report.fail(what + ": bytes read grow, never past the same total",
                    str([(f[2], f[3]) for f in figures][:20]))
    elif figures[-1][2] != figures[-1][3] or figures[-1][1] <= 0:
        report.fail(what + ": the last line's bytes are the total",
                    f"{figures[-1][2]!r} / {figures[-1][3]!r}")
    else:
        report.ok()


def tree_bytes(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                out[os.path.relpath(os.path.join(root, f), d)] = fh.read()
    return out


def yaml_records(path):
    """The records of llvm-xray's stored YAML conversion (its `- { type:` lines)."""
    with gzip.open(path, "rb") as f:
        return sum(1 for line in f if line.startswith(b"  - { type:"))


def check_command(report, what, argv, env, final_events, min_lines=2):
    """One command that reads a trace itself: with a terminal, --progress to
    a pipe, --no-progress; standard output always the reference's bytes."""
    code, ref, err = run_plain(argv, env)
    if code or progress_lines(err):
        report.fail(what + ": reference run, no progress", f"exit {code}: {err[-300:]!r}")
        return
    report.ok()
    code, out, err = run_pty(argv, env=env)
    check_lines(report, what + " on a terminal", err, final_events, min_lines)
    if code or out != ref or b"\r" not in err or LINE.search(out):
        report.fail(what + " on a terminal: standard output as without progress, lines redrawn "
                    "on stderr", f"exit {code}, same output: {out == ref}")
    else:
        report.ok()
    code, out, err = run_plain(argv + ["--progress"], env)
    check_lines(report, what + " --progress to a pipe", err, final_events, 1)
    if code or out != ref or b"\r" in err:
        report.fail(what + " --progress to a pipe: plain lines, stdout unchanged", f"exit {code}")
    else:
        report.ok()
    code, out, err = run_pty(argv + ["--no-progress"], env=env)
    if code or progress_lines(err) or out != ref:
        report.fail(what + " --no-progress on a terminal", repr(err[-300:]))
    else:
        report.ok()


def check_commands(report, tmx, trace, corpus, env):
    bt2 = tool(report, "babeltrace2", "babeltrace2")
    kernel = os.path.join(corpus, "tracecompass", "tc-many-threads")
    xray = os.path.join(corpus, "xray-samples", "basic-v3-large.xray")
    dat = os.path.join(corpus, "tracecmd-external",
                       "hip24_documentation_tca_test_trace-Salamander4_4780888b.dat")
    # Event counts from elsewhere: babeltrace2's lines, llvm-xray's records.
    p = subprocess.run([bt2, kernel], capture_output=True, timeout=300)
    kernel_events = p.stdout.count(b"\n") if p.returncode == 0 else None
    if kernel_events is None:
        report.fail("babeltrace2 on " + kernel, p.stderr[-300:].decode(errors="replace"))
    xray_records = yaml_records(os.path.join(corpus, "xray-samples", "expected",
                                             "basic-v3-large.convert-yaml.txt.gz"))
    check_command(report, "info", [tmx, "info", trace], env, EVENTS)
    check_command(report, "analyze cputop", [tmx, "analyze", "cputop", kernel], env, kernel_events)
    check_command(report, "analyze cputop --mi", [tmx, "analyze", "cputop", "--mi", kernel], env,
                  kernel_events)
    check_command(report, "xray-account", [tmx, "xray-account", "-j1", xray], env, xray_records)
    check_command(report, "xray-account -j2", [tmx, "xray-account", "-j2", xray], env,
                  xray_records)
    check_command(report, "xray-stack", [tmx, "xray-stack", "-k", xray], env, xray_records)
    # trace-cmd report's records: as many with one job and two (the lines, some multi-line, differ)
    events = []
    for jobs in ("-j1", "-j2"):
        argv = [tmx, "-o", "tracecmd", jobs, dat]
        check_command(report, "-o tracecmd " + jobs, argv, env, None)
        _, _, err = run_plain(argv + ["--progress"], env)
        events.append(progress_lines(err)[-1][1] if progress_lines(err) else -1)
    if events[0] <= 0 or events[0] != events[1]:
        report.fail("-o tracecmd: the same records with 1 and 2 jobs", str(events))
    else:
        report.ok()


def main():
    args = parse_args()
    report = Report("progress")
    work = tempfile.mkdtemp(prefix="tmx-progress-")
    try:
        trace = os.path.join(work, "trace")
        subprocess.run([sys.executable, os.path.join(REPO, "bench", "gen-lttng-like.py"), trace,
                        "--events", str(EVENTS)], check=True, capture_output=True)
        env = dict(os.environ, TRACEMUX_PROGRESS_MS="1")
        env.pop("TRACEMUX_JOBS", None)
        tmx = args.tracemux
        # The reference: no terminal, no progress asked for.
        code, ref_json, err = run_plain([tmx, "-j1", "-o", "json", trace], env)
        if code or err:
            report.fail("reference run", f"exit {code}: {err[-300:]!r}")
            report.finish()
        if progress_lines(err):
            report.fail("no terminal: no progress", repr(err[-300:]))
        else:
            report.ok()
        n_events = ref_json.count(b'"type":"event"')

        # Standard error a terminal, standard output a pipe: progress, the output unchanged.
        code, out, err = run_pty([tmx, "-j1", "-o", "json", trace], env=env)
        check_lines(report, "terminal, -o json -j1", err, n_events)
        if code or out != ref_json:
            report.fail("terminal: standard output as without progress", f"exit {code}")
        elif b"\r" not in err or LINE.search(out):
            report.fail("terminal: lines redrawn with \\r on stderr, none on stdout")
        else:
            report.ok()

        # Two jobs (the parallel merge notes the messages), text output.
        _, ref_text, _ = run_plain([tmx, "-j2", trace], env)
        code, out, err = run_pty([tmx, "-j2", trace], env=env)
        check_lines(report, "terminal, text -j2", err, n_events)
        if code or out != ref_text:
            report.fail("terminal, -j2: standard output as without progress", f"exit {code}")
        else:
            report.ok()

        # --no-progress on a terminal: nothing.
        code, out, err = run_pty([tmx, "--no-progress", "-j1", "-o", "json", trace], env=env)
        if code or progress_lines(err) or out != ref_json:
            report.fail("--no-progress on a terminal", repr(err[-300:]))
        else:
            report.ok()

        # --progress without a terminal: a line per update, stdout unchanged.
        code, out, err = run_plain([tmx, "--progress", "-j1", "-o", "json", trace], env)
        check_lines(report, "--progress to a pipe", err, n_events)
        if code or out != ref_json or b"\r" in err:
            report.fail("--progress to a pipe: plain lines, stdout unchanged", repr(err[-300:]))
        else:
            report.ok()

        # The output on the terminal too: no progress by default, forced by --progress.
        code, _, tty = run_pty([tmx, "-j1", "--events=net:packet", trace], stdout_tty=True,
                               env=env)
        if code or progress_lines(tty):
            report.fail("output on the terminal: no progress by default", repr(tty[-300:]))
        else:
            report.ok()

        # -o parquet -w DIR with a terminal: progress, the same dataset bytes.
        ref_dir, dir_ = os.path.join(work, "pq-ref"), os.path.join(work, "pq")
        run_plain([tmx, "-o", "parquet", "-w", ref_dir, trace], env)
        code, out, err = run_pty([tmx, "-o", "parquet", "-w", dir_, trace], env=env)
        check_lines(report, "terminal, -o parquet", err, n_events)
        if code or out or tree_bytes(ref_dir) != tree_bytes(dir_):
            report.fail("-o parquet with progress: the same files, nothing on stdout", f"exit {code}")
        else:
            report.ok()
        print(f"{n_events} events; e.g. {progress_lines(err)[-1]}")

        # -o dummy with 2 jobs: its workers merge nothing, the merge counts their batches.
        code, out, err = run_pty([tmx, "-o", "dummy", "-j2", trace], env=env)
        check_lines(report, "terminal, -o dummy -j2", err, n_events)
        if code or out:
            report.fail("-o dummy -j2 with progress: nothing on stdout", f"exit {code}")
        else:
            report.ok()

        check_commands(report, tmx, trace, args.corpus, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
