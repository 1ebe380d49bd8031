#!/bin/sh
# -o perfetto against -o json (time, same --jobs) and -o chrome (file size),
# in the same run, on the benchmark traces:
#
#   bench/perfetto.sh [RUNS]         default: best of 3 runs
#
# Traces: the 1M-event LTTng-UST-like trace of bench/run.sh (generated into
# $BENCH_TRACE_DIR, default /tmp/tracemux-bench-1000000, when missing:
# user-space events, so track events with interned names and strings) and
# the trace.dat of bench/tracecmd.sh ($BENCH_TRACEDAT, default
# /tmp/tracemux-bench-tracecmd/big.dat: record it with bench/tracecmd.sh;
# skipped when absent).  Outputs go to /dev/null for the timings and to a
# scratch directory for the sizes.  For every job count of bench/lib.sh:
# wall time (best of RUNS) of -o perfetto and -o json and their ratio; then
# the sizes of -o perfetto, -o json and -o chrome and perfetto / chrome, and
# of -o perfetto --perfetto-compress=zstd.  Both outputs format on --jobs
# threads (-o perfetto per stream: its bytes do not depend on the jobs).
# Needs build/tracemux (or $TMX), python3, GNU time and bc.  Not part of
# the test suite.
set -eu
cd "$(dirname "$0")/.."
TMX=${TMX:-build/tracemux}
RUNS=${1:-3}
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

echo "$(nproc) CPUs, load: $(uptime | sed 's/.*load average: //')"
for t in "$LTTNG" "$TRACEDAT"; do
	if [ ! -e "$t" ]; then
		echo "$t: absent (record it with bench/tracecmd.sh), skipped"
		continue
	fi
	echo "$t ($(du -sh "$t" | cut -f1))"
	for j in $(job_counts); do
		pf=$(measure "$RUNS" "$TMX" -o perfetto --jobs "$j" "$t")
		js=$(measure "$RUNS" "$TMX" -o json --jobs "$j" "$t")
		printf '  --jobs %-3s perfetto %7.3f s (CPU %6.2f s)   json %7.3f s (CPU %6.2f s)   json / perfetto %5.2fx\n' \
			"$j" "$(secs "$pf")" "$(cpus "$pf")" "$(secs "$js")" "$(cpus "$js")" \
			"$(echo "scale=2; $(secs "$js") / $(secs "$pf")" | bc)"
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
