/*
 * tracefs `format` files and header_page as trace.dat files carry them:
 * field layouts (static and symbolic arrays, flexible char arrays,
 * __data_loc / __rel_loc strings and arrays, pointers, longs), common
 * fields, print fmt kept verbatim, and malformed files refused with a
 * reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tracecmd/internal.h"

static const struct tdat_event *parse_ok(struct tmx_arena *a, const char *text, uint32_t klong)
{
	const struct tdat_event *ev = NULL;
	const char *why = NULL;
	if (tdat_parse_format(a, "sys", text, strlen(text), klong, &ev, &why))
		fail_msg("parse: %s", why ? why : "?");
	assert_non_null(ev);
	return ev;
}

static const struct tdat_field *field(const struct tdat_event *ev, const char *name)
{
	for (size_t i = 0; i < ev->n_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	fail_msg("no field %s", name);
	return NULL;
}

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

static void test_kinds(void **s)
{
	struct tmx_arena a;
	const struct tdat_event *ev;
	const struct tdat_field *f;
	static const char text[] =
		"name: kinds\nID: 1234\nformat:\n" COMMON "\n"
		"\tfield:char comm[TASK_COMM_LEN];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:unsigned long args[6];\toffset:24;\tsize:24;\tsigned:0;\n"
		"\tfield:void * ptr;\toffset:48;\tsize:4;\tsigned:0;\n"
		"\tfield:long ret;\toffset:52;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] name;\toffset:56;\tsize:4;\tsigned:0;\n"
		"\tfield:__rel_loc char[] rel;\toffset:60;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc cpumask_t mask;\toffset:64;\tsize:4;\tsigned:0;\n"
		"\tfield:__data_loc unsigned long[] ips;\toffset:68;\tsize:4;\tsigned:0;\n"
		"\tfield:char buf[];\toffset:72;\tsize:0;\tsigned:0;\n"
		"\n"
		"print fmt: \"comm=%s ret=%ld\", REC->comm, REC->ret\n";
	(void)s;

	tmx_arena_init(&a);
	ev = parse_ok(&a, text, 4);
	assert_int_equal(ev->id, 1234);
	assert_string_equal(ev->name, "kinds");
	assert_string_equal(ev->system, "sys");
	assert_int_equal(ev->n_common, 4);
	assert_int_equal(ev->n_fields, 13);
	assert_true(ev->fields[3].flags & TDAT_FIELD_SIGNED);
	assert_true(ev->fields[3].flags & TDAT_FIELD_COMMON);
	assert_false(ev->fields[4].flags & TDAT_FIELD_COMMON);
	/* Symbolic length: bytes, a string. */
	f = field(ev, "comm");
	assert_int_equal(f->flags & (TDAT_FIELD_ARRAY | TDAT_FIELD_STRING), TDAT_FIELD_ARRAY | TDAT_FIELD_STRING);
	assert_int_equal(f->elem_size, 1);
	assert_int_equal(f->count, 16);
	/* 4-byte longs. */
	f = field(ev, "args");
	assert_int_equal(f->count, 6);
	assert_int_equal(f->elem_size, 4);
	assert_false(f->flags & TDAT_FIELD_STRING);
	assert_true(field(ev, "ptr")->flags & TDAT_FIELD_POINTER);
	assert_true(field(ev, "ret")->flags & TDAT_FIELD_LONG);
	f = field(ev, "name");
	assert_int_equal(f->flags & (TDAT_FIELD_DYNAMIC | TDAT_FIELD_STRING | TDAT_FIELD_RELATIVE),
			 TDAT_FIELD_DYNAMIC | TDAT_FIELD_STRING);
	assert_string_equal(f->type, "__data_loc char[]");
	f = field(ev, "rel");
	assert_true(f->flags & TDAT_FIELD_RELATIVE);
	assert_true(f->flags & TDAT_FIELD_STRING);
	f = field(ev, "mask");
	assert_true(f->flags & TDAT_FIELD_DYNAMIC);
	assert_false(f->flags & TDAT_FIELD_STRING);
	assert_int_equal(f->elem_size, 1);
	f = field(ev, "ips");
	assert_int_equal(f->elem_size, 4);
	f = field(ev, "buf");
	assert_int_equal(f->size, 0);
	assert_true(f->flags & TDAT_FIELD_STRING);
	/* The print fmt, verbatim, without the final newline. */
	assert_int_equal(ev->print_fmt.len, strlen("\"comm=%s ret=%ld\", REC->comm, REC->ret"));
	assert_memory_equal(ev->print_fmt.ptr, "\"comm=%s ret=%ld\", REC->comm, REC->ret",
			    ev->print_fmt.len);
	assert_ptr_equal(ev->format.ptr, text);
	tmx_arena_free(&a);
}

static void test_no_blank_line(void **s)
{
	struct tmx_arena a;
	const struct tdat_event *ev;
	static const char text[] =
		"name: old\nID: 7\nformat:\n" COMMON
		"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n"
		"print fmt: \"x=%d\", REC->x\n";
	(void)s;

	tmx_arena_init(&a);
	ev = parse_ok(&a, text, 8);
	assert_int_equal(ev->n_fields, 5);
	assert_int_equal(ev->n_common, 4);
	assert_false(ev->fields[4].flags & TDAT_FIELD_COMMON);
	tmx_arena_free(&a);
}

static void test_refused(void **s)
{
	static const struct { const char *text; const char *why; } bad[] = {
		{ "name: x\nformat:\n" COMMON, "ID" },
		{ "ID: 3\nformat:\n" COMMON, "name" },
		{ "name: x\nID: 3\nformat:\n\tfield:int a;\tsize:4;\tsigned:1;\n", "offset" },
		{ "name: x\nID: 3\nformat:\n\tfield:int a\toffset:1;\tsize:4;\n", "name" },
		{ "name: x\nID: 3\nformat:\n\tfield:int a\toffset:1\tsize:4\n", "';'" },
		{ "name: x\nID: 3\nformat:\n\tfield:;\toffset:1;\tsize:4;\n", "empty" },
		{ "name: x\nID: 3\nformat:\n\tfield:int a[;\toffset:1;\tsize:4;\n", "name" },
		{ "name: x\nID: 3\nformat:\n\tfield:int a;\toffset:4294967295;\tsize:4;\n", "large" },
		{ "name: x\nID: 99999999999\nformat:\n", "ID" },
	};
	(void)s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tmx_arena a;
		const struct tdat_event *ev = NULL;
		const char *why = NULL;
		tmx_arena_init(&a);
		assert_int_not_equal(tdat_parse_format(&a, "s", bad[i].text, strlen(bad[i].text), 8, &ev,
						       &why), 0);
		assert_null(ev);
		assert_non_null(why);
		if (!strstr(why, bad[i].why))
			fail_msg("case %zu: reason %s, expected %s", i, why, bad[i].why);
		tmx_arena_free(&a);
	}
}

static void test_header_page(void **s)
{
	static const char hp4[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
	static const char bad[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:2;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
	uint32_t ls = 0, off = 0;
	(void)s;
	assert_true(tdat_parse_header_page(hp4, strlen(hp4), &ls, &off));
	assert_int_equal(ls, 4);
	assert_int_equal(off, 12);
	assert_false(tdat_parse_header_page(bad, strlen(bad), &ls, &off));
	assert_false(tdat_parse_header_page("", 0, &ls, &off));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_no_blank_line),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_header_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
