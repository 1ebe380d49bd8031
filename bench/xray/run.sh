#!/bin/sh
# tracemux against llvm-xray 14 on the same large XRay FDR log, in the same run:
#
#   bench/xray/run.sh [MIB] [RUNS]      defaults: 256 MiB log, best of 1 run
#
# The log is written by bench/xray/workload.c (bench/xray/gen.sh: clang-14
# -fxray-instrument, FDR mode, 4 threads) into $XRAY_BENCH_DIR (default
# /tmp/tracemux-xray-bench) once and reused.  Tasks:
#   tracemux -o xray-yaml   vs  llvm-xray convert --output-format=yaml
#   tracemux -o chrome      vs  llvm-xray convert --output-format=trace_event
#   tracemux xray-account   vs  llvm-xray account -k   (llvm-xray's figures
#                               leave out the threads its TSC check rejects)
# each with --instr-map/--instr_map of the workload binary, output to
# /dev/null.  tracemux runs with --jobs 1, 2, 4 ... and every CPU (JOBS
# overrides the list); each row gives wall time (best of RUNS), CPU time,
# peak RSS (GNU time -v), records per second and the speed-up over one job,
# then the ratios llvm-xray / tracemux with one job and with every CPU.
# Before timing, the outputs are checked (CHECK=0 skips it): the YAML must
# be byte-identical (compared by SHA-256 while llvm-xray is timed) and the
# Chrome output must have as many B and E events as llvm-xray's.  llvm-xray
# 14 needs about a minute and 6 to 8 GB per task on a 256 MiB log.  Not part
# of the test suite.  Wall times need a quiet machine: note `uptime`.
set -eu
cd "$(dirname "$0")/../.."
MIB=${1:-256}
RUNS=${2:-1}
CHECK=${CHECK:-1}
TMX=${TMX:-build/tracemux}
LLVM_XRAY=${LLVM_XRAY:-llvm-xray-14}
DIR=${XRAY_BENCH_DIR:-/tmp/tracemux-xray-bench}
export XRAY_BENCH_DIR="$DIR"

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh), or set TMX" >&2; exit 1; }
for need in "$LLVM_XRAY" clang-14 /usr/bin/time bc sha256sum; do
	command -v "$need" >/dev/null || {
		echo "missing: $need (apt-get install llvm-14 clang-14 libclang-rt-14-dev time bc)" >&2
		exit 1
	}
done
LOG=$(bench/xray/gen.sh "$MIB")
BIN="$DIR/workload"
echo "log: $LOG ($(du -h "$LOG" | cut -f1)), instrumentation map: $BIN"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

BENCH_TMP=$tmp
. bench/lib.sh

row() {   # name, "sec kb"
	printf '%-44s %9.3f s %9s MB\n' "$1" "$(secs "$2")" "$(($(kbs "$2") / 1024))"
}

ratio() {   # name, llvm "sec kb", tracemux "sec kb"
	printf '  %-42s %7.1fx faster, %7.1fx less memory\n' "$1" \
		"$(echo "scale=2; $(secs "$2") / $(secs "$3")" | bc)" \
		"$(echo "scale=2; $(kbs "$2") / $(kbs "$3")" | bc)"
}

if [ "$CHECK" = 1 ]; then
	echo "checking the outputs (CHECK=0 skips this) ..."
	{ "$TMX" -o xray-yaml --instr-map "$BIN" "$LOG" 2>"$tmp/err"; echo $? >"$tmp/rc"; } |
		sha256sum >"$tmp/tmx.yaml.sum"
	if [ "$(cat "$tmp/rc")" != 0 ]; then
		echo "tracemux cannot convert this log yet, so there are no figures:" >&2
		head -5 "$tmp/err" >&2
		exit 1
	fi
	"$LLVM_XRAY" convert --output-format=yaml --instr_map="$BIN" "$LOG" | sha256sum >"$tmp/llvm.yaml.sum"
	if ! cmp -s "$tmp/tmx.yaml.sum" "$tmp/llvm.yaml.sum"; then
		echo "tracemux -o xray-yaml differs from llvm-xray convert, so there are no figures" >&2
		exit 1
	fi
	echo "  -o xray-yaml: byte-identical to llvm-xray convert --output-format=yaml"
	# Compact JSON here, llvm-xray's spaced one there: count the B/E events.
	# One event per line in both.
	tb=$("$TMX" -o chrome --instr-map "$BIN" "$LOG" |
		awk '/"ph":"B"/ { b++ } /"ph":"E"/ { e++ } END { print b + 0, "B", e + 0, "E" }')
	lb=$("$LLVM_XRAY" convert --output-format=trace_event --instr_map="$BIN" "$LOG" |
		awk '/"ph" : "B"/ { b++ } /"ph" : "E"/ { e++ } END { print b + 0, "B", e + 0, "E" }')
	if [ "$tb" != "$lb" ]; then
		echo "tracemux -o chrome: B/E events [$tb], llvm-xray's [$lb]: no figures" >&2
		exit 1
	fi
	echo "  -o chrome: the same B/E event counts as llvm-xray's trace_event ($tb)"
fi

# Job counts: 1, 2, 4 ... below the CPUs, and the CPUs.
CPUS=$(nproc)
if [ -z "${JOBS:-}" ]; then
	JOBS=1
	j=2
	while [ "$j" -lt "$CPUS" ]; do JOBS="$JOBS $j"; j=$((j * 2)); done
	[ "$CPUS" -gt 1 ] && JOBS="$JOBS $CPUS"
fi
# Records (function, custom and typed events; tracemux's wall-time events are not records).
RECORDS=$("$TMX" info "$LOG" | awk '$2 ~ /^(function|custom|typed)/ { n += $1 } END { print n + 0 }')
echo "records: $RECORDS; CPUs: $CPUS; load: $(uptime | sed 's/.*load average: //')"

jobs_rows() {   # task name, tracemux arguments...; sets $one and $all ("sec kb cpu")
	_name=$1
	shift
	one=""
	for j in $JOBS; do
		_r=$(measure "$RUNS" "$@" --jobs "$j")
		[ -n "$one" ] || one=$_r
		all=$_r
		printf '%-30s --jobs %-3s %8.3f s %7.2f s CPU %6s MB %12.0f records/s %6.2fx\n' "$_name" "$j" \
			"$(secs "$_r")" "$(cpus "$_r")" "$(($(kbs "$_r") / 1024))" \
			"$(echo "$RECORDS / $(secs "$_r")" | bc)" "$(echo "scale=2; $(secs "$one") / $(secs "$_r")" | bc)"
	done
}

ratios() {   # name, llvm "sec kb cpu"
	ratio "$1, --jobs 1" "$2" "$one"
	ratio "$1, --jobs $(echo "$JOBS" | awk '{ print $NF }')" "$2" "$all"
}

jobs_rows "tracemux -o xray-yaml" "$TMX" -o xray-yaml --instr-map "$BIN" "$LOG"
llvm_yaml=$(measure "$RUNS" "$LLVM_XRAY" convert --output-format=yaml --instr_map="$BIN" "$LOG")
row "llvm-xray convert --output-format=yaml" "$llvm_yaml"
ratios "yaml" "$llvm_yaml"
jobs_rows "tracemux -o chrome" "$TMX" -o chrome --instr-map "$BIN" "$LOG"
llvm_chrome=$(measure "$RUNS" "$LLVM_XRAY" convert --output-format=trace_event --instr_map="$BIN" "$LOG")
row "llvm-xray convert --output-format=trace_event" "$llvm_chrome"
ratios "chrome / trace_event" "$llvm_chrome"
jobs_rows "tracemux xray-account" "$TMX" xray-account --instr-map "$BIN" "$LOG"
# llvm-xray reports every record its TSC check rejects, with the stacks of
# every thread: gigabytes of stderr on this log, thrown away.
llvm_acct=$(BENCH_ERR=/dev/null measure "$RUNS" "$LLVM_XRAY" account -k --instr_map="$BIN" "$LOG")
row "llvm-xray account -k" "$llvm_acct"
ratios "account" "$llvm_acct"
