/*
 * The growable byte buffer (common/buf.h) on borrowed room
 * (tmx_buf_borrow): bytes written where the room is while they fit, moved
 * with everything written so far to memory of the buffer's own when they
 * outgrow it, the room itself never reallocated nor freed (ASan would
 * catch either: the room here is an array on the stack).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/buf.h"

static void test_borrow_fits(void **state)
{
	uint8_t room[64];
	struct tmx_buf b;

	(void)state;
	memset(room, 0xEE, sizeof(room));
	tmx_buf_borrow(&b, room, sizeof(room));
	tmx_buf_put(&b, "hello", 5);
	tmx_buf_le(&b, 0x0102030405060708ull, 8);
	assert_true(b.borrowed);
	assert_false(b.oom);
	assert_ptr_equal(b.p, room);
	assert_int_equal(b.len, 13);
	assert_memory_equal(room, "hello\x08\x07\x06\x05\x04\x03\x02\x01", 13);
	assert_int_equal(room[13], 0xEE);   /* nothing past what was written */
	tmx_buf_free(&b);   /* not the buffer's to free */
	assert_null(b.p);
	assert_false(b.borrowed);
}

static void test_borrow_outgrown(void **state)
{
	uint8_t room[16], want[1000];
	struct tmx_buf b;

	(void)state;
	for (size_t i = 0; i < sizeof(want); i++)
		want[i] = (uint8_t)(i * 7);
	memset(room, 0, sizeof(room));
	tmx_buf_borrow(&b, room, sizeof(room));
	tmx_buf_put(&b, want, 10);          /* fits */
	assert_ptr_equal(b.p, room);
	tmx_buf_put(&b, want + 10, 990);    /* does not: moves */
	assert_false(b.oom);
	assert_false(b.borrowed);
	assert_ptr_not_equal(b.p, room);
	assert_int_equal(b.len, sizeof(want));
	assert_true(b.cap >= sizeof(want));
	assert_memory_equal(b.p, want, sizeof(want));
	/* The room keeps what was written there. */
	assert_memory_equal(room, want, 10);
	/* From now on an ordinary buffer, grown and freed as any. */
	tmx_buf_put(&b, want, sizeof(want));
	assert_int_equal(b.len, 2 * sizeof(want));
	assert_memory_equal(b.p + sizeof(want), want, sizeof(want));
	tmx_buf_free(&b);
}

/* A reserve that cannot be met fails as any out-of-memory does, the room left alone. */
static void test_borrow_too_much(void **state)
{
	uint8_t room[16];
	struct tmx_buf b;

	(void)state;
	tmx_buf_borrow(&b, room, sizeof(room));
	tmx_buf_byte(&b, 1);
	assert_false(tmx_buf_reserve(&b, SIZE_MAX));
	assert_true(b.oom);
	assert_true(b.borrowed);
	assert_ptr_equal(b.p, room);
	tmx_buf_byte(&b, 2);   /* nothing more appended after a failure */
	assert_int_equal(b.len, 1);
	tmx_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_borrow_fits),
		cmocka_unit_test(test_borrow_outgrown),
		cmocka_unit_test(test_borrow_too_much),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
