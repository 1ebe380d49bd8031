/*
 * The compression of a column chunk's pages (page.c): zstd with the
 * encoder's static context, the pages of dictionary indices that the
 * next columns may have too remembered (see column.h); short pages and
 * values that zstd cannot shrink in raw blocks of a frame made here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_initStaticCCtx and its size */
#include <zstd.h>
#include <zstd_errors.h>

#include "sink/parquet/column.h"

/*
 * zstd's shortest match: 7 bytes where level 1 takes 6 for inputs of a
 * page's size.  A fifth of zstd's time less (the pages are dictionary
 * indices, levels and packed deltas: their short matches are few and
 * gain little) for under 1% more bytes on the benchmarks (bench/parquet.sh).
 */
#define PQ_ZSTD_MIN_MATCH 7

/* `n` bytes at `src` compressed into dst[0, cap) with the encoder's level; a zstd result. */
static size_t compress(struct pq_encoder *enc, void *dst, size_t cap, const void *src, size_t n)
{
	if (!enc->zparams) {   /* the parameters stay with the context from one page to the next */
		size_t r = ZSTD_CCtx_setParameter(enc->zctx, ZSTD_c_compressionLevel, enc->level);

		if (!ZSTD_isError(r))
			r = ZSTD_CCtx_setParameter(enc->zctx, ZSTD_c_minMatch, PQ_ZSTD_MIN_MATCH);
		if (ZSTD_isError(r))
			return r;
		enc->zparams = true;
	}
	return ZSTD_compress2(enc->zctx, dst, cap, src, n);
}

bool pq_encoder_zstd(struct pq_encoder *enc, int level)
{
	/*
	 * zstd's static contexts are of its experimental API, whose
	 * prototypes may change from one version to the next: used only
	 * with the libzstd these headers are of, else a context of its own
	 * (as before: the same bytes, a little more work).
	 */
	return pq_encoder_zstd_as(enc, level, ZSTD_versionNumber() == ZSTD_VERSION_NUMBER);
}

/*
 * The memory of a static context for pages of any size at `level`.  The
 * page sizes below which zstd's parameters change: a shorter page may
 * have larger tables (level 1: at 16 KiB, a hash table four times that of
 * 128 KiB), so the largest of them all, as ZSTD_estimateCCtxSize.
 */
static size_t static_size(int level)
{
	static const unsigned long long tiers[] = { 16 << 10, 128 << 10, 256 << 10, 0 };
	size_t size = 0;

	for (size_t t = 0; t < sizeof(tiers) / sizeof(tiers[0]); t++) {
		ZSTD_compressionParameters cp = ZSTD_getCParams(level, tiers[t], 0);
		size_t n;

		cp.minMatch = PQ_ZSTD_MIN_MATCH;
		n = ZSTD_estimateCCtxSize_usingCParams(cp);
		size = n > size ? n : size;
	}
	return size;
}

bool pq_encoder_zstd_as(struct pq_encoder *enc, int level, bool fixed)
{
	size_t size;

	enc->level = level;
	enc->zparams = false;
	if (!fixed) {
		enc->zws = NULL;
		return (enc->zctx = ZSTD_createCCtx()) != NULL;
	}
	size = static_size(level);
	if (!(enc->zws = malloc(size)))
		return false;
	/* A static context starts without the defaults (the frame's content size, ...): reset. */
	enc->zctx = ZSTD_initStaticCCtx(enc->zws, size);
	if (!enc->zctx || ZSTD_isError(ZSTD_CCtx_reset(enc->zctx, ZSTD_reset_parameters))) {
		pq_encoder_zstd_free(enc);
		return false;
	}
	return true;
}

void pq_encoder_zstd_free(struct pq_encoder *enc)
{
	if (enc->zws)
		free(enc->zws);   /* the context is in it */
	else
		ZSTD_freeCCtx(enc->zctx);
	enc->zws = enc->zctx = NULL;
}

/* The output remembered for input p[0, n) (n > 0: an empty slot has none), or NULL. */
static const struct tmx_buf *memo_find(const struct pq_memo *m, const void *p, size_t n)
{
	for (unsigned k = 0; k < PQ_MEMO; k++)
		if (m[k].in.len == n && n && !m[k].in.oom && !m[k].out.oom &&
		    !memcmp(m[k].in.p, p, n))
			return &m[k].out;
	return NULL;
}

/* Remembers `out` for input p[0, n), in place of the oldest. */
static void memo_put(struct pq_memo *m, unsigned *next, const void *p, size_t n, const void *out,
		     size_t out_n)
{
	struct pq_memo *e = &m[*next];

	*next = (*next + 1) % PQ_MEMO;
	e->in.len = e->out.len = 0;
	e->in.oom = e->out.oom = false;
	tmx_buf_put(&e->in, p, n);
	tmx_buf_put(&e->out, out, out_n);
	if (e->in.oom || e->out.oom)
		e->in.len = 0;   /* never found */
}

/*
 * Values that zstd cannot shrink (random payload bytes, their dictionary
 * indices bit-packed at 8 bits: on the CTF benchmark, 2.4 MB of pages
 * that zstd went through in some 3 ms for nothing) are written in raw
 * blocks, without compressing them; the levels before them compress
 * better alone.  Decided on the values alone: a sample of their bytes
 * first (a byte that comes back often says Huffman codes would pay: no
 * further test), then zstd's output for their first RAW_PROBE bytes,
 * which must be 1/32 smaller.  Only values of RAW_MIN bytes or more,
 * where that probe costs a fraction of what it may save.
 */
#define RAW_MIN (64u << 10)
#define RAW_PROBE (16u << 10)
#define RAW_SAMPLE 4096u

/*
 * Pages under RAW_SHORT bytes are not compressed either (dictionaries of
 * a few values, the indices of short chunks): zstd takes one to three
 * microseconds for each, whatever its size, and gained 17 bytes a page on
 * the benchmarks (0.04% of the CTF dataset, 0.07% of big.dat's).
 */
#define RAW_SHORT 256

/* zstd's frame (RFC 8878): magic number, block headers, the largest block. */
#define ZSTD_MAGIC 0xFD2FB528u
#define BLOCK_MAX (128u << 10)
enum { BLOCK_RAW = 0, BLOCK_RLE = 1 };   /* Block_Type (2: compressed) */

/* Whether values v[0, n) (n >= RAW_MIN) go into raw blocks; `probe`: room for zstd's output. */
static bool values_raw(struct pq_encoder *enc, const uint8_t *v, size_t n, void *probe,
		       size_t cap)
{
	uint32_t count[256] = { 0 };
	size_t zn;

	/*
	 * 16 runs of 256 bytes across the values (runs: every byte of a
	 * value's width, not one of them).  Uniform bytes count 16 each; 4
	 * times that for one of them is skewed enough to pay.
	 */
	for (size_t r = 0; r < 16; r++)
		for (size_t i = 0; i < RAW_SAMPLE / 16; i++)
			if (++count[v[r * (n / 16) + i]] > 4 * RAW_SAMPLE / 256)
				return false;
	zn = compress(enc, probe, cap, v, RAW_PROBE);
	return !ZSTD_isError(zn) && zn > RAW_PROBE - RAW_PROBE / 32;
}

/* `n` bytes as raw blocks at `o`, the last one flagged `last`; returns the end. */
static uint8_t *raw_blocks(uint8_t *o, const uint8_t *src, size_t n, bool last)
{
	do {
		size_t k = n < BLOCK_MAX ? n : BLOCK_MAX;
		uint32_t h = (uint32_t)(k << 3 | BLOCK_RAW << 1 | (last && k == n));

		o[0] = (uint8_t)h;
		o[1] = (uint8_t)(h >> 8);
		o[2] = (uint8_t)(h >> 16);
		memcpy(o + 3, src, k);
		o += 3 + k;
		src += k;
		n -= k;
	} while (n);
	return o;
}

/*
 * The header of a frame of `n` bytes: one segment (its window the
 * whole content, as zstd writes a frame whose size it knows) up to the
 * window every decoder takes by default (ZSTD_WINDOWLOG_LIMIT_DEFAULT:
 * a streaming one refuses more), else a window of that size, which holds
 * the matches of zstd's blocks at any level but the ultra ones; the
 * content size on the fewest bytes; no checksum nor dictionary.  Returns
 * the end (at most FRAME_HEADER_MAX bytes on).
 */
#define WINDOW_LOG 27
#define FRAME_HEADER_MAX (4 + 1 + 1 + 8)

static uint8_t *frame_header(uint8_t *o, uint64_t n)
{
	bool single = n <= 1u << WINDOW_LOG;
	unsigned code = n < 256 && single ? 0 : n < 65536 + 256 ? 1 : n <= UINT32_MAX ? 2 : 3;
	unsigned len = code || single ? 1u << code : 0;

	if (code == 1)
		n -= 256;
	for (unsigned k = 0; k < 4; k++)
		*o++ = (uint8_t)(ZSTD_MAGIC >> (8 * k));
	/* Frame_Header_Descriptor: Frame_Content_Size_flag, Single_Segment_flag. */
	*o++ = (uint8_t)(code << 6 | (unsigned)single << 5);
	if (!single)
		*o++ = (WINDOW_LOG - 10) << 3;   /* Window_Descriptor: exponent, no mantissa */
	for (unsigned k = 0; k < len; k++)
		*o++ = (uint8_t)(n >> (8 * k));
	return o;
}

/*
 * The blocks of zstd's frame f[0, fn) (one of compress(): a header of its
 * own, then blocks) moved to `o` with the last one's flag cleared, for
 * more blocks after them in one frame.  Returns the end, or NULL for a
 * frame that is not as expected.
 */
static uint8_t *frame_blocks(uint8_t *o, const uint8_t *f, size_t fn)
{
	static const uint8_t did_len[4] = { 0, 1, 2, 4 }, fcs_len[4] = { 0, 2, 4, 8 };
	size_t at, last = 0;
	unsigned fhd;

	if (fn < 5 || (fhd = f[4]) & 0x0C)   /* the reserved bit, or a checksum after the blocks */
		return NULL;
	at = 5 + !(fhd & 0x20) + did_len[fhd & 3] + ((fhd >> 6) || !(fhd & 0x20) ? fcs_len[fhd >> 6] : 1);
	for (size_t b = at;;) {
		uint32_t h;
		size_t size;

		if (b + 3 > fn)
			return NULL;
		h = (uint32_t)f[b] | (uint32_t)f[b + 1] << 8 | (uint32_t)f[b + 2] << 16;
		size = ((h >> 1) & 3) == BLOCK_RLE ? 1 : h >> 3;
		last = b;
		b += 3 + size;
		if (h & 1) {
			if (b != fn)
				return NULL;
			break;
		}
	}
	memmove(o, f + at, fn - at);
	o[last - at] &= 0xFE;
	return o + (fn - at);
}

/*
 * The page as one frame: its first `head` bytes (levels) compressed,
 * then the values in raw blocks.  dst has zstd's bound for n bytes (n of
 * 64 KiB or more): room for the header, the blocks of the levels (at
 * most 3 bytes a block of 128 KiB more than them) and those of the values.
 */
static size_t compress_head(struct pq_encoder *enc, uint8_t *dst, size_t cap, const uint8_t *src,
			    size_t n, size_t head)
{
	uint8_t *o = frame_header(dst, n);

	if (head) {
		/* After the room of the longest header: the frame's blocks move back over it. */
		size_t room = FRAME_HEADER_MAX, zn = compress(enc, dst + room, cap - room, src, head);

		if (ZSTD_isError(zn))
			return zn;
		if (!(o = frame_blocks(o, dst + room, zn)))
			return (size_t)-ZSTD_error_GENERIC;
	}
	return (size_t)(raw_blocks(o, src + head, n - head, true) - dst);
}

size_t pq_compress_page(struct pq_encoder *enc, void *dst, size_t cap, const uint8_t *src,
			size_t n, size_t head, bool memo)
{
	/*
	 * zstd's output depends on nothing but its input and parameters: the
	 * same page of dictionary indices (`memo`: the columns of one stream)
	 * again is copied.
	 */
	const struct tmx_buf *seen;
	size_t zn;

	if (n < RAW_SHORT)
		return (size_t)(raw_blocks(frame_header(dst, n), src, n, true) - (uint8_t *)dst);
	/* Before the memo, which holds compressions of whole pages only. */
	if (n - head >= RAW_MIN && values_raw(enc, src + head, n - head, dst, cap))
		return compress_head(enc, dst, cap, src, n, head);
	seen = memo ? memo_find(enc->zstd_memo, src, n) : NULL;
	if (seen) {
		memcpy(dst, seen->p, seen->len);
		return seen->len;
	}
	zn = compress(enc, dst, cap, src, n);
	if (!ZSTD_isError(zn) && memo)
		memo_put(enc->zstd_memo, &enc->zstd_next, src, n, dst, zn);
	return zn;
}
