#!/bin/sh
# The YAML traces of this directory that llvm-xray 14 writes itself, from
# the corpus's logs (the hand-written ones, yaml-handmade.yaml and
# yaml-layout.yaml, are not made here):
#   yaml-fdr-v5-small.yaml    FDR v5, --sort=false: thread after thread, so
#                             out of TSC order; custom events, arguments
#   yaml-basic-v3-small.yaml  basic v3, sorted by TSC
# They keep their header's version (5, 3): llvm-xray 14 reads only version 1
# from YAML, so tests/golden/test_xray_yaml_input.py gives it copies set to 1.
# Run: tests/data/xray/make-yaml-inputs.sh [CORPUS]   (default ../shared/corpus)
set -eu
cd "$(dirname "$0")"
corpus=${1:-../../../../shared/corpus}
[ -d "$corpus" ] || corpus=/work/shared/corpus
x=$corpus/xray-samples
convert() {   # OUT LOG SORT
	{
		echo "# llvm-xray-14 convert --output-format=yaml --sort=$3 $2"
		llvm-xray-14 convert --output-format=yaml --sort="$3" "$x/$2"
	} > "$1"
}
convert yaml-fdr-v5-small.yaml fdr-v5-small.xray false
convert yaml-basic-v3-small.yaml basic-v3-small.xray true
