#!/bin/bash
# On demand (not in CTest): shows that tests/golden/test_ctf2spec.py fails when
# the CTF 2 writer makes a spec mistake.  Breaks src/sink/ctf/json_gen.c three
# ways in turn (no `type` on dynamic-length strings, a field location to a
# member that does not exist, the packet-magic-number role on the event record
# header's id), rebuilds build/tracemux, runs the test, prints its first
# failures, and restores the file.  Refuses to run on local changes to it.
# Usage: tests/ctf2spec_break_demo.sh [BUILD_DIR] [CORPUS]
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-build}
CORPUS=${2:-../shared/corpus}
F=src/sink/ctf/json_gen.c
if ! git diff --quiet -- "$F"; then
	echo "$F has local changes: commit or stash them first" >&2
	exit 2
fi
trap 'git checkout -- "$F"; cmake --build "$BUILD" --target tracemux >/dev/null 2>&1' EXIT
status=0
demo() {
	echo "=== $1"
	python3 - "$F" "$2" "$3" <<'PY' || exit 2
import sys
path, old, new = sys.argv[1:]
s = open(path).read()
if s.count(old) != 1:
    sys.exit(f"{path}: the line to break was not found once: {old}")
open(path, "w").write(s.replace(old, new))
PY
	git diff -U0 -- "$F" | grep '^[-+][^-+]'
	cmake --build "$BUILD" --target tracemux >/dev/null || exit 2
	out=$(python3 tests/golden/test_ctf2spec.py --tracemux "$BUILD/tracemux" --corpus "$CORPUS" 2>&1)
	rc=$?
	echo "$out" | grep -A1 -m2 '^FAIL' | cut -c1-400
	echo "$out" | grep '^ctf2spec:'
	if [ $rc -eq 0 ]; then
		echo "NOT DETECTED"
		status=1
	fi
	git checkout -- "$F"
}
demo "missing type (dynamic-length-string)" \
	'jw_kstr(w, "type", "dynamic-length-string");' \
	'/* DEMO BREAK: no type */'
demo "field location to a nonexistent member" \
	'jw_str(w, n->loc_path[i]);' \
	'jw_str(w, i + 1 == n->loc_n ? "no_such_field" : n->loc_path[i]); /* DEMO BREAK */'
demo "wrong role (packet-magic-number on the event record header id)" \
	'own_member(g, "id", 64, 10, "event-record-class-id");' \
	'own_member(g, "id", 64, 10, "packet-magic-number"); /* DEMO BREAK */'
exit $status
