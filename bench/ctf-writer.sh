#!/bin/sh
# The CTF writer: `tracemux -o ctf` against `babeltrace2 -o ctf` on the same
# generated LTTng-like trace, in the same run.
#
#   bench/ctf-writer.sh [EVENTS] [RUNS]     defaults: 2000000 events, best of 3
#
# Needs build/tracemux (scripts/build.sh; TMX=path overrides it) and the
# Debian packages babeltrace2, python3, time and bc.  The trace is generated
# once into $BENCH_TRACE_DIR (default /tmp/tracemux-bench-EVENTS, shared
# with bench/run.sh) and reused; outputs go to a temporary directory on the
# same file system as $TMPDIR.  First checks that babeltrace2 prints the
# same text for tracemux's output as for the input (no figures otherwise),
# then prints wall time (best of RUNS), events per second, peak RSS and the
# ratio babeltrace2 / tracemux.  tracemux runs with its default --jobs
# (every CPU); bench/parallel.sh has -o ctf per job count.
#
# Then, when they exist, the large trace.dat ($BENCH_TRACEDAT, default
# /tmp/tracemux-bench-tracecmd/big-v6.dat, from bench/tracecmd.sh) and XRay
# log ($BENCH_XRAY, default /tmp/tracemux-xray-bench/fdr-256.xray, from
# bench/xray/gen.sh): babeltrace2 cannot read them, so the reference is
# babeltrace2 -o ctf on tracemux's CTF output of the same data (same events,
# same fields).  Their check (babeltrace2's text of the output equals
# tracemux's text of the input) takes minutes on the XRay log: CHECK=0
# skips it.  Not part of the test suite.
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-2000000}
RUNS=${2:-3}
CHECK=${CHECK:-1}
TRACEDAT=${BENCH_TRACEDAT:-/tmp/tracemux-bench-tracecmd/big-v6.dat}
XRAY=${BENCH_XRAY:-/tmp/tracemux-xray-bench/fdr-256.xray}
TRACE=${BENCH_TRACE_DIR:-/tmp/tracemux-bench-$EVENTS}
TMX=${TMX:-build/tracemux}

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
for need in babeltrace2 python3 /usr/bin/time bc; do
	command -v "$need" >/dev/null || { echo "missing: $need" >&2; exit 1; }
done
if [ ! -f "$TRACE/metadata" ]; then
	echo "generating $EVENTS events into $TRACE ..."
	python3 bench/gen-lttng-like.py "$TRACE" --events "$EVENTS"
fi
echo "trace: $TRACE ($(du -sh "$TRACE" | cut -f1), $EVENTS events)"
export TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The figures only mean something if the output is right.
if ! "$TMX" "$TRACE" -o ctf -w "$tmp/check" 2>"$tmp/err"; then
	echo "tracemux -o ctf fails on this trace, so there are no figures:" >&2
	head -5 "$tmp/err" >&2
	exit 1
fi
in_sum=$(babeltrace2 --no-delta "$TRACE" 2>/dev/null | md5sum)
out_sum=$(babeltrace2 --no-delta "$tmp/check" 2>/dev/null | md5sum)
if [ "$in_sum" != "$out_sum" ]; then
	echo "babeltrace2 prints something else for tracemux's output, so there are no figures" >&2
	exit 1
fi
echo "round trip: babeltrace2 prints the same text for the output as for the input"
echo "output size: tracemux $(du -sh "$tmp/check" | cut -f1)"
rm -rf "$tmp/check"

# Each timed run writes to $tmp/out, removed after the run (not timed).
BENCH_TMP=$tmp
. bench/lib.sh
bench_after_run() { rm -rf "$tmp/out"; }
ctf() { measure "$RUNS" "$@" -o ctf -w "$tmp/out"; }

row() {   # name, "sec kb"
	eps=$(echo "$EVENTS / $(secs "$2")" | bc)
	printf '%-34s %8.3f s %12s ev/s %8s MB\n' "$1" "$(secs "$2")" "$eps" "$(($(kbs "$2") / 1024))"
}

tmx=$(ctf "$TMX" "$TRACE")
tmx_small=$(ctf "$TMX" --ctf-packet-size=65536 "$TRACE")
bt2=$(ctf babeltrace2 "$TRACE")
row "tracemux -o ctf" "$tmx"
row "tracemux -o ctf (64 KiB packets)" "$tmx_small"
row "babeltrace2 -o ctf" "$bt2"
printf '  ratio %-27s %6.1fx\n' "babeltrace2 / tracemux" "$(echo "scale=2; $(secs "$bt2") / $(secs "$tmx")" | bc)"
printf '  ratio %-27s %6.1fx\n' "peak RSS babeltrace2 / tracemux" \
	"$(echo "scale=2; $(kbs "$bt2") / $(kbs "$tmx")" | bc)"

# Other formats: tracemux -o ctf, and babeltrace2 -o ctf on the same data as CTF.
other() {   # name, input
	[ -f "$2" ] || { echo "($1: no $2, skipped)"; return 0; }
	echo "$1: $2 ($(du -sh "$2" | cut -f1))"
	rm -rf "$tmp/as-ctf"
	"$TMX" "$2" -o ctf -w "$tmp/as-ctf" 2>"$tmp/err" || { echo "tracemux -o ctf fails:" >&2; head -3 "$tmp/err" >&2; exit 1; }
	if [ "$CHECK" = 1 ]; then
		a=$("$TMX" --no-delta "$2" 2>/dev/null | md5sum)
		b=$(babeltrace2 --no-delta "$tmp/as-ctf" 2>/dev/null | md5sum)
		[ "$a" = "$b" ] || { echo "babeltrace2's text of the output differs from tracemux's of the input: no figures" >&2; exit 1; }
		echo "  round trip: babeltrace2 prints for the output what tracemux prints for the input"
	fi
	o_tmx=$(ctf "$TMX" "$2")
	o_bt2=$(ctf babeltrace2 "$tmp/as-ctf")
	printf '%-34s %8.3f s %8s MB\n' "tracemux -o ctf ($1)" "$(secs "$o_tmx")" "$(($(kbs "$o_tmx") / 1024))"
	printf '%-34s %8.3f s %8s MB\n' "babeltrace2 -o ctf (same as CTF)" "$(secs "$o_bt2")" "$(($(kbs "$o_bt2") / 1024))"
	printf '  ratio %-27s %6.1fx\n' "babeltrace2 / tracemux" "$(echo "scale=2; $(secs "$o_bt2") / $(secs "$o_tmx")" | bc)"
	rm -rf "$tmp/as-ctf"
}
other trace.dat "$TRACEDAT"
other XRay "$XRAY"
