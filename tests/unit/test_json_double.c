/*
 * The JSON outputs' floats (json_double, src/sink/jsonval.c) against
 * glibc's printf("%.17g"), which they reproduce without it: random bit
 * patterns, random decimals of few digits (ties and trailing zeros),
 * integers, powers of ten and two, the edges of the fast path's range.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sink/jsonval.h"
#include "xorshift.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	return xorshift64(&state);
}

static int failures;

static void check(double d)
{
	char want[64], got[32];
	size_t n = json_double(got, d);

	if (!isfinite(d))
		snprintf(want, sizeof(want), "null");
	else
		snprintf(want, sizeof(want), "%.17g", d);
	if (n != strlen(want) || memcmp(got, want, n)) {
		if (failures++ < 10)
			print_error("%a: got %.*s, printf says %s\n", d, (int)n, got, want);
	}
}

static void test_bit_patterns(void **state_)
{
	(void)state_;
	for (int i = 0; i < 2000000; i++) {
		uint64_t bits = next();
		double d;

		memcpy(&d, &bits, 8);
		check(d);
	}
	/* The fast path's range: exponents of 1e-6 to 1e18. */
	for (int i = 0; i < 2000000; i++) {
		double d = ldexp((double)(next() >> 11), (int)(next() % 120) - 53 - 20);
		check(next() & 1 ? d : -d);
	}
	assert_int_equal(failures, 0);
}

static void test_decimals(void **state_)
{
	(void)state_;
	/* Few significant digits: exact ties at the 17th digit are rare but these find them. */
	for (int i = 0; i < 1000000; i++) {
		double mant = (double)(next() % 100000000);
		int exp10 = (int)(next() % 30) - 15;
		check(mant * pow(10, exp10));
		check(mant / pow(10, -exp10 + (exp10 < 0)));
	}
	for (int e = -330; e <= 310; e++) {
		check(pow(10, e));
		check(-pow(10, e));
		check(nextafter(pow(10, e), 0));
		check(nextafter(pow(10, e), INFINITY));
	}
	for (int e = -1080; e <= 1030; e++)
		check(ldexp(1, e));
	for (int64_t v = -1000; v <= 1000; v++)
		check((double)v + 0.5);
	check(0.0);
	check(-0.0);
	check(1e17);
	check(99999999999999984.0);
	check(1e-5);
	check(nextafter(1e-5, 0));
	check(INFINITY);
	check(NAN);
	check(5e-324);
	check(1.7976931348623157e308);
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bit_patterns),
		cmocka_unit_test(test_decimals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
