#!/bin/sh
# The cost of --progress: each output and command timed with --no-progress
# and with --progress (standard error to a file, a line every
# TRACEMUX_PROGRESS_MS, 250 ms by default), best of RUNS, in the same run;
# the ratio is progress / no progress (1.00: free).  BASE=OTHER_TRACEMUX
# also times another build (say, the commit before a change) with
# --no-progress, for the cost of the readers' counters themselves.
#
#   bench/progress.sh [TRACE] [RUNS]   (default: a generated 1M-event LTTng-like trace, 3 runs)
set -eu
cd "$(dirname "$0")/.."
TMX=${TMX:-build/tracemux}
BENCH_TMP=${BENCH_TMP:-/tmp/tracemux-bench-progress}
export BENCH_TMP TZ=UTC
. bench/lib.sh
mkdir -p "$BENCH_TMP"
TRACE=${1:-}
RUNS=${2:-3}
if [ -z "$TRACE" ]; then
	TRACE=$BENCH_TMP/trace
	[ -d "$TRACE" ] || python3 bench/gen-lttng-like.py "$TRACE" --events 1000000 >/dev/null
fi
[ -x "$TMX" ] || { echo "no $TMX: build it first" >&2; exit 1; }
echo "trace: $TRACE ($(du -sh "$TRACE" | cut -f1)), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %9s %9s %7s %9s\n' run no-progress progress ratio ${BASE:+base}
for args in "-o dummy -j1" "-o dummy -j2" "-j1" "-j2" "-o json -j1" "info"; do
	set -- $args
	off=$(measure "$RUNS" "$TMX" "$@" --no-progress "$TRACE")
	BENCH_ERR=$BENCH_TMP/progress-err
	on=$(measure "$RUNS" "$TMX" "$@" --progress "$TRACE")
	unset BENCH_ERR
	base=""
	[ -n "${BASE:-}" ] && [ "$1" != info ] && base=$(secs "$(measure "$RUNS" "$BASE" "$@" "$TRACE")")
	printf '%-22s %9s %9s %7.2f %9s\n' "$args" "$(secs "$off")" "$(secs "$on")" \
		"$(echo "scale=4; $(secs "$on") / $(secs "$off")" | bc)" "$base"
done
