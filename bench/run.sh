#!/bin/sh
# Compares tracemux with babeltrace2 (and babeltrace 1 for -o dummy) on the
# same generated LTTng-like trace, in the same run.
#
#   bench/run.sh [EVENTS] [RUNS]      defaults: 2000000 events, best of 3 runs
#
# Needs: build/tracemux (scripts/build.sh), babeltrace2, babeltrace, python3,
# GNU time (Debian packages babeltrace2 babeltrace python3 time).
# Prints wall time (best of RUNS), events per second, peak RSS and the ratio
# babeltrace / tracemux for each task.  Not part of the test suite.
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-2000000}
RUNS=${2:-3}
TRACE=${BENCH_TRACE_DIR:-/tmp/tracemux-bench-$EVENTS}
TMX=build/tracemux

for tool in "$TMX" babeltrace2 babeltrace python3 /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }
done
if [ ! -f "$TRACE/metadata" ]; then
	echo "generating $EVENTS events into $TRACE ..."
	python3 bench/gen-lttng-like.py "$TRACE" --events "$EVENTS"
fi
echo "trace: $TRACE ($(du -sh "$TRACE" | cut -f1), $EVENTS events)"

# best wall time and its peak RSS over $RUNS runs: prints "SECONDS KB"
measure() {
	best=""
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -o "$timing" -f '%e %M' "$@" >/dev/null 2>/dev/null || true
		out=$(tail -1 "$timing")
		t=${out% *}
		if [ -z "$best" ] || [ "$(echo "$t < ${best% *}" | bc)" = 1 ]; then
			best=$out
		fi
	done
	echo "$best"
}

row() {   # name, "sec kb"
	sec=${2% *}
	kb=${2#* }
	eps=$(echo "$EVENTS / $sec" | bc)
	printf '%-34s %8.2f s %12s ev/s %8s MB\n' "$1" "$sec" "$eps" "$((kb / 1024))"
}

ratio() {
	printf '  ratio %-27s %6.1fx\n' "$1" "$(echo "scale=2; ${2% *} / ${3% *}" | bc)"
}

command -v bc >/dev/null || { echo "missing: bc" >&2; exit 1; }
export TZ=UTC
timing=$(mktemp)
trap 'rm -f "$timing"' EXIT

# The outputs must agree before the timings mean anything.
tmp=$(mktemp -d)
"$TMX" "$TRACE" >"$tmp/tracemux.txt" 2>/dev/null
babeltrace2 "$TRACE" >"$tmp/babeltrace2.txt" 2>/dev/null
if cmp -s "$tmp/tracemux.txt" "$tmp/babeltrace2.txt"; then
	echo "text output: identical to babeltrace2's"
else
	echo "text output: DIFFERS from babeltrace2's (see $tmp)"
fi
rm -f "$tmp/tracemux.txt" "$tmp/babeltrace2.txt"
rmdir "$tmp" 2>/dev/null || true
tmx_text=$(measure "$TMX" "$TRACE")
bt2_text=$(measure babeltrace2 "$TRACE")
tmx_dummy=$(measure "$TMX" -o dummy "$TRACE")
bt2_dummy=$(measure babeltrace2 -o dummy "$TRACE")
bt1_dummy=$(measure babeltrace -o dummy "$TRACE")

row "tracemux (text > /dev/null)" "$tmx_text"
row "babeltrace2 (text > /dev/null)" "$bt2_text"
ratio "text" "$bt2_text" "$tmx_text"
row "tracemux -o dummy" "$tmx_dummy"
row "babeltrace2 -o dummy" "$bt2_dummy"
row "babeltrace -o dummy (1.x)" "$bt1_dummy"
faster=$bt2_dummy
[ "$(echo "${bt1_dummy% *} < ${bt2_dummy% *}" | bc)" = 1 ] && faster=$bt1_dummy
ratio "dummy (vs the faster babeltrace)" "$faster" "$tmx_dummy"

# A one-second --timerange in the middle of the trace: packets outside it
# are skipped from the index and reading stops after it.
range=$("$TMX" query trace-infos "$TRACE" | awk '/begin:/ && (b == "" || $2 < b) { b = $2 }
	/end:/ && $2 > e { e = $2 } END { print b, e }')
mid=$(( (${range% *} + ${range#* }) / 2 ))
tb="$((mid / 1000000000)).$(printf %09d $((mid % 1000000000)))"
te="$((mid / 1000000000 + 1)).$(printf %09d $((mid % 1000000000)))"
# Too fast for GNU time's 10 ms: the mean of 20 runs, timed with date.
t0=$(date +%s%N)
for _ in $(seq 20); do "$TMX" --begin "$tb" --end "$te" "$TRACE" >/dev/null 2>&1; done
t1=$(date +%s%N)
range_s=$(echo "scale=4; ($t1 - $t0) / 20 / 1000000000" | bc)
kept=$("$TMX" --begin "$tb" --end "$te" "$TRACE" 2>/dev/null | wc -l)
printf '%-34s %8.4f s  (%s events kept)\n' "tracemux 1-second --timerange" "$range_s" "$kept"
printf '  %-33s %6.2f%% of reading it all\n' "cost" "$(echo "scale=4; 100 * $range_s / ${tmx_text% *}" | bc)"
