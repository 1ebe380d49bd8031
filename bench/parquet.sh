#!/bin/sh
# -o parquet on the benchmark traces: conversion time against the text
# output of the same run with the same --jobs, the speed-up over --jobs 1,
# peak memory, dataset size against the input size, and DuckDB queries'
# time on the result.
#
#   bench/parquet.sh [CTF_TRACE_DIR] [TRACE.dat] [RUNS]
#
# Each input is converted with --jobs 1, 2, 4 ... below the CPU count and
# the CPU count (JOBS overrides the list), RUNS times each (default 5),
# the text output (or -o tracecmd) and -o parquet alternating.  A row
# gives, for each output, the best wall time, the median CPU time (user +
# system) and the largest peak RSS (GNU time's %M) of the runs; then
# parquet over the text in wall and in CPU time, and parquet's wall
# speed-up over its own --jobs 1.  The text goes to /dev/null, which costs
# nothing, while the dataset is written to the file system; a second row
# ("to a file") times the text written with -w to a file beside the
# dataset (deleted after each run), the comparison of two conversions to
# files.  On a loaded machine (the load average
# is printed) the wall times mean little and the CPU times are the
# figures to read; the speed-up needs a quiet machine.  Before timing,
# the datasets of every job count are checked to be the same bytes.
# NODB=1 skips the DuckDB queries.
#
# Defaults: the 1M-event LTTng-like trace (/tmp/tracemux-bench-1000000,
# made with bench/gen-lttng-like.py when missing) and the trace.dat of
# bench/tracecmd.sh (/tmp/tracemux-bench-tracecmd/big.dat; record it with
# that script first).  An input that is missing is skipped.  Needs
# build/tracemux, GNU time, bc, node and DuckDB's npm package
# (tests/duckdb, installed on first use).  Not part of the test suite.
set -eu
cd "$(dirname "$0")/.."
TMX=${TMX:-build/tracemux}
CTF=${1:-/tmp/tracemux-bench-1000000}
DAT=${2:-/tmp/tracemux-bench-tracecmd/big.dat}
RUNS=${3:-5}

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
if [ "${NODB:-0}" != 1 ]; then
	command -v node >/dev/null || { echo "node is not installed (apt-get install nodejs npm)" >&2; exit 1; }
	[ -f tests/duckdb/node_modules/@duckdb/node-api/package.json ] ||
		npm install --prefix tests/duckdb --no-audit --no-fund >/dev/null
fi
if [ ! -d "$CTF" ] && [ "$CTF" = /tmp/tracemux-bench-1000000 ]; then
	python3 bench/gen-lttng-like.py "$CTF" --events 1000000 >/dev/null
fi

export LC_ALL=C TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH_TMP=$tmp
. bench/lib.sh
bench_after_run() { rm -rf "$tmp/ds" "$tmp/out.txt"; }

# Best-of-RUNS wall seconds of one DuckDB statement on the dataset.
query() {
	_best=""
	for _ in $(seq "$RUNS"); do
		_t0=$(date +%s%N)
		(cd "$tmp" && node "$OLDPWD/tests/duckdb/sql.mjs" "$1" >"$tmp/q.json")
		_t1=$(date +%s%N)
		_s=$(echo "scale=3; ($_t1 - $_t0) / 1000000000" | bc)
		if [ -z "$_best" ] || [ "$(echo "$_s < $_best" | bc)" = 1 ]; then _best=$_s; fi
	done
	echo "$_best"
}

JOBS=${JOBS:-$(job_counts | tr '\n' ' ')}

# "best-wall-seconds largest-KB median-CPU-seconds" of measure's lines in a file.
summary() {
	_w=$(cut -d' ' -f1 "$1" | sort -n | head -1)
	_k=$(cut -d' ' -f2 "$1" | sort -n | tail -1)
	_n=$(wc -l <"$1")
	_c=$(cut -d' ' -f3 "$1" | sort -n | sed -n "$(((_n + 1) / 2))p")
	echo "$_w $_k $_c"
}

# A digest of every file of a dataset (names and bytes).
digest() {
	(cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do
		echo "$f"
		sha256sum <"$f"
	done) | sha256sum | cut -c1-16
}

one() {   # INPUT TEXT-FORMAT
	[ -e "$1" ] || { echo "$1: missing, skipped"; return; }
	events=$("$TMX" info "$1" | awk '/ events;/ { print $1; exit }')
	in_kb=$(du -sk "$1" | cut -f1)
	echo "$1: $events events, $in_kb KB; CPUs: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
	ref=""
	for j in $JOBS; do
		rm -rf "$tmp/ds"
		"$TMX" -j "$j" -o parquet -w "$tmp/ds" "$1" 2>/dev/null
		d=$(digest "$tmp/ds")
		[ -n "$ref" ] || ref=$d
		if [ "$d" != "$ref" ]; then
			echo "  the dataset of --jobs $j differs from --jobs 1's: no figures" >&2
			exit 1
		fi
	done
	echo "  datasets of --jobs $JOBS: the same bytes ($ref)"
	out_kb=$(du -sk "$tmp/ds" | cut -f1)
	printf '  %-9s %-28s %-28s %s\n' "" "-o $2: wall, CPU, peak RSS" \
		"-o parquet: wall, CPU, peak RSS" "parquet/$2 wall, CPU; parquet speed-up"
	pq1=""
	for j in $JOBS; do
		: >"$tmp/text.runs"
		: >"$tmp/pq.runs"
		: >"$tmp/file.runs"
		for _ in $(seq "$RUNS"); do
			measure 1 "$TMX" -j "$j" -o "$2" "$1" >>"$tmp/text.runs"
			measure 1 "$TMX" -j "$j" -o parquet -w "$tmp/ds" "$1" >>"$tmp/pq.runs"
			measure 1 "$TMX" -j "$j" -o "$2" -w "$tmp/out.txt" "$1" >>"$tmp/file.runs"
		done
		text=$(summary "$tmp/text.runs")
		pq=$(summary "$tmp/pq.runs")
		file=$(summary "$tmp/file.runs")
		[ -n "$pq1" ] || pq1=$pq
		printf '  --jobs %-2s %7.3f s %6.2f s %5s MB    %7.3f s %6.2f s %5s MB    %5.2fx %5.2fx; %5.2fx\n' "$j" \
			"$(secs "$text")" "$(cpus "$text")" "$(($(kbs "$text") / 1024))" \
			"$(secs "$pq")" "$(cpus "$pq")" "$(($(kbs "$pq") / 1024))" \
			"$(echo "scale=3; $(secs "$pq") / $(secs "$text")" | bc)" \
			"$(echo "scale=3; $(cpus "$pq") / $(cpus "$text")" | bc)" \
			"$(echo "scale=3; $(secs "$pq1") / $(secs "$pq")" | bc)"
		printf '  %-9s %7.3f s %6.2f s %5s MB    (to a file)                  %5.2fx %5.2fx\n' "" \
			"$(secs "$file")" "$(cpus "$file")" "$(($(kbs "$file") / 1024))" \
			"$(echo "scale=3; $(secs "$pq") / $(secs "$file")" | bc)" \
			"$(echo "scale=3; $(cpus "$pq") / $(cpus "$file")" | bc)"
	done
	echo "  dataset     $out_kb KB, $(echo "scale=2; $out_kb / $in_kb" | bc)x the input"
	[ "${NODB:-0}" = 1 ] && return
	"$TMX" -o parquet -w "$tmp/ds" "$1" 2>/dev/null
	q1="SELECT event, count(*) AS n FROM read_parquet('ds/event=*/*.parquet',
		hive_partitioning = true, union_by_name = true) GROUP BY event ORDER BY n DESC"
	q2="SELECT count(*), min(ts), max(ts) FROM read_parquet('ds/event=*/*.parquet',
		hive_partitioning = true, union_by_name = true)
		WHERE cycles BETWEEN (SELECT quantile_disc(cycles, 0.5) FROM read_parquet('ds/event=*/*.parquet'))
		AND (SELECT quantile_disc(cycles, 0.51) FROM read_parquet('ds/event=*/*.parquet'))"
	echo "  DuckDB: events per class $(query "$q1") s, a 1% time slice $(query "$q2") s" \
		"(node start-up included)"
	rm -rf "$tmp/ds"
}

one "$CTF" text
one "$DAT" tracecmd
