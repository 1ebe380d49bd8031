/* Bounded zlib inflation: see inflate.h. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zlib.h>

#include "io/inflate.h"

#define INFLATE_FIRST (64u * 1024)

/* Room after `used` (doubling from 64 KiB, at most `limit` bytes in all); false: out of memory. */
static bool room(uint8_t **buf, size_t *cap, size_t used, size_t limit)
{
	size_t n = *cap ? *cap : INFLATE_FIRST;
	uint8_t *p;

	while (n <= used && n < limit)
		n = n > SIZE_MAX / 2 ? SIZE_MAX : n * 2;
	if (n > limit)
		n = limit;
	if (n <= *cap)
		return true;
	if (!(p = realloc(*buf, n)))
		return false;
	*buf = p;
	*cap = n;
	return true;
}

/* zlib's state kept from stream to stream (tmx_inflate_with). */
struct tmx_inflater {
	z_stream zs;
	int window_bits;
};

/* z's state made for a stream of window_bits; false: out of memory. */
static bool init(struct tmx_inflater *z, int window_bits)
{
	z->zs = (z_stream){ 0 };
	z->window_bits = window_bits;
	return inflateInit2(&z->zs, window_bits) == Z_OK;
}

/* z's state reset for a new stream (zlib keeps its window when the bits do not change). */
static bool restart(struct tmx_inflater *z, int window_bits)
{
	if (z->window_bits == window_bits)
		return inflateReset(&z->zs) == Z_OK;
	z->window_bits = window_bits;
	return inflateReset2(&z->zs, window_bits) == Z_OK;
}

enum tmx_inflate_status tmx_inflate(const uint8_t *in, size_t in_len, int window_bits,
				    size_t ceiling, uint8_t **buf, size_t *cap, size_t *len,
				    const char **msg)
{
	return tmx_inflate_with(NULL, in, in_len, window_bits, ceiling, buf, cap, len, msg);
}

void tmx_inflater_free(struct tmx_inflater *z)
{
	if (z) {
		inflateEnd(&z->zs);
		free(z);
	}
}

enum tmx_inflate_status tmx_inflate_with(struct tmx_inflater **keep, const uint8_t *in,
					 size_t in_len, int window_bits, size_t ceiling,
					 uint8_t **buf, size_t *cap, size_t *len, const char **msg)
{
	size_t limit = ceiling == SIZE_MAX ? SIZE_MAX : ceiling + 1, used = *len;
	enum tmx_inflate_status st;
	struct tmx_inflater local, *z = keep ? *keep : NULL;
	z_stream *zs;
	int zr;

	if (msg)
		*msg = NULL;
	if (z) {
		if (!restart(z, window_bits))
			return TMX_INFLATE_NOMEM;
	} else if (!keep) {
		if (!init(z = &local, window_bits))
			return TMX_INFLATE_NOMEM;
	} else {
		if (!(z = malloc(sizeof(*z))))
			return TMX_INFLATE_NOMEM;
		if (!init(z, window_bits)) {
			free(z);
			return TMX_INFLATE_NOMEM;
		}
		*keep = z;
	}
	zs = &z->zs;
	zs->next_in = (Bytef *)in;
	for (;;) {
		size_t left_in = in_len - (size_t)((const uint8_t *)zs->next_in - in);

		if (used >= limit) {
			st = TMX_INFLATE_CEILING;
			break;
		}
		if (!room(buf, cap, used, limit)) {
			st = TMX_INFLATE_NOMEM;
			break;
		}
		/* avail_in and avail_out are unsigned ints: at most UINT_MAX at a time. */
		zs->avail_in = left_in > UINT_MAX ? UINT_MAX : (uInt)left_in;
		zs->next_out = *buf + used;
		zs->avail_out = *cap - used > UINT_MAX ? UINT_MAX : (uInt)(*cap - used);
		zr = inflate(zs, Z_NO_FLUSH);
		used = (size_t)(zs->next_out - *buf);
		if (used > ceiling) {
			st = TMX_INFLATE_CEILING;
			break;
		}
		if (zr == Z_STREAM_END) {
			st = TMX_INFLATE_END;
			break;
		}
		if (zr == Z_BUF_ERROR && zs->avail_in == 0 && left_in <= UINT_MAX) {
			st = TMX_INFLATE_TRUNCATED;
			break;
		}
		if (zr == Z_MEM_ERROR) {
			st = TMX_INFLATE_NOMEM;
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			if (msg)
				*msg = zs->msg;
			st = TMX_INFLATE_INVALID;
			break;
		}
	}
	if (!keep)
		inflateEnd(zs);
	*len = used;
	return st;
}
