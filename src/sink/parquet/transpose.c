/*
 * A row group's records (record.h) into its columns, by blocks of rows of
 * one layout: applying records row by row reads each entry's head, finds
 * its kind and its column, stores a value and asks for room, for every
 * value (most of the parallel path's extra work over the sequential one,
 * which writes the columns directly).  Rows of a class most often have
 * the same entries (a null in the same columns, a value in the others):
 * each entry is then at the same offset in every row, or in every row's
 * segment when strings and LISTs (whose lengths differ) cut the row into
 * segments, and a block of rows is applied entry by entry: integer
 * columns' values gathered by tight loops (a run's columns of one width
 * by up to 4 in one pass over the rows), a LIST's elements and a
 * string column's dictionary indices stored with room asked for once,
 * definition levels set by memset (left out, as the sequential path
 * does, in integer columns without nulls).  The columns get the same
 * bytes in the same order as row by row: each column is written by one
 * entry of the layout at most (checked when the layout is made), and the
 * names' include entries go through record.h's own state in row order.
 *
 * A row's layout is that of its first row (from one include entry, which
 * starts every row, to the next); the rows that follow are checked to
 * have the same heads (and, until a layout falls short, LIST element
 * counts) at the same offsets, which by induction from the row's start
 * (each segment's start following from its byte array's or LIST's
 * length) makes them the same layout.
 * Rows that differ are applied row by row (pq_rec_apply_entries), and
 * the layout of a later row tried again.  Rows of a class whose heads do
 * not depend on its values (the include entry's marker, record.h) are of
 * the layout when their include entry is the first row's: their other
 * heads are not read (and rows of one segment, then of one length, are
 * found by a loop of their own, same_rows).
 */
#include <string.h>

#include "sink/parquet/record.h"

#define LAYOUT_MAX 48   /* entries of a row laid out; more: row by row */
#define SEGS_MAX 8      /* byte arrays of a row laid out, + 1 */
#define BLOCK_ROWS 128  /* rows checked, then applied entry by entry */
#define RETRY_ROWS 32   /* rows applied row by row after a layout that held few rows, */
#define RETRY_MAX 4096  /* twice as many each time, up to this */
#define LONG_BYTES 2048 /* a layout that held that many bytes of rows held many */

enum op { OP_INCLUDE, OP_RUN, OP_INT, OP_INT_REP, OP_NULL, OP_ELEMS, OP_DOUBLE, OP_BOOL, OP_BYTES };

/*
 * An entry of a layout.  A row is cut into segments after each byte
 * array (whose length differs from row to row): an entry is at a fixed
 * offset in its segment.
 */
struct lentry {
	uint8_t op, rep, def, n;  /* n: columns of a run */
	uint8_t seg;
	bool count;               /* a LIST whose element count is checked (not a segment's end) */
	uint32_t col;             /* the (first) column, kind bits cleared */
	uint32_t off;             /* of its head in its segment */
};

struct layout {
	unsigned n, n_checks, n_segs;
	/*
	 * Its include entry says that its rows' heads are the same
	 * (record.h): rows whose first 14 bytes are `heads` (that head and
	 * the names' address) have its heads, unchecked.
	 */
	bool static_heads;
	uint64_t heads[2];
	struct lentry e[LAYOUT_MAX];
	/*
	 * Each segment: the bytes its checks and its byte array's length
	 * read from its start (`need`), the offset of that length (the
	 * segment's last entry), or of the row's end in the last segment.
	 */
	struct seg {
		uint32_t need, len_at;
		uint32_t unit;        /* bytes per unit of that length */
		unsigned checks;      /* its checks end there in check[] */
	} seg[SEGS_MAX];
	struct check {            /* make_checks() */
		uint64_t mask, want;
		uint32_t off;
	} check[2 * LAYOUT_MAX];
};

static inline unsigned width(const struct pq_col *c)
{
	return pq_int_width(c->type.phys);
}

/*
 * The size of the value of the entry whose head is at `h` (what follows
 * the head); *fixed false for a byte array or a LIST's elements (rows
 * may differ in their length).
 */
static size_t value_size(const struct pq_col *cols, const uint8_t *h, bool *fixed)
{
	uint32_t col, n;
	size_t s = 0;

	memcpy(&col, h, 4);
	*fixed = true;
	if (col & PQ_REC_ELEMS) {
		memcpy(&n, h + PQ_REC_HEAD, 4);
		*fixed = false;
		return 4 + (size_t)n * width(&cols[col & ~PQ_REC_ELEMS]);
	}
	if (col == PQ_REC_INCLUDE)
		return sizeof(const struct tmx_buf *);
	if (col & PQ_REC_NULL)
		return 0;
	if (col & PQ_REC_RUN) {
		for (unsigned k = 0; k < h[5]; k++)
			s += width(&cols[(col & ~PQ_REC_RUN) + k]);
		return s;
	}
	switch (cols[col].type.phys) {
	case PQ_INT32:
		return 4;
	case PQ_INT64:
	case PQ_FLOAT:
	case PQ_DOUBLE:
		return 8;
	case PQ_BOOLEAN:
		return 1;
	default:
		memcpy(&n, h + PQ_REC_HEAD, 4);
		*fixed = false;
		return 4 + (size_t)n;
	}
}

static bool is_include(const uint8_t *h)
{
	uint32_t col;

	memcpy(&col, h, 4);
	return col == PQ_REC_INCLUDE;
}

/* The end of the row at `p` (its include entry, then up to the next one), at most `end`. */
static const uint8_t *row_end(const struct pq_col *cols, const uint8_t *p, const uint8_t *end)
{
	bool fixed;

	if (!is_include(p))
		return end;   /* rows without their names' entry first: not told apart */
	do
		p += PQ_REC_HEAD + value_size(cols, p, &fixed);
	while (p < end && !is_include(p));
	return p;
}

/* Whether columns [a, a + na) and [b, b + nb) meet. */
static bool overlap(uint32_t a, unsigned na, uint32_t b, unsigned nb)
{
	return a < b + nb && b < a + na;
}

static inline uint32_t max32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/*
 * What every row of the layout has the same, as 8-byte words (read
 * forward from each head) compared under a mask: each head (6 bytes).
 * `base`: the first row's segments.
 */
static void make_checks(struct layout *l, const uint8_t *const *base)
{
	l->n_checks = 0;
	for (unsigned k = 0; k < l->n; k++) {
		const struct lentry *e = &l->e[k];
		size_t bytes = e->count ? PQ_REC_HEAD + 4 : PQ_REC_HEAD;
		uint32_t at = e->off;

		while (bytes) {
			size_t n = bytes < 8 ? bytes : 8;
			struct check *c = &l->check[l->n_checks++];
			uint64_t w;

			memcpy(&w, base[e->seg] + at, 8);
			c->off = at;
			l->seg[e->seg].checks = l->n_checks;
			c->mask = n == 8 ? ~0ull : (1ull << (8 * n)) - 1;
			c->want = w & c->mask;
			l->seg[e->seg].need = max32(l->seg[e->seg].need, at + 8);
			at += (uint32_t)n;
			bytes -= n;
		}
	}
}

/*
 * The layout of the row at `p`; false when its rows cannot be applied by
 * entries, *never when its class's rows cannot (too many entries or byte
 * arrays, a column written twice, rows not told apart).
 */
static bool make_layout(struct layout *l, const struct pq_col *cols, const uint8_t *p,
			const uint8_t *end, bool var_elems, bool *never)
{
	const uint8_t *q = p, *base[SEGS_MAX];

	*never = true;
	if (!is_include(p))
		return false;
	memset(l->seg, 0, sizeof(l->seg));
	l->n = 0;
	l->n_segs = 1;
	base[0] = p;
	do {
		struct lentry *e;
		uint32_t col;
		bool fixed;
		size_t s = value_size(cols, q, &fixed);

		if (l->n == LAYOUT_MAX)
			return false;
		e = &l->e[l->n++];
		memcpy(&col, q, 4);
		*e = (struct lentry){ .rep = q[4], .def = q[5], .n = 1, .seg = (uint8_t)(l->n_segs - 1),
				      .off = (uint32_t)(q - base[l->n_segs - 1]) };
		if (col & PQ_REC_ELEMS) {
			e->op = OP_ELEMS;
			e->col = col & ~PQ_REC_ELEMS;
			/* Its element count the same in every row, unless they differ. */
			e->count = !var_elems;
			fixed = e->count;
		} else if (col == PQ_REC_INCLUDE) {
			e->op = OP_INCLUDE;
			e->n = 0;   /* its columns are only ever written by include entries */
		} else if (col & PQ_REC_NULL) {
			e->op = OP_NULL;
			e->col = col & ~PQ_REC_NULL;
		} else if (col & PQ_REC_RUN) {
			e->op = OP_RUN;
			e->col = col & ~PQ_REC_RUN;
			e->n = q[5];
		} else {
			const struct pq_col *c = &cols[col];

			e->col = col;
			if (!fixed)
				e->op = OP_BYTES;
			else if (c->type.phys == PQ_INT32 || c->type.phys == PQ_INT64)
				e->op = c->max_rep ? OP_INT_REP : OP_INT;
			else if (c->type.phys == PQ_BOOLEAN)
				e->op = OP_BOOL;
			else
				e->op = OP_DOUBLE;
		}
		/* A column written by two entries of a row would get its values out of order. */
		for (unsigned k = 0; k + 1 < l->n; k++)
			if (overlap(l->e[k].col, l->e[k].n, e->col, e->n))
				return false;
		q += PQ_REC_HEAD + s;
		if (!fixed) {   /* a new segment after the bytes */
			if (l->n_segs == SEGS_MAX)
				return false;
			l->seg[l->n_segs - 1].len_at = e->off + PQ_REC_HEAD;
			l->seg[l->n_segs - 1].unit = e->op == OP_ELEMS ? width(&cols[e->col]) : 1;
			base[l->n_segs++] = q;
		}
	} while (q < end && !is_include(q));
	*never = false;
	/* The last segment: where the row ends. */
	l->seg[l->n_segs - 1].len_at = (uint32_t)(q - base[l->n_segs - 1]);
	/* Its checks read 8 bytes from each head: the first row has them. */
	for (unsigned k = 0; k < l->n; k++) {
		const struct lentry *e = &l->e[k];
		if ((size_t)(end - base[e->seg]) < (size_t)e->off + (e->count ? 16 : 8))
			return false;
	}
	make_checks(l, base);
	/* An include entry's head first (above), its marker in the repetition level's byte. */
	l->static_heads = p[4] != 0;
	if (l->static_heads) {
		memcpy(&l->heads[0], p, 8);
		memcpy(&l->heads[1], p + 6, 8);
		l->seg[0].need = max32(l->seg[0].need, PQ_REC_HEAD + 8);
	}
	for (unsigned s = 0; s + 1 < l->n_segs; s++)
		l->seg[s].need = max32(l->seg[s].need, l->seg[s].len_at + 4);
	return true;
}

/*
 * Whether the row at `p` (before `end`) has the layout's heads and
 * element counts; its segments in base[], its end in *next.  The checks'
 * differences are looked at once, at the end: a row that differs is
 * rare, and a length read from it keeps the next segment before `end`.
 */
static inline bool same_layout(const struct layout *l, const uint8_t *p, const uint8_t *end,
			       const uint8_t **base, const uint8_t **next)
{
	uint64_t diff = 0;
	const struct check *c = l->check;
	const struct seg *sg = l->seg, *last = l->seg + l->n_segs - 1;

	if (l->static_heads) {   /* the include entry's head and address; no checks */
		uint64_t w[2];

		if ((size_t)(end - p) < sg->need)
			return false;
		memcpy(&w[0], p, 8);
		memcpy(&w[1], p + 6, 8);
		if ((w[0] ^ l->heads[0]) | (w[1] ^ l->heads[1]))
			return false;
		c = l->check + l->n_checks;
	}
	for (;; sg++) {
		const struct check *c_end = l->check + sg->checks;
		uint32_t len;

		if ((size_t)(end - p) < sg->need)
			return false;
		*base++ = p;
		for (; c < c_end; c++) {
			uint64_t w;

			memcpy(&w, p + c->off, 8);
			diff |= (w & c->mask) ^ c->want;
		}
		if (sg == last)
			break;
		/* past the byte array (need covers its length) */
		memcpy(&len, p + sg->len_at, 4);
		if ((size_t)(end - p) - sg->len_at - 4 < (size_t)len * sg->unit)
			return false;
		p += sg->len_at + 4 + (size_t)len * sg->unit;
	}
	if (diff || (size_t)(end - p) < sg->len_at)
		return false;
	*next = p + sg->len_at;
	return true;
}

/*
 * same_layout for rows of one segment and static heads (most of
 * trace.dat's): rows of the same length, whose first 14 bytes alone are
 * compared.  The rows from `p` of the layout, at most `max`: their
 * starts in base[], the end of the last in *next.
 */
static size_t same_rows(const struct layout *l, const uint8_t *p, const uint8_t *end,
			const uint8_t **base, size_t max, const uint8_t **next)
{
	size_t len = l->seg[0].len_at, need = max32(l->seg[0].need, l->seg[0].len_at), n = 0;

	/* The rows that fit before `end` (`need` bytes from their starts), counted at once. */
	if ((size_t)(end - p) < need)
		max = 0;
	else if ((size_t)(end - p - need) / len + 1 < max)
		max = (size_t)(end - p - need) / len + 1;
	for (; n < max; n++, p += len) {
		uint64_t w0, w1;

		memcpy(&w0, p, 8);
		memcpy(&w1, p + 6, 8);
		if ((w0 ^ l->heads[0]) | (w1 ^ l->heads[1]))
			break;
		base[n] = p;
	}
	*next = p;
	return n;
}

/*
 * The definition levels of `n` values of integer column `c`: left out
 * until the column's first null (pq_col.defs_stored), as the sequential
 * path's stores do; from it on, room asked for once a block: a null of
 * an earlier block of the chunk gave the levels only the room of those
 * before it (pq_col_defs_start).
 */
static inline void gather_defs(struct pq_col *c, uint8_t def, size_t n)
{
	if (c->max_def && c->defs_stored && tmx_buf_reserve(&c->defs, n)) {
		memset(c->defs.p + c->defs.len, def, n);
		c->defs.len += n;
	}
}

/*
 * The values of `k` integer columns from `c`, each `w` bytes wide, one
 * after the other from offset `off` of rows' segment `seg`
 * (base[i * stride + seg]): one pass over the rows for the k columns,
 * each row's address read once.  Constant k and w (inlined): the
 * copies unrolled, without width branches.
 */
static inline __attribute__((always_inline)) void gather_k(struct pq_col *c, unsigned k, unsigned w,
							   const uint8_t *const *base, unsigned stride,
							   size_t off, size_t n)
{
	uint8_t *d[4];

	for (unsigned j = 0; j < k; j++)
		d[j] = c[j].vals.p + c[j].vals.len;
#pragma GCC unroll 4
	for (size_t i = 0; i < n; i++, base += stride) {
		const uint8_t *v = *base + off;

#pragma GCC unroll 4
		for (unsigned j = 0; j < k; j++)
			memcpy(d[j] + i * w, v + j * w, w);
	}
	for (unsigned j = 0; j < k; j++)
		c[j].vals.len += n * w;
}

/*
 * gather_k's instances: by columns (1, 2, 4), then width (4, 8).  Functions
 * of their own: calls of gather_k under a switch were merged by GCC into
 * one loop of variable k and w (slower than one column at a time).
 */
#define GATHER_K(K, W)                                                                             \
	static void gather_##K##_##W(struct pq_col *c, const uint8_t *const *base, unsigned stride, \
				     size_t off, size_t n)                                          \
	{                                                                                          \
		gather_k(c, K, W, base, stride, off, n);                                           \
	}
GATHER_K(1, 4)
GATHER_K(1, 8)
GATHER_K(2, 4)
GATHER_K(2, 8)
GATHER_K(4, 4)
GATHER_K(4, 8)
#undef GATHER_K

static void (*const gather_fn[3][2])(struct pq_col *, const uint8_t *const *, unsigned, size_t, size_t) = {
	{ gather_1_4, gather_1_8 },
	{ gather_2_4, gather_2_8 },
	{ gather_4_4, gather_4_8 },
};

/*
 * Integers of the `nc` columns from `c` (a run's, or one column), one
 * after the other at offset `off` of rows' segment (see gather_k): by
 * groups of 4, 2 or 1 columns of the same width.
 */
static void gather(struct pq_col *c, unsigned nc, const uint8_t *const *base, unsigned stride,
		   size_t off, size_t n)
{
	while (nc) {
		unsigned w = width(c), k = 1;

		while (k < nc && k < 4 && width(&c[k]) == w)
			k++;
		k = k == 3 ? 2 : k;
		gather_fn[k / 2][w / 8](c, base, stride, off, n);
		c += k;
		nc -= k;
		off += (size_t)k * w;
	}
}

/*
 * `n` bytes (a multiple of 4) from `s` to `d`: up to 64 by two or four
 * moves of a power of two that overlap (the same bytes twice), without
 * a loop; more by 16 at a time.
 */
static inline void copy_elems(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n > 64) {
		size_t k = 0;

		for (; k + 16 <= n; k += 16)
			memcpy(d + k, s + k, 16);
		if (k < n)
			memcpy(d + n - 16, s + n - 16, 16);
	} else if (n > 32) {
		memcpy(d, s, 16);
		memcpy(d + 16, s + 16, 16);
		memcpy(d + n - 32, s + n - 32, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 16) {
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else {   /* 4 */
		memcpy(d, s, 4);
	}
}

/*
 * A LIST's elements of `n` rows whose element count is the layout's (a
 * checked count, lentry.count) into `c`, as pq_rec_apply_elems row by
 * row gives them: room asked for once, the levels of all rows set by
 * memset (each row's first repetition level then put in), the values
 * copied by copy_elems.  False, nothing done, without the room.
 */
static bool elems_block(struct pq_col *c, const struct lentry *e, const uint8_t *const *b,
			unsigned stride, size_t off, size_t n)
{
	unsigned w = width(c);
	uint32_t cnt;
	size_t tot, bytes;
	uint8_t *d;

	memcpy(&cnt, *b + off, 4);
	tot = (size_t)cnt * n;
	bytes = (size_t)cnt * w;
	if (!cnt || (c->max_rep && !tmx_buf_reserve(&c->reps, tot)) ||
	    (c->max_def && !tmx_buf_reserve(&c->defs, tot)) || !tmx_buf_reserve(&c->vals, tot * w))
		return false;
	if (c->max_rep) {
		uint8_t *r = c->reps.p + c->reps.len;

		memset(r, e->def, tot);   /* the others' level, in the def byte of the head */
		for (size_t i = 0; i < n; i++)
			r[i * cnt] = e->rep;
		c->reps.len += tot;
	}
	if (c->max_def) {
		memset(c->defs.p + c->defs.len, c->max_def, tot);
		c->defs.len += tot;
	}
	d = c->vals.p + c->vals.len;
	for (size_t i = 0; i < n; i++, b += stride, d += bytes)
		copy_elems(d, *b + off + 4, bytes);
	c->vals.len += tot * w;
	c->n_levels += tot;
	c->n_vals += tot;
	return true;
}

/*
 * Byte arrays of `n` rows into `c`, while its dictionary holds them, as
 * pq_col_bytes row by row gives them: room asked for once, their levels
 * set by memset.  The rows applied (the others, from the first value the
 * dictionary cannot take, are the caller's: pq_col_bytes drops it).
 */
static size_t bytes_block(struct pq_col *c, const struct lentry *e, const uint8_t *const *b,
			  unsigned stride, size_t off, size_t n)
{
	uint8_t *idx;
	size_t i;

	if (!c->dict_on || (c->max_rep && !tmx_buf_reserve(&c->reps, n)) ||
	    (c->max_def && !tmx_buf_reserve(&c->defs, n)) || !tmx_buf_reserve(&c->dict_idx, 4 * n))
		return 0;
	idx = c->dict_idx.p + c->dict_idx.len;
	for (i = 0; i < n; i++, b += stride, idx += 4) {
		uint32_t len, u;
		int64_t x;

		memcpy(&len, *b + off, 4);
		if ((x = pq_col_dict_entry(c, *b + off + 4, len)) < 0)
			break;
		u = (uint32_t)x;
		memcpy(idx, &u, 4);
	}
	if (c->max_rep) {
		memset(c->reps.p + c->reps.len, e->rep, i);
		c->reps.len += i;
	}
	if (c->max_def) {
		memset(c->defs.p + c->defs.len, e->def, i);
		c->defs.len += i;
	}
	c->dict_idx.len += 4 * i;
	c->n_levels += i;
	c->n_vals += i;
	*c->acct += 6 * i;   /* pq_col_levels' 2 and the entry's 4 */
	return i;
}

/* Rows of layout `l` (their segments in base[], n_segs each) into the columns, entry by entry. */
static void apply_block(struct pq_col *cols, const struct layout *l, const uint8_t *const *base,
			size_t n, struct pq_rec_apply_state *st)
{
	unsigned stride = l->n_segs;

	for (unsigned k = 0; k < l->n; k++) {
		const struct lentry *e = &l->e[k];
		const uint8_t *const *b = base + e->seg;
		size_t off = e->off + PQ_REC_HEAD, i;
		struct pq_col *c = &cols[e->col];

		switch (e->op) {
		case OP_INCLUDE:
			for (i = 0; i < n; i++, b += stride) {
				const struct tmx_buf *entries;

				memcpy(&entries, *b + off, sizeof(entries));
				/*
				 * Rows of static heads have the first row's
				 * include (same_layout compares its address):
				 * once it is the last one, the others are counted.
				 */
				if (l->static_heads && st->inc == entries) {
					st->pend += (uint32_t)(n - i);
					break;
				}
				pq_rec_apply_include(cols, entries, st);
			}
			break;
		case OP_RUN:
			for (unsigned j = 0; j < e->n; j++)
				gather_defs(&c[j], c[j].max_def, n);
			gather(c, e->n, b, stride, off, n);
			break;
		case OP_INT:
			gather_defs(c, e->def, n);
			gather(c, 1, b, stride, off, n);
			break;
		case OP_INT_REP:
			for (i = 0; i < n; i++, b += stride) {
				uint64_t u = 0;

				memcpy(&u, *b + off, width(c));   /* little-endian: the record's host order */
				pq_col_int_put(c, e->rep, e->def, u);
			}
			break;
		case OP_NULL:
			for (i = 0; i < n; i++)
				pq_col_null(c, e->rep, e->def);
			break;
		case OP_ELEMS:
			if (e->count && elems_block(c, e, b, stride, off, n))
				break;
			for (i = 0; i < n; i++, b += stride)
				pq_rec_apply_elems(c, e->rep, e->def, *b + off);
			break;
		case OP_DOUBLE:
			for (i = 0; i < n; i++, b += stride) {
				double d;

				memcpy(&d, *b + off, 8);
				pq_col_double(c, e->rep, e->def, d);
			}
			break;
		case OP_BOOL:
			for (i = 0; i < n; i++, b += stride)
				pq_col_bool(c, e->rep, e->def, (*b)[off]);
			break;
		default:
			i = bytes_block(c, e, b, stride, off, n);
			for (b += i * stride; i < n; i++, b += stride) {
				uint32_t len;

				memcpy(&len, *b + off, 4);
				pq_col_bytes(c, e->rep, e->def, *b + off + 4, len);
			}
			break;
		}
	}
}

/*
 * Rows from `p` of the layout of the row at `p`, applied by blocks; the
 * bytes applied (*never: see make_layout).
 */
static size_t apply_layout(struct pq_col *cols, const uint8_t *p, const uint8_t *end,
			   struct pq_rec_apply_state *st, bool var_elems, bool *never)
{
	struct layout l;
	const uint8_t *base[BLOCK_ROWS * SEGS_MAX], *from = p;

	if (!make_layout(&l, cols, p, end, var_elems, never))
		return 0;
	for (;;) {
		size_t n = 0;

		if (l.static_heads && l.n_segs == 1)
			n = same_rows(&l, p, end, base, BLOCK_ROWS, &p);
		else
			while (n < BLOCK_ROWS && p < end && same_layout(&l, p, end, base + n * l.n_segs, &p))
				n++;
		if (!n)
			return (size_t)(p - from);
		apply_block(cols, &l, base, n, st);
		if (n < BLOCK_ROWS)
			return (size_t)(p - from);
	}
}

void pq_rec_apply_rows(struct pq_col *cols, const uint8_t *r, size_t n, bool roomy,
		       struct pq_rec_apply_state *stp)
{
	struct pq_rec_apply_state st = *stp;
	const uint8_t *end = r + n;
	size_t retry = RETRY_ROWS, by_row = 0;
	unsigned short_ones = 0;
	bool var_elems = false;

	/*
	 * gather() stores without asking for room, host-order values as
	 * PLAIN's little-endian ones; the checks' masks are little-endian.
	 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	st.roomy = roomy;
	if (!roomy)
#else
	st.roomy = false;
#endif
	{
		pq_rec_apply_entries(cols, r, n, &st);
		*stp = st;
		return;
	}
	while (r < end) {
		const uint8_t *q;

		if (!by_row) {
			const uint8_t *from = r;
			bool never;

			r += apply_layout(cols, r, end, &st, var_elems, &never);
			if (never) {   /* the rest row by row, without looking for rows */
				pq_rec_apply_entries(cols, r, (size_t)(end - r), &st);
				break;
			}
			if (r == end)
				break;
			/*
			 * A row of another layout (a null, a longer LIST) is most
			 * often alone: its own layout is tried, then the next
			 * row's.  Layouts that keep holding few rows: the next
			 * rows row by row, for longer each time it happens again.
			 */
			if (r - from >= LONG_BYTES) {
				short_ones = 0;
				retry = RETRY_ROWS;
				continue;
			}
			/* LISTs whose length differs: segments from now on. */
			if (!var_elems) {
				var_elems = true;
				continue;
			}
			if (r != from && ++short_ones < 4)
				continue;
			short_ones = 0;
			by_row = retry;
			retry = retry < RETRY_MAX ? 2 * retry : retry;
		}
		q = row_end(cols, r, end);
		pq_rec_apply_entries(cols, r, (size_t)(q - r), &st);
		r = q;
		if (by_row)
			by_row--;
	}
	*stp = st;
}
