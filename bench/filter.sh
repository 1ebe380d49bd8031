#!/bin/sh
# What event filters cost: the text output of all the events against the
# same run with --events / --filter keeping about 1% of them (the target:
# at most 30% of the time of printing everything), on the generated
# LTTng-like trace of bench/run.sh and, when there is one, a trace.dat.
#
#   bench/filter.sh [EVENTS] [RUNS]     defaults: 2000000 events, best of 5 runs
#
# The trace is generated once into $BENCH_TRACE_DIR (default
# /tmp/tracemux-bench-EVENTS) and reused; the trace.dat is $BENCH_TRACEDAT
# or bench/tracecmd.sh's /tmp/tracemux-bench-tracecmd/big.dat (skipped when
# neither exists).  Prints, per case, wall time and CPU time (best of RUNS),
# the events kept, and the ratio to the unfiltered text output by CPU time
# (the machine may be shared: CPU time is the steadier figure).  Needs
# build/tracemux, python3, GNU time and bc.  Not part of the test suite.
set -eu
cd "$(dirname "$0")/.."
EVENTS=${1:-2000000}
RUNS=${2:-5}
TRACE=${BENCH_TRACE_DIR:-/tmp/tracemux-bench-$EVENTS}
DAT=${BENCH_TRACEDAT:-/tmp/tracemux-bench-tracecmd/big.dat}
TMX=${TMX:-build/tracemux}

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
if [ ! -f "$TRACE/metadata" ]; then
	echo "generating $EVENTS events into $TRACE ..."
	python3 bench/gen-lttng-like.py "$TRACE" --events "$EVENTS"
fi
export TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH_TMP=$tmp
. bench/lib.sh

kept() {   # events that pass: from `tracemux info`, which filters the same way
	for a in "$@"; do
		shift
		case $a in --events=* | --filter=* | /*) set -- "$@" "$a" ;; esac
	done
	"$TMX" info "$@" 2>/dev/null | sed -n 's/^\([0-9]*\) events;.*/\1/p'
}

# case NAME TRACE [FILTER OPTIONS...]: one row; the first case of a trace is its baseline.
case_row() {
	name=$1 trace=$2
	shift 2
	r=$(measure "$RUNS" "$TMX" "$@" "$trace")
	n=$(kept "$@" "$trace")
	if [ -z "${base_cpu:-}" ]; then
		base_cpu=$(cpus "$r")
		total=$n
	fi
	printf '%-52s %7.3f s %6.2f s CPU %9s events (%5.1f%%)  %5.1f%% of the text CPU time\n' \
		"$name" "$(secs "$r")" "$(cpus "$r")" "$n" \
		"$(echo "scale=3; 100 * $n / $total" | bc)" \
		"$(echo "scale=3; 100 * $(cpus "$r") / $base_cpu" | bc)"
}

echo "trace: $TRACE ($(du -sh "$TRACE" | cut -f1))"
base_cpu=""
case_row "text, every event" "$TRACE"
case_row "-o dummy (decoding only), every event" "$TRACE" -o dummy
case_row "--filter='prev_tid < 1000'" "$TRACE" "--filter=prev_tid < 1000"
case_row "--events=sched:switch --filter='prev_tid < 1000'" "$TRACE" --events=sched:switch \
	"--filter=prev_tid < 1000"
case_row "--filter='value < 50.0' (a float)" "$TRACE" "--filter=value < 50.0"
case_row "--filter='\$cpu == 1 && msg =~ \"^cache\"' (regex)" "$TRACE" \
	'--filter=$cpu == 1 && msg =~ "^cache"'
case_row "--events=net:* (names only)" "$TRACE" "--events=net:*"

if [ -f "$DAT" ]; then
	echo
	echo "trace: $DAT ($(du -sh "$DAT" | cut -f1))"
	base_cpu=""
	case_row "text, every event" "$DAT"
	case_row "--events=sys_enter --filter='id == 3'" "$DAT" --events=sys_enter "--filter=id == 3"
	case_row "--filter='ret < 0'" "$DAT" "--filter=ret < 0"
	case_row "--events=sched:* (names only)" "$DAT" "--events=sched:*"
fi
