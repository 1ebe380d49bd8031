/*
 * Address -> compile unit (src/tools/xray/cu_ranges.c) against llvm 14's
 * DWARFDebugAranges::construct(), worked by hand for each case: disjoint,
 * adjacent and overlapping unit ranges, the unit before keeping an address
 * when ranges overlap, empty ranges dropped, the ends of the address space,
 * and many units.  Real binaries only exercise the disjoint case (see
 * tests/golden/test_xray_account_debuginfo.py); the rest is here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tools/xray/cu_ranges.h"

struct seg {
	uint64_t lo, hi;
	uint32_t unit;
};

/* Builds the ranges (triples lo, hi, unit), checks the segments. */
static void expect(const struct seg *in, size_t n_in, const struct seg *want, size_t n_want)
{
	struct tmx_cu_ranges r = { 0 };

	for (size_t i = 0; i < n_in; i++)
		assert_true(tmx_cu_ranges_add(&r, in[i].unit, in[i].lo, in[i].hi));
	assert_true(tmx_cu_ranges_build(&r));
	assert_int_equal(r.n_segs, n_want);
	for (size_t i = 0; i < n_want; i++) {
		assert_int_equal(r.segs[i].lo, want[i].lo);
		assert_int_equal(r.segs[i].hi, want[i].hi);
		assert_int_equal(r.segs[i].unit, want[i].unit);
	}
	tmx_cu_ranges_free(&r);
}

static uint32_t find(const struct tmx_cu_ranges *r, uint64_t addr)
{
	uint32_t unit = 12345;

	return tmx_cu_ranges_find(r, addr, &unit) ? unit : UINT32_MAX;
}

static void test_disjoint(void **state)
{
	const struct seg in[] = { { 0x300, 0x400, 1 }, { 0x100, 0x200, 0 } };
	const struct seg want[] = { { 0x100, 0x200, 0 }, { 0x300, 0x400, 1 } };
	struct tmx_cu_ranges r = { 0 };

	(void)state;
	expect(in, 2, want, 2);
	for (size_t i = 0; i < 2; i++)
		assert_true(tmx_cu_ranges_add(&r, in[i].unit, in[i].lo, in[i].hi));
	assert_true(tmx_cu_ranges_build(&r));
	assert_int_equal(find(&r, 0xff), UINT32_MAX);
	assert_int_equal(find(&r, 0x100), 0);
	assert_int_equal(find(&r, 0x1ff), 0);
	assert_int_equal(find(&r, 0x200), UINT32_MAX);   /* hi is exclusive */
	assert_int_equal(find(&r, 0x2ff), UINT32_MAX);
	assert_int_equal(find(&r, 0x300), 1);
	assert_int_equal(find(&r, 0x3ff), 1);
	assert_int_equal(find(&r, 0x400), UINT32_MAX);
	tmx_cu_ranges_free(&r);
}

static void test_adjacent(void **state)
{
	/* One unit in two touching pieces: one segment (construct() extends it). */
	const struct seg same[] = { { 0x200, 0x300, 0 }, { 0x100, 0x200, 0 } };
	const struct seg same_want[] = { { 0x100, 0x300, 0 } };
	/* Two units touching: two segments. */
	const struct seg two[] = { { 0x100, 0x200, 0 }, { 0x200, 0x300, 1 } };
	const struct seg two_want[] = { { 0x100, 0x200, 0 }, { 0x200, 0x300, 1 } };

	(void)state;
	expect(same, 2, same_want, 1);
	expect(two, 2, two_want, 2);
}

static void test_overlap(void **state)
{
	/*
	 * Unit 1 covers 0x100 first; unit 0 (first in .debug_info) joins at
	 * 0x200: unit 1 keeps [0x200, 0x300) (llvm extends the last range
	 * while its unit is still valid), unit 0 gets what is left.
	 */
	const struct seg later[] = { { 0x100, 0x300, 1 }, { 0x200, 0x400, 0 } };
	const struct seg later_want[] = { { 0x100, 0x300, 1 }, { 0x300, 0x400, 0 } };
	/* Both start together: the smallest index wins, then the other. */
	const struct seg together[] = { { 0x100, 0x300, 1 }, { 0x100, 0x200, 0 } };
	const struct seg together_want[] = { { 0x100, 0x200, 0 }, { 0x200, 0x300, 1 } };
	/* Unit 1 nested in unit 0: unit 0 throughout. */
	const struct seg nested[] = { { 0x100, 0x400, 0 }, { 0x200, 0x300, 1 } };
	const struct seg nested_want[] = { { 0x100, 0x400, 0 } };
	/* Unit 0 nested in unit 1: unit 1 throughout too (it came first). */
	const struct seg nested2[] = { { 0x100, 0x400, 1 }, { 0x200, 0x300, 0 } };
	const struct seg nested2_want[] = { { 0x100, 0x400, 1 } };
	/* Three units, the middle one ends first: the lowest valid one next. */
	const struct seg three[] = { { 0x100, 0x200, 1 }, { 0x150, 0x300, 2 },
				     { 0x180, 0x300, 0 } };
	const struct seg three_want[] = { { 0x100, 0x200, 1 }, { 0x200, 0x300, 0 } };

	(void)state;
	expect(later, 2, later_want, 2);
	expect(together, 2, together_want, 2);
	expect(nested, 2, nested_want, 1);
	expect(nested2, 2, nested2_want, 1);
	expect(three, 3, three_want, 2);
}

static void test_empty_and_edges(void **state)
{
	const struct seg empty[] = { { 0x500, 0x500, 0 }, { 0x600, 0x580, 1 } };
	const struct seg edges[] = { { 0, 0x10, 0 }, { UINT64_MAX - 0x10, UINT64_MAX, 1 } };
	const struct seg edges_want[] = { { 0, 0x10, 0 }, { UINT64_MAX - 0x10, UINT64_MAX, 1 } };
	struct tmx_cu_ranges r = { 0 };

	(void)state;
	expect(empty, 2, NULL, 0);
	expect(NULL, 0, NULL, 0);
	expect(edges, 2, edges_want, 2);
	assert_true(tmx_cu_ranges_build(&r));   /* nothing added */
	assert_int_equal(find(&r, 0), UINT32_MAX);
	for (size_t i = 0; i < 2; i++)
		assert_true(tmx_cu_ranges_add(&r, edges[i].unit, edges[i].lo, edges[i].hi));
	assert_true(tmx_cu_ranges_build(&r));
	assert_int_equal(find(&r, 0), 0);
	assert_int_equal(find(&r, UINT64_MAX - 1), 1);
	assert_int_equal(find(&r, UINT64_MAX), UINT32_MAX);
	/* Building again gives the same segments. */
	assert_true(tmx_cu_ranges_build(&r));
	assert_int_equal(r.n_segs, 2);
	tmx_cu_ranges_free(&r);
}

static void test_many(void **state)
{
	struct tmx_cu_ranges r = { 0 };
	const uint32_t n = 20000;

	(void)state;
	/* Added from the last address down; each unit in two touching pieces. */
	for (uint32_t u = n; u-- > 0;) {
		uint64_t base = 0x1000 + 0x100ull * u;
		assert_true(tmx_cu_ranges_add(&r, u, base + 0x40, base + 0x80));
		assert_true(tmx_cu_ranges_add(&r, u, base, base + 0x40));
	}
	assert_true(tmx_cu_ranges_build(&r));
	assert_int_equal(r.n_segs, n);
	for (uint32_t u = 0; u < n; u++) {
		assert_int_equal(find(&r, 0x1000 + 0x100ull * u), u);
		assert_int_equal(find(&r, 0x1000 + 0x100ull * u + 0x7f), u);
		assert_int_equal(find(&r, 0x1000 + 0x100ull * u + 0x80), UINT32_MAX);
	}
	tmx_cu_ranges_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disjoint),
		cmocka_unit_test(test_adjacent),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_empty_and_edges),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
