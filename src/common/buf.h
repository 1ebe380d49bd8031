/*
 * A growable byte buffer: the Parquet writer builds its pages, levels,
 * values and Thrift footer in these before they are compressed or written,
 * the Perfetto writer its protobuf messages.  An allocation failure is
 * remembered (`oom`) and later appends do nothing, so that callers check
 * once, where the bytes are used.
 *
 * A buffer may start on memory of someone else's (`borrowed`: room in an
 * output, tmx_buf_borrow): its bytes are written where they stay, and
 * only when they outgrow that room do they move to memory of the
 * buffer's own (which the buffer then owns, as any other).
 */
#ifndef TMX_COMMON_BUF_H
#define TMX_COMMON_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tmx_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
	bool borrowed;          /* p is not the buffer's: never freed nor reallocated */
};

/* Room for `n` more bytes; false (and `oom` set) when memory runs out. */
bool tmx_buf_reserve_slow(struct tmx_buf *b, size_t n);
void tmx_buf_free(struct tmx_buf *b);

/* An empty buffer on `cap` bytes at `p`, which stay the caller's (see above). */
static inline void tmx_buf_borrow(struct tmx_buf *b, void *p, size_t cap)
{
	*b = (struct tmx_buf){ .p = p, .cap = cap, .borrowed = true };
}

static inline bool tmx_buf_reserve(struct tmx_buf *b, size_t n)
{
	return (!b->oom && n <= b->cap - b->len) || tmx_buf_reserve_slow(b, n);
}

static inline void tmx_buf_put(struct tmx_buf *b, const void *p, size_t n)
{
	if (n && tmx_buf_reserve(b, n)) {
		memcpy(b->p + b->len, p, n);
		b->len += n;
	}
}

static inline void tmx_buf_byte(struct tmx_buf *b, uint8_t c)
{
	if (tmx_buf_reserve(b, 1))
		b->p[b->len++] = c;
}

/* Little-endian fixed-width integers (PLAIN encoding, length prefixes). */
static inline void tmx_buf_le(struct tmx_buf *b, uint64_t v, unsigned bytes)
{
	if (!tmx_buf_reserve(b, bytes))
		return;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* The low bytes first: already in order.  Constant sizes: no call to memcpy. */
	if (bytes == 8) {
		memcpy(b->p + b->len, &v, 8);
	} else if (bytes == 4) {
		uint32_t w = (uint32_t)v;
		memcpy(b->p + b->len, &w, 4);
	} else {
		memcpy(b->p + b->len, &v, bytes);
	}
	b->len += bytes;
#else
	for (unsigned i = 0; i < bytes; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
#endif
}

/* The little-endian integer of `n` bytes at `p`. */
static inline uint64_t tmx_le_at(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, p, n);
#else
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
#endif
	return v;
}

/* Unsigned LEB128 (Thrift's and the RLE hybrid's varints). */
static inline void tmx_buf_uvarint(struct tmx_buf *b, uint64_t v)
{
	while (v >= 0x80) {
		tmx_buf_byte(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	tmx_buf_byte(b, (uint8_t)v);
}

#endif
