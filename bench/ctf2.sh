#!/bin/sh
# CTF 2 reading: tracemux on a CTF 2 trace against tracemux on the same data
# as CTF 1.8, and against babeltrace2 (Debian's 2.0.4) on the CTF 1.8 trace,
# in the same run.  babeltrace 2.1.2, the first babeltrace that reads CTF 2,
# is not packaged: nothing here builds or runs it.
#
#   bench/ctf2.sh [EVENTS] [RUNS]      defaults: 2000000 events, best of 3 runs
#
# Needs build/tracemux (scripts/build.sh; TMX=path overrides it),
# babeltrace2, python3, time and bc.  The LTTng-like trace of bench/run.sh
# ($BENCH_TRACE_DIR, default /tmp/tracemux-bench-EVENTS) is generated once
# and reused; tracemux's CTF writer rewrites it once as CTF 2
# ($BENCH_CTF2_DIR, default TRACE-ctf2) and as CTF 1.8 ($BENCH_CTF1_DIR,
# default TRACE-ctf1: the same packets and layout, so that only the metadata
# version differs between the two).  First checks that tracemux's text of
# the three traces and babeltrace2's text of the CTF 1.8 traces are the
# same (no figures otherwise), then prints wall time (best of RUNS), events
# per second and peak RSS of text output (to /dev/null) and `-o dummy`, the
# ratio CTF 2 / CTF 1.8 for tracemux (the goal: at most 1.10) and
# babeltrace2 on CTF 1.8 / tracemux on CTF 2 (the same events).  Not part of
# the test suite.
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-2000000}
RUNS=${2:-3}
TRACE=${BENCH_TRACE_DIR:-/tmp/tracemux-bench-$EVENTS}
CTF2=${BENCH_CTF2_DIR:-$TRACE-ctf2}
CTF1=${BENCH_CTF1_DIR:-$TRACE-ctf1}
TMX=${TMX:-build/tracemux}
BT2=${BT2:-$(command -v babeltrace2 || true)}

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
[ -n "$BT2" ] && [ -x "$BT2" ] || { echo "no babeltrace2: install Debian's babeltrace2" >&2; exit 1; }
for need in python3 /usr/bin/time bc md5sum; do
	command -v "$need" >/dev/null || { echo "missing: $need" >&2; exit 1; }
done
if [ ! -f "$TRACE/metadata" ]; then
	echo "generating $EVENTS events into $TRACE ..."
	python3 bench/gen-lttng-like.py "$TRACE" --events "$EVENTS"
fi
rewrite() {   # OUT ctf-version NAME
	[ -f "$1/metadata" ] && return 0
	echo "writing $1 (CTF $3, tracemux -o ctf) ..."
	# Written aside, then renamed: an interrupted run leaves no half trace to reuse.
	rm -rf "$1" "$1.part"
	"$TMX" "$TRACE" -o ctf --ctf-version="$2" -w "$1.part" >/dev/null
	# One trace: its directory (the writer names it after the trace) becomes $1.
	mv "$(dirname "$(find "$1.part" -name metadata | head -1)")" "$1"
	rm -rf "$1.part"
}
rewrite "$CTF2" 2 2
rewrite "$CTF1" 1 1.8
echo "traces: $TRACE (CTF 1.8, generated, $(du -sh "$TRACE" | cut -f1)), $CTF1 (CTF 1.8)" \
	"and $CTF2 (CTF 2) ($(du -sh "$CTF2" | cut -f1) each), $EVENTS events"
export TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The figures only mean something if every reader prints the same text.
text_sum() {   # command...: the MD5 of its text output (2M events: ~400 MB, not kept)
	{ "$@" 2>"$tmp/err"; echo $? >"$tmp/rc"; } | md5sum >"$tmp/sum"
	if [ "$(cat "$tmp/rc")" != 0 ]; then
		echo "$* fails, so there are no figures:" >&2
		head -5 "$tmp/err" >&2
		exit 1
	fi
	cat "$tmp/sum"
}
ref=$(text_sum "$BT2" "$TRACE")
if [ "$(text_sum "$BT2" "$CTF1")" != "$ref" ]; then
	echo "babeltrace2's text of $CTF1 differs from its text of $TRACE, so there are no figures" >&2
	exit 1
fi
for t in "$CTF2" "$CTF1" "$TRACE"; do
	sum=$(text_sum "$TMX" "$t")
	if [ "$sum" != "$ref" ]; then
		echo "tracemux's text of $t differs from babeltrace2's of $TRACE, so there are no figures" >&2
		exit 1
	fi
done
"$TMX" -o dummy "$CTF2" >/dev/null 2>"$tmp/err" ||
	{ echo "tracemux -o dummy fails on $CTF2:" >&2; head -5 "$tmp/err" >&2; exit 1; }
echo "text output: tracemux on the three traces = babeltrace2 on the CTF 1.8 traces"

BENCH_TMP=$tmp
. bench/lib.sh

row() {   # name, "sec kb"
	eps=$(echo "$EVENTS / $(secs "$2")" | bc)
	printf '%-40s %8.3f s %12s ev/s %8s MB\n' "$1" "$(secs "$2")" "$eps" "$(($(kbs "$2") / 1024))"
}

ratio() {   # name, numerator, denominator
	printf '  ratio %-33s %6.2fx\n' "$1" "$(echo "scale=3; $(secs "$2") / $(secs "$3")" | bc)"
}

tmx_text2=$(measure "$RUNS" "$TMX" "$CTF2")
tmx_text1=$(measure "$RUNS" "$TMX" "$CTF1")
tmx_text0=$(measure "$RUNS" "$TMX" "$TRACE")
bt2_text1=$(measure "$RUNS" "$BT2" "$CTF1")
tmx_dummy2=$(measure "$RUNS" "$TMX" -o dummy "$CTF2")
tmx_dummy1=$(measure "$RUNS" "$TMX" -o dummy "$CTF1")
tmx_dummy0=$(measure "$RUNS" "$TMX" -o dummy "$TRACE")
bt2_dummy1=$(measure "$RUNS" "$BT2" -o dummy "$CTF1")

row "tracemux text, CTF 2" "$tmx_text2"
row "tracemux text, CTF 1.8 (same layout)" "$tmx_text1"
row "tracemux text, CTF 1.8 (generated)" "$tmx_text0"
row "babeltrace2 2.0.4 text, CTF 1.8" "$bt2_text1"
ratio "tracemux CTF 2 / CTF 1.8 (<= 1.10)" "$tmx_text2" "$tmx_text1"
ratio "babeltrace2 CTF 1.8 / tracemux CTF 2" "$bt2_text1" "$tmx_text2"
row "tracemux -o dummy, CTF 2" "$tmx_dummy2"
row "tracemux -o dummy, CTF 1.8 (same layout)" "$tmx_dummy1"
row "tracemux -o dummy, CTF 1.8 (generated)" "$tmx_dummy0"
row "babeltrace2 2.0.4 -o dummy, CTF 1.8" "$bt2_dummy1"
ratio "tracemux CTF 2 / CTF 1.8 (<= 1.10)" "$tmx_dummy2" "$tmx_dummy1"
ratio "babeltrace2 CTF 1.8 / tracemux CTF 2" "$bt2_dummy1" "$tmx_dummy2"
