/*
 * A column becomes a column chunk (see column.h): the dictionary page,
 * the data page v1, page headers (their compression: zpage.c, the
 * statistics: stats.c, integer columns' dictionaries: int_dict.c).
 */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#include "sink/parquet/column.h"
#include "sink/parquet/encode.h"
#include "sink/parquet/int_dict.h"
#include "sink/parquet/thrift.h"

/* parquet.thrift's Encoding and PageType values. */
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_DELTA_BINARY_PACKED = 5, ENC_RLE_DICTIONARY = 8 };
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };

/*
 * Dictionary indices RLE / bit-packed into enc->body: 32-bit, or bytes
 * (`bytes`: int_dict's while its entries are 256 at most).  Not
 * remembered for the next columns as their compressed pages are
 * (put_page): copying and comparing 4 bytes an index cost more than the
 * encodings it saved.
 */
static void put_indices(struct pq_encoder *enc, const uint8_t *idx, bool bytes, size_t n,
			unsigned width)
{
	tmx_buf_byte(&enc->body, (uint8_t)width);
	pq_rle_hybrid(&enc->body, idx, bytes ? 1 : 4, n, width);
}

/* The PageHeader of a page of `len` bytes compressed to `zn`, at the end of `out`. */
static void page_header(struct tmx_buf *out, bool dict_page, size_t len, size_t zn,
			uint64_t num_values, int encoding)
{
	struct pq_thrift t;

	pq_t_begin(&t, out);
	pq_t_i32(&t, 1, dict_page ? PAGE_DICTIONARY : PAGE_DATA);
	pq_t_i32(&t, 2, (int32_t)len);
	pq_t_i32(&t, 3, (int32_t)zn);
	if (dict_page) {
		pq_t_struct(&t, 7);
		pq_t_i32(&t, 1, (int32_t)num_values);
		pq_t_i32(&t, 2, ENC_PLAIN);
	} else {
		pq_t_struct(&t, 5);
		pq_t_i32(&t, 1, (int32_t)num_values);
		pq_t_i32(&t, 2, encoding);
		pq_t_i32(&t, 3, ENC_RLE);
		pq_t_i32(&t, 4, ENC_RLE);
	}
	pq_t_struct_end(&t);
	pq_t_struct_end(&t);
}

/* More than a PageHeader of ours takes (some 30 bytes). */
#define PAGE_HEADER_MAX 64

/*
 * One page: `src` (`len` bytes: enc->body, or a column's own buffer when
 * the page is nothing else, not copied there first) compressed, after its
 * header (PageHeader with the data or dictionary page header).  Adds the
 * sizes to `m`.  `head`: the bytes of levels before the values (see
 * pq_compress_page).  `memo`: a page of dictionary indices that other
 * columns may have too.
 *
 * Compressed straight into `out`, after a header written for zstd's bound
 * on the size: the compressed size is at most that, and its varint (the
 * header's only field that depends on it) almost always as long, so that
 * the header written again over it ends where the page's bytes start;
 * when shorter (a small page), they are moved back.
 */
static bool put_page(struct pq_encoder *enc, struct tmx_buf *out, const uint8_t *src, size_t len,
		     size_t head, bool dict_page, uint64_t num_values, int encoding, bool memo,
		     struct pq_chunk *m)
{
	size_t bound = ZSTD_compressBound(len), at = out->len, zn, guess, hdr;
	uint8_t *dst;

	if ((src == enc->body.p && enc->body.oom) || len > INT32_MAX || num_values > INT32_MAX ||
	    !tmx_buf_reserve(out, PAGE_HEADER_MAX + bound))
		return false;
	page_header(out, dict_page, len, bound < INT32_MAX ? bound : INT32_MAX, num_values,
		    encoding);
	guess = out->len - at;
	if (out->oom || guess > PAGE_HEADER_MAX)
		return false;
	dst = out->p + out->len;
	zn = pq_compress_page(enc, dst, bound, src, len, head, memo);
	if (ZSTD_isError(zn) || zn > INT32_MAX)
		return false;
	out->len = at;
	page_header(out, dict_page, len, zn, num_values, encoding);
	hdr = out->len - at;   /* at most `guess`: the bytes at dst are whole */
	if (hdr != guess)
		memmove(out->p + at + hdr, dst, zn);
	out->len = at + hdr + zn;
	m->uncompressed += (int64_t)(hdr + len);
	m->compressed += (int64_t)(hdr + zn);
	return !out->oom;
}

static void reset(struct pq_col *c)
{
	struct pq_type type = c->type;
	uint8_t max_def = c->max_def, max_rep = c->max_rep;
	size_t *acct = c->acct;

	/* Freed, not kept, but for an encoder's columns: the memory of a quiet table goes back. */
	if (c->keep) {
		pq_col_reuse(c, type, max_def, max_rep, acct);
		return;
	}
	pq_col_free(c);
	pq_col_init(c, type, max_def, max_rep, acct);
}


/* The dictionary page of int_dict's entries: PLAIN values. */
static bool put_int_dict(const struct pq_col *c, struct pq_encoder *enc, size_t n_keys,
			 uint64_t base, struct tmx_buf *out, struct pq_chunk *meta)
{
	unsigned w = pq_int_width(c->type.phys);

	meta->dict_offset = (int64_t)(base + out->len);
	enc->body.len = 0;
	for (size_t k = 0; k < n_keys; k++)
		tmx_buf_le(&enc->body, enc->ikeys[k], w);
	return put_page(enc, out, enc->body.p, enc->body.len, 0, true, n_keys, ENC_PLAIN, false,
			meta);
}

/*
 * INT64 values as DELTA_BINARY_PACKED after the levels in enc->body, when
 * that takes at most half their PLAIN bytes (timestamps, counters: what
 * is left after the dictionaries, and most of zstd's work); false (the
 * body as it was) otherwise.
 */
static bool put_delta(const struct pq_col *c, struct pq_encoder *enc)
{
	size_t at = enc->body.len;

	if (c->vals.len < 8 * 16)
		return false;
	pq_delta_int64(&enc->body, c->vals.p, c->vals.len / 8);
	if (enc->body.oom || enc->body.len - at > c->vals.len / 2) {
		enc->body.len = at;
		return false;
	}
	return true;
}

/* The last bytes first: columns that begin alike (counters, flags) and differ later read no further. */
static bool same_bytes(const struct tmx_buf *a, const struct tmx_buf *b)
{
	size_t n = a->len, tail = n < 16 ? n : 16;

	return n == b->len && !a->oom && !b->oom &&
	       (!n || (!memcmp(a->p + n - tail, b->p + n - tail, tail) && !memcmp(a->p, b->p, n)));
}

bool pq_col_same(const struct pq_col *a, const struct pq_col *b)
{
	/* The cheap tests first: most neighbours differ in their counts or first values. */
	if (a->type.phys != b->type.phys || a->max_def != b->max_def || a->max_rep != b->max_rep ||
	    a->dict_on != b->dict_on || a->n_levels != b->n_levels || a->n_nulls != b->n_nulls ||
	    a->n_vals != b->n_vals || pq_col_oom(a) || pq_col_oom(b) || a->lazy != b->lazy ||
	    (a->lazy && (a->lazy_entry != b->lazy_entry || a->lazy_def != b->lazy_def)))
		return false;
	/*
	 * The entries before the indices: the string columns of one stream
	 * have the same indices (see put_indices) and other entries.
	 */
	if (a->dict_on && (a->dict.n != b->dict.n || !same_bytes(&a->dict.plain, &b->dict.plain) ||
			   !same_bytes(&a->dict_idx, &b->dict_idx)))
		return false;
	return same_bytes(&a->vals, &b->vals) && same_bytes(&a->defs, &b->defs) &&
	       same_bytes(&a->reps, &b->reps);
}

bool pq_col_repeat(struct pq_col *c, const struct pq_type *prev_type, const struct pq_chunk *prev,
		   size_t from, size_t to, struct tmx_buf *out, struct pq_chunk *meta)
{
	int64_t shift = (int64_t)(out->len - from);

	*meta = *prev;
	meta->data_offset += shift;
	if (meta->dict_offset >= 0)
		meta->dict_offset += shift;
	if (c->type.logical != prev_type->logical || c->type.int_bits != prev_type->int_bits ||
	    c->type.is_signed != prev_type->is_signed || c->type.utc != prev_type->utc) {
		/* Other bounds in another order (`ts` signed, `cycles` unsigned): c's own. */
		meta->has_minmax = meta->has_nan_count = false;
		meta->nan_count = 0;
		meta->min_len = meta->max_len = 0;
		if (!meta->up || !pq_increasing_stats(c, meta))
			pq_chunk_stats(c, meta);
	}
	/* Reserved first: the bytes copied are in `out`, which may move. */
	if (tmx_buf_reserve(out, to - from)) {
		memcpy(out->p + out->len, out->p + from, to - from);
		out->len += to - from;
	}
	reset(c);
	return !out->oom;
}

/* The chunk of `c` (`ok`: its buffers whole) with the integer dictionary `d`, and `c` emptied. */
static bool put_chunk(struct pq_col *c, struct pq_encoder *enc, uint64_t base,
		      struct tmx_buf *out, struct pq_chunk *meta, bool ok, const struct pq_idict *d)
{
	bool dict = c->dict_on && c->dict.n > 0, idict = d->on, up = d->up, narrow = d->narrow;
	/*
	 * The columns that share indices are a stream's or a packet's, one
	 * value a row; a LIST's values are another column's only by chance,
	 * and remembering them copied megabytes for nothing.
	 */
	bool memo = !c->max_rep, plain = false;
	size_t n_keys = d->n_keys, n_idx = d->n_idx, head;

	*meta = (struct pq_chunk){ .phys = c->type.phys, .dict = dict || idict, .up = up,
				   .num_values = (int64_t)c->n_levels, .dict_offset = -1 };
	if (idict)
		pq_int_dict_stats(c, enc->ikeys, n_keys, meta);
	else if (!up || !pq_increasing_stats(c, meta))
		pq_chunk_stats(c, meta);
	if (ok && dict) {
		meta->dict_offset = (int64_t)(base + out->len);
		ok = put_page(enc, out, c->dict.plain.p, c->dict.plain.len, 0, true, c->dict.n,
			      ENC_PLAIN, false, meta);
	} else if (idict) {
		ok = put_int_dict(c, enc, n_keys, base, out, meta);
	}
	meta->data_offset = (int64_t)(base + out->len);
	enc->body.len = 0;
	if (c->max_rep)
		pq_levels(&enc->body, c->reps.p, c->n_levels, c->max_rep);
	/*
	 * A value present has the deepest level, and every lower one is a
	 * null (pq_col_null counts them): without nulls, the levels are known
	 * without going through their bytes again.
	 */
	if (c->max_def && !c->n_nulls)
		pq_levels_all(&enc->body, c->max_def, c->n_levels, c->max_def);
	else if (c->max_def)
		pq_levels(&enc->body, c->defs.p, c->n_levels, c->max_def);
	head = enc->body.len;   /* the levels: the values follow */
	if (dict) {
		unsigned width = pq_bit_width(c->dict.n - 1);

		if (c->lazy && width) {   /* the tail alone */
			tmx_buf_byte(&enc->body, (uint8_t)width);
			pq_rle_const(&enc->body, c->lazy_entry, c->lazy, width);
		} else {
			put_indices(enc, c->dict_idx.p, false, c->dict_idx.len / 4 + c->lazy,
				    width);
		}
	} else if (idict) {
		put_indices(enc, enc->iidx.p, narrow, n_idx, pq_bit_width(n_keys - 1));
	} else if (c->type.phys == PQ_INT64 && put_delta(c, enc)) {
		meta->delta = true;
	} else if (enc->body.len || !c->vals.len) {
		tmx_buf_put(&enc->body, c->vals.p, c->vals.len);
	} else {
		plain = true;   /* the page is the values alone: compressed from where they are */
	}
	ok = ok && put_page(enc, out, plain ? c->vals.p : enc->body.p,
			    plain ? c->vals.len : enc->body.len, head, false, c->n_levels,
			    dict || idict ? ENC_RLE_DICTIONARY
			    : meta->delta ? ENC_DELTA_BINARY_PACKED
					  : ENC_PLAIN,
			    memo && (dict || idict), meta);
	reset(c);
	return ok;
}


bool pq_col_encode_pk(struct pq_col *c, const struct tmx_buf *rows, struct pq_encoder *enc,
		      struct tmx_buf *out, struct pq_chunk *meta, bool *ok)
{
	struct pq_idict d;

	if (c->type.phys != PQ_INT32 && c->type.phys != PQ_INT64)
		return false;
	if (c->max_rep || c->n_nulls || c->dict_on || c->lazy || rows->oom ||
	    c->n_levels != rows->len / 2 || pq_col_oom(c) ||
	    !pq_pk_dict(c, rows->p, rows->len / 2, enc, &d))
		return false;
	*ok = put_chunk(c, enc, 0, out, meta, true, &d);
	return true;
}

bool pq_col_encode(struct pq_col *c, struct pq_encoder *enc, uint64_t base, struct tmx_buf *out,
		   struct pq_chunk *meta)
{
	struct pq_idict d = { .narrow = true };
	bool ok;

	/*
	 * A lazy tail (column.h) is written without its values when the
	 * levels need not be read (no nulls) and the indices are all its
	 * entry (nothing stored before it) or of no bits (one entry).
	 */
	if (c->lazy && (c->n_nulls || (c->dict_idx.len && c->dict.n > 1)))
		pq_col_lazy_store(c);
	ok = !pq_col_oom(c);
	if (ok && !(c->dict_on && c->dict.n > 0) &&
	    (c->type.phys == PQ_INT32 || c->type.phys == PQ_INT64))
		d.on = pq_int_dict(c, enc, &d);
	return put_chunk(c, enc, base, out, meta, ok, &d);
}
