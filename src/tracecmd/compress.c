/*
 * Decompression of trace.dat v7 blocks: a metadata section is one block,
 * flyrecord data is a sequence of blocks (chunks).  trace-cmd writes zstd
 * blocks with ZSTD_compress (one frame) and zlib blocks with compress2 (a
 * zlib stream, through io/inflate.h).  Both are decompressed as streams into a buffer that grows
 * with the real output, capped by the size the file declares: a lying
 * size costs no memory, and a block never yields more than it declares.
 *
 * Readers decompress many blocks, on several threads at once (src/par/):
 * the contexts that zstd and zlib make (a zstd context is about 100 KiB
 * of tables, plus its window buffers) are kept from block to block in
 * unpackers, which each file keeps in a pool for its cursors and scans
 * (tdat_unpacker_take/give), one per thread at a time.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "io/inflate.h"
#include "tracecmd/internal.h"
#include "common/errors.h"

#define GROW_MIN (64u * 1024)

/* What a reader keeps from block to block: each made on first use. */
struct tdat_unpacker {
	struct tdat_unpacker *next;      /* in its file's pool */
	ZSTD_DStream *zstd;
	struct tmx_inflater *zlib;
};

#define ZSTD_MAGIC 0xFD2FB528u
/* The largest window zstd's streaming decoder takes by default (ZSTD_WINDOWLOG_LIMIT_DEFAULT) */
#define STREAM_WINDOW_MAX (1ull << 27)
/* Decoded in one pass into a buffer of the declared size made for it, at most this */
#define ONE_PASS_NEW_MAX (1u << 20)

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

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * The window that the zstd frame at in[0, n) declares (RFC 8878
 * 3.1.1.1: its Window_Descriptor, or its content size when it is a single
 * segment); 0 when it is not a zstd frame or its header does not read.
 */
static uint64_t frame_window(const uint8_t *in, size_t n)
{
	static const unsigned did_bytes[4] = { 0, 1, 2, 4 }, fcs_bytes[4] = { 1, 2, 4, 8 };
	unsigned fhd, at, fcs;
	uint64_t base, size;

	if (n < 6 || le(in, 4) != ZSTD_MAGIC || (in[4] & 0x08))
		return 0;
	fhd = in[4];
	if (!(fhd & 0x20)) {
		base = 1ull << (10 + (in[5] >> 3));
		return base + (base / 8) * (in[5] & 7);
	}
	at = 5 + did_bytes[fhd & 3];
	fcs = fcs_bytes[fhd >> 6];
	if (n < at + fcs)
		return 0;
	size = le(in + at, fcs);
	return fcs == 2 ? size + 256 : size;
}

/*
 * Whether in[0, in_len) decodes in one pass (ZSTD_decompressDCtx, straight
 * into the buffer) to what the streaming decoder gives, when it decodes:
 * one frame exactly (no other frame after it, no skippable frame), whose
 * declared window holds the whole block (every match then reaches back
 * into the output, as in the streamed window, which never wraps) and that
 * the streaming decoder accepts.  Streaming copies every byte out of its
 * own window buffer: 6% of reading a zstd trace.dat.
 */
static bool one_pass(const uint8_t *in, size_t in_len, size_t expect)
{
	uint64_t w = frame_window(in, in_len);

	return w && expect <= w && w <= STREAM_WINDOW_MAX &&
	       ZSTD_findFrameCompressedSize(in, in_len) == in_len;
}

static int zstd_block(ZSTD_DStream *ds, const uint8_t *in, size_t in_len, size_t expect,
		      uint8_t **buf, size_t *cap, const char *path, uint64_t offset,
		      struct tmx_error *err)
{
	ZSTD_inBuffer ib = { in, in_len, 0 };
	size_t done = 0;
	int ret = TMX_OK;

	/*
	 * In one pass when it gives the same (a block that does not decode so
	 * is streamed again, for the error the stream gives); into a buffer
	 * made for it only when it is small, so that a lying size costs no
	 * memory, else into one the blocks before made large enough.
	 */
	if ((expect < *cap || expect < ONE_PASS_NEW_MAX) && one_pass(in, in_len, expect) &&
	    !grow(buf, cap, expect + 1, expect + 1, path, err) &&
	    ZSTD_decompressDCtx(ds, *buf, expect, in, in_len) == expect)
		return TMX_OK;
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

static int zlib_block(struct tmx_inflater **keep, const uint8_t *in, size_t in_len, size_t expect,
		      uint8_t **buf, size_t *cap, const char *path, uint64_t offset,
		      struct tmx_error *err)
{
	size_t done = 0;
	const char *why;

	switch (tmx_inflate_with(keep, in, in_len, TMX_INFLATE_ZLIB, expect, buf, cap, &done,
				 &why)) {
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

int tdat_decompress_with(struct tdat_unpacker *u, enum tdat_algo algo, const uint8_t *in,
			 size_t in_len, size_t expect, uint8_t **buf, size_t *cap, const char *path,
			 uint64_t offset, struct tmx_error *err)
{
	switch (algo) {
	case TDAT_ALGO_ZSTD: {
		ZSTD_DStream *ds = u ? u->zstd : NULL;
		int ret;
		if (!ds && !(ds = ZSTD_createDStream()))
			return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory (zstd)");
		ret = zstd_block(ds, in, in_len, expect, buf, cap, path, offset, err);
		if (u)
			u->zstd = ds;
		else
			ZSTD_freeDStream(ds);
		return ret;
	}
	case TDAT_ALGO_ZLIB:
		return zlib_block(u ? &u->zlib : NULL, in, in_len, expect, buf, cap, path, offset, err);
	default:
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, path, offset,
				    "compressed block but the file names no compression algorithm");
	}
}

int tdat_decompress(enum tdat_algo algo, const uint8_t *in, size_t in_len, size_t expect,
		    uint8_t **buf, size_t *cap, const char *path, uint64_t offset,
		    struct tmx_error *err)
{
	return tdat_decompress_with(NULL, algo, in, in_len, expect, buf, cap, path, offset, err);
}

static void unpacker_free(struct tdat_unpacker *u)
{
	ZSTD_freeDStream(u->zstd);
	tmx_inflater_free(u->zlib);
	free(u);
}

struct tdat_unpacker *tdat_unpacker_take(const struct tdat_file *f)
{
	struct tdat_file_priv *fp = tdat_priv(f);
	struct tdat_unpacker *u;

	pthread_mutex_lock(&fp->unpack_lock);
	if ((u = fp->unpackers))
		fp->unpackers = u->next;
	pthread_mutex_unlock(&fp->unpack_lock);
	return u ? u : calloc(1, sizeof(*u));
}

void tdat_unpacker_give(const struct tdat_file *f, struct tdat_unpacker *u)
{
	struct tdat_file_priv *fp = tdat_priv(f);

	if (!u)
		return;
	pthread_mutex_lock(&fp->unpack_lock);
	u->next = fp->unpackers;
	fp->unpackers = u;
	pthread_mutex_unlock(&fp->unpack_lock);
}

void tdat_unpackers_free(struct tdat_file_priv *fp)
{
	while (fp->unpackers) {
		struct tdat_unpacker *u = fp->unpackers;

		fp->unpackers = u->next;
		unpacker_free(u);
	}
}
