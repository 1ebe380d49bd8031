/*
 * A table's packet columns (table.h, pq_pk: values once per packet
 * instance of a row group, an instance per row, expanded when the group
 * is encoded) against the same rows stored per row: every chunk's bytes
 * and metadata the same.  Rows of several streams interleaved at random,
 * each stream's packets one after the other at one address (as the
 * reader reuses it) with their `seq`, packets that change inside a group
 * and groups that end inside a packet (the next group starts its own
 * instances), packets without an address, rows whose CPU would be null
 * and groups that get records (both: the columns expanded into rows in
 * the middle of the group, pq_pk_off), one packet for a whole group, and
 * columns of equal values (pq_group_encode's repeated chunks).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sink/parquet/file.h"
#include "sink/parquet/table.h"
#include "xorshift.h"

/*
 * C_TS: a value per row; C_ID, C_SEQ, C_SIZE, C_SIZE2 (C_SIZE's values:
 * a repeated chunk), C_CPU: the packet's (C_CPU INT32, the others
 * INT64), C_NAME between them a value per row.  The largest packet
 * column (the one holding the instances) is C_SIZE2.
 */
enum { C_TS, C_ID, C_CPU, C_NAME, C_SEQ, C_SIZE, C_SIZE2, N_COLS };
static const uint32_t pk_cols[] = { C_ID, C_CPU, C_SEQ, C_SIZE, C_SIZE2 };
#define N_PK (sizeof(pk_cols) / sizeof(pk_cols[0]))

#define STREAMS 4

static size_t acct;
static size_t offs;   /* run()'s groups whose columns were expanded mid-group */

static void make_cols(struct pq_col *cols)
{
	for (int c = 0; c < N_COLS; c++)
		pq_col_init(&cols[c], pq_type_int(c == C_CPU ? 32 : 64, false), c == C_TS, 0, &acct);
}

struct stream {
	int pkt;        /* its packets' address (one per stream, reused) */
	uint64_t seq;
	uint64_t vals[N_COLS];
};

static bool is_pk(int c)
{
	for (size_t k = 0; k < N_PK; k++)
		if (pk_cols[k] == (uint32_t)c)
			return true;
	return false;
}

static void put(struct pq_col *c, uint64_t v)
{
	pq_col_int_put(c, 0, c->max_def, v);
}

/* One group's encoding of `cols` (n_rows) into *g, its columns counted as pq_table_flush does. */
static void encode(struct pq_col *cols, size_t n_rows, struct pq_encoder *enc, struct pq_group *g)
{
	for (int c = 0; c < N_COLS; c++) {
		cols[c].n_levels = n_rows;
		cols[c].n_vals = n_rows;
	}
	assert_true(pq_group_encode(g, cols, N_COLS, (int64_t)n_rows, enc));
}

static void same_groups(const struct pq_group *a, const struct pq_group *b)
{
	assert_int_equal(a->out.len, b->out.len);
	assert_memory_equal(a->out.p, b->out.p, a->out.len);
	for (int c = 0; c < N_COLS; c++) {
		const struct pq_chunk *x = &a->chunks[c], *y = &b->chunks[c];

		assert_int_equal(x->data_offset, y->data_offset);
		assert_int_equal(x->dict_offset, y->dict_offset);
		assert_int_equal(x->compressed, y->compressed);
		assert_int_equal(x->num_values, y->num_values);
		assert_int_equal(x->dict, y->dict);
		assert_int_equal(x->min_len, y->min_len);
		assert_memory_equal(x->min, y->min, x->min_len);
		assert_int_equal(x->max_len, y->max_len);
		assert_memory_equal(x->max, y->max, x->max_len);
	}
}

/*
 * Groups of `rows` rows; a stream's packet ends with probability
 * 1/`pkt_len` a row; with 1/`off` a row (0: never) the row's CPU does
 * not fit (or the group gets records): its columns expanded.  `anon`:
 * 1/anon of the rows have no packet address.  Returns how many rows were
 * known packets' (the test must have some).
 */
static size_t run(uint64_t seed, size_t groups, size_t rows, unsigned pkt_len, unsigned off,
		  unsigned anon)
{
	struct pq_col ref[N_COLS], pk[N_COLS];
	struct pq_table t = { 0 };
	struct stream st[STREAMS] = { 0 };
	struct pq_encoder enc = { 0 };
	uint64_t rnd = seed;

	size_t known = 0;

	offs = 0;
	assert_true(pq_encoder_zstd(&enc, 3));
	make_cols(ref);
	make_cols(pk);
	for (int c = 0; c < N_COLS; c++)
		pk[c].keep = true;   /* as the event tables' columns (pq_col_reuse) */
	t.cols = pk;
	t.direct = true;   /* direct rows: their instances go to the columns at once */
	assert_true(pq_pk_setup(&t, pk_cols, N_PK));
	assert_int_equal(t.pk.cols[N_PK - 1], C_SIZE2);
	for (int s = 0; s < STREAMS; s++)
		st[s].seq = UINT64_MAX;   /* a new packet at its first row */
	for (size_t g = 0; g < groups; g++) {
		struct pq_group ga, gb;

		pq_pk_begin(&t);
		for (size_t r = 0; r < rows; r++) {
			struct stream *s = &st[xorshift64(&rnd) % STREAMS];
			const void *addr = &s->pkt;
			bool fits = true, odd = off && !(xorshift64(&rnd) % off);

			/* A packet whose CPU does not fit (always a new one), or records now. */
			if (odd && xorshift64(&rnd) & 1) {
				fits = false;
			} else if (odd && t.pk.on) {
				pq_pk_off(&t);
				offs++;
			}
			if (s->seq == UINT64_MAX || !fits || !(xorshift64(&rnd) % pkt_len)) {
				s->seq++;
				s->vals[C_ID] = (uint64_t)(s - st);
				s->vals[C_CPU] = xorshift64(&rnd) % 3;
				s->vals[C_SEQ] = s->seq;
				s->vals[C_SIZE] = s->vals[C_SIZE2] = xorshift64(&rnd) % 5 * 4096;
			}
			if (anon && !(xorshift64(&rnd) % anon))
				addr = NULL;
			s->vals[C_TS] = g * rows + r;
			s->vals[C_NAME] = xorshift64(&rnd) % 7;
			for (int c = 0; c < N_COLS; c++)
				put(&ref[c], s->vals[c]);
			if (t.pk.on && pq_pk_known(&t, addr, s->seq, pq_pk_rows(&t, false))) {
				known++;
				for (int c = 0; c < N_COLS; c++)
					if (!is_pk(c))
						put(&pk[c], s->vals[c]);
				continue;
			}
			if (t.pk.on) {
				pq_pk_new(&t, addr, s->seq, fits, pq_pk_rows(&t, false));
				offs += !t.pk.on;
			}
			for (int c = 0; c < N_COLS; c++)
				put(&pk[c], s->vals[c]);
		}
		t.pk.on = false;   /* as pq_table_flush */
		encode(ref, rows, &enc, &ga);
		encode(pk, rows, &enc, &gb);
		same_groups(&ga, &gb);
		pq_group_free(&ga);
		pq_group_free(&gb);
		for (int c = 0; c < N_COLS; c++) {
			assert_int_equal(pk[c].pk, 0);   /* emptied */
			assert_int_equal(pk[c].vals.len, 0);
		}
	}
	for (int c = 0; c < N_COLS; c++) {
		pq_col_free(&ref[c]);
		pq_col_free(&pk[c]);
	}
	free(t.pk.cols);
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
	return known;
}

static void test_packets(void **state)
{
	(void)state;
	/* Interleaved streams, packets of ~50 and ~5000 rows, groups that end inside them. */
	assert_true(run(0x1234567, 6, 3000, 50, 0, 0) > 2000);
	assert_true(run(0x7654321, 4, 16384, 5000, 0, 0) > 16000);
	/* A packet per row: every row a new instance. */
	assert_int_equal(run(0x42, 3, 1000, 1, 0, 0), 0);
	/* Rows without a packet address, and the columns expanded into rows mid-group. */
	assert_true(run(0x99, 5, 2000, 40, 0, 7) > 0);
	assert_int_equal(offs, 0);
	assert_true(run(0x55aa, 8, 2000, 40, 1500, 0) > 0);
	assert_true(offs > 2);
	/* A single row. */
	run(0x3, 2, 1, 10, 0, 0);
}

/* More instances than an index holds: expanded at the 65536th (pq_pk_new). */
static void test_many_packets(void **state)
{
	(void)state;
	assert_int_equal(run(0x77, 1, 70000, 1, 0, 0), 0);
	assert_int_equal(offs, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packets),
		cmocka_unit_test(test_many_packets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
