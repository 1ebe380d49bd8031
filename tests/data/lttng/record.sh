#!/bin/sh
# Records the LTTng-UST traces kept here (needs lttng-tools, liblttng-ust-dev
# and a running `lttng-sessiond --daemonize --no-kernel`; see
# ../shared/tools/RECORDING.md).  Each directory exercises a part of the CTF
# file-system source: per-UID and per-PID buffers, discard and overwrite
# modes with tiny sub-buffers (discarded events and packets), two
# overlapping snapshots, session rotation chunks.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
gcc -O1 -I. -o "$work/app" app.c tp.c -llttng-ust -ldl -lpthread
rec() {   # NAME EVENTS_PER_THREAD CHANNEL_OPTIONS...
	name=$1 n=$2
	shift 2
	rm -rf "$name"
	lttng create "$name" --output="$PWD/$name" >/dev/null
	lttng enable-channel -u ch "$@" >/dev/null
	lttng enable-event -u -c ch 'tmx:*' >/dev/null
	lttng add-context -u -c ch -t vpid -t vtid >/dev/null
	lttng start >/dev/null
	"$work/app" "$n"
	lttng stop >/dev/null
	lttng destroy >/dev/null
}
rec per-uid 300 --subbuf-size 4096 --num-subbuf 4
rec per-pid 300 --buffers-pid --subbuf-size 4096 --num-subbuf 4
rec discard 8000 --subbuf-size 4096 --num-subbuf 2
rec overwrite 8000 --overwrite --subbuf-size 4096 --num-subbuf 2
rm -rf snap rot
lttng create snap --snapshot --output="$PWD/snap" >/dev/null
lttng enable-channel -u ch --subbuf-size 4096 --num-subbuf 8 >/dev/null
lttng enable-event -u -c ch 'tmx:*' >/dev/null
lttng start >/dev/null
"$work/app" 200 && lttng snapshot record >/dev/null
"$work/app" 100 && lttng snapshot record >/dev/null
lttng stop >/dev/null && lttng destroy >/dev/null
lttng create rot --output="$PWD/rot" >/dev/null
lttng enable-channel -u ch --subbuf-size 4096 --num-subbuf 4 >/dev/null
lttng enable-event -u -c ch 'tmx:*' >/dev/null
lttng start >/dev/null
"$work/app" 100 && lttng rotate >/dev/null
"$work/app" 100 && lttng rotate >/dev/null
lttng stop >/dev/null && lttng destroy >/dev/null
rm -rf "$work"
