#!/bin/sh
# On demand (not in the suite): tests/golden/test_analyze.py --all, every
# analyze command on every LTTng kernel trace of the corpus it knows (also
# tc-many-threads, 8 MB: lttng-analyses needs a few minutes for it) with
# more option sets; then the I/O commands (tests/golden/test_analyze_io.py
# --all) and tests/golden/test_analyze_tracedat.py --all (every trace.dat
# against lttng-analyses on its conversion by -o ctf --lttng-kernel).
# Needs build/tracemux (or $TMX) and python3-lttnganalyses.
#
#   tests/analyze-all.sh [CORPUS]
set -eu
cd "$(dirname "$0")/.."
python3 tests/golden/test_analyze.py --all --tracemux "${TMX:-build/tracemux}" \
	--corpus "${1:-../shared/corpus}"
# the I/O commands: every one on the generated I/O trace and every kernel trace
python3 tests/golden/test_analyze_io.py --all --tracemux "${TMX:-build/tracemux}" \
	--corpus "${1:-../shared/corpus}"
# every trace.dat of the corpus and tests/data, converted by the bridge
exec python3 tests/golden/test_analyze_tracedat.py --all --tracemux "${TMX:-build/tracemux}" \
	--corpus "${1:-../shared/corpus}"
