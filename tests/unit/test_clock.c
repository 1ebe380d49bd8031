/*
 * Clock values: cycles to nanoseconds from the origin
 * (tmx_clock_ns_from_origin), which must reproduce babeltrace2 2.0.4 to
 * the nanosecond, overflows included, and the N-bit clock update rule
 * (ctf_clock_update).
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctf/decode.h"
#include "tracemux/model.h"
#include "testutil.h"

#define BT2_CLI_REF TMX_CORPUS "/babeltrace-tests/generated-reference/bt2-cli-options"

struct conversion {
	uint64_t frequency;
	int64_t offset_s;
	uint64_t offset_cycles;
	uint64_t cycles;
	bool ok;          /* false: babeltrace2 reports an overflow */
	int64_t ns;
};

/*
 * What babeltrace2 2.0.4 printed (`-c sink.text.details`, `[cycles ns]`)
 * for events of hand-made traces with these clocks.  It divides in double
 * precision unless the clock runs at 1 GHz, so large values are not the
 * exact quotient (e.g. 3 Hz, 17756959222 cycles: exactly
 * 5918986407333333333 ns, but 5918986407333334016), truncates fractions,
 * moves whole seconds out of offset cycles, and refuses any result
 * outside int64.
 */
static const struct conversion bt2_conversions[] = {
	/* 3 Hz: fractions truncated, then double rounding, then overflow. */
	{ 3, 0, 0, 1, true, 333333333 },
	{ 3, 0, 0, 3, true, 1000000000 },
	{ 3, 0, 0, 1000, true, 333333333333 },
	{ 3, 0, 0, 3280387013, true, INT64_C(1093462337666666624) },
	{ 3, 0, 0, 17756959222, true, INT64_C(5918986407333334016) },
	{ 3, 0, 0, 27670116110, true, INT64_C(9223372036666667008) },
	{ 3, 0, 0, 27670116111, false, 0 },
	{ 3, 0, 0, UINT64_C(4611686018427387904), false, 0 },
	/* An odd frequency and a realistic offset. */
	{ 1000000007, 1351530929, 0, 1000000007, true, INT64_C(1351530930000000000) },
	{ 1000000007, 1351530929, 0, UINT64_C(1087608058291172413), true,
	  INT64_C(2439138979677916032) },
	{ 1000000007, 1351530929, 0, UINT64_C(7018639715332314492), true,
	  INT64_C(8370170595201836544) },
	/* 2.4 GHz, offset -10 s + 5e9 cycles = -8 s + 0.2e9 cycles. */
	{ 2400000000, -10, 5000000000, 0, true, INT64_C(-7916666667) },
	{ 2400000000, -10, 5000000000, 1, true, INT64_C(-7916666667) },
	{ 2400000000, -10, 5000000000, UINT64_C(7002664860023442460), true,
	  INT64_C(2917777017093100757) },
	{ 2400000000, -10, 5000000000, UINT64_C(8711387064946514084), true,
	  INT64_C(3629744602477714133) },
	/* 32768 Hz, offset 32769 cycles = 1 s + 1 cycle. */
	{ 32768, 0, 32769, 0, true, 1000030517 },
	{ 32768, 0, 32769, 118196592559639, true, INT64_C(3607073748547607349) },
	{ 32768, 0, 32769, 274637791899277, true, INT64_C(8381280271363708213) },
	/* 1 Hz: offset -5 s + 7 cycles = 2 s. */
	{ 1, -5, 7, 0, true, 2000000000 },
	{ 1, -5, 7, 7884551091, true, INT64_C(7884551093000000512) },
	/* 999999999 Hz, offset 1999999999 cycles = 2 s + 1 cycle (1 ns). */
	{ 999999999, 0, 1999999999, 0, true, 2000000001 },
	{ 999999999, 0, 1999999999, UINT64_C(2456465800505386286), true,
	  INT64_C(2456465804961852417) },
	/* 1 GHz at the int64 limits. */
	{ 1000000000, 9223372034, 0, 0, true, INT64_C(9223372034000000000) },
	{ 1000000000, 9223372034, 0, 2854775807, true, INT64_MAX },
	{ 1000000000, 9223372034, 0, 2854775808, false, 0 },
	{ 1000000000, 9223372035, 0, 0, false, 0 },
	{ 1000000000, -9223372036, 0, 0, true, INT64_C(-9223372036000000000) },
	{ 1000000000, -9223372036, 0, INT64_MAX - 1, true, 854775806 },
	{ 1000000000, -9223372036, 0, INT64_MAX, false, 0 },
	{ 1000000000, -9223372037, 0, 0, false, 0 },
	{ 1000000000, -1, 0, INT64_MAX - 1, true, INT64_C(9223372035854775806) },
	/* Cycles worth INT64_MAX ns overflow even with a negative offset. */
	{ 1000000000, -1, 0, INT64_MAX, false, 0 },
	/* Offset seconds pushed past int64 by the offset cycles. */
	{ 1, INT64_MAX, 5, 0, false, 0 },
	{ 1000000000, INT64_MIN, UINT64_MAX, 0, false, 0 },
};

static void test_babeltrace2_conversions(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bt2_conversions) / sizeof(bt2_conversions[0]); i++) {
		const struct conversion *c = &bt2_conversions[i];
		struct tmx_clock_class cc = {
			.frequency = c->frequency,
			.offset_s = c->offset_s,
			.offset_cycles = c->offset_cycles,
		};
		int64_t ns = 0;
		bool ok = tmx_clock_ns_from_origin(&cc, c->cycles, &ns);

		if (ok != c->ok || (ok && ns != c->ns))
			fail_msg("row %zu (%" PRIu64 " Hz, %" PRIu64 " cycles): got %s %" PRId64
				 ", expected %s %" PRId64, i, c->frequency, c->cycles,
				 ok ? "ok" : "overflow", ns, c->ok ? "ok" : "overflow", c->ns);
	}
}

/*
 * At 1 GHz there is no division: the spec's offset_s * 1e9 + offset + value
 * holds exactly, checked with 128-bit arithmetic on pseudo-random values.
 */
static void test_1ghz_is_exact(void **state)
{
	uint64_t seed = 42;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		struct tmx_clock_class cc = { .frequency = 1000000000 };
		__int128 exact;
		uint64_t cycles;
		int64_t ns;

		seed = seed * 6364136223846793005u + 1442695040888963407u;
		cc.offset_s = (int64_t)(seed >> 32) - INT64_C(0x80000000);
		cc.offset_cycles = seed % 3000000000u;      /* sometimes >= 1 s */
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		cycles = seed >> (seed % 4 * 8);            /* all magnitudes */
		exact = (__int128)cc.offset_s * 1000000000 + cc.offset_cycles + cycles;
		if (cycles >= (uint64_t)INT64_MAX || exact > INT64_MAX) {
			assert_false(tmx_clock_ns_from_origin(&cc, cycles, &ns));
			continue;
		}
		assert_true(tmx_clock_ns_from_origin(&cc, cycles, &ns));
		assert_true(ns == exact);
	}
}

/* The first number between brackets of each event line, and the rest. */
static const char *next_stamp(const char *p, char *stamp, size_t size)
{
	const char *end;

	p = strstr(p, "\n[");
	if (!p)
		return NULL;
	end = strchr(p + 2, ']');
	assert_non_null(end);
	assert_true((size_t)(end - p - 2) < size);
	memcpy(stamp, p + 2, (size_t)(end - p - 2));
	stamp[end - p - 2] = '\0';
	return end;
}

/*
 * A real trace: wk-heartbeat-u's clock (1 GHz, offset = 1351530929945824323
 * cycles, more than the frequency) and babeltrace2's --clock-cycles and
 * --clock-seconds outputs of its 20 events.
 */
static void test_wk_heartbeat_clock(void **state)
{
	const struct tmx_clock_class cc = {
		.frequency = 1000000000, .offset_cycles = UINT64_C(1351530929945824323),
	};
	size_t len = 0;
	char *cycles_txt = read_whole_file(BT2_CLI_REF "/wk-clock-cycles.txt", &len);
	char *seconds_txt = read_whole_file(BT2_CLI_REF "/wk-clock-seconds.txt", &len);
	const char *pc = cycles_txt, *ps = seconds_txt;
	char cyc[32], sec[32];
	int events = 0;

	(void)state;
	assert_non_null(cycles_txt);
	assert_non_null(seconds_txt);
	while ((pc = next_stamp(pc, cyc, sizeof(cyc)))) {
		unsigned long long cycles, s, frac;
		int64_t ns;

		assert_non_null(ps = next_stamp(ps, sec, sizeof(sec)));
		assert_int_equal(sscanf(cyc, "%llu", &cycles), 1);
		assert_int_equal(sscanf(sec, "%llu.%9llu", &s, &frac), 2);
		assert_true(tmx_clock_ns_from_origin(&cc, cycles, &ns));
		assert_int_equal(ns, s * 1000000000 + frac);
		events++;
	}
	assert_null(next_stamp(ps, sec, sizeof(sec)));
	assert_int_equal(events, 20);
	free(cycles_txt);
	free(seconds_txt);
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
		cmocka_unit_test(test_babeltrace2_conversions),
		cmocka_unit_test(test_1ghz_is_exact),
		cmocka_unit_test(test_wk_heartbeat_clock),
		cmocka_unit_test(test_clock_update_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
