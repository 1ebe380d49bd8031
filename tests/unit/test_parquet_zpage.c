/*
 * The compression of Parquet pages (sink/parquet/zpage.c): values that
 * zstd cannot shrink go into raw blocks of one zstd frame made by hand
 * (RFC 8878), after the levels compressed by zstd, and so do pages
 * under 256 bytes; libzstd reads every such frame back as the page.
 * Short pages of any bytes and the empty one; pages of 64 KiB of values
 * and more: raw values (random bytes) with no levels, with compressible
 * or random levels, content sizes on 2 and 4 bytes, several raw blocks;
 * values
 * that zstd shrinks (a sample of skewed bytes, bytes of 7 bits, random
 * bytes that repeat) compressed as before; the same page twice, through
 * the memo of index pages or not, the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "sink/parquet/column.h"
#include "xorshift.h"

#define PAGE_MAX (400u << 10)

static uint8_t page[PAGE_MAX], back[PAGE_MAX], frame[PAGE_MAX + PAGE_MAX / 64];

/* Levels as pq_levels makes them, more or less: runs of 1 and 2, compressible. */
static void fill_levels(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i % 37 < 30 ? 0x11 : i % 5);
}

static void fill_random(uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(xorshift64(&seed) >> 32);
}

/*
 * Frame f[0, zn) read by a streaming decoder with its default limits
 * (the window: some Parquet readers stream), in pieces: `want` and
 * nothing more.
 */
static void stream_check(const uint8_t *f, size_t zn, const uint8_t *want, size_t n)
{
	static uint8_t piece[1 << 16];
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer in = { f, zn, 0 };
	size_t got = 0, r = 1;

	assert_non_null(ds);
	for (size_t rounds = 0; r; rounds++) {
		ZSTD_outBuffer out = { piece, sizeof(piece), 0 };

		assert_true(rounds <= n / sizeof(piece) + 8);   /* else no progress: a truncated frame */
		r = ZSTD_decompressStream(ds, &out, &in);
		assert_false(ZSTD_isError(r));
		assert_true(got + out.pos <= n);
		assert_memory_equal(piece, want + got, out.pos);
		got += out.pos;
	}
	assert_int_equal(got, n);
	assert_int_equal(in.pos, zn);
	ZSTD_freeDStream(ds);
}

/* The page compressed, checked as one frame of `n` bytes that libzstd reads back; its size. */
static size_t compress_check(struct pq_encoder *enc, size_t n, size_t head, bool memo)
{
	size_t cap = ZSTD_compressBound(n), zn;

	assert_true(cap <= sizeof(frame));
	zn = pq_compress_page(enc, frame, cap, page, n, head, memo);
	assert_false(ZSTD_isError(zn));
	assert_true(zn <= cap);
	assert_int_equal(ZSTD_findFrameCompressedSize(frame, zn), zn);   /* one frame, whole */
	assert_int_equal(ZSTD_getFrameContentSize(frame, zn), n);
	assert_int_equal(ZSTD_decompress(back, sizeof(back), frame, zn), n);
	assert_memory_equal(back, page, n);
	stream_check(frame, zn, page, n);
	return zn;
}

/* Whether the frame ends with the page's last bytes as they are (a raw block). */
static bool ends_raw(size_t zn, size_t n)
{
	return zn >= 4096 && !memcmp(frame + zn - 4096, page + n - 4096, 4096);
}

/*
 * Random values without levels: the frame is its header (magic, one
 * byte of flags, the content size on 2 bytes less 256 below 65,792, else
 * 4) and raw blocks of at most 128 KiB, each after 3 bytes.
 */
static void test_raw_frame(void **state)
{
	static const struct {
		size_t n, fcs;
	} cases[] = {
		{ 65536, 2 }, { 65536 + 255, 2 }, { 65536 + 256, 4 }, { 131072, 4 },
		{ 131073, 4 }, { 300000, 4 },
	};
	struct pq_encoder enc = { 0 };

	(void)state;
	assert_true(pq_encoder_zstd(&enc, 1));
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		size_t n = cases[k].n, blocks = (n + (128u << 10) - 1) / (128u << 10), zn, tail;

		fill_random(page, n, 7 + k);
		zn = compress_check(&enc, n, 0, false);
		assert_int_equal(zn, 4 + 1 + cases[k].fcs + 3 * blocks + n);
		assert_int_equal(frame[4], cases[k].fcs == 2 ? 0x60 : 0xA0);
		assert_int_equal(frame[5] | frame[6] << 8, cases[k].fcs == 2 ? n - 256 : n & 0xFFFF);
		/* The first block: raw, not the last unless alone, at most 128 KiB. */
		assert_int_equal(frame[5 + cases[k].fcs] & 7, blocks == 1);
		/* The last block: the page's last bytes as they are. */
		tail = n % (128u << 10) ? n % (128u << 10) : 128u << 10;
		assert_memory_equal(frame + zn - tail, page + n - tail, tail);
		assert_int_equal(frame[zn - tail - 3] & 7, 1);
	}
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
}

/*
 * Pages under 256 bytes: a raw frame whatever their bytes, the content
 * size on one byte; the empty page as zstd writes it.
 */
static void test_short_pages(void **state)
{
	static const uint8_t empty[] = { 0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x00, 0x01, 0x00, 0x00 };
	struct pq_encoder enc = { 0 };

	(void)state;
	assert_true(pq_encoder_zstd(&enc, 1));
	assert_int_equal(compress_check(&enc, 0, 0, false), sizeof(empty));
	assert_memory_equal(frame, empty, sizeof(empty));
	for (size_t n = 1; n < 256; n += 17) {
		memset(page, 0, n);   /* zstd would shrink these */
		assert_int_equal(compress_check(&enc, n, 0, n % 2), 4 + 1 + 1 + 3 + n);
		assert_int_equal(frame[5], n);
		assert_int_equal(frame[6] | frame[7] << 8 | frame[8] << 16, n << 3 | 1);
	}
	memset(page, 0, 256);   /* from 256 bytes on, zstd */
	assert_true(compress_check(&enc, 256, 0, false) < 64);
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
}

/*
 * A page over 128 MiB (a row with a huge payload): its window declared as
 * that, which a streaming decoder takes, not the whole page.
 */
static void test_window_beyond_default(void **state)
{
	size_t n = (128u << 20) + 1000, cap = ZSTD_compressBound(n), zn;
	uint8_t *big = malloc(n), *f = malloc(cap);
	struct pq_encoder enc = { 0 };

	(void)state;
	assert_non_null(big);
	assert_non_null(f);
	assert_true(pq_encoder_zstd(&enc, 1));
	fill_levels(big, 1000);
	fill_random(big + 1000, n - 1000, 77);
	zn = pq_compress_page(&enc, f, cap, big, n, 1000, false);
	assert_false(ZSTD_isError(zn));
	assert_true(zn > n - 1000 && zn <= cap);
	assert_int_equal(f[4], 0x80);   /* a 4-byte content size, not one segment */
	assert_int_equal(f[5], (27 - 10) << 3);
	assert_int_equal(ZSTD_getFrameContentSize(f, zn), n);
	stream_check(f, zn, big, n);
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
	free(big);
	free(f);
}

/* Levels before random values: compressed (or raw when random too), the values raw, one frame. */
static void test_levels_then_raw(void **state)
{
	static const size_t heads[] = { 1, 100, 5000, 30000, 140000 };
	struct pq_encoder enc = { 0 };

	(void)state;
	assert_true(pq_encoder_zstd(&enc, 1));
	for (size_t h = 0; h < sizeof(heads) / sizeof(*heads); h++) {
		size_t head = heads[h], n = head + 200000, zn;

		fill_levels(page, head);
		fill_random(page + head, n - head, 99 + h);
		zn = compress_check(&enc, n, head, false);
		assert_true(ends_raw(zn, n));
		/* The levels compressed: at most half of them, beside the values and their block headers. */
		assert_true(zn <= n - head + 2 * 3 + 13 + head / 2 + 16);

		fill_random(page, head, 5 + h);   /* random levels: a raw block of zstd's own */
		compress_check(&enc, n, head, false);
	}
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
}

/*
 * Values that zstd shrinks stay compressed: bytes of 7 bits (a sample
 * even enough to probe, Huffman codes a 1/8 less), random bytes that
 * repeat every 4 KiB (matches only), skewed bytes (no probe).
 */
static void test_compressible_values(void **state)
{
	struct pq_encoder enc = { 0 };
	size_t n = 150000, head = 1000, zn;

	(void)state;
	assert_true(pq_encoder_zstd(&enc, 1));
	fill_levels(page, head);
	fill_random(page + head, n - head, 3);
	for (size_t i = head; i < n; i++)
		page[i] &= 0x7F;
	zn = compress_check(&enc, n, head, false);
	assert_true(zn < n - n / 16);
	assert_false(ends_raw(zn, n));

	fill_random(page + head, 4096, 4);
	for (size_t i = head + 4096; i < n; i++)
		page[i] = page[i - 4096];
	zn = compress_check(&enc, n, head, false);
	assert_true(zn < n / 8);

	fill_random(page + head, n - head, 5);
	for (size_t i = head; i < n; i++)
		page[i] = page[i] % 3 ? 0 : page[i];
	zn = compress_check(&enc, n, head, false);
	assert_true(zn < n / 2);
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
}

/* A page compressed again, remembered (memo) or not, raw values or not: the same bytes. */
static void test_same_bytes_again(void **state)
{
	static uint8_t first[sizeof(frame)];
	struct pq_encoder enc = { 0 };
	size_t n = 100000;

	(void)state;
	assert_true(pq_encoder_zstd(&enc, 1));
	for (unsigned kind = 0; kind < 2; kind++) {
		size_t zn, zn2;

		fill_levels(page, 256);
		fill_random(page + 256, n - 256, 11);
		if (kind)
			for (size_t i = 256; i < n; i++)
				page[i] &= 0x3F;
		zn = compress_check(&enc, n, 256, true);
		memcpy(first, frame, zn);
		for (unsigned again = 0; again < 3; again++) {
			zn2 = compress_check(&enc, n, 256, again != 1);
			assert_int_equal(zn2, zn);
			assert_memory_equal(frame, first, zn);
		}
	}
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_frame),
		cmocka_unit_test(test_short_pages),
		cmocka_unit_test(test_window_beyond_default),
		cmocka_unit_test(test_levels_then_raw),
		cmocka_unit_test(test_compressible_values),
		cmocka_unit_test(test_same_bytes_again),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
