#!/bin/sh
# `tracemux analyze` against lttng-analyses on the same traces, in the same
# run: every command, CPU and wall ratios, peak RSS.  See bench/analyze.py
# (its docstring: the groups, options and environment).
#
#   bench/analyze.sh [--runs N] [--groups kernel,io,tracedat] [--commands C,...] [TRACE]
exec python3 "$(dirname "$0")/analyze.py" "$@"
