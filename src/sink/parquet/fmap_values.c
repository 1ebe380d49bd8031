/*
 * An event's values as a table's row (fmap.h): record entries (record.h)
 * or values straight into the columns, walked and written in one pass by
 * each class's steps (model/columns_plan.h) compiled into Parquet ops
 * (fmap_ops.c).
 */
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "model/columns_plan.h"
#include "model/field_class.h"
#include "sink/parquet/fmap.h"
#include "sink/parquet/fmap_ops.h"
#include "sink/parquet/labels.h"
#include "sink/parquet/record.h"

/*
 * Each value goes into the record, or straight into its column with the
 * bytes its record entry would have taken counted (see fmap.h).
 */
static inline unsigned int_width(const struct pq_rec_emit *em, int col)
{
	return pq_int_width(em->ci[col].phys);
}

/*
 * An integer of a column that is not repeated, present: the hottest store
 * of the output (most values are such integers).  One 8-byte store either
 * way (an INT32 keeps 4 of them), not asking for room: the table made
 * room for the row in every such column (pq_table_direct_room), and one
 * that ran out of memory made none.
 */
static inline __attribute__((always_inline)) void col_int_top(struct pq_col *c, uint64_t bits)
{
	struct tmx_buf *v = &c->vals;
	unsigned w = c->int_width;

	if (c->defs_stored)
		tmx_buf_byte(&c->defs, c->max_def);
	pq_col_put8(v, bits, w);
	/* n_levels and n_vals: one level per row, set when the group ends (pq_table_flush) */
}

void pq_emit_null(const struct pq_rec_emit *em, int col, uint8_t rep, uint8_t def)
{
	if (em->rec) {
		pq_rec_null(em->rec, (uint32_t)col, rep, def);
		return;
	}
	pq_col_null(&em->cols[col], rep, def);
	*em->bytes += PQ_REC_HEAD;
}

static inline __attribute__((always_inline)) void emit_int(const struct pq_rec_emit *em, int col,
							    uint8_t rep, uint64_t bits)
{
	struct pq_col *c;

	if (em->rec) {
		pq_rec_int(em->rec, em->ci, (uint32_t)col, rep, bits);
		return;
	}
	c = &em->cols[col];
	if (rep || c->max_rep)
		pq_col_int_put(c, rep, c->max_def, bits);
	else
		col_int_top(c, bits);
	*em->bytes += PQ_REC_HEAD + int_width(em, col);
}

static __attribute__((noinline)) void emit_int_call(const struct pq_rec_emit *em, int col,
						    uint8_t rep, uint64_t bits)
{
	emit_int(em, col, rep, bits);
}

void pq_emit_int(const struct pq_rec_emit *em, int col, uint8_t rep, uint64_t bits)
{
	struct pq_col *c = em->rec ? NULL : &em->cols[col];

	/*
	 * The CPU column of a direct row (once per row) without a call: a
	 * store and its count.  The other cases are a call of their own,
	 * which inline made the compiler save six registers for every one.
	 */
	if (__builtin_expect(c && !rep && !c->max_rep && !c->defs_stored, 1)) {
		pq_col_put8(&c->vals, bits, c->int_width);
		*em->bytes += PQ_REC_HEAD + c->int_width;
		return;
	}
	emit_int_call(em, col, rep, bits);
}

static void emit_double(const struct pq_rec_emit *em, int col, uint8_t rep, double v)
{
	struct pq_col *c;

	if (em->rec) {
		pq_rec_double(em->rec, em->ci, (uint32_t)col, rep, v);
		return;
	}
	c = &em->cols[col];
	pq_col_double(c, rep, c->max_def, v);
	*em->bytes += PQ_REC_HEAD + 8;
}

static void emit_bool(const struct pq_rec_emit *em, int col, uint8_t rep, bool v)
{
	struct pq_col *c;

	if (em->rec) {
		pq_rec_bool(em->rec, em->ci, (uint32_t)col, rep, v);
		return;
	}
	c = &em->cols[col];
	pq_col_bool(c, rep, c->max_def, v);
	*em->bytes += PQ_REC_HEAD + 1;
}

/* A byte array as it is (strings: made UTF-8 by pq_rec_text). */
static void emit_bytes(const struct pq_rec_emit *em, int col, uint8_t rep, const void *s,
		       size_t n)
{
	struct pq_col *c;

	if (em->rec) {
		pq_rec_bytes(em->rec, em->ci, (uint32_t)col, rep, s, n);
		return;
	}
	c = &em->cols[col];
	if (n > UINT32_MAX) {   /* no Parquet page holds it: the row group fails */
		c->vals.oom = true;
		return;
	}
	pq_col_bytes(c, rep, c->max_def, s, n);
	*em->bytes += PQ_REC_HEAD + 4 + n;
}

/* col_int_top() of an INT64 column (the fixed ones). */
static inline __attribute__((always_inline)) void col_int64_top(struct pq_col *c, uint64_t bits)
{
	struct tmx_buf *v = &c->vals;

	if (c->defs_stored)
		tmx_buf_byte(&c->defs, c->max_def);
	pq_col_put8(v, bits, 8);
}

/* pq_emit_fixed's every case. */
static __attribute__((noinline)) void emit_fixed(const struct pq_rec_emit *em, const uint64_t *ts,
						 const uint64_t ids[2])
{
	struct pq_col *c = em->cols;

	/* The fixed columns are INT64 (tracemux/columns.h): 2 runs of 2, or 2 nulls and a run. */
	if (ts) {
		col_int64_top(&c[TMX_COLUMN_TS], ts[0]);
		col_int64_top(&c[TMX_COLUMN_CYCLES], ts[1]);
		*em->bytes += 2 * (PQ_REC_HEAD + 16);
	} else {
		pq_col_null(&c[TMX_COLUMN_TS], 0, 0);
		pq_col_null(&c[TMX_COLUMN_CYCLES], 0, 0);
		*em->bytes += 3 * PQ_REC_HEAD + 16;
	}
	if (em->pk_known)   /* the stream's ids are the packet's, in the table */
		return;
	col_int64_top(&c[TMX_COLUMN_STREAM_ID], ids[0]);
	col_int64_top(&c[TMX_COLUMN_STREAM_CLASS_ID], ids[1]);
}

void pq_emit_fixed(const struct pq_rec_emit *em, const uint64_t *ts, const uint64_t ids[2])
{
	struct pq_col *c = em->cols;

	/*
	 * A direct row with a time whose columns have had no null (most
	 * rows; the ids never have one): four stores without a call, as
	 * pq_emit_int's (two when the packet's are the table's).
	 */
	if (__builtin_expect(ts && !c[TMX_COLUMN_TS].defs_stored &&
				     !c[TMX_COLUMN_CYCLES].defs_stored,
			     1)) {
		pq_col_put8(&c[TMX_COLUMN_TS].vals, ts[0], 8);
		pq_col_put8(&c[TMX_COLUMN_CYCLES].vals, ts[1], 8);
		if (!em->pk_known) {
			pq_col_put8(&c[TMX_COLUMN_STREAM_ID].vals, ids[0], 8);
			pq_col_put8(&c[TMX_COLUMN_STREAM_CLASS_ID].vals, ids[1], 8);
		}
		*em->bytes += 2 * (PQ_REC_HEAD + 16);
		return;
	}
	emit_fixed(em, ts, ids);
}

/*
 * `n` (at least 1) integers (tmx_value.u) straight into columns c[0, n),
 * not repeated: the first before the loop, which the compiler then does
 * not test for none (about 25 instructions an event fewer on CTF).
 */
static inline __attribute__((always_inline)) void cols_int_top(struct pq_col *c,
							      const struct tmx_value *v, unsigned n)
{
	col_int_top(c, v->u);
	for (unsigned k = 1; k < n; k++)
		col_int_top(&c[k], v[k].u);
}

/*
 * `n` integers (tmx_value.u) of columns col, col + 1... (a run: see
 * pq_rec_ints), whose record entry takes `bytes`.
 */
static inline void emit_ints(const struct pq_rec_emit *em, int col, const struct tmx_value *v,
			     size_t n, size_t bytes)
{
	if (em->rec) {
		pq_rec_ints(em->rec, em->ci, (uint32_t)col, v, n);
		return;
	}
	cols_int_top(&em->cols[col], v, (unsigned)n);
	*em->bytes += bytes;
}

/* The bytes of a run's record entry (pq_rec_ints). */
static size_t ints_bytes(const struct pq_rec_emit *em, int col, size_t n)
{
	size_t bytes = PQ_REC_HEAD;

	for (size_t k = 0; k < n; k++)
		bytes += int_width(em, col + (int)k);
	return bytes;
}

/* `n` (4 or 8) little-endian bytes of `v` at `p`. */
static inline void le_put(uint8_t *p, uint64_t v, unsigned n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 8) {
		memcpy(p, &v, 8);
	} else {
		uint32_t w = (uint32_t)v;
		memcpy(p, &w, 4);
	}
#else
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* A LIST's `n` (> 0) integer elements (see pq_rec_elems). */
static void emit_elems(const struct pq_rec_emit *em, int col, uint8_t rep, uint8_t elem_rep,
		       const struct tmx_value *v, uint32_t n)
{
	struct pq_col *c;
	unsigned w;

	if (em->rec) {
		pq_rec_elems(em->rec, em->ci, (uint32_t)col, rep, elem_rep, v, n);
		return;
	}
	c = &em->cols[col];
	w = int_width(em, col);
	/* Levels: every element present (the deepest level), the first at `rep` (as pq_rec_apply_elems). */
	if (c->max_rep && pq_fill(&c->reps, elem_rep, n))
		c->reps.p[c->reps.len - n] = rep;
	if (c->max_def)
		pq_fill(&c->defs, c->max_def, n);
	if (tmx_buf_reserve(&c->vals, (size_t)w * n)) {
		uint8_t *p = c->vals.p + c->vals.len;

		c->vals.len += (size_t)w * n;
		if (w == 8) {
			for (uint32_t k = 0; k < n; k++, p += 8)
				le_put(p, v[k].u, 8);
		} else {
			for (uint32_t k = 0; k < n; k++, p += 4)
				le_put(p, v[k].u, 4);
		}
	}
	c->n_levels += n;
	c->n_vals += n;
	*em->bytes += PQ_REC_HEAD + 4 + (size_t)w * n;
}

/* Every column of the field: absent at its level. */
static void nulls(const struct pq_rec_emit *em, const struct pq_fmap *fm, uint8_t rep)
{
	for (int c = fm->col_begin; c < fm->col_end; c++)
		pq_emit_null(em, c, rep, fm->null_def);
}

/*
 * p[0, n) as UTF-8: itself when it is, else a copy in `scratch` where each
 * byte that is not part of valid UTF-8 is the code point of its value, as
 * in JSON.  Returns the bytes, their length in *out_n.
 */
static const char *utf8_text(struct tmx_buf *scratch, const char *p, size_t n, size_t *out_n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0, l;
	uint64_t w;

	/* ASCII, 8 bytes at a time: most text is; the tail as the last 8 bytes or byte by byte. */
	while (i + 8 <= n) {
		memcpy(&w, s + i, 8);
		if (w & 0x8080808080808080ull)
			break;
		i += 8;
	}
	if (i < n && i + 8 > n) {
		uint8_t high = 0;

		if (n >= 8) {
			memcpy(&w, s + n - 8, 8);
			high = (w & 0x8080808080808080ull) != 0;
		} else {
			for (size_t k = i; k < n; k++)
				high |= s[k];
			high &= 0x80;
		}
		if (!high)
			i = n;
	}
	while (i < n && (l = tmx_utf8_seq_len(s + i, n - i)))
		i += l;
	*out_n = n;
	if (i == n)
		return p;
	scratch->len = 0;
	tmx_buf_put(scratch, s, i);
	for (; i < n; i += l) {
		l = tmx_utf8_seq_len(s + i, n - i);
		if (l) {
			tmx_buf_put(scratch, s + i, l);
			continue;
		}
		tmx_buf_byte(scratch, (uint8_t)(0xC0 | s[i] >> 6));
		tmx_buf_byte(scratch, (uint8_t)(0x80 | (s[i] & 0x3F)));
		l = 1;
	}
	*out_n = scratch->len;
	return (const char *)scratch->p;
}

void pq_put_text(const struct pq_emit *em, int col, uint8_t rep, const char *p, size_t n)
{
	struct pq_col *c = &em->cols[col];
	const char *t = utf8_text(em->scratch, p, n, &n);

	pq_col_bytes(c, rep, c->max_def, t, n);
}

/*
 * A text array's string as babeltrace2 reads it, up to its first NUL
 * (tmx_value_text_len): 8 bytes at a time, the last 8 overlapping (the
 * bytes before them have no NUL), by pq_zero_bytes.  Most arrays are
 * short (comm[16]), where memchr's call was most of the cost; longer ones
 * and those under 8 bytes by memchr.
 */
static inline size_t text_len(const struct tmx_value *v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const char *p = v->str.ptr;
	size_t n = (size_t)v->str.len;
	uint64_t w, z;

	if (n < 8 || n > 64)
		return tmx_value_text_len(v);
	for (size_t i = 0;; i += 8) {
		if (i + 8 > n)
			i = n - 8;
		memcpy(&w, p + i, 8);
		z = pq_zero_bytes(w);
		if (z)
			return i + (size_t)__builtin_ctzll(z) / 8;
		if (i + 8 == n)
			return n;
	}
#else
	return tmx_value_text_len(v);
#endif
}

/* Strings up to so many bytes go into records by rec_ascii_at. */
#define REC_ASCII_MAX 256

/*
 * Into a record at `h` (room for its PQ_REC_HEAD + 4 + n bytes made), a
 * string of ASCII (most are: names, states, files) of at most
 * REC_ASCII_MAX bytes, checked while it is copied, 8 bytes at a time: one
 * pass over it rather than utf8_text's then memcpy's.  Returns its
 * entry's end, or NULL when it is not all ASCII (the bytes at `h` are
 * not the record's then): pq_rec_text's own way.
 */
static inline uint8_t *rec_ascii_at(uint8_t *h, const struct pq_colinfo *ci, int col, uint8_t rep,
				    const char *p, size_t n)
{
	uint64_t high = 0, w;
	uint32_t len = (uint32_t)n, a, z;
	uint8_t *d = h + PQ_REC_HEAD + 4;

	/* Moves that overlap (the same bytes twice) rather than a loop by byte: most are short. */
	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&w, p + i, 8);
			memcpy(d + i, &w, 8);
			high |= w;
		}
		memcpy(&w, p + n - 8, 8);
		memcpy(d + n - 8, &w, 8);
		high |= w;
	} else if (n >= 4) {
		memcpy(&a, p, 4);
		memcpy(&z, p + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &z, 4);
		high = a | z;
	} else if (n) {   /* the first, middle and last bytes: all of them */
		d[0] = (uint8_t)p[0];
		d[n / 2] = (uint8_t)p[n / 2];
		d[n - 1] = (uint8_t)p[n - 1];
		high = (uint8_t)(p[0] | p[n / 2] | p[n - 1]);
	}
	if (high & 0x8080808080808080ull)
		return NULL;
	memcpy(pq_rec_head_at(h, (uint32_t)col, rep, ci[col].max_def), &len, 4);
	return d + n;
}

/*
 * rec_ascii_at at the end of the record; false, the record as it was,
 * when the string is not ASCII or is long.
 */
static bool rec_ascii(const struct pq_rec_emit *em, int col, uint8_t rep, const char *p,
		      size_t n)
{
	struct tmx_buf *b = em->rec;
	uint8_t *end;

	if (n > REC_ASCII_MAX || !tmx_buf_reserve(b, PQ_REC_HEAD + 4 + n) ||
	    !(end = rec_ascii_at(b->p + b->len, em->ci, col, rep, p, n)))
		return false;
	b->len = (size_t)(end - b->p);
	return true;
}

/*
 * Straight into a column with a dictionary, a string it has (true; else
 * nothing): it needs no check (its entries went through utf8_text), and
 * most strings are one of a few (names, states, files).
 */
static inline bool text_known(const struct pq_rec_emit *em, int col, uint8_t rep, const char *p,
			      size_t n)
{
	struct pq_col *c = &em->cols[col];

	if (!pq_col_bytes_known(c, rep, c->max_def, p, n))
		return false;
	*em->bytes += PQ_REC_HEAD + 4 + n;
	return true;
}

/* pq_rec_text of a string that is not text_known's. */
static void text_put(const struct pq_rec_emit *em, int col, uint8_t rep, const char *p, size_t n)
{
	const char *t;

	if (em->rec && rec_ascii(em, col, rep, p, n))
		return;
	t = utf8_text(em->scratch, p, n, &n);
	emit_bytes(em, col, rep, t, n);
}

void pq_rec_text(const struct pq_rec_emit *em, int col, uint8_t rep, const char *p, size_t n)
{
	if (em->rec || !text_known(em, col, rep, p, n))
		text_put(em, col, rep, p, n);
}

/*
 * The labels of an enumeration's value or a bit map's active flags, joined
 * by ", ", into column `col` (null at `null_def` when none applies).
 */
static void put_labels(const struct pq_rec_emit *em, const struct tmx_field_class *fc, int col,
		       uint8_t null_def, uint64_t u, uint8_t rep)
{
	size_t n;
	bool memo;
	const char *p = pq_labels_get(em->labels, fc, u, &n, &memo);
	struct tmx_buf *b = em->rec;
	uint32_t len = (uint32_t)n;
	uint8_t *h;

	if (!n) {
		pq_emit_null(em, col, rep, null_def);
	} else if (!memo || !b) {   /* sequentially, most are found in the dictionary unchecked */
		pq_rec_text(em, col, rep, p, n);
	} else if (tmx_buf_reserve(b, PQ_REC_HEAD + 4 + PQ_LABEL_READ)) {
		/*
		 * A memoized text, valid UTF-8 already: into the record by
		 * moves of PQ_LABEL_READ bytes.  Those past its entry are
		 * room of the record's, which the next entries overwrite.
		 */
		h = pq_rec_head_at(b->p + b->len, (uint32_t)col, rep, em->ci[col].max_def);
		memcpy(h, &len, 4);
		memcpy(h + 4, p, PQ_LABEL_READ);
		b->len += PQ_REC_HEAD + 4 + n;
	}
}

/*
 * put_labels for fmap_emit, which most events' fields go through: inlined
 * there it costs them more (registers) than the call saves.
 */
static __attribute__((noinline)) void put_labels_call(const struct pq_rec_emit *em,
						      const struct tmx_field_class *fc, int col,
						      uint8_t null_def, uint64_t u, uint8_t rep)
{
	put_labels(em, fc, col, null_def, u, rep);
}

static size_t fmap_emit(const struct pq_rec_emit *em, const struct pq_fmap *fm,
			const struct tmx_value *vals, size_t i, uint8_t rep);

static size_t emit_list(const struct pq_rec_emit *em, const struct pq_fmap *fm,
			const struct tmx_value *vals, size_t i, uint8_t rep)
{
	uint64_t count = vals[i].count;

	/* Not the count of its class (pq_fcols_static): the record's heads are not the class's. */
	if (em->varied && fm->fc && fm->fc->kind == TMX_FC_ARRAY && count != fm->fc->length)
		*em->varied = true;
	i++;
	if (!count) {
		for (int c = fm->col_begin; c < fm->col_end; c++)
			pq_emit_null(em, c, rep, fm->list_def);
		return i;
	}
	/* Integers (byte arrays of a sequence, most often): one entry. */
	if (fm->children[0].how == PQ_F_INT && count <= UINT32_MAX) {
		emit_elems(em, fm->children[0].col, rep, fm->elem_rep, &vals[i], (uint32_t)count);
		return i + count;
	}
	for (uint64_t k = 0; k < count; k++)
		i = fmap_emit(em, &fm->children[0], vals, i, k ? fm->elem_rep : rep);
	return i;
}

/* The value at vals[i] and its subtree as record entries; returns the index after it. */
static size_t fmap_emit(const struct pq_rec_emit *em, const struct pq_fmap *fm,
			const struct tmx_value *vals, size_t i, uint8_t rep)
{
	const struct tmx_value *v = &vals[i];
	const struct tmx_field_class *fc = fm->fc;

	switch (fm->how) {
	case PQ_F_INT:   /* signed or not, `u` has the value's bits */
		emit_int(em, fm->col, rep, v->u);
		return i + 1;
	case PQ_F_ENUM:
	case PQ_F_BITS:
		emit_int(em, fm->col, rep, v->u);
		if (fm->col2 >= 0)
			put_labels_call(em, fc, fm->col2, fm->null_def, v->u, rep);
		return i + 1;
	case PQ_F_FLOAT:
		emit_double(em, fm->col, rep, v->d);
		return i + 1;
	case PQ_F_BOOL:
		emit_bool(em, fm->col, rep, v->u != 0);
		return i + 1;
	case PQ_F_STRING:
		pq_rec_text(em, fm->col, rep, v->str.ptr, v->str.len);
		return i + 1;
	case PQ_F_TEXT:   /* as babeltrace2 reads a text array: up to its first NUL */
		pq_rec_text(em, fm->col, rep, v->str.ptr, text_len(v));
		return i + 1;
	case PQ_F_BLOB:
		emit_bytes(em, fm->col, rep, v->str.ptr, v->str.len);
		return i + 1;
	case PQ_F_STRUCT:
		i++;
		for (size_t m = 0; m < fm->n_children; m++)
			i = fmap_emit(em, &fm->children[m], vals, i, rep);
		return i;
	case PQ_F_VARIANT: {
		const char *name = fc->members[v->option].name;
		pq_rec_text(em, fm->col, rep, name ? name : "", name ? strlen(name) : 0);
		for (size_t o = 0; o < fm->n_children; o++)
			if (o != v->option)
				nulls(em, &fm->children[o], rep);
		return fmap_emit(em, &fm->children[v->option], vals, i + 1, rep);
	}
	case PQ_F_OPTIONAL:
		if (!v->present) {
			nulls(em, &fm->children[0], rep);
			return i + 1;
		}
		return fmap_emit(em, &fm->children[0], vals, i + 1, rep);
	default:
		return emit_list(em, fm, vals, i, rep);
	}
}

/* Integer columns from pc on whose values are consecutive: one record entry; returns their number. */
/* Model column pc's value `v` (NULL: absent). */
static void emit_column(const struct pq_rec_emit *em, const struct pq_fcol *pc,
			const struct tmx_value *v)
{
	const char *name;

	if (!v) {   /* an option not selected, an absent optional */
		for (int k = pc->col; k < pc->col_end; k++)
			pq_emit_null(em, k, 0, 0);
		return;
	}
	switch (pc->how) {
	case PQ_F_INT:   /* signed or not, `u` has the value's bits */
		emit_int(em, pc->col, 0, v->u);
		break;
	case PQ_F_FLOAT:
		emit_double(em, pc->col, 0, v->d);
		break;
	case PQ_F_BOOL:
		emit_bool(em, pc->col, 0, v->u != 0);
		break;
	case PQ_F_STRING:
		pq_rec_text(em, pc->col, 0, v->str.ptr, v->str.len);
		break;
	case PQ_F_TEXT:   /* as babeltrace2 reads a text array: up to its first NUL */
		pq_rec_text(em, pc->col, 0, v->str.ptr, text_len(v));
		break;
	case PQ_F_BLOB:
		emit_bytes(em, pc->col, 0, v->str.ptr, v->str.len);
		break;
	case PQ_F_LABEL:
		put_labels(em, v->fc, pc->col, 0, v->u, 0);
		break;
	case PQ_F_OPTION:
		name = v->fc->members[v->option].name;
		pq_rec_text(em, pc->col, 0, name ? name : "", name ? strlen(name) : 0);
		break;
	default:   /* PQ_F_LIST */
		fmap_emit(em, &pc->list, v, 0, 0);
		break;
	}
}

/*
 * Model columns [begin, end) from cells (a variant's or an optional's,
 * tmx_columns_walk_node()'s), integers of consecutive values as runs.
 */
static void emit_cells(const struct pq_rec_emit *em, const struct pq_fcols *fc,
		       const struct tmx_value *const *cells, int begin, int end)
{
	for (int c = begin; c < end;) {
		const struct pq_fcol *pc = &fc->cols[c];
		const struct tmx_value *v = cells[c];
		int n = 1;

		if (v && pc->how == PQ_F_INT) {
			while (n < pc->int_run && c + n < end && cells[c + n] == v + n)
				n++;
			if (n > 1) {
				emit_ints(em, pc->col, v, (size_t)n, ints_bytes(em, pc->col, (size_t)n));
				c += n;
				continue;
			}
		}
		emit_column(em, pc, v);
		c++;
	}
}

/* ---- the walk and the values in one pass ---- */

/*
 * An op other than OP_INTS and OP_CPU at vals[i]: the index after its
 * values.  `rec` is em->rec != NULL, a constant in each caller: no test
 * of em->rec, read again after each store, by op.
 */
static inline __attribute__((always_inline)) size_t run_op(const struct pq_rec_emit *em,
							   const struct pq_fcols *fc,
							   const struct pq_op *op,
							   const struct tmx_value *vals, size_t i,
							   const struct tmx_value **cells, bool rec)
{
	switch (op->op) {
	case OP_VAL:
	case OP_DOUBLE:
		emit_column(em, &fc->cols[op->a], &vals[i++]);
		break;
	case OP_ELEMS: {   /* a record's entry as emit_list's, without its calls and tests */
		const struct pq_fmap *fm = &fc->cols[op->a].list;
		const struct tmx_value *v = &vals[i++];

		if (rec && v->count == fm->fc->length)
			pq_rec_elems(em->rec, em->ci, (uint32_t)fm->children[0].col, 0, fm->elem_rep,
				     v + 1, (uint32_t)v->count);
		else
			emit_column(em, &fc->cols[op->a], v);
		break;
	}
	case OP_SEQ: {   /* a record's entry as emit_list's, without its calls */
		const struct pq_fmap *fm = &fc->cols[op->a].list;
		const struct tmx_value *v = &vals[i++];

		if (rec && v->count && v->count <= UINT32_MAX)
			pq_rec_elems(em->rec, em->ci, (uint32_t)fm->children[0].col, 0, fm->elem_rep,
				     v + 1, (uint32_t)v->count);
		else
			emit_column(em, &fc->cols[op->a], v);
		break;
	}
	case OP_TEXT: {   /* as emit_column, its dictionary tried first without a call */
		const struct tmx_value *v = &vals[i++];
		/* A text array as babeltrace2 reads it: up to its first NUL. */
		size_t n = op->b ? text_len(v) : v->str.len;

		if (rec || !text_known(em, op->a, 0, v->str.ptr, n))
			text_put(em, op->a, 0, v->str.ptr, n);
		break;
	}
	case OP_ENUM:
		emit_column(em, &fc->cols[op->a], &vals[i]);
		emit_column(em, &fc->cols[op->b], &vals[i++]);
		break;
	case OP_ARRAY:
		emit_column(em, &fc->cols[op->a], &vals[i]);
		i += 1 + (size_t)vals[i].count;
		break;
	case OP_TREE:
		emit_column(em, &fc->cols[op->a], &vals[i]);
		i = tmx_value_skip(vals, i);
		break;
	case OP_NODE:
		i = tmx_columns_walk_node(op->node, vals, i, cells);
		emit_cells(em, fc, cells, op->a, op->b);
		break;
	default:   /* OP_LABEL */
		emit_column(em, &fc->cols[op->a], &vals[i - 1]);
		break;
	}
	return i;
}

/* The values of `scopes` straight into the columns by the ops; returns the CPU field's value. */
const struct tmx_value *pq_fcols_emit_direct(const struct pq_rec_emit *em,
					     const struct pq_fcols *fc,
					     const struct tmx_value *const scopes[TMX_N_SCOPES],
					     const struct tmx_value **cells)
{
	const struct pq_op *op = fc->prog.ops, *end = op + fc->prog.n;
	const struct tmx_value *vals = NULL, *cpu = NULL;
	size_t i = 0, bytes = 0;

	if (em->pk_known) {   /* the packet context's values are the table's already: counted */
		op += fc->pk_ops;
		bytes = fc->pk_bytes;
	}
	for (; op < end; op++) {
		if (op->scope) {
			vals = scopes[op->scope - 1];
			i = 0;
		}
		i += op->pre;
		switch (op->op) {
		case OP_INTS:
		case OP_INT1:
		case OP_INTS4:
		case OP_INTS8:
			/*
			 * Top-level, not repeated, their bytes counted once for
			 * the event: the counter is in memory, which the stores
			 * to the columns could alias.
			 */
			cols_int_top(&em->cols[op->a], &vals[i], op->n);
			bytes += (size_t)op->b;
			i += op->n;
			break;
		case OP_CPU:
			cpu = &vals[i + (size_t)op->a];
			break;
		default:
			i = run_op(em, fc, op, vals, i, cells, false);
			break;
		}
	}
	if (bytes)
		*em->bytes += bytes;
	return cpu;
}

/*
 * The values of `scopes` as record entries at the end of em->rec, where
 * room for fc->rec_room bytes was made: the ops with a rec_bytes (runs,
 * static LISTs: their heads made once, pq_fcols_rec_heads) write there
 * without asking for room, the others through em->rec, after which the
 * room is made again.  Returns the CPU field's value (NULL also when
 * memory ran out: em->rec's `oom`).
 */
const struct tmx_value *pq_fcols_emit_rec(const struct pq_rec_emit *em, const struct pq_fcols *fc,
					  const struct tmx_value *const scopes[TMX_N_SCOPES],
					  const struct tmx_value **cells)
{
	const struct pq_op *op = fc->prog.ops, *end = op + fc->prog.n;
	const struct tmx_value *vals = NULL, *cpu = NULL;
	struct tmx_buf *b = em->rec;
	uint8_t *w = b->p + b->len;
	size_t i = 0;

	if (em->pk_known)   /* the packet's entries left out (format.c, pq_format_event) */
		op += fc->pk_ops;
	for (; op < end; op++) {
		if (op->scope) {
			vals = scopes[op->scope - 1];
			i = 0;
		}
		i += op->pre;
		switch (op->op) {
		case OP_INT1:   /* as pq_rec_int's: 8 bytes stored (rec_room counts them) */
			memcpy(w, &op->head, 8);
			pq_rec_run_value(w + PQ_REC_HEAD, vals[i].u, em->ci[op->a].phys);
			w += op->rec_bytes;
			i++;
			continue;
		case OP_INTS4:   /* the head's 6 bytes, and 2 that the values overwrite */
			memcpy(w, &op->head, 8);
			pq_rec_values4(w + PQ_REC_HEAD, &vals[i], op->n);
			w += op->rec_bytes;
			i += op->n;
			continue;
		case OP_INTS8:
			memcpy(w, &op->head, 8);
			pq_rec_values8(w + PQ_REC_HEAD, &vals[i], op->n);
			w += op->rec_bytes;
			i += op->n;
			continue;
		case OP_DOUBLE:   /* as pq_rec_double's */
			memcpy(w, &op->head, 8);
			memcpy(w + PQ_REC_HEAD, &vals[i].d, 8);
			w += op->rec_bytes;
			i++;
			continue;
		case OP_INTS: {   /* 8 bytes stored for each (rec_room counts them) */
			/* (in locals: the stores could alias the op and em, for all the compiler knows) */
			const struct pq_colinfo *ci = em->ci + op->a;
			const struct tmx_value *v = &vals[i];
			unsigned n = op->n;
			uint8_t *p = w + PQ_REC_HEAD;

			memcpy(w, &op->head, 8);
			for (unsigned k = 0; k < n; k++)
				p = pq_rec_run_value(p, v[k].u, ci[k].phys);
			w += op->rec_bytes;
			i += n;
			continue;
		}
		case OP_TEXT: {   /* an ASCII string in the room left over rec_room, else run_op's way */
			const struct tmx_value *v = &vals[i];
			size_t n = v->str.len;
			uint8_t *e;

			if (n <= REC_ASCII_MAX &&
			    (size_t)(b->p + b->cap - w) >= PQ_REC_HEAD + 4 + n + fc->rec_room &&
			    (e = op->b ? pq_rec_text_array_at(w, em->ci, (uint32_t)op->a, v->str.ptr, n)
				       : rec_ascii_at(w, em->ci, op->a, 0, v->str.ptr, n))) {
				w = e;
				i++;
				continue;
			}
			break;
		}
		case OP_ELEMS:   /* pq_rec_elems's entry, the count overwriting the head's last 2 */
			if (op->rec_bytes && vals[i].count == (uint64_t)op->b) {
				memcpy(w, &op->head, 8);
				memcpy(w + PQ_REC_HEAD, &op->b, 4);
				if (op->rec_bytes == PQ_REC_HEAD + 4 + 8 * (uint32_t)op->b)
					pq_rec_values8(w + PQ_REC_HEAD + 4, &vals[i + 1], (unsigned)op->b);
				else
					pq_rec_values4(w + PQ_REC_HEAD + 4, &vals[i + 1], (unsigned)op->b);
				w += op->rec_bytes;
				i += 1 + (size_t)op->b;
				continue;
			}
			break;
		case OP_CPU:
			cpu = &vals[i + (size_t)op->a];
			continue;
		}
		b->len = (size_t)(w - b->p);
		i = run_op(em, fc, op, vals, i, cells, true);
		if (!tmx_buf_reserve(b, fc->rec_room))
			return NULL;
		w = b->p + b->len;
	}
	b->len = (size_t)(w - b->p);
	return cpu;
}
