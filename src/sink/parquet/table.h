/*
 * A table: a schema, its columns filling up, and the files they go to.
 * Rows are buffered until the row group is full (a number of rows or of
 * bytes), then written as one row group; a part file holds a bounded
 * number of row groups and bytes, after which the next part starts
 * (DIR/part-0.parquet, DIR/part-1.parquet...).  A table made for one file
 * (`single`) keeps every row group in it.
 */
#ifndef TMX_SINK_PARQUET_TABLE_H
#define TMX_SINK_PARQUET_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "common/intmap.h"
#include "sink/parquet/column.h"
#include "sink/parquet/file.h"
#include "sink/parquet/record.h"
#include "sink/parquet/schema.h"

struct pq_limits {
	int64_t group_rows;       /* rows of a row group */
	size_t group_bytes;       /* bytes buffered for a row group */
	size_t file_groups;       /* row groups of a part */
	uint64_t file_bytes;      /* bytes of a part */
};

/*
 * How a class's records hold their packet's entries, as pq_format_event
 * and row_emit write them: `ids` bytes of the stream's ids' run and the
 * packet context's runs after the include's and ts's entries, and when
 * `cpu` (its value's width) the CPU's entry at the end, the packet's.
 * The include's marker (a class whose heads are static and whose rows
 * say so) tells whether ts and the CPU are values, 1 to 4, and 5 to 8
 * that the entries are left out; a record of marker 0 (heads that depend
 * on the values) is whole, and its entries are found from its heads.
 */
struct pq_pk_layout {
	size_t ids;
	unsigned cpu;
};

/*
 * A table's packet columns (the packet context's, the stream's ids, the
 * CPU when it is the packet's: pq_fcols.pk_ops), whose values are the
 * same for every event of a packet, and the events of a group those of a
 * few packets of each stream, interleaved in time.  A group stores them
 * once per packet instance and, per row, the instance (pq_col.pk): some
 * 80 bytes of memory a row fewer on LTTng traces, pages not faulted in.
 * A packet is known by its stream's address and its `seq` (model.h) in a
 * few slots, one per stream.  Direct rows of a known packet leave those columns out
 * (pq_rec_emit.pk_known); records of one (the parallel path's) are
 * added without their entries (pq_pk_put), and their instances wait in
 * `rows` until they are applied (a record whose heads depend on its
 * values, marker 0, has its entries found from its heads: table.c's
 * pk_marker_of).  A group that gets a null CPU, more instances than an
 * index holds or a record whose entries are not found has its packet
 * columns expanded into rows there (pq_pk_off) and stores them per row
 * until its end.
 */
#define PQ_PK_SLOTS 16   /* a power of 2: the hash's top 4 bits */
#define PQ_PK_MAX 0xFFFFu
struct pq_pk {
	uint32_t *cols;           /* the packet columns, the largest last (NULL, 0: none) */
	size_t n_cols;
	bool set;                 /* cols decided (pq_pk_setup) */
	bool on;                  /* the group's packet columns hold instances */
	uint32_t n_inst;
	struct tmx_buf rows;      /* instances of the rows of `recs` (uint16) */
	struct tmx_buf *lead_rows;   /* the direct columns' (the last's pk_rows), or NULL */
	struct pq_pk_slot {
		const void *key;
		uint64_t seq;
		uint32_t inst;
	} slot[PQ_PK_SLOTS];      /* key NULL: empty */
	/*
	 * The slot of the last record that pq_pk_put found known: the next
	 * one is most often of the same stream and packet (one stream's
	 * events come in runs), which then costs two compares, not a hash
	 * and a probe.  Any slot is a valid guess: its key and seq are compared.
	 */
	struct pq_pk_slot *last;
	/*
	 * The packet entries of the last record of each stream that carried
	 * them, from group to group (pq_pk_put): a worker's records leave
	 * them out when an earlier one of its batch carried them.  `kept`
	 * maps the stream's address to an entry of `stride` bytes in `keep`.
	 */
	struct imap kept;
	struct tmx_buf keep;
	size_t stride;
	/*
	 * How the table's records hold their packet's entries, and the bytes
	 * that a record without them stands for beyond its own, by its
	 * marker's CPU bit (pq_pk_add_cut): pq_pk_setup's.
	 */
	struct pq_pk_layout l;
	size_t cut[2];
};

struct pq_table {
	char *where;              /* the directory of the parts, or the single file */
	bool single;
	unsigned *next_part;      /* shared by the tables of one directory */
	const struct pq_limits *lim;
	struct pq_schema schema;
	struct pq_col *cols;
	int64_t n_rows;           /* rows buffered */
	size_t bytes;             /* bytes buffered (the columns add to it) */
	struct pq_file *file;     /* the part being written, NULL between parts */
	bool broken;              /* a write failed: nothing more is written */
	/*
	 * Tables of events (`q` set, groupq.h: full row groups go there to
	 * be encoded and written): rows go into `cols` (`direct`, the
	 * columns counting into `col_acct`, not read), a row group's columns
	 * taken from the queue's kept sets and handed to it when full; the
	 * table counts in `bytes` what each row's record holds, so that
	 * groups end at the same rows whether the rows come as records (the
	 * parallel path) or straight into the columns (the sequential one).
	 * NULL: rows go straight into `cols` (the meta tables).
	 *
	 * The parallel path's records wait in `recs` (`n_recs` rows) until
	 * PQ_TABLE_CHUNK bytes of them are applied to the columns at once
	 * (transpose.c): a chunk small enough to stay in the caches from its
	 * copy to its application.
	 */
	struct pq_groupq *q;
	struct tmx_buf recs;
	size_t n_recs;
	size_t recs_hint;         /* the room `recs` had at the last group's end */
	struct pq_chunks *chunks; /* where `recs` goes at a group's end (NULL: freed) */
	/*
	 * The bytes of each column's buffers in the table's last group
	 * (NULL: none yet): a group's columns are given room for as much at
	 * its first chunk, not grown (copied) chunk after chunk.
	 */
	struct pq_colhint {
		size_t defs, reps, vals, idx;
	} *hint;
	bool direct, nomem;       /* nomem: the group's columns could not be had */
	/*
	 * Direct rows: how many more every integer column that is not
	 * repeated (one value or null per row) has room for, so that their
	 * values are stored without asking (pq_table_direct_room); and the
	 * rows of the table's last group, the room made at a group's start.
	 */
	size_t room_rows, last_rows;
	size_t col_acct, n_alloc; /* n_alloc columns in `cols` */
	struct pq_rec_apply_state inc;   /* the names' include entries (record.h) */
	struct pq_pk pk;
};

/*
 * Column arrays of encoded groups, emptied with their buffers kept, for
 * the tables' next groups (fresh memory for every group cost a page fault
 * per 4 KiB); the queue keeps them (groupq.h).  Each remembers its table
 * (`owner`), whose next group takes it first: another table's columns
 * have other sizes, and a buffer smaller than the table's last group's
 * is made anew (pq_table_apply_recs), which with two jobs, the groups of
 * several tables encoded in turn, was some 9 MB of fresh memory on a
 * trace.dat of two large tables.
 */
#define PQ_COLSETS 4
struct pq_colsets {
	struct pq_colset {
		struct pq_col *cols;
		size_t n;
		const struct pq_table *owner;
	} set[PQ_COLSETS];
	unsigned n;
};
void pq_colsets_free(struct pq_colsets *s);
/* `set` kept in `s`, in place of the oldest (freed). */
void pq_colsets_give(struct pq_colsets *s, struct pq_colset set);
/* The newest set of `owner`, else the newest of any table; false when none is kept. */
bool pq_colsets_take(struct pq_colsets *s, const struct pq_table *owner, struct pq_colset *out);

/* The records applied to the columns at once (see pq_table.recs). */
#define PQ_TABLE_CHUNK (256u << 10)

/*
 * Chunk buffers (pq_table.recs) of groups that ended, for the next groups
 * of any table: shared by the tables of a sink and used by the thread
 * that adds their records.  Freed at each group's end, the buffer was
 * allocated again by the next group and its pages faulted in again
 * (a quarter of a megabyte per group); kept in each table, the buffers
 * of every table that once had a busy group would hold memory that the
 * bound over all tables does not count.  At most PQ_CHUNKS are kept, of
 * at most PQ_CHUNK_KEEP bytes each.
 */
#define PQ_CHUNKS 4
#define PQ_CHUNK_KEEP (2 * PQ_TABLE_CHUNK)
struct pq_chunks {
	struct tmx_buf buf[PQ_CHUNKS];
	unsigned n;
};
void pq_chunks_free(struct pq_chunks *c);

/*
 * A table writing to the directory `where` (parts numbered from *next_part)
 * or, when next_part is NULL, to the file `where`.  Build t->schema, then
 * call pq_table_ready().
 */
int pq_table_init(struct pq_table *t, const char *where, unsigned *next_part,
		  const struct pq_limits *lim, struct tmx_error *err);
/* The columns of the finished schema. */
int pq_table_ready(struct pq_table *t, struct tmx_error *err);
void pq_table_free(struct pq_table *t);

/*
 * What is buffered becomes a row group: written now with `enc`, or handed
 * to t->q.
 */
int pq_table_flush(struct pq_table *t, struct pq_encoder *enc, struct tmx_error *err);

/*
 * A row's values are in the columns: writes the row group when it is
 * full.  Inlined, as pq_table_add_record: once per event on the merge.
 */
static inline int pq_table_row_end(struct pq_table *t, struct pq_encoder *enc,
				   struct tmx_error *err)
{
	t->n_rows++;
	if (t->n_rows >= t->lim->group_rows || t->bytes >= t->lim->group_bytes)
		return pq_table_flush(t, enc, err);
	return TMX_OK;
}

/* The records waiting in t->recs into the columns (the group fails without memory for them). */
void pq_table_apply_recs(struct pq_table *t);

/* The first record of a group: `recs` made as large as the last group's at once. */
void pq_table_recs_start(struct pq_table *t, size_t n);

/* A row's record (with a queue): `n` bytes of entries. */
static inline void pq_table_add_record(struct pq_table *t, const uint8_t *rec, size_t n)
{
	if (__builtin_expect(!t->recs.cap, 0))
		pq_table_recs_start(t, n);
	t->bytes += n;
	tmx_buf_put(&t->recs, rec, n);
	t->n_recs++;
	if (t->recs.len >= PQ_TABLE_CHUNK)
		pq_table_apply_recs(t);
}
/*
 * A row's record rec[0, n) without its bytes [a, b) and from c on (the
 * packet columns' entries of a known packet; a <= 40 < b <= c <= n), its
 * include entry's marker `marker` (record.h): counted as `n` bytes, what
 * its record holds whether its packet is known or not, so that groups
 * end at the same rows with any number of jobs.
 */
static inline void pq_table_add_cut(struct pq_table *t, const uint8_t *rec, size_t n, size_t a,
				    size_t b, size_t c, uint8_t marker)
{
	size_t keep = a + (c - b);

	if (__builtin_expect(!t->recs.cap, 0))
		pq_table_recs_start(t, n);
	t->bytes += n;
	/*
	 * [0, a) (the include's and ts's entries, 26 or 36 bytes) by a copy
	 * of a constant 40 bytes, which the rest overwrites: no call, no
	 * `rep movsb` of a few bytes.
	 */
	if (tmx_buf_reserve(&t->recs, keep + 40)) {
		uint8_t *d = t->recs.p + t->recs.len;

		memcpy(d, rec, 40);
		memcpy(d + a, rec + b, c - b);
		d[4] = marker;
		t->recs.len += keep;
	}
	t->n_recs++;
	if (t->recs.len >= PQ_TABLE_CHUNK)
		pq_table_apply_recs(t);
}
/*
 * Before a row goes straight into the columns (t->q set): the columns,
 * NULL without memory.
 */
struct pq_col *pq_table_start_cols(struct pq_table *t);
static inline struct pq_col *pq_table_direct_cols(struct pq_table *t)
{
	return t->direct ? t->cols : pq_table_start_cols(t);
}
/*
 * Room in the direct columns for some more rows (t->room_rows, at least
 * one); false without memory.  The caller takes a row from room_rows for
 * each row it stores.
 */
bool pq_table_direct_room(struct pq_table *t);
/*
 * The table's packet columns: cols[0, n) (integer columns that are not
 * repeated), decided once, and how its records hold their entries (`l`,
 * the same for every class of the table: their columns are the same);
 * false without memory (none then).
 */
bool pq_pk_setup(struct pq_table *t, const uint32_t *cols, size_t n, struct pq_pk_layout l);
/* A group's first row: packet columns from now on. */
void pq_pk_begin(struct pq_table *t);
/*
 * The group's packet columns expanded into rows (the records waiting
 * applied first), stored per row from now on (see pq_pk).
 */
void pq_pk_off(struct pq_table *t);
/* Where a row's instance goes: a record's (`rec`) or a direct row's. */
static inline struct tmx_buf *pq_pk_rows(struct pq_table *t, bool rec)
{
	return rec ? &t->pk.rows : t->pk.lead_rows;
}
/*
 * The slot of the stream at `key` (not NULL), else the empty one where it
 * goes, else (all taken by others) NULL: open addressing from a
 * multiplicative hash, a probe or two for the few streams of a table
 * (direct-mapped, two of four streams often shared a slot and took it
 * from each other, an instance a row).
 */
static inline struct pq_pk_slot *pq_pk_find(struct pq_table *t, const void *key)
{
	unsigned i = (unsigned)(((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >> 60);

	for (unsigned n = 0; n < PQ_PK_SLOTS; n++, i = (i + 1) % PQ_PK_SLOTS) {
		struct pq_pk_slot *s = &t->pk.slot[i];

		if (s->key == key || !s->key)
			return s;
	}
	return NULL;
}
/*
 * A row of packet `seq` of the stream at `key` (NULL: no packet) in a
 * group with t->pk.on: true, its instance stored into `rows`, when the
 * packet's values are the table's; else the row's values go into the
 * packet columns (pq_pk_new).
 */
static inline bool pq_pk_known(struct pq_table *t, const void *key, uint64_t seq,
			       struct tmx_buf *rows)
{
	const struct pq_pk_slot *s;
	uint16_t k;

	if (__builtin_expect(!key, 0) || !(s = pq_pk_find(t, key)) || s->key != key ||
	    s->seq != seq)
		return false;
	k = (uint16_t)s->inst;
	tmx_buf_put(rows, &k, 2);
	return true;
}
/*
 * The row's packet as a new instance, its instance stored into `rows`,
 * when its values `fit` (the CPU is no null) and an index holds it; else
 * pq_pk_off().
 */
void pq_pk_new(struct pq_table *t, const void *key, uint64_t seq, bool fits,
	       struct tmx_buf *rows);
/*
 * The entry of `n` bytes (the same for every call on a table) kept for
 * the stream at `key`, made when new (its bytes the caller's); NULL
 * without memory or when `n` is not the table's (pq_pk.kept).
 */
uint8_t *pq_pk_keep(struct pq_table *t, const void *key, size_t n);
/* The entry kept for the stream at `key`, NULL when none (its `stride` bytes). */
const uint8_t *pq_pk_kept(const struct pq_table *t, const void *key);
enum { PQ_PK_OK, PQ_PK_NOMEM, PQ_PK_LOST };
/*
 * pq_pk_put: a record rec[0, n) of packet `seq1` - 1 (0: none) of the
 * stream at `key` into table `t` with packet columns (the parallel
 * path's).  A whole one is added without its packet's entries when the
 * group knows its packet (pq_table_add_cut), else as it is, and its
 * packet's entries are kept for the stream (pq_pk.kept).  One without
 * them (a worker's record after one of its batch that carried them,
 * format.c) is added as it is when the group knows its packet, counted
 * as the whole record it stands for (so that groups end at the same rows
 * with any number of jobs), else made whole in `whole` from the entries
 * kept (PQ_PK_LOST: none, or another packet's) and added so.
 * PQ_PK_NOMEM without memory.  pq_pk_put_other: every case but a record
 * without its entries whose group knows its packet (pq_pk_put, inline).
 */
int pq_pk_put_other(struct pq_table *t, const void *key, const uint8_t *rec, size_t n,
		    uint64_t seq1, struct tmx_buf *whole);

/* Where a record's packet entries start: after its include's and ts's (the marker's bit 0: ts). */
static inline size_t pq_pk_at(uint8_t marker)
{
	return PQ_REC_HEAD + sizeof(void *) + ((marker - 1) & 1 ? PQ_REC_HEAD + 16 : 2 * PQ_REC_HEAD);
}

/* The bytes of a record's CPU entry when it is the packet's (no null: the marker's bit 1). */
static inline size_t pq_pk_cpu_bytes(struct pq_pk_layout l, uint8_t marker)
{
	if (!l.cpu)
		return 0;
	return PQ_REC_HEAD + ((marker - 1) & 2 ? l.cpu : 0);
}

/* Whether a record is without its packet's entries (its marker, its packet's seq + 1). */
static inline bool pq_pk_cut(uint8_t marker, uint64_t seq1)
{
	return marker > 4 && marker <= 8 && seq1;
}

/* A record without its packet's entries, of a known packet: counted as the whole record. */
static inline void pq_pk_add_cut(struct pq_table *t, const uint8_t *rec, size_t n)
{
	t->bytes += t->pk.cut[((rec[4] - 1) >> 1) & 1];
	pq_table_add_record(t, rec, n);
}

/*
 * The slot of the stream at `key` when its group knows packet `seq1` - 1,
 * else NULL: pk.last first (a run of one stream's records: two compares),
 * then the table's, remembered as pk.last.
 */
static inline const struct pq_pk_slot *pq_pk_slot_known(struct pq_table *t, const void *key,
							 uint64_t seq1)
{
	const struct pq_pk_slot *s = t->pk.last;

	if (__builtin_expect(s->key != key || s->seq != seq1 - 1, 0)) {
		if (!key || !(s = pq_pk_find(t, key)) || s->key != key || s->seq != seq1 - 1)
			return NULL;
		t->pk.last = (struct pq_pk_slot *)s;
	}
	return s;
}
/*
 * pq_pk_put_other, a known packet's record without its entries (nearly
 * every record) inline.  `key` is not NULL (a stream's: the empty slots'
 * key is NULL).
 */
static inline int pq_pk_put(struct pq_table *t, const void *key, const uint8_t *rec, size_t n,
			    uint64_t seq1, struct tmx_buf *whole)
{
	const struct pq_pk_slot *s;

	if (__builtin_expect(n > 4 && pq_pk_cut(rec[4], seq1) && t->n_rows && t->pk.on, 1)) {
		if (!(s = pq_pk_slot_known(t, key, seq1)))
			return pq_pk_put_other(t, key, rec, n, seq1, whole);
		tmx_buf_put(&t->pk.rows, &(uint16_t){ (uint16_t)s->inst }, 2);
		pq_pk_add_cut(t, rec, n);
		return PQ_PK_OK;
	}
	return pq_pk_put_other(t, key, rec, n, seq1, whole);
}
/*
 * pq_pk_put's common case as a row's whole work, when it is that and
 * ends nothing: a record rec[0, n) without its packet's entries whose
 * group knows the packet (pq_pk_put's test, pk.last first), with room for
 * it and its instance, that fills no chunk nor row group and whose
 * bytes (`add`, what it stands for) are under `below`.  Then its instance is stored and its
 * bytes and row counted, and it returns where the record's `n` bytes
 * go (the caller copies them); else NULL, nothing done: pq_pk_put's
 * and pq_table_row_end's way.  The merge's own (parquet_sink.c,
 * put_quick), whose copy is then its last call.
 */
static inline uint8_t *pq_pk_put_quick(struct pq_table *t, const void *key, const uint8_t *rec,
				       size_t n, uint64_t seq1, size_t below, size_t *add)
{
	const struct pq_pk_slot *s;
	struct tmx_buf *rows = &t->pk.rows, *recs = &t->recs;
	uint8_t *d;

	if (!t->pk.on || !t->n_rows || n <= 4 || !pq_pk_cut(rec[4], seq1) ||
	    !(s = pq_pk_slot_known(t, key, seq1)))
		return NULL;
	*add = n + t->pk.cut[((rec[4] - 1) >> 1) & 1];
	if (rows->oom || rows->cap - rows->len < 2 || recs->oom || recs->len + n >= PQ_TABLE_CHUNK ||
	    recs->cap - recs->len < n || t->n_rows + 1 >= t->lim->group_rows ||
	    t->bytes + *add >= t->lim->group_bytes || *add >= below)
		return NULL;
	memcpy(rows->p + rows->len, &(uint16_t){ (uint16_t)s->inst }, 2);
	rows->len += 2;
	t->bytes += *add;
	t->n_rows++;
	t->n_recs++;
	d = recs->p + recs->len;
	recs->len += n;
	return d;
}
/* Empty columns of the schema, counting their bytes into *acct; NULL without memory. */
struct pq_col *pq_table_new_cols(const struct pq_table *t, size_t *acct);
/* The same in `n_cols` columns that keep their buffers (pq_col_reuse). */
void pq_table_reuse_cols(const struct pq_table *t, struct pq_col *cols, size_t *acct);
/* Writes an encoded row group to the part being written (opened, closed when full). */
int pq_table_put(struct pq_table *t, struct pq_group *g, struct tmx_error *err);
/*
 * Writes what is buffered and closes the part (its footer).  With a
 * queue, the queue must have been drained after the flush.
 */
int pq_table_close(struct pq_table *t, struct pq_encoder *enc, struct tmx_error *err);

#endif
