#!/bin/sh
# The whole test suite, as CI runs it: install what the tests need, build
# with warnings as errors and run every test, then build again with
# AddressSanitizer + UndefinedBehaviorSanitizer and run every test again,
# then with ThreadSanitizer for the parallel runner's test (label tsan).
# The corpus of real traces is found next to the checkout (../shared/corpus)
# unless TMX_CORPUS names it.
set -eu
cd "$(dirname "$0")/.."
# Debian and npm packages only: babeltrace 2.1.2 (CTF 2) is not packaged, its
# outputs are stored beside the CTF 2 traces of the corpus.
scripts/install-deps.sh test
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTMX_WERROR=ON -DTMX_BUILD_TESTS=ON \
	${TMX_CORPUS:+"-DTMX_CORPUS=$TMX_CORPUS"} >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure
# The Python package, installed into a venv under build/ and tested with pytest.
tests/python/run.sh build

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DTMX_WERROR=ON -DTMX_SANITIZE=ON \
	-DTMX_BUILD_TESTS=ON ${TMX_CORPUS:+"-DTMX_CORPUS=$TMX_CORPUS"} >/dev/null
cmake --build build-asan -j"$jobs"
# tests/lsan.supp: leaks inside libtraceevent, not ours (the tests of a
# TMX_SANITIZE build also get it from tests/CMakeLists.txt).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0" \
	ctest --test-dir build-asan -j"$jobs" --output-on-failure

# ThreadSanitizer: the parallel runner (src/par/) on a subset of the corpus,
# --jobs 1, 2 and 8 (tests/golden/test_parallel.py --quick), and the unit
# programs labelled tsan (every one must be a target of the build below).
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTMX_WERROR=ON -DTMX_TSAN=ON \
	-DTMX_BUILD_TESTS=ON ${TMX_CORPUS:+"-DTMX_CORPUS=$TMX_CORPUS"} >/dev/null
cmake --build build-tsan -j"$jobs" --target tracemux test_par_run test_par_pool test_sink_custom \
	test_tracedat_segments
ctest --test-dir build-tsan -L tsan --output-on-failure
