/*
 * Workload that writes a large XRay FDR log, for bench/xray/run.sh.
 *
 *   clang-14 -O2 -fxray-instrument -fxray-instruction-threshold=1 \
 *            -fxray-instrumentation-bundle=all -pthread workload.c -o workload
 *   XRAY_OPTIONS="xray_logfile_base=DIR/fdr- verbosity=0" ./workload MIB THREADS
 *
 * FDR mode keeps the whole log in memory (buffer_max buffers of buffer_size
 * bytes) until the program flushes it at the end, and drops records once
 * every buffer is full.  So the program asks for MIB one-MiB buffers and
 * each thread makes calls until its share of the log is written: about
 * MIB/THREADS MiB per thread, i.e. the log is close to MIB MiB.  A record
 * is 8 bytes (16 for the metadata ones), an enter/exit pair 16.
 *
 * The calls mix what real logs have: nesting, recursion, functions that
 * log an argument (enter-with-arg + CallArgument records), tail calls
 * (tail-exit records: -O2 is needed for those) and a few custom events.  The threads run on
 * whatever CPUs the scheduler picks, so NewCPUId records appear too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int __xray_log_select_mode(const char *mode);
int __xray_log_init_mode(const char *mode, const char *config);
int __xray_patch(void);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);
/* __xray_customevent() is a clang builtin. */

/* Calls per thread, set from the requested size before the threads start. */
static long calls_per_thread;

__attribute__((noinline)) int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int middle(int x)
{
	int s = 0;

	for (int i = 0; i < (x & 3); i++)
		s += leaf(i);
	return s;
}

/* Not a form that tail-recursion elimination turns into a loop. */
__attribute__((noinline)) int rec(int n)
{
	int r;

	if (n <= 0)
		return 0;
	r = rec(n - 1);
	return r * r + n;
}

__attribute__((noinline, xray_always_instrument, xray_log_args(1))) int with_arg(int v)
{
	return leaf(v);
}

__attribute__((noinline)) int tail_callee(int v)
{
	return middle(v) + 1;
}

__attribute__((noinline)) int tail_caller(int v)
{
	return tail_callee(v + 1);
}

__attribute__((noinline, xray_always_instrument)) void emit_custom(int i)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "custom-event-%d", i);

	__xray_customevent(buf, (size_t)n);
}

/*
 * One iteration: about 11 calls (22 records, ~180 bytes of log with the
 * argument records).
 */
__attribute__((noinline)) int step(int i)
{
	int s = middle(i) + rec(i & 3) + with_arg(i) + tail_caller(i);

	if ((i & 0xfff) == 0)
		emit_custom(i);
	return s;
}

static void *worker(void *arg)
{
	long id = (long)arg, s = 0;

	for (long i = 0; i < calls_per_thread; i++)
		s += step((int)(i + id));
	return (void *)s;
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 256;
	long threads = argc > 2 ? atol(argv[2]) : 4;
	char config[128];
	pthread_t t[64];
	long total = 0;

	if (mib < 1 || threads < 1 || threads > 64) {
		fprintf(stderr, "usage: %s [MIB (>= 1)] [THREADS (1-64)]\n", argv[0]);
		return 2;
	}
	/* Each step writes ~180 bytes; leave a little room so nothing is dropped. */
	calls_per_thread = mib * 1024 * 1024 / threads / 190;
	snprintf(config, sizeof(config),
		 "func_duration_threshold_us=0:buffer_size=1048576:buffer_max=%ld", mib + threads);
	/* 0: XRAY_REGISTRATION_OK, 2: XRAY_LOG_INITIALIZED, 1: SUCCESS (the runtime's
	 * headers are C++ only, hence the declarations above). */
	if (__xray_log_select_mode("xray-fdr") != 0 ||
	    __xray_log_init_mode("xray-fdr", config) != 2 || __xray_patch() != 1) {
		fputs("cannot start XRay FDR mode (is the XRay runtime linked in?)\n", stderr);
		return 1;
	}
	for (long i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (long i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		total += (long)r;
	}
	__xray_log_finalize();
	__xray_log_flushLog();
	printf("%ld\n", total);
	return 0;
}
