/*
 * The bit reader (src/io/bitread.h) against a reference written from the
 * CTF 1.8 spec's section 4.1.5, one bit at a time: for every size 1..64,
 * every bit offset 0..15 plus a few larger ones, both byte orders, on
 * pseudo-random bytes.  Fields are placed against inaccessible pages so
 * that a read of a byte the field does not cover faults.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

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

/*
 * One readable page between two inaccessible ones: a read outside the
 * page faults, in every build, sanitized or not.
 */
struct fenced_page {
	uint8_t *map;
	uint8_t *page;
	size_t size;
};

static void fenced_page_init(struct fenced_page *f)
{
	f->size = (size_t)sysconf(_SC_PAGESIZE);
	f->map = mmap(NULL, 3 * f->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	assert_true(f->map != MAP_FAILED);
	f->page = f->map + f->size;
	assert_int_equal(mprotect(f->map, f->size, PROT_NONE), 0);
	assert_int_equal(mprotect(f->page + f->size, f->size, PROT_NONE), 0);
}

static void fenced_page_fini(struct fenced_page *f)
{
	munmap(f->map, 3 * f->size);
}

/* Both byte orders against the references, for a field at bit `off` of `buf`. */
static void check_field(const uint8_t *buf, uint64_t off, unsigned len)
{
	uint64_t le = tmx_read_bits(buf, off, len, 0), be = tmx_read_bits(buf, off, len, 1);

	if (le != ref_le(buf, off, len) || be != ref_be(buf, off, len))
		fail_msg("len %u off %" PRIu64 ": le %" PRIx64 " (want %" PRIx64 "), be %" PRIx64
			 " (want %" PRIx64 ")", len, off, le, ref_le(buf, off, len), be,
			 ref_be(buf, off, len));
}

/*
 * Each field is read twice: its first byte (off / 8) at the start of the
 * page, then its last byte ((off + len - 1) / 8) at the end of the page,
 * so that a read of any byte outside those it covers faults.  `buf` points
 * off / 8 bytes before the field's first byte, which is inside the mapping.
 */
static void test_every_size_offset_order(void **state)
{
	static const unsigned offsets[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
					    31, 33, 63, 64, 65, 127, 4093 };
	struct fenced_page f;
	uint32_t seed = 12345;

	(void)state;
	fenced_page_init(&f);
	for (int round = 0; round < 8; round++) {
		for (size_t i = 0; i < f.size; i++) {
			seed = seed * 1103515245 + 12345;
			f.page[i] = (uint8_t)(seed >> 16);
		}
		for (unsigned len = 1; len <= 64; len++) {
			for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++) {
				uint64_t off = offsets[o];
				size_t end = (size_t)((off + len + 7) / 8);

				check_field(f.page - off / 8, off, len);
				check_field(f.page + f.size - end, off, len);
			}
		}
	}
	fenced_page_fini(&f);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_size_offset_order),
		cmocka_unit_test(test_spec_examples),
		cmocka_unit_test(test_sign_extend),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
