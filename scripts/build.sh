#!/bin/sh
# Installs what building needs and builds tracemux into build/ (CLI: build/tracemux).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh build
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTMX_BUILD_TESTS=OFF >/dev/null
cmake --build build -j"$(nproc)"
