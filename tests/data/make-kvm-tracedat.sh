#!/bin/sh
# Rebuilds tests/data/kvm/*.dat (make-kvm-tracedat.c: KVM hosts and guests)
# and their references, trace-cmd's own reports: CASE.report.txt, whose first
# line gives the trace-cmd arguments (tests/golden/test_tracecmd_kvm.py runs
# tracemux with the same inputs and options).
# Needs a C compiler, libz, libzstd and trace-cmd (Debian: trace-cmd 3.1.6).
# host-nonul.dat's GUEST option has no NUL after the name: trace-cmd reads
# past the option there (its output was the same in every run: the guest is
# dropped, as in host-short.dat).
set -eu
cd "$(dirname "$0")/../.."
cc -O1 -Iinclude -Isrc tests/data/make-kvm-tracedat.c -lz -lzstd -o /tmp/make-kvm-tracedat
mkdir -p tests/data/kvm
/tmp/make-kvm-tracedat tests/data/kvm
ver=$(trace-cmd --version 2>/dev/null | sed -n 's/^trace-cmd version \([0-9.]*\).*/\1/p' | head -n 1)
cd tests/data/kvm
rm -f ./*.report.txt
ref() {
	name=$1
	shift
	{
		echo "# trace-cmd $ver (Debian bookworm): trace-cmd report $*"
		set +e
		LC_ALL=C TZ=UTC trace-cmd report "$@" 2>/dev/null
		echo "# exit=$?"
		set -e
	} >"$name.report.txt"
}
ref host-a-b -i host.dat -i guest-a.dat -i guest-b.dat
ref host-a-b-R -R -i host.dat -i guest-a.dat -i guest-b.dat
ref host-a-b-N -N -i host.dat -i guest-a.dat -i guest-b.dat
ref host-a-b-t -t -i host.dat -i guest-a.dat -i guest-b.dat
ref host-b -i host.dat -i guest-b.dat
ref host -i host.dat
ref guest-a -i guest-a.dat
ref guest-a-host -i guest-a.dat -i host.dat
ref host-nosyms -i host.dat -i guest-a-nosyms.dat
ref dup-pid-a-b -i host-dup-pid.dat -i guest-a.dat -i guest-b.dat
ref dup-pid-b-a -i host-dup-pid.dat -i guest-b.dat -i guest-a.dat
ref bad-vcpu -i host-bad-vcpu.dat -i guest-a.dat -i guest-b.dat
ref short -i host-short.dat -i guest-a.dat -i guest-b.dat
ref nonul -i host-nonul.dat -i guest-a.dat -i guest-b.dat
ref mismatch -i host-mismatch.dat -i guest-a.dat -i guest-b.dat
ref twice -i host-twice.dat -i guest-a.dat -i guest-b.dat
ref other -i host-other.dat -i guest-a.dat
ref inj-exception -i inj-exception.dat
