/*
 * Filling a column: levels, PLAIN values and the dictionary of byte-array
 * columns (see column.h).  Writing it out as a chunk is in page.c.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sink/parquet/column.h"

void pq_col_init(struct pq_col *c, struct pq_type type, uint8_t max_def, uint8_t max_rep,
		 size_t *acct)
{
	*c = (struct pq_col){ .type = type, .max_def = max_def, .max_rep = max_rep, .acct = acct };
	/* Strings start with a dictionary; it is dropped when it grows too large. */
	c->dict_on = type.phys == PQ_BYTE_ARRAY;
}

void pq_col_presize(struct pq_col *c, size_t rows)
{
	size_t width = c->type.phys == PQ_INT32 || c->type.phys == PQ_FLOAT    ? 4
		       : c->type.phys == PQ_INT64 || c->type.phys == PQ_DOUBLE ? 8
									       : 0;

	if (c->max_def)
		tmx_buf_reserve(&c->defs, rows);
	if (c->max_rep)
		tmx_buf_reserve(&c->reps, rows);
	if (width)
		tmx_buf_reserve(&c->vals, rows * width);
	else if (c->type.phys == PQ_BOOLEAN)
		tmx_buf_reserve(&c->vals, rows / 8 + 1);
	if (c->dict_on)
		tmx_buf_reserve(&c->dict.idx, rows * 4);
	/* Only room: a failure here is no failure of the column. */
	c->defs.oom = c->reps.oom = c->vals.oom = c->dict.idx.oom = false;
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
	c->dict.plain = buf_keep(old.dict.plain);
	c->dict.idx = buf_keep(old.dict.idx);
	c->dict.offs = old.dict.offs;
	c->dict.offs_cap = old.dict.offs_cap;
	/* The hash table is sized to the entries: made again when needed. */
	free(old.dict.slots);
}

struct pq_col *pq_encoder_cols(struct pq_encoder *enc, size_t n)
{
	if (n > enc->n_cols) {
		struct pq_col *cols = realloc(enc->cols, n * sizeof(*cols));

		if (!cols)
			return NULL;
		memset(cols + enc->n_cols, 0, (n - enc->n_cols) * sizeof(*cols));
		enc->cols = cols;
		enc->n_cols = n;
	}
	return enc->cols;
}

void pq_encoder_free_bufs(struct pq_encoder *enc)
{
	for (size_t c = 0; c < enc->n_cols; c++)
		pq_col_free(&enc->cols[c]);
	free(enc->cols);
	enc->cols = NULL;
	enc->n_cols = 0;
	tmx_buf_free(&enc->body);
	tmx_buf_free(&enc->packed);
	tmx_buf_free(&enc->iidx);
	free(enc->ikeys);
	free(enc->islots);
	enc->ikeys = NULL;
	enc->islots = NULL;
	enc->ikeys_cap = enc->islots_cap = 0;
}

static void dict_free(struct pq_dict *d)
{
	tmx_buf_free(&d->plain);
	tmx_buf_free(&d->idx);
	free(d->offs);
	free(d->slots);
	*d = (struct pq_dict){ 0 };
}

void pq_col_free(struct pq_col *c)
{
	tmx_buf_free(&c->defs);
	tmx_buf_free(&c->reps);
	tmx_buf_free(&c->vals);
	dict_free(&c->dict);
}

bool pq_col_oom(const struct pq_col *c)
{
	return c->defs.oom || c->reps.oom || c->vals.oom || c->dict.plain.oom || c->dict.idx.oom;
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

/*
 * The dictionary's hash: 8 bytes at a time (the hash places entries in the
 * table only; their order, the dictionary page's, is the order of arrival).
 */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (w = 0; n; n--)
		w = w << 8 | p[n - 1];
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

static bool entry_is(const struct pq_dict *d, uint32_t e, const void *p, size_t n)
{
	const uint8_t *at = d->plain.p + d->offs[e];
	uint32_t len = (uint32_t)tmx_le_at(at, 4);

	return len == n && !memcmp(at + 4, p, n);
}

/* Doubles the hash table (entries rehashed from their bytes). */
static bool dict_rehash(struct pq_dict *d)
{
	size_t n_slots = d->n_slots ? d->n_slots * 2 : 1024;
	uint32_t *slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t e = 0; e < d->n; e++) {
		const uint8_t *at = d->plain.p + d->offs[e];
		size_t len = (size_t)tmx_le_at(at, 4);
		size_t s = hash_bytes(at + 4, len) & (n_slots - 1);

		while (slots[s])
			s = (s + 1) & (n_slots - 1);
		slots[s] = (uint32_t)e + 1;
	}
	free(d->slots);
	d->slots = slots;
	d->n_slots = n_slots;
	return true;
}

/*
 * The entry of the value (added when new), or -1 when the dictionary would
 * grow past its limits or memory runs out.
 */
static int64_t dict_entry(struct pq_col *c, const void *p, size_t n)
{
	struct pq_dict *d = &c->dict;
	size_t s;
	void *offs = d->offs;

	/* The fixed columns (event, host, trace) repeat one value for long runs. */
	if (d->last && entry_is(d, d->last - 1, p, n))
		return d->last - 1;
	if ((d->n + 1) * 2 > d->n_slots && !dict_rehash(d))
		return -1;
	s = hash_bytes(p, n) & (d->n_slots - 1);
	while (d->slots[s]) {
		if (entry_is(d, d->slots[s] - 1, p, n)) {
			d->last = d->slots[s];
			return d->slots[s] - 1;
		}
		s = (s + 1) & (d->n_slots - 1);
	}
	if (d->n == PQ_DICT_MAX_ENTRIES || n > PQ_DICT_MAX_BYTES ||
	    d->plain.len + n + 4 > PQ_DICT_MAX_BYTES || !tmx_buf_reserve(&d->plain, n + 4) ||
	    !tmx_grow_array(&offs, &d->offs_cap, d->n + 1, sizeof(*d->offs), 64))
		return -1;
	d->offs = offs;
	d->offs[d->n] = (uint32_t)d->plain.len;
	tmx_buf_le(&d->plain, n, 4);
	tmx_buf_put(&d->plain, p, n);
	*c->acct += n + 4;
	d->slots[s] = d->last = (uint32_t)++d->n;
	return (int64_t)d->n - 1;
}

/* Too many distinct values: the values so far become PLAIN ones. */
static void dict_drop(struct pq_col *c)
{
	const uint32_t *idx = (const uint32_t *)c->dict.idx.p;
	size_t n = c->dict.idx.len / 4;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *at = c->dict.plain.p + c->dict.offs[idx[i]];
		size_t len = (size_t)tmx_le_at(at, 4);
		tmx_buf_put(&c->vals, at, len + 4);
		*c->acct += len + 4;
	}
	dict_free(&c->dict);
	c->dict_on = false;
}

void pq_col_bytes(struct pq_col *c, uint8_t rep, uint8_t def, const void *p, size_t n)
{
	pq_col_levels(c, rep, def);
	c->n_vals++;
	if (c->dict_on) {
		int64_t e = dict_entry(c, p, n);
		uint32_t u = (uint32_t)e;

		if (e >= 0) {
			tmx_buf_put(&c->dict.idx, &u, 4);
			*c->acct += 4;
			return;
		}
		dict_drop(c);
	}
	tmx_buf_le(&c->vals, n, 4);
	tmx_buf_put(&c->vals, p, n);
	*c->acct += n + 4;
}
