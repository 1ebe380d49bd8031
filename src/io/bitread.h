/*
 * Bit-field reads as CTF 1.8 lays them out (spec section 4.1.5), which is
 * also CTF 2's layout (CTF 2 spec 6.4.3) with the usual bit order.
 *
 * Little endian: the field starts at bit (off % 8) of byte off / 8,
 * counting from the least significant bit, low-order bits first.
 * Big endian: the field starts at bit (off % 8) counting from the most
 * significant bit, high-order bits first.
 *
 * Callers check bounds first: bits [off, off + len) must lie inside the
 * buffer.  These functions never touch a byte outside that range.
 */
#ifndef TMX_BITREAD_H
#define TMX_BITREAD_H

#include <stdint.h>
#include <string.h>

static inline uint64_t tmx_load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = (v << 8) | p[i];
	return v;
}

static inline uint64_t tmx_load_be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/*
 * Whole 16/32/64-bit integers of either byte order, with one load each
 * (memcpy: any alignment), whatever the host's byte order.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TMX_FROM_LE(bits, v) (v)
#define TMX_FROM_BE(bits, v) __builtin_bswap##bits(v)
#else
#define TMX_FROM_LE(bits, v) __builtin_bswap##bits(v)
#define TMX_FROM_BE(bits, v) (v)
#endif
#define TMX_DEFINE_LOADS(bits)                                              \
	static inline uint##bits##_t tmx_le##bits(const uint8_t *p)          \
	{                                                                    \
		uint##bits##_t v;                                            \
		memcpy(&v, p, sizeof(v));                                    \
		return TMX_FROM_LE(bits, v);                                 \
	}                                                                    \
	static inline uint##bits##_t tmx_be##bits(const uint8_t *p)          \
	{                                                                    \
		uint##bits##_t v;                                            \
		memcpy(&v, p, sizeof(v));                                    \
		return TMX_FROM_BE(bits, v);                                 \
	}
TMX_DEFINE_LOADS(16)
TMX_DEFINE_LOADS(32)
TMX_DEFINE_LOADS(64)

/* Byte-aligned fast paths for the common 8/16/32/64-bit integers. */
static inline uint64_t tmx_read_aligned(const uint8_t *p, unsigned bytes, int big_endian)
{
	switch (bytes) {
	case 1:
		return p[0];
	case 2:
		return big_endian ? tmx_be16(p) : tmx_le16(p);
	case 4:
		return big_endian ? tmx_be32(p) : tmx_le32(p);
	case 8:
		return big_endian ? tmx_be64(p) : tmx_le64(p);
	}
	return big_endian ? tmx_load_be(p, bytes) : tmx_load_le(p, bytes);
}

static inline uint64_t tmx_read_bits_le(const uint8_t *buf, uint64_t off, unsigned len)
{
	const uint8_t *p = buf + (off >> 3);
	unsigned shift = (unsigned)(off & 7);
	unsigned nbytes = (shift + len + 7) >> 3;
	uint64_t v = tmx_load_le(p, nbytes > 8 ? 8 : nbytes) >> shift;

	if (nbytes > 8)
		v |= (uint64_t)p[8] << (64 - shift);
	return len == 64 ? v : v & ((UINT64_C(1) << len) - 1);
}

static inline uint64_t tmx_read_bits_be(const uint8_t *buf, uint64_t off, unsigned len)
{
	const uint8_t *p = buf + (off >> 3);
	unsigned shift = (unsigned)(off & 7);
	unsigned nbytes = (shift + len + 7) >> 3;
	uint64_t v;

	if (nbytes > 8) {
		v = tmx_load_be(p, 8) << shift | (uint64_t)p[8] >> (8 - shift);
	} else {
		v = tmx_load_be(p, nbytes) << (64 - 8 * nbytes);
		v <<= shift;
	}
	return v >> (64 - len);
}

/* Reads `len` (1..64) bits at bit offset `off` in the given byte order. */
static inline uint64_t tmx_read_bits(const uint8_t *buf, uint64_t off, unsigned len,
				     int big_endian)
{
	if ((off & 7) == 0 && (len & 7) == 0)
		return tmx_read_aligned(buf + (off >> 3), len >> 3, big_endian);
	return big_endian ? tmx_read_bits_be(buf, off, len) : tmx_read_bits_le(buf, off, len);
}

/*
 * The low `len` (1..64) bits of `v` in the opposite order: CTF 2's bit
 * order opposite to the byte order's usual one (spec 6.4.3) fills the
 * value from the other end, so a field read the usual way is reversed.
 */
static inline uint64_t tmx_reverse_bits(uint64_t v, unsigned len)
{
	v = ((v >> 1) & UINT64_C(0x5555555555555555)) | ((v & UINT64_C(0x5555555555555555)) << 1);
	v = ((v >> 2) & UINT64_C(0x3333333333333333)) | ((v & UINT64_C(0x3333333333333333)) << 2);
	v = ((v >> 4) & UINT64_C(0x0F0F0F0F0F0F0F0F)) | ((v & UINT64_C(0x0F0F0F0F0F0F0F0F)) << 4);
	return __builtin_bswap64(v) >> (64 - len);
}

static inline int64_t tmx_sign_extend(uint64_t v, unsigned len)
{
	if (len == 64)
		return (int64_t)v;
	uint64_t m = UINT64_C(1) << (len - 1);
	return (int64_t)((v ^ m) - m);
}

#endif
