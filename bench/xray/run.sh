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
# /dev/null.  Prints wall time (best of RUNS), peak RSS (GNU time -v) and the
# ratios llvm-xray / tracemux.  Before timing, the outputs are checked
# (CHECK=0 skips it): the YAML must be byte-identical (compared by SHA-256
# while llvm-xray is timed) and the Chrome output must have as many B and E
# events as llvm-xray's.  llvm-xray 14 needs about a minute and 6 to 8 GB
# per task on a 256 MiB log.  Not part of the test suite.
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

tmx_yaml=$(measure "$RUNS" "$TMX" -o xray-yaml --instr-map "$BIN" "$LOG")
llvm_yaml=$(measure "$RUNS" "$LLVM_XRAY" convert --output-format=yaml --instr_map="$BIN" "$LOG")
tmx_chrome=$(measure "$RUNS" "$TMX" -o chrome --instr-map "$BIN" "$LOG")
llvm_chrome=$(measure "$RUNS" "$LLVM_XRAY" convert --output-format=trace_event --instr_map="$BIN" "$LOG")
tmx_acct=$(measure "$RUNS" "$TMX" xray-account --instr-map "$BIN" "$LOG")
# llvm-xray reports every record its TSC check rejects, with the stacks of
# every thread: gigabytes of stderr on this log, thrown away.
llvm_acct=$(BENCH_ERR=/dev/null measure "$RUNS" "$LLVM_XRAY" account -k --instr_map="$BIN" "$LOG")

row "tracemux -o xray-yaml" "$tmx_yaml"
row "llvm-xray convert --output-format=yaml" "$llvm_yaml"
ratio "yaml" "$llvm_yaml" "$tmx_yaml"
row "tracemux -o chrome" "$tmx_chrome"
row "llvm-xray convert --output-format=trace_event" "$llvm_chrome"
ratio "chrome / trace_event" "$llvm_chrome" "$tmx_chrome"
row "tracemux xray-account" "$tmx_acct"
row "llvm-xray account -k" "$llvm_acct"
ratio "account" "$llvm_acct" "$tmx_acct"
