/*
 * The CTF writer's packet buffer and field encoder: bit-level writes into
 * a buffer that only grows, and the fields of an event (or a packet
 * context) written by walking the plan of their class (plan.h) alongside
 * the model's values.  Shared by both CTF versions: only the metadata
 * differs, except for the CTF 2 kinds (variable-length integers, strings
 * in other encodings and length kinds).
 */
#ifndef TMX_SINK_CTF_ENCODE_H
#define TMX_SINK_CTF_ENCODE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sink/ctf/encode_plan.h"

struct cw_buf {
	uint8_t *buf;             /* zeroed beyond `pos` (bit writes OR into it) */
	size_t cap;               /* bytes */
	uint64_t pos;             /* bits written */
	const char *path;         /* the data file, for errors */
	bool trace_be;            /* byte order of the writer's own fields */
	/*
	 * The last value written of each field with a slot (lengths and
	 * selectors), as the decoder keeps them: dynamic fields check their
	 * length against it, dynamic-length strings take their size from it.
	 */
	uint64_t *slots;
	size_t n_slots;
};

int cw_buf_grow(struct cw_buf *b, uint64_t need, struct tmx_error *err);
/* At least `n` slots (a plan of another physical trace may have more). */
int cw_buf_slots(struct cw_buf *b, int32_t n, struct tmx_error *err);
void cw_buf_free(struct cw_buf *b);

static inline bool cw_host_is_le(void)
{
	return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
}

/* Room for `more_bits` more bits (and 8 bytes of slack for 64-bit stores). */
static inline int cw_reserve(struct cw_buf *b, uint64_t more_bits, struct tmx_error *err)
{
	uint64_t need = (b->pos + more_bits + 7) / 8 + 8;

	if (__builtin_expect(need <= b->cap, 1))
		return TMX_OK;
	return cw_buf_grow(b, need, err);
}

static inline void cw_align(struct cw_buf *b, uint32_t align)
{
	if (align > 1)
		b->pos = (b->pos + align - 1) & ~(uint64_t)(align - 1);
}

/* Writes the low `size` bits of `v`; room is reserved by the caller. */
static inline void cw_put_bits(struct cw_buf *b, uint64_t v, unsigned size, bool be)
{
	uint8_t *p = b->buf + (b->pos >> 3);

	if (!(b->pos & 7) && !(size & 7) && cw_host_is_le()) {
		if (be)
			v = __builtin_bswap64(v) >> (64 - size);
		switch (size) {
		case 8: p[0] = (uint8_t)v; break;
		case 16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
		case 32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
		case 64: memcpy(p, &v, 8); break;
		default: memcpy(p, &v, size >> 3); break;
		}
		b->pos += size;
		return;
	}
	/* Any size at any bit offset (CTF 1.8 section 4.1.5). */
	for (unsigned k = 0; k < size; k++) {
		uint64_t at = b->pos + k;
		unsigned bit = be ? (unsigned)(v >> (size - 1 - k)) & 1 : (unsigned)(v >> k) & 1;
		if (bit)
			b->buf[at >> 3] |= (uint8_t)(be ? 0x80u >> (at & 7) : 1u << (at & 7));
	}
	b->pos += size;
}

/* Overwrites the 64-bit field at byte `off` (sizes and times known at the packet's end). */
void cw_patch_u64(struct cw_buf *b, size_t off, uint64_t v);

/*
 * Writes the value subtree at values[*i] as node `n` describes it and
 * advances *i past it; TMX_ERR_DATA when the values do not match the
 * class.
 */
int cw_encode(struct cw_buf *b, const struct cw_node *n, const struct tmx_value *v, size_t *i,
	      struct tmx_error *err);
/* Zero values of `n` (a packet context no input packet gives). */
int cw_encode_zero(struct cw_buf *b, const struct cw_node *n, struct tmx_error *err);

#endif
