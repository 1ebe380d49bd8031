/*
 * The hand-rolled number formatting of every text output (sink/outbuf.c),
 * checked against printf on every digit count's bounds, on random values
 * and through the buffered writer, with and without zero padding; and %g
 * (tmx_format_g) against printf on doubles of every kind.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sink/outbuf.h"
#include "xorshift.h"

static void check_put_u64(uint64_t v)
{
	char want[32], got[32], *end;

	snprintf(want, sizeof(want), "%" PRIu64, v);
	memset(got, 'x', sizeof(got));
	end = tmx_put_u64(got, v);
	assert_int_equal(end - got, strlen(want));
	*end = '\0';
	assert_string_equal(got, want);
}

/* Random, with every digit count about as likely. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = xorshift64(state);

	return x >> (x % 64);
}

static void test_put_u64(void **state)
{
	uint64_t p = 1, seed = 0x9E3779B97F4A7C15ULL;

	(void)state;
	check_put_u64(0);
	check_put_u64(UINT64_MAX);
	for (int digits = 1; digits <= 19; digits++, p *= 10) {
		check_put_u64(p - 1);
		check_put_u64(p);
		check_put_u64(p + 1);
		check_put_u64(p * 9 + (p - 1));      /* 99..9 of `digits` digits */
	}
	for (int i = 0; i < 200000; i++)
		check_put_u64(next_random(&seed));
}

/* outbuf_u64 and outbuf_i64 through a pipe-less buffer: the text stays in b->data. */
static void check_outbuf(uint64_t v, int width)
{
	static struct outbuf b;
	char want[64];

	outbuf_init(&b, -1);
	outbuf_u64(&b, v, width);
	snprintf(want, sizeof(want), "%0*" PRIu64, width, v);
	assert_int_equal(b.len, strlen(want));
	assert_memory_equal(b.data, want, b.len);
}

static void test_outbuf_widths(void **state)
{
	static const int widths[] = { 0, 1, 2, 3, 9, 12, 20, 24 };
	uint64_t seed = 12345;

	(void)state;
	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		check_outbuf(0, widths[w]);
		check_outbuf(999999999, widths[w]);
		check_outbuf(1000000000, widths[w]);
		check_outbuf(UINT64_MAX, widths[w]);
		for (int i = 0; i < 20000; i++)
			check_outbuf(next_random(&seed), widths[w]);
	}
}

static void test_outbuf_i64(void **state)
{
	static const int64_t values[] = { 0, -1, 1, INT64_MIN, INT64_MAX, -100000000, -99999999 };
	static struct outbuf b;
	char want[32];

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		outbuf_init(&b, -1);
		outbuf_i64(&b, values[i]);
		snprintf(want, sizeof(want), "%" PRId64, values[i]);
		assert_int_equal(b.len, strlen(want));
		assert_memory_equal(b.data, want, b.len);
	}
}

/* A number that does not fit the buffer's room flushes it first. */
static void test_outbuf_flush_before_number(void **state)
{
	static struct outbuf b;
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	outbuf_init(&b, fileno(f));
	b.len = OUTBUF_SIZE - 5;
	memset(b.data, ' ', b.len);
	outbuf_u64(&b, 12345678901234567890ULL, 0);
	assert_int_equal(b.len, 20);
	assert_memory_equal(b.data, "12345678901234567890", 20);
	assert_int_equal(lseek(fileno(f), 0, SEEK_END), OUTBUF_SIZE - 5);
	fclose(f);
}

/*
 * Every byte value as two lowercase digits (against printf's %02x), and a
 * run that meets the end of the buffer: the pairs that fit, an odd byte
 * left at the end, the buffer flushed, the rest.
 */
static void test_outbuf_hex_bytes(void **state)
{
	static struct outbuf b;
	unsigned char bytes[256];
	char want[513], *got;
	FILE *f = tmpfile();
	size_t n;

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < 256; i++) {
		bytes[i] = (unsigned char)i;
		snprintf(want + 2 * i, 3, "%02x", i);
	}
	outbuf_init(&b, fileno(f));
	outbuf_hex_bytes(&b, bytes, 256);
	outbuf_hex_bytes(&b, bytes, 0);
	assert_int_equal(b.len, 512);
	assert_memory_equal(b.data, want, 512);
	b.len = OUTBUF_SIZE - 3;
	memset(b.data, ' ', b.len);
	outbuf_hex_bytes(&b, bytes + 0x90, 100);
	assert_int_equal(b.len, 198);
	assert_int_equal(outbuf_flush(&b), 0);
	n = (size_t)lseek(fileno(f), 0, SEEK_END);
	assert_int_equal(n, OUTBUF_SIZE - 3 + 200);
	got = malloc(200);
	assert_non_null(got);
	assert_int_equal(pread(fileno(f), got, 200, (off_t)(OUTBUF_SIZE - 3)), 200);
	assert_memory_equal(got, want + 2 * 0x90, 200);
	free(got);
	fclose(f);
}

static void check_format_g(double d)
{
	char want[64], got[64];
	size_t n;

	snprintf(want, sizeof(want), "%g", d);
	memset(got, 'x', sizeof(got));
	n = tmx_format_g(got, d);
	assert_true(n < 32);
	got[n] = '\0';
	if (strcmp(got, want))
		fail_msg("%%g of %a: got `%s`, printf gives `%s`", d, got, want);
}

/*
 * Decimal-looking values (what traces hold: k / 10^j, k * 10^j), the ties
 * and near-ties of the 7th digit in every decade, the decades' bounds and
 * the fixed/exponent switches, signs, zero, infinities, NaN, subnormals,
 * and random bit patterns.
 */
static void test_format_g(void **state)
{
	static const double special[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.3, 1.5, 2.5, 1e-4, 9.99999e-5, 0.0001,
		0.00010000005, 1e5, 1e6, 999999.0, 999999.4, 999999.5, 999999.6, 9999995.0,
		123456.5, 1234565.0, 0.1234565, 1e-5, 1e21, 1e22, 1e23, 1e-17, 1e-18, 1e300, 1e-300,
		1.7976931348623157e308, 4.9e-324, 2.2250738585072014e-308, 100.0, 3.14159265358979,
	};
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		check_format_g(special[i]);
		check_format_g(-special[i]);
		check_format_g(nextafter(special[i], 0));
		check_format_g(nextafter(special[i], INFINITY));
	}
	check_format_g(INFINITY);
	check_format_g(-INFINITY);
	check_format_g(NAN);
	check_format_g(-NAN);
	for (int e = -30; e <= 30; e++) {
		double p = pow(10, e);
		for (int k = 1; k <= 20; k++) {
			check_format_g(p * k);
			check_format_g(p * (1 + 5e-6 * k));   /* around the 7th digit */
			check_format_g(p * (9.999995 + 1e-7 * (k - 10)));
			check_format_g(nextafter(p, 0) * k);
		}
	}
	for (int i = 0; i < 1000000; i++) {
		uint64_t r = xorshift64(&seed);
		double d;
		switch (i % 4) {
		case 0:   /* any finite bit pattern */
			memcpy(&d, &r, sizeof(d));
			if (!isfinite(d))
				continue;
			break;
		case 1:   /* k / 10^j */
			d = (double)(r % 100000000) / pow(10, (double)((r >> 40) % 12));
			break;
		case 2:   /* k * 10^j, 7-digit ties included */
			d = (double)((r % 20000000) + 0.5) * pow(10, (double)((int)((r >> 40) % 40) - 20));
			break;
		default:  /* uniform in a few decades */
			d = (double)(r >> 11) / (double)(1ULL << 53) * pow(10, (double)((int)((r >> 59) % 16) - 8));
			break;
		}
		check_format_g((r >> 63) ? -d : d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_u64),
		cmocka_unit_test(test_outbuf_widths),
		cmocka_unit_test(test_outbuf_i64),
		cmocka_unit_test(test_outbuf_flush_before_number),
		cmocka_unit_test(test_outbuf_hex_bytes),
		cmocka_unit_test(test_format_g),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
