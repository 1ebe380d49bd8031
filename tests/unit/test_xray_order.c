/*
 * The orders llvm-xray leaves ties in, against the real code:
 * tests/data/xray/llvm-orders.txt holds what libstdc++'s std::sort and llvm
 * 14's DenseMap do on the same inputs (make-llvm-orders.sh builds it from
 * them).  xr_std_sort (src/xray/stdsort.c: the reader's block order,
 * xray-account's table) must leave equal keys where std::sort does,
 * including the heap sort it falls back to on McIlroy's adversarial
 * inputs (some left with ties for it); xr_densemap32_order (xray-account's functions, xray-stack's
 * threads and callees) and the (pid, tid) map of the reader (thread order)
 * must iterate as DenseMap does, across its growths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xray/densemap.h"
#include "xray/stdsort.h"

#define ORDERS TMX_TEST_DATA "/xray/llvm-orders.txt"

struct cases {
	FILE *f;
	char kind[16];
	size_t n;
};

static void open_cases(struct cases *c)
{
	char line[256];

	c->f = fopen(ORDERS, "r");
	assert_non_null(c->f);
	assert_non_null(fgets(line, sizeof(line), c->f));   /* the "# make-llvm-orders.sh" line */
	assert_int_equal(line[0], '#');
}

/* The next case of `kind` (false at the end). */
static bool next_case(struct cases *c, const char *kind)
{
	for (;;) {
		unsigned long long n;
		int ch;
		if (fscanf(c->f, "%15s %llu", c->kind, &n) != 2)
			return false;
		c->n = (size_t)n;
		if (!strcmp(c->kind, kind))
			return true;
		/* another kind: skip its two lines */
		for (int lines = 0; lines < 3 && (ch = fgetc(c->f)) != EOF;)
			lines += ch == '\n';
	}
}

static uint32_t *read_u32s(struct cases *c, size_t n)
{
	uint32_t *v = calloc(n ? n : 1, sizeof(*v));

	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		long long x;
		assert_int_equal(fscanf(c->f, "%lld", &x), 1);
		v[i] = (uint32_t)x;   /* int32 keys as their uint32 bits */
	}
	return v;
}

static bool key_less(const void *keys, uint32_t l, uint32_t r)
{
	const int32_t *k = keys;

	return k[l] < k[r];
}

static void test_std_sort_ties(void **state)
{
	struct cases c;
	size_t n_cases = 0, n_big = 0;

	(void)state;
	open_cases(&c);
	while (next_case(&c, "sort")) {
		uint32_t *keys = read_u32s(&c, c.n), *want = read_u32s(&c, c.n);
		uint32_t *idx = calloc(c.n ? c.n : 1, sizeof(*idx));
		int32_t *k = calloc(c.n ? c.n : 1, sizeof(*k));

		assert_non_null(idx);
		assert_non_null(k);
		for (size_t i = 0; i < c.n; i++) {
			idx[i] = (uint32_t)i;
			k[i] = (int32_t)keys[i];
		}
		xr_std_sort(idx, c.n, key_less, k);
		for (size_t i = 0; i < c.n; i++)
			if (idx[i] != want[i])
				fail_msg("sort case %zu (n=%zu): position %zu holds %u, std::sort %u",
					 n_cases, c.n, i, idx[i], want[i]);
		n_cases++;
		n_big += c.n > 16;
		free(keys);
		free(want);
		free(idx);
		free(k);
	}
	fclose(c.f);
	assert_true(n_cases >= 90);
	assert_true(n_big >= 50);
}

static void check_dm32(const char *kind, size_t min_cases)
{
	struct cases c;
	size_t n_cases = 0;

	open_cases(&c);
	while (next_case(&c, kind)) {
		uint32_t *keys = read_u32s(&c, c.n), *want = read_u32s(&c, c.n);
		uint32_t *out = calloc(c.n ? c.n : 1, sizeof(*out));

		assert_non_null(out);
		assert_true(xr_densemap32_order(keys, c.n, out));
		for (size_t i = 0; i < c.n; i++)
			if (out[i] != want[i])
				fail_msg("%s case %zu (n=%zu): position %zu holds key %u, DenseMap %u",
					 kind, n_cases, c.n, i, out[i], want[i]);
		n_cases++;
		free(keys);
		free(want);
		free(out);
	}
	fclose(c.f);
	assert_true(n_cases >= min_cases);
}

static void test_densemap32_order(void **state)
{
	(void)state;
	check_dm32("dm32", 20);
	check_dm32("dmu32", 10);
}

static void test_densemap_pairs(void **state)
{
	struct cases c;
	size_t n_cases = 0;

	(void)state;
	open_cases(&c);
	while (next_case(&c, "pair")) {
		struct xr_densemap m;
		uint32_t *out = calloc(c.n ? c.n : 1, sizeof(*out));
		size_t distinct = 0;

		assert_non_null(out);
		xr_densemap_init(&m);
		for (size_t i = 0; i < c.n; i++) {
			unsigned long long pid;
			int tid;
			uint32_t val;
			bool inserted, found;
			assert_int_equal(fscanf(c.f, "%llu %d", &pid, &tid), 2);
			assert_int_equal(xr_densemap_insert(&m, pid, tid, (uint32_t)i, &val, &inserted), 0);
			distinct += inserted;
			/* a key seen again keeps the index of its first insertion */
			assert_int_equal(xr_densemap_find(&m, pid, tid, &found), val);
			assert_true(found);
		}
		assert_int_equal(m.n_entries, distinct);
		xr_densemap_values(&m, out);
		for (size_t i = 0; i < distinct; i++) {
			unsigned want;
			assert_int_equal(fscanf(c.f, "%u", &want), 1);
			if (out[i] != want)
				fail_msg("pair case %zu (n=%zu): position %zu holds %u, DenseMap %u",
					 n_cases, c.n, i, out[i], want);
		}
		xr_densemap_free(&m);
		free(out);
		n_cases++;
	}
	fclose(c.f);
	assert_true(n_cases >= 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_std_sort_ties),
		cmocka_unit_test(test_densemap32_order),
		cmocka_unit_test(test_densemap_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
