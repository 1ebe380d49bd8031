/*
 * A decoder of Parquet's RLE / bit-packing hybrid written from
 * Encodings.md, for the unit tests of the writer (test_parquet_rle.c,
 * test_parquet_plain.c): independent of sink/parquet/encode.c.  Include
 * after cmocka.h.
 */
#ifndef TMX_TESTS_PQ_HYBRID_H
#define TMX_TESTS_PQ_HYBRID_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* The unsigned LEB128 varint at *at. */
static uint64_t uvarint(const uint8_t *p, size_t len, size_t *at)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		assert_true(*at < len);
		v |= (uint64_t)(p[*at] & 0x7F) << shift;
		if (!(p[(*at)++] & 0x80))
			return v;
	}
	fail();
	return 0;
}

/* `n` values of `width` bits LSB first from bit 0 of p. */
static uint64_t bits_at(const uint8_t *p, size_t bit, unsigned width)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < width; k++, bit++)
		v |= (uint64_t)((p[bit / 8] >> (bit % 8)) & 1) << k;
	return v;
}

/* The hybrid runs of b decoded: exactly `n` values (then only padding) and all of b's bytes. */
static void hybrid_decode(const struct tmx_buf *b, unsigned width, uint32_t *out, size_t n)
{
	size_t at = 0, got = 0;

	while (at < b->len) {
		uint64_t h = uvarint(b->p, b->len, &at);
		if (h & 1) {
			size_t groups = (size_t)(h >> 1);
			assert_true(at + groups * width <= b->len);
			for (size_t k = 0; k < groups * 8; k++) {
				uint64_t v = bits_at(b->p + at, k * width, width);
				if (got < n)
					out[got++] = (uint32_t)v;
				else
					assert_int_equal(v, 0);   /* padding */
			}
			at += groups * width;
		} else {
			size_t count = (size_t)(h >> 1), vb = (width + 7) / 8;
			uint32_t v = 0;
			assert_true(at + vb <= b->len && got + count <= n);
			for (size_t k = 0; k < vb; k++)
				v |= (uint32_t)b->p[at + k] << (8 * k);
			at += vb;
			while (count--)
				out[got++] = v;
		}
	}
	assert_int_equal(got, n);
}

#endif
