/*
 * The Perfetto output's protocol buffers writer (sink/perfetto/pb.c)
 * against bytes worked out by hand from the wire format's rules:
 * varints (one, two, ten bytes), negative int64 as ten bytes, zig-zag,
 * tags of large field numbers, strings, doubles, nested messages whose
 * one-byte length placeholder is backpatched (and grown, moving the body,
 * inside an outer message that then grows too), packed fields.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sink/perfetto/pb.h"

static void expect_bytes(struct tmx_buf *b, const uint8_t *want, size_t n)
{
	assert_false(b->oom);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->p, want, n);
	tmx_buf_free(b);
}

static void test_varints(void **state)
{
	static const uint8_t want[] = {
		0x08, 0x96, 0x01,        /* 1: 150 = 0b1_0010110 -> 0x96 0x01 */
		0x10, 0x00,              /* 2: 0 */
		0x18, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, /* 3: int64 -1 */
		0x20, 0x01,              /* 4: sint -1 -> zigzag 1 */
		0x20, 0x02,              /* 4: sint 1 -> 2 */
		0x20, 0x7F,              /* 4: sint -64 -> 127 */
		0x20, 0x80, 0x01,        /* 4: sint 64 -> 128 */
		0x80, 0x01, 0x01,        /* 16: tag 128 takes two bytes */
		0x80, 0x80, 0x20, 0x2A,  /* 65536: tag 2^19 = 0x80 0x80 0x20, value 42 */
		0x09, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F,  /* 1: double 1.0, fixed64 LE */
	};
	struct tmx_buf b = { 0 };

	(void)state;
	pb_uint(&b, 1, 150);
	pb_uint(&b, 2, 0);
	pb_int(&b, 3, -1);
	pb_sint(&b, 4, -1);
	pb_sint(&b, 4, 1);
	pb_sint(&b, 4, -64);
	pb_sint(&b, 4, 64);
	pb_uint(&b, 16, 1);
	pb_uint(&b, 65536, 42);
	pb_double(&b, 1, 1.0);
	expect_bytes(&b, want, sizeof(want));
	assert_int_equal(pb_zigzag(INT64_MIN), UINT64_MAX);
	assert_int_equal(pb_zigzag(INT64_MAX), UINT64_MAX - 1);
	assert_int_equal(pb_varint_size(127), 1);
	assert_int_equal(pb_varint_size(128), 2);
	assert_int_equal(pb_varint_size(UINT64_MAX), 10);
}

static void test_strings_nested(void **state)
{
	static const uint8_t want[] = {
		0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',  /* 2: "testing" */
		0x1A, 0x03, 0x08, 0x96, 0x01,                   /* 3: { 1: 150 } */
		0x22, 0x00,                                     /* 4: {} */
		0x2A, 0x04, 0x0A, 0x02, 0x08, 0x01,             /* 5: { 1: { 1: 1 } } */
	};
	struct tmx_buf b = { 0 };
	size_t at, in;

	(void)state;
	pb_string(&b, 2, "testing");
	at = pb_open(&b, 3);
	pb_uint(&b, 1, 150);
	pb_close(&b, at);
	pb_close(&b, pb_open(&b, 4));
	at = pb_open(&b, 5);
	in = pb_open(&b, 1);
	pb_uint(&b, 1, 1);
	pb_close(&b, in);
	pb_close(&b, at);
	expect_bytes(&b, want, sizeof(want));
}

/* Lengths of 128 bytes and more: the placeholder grows and the body moves. */
static void test_long_nested(void **state)
{
	uint8_t want[3 + 3 + 3 + 200 + 2];
	struct tmx_buf b = { 0 };
	char text[200];
	size_t at, in;

	(void)state;
	memset(text, 'a', sizeof(text));
	/* 1: { 2: { 3: 200 x 'a' } 4: 5 }: the inner body is 3 + 200 = 203 bytes
	 * (varint 0xCB 0x01), the outer one 2 + 203 + 1 + 2 = 208 (0xD0 0x01). */
	want[0] = 0x0A, want[1] = 0xD0, want[2] = 0x01;
	want[3] = 0x12, want[4] = 0xCB, want[5] = 0x01;
	want[6] = 0x1A, want[7] = 0xC8, want[8] = 0x01;   /* 200 = 0xC8 0x01 */
	memset(want + 9, 'a', 200);
	want[209] = 0x20, want[210] = 0x05;
	at = pb_open(&b, 1);
	in = pb_open(&b, 2);
	pb_bytes(&b, 3, text, sizeof(text));
	pb_close(&b, in);
	pb_uint(&b, 4, 5);
	pb_close(&b, at);
	expect_bytes(&b, want, sizeof(want));
}

static void test_packed(void **state)
{
	/* The protobuf documentation's example: 4: [3, 270, 86942] packed. */
	static const uint8_t want[] = { 0x22, 0x06, 0x03, 0x8E, 0x02, 0x9E, 0xA7, 0x05 };
	static const uint64_t v[] = { 3, 270, 86942 };
	struct tmx_buf b = { 0 };

	(void)state;
	pb_packed(&b, 4, v, 3);
	pb_packed(&b, 5, v, 0);   /* empty: nothing at all */
	expect_bytes(&b, want, sizeof(want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_strings_nested),
		cmocka_unit_test(test_long_nested),
		cmocka_unit_test(test_packed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
