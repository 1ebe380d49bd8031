#!/bin/sh
# Rebuilds llvm-orders.txt: the orders of ties in libstdc++'s std::sort and
# of llvm::DenseMap's iteration, from the real code (make-llvm-orders.cc,
# linked with libLLVM-14), for tests/unit/test_xray_order.c.
# Needs g++ and llvm-14-dev (Debian bookworm).
# Run: tests/data/xray/make-llvm-orders.sh
set -eu
cd "$(dirname "$0")"
# shellcheck disable=SC2046
g++ -O1 -DNDEBUG $(llvm-config-14 --cxxflags | sed 's/-fno-exceptions//') make-llvm-orders.cc \
	-o /tmp/make-llvm-orders $(llvm-config-14 --ldflags) -lLLVM-14
{
	echo "# make-llvm-orders.sh: g++ $(g++ -dumpfullversion) libstdc++ std::sort, llvm $(llvm-config-14 --version) DenseMap"
	/tmp/make-llvm-orders
} > llvm-orders.txt
