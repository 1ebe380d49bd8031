/*
 * The order statistics of `xray-account` (src/tools/xray/account.c) under a
 * memory budget: hand-made basic-mode logs (layout from
 * /work/shared/spec/xray-format-notes.md section 2) whose latencies are
 * chosen here, accounted with budgets from "everything stored" down to 1
 * byte (histogram and collection passes over the log), against the
 * definition llvm-xray uses: element n/2, floor(n*0.9), floor(n*0.99) of
 * the sorted latencies.  Also: the pass bound, and a log that changes
 * between passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/xray/account.h"
#include "tracemux/tracemux.h"
#include "xorshift.h"

/* ------------------------------------------------------------------ */
/* Logs                                                                 */
/* ------------------------------------------------------------------ */

struct log {
	uint8_t *d;
	size_t n, cap;
	/* Per-thread clocks: each call runs alone on its thread. */
	uint32_t tid;
	uint64_t t;
};

static void put_le(struct log *b, uint64_t v, int size)
{
	if (b->n + (size_t)size > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 4096;
		b->d = realloc(b->d, b->cap);
		assert_non_null(b->d);
	}
	for (int i = 0; i < size; i++)
		b->d[b->n++] = (uint8_t)(v >> (8 * i));
}

/* Basic log header, version 3, cycle frequency 0 (the figures are cycles). */
static void log_init(struct log *b)
{
	memset(b, 0, sizeof(*b));
	put_le(b, 3, 2);
	put_le(b, 0, 2);
	put_le(b, 3, 4);
	put_le(b, 0, 8);
	put_le(b, 0, 8);
	put_le(b, 0, 8);
	b->tid = 1;
	b->t = 1000;
}

/* A 32-byte basic record: type 0, cpu, kind, function id, TSC, tid, pid. */
static void rec(struct log *b, unsigned kind, int32_t id, uint64_t tsc, uint32_t tid)
{
	put_le(b, 0, 2);
	put_le(b, 0, 1);
	put_le(b, kind, 1);
	put_le(b, (uint32_t)id, 4);
	put_le(b, tsc, 8);
	put_le(b, tid, 4);
	put_le(b, tid, 4);
	put_le(b, 0, 8);
}

/* One call of `id` lasting `lat` cycles: on the current thread while its clock has room. */
static void call(struct log *b, int32_t id, uint64_t lat)
{
	if (lat > UINT64_MAX - b->t - 2) {
		b->tid++;
		b->t = 1000;
	}
	rec(b, 0, id, b->t, b->tid);
	rec(b, 1, id, b->t + lat, b->tid);
	b->t += lat + 1;
}

static char path_buf[64];

static const char *write_log(const struct log *b)
{
	FILE *f;
	int fd;

	snprintf(path_buf, sizeof(path_buf), "/tmp/tmx-xacct-XXXXXX");
	fd = mkstemp(path_buf);
	assert_true(fd >= 0);
	f = fdopen(fd, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b->d, 1, b->n, f), b->n);
	fclose(f);
	return path_buf;
}

/* ------------------------------------------------------------------ */
/* Accounting                                                           */
/* ------------------------------------------------------------------ */

static void feed(struct tmx_xacct *a, const char *path)
{
	const char *paths[1] = { path };
	struct tmx_xray_opts xopts = TMX_XRAY_OPTS_INIT;
	struct tmx_diag quiet = { 0 };
	struct tmx_source *src = NULL;
	struct tmx_error err = { 0 };
	const struct tmx_msg *msg;

	assert_int_equal(tmx_xray_open(paths, 1, &xopts, &quiet, &src, &err), TMX_OK);
	for (;;) {
		assert_int_equal(tmx_source_next(src, &msg, &err), TMX_OK);
		if (!msg)
			break;
		assert_int_equal(tmx_xacct_consume(a, msg, &err), TMX_OK);
	}
	tmx_source_free(src);
}

/* Every pass over `path` until the figures are ready; returns the number of passes. */
static unsigned account(struct tmx_xacct *a, const char *path)
{
	struct tmx_error err = { 0 };
	bool again;

	feed(a, path);
	assert_int_equal(tmx_xacct_finish(a, &again, &err), TMX_OK);
	while (again) {
		assert_int_equal(tmx_xacct_begin_pass(a, &err), TMX_OK);
		feed(a, path);
		assert_int_equal(tmx_xacct_finish(a, &again, &err), TMX_OK);
	}
	return tmx_xacct_passes(a);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The latencies of each function, as written. */
struct expect {
	uint64_t *lat[8];
	size_t n[8], cap[8];
};

static void add(struct log *b, struct expect *e, int32_t id, uint64_t lat)
{
	call(b, id, lat);
	if (e->n[id] == e->cap[id]) {
		e->cap[id] = e->cap[id] ? e->cap[id] * 2 : 64;
		e->lat[id] = realloc(e->lat[id], e->cap[id] * sizeof(uint64_t));
		assert_non_null(e->lat[id]);
	}
	e->lat[id][e->n[id]++] = lat;
}

static void check(const struct tmx_xacct *a, struct expect *e)
{
	size_t n_funcs = 0;

	for (int id = 0; id < 8; id++)
		n_funcs += e->n[id] != 0;
	assert_int_equal(tmx_xacct_n_functions(a), n_funcs);
	for (size_t i = 0; i < n_funcs; i++) {
		struct tmx_xacct_figures fig;
		const char *name;
		int32_t id = tmx_xacct_function(a, i, &name);
		uint64_t *v = e->lat[id];
		size_t n = e->n[id];
		assert_true(id >= 0 && id < 8 && n);
		qsort(v, n, sizeof(*v), cmp_u64);
		tmx_xacct_get_figures(a, i, &fig);
		assert_int_equal(fig.count, n);
		assert_int_equal(fig.min, v[0]);
		assert_int_equal(fig.max, v[n - 1]);
		assert_int_equal(fig.median, v[n / 2]);
		assert_int_equal(fig.pct90, v[(size_t)floor((double)n * 0.9)]);
		assert_int_equal(fig.pct99, v[(size_t)floor((double)n * 0.99)]);
	}
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	return xorshift64(&rnd_state);   /* the same logs on every run */
}

/*
 * Functions: 1 uniform below 2^20; 2 all equal; 3 one call; 4 two calls;
 * 5 anywhere in 64 bits (powers of two and their neighbours); 6 a tight
 * cluster 2^62 away from both ends (one histogram pass per 8 bits); 7 half
 * below 2^32, half above (pass 1 stores them apart).
 */
static void build(struct log *b, struct expect *e, size_t scale)
{
	log_init(b);
	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < scale; i++) {
		add(b, e, 1, rnd() % (1u << 20));
		add(b, e, 2, 777);
		uint64_t p = (uint64_t)1 << (rnd() % 63);
		add(b, e, 5, p + (rnd() % 3) - 1);
		add(b, e, 6, ((uint64_t)1 << 62) + (rnd() % 1000) * 3);
		add(b, e, 7, rnd() % 2 ? rnd() % 5000 : ((uint64_t)1 << 32) + rnd() % 5000);
	}
	add(b, e, 3, 12345);
	add(b, e, 4, 5);
	add(b, e, 4, UINT64_MAX - 5000);
	add(b, e, 6, 0);
	add(b, e, 6, UINT64_MAX - 5000);
}

static void free_expect(struct expect *e)
{
	for (int i = 0; i < 8; i++)
		free(e->lat[i]);
}

static void test_budgets(void **state)
{
	/* 40000 and 20000: pass 1's log-linear histograms (7808 bytes each) for all or some. */
	static const size_t budgets[] = { 0, 1000000, 40000, 20000, 3000, 1 };
	(void)state;

	for (size_t scale = 1; scale <= 4000; scale *= 15) {
		for (size_t k = 0; k < sizeof(budgets) / sizeof(budgets[0]); k++) {
			struct tmx_xacct_opts opts = { .memory = budgets[k] };
			struct tmx_xacct *a = tmx_xacct_new(&opts);
			struct expect e;
			struct log b;
			unsigned passes;
			build(&b, &e, scale);
			const char *path = write_log(&b);
			assert_non_null(a);
			passes = account(a, path);
			check(a, &e);
			assert_true(passes <= 10);
			/* Everything fits by default; 1 byte stores nothing and, with
			 * clusters too big to collect, needs several histograms. */
			if (budgets[k] == 0)
				assert_int_equal(passes, 1);
			if (budgets[k] == 1 && scale >= 3000)
				assert_true(passes >= 7);
			unlink(path);
			tmx_xacct_free(a);
			free_expect(&e);
			free(b.d);
		}
	}
}

/*
 * Arrays past 1 MiB (pass 1's anonymous mappings grown by mremap): 300000
 * calls of one function, 0.1% of them above 2^32 cycles; then the same
 * log over a 1 MiB budget (2 passes).
 */
static void test_large_arrays(void **state)
{
	static const size_t budgets[] = { 0, 1 << 20 };
	struct expect e;
	struct log b;
	(void)state;

	log_init(&b);
	memset(&e, 0, sizeof(e));
	for (size_t i = 0; i < 300000; i++)
		add(&b, &e, 1, i % 1000 ? rnd() % 100000 : ((uint64_t)1 << 40) + rnd() % 100);
	const char *path = write_log(&b);
	for (size_t k = 0; k < sizeof(budgets) / sizeof(budgets[0]); k++) {
		struct tmx_xacct_opts opts = { .memory = budgets[k] };
		struct tmx_xacct *a = tmx_xacct_new(&opts);
		assert_non_null(a);
		assert_int_equal(account(a, path), budgets[k] ? 2 : 1);
		check(a, &e);
		tmx_xacct_free(a);
	}
	unlink(path);
	free_expect(&e);
	free(b.d);
}

/* A log that is not the same in a later pass: an error, not wrong figures. */
static void test_changed_log(void **state)
{
	struct tmx_xacct_opts opts = { .memory = 1 };
	struct tmx_xacct *a = tmx_xacct_new(&opts);
	struct tmx_error err = { 0 };
	struct expect e;
	struct log b, c;
	char first[64];
	bool again;
	(void)state;

	build(&b, &e, 100);
	strcpy(first, write_log(&b));
	/* Same calls, one latency one cycle longer. */
	c = b;
	c.d = malloc(b.n);
	assert_non_null(c.d);
	memcpy(c.d, b.d, b.n);
	c.d[32 + 32 + 8] += 1;   /* the first exit's TSC */
	const char *second = write_log(&c);
	feed(a, first);
	assert_int_equal(tmx_xacct_finish(a, &again, &err), TMX_OK);
	assert_true(again);
	assert_int_equal(tmx_xacct_begin_pass(a, &err), TMX_OK);
	feed(a, second);
	assert_int_equal(tmx_xacct_finish(a, &again, &err), TMX_ERR_DATA);
	assert_non_null(strstr(err.msg, "changed between passes"));
	unlink(first);
	unlink(second);
	tmx_xacct_free(a);
	free_expect(&e);
	free(b.d);
	free(c.d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_large_arrays),
		cmocka_unit_test(test_changed_log),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
