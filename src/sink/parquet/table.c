/* Tables: row groups and part files (see table.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/grow.h"
#include "common/paths.h"
#include "sink/parquet/groupq.h"
#include "sink/parquet/record.h"
#include "sink/parquet/table.h"

int pq_table_init(struct pq_table *t, const char *where, unsigned *next_part,
		  const struct pq_limits *lim, struct tmx_error *err)
{
	*t = (struct pq_table){ .single = !next_part, .next_part = next_part, .lim = lim };
	t->where = strdup(where);
	if (!t->where)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	pq_schema_init(&t->schema);
	return TMX_OK;
}

struct pq_col *pq_table_new_cols(const struct pq_table *t, size_t *acct)
{
	struct pq_col *cols = calloc(t->schema.n_cols ? t->schema.n_cols : 1, sizeof(*cols));

	for (size_t c = 0; cols && c < t->schema.n_cols; c++) {
		const struct pq_elem *e = &t->schema.elems[t->schema.col_elem[c]];
		pq_col_init(&cols[c], e->type, t->schema.max_def[c], t->schema.max_rep[c], acct);
	}
	return cols;
}

void pq_table_reuse_cols(const struct pq_table *t, struct pq_col *cols, size_t *acct)
{
	for (size_t c = 0; c < t->schema.n_cols; c++) {
		const struct pq_elem *e = &t->schema.elems[t->schema.col_elem[c]];
		pq_col_reuse(&cols[c], e->type, t->schema.max_def[c], t->schema.max_rep[c], acct);
	}
}

void pq_colsets_free(struct pq_colsets *s)
{
	while (s->n) {
		struct pq_colset *set = &s->set[--s->n];

		for (size_t c = 0; c < set->n; c++)
			pq_col_free(&set->cols[c]);
		free(set->cols);
	}
}

void pq_colsets_give(struct pq_colsets *s, struct pq_colset set)
{
	if (s->n == PQ_COLSETS) {
		struct pq_colset old = s->set[0];

		for (size_t c = 0; c < old.n; c++)
			pq_col_free(&old.cols[c]);
		free(old.cols);
		memmove(s->set, s->set + 1, (PQ_COLSETS - 1) * sizeof(*s->set));
		s->n--;
	}
	s->set[s->n++] = set;
}

bool pq_colsets_take(struct pq_colsets *s, const struct pq_table *owner, struct pq_colset *out)
{
	unsigned k;

	if (!s->n)
		return false;
	for (k = s->n; k-- > 1;)
		if (s->set[k].owner == owner)
			break;
	if (s->set[k].owner != owner)
		k = s->n - 1;
	*out = s->set[k];
	memmove(s->set + k, s->set + k + 1, (s->n - k - 1) * sizeof(*s->set));
	s->n--;
	return true;
}

bool pq_pk_setup(struct pq_table *t, const uint32_t *cols, size_t n, struct pq_pk_layout l)
{
	t->pk.set = true;
	t->pk.l = l;
	t->pk.last = &t->pk.slot[0];
	t->pk.cut[0] = l.ids + pq_pk_cpu_bytes(l, 1);
	t->pk.cut[1] = l.ids + pq_pk_cpu_bytes(l, 3);
	if (!n || !(t->pk.cols = malloc(n * sizeof(*cols))))
		return !n;
	memcpy(t->pk.cols, cols, n * sizeof(*cols));
	t->pk.n_cols = n;
	/* The last column encoded last holds the rows' instances (pq_col.pk). */
	for (size_t k = 0; k + 1 < n; k++) {
		if (t->pk.cols[k] > t->pk.cols[n - 1]) {
			uint32_t x = t->pk.cols[k];

			t->pk.cols[k] = t->pk.cols[n - 1];
			t->pk.cols[n - 1] = x;
		}
	}
	return true;
}

/* The group's columns (direct) told which are packet columns and where their rows' instances go. */
static void pk_mark(struct pq_table *t)
{
	uint32_t lead = t->pk.cols[t->pk.n_cols - 1];

	t->pk.lead_rows = &t->cols[lead].pk_rows;
	t->pk.lead_rows->len = 0;
	for (size_t k = 0; k < t->pk.n_cols; k++)
		t->cols[t->pk.cols[k]].pk = lead + 1;
}

void pq_pk_begin(struct pq_table *t)
{
	t->pk.on = true;
	t->pk.n_inst = 0;
	t->pk.rows.len = 0;
	memset(t->pk.slot, 0, sizeof(t->pk.slot));
	t->pk.last = &t->pk.slot[0];
	if (t->direct)   /* else when they are taken (pq_table_start_cols) */
		pk_mark(t);
}

void pq_pk_off(struct pq_table *t)
{
	struct tmx_buf *rows;

	if (t->n_recs)   /* their instances into the columns' */
		pq_table_apply_recs(t);
	t->pk.on = false;
	t->pk.rows.len = 0;
	if (!t->direct || !t->cols)
		return;   /* no columns hold instances */
	rows = pq_pk_rows(t, false);
	for (size_t k = 0; k < t->pk.n_cols; k++) {
		struct pq_col *c = &t->cols[t->pk.cols[k]];
		struct tmx_buf v = { 0 };

		/* With room for the rows the direct ones were given (pq_table_direct_room). */
		if (!pq_col_pk_expand(c, rows, &v, t->room_rows)) {
			v.oom = true;
			t->room_rows = 0;   /* the next direct row asks for room, which fails */
		}
		tmx_buf_free(&c->vals);
		c->vals = v;
		c->pk = 0;
	}
	rows->len = 0;
}

/* Room for an instance's 8-byte stores in each packet column (false without memory). */
static bool pk_room(struct pq_table *t)
{
	for (size_t k = 0; k < t->pk.n_cols; k++)
		if (!tmx_buf_reserve(&t->cols[t->pk.cols[k]].vals, 8))
			return false;
	return true;
}

void pq_pk_new(struct pq_table *t, const void *key, uint64_t seq, bool fits,
	       struct tmx_buf *rows)
{
	struct pq_pk_slot *s = key ? pq_pk_find(t, key) : NULL;
	uint16_t k = (uint16_t)t->pk.n_inst;

	if (!fits || t->pk.n_inst >= PQ_PK_MAX) {
		pq_pk_off(t);
		return;
	}
	/* A direct row's values stored without asking (pq_table_direct_room leaves these out). */
	if (rows == t->pk.lead_rows && !pk_room(t)) {
		pq_pk_off(t);
		return;
	}
	tmx_buf_put(rows, &k, 2);
	if (s)   /* else more streams than slots: this one's packets are not known */
		*s = (struct pq_pk_slot){ key, seq, t->pk.n_inst };
	t->pk.n_inst++;
}

uint8_t *pq_pk_keep(struct pq_table *t, const void *key, size_t n)
{
	struct pq_pk *pk = &t->pk;
	uint32_t *at;
	bool added;

	if (!pk->stride)
		pk->stride = n;
	if (n != pk->stride || !(at = imap_get(&pk->kept, (uint64_t)(uintptr_t)key, UINT32_MAX, &added)))
		return NULL;
	if (*at == UINT32_MAX) {   /* new, or not made for want of memory */
		if (!tmx_buf_reserve(&pk->keep, n))
			return NULL;
		*at = (uint32_t)(pk->keep.len / n);
		pk->keep.len += n;
	}
	return pk->keep.p + (size_t)*at * n;
}

const uint8_t *pq_pk_kept(const struct pq_table *t, const void *key)
{
	const uint32_t *at = imap_find(&t->pk.kept, (uint64_t)(uintptr_t)key);

	return at && *at != UINT32_MAX ? t->pk.keep.p + (size_t)*at * t->pk.stride : NULL;
}

/*
 * What the table keeps of a stream's packet (pq_pk.kept): its seq + 1
 * (8 bytes), the bytes of the CPU's entry (4), the ids' and packet
 * context's entries, then the CPU's.
 */
static inline size_t pk_kept_bytes(struct pq_pk_layout l)
{
	return 12 + l.ids + PQ_REC_HEAD + 8;
}

/*
 * The packet entries of a whole record rec[0, n) with a marker (1 to 4)
 * kept for its stream: the next records of the packet from the same
 * worker's batch leave them out.  False without memory.
 */
static bool pk_keep(struct pq_table *t, struct pq_pk_layout l, const void *key,
		    const uint8_t *rec, size_t n, uint64_t seq1)
{
	size_t a = pq_pk_at(rec[4]);
	uint32_t cpu = (uint32_t)pq_pk_cpu_bytes(l, rec[4]);
	uint8_t *e;

	if (a + l.ids + cpu > n)   /* never: not the entries of a record of the class */
		return true;
	if (!(e = pq_pk_keep(t, key, pk_kept_bytes(l))))
		return false;
	memcpy(e, &seq1, 8);
	memcpy(e + 8, &cpu, 4);
	memcpy(e + 12, rec + a, l.ids);
	memcpy(e + 12 + l.ids, rec + n - cpu, cpu);
	return true;
}

/*
 * A record rec[0, n) without its packet's entries (a marker of 5 to 8)
 * made whole in `out` from those kept for its stream: PQ_PK_LOST when
 * they are not there (never: a record of its worker's batch carried
 * them before it, and was merged before it).
 */
static int pk_restore(const struct pq_table *t, struct pq_pk_layout l, const void *key,
		      const uint8_t *rec, size_t n, uint64_t seq1, struct tmx_buf *out)
{
	const uint8_t *e = pq_pk_kept(t, key);
	size_t a = pq_pk_at(rec[4]);
	uint64_t seq;
	uint32_t cpu;
	uint8_t *d;

	if (!e || a > n)
		return PQ_PK_LOST;
	memcpy(&seq, e, 8);
	memcpy(&cpu, e + 8, 4);
	if (seq != seq1 || cpu != pq_pk_cpu_bytes(l, rec[4]))
		return PQ_PK_LOST;
	if (!tmx_buf_reserve(out, n + l.ids + cpu))
		return PQ_PK_NOMEM;
	d = out->p;
	memcpy(d, rec, a);
	d[4] = (uint8_t)(rec[4] - 4);
	memcpy(d + a, e + 12, l.ids);
	memcpy(d + a + l.ids, rec + a, n - a);
	memcpy(d + n + l.ids, e + 12 + l.ids, cpu);
	out->len = n + l.ids + cpu;
	return PQ_PK_OK;
}

/*
 * The marker (1 to 4) that a whole record rec[0, n) whose heads depend
 * on its values (its marker 0: a class with labels, say) would have,
 * found from its heads: whether ts is a value (the entry after the
 * include's, record.h's pq_rec_fixed_at) and, when the CPU is the
 * packet's, whether its entry (the last) is a value or a null.  The
 * CPU's entry is read from the record's end both ways, a value's head
 * (the column, repetition level 0) and a null's: the one it is always
 * reads as itself, so that it is known when the other does not (with a
 * value of 4 bytes, never: a null's head puts the column's number where
 * a value's repetition level would be); 0 when both do (or the stream's
 * ids are not where they go): per row then.
 */
static uint8_t pk_marker_of(struct pq_pk_layout l, const uint8_t *rec, size_t n)
{
	size_t a;
	uint32_t ts, ids, val = 0, null = 0;
	bool has_ts, cpu = true;

	if (n < PQ_REC_HEAD + sizeof(void *) + 2 * PQ_REC_HEAD + l.ids + PQ_REC_HEAD + l.cpu)
		return 0;
	memcpy(&ts, rec + PQ_REC_HEAD + sizeof(void *), 4);
	has_ts = ts == (TMX_COLUMN_TS | PQ_REC_RUN);
	if (!has_ts && ts != (TMX_COLUMN_TS | PQ_REC_NULL))
		return 0;
	a = pq_pk_at((uint8_t)(1 + has_ts));
	memcpy(&ids, rec + a, 4);
	if (ids != (TMX_COLUMN_STREAM_ID | PQ_REC_RUN))
		return 0;
	if (l.cpu) {
		memcpy(&val, rec + n - PQ_REC_HEAD - l.cpu, 4);
		memcpy(&null, rec + n - PQ_REC_HEAD, 4);
		cpu = val == TMX_COLUMN_CPU && !rec[n - l.cpu - 2];
		if (cpu == (null == (TMX_COLUMN_CPU | PQ_REC_NULL)))
			return 0;
	}
	return (uint8_t)(1 + has_ts + 2 * cpu);
}

/*
 * A whole record rec[0, n) of packet `seq1` - 1 (0: none) of the stream
 * at `key`: added without its packet's entries (true) when its packet's
 * values are the table's, else (false) to be added as it is.  Those
 * rows' marker is the row's + 4 (a layout of their own, transpose.c),
 * or 0 for a row whose heads depend on its values (transpose.c checks
 * its heads).
 */
static bool pk_record(struct pq_table *t, struct pq_pk_layout l, const void *key,
		      const uint8_t *rec, size_t n, uint64_t seq1)
{
	uint8_t marker = n > 4 ? rec[4] : 0, m = marker;
	size_t a, b, c;
	struct tmx_buf *rows = pq_pk_rows(t, true);

	if (!seq1)
		key = NULL;
	if (!t->n_rows)   /* the group's first row */
		pq_pk_begin(t);
	if (!t->pk.on)
		return false;
	if (!m)
		m = pk_marker_of(l, rec, n);
	if (!m || m > 4) {   /* entries not found: per row */
		pq_pk_off(t);
		return false;
	}
	a = pq_pk_at(m);
	b = a + l.ids;
	c = n - pq_pk_cpu_bytes(l, m);
	if (b > c || c > n) {   /* never: not the entries of a record of the class */
		pq_pk_off(t);
		return false;
	}
	if (pq_pk_known(t, key, seq1 - 1, rows)) {
		pq_table_add_cut(t, rec, n, a, b, c, (uint8_t)(marker ? marker + 4 : 0));
		return true;
	}
	/* A null CPU: the marker's bit of it (pq_format_event). */
	pq_pk_new(t, key, seq1 - 1, !l.cpu || ((m - 1) & 2), rows);
	return false;
}

int pq_pk_put_other(struct pq_table *t, const void *key, const uint8_t *rec, size_t n,
		    uint64_t seq1, struct tmx_buf *whole)
{
	struct pq_pk_layout l = t->pk.l;
	uint8_t marker = n > 4 ? rec[4] : 0;

	if (pq_pk_cut(marker, seq1)) {
		/*
		 * Its group does not know the packet (pq_pk_put asked: a group's
		 * first row knows none) or stores per row: made whole.
		 */
		int ret;

		if ((ret = pk_restore(t, l, key, rec, n, seq1, whole)))
			return ret;
		rec = whole->p;
		n = whole->len;
	} else if (marker && marker <= 4 && seq1 && !pk_keep(t, l, key, rec, n, seq1)) {
		return PQ_PK_NOMEM;
	}
	if (!pk_record(t, l, key, rec, n, seq1))
		pq_table_add_record(t, rec, n);
	return PQ_PK_OK;
}

struct pq_col *pq_table_start_cols(struct pq_table *t)
{
	size_t n = t->schema.n_cols;

	/* The columns pq_table_ready() made (empty): given back, a kept set taken. */
	if (t->cols) {
		for (size_t c = 0; c < (t->n_alloc ? t->n_alloc : n); c++)
			pq_col_free(&t->cols[c]);
		free(t->cols);
		t->cols = NULL;
		t->n_alloc = 0;
	}
	pq_groupq_take_cols(t->q, t, &t->cols, &t->n_alloc);
	if (!tmx_grow_zeroed((void **)&t->cols, &t->n_alloc, n, sizeof(*t->cols), n))
		return NULL;
	pq_table_reuse_cols(t, t->cols, &t->col_acct);
	t->direct = true;
	if (t->pk.on)
		pk_mark(t);
	t->room_rows = 0;
	/* New columns: nothing known of the names' entries (none counted: the last group's flush stored them). */
	t->inc = (struct pq_rec_apply_state){ 0 };
	return t->cols;
}

bool pq_table_direct_room(struct pq_table *t)
{
	/*
	 * At a group's start, the last group's rows and an eighth more; else
	 * as many as the group has, from 64 (tables of a few rows: their
	 * columns were as small) to 1024 at a time (asking for more, a group
	 * a little longer than the last one doubled its columns and faulted
	 * their pages in); never past the group's end.
	 */
	size_t have = (size_t)t->n_rows, max = (size_t)t->lim->group_rows - have;
	size_t rows = !have && t->last_rows ? t->last_rows + t->last_rows / 8
		      : have < 64		  ? 64
		      : have < 1024		  ? have
						  : 1024;

	if (rows > max)
		rows = max;
	if (!rows)
		rows = 1;
	for (size_t c = 0; c < t->schema.n_cols; c++) {
		struct pq_col *col = &t->cols[c];

		/*
		 * The last value's 8-byte store (pq_col_put8) reaches 8 - w bytes
		 * past it.  Packet columns (pq_col.pk) have room for their next
		 * instance (pq_pk_new): room for rows grew them, copied by realloc
		 * with pages faulted in for nothing.
		 */
		if (!col->max_rep && col->int_width && !col->pk &&
		    !tmx_buf_reserve(&col->vals, rows * col->int_width + 8 - col->int_width))
			return false;
	}
	t->room_rows = rows;
	return true;
}

/* Columns that are not repeated have one level per row: counted here, not per value. */
static void count_rows(struct pq_col *cols, size_t n_cols, int64_t n_rows)
{
	for (size_t c = 0; c < n_cols; c++) {
		struct pq_col *col = &cols[c];

		if (!col->max_rep) {
			col->n_levels = (uint64_t)n_rows;
			col->n_vals = (uint64_t)n_rows - col->n_nulls;
		}
	}
}

/*
 * Whether every integer column that is not repeated has room for a value
 * per row more (pq_col_presize): its values are then stored without
 * asking for room (record.h, pq_rec_apply_run; transpose.c, gather).
 * Their levels are left out until a null, then asked room for.
 */
static bool roomy(const struct pq_col *cols, size_t n_cols, size_t n_rows)
{
	for (size_t c = 0; c < n_cols; c++) {
		const struct pq_col *col = &cols[c];
		size_t w = pq_int_width(col->type.phys);

		if (col->max_rep || (col->type.phys != PQ_INT32 && col->type.phys != PQ_INT64))
			continue;
		if (col->vals.oom || col->vals.cap - col->vals.len < n_rows * w)
			return false;
	}
	return true;
}

/* Room for `n` bytes in an empty buffer: a smaller one is freed first, not reallocated (copied). */
static void room(struct tmx_buf *b, size_t n)
{
	if (!n || b->len || n <= b->cap)
		return;
	tmx_buf_free(b);
	tmx_buf_reserve(b, n);
	b->oom = false;   /* only room: not a failure of the column */
}

/* At a group's first chunk: room for what the table's last group held, and an eighth more. */
static void hinted_room(struct pq_col *c, const struct pq_colhint *h)
{
	room(&c->defs, h->defs + h->defs / 8);
	room(&c->reps, h->reps + h->reps / 8);
	room(&c->vals, h->vals + h->vals / 8);
	room(&c->dict_idx, h->idx + h->idx / 8);
}

/* What each column of the group about to be encoded holds, for the table's next group. */
static void note_hints(struct pq_table *t)
{
	size_t n = t->schema.n_cols;

	if (!t->hint && !(t->hint = calloc(n ? n : 1, sizeof(*t->hint))))
		return;
	for (size_t c = 0; c < n; c++) {
		const struct pq_col *col = &t->cols[c];

		t->hint[c] = (struct pq_colhint){ col->defs.len, col->reps.len, col->vals.len,
						  col->dict_idx.len };
	}
}

void pq_chunks_free(struct pq_chunks *c)
{
	while (c->n)
		tmx_buf_free(&c->buf[--c->n]);
}

/* A kept buffer of at least `need` bytes, the smallest: false when none is. */
static bool chunk_take(struct pq_chunks *c, size_t need, struct tmx_buf *out)
{
	unsigned best = PQ_CHUNKS;

	for (unsigned k = 0; c && k < c->n; k++)
		if (c->buf[k].cap >= need && (best == PQ_CHUNKS || c->buf[k].cap < c->buf[best].cap))
			best = k;
	if (best == PQ_CHUNKS)
		return false;
	*out = c->buf[best];
	c->buf[best] = c->buf[--c->n];
	return true;
}

/* A group's chunk buffer kept (emptied), else freed; when all places are taken, the smallest goes. */
static void chunk_give(struct pq_chunks *c, struct tmx_buf *b)
{
	unsigned small = 0;

	if (!c || b->oom || b->borrowed || !b->cap || b->cap > PQ_CHUNK_KEEP) {
		tmx_buf_free(b);
		return;
	}
	b->len = 0;
	if (c->n < PQ_CHUNKS) {
		c->buf[c->n++] = *b;
		*b = (struct tmx_buf){ 0 };
		return;
	}
	for (unsigned k = 1; k < PQ_CHUNKS; k++)
		if (c->buf[k].cap < c->buf[small].cap)
			small = k;
	if (c->buf[small].cap < b->cap) {
		struct tmx_buf out = c->buf[small];

		c->buf[small] = *b;
		*b = out;
	}
	tmx_buf_free(b);
}

void pq_table_recs_start(struct pq_table *t, size_t n)
{
	size_t need = n > t->recs_hint ? n : t->recs_hint;

	/*
	 * Grown from nothing by doubling, the buffer was copied about ten
	 * times a group (it goes at each group's end, pq_table_flush).
	 */
	if (chunk_take(t->chunks, need, &t->recs))
		return;
	if (!tmx_buf_reserve(&t->recs, need))
		t->recs.oom = false;   /* only room: the record asks for its own */
}

void pq_table_apply_recs(struct pq_table *t)
{
	struct pq_col *cols = NULL;
	size_t n_cols = t->schema.n_cols;
	bool first = !t->direct;   /* the group's first chunk */

	if (!t->nomem && !t->recs.oom)
		cols = pq_table_direct_cols(t);
	if (cols && t->pk.on)   /* the rows' instances, in row order (direct rows' after them) */
		tmx_buf_put(pq_pk_rows(t, false), t->pk.rows.p, t->pk.rows.len);
	t->pk.rows.len = 0;
	if (cols) {
		for (size_t c = 0; c < n_cols; c++) {
			if (first && t->hint)
				hinted_room(&cols[c], &t->hint[c]);
			pq_col_presize(&cols[c], t->n_recs);
		}
		pq_rec_apply_rows(cols, t->recs.p, t->recs.len, roomy(cols, n_cols, t->n_recs),
				  &t->inc);
	} else {
		t->nomem = true;
	}
	t->recs.len = 0;
	t->recs.oom = false;
	t->n_recs = 0;
	t->room_rows = 0;   /* the rows took room of the direct rows' */
}

int pq_table_ready(struct pq_table *t, struct tmx_error *err)
{
	if (!pq_schema_finish(&t->schema))
		return tmx_error_set(err, t->schema.oom ? TMX_ERR_NOMEM : TMX_ERR_LIMIT, t->where,
				     t->schema.oom ? "out of memory"
						   : "fields nested more than %d levels deep",
				     PQ_MAX_LEVEL);
	t->cols = pq_table_new_cols(t, &t->bytes);
	if (!t->cols)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	return TMX_OK;
}

void pq_table_free(struct pq_table *t)
{
	if (t->file) {   /* not closed by pq_table_close(): the output was not finished */
		pq_file_abandon(t->file);
		t->file = NULL;
	}
	if (t->cols)
		for (size_t c = 0; c < (t->n_alloc ? t->n_alloc : t->schema.n_cols); c++)
			pq_col_free(&t->cols[c]);
	free(t->cols);
	tmx_buf_free(&t->recs);
	free(t->hint);
	t->hint = NULL;
	free(t->pk.cols);
	tmx_buf_free(&t->pk.rows);
	imap_free(&t->pk.kept);
	tmx_buf_free(&t->pk.keep);
	t->pk = (struct pq_pk){ 0 };
	pq_schema_free(&t->schema);
	free(t->where);
	t->cols = NULL;
	t->where = NULL;
}

/* The next part file, in a directory made now if need be. */
static int open_part(struct pq_table *t, struct tmx_error *err)
{
	char path[4096];
	int ret;

	if (t->single) {
		ret = snprintf(path, sizeof(path), "%s", t->where);
	} else {
		snprintf(path, sizeof(path), "%s", t->where);
		if (cw_mkdir_p(path))
			return tmx_error_set(err, TMX_ERR_IO, t->where, "cannot create the directory");
		ret = snprintf(path, sizeof(path), "%s/part-%u.parquet", t->where, (*t->next_part)++);
	}
	if (ret < 0 || (size_t)ret >= sizeof(path))
		return tmx_error_set(err, TMX_ERR_LIMIT, t->where, "path too long");
	return pq_file_open(path, &t->schema, &t->file, err);
}

int pq_table_put(struct pq_table *t, struct pq_group *g, struct tmx_error *err)
{
	int ret = TMX_OK;

	if (t->broken)
		return TMX_OK;   /* its error was reported */
	if (!t->file)
		ret = open_part(t, err);
	if (!ret)
		ret = pq_file_put_group(t->file, g, err);
	if (ret) {
		/* Only the footer is written after this. */
		t->broken = true;
		return ret;
	}
	if (!t->single &&
	    (t->file->n_groups >= t->lim->file_groups || t->file->size >= t->lim->file_bytes)) {
		ret = pq_file_close(t->file, err);
		t->file = NULL;
	}
	return ret;
}

int pq_table_flush(struct pq_table *t, struct pq_encoder *enc, struct tmx_error *err)
{
	struct pq_group g;
	int ret;

	if (t->broken || !t->n_rows)
		return TMX_OK;
	if (t->q) {
		if (t->n_recs)
			pq_table_apply_recs(t);
		t->pk.on = false;   /* the group's columns keep their instances (pq_col.pk) */
		t->pk.lead_rows = NULL;
		/* The chunk buffer goes with the group (see pq_chunks). */
		t->recs_hint = t->recs.cap;
		chunk_give(t->chunks, &t->recs);
		if (t->nomem || !t->direct) {
			t->broken = true;
			return tmx_error_set(err, TMX_ERR_NOMEM, t->where, "out of memory");
		}
		/*
		 * Direct rows leave the names' rows counted (record.h) and the
		 * counts of columns that are not repeated to here.
		 */
		pq_rec_apply_end(t->cols, &t->inc);
		count_rows(t->cols, t->schema.n_cols, t->n_rows);
		note_hints(t);
		t->last_rows = (size_t)t->n_rows;
		if (pq_groupq_is_async(t->q))
			return pq_groupq_submit(t->q, t, err);
	}
	pq_group_encode(&g, t->cols, t->schema.n_cols, t->n_rows, enc);
	t->n_rows = 0;
	t->bytes = 0;
	if (t->direct) {
		t->direct = false;
		pq_groupq_give_cols(t->q, t, t->cols, t->n_alloc);
		t->cols = NULL;
		t->n_alloc = 0;
	}
	ret = pq_table_put(t, &g, err);
	pq_group_recycle(&g, enc);
	return ret;
}

int pq_table_close(struct pq_table *t, struct pq_encoder *enc, struct tmx_error *err)
{
	int ret = pq_table_flush(t, enc, err);
	struct tmx_error ferr = { 0 };

	if (t->file) {
		int fret = pq_file_close(t->file, &ferr);
		t->file = NULL;
		if (fret && !ret) {
			ret = fret;
			if (err)
				*err = ferr;
		}
	}
	return ret;
}
