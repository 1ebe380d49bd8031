#!/bin/sh
# Builds every libFuzzer harness (clang, AddressSanitizer + UBSan) and runs
# each one for SECONDS (default 60):
#
#   fuzz/run.sh [SECONDS] [HARNESS...]
#       harnesses: tsdl metadata_stream ctf_packets ctf2_packets ctf_trace lttng_index tracedat
#                  tracedat_page xray ctf_writer ctf2_metadata filter
#
# TMX_FUZZ_BUILD names the build directory (default build-fuzz).
#
# Seeds come from the real traces of the shared corpus and tests/data; what
# a harness finds is written to fuzz/regressions/HARNESS/ (commit it: CI
# replays those inputs under the sanitizers, see tests/CMakeLists.txt).
# Needs clang-14 and libclang-rt-14-dev (Debian).
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
harnesses=${*:-tsdl metadata_stream ctf_packets ctf2_packets ctf_trace lttng_index tracedat tracedat_page xray ctf_writer ctf2_metadata filter}
corpus=${TMX_CORPUS:-../shared/corpus}
[ -d "$corpus" ] || corpus=/work/shared/corpus
out=${TMX_FUZZ_BUILD:-build-fuzz}
mkdir -p "$out"

srcs=$(find src -name '*.c' | sort)
cflags="-g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
cflags="$cflags -Iinclude -Isrc -DTMX_FUZZ_DEFAULT_METADATA=\"$PWD/tests/data/sample-trace/metadata\""
cflags="$cflags -DTMX_FUZZ_CTF2_METADATA=\"$(cd "$corpus" && pwd)/ctf2/handmade/edge-cases/metadata\""
# libtraceevent (-o tracecmd), libelf (XRay instrumentation maps) and libdw
# (xray-account's source positions), json-c (CTF 2 metadata), libyaml (XRay YAML traces).
cflags="$cflags $(pkg-config --cflags libtraceevent libelf libdw json-c yaml-0.1)"

seed() {   # HARNESS DIR: fill DIR with seed inputs
	case $1 in
	tsdl)
		find "$corpus/yactfr-tests/metadata-text/ctf-1" -name 'pass-*' -size -64k -exec cp {} "$2" \;
		find "$corpus/babeltrace-tests/ctf-traces" -name metadata -size -64k |
			while read -r f; do cp "$f" "$2/$(echo "$f" | md5sum | cut -c1-12)"; done ;;
	metadata_stream)
		cp "$corpus"/yactfr-tests/metadata-stream/* "$2"
		find "$corpus/babeltrace-tests/ctf-traces" -name metadata -size -64k |
			while read -r f; do cp "$f" "$2/$(echo "$f" | md5sum | cut -c1-12)"; done ;;
	ctf_packets)
		cp tests/data/sample-trace/channel0_* "$2" ;;
	ctf2_packets)   # the data stream of the metadata's trace
		cp "$corpus/ctf2/handmade/edge-cases/data" "$2/edge-cases" ;;
	ctf_trace | ctf_writer)   # metadata, the separator line, the stream
		cp fuzz/seeds/ctf_trace-sample "$2"
		# ctf_writer: also trace.dat files and XRay logs (other models for the writer).
		[ "$1" = ctf_writer ] && cp fuzz/seeds/ctf_writer/* fuzz/seeds/tracedat-* \
			tests/data/tracedat/*.dat tests/data/xray/*.xray "$2"
		for c in "$corpus"/yactfr-tests/iter-data/ctf-1/*/; do
			{ cat "$c/metadata"; printf '\n--DATA--\n'; cat "$c/stream"; } >"$2/$(basename "$c")"
		done ;;
	ctf2_metadata)   # small CTF 2 metadata streams, the hand-made one with every kind
		cp fuzz/seeds/ctf2_metadata/* tests/data/ctf2-meta/all-kinds "$2" ;;
	lttng_index)
		find "$corpus" tests/data -name '*.idx' -size -64k |
			while read -r f; do cp "$f" "$2/$(echo "$f" | md5sum | cut -c1-12)"; done ;;
	tracedat | tracedat_page)   # small files/pages built from the format description
		cc -O1 -Iinclude -Isrc fuzz/make_tracedat_seeds.c -o "$out/make_tracedat_seeds" -lz -lzstd
		if [ "$1" = tracedat ]; then
			"$out/make_tracedat_seeds" "$2"
			cp tests/data/tracedat/*.dat "$2"
		else
			"$out/make_tracedat_seeds" "$2" page
			# Real pages: the first page of each CPU of sched-v6.dat (LE, 8-byte commit).
			for off in 5447680 5513216; do
				{ printf '\000'; dd if="$corpus/tracecmd-samples/sched-v6.dat" bs=4096 \
					skip=$((off / 4096)) count=1 2>/dev/null; } >"$2/real-$off"
			done
		fi ;;
	filter)   # expressions (then a NUL and a glob) over the sample trace
		cp fuzz/seeds/filter/* "$2" ;;
	xray)   # hand-built logs of every version and record kind, small real ones, YAML traces
		python3 tests/data/xray/make-inputs.py "$2" >/dev/null
		cp tests/data/xray/*.yaml "$2"
		cp "$corpus"/xray-samples/fdr-v5-small.xray "$corpus"/xray-samples/fdr-v5-tinybuf-dropped.xray \
			"$corpus"/xray-samples/basic-v3-small.xray "$2" ;;
	esac
}

for h in $harnesses; do
	echo "== building fuzz_$h"
	# shellcheck disable=SC2086
	clang-14 $cflags "fuzz/fuzz_$h.c" $srcs -o "$out/fuzz_$h" -lm -lz -lbz2 -llzma -lzstd -lelf -lstdc++ $(pkg-config --libs libtraceevent libdw json-c yaml-0.1)
	mkdir -p "$out/seeds-$h" "$out/corpus-$h" "fuzz/regressions/$h"
	seed "$h" "$out/seeds-$h"
	dict=""
	case $h in
	tsdl | metadata_stream | ctf_trace | ctf_writer) dict="-dict=fuzz/tsdl.dict" ;;
	tracedat | tracedat_page) dict="-dict=fuzz/tracedat.dict" ;;
	xray) dict="-dict=fuzz/xray.dict" ;;
	ctf2_metadata) dict="-dict=fuzz/ctf2.dict" ;;
	filter) dict="-dict=fuzz/filter.dict" ;;
	*) dict="-dict=fuzz/ctf.dict" ;;
	esac
	echo "== running fuzz_$h for $secs s"
	# shellcheck disable=SC2086
	"$out/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 $dict \
		-artifact_prefix="fuzz/regressions/$h/" "$out/corpus-$h" "$out/seeds-$h" 2>&1 |
		grep -E "INITED|DONE|Done [0-9]+ runs|ERROR|SUMMARY|Test unit written" || true
done
echo "findings (commit them):"
find fuzz/regressions -type f | sed 's/^/  /'
