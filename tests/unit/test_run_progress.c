/*
 * tmx_run's progress calls (tmx_run_opts.progress, tracemux/run.h) on a
 * real trace (12,305 events), with one job and with two (the parallel
 * merge): the calls come at most once per interval, their counts grow,
 * none but the last is `done`, and the last has every event and every
 * byte (the sum of the streams' sizes).  A keep predicate that sleeps a
 * little every 1000 messages makes the run last long enough for calls
 * before the end.  Without a callback nothing is called, whatever else.
 *
 * The bytes are the readers' own counters (CTF packets, trace.dat pages
 * and compressed chunks, XRay blocks and records): a tmx_progress_meter
 * over a source of each format read to its end, whose last call is made
 * with `complete` false (no help from it), says every byte of the total;
 * before that, never more than the total, never less than the call
 * before, and somewhere strictly between 0 and the total.  trace.dat and
 * XRay also through tmx_run with two jobs (the counters read while worker
 * threads write them: run it under TSan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "tracemux/run.h"
#include "tracemux/sink.h"
#include "tracemux/tracemux.h"

#define TRACE TMX_CORPUS "/babeltrace-tests/ctf-traces/succeed/lttng-tracefile-rotation"
#define MAX_CALLS 4096

struct seen {
	struct tmx_progress calls[MAX_CALLS];
	size_t n;
	uint64_t msgs;
	uint64_t every;   /* slow_keep's messages between sleeps (0: 1000) */
};

static void on_progress(void *user, const struct tmx_progress *p)
{
	struct seen *s = user;

	if (s->n < MAX_CALLS)
		s->calls[s->n] = *p;
	s->n++;
}

/* Keeps every message; sleeps 1.5 ms every s->every (1000: the run of TRACE lasts about 20 ms). */
static bool slow_keep(void *user, const struct tmx_msg *msg, bool *stop)
{
	struct seen *s = user;

	(void)msg, (void)stop;
	/* Called on the worker threads too (several jobs). */
	if (__atomic_add_fetch(&s->msgs, 1, __ATOMIC_RELAXED) % (s->every ? s->every : 1000) == 0)
		nanosleep(&(struct timespec){ 0, 1500000 }, NULL);
	return true;
}

static uint64_t count_events(uint64_t *bytes)
{
	struct tmx_open_opts oo = TMX_OPEN_OPTS_INIT;
	const char *path = TRACE;
	struct tmx_source *src;
	struct tmx_error err;
	const struct tmx_msg *msg;
	uint64_t n = 0;

	assert_int_equal(tmx_open(&path, 1, &oo, NULL, &src, &err), TMX_OK);
	*bytes = 0;
	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;
		tmx_source_stream_info(src, i, &info);
		*bytes += info.bytes;
	}
	while (!tmx_source_next(src, &msg, &err) && msg)
		n += msg->kind == TMX_MSG_EVENT;
	tmx_source_free(src);
	return n;
}

static void run(const char *sink_name, unsigned jobs, unsigned interval_ms, bool with_callback,
		struct seen *s)
{
	struct tmx_open_opts oo = TMX_OPEN_OPTS_INIT;
	struct tmx_run_opts ro = TMX_RUN_OPTS_INIT;
	const char *path = TRACE;
	struct tmx_source *src;
	struct tmx_sink_params *p;
	struct tmx_sink *sink;
	struct tmx_error err;
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(tmx_open(&path, 1, &oo, NULL, &src, &err), TMX_OK);
	assert_non_null(p = tmx_sink_params_new(sink_name, &err));
	assert_int_equal(tmx_sink_open(p, src, &(struct tmx_sink_io){ fileno(f), 2, NULL }, &sink,
				       &err), TMX_OK);
	tmx_sink_params_free(p);
	ro.jobs = jobs;
	ro.keep = slow_keep;
	ro.keep_user = s;
	if (with_callback) {
		ro.progress = on_progress;
		ro.progress_user = s;
		ro.progress_ms = interval_ms;
	}
	assert_int_equal(tmx_run(src, sink, &ro, &err), TMX_OK);
	tmx_sink_free(sink);
	tmx_source_free(src);
	fclose(f);
}

static void check(const struct seen *s, uint64_t events, uint64_t bytes, unsigned interval_ms)
{
	const struct tmx_progress *last = &s->calls[s->n - 1];

	assert_true(s->n >= 1 && s->n < MAX_CALLS);
	assert_true(last->done);
	assert_int_equal(last->events, events);
	assert_int_equal(last->bytes_total, bytes);
	assert_int_equal(last->bytes_read, bytes);
	for (size_t i = 0; i + 1 < s->n; i++) {
		const struct tmx_progress *a = &s->calls[i], *b = &s->calls[i + 1];
		assert_false(a->done);
		assert_int_equal(a->bytes_total, bytes);
		assert_true(a->bytes_read <= b->bytes_read && a->events <= b->events);
		assert_true(a->elapsed_ns <= b->elapsed_ns);
		/* The interval between calls (the last one comes at the end, whenever). */
		if (i + 2 < s->n)
			assert_true(b->elapsed_ns - a->elapsed_ns >= (uint64_t)interval_ms * 1000000u);
	}
}

static void test_progress_calls(void **state)
{
	static const struct { const char *sink; unsigned jobs; } cases[] = {
		{ "json", 1 }, { "json", 2 }, { "text", 3 }, { "dummy", 2 },
	};
	uint64_t bytes, events = count_events(&bytes);

	(void)state;
	assert_true(events > 10000 && bytes > 0);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		static struct seen s;

		s = (struct seen){ 0 };
		run(cases[c].sink, cases[c].jobs, 1, true, &s);
		check(&s, events, bytes, 1);
		/*
		 * Calls before the end: the run lasted several intervals.
		 * With nothing to emit (dummy) and two jobs, a batch's events
		 * count when the merge passes the whole batch, and each of
		 * this trace's four streams is one batch: four notes at most,
		 * which under load came within one interval of each other at
		 * the end; but the first comes many intervals after the start
		 * (a whole stream read, slow_keep's sleeps), so one call
		 * before the end is certain.
		 */
		assert_true(s.n >= (strcmp(cases[c].sink, "dummy") ? 3u : 2u));
	}
}

static void test_interval_and_off(void **state)
{
	static struct seen s;
	uint64_t bytes, events = count_events(&bytes);

	(void)state;
	/* A long interval: only the last call. */
	run("json", 1, 60000, true, &s);
	check(&s, events, bytes, 60000);
	assert_int_equal(s.n, 1);
	/* No callback: no call. */
	s = (struct seen){ 0 };
	run("json", 2, 1, false, &s);
	assert_int_equal(s.n, 0);
}

/* The calls of one read: growing, within the total, the total at the end, something in between. */
static void check_bytes(const struct seen *s, uint64_t total, const char *what, bool want_between)
{
	bool between = false;

	if (s->n < 2 || s->n >= MAX_CALLS)
		fail_msg("%s: %zu progress calls", what, s->n);
	for (size_t i = 0; i < s->n; i++) {
		const struct tmx_progress *c = &s->calls[i];
		assert_int_equal(c->bytes_total, total);
		assert_true(c->bytes_read <= total);
		assert_true(i == 0 || c->bytes_read >= s->calls[i - 1].bytes_read);
		assert_true(c->done == (i + 1 == s->n));
		between |= c->bytes_read > 0 && c->bytes_read < total;
	}
	if (s->calls[s->n - 1].bytes_read != total || (want_between && !between))
		fail_msg("%s: %llu of %llu bytes at the end, something in between: %d", what,
			 (unsigned long long)s->calls[s->n - 1].bytes_read, (unsigned long long)total,
			 between);
}

static uint64_t total_bytes(const struct tmx_source *src)
{
	uint64_t total = 0;

	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;
		tmx_source_stream_info(src, i, &info);
		total += info.bytes;
	}
	return total;
}

static const struct {
	const char *path;
	bool unsorted;
} inputs[] = {
	{ TRACE, false },
	{ TMX_CORPUS "/tracecmd-samples/sched-v6.dat", false },        /* pages */
	{ TMX_CORPUS "/tracecmd-3.4/t1_v7_zstd.dat", false },          /* compressed chunks */
	{ TMX_CORPUS "/xray-samples/fdr-v5-large.xray", false },       /* sorted: records */
	{ TMX_CORPUS "/xray-samples/fdr-v5-large.xray", true },        /* unsorted: blocks */
	{ TMX_CORPUS "/xray-samples/basic-v3-large.xray", true },       /* unsorted: records */
};

static void test_meter_counts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		static struct seen s;
		struct tmx_open_opts oo = TMX_OPEN_OPTS_INIT;
		struct tmx_run_opts ro = TMX_RUN_OPTS_INIT;
		struct tmx_progress_meter *m;
		struct tmx_source *src;
		struct tmx_error err;
		const struct tmx_msg *msg;
		uint64_t n = 0;

		s = (struct seen){ 0 };
		oo.xray.unsorted = inputs[i].unsorted;
		assert_int_equal(tmx_open(&inputs[i].path, 1, &oo, NULL, &src, &err), TMX_OK);
		ro.progress = on_progress;
		ro.progress_user = &s;
		ro.progress_ms = 1;
		assert_non_null(m = tmx_progress_meter_new(src, &ro));
		while (!tmx_source_next(src, &msg, &err) && msg) {
			tmx_progress_meter_note(m, msg);
			if (++n % 512 == 0)
				nanosleep(&(struct timespec){ 0, 1100000 }, NULL);
		}
		tmx_progress_meter_end(m, false);
		tmx_progress_meter_end(m, false);   /* once only */
		tmx_progress_meter_free(m);
		check_bytes(&s, total_bytes(src), inputs[i].path, true);
		tmx_source_free(src);
	}
	/* Without a callback there is no meter, and NULL does nothing. */
	{
		struct tmx_open_opts oo = TMX_OPEN_OPTS_INIT;
		struct tmx_run_opts ro = TMX_RUN_OPTS_INIT;
		struct tmx_source *src;
		struct tmx_error err;

		assert_int_equal(tmx_open(&inputs[0].path, 1, &oo, NULL, &src, &err), TMX_OK);
		assert_null(tmx_progress_meter_new(src, &ro));
		tmx_progress_meter_note(NULL, NULL);
		tmx_progress_meter_end(NULL, true);
		tmx_progress_meter_free(NULL);
		tmx_source_free(src);
	}
}

/* The messages of `src`, read to the end. */
static uint64_t count_msgs(struct tmx_source *src)
{
	const struct tmx_msg *msg;
	struct tmx_error err;
	uint64_t n = 0;

	while (!tmx_source_next(src, &msg, &err) && msg)
		n++;
	return n;
}

/* tmx_run with two jobs over each format: the same figures, the counters read while workers write them. */
static void test_run_counts(void **state)
{
	(void)state;
	for (size_t i = 1; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		static struct seen s;
		struct tmx_open_opts oo = TMX_OPEN_OPTS_INIT;
		struct tmx_run_opts ro = TMX_RUN_OPTS_INIT;
		const char *path = inputs[i].path;
		struct tmx_source *src;
		struct tmx_sink_params *p;
		struct tmx_sink *sink;
		struct tmx_error err;
		FILE *f = tmpfile();
		uint64_t total;

		s = (struct seen){ 0 };
		oo.xray.unsorted = inputs[i].unsorted;
		oo.xray.jobs = 2;
		assert_non_null(f);
		assert_int_equal(tmx_open(&path, 1, &oo, NULL, &src, &err), TMX_OK);
		/*
		 * About 20 sleeps whatever the input's size: sched-v6.dat's
		 * 1,935 events slept twice, and under load the merge then
		 * passed its batches within one interval, at the end.
		 */
		s.every = count_msgs(src) / 20 + 1;
		tmx_source_free(src);
		assert_int_equal(tmx_open(&path, 1, &oo, NULL, &src, &err), TMX_OK);
		total = total_bytes(src);
		assert_non_null(p = tmx_sink_params_new("json", &err));
		assert_int_equal(tmx_sink_open(p, src, &(struct tmx_sink_io){ fileno(f), 2, NULL },
					       &sink, &err), TMX_OK);
		tmx_sink_params_free(p);
		ro.jobs = 2;
		ro.keep = slow_keep;
		ro.keep_user = &s;
		ro.progress = on_progress;
		ro.progress_user = &s;
		ro.progress_ms = 1;
		assert_int_equal(tmx_run(src, sink, &ro, &err), TMX_OK);
		tmx_sink_free(sink);
		tmx_source_free(src);
		fclose(f);
		/* (the workers may have read everything by the first call) */
		check_bytes(&s, total, path, false);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_calls),
		cmocka_unit_test(test_interval_and_off),
		cmocka_unit_test(test_meter_counts),
		cmocka_unit_test(test_run_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
