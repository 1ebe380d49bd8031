/*
 * Which files are taken for llvm-xray's YAML traces (src/xray/yaml_in.c):
 * what `llvm-xray convert --output-format=yaml` writes, and the same with
 * comments, directives, a BOM, quoted keys, flow style; not binary XRay
 * logs, trace.dat files or other text.  A head of nothing but comments is
 * left to the parser unless it is the whole file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "xray/xray.h"

static bool yaml(const char *s, bool whole)
{
	return tmx_xray_looks_like_yaml((const unsigned char *)s, strlen(s), whole);
}

static void test_traces(void **state)
{
	(void)state;
	assert_true(yaml("---\nheader:\n  version:         1\n", true));
	assert_true(yaml("---", true));
	assert_true(yaml("--- !trace\n", true));
	assert_true(yaml("header: { version: 1 }\n", true));
	assert_true(yaml("records: []\nheader: {}\n", true));
	assert_true(yaml("'header' : {}\n", true));
	assert_true(yaml("\"records\":\n", true));
	assert_true(yaml("{ header: {}, records: [] }", true));
	assert_true(yaml("# made by hand\n\n%YAML 1.1\n---\n", true));
	assert_true(yaml("\xEF\xBB\xBF---\n", true));
	assert_true(yaml("  \t\r\n---\n", true));
}

static void test_not_traces(void **state)
{
	(void)state;
	assert_false(yaml("", true));
	assert_false(yaml("just some notes\n", true));
	assert_false(yaml("headers: 1\n", true));
	assert_false(yaml("header\n", true));
	assert_false(yaml("'header: 1\n", true));
	assert_false(yaml("----\n", true));
	assert_false(yaml("- 1\n", true));
	assert_false(yaml("#!/bin/sh\necho hi\n", true));
	/* Comments alone: nothing in the whole file, maybe more after a head. */
	assert_false(yaml("# only a comment\n", true));
	assert_true(yaml("# only a comment\n", false));
}

static void test_binary(void **state)
{
	static const unsigned char fdr_v5[32] = { 5, 0, 1, 0, 3 };
	static const unsigned char tracedat[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n',
						    'g' };

	(void)state;
	assert_false(tmx_xray_looks_like_yaml(fdr_v5, sizeof(fdr_v5), true));
	assert_false(tmx_xray_looks_like_yaml(tracedat, sizeof(tracedat), true));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_traces),
		cmocka_unit_test(test_not_traces),
		cmocka_unit_test(test_binary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
