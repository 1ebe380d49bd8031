#!/bin/sh
# Builds bench/xray/workload.c with clang-14's XRay instrumentation and
# writes an FDR log of about MIB MiB:
#
#   bench/xray/gen.sh [MIB] [THREADS]      defaults: 256 MiB, 4 threads
#
# Output (not part of the repository): $XRAY_BENCH_DIR (default
# /tmp/tracemux-xray-bench) holds `workload` (the instrumented binary, also
# the instrumentation map) and `fdr-MIB.xray`.  Prints the log's path.
# Needs clang-14 and libclang-rt-14-dev (the XRay runtime).
set -eu
cd "$(dirname "$0")"
MIB=${1:-256}
THREADS=${2:-4}
DIR=${XRAY_BENCH_DIR:-/tmp/tracemux-xray-bench}
LOG="$DIR/fdr-$MIB.xray"

command -v clang-14 >/dev/null || { echo "clang-14 is missing (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 1; }
mkdir -p "$DIR"
if [ ! -x "$DIR/workload" ] || [ workload.c -nt "$DIR/workload" ]; then
	clang-14 -O2 -g -fxray-instrument -fxray-instruction-threshold=1 \
		-fxray-instrumentation-bundle=all -pthread workload.c -o "$DIR/workload"
fi
if [ ! -f "$LOG" ]; then
	out=$(mktemp -d "$DIR/run.XXXXXX")
	# No invariant-TSC frequency in a VM: the runtime then writes
	# nanoseconds (cycle-frequency 1e9) and says so on stderr.
	XRAY_OPTIONS="xray_logfile_base=$out/fdr- verbosity=0" "$DIR/workload" "$MIB" "$THREADS" \
		>/dev/null 2>"$out/stderr" || { cat "$out/stderr" >&2; exit 1; }
	set -- "$out"/fdr-*
	[ -f "$1" ] || { echo "the workload wrote no log" >&2; cat "$out/stderr" >&2; exit 1; }
	mv "$1" "$LOG"
	rm -rf "$out"
fi
echo "$LOG"
