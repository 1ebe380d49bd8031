/*
 * A string column's lazy tail (column.h: rows of one dictionary entry and
 * level not stored, as a row group's names' columns end) encoded by
 * pq_col_encode against the same column with the tail stored: the same
 * chunk bytes and metadata, for tails around the hybrid's run length (8),
 * its groups (64) and a whole group's rows (65536), alone or after a
 * stored prefix (of the same entry, of others, with nulls), with
 * dictionaries of one entry (indices of no bits) and of several.  Also
 * pq_col_lazy_store against the stored form, and pq_col_same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sink/parquet/column.h"

static size_t acct;

/* Row `i` of a prefix: entry `i % entries`, or a null every 5th row when `nulls`. */
static void put_prefix(struct pq_col *c, size_t i, unsigned entries, bool nulls)
{
	uint32_t e = (uint32_t)(i % entries);

	if (nulls && i % 5 == 2) {
		pq_col_null(c, 0, 0);
		return;
	}
	tmx_buf_put(&c->dict_idx, &e, 4);
	if (c->max_def)
		tmx_buf_byte(&c->defs, c->max_def);
	c->n_levels++;
	c->n_vals++;
}

/* A column of `entries` dictionary entries ("e0", "e1"...) and `prefix` rows stored. */
static void make(struct pq_col *c, uint8_t max_def, unsigned entries, size_t prefix, bool nulls)
{
	pq_col_init(c, pq_type_string(), max_def, 0, &acct);
	for (unsigned k = 0; k < entries; k++) {
		char s[16];

		snprintf(s, sizeof(s), "e%u", k);
		assert_int_equal(pq_col_dict_entry(c, s, strlen(s)), k);
	}
	for (size_t i = 0; i < prefix; i++)
		put_prefix(c, i, entries, nulls);
}

static void encode(struct pq_col *c, struct pq_encoder *enc, struct tmx_buf *out,
		   struct pq_chunk *m)
{
	out->len = 0;
	*m = (struct pq_chunk){ 0 };
	assert_true(pq_col_encode(c, enc, 100, out, m));
}

static void check(struct pq_encoder *enc, uint8_t max_def, unsigned entries, size_t prefix,
		  bool nulls, uint32_t entry, uint32_t tail)
{
	struct pq_col lazy, stored, filled;
	struct tmx_buf a = { 0 }, b = { 0 };
	struct pq_chunk ma, mb;

	make(&lazy, max_def, entries, prefix, nulls);
	make(&stored, max_def, entries, prefix, nulls);
	make(&filled, max_def, entries, prefix, nulls);
	lazy.lazy = filled.lazy = tail;
	lazy.lazy_entry = filled.lazy_entry = entry;
	lazy.lazy_def = filled.lazy_def = max_def;
	lazy.n_levels += tail, lazy.n_vals += tail;
	filled.n_levels += tail, filled.n_vals += tail;
	for (uint32_t i = 0; i < tail; i++) {
		tmx_buf_put(&stored.dict_idx, &entry, 4);
		if (max_def)
			tmx_buf_byte(&stored.defs, max_def);
		stored.n_levels++;
		stored.n_vals++;
	}
	/* Stored by pq_col_lazy_store: the bytes of the rows stored one by one. */
	pq_col_lazy_store(&filled);
	assert_int_equal(filled.lazy, 0);
	assert_int_equal(filled.dict_idx.len, stored.dict_idx.len);
	assert_memory_equal(filled.dict_idx.p, stored.dict_idx.p, stored.dict_idx.len);
	assert_int_equal(filled.defs.len, stored.defs.len);
	if (stored.defs.len)
		assert_memory_equal(filled.defs.p, stored.defs.p, stored.defs.len);
	assert_true(pq_col_same(&filled, &stored));
	assert_int_equal(pq_col_same(&lazy, &stored), !tail);

	encode(&lazy, enc, &a, &ma);
	encode(&stored, enc, &b, &mb);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.p, b.p, a.len);
	assert_int_equal(ma.num_values, mb.num_values);
	assert_int_equal(ma.null_count, mb.null_count);
	assert_int_equal(ma.data_offset, mb.data_offset);
	assert_int_equal(ma.dict_offset, mb.dict_offset);
	assert_int_equal(ma.compressed, mb.compressed);
	assert_int_equal(ma.uncompressed, mb.uncompressed);
	assert_int_equal(ma.dict, mb.dict);
	assert_int_equal(ma.min_len, mb.min_len);
	assert_memory_equal(ma.min, mb.min, ma.min_len);
	assert_int_equal(ma.max_len, mb.max_len);
	assert_memory_equal(ma.max, mb.max, ma.max_len);
	assert_int_equal(lazy.lazy, 0);   /* emptied */
	tmx_buf_free(&a);
	tmx_buf_free(&b);
	pq_col_free(&lazy);
	pq_col_free(&stored);
	pq_col_free(&filled);
}

static void test_lazy_tails(void **state)
{
	static const uint32_t tails[] = { 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 63, 64, 65, 504, 505, 511,
					  512, 513, 65535, 65536, 65537 };
	static const size_t prefixes[] = { 0, 1, 3, 7, 8, 9, 13, 64, 100, 1000 };
	struct pq_encoder enc = { 0 };

	(void)state;
	assert_true(pq_encoder_zstd(&enc, 3));
	for (uint8_t max_def = 0; max_def <= 1; max_def++) {
		for (unsigned entries = 1; entries <= 300; entries += entries < 3 ? 2 : 297) {
			for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
				for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
					uint32_t e = entries > 1 ? 2 : 0;

					check(&enc, max_def, entries, prefixes[p], false, e, tails[t]);
					/* The tail's entry the prefix's last. */
					if (prefixes[p])
						check(&enc, max_def, entries, prefixes[p], false,
						      (uint32_t)((prefixes[p] - 1) % entries),
						      tails[t]);
					if (max_def && prefixes[p] > 2)
						check(&enc, max_def, entries, prefixes[p], true, e,
						      tails[t]);
				}
			}
		}
	}
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lazy_tails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
