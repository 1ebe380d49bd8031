/*
 * The record writer's copies that take a word or more at a time
 * (sink/parquet/record.h), against plain byte-by-byte references:
 *   - pq_rec_elems (pq_rec_values4/8): a LIST's values of 4 and 8 bytes,
 *     every count from 1 to 40 (by fours, then a two and a one);
 *   - pq_rec_text_array_at: a text array up to its first NUL, when that
 *     text is ASCII, found while copied 8 bytes at a time: NULs and bytes
 *     of the high half at every place of every length up to 40, before
 *     and after the NUL, and random arrays.
 * Each also must not write past its entry's room (guard bytes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sink/parquet/record.h"
#include "xorshift.h"

#define GUARD 0xA5
#define MAXN 40

/* Columns 0 (INT32) and 1 (INT64) of a LIST (levels 1 and 3), 2 a string (level 1). */
static const struct pq_colinfo ci[] = { { PQ_INT32, 3 }, { PQ_INT64, 3 }, { PQ_BYTE_ARRAY, 1 } };

static void test_elems(void **state)
{
	uint64_t rnd = 0x1234567;
	struct tmx_value v[MAXN];

	(void)state;
	for (uint32_t col = 0; col < 2; col++) {
		size_t w = col ? 8 : 4;

		for (uint32_t n = 1; n <= MAXN; n++) {
			struct tmx_buf b = { 0 };
			uint8_t want[PQ_REC_HEAD + 4 + 8 * MAXN];
			size_t len = PQ_REC_HEAD + 4 + w * n;

			for (uint32_t k = 0; k < n; k++)
				v[k].u = xorshift64(&rnd);
			/* room for the entry and guard bytes after it */
			assert_true(tmx_buf_reserve(&b, len + 16));
			memset(b.p, GUARD, len + 16);
			pq_rec_elems(&b, ci, col, 0, 2, v, n);
			assert_int_equal(b.len, len);
			pq_rec_head_at(want, col | PQ_REC_ELEMS, 0, 2);
			memcpy(want + PQ_REC_HEAD, &n, 4);
			for (uint32_t k = 0; k < n; k++) {
				uint32_t x = (uint32_t)v[k].u;

				if (w == 4)
					memcpy(want + PQ_REC_HEAD + 4 + 4 * k, &x, 4);
				else
					memcpy(want + PQ_REC_HEAD + 4 + 8 * k, &v[k].u, 8);
			}
			assert_memory_equal(b.p, want, len);
			for (size_t k = len; k < len + 16; k++)
				assert_int_equal(b.p[k], GUARD);
			tmx_buf_free(&b);
		}
	}
}

/* pq_rec_text_array_at of a[0, len) against the rule, room made for len bytes. */
static void check_text(const char *a, size_t len)
{
	uint8_t h[PQ_REC_HEAD + 4 + MAXN + 16], want[PQ_REC_HEAD + 4 + MAXN];
	const char *nul = len ? memchr(a, '\0', len) : NULL;
	size_t n = nul ? (size_t)(nul - a) : len, room = PQ_REC_HEAD + 4 + len;
	uint32_t n32 = (uint32_t)n;
	bool ascii = true;
	uint8_t *end;

	for (size_t k = 0; k < n; k++)
		ascii &= !((unsigned char)a[k] & 0x80);
	memset(h, GUARD, sizeof(h));
	end = pq_rec_text_array_at(h, ci, 2, a, len);
	for (size_t k = room; k < sizeof(h); k++)
		assert_int_equal(h[k], GUARD);
	if (!ascii) {
		assert_null(end);
		return;
	}
	assert_ptr_equal(end, h + PQ_REC_HEAD + 4 + n);
	pq_rec_head_at(want, 2, 0, 1);
	memcpy(want + PQ_REC_HEAD, &n32, 4);
	memcpy(want + PQ_REC_HEAD + 4, a, n);
	assert_memory_equal(h, want, PQ_REC_HEAD + 4 + n);
}

static void test_text_arrays(void **state)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ull;
	char a[MAXN] = { 0 };

	(void)state;
	for (size_t len = 0; len <= MAXN; len++) {
		/* ASCII without a NUL, then a NUL at each place, then a high byte at each place too */
		for (size_t k = 0; k < len; k++)
			a[k] = (char)('a' + k % 26);
		check_text(a, len);
		for (size_t z = 0; z < len; z++) {
			for (size_t k = 0; k < len; k++)
				a[k] = (char)('A' + k % 26);
			a[z] = '\0';
			check_text(a, len);
			for (size_t hi = 0; hi < len; hi++) {
				char keep = a[hi];

				if (hi == z)
					continue;
				/* 0x80 and 0xFF: the NUL test must flag neither */
				a[hi] = (char)(hi & 1 ? 0x80 : 0xFF);
				check_text(a, len);
				a[hi] = keep;
			}
		}
		/* Bytes after a NUL that look like one with a borrow (0x01 after 0x00). */
		for (size_t k = 0; k < len; k++)
			a[k] = (char)(k % 3 ? 0x01 : 0x00);
		check_text(a, len);
	}
	for (int r = 0; r < 20000; r++) {
		size_t len = (size_t)(xorshift64(&rnd) % (MAXN + 1));

		for (size_t k = 0; k < len; k++) {
			uint64_t x = xorshift64(&rnd);

			/* mostly printable, some NULs, some high bytes */
			a[k] = (char)(x % 16 == 0 ? 0 : x % 16 == 1 ? 0x80 | (x >> 8) : 0x20 + (x >> 8) % 95);
		}
		check_text(a, len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elems),
		cmocka_unit_test(test_text_arrays),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
