/*
 * Bounded zlib inflation, the one copy for the readers that meet deflate
 * streams (gzip-compressed CTF packets, zlib blocks of trace.dat v7): the
 * output buffer grows with the real output, by doubling from 64 KiB, and
 * never past a ceiling the caller sets, so a stream that inflates without
 * end (or a size that lies) costs bounded memory.
 */
#ifndef TMX_IO_INFLATE_H
#define TMX_IO_INFLATE_H

#include <stddef.h>
#include <stdint.h>

/* zlib's window bits: a zlib stream, a gzip member. */
#define TMX_INFLATE_ZLIB 15
#define TMX_INFLATE_GZIP (16 + 15)

enum tmx_inflate_status {
	TMX_INFLATE_END = 0,       /* the stream ended, its output in the buffer */
	TMX_INFLATE_CEILING,       /* the output goes past the ceiling */
	TMX_INFLATE_NOMEM,         /* out of memory (zlib's state or the buffer) */
	TMX_INFLATE_TRUNCATED,     /* the input ends before the stream does */
	TMX_INFLATE_INVALID,       /* not valid data (*msg: zlib's reason, if any) */
};

/*
 * Inflates the stream in[0, in_len) into *buf (of *cap bytes) after its
 * first *len bytes, which are kept; *len is then where the output ends.
 * The buffer holds at most `ceiling` bytes in all (kept ones included):
 * output beyond is TMX_INFLATE_CEILING (the buffer is given one byte more
 * to see it).  Input after the end of the stream is ignored.  *msg (may
 * be NULL) is zlib's static text for TMX_INFLATE_INVALID, else NULL.
 */
enum tmx_inflate_status tmx_inflate(const uint8_t *in, size_t in_len, int window_bits,
				    size_t ceiling, uint8_t **buf, size_t *cap, size_t *len,
				    const char **msg);

/*
 * The same, keeping zlib's state in *keep from one stream to the next (made
 * on first use, NULL before; reset for each stream): for a reader that
 * inflates many blocks.  Free it with tmx_inflater_free.
 */
struct tmx_inflater;
enum tmx_inflate_status tmx_inflate_with(struct tmx_inflater **keep, const uint8_t *in,
					 size_t in_len, int window_bits, size_t ceiling,
					 uint8_t **buf, size_t *cap, size_t *len, const char **msg);
void tmx_inflater_free(struct tmx_inflater *z);

#endif
