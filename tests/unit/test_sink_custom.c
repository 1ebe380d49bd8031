/*
 * A sink of the caller's own (tmx_sink_custom, include/tracemux/sink.h):
 * with 1, 2 and 4 jobs, emit() receives one record per message, in the
 * order a plain tmx_source_next loop gives them, each with its message's
 * own fields and the record format() wrote for it; records longer than a
 * formatter's buffer arrive whole; an error of emit() ends the run there;
 * a formatter that cannot be made fails the run; usage errors are said.
 * Inputs: the repository's sample trace (CTF, two streams) and a trace.dat
 * of the corpus, also cut into segments (TRACEMUX_SEGMENT_BYTES).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tracemux/run.h"
#include "tracemux/sink.h"
#include "tracemux/tracemux.h"

#define SAMPLE TMX_TEST_DATA "/sample-trace"
#define TRACEDAT TMX_CORPUS "/tracecmd-external/lisa_tests_trace_0dd00955.dat"
/* Every LONG_EVERY-th message's record has LONG_BYTES more: longer than any buffer. */
#define LONG_EVERY 97
#define LONG_BYTES (300 * 1024)

/* The record: the message's own fields as format() saw them, then maybe a long tail. */
struct head {
	uint32_t kind;
	uint32_t has_ts;
	int64_t ns;
	uint64_t cycles;
	uint64_t class_id;     /* events: their class's id */
	uint64_t stream_id;
	uint64_t tail;         /* bytes after the head */
};

struct result {
	uint64_t hash;         /* FNV-1a over the heads, in emit() order */
	size_t n;
	size_t mismatches;     /* a record whose fields are not its message's, or a bad tail */
	size_t views;          /* emit() saw a message with its views */
	size_t finishes;
	size_t stop_at;        /* emit() fails at that record (0: never) */
};

struct counts {
	size_t made, freed, refuse;   /* refuse: worker_new fails */
	bool reserve_too_big_ok;      /* a reservation over the limit gave NULL */
};

static struct counts counts;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

static void head_of(const struct tmx_msg *m, size_t i, struct head *h)
{
	memset(h, 0, sizeof(*h));
	h->kind = m->kind;
	h->has_ts = m->has_ts;
	h->ns = m->ns;
	h->cycles = m->cycles;
	h->class_id = m->kind == TMX_MSG_EVENT ? m->event->cls->id : UINT64_MAX;
	h->stream_id = m->stream ? m->stream->id : UINT64_MAX;
	h->tail = i % LONG_EVERY == LONG_EVERY - 1 ? LONG_BYTES : 0;
}

/* A formatter: counts the messages it formatted, to know which get a long tail. */
struct fmt {
	size_t seen;
};

static void *fmt_new(void *user)
{
	(void)user;
	if (counts.refuse)
		return NULL;
	__atomic_fetch_add(&counts.made, 1, __ATOMIC_RELAXED);
	return calloc(1, sizeof(struct fmt));
}

static void fmt_free(void *w)
{
	__atomic_fetch_add(&counts.freed, 1, __ATOMIC_RELAXED);
	free(w);
}

/* The tail depends on the message alone (its time), as format() must. */
static unsigned char tail_byte(const struct head *h, uint64_t i)
{
	return (unsigned char)(h->ns + (int64_t)i * 7);
}

static void format(void *w, const struct tmx_msg *m, struct tmx_record *rec)
{
	struct head h;
	void *p;
	unsigned char chunk[4096];

	(void)w;
	/* Which messages get a tail: every LONG_EVERY-th by time, the same on any thread. */
	head_of(m, (size_t)(m->cycles + (uint64_t)m->ns), &h);
	if (!tmx_record_reserve(rec, TMX_RECORD_RESERVE_MAX + 1))
		__atomic_store_n(&counts.reserve_too_big_ok, true, __ATOMIC_RELAXED);
	p = tmx_record_reserve(rec, sizeof(h));
	memcpy(p, &h, sizeof(h));
	tmx_record_commit(rec, sizeof(h));
	for (uint64_t off = 0; off < h.tail; off += sizeof(chunk)) {
		size_t n = h.tail - off < sizeof(chunk) ? (size_t)(h.tail - off) : sizeof(chunk);

		for (size_t i = 0; i < n; i++)
			chunk[i] = tail_byte(&h, off + i);
		tmx_record_write(rec, chunk, n);
	}
}

static int emit(void *user, const struct tmx_msg *m, const void *rec, size_t len,
		struct tmx_error *err)
{
	struct result *r = user;
	struct head h, want;
	const unsigned char *tail = (const unsigned char *)rec + sizeof(h);

	if (m->event || m->packet)
		r->views++;
	if (len < sizeof(h)) {
		r->mismatches++;
		return TMX_OK;
	}
	memcpy(&h, rec, sizeof(h));
	want = h;
	want.kind = m->kind;
	want.has_ts = m->has_ts;
	want.ns = m->ns;
	want.cycles = m->cycles;
	want.stream_id = m->stream ? m->stream->id : UINT64_MAX;
	if (memcmp(&h, &want, sizeof(h)) || len != sizeof(h) + h.tail)
		r->mismatches++;
	for (uint64_t i = 0; i < h.tail && len == sizeof(h) + h.tail; i++)
		if (tail[i] != tail_byte(&h, i)) {
			r->mismatches++;
			break;
		}
	r->hash = fnv(r->hash, &h, sizeof(h));
	if (++r->n == r->stop_at) {
		err->code = TMX_ERR_DATA;
		snprintf(err->msg, sizeof(err->msg), "stopped at record %zu", r->n);
		return TMX_ERR_DATA;
	}
	return TMX_OK;
}

static int finish(void *user, struct tmx_error *err)
{
	(void)err;
	((struct result *)user)->finishes++;
	return TMX_OK;
}

static struct tmx_source *open_one(const char *path)
{
	struct tmx_source *src = NULL;
	struct tmx_error err;

	assert_int_equal(tmx_open(&path, 1, NULL, NULL, &src, &err), TMX_OK);
	return src;
}

/* The plain loop's heads, hashed as emit() hashes them. */
static struct result reference(const char *path)
{
	struct tmx_source *src = open_one(path);
	struct result r = { .hash = 0xcbf29ce484222325ull };
	const struct tmx_msg *m;
	struct tmx_error err;

	while (tmx_source_next(src, &m, &err) == TMX_OK && m) {
		struct head h;

		head_of(m, (size_t)(m->cycles + (uint64_t)m->ns), &h);
		r.hash = fnv(r.hash, &h, sizeof(h));
		r.n++;
	}
	tmx_source_free(src);
	return r;
}

static int run(const char *path, unsigned jobs, struct result *r, struct tmx_error *err)
{
	struct tmx_source *src = open_one(path);
	struct tmx_custom_sink def = TMX_CUSTOM_SINK_INIT;
	struct tmx_run_opts opts = TMX_RUN_OPTS_INIT;
	struct tmx_sink *sink;
	int ret;

	r->hash = 0xcbf29ce484222325ull;
	def.user = r;
	def.worker_new = fmt_new;
	def.worker_free = fmt_free;
	def.format = format;
	def.emit = emit;
	def.finish = finish;
	assert_int_equal(tmx_sink_custom(&def, &sink, err), TMX_OK);
	opts.jobs = jobs;
	ret = tmx_run(src, sink, &opts, err);
	tmx_sink_free(sink);
	tmx_source_free(src);
	return ret;
}

static void check_same(const char *path)
{
	struct result want = reference(path);
	static const unsigned jobs[] = { 1, 2, 4 };

	assert_true(want.n > 100);
	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		struct result r = { 0 };
		struct tmx_error err;

		counts = (struct counts){ 0 };
		assert_int_equal(run(path, jobs[j], &r, &err), TMX_OK);
		assert_int_equal(r.n, want.n);
		assert_int_equal(r.hash, want.hash);
		assert_int_equal(r.mismatches, 0);
		assert_int_equal(r.views, 0);
		assert_int_equal(r.finishes, 1);
		assert_true(counts.reserve_too_big_ok);
		/*
		 * One job: the sink's own formatter; more: one per thread the
		 * runner starts (no more than the jobs, fewer for few streams).
		 */
		assert_true(jobs[j] == 1 ? counts.made == 1
					 : counts.made >= 2 && counts.made <= jobs[j]);
		assert_int_equal(counts.freed, counts.made);
	}
}

static void test_sample(void **state)
{
	(void)state;
	check_same(SAMPLE);
}

static void test_tracedat(void **state)
{
	(void)state;
	check_same(TRACEDAT);
}

/* Long CPUs cut into segments read by several threads at once. */
static void test_tracedat_segments(void **state)
{
	(void)state;
	assert_int_equal(setenv("TRACEMUX_SEGMENT_BYTES", "4096", 1), 0);
	check_same(TRACEDAT);
	unsetenv("TRACEMUX_SEGMENT_BYTES");
}

/* emit()'s error ends the run at its record, whatever the jobs; finish() still comes. */
static void test_emit_error(void **state)
{
	(void)state;
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		struct result r = { .stop_at = 1000 };
		struct tmx_error err;

		counts = (struct counts){ 0 };
		assert_int_equal(run(TRACEDAT, jobs, &r, &err), TMX_ERR_DATA);
		assert_string_equal(err.msg, "stopped at record 1000");
		assert_int_equal(r.n, 1000);
		assert_int_equal(r.finishes, 1);
	}
}

static void test_no_formatter(void **state)
{
	(void)state;
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		struct result r = { 0 };
		struct tmx_error err;

		counts = (struct counts){ .refuse = 1 };
		assert_int_equal(run(SAMPLE, jobs, &r, &err), TMX_ERR_NOMEM);
		assert_int_equal(r.n, 0);
		assert_int_equal(r.finishes, 1);
	}
	counts = (struct counts){ 0 };
}

static void test_usage(void **state)
{
	struct tmx_custom_sink def = TMX_CUSTOM_SINK_INIT, bad = { 0 };
	struct tmx_sink *sink = (struct tmx_sink *)&def;
	struct tmx_error err;

	(void)state;
	def.emit = emit;
	assert_int_equal(tmx_sink_custom(&def, &sink, &err), TMX_ERR_USAGE);
	assert_null(sink);
	assert_non_null(strstr(err.msg, "format and emit"));
	bad.format = format;
	bad.emit = emit;
	assert_int_equal(tmx_sink_custom(&bad, &sink, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "tmx_custom_sink"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_tracedat),
		cmocka_unit_test(test_tracedat_segments),
		cmocka_unit_test(test_emit_error),
		cmocka_unit_test(test_no_formatter),
		cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
