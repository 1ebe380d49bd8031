#!/bin/sh
# Rebuilds tests/data/tracedat/*.dat (make-tracedat.c) and their references,
# trace-cmd's own reports: NAME.report-t.txt and NAME.report-R.txt.
# Needs a C compiler, libz, libzstd and trace-cmd (Debian: trace-cmd 3.1.6).
set -eu
cd "$(dirname "$0")/../.."
cc -O1 -Iinclude -Isrc tests/data/make-tracedat.c -lz -lzstd -o /tmp/make-tracedat
/tmp/make-tracedat tests/data/tracedat
ver=$(trace-cmd --version 2>/dev/null | sed -n 's/^trace-cmd version \([0-9.]*\).*/\1/p' | head -n 1)
cd tests/data/tracedat
for f in *.dat; do
	n=${f%.dat}
	for opt in t R; do
		{
			echo "# trace-cmd $ver (Debian bookworm): trace-cmd report -$opt -i $f"
			set +e
			LC_ALL=C TZ=UTC trace-cmd report -$opt -i "$f" 2>/dev/null
			echo "# exit=$?"
			set -e
		} >"$n.report-$opt.txt"
	done
done
