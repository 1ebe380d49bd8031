#!/bin/sh
# Compares tracemux with babeltrace2 (and babeltrace 1 for -o dummy) on the
# same generated LTTng-like trace, in the same run.
#
#   bench/run.sh [EVENTS] [RUNS]      defaults: 2000000 events, best of 3 runs
#
# Needs build/tracemux (scripts/build.sh) and the Debian packages babeltrace2,
# babeltrace, python3, time and bc (installed when missing and run as root).
# The trace is generated once into $BENCH_TRACE_DIR (default
# /tmp/tracemux-bench-EVENTS) and reused.  Prints wall time (best of RUNS),
# events per second, peak RSS and the ratio babeltrace / tracemux for each
# task.  If tracemux cannot read the trace or its text differs from
# babeltrace2's, it says so and prints no figures.  Not part of the test suite.
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-2000000}
RUNS=${2:-3}
TRACE=${BENCH_TRACE_DIR:-/tmp/tracemux-bench-$EVENTS}
TMX=build/tracemux

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
missing=""
for need in babeltrace2:babeltrace2 babeltrace:babeltrace python3:python3 \
	/usr/bin/time:time bc:bc; do
	command -v "${need%%:*}" >/dev/null || missing="$missing ${need#*:}"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || { echo "missing Debian packages:$missing" >&2; exit 1; }
	# shellcheck disable=SC2086  # one word per package
	apt-get update -q && apt-get install -y -q --no-install-recommends $missing
fi

if [ ! -f "$TRACE/metadata" ]; then
	echo "generating $EVENTS events into $TRACE ..."
	python3 bench/gen-lttng-like.py "$TRACE" --events "$EVENTS"
fi
echo "trace: $TRACE ($(du -sh "$TRACE" | cut -f1), $EVENTS events)"
export TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The figures only mean something if tracemux reads the trace and prints
# what babeltrace2 prints.
if ! "$TMX" "$TRACE" >"$tmp/tracemux.txt" 2>"$tmp/tracemux.err"; then
	echo "tracemux cannot read this trace yet, so there are no figures:" >&2
	head -5 "$tmp/tracemux.err" >&2
	exit 1
fi
babeltrace2 "$TRACE" >"$tmp/babeltrace2.txt" 2>/dev/null
if ! cmp "$tmp/tracemux.txt" "$tmp/babeltrace2.txt" >&2; then
	echo "tracemux's text output differs from babeltrace2's, so there are no figures" >&2
	exit 1
fi
echo "text output: identical to babeltrace2's"
rm -f "$tmp/tracemux.txt" "$tmp/babeltrace2.txt"

BENCH_TMP=$tmp
. bench/lib.sh

row() {   # name, "sec kb"
	eps=$(echo "$EVENTS / $(secs "$2")" | bc)
	printf '%-34s %8.3f s %12s ev/s %8s MB\n' "$1" "$(secs "$2")" "$eps" "$(($(kbs "$2") / 1024))"
}

ratio() {
	printf '  ratio %-27s %6.1fx\n' "$1" "$(echo "scale=2; $(secs "$2") / $(secs "$3")" | bc)"
}

tmx_text=$(measure "$RUNS" "$TMX" "$TRACE")
bt2_text=$(measure "$RUNS" babeltrace2 "$TRACE")
tmx_dummy=$(measure "$RUNS" "$TMX" -o dummy "$TRACE")
bt2_dummy=$(measure "$RUNS" babeltrace2 -o dummy "$TRACE")
bt1_dummy=$(measure "$RUNS" babeltrace -o dummy "$TRACE")

row "tracemux (text > /dev/null)" "$tmx_text"
row "babeltrace2 (text > /dev/null)" "$bt2_text"
ratio "text" "$bt2_text" "$tmx_text"
row "tracemux -o dummy" "$tmx_dummy"
row "babeltrace2 -o dummy" "$bt2_dummy"
row "babeltrace -o dummy (1.x)" "$bt1_dummy"
faster=$bt2_dummy
[ "$(echo "$(secs "$bt1_dummy") < $(secs "$bt2_dummy")" | bc)" = 1 ] && faster=$bt1_dummy
ratio "dummy (vs the faster babeltrace)" "$faster" "$tmx_dummy"

# A one-second --timerange in the middle of the trace: packets outside it
# are skipped from the index and reading stops after it.
range=$("$TMX" query trace-infos "$TRACE" | awk '/begin:/ && (b == "" || $2 < b) { b = $2 }
	/end:/ && $2 > e { e = $2 } END { print b, e }')
mid=$(( (${range% *} + ${range#* }) / 2 ))
tb="$((mid / 1000000000)).$(printf %09d $((mid % 1000000000)))"
te="$((mid / 1000000000 + 1)).$(printf %09d $((mid % 1000000000)))"
range_t=$(measure "$RUNS" "$TMX" --begin "$tb" --end "$te" "$TRACE")
kept=$("$TMX" --begin "$tb" --end "$te" "$TRACE" 2>/dev/null | wc -l)
printf '%-34s %8.3f s  (%s events kept)\n' "tracemux 1-second --timerange" "$(secs "$range_t")" "$kept"
printf '  %-33s %6.2f%% of reading it all\n' "cost" \
	"$(echo "scale=4; 100 * $(secs "$range_t") / $(secs "$tmx_text")" | bc)"
