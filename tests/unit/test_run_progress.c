/*
 * tmx_run's progress calls (tmx_run_opts.progress, tracemux/run.h) on a
 * real trace (12,305 events), with one job and with two (the parallel
 * merge): the calls come at most once per interval, their counts grow,
 * none but the last is `done`, and the last has every event and every
 * byte (the sum of the streams' sizes).  A keep predicate that sleeps a
 * little every 1000 messages makes the run last long enough for calls
 * before the end.  Without a callback nothing is called, whatever else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
};

static void on_progress(void *user, const struct tmx_progress *p)
{
	struct seen *s = user;

	if (s->n < MAX_CALLS)
		s->calls[s->n] = *p;
	s->n++;
}

/* Keeps every message; sleeps 1.5 ms every 1000 (the run lasts about 20 ms). */
static bool slow_keep(void *user, const struct tmx_msg *msg, bool *stop)
{
	struct seen *s = user;

	(void)msg, (void)stop;
	if (++s->msgs % 1000 == 0)
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
		{ "json", 1 }, { "json", 2 }, { "text", 3 },
	};
	uint64_t bytes, events = count_events(&bytes);

	(void)state;
	assert_true(events > 10000 && bytes > 0);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		static struct seen s;

		s = (struct seen){ 0 };
		run(cases[c].sink, cases[c].jobs, 1, true, &s);
		check(&s, events, bytes, 1);
		/* Calls before the end: the run lasted several intervals. */
		assert_true(s.n >= 3);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_progress_calls),
		cmocka_unit_test(test_interval_and_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
