#!/bin/sh
# How tests/data/tracecmd-report/ was made (needs root, tracefs and trace-cmd 3.1.6;
# see ../shared/tools/RECORDING.md; not run by the tests).
#
# stack-v7.dat: `trace-cmd record -T -e sched:sched_switch -e sched:sched_wakeup sleep 0.3`
# (kernel stack traces after each event: ftrace:kernel_stack records, some shorter than
# their format's caller[8] array), converted to v6 without compression, its kallsyms
# text reduced to the symbols the stacks name (the rest of the section blanked with
# newlines, so no offset moves), then `trace-cmd convert` back to v7 zstd: 16 KB instead
# of 1 MB.  The references are trace-cmd 3.1.6's reports of that reduced file.
set -eu
cd "$(dirname "$0")/tracecmd-report"
ver=$(trace-cmd --version 2>/dev/null | sed -n 's/^trace-cmd version \([0-9.]*\).*/\1/p' | head -n 1)
mk() {
	suffix=$1
	shift
	{
		echo "# trace-cmd $ver (Debian bookworm): trace-cmd report $* -i stack-v7.dat"
		set +e
		LC_ALL=C TZ=UTC trace-cmd report "$@" -i stack-v7.dat 2>/dev/null
		echo "# exit=$?"
		set -e
	} | gzip -9n >"stack-v7.report$suffix.txt.gz"
}
mk ""
mk -N -N
mk -R -R
mk -F-sched_switch -F sched_switch
mk -v-F-sched_wakeup -v -F sched_wakeup
