/*
 * The ring-buffer page decoder on hand-built pages (kernel layout, both
 * byte orders, 4- and 8-byte commit words): time extends, absolute time
 * stamps, padding and discarded events, long events, missed events with
 * and without their count, a record that ends exactly at the page end,
 * and damaged pages (clear error with the offset, no read outside).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tdat_build.h"
#include "tracecmd/tracedat.h"

static struct tdat_file fake(bool be, int klong)
{
	struct tdat_file f;
	memset(&f, 0, sizeof(f));
	f.path = "page.dat";
	f.big_endian = be;
	f.kernel_long_size = (uint32_t)klong;
	f.page_header_size = 8 + (uint32_t)klong;
	f.long_size = (uint8_t)klong;
	return f;
}

/* Decodes every event of the page: timestamps and lengths out. */
static int decode_all(const struct tdat_file *f, const struct bb *page, uint32_t size, uint64_t *ts,
		      uint32_t *lens, const uint8_t **datas, int max, int64_t *missed,
		      struct tmx_error *err)
{
	struct tdat_page pg;
	int n = 0, ret = tdat_page_start(&pg, f, page->p, size, err, 4096);
	if (ret)
		return -ret;
	*missed = pg.missed_events;
	for (;;) {
		const uint8_t *d;
		uint32_t len;
		if ((ret = tdat_page_next(&pg, &d, &len, err, 4096)))
			return -ret;
		if (!d)
			return n;
		assert_true(n < max);
		assert_true(d >= page->p && d + len <= page->p + size);
		ts[n] = pg.ts;
		lens[n] = len;
		datas[n] = d;
		n++;
	}
}

static void time_extend_and_abs(bool be, int klong)
{
	struct tdat_file f = fake(be, klong);
	struct pagebuild pb;
	uint8_t rec[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t ts[8];
	uint32_t lens[8];
	const uint8_t *d[8];
	int64_t missed;
	struct tmx_error err;

	page_begin(&pb, be, klong, 256, 1000);
	page_event(&pb, 5, rec, 8);                  /* 1005 */
	page_time_extend(&pb, (1ull << 27) + 77);    /* + 2^27 + 77 */
	page_event(&pb, 3, rec, 4);                  /* + 3 */
	/* Absolute: the low 59 bits replaced, the top 5 kept from the current time. */
	page_abs_time(&pb, 123456789012ull);
	page_event(&pb, 0, rec, 8);
	page_event(&pb, (1u << 27) - 1, rec, 8);     /* the largest delta */
	page_end(&pb, false, false, 0);
	assert_int_equal(decode_all(&f, &pb.b, 256, ts, lens, d, 8, &missed, &err), 4);
	assert_int_equal(missed, 0);
	assert_int_equal(ts[0], 1005);
	assert_int_equal(ts[1], 1005 + (1ull << 27) + 77 + 3);
	assert_int_equal(ts[2], 123456789012ull);
	assert_int_equal(ts[3], 123456789012ull + (1u << 27) - 1);
	assert_int_equal(lens[0], 8);
	assert_int_equal(lens[1], 4);
	assert_memory_equal(d[0], rec, 8);
	free(pb.b.p);
}

static void test_time_le8(void **s) { (void)s; time_extend_and_abs(false, 8); }
static void test_time_be8(void **s) { (void)s; time_extend_and_abs(true, 8); }
static void test_time_le4(void **s) { (void)s; time_extend_and_abs(false, 4); }
static void test_time_be4(void **s) { (void)s; time_extend_and_abs(true, 4); }

static void test_abs_keeps_msb(void **s)
{
	struct tdat_file f = fake(false, 8);
	struct pagebuild pb;
	uint8_t rec[4] = { 9, 9, 9, 9 };
	uint64_t ts[4];
	uint32_t lens[4];
	const uint8_t *d[4];
	int64_t missed;
	struct tmx_error err;
	(void)s;

	page_begin(&pb, false, 8, 128, 0xf800000000000010ull);
	page_abs_time(&pb, 0x20);
	page_event(&pb, 0, rec, 4);
	page_end(&pb, false, false, 0);
	assert_int_equal(decode_all(&f, &pb.b, 128, ts, lens, d, 4, &missed, &err), 1);
	assert_int_equal(ts[0], 0xf800000000000020ull);
	free(pb.b.p);
}

static void test_padding_and_long(void **s)
{
	struct tdat_file f = fake(false, 8);
	struct pagebuild pb;
	uint8_t big[200];
	uint8_t rec[12] = { 0 };
	uint64_t ts[4];
	uint32_t lens[4];
	const uint8_t *d[4];
	int64_t missed;
	struct tmx_error err;
	(void)s;

	for (int i = 0; i < 200; i++)
		big[i] = (uint8_t)i;
	page_begin(&pb, false, 8, 512, 50);
	page_padding(&pb, 7, 24);           /* a discarded event: its delta counts */
	page_event_long(&pb, 1, big, 198);  /* type_len 0, length rounded up to 200 */
	page_event(&pb, 2, rec, 12);
	page_end(&pb, false, false, 0);
	assert_int_equal(decode_all(&f, &pb.b, 512, ts, lens, d, 4, &missed, &err), 2);
	assert_int_equal(ts[0], 58);
	assert_int_equal(lens[0], 200);
	assert_memory_equal(d[0], big, 198);
	assert_int_equal(ts[1], 60);
	assert_int_equal(lens[1], 12);
	free(pb.b.p);
}

static void missed_case(bool be, int klong, bool stored, bool room, int64_t want)
{
	struct tdat_file f = fake(be, klong);
	struct pagebuild pb;
	uint8_t rec[8] = { 0 };
	uint64_t ts[4];
	uint32_t lens[4];
	const uint8_t *d[4];
	int64_t missed;
	struct tmx_error err;
	uint32_t size;

	page_begin(&pb, be, klong, 64, 10);
	page_event(&pb, 1, rec, 8);
	page_end(&pb, true, stored, 321);
	/* Without room, the page ends right after the data. */
	size = room ? 64 : (uint32_t)(8 + klong + 12);
	assert_int_equal(decode_all(&f, &pb.b, size, ts, lens, d, 4, &missed, &err), 1);
	assert_int_equal(missed, want);
	free(pb.b.p);
}

static void test_missed(void **s)
{
	(void)s;
	missed_case(false, 8, true, true, 321);
	missed_case(true, 8, true, true, 321);
	missed_case(false, 4, true, true, 321);
	missed_case(true, 4, true, true, 321);
	missed_case(false, 8, false, true, -1);
	missed_case(true, 4, false, true, -1);
	missed_case(false, 8, true, false, -1);   /* flag says stored, no room for it */
}

static void test_record_at_page_end(void **s)
{
	struct tdat_file f = fake(false, 8);
	struct pagebuild pb;
	uint8_t rec[108];
	uint64_t ts[4];
	uint32_t lens[4];
	const uint8_t *d[4];
	int64_t missed;
	struct tmx_error err;
	(void)s;

	memset(rec, 0xab, sizeof(rec));
	/* 16 header + 4 + 108 = 128: the record's last byte is the page's last. */
	page_begin(&pb, false, 8, 128, 1);
	page_event(&pb, 1, rec, 108);
	page_end(&pb, false, false, 0);
	assert_int_equal(pb.b.n, 128);
	assert_int_equal(decode_all(&f, &pb.b, 128, ts, lens, d, 4, &missed, &err), 1);
	assert_ptr_equal(d[0] + lens[0], pb.b.p + 128);
	free(pb.b.p);
}

static void test_empty_page(void **s)
{
	struct tdat_file f = fake(false, 8);
	struct pagebuild pb;
	uint64_t ts[1];
	uint32_t lens[1];
	const uint8_t *d[1];
	int64_t missed;
	struct tmx_error err;
	(void)s;

	page_begin(&pb, false, 8, 64, 1);
	page_end(&pb, false, false, 0);
	assert_int_equal(decode_all(&f, &pb.b, 64, ts, lens, d, 1, &missed, &err), 0);
	free(pb.b.p);
}

static void expect_error(const struct bb *page, uint32_t size, bool be, int klong,
			 uint64_t want_offset, const char *want_text)
{
	struct tdat_file f = fake(be, klong);
	uint64_t ts[16];
	uint32_t lens[16];
	const uint8_t *d[16];
	int64_t missed;
	struct tmx_error err;
	int r;

	memset(&err, 0, sizeof(err));
	r = decode_all(&f, page, size, ts, lens, d, 16, &missed, &err);
	assert_true(r < 0);
	assert_int_equal(-r, TMX_ERR_DATA);
	assert_true(err.has_offset);
	assert_int_equal(err.offset, want_offset);
	assert_non_null(strstr(err.msg, want_text));
	assert_string_equal(err.file, "page.dat");
}

static void test_damaged(void **s)
{
	struct pagebuild pb;
	uint8_t rec[8] = { 0 };
	(void)s;

	/* Commit larger than the page. */
	page_begin(&pb, false, 8, 64, 1);
	page_event(&pb, 1, rec, 8);
	page_end(&pb, false, false, 0);
	bb_set_num(&pb.b, 8, 100, 8);
	expect_error(&pb.b, 64, false, 8, 4096 + 8, "commit");
	/* Page shorter than its header. */
	expect_error(&pb.b, 10, false, 8, 4096, "shorter than its header");
	free(pb.b.p);

	/* An event that runs past the commit: type_len 28 (112 bytes) in 20 bytes. */
	page_begin(&pb, false, 8, 64, 1);
	page_event(&pb, 1, rec, 8);
	bb_u32(&pb.b, event_word(false, 28, 1));
	bb_zero(&pb.b, 4);
	page_end(&pb, false, false, 0);
	expect_error(&pb.b, 64, false, 8, 4096 + 16 + 12, "runs past the end");
	free(pb.b.p);

	/* type_len 0 with a length below 4. */
	page_begin(&pb, true, 4, 64, 1);
	bb_u32(&pb.b, event_word(true, 0, 1));
	bb_u32(&pb.b, 2);
	page_end(&pb, false, false, 0);
	expect_error(&pb.b, 64, true, 4, 4096 + 12 + 4, "length 2");
	free(pb.b.p);

	/* A time extend cut by the commit. */
	page_begin(&pb, false, 8, 64, 1);
	bb_u32(&pb.b, event_word(false, 30, 1));
	page_end(&pb, false, false, 0);
	expect_error(&pb.b, 64, false, 8, 4096 + 16, "time extend");
	free(pb.b.p);
}

/* Every commit value and every byte of a page: errors or events, never a read outside. */
static void test_exhaustive_commits(void **s)
{
	struct tdat_file f = fake(false, 8);
	struct pagebuild pb;
	uint8_t rec[12] = { 0 };
	(void)s;

	page_begin(&pb, false, 8, 96, 1);
	page_event(&pb, 1, rec, 12);
	page_time_extend(&pb, 5);
	page_event_long(&pb, 1, rec, 10);
	page_padding(&pb, 3, 8);
	page_event(&pb, 1, rec, 4);
	page_end(&pb, false, false, 0);
	for (uint32_t commit = 0; commit <= 96; commit++) {
		for (int byte = -1; byte < 96; byte++) {
			struct bb copy = { 0 };
			struct tdat_page pg;
			struct tmx_error err;
			bb_put(&copy, pb.b.p, pb.b.n);
			bb_set_num(&copy, 8, commit, 8);
			if (byte >= 16)
				copy.p[byte] ^= 0x5a;
			if (!tdat_page_start(&pg, &f, copy.p, 96, &err, 0)) {
				for (int k = 0; k < 100; k++) {
					const uint8_t *d;
					uint32_t len;
					if (tdat_page_next(&pg, &d, &len, &err, 0) || !d)
						break;
					assert_true(d >= copy.p + 16 && d + len <= copy.p + 96);
				}
			}
			free(copy.p);
		}
	}
	free(pb.b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_le8),
		cmocka_unit_test(test_time_be8),
		cmocka_unit_test(test_time_le4),
		cmocka_unit_test(test_time_be4),
		cmocka_unit_test(test_abs_keeps_msb),
		cmocka_unit_test(test_padding_and_long),
		cmocka_unit_test(test_missed),
		cmocka_unit_test(test_record_at_page_end),
		cmocka_unit_test(test_empty_page),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_exhaustive_commits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
