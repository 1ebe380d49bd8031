#!/bin/sh
# Compares `tracemux -o tracecmd` with `trace-cmd report` on the same large
# trace.dat, in the same run.
#
#   bench/tracecmd.sh [TRACE.dat] [RUNS]     default: best of 3 runs
#
# Without TRACE.dat it uses $BENCH_TRACEDAT or records one into
# /tmp/tracemux-bench-tracecmd/big.dat (needs root and tracefs, see
# ../shared/tools/RECORDING.md): about 1.6 million raw_syscalls, sched and
# irq events of `dd bs=1 count=400000`, zstd-compressed trace.dat v7 (the
# trace-cmd 3.1.6 default).  Also makes a v6 uncompressed copy with
# `trace-cmd convert` and times both.
#
# Needs build/tracemux (or $TMX), trace-cmd and GNU time.  The two outputs
# must be identical, else no figures are printed.  Prints wall time (best
# of RUNS), peak RSS and the ratio trace-cmd / tracemux.  Not part of the
# test suite.
set -eu
cd "$(dirname "$0")/.."
TMX=${TMX:-build/tracemux}
RUNS=${2:-3}
DIR=/tmp/tracemux-bench-tracecmd

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
command -v trace-cmd >/dev/null || { echo "trace-cmd is not installed (apt-get install trace-cmd)" >&2; exit 1; }

record() {
	mkdir -p "$DIR"
	[ "$(id -u)" = 0 ] || { echo "recording a trace.dat needs root" >&2; exit 1; }
	[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
	# This sandbox forbids writing ftrace_enabled and set_ftrace_filter: the
	# shim of RECORDING.md turns those EPERMs into success.
	shim=""
	if [ -f ../shared/tools/eperm_shim.c ]; then
		[ -f "$DIR/eperm_shim.so" ] || gcc -O2 -shared -fPIC -o "$DIR/eperm_shim.so" ../shared/tools/eperm_shim.c -ldl
		shim="$DIR/eperm_shim.so"
		grep -q ftrace_enabled /proc/mounts || { echo 1 > "$DIR/fe"; mount --bind "$DIR/fe" /proc/sys/kernel/ftrace_enabled; }
	fi
	old_kb=$(cat /sys/kernel/tracing/buffer_size_kb)
	( cd "$DIR" && LD_PRELOAD=$shim trace-cmd record -b 200000 -e raw_syscalls -e sched -e irq \
		-o big.dat dd if=/dev/zero of=/dev/null bs=1 count=400000 >record.log 2>&1 )
	echo "$old_kb" > /sys/kernel/tracing/buffer_size_kb   # -b outlives the recording
}

TRACE=${1:-${BENCH_TRACEDAT:-$DIR/big.dat}}
if [ ! -f "$TRACE" ]; then
	echo "recording $TRACE ..."
	record
fi
V6=$DIR/$(basename "$TRACE" .dat)-v6.dat
[ -f "$V6" ] || { mkdir -p "$DIR"; trace-cmd convert -i "$TRACE" -o "$V6" --file-version 6 --compression none >/dev/null 2>&1; }

export LC_ALL=C TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

BENCH_TMP=$tmp
. bench/lib.sh

for f in "$TRACE" "$V6"; do
	events=$(trace-cmd report "$f" 2>/dev/null | tee "$tmp/tc.txt" | wc -l)
	"$TMX" -o tracecmd "$f" >"$tmp/tm.txt"
	if ! cmp -s "$tmp/tc.txt" "$tmp/tm.txt"; then
		echo "$f: tracemux -o tracecmd differs from trace-cmd report: no figures" >&2
		cmp "$tmp/tc.txt" "$tmp/tm.txt" >&2 || true
		exit 1
	fi
	tc=$(measure "$RUNS" trace-cmd report "$f")
	tm=$(measure "$RUNS" "$TMX" -o tracecmd "$f")
	echo "$(basename "$f"): $(du -h "$f" | cut -f1), $events lines, outputs identical"
	# shellcheck disable=SC2086  # three words
	set -- $tc $tm
	echo "  trace-cmd report      $1 s wall, $3 s CPU, $2 KB peak RSS"
	echo "  tracemux -o tracecmd  $4 s wall, $6 s CPU, $5 KB peak RSS"
	echo "  ratio (trace-cmd / tracemux): $(echo "scale=1; $1 / $4" | bc)x wall," \
		"$(echo "scale=1; $3 / $6" | bc)x CPU"
done
