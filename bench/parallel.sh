#!/bin/sh
# Scaling of the parallel runner (tmx_run, --jobs) on a generated LTTng-like
# trace, with babeltrace2 on the same input in the same run.
#
#   bench/parallel.sh [EVENTS] [RUNS] [STREAMS]
#       defaults: 2000000 events, best of 3 runs, 2 streams per CPU (at least 4)
#
# For the text, dummy, json and chrome outputs and the CTF writer (ctf:
# CTF 1.8, ctf2: CTF 2, written to a scratch directory removed after each
# run) and for --jobs 1, 2, 4 ... up to every CPU the process may use
# (nproc): wall time (best of RUNS), events per second, speed-up over
# --jobs 1, peak RSS, and megabytes of trace read per second of wall time
# and per CPU-second (GNU time's user + system, 10 ms steps: use a trace of
# a few hundred MB for that column); then babeltrace2's text
# and `-o dummy` (sink.utils.dummy) times and the ratios babeltrace2 /
# tracemux with one job and with all of them.  Stops without figures if
# an output differs between job counts or the text differs from
# babeltrace2's.  Runs unchanged on any number of cores.  Needs
# build/tracemux, babeltrace2, python3, GNU time and bc.  Not part of the
# test suite.
set -eu
cd "$(dirname "$0")/.."
CPUS=$(nproc)
EVENTS=${1:-2000000}
RUNS=${2:-3}
STREAMS=${3:-$((CPUS * 2 > 4 ? CPUS * 2 : 4))}
TRACE=${BENCH_TRACE_DIR:-/tmp/tracemux-bench-$EVENTS-s$STREAMS}
TMX=build/tracemux

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
for need in babeltrace2 python3 /usr/bin/time bc; do
	command -v "$need" >/dev/null || { echo "missing: $need" >&2; exit 1; }
done
if [ ! -f "$TRACE/metadata" ]; then
	echo "generating $EVENTS events in $STREAMS streams into $TRACE ..."
	python3 bench/gen-lttng-like.py "$TRACE" --events "$EVENTS" --streams "$STREAMS"
fi
export TZ=UTC
unset TRACEMUX_JOBS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH_TMP=$tmp
. bench/lib.sh

# An output's options: the CTF writer's go to $tmp/out (a directory).
out_opts() {
	case $1 in
	ctf) echo "-o ctf -w $tmp/out" ;;
	ctf2) echo "-o ctf --ctf-version=2 -w $tmp/out" ;;
	*) echo "-o $1" ;;
	esac
}
bench_after_run() { rm -rf "$tmp/out"; }

# The figures only mean something if every job count writes the same bytes.
for fmt in text json chrome ctf ctf2; do
	# shellcheck disable=SC2046  # out_opts: words
	"$TMX" $(out_opts "$fmt") --jobs 1 "$TRACE" >"$tmp/ref" 2>"$tmp/ref.err"
	[ -d "$tmp/out" ] && mv "$tmp/out" "$tmp/ref.dir"
	for j in $(job_counts); do
		# shellcheck disable=SC2046
		"$TMX" $(out_opts "$fmt") --jobs "$j" "$TRACE" >"$tmp/out.txt" 2>"$tmp/out.err"
		if ! cmp -s "$tmp/ref" "$tmp/out.txt" || ! cmp -s "$tmp/ref.err" "$tmp/out.err" ||
		   { [ -d "$tmp/ref.dir" ] && ! diff -r "$tmp/ref.dir" "$tmp/out" >/dev/null; }; then
			echo "-o $fmt --jobs $j differs from --jobs 1: no figures" >&2
			exit 1
		fi
		rm -rf "$tmp/out"
	done
	rm -rf "$tmp/ref.dir"
done
"$TMX" --jobs 1 "$TRACE" >"$tmp/ref" 2>/dev/null
babeltrace2 "$TRACE" >"$tmp/bt2" 2>/dev/null
if ! cmp -s "$tmp/ref" "$tmp/bt2"; then
	echo "tracemux's text differs from babeltrace2's: no figures" >&2
	exit 1
fi
rm -f "$tmp/ref" "$tmp/out.txt" "$tmp/bt2"
echo "trace: $TRACE ($(du -sh "$TRACE" | cut -f1), $EVENTS events, $STREAMS streams), $CPUS CPUs"
echo "outputs identical for every job count, text identical to babeltrace2's"

eps() { echo "$EVENTS / $(secs "$1")" | bc; }
# Trace bytes read per second of wall time, and per CPU-second (user + system).
BYTES=$(du -sb "$TRACE" | cut -f1)
mbps() { echo "$BYTES / $(secs "$1") / 1000000" | bc; }
mbps_cpu() { [ "$(echo "$(cpus "$1") > 0" | bc)" = 1 ] && echo "$BYTES / $(cpus "$1") / 1000000" | bc || echo "-"; }
printf '%-10s %5s %9s %13s %9s %8s %8s %10s\n' output jobs seconds events/s speed-up "peak MB" "MB/s" "MB/CPU-s"
for fmt in text dummy json chrome ctf ctf2; do
	for j in $(job_counts); do
		# shellcheck disable=SC2046
		r=$(measure "$RUNS" "$TMX" $(out_opts "$fmt") --jobs "$j" "$TRACE")
		[ "$j" = 1 ] && one=$r
		eval "last_$fmt=\$r"
		[ "$j" = 1 ] && eval "one_$fmt=\$r"
		printf '%-10s %5s %9.3f %13s %8.2fx %8s %8s %10s\n' "$fmt" "$j" "$(secs "$r")" "$(eps "$r")" \
			"$(echo "scale=3; $(secs "$one") / $(secs "$r")" | bc)" "$(($(kbs "$r") / 1024))" \
			"$(mbps "$r")" "$(mbps_cpu "$r")"
	done
done

bt2_text=$(measure "$RUNS" babeltrace2 "$TRACE")
bt2_dummy=$(measure "$RUNS" babeltrace2 -o dummy "$TRACE")
printf '%-26s %9.3f s %13s ev/s\n' "babeltrace2 (text)" "$(secs "$bt2_text")" "$(eps "$bt2_text")"
printf '%-26s %9.3f s %13s ev/s\n' "babeltrace2 -o dummy" "$(secs "$bt2_dummy")" "$(eps "$bt2_dummy")"
ratio() {   # what, babeltrace2's, tracemux's
	printf '  ratio %-36s %6.1fx\n' "$1" "$(echo "scale=2; $(secs "$2") / $(secs "$3")" | bc)"
}
# shellcheck disable=SC2154  # set by eval above
{
	ratio "text vs babeltrace2 (--jobs 1)" "$bt2_text" "$one_text"
	ratio "text vs babeltrace2 (--jobs $CPUS)" "$bt2_text" "$last_text"
	ratio "dummy vs babeltrace2 -o dummy (--jobs 1)" "$bt2_dummy" "$one_dummy"
	ratio "dummy vs babeltrace2 -o dummy (--jobs $CPUS)" "$bt2_dummy" "$last_dummy"
}
