#!/bin/sh
# -o parquet on the benchmark traces: conversion time against the text
# output of the same run, dataset size against the input size, and DuckDB
# queries' time on the result.
#
#   bench/parquet.sh [CTF_TRACE_DIR] [TRACE.dat] [RUNS]
#
# Defaults: the generated LTTng-like trace of bench/run.sh
# (/tmp/tracemux-bench-2000000, made with bench/gen-lttng-like.py when
# missing) and the trace.dat of bench/tracecmd.sh
# (/tmp/tracemux-bench-tracecmd/big.dat; record it with that script first).
# An input that is missing is skipped.  Needs build/tracemux, GNU time, bc,
# node and DuckDB's npm package (tests/duckdb, installed on first use).
# Not part of the test suite.
set -eu
cd "$(dirname "$0")/.."
TMX=${TMX:-build/tracemux}
CTF=${1:-/tmp/tracemux-bench-2000000}
DAT=${2:-/tmp/tracemux-bench-tracecmd/big.dat}
RUNS=${3:-3}

[ -x "$TMX" ] || { echo "no $TMX: build it first (scripts/build.sh)" >&2; exit 1; }
command -v node >/dev/null || { echo "node is not installed (apt-get install nodejs npm)" >&2; exit 1; }
[ -f tests/duckdb/node_modules/@duckdb/node-api/package.json ] ||
	npm install --prefix tests/duckdb --no-audit --no-fund >/dev/null
if [ ! -d "$CTF" ] && [ "$CTF" = /tmp/tracemux-bench-2000000 ]; then
	python3 bench/gen-lttng-like.py "$CTF" --events 2000000 >/dev/null
fi

export LC_ALL=C TZ=UTC
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH_TMP=$tmp
. bench/lib.sh
bench_after_run() { rm -rf "$tmp/ds"; }

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

one() {   # INPUT TEXT-FORMAT
	[ -e "$1" ] || { echo "$1: missing, skipped"; return; }
	events=$("$TMX" info "$1" | awk '/ events;/ { print $1; exit }')
	text=$(measure "$RUNS" "$TMX" -o "$2" "$1")
	pq=$(measure "$RUNS" "$TMX" -o parquet -w "$tmp/ds" "$1")
	"$TMX" -o parquet -w "$tmp/ds" "$1"
	in_kb=$(du -sk "$1" | cut -f1)
	out_kb=$(du -sk "$tmp/ds" | cut -f1)
	echo "$1: $events events, $in_kb KB"
	echo "  -o $2        $(secs "$text") s wall, $(kbs "$text") KB peak RSS"
	echo "  -o parquet  $(secs "$pq") s wall, $(kbs "$pq") KB peak RSS," \
		"$(echo "scale=2; $(secs "$pq") / $(secs "$text")" | bc)x the $2 time"
	echo "  dataset     $out_kb KB, $(echo "scale=2; $out_kb / $in_kb" | bc)x the input"
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
