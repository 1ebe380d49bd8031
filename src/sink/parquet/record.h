/*
 * A row as bytes: the column entries of one event, written where the
 * event is decoded (a worker of the parallel runner, src/sink/split.h, or
 * the sink itself) and applied to its table's columns in merged order by
 * the thread that owns the tables.  Everything that needs the event (the
 * walk of its values, UTF-8 checks, enumeration labels, the CPU) is done
 * by the writer; applying is a loop over entries.  The entries of one
 * column are in the order the column gets them; columns interleave
 * freely.  Records never leave memory: host byte order.
 *
 *   entry   u32 column (PQ_REC_NULL set: a null), u8 repetition level,
 *           u8 definition level, then unless null the value: INT32 4
 *           bytes, INT64 8, FLOAT and DOUBLE a double (8), BOOLEAN 1,
 *           BYTE_ARRAY a u32 length and the bytes
 *   run     u32 first column | PQ_REC_RUN, u8 0, u8 count, then `count`
 *           integer values of consecutive columns, each at its column's
 *           deepest level (a structure's integer members: one entry)
 *   elems   u32 column | PQ_REC_ELEMS, u8 repetition level of the first,
 *           u8 that of the others, u32 count, then `count` integer values
 *           at the column's width (a LIST of integers: its elements, each
 *           present at the column's deepest definition level)
 *   include PQ_REC_INCLUDE, u8 marker, u8 0, then the address of a
 *           tmx_buf of entries that outlives the record (the entries of
 *           the event, host and trace columns, the same for every event
 *           of a class and trace, made once).  The marker, when not 0,
 *           says that the row's other heads follow from it and that
 *           address alone (a class whose entries do not depend on its
 *           values, pq_fcols_static: the marker tells the fixed columns'
 *           nulls, and from 5 on that the packet columns' entries are
 *           left out, table.h's pq_pk); transpose.c then reads no other
 *           head
 */
#ifndef TMX_SINK_PARQUET_RECORD_H
#define TMX_SINK_PARQUET_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sink/parquet/column.h"
#include "common/buf.h"
#include "tracemux/columns.h"
#include "tracemux/model.h"

#define PQ_REC_NULL 0x80000000u
#define PQ_REC_RUN 0x40000000u
#define PQ_REC_ELEMS 0x20000000u
#define PQ_REC_INCLUDE (PQ_REC_NULL | PQ_REC_RUN)
#define PQ_REC_KIND (PQ_REC_NULL | PQ_REC_RUN | PQ_REC_ELEMS)
#define PQ_REC_HEAD 6

/* What the writer needs of each column. */
struct pq_colinfo {
	uint8_t phys;       /* enum pq_phys */
	uint8_t max_def;
};

/* An entry's head written at `h` (room made by the caller); returns where its value goes. */
static inline uint8_t *pq_rec_head_at(uint8_t *h, uint32_t col, uint8_t rep, uint8_t def)
{
	memcpy(h, &col, 4);
	h[4] = rep;
	h[5] = def;
	return h + PQ_REC_HEAD;
}

static inline uint8_t *pq_rec_head(struct tmx_buf *b, uint32_t col, uint8_t rep, uint8_t def,
				   size_t value)
{
	uint8_t *p;

	if (!tmx_buf_reserve(b, PQ_REC_HEAD + value))
		return NULL;
	p = pq_rec_head_at(b->p + b->len, col, rep, def);
	b->len += PQ_REC_HEAD + value;
	return p;
}

static inline void pq_rec_null(struct tmx_buf *b, uint32_t col, uint8_t rep, uint8_t def)
{
	pq_rec_head(b, col | PQ_REC_NULL, rep, def, 0);
}

static inline void pq_rec_double(struct tmx_buf *b, const struct pq_colinfo *ci, uint32_t col,
				 uint8_t rep, double v)
{
	uint8_t *p = pq_rec_head(b, col, rep, ci[col].max_def, 8);

	if (p)
		memcpy(p, &v, 8);
}

static inline void pq_rec_bool(struct tmx_buf *b, const struct pq_colinfo *ci, uint32_t col,
			       uint8_t rep, bool v)
{
	uint8_t *p = pq_rec_head(b, col, rep, ci[col].max_def, 1);

	if (p)
		*p = v;
}

/*
 * A run's value at `p` as its column's width (INT32: the low 32 bits),
 * where 8 bytes are reserved; returns where the next goes.  Little-endian
 * hosts store 8 bytes either way, with no branch on the type: the next
 * value overwrites the 4 past an INT32.
 */
static inline uint8_t *pq_rec_run_value(uint8_t *p, uint64_t bits, uint8_t phys)
{
	unsigned w = pq_int_width(phys);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &bits, 8);
#else
	if (w == 4) {
		uint32_t x = (uint32_t)bits;
		memcpy(p, &x, 4);
	} else {
		memcpy(p, &bits, 8);
	}
#endif
	return p + w;
}

/* An INT32 (low 32 bits) or INT64 value: room for 8 bytes asked for, as a run's value. */
static inline void pq_rec_int(struct tmx_buf *b, const struct pq_colinfo *ci, uint32_t col,
			      uint8_t rep, uint64_t bits)
{
	uint8_t *p;

	if (!tmx_buf_reserve(b, PQ_REC_HEAD + 8))
		return;
	p = pq_rec_head_at(b->p + b->len, col, rep, ci[col].max_def);
	b->len = (size_t)(pq_rec_run_value(p, bits, ci[col].phys) - b->p);
}

/* `n` integers (tmx_value.u) of columns col, col + 1... (n <= 255), not repeated, present. */
static inline void pq_rec_ints(struct tmx_buf *b, const struct pq_colinfo *ci, uint32_t col,
			       const struct tmx_value *v, size_t n)
{
	uint8_t *p = pq_rec_head(b, col | PQ_REC_RUN, 0, (uint8_t)n, 8 * n);

	if (!p)
		return;
	for (size_t k = 0; k < n; k++)
		p = pq_rec_run_value(p, v[k].u, ci[col + k].phys);
	b->len = (size_t)(p - b->p);   /* 8 bytes each were reserved */
}

/* The same, from integers. */
static inline void pq_rec_u64s(struct tmx_buf *b, const struct pq_colinfo *ci, uint32_t col,
			       const uint64_t *v, size_t n)
{
	uint8_t *p = pq_rec_head(b, col | PQ_REC_RUN, 0, (uint8_t)n, 8 * n);

	if (!p)
		return;
	for (size_t k = 0; k < n; k++)
		p = pq_rec_run_value(p, v[k], ci[col + k].phys);
	b->len = (size_t)(p - b->p);
}

/*
 * `n` integers (tmx_value.u) of `v` at `p` as INT32 values (4 bytes
 * each), by fours, then a two and a one: a loop of one value at a time
 * took 6 instructions a value, and a compiler's unrolled loop's setup
 * was as many (runs and LISTs hold a few values: a system call's
 * arguments, a structure's members).
 */
static inline void pq_rec_values4(uint8_t *p, const struct tmx_value *v, unsigned n)
{
	const struct tmx_value *end = v + n;

	for (; end - v >= 4; v += 4, p += 16) {
		uint32_t x = (uint32_t)v[0].u, y = (uint32_t)v[1].u, z = (uint32_t)v[2].u,
			 t = (uint32_t)v[3].u;

		memcpy(p, &x, 4);
		memcpy(p + 4, &y, 4);
		memcpy(p + 8, &z, 4);
		memcpy(p + 12, &t, 4);
	}
	if (end - v >= 2) {
		uint32_t x = (uint32_t)v[0].u, y = (uint32_t)v[1].u;

		memcpy(p, &x, 4);
		memcpy(p + 4, &y, 4);
		v += 2;
		p += 8;
	}
	if (v < end) {
		uint32_t x = (uint32_t)v->u;

		memcpy(p, &x, 4);
	}
}

/* The same as INT64 values (8 bytes each). */
static inline void pq_rec_values8(uint8_t *p, const struct tmx_value *v, unsigned n)
{
	const struct tmx_value *end = v + n;

	for (; end - v >= 4; v += 4, p += 32) {
		uint64_t x = v[0].u, y = v[1].u, z = v[2].u, t = v[3].u;

		memcpy(p, &x, 8);
		memcpy(p + 8, &y, 8);
		memcpy(p + 16, &z, 8);
		memcpy(p + 24, &t, 8);
	}
	if (end - v >= 2) {
		uint64_t x = v[0].u, y = v[1].u;

		memcpy(p, &x, 8);
		memcpy(p + 8, &y, 8);
		v += 2;
		p += 16;
	}
	if (v < end)
		memcpy(p, &v->u, 8);
}

/* `n` (> 0) integers (tmx_value.u) of one column: a LIST's elements (see `elems` above). */
static inline void pq_rec_elems(struct tmx_buf *b, const struct pq_colinfo *ci, uint32_t col,
				uint8_t rep, uint8_t elem_rep, const struct tmx_value *v, uint32_t n)
{
	unsigned w = pq_int_width(ci[col].phys);
	uint8_t *p = pq_rec_head(b, col | PQ_REC_ELEMS, rep, elem_rep, 4 + (size_t)w * n);

	if (!p)
		return;
	memcpy(p, &n, 4);
	if (w == 4)
		pq_rec_values4(p + 4, v, n);
	else
		pq_rec_values8(p + 4, v, n);
}

/*
 * The entries of `entries` (which must outlive the record's use) as one
 * entry at `h` (room made); returns its end.
 */
static inline uint8_t *pq_rec_include_at(uint8_t *h, const struct tmx_buf *entries)
{
	h = pq_rec_head_at(h, PQ_REC_INCLUDE, 0, 0);
	memcpy(h, &entries, sizeof(entries));
	return h + sizeof(entries);
}

static inline void pq_rec_include(struct tmx_buf *b, const struct tmx_buf *entries)
{
	if (tmx_buf_reserve(b, PQ_REC_HEAD + sizeof(entries)))
		b->len = (size_t)(pq_rec_include_at(b->p + b->len, entries) - b->p);
}

/*
 * The fixed columns' entries at `h` (room for PQ_REC_FIXED_MAX bytes
 * made): ts and cycles (NULL: nulls), stream_id and stream_class_id, all
 * INT64 (tracemux/columns.h), as pq_rec_u64s's and pq_rec_null's entries
 * give them; returns their end.
 */
#define PQ_REC_FIXED_MAX (2 * (PQ_REC_HEAD + 16))
static inline uint8_t *pq_rec_fixed_at(uint8_t *h, const uint64_t *ts, const uint64_t ids[2])
{
	if (ts) {
		h = pq_rec_head_at(h, TMX_COLUMN_TS | PQ_REC_RUN, 0, 2);
		memcpy(h, ts, 16);
		h += 16;
	} else {
		h = pq_rec_head_at(h, TMX_COLUMN_TS | PQ_REC_NULL, 0, 0);
		h = pq_rec_head_at(h, TMX_COLUMN_CYCLES | PQ_REC_NULL, 0, 0);
	}
	h = pq_rec_head_at(h, TMX_COLUMN_STREAM_ID | PQ_REC_RUN, 0, 2);
	memcpy(h, ids, 16);
	return h + 16;
}

/*
 * The zero bytes of the 8 bytes `w` (read in native, little-endian
 * order), each flagged by its top bit: the lowest flag is the first zero
 * byte (flags above a zero may be false, from its borrow).
 */
static inline uint64_t pq_zero_bytes(uint64_t w)
{
	return (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
}

/*
 * A text array (`len` bytes at `p`) as a string up to its first NUL (as
 * babeltrace2 reads it) at `h` (room for PQ_REC_HEAD + 4 + len bytes
 * made), when that string is all ASCII (the case of most: names, states,
 * padded with NULs); else NULL, the bytes at `h` not the record's then
 * (the writer's own way, fmap_values.c, makes it UTF-8).  The NUL is
 * found while the bytes are copied, 8 at a time, where a memchr was a
 * call and a pass of its own.  Returns the entry's end.
 */
static inline uint8_t *pq_rec_text_array_at(uint8_t *h, const struct pq_colinfo *ci, uint32_t col,
					    const char *p, size_t len)
{
	uint8_t *d = h + PQ_REC_HEAD + 4;
	uint32_t n;
	size_t i = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t highs = 0x8080808080808080ull;

	for (; i + 8 <= len; i += 8) {
		uint64_t w, nul;

		memcpy(&w, p + i, 8);
		memcpy(d + i, &w, 8);
		nul = pq_zero_bytes(w);
		if (nul) {
			unsigned k = (unsigned)__builtin_ctzll(nul) / 8;

			if (k && (w & highs & (~0ull >> (64 - 8 * k))))
				return NULL;
			i += k;
			goto text;
		}
		if (w & highs)
			return NULL;
	}
#endif
	for (; i < len && p[i]; i++) {
		if (p[i] & 0x80)
			return NULL;
		d[i] = (uint8_t)p[i];
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
text:
#endif
	n = (uint32_t)i;
	memcpy(pq_rec_head_at(h, col, 0, ci[col].max_def), &n, 4);
	return d + i;
}

/* A byte array, as it is (strings: UTF-8 already, see pq_rec_text in fmap.h). */
static inline void pq_rec_bytes(struct tmx_buf *b, const struct pq_colinfo *ci, uint32_t col,
				uint8_t rep, const void *s, size_t n)
{
	uint32_t len = (uint32_t)n;
	uint8_t *p;

	if (n > UINT32_MAX) {   /* no Parquet page holds it: the row group fails */
		b->oom = true;
		return;
	}
	if ((p = pq_rec_head(b, col, rep, ci[col].max_def, 4 + n))) {
		memcpy(p, &len, 4);
		if (n)
			memcpy(p + 4, s, n);
	}
}

/*
 * What an include entry last gave its columns while a row group is made:
 * the same include (the event, host and trace names of a class's events
 * of one trace: every row) gives the same dictionary entries.  Rows that
 * repeat it are only counted (`pend`), and their levels and entries
 * stored in one go (pq_rec_apply_flush) before anything else is applied
 * to those columns through another include, or left to the encoder at
 * the group's end (pq_rec_apply_end): only include entries write the
 * names' columns.  Entries stay
 * valid while their column keeps its dictionary (pq_col.dict_on), which
 * only a value added through another include can end.
 */
#define PQ_REC_INCLUDE_MAX 4
struct pq_rec_apply_state {
	const struct tmx_buf *inc;      /* NULL: nothing known */
	unsigned n;
	uint32_t pend;                  /* rows of `inc` not yet stored */
	uint32_t col[PQ_REC_INCLUDE_MAX], entry[PQ_REC_INCLUDE_MAX];
	uint8_t rep[PQ_REC_INCLUDE_MAX], def[PQ_REC_INCLUDE_MAX];
	/*
	 * The columns that are not repeated have room for a value per row
	 * (pq_col_presize of the group's rows): their integers are stored
	 * without asking for room (pq_rec_apply_run).
	 */
	bool roomy;
};

static inline void pq_rec_apply_entries(struct pq_col *cols, const uint8_t *r, size_t n,
					struct pq_rec_apply_state *st);

/*
 * `n` bytes from `p` appended, `n` a multiple of 4: the values of a
 * LIST's elements, a few bytes most often (a system call's arguments), by
 * 8-byte stores rather than a call to memcpy (as pq_fill's levels).
 */
static inline void pq_rec_copy(struct tmx_buf *b, const uint8_t *p, size_t n)
{
	uint8_t *d;
	size_t k = 0;

	if (n > 64) {
		tmx_buf_put(b, p, n);
		return;
	}
	if (!tmx_buf_reserve(b, n))
		return;
	d = b->p + b->len;
	for (; k + 8 <= n; k += 8)
		memcpy(d + k, p + k, 8);
	if (k < n)
		memcpy(d + k, p + k, 4);
	b->len += n;
}

/* An `elems` entry (its value after the head) into `c`; returns what follows it. */
static inline const uint8_t *pq_rec_apply_elems(struct pq_col *c, uint8_t rep, uint8_t elem_rep,
						const uint8_t *r)
{
	unsigned w = pq_int_width(c->type.phys);
	uint32_t n;

	memcpy(&n, r, 4);
	r += 4;
	/* Levels: every element present (the deepest level), the first at `rep`. */
	if (c->max_rep && pq_fill(&c->reps, elem_rep, n))
		c->reps.p[c->reps.len - n] = rep;
	if (c->max_def)
		pq_fill(&c->defs, c->max_def, n);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	pq_rec_copy(&c->vals, r, (size_t)w * n);   /* host order is the PLAIN order */
#else
	for (uint32_t k = 0; k < n; k++) {
		uint64_t u = 0;
		memcpy((uint8_t *)&u + (w == 4 ? 4 : 0), r + (size_t)k * w, w);
		tmx_buf_le(&c->vals, u, w);
	}
#endif
	c->n_levels += n;
	c->n_vals += n;
	return r + (size_t)w * n;
}

/*
 * A `run` entry's `n` values into columns c, c + 1...: the top-level
 * integer columns of an event (pq_rec_ints), never repeated, so with no
 * repetition level; the hottest loop of applying records.  Their counts
 * of levels and values are set once the group's rows are in
 * (pq_table_flush: one level per row).
 */
static inline const uint8_t *pq_rec_apply_run(struct pq_col *c, unsigned n, const uint8_t *r,
					      bool roomy)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (roomy) {
		/*
		 * Room for a value per row in each (pq_rec_apply_state.roomy):
		 * stores only, of the value's own width.
		 */
		for (; n; n--, c++) {
			if (c->max_def && c->defs_stored)   /* see gather_defs(), transpose.c */
				tmx_buf_byte(&c->defs, c->max_def);
			if (c->type.phys == PQ_INT32) {
				memcpy(c->vals.p + c->vals.len, r, 4);
				c->vals.len += 4;
				r += 4;
			} else {
				memcpy(c->vals.p + c->vals.len, r, 8);
				c->vals.len += 8;
				r += 8;
			}
		}
		return r;
	}
#else
	(void)roomy;
#endif
	for (; n; n--, c++) {
		struct tmx_buf *v = &c->vals;
		unsigned w = pq_int_width(c->type.phys);
		uint64_t u;

		if (w == 4) {
			uint32_t x;

			memcpy(&x, r, 4);
			u = x;
		} else {
			memcpy(&u, r, 8);
		}
		r += w;
		if (c->max_def && c->defs_stored)
			tmx_buf_byte(&c->defs, c->max_def);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/*
		 * Not asking whether the buffer ran out of memory: a store
		 * inside its room is safe, and such a column fails its row
		 * group whatever it holds (pq_col_oom).
		 */
		if (__builtin_expect(v->cap - v->len >= 8, 1)) {
			memcpy(v->p + v->len, &u, 8);   /* an INT32 keeps 4 of them */
			v->len += w;
		} else
#endif
		{
			tmx_buf_le(v, u, w);
		}
	}
	return r;
}

/* The rows counted by the last include's fast path: their levels and entries stored. */
static inline void pq_rec_apply_flush(struct pq_col *cols, struct pq_rec_apply_state *st)
{
	uint32_t n = st->pend;

	if (!n)
		return;
	st->pend = 0;
	for (unsigned k = 0; k < st->n; k++) {
		struct pq_col *c = &cols[st->col[k]];

		/*
		 * The counts of columns that are not repeated are set once the
		 * group's rows are in (pq_table_flush), and their bytes are not read.
		 */
		if (c->max_rep) {   /* counted per value (no include is) */
			pq_fill(&c->reps, st->rep[k], n);
			c->n_levels += n;
			c->n_vals += n;
		}
		if (c->max_def)
			pq_fill(&c->defs, st->def[k], n);
		pq_fill32(&c->dict_idx, &st->entry[k], n);
	}
}

/*
 * pq_rec_apply_flush at a row group's end, when nothing more is added to
 * its columns: the rows counted left to their columns' lazy tails
 * (column.h), which the encoder writes without storing them: 5 bytes a
 * row for each of the names' columns (a level and an index) no longer
 * stored, in memory touched for them alone, then read again for one run.
 */
static inline void pq_rec_apply_end(struct pq_col *cols, struct pq_rec_apply_state *st)
{
	for (unsigned k = 0; k < st->n; k++) {
		if (cols[st->col[k]].max_rep) {   /* none is, but then stored */
			pq_rec_apply_flush(cols, st);
			return;
		}
	}
	for (unsigned k = 0; k < st->n && st->pend; k++) {
		struct pq_col *c = &cols[st->col[k]];

		c->lazy = st->pend;
		c->lazy_entry = st->entry[k];
		c->lazy_def = st->def[k];
	}
	st->pend = 0;
}

/* pq_rec_apply_include of another include than the last: applied and noted. */
static __attribute__((noinline, unused)) void
pq_rec_apply_include_new(struct pq_col *cols, const struct tmx_buf *entries,
			 struct pq_rec_apply_state *st)
{
	const uint8_t *r, *end;
	unsigned k = 0;

	pq_rec_apply_flush(cols, st);
	pq_rec_apply_entries(cols, entries->p, entries->len, st);
	/* Noted when every entry is a value of a column with a dictionary. */
	st->inc = NULL;
	for (r = entries->p, end = r + entries->len, k = 0; r < end; k++) {
		uint32_t col, len;
		struct pq_col *c;

		memcpy(&col, r, 4);
		if (k == PQ_REC_INCLUDE_MAX || (col & PQ_REC_KIND))
			return;
		c = &cols[col];
		if (c->type.phys != PQ_BYTE_ARRAY || !c->dict_on || c->dict_idx.len < 4)
			return;
		st->col[k] = col;
		st->rep[k] = r[4];
		st->def[k] = r[5];
		memcpy(&st->entry[k], c->dict_idx.p + c->dict_idx.len - 4, 4);
		memcpy(&len, r + PQ_REC_HEAD, 4);
		r += PQ_REC_HEAD + 4 + (size_t)len;
	}
	st->n = k;
	st->inc = entries;
}

/*
 * An include entry: counted when the last one was the same (nearly every
 * row), inline; else applied and noted by a call (inlined whole, it was
 * not, and its every call saved registers for the rare case).
 */
static inline void pq_rec_apply_include(struct pq_col *cols, const struct tmx_buf *entries,
					struct pq_rec_apply_state *st)
{
	if (__builtin_expect(st->inc == entries, 1))
		st->pend++;
	else
		pq_rec_apply_include_new(cols, entries, st);
}

static inline void pq_rec_apply_entries(struct pq_col *cols, const uint8_t *r, size_t n,
					struct pq_rec_apply_state *st)
{
	const uint8_t *end = r + n;

	while (r < end) {
		uint32_t col, w;
		uint64_t u;
		double d;
		uint8_t rep = r[4], def = r[5];
		struct pq_col *c;

		memcpy(&col, r, 4);
		r += PQ_REC_HEAD;
		if (col & PQ_REC_KIND) {
			if (col & PQ_REC_ELEMS) {
				r = pq_rec_apply_elems(&cols[col & ~PQ_REC_ELEMS], rep, def, r);
			} else if (col == PQ_REC_INCLUDE) {
				const struct tmx_buf *entries;

				memcpy(&entries, r, sizeof(entries));
				r += sizeof(entries);
				pq_rec_apply_include(cols, entries, st);
			} else if (col & PQ_REC_NULL) {
				pq_col_null(&cols[col & ~PQ_REC_NULL], rep, def);
			} else {
				r = pq_rec_apply_run(&cols[col & ~PQ_REC_RUN], def, r, st->roomy);
			}
			continue;
		}
		c = &cols[col];
		switch (c->type.phys) {
		case PQ_INT32:
			memcpy(&w, r, 4);
			pq_col_int_put(c, rep, def, w);
			r += 4;
			break;
		case PQ_INT64:
			memcpy(&u, r, 8);
			pq_col_int_put(c, rep, def, u);
			r += 8;
			break;
		case PQ_FLOAT:
		case PQ_DOUBLE:
			memcpy(&d, r, 8);
			pq_col_double(c, rep, def, d);
			r += 8;
			break;
		case PQ_BOOLEAN:
			pq_col_bool(c, rep, def, *r);
			r += 1;
			break;
		default:
			memcpy(&w, r, 4);
			pq_col_bytes(c, rep, def, r + 4, w);
			r += 4 + (size_t)w;
			break;
		}
	}
}

/*
 * The entries of r[0, n) (a row group's records) into `cols`, whose
 * integers are not counted into their *acct (pq_col_int_put), nor in the
 * levels and values of columns that are not repeated (pq_rec_apply_run:
 * the caller sets those, as pq_table_flush does).
 */
static inline void pq_rec_apply(struct pq_col *cols, const uint8_t *r, size_t n, bool roomy)
{
	struct pq_rec_apply_state st = { .roomy = roomy };

	pq_rec_apply_entries(cols, r, n, &st);
	pq_rec_apply_flush(cols, &st);
}

/*
 * The same for a chunk of a group's rows (whole rows), rows of one layout
 * applied by blocks, entry by entry (transpose.c), with the names' state
 * `st` of the rows before (its `roomy` set from the argument) and without
 * its flush: the chunks of a group applied one after the other give its
 * columns the bytes the whole group applied at once gives.
 */
void pq_rec_apply_rows(struct pq_col *cols, const uint8_t *r, size_t n, bool roomy,
		       struct pq_rec_apply_state *st);

#endif
