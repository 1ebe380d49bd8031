#!/bin/sh
# Installs the Debian 12 packages tracemux needs, only those missing.
#   scripts/install-deps.sh build    what building needs
#   scripts/install-deps.sh test     building and the test suite
set -eu

BUILD_PKGS="gcc make cmake pkg-config libc6-dev zlib1g-dev libbz2-dev liblzma-dev libzstd-dev libtraceevent-dev libtraceevent1-plugin libelf-dev libdw-dev libstdc++-12-dev libjson-c-dev libyaml-dev"
TEST_PKGS="$BUILD_PKGS libcmocka-dev python3 babeltrace2 trace-cmd llvm-14 clang-14 libclang-rt-14-dev lld-14 protobuf-compiler"
# test_perfetto.py decompresses --perfetto-compress=zstd with zstd(1).
TEST_PKGS="$TEST_PKGS zstd"
# tracemux analyze against lttng-analyses (tests/golden/test_analyze.py).
TEST_PKGS="$TEST_PKGS python3-lttnganalyses python3-babeltrace babeltrace"
# The Python package (python/, tests/python/run.sh).
TEST_PKGS="$TEST_PKGS python3-dev python3-numpy python3-pandas python3-pytest python3-setuptools python3-venv python3-pip"
# tracemux.dask (python/tracemux/dask.py, python/tests/test_dask.py): a LocalCluster of worker processes.
TEST_PKGS="$TEST_PKGS python3-dask python3-distributed"

case "${1:-build}" in
build) pkgs=$BUILD_PKGS ;;
test) pkgs=$TEST_PKGS ;;
*) echo "usage: $0 build|test" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# tests/golden/test_parquet.py reads Parquet with DuckDB from npm (it installs
# the npm package itself): Debian's nodejs and npm, unless an npm is already
# there (NodeSource's nodejs ships its own and conflicts with Debian's npm).
if [ "${1:-build}" = test ] && ! command -v npm >/dev/null; then
	missing="$missing nodejs npm"
fi
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "missing Debian packages:$missing (run as root to install them)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
