/*
 * The compression of a column chunk's pages (page.c): zstd with the
 * encoder's static context, the pages of dictionary indices that the
 * next columns may have too and short pages remembered (see column.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_initStaticCCtx and its size */
#include <zstd.h>

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

/* Where a short page of `n` bytes (1 to PQ_SHORT_IN) is kept: a hash of its ends and size. */
static unsigned short_slot(const uint8_t *p, size_t n)
{
	uint64_t a = 0, b = 0;

	if (n >= 8) {
		memcpy(&a, p, 8);
		memcpy(&b, p + n - 8, 8);
	} else {
		memcpy(&a, p, n);
	}
	return (unsigned)((((a ^ (b << 1 | b >> 63)) + n) * 0x9E3779B97F4A7C15ull) >> 58) %
	       PQ_SHORTS;
}

/*
 * compress() of a short page (1 to PQ_SHORT_IN bytes), from enc->shorts
 * when it was compressed before: zstd's output depends on nothing but its
 * input and parameters.
 */
static size_t compress_short(struct pq_encoder *enc, void *dst, size_t cap, const uint8_t *src,
			     size_t n)
{
	struct pq_short *e = &enc->shorts[short_slot(src, n)];
	size_t zn;

	if (e->in_len == n && !memcmp(e->in, src, n)) {
		memcpy(dst, e->out, e->out_len);   /* at most cap: cap is zstd's bound for n */
		return e->out_len;
	}
	zn = compress(enc, dst, cap, src, n);
	if (ZSTD_isError(zn) || zn > PQ_SHORT_OUT) {
		e->in_len = 0;
		return zn;
	}
	e->in_len = (uint8_t)n;
	e->out_len = (uint8_t)zn;
	memcpy(e->in, src, n);
	memcpy(e->out, dst, zn);
	return zn;
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

size_t pq_compress_page(struct pq_encoder *enc, void *dst, size_t cap, const uint8_t *src,
			size_t n, bool memo)
{
	/*
	 * zstd's output depends on nothing but its input and parameters: the
	 * same page of dictionary indices (`memo`: the columns of one stream)
	 * again is copied.
	 */
	const struct tmx_buf *seen = memo ? memo_find(enc->zstd_memo, src, n) : NULL;
	size_t zn;

	if (seen) {
		memcpy(dst, seen->p, seen->len);
		return seen->len;
	}
	if (n && n <= PQ_SHORT_IN)
		return compress_short(enc, dst, cap, src, n);
	zn = compress(enc, dst, cap, src, n);
	if (!ZSTD_isError(zn) && memo && n >= 256)
		memo_put(enc->zstd_memo, &enc->zstd_next, src, n, dst, zn);
	return zn;
}
