/*
 * A row group's records applied by layouts (sink/parquet/transpose.c,
 * what the parallel path of -o parquet uses) against the same records
 * applied row by row (record.h's pq_rec_apply): every column's levels,
 * values, dictionary and counts the same bytes.  The rows are generated
 * (tests/unit/xorshift.h) with every kind of entry the writer makes (the
 * names' include, integer runs, integers and nulls, strings of any
 * length, LISTs of integers of any length, doubles, booleans, integers of
 * a repeated column) and layouts that last for many rows, change every
 * row, or come back after a row of another; also groups whose columns
 * have no room made for them (row by row) and a single row; and the rows
 * applied as chunks one after the other (the parallel path's tables).
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
#include "sink/parquet/table.h"
#include "xorshift.h"

/*
 * C_RUN: a run of RUN_COLS integer columns whose widths (run_phys) make
 * every group of transpose.c's gather: 4, 2 and 1 columns of 4 and of 8
 * bytes, a group cut short by the next width.
 */
enum { C_EVENT, C_HOST, C_TRACE, C_TS, C_CYCLES, C_OPT, C_STR, C_LIST, C_DBL, C_BOOL, C_REP,
       C_LIST32, C_RUN, RUN_COLS = 14, N_COLS = C_RUN + RUN_COLS };

static const uint8_t run_phys[RUN_COLS] = {
	PQ_INT32, PQ_INT32, PQ_INT32, PQ_INT32, PQ_INT64, PQ_INT64, PQ_INT64, PQ_INT64,
	PQ_INT32, PQ_INT32, PQ_INT32, PQ_INT64, PQ_INT64, PQ_INT32,
};

static size_t acct;

static void make_cols(struct pq_col *cols)
{
	pq_col_init(&cols[C_EVENT], pq_type_string(), 1, 0, &acct);
	pq_col_init(&cols[C_HOST], pq_type_string(), 1, 0, &acct);
	pq_col_init(&cols[C_TRACE], pq_type_string(), 0, 0, &acct);
	pq_col_init(&cols[C_TS], pq_type_int(64, true), 0, 0, &acct);
	pq_col_init(&cols[C_CYCLES], pq_type_int(32, false), 1, 0, &acct);
	pq_col_init(&cols[C_OPT], pq_type_int(32, true), 1, 0, &acct);
	pq_col_init(&cols[C_STR], pq_type_string(), 1, 0, &acct);
	pq_col_init(&cols[C_LIST], pq_type_int(64, true), 3, 1, &acct);
	pq_col_init(&cols[C_DBL], pq_type_plain(PQ_DOUBLE), 1, 0, &acct);
	pq_col_init(&cols[C_BOOL], pq_type_plain(PQ_BOOLEAN), 0, 0, &acct);
	pq_col_init(&cols[C_REP], pq_type_int(64, false), 2, 1, &acct);
	pq_col_init(&cols[C_LIST32], pq_type_int(32, false), 3, 1, &acct);
	/* Some of the run's columns optional (nulls when a row has no run), the others not. */
	for (int k = 0; k < RUN_COLS; k++)
		pq_col_init(&cols[C_RUN + k], pq_type_int(run_phys[k] == PQ_INT32 ? 32 : 64, k & 1),
			    (unsigned)(k % 3 != 0), 0, &acct);
}

static struct pq_colinfo ci[N_COLS] = {
	[C_EVENT] = { PQ_BYTE_ARRAY, 1 }, [C_HOST] = { PQ_BYTE_ARRAY, 1 },
	[C_TRACE] = { PQ_BYTE_ARRAY, 0 }, [C_TS] = { PQ_INT64, 0 },
	[C_CYCLES] = { PQ_INT32, 1 },      [C_OPT] = { PQ_INT32, 1 },
	[C_STR] = { PQ_BYTE_ARRAY, 1 },    [C_LIST] = { PQ_INT64, 3 },
	[C_DBL] = { PQ_DOUBLE, 1 },        [C_BOOL] = { PQ_BOOLEAN, 0 },
	[C_REP] = { PQ_INT64, 2 },        [C_LIST32] = { PQ_INT32, 3 },
};

static void make_colinfo(void)
{
	for (int k = 0; k < RUN_COLS; k++)
		ci[C_RUN + k] = (struct pq_colinfo){ run_phys[k], (uint8_t)(k % 3 != 0) };
}

/* The names' entries of two "traces" (what an include entry points to). */
static struct tmx_buf names[2];

static void make_names(void)
{
	for (int k = 0; k < 2; k++) {
		names[k] = (struct tmx_buf){ 0 };
		pq_rec_bytes(&names[k], ci, C_EVENT, 0, "ev", 2);
		if (k)
			pq_rec_null(&names[k], C_HOST, 0, 0);
		else
			pq_rec_bytes(&names[k], ci, C_HOST, 0, "host", 4);
		pq_rec_bytes(&names[k], ci, C_TRACE, 0, k ? "t1" : "t0", 2);
	}
}

/* Every row a string of its own (test_dict_dropped), not one of a few hundred. */
static bool distinct;
/*
 * Rows whose include entry says that their heads follow from it
 * (record.h's marker, the shape's bits but the names'), their LISTs of
 * one length (test_static_heads).
 */
static bool marked;

/*
 * One row; `shape` picks which optional parts it has (the layout), `rnd`
 * the values.
 */
static void make_row(struct tmx_buf *b, unsigned shape, uint64_t *rnd)
{
	uint64_t v[2] = { xorshift64(rnd), xorshift64(rnd) & 0xffffffff };
	static const char text[] = "abcdefghijklmnopqrstuvwxyz0123456789";

	pq_rec_include(b, &names[(shape >> 6) & 1]);
	if (marked)
		b->p[b->len - PQ_REC_HEAD - sizeof(void *) + 4] = (uint8_t)(1 + (shape & 63) + (shape & 128 ? 64 : 0));
	pq_rec_u64s(b, ci, C_TS, v, 2);
	if (shape & 1)
		pq_rec_int(b, ci, C_OPT, 0, xorshift64(rnd));
	else
		pq_rec_null(b, C_OPT, 0, 0);
	if (distinct) {
		char s[24];
		int n = snprintf(s, sizeof(s), "%016llx", (unsigned long long)xorshift64(rnd));
		pq_rec_bytes(b, ci, C_STR, 0, s, (size_t)n);
	} else if (shape & 2) {
		size_t n = xorshift64(rnd) % 20;
		pq_rec_bytes(b, ci, C_STR, 0, text + (xorshift64(rnd) % 16), n);
	} else {
		pq_rec_null(b, C_STR, 0, 0);
	}
	if (shape & 4) {
		struct tmx_value e[12];   /* up to 96 bytes: every copy of transpose.c's copy_elems */
		uint32_t n = marked ? 9 : 1 + (uint32_t)(xorshift64(rnd) % 12);

		for (uint32_t k = 0; k < n; k++)
			e[k].u = xorshift64(rnd) % 7;
		pq_rec_elems(b, ci, C_LIST, 0, 1, e, n);
	} else {
		pq_rec_null(b, C_LIST, 0, 1);   /* an empty LIST */
	}
	if (shape & 8)
		pq_rec_double(b, ci, C_DBL, 0, (double)(int64_t)xorshift64(rnd) / 7.0);
	else
		pq_rec_null(b, C_DBL, 0, 0);
	pq_rec_bool(b, ci, C_BOOL, 0, xorshift64(rnd) & 1);
	if (shape & 16) {   /* a LIST of two integers as two entries of the repeated column */
		pq_rec_int(b, ci, C_REP, 0, xorshift64(rnd) % 3);
		pq_rec_int(b, ci, C_REP, 1, xorshift64(rnd) % 3);
	} else if (shape & 32) {
		pq_rec_int(b, ci, C_REP, 0, xorshift64(rnd));
	}
	/* else: the column gets nothing (it never does in real rows: harmless here) */
	if (shape & 4) {   /* a LIST of 4-byte integers: its elements' bytes not a multiple of 8 or 16 */
		struct tmx_value e[20];
		uint32_t n = marked ? 1 : 1 + (uint32_t)(xorshift64(rnd) % 20);

		for (uint32_t k = 0; k < n; k++)
			e[k].u = xorshift64(rnd);
		pq_rec_elems(b, ci, C_LIST32, 0, 1, e, n);
	} else {
		pq_rec_null(b, C_LIST32, 0, 1);
	}
	if (shape & 128) {
		uint64_t r[RUN_COLS];

		for (int k = 0; k < RUN_COLS; k++)
			r[k] = xorshift64(rnd);
		pq_rec_u64s(b, ci, C_RUN, r, RUN_COLS);
	} else {   /* nulls in the optional ones (their levels stored from then on), 0 in the others */
		for (int k = 0; k < RUN_COLS; k++)
			if (k % 3)
				pq_rec_null(b, C_RUN + (uint32_t)k, 0, 0);
			else
				pq_rec_int(b, ci, C_RUN + (uint32_t)k, 0, 0);
	}
}

static void expect_same_buf(const struct tmx_buf *a, const struct tmx_buf *b, int col,
			    const char *what)
{
	if (a->len != b->len || (a->len && memcmp(a->p, b->p, a->len))) {
		print_message("column %d: %s differ (%zu and %zu bytes)\n", col, what, a->len, b->len);
		fail();
	}
}

/*
 * The definition levels the encoder reads: an integer column that is not
 * repeated may leave them out until its first null (pq_col.defs_stored),
 * one writer more of them than another; those left out are written as
 * its first null would (pq_col_defs_start), none when every one is there.
 */
static void levels_read(struct pq_col *c)
{
	if (c->max_def && !c->max_rep && c->int_width)
		pq_col_defs_start(c);
}

static void expect_same_cols(struct pq_col *a, struct pq_col *b)
{
	for (int c = 0; c < N_COLS; c++) {
		levels_read(&a[c]);
		levels_read(&b[c]);
		expect_same_buf(&a[c].defs, &b[c].defs, c, "definition levels");
		expect_same_buf(&a[c].reps, &b[c].reps, c, "repetition levels");
		expect_same_buf(&a[c].vals, &b[c].vals, c, "values");
		expect_same_buf(&a[c].dict_idx, &b[c].dict_idx, c, "dictionary indices");
		assert_int_equal(a[c].dict_on, b[c].dict_on);
		assert_int_equal(a[c].n_nulls, b[c].n_nulls);
		assert_int_equal(a[c].bool_bits, b[c].bool_bits);
		assert_int_equal(a[c].dict.n, b[c].dict.n);
		expect_same_buf(&a[c].dict.plain, &b[c].dict.plain, c, "dictionary entries");
		if (a[c].max_rep) {   /* the others' counts are set per row by pq_table_flush */
			assert_int_equal(a[c].n_levels, b[c].n_levels);
			assert_int_equal(a[c].n_vals, b[c].n_vals);
		}
	}
}

/*
 * `rows` rows into *recs whose layout changes with probability 1/`every`
 * (0: never); at[r]: where row r starts (at[rows]: the end), unless NULL.
 * The reference columns `a` get them row by row.
 */
static void make_rows(struct tmx_buf *recs, size_t rows, unsigned every, uint64_t *rnd,
		      size_t *at)
{
	unsigned shape = (unsigned)xorshift64(rnd);

	for (size_t r = 0; r < rows; r++) {
		if (every && xorshift64(rnd) % every == 0)
			shape = (unsigned)xorshift64(rnd);
		if (at)
			at[r] = recs->len;
		make_row(recs, shape, rnd);
	}
	if (at)
		at[rows] = recs->len;
	assert_false(recs->oom);
}

/* b's last rows applied, then b compared with the reference a; all freed. */
static void finish(struct pq_col *a, struct pq_col *b, struct pq_rec_apply_state *st,
		   struct tmx_buf *recs)
{
	pq_rec_apply_flush(b, st);
	expect_same_cols(a, b);
	for (int c = 0; c < N_COLS; c++) {
		pq_col_free(&a[c]);
		pq_col_free(&b[c]);
	}
	tmx_buf_free(recs);
}

/*
 * `rows` rows (make_rows) applied row by row and as one chunk;
 * `presize`: room made for the rows (the group's encoder does) or not.
 */
static void check_group(size_t rows, unsigned every, bool presize, uint64_t seed)
{
	struct pq_col a[N_COLS], b[N_COLS];
	struct tmx_buf recs = { 0 };
	struct pq_rec_apply_state st = { 0 };
	uint64_t rnd = seed;

	make_cols(a);
	make_cols(b);
	make_rows(&recs, rows, every, &rnd, NULL);
	for (int c = 0; c < N_COLS && presize; c++) {
		pq_col_presize(&a[c], rows);
		pq_col_presize(&b[c], rows);
	}
	pq_rec_apply(a, recs.p, recs.len, false);
	pq_rec_apply_rows(b, recs.p, recs.len, presize, &st);
	finish(a, b, &st, &recs);
}

/*
 * The same rows applied as chunks of whole rows one after the other
 * (pq_rec_apply_rows with the names' state carried over, what the
 * parallel path does as a table's records come in), each chunk with room
 * made for its rows or, when `roomless`, some without: the same columns
 * as row by row.
 */
static void check_chunks(size_t rows, unsigned every, size_t max_chunk, bool roomless,
			 uint64_t seed)
{
	struct pq_col a[N_COLS], b[N_COLS];
	struct tmx_buf recs = { 0 };
	struct pq_rec_apply_state st = { 0 };
	size_t *at = calloc(rows + 1, sizeof(*at));
	uint64_t rnd = seed;

	assert_non_null(at);
	make_cols(a);
	make_cols(b);
	make_rows(&recs, rows, every, &rnd, at);
	pq_rec_apply(a, recs.p, recs.len, false);
	for (size_t r = 0; r < rows;) {
		size_t n = 1 + xorshift64(&rnd) % max_chunk;
		bool room = !roomless || (xorshift64(&rnd) & 1);

		if (n > rows - r)
			n = rows - r;
		for (int c = 0; c < N_COLS && room; c++)
			pq_col_presize(&b[c], n);
		pq_rec_apply_rows(b, recs.p + at[r], at[r + n] - at[r], room, &st);
		r += n;
	}
	finish(a, b, &st, &recs);
	free(at);
}

static void test_chunks(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		check_chunks(4000, 0, 700, false, seed * 0x9E3779B97F4A7C15ull);
		check_chunks(4000, 300, 300, false, seed * 0x9E3779B97F4A7C15ull + 1);
		check_chunks(3000, 3, 50, true, seed * 0x9E3779B97F4A7C15ull + 2);
		check_chunks(500, 0, 1, false, seed * 0x9E3779B97F4A7C15ull + 3);
	}
}

static void test_one_layout(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 8; seed++)
		check_group(3000, 0, true, seed * 0x9E3779B97F4A7C15ull);
}

static void test_layouts_change(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		check_group(5000, 500, true, seed * 0x9E3779B97F4A7C15ull);
		check_group(5000, 40, true, seed * 0x9E3779B97F4A7C15ull + 1);
		check_group(2000, 2, true, seed * 0x9E3779B97F4A7C15ull + 2);
		check_group(2000, 1, true, seed * 0x9E3779B97F4A7C15ull + 3);
	}
}

static void test_small_and_roomless(void **state)
{
	(void)state;
	check_group(1, 0, true, 7);
	check_group(2, 1, true, 8);
	check_group(130, 0, true, 9);   /* a block and a little more */
	check_group(3000, 30, false, 10);
}

/*
 * A string column whose dictionary fills up (PQ_DICT_MAX_ENTRIES) in the
 * middle of a block of rows: the dictionary dropped at the same row, its
 * values then PLAIN, as row by row.
 */
static void test_dict_dropped(void **state)
{
	(void)state;
	distinct = true;
	check_group(PQ_DICT_MAX_ENTRIES + 300, 0, true, 11);
	check_chunks(PQ_DICT_MAX_ENTRIES + 300, 200, 5000, false, 12);
	distinct = false;
}

/*
 * Rows of static heads (the names' include entry of each row only
 * counted while it is the last one applied, transpose.c): the same
 * columns as row by row, the names' entries of both traces noted or not.
 */
static void test_static_heads(void **state)
{
	(void)state;
	marked = true;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		check_group(3000, 0, true, seed * 0x9E3779B97F4A7C15ull);
		check_group(5000, 40, true, seed * 0x9E3779B97F4A7C15ull + 1);
		check_chunks(4000, 300, 300, false, seed * 0x9E3779B97F4A7C15ull + 2);
	}
	marked = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_layout),
		cmocka_unit_test(test_layouts_change),
		cmocka_unit_test(test_small_and_roomless),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_dict_dropped),
		cmocka_unit_test(test_static_heads),
	};
	int ret;

	make_colinfo();
	make_names();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	tmx_buf_free(&names[0]);
	tmx_buf_free(&names[1]);
	return ret;
}
