/*
 * The bit reader (src/io/bitread.h) against a reference written from the
 * CTF 1.8 spec's section 4.1.5, one bit at a time: for every size 1..64,
 * every bit offset 0..15 plus a few larger ones, both byte orders.  Fields
 * are placed at the very end of a heap buffer so that AddressSanitizer
 * catches any read past the bytes the field covers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "ctf/decode.h"
#include "io/bitread.h"

/* Little endian: bit b of the buffer is bit (b % 8) of byte b / 8, LSB first;
 * the field's first bit is its least significant one. */
static uint64_t ref_le(const uint8_t *buf, uint64_t off, unsigned len)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < len; i++) {
		uint64_t b = off + i;
		v |= (uint64_t)((buf[b / 8] >> (b % 8)) & 1) << i;
	}
	return v;
}

/* Big endian: bit b is bit 7 - (b % 8) of byte b / 8 (MSB first); the
 * field's first bit is its most significant one. */
static uint64_t ref_be(const uint8_t *buf, uint64_t off, unsigned len)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < len; i++) {
		uint64_t b = off + i;
		v = (v << 1) | ((buf[b / 8] >> (7 - b % 8)) & 1);
	}
	return v;
}

static void test_every_size_offset_order(void **state)
{
	static const unsigned offsets[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
					    31, 33, 63, 64, 65, 127 };
	uint32_t seed = 12345;

	(void)state;
	for (unsigned len = 1; len <= 64; len++) {
		for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++) {
			for (int round = 0; round < 8; round++) {
				uint64_t off = offsets[o];
				size_t bytes = (size_t)((off + len + 7) / 8);
				uint8_t *buf = malloc(bytes);

				assert_non_null(buf);
				for (size_t i = 0; i < bytes; i++) {
					seed = seed * 1103515245 + 12345;
					buf[i] = (uint8_t)(seed >> 16);
				}
				assert_int_equal(tmx_read_bits(buf, off, len, 0), ref_le(buf, off, len));
				assert_int_equal(tmx_read_bits(buf, off, len, 1), ref_be(buf, off, len));
				free(buf);
			}
		}
	}
}

static void test_spec_examples(void **state)
{
	/* A 32-bit LE integer 0x01020304 and a BE one, byte aligned. */
	static const uint8_t le[] = { 0x04, 0x03, 0x02, 0x01 };
	static const uint8_t be[] = { 0x01, 0x02, 0x03, 0x04 };
	/* LE bit fields: 0b101 in bits 0-2, then 0b11001 in bits 3-7 of 0xCD. */
	static const uint8_t packed = 0xCD;

	(void)state;
	assert_int_equal(tmx_read_bits(le, 0, 32, 0), 0x01020304);
	assert_int_equal(tmx_read_bits(be, 0, 32, 1), 0x01020304);
	assert_int_equal(tmx_read_bits(&packed, 0, 3, 0), 0x5);
	assert_int_equal(tmx_read_bits(&packed, 3, 5, 0), 0x19);
	/* BE: the first 3 bits are the high ones of 0xCD = 110 01101. */
	assert_int_equal(tmx_read_bits(&packed, 0, 3, 1), 0x6);
	assert_int_equal(tmx_read_bits(&packed, 3, 5, 1), 0xD);
}

static void test_sign_extend(void **state)
{
	(void)state;
	assert_int_equal(tmx_sign_extend(0x7, 3), -1);
	assert_int_equal(tmx_sign_extend(0x3, 3), 3);
	assert_int_equal(tmx_sign_extend(0x4, 3), -4);
	assert_int_equal(tmx_sign_extend(0x80, 8), -128);
	assert_int_equal(tmx_sign_extend(UINT64_MAX, 64), -1);
	assert_int_equal(tmx_sign_extend(1, 1), -1);
}

/* CTF spec 8 / the compact-timestamp rule: an N-bit value sets the low N
 * bits of the clock, with at most one wrap when it went down. */
static void test_clock_update_rule(void **state)
{
	(void)state;
	/* Same high part: the low bits simply replace the old ones. */
	assert_int_equal(ctf_clock_update(0x8000005, 0x7, 27), 0x8000007);
	/* Lower than the previous low bits: one 27-bit wrap. */
	assert_int_equal(ctf_clock_update(0x7FFFFF0, 0x10, 27), 0x8000010);
	assert_int_equal(ctf_clock_update(0x17FFFFF0, 0x5, 27), 0x18000005);
	/* Equal low bits: no wrap. */
	assert_int_equal(ctf_clock_update(0x8000010, 0x10, 27), 0x8000010);
	/* 64 bits replace the clock. */
	assert_int_equal(ctf_clock_update(0x123456789, 0x42, 64), 0x42);
	/* An 8-bit clock field. */
	assert_int_equal(ctf_clock_update(0x1FF, 0x01, 8), 0x201);
	assert_int_equal(ctf_clock_update(UINT64_C(0xFFFFFFFFFFFFFFF0), 0x05, 8),
			 UINT64_C(0x0000000000000005));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_size_offset_order),
		cmocka_unit_test(test_spec_examples),
		cmocka_unit_test(test_sign_extend),
		cmocka_unit_test(test_clock_update_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
