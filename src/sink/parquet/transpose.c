/*
 * A row group's records (record.h) into its columns, by blocks of rows of
 * one layout: applying records row by row reads each entry's head, finds
 * its kind and its column, stores a value and asks for room, for every
 * value (most of the parallel path's extra work over the sequential one,
 * which writes the columns directly).  Rows of a class most often have
 * the same entries with the same sizes (no string, the same number of
 * LIST elements, a null in the same columns): each entry's value is then
 * at the same offset in every row, and a block of rows is applied entry
 * by entry: an integer column's values gathered by a tight loop, its
 * definition levels set by memset.  The columns get the same bytes in the
 * same order as row by row: each column is written by one entry of the
 * layout at most (checked when the layout is made), and the names'
 * include entries go through record.h's own state in row order.
 *
 * A row's layout is that of its first row (from one include entry, which
 * starts every row, to the next); the rows that follow are checked to
 * have the same heads (and LIST element counts) at the same offsets,
 * which by induction from the row's start makes them the same layout.
 * Rows that differ are applied row by row (pq_rec_apply_entries), and
 * the layout of a later row tried again.
 */
#include <string.h>

#include "sink/parquet/record.h"

#define LAYOUT_MAX 48   /* entries of a row laid out; more: row by row */
#define BLOCK_ROWS 128  /* rows checked, then applied entry by entry */
#define RETRY_ROWS 32   /* rows applied row by row after a layout that held few rows, */
#define RETRY_MAX 4096  /* twice as many each time, up to this */

enum op { OP_INCLUDE, OP_RUN, OP_INT, OP_INT_REP, OP_NULL, OP_ELEMS, OP_DOUBLE, OP_BOOL };

struct lentry {
	uint8_t op, rep, def, n;  /* n: columns of a run */
	uint32_t col;             /* the (first) column, kind bits cleared */
	uint32_t off;             /* of its head in the row */
};

struct layout {
	const uint8_t *first;     /* the row the layout is made from */
	size_t len;               /* bytes of a row */
	unsigned n, n_checks;
	struct lentry e[LAYOUT_MAX];
	struct check {            /* make_checks() */
		uint32_t off;
		uint64_t mask, want;
	} check[2 * LAYOUT_MAX];
};

static inline unsigned width(const struct pq_col *c)
{
	return c->type.phys == PQ_INT32 ? 4 : 8;
}

/*
 * The size of the value of the entry whose head is at `h` (what follows
 * the head); *fixed false for a byte array (rows may differ in it).
 */
static size_t value_size(const struct pq_col *cols, const uint8_t *h, bool *fixed)
{
	uint32_t col, n;
	size_t s = 0;

	memcpy(&col, h, 4);
	*fixed = true;
	if (col & PQ_REC_ELEMS) {
		memcpy(&n, h + PQ_REC_HEAD, 4);
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

/*
 * What every row of the layout has the same, as 8-byte words compared
 * under a mask: each head (6 bytes) and a LIST's element count (4 more
 * bytes); the word at the end of the row when it would pass it.
 */
static void make_checks(struct layout *l)
{
	l->n_checks = 0;
	for (unsigned k = 0; k < l->n; k++) {
		const struct lentry *e = &l->e[k];
		size_t bytes = e->op == OP_ELEMS ? PQ_REC_HEAD + 4 : PQ_REC_HEAD;
		size_t at = e->off;

		while (bytes) {
			size_t n = bytes < 8 ? bytes : 8, shift;
			uint64_t w;

			/* The word ends within the row: moved back when it would not. */
			shift = at + 8 > l->len ? at + 8 - l->len : 0;
			memcpy(&w, l->first + at - shift, 8);
			l->check[l->n_checks++] = (struct check){
				(uint32_t)(at - shift),
				(n == 8 ? ~0ull : ((1ull << (8 * n)) - 1)) << (8 * shift), 0 };
			l->check[l->n_checks - 1].want = w & l->check[l->n_checks - 1].mask;
			at += n;
			bytes -= n;
		}
	}
}

/*
 * The layout of the row at `p`; false when its rows cannot be applied by
 * entries, *never when its class's rows cannot (a byte array, too many
 * entries, a column written twice, rows not told apart).
 */
static bool make_layout(struct layout *l, const struct pq_col *cols, const uint8_t *p,
			const uint8_t *end, bool *never)
{
	const uint8_t *q = p;

	*never = true;
	if (!is_include(p))
		return false;
	l->first = p;
	l->n = 0;
	do {
		struct lentry *e;
		uint32_t col;
		bool fixed;
		size_t s = value_size(cols, q, &fixed);

		if (!fixed || l->n == LAYOUT_MAX)
			return false;
		e = &l->e[l->n++];
		memcpy(&col, q, 4);
		*e = (struct lentry){ .rep = q[4], .def = q[5], .n = 1, .off = (uint32_t)(q - p) };
		if (col & PQ_REC_ELEMS) {
			e->op = OP_ELEMS;
			e->col = col & ~PQ_REC_ELEMS;
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
			if (c->type.phys == PQ_INT32 || c->type.phys == PQ_INT64)
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
	} while (q < end && !is_include(q));
	l->len = (size_t)(q - p);
	*never = false;
	if (l->len < 8)
		return false;   /* (a row has a head and a pointer at least) */
	make_checks(l);
	return true;
}

/* Whether the row at `p` has the layout's heads and element counts. */
static inline bool same_layout(const struct layout *l, const uint8_t *p)
{
	uint64_t diff = 0;

	for (unsigned k = 0; k < l->n_checks; k++) {
		uint64_t w;

		memcpy(&w, p + l->check[k].off, 8);
		diff |= (w & l->check[k].mask) ^ l->check[k].want;
	}
	return !diff;
}

/* Integers of column `c` at offset `off` of rows base[0, n) (stride `len`), with room (roomy). */
static inline void gather(struct pq_col *c, uint8_t def, const uint8_t *base, size_t len,
			  size_t n)
{
	uint8_t *d = c->vals.p + c->vals.len;

	if (c->max_def) {
		memset(c->defs.p + c->defs.len, def, n);
		c->defs.len += n;
	}
	if (c->type.phys == PQ_INT32) {
		for (size_t i = 0; i < n; i++, d += 4, base += len)
			memcpy(d, base, 4);
	} else {
		for (size_t i = 0; i < n; i++, d += 8, base += len)
			memcpy(d, base, 8);
	}
	c->vals.len = (size_t)(d - c->vals.p);
}

/* Rows p[0, n) of layout `l` into the columns, entry by entry. */
static void apply_block(struct pq_col *cols, const struct layout *l, const uint8_t *p, size_t n,
			struct pq_rec_apply_state *st)
{
	size_t len = l->len;

	for (unsigned k = 0; k < l->n; k++) {
		const struct lentry *e = &l->e[k];
		const uint8_t *v = p + e->off + PQ_REC_HEAD;
		struct pq_col *c = &cols[e->col];
		size_t i;

		switch (e->op) {
		case OP_INCLUDE:
			for (i = 0; i < n; i++, v += len) {
				const struct tmx_buf *entries;

				memcpy(&entries, v, sizeof(entries));
				pq_rec_apply_include(cols, entries, st);
			}
			break;
		case OP_RUN:
			for (unsigned j = 0; j < e->n; j++, c++) {
				gather(c, c->max_def, v, len, n);
				v += width(c);
			}
			break;
		case OP_INT:
			gather(c, e->def, v, len, n);
			break;
		case OP_INT_REP:
			for (i = 0; i < n; i++, v += len) {
				uint64_t u = 0;

				memcpy(&u, v, width(c));   /* little-endian: the record's host order */
				pq_col_int_put(c, e->rep, e->def, u);
			}
			break;
		case OP_NULL:
			for (i = 0; i < n; i++)
				pq_col_null(c, e->rep, e->def);
			break;
		case OP_ELEMS:
			for (i = 0; i < n; i++, v += len)
				pq_rec_apply_elems(c, e->rep, e->def, v);
			break;
		case OP_DOUBLE:
			for (i = 0; i < n; i++, v += len) {
				double d;

				memcpy(&d, v, 8);
				pq_col_double(c, e->rep, e->def, d);
			}
			break;
		default:
			for (i = 0; i < n; i++, v += len)
				pq_col_bool(c, e->rep, e->def, *v);
			break;
		}
	}
}

/*
 * Rows from `p` of the layout of the row at `p`, applied by blocks; the
 * bytes applied (*never: see make_layout).
 */
static size_t apply_layout(struct pq_col *cols, const uint8_t *p, const uint8_t *end,
			   struct pq_rec_apply_state *st, bool *never)
{
	struct layout l;
	size_t done = 0;

	if (!make_layout(&l, cols, p, end, never))
		return 0;
	for (;;) {
		const uint8_t *b = p + done;
		size_t n = 0;

		while (n < BLOCK_ROWS && (size_t)(end - b) >= (n + 1) * l.len &&
		       same_layout(&l, b + n * l.len))
			n++;
		if (!n)
			return done;
		apply_block(cols, &l, b, n, st);
		done += n * l.len;
		if (n < BLOCK_ROWS)
			return done;
	}
}

void pq_rec_apply_group(struct pq_col *cols, const uint8_t *r, size_t n, bool roomy)
{
	struct pq_rec_apply_state st = { .roomy = roomy };
	const uint8_t *end = r + n;
	size_t retry = RETRY_ROWS, by_row = 0;

	/*
	 * gather() stores without asking for room, host-order values as
	 * PLAIN's little-endian ones; the checks' masks are little-endian.
	 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!roomy)
#endif
	{
		pq_rec_apply(cols, r, n, false);
		return;
	}
	while (r < end) {
		const uint8_t *q;

		if (!by_row) {
			const uint8_t *from = r;
			bool never;

			r += apply_layout(cols, r, end, &st, &never);
			if (never) {   /* the rest row by row, without looking for rows */
				pq_rec_apply_entries(cols, r, (size_t)(end - r), &st);
				break;
			}
			if (r == end)
				break;
			/*
			 * A layout that held few rows: the next ones row by row,
			 * for longer each time it happens again.
			 */
			if ((size_t)(r - from) < 8 * (size_t)(row_end(cols, r, end) - r)) {
				by_row = retry;
				retry = retry < RETRY_MAX ? 2 * retry : retry;
			} else {
				retry = RETRY_ROWS;
			}
		}
		q = row_end(cols, r, end);
		pq_rec_apply_entries(cols, r, (size_t)(q - r), &st);
		r = q;
		if (by_row)
			by_row--;
	}
	pq_rec_apply_flush(cols, &st);
}
