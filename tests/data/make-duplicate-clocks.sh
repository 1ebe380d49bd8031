#!/bin/sh
# Makes ctf-duplicate-clocks/: an LTTng-UST 2.13 trace with two channels (two
# stream classes on one clock) rewritten by babeltrace2 2.0.4's sink.ctf.fs,
# which writes the clock block once per stream class.  Its reference output
# is ctf-duplicate-clocks.expect (`babeltrace2 TRACE`, TZ=UTC).  Needs
# lttng-tools, liblttng-ust-dev, babeltrace2 and a running
# `lttng-sessiond --daemonize --no-kernel` (../shared/tools/RECORDING.md).
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
gcc -O1 -Ilttng -o "$work/app" lttng/app.c lttng/tp.c -llttng-ust -ldl -lpthread
lttng create dupclocks --output="$work/lttng" >/dev/null
lttng enable-channel -u a --subbuf-size 4096 --num-subbuf 2 >/dev/null
lttng enable-channel -u b --subbuf-size 4096 --num-subbuf 2 >/dev/null
lttng enable-event -u -c a tmx:work >/dev/null
lttng enable-event -u -c b tmx:tick >/dev/null
lttng add-context -u -c a -t vpid >/dev/null
lttng start >/dev/null
"$work/app" 3
lttng stop >/dev/null
lttng destroy >/dev/null
babeltrace2 "$work/lttng" -c sink.ctf.fs -p "path=\"$work/ctf\"" >/dev/null
rm -rf ctf-duplicate-clocks
mkdir ctf-duplicate-clocks
# One trace: sink.ctf.fs nests it as HOSTNAME/SESSION-DATE/ust/uid/0/64-bit.
cp "$(dirname "$(find "$work/ctf" -name metadata)")"/* ctf-duplicate-clocks/
chmod 644 ctf-duplicate-clocks/*
test "$(grep -c '^clock {' ctf-duplicate-clocks/metadata)" = 2
TZ=UTC LC_ALL=C babeltrace2 ctf-duplicate-clocks > ctf-duplicate-clocks.expect
rm -rf "$work"
