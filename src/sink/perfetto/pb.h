/*
 * A protocol buffers writer in the protozero style, for the Perfetto
 * output: fields are appended to a growable byte buffer (tmx_buf, shared
 * with the Parquet writer) as they come, with no message objects and no
 * schema at run time; nested messages are opened with a one-byte length
 * placeholder that pb_close() backpatches (moving the body up when the
 * length needs more than one byte, which most nested messages here do
 * not).  Wire format (https://protobuf.dev/programming-guides/encoding/):
 *
 *   tag        varint(field << 3 | wire type)   0 varint, 1 fixed64,
 *                                               2 length-delimited, 5 fixed32
 *   varint     7 bits a byte, low group first, high bit = more follows
 *   int32/64   two's complement as a 64-bit varint (negative: 10 bytes)
 *   sint32/64  zig-zag: (n << 1) ^ (n >> 63), then varint
 *   packed     one length-delimited field holding the varints back to back
 *
 * Appends never fail: an allocation failure sets `oom` in the buffer and
 * later appends do nothing (checked once, where the bytes are written).
 */
#ifndef TMX_SINK_PERFETTO_PB_H
#define TMX_SINK_PERFETTO_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

/* Writes varint v at p (room for 10 bytes); returns the end. */
static inline uint8_t *pb_put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* The number of bytes of varint v. */
static inline size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint64_t pb_zigzag(int64_t n)
{
	return ((uint64_t)n << 1) ^ (uint64_t)(n >> 63);
}

static inline void pb_varint(struct tmx_buf *b, uint64_t v)
{
	if (tmx_buf_reserve(b, 10))
		b->len = (size_t)(pb_put_varint(b->p + b->len, v) - b->p);
}

static inline void pb_tag(struct tmx_buf *b, uint32_t field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* uint32/uint64/bool/enum fields, and int32/int64 (negative: 10 bytes, as protobuf). */
static inline void pb_uint(struct tmx_buf *b, uint32_t field, uint64_t v)
{
	if (tmx_buf_reserve(b, 15)) {
		uint8_t *p = pb_put_varint(b->p + b->len, (uint64_t)field << 3 | PB_VARINT);
		b->len = (size_t)(pb_put_varint(p, v) - b->p);
	}
}

static inline void pb_int(struct tmx_buf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

/* sint32/sint64 fields. */
static inline void pb_sint(struct tmx_buf *b, uint32_t field, int64_t v)
{
	pb_uint(b, field, pb_zigzag(v));
}

static inline void pb_double(struct tmx_buf *b, uint32_t field, double d)
{
	uint64_t u;

	memcpy(&u, &d, 8);
	pb_tag(b, field, PB_FIXED64);
	tmx_buf_le(b, u, 8);
}

/* string and bytes fields. */
static inline void pb_bytes(struct tmx_buf *b, uint32_t field, const void *p, size_t n)
{
	if (tmx_buf_reserve(b, 15 + n)) {
		uint8_t *q = pb_put_varint(b->p + b->len, (uint64_t)field << 3 | PB_LEN);
		q = pb_put_varint(q, n);
		if (n)
			memcpy(q, p, n);
		b->len = (size_t)(q + n - b->p);
	}
}

static inline void pb_string(struct tmx_buf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

/*
 * A nested message (or a packed field): the tag and a one-byte length
 * placeholder; returns the position of the placeholder for pb_close().
 */
static inline size_t pb_open(struct tmx_buf *b, uint32_t field)
{
	pb_tag(b, field, PB_LEN);
	tmx_buf_byte(b, 0);
	return b->len - 1;
}

/* Ends the nested message opened at `at`: its length written, the body moved when it needs to. */
void pb_close(struct tmx_buf *b, size_t at);

/* A packed repeated varint field of `n` values (nothing for n = 0, as protobuf). */
void pb_packed(struct tmx_buf *b, uint32_t field, const uint64_t *v, size_t n);

#endif
