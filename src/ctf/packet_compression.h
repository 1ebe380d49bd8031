/*
 * Compressed packet content (CTF 1.8 spec section 5: the packet's
 * `compression_scheme` is 1 for bzip2, 2 for gzip, 3 for xz).  The spec
 * leaves the framing open; tracemux reads it this way: the bytes after the
 * packet header and context, up to the content size, are one compressed
 * stream whose output is the packet's event records.
 */
#ifndef TMX_CTF_PACKET_COMPRESSION_H
#define TMX_CTF_PACKET_COMPRESSION_H

#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"

/* Decompressed content beyond this is refused: no decompression bombs. */
#define CTF_MAX_INFLATED_PACKET (64u * 1024 * 1024)

enum ctf_compression { CTF_COMPRESSION_NONE, CTF_COMPRESSION_BZIP2, CTF_COMPRESSION_GZIP,
		       CTF_COMPRESSION_XZ };

/*
 * Fills *buf (malloc'ed, *cap bytes, grown as needed) with the `keep`
 * bytes at `prefix` (the packet header and context) followed by the
 * decompressed `in` (`in_len` bytes, `scheme`).  Sets *out_len to the
 * decompressed size.  Errors name `path` and `offset`.
 */
int ctf_inflate_packet(uint64_t scheme, const uint8_t *prefix, size_t keep, const uint8_t *in,
		       size_t in_len, uint8_t **buf, size_t *cap, size_t *out_len,
		       const char *path, uint64_t offset, struct tmx_error *err);

#endif
