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
 * columns of equal values (pq_group_encode's repeated chunks).  And the
 * records' way (the parallel path's, table.c's pk_record): a
 * table that gets a known packet's records without the packet columns'
 * entries (pq_table_add_cut) against one that gets them whole, groups
 * cut by rows and by bytes, the same file bytes.
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
#include "sink/parquet/groupq.h"
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
	bool null_cpu;  /* test_records_left_out: the packet's CPU is a null */
	/* test_records_left_out: rows left of its batch, whether one of them carried the packet's entries */
	unsigned batch;
	bool carried;
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

static void same_chunk(const struct pq_chunk *x, const struct pq_chunk *y)
{
	assert_int_equal(x->data_offset, y->data_offset);
	assert_int_equal(x->dict_offset, y->dict_offset);
	assert_int_equal(x->compressed, y->compressed);
	assert_int_equal(x->uncompressed, y->uncompressed);
	assert_int_equal(x->num_values, y->num_values);
	assert_int_equal(x->null_count, y->null_count);
	assert_int_equal(x->dict, y->dict);
	assert_int_equal(x->delta, y->delta);
	assert_int_equal(x->up, y->up);
	assert_int_equal(x->has_minmax, y->has_minmax);
	assert_int_equal(x->min_len, y->min_len);
	assert_memory_equal(x->min, y->min, x->min_len);
	assert_int_equal(x->max_len, y->max_len);
	assert_memory_equal(x->max, y->max, x->max_len);
}

static void same_groups(const struct pq_group *a, const struct pq_group *b)
{
	assert_int_equal(a->out.len, b->out.len);
	assert_memory_equal(a->out.p, b->out.p, a->out.len);
	for (int c = 0; c < N_COLS; c++)
		same_chunk(&a->chunks[c], &b->chunks[c]);
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
	assert_true(pq_pk_setup(&t, pk_cols, N_PK, (struct pq_pk_layout){ 0, 0 }));
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

/* ---- one chunk from instances (pq_col_encode_pk) against its rows' values ---- */

/*
 * A packet column of `type` (nullable, no nulls: as the CPU's) with
 * values vals[0, n_inst) and rows' instances rows[0, n), encoded by
 * pq_col_encode_pk (its expansion and pq_col_encode when it declines, as
 * pq_group_encode) with `ea`, against the rows' values encoded by
 * pq_col_encode with `eb`: the same bytes and metadata.  The encoders go
 * through the same chunks, so their memos of index pages too.  Returns
 * whether pq_col_encode_pk encoded it.
 */
static bool pk_chunk(struct pq_encoder *ea, struct pq_encoder *eb, struct pq_type type,
		     const uint64_t *vals, size_t n_inst, const uint16_t *rows, size_t n)
{
	struct pq_col a, b;
	struct tmx_buf r = { 0 }, oa = { 0 }, ob = { 0 };
	struct pq_chunk ma, mb;
	bool ok = false, taken;

	pq_col_init(&a, type, 1, 0, &acct);
	pq_col_init(&b, type, 1, 0, &acct);
	for (size_t k = 0; k < n_inst; k++)
		put(&a, vals[k]);
	for (size_t i = 0; i < n; i++)
		put(&b, vals[rows[i]]);
	a.n_levels = a.n_vals = b.n_levels = b.n_vals = n;
	tmx_buf_put(&r, rows, 2 * n);
	assert_true(pq_col_encode(&b, eb, 0, &ob, &mb));
	taken = pq_col_encode_pk(&a, &r, ea, &oa, &ma, &ok);
	if (!taken) {
		struct tmx_buf inst = a.vals, e = { 0 };

		assert_true(pq_col_pk_expand(&a, &r, &e, 0));
		a.vals = e;
		ok = pq_col_encode(&a, ea, 0, &oa, &ma);
		tmx_buf_free(&inst);
	}
	assert_true(ok);
	assert_int_equal(oa.len, ob.len);
	assert_memory_equal(oa.p, ob.p, oa.len);
	same_chunk(&ma, &mb);
	pq_col_free(&a);
	pq_col_free(&b);
	tmx_buf_free(&r);
	tmx_buf_free(&oa);
	tmx_buf_free(&ob);
	return taken;
}

#define PK_N 40000

/*
 * `n` rows: `runs` of instances drawn from [lo, lo + span) (each new
 * instance a run of 1 to `run` rows); values `val(k)` of instances
 * [0, n_inst) from `mode`.  Then the chunk as pk_chunk, of INT64 and of
 * signed INT32 values; returns whether pq_col_encode_pk took both.
 */
enum { V_SMALL, V_FAR, V_FEW, V_UP, V_NEG, V_ONE };

struct pk_case {
	size_t n, n_inst;
	int mode;
	/* rows [0, split) from instances [0, span0), the rest from [0, span1) */
	size_t split, span0, span1;
	unsigned run;
	bool in_order;  /* instance of row i: i % span (V_UP: the values increase) */
};

static bool pk_case(struct pq_encoder *ea, struct pq_encoder *eb, const struct pk_case *pc,
		    uint64_t seed)
{
	static uint16_t rows[PK_N];
	static uint64_t vals[PQ_PK_MAX + 1];
	uint64_t rnd = seed;
	bool taken = true;

	assert_true(pc->n <= PK_N && pc->n_inst <= PQ_PK_MAX + 1);
	for (size_t k = 0; k < pc->n_inst; k++) {
		uint64_t x = xorshift64(&rnd);

		vals[k] = pc->mode == V_SMALL ? 1000 + k
			: pc->mode == V_FAR ? x
			: pc->mode == V_FEW ? 7 + k % 3 * (1ull << 40)
			: pc->mode == V_UP ? 5 + 3 * k
			: pc->mode == V_ONE ? 1ull << 63 | 77
					   : (uint64_t)-(int64_t)(k * 977) + (x & 1);
	}
	for (size_t i = 0; i < pc->n;) {
		size_t span = i < pc->split ? pc->span0 : pc->span1;
		uint16_t k = (uint16_t)((pc->in_order ? i : xorshift64(&rnd)) % span);
		size_t len = pc->in_order ? 1 : 1 + xorshift64(&rnd) % pc->run;

		for (; len-- && i < pc->n; i++)
			rows[i] = k;
	}
	taken &= pk_chunk(ea, eb, pq_type_int(64, false), vals, pc->n_inst, rows, pc->n);
	for (size_t k = 0; k < pc->n_inst; k++)   /* as INT32: the low bits, signed */
		vals[k] &= UINT32_MAX;
	taken &= pk_chunk(ea, eb, pq_type_int(32, true), vals, pc->n_inst, rows, pc->n);
	return taken;
}

static void test_pk_chunks(void **state)
{
	struct pq_encoder ea = { 0 }, eb = { 0 };
	/* n, n_inst, mode, split, span0, span1, run, in_order; then whether taken */
	static const struct {
		struct pk_case c;
		bool taken;
	} cases[] = {
		/* Few instances in runs; one value over several instances or all; far values. */
		{ { 5000, 3, V_SMALL, 0, 3, 3, 200, false }, true },
		{ { 5000, 40, V_FEW, 0, 40, 40, 50, false }, true },
		{ { 3000, 20, V_FAR, 0, 20, 20, 30, false }, true },
		{ { 3000, 1, V_FAR, 0, 1, 1, 30, false }, true },
		{ { 3000, 500, V_ONE, 0, 500, 500, 2, false }, true },
		{ { 3000, 500, V_ONE, 0, 499, 499, 2, false }, true },
		{ { 4000, 300, V_NEG, 0, 300, 300, 1, false }, true },
		/* Entries: 256 (byte indices), 257 and more (32-bit), near and far. */
		{ { 8192, 256, V_SMALL, 0, 256, 256, 4, false }, true },
		{ { 8192, 257, V_SMALL, 0, 257, 257, 4, false }, true },
		{ { 20000, 600, V_FAR, 0, 600, 600, 3, false }, true },
		/*
		 * The sample: 8192 rows, an eighth + 1 (1025) entries at most:
		 * 1025 distinct holds, 1026 is given up; a larger column given
		 * up on its first 8192 rows, or after them (at n / 8 + 1).
		 */
		{ { 8192, 1025, V_SMALL, 1025, 1025, 1025, 1, true }, true },
		{ { 8192, 1026, V_SMALL, 1026, 1026, 1026, 1, true }, false },
		{ { 20000, 1026, V_SMALL, 8192, 1026, 1026, 1, true }, false },
		{ { 40000, 6000, V_FAR, 8192, 100, 6000, 1, false }, false },
		{ { 40000, 5001, V_SMALL, 8192, 1000, 5001, 2, false }, true },
		/*
		 * Every row its own instance: increasing values (pq_col_encode's
		 * `up`, given up either way), or 3 values.  Too few rows.
		 */
		{ { 2000, 2000, V_UP, 0, 2000, 2000, 1, true }, false },
		{ { 2000, 2000, V_FEW, 0, 2000, 2000, 1, true }, true },
		{ { 15, 2, V_SMALL, 0, 2, 2, 3, false }, false },
		{ { 16, 2, V_SMALL, 0, 2, 2, 3, false }, true },
		/* Many instances, a row each but some: a dictionary of 3 values. */
		{ { 40000, 39000, V_FEW, 0, 39000, 39000, 1, false }, true },
	};

	(void)state;
	assert_true(pq_encoder_zstd(&ea, 3) && pq_encoder_zstd(&eb, 3));
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		/* Twice: the second chunk's index page from the memo. */
		assert_int_equal(pk_case(&ea, &eb, &cases[k].c, 0x9E37 + k), cases[k].taken);
		assert_int_equal(pk_case(&ea, &eb, &cases[k].c, 0x9E37 + k), cases[k].taken);
	}
	pq_encoder_zstd_free(&ea);
	pq_encoder_free_bufs(&ea);
	pq_encoder_zstd_free(&eb);
	pq_encoder_free_bufs(&eb);
}

/* A packet column with nulls is left to the expansion. */
static void test_pk_nulls(void **state)
{
	struct pq_encoder enc = { 0 };
	struct pq_col c;
	struct tmx_buf r = { 0 }, out = { 0 };
	struct pq_chunk m;
	uint16_t rows[64] = { 0 };
	bool ok;

	(void)state;
	pq_col_init(&c, pq_type_int(64, false), 1, 0, &acct);
	put(&c, 5);
	c.n_levels = 64;
	c.n_vals = 63;
	c.n_nulls = 1;
	tmx_buf_put(&r, rows, sizeof(rows));
	assert_false(pq_col_encode_pk(&c, &r, &enc, &out, &m, &ok));
	assert_int_equal(out.len, 0);
	c.n_vals = 64;
	c.n_nulls = 0;   /* and without: encoded */
	assert_true(pq_encoder_zstd(&enc, 3));
	assert_true(pq_col_encode_pk(&c, &r, &enc, &out, &m, &ok) && ok && m.dict);
	pq_col_free(&c);
	tmx_buf_free(&r);
	tmx_buf_free(&out);
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
}

/* ---- records (transpose.c's layouts of rows cut and whole) ---- */

/*
 * The event tables' fixed columns (tracemux/columns.h) and the fields
 * after them: R_B .. R_B + 3 the packet context's run (R_CID INT32),
 * R_F an INT32 field, R_S a string (rows of different lengths).
 */
enum { R_TS, R_CYC, R_EV, R_HOST, R_TRACE, R_SID, R_SCID, R_CPU, R_B, R_CSIZE, R_PSEQ, R_CID,
       R_F, R_S, R_COLS };
static const uint32_t rec_pk[] = { R_SID, R_SCID, R_CPU, R_B, R_CSIZE, R_PSEQ, R_CID };
#define REC_PK_BYTES (PQ_REC_HEAD + 8 + 8 + 8 + 4)   /* the packet context's run's entry */
/* How the records hold their packet's entries: the ids' and packet context's runs, the CPU's. */
static const struct pq_pk_layout rec_layout = { PQ_REC_HEAD + 16 + REC_PK_BYTES, 8 };

static void rec_table(struct pq_table *t, const char *path, const struct pq_limits *lim,
		      struct pq_groupq *q, bool pk)
{
	static const char *names[R_COLS] = { "ts", "cycles", "event", "host", "trace",
					     "stream_id", "stream_class_id", "cpu", "b",
					     "csize", "pseq", "cid", "f", "s" };
	struct tmx_error err = { 0 };

	assert_int_equal(pq_table_init(t, path, NULL, lim, &err), TMX_OK);
	for (int c = 0; c < R_COLS; c++) {
		struct pq_type ty = c == R_EV || c == R_HOST || c == R_TRACE || c == R_S
					    ? pq_type_string()
					    : pq_type_int(c == R_CID || c == R_F ? 32 : 64, false);

		assert_int_equal(pq_schema_leaf(&t->schema, 0, names[c],
						c == R_TRACE ? PQ_REQUIRED : PQ_OPTIONAL, ty),
				 c);
	}
	assert_int_equal(pq_table_ready(t, &err), TMX_OK);
	t->q = q;
	if (pk)
		assert_true(pq_pk_setup(t, rec_pk, sizeof(rec_pk) / sizeof(rec_pk[0]), rec_layout));
}

/* A row's record as pq_format_event writes it (its heads static, a CPU). */
static void rec_make(struct tmx_buf *b, const struct tmx_buf *names, const struct pq_colinfo *ci,
		     const struct stream *s, uint64_t ts, bool has_ts, const char *str)
{
	uint64_t t2[2] = { ts, ts * 3 }, ids[2] = { s->vals[C_ID], 7 };
	struct tmx_value v[4] = { { .u = s->vals[C_SEQ] * 1000 }, { .u = s->vals[C_SIZE] },
				  { .u = s->vals[C_SEQ] }, { .u = s->vals[C_CPU] } };

	b->len = 0;
	assert_true(tmx_buf_reserve(b, 256));
	b->len = (size_t)(pq_rec_include_at(b->p, names) - b->p);
	/* static heads, a CPU or not (pq_format_event) */
	b->p[4] = (uint8_t)(1 + has_ts + 2 * !s->null_cpu);
	b->len = (size_t)(pq_rec_fixed_at(b->p + b->len, has_ts ? t2 : NULL, ids) - b->p);
	pq_rec_ints(b, ci, R_B, v, 4);
	pq_rec_int(b, ci, R_F, 0, ts % 11);
	pq_rec_bytes(b, ci, R_S, 0, str, strlen(str));
	if (s->null_cpu)
		pq_rec_null(b, R_CPU, 0, 0);
	else
		pq_rec_int(b, ci, R_CPU, 0, s->vals[C_CPU]);
}

static void rec_end(struct pq_table *t, struct pq_encoder *enc)
{
	struct tmx_error err = { 0 };

	assert_int_equal(pq_table_row_end(t, enc, &err), TMX_OK);
}

/*
 * Two tables of the same rows, the first stored per row (`ta`), the
 * second with packet columns (`tb`), in files of a temporary directory,
 * and the names' include entry of their records.
 */
struct pair {
	char dir[40], pa[64], pb[64];
	struct pq_table ta, tb;
	struct pq_encoder ea, eb;
	struct pq_groupq *qa, *qb;
	struct tmx_buf names;
	struct pq_colinfo ci[R_COLS];
};

static void pair_open(struct pair *p, const char *tmpl, const struct pq_limits *lim)
{
	*p = (struct pair){ .qa = pq_groupq_new(3), .qb = pq_groupq_new(3) };
	snprintf(p->dir, sizeof(p->dir), "%s", tmpl);
	assert_non_null(mkdtemp(p->dir));
	snprintf(p->pa, sizeof(p->pa), "%s/a.parquet", p->dir);
	snprintf(p->pb, sizeof(p->pb), "%s/b.parquet", p->dir);
	assert_true(p->qa && p->qb && pq_encoder_zstd(&p->ea, 3) && pq_encoder_zstd(&p->eb, 3));
	rec_table(&p->ta, p->pa, lim, p->qa, false);
	rec_table(&p->tb, p->pb, lim, p->qb, true);
	for (int c = 0; c < R_COLS; c++)
		p->ci[c] = (struct pq_colinfo){ p->ta.cols[c].type.phys, p->ta.schema.max_def[c] };
	pq_rec_bytes(&p->names, p->ci, R_EV, 0, "ev", 2);
	pq_rec_bytes(&p->names, p->ci, R_HOST, 0, "host", 4);
	pq_rec_bytes(&p->names, p->ci, R_TRACE, 0, "tr", 2);
}

/* The bytes of file `path` into *b (the file removed). */
static void slurp(const char *path, struct tmx_buf *b)
{
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	b->len = 0;
	for (int ch; (ch = fgetc(f)) != EOF;)
		tmx_buf_byte(b, (uint8_t)ch);
	fclose(f);
	remove(path);
}

/* Both tables closed: their files must be the same bytes. */
static void pair_same(struct pair *p)
{
	struct tmx_buf fa = { 0 }, fb = { 0 };
	struct tmx_error err = { 0 };

	assert_int_equal(pq_table_close(&p->ta, &p->ea, &err), TMX_OK);
	assert_int_equal(pq_table_close(&p->tb, &p->eb, &err), TMX_OK);
	slurp(p->pa, &fa);
	slurp(p->pb, &fb);
	assert_true(fa.len > 1000);
	assert_int_equal(fa.len, fb.len);
	assert_memory_equal(fa.p, fb.p, fa.len);
	tmx_buf_free(&fa);
	tmx_buf_free(&fb);
}

static void pair_free(struct pair *p)
{
	remove(p->dir);
	pq_table_free(&p->ta);
	pq_table_free(&p->tb);
	pq_groupq_free(p->qa);
	pq_groupq_free(p->qb);
	pq_encoder_zstd_free(&p->ea);
	pq_encoder_free_bufs(&p->ea);
	pq_encoder_zstd_free(&p->eb);
	pq_encoder_free_bufs(&p->eb);
	tmx_buf_free(&p->names);
}

static void test_records(void **state)
{
	static const char *strs[] = { "a", "bb", "sched_switch", "" };
	struct pq_limits lim = { .group_rows = 1000, .group_bytes = 90000, .file_groups = 1000,
				 .file_bytes = UINT64_MAX };
	struct pair P;
	struct tmx_buf rec = { 0 };
	struct stream st[STREAMS] = { 0 };
	uint64_t rnd = 0xfeed;
	size_t cut = 0, offs_rec = 0;

	(void)state;
	pair_open(&P, "/tmp/test_pq_packets.XXXXXX", &lim);
	for (int s = 0; s < STREAMS; s++)
		st[s].seq = UINT64_MAX;
	for (uint64_t r = 0; r < 9000; r++) {
		struct stream *s = &st[xorshift64(&rnd) % STREAMS];
		bool has_ts = xorshift64(&rnd) % 50 != 0, whole = !(xorshift64(&rnd) % 3000);
		size_t a, b, c, n;

		if (s->seq == UINT64_MAX || !(xorshift64(&rnd) % 300)) {
			s->seq++;
			s->vals[C_ID] = (uint64_t)(s - st);
			s->vals[C_CPU] = xorshift64(&rnd) % 3;
			s->vals[C_SEQ] = s->seq;
			s->vals[C_SIZE] = xorshift64(&rnd) % 5 * 4096;
		}
		rec_make(&rec, &P.names, P.ci, s, r, has_ts, strs[xorshift64(&rnd) % 4]);
		n = rec.len;
		if (whole)   /* a group turned to values per row by a record (pq_pk_off) */
			rec.p[4] = 0;
		pq_table_add_record(&P.ta, rec.p, n);
		/* table.c's pk_record, but for its marker 0's rule */
		if (!P.tb.n_rows)
			pq_pk_begin(&P.tb);
		a = PQ_REC_HEAD + sizeof(void *) + (has_ts ? PQ_REC_HEAD + 16 : 2 * PQ_REC_HEAD);
		b = a + PQ_REC_HEAD + 16 + REC_PK_BYTES;
		c = n - (PQ_REC_HEAD + 8);
		if (P.tb.pk.on && whole) {
			pq_pk_off(&P.tb);
			offs_rec++;
		}
		if (P.tb.pk.on && pq_pk_known(&P.tb, &s->pkt, s->seq, pq_pk_rows(&P.tb, true))) {
			pq_table_add_cut(&P.tb, rec.p, n, a, b, c, (uint8_t)(rec.p[4] + 4));
			cut++;
		} else {
			if (P.tb.pk.on)
				pq_pk_new(&P.tb, &s->pkt, s->seq, true, pq_pk_rows(&P.tb, true));
			pq_table_add_record(&P.tb, rec.p, n);
		}
		rec_end(&P.ta, &P.ea);
		rec_end(&P.tb, &P.eb);
		assert_int_equal(P.ta.bytes, P.tb.bytes);   /* groups end at the same rows */
	}
	assert_true(cut > 7000 && offs_rec > 0);
	pair_same(&P);
	pair_free(&P);
	tmx_buf_free(&rec);
}

/*
 * Records as workers write them (format.c, pq_format_event): a stream's
 * rows come in batches, interleaved with other streams' batches in
 * merged order, and a record leaves its packet's entries out when an
 * earlier one of its batch carried them; the table (pq_pk_put) adds it
 * as it is when its group knows the packet, else makes it whole from
 * the entries it kept for the stream.  Against a table of the same rows
 * as whole records stored per row: the same bytes counted at every row,
 * the same file.  Groups end inside packets (a group's first rows of a
 * packet made whole), batches start inside packets (as a segment of a
 * trace.dat stream does: their first record whole), packets change
 * inside batches, and groups store per row (pq_pk_off: a packet whose
 * CPU is a null) with records that left their entries out.  Records
 * whose heads depend on their values (marker 0, always whole: one in
 * eight, with and without ts, with a null CPU or not) have their packet
 * entries found from their heads (pk_marker_of) and cut as the others.
 */
static void test_records_left_out(void **state)
{
	static const char *strs[] = { "a", "bb", "sched_switch", "" };
	struct pq_limits lim = { .group_rows = 1000, .group_bytes = 70000, .file_groups = 1000,
				 .file_bytes = UINT64_MAX };
	struct pair P;
	struct pq_pk_layout l = rec_layout;
	struct tmx_buf rec = { 0 }, cut = { 0 }, whole = { 0 };
	struct stream st[STREAMS] = { 0 };
	uint64_t rnd = 0xc0ffee;
	size_t n_cut = 0, at_start = 0, per_row = 0, batches = 0, mid = 0, varied_on = 0;
	size_t varied_off = 0, quick = 0, add;
	uint8_t *d;

	(void)state;
	pair_open(&P, "/tmp/test_pq_leftout.XXXXXX", &lim);
	for (int s = 0; s < STREAMS; s++)
		st[s].seq = UINT64_MAX;
	for (uint64_t r = 0; r < 12000; r++) {
		struct stream *s = &st[xorshift64(&rnd) % STREAMS];
		bool has_ts = xorshift64(&rnd) % 20 != 0, varied = !(xorshift64(&rnd) % 8);
		/* (a memory bound that the quick path must see too, now and then) */
		size_t n, a, b, c, below = xorshift64(&rnd) % 16 ? SIZE_MAX : 100;
		uint8_t marker;

		if (!s->batch) {   /* the stream's next batch (a segment's, maybe) */
			s->batch = 1 + (unsigned)(xorshift64(&rnd) % 80);
			s->carried = false;
			batches++;
		}
		s->batch--;
		if (s->seq == UINT64_MAX || !(xorshift64(&rnd) % 200)) {
			s->seq++;
			s->vals[C_ID] = (uint64_t)(s - st);
			s->vals[C_CPU] = xorshift64(&rnd) % 3;
			s->vals[C_SEQ] = s->seq;
			s->vals[C_SIZE] = xorshift64(&rnd) % 5 * 4096;
			s->null_cpu = !(xorshift64(&rnd) % 40);
			s->carried = false;
		} else if (!s->carried) {
			mid++;   /* a batch's first row inside a packet */
		}
		rec_make(&rec, &P.names, P.ci, s, r, has_ts, strs[xorshift64(&rnd) % 4]);
		n = rec.len;
		if (varied)   /* heads that depend on the values (marker 0): whole */
			rec.p[4] = 0;
		pq_table_add_record(&P.ta, rec.p, n);
		marker = rec.p[4];
		if (!marker || !s->carried) {   /* a record whose heads vary carries them for itself */
			s->carried |= marker != 0;
			bool on = P.tb.n_rows && P.tb.pk.on;

			assert_int_equal(pq_pk_put(&P.tb, &s->pkt, rec.p, n, s->seq + 1, &whole), PQ_PK_OK);
			/* its group's packet columns kept, unless its CPU is a null */
			if (!marker && on && !s->null_cpu) {
				assert_true(P.tb.pk.on);
				varied_on++;
			}
			varied_off += !marker && P.tb.n_rows && !P.tb.pk.on;
		} else {   /* the worker's record without the packet's entries */
			a = pq_pk_at(marker);
			b = a + l.ids;
			c = n - pq_pk_cpu_bytes(l, marker);
			cut.len = 0;
			tmx_buf_put(&cut, rec.p, a);
			tmx_buf_put(&cut, rec.p + b, c - b);
			assert_false(cut.oom);
			cut.p[4] = (uint8_t)(marker + 4);
			n_cut++;
			at_start += !P.tb.n_rows;
			per_row += P.tb.n_rows && !P.tb.pk.on;
			/*
			 * Every other one the merge's common case first (put_quick):
			 * when it takes the record, it is the row's whole work, and
			 * must leave the table as pq_pk_put and row_end would have.
			 */
			if (r % 2 && (d = pq_pk_put_quick(&P.tb, &s->pkt, cut.p, cut.len, s->seq + 1,
							  below, &add))) {
				memcpy(d, cut.p, cut.len);
				assert_int_equal(add, n);
				assert_true(add < below);
				quick++;
				rec_end(&P.ta, &P.ea);
				assert_int_equal(P.ta.bytes, P.tb.bytes);
				continue;
			}
			assert_int_equal(pq_pk_put(&P.tb, &s->pkt, cut.p, cut.len, s->seq + 1, &whole),
					 PQ_PK_OK);
		}
		rec_end(&P.ta, &P.ea);
		rec_end(&P.tb, &P.eb);
		assert_int_equal(P.ta.bytes, P.tb.bytes);   /* groups end at the same rows */
	}
	assert_true(n_cut > 7000 && at_start > 3 && per_row > 100 && batches > 300 && mid > 100);
	assert_true(varied_on > 500 && varied_off > 50 && quick > 2000);
	pair_same(&P);
	/* A record without its entries whose packet the table never had: lost, not made up. */
	{
		struct stream other = { .seq = 5, .vals = { [C_ID] = 1 } };

		rec_make(&rec, &P.names, P.ci, &other, 1, true, "x");
		rec.p[4] += 4;
		assert_int_equal(pq_pk_put(&P.tb, &other.pkt, rec.p, rec.len, 6, &whole), PQ_PK_LOST);
		assert_int_equal(pq_pk_put(&P.tb, &st[0].pkt, rec.p, rec.len, st[0].seq + 2, &whole),
				 PQ_PK_LOST);
	}
	pair_free(&P);
	tmx_buf_free(&rec);
	tmx_buf_free(&cut);
	tmx_buf_free(&whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packets),
		cmocka_unit_test(test_many_packets),
		cmocka_unit_test(test_pk_chunks),
		cmocka_unit_test(test_pk_nulls),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_records_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
