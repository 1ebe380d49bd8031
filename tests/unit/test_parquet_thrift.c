/*
 * Thrift's compact protocol as the Parquet writer writes it
 * (sink/parquet/thrift.c), against bytes worked out by hand from the
 * protocol's rules: field headers (short deltas, long form for jumps and
 * decreasing ids), zigzag varints, binaries, lists (short and long
 * headers), booleans in the header, nested structs restarting field ids,
 * unions as empty structs; and a whole FileMetaData footer
 * (sink/parquet/file.c) for a one-column schema.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sink/parquet/file.h"
#include "sink/parquet/schema.h"
#include "sink/parquet/thrift.h"
#include "tracemux/tracemux.h"

static void expect_bytes(const struct tmx_buf *b, const uint8_t *want, size_t n)
{
	assert_false(b->oom);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->p, want, n);
}

static void test_scalars(void **state)
{
	static const uint8_t want[] = {
		0x15, 0x02,             /* 1: i32 1 (delta 1, type 5; zigzag 2) */
		0x25, 0x01,             /* 3: i32 -1 (delta 2; zigzag 1) */
		0x15, 0xD8, 0x04,       /* 4: i32 300 (zigzag 600 = 0x258) */
		0x16, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40,  /* 5: i64 2^40 (zigzag 2^41) */
		0xF5, 0x00,             /* 20: i32 0, delta 15: still the short form */
		0x05, 0x48, 0x80, 0x02, /* 36: i32 128, delta 16: type 5, zigzag id 72, zigzag 256 */
		0x05, 0x06, 0x00,       /* 3 after 36: decreasing, long form (zigzag id 6) */
		0x00,                   /* stop */
	};
	struct tmx_buf b = { 0 };
	struct pq_thrift t;

	(void)state;
	pq_t_begin(&t, &b);
	pq_t_i32(&t, 1, 1);
	pq_t_i32(&t, 3, -1);
	pq_t_i32(&t, 4, 300);
	pq_t_i64(&t, 5, (int64_t)1 << 40);
	pq_t_i32(&t, 20, 0);
	pq_t_i32(&t, 36, 128);
	pq_t_i32(&t, 3, 0);
	pq_t_struct_end(&t);
	expect_bytes(&b, want, sizeof(want));
	tmx_buf_free(&b);
}

static void test_bools_binary_byte(void **state)
{
	static const uint8_t want[] = {
		0x11,                   /* 1: true (type 1 in the header) */
		0x12,                   /* 2: false (type 2) */
		0x13, 0xF0,             /* 3: i8 -16, one raw byte */
		0x18, 0x02, 'a', 'b',   /* 4: binary "ab" */
		0x18, 0x00,             /* 5: empty string */
		0x00,
	};
	struct tmx_buf b = { 0 };
	struct pq_thrift t;

	(void)state;
	pq_t_begin(&t, &b);
	pq_t_bool(&t, 1, true);
	pq_t_bool(&t, 2, false);
	pq_t_byte(&t, 3, -16);
	pq_t_binary(&t, 4, "ab", 2);
	pq_t_string(&t, 5, "");
	pq_t_struct_end(&t);
	expect_bytes(&b, want, sizeof(want));
	tmx_buf_free(&b);
}

static void test_lists_structs(void **state)
{
	static const uint8_t want[] = {
		0x19, 0x35, 0x00, 0x02, 0x01,   /* 1: list<i32> [0, 1, -1]: size 3, type 5 */
		0x19, 0xF5, 0x0F,               /* 2: list<i32> of 15: long header, varint size */
		0x00, 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E,
		0x10, 0x12, 0x14, 0x16, 0x18, 0x1A, 0x1C,
		0x19, 0x28, 0x01, 'x', 0x00,    /* 3: list<binary> ["x", ""] */
		0x1C,                           /* 4: struct */
		0x35, 0x0E,                     /*   3: i32 7 (ids restart at 0 inside) */
		0x1C, 0x00,                     /*   4: empty struct (a union's member) */
		0x00,                           /* end of 4 */
		0x19, 0x1C,                     /* 5: list<struct> of 1 */
		0x15, 0x04, 0x00,               /*   {1: i32 2} */
		0x16, 0x02,                     /* 6: i64 1: the outer struct's ids continue */
		0x00,
	};
	struct tmx_buf b = { 0 };
	struct pq_thrift t;

	(void)state;
	pq_t_begin(&t, &b);
	pq_t_list(&t, 1, PQ_T_I32, 3);
	pq_t_elem_i32(&t, 0);
	pq_t_elem_i32(&t, 1);
	pq_t_elem_i32(&t, -1);
	pq_t_list(&t, 2, PQ_T_I32, 15);
	for (int i = 0; i < 15; i++)
		pq_t_elem_i32(&t, i);
	pq_t_list(&t, 3, PQ_T_BINARY, 2);
	pq_t_elem_string(&t, "x");
	pq_t_elem_string(&t, "");
	pq_t_struct(&t, 4);
	pq_t_i32(&t, 3, 7);
	pq_t_empty(&t, 4);
	pq_t_struct_end(&t);
	pq_t_list(&t, 5, PQ_T_STRUCT, 1);
	pq_t_elem_struct(&t);
	pq_t_i32(&t, 1, 2);
	pq_t_struct_end(&t);
	pq_t_i64(&t, 6, 1);
	pq_t_struct_end(&t);
	expect_bytes(&b, want, sizeof(want));
	tmx_buf_free(&b);
}

/*
 * FileMetaData of a file without row groups whose schema is the root and
 * one required INT32 column `a` with logical type INT(32, signed).
 */
static void test_footer(void **state)
{
	static const char creator[] = "tracemux version " TRACEMUX_VERSION_STRING;
	static const uint8_t head[] = {
		0x15, 0x02,                         /* 1: version 1 */
		0x19, 0x2C,                         /* 2: schema, list<struct> of 2 */
		/* the root: 4: name, 5: num_children 1 */
		0x48, 0x06, 's', 'c', 'h', 'e', 'm', 'a', 0x15, 0x02, 0x00,
		/* `a`: 1: type INT32, 3: REQUIRED, 4: name, 6: INT_32 (17), 10: logical type */
		0x15, 0x02, 0x25, 0x00, 0x18, 0x01, 'a', 0x25, 0x22,
		0x4C,                               /* 10: LogicalType */
		0xAC,                               /*   10: INTEGER (IntType) */
		0x13, 0x20, 0x11, 0x00,             /*     1: bitWidth 32 (i8), 2: signed */
		0x00,                               /*   end of LogicalType */
		0x00,                               /* end of `a` */
		0x16, 0x00,                         /* 3: num_rows 0 */
		0x19, 0x0C,                         /* 4: row_groups, empty list<struct> */
		0x28, (uint8_t)(sizeof(creator) - 1), /* 6: created_by */
	};
	static const uint8_t tail[] = {
		0x19, 0x1C,                         /* 7: column_orders, 1 struct */
		0x1C, 0x00, 0x00,                   /*   {1: TYPE_ORDER {}} */
		0x00,                               /* end of FileMetaData */
	};
	struct pq_schema s;
	struct tmx_buf b = { 0 };

	(void)state;
	pq_schema_init(&s);
	assert_int_equal(pq_schema_leaf(&s, 0, "a", PQ_REQUIRED, pq_type_int(32, true)), 0);
	assert_true(pq_schema_finish(&s));
	pq_footer_thrift(&s, NULL, 0, &b);
	assert_int_equal(b.len, sizeof(head) + sizeof(creator) - 1 + sizeof(tail));
	assert_memory_equal(b.p, head, sizeof(head));
	assert_memory_equal(b.p + sizeof(head), creator, sizeof(creator) - 1);
	assert_memory_equal(b.p + sizeof(head) + sizeof(creator) - 1, tail, sizeof(tail));
	tmx_buf_free(&b);
	pq_schema_free(&s);
}

/* A LIST of optional strings and a TIMESTAMP(NANOS): groups, levels and their logical types. */
static void test_schema_levels(void **state)
{
	static const uint8_t ts_elem[] = {
		0x15, 0x04, 0x25, 0x02, 0x18, 0x02, 't', 's',   /* INT64, OPTIONAL, "ts" */
		0x6C,                                           /* 10: LogicalType (delta 6) */
		0x8C,                                           /*   8: TIMESTAMP */
		0x12,                                           /*     1: isAdjustedToUTC false */
		0x1C, 0x3C, 0x00, 0x00,                         /*     2: unit {3: NANOS {}} */
		0x00, 0x00, 0x00,
	};
	struct pq_schema s;
	struct tmx_buf b = { 0 };
	struct pq_thrift t;
	int g, list;

	(void)state;
	pq_schema_init(&s);
	pq_schema_leaf(&s, 0, "ts", PQ_OPTIONAL,
		       (struct pq_type){ .phys = PQ_INT64, .logical = PQ_LT_TIMESTAMP_NS });
	g = pq_schema_group(&s, 0, "names", PQ_OPTIONAL, PQ_LT_LIST);
	list = pq_schema_group(&s, g, "list", PQ_REPEATED, PQ_LT_NONE);
	assert_int_equal(pq_schema_leaf(&s, list, "element", PQ_OPTIONAL, pq_type_string()), 1);
	assert_true(pq_schema_has_child(&s, 0, "names"));
	assert_false(pq_schema_has_child(&s, 0, "list"));
	assert_true(pq_schema_finish(&s));
	assert_int_equal(s.n_cols, 2);
	assert_int_equal(s.max_def[0], 1);
	assert_int_equal(s.max_rep[0], 0);
	assert_int_equal(s.max_def[1], 3);
	assert_int_equal(s.max_rep[1], 1);
	assert_int_equal(s.elems[0].n_children, 2);
	pq_t_begin(&t, &b);
	pq_schema_thrift(&s, &t);
	/* 5 elements (header 0x5C), the root (11 bytes), then `ts` as worked out above. */
	assert_memory_equal(b.p, ((const uint8_t[]){ 0x29, 0x5C }), 2);
	assert_memory_equal(b.p + 2 + 11, ts_elem, sizeof(ts_elem));
	b.len = 0;
	pq_t_begin(&t, &b);
	pq_schema_path_thrift(&s, 1, &t, 3);
	expect_bytes(&b, (const uint8_t[]){ 0x39, 0x38, 5, 'n', 'a', 'm', 'e', 's', 4, 'l', 'i', 's', 't',
					    7, 'e', 'l', 'e', 'm', 'e', 'n', 't' }, 21);
	tmx_buf_free(&b);
	pq_schema_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_bools_binary_byte),
		cmocka_unit_test(test_lists_structs),
		cmocka_unit_test(test_footer),
		cmocka_unit_test(test_schema_levels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
