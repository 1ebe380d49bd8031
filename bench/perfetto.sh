#!/bin/sh
# -o perfetto against -o json (CPU and wall time, same --jobs) and -o chrome
# (file size), in the same run, on the benchmark traces:
#
#   bench/perfetto.sh [RUNS]         default: 5 runs of each command
#
# Traces: the 1M-event LTTng-UST-like trace of bench/run.sh (generated into
# $BENCH_TRACE_DIR, default /tmp/tracemux-bench-1000000, when missing:
# user-space events, so track events with interned names and strings) and
# the trace.dat of bench/tracecmd.sh ($BENCH_TRACEDAT, default
# /tmp/tracemux-bench-tracecmd/big.dat: record it with bench/tracecmd.sh;
# skipped when absent).  Outputs go to /dev/null for the timings and to a
# scratch directory for the sizes.
#
# Timings: for --jobs 1 and 2 (and the CPU count when larger), RUNS runs of
# -o perfetto and -o json taken in turns (so that both see the same load on
# a shared machine); for each, the least CPU time (user + system, as GNU
# time reports it) and the least wall time over its runs, then the ratios
# perfetto / json of both (below 1: perfetto is faster).  On a loaded
# machine the CPU ratio is the one to read: wall time there measures the
# other processes too.  Then the sizes of -o perfetto, -o json and
# -o chrome and perfetto / chrome, and of -o perfetto
# --perfetto-compress=zstd.  Both outputs format on --jobs threads
# (-o perfetto per stream: its bytes do not depend on the jobs).
# Needs build/tracemux (or $TMX), python3, GNU time and bc.  Not part of
# the test suite.
set -eu
cd "$(dirname "$0")/.."
TMX=${TMX:-build/tracemux}
RUNS=${1:-5}
LTTNG=${BENCH_TRACE_DIR:-/tmp/tracemux-bench-1000000}
TRACEDAT=${BENCH_TRACEDAT:-/tmp/tracemux-bench-tracecmd/big.dat}

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
if [ ! -f "$LTTNG/metadata" ]; then
	echo "generating 1000000 events into $LTTNG ..."
	python3 bench/gen-lttng-like.py "$LTTNG" --events 1000000
fi
export LC_ALL=C TZ=UTC
unset TRACEMUX_JOBS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH_TMP=$tmp
. bench/lib.sh

# The least of two numbers (the first may be empty); a / b to two decimals (b of 0: "-").
least() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }
ratio() { if [ "$(echo "$2 == 0" | bc)" = 1 ]; then echo "-"; else echo "scale=2; $1 / $2" | bc; fi; }
jobs="1 2"
[ "$(nproc)" -gt 2 ] && jobs="$jobs $(nproc)"

echo "$(nproc) CPUs, load: $(uptime | sed 's/.*load average: //'), $RUNS runs of each command"
for t in "$LTTNG" "$TRACEDAT"; do
	if [ ! -e "$t" ]; then
		echo "$t: absent (record it with bench/tracecmd.sh), skipped"
		continue
	fi
	echo "$t ($(du -sh "$t" | cut -f1))"
	for j in $jobs; do
		pw="" pc="" jw="" jc=""
		for _ in $(seq "$RUNS"); do
			r=$(measure 1 "$TMX" -o perfetto --jobs "$j" "$t")
			pw=$(least "$pw" "$(secs "$r")")
			pc=$(least "$pc" "$(cpus "$r")")
			r=$(measure 1 "$TMX" -o json --jobs "$j" "$t")
			jw=$(least "$jw" "$(secs "$r")")
			jc=$(least "$jc" "$(cpus "$r")")
		done
		printf '  --jobs %-2s CPU: perfetto %5.2f s, json %5.2f s, perfetto / json %5.2f   wall: perfetto %6.3f s, json %6.3f s, perfetto / json %5.2f\n' \
			"$j" "$pc" "$jc" "$(ratio "$pc" "$jc")" "$pw" "$jw" "$(ratio "$pw" "$jw")"
	done
	for o in perfetto json chrome; do
		"$TMX" -o "$o" "$t" >"$tmp/out.$o"
	done
	"$TMX" -o perfetto --perfetto-compress=zstd "$t" >"$tmp/out.zst"
	p=$(wc -c <"$tmp/out.perfetto")
	j=$(wc -c <"$tmp/out.json")
	c=$(wc -c <"$tmp/out.chrome")
	z=$(wc -c <"$tmp/out.zst")
	printf '  sizes: perfetto %s MB, json %s MB, chrome %s MB; perfetto / chrome %s\n' \
		"$((p / 1048576))" "$((j / 1048576))" "$((c / 1048576))" \
		"$(echo "scale=3; $p / $c" | bc)"
	zs=$(measure "$RUNS" "$TMX" -o perfetto --perfetto-compress=zstd "$t")
	printf '  --perfetto-compress=zstd: %s MB, / chrome %s, %.3f s (CPU %.2f s) with --jobs 1\n' \
		"$((z / 1048576))" "$(echo "scale=3; $z / $c" | bc)" "$(secs "$zs")" "$(cpus "$zs")"
	rm -f "$tmp"/out.*
done
