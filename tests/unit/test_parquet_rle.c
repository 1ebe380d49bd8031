/*
 * The RLE / bit-packing hybrid of the Parquet writer (sink/parquet/encode.c)
 * against bytes worked out by hand from Encodings.md: bit widths, RLE runs
 * (values on ceil(width / 8) bytes), bit-packed groups (LSB first, padded),
 * the switch between them, bit-packed runs split at 63 groups, width 0,
 * and the 4-byte length prefix of data page levels; DELTA_BINARY_PACKED
 * on Encodings.md's two examples, a wrapping delta and a single value;
 * and every bit width read back by a decoder written from Encodings.md
 * (the writer packs with one function per width); and the writer's choice
 * between RLE runs and bit-packed groups against that rule written the
 * plain way, for runs just short of and past 8 values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sink/parquet/encode.h"
#include "pq_hybrid.h"
#include "xorshift.h"

static void expect(const struct tmx_buf *b, const uint8_t *want, size_t n)
{
	assert_false(b->oom);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->p, want, n);
}

static void hybrid32(const uint32_t *v, size_t n, unsigned width, const uint8_t *want, size_t wn)
{
	struct tmx_buf b = { 0 };

	pq_rle_hybrid(&b, v, 4, n, width);
	expect(&b, want, wn);
	tmx_buf_free(&b);
}

static void test_bit_width(void **state)
{
	(void)state;
	assert_int_equal(pq_bit_width(0), 0);
	assert_int_equal(pq_bit_width(1), 1);
	assert_int_equal(pq_bit_width(2), 2);
	assert_int_equal(pq_bit_width(3), 2);
	assert_int_equal(pq_bit_width(255), 8);
	assert_int_equal(pq_bit_width(256), 9);
	assert_int_equal(pq_bit_width(UINT32_MAX), 32);
}

/* Encodings.md's example: 0..7 on 3 bits pack as 10001000 11000110 11111010. */
static void test_bit_packed_spec_example(void **state)
{
	static const uint32_t v[] = { 0, 1, 2, 3, 4, 5, 6, 7 };

	(void)state;
	hybrid32(v, 8, 3, (const uint8_t[]){ 0x03, 0x88, 0xC6, 0xFA }, 4);
}

static void test_rle_runs(void **state)
{
	uint32_t v[20];

	(void)state;
	for (int i = 0; i < 10; i++)
		v[i] = 3;
	/* 10 times 3 on 2 bits: header 10 << 1, value on one byte */
	hybrid32(v, 10, 2, (const uint8_t[]){ 0x14, 0x03 }, 2);
	for (int i = 0; i < 9; i++)
		v[i] = 70000;   /* 0x011170 on 17 bits: three bytes */
	hybrid32(v, 9, 17, (const uint8_t[]){ 0x12, 0x70, 0x11, 0x01 }, 4);
	for (int i = 0; i < 20; i++)
		v[i] = 0;
	/* width 0 (a dictionary of one entry): no value bytes */
	hybrid32(v, 20, 0, (const uint8_t[]){ 0x28 }, 1);
	/* 5 values are too few for a run: one bit-packed group of 0 bytes */
	hybrid32(v, 5, 0, (const uint8_t[]){ 0x03 }, 1);
}

/* A short run inside bit-packed groups, the last group padded with zeros. */
static void test_bit_packed_padding(void **state)
{
	static const uint32_t v[] = { 1, 2, 1, 1, 1, 1, 1, 1, 1, 1 };

	(void)state;
	/*
	 * 2 groups (header 2 << 1 | 1); on 2 bits: 01 10 01 01 -> 0x59,
	 * 01 01 01 01 -> 0x55, 01 01 00 00 -> 0x05, then 0x00.
	 */
	hybrid32(v, 10, 2, (const uint8_t[]){ 0x05, 0x59, 0x55, 0x05, 0x00 }, 5);
}

/* Bit-packed, then a run from a group boundary. */
static void test_packed_then_run(void **state)
{
	uint32_t v[28];

	(void)state;
	for (int i = 0; i < 8; i++)
		v[i] = (uint32_t)(i & 1) ^ 1;          /* 1 0 1 0 1 0 1 0 -> 0x55 */
	for (int i = 8; i < 28; i++)
		v[i] = 1;                               /* 20 ones: header 40 */
	hybrid32(v, 28, 1, (const uint8_t[]){ 0x03, 0x55, 0x28, 0x01 }, 4);
}

/* 600 alternating bits: 75 groups, as 63 (header 0x7F) and 12 (header 0x19). */
static void test_long_bit_packed(void **state)
{
	uint8_t v[600], want[2 + 75];
	struct tmx_buf b = { 0 };

	(void)state;
	for (int i = 0; i < 600; i++)
		v[i] = (uint8_t)(i & 1);                /* 0 1 0 1 ... -> 0xAA */
	memset(want, 0xAA, sizeof(want));
	want[0] = 0x7F;
	want[64] = 0x19;
	pq_rle_hybrid(&b, v, 1, 600, 1);
	expect(&b, want, sizeof(want));
	tmx_buf_free(&b);
}

/* Data page levels: 4-byte LE length, then the runs. */
static void test_levels(void **state)
{
	static const uint8_t ones[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const uint8_t mixed[4] = { 0, 2, 1, 2 };
	struct tmx_buf b = { 0 };

	(void)state;
	pq_levels(&b, ones, 10, 1);
	expect(&b, (const uint8_t[]){ 0x02, 0x00, 0x00, 0x00, 0x14, 0x01 }, 6);
	b.len = 0;
	/* max level 2: 2 bits; 00 10 01 10 -> 0x98, then 0x00 for the padding */
	pq_levels(&b, mixed, 4, 2);
	expect(&b, (const uint8_t[]){ 0x03, 0x00, 0x00, 0x00, 0x03, 0x98, 0x00 }, 7);
	tmx_buf_free(&b);
}

/*
 * Levels all the same, not read (pq_levels_all): the bytes pq_levels
 * writes for them, and what they decode to (Encodings.md's hybrid),
 * for counts around a run's least (8) and widths 1 to 3.
 */
static void test_levels_all(void **state)
{
	static const size_t counts[] = { 0, 1, 7, 8, 9, 63, 64, 127, 128, 1000, 70000 };
	static uint8_t same[70000];
	static uint32_t got[70000];
	struct tmx_buf a = { 0 }, b = { 0 };

	(void)state;
	/* 20 levels of 1 under a maximum of 1: one run (header 40), the value in a byte. */
	pq_levels_all(&a, 1, 20, 1);
	expect(&a, (const uint8_t[]){ 0x02, 0x00, 0x00, 0x00, 0x28, 0x01 }, 6);
	for (unsigned max = 1; max <= 5; max += 2) {
		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			size_t n = counts[k];
			struct tmx_buf body;

			memset(same, (int)max, n);
			a.len = b.len = 0;
			pq_levels_all(&a, (uint8_t)max, n, max);
			pq_levels(&b, same, n, max);
			expect(&a, b.p, b.len);
			body = (struct tmx_buf){ .p = a.p + 4, .len = a.len - 4 };
			memset(got, 0xFF, n * sizeof(*got));
			hybrid_decode(&body, pq_bit_width(max), got, n);
			for (size_t i = 0; i < n; i++)
				assert_int_equal(got[i], max);
		}
	}
	tmx_buf_free(&a);
	tmx_buf_free(&b);
}

static void delta64(const int64_t *v, size_t n, const uint8_t *want, size_t wn)
{
	struct tmx_buf b = { 0 };
	uint8_t plain[64];

	memcpy(plain, v, n * 8);   /* little-endian hosts: PLAIN bytes */
	pq_delta_int64(&b, plain, n);
	expect(&b, want, wn);
	tmx_buf_free(&b);
}

static void test_delta(void **state)
{
	(void)state;
	/* 1..5: deltas all 1, the smallest 1, widths 0, no miniblock bytes. */
	delta64((const int64_t[]){ 1, 2, 3, 4, 5 }, 5,
		(const uint8_t[]){ 0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00 },
		10);
	/*
	 * 7 5 3 1 2 3 4 5: deltas -2 -2 -2 1 1 1 1, the smallest -2 (zigzag 3),
	 * 0 0 0 3 3 3 3 on 2 bits: 0xC0 0x3F, then zeros to 32 values.
	 */
	delta64((const int64_t[]){ 7, 5, 3, 1, 2, 3, 4, 5 }, 8,
		(const uint8_t[]){ 0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 0x02, 0x00, 0x00, 0x00,
				   0xC0, 0x3F, 0, 0, 0, 0, 0, 0 },
		18);
	/* INT64_MAX then INT64_MIN: the delta wraps to 1. */
	delta64((const int64_t[]){ INT64_MAX, INT64_MIN }, 2,
		(const uint8_t[]){ 0x80, 0x01, 0x04, 0x02, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
				   0xFF, 0xFF, 0xFF, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00 },
		19);
	/* One value: the header alone. */
	delta64((const int64_t[]){ -3 }, 1, (const uint8_t[]){ 0x80, 0x01, 0x04, 0x01, 0x05 }, 5);
}

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	return xorshift64(&rnd_state);
}

/*
 * Every width, 32-bit values and 1-byte levels, read back: random values
 * with runs of a random value between them, counts that leave a partial
 * last group, runs of more than 63 groups.
 */
static void test_hybrid_widths(void **state)
{
	enum { N = 1200 };
	static uint32_t v[N], back[N];
	static uint8_t lv[N];

	(void)state;
	for (unsigned width = 1; width <= 32; width++) {
		uint64_t mask = width == 32 ? UINT32_MAX : (1ull << width) - 1;
		for (size_t n = 1; n <= N; n += n < 40 ? 1 : 97) {
			struct tmx_buf b = { 0 };
			for (size_t i = 0; i < n; i++) {
				size_t run = rnd() % 4 == 0 ? rnd() % 20 : 0;
				v[i] = (uint32_t)(rnd() & mask);
				for (; run && i + 1 < n; run--, i++)
					v[i + 1] = v[i];
			}
			pq_rle_hybrid(&b, v, 4, n, width);
			assert_false(b.oom);
			hybrid_decode(&b, width, back, n);
			assert_memory_equal(back, v, n * 4);
			if (width <= 8) {
				for (size_t i = 0; i < n; i++)
					lv[i] = (uint8_t)v[i];
				b.len = 0;
				pq_rle_hybrid(&b, lv, 1, n, width);
				hybrid_decode(&b, width, back, n);
				for (size_t i = 0; i < n; i++)
					assert_int_equal(back[i], lv[i]);
			}
			tmx_buf_free(&b);
		}
	}
}

/*
 * The writer's choice of runs, written the plain way: at a value, a run
 * of 8 or more equal values is an RLE run; otherwise bit-packed groups of
 * 8, up to 63, until one starts with 8 equal values.  Into `out` (room
 * for the worst case): the run headers and, as the layout to compare, the
 * RLE values and the packed groups' values.
 */
static size_t naive_runs(const uint32_t *v, size_t n, uint64_t *out)
{
	size_t i = 0, k = 0;

	while (i < n) {
		size_t run = 1, groups = 0;
		while (i + run < n && v[i + run] == v[i])
			run++;
		if (run >= 8) {
			out[k++] = (uint64_t)run << 1;
			out[k++] = v[i];
			i += run;
			continue;
		}
		for (;;) {
			size_t g = i + 8 * ++groups, same = 0;
			if (groups == 63 || g >= n)
				break;
			while (same < 8 && g + same < n && v[g + same] == v[g])
				same++;
			if (same == 8)
				break;
		}
		out[k++] = (uint64_t)groups << 1 | 1;
		for (size_t j = i; j < i + 8 * groups; j++)
			out[k++] = j < n ? v[j] : 0;
		i += 8 * groups;
	}
	return k;
}

/* The same layout read from the writer's bytes. */
static size_t written_runs(const struct tmx_buf *b, unsigned width, uint64_t *out)
{
	size_t at = 0, k = 0;

	while (at < b->len) {
		uint64_t h = uvarint(b->p, b->len, &at);
		out[k++] = h;
		if (h & 1) {
			for (size_t j = 0; j < (h >> 1) * 8; j++)
				out[k++] = bits_at(b->p + at, j * width, width);
			at += (size_t)(h >> 1) * width;
		} else {
			uint64_t v = 0;
			for (unsigned j = 0; j < (width + 7) / 8; j++)
				v |= (uint64_t)b->p[at++] << (8 * j);
			out[k++] = v;
		}
	}
	return k;
}

/*
 * Runs of 5 to 10 equal values (just short of and just past an RLE run)
 * at every offset from the groups' boundaries, 1-byte and 4-byte values:
 * the writer's runs are those of the rule above, value for value.
 */
static void test_run_choice(void **state)
{
	enum { N = 700 };
	static uint32_t v[N];
	static uint8_t lv[N];
	static uint64_t want[2 * N + 64], got[2 * N + 64];
	uint64_t seed = 0x9E3779B97F4A7C15ull;

	(void)state;
	for (unsigned width = 1; width <= 8; width++) {
		for (int round = 0; round < 40; round++) {
			struct tmx_buf b = { 0 };
			size_t n = 1 + xorshift64(&seed) % N, kw, kg;
			for (size_t i = 0; i < n;) {
				size_t run = xorshift64(&seed) % 3 ? 5 + xorshift64(&seed) % 6 : 1;
				uint32_t x = (uint32_t)(xorshift64(&seed) & ((1u << width) - 1));
				for (; run && i < n; run--)
					v[i++] = x;
			}
			kw = naive_runs(v, n, want);
			pq_rle_hybrid(&b, v, 4, n, width);
			assert_false(b.oom);
			kg = written_runs(&b, width, got);
			assert_int_equal(kg, kw);
			assert_memory_equal(got, want, kw * sizeof(*want));
			for (size_t i = 0; i < n; i++)
				lv[i] = (uint8_t)v[i];
			b.len = 0;
			pq_rle_hybrid(&b, lv, 1, n, width);
			kg = written_runs(&b, width, got);
			assert_int_equal(kg, kw);
			assert_memory_equal(got, want, kw * sizeof(*want));
			tmx_buf_free(&b);
		}
	}
}

static int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* DELTA_BINARY_PACKED decoded (block 128, 4 miniblocks), all of b's bytes. */
static void delta_decode(const struct tmx_buf *b, uint64_t *out, size_t n)
{
	size_t at = 0, got = 0;
	uint64_t v;

	assert_int_equal(uvarint(b->p, b->len, &at), 128);
	assert_int_equal(uvarint(b->p, b->len, &at), 4);
	assert_int_equal(uvarint(b->p, b->len, &at), n);
	v = (uint64_t)unzigzag(uvarint(b->p, b->len, &at));
	if (n)
		out[got++] = v;
	while (got < n) {
		uint64_t min = (uint64_t)unzigzag(uvarint(b->p, b->len, &at));
		const uint8_t *widths = b->p + at;
		at += 4;
		for (unsigned m = 0; m < 4 && got < n; m++) {
			assert_true(widths[m] <= 64 && at + 4 * (size_t)widths[m] <= b->len);
			for (unsigned k = 0; k < 32; k++) {
				uint64_t d = bits_at(b->p + at, k * widths[m], widths[m]);
				if (got < n)
					out[got++] = v += d + min;
			}
			at += 4 * (size_t)widths[m];
		}
	}
	assert_int_equal(at, b->len);
}

/* Deltas of every width from 0 to 64 (one per miniblock), read back. */
static void test_delta_widths(void **state)
{
	enum { N = 65 * 32 + 7 };
	static uint64_t v[N], back[N];
	struct tmx_buf b = { 0 };

	(void)state;
	v[0] = rnd();
	for (size_t i = 1; i < N; i++) {
		unsigned width = (unsigned)((i - 1) / 32);   /* a miniblock's deltas below 2^width */
		uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;
		v[i] = v[i - 1] + (rnd() & mask);
	}
	for (size_t n = 1; n <= N; n += n < 300 ? 1 : 111) {
		b.len = 0;
		pq_delta_int64(&b, (const uint8_t *)v, n);   /* little-endian hosts: PLAIN bytes */
		assert_false(b.oom);
		delta_decode(&b, back, n);
		assert_memory_equal(back, v, n * 8);
	}
	tmx_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bit_width),
		cmocka_unit_test(test_bit_packed_spec_example),
		cmocka_unit_test(test_rle_runs),
		cmocka_unit_test(test_bit_packed_padding),
		cmocka_unit_test(test_packed_then_run),
		cmocka_unit_test(test_long_bit_packed),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_levels_all),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_hybrid_widths),
		cmocka_unit_test(test_run_choice),
		cmocka_unit_test(test_delta_widths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
