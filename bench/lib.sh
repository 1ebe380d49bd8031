# Shared by the benchmark scripts (sourced, POSIX sh): best-of-N timing.
#
#   measure RUNS CMD [ARG...]
#
# Runs CMD RUNS times, stdout to /dev/null, stderr to $BENCH_ERR (default
# $BENCH_TMP/err), and prints "SECONDS KB CPU" of the fastest run: wall
# time in nanoseconds around the run, peak RSS in KB and user + system CPU
# seconds as GNU time reports them.  A failing run stops the script with its first stderr lines.
# If the script defines bench_after_run, it is called after every run (to
# remove an output directory, say).  Needs GNU time and bc.

[ -x /usr/bin/time ] || { echo "GNU time is not installed (apt-get install time)" >&2; exit 1; }
command -v bc >/dev/null || { echo "bc is not installed (apt-get install bc)" >&2; exit 1; }
: "${BENCH_TMP:?set BENCH_TMP to a scratch directory before sourcing bench/lib.sh}"

measure() {
	_runs=$1
	shift
	_best=""
	for _ in $(seq "$_runs"); do
		_t0=$(date +%s%N)
		if ! /usr/bin/time -f '%M %U %S' -o "$BENCH_TMP/time" "$@" >/dev/null 2>"${BENCH_ERR:-$BENCH_TMP/err}"; then
			echo "failed: $* ($(head -3 "$BENCH_TMP/err"))" >&2
			exit 1
		fi
		_t1=$(date +%s%N)
		if command -v bench_after_run >/dev/null; then
			bench_after_run
		fi
		_sec=$(echo "scale=3; ($_t1 - $_t0) / 1000000000" | bc)
		_kb_cpu=$(tail -1 "$BENCH_TMP/time" | awk '{ printf "%s %.2f", $1, $2 + $3 }')
		if [ -z "$_best" ] || [ "$(echo "$_sec < ${_best%% *}" | bc)" = 1 ]; then
			_best="$_sec $_kb_cpu"
		fi
	done
	echo "$_best"
}

# Fields of a measure result: seconds, KB, CPU seconds.
secs() { echo "${1%% *}"; }
kbs() { _r=${1#* }; echo "${_r%% *}"; }
cpus() { echo "${1##* }"; }

# --jobs values to time: 1 2 4 ... below the CPU count, then the CPU count ($(nproc)).
job_counts() {
	_cpus=$(nproc)
	_j=1
	while [ "$_j" -lt "$_cpus" ]; do
		echo "$_j"
		_j=$((_j * 2))
	done
	echo "$_cpus"
}
