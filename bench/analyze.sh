#!/bin/sh
# Compares `tracemux analyze COMMAND` with lttng-analyses 0.6.1
# (lttng-COMMAND, Debian python3-lttnganalyses) on the same LTTng kernel
# trace, in the same run.
#
#   bench/analyze.sh [TRACE] [RUNS] [COMMANDS]
#   bench/analyze.sh io [RUNS] [COMMANDS]
#
# Default trace: Trace Compass's tc-many-threads (8 MB, 28k sched_switch,
# 98k system calls); default RUNS 1 (lttng-analyses takes tens of seconds);
# default commands: cputop schedstats syscallstats irqstats.  With `io`:
# the I/O commands (iolatencystats iolatencytop iolatencyfreq iolog
# iousagetop) on a trace made by tests/data/make-io-trace.py --scale
# ${IO_SCALE:-100} (no corpus trace has block or network events; scale 100
# is about 8 MB).  lttng-analyses
# finds the tracer version only in a directory named `kernel`: the trace is
# linked as $BENCH_TMP/kernel.  Both print to /dev/null; their outputs are
# compared (text, byte for byte) before any figure is printed.  Prints per
# command the wall time of each (best of RUNS) and their ratio, the CPU
# time (user + system) of each and their ratio, and tracemux's peak RSS, with the load average at the start (the machine
# may be shared).  Needs build/tracemux (or $TMX), GNU time and bc.  Not
# part of the test suite.
#
# A trace.dat TRACE: lttng-analyses reads its conversion by the bridge
# (`tracemux -o ctf --lttng-kernel`, made once, not timed) and tracemux the
# trace.dat itself.
set -eu
cd "$(dirname "$0")/.."
TMX=${TMX:-build/tracemux}
TRACE=${1:-../shared/corpus/tracecompass/tc-many-threads}
RUNS=${2:-1}
COMMANDS=${3:-cputop schedstats syscallstats irqstats}
BENCH_TMP=${BENCH_TMP:-/tmp/tracemux-bench-analyze}
export BENCH_TMP TZ=UTC
. bench/lib.sh

if [ "$TRACE" = io ]; then
	COMMANDS=${3:-iolatencystats iolatencytop iolatencyfreq iolog iousagetop}
	TRACE=$BENCH_TMP/io-trace/kernel
	rm -rf "$BENCH_TMP/io-trace"
	python3 tests/data/make-io-trace.py --scale "${IO_SCALE:-100}" "$TRACE"
fi

[ -x "$TMX" ] || { echo "no $TMX: build it first" >&2; exit 1; }
command -v lttng-cputop >/dev/null ||
	{ echo "lttng-analyses is not installed (apt-get install python3-lttnganalyses)" >&2; exit 1; }
mkdir -p "$BENCH_TMP"
rm -rf "$BENCH_TMP/kernel" "$BENCH_TMP/conv"
IN=$TRACE
if [ -f "$TRACE" ]; then
	"$TMX" -o ctf --lttng-kernel -w "$BENCH_TMP/conv" "$TRACE"
	mv "$(dirname "$(find "$BENCH_TMP/conv" -name metadata | head -1)")" "$BENCH_TMP/kernel"
else
	ln -s "$(cd "$TRACE" && pwd)" "$BENCH_TMP/kernel"
	IN=$BENCH_TMP/kernel
fi
K=$BENCH_TMP/kernel

echo "trace: $TRACE ($(du -sh "$TRACE" | cut -f1); lttng-analyses: $(du -shL "$K" | cut -f1)), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %10s %10s %8s %10s %10s %8s %11s\n' command lttng-s tmx-s ratio lttng-cpu tmx-cpu ratio tmx-KB
for cmd in $COMMANDS; do
	lttng-$cmd --no-progress "$K" >"$BENCH_TMP/ref.txt" 2>/dev/null || true
	"$TMX" analyze "$cmd" "$IN" >"$BENCH_TMP/tmx.txt" 2>/dev/null || true
	if ! cmp -s "$BENCH_TMP/ref.txt" "$BENCH_TMP/tmx.txt"; then
		echo "$cmd: outputs differ (diff $BENCH_TMP/ref.txt $BENCH_TMP/tmx.txt)" >&2
		exit 1
	fi
	ref=$(measure "$RUNS" lttng-$cmd --no-progress "$K")
	tmx=$(measure "$((RUNS * 3))" "$TMX" analyze "$cmd" "$IN")
	tcpu=$(cpus "$tmx")
	[ "$(echo "$tcpu < 0.01" | bc)" = 1 ] && tcpu=0.01   # GNU time's resolution
	printf '%-14s %10s %10s %8s %10s %10s %8s %11s\n' "$cmd" "$(secs "$ref")" "$(secs "$tmx")" \
		"$(echo "scale=1; $(secs "$ref") / $(secs "$tmx")" | bc)" "$(cpus "$ref")" "$tcpu" \
		"$(echo "scale=1; $(cpus "$ref") / $tcpu" | bc)" "$(kbs "$tmx")"
done
