/*
 * One column of a table while its row group fills: definition and
 * repetition levels, PLAIN-encoded values, and for byte arrays a
 * dictionary while the column has few distinct values.  When the row
 * group is written, the column becomes a column chunk: a dictionary page
 * (when the dictionary held), one data page v1 (levels RLE-encoded,
 * values PLAIN or dictionary indices), each compressed with zstd, and the
 * chunk's metadata (sizes, offsets, min/max statistics) for the footer.
 */
#ifndef TMX_SINK_PARQUET_COLUMN_H
#define TMX_SINK_PARQUET_COLUMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"
#include "common/strdict.h"
#include "sink/parquet/schema.h"

/* Distinct values of a dictionary, and their bytes, beyond which it is dropped. */
#define PQ_DICT_MAX_ENTRIES 40000
#define PQ_DICT_MAX_BYTES (1u << 20)

struct pq_col {
	struct pq_type type;
	uint8_t max_def, max_rep;
	bool dict_on;           /* values go to the dictionary, not to `vals` */
	uint8_t int_width;      /* INT32: 4, INT64: 8, else 0 (the hot path's width) */
	/*
	 * Whether the sequential path's integer stores (fmap_values.c) write
	 * definition levels: from the column's first null on.  Before it,
	 * every level is max_def, and the encoder does not read them (no
	 * nulls: pq_levels_all), so those stores leave them out: a store
	 * and a stream of bytes less per row in most nullable columns (ts,
	 * cycles, cpu), which never have nulls.  The first null writes the
	 * levels left out (pq_col_null).  The records' integer stores of
	 * columns that are not repeated (record.h's runs, transpose.c's
	 * gather) leave them out the same way; the other writers store
	 * every level.
	 */
	bool defs_stored;
	/* What an integer's store reads first, together: */
	struct tmx_buf vals, defs, reps;
	struct tmx_strdict dict; /* its entries are the dictionary page */
	struct tmx_buf dict_idx; /* uint32 entry of each non-null value */
	/*
	 * Rows after those of `defs` and `dict_idx` that all hold entry
	 * `lazy_entry` at level `lazy_def`, not stored: a row group's last
	 * rows of the names' columns (record.h, pq_rec_apply_end), which the
	 * encoder writes as the hybrid would encode them without reading
	 * them (page.c), or stores first (pq_col_lazy_store).  Only columns
	 * that are not repeated, with a dictionary, once nothing more is
	 * added to the group.
	 */
	uint32_t lazy, lazy_entry;
	uint8_t lazy_def;
	/*
	 * A packet's column (table.h, pq_pk): 1 + the column whose `pk_rows`
	 * holds each row's packet instance (uint16), its values in `vals` one
	 * per instance, not per row; expanded into rows when the group is
	 * encoded (pq_group_encode).  0: a value per row.  The column that
	 * holds `pk_rows` is the group's last such column (encoded last).
	 */
	uint32_t pk;
	struct tmx_buf pk_rows;
	uint64_t n_levels;      /* values including nulls (the page's num_values) */
	uint64_t n_nulls;
	uint64_t n_vals;        /* non-null values */
	unsigned bool_bits;     /* booleans: bits used in the last byte of `vals` */
	bool keep;              /* emptied with its buffers kept (pq_col_reuse) */
	size_t *acct;           /* bytes buffered, summed by the table */
};

/* Statistics kept for a chunk; byte-array bounds longer than this are not kept. */
#define PQ_STAT_MAX 64

struct pq_chunk {
	uint8_t phys;
	bool dict;              /* dictionary page + RLE_DICTIONARY data page */
	bool delta;             /* a DELTA_BINARY_PACKED data page */
	bool up;                /* integers that only increase (as unsigned) */
	int64_t num_values;
	int64_t uncompressed, compressed;   /* pages and their headers */
	int64_t data_offset, dict_offset;
	int64_t null_count;
	bool has_minmax, has_nan_count;
	int64_t nan_count;
	uint8_t min_len, max_len;
	uint8_t min[PQ_STAT_MAX], max[PQ_STAT_MAX];
};

#define PQ_MEMO 4

/* What encoding a chunk needs besides the column: zstd's context and scratch space. */
struct pq_encoder {
	void *zctx;             /* ZSTD_CCtx */
	void *zws;              /* its memory, when made by pq_encoder_zstd */
	int level;
	bool zparams;           /* the level and other parameters set on zctx (page.c) */
	struct tmx_buf body;         /* a page being made (page.c) */
	struct tmx_buf out_spare;   /* a written group's pages, emptied (pq_group_recycle) */
	/* An integer column's dictionary being tried (int_dict.c): values, indices, hash table. */
	uint64_t *ikeys;
	uint32_t *islots, *inear;   /* hash table; table of the values near the first */
	size_t ikeys_cap, islots_cap, inear_cap;
	struct tmx_buf iidx;
	uint32_t *pkmap;            /* a packet column's instances' entries (int_dict.c, pq_pk_dict) */
	size_t pkmap_cap;
	struct tmx_buf expand;      /* a packet's column expanded into rows (pq_col_pk_expand) */
	/*
	 * The last few compressions of pages of dictionary indices, by their
	 * input: the columns of one stream (stream_id, cpu, a context's thread
	 * id) or of one packet (its context's fields) have the same indices,
	 * row for row, in a group whose streams interleave.
	 */
	struct pq_memo {
		struct tmx_buf in, out;
	} zstd_memo[PQ_MEMO];
	unsigned zstd_next;
};

/* Frees what the encoding kept (not the zstd context). */
void pq_encoder_free_bufs(struct pq_encoder *enc);
/*
 * The encoder's zstd context (`level`) in one allocation made for the
 * largest page, never resized: one of ZSTD_createCCtx() gave its memory
 * back after 128 pages that needed a third of it (dictionary pages, short
 * chunks) and took it again for the next large page, 72 times on the CTF
 * benchmark: page faults (a twentieth of the run's) and its tables
 * cleared.  The same compressed bytes.  False without memory.  Only
 * with the libzstd of the headers it was built with (static contexts are
 * zstd's experimental API), else a context of ZSTD_createCCtx().
 */
bool pq_encoder_zstd(struct pq_encoder *enc, int level);
/* The same with a fixed context (`fixed`) or one of ZSTD_createCCtx() (the tests compare them). */
bool pq_encoder_zstd_as(struct pq_encoder *enc, int level, bool fixed);
/* Frees a context of pq_encoder_zstd. */
void pq_encoder_zstd_free(struct pq_encoder *enc);
/*
 * A page's `n` bytes at `src` compressed into dst[0, cap) (cap: zstd's
 * bound), or copied from what the encoder remembers (`memo`: a page of
 * dictionary indices that the next columns may have too); a zstd result.
 * The values after the first `head` bytes (the levels) go uncompressed
 * into the frame when zstd would not shrink them (zpage.c).
 */
size_t pq_compress_page(struct pq_encoder *enc, void *dst, size_t cap, const uint8_t *src,
			size_t n, size_t head, bool memo);

void pq_col_init(struct pq_col *c, struct pq_type type, uint8_t max_def, uint8_t max_rep,
		 size_t *acct);
void pq_col_free(struct pq_col *c);
/*
 * Like pq_col_init, but keeps the buffers `c` has (its allocations, of a
 * column of any type, or zeroes): the columns an encoder fills for one row
 * group after another reuse their memory instead of faulting fresh pages
 * in each time.  Such a column stays `keep` (emptied with its buffers).
 */
void pq_col_reuse(struct pq_col *c, struct pq_type type, uint8_t max_def, uint8_t max_rep,
		  size_t *acct);
/*
 * The values of a packet's column `c` (integers, `vals` per instance) into
 * `out` (emptied first), one per row of `rows` (uint16 instances), and
 * room for `more` rows after them; false without memory.
 */
bool pq_col_pk_expand(const struct pq_col *c, const struct tmx_buf *rows, struct tmx_buf *out,
		      size_t more);
/* The bits of `n` uint16 (instances) at `k` or-ed, at least the largest: four at a time. */
uint16_t pq_pk_or(const uint8_t *k, size_t n);
/* Room for `rows` values of a column that is not repeated (one allocation, not a doubling). */
void pq_col_presize(struct pq_col *c, size_t rows);

/*
 * `n` bytes of the repeating 8-byte pattern `pat` appended (pq_fill: of
 * byte `v`; pq_fill32: copies of the 4 bytes at `v`), by 8-byte stores
 * rather than a call to memset: levels and dictionary entries of rows
 * that repeat one, a few most often (the room reserved rounded up to 8).
 */
static inline bool pq_fill_pattern(struct tmx_buf *b, uint64_t pat, size_t n)
{
	if (!tmx_buf_reserve(b, n + 8))
		return false;
	for (size_t k = 0; k < n; k += 8)
		memcpy(b->p + b->len + k, &pat, 8);
	b->len += n;
	return true;
}

static inline bool pq_fill(struct tmx_buf *b, uint8_t v, size_t n)
{
	return pq_fill_pattern(b, 0x0101010101010101ull * v, n);
}

static inline bool pq_fill32(struct tmx_buf *b, const uint32_t *v, size_t n)
{
	return pq_fill_pattern(b, (uint64_t)*v * 0x100000001ull, 4 * n);
}

/* The levels of a value or a null (the hot path: inline). */
static inline void pq_col_levels(struct pq_col *c, uint8_t rep, uint8_t def)
{
	if (c->max_rep)
		tmx_buf_byte(&c->reps, rep);
	if (c->max_def)
		tmx_buf_byte(&c->defs, def);
	c->n_levels++;
	*c->acct += 2;
}

/* The levels of the values of an integer column before its first null (see defs_stored). */
void pq_col_defs_start(struct pq_col *c);

static inline void pq_col_null(struct pq_col *c, uint8_t rep, uint8_t def)
{
	if (!c->defs_stored)
		pq_col_defs_start(c);
	pq_col_levels(c, rep, def);
	c->n_nulls++;
}

/*
 * How far ahead of a column's end its next values' memory is fetched
 * (pq_col_put8).  Sequentially, the columns of every table fill at once
 * (some 20 to 80 streams of stores, row after row), too many for the
 * hardware's prefetchers: each store of a value to a line not in the
 * caches waited for it, a third of the time of the rows' values.  256
 * bytes: 32 rows of an 8-byte column, fetched some hundred events before
 * they are written, while the lines stay in the first-level cache
 * (128 and 512 measured the same; none, 9% more CPU time on 1M CTF
 * events).  An address past the buffer is no error for a prefetch.
 */
#define PQ_COL_AHEAD 256

/*
 * The value `bits` as `w` (4 or 8) little-endian bytes at the end of `v`,
 * which has room for 8 (one 8-byte store either way: the column's next
 * value overwrites the 4 bytes past an INT32; big-endian hosts store `w`
 * bytes one by one).  The end is read once and kept: a store through
 * v->p could alias `v`, and the compiler would read it again.
 */
static inline __attribute__((always_inline)) void pq_col_put8(struct tmx_buf *v, uint64_t bits,
							     unsigned w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	size_t len = v->len;
	uint8_t *at = v->p + len;

	memcpy(at, &bits, 8);
	__builtin_prefetch(at + PQ_COL_AHEAD, 1);
	v->len = len + w;
#else
	for (unsigned i = 0; i < w; i++)
		v->p[v->len++] = (uint8_t)(bits >> (8 * i));
#endif
}

/* pq_col_put8 when `v` has room for 8 bytes (true), else nothing (false). */
static inline __attribute__((always_inline)) bool pq_col_store8(struct tmx_buf *v, uint64_t bits,
								unsigned w)
{
	if (__builtin_expect(v->cap - v->len >= 8, 1)) {
		pq_col_put8(v, bits, w);
		return true;
	}
	return false;
}

/*
 * INT32 (low 32 bits) or INT64 columns: the hottest path of the output
 * (most columns are integers), inlined, and on little-endian hosts with
 * room for 8 bytes one 8-byte store either way (an INT32 keeps 4 of
 * them).  Without counting the bytes into *acct: the columns made from a
 * row group's records (record.h) count nothing, since every value would
 * add to one shared counter, a chain of stores through memory.
 */
static inline __attribute__((always_inline)) void pq_col_int_put(struct pq_col *c, uint8_t rep,
								uint8_t def, uint64_t bits)
{
	/* The type, not int_width: a constant where the caller switched on it (record.h). */
	unsigned n = pq_int_width(c->type.phys);
	struct tmx_buf *v = &c->vals;

	if (c->max_rep)
		tmx_buf_byte(&c->reps, rep);
	if (c->max_def)
		tmx_buf_byte(&c->defs, def);
	if (v->oom || !pq_col_store8(v, bits, n))
		tmx_buf_le(v, bits, n == 4 ? 4 : 8);
	c->n_levels++;
	c->n_vals++;
}

/* The same, counted. */
static inline __attribute__((always_inline)) void pq_col_int(struct pq_col *c, uint8_t rep,
							    uint8_t def, uint64_t bits)
{
	pq_col_int_put(c, rep, def, bits);
	*c->acct += 2 + pq_int_width(c->type.phys);
}

/* FLOAT (converted) or DOUBLE columns. */
void pq_col_double(struct pq_col *c, uint8_t rep, uint8_t def, double v);
void pq_col_bool(struct pq_col *c, uint8_t rep, uint8_t def, bool v);
void pq_col_bytes(struct pq_col *c, uint8_t rep, uint8_t def, const void *p, size_t n);
/*
 * The dictionary entry of a byte array (added when new, counted), or -1
 * when the dictionary would grow past its limits or memory runs out.
 */
static inline int64_t pq_col_dict_entry(struct pq_col *c, const void *p, size_t n)
{
	size_t before = c->dict.n;
	int64_t e = tmx_strdict_entry(&c->dict, p, n, PQ_DICT_MAX_ENTRIES, PQ_DICT_MAX_BYTES);

	if (c->dict.n != before)
		*c->acct += n + 4;
	return e;
}
/*
 * pq_col_bytes of a value the column's dictionary has (true), else nothing
 * (false).  Its entries are the column's values, so a text that is one is
 * valid UTF-8 already: the sequential path looks a string up before it
 * checks it (fmap_values.c).
 */
bool pq_col_bytes_known(struct pq_col *c, uint8_t rep, uint8_t def, const void *p, size_t n);
/* The rows of `lazy` stored into `defs` and `dict_idx`. */
void pq_col_lazy_store(struct pq_col *c);
/* Whether an allocation failed since the last chunk. */
bool pq_col_oom(const struct pq_col *c);

/*
 * Appends the column chunk's pages to `out` (which will be written at file
 * offset `base`), fills `meta` and empties the column for the next row
 * group.  Returns false when memory runs out, compression fails or a page
 * would be larger than Parquet's 2 GiB.
 */
bool pq_col_encode(struct pq_col *c, struct pq_encoder *enc, uint64_t base, struct tmx_buf *out,
		   struct pq_chunk *meta);
/*
 * pq_col_encode of a packet's column `c` (column.h, `pk`) whose rows'
 * instances are `rows` (uint16), at file offset 0, without expanding its
 * values when its chunk is a dictionary (most packet columns): true with
 * *ok pq_col_encode's result; false, `c` untouched, when the column needs
 * its values per row (pq_col_pk_expand, then pq_col_encode).
 */
bool pq_col_encode_pk(struct pq_col *c, const struct tmx_buf *rows, struct pq_encoder *enc,
		      struct tmx_buf *out, struct pq_chunk *meta, bool *ok);
/*
 * Whether `b` would make the same pages as `a` (the same physical type,
 * levels and values): `ts` and `cycles` of a clock that counts
 * nanoseconds from zero (trace.dat's, often), where encoding the second
 * did all the work again (the deltas, zstd) for the same bytes.
 */
bool pq_col_same(const struct pq_col *a, const struct pq_col *b);
/*
 * Appends a copy of out[from, to), the chunk `prev` of a column of type
 * `prev_type` pq_col_same as `c` encoded into `out`, as c's chunk
 * (`meta`: prev's, its offsets moved, its statistics c's own when the
 * types differ), and empties `c` as pq_col_encode does.  False when
 * memory runs out.
 */
bool pq_col_repeat(struct pq_col *c, const struct pq_type *prev_type, const struct pq_chunk *prev,
		   size_t from, size_t to, struct tmx_buf *out, struct pq_chunk *meta);
/* The column's null count and the bounds of its values into `m` (stats.c). */
void pq_chunk_stats(const struct pq_col *c, struct pq_chunk *m);
/* Bounds `lo` and `hi` of `n` bytes each, little-endian (PLAIN), into `m`. */
void pq_set_bounds_le(struct pq_chunk *m, uint64_t lo, uint64_t hi, unsigned n);
/* The chunk's ColumnMetaData statistics (field `id`). */
struct pq_thrift;
void pq_chunk_stats_thrift(const struct pq_chunk *m, struct pq_thrift *t, int16_t id);

#endif
