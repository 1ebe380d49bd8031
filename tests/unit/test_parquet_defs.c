/*
 * The definition levels of the sequential path's integer columns
 * (sink/parquet/fmap_values.c, column.h's defs_stored): left out while a
 * column has no null, written from its first null on with those left out
 * before it.  Rows go straight into columns (pq_emit_int, pq_emit_fixed,
 * pq_emit_null with no record) and, in some groups, also through the
 * writers that store every level (pq_col_int_put, the records' path);
 * each column's levels and values are checked against a column of the
 * same rows whose every level is stored (pq_col_int, pq_col_null).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sink/parquet/fmap.h"
#include "sink/parquet/record.h"
#include "tracemux/columns.h"
#include "xorshift.h"

/* The fixed columns, then an INT32 and an INT64 field column, both nullable. */
enum { C_I32 = TMX_COLUMN_CPU + 1, C_I64, N_COLS };

static size_t acct;

static struct pq_type col_type(int c)
{
	return c == C_I32 || c == TMX_COLUMN_CPU ? pq_type_int(32, false) : pq_type_int(64, true);
}

/* ts and cycles nullable (as the sink makes them), the ids not, the fields nullable. */
static uint8_t col_def(int c)
{
	return c == TMX_COLUMN_STREAM_ID || c == TMX_COLUMN_STREAM_CLASS_ID ? 0 : 1;
}

static void make_cols(struct pq_col *cols, struct pq_colinfo *ci)
{
	memset(cols, 0, N_COLS * sizeof(*cols));
	for (int c = 0; c < N_COLS; c++) {
		pq_col_init(&cols[c], col_type(c), col_def(c), 0, &acct);
		if (ci)
			ci[c] = (struct pq_colinfo){ (uint8_t)col_type(c).phys, col_def(c) };
	}
}

static void free_cols(struct pq_col *cols)
{
	for (int c = 0; c < N_COLS; c++)
		pq_col_free(&cols[c]);
}

/* A value of column c into both, or a null; `store_all`: by a writer that stores every level. */
static void put(const struct pq_rec_emit *em, struct pq_col *ref, int c, uint64_t v, bool null,
		bool store_all)
{
	if (null) {
		pq_emit_null(em, c, 0, 0);
		pq_col_null(&ref[c], 0, 0);
		return;
	}
	if (store_all)
		pq_col_int_put(&em->cols[c], 0, em->cols[c].max_def, v);
	else
		pq_emit_int(em, c, 0, v);
	pq_col_int(&ref[c], 0, ref[c].max_def, v);
}

/*
 * `rows` rows; a null once in `every` rows of each nullable column (0:
 * none), the first at row `first`; `mixed`: some values through
 * pq_col_int_put.
 */
static void check(size_t rows, unsigned every, size_t first, bool mixed, uint64_t seed)
{
	struct pq_col cols[N_COLS], ref[N_COLS];
	struct pq_colinfo ci[N_COLS];
	size_t bytes = 0;
	struct pq_rec_emit em = { .ci = ci, .cols = cols, .bytes = &bytes };
	uint64_t rnd = seed;

	make_cols(cols, ci);
	make_cols(ref, NULL);
	/* Room for every row (and an 8-byte store past the last), as the table makes it. */
	for (int c = 0; c < N_COLS; c++)
		pq_col_presize(&cols[c], rows + 1);
	for (size_t r = 0; r < rows; r++) {
		bool nulls = every && r >= first && xorshift64(&rnd) % every == 0;
		uint64_t ts[2] = { xorshift64(&rnd), xorshift64(&rnd) };
		uint64_t ids[2] = { r % 3, 1 };

		pq_emit_fixed(&em, nulls && (r & 1) ? NULL : ts, ids);
		for (int c = TMX_COLUMN_TS; c <= TMX_COLUMN_CYCLES; c++) {
			if (nulls && (r & 1))
				pq_col_null(&ref[c], 0, 0);
			else
				pq_col_int(&ref[c], 0, 1, ts[c - TMX_COLUMN_TS]);
		}
		pq_col_int(&ref[TMX_COLUMN_STREAM_ID], 0, 0, ids[0]);
		pq_col_int(&ref[TMX_COLUMN_STREAM_CLASS_ID], 0, 0, ids[1]);
		for (int c = TMX_COLUMN_CPU; c < N_COLS; c++) {
			bool all = mixed && xorshift64(&rnd) % 3 == 0;
			bool null = every && r >= first && xorshift64(&rnd) % every == 0;

			put(&em, ref, c, xorshift64(&rnd) & 0xffffffff, null, all);
		}
	}
	for (int c = TMX_COLUMN_TS; c < N_COLS; c++) {
		const struct pq_col *a = &cols[c], *b = &ref[c];

		if (c == TMX_COLUMN_EVENT || c == TMX_COLUMN_HOST || c == TMX_COLUMN_TRACE)
			continue;   /* the name columns: not written here */
		assert_false(pq_col_oom(a));
		assert_int_equal(a->n_nulls, b->n_nulls);
		assert_int_equal(a->vals.len, b->vals.len);
		assert_memory_equal(a->vals.p, b->vals.p, a->vals.len);
		if (!a->max_def)
			continue;
		if (a->n_nulls) {   /* every level, as the encoder reads them */
			assert_int_equal(a->defs.len, rows);
			assert_memory_equal(a->defs.p, b->defs.p, rows);
		} else if (!mixed) {   /* none stored: all max_def */
			assert_int_equal(a->defs.len, 0);
		}
	}
	free_cols(cols);
	free_cols(ref);
}

static void test_no_nulls(void **state)
{
	(void)state;
	check(1000, 0, 0, false, 1);
	check(1000, 0, 0, true, 2);
}

static void test_nulls(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		check(3000, 50, 0, false, seed * 0x9E3779B97F4A7C15ull);
		check(3000, 50, 700, false, seed * 0x9E3779B97F4A7C15ull + 1);
		check(3000, 4, 1500, true, seed * 0x9E3779B97F4A7C15ull + 2);
		check(3000, 2000, 2990, true, seed * 0x9E3779B97F4A7C15ull + 3);
	}
	check(1, 1, 0, false, 5);   /* a null first */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_nulls),
		cmocka_unit_test(test_nulls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
