#!/bin/sh
# Rebuilds tests/data/tracedat/funcgraph/: the function_graph trace.dat files
# (make-funcgraph.c) and, for each, NAME.reports.txt.gz: trace-cmd's own reports
# under several option sets, one section per set ("# ...: trace-cmd report
# OPTIONS -i FILE", the report, "# exit=N").  test_funcgraph.py reads them.
# Needs a C compiler, libz, libzstd and trace-cmd (Debian: trace-cmd 3.1.6).
set -eu
cd "$(dirname "$0")/../.."
cc -O1 -Iinclude -Isrc tests/data/make-funcgraph.c -lz -lzstd -o /tmp/make-funcgraph
mkdir -p tests/data/tracedat/funcgraph
cd tests/data/tracedat/funcgraph
rm -f ./*.dat ./*.reports.txt ./*.reports.txt.gz
/tmp/make-funcgraph .
ver=$(trace-cmd --version 2>/dev/null | sed -n 's/^trace-cmd version \([0-9.]*\).*/\1/p' | head -n 1)

# section OUT OPTIONS... -- FILES...
section() {
	out=$1
	shift
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	ins=
	for f in "$@"; do
		ins="$ins -i $f"
	done
	{
		echo "# trace-cmd $ver (Debian bookworm): trace-cmd report$opts$ins"
		set +e
		# shellcheck disable=SC2086
		LC_ALL=C TZ=UTC trace-cmd report $opts $ins 2>/dev/null
		echo "# exit=$?"
		set -e
	} >>"$out"
}

# Every option that changes how the function graph prints, on the multi-CPU files.
for n in fg-le8-v7 fg-be8-v7-zstd fg-le4-v6; do
	for opts in "" "-R" "-N" "-L" "-t" "-l" "--ts-diff" "-l -t --ts-diff" "--cpu 0" "--cpu 1" \
		"--cpu 1,0" "-I" "-F funcgraph_entry" "-v -F funcgraph_exit" "-n funcgraph_entry" \
		"-r funcgraph_exit"; do
		# shellcheck disable=SC2086
		section "$n.reports.txt" $opts -- "$n.dat"
	done
done
for n in fg-noexit fg-badfields; do
	for opts in "" "-R" "-N"; do
		# shellcheck disable=SC2086
		section "$n.reports.txt" $opts -- "$n.dat"
	done
done
# trace-cmd 3.1.6's order after an exit taken from another CPU depends on freed memory.
section fg-migrate.reports.txt -- fg-migrate.dat
for opts in "" "-l" "--ts-diff" "-R"; do
	# shellcheck disable=SC2086
	section fg-pair.reports.txt $opts -- fg-pair-a.dat fg-pair-b.dat
done
gzip -9n ./*.reports.txt
