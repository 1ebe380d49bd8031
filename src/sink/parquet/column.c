/*
 * Filling a column: levels, PLAIN values and the dictionary of byte-array
 * columns (see column.h).  Writing it out as a chunk is in page.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sink/parquet/column.h"

void pq_col_init(struct pq_col *c, struct pq_type type, uint8_t max_def, uint8_t max_rep,
		 size_t *acct)
{
	*c = (struct pq_col){ .type = type, .max_def = max_def, .max_rep = max_rep, .acct = acct,
			      .int_width = type.phys == PQ_INT32 ? 4 : type.phys == PQ_INT64 ? 8 : 0 };
	/* Strings start with a dictionary; it is dropped when it grows too large. */
	c->dict_on = type.phys == PQ_BYTE_ARRAY;
}

void pq_col_presize(struct pq_col *c, size_t rows)
{
	size_t width = c->type.phys == PQ_INT32 || c->type.phys == PQ_FLOAT    ? 4
		       : c->type.phys == PQ_INT64 || c->type.phys == PQ_DOUBLE ? 8
									       : 0;

	/* An integer column without nulls so far stores no levels (defs_stored). */
	if (c->max_def && (c->defs_stored || c->max_rep || !c->int_width))
		tmx_buf_reserve(&c->defs, rows);
	if (c->max_rep)
		tmx_buf_reserve(&c->reps, rows);
	if (width)
		tmx_buf_reserve(&c->vals, rows * width);
	else if (c->type.phys == PQ_BOOLEAN)
		tmx_buf_reserve(&c->vals, rows / 8 + 1);
	if (c->dict_on)
		tmx_buf_reserve(&c->dict_idx, rows * 4);
	/* Only room: a failure here is no failure of the column. */
	c->defs.oom = c->reps.oom = c->vals.oom = c->dict_idx.oom = false;
}

/* The values of instances `k` (n of them) of `w` bytes at `v` into `o`, w a constant where inlined. */
static inline __attribute__((always_inline)) void expand_w(uint8_t *o, const uint8_t *v,
							 const uint8_t *k, size_t n, unsigned w)
{
	for (size_t r = 0; r < n; r++) {
		uint16_t i;

		memcpy(&i, k + 2 * r, 2);
		memcpy(o + w * r, v + (size_t)w * i, w);
	}
}

uint16_t pq_pk_or(const uint8_t *k, size_t n)
{
	uint64_t m = 0, x;
	size_t r = 0;

	for (; r + 4 <= n; r += 4) {
		memcpy(&x, k + 2 * r, 8);
		m |= x;
	}
	for (; r < n; r++) {
		uint16_t i;

		memcpy(&i, k + 2 * r, 2);
		m |= i;
	}
	return (uint16_t)(m | m >> 16 | m >> 32 | m >> 48);
}

bool pq_col_pk_expand(const struct pq_col *c, const struct tmx_buf *rows, struct tmx_buf *out,
		      size_t more)
{
	size_t n = rows->len / 2, w = c->int_width;

	out->len = 0;
	out->oom = false;
	/*
	 * Each row's instance is one stored before it (pq_pk_new): no read
	 * past the instances' memory all the same, checked by a bound (pq_pk_or)
	 * cheaper than each index's own test.
	 */
	if (!w || c->vals.oom || rows->oom || !tmx_buf_reserve(out, (n + more) * w + 8) ||
	    (n && ((size_t)pq_pk_or(rows->p, n) + 1) * w > c->vals.cap))
		return false;
	if (w == 8)
		expand_w(out->p, c->vals.p, rows->p, n, 8);
	else
		expand_w(out->p, c->vals.p, rows->p, n, 4);
	out->len = n * w;
	return true;
}

/* Emptied, the allocations kept. */
static struct tmx_buf buf_keep(struct tmx_buf b)
{
	b.len = 0;
	b.oom = false;
	return b;
}

void pq_col_reuse(struct pq_col *c, struct pq_type type, uint8_t max_def, uint8_t max_rep,
		  size_t *acct)
{
	struct pq_col old = *c;

	pq_col_init(c, type, max_def, max_rep, acct);
	c->keep = true;
	c->defs = buf_keep(old.defs);
	c->reps = buf_keep(old.reps);
	c->vals = buf_keep(old.vals);
	c->dict_idx = buf_keep(old.dict_idx);
	c->pk_rows = buf_keep(old.pk_rows);
	c->dict = old.dict;
	tmx_strdict_clear(&c->dict);
}

void pq_encoder_free_bufs(struct pq_encoder *enc)
{
	tmx_buf_free(&enc->body);
	tmx_buf_free(&enc->out_spare);
	tmx_buf_free(&enc->iidx);
	tmx_buf_free(&enc->expand);
	for (unsigned k = 0; k < PQ_MEMO; k++) {
		tmx_buf_free(&enc->zstd_memo[k].in);
		tmx_buf_free(&enc->zstd_memo[k].out);
	}
	free(enc->ikeys);
	free(enc->islots);
	free(enc->inear);
	free(enc->pkmap);
	enc->ikeys = NULL;
	enc->islots = enc->inear = enc->pkmap = NULL;
	enc->ikeys_cap = enc->islots_cap = enc->inear_cap = enc->pkmap_cap = 0;
}

static void dict_free(struct pq_col *c)
{
	tmx_strdict_free(&c->dict);
	tmx_buf_free(&c->dict_idx);
}

void pq_col_free(struct pq_col *c)
{
	tmx_buf_free(&c->defs);
	tmx_buf_free(&c->reps);
	tmx_buf_free(&c->vals);
	tmx_buf_free(&c->pk_rows);
	dict_free(c);
}

void pq_col_defs_start(struct pq_col *c)
{
	/*
	 * Without nulls, every level of an integer column is a value's (one
	 * per int_width bytes), all max_def: those the other writers stored,
	 * and those left out.
	 */
	size_t levels = c->int_width ? c->vals.len / c->int_width : 0;

	if (c->defs.len < levels && tmx_buf_reserve(&c->defs, levels - c->defs.len)) {
		memset(c->defs.p + c->defs.len, c->max_def, levels - c->defs.len);
		c->defs.len = levels;
	}
	c->defs_stored = true;
}

void pq_col_lazy_store(struct pq_col *c)
{
	uint32_t n = c->lazy;

	c->lazy = 0;
	if (c->max_def)
		pq_fill(&c->defs, c->lazy_def, n);
	pq_fill32(&c->dict_idx, &c->lazy_entry, n);
}

bool pq_col_oom(const struct pq_col *c)
{
	return c->defs.oom || c->reps.oom || c->vals.oom || c->dict.plain.oom || c->dict_idx.oom;
}

void pq_col_double(struct pq_col *c, uint8_t rep, uint8_t def, double v)
{
	pq_col_levels(c, rep, def);
	if (c->type.phys == PQ_FLOAT) {
		float f = (float)v;
		uint32_t u;
		memcpy(&u, &f, 4);
		tmx_buf_le(&c->vals, u, 4);
	} else {
		uint64_t u;
		memcpy(&u, &v, 8);
		tmx_buf_le(&c->vals, u, 8);
	}
	c->n_vals++;
	*c->acct += c->type.phys == PQ_FLOAT ? 4 : 8;
}

/* PLAIN booleans: one bit each, from the least significant bit of each byte. */
void pq_col_bool(struct pq_col *c, uint8_t rep, uint8_t def, bool v)
{
	pq_col_levels(c, rep, def);
	if (c->bool_bits == 0 || c->bool_bits == 8) {
		tmx_buf_byte(&c->vals, 0);
		c->bool_bits = 0;
		*c->acct += 1;
	}
	if (v && !c->vals.oom)
		c->vals.p[c->vals.len - 1] |= (uint8_t)(1u << c->bool_bits);
	c->bool_bits++;
	c->n_vals++;
}

/* Too many distinct values: the values so far become PLAIN ones. */
static void dict_drop(struct pq_col *c)
{
	const uint32_t *idx = (const uint32_t *)c->dict_idx.p;
	size_t n = c->dict_idx.len / 4;

	for (size_t i = 0; i < n; i++) {
		size_t len;
		const uint8_t *at = tmx_strdict_at(&c->dict, idx[i], &len);
		/* The entry as stored is the PLAIN value: length and bytes. */
		tmx_buf_put(&c->vals, at - 4, len + 4);
		*c->acct += len + 4;
	}
	dict_free(c);
	c->dict_on = false;
}

void pq_col_bytes(struct pq_col *c, uint8_t rep, uint8_t def, const void *p, size_t n)
{
	pq_col_levels(c, rep, def);
	c->n_vals++;
	if (c->dict_on) {
		int64_t e = pq_col_dict_entry(c, p, n);
		uint32_t u = (uint32_t)e;

		if (e >= 0) {
			tmx_buf_put(&c->dict_idx, &u, 4);
			*c->acct += 4;
			return;
		}
		dict_drop(c);
	}
	tmx_buf_le(&c->vals, n, 4);
	tmx_buf_put(&c->vals, p, n);
	*c->acct += n + 4;
}

bool pq_col_bytes_known(struct pq_col *c, uint8_t rep, uint8_t def, const void *p, size_t n)
{
	int64_t e = c->dict_on ? tmx_strdict_find(&c->dict, p, n) : -1;
	uint32_t u = (uint32_t)e;

	if (e < 0)
		return false;
	pq_col_levels(c, rep, def);
	c->n_vals++;
	tmx_buf_put(&c->dict_idx, &u, 4);
	*c->acct += 4;
	return true;
}
