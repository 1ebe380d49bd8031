/*
 * Decompression of trace.dat v7 blocks: a metadata section is one block,
 * flyrecord data is a sequence of blocks (chunks).  trace-cmd writes zstd
 * blocks with ZSTD_compress (one frame) and zlib blocks with compress2 (a
 * zlib stream, through io/inflate.h).  Both are decompressed as streams into a buffer that grows
 * with the real output, capped by the size the file declares: a lying
 * size costs no memory, and a block never yields more than it declares.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "io/inflate.h"
#include "tracecmd/internal.h"
#include "common/errors.h"

#define GROW_MIN (64u * 1024)

static int grow(uint8_t **buf, size_t *cap, size_t need, size_t limit, const char *path,
		struct tmx_error *err)
{
	size_t n = *cap ? *cap : GROW_MIN;
	uint8_t *p;

	while (n < need)
		n = n > SIZE_MAX / 2 ? SIZE_MAX : n * 2;
	if (n > limit)
		n = limit;
	if (n <= *cap)
		return TMX_OK;
	p = realloc(*buf, n);
	if (!p)
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory (%zu bytes)", n);
	*buf = p;
	*cap = n;
	return TMX_OK;
}

static int zstd_block(ZSTD_DStream *ds, const uint8_t *in, size_t in_len, size_t expect,
		      uint8_t **buf, size_t *cap, const char *path, uint64_t offset,
		      struct tmx_error *err)
{
	ZSTD_inBuffer ib = { in, in_len, 0 };
	size_t done = 0;
	int ret = TMX_OK;

	ZSTD_initDStream(ds);
	for (;;) {
		ZSTD_outBuffer ob;
		size_t r;
		/* One byte more than expected: output beyond `expect` is an error. */
		if ((ret = grow(buf, cap, done + GROW_MIN < expect + 1 ? done + GROW_MIN : expect + 1,
				expect + 1, path, err)))
			break;
		ob = (ZSTD_outBuffer){ *buf, *cap, done };
		r = ZSTD_decompressStream(ds, &ob, &ib);
		done = ob.pos;
		if (ZSTD_isError(r)) {
			ret = tmx_error_at(err, TMX_ERR_DATA, path, offset,
					   "zstd block: %s", ZSTD_getErrorName(r));
			break;
		}
		if (done > expect) {
			ret = tmx_error_at(err, TMX_ERR_DATA, path, offset,
					   "compressed block yields more than the %zu bytes it declares",
					   expect);
			break;
		}
		if (r == 0 && ib.pos == ib.size)
			break;   /* frame complete, input used */
		if (r == 0 && ib.pos < ib.size) {
			ret = tmx_error_at(err, TMX_ERR_DATA, path, offset,
					   "zstd block: %zu bytes after the end of the frame",
					   ib.size - ib.pos);
			break;
		}
		if (ib.pos == ib.size && ob.pos < ob.size) {
			ret = tmx_error_at(err, TMX_ERR_DATA, path, offset,
					   "zstd block: truncated frame (%zu bytes)", in_len);
			break;
		}
	}
	if (!ret && done != expect)
		ret = tmx_error_at(err, TMX_ERR_DATA, path, offset,
				   "compressed block yields %zu bytes, %zu declared", done, expect);
	return ret;
}

static int zlib_block(const uint8_t *in, size_t in_len, size_t expect, uint8_t **buf,
		      size_t *cap, const char *path, uint64_t offset, struct tmx_error *err)
{
	size_t done = 0;
	const char *why;

	switch (tmx_inflate(in, in_len, TMX_INFLATE_ZLIB, expect, buf, cap, &done, &why)) {
	case TMX_INFLATE_END:
		break;
	case TMX_INFLATE_CEILING:
		return tmx_error_at(err, TMX_ERR_DATA, path, offset,
				    "compressed block yields more than the %zu bytes it declares", expect);
	case TMX_INFLATE_NOMEM:
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory (zlib)");
	case TMX_INFLATE_TRUNCATED:
		return tmx_error_at(err, TMX_ERR_DATA, path, offset,
				    "zlib block: truncated stream (%zu bytes)", in_len);
	default:
		return tmx_error_at(err, TMX_ERR_DATA, path, offset, "zlib block: %s",
				    why ? why : "invalid data");
	}
	if (done != expect)
		return tmx_error_at(err, TMX_ERR_DATA, path, offset,
				    "compressed block yields %zu bytes, %zu declared", done, expect);
	return TMX_OK;
}

int tdat_decompress_ctx(void **ctx, enum tdat_algo algo, const uint8_t *in, size_t in_len,
			size_t expect, uint8_t **buf, size_t *cap, const char *path,
			uint64_t offset, struct tmx_error *err)
{
	switch (algo) {
	case TDAT_ALGO_ZSTD: {
		ZSTD_DStream *ds = ctx ? *ctx : NULL;
		int ret;
		if (!ds && !(ds = ZSTD_createDStream()))
			return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory (zstd)");
		ret = zstd_block(ds, in, in_len, expect, buf, cap, path, offset, err);
		if (ctx)
			*ctx = ds;
		else
			ZSTD_freeDStream(ds);
		return ret;
	}
	case TDAT_ALGO_ZLIB:
		return zlib_block(in, in_len, expect, buf, cap, path, offset, err);
	default:
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, path, offset,
				    "compressed block but the file names no compression algorithm");
	}
}

int tdat_decompress(enum tdat_algo algo, const uint8_t *in, size_t in_len, size_t expect,
		    uint8_t **buf, size_t *cap, const char *path, uint64_t offset,
		    struct tmx_error *err)
{
	return tdat_decompress_ctx(NULL, algo, in, in_len, expect, buf, cap, path, offset, err);
}

void tdat_decompress_free(void *ctx)
{
	ZSTD_freeDStream(ctx);
}
