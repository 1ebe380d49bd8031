/* Packet decompression with zlib, libbz2 and liblzma: see packet_compression.h. */
#include <bzlib.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ctf/packet_compression.h"
#include "io/inflate.h"
#include "common/errors.h"

/* Makes room for at least `more` bytes after `used`; false when over the cap. */
static bool grow(uint8_t **buf, size_t *cap, size_t used, size_t more)
{
	size_t want = *cap ? *cap : 64 * 1024;
	uint8_t *nb;

	while (want - used < more)
		want *= 2;
	if (want > CTF_MAX_INFLATED_PACKET + 4096)
		return false;
	if (want == *cap)
		return true;
	nb = realloc(*buf, want);
	if (!nb)
		return false;
	*buf = nb;
	*cap = want;
	return true;
}

#define CHUNK (64 * 1024)

static int too_big(const char *path, uint64_t offset, struct tmx_error *err)
{
	return tmx_error_at(err, TMX_ERR_LIMIT, path, offset,
			    "decompressed packet content exceeds %u bytes (or memory ran out)",
			    CTF_MAX_INFLATED_PACKET);
}

static int corrupt(const char *path, uint64_t offset, const char *what, struct tmx_error *err)
{
	return tmx_error_at(err, TMX_ERR_DATA, path, offset,
			    "compressed packet content is not valid %s data", what);
}

static int gunzip(const uint8_t *in, size_t in_len, uint8_t **buf, size_t *cap, size_t keep,
		  size_t *out_len, const char *path, uint64_t offset, struct tmx_error *err)
{
	size_t used = keep;

	switch (tmx_inflate(in, in_len, TMX_INFLATE_GZIP, CTF_MAX_INFLATED_PACKET, buf, cap, &used,
			    NULL)) {
	case TMX_INFLATE_END:
		*out_len = used - keep;
		return TMX_OK;
	case TMX_INFLATE_CEILING:
	case TMX_INFLATE_NOMEM:
		return too_big(path, offset, err);
	default:
		return corrupt(path, offset, "gzip", err);
	}
}

static int bunzip2(const uint8_t *in, size_t in_len, uint8_t **buf, size_t *cap, size_t keep,
		   size_t *out_len, const char *path, uint64_t offset, struct tmx_error *err)
{
	bz_stream bz = { 0 };
	size_t used = keep;
	int br;

	if (BZ2_bzDecompressInit(&bz, 0, 0) != BZ_OK)
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "cannot start bzip2");
	bz.next_in = (char *)in;
	bz.avail_in = (unsigned)in_len;
	do {
		if (!grow(buf, cap, used, CHUNK)) {
			BZ2_bzDecompressEnd(&bz);
			return too_big(path, offset, err);
		}
		bz.next_out = (char *)*buf + used;
		bz.avail_out = (unsigned)(*cap - used);
		br = BZ2_bzDecompress(&bz);
		used = *cap - bz.avail_out;
	} while (br == BZ_OK && (bz.avail_in || !bz.avail_out));
	BZ2_bzDecompressEnd(&bz);
	if (br != BZ_STREAM_END)
		return corrupt(path, offset, "bzip2", err);
	*out_len = used - keep;
	return TMX_OK;
}

static int unxz(const uint8_t *in, size_t in_len, uint8_t **buf, size_t *cap, size_t keep,
		size_t *out_len, const char *path, uint64_t offset, struct tmx_error *err)
{
	lzma_stream xz = LZMA_STREAM_INIT;
	size_t used = keep;
	lzma_ret xr;

	if (lzma_stream_decoder(&xz, 256u << 20, 0) != LZMA_OK)
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "cannot start xz");
	xz.next_in = in;
	xz.avail_in = in_len;
	do {
		if (!grow(buf, cap, used, CHUNK)) {
			lzma_end(&xz);
			return too_big(path, offset, err);
		}
		xz.next_out = *buf + used;
		xz.avail_out = *cap - used;
		xr = lzma_code(&xz, LZMA_FINISH);
		used = *cap - xz.avail_out;
	} while (xr == LZMA_OK);
	lzma_end(&xz);
	if (xr != LZMA_STREAM_END)
		return corrupt(path, offset, "xz", err);
	*out_len = used - keep;
	return TMX_OK;
}

int ctf_inflate_packet(uint64_t scheme, const uint8_t *prefix, size_t keep, const uint8_t *in,
		       size_t in_len, uint8_t **buf, size_t *cap, size_t *out_len,
		       const char *path, uint64_t offset, struct tmx_error *err)
{
	if (scheme < CTF_COMPRESSION_BZIP2 || scheme > CTF_COMPRESSION_XZ)
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, path, offset,
				    "unknown packet compression scheme %llu (1 bzip2, 2 gzip, 3 xz)",
				    (unsigned long long)scheme);
	if (!grow(buf, cap, 0, keep))
		return too_big(path, offset, err);
	memcpy(*buf, prefix, keep);
	switch (scheme) {
	case CTF_COMPRESSION_BZIP2:
		return bunzip2(in, in_len, buf, cap, keep, out_len, path, offset, err);
	case CTF_COMPRESSION_GZIP:
		return gunzip(in, in_len, buf, cap, keep, out_len, path, offset, err);
	default:
		return unxz(in, in_len, buf, cap, keep, out_len, path, offset, err);
	}
}
