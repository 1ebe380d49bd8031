/*
 * CTF 2 field decoding (CTF 2 spec 6.4) from hand-made bytes: field
 * classes built here as the CTF 2 metadata parser builds them, one event
 * payload decoded from the bytes by its compiled plan and by the tree
 * walk, which must agree on every value, position and error; then the
 * values and error offsets are checked against what the spec says.
 * Also CTF 1.8's empty array aligned past the end of the packet content.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fcbuild.h"

#include "ctf/decode.h"
#include "ctf/metadata.h"
#include "ctf/plan.h"
#include "model/field_class.h"

/* ---- decoding by plan and by walk ---- */

struct run {
	struct fcb_trace t;
	struct ctf_decoder d[2];     /* [0] by plan, [1] by walk */
	int ret;
	struct tmx_error err;
	const struct tmx_value *v;   /* the payload's values (by plan) */
	bool more_after;             /* another event follows the first */
};

static bool same_value(const struct tmx_value *x, const struct tmx_value *y)
{
	switch (x->fc->kind) {
	case TMX_FC_FLOAT:
		return memcmp(&x->d, &y->d, sizeof(x->d)) == 0;
	case TMX_FC_STRING:
	case TMX_FC_BLOB:
		return x->str.len == y->str.len &&
		       (x->str.len == 0 || memcmp(x->str.ptr, y->str.ptr, x->str.len) == 0);
	case TMX_FC_STRUCT:
		return x->n_members == y->n_members;
	case TMX_FC_OPTIONAL:
		return x->present == y->present;
	case TMX_FC_VARIANT:
		return x->option == y->option;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		return x->count == y->count;
	default:
		return x->u == y->u;
	}
}

/* The first event of the packet by decoder `d`: its status, and whether more follow. */
static int first_event(struct ctf_decoder *d, size_t scopes[TMX_N_SCOPES], struct tmx_error *err)
{
	struct ctf_packet_info info;
	const struct tmx_event_class *ec = NULL;
	bool more = false;
	int ret = ctf_decode_packet_start(d, 0, &info, err);

	assert_int_equal(ret, TMX_OK);
	ret = ctf_decode_event(d, &more, info.sc, &ec, scopes, err);
	assert_true(ret || more);
	return ret;
}

/*
 * Decodes the first event of `data` (no packet header or context: the
 * whole buffer is the packet's content) whose payload is `payload`, by
 * plan and by walk, and checks that both agree on everything.
 */
static void run_case(struct run *r, struct tmx_field_class *payload, int32_t n_slots,
		     const void *data, size_t len)
{
	struct tmx_error err[2];
	size_t scopes[2][TMX_N_SCOPES];
	int ret[2];

	memset(r, 0, sizeof(*r));
	fcb_trace_init(&r->t, n_slots, 1, &payload);
	for (int k = 0; k < 2; k++) {
		memset(&err[k], 0, sizeof(err[k]));
		assert_int_equal(ctf_decoder_init(&r->d[k], &r->t.tc, "case", data, len, &err[k]),
				 TMX_OK);
		r->d[k].walk_only = k == 1;
		ret[k] = first_event(&r->d[k], scopes[k], &err[k]);
	}
	/* The plan, not the walk, decoded it. */
	assert_non_null(r->d[0].sp->events[0].body);
	assert_int_equal(ret[0], ret[1]);
	if (ret[0]) {
		assert_int_equal(err[0].code, err[1].code);
		assert_int_equal(err[0].offset, err[1].offset);
		assert_string_equal(err[0].msg, err[1].msg);
	} else {
		assert_int_equal(r->d[0].pos, r->d[1].pos);
		assert_int_equal(r->d[0].clock, r->d[1].clock);
		assert_memory_equal(r->d[0].slots, r->d[1].slots,
				    (size_t)(n_slots ? n_slots : 1) * sizeof(uint64_t));
	}
	assert_int_equal(r->d[0].event.n, r->d[1].event.n);
	for (size_t i = 0; i < r->d[0].event.n; i++) {
		assert_ptr_equal(r->d[0].event.v[i].fc, r->d[1].event.v[i].fc);
		if (!same_value(&r->d[0].event.v[i], &r->d[1].event.v[i]))
			fail_msg("value %zu differs between plan and walk", i);
	}
	r->ret = ret[0];
	r->err = err[0];
	if (ret[0] == TMX_OK) {
		const struct tmx_event_class *ec = NULL;
		size_t more_scopes[TMX_N_SCOPES];
		struct tmx_error e2;

		r->v = &r->d[0].event.v[scopes[0][TMX_SCOPE_PAYLOAD]];
		/* The walk decoder goes on; the plan's values stay. */
		ctf_decode_event(&r->d[1], &r->more_after, &r->t.sc, &ec, more_scopes, &e2);
	}
}

static void run_fini(struct run *r)
{
	ctf_decoder_fini(&r->d[0]);
	ctf_decoder_fini(&r->d[1]);
	fcb_free_all();
}

/* Decoding must fail at byte `offset` with a message that contains `what`. */
static void expect_error(struct tmx_field_class *payload, int32_t n_slots, const void *data,
			 size_t len, uint64_t offset, const char *what)
{
	struct run r;

	run_case(&r, payload, n_slots, data, len);
	if (r.ret == TMX_OK)
		fail_msg("decoding succeeded, expected `%s`", what);
	if (!strstr(r.err.msg, what))
		fail_msg("error `%s`, expected `%s`", r.err.msg, what);
	assert_int_equal(r.err.code, TMX_ERR_DATA);
	assert_true(r.err.has_offset);
	assert_int_equal(r.err.offset, offset);
	run_fini(&r);
}

static void expect_str(const struct tmx_value *v, const char *s)
{
	assert_int_equal(v->str.len, strlen(s));
	assert_memory_equal(v->str.ptr, s, strlen(s));
}

#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

/* ---- fixed-length bit arrays, booleans, integers, floats ---- */

static int64_t sext12(uint64_t v)
{
	return (int64_t)((v ^ 0x800) - 0x800);
}

static void test_bit_orders(void **state)
{
	/*
	 * 0xB4 0x01 = 1011 0100 0000 0001.  12 bits at bit 0: little-endian,
	 * low bits first: 0x1B4 (0001 1011 0100), reversed 0x2D8; big-endian,
	 * high bits first: 0xB40 (1011 0100 0000), reversed 0x02D.
	 */
	static const struct {
		enum tmx_byte_order bo;
		bool rev;
		uint64_t expect;
	} cases[] = {
		{ TMX_BO_LE, false, 0x1B4 },
		{ TMX_BO_LE, true, 0x2D8 },
		{ TMX_BO_BE, false, 0xB40 },
		{ TMX_BO_BE, true, 0x02D },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum tmx_byte_order bo = cases[i].bo;
		bool rev = cases[i].rev;
		struct run r;

		/* The same bits as a bit array, a signed integer, a boolean; then false. */
		run_case(&r, fcb_struct(5, fcb_fixed(TMX_FC_BIT_ARRAY, 12, bo, rev, false, 1),
					fcb_fixed(TMX_FC_INT, 4, bo, false, false, 1),
					fcb_fixed(TMX_FC_INT, 12, bo, rev, true, 8),
					fcb_fixed(TMX_FC_BOOL, 12, bo, rev, false, 8),
					fcb_fixed(TMX_FC_BOOL, 16, bo, rev, false, 8)),
			 0, B(0xB4, 0x01, 0xB4, 0x01, 0xB4, 0x01, 0x00, 0x00));
		assert_int_equal(r.ret, TMX_OK);
		assert_int_equal(r.v[1].u, cases[i].expect);
		assert_int_equal(r.v[3].s, sext12(cases[i].expect));
		assert_int_equal(r.v[4].u, 1);
		assert_int_equal(r.v[5].u, 0);
		assert_int_equal(r.d[0].pos, 64);
		run_fini(&r);
	}
}

static void test_bit_order_aligned(void **state)
{
	struct run r;

	(void)state;
	/*
	 * Whole bytes: 0x3FC00000 (1.5f) is 0x000003FC reversed; a 16-bit
	 * big-endian integer 0x0102 read first-to-last is 0x4080; a 64-bit
	 * little-endian one 1 read last-to-first is 2^63.
	 */
	run_case(&r, fcb_struct(3, fcb_fixed(TMX_FC_FLOAT, 32, TMX_BO_LE, true, false, 8),
				fcb_fixed(TMX_FC_INT, 16, TMX_BO_BE, true, false, 8),
				fcb_fixed(TMX_FC_INT, 64, TMX_BO_LE, true, true, 8)),
		 0, B(0xFC, 0x03, 0x00, 0x00, 0x01, 0x02, 1, 0, 0, 0, 0, 0, 0, 0));
	assert_int_equal(r.ret, TMX_OK);
	assert_true(r.v[1].d == 1.5);
	assert_int_equal(r.v[2].u, 0x4080);
	assert_int_equal(r.v[3].s, INT64_MIN);
	run_fini(&r);
}

static void test_bool_selector_bits(void **state)
{
	struct run r;
	struct tmx_field_class *sel = fcb_slot(fcb_fixed(TMX_FC_BOOL, 3, TMX_BO_LE, false, false, 1),
					       0);

	(void)state;
	/* A 3-bit boolean 0b100: true (value 1), its slot keeps the bits 4. */
	run_case(&r, fcb_struct(2, sel, fcb_optional(sel, 0, fcb_u8(), 0, NULL)), 1,
		 B(0x04, 0x2A));
	assert_int_equal(r.ret, TMX_OK);
	assert_int_equal(r.v[1].u, 1);
	assert_int_equal(r.d[0].slots[0], 4);
	assert_int_equal(r.v[2].present, 1);
	assert_int_equal(r.v[3].u, 0x2A);
	run_fini(&r);
}

static void test_byte_order_change(void **state)
{
	(void)state;
	/* A little-endian nibble, then a big-endian boolean in the same byte. */
	expect_error(fcb_struct(3, fcb_u8(), fcb_fixed(TMX_FC_INT, 4, TMX_BO_LE, false, false, 1),
				fcb_fixed(TMX_FC_BOOL, 4, TMX_BO_BE, false, false, 1)),
		     0, B(0, 0xFF), 1, "boolean field changes the byte order in the middle of a byte");
	expect_error(fcb_struct(2, fcb_fixed(TMX_FC_INT, 4, TMX_BO_BE, false, false, 1),
				fcb_fixed(TMX_FC_BIT_ARRAY, 4, TMX_BO_LE, true, false, 1)),
		     0, B(0xFF), 0, "bit array field changes the byte order");
}

/*
 * CTF 2 (decoding step 3) compares with the LAST fixed-length bit array
 * field, not with a field that ends exactly here: fields that read no bit
 * in between (an empty array of big-endian nibbles, an absent optional)
 * do not make a change of byte order inside the byte legal.  Every other
 * CTF 2 field is byte-aligned, so the position inside a byte is always
 * where the last bit array ended.
 */
static void test_byte_order_change_across_empty(void **state)
{
	struct tmx_field_class *sel;

	(void)state;
	expect_error(fcb_struct(3, fcb_fixed(TMX_FC_INT, 4, TMX_BO_LE, false, false, 1),
				fcb_array(fcb_fixed(TMX_FC_INT, 4, TMX_BO_BE, false, false, 1), 0, -1),
				fcb_fixed(TMX_FC_INT, 4, TMX_BO_BE, false, false, 1)),
		     0, B(0xFF), 0, "changes the byte order in the middle of a byte");
	sel = fcb_slot(fcb_fixed(TMX_FC_BOOL, 1, TMX_BO_LE, false, false, 1), 0);
	expect_error(fcb_struct(3, sel,
				fcb_optional(sel, 0, fcb_fixed(TMX_FC_INT, 4, TMX_BO_BE, false, false, 1),
					     0, NULL),
				fcb_fixed(TMX_FC_INT, 4, TMX_BO_BE, false, false, 1)),
		     1, B(0x00), 0, "changes the byte order in the middle of a byte");
}

/* ---- variable-length integers ---- */

/* Decodes `bytes` as a variable-length integer between two u8 (0x11 and 0x5A). */
static void check_varint(bool is_signed, const uint8_t *bytes, size_t n, uint64_t expect)
{
	uint8_t data[16];
	struct run r;

	data[0] = 0x11;
	memcpy(data + 1, bytes, n);
	data[1 + n] = 0x5A;
	run_case(&r, fcb_struct(3, fcb_u8(), fcb_varint(is_signed), fcb_u8()), 0, data, n + 2);
	assert_int_equal(r.ret, TMX_OK);
	assert_int_equal(r.v[2].u, expect);
	assert_int_equal(r.v[3].u, 0x5A);
	assert_int_equal(r.d[0].pos, 8 * (n + 2));
	run_fini(&r);
}

static void test_varint_unsigned(void **state)
{
	(void)state;
	check_varint(false, B(0x00), 0);
	check_varint(false, B(0x7F), 127);
	check_varint(false, B(0x80, 0x01), 128);
	check_varint(false, B(0xE5, 0x8E, 0x26), 624485);
	/* Redundant high bytes are accepted. */
	check_varint(false, B(0x85, 0x80, 0x00), 5);
	check_varint(false, B(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01),
		     UINT64_MAX);
	check_varint(false, B(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01),
		     UINT64_C(1) << 63);
}

static void test_varint_signed(void **state)
{
	(void)state;
	check_varint(true, B(0x00), 0);
	check_varint(true, B(0x7F), (uint64_t)-1);
	check_varint(true, B(0x3F), 63);
	check_varint(true, B(0x40), (uint64_t)-64);
	check_varint(true, B(0xC0, 0xBB, 0x78), (uint64_t)-123456);
	check_varint(true, B(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7F),
		     (uint64_t)INT64_MIN);
	check_varint(true, B(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00),
		     (uint64_t)INT64_MAX);
	/* 9 bytes (63 bits): sign-extended from bit 62. */
	check_varint(true, B(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40),
		     (uint64_t)-(INT64_C(1) << 62));
}

static void test_varint_errors(void **state)
{
	(void)state;
	/* 11 bytes, even with a value that fits. */
	expect_error(fcb_struct(2, fcb_u8(), fcb_varint(false)), 0,
		     B(0x11, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00), 1,
		     "variable-length integer field is longer than 10 bytes");
	/* 65 bits of value. */
	expect_error(fcb_struct(2, fcb_u8(), fcb_varint(false)), 0,
		     B(0x11, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02), 1,
		     "variable-length integer field has more than 64 bits of value");
	/* 2^63 does not fit a signed value, nor -2^63 - 1. */
	expect_error(fcb_struct(2, fcb_u8(), fcb_varint(true)), 0,
		     B(0x11, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), 1,
		     "has more than 64 bits of value");
	expect_error(fcb_struct(2, fcb_u8(), fcb_varint(true)), 0,
		     B(0x11, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7E), 1,
		     "has more than 64 bits of value");
	/* The content ends inside it. */
	expect_error(fcb_struct(2, fcb_u8(), fcb_varint(false)), 0, B(0x11, 0x80, 0x80), 1,
		     "variable-length integer field ends past the end of the packet content");
}

static void test_varint_length(void **state)
{
	struct run r;

	(void)state;
	/* A variable-length integer as a BLOB length (its 64-bit value in the slot). */
	run_case(&r, fcb_struct(2, fcb_slot(fcb_varint(false), 0), fcb_blob(0, 0)), 1,
		 B(0x03, 'x', 'y', 'z'));
	assert_int_equal(r.ret, TMX_OK);
	expect_str(&r.v[2], "xyz");
	assert_false(r.more_after);
	run_fini(&r);
}

static const struct tmx_clock_class test_clock = { .name = "c", .frequency = 1000 };

static struct tmx_field_class *clock_varint(void)
{
	struct tmx_field_class *fc = fcb_varint(false);

	fc->mapped_clock = &test_clock;
	return fc;
}

/* A variable-length clock value of S bytes updates the clock's low 7 * S bits (spec 6.3). */
static void test_varint_clock(void **state)
{
	struct run r;

	(void)state;
	/* 300 (2 bytes: 14 bits); then 5 (7 bits) < 300 % 128: one wrap of 2^7. */
	run_case(&r, fcb_struct(2, clock_varint(), clock_varint()), 0, B(0xAC, 0x02, 0x05));
	assert_int_equal(r.ret, TMX_OK);
	assert_int_equal(r.d[0].clock, 256 + 128 + 5);
	run_fini(&r);
	/* Then 2^14 + 1 in 3 bytes (21 bits): above, no wrap. */
	run_case(&r, fcb_struct(3, clock_varint(), clock_varint(), clock_varint()), 0,
		 B(0xAC, 0x02, 0x05, 0x81, 0x80, 0x01));
	assert_int_equal(r.ret, TMX_OK);
	assert_int_equal(r.v[2].u, 5);
	assert_int_equal(r.d[0].clock, (UINT64_C(1) << 14) + 1);
	run_fini(&r);
}

/* ---- strings ---- */

static void test_utf8_strings(void **state)
{
	struct run r;

	(void)state;
	/* Static length with an embedded NUL, without NUL, empty; dynamic length. */
	run_case(&r, fcb_struct(5, fcb_string(TMX_STR_STATIC, TMX_STR_UTF8, 6),
				fcb_string(TMX_STR_STATIC, TMX_STR_UTF8, 3),
				fcb_string(TMX_STR_STATIC, TMX_STR_UTF8, 0),
				fcb_slot(fcb_u8(), 0),
				fcb_string(TMX_STR_DYNAMIC, TMX_STR_UTF8, 0)),
		 1, B('a', 'b', 0, 'c', 'd', 0, 'x', 'y', 'z', 4, 'h', 0, 'i', 'j'));
	assert_int_equal(r.ret, TMX_OK);
	expect_str(&r.v[1], "ab");
	expect_str(&r.v[2], "xyz");
	expect_str(&r.v[3], "");
	expect_str(&r.v[5], "h");
	/* The text is in the data itself. */
	assert_ptr_equal(r.v[1].str.ptr, (const char *)r.d[0].base);
	assert_false(r.more_after);   /* the last field ends exactly at the content's end */
	run_fini(&r);
	expect_error(fcb_struct(2, fcb_slot(fcb_u8(), 0), fcb_string(TMX_STR_DYNAMIC, TMX_STR_UTF8, 0)),
		     1, B(10, 'a', 'b'), 1, "string field needs 10 bytes but only 2 remain");
}

static void test_utf16_strings(void **state)
{
	struct run r;

	(void)state;
	run_case(&r, fcb_struct(4, fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16LE, 0),
				/* U+1F600 as a surrogate pair, big-endian */
				fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16BE, 0),
				/* zero bytes across two code units do not end it */
				fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16LE, 0),
				/* static length of 5 bytes: a NUL unit, then anything */
				fcb_string(TMX_STR_STATIC, TMX_STR_UTF16LE, 5)),
		 0, B('h', 0, 0xE9, 0, '!', 0, 0, 0,
		      0xD8, 0x3D, 0xDE, 0x00, 0, 0,
		      'A', 0, 0, 1, 0, 0,
		      'B', 0, 0, 0, 0xFF));
	assert_int_equal(r.ret, TMX_OK);
	expect_str(&r.v[1], "h\xC3\xA9!");
	expect_str(&r.v[2], "\xF0\x9F\x98\x80");
	expect_str(&r.v[3], "A\xC4\x80");
	expect_str(&r.v[4], "B");
	assert_int_equal(r.d[0].pos, 8 * 25);
	run_fini(&r);
}

static void test_utf32_strings(void **state)
{
	struct run r;

	(void)state;
	run_case(&r, fcb_struct(3, fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF32BE, 0),
				fcb_string(TMX_STR_STATIC, TMX_STR_UTF32LE, 8),
				fcb_string(TMX_STR_STATIC, TMX_STR_UTF32LE, 8)),
		 0, B(0, 0, 0x03, 0xA9, 0, 0, 0, 'z', 0, 0, 0, 0,
		      0, 0, 0, 0, 'q', 0, 0, 0,
		      0x00, 0xF6, 0x01, 0x00, 'k', 0, 0, 0));
	assert_int_equal(r.ret, TMX_OK);
	expect_str(&r.v[1], "\xCE\xA9z");
	expect_str(&r.v[2], "");
	expect_str(&r.v[3], "\xF0\x9F\x98\x80k");
	run_fini(&r);
}

static void test_string_errors(void **state)
{
	(void)state;
	/* A lone low surrogate (the second unit, at byte 1 + 2). */
	expect_error(fcb_struct(2, fcb_u8(), fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16LE, 0)),
		     0, B(0, 'A', 0, 0x00, 0xDC, 0, 0), 3, "a lone UTF-16 low surrogate (0xdc00)");
	/* A high surrogate followed by another unit, at the string's start. */
	expect_error(fcb_struct(1, fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16BE, 0)),
		     0, B(0xD8, 0x3D, 0, 'A', 0, 0), 0, "a lone UTF-16 high surrogate");
	/* A high surrogate at the end of a static-length string. */
	expect_error(fcb_struct(1, fcb_string(TMX_STR_STATIC, TMX_STR_UTF16LE, 4)),
		     0, B('A', 0, 0x3D, 0xD8), 2, "a lone UTF-16 high surrogate");
	expect_error(fcb_struct(1, fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF32BE, 0)),
		     0, B(0, 0, 0, 'A', 0, 0x11, 0, 0, 0, 0, 0, 0), 4,
		     "a UTF-32 value above 0x10FFFF (0x110000)");
	expect_error(fcb_struct(1, fcb_string(TMX_STR_STATIC, TMX_STR_UTF32LE, 4)),
		     0, B(0x00, 0xD8, 0, 0), 0, "a UTF-32 surrogate value");
	/* No NUL code unit: none at all, or only across units, or a partial unit left. */
	expect_error(fcb_struct(2, fcb_u8(), fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16LE, 0)),
		     0, B(0, 'A', 0, 0, 'B', 0), 1, "string field has no terminating NUL");
	expect_error(fcb_struct(1, fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16LE, 0)),
		     0, B('A', 0, 0), 0, "string field has no terminating NUL");
	expect_error(fcb_struct(1, fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0)),
		     0, B('A', 'B'), 0, "string field has no terminating NUL");
	/* A static length that is not whole code units, with no NUL unit before. */
	expect_error(fcb_struct(1, fcb_string(TMX_STR_STATIC, TMX_STR_UTF16LE, 3)),
		     0, B('A', 0, 'B', 0), 2, "string field ends with a partial code unit");
	expect_error(fcb_struct(1, fcb_string(TMX_STR_STATIC, TMX_STR_UTF32BE, 8)),
		     0, B(0, 0, 0, 'A'), 0, "string field needs 8 bytes but only 4 remain");
}

/* Many transcoded strings in one event: their text must stay where it is. */
static void test_many_transcoded(void **state)
{
	enum { N = 3000 };
	uint8_t *data = malloc(N * 6 + 20000);
	size_t len = 0;
	struct run r;

	(void)state;
	assert_non_null(data);
	for (int i = 0; i < N; i++) {
		/* "a", "b"... then a NUL unit */
		const uint8_t s[] = { (uint8_t)('a' + i % 26), 0, (uint8_t)('A' + i % 26), 0, 0, 0 };
		memcpy(data + len, s, sizeof(s));
		len += sizeof(s);
	}
	/* One long string (5000 units, more than the first chunks hold). */
	for (int i = 0; i < 5000; i++) {
		data[len++] = 0xE9;
		data[len++] = 0;
	}
	data[len++] = 0;
	data[len++] = 0;
	run_case(&r, fcb_struct(2, fcb_array(fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16LE, 0),
					     N, -1),
				fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16LE, 0)),
		 0, data, len);
	assert_int_equal(r.ret, TMX_OK);
	for (int i = 0; i < N; i++) {
		char s[3] = { (char)('a' + i % 26), (char)('A' + i % 26), 0 };
		expect_str(&r.v[2 + i], s);
	}
	assert_int_equal(r.v[2 + N].str.len, 10000);
	for (int i = 0; i < 5000; i++)
		assert_memory_equal(r.v[2 + N].str.ptr + 2 * i, "\xC3\xA9", 2);
	run_fini(&r);
	free(data);
}

/* ---- BLOBs ---- */

static void test_blobs(void **state)
{
	struct run r;

	(void)state;
	run_case(&r, fcb_struct(6, fcb_blob(3, -1), fcb_blob(0, -1), fcb_slot(fcb_u8(), 0),
				fcb_blob(0, 0), fcb_slot(fcb_u8(), 1), fcb_blob(0, 1)),
		 2, B(1, 2, 3, 0, 4, 0xDE, 0xAD, 0xBE, 0xEF));
	assert_int_equal(r.ret, TMX_OK);
	assert_int_equal(r.v[1].str.len, 3);
	assert_ptr_equal(r.v[1].str.ptr, (const char *)r.d[0].base);
	assert_int_equal(r.v[2].str.len, 0);
	assert_int_equal(r.v[4].str.len, 0);
	assert_int_equal(r.v[6].str.len, 4);
	assert_memory_equal(r.v[6].str.ptr, "\xDE\xAD\xBE\xEF", 4);
	assert_false(r.more_after);
	run_fini(&r);
	expect_error(fcb_struct(2, fcb_slot(fcb_u8(), 0), fcb_blob(0, 0)), 1, B(9, 1, 2), 1,
		     "BLOB field needs 9 bytes but only 2 remain");
	expect_error(fcb_struct(2, fcb_u8(), fcb_blob(4, -1)), 0, B(9, 1, 2), 1,
		     "BLOB field needs 4 bytes but only 2 remain");
}

/* ---- optionals ---- */

static void check_optional(struct tmx_field_class *sel, size_t n_ranges, const int64_t *bounds,
			   const uint8_t *data, size_t len, bool present)
{
	struct run r;

	run_case(&r, fcb_struct(3, fcb_slot(sel, 0),
				fcb_optional(sel, 0, fcb_fixed(TMX_FC_INT, 16, TMX_BO_BE, false,
							       false, 8), n_ranges, bounds),
				fcb_u8()),
		 1, data, len);
	assert_int_equal(r.ret, TMX_OK);
	assert_int_equal(r.v[2].present, present);
	if (present) {
		assert_int_equal(r.v[3].u, 0x0102);
		assert_int_equal(r.v[4].u, 0x5A);
	} else {
		assert_int_equal(r.v[3].u, 0x01);
	}
	run_fini(&r);
}

static void test_optionals(void **state)
{
	static const int64_t uranges[] = { 1, 3, 10, 10 };
	static const int64_t sranges[] = { -5, -1 };
	static const int64_t vranges[] = { -300, -200 };

	(void)state;
	/* Boolean selectors: present when true. */
	check_optional(fcb_fixed(TMX_FC_BOOL, 8, TMX_BO_LE, false, false, 8), 0, NULL,
		       B(1, 1, 2, 0x5A), true);
	check_optional(fcb_fixed(TMX_FC_BOOL, 8, TMX_BO_LE, false, false, 8), 0, NULL,
		       B(0, 1, 2), false);
	check_optional(fcb_fixed(TMX_FC_BOOL, 16, TMX_BO_BE, true, false, 8), 0, NULL,
		       B(0, 0x80, 1, 2, 0x5A), true);
	/* Integer selectors: present when in the ranges. */
	check_optional(fcb_u8(), 2, uranges, B(10, 1, 2, 0x5A), true);
	check_optional(fcb_u8(), 2, uranges, B(4, 1, 2), false);
	check_optional(fcb_u8(), 2, uranges, B(0, 1, 2), false);
	check_optional(fcb_i8(), 1, sranges, B(0xFE, 1, 2, 0x5A), true);
	check_optional(fcb_i8(), 1, sranges, B(0x02, 1, 2), false);
	check_optional(fcb_i8(), 1, sranges, B(0xFA, 1, 2), false);
	check_optional(fcb_varint(true), 1, vranges, B(0x80, 0x7E, 1, 2, 0x5A), true);
	check_optional(fcb_varint(true), 1, vranges, B(0x80, 0x7D, 1, 2), false);
}

/* ---- variants ---- */

static struct tmx_field_class *selector_variant(struct tmx_field_class *sel)
{
	static const int64_t bounds[] = { -10, -1, 0, 0, 1, 9, 10, 19, 64, 300 };
	struct tmx_field_class *opts[] = {
		fcb_u8(),
		fcb_blob(2, -1),
		fcb_fixed(TMX_FC_INT, 16, TMX_BO_LE, false, false, 8),
		fcb_string(TMX_STR_STATIC, TMX_STR_UTF8, 4),
		fcb_struct(0),
	};

	return fcb_struct(2, fcb_slot(sel, 0), fcb_variant(sel, 0, 5, opts, bounds));
}

static void check_variant(struct tmx_field_class *sel, const uint8_t *data, size_t len,
			  uint32_t option, size_t at)
{
	struct run r;

	run_case(&r, selector_variant(sel), 1, data, len);
	assert_int_equal(r.ret, TMX_OK);
	assert_int_equal(r.v[2].option, option);
	assert_int_equal(r.d[0].pos, 8 * at);
	run_fini(&r);
}

static void test_variants(void **state)
{
	(void)state;
	/* Unsigned selectors: below the plan's table and above. */
	check_variant(fcb_u8(), B(5, 0x34, 0x12), 2, 3);
	check_variant(fcb_u8(), B(0, 7, 7), 1, 3);
	check_variant(fcb_u8(), B(12, 'a', 'b', 'c', 'd'), 3, 5);
	check_variant(fcb_u8(), B(200), 4, 1);
	expect_error(selector_variant(fcb_u8()), 1, B(20, 0), 1,
		     "variant selector `sel` value 20 selects no option");
	/* Signed selectors: negative values are raw bits above the table. */
	check_variant(fcb_i8(), B(0xFD, 0x33), 0, 2);
	check_variant(fcb_i8(), B(0x0A, 'a', 'b', 'c', 'd'), 3, 5);
	check_variant(fcb_i8(), B(64), 4, 1);
	expect_error(selector_variant(fcb_i8()), 1, B(0x80), 1,
		     "variant selector `sel` value -128 selects no option");
	expect_error(selector_variant(fcb_i8()), 1, B(0xF5), 1, "value -11 selects no option");
	/* Variable-length selectors. */
	check_variant(fcb_varint(true), B(0x7F, 0x44), 0, 2);
	check_variant(fcb_varint(false), B(0xAC, 0x02), 4, 2);
	expect_error(selector_variant(fcb_varint(false)), 1, B(0xAD, 0x02), 2,
		     "value 301 selects no option");
}

/* ---- CTF 1.8: an empty array aligned past the end of the content ---- */

/*
 * Payload { u8 x; u8 n; u64 seq[n] (64-bit aligned) }: the payload is
 * 64-bit aligned, so x, n are at bytes 16, 17 of a packet whose content
 * ends at byte 18 (bit 144); the empty sequence would align to byte 24.
 */
static const char empty_array_tsdl[] =
	"/* CTF 1.8 */\n"
	"typealias integer { size = 8; align = 8; } := u8;\n"
	"typealias integer { size = 32; align = 8; } := u32;\n"
	"typealias integer { size = 64; align = 64; } := u64a;\n"
	"trace { major = 1; minor = 8; byte_order = le;\n"
	"  packet.header := struct { u32 magic; }; };\n"
	"stream { packet.context := struct { u32 packet_size; u32 content_size; };\n"
	"  event.header := struct { u8 id; }; };\n"
	"event { name = e; id = 0; fields := struct { u8 x; u8 n; u64a seq[n]; }; };\n"
	"event { name = f; id = 1; fields := struct { u8 x; u8 n; u64a seq[n]; u8 after; }; };\n";

/* A packet: header, context, an event of class `id` with x = 7 and n = 0, padding. */
static size_t empty_array_packet(uint8_t *p, uint8_t id, size_t content, size_t total)
{
	const uint8_t head[] = { 0xC1, 0x1F, 0xFC, 0xC1 };

	memset(p, 0, total);
	memcpy(p, head, 4);
	p[4] = (uint8_t)(total * 8);
	p[5] = (uint8_t)(total * 8 >> 8);
	p[8] = (uint8_t)(content * 8);
	p[9] = (uint8_t)(content * 8 >> 8);
	p[12] = id;
	p[16] = 7;
	p[17] = 0;
	return total;
}

static void test_ctf18_empty_array_at_end(void **state)
{
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_error err = { 0 };
	uint8_t data[64];
	size_t len = 0;

	(void)state;
	tmx_arena_init(&arena);
	if (ctf_metadata_parse(empty_array_tsdl, strlen(empty_array_tsdl), "tsdl", NULL, &arena,
			       &tc, &err))
		fail_msg("%s", err.msg);
	/* Content of 18 bytes in a 32-byte packet, then one of 18 bytes exactly. */
	len += empty_array_packet(data + len, 0, 18, 32);
	len += empty_array_packet(data + len, 0, 18, 18);
	for (int walk = 0; walk < 2; walk++) {
		struct ctf_decoder d;
		struct ctf_packet_info info;
		uint64_t off = 0;

		assert_int_equal(ctf_decoder_init(&d, tc, "empty", data, len, &err), TMX_OK);
		d.walk_only = walk;
		for (int pkt = 0; pkt < 2; pkt++) {
			const struct tmx_event_class *ec;
			size_t scopes[TMX_N_SCOPES];
			const struct tmx_value *v;
			bool more;

			assert_int_equal(ctf_decode_packet_start(&d, off, &info, &err), TMX_OK);
			if (ctf_decode_event(&d, &more, info.sc, &ec, scopes, &err))
				fail_msg("packet %d: %s", pkt, err.msg);
			assert_true(more);
			v = &d.event.v[scopes[TMX_SCOPE_PAYLOAD]];
			assert_int_equal(v[1].u, 7);
			assert_int_equal(v[2].u, 0);
			assert_int_equal(v[3].count, 0);
			/* Stopped at the content's end: the packet has no more events. */
			assert_int_equal(d.pos, 144);
			assert_int_equal(ctf_decode_event(&d, &more, info.sc, &ec, scopes, &err),
					 TMX_OK);
			assert_false(more);
			off += info.packet_bits / 8;
		}
		ctf_decoder_fini(&d);
	}
	/* A field that reads something after the empty array: an error at the content's end. */
	len = empty_array_packet(data, 1, 18, 32);
	for (int walk = 0; walk < 2; walk++) {
		struct ctf_decoder d;
		struct ctf_packet_info info;
		const struct tmx_event_class *ec;
		size_t scopes[TMX_N_SCOPES];
		bool more;

		assert_int_equal(ctf_decoder_init(&d, tc, "empty", data, len, &err), TMX_OK);
		d.walk_only = walk;
		assert_int_equal(ctf_decode_packet_start(&d, 0, &info, &err), TMX_OK);
		assert_int_equal(ctf_decode_event(&d, &more, info.sc, &ec, scopes, &err),
				 TMX_ERR_DATA);
		assert_int_equal(err.offset, 18);
		assert_non_null(strstr(err.msg, "integer field needs 8 bits but only 0 remain"));
		ctf_decoder_fini(&d);
	}
	tmx_arena_free(&arena);
}

/* CTF 2 keeps the alignment past the content an error (spec 6.4.1). */
static void test_ctf2_empty_array_at_end(void **state)
{
	(void)state;
	expect_error(fcb_struct(3, fcb_slot(fcb_u8(), 0), fcb_u8(),
				fcb_array(fcb_fixed(TMX_FC_INT, 64, TMX_BO_LE, false, false, 64), 0, 0)),
		     1, B(0, 0), 2, "alignment to 64 bits goes past the end of the packet content");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bit_orders),
		cmocka_unit_test(test_bit_order_aligned),
		cmocka_unit_test(test_bool_selector_bits),
		cmocka_unit_test(test_byte_order_change),
		cmocka_unit_test(test_byte_order_change_across_empty),
		cmocka_unit_test(test_varint_unsigned),
		cmocka_unit_test(test_varint_signed),
		cmocka_unit_test(test_varint_errors),
		cmocka_unit_test(test_varint_length),
		cmocka_unit_test(test_varint_clock),
		cmocka_unit_test(test_utf8_strings),
		cmocka_unit_test(test_utf16_strings),
		cmocka_unit_test(test_utf32_strings),
		cmocka_unit_test(test_string_errors),
		cmocka_unit_test(test_many_transcoded),
		cmocka_unit_test(test_blobs),
		cmocka_unit_test(test_optionals),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_ctf18_empty_array_at_end),
		cmocka_unit_test(test_ctf2_empty_array_at_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
