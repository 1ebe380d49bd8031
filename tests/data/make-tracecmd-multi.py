#!/usr/bin/env python3
"""Writes tests/data/tracecmd-multi/*.txt: trace-cmd 3.1.6's reports of several
trace.dat files at once (the small files of tests/data/tracedat), read by
tests/golden/test_tracecmd_multi.py when trace-cmd is not installed too.

Each file is `# trace-cmd VERSION (Debian bookworm): trace-cmd report ARGS`
(ARGS shell-quoted, file names relative to tests/data), trace-cmd's standard
output, then `# exit=N`.  Needs trace-cmd (Debian: trace-cmd 3.1.6).
"""
import os
import re
import shlex
import subprocess

PAIR = ["-i", "tracedat/funcgraph/fg-pair-a.dat", "-i", "tracedat/funcgraph/fg-pair-b.dat"]
RAW_RICH = ["-i", "tracedat/tsc-raw-v6.dat", "-i", "tracedat/rich-fields-be-v7.dat"]
RICH_RAW = ["-i", "tracedat/rich-fields-be-v7.dat", "-i", "tracedat/tsc-raw-v6.dat"]
RAW_DATE = ["-i", "tracedat/tsc-raw-v6.dat", "-i", "tracedat/date-offset-v7.dat"]

# (name, report arguments)
CASES = [
    # --cpu numbers the CPUs of all the files in one sequence (1 CPU each here, then 2 each).
    ("cpu0-pair", ["--cpu", "0"] + PAIR),
    ("cpu1-pair", ["--cpu", "1"] + PAIR),
    ("cpu2-pair", ["--cpu", "2"] + PAIR),
    ("cpu0+2-raw-rich", ["--cpu", "0,2"] + RAW_RICH),
    ("cpu1-2-raw-rich", ["--cpu", "1-2"] + RAW_RICH),
    ("cpu3-raw-rich", ["--cpu", "3"] + RAW_RICH),
    ("cpu2-l-ts-diff-raw-date", ["--cpu", "2", "-l", "--ts-diff"] + RAW_DATE),
    # The filters go to the first file only.
    ("F-ev-raw-rich", ["-F", "ev"] + RAW_RICH),
    ("F-ev-value-raw-date", ["-F", "ev: value > 3"] + RAW_DATE),
    ("v-F-ev-value-raw-date", ["-v", "-F", "ev: value < 1000"] + RAW_DATE),
    ("pid-7-raw-date", ["--pid", "7"] + RAW_DATE),
    ("T-F-ev-raw-rich", ["-T", "-F", "ev"] + RAW_RICH),
    # A filter the first file cannot take fails; so does it with one file.
    ("F-ev-rich-raw", ["-F", "ev"] + RICH_RAW),
    ("F-ev-rich", ["-F", "ev", "-i", "tracedat/rich-fields-be-v7.dat"]),
]


def main():
    data = os.path.dirname(os.path.abspath(__file__))
    out_dir = os.path.join(data, "tracecmd-multi")
    os.makedirs(out_dir, exist_ok=True)
    ver = subprocess.run(["trace-cmd", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"trace-cmd version ([0-9.]+)", ver)
    ver = m.group(1) if m else "?"
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    for name, args in CASES:
        p = subprocess.run(["trace-cmd", "report"] + args, capture_output=True, cwd=data, env=env)
        with open(os.path.join(out_dir, name + ".txt"), "wb") as f:
            f.write(f"# trace-cmd {ver} (Debian bookworm): trace-cmd report {shlex.join(args)}\n"
                    .encode())
            f.write(p.stdout)
            f.write(f"# exit={p.returncode}\n".encode())


if __name__ == "__main__":
    main()
