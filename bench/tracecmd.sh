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
# Needs build/tracemux (or $TMX), trace-cmd, GNU time and bc.  The outputs of
# every job count must be trace-cmd's, else no figures are printed.  Prints,
# for trace-cmd and for --jobs 1, 2, 4 ... every CPU the process may use
# (nproc), the wall time (best of RUNS), events per second, speed-up over
# --jobs 1, CPU time, peak RSS and the ratio trace-cmd / tracemux, with the
# load average at the start (the machine may be shared).  Runs unchanged on
# any number of cores.  Not part of the test suite.  tracemux runs with
# --report-version=3.1 (trace-cmd 3.1.6's text, Debian 12's trace-cmd); a last
# row times the default 3.3 text (its flags column) with --jobs 1.
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
unset TRACEMUX_JOBS
CPUS=$(nproc)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

BENCH_TMP=$tmp
. bench/lib.sh

echo "$CPUS CPUs, load: $(uptime | sed 's/.*load average: //')"
for f in "$TRACE" "$V6"; do
	trace-cmd report "$f" >"$tmp/tc.txt" 2>/dev/null
	events=$(($(wc -l <"$tmp/tc.txt") - 1))   # less the cpus= line
	# The figures only mean something if every job count prints trace-cmd's bytes.
	for j in $(job_counts); do
		"$TMX" -o tracecmd --report-version=3.1 --jobs "$j" "$f" >"$tmp/tm.txt"
		if ! cmp -s "$tmp/tc.txt" "$tmp/tm.txt"; then
			echo "$f: tracemux -o tracecmd --jobs $j differs from trace-cmd report: no figures" >&2
			cmp "$tmp/tc.txt" "$tmp/tm.txt" >&2 || true
			exit 1
		fi
	done
	rm -f "$tmp/tc.txt" "$tmp/tm.txt"
	echo "$(basename "$f"): $(du -h "$f" | cut -f1), $events events, outputs identical to trace-cmd's for every job count"
	tc=$(measure "$RUNS" trace-cmd report "$f")
	printf '  %-22s %5s %9s %13s %9s %8s %8s %9s\n' "" jobs seconds events/s speed-up "CPU s" "peak MB" "vs t-cmd"
	printf '  %-22s %5s %9.3f %13s %9s %8s %8s\n' "trace-cmd report" "" "$(secs "$tc")" \
		"$(echo "$events / $(secs "$tc")" | bc)" "" "$(cpus "$tc")" "$(($(kbs "$tc") / 1024))"
	for j in $(job_counts); do
		r=$(measure "$RUNS" "$TMX" -o tracecmd --report-version=3.1 --jobs "$j" "$f")
		[ "$j" = 1 ] && one=$r
		printf '  %-22s %5s %9.3f %13s %8.2fx %8s %8s %8.1fx\n' "tracemux -o tracecmd" "$j" \
			"$(secs "$r")" "$(echo "$events / $(secs "$r")" | bc)" \
			"$(echo "scale=3; $(secs "$one") / $(secs "$r")" | bc)" "$(cpus "$r")" \
			"$(($(kbs "$r") / 1024))" "$(echo "scale=2; $(secs "$tc") / $(secs "$r")" | bc)"
	done
	r=$(measure "$RUNS" "$TMX" -o tracecmd --jobs 1 "$f")
	printf '  %-22s %5s %9.3f %13s %8.2fx %8s %8s %8.1fx\n' "  (3.3 layout)" 1 \
		"$(secs "$r")" "$(echo "$events / $(secs "$r")" | bc)" \
		"$(echo "scale=3; $(secs "$one") / $(secs "$r")" | bc)" "$(cpus "$r")" \
		"$(($(kbs "$r") / 1024))" "$(echo "scale=2; $(secs "$tc") / $(secs "$r")" | bc)"
done
