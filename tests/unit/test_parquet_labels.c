/*
 * The labels of enumerations and bit maps as the Parquet sink stores them
 * (sink/parquet/labels.c): joined by ", ", none as a null, and memoized
 * per (class, value) in a few slots.  Each answer is checked against a
 * join of the test's own, with classes that share values, values of
 * several flags, values without a label and labels too long to memoize,
 * asked in a random order among more keys than slots, so that keys meet
 * in a slot and repeated keys are answered from it.  A memoized answer
 * (`memo`) is valid UTF-8 with PQ_LABEL_READ bytes readable; labels that
 * are not valid UTF-8 or too long are never memoized.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sink/parquet/labels.h"
#include "xorshift.h"

#define R(lo, hi) { (uint64_t)(lo), (uint64_t)(hi) }

/* An unsigned enumeration: overlapping ranges, gaps. */
static struct tmx_enum_range a_zero[] = { R(0, 0) }, a_low[] = { R(0, 9) },
			     a_ten[] = { R(10, 10), R(20, 29) };
static struct tmx_enum_mapping a_maps[] = {
	{ "zero", 1, a_zero }, { "low", 1, a_low }, { "ten_or_twenties", 2, a_ten },
};
/* A signed enumeration with the same small values as `a`, other labels. */
static struct tmx_enum_range b_neg[] = { R(-5, -1) }, b_small[] = { R(-1, 3) };
static struct tmx_enum_mapping b_maps[] = { { "neg", 1, b_neg }, { "small", 1, b_small } };
/* A bit map: flags of one bit, of two, and one whose label is longer than a slot holds. */
static struct tmx_enum_range c_a[] = { R(0, 0) }, c_b[] = { R(1, 1) }, c_c[] = { R(2, 3) },
			     c_long[] = { R(4, 4) };
static struct tmx_enum_mapping c_maps[] = {
	{ "A", 1, c_a }, { "B", 1, c_b }, { "C", 1, c_c },
	{ "a_flag_whose_label_is_longer_than_any_slot_can_hold", 1, c_long },
};

static struct tmx_field_class fc_a = { .kind = TMX_FC_ENUM, .size = 8, .n_mappings = 3,
				       .mappings = a_maps };
static struct tmx_field_class fc_b = { .kind = TMX_FC_ENUM, .size = 8, .is_signed = true,
				       .n_mappings = 2, .mappings = b_maps };
static struct tmx_field_class fc_c = { .kind = TMX_FC_BIT_ARRAY, .size = 8, .n_mappings = 4,
				       .mappings = c_maps };
/* An enumeration whose second label is not valid UTF-8 (a lone continuation byte). */
static struct tmx_enum_range d_one[] = { R(1, 1) }, d_two[] = { R(2, 2) };
static struct tmx_enum_mapping d_maps[] = { { "caf\xc3\xa9", 1, d_one }, { "bad\x80", 1, d_two } };
static struct tmx_field_class fc_d = { .kind = TMX_FC_ENUM, .size = 8, .n_mappings = 2,
				       .mappings = d_maps };

/* The labels joined the plain way, into out (NUL-terminated). */
static void ref_join(const struct tmx_field_class *fc, uint64_t u, char *out, size_t cap)
{
	out[0] = '\0';
	for (size_t m = 0; m < fc->n_mappings; m++) {
		if (!tmx_mapping_holds(fc, &fc->mappings[m], u))
			continue;
		if (out[0])
			strncat(out, ", ", cap - strlen(out) - 1);
		strncat(out, fc->mappings[m].label, cap - strlen(out) - 1);
	}
}

/* Whether p[0, n) is valid UTF-8: here, whether it has no byte that fc_d's bad label has. */
static int valid(const char *p, size_t n)
{
	return !memchr(p, 0x80, n);
}

/* The memo flag of an answer: set when the text is short and valid; what it promises readable. */
static void check_memo(const char *p, size_t n, bool memo)
{
	char copy[PQ_LABEL_READ];

	if (n > PQ_LABEL_MAX || !valid(p, n))
		assert_false(memo);
	if (memo)
		memcpy(copy, p, PQ_LABEL_READ);   /* in bounds (under ASan) */
}

static void check(struct pq_labels *l, const struct tmx_field_class *fc, uint64_t u)
{
	char want[256];
	size_t n = 12345;
	bool memo;
	const char *p = pq_labels_get(l, fc, u, &n, &memo);

	ref_join(fc, u, want, sizeof(want));
	assert_int_equal(n, strlen(want));
	if (n)
		assert_memory_equal(p, want, n);
	check_memo(p, n, memo);
}

/* The answer `want`, memoized (`memo`) or not. */
static void expect(struct pq_labels *l, const struct tmx_field_class *fc, uint64_t u,
		   const char *want, bool want_memo)
{
	size_t n = 12345;
	bool memo = !want_memo;
	const char *p = pq_labels_get(l, fc, u, &n, &memo);

	assert_int_equal(n, strlen(want));
	if (n)
		assert_memory_equal(p, want, n);
	assert_int_equal(memo, want_memo);
	check_memo(p, n, memo);
}

/* Known answers, each asked twice: the join, then the memo (or the join again when long). */
static void test_known(void **state)
{
	struct pq_labels *l = calloc(1, sizeof(*l));

	(void)state;
	assert_non_null(l);
	for (int round = 0; round < 2; round++) {
		expect(l, &fc_a, 0, "zero, low", true);
		expect(l, &fc_b, 0, "small", true);
		expect(l, &fc_a, 25, "ten_or_twenties", true);
		expect(l, &fc_a, 50, "", true);                     /* no label: null */
		expect(l, &fc_b, (uint64_t)-1, "neg, small", true);
		expect(l, &fc_b, (uint64_t)-9, "", true);
		expect(l, &fc_c, 0, "", true);
		expect(l, &fc_c, 0x7, "A, B, C", true);
		expect(l, &fc_c, 0x8, "C", true);
		expect(l, &fc_c, 0x1F,
		       "A, B, C, a_flag_whose_label_is_longer_than_any_slot_can_hold", false);
		expect(l, &fc_c, 0x12, "B, a_flag_whose_label_is_longer_than_any_slot_can_hold",
		       false);
		expect(l, &fc_d, 1, "caf\xc3\xa9", true);
		expect(l, &fc_d, 2, "bad\x80", false);   /* checked by the caller each time */
	}
	tmx_buf_free(&l->join);
	free(l);
}

/*
 * Keys of four classes over values that the classes share (more keys
 * than slots: some meet in one), in a random order, many asked again.
 */
static void test_random(void **state)
{
	static const struct tmx_field_class *const fcs[] = { &fc_a, &fc_b, &fc_c, &fc_d };
	struct pq_labels *l = calloc(1, sizeof(*l));
	uint64_t rng = 28;

	(void)state;
	assert_non_null(l);
	for (int i = 0; i < 200000; i++) {
		const struct tmx_field_class *fc = fcs[xorshift64(&rng) % 4];
		uint64_t u = xorshift64(&rng) % 64 - 8;   /* -8 .. 55 */

		check(l, fc, u);
	}
	tmx_buf_free(&l->join);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
