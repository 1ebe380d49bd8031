/*
 * tcr_parse_kallsyms() (src/tools/tracecmd/kallsyms.c) against
 * libtraceevent's tep_parse_kallsyms() on texts with lines of the usual
 * shape and of every other shape sscanf() reads its own way: the same
 * result and the same function map (tep_print_funcs(): addresses, names,
 * modules, in libtraceevent's order).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event-parse.h>

#include "tools/tracecmd/kallsyms.h"

static const char *const texts[] = {
	/* the usual shapes */
	"ffffffff81000000 T _stext\n"
	"ffffffff81000010 t early_idt_handler\n"
	"ffffffffc0a01000 t nf_hook\t[nf_tables]\n"
	"ffffffffc0a02000 T nft_do_chain\t[nf_tables]\n"
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000001000 a absolute_low\n"
	"ffffffff81001000 t $x.12\n"
	"FFFFFFFF81002000 W UpperHex\n"
	"1 t one_digit\n",
	/* what sscanf reads its own way */
	"ffffffff81000000 T  two_spaces\n"
	"ffffffff81000100 Tno_space\n"
	"ffffffff81000200 T trailing \n"
	"ffffffff81000300 T with_cr\r\n"
	"ffffffff81000400 T tab_no_module\textra\n"
	"ffffffff81000500 T space_module\t[ mod]\n"
	"ffffffff81000600 T one_char_module\t[x\n"
	"ffffffff81000700 T module_then_more\t[mod] more\n"
	"ffffffff81000800 T empty_module\t[\n"
	"0xffffffff81000900 T hex_prefix\n"
	"ffffffff810000a00 T seventeen_digits\n"
	"  ffffffff81000b00 T leading_spaces\n"
	"ffffffff81000c00\tT tab_separated\n"
	"\n\n"
	"ffffffff81000d00 T after_empty_lines\n",
	/* a line libtraceevent cannot read stops everything after it */
	"ffffffff81000000 T first\n"
	"not a symbol line\n"
	"ffffffff81000100 T never_registered\n",
	"ffffffff81000000 T first\n"
	"ffffffff81000100 T\n"
	"ffffffff81000200 T never_registered\n",
	"",
	"\n",
};

/* tep_print_funcs() of a fresh handle after parse(text), and parse's result. */
static char *funcs_after(int (*parse)(struct tep_handle *, const char *), const char *text,
			 int *ret)
{
	struct tep_handle *tep = tep_alloc();
	FILE *tmp = tmpfile();
	int saved = dup(1);
	char *out;
	long n;

	assert_non_null(tep);
	assert_non_null(tmp);
	*ret = parse(tep, text);
	fflush(stdout);
	dup2(fileno(tmp), 1);
	tep_print_funcs(tep);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = ftell(tmp);
	out = calloc(1, (size_t)n + 1);
	assert_non_null(out);
	rewind(tmp);
	assert_int_equal(fread(out, 1, (size_t)n, tmp), (size_t)n);
	fclose(tmp);
	tep_free(tep);
	return out;
}

static void test_same_map(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		int a, b;
		char *want = funcs_after(tep_parse_kallsyms, texts[i], &a);
		char *got = funcs_after(tcr_parse_kallsyms, texts[i], &b);

		if (strcmp(want, got) || a != b)
			fail_msg("text %zu:\nlibtraceevent (%d):\n%s\ntcr_parse_kallsyms (%d):\n%s", i, a,
				 want, b, got);
		free(want);
		free(got);
	}
}

/* Many usual lines, as in a real kallsyms: the map the same, in the same order. */
static void test_large(void **state)
{
	size_t cap = 1 << 20, len = 0;
	char *text = malloc(cap);
	int a, b;
	char *want, *got;

	(void)state;
	assert_non_null(text);
	for (unsigned i = 0; i < 20000; i++) {
		static const char types[] = "TtDdBbRrWwAa";
		/* equal addresses too: the order of registration decides among them */
		len += (size_t)snprintf(text + len, cap - len, "ffffffff%08x %c sym_%u%s\n",
					0x81000000u + (i / 3) * 16, types[i % 12], i,
					i % 7 ? "" : "\t[some_module]");
	}
	want = funcs_after(tep_parse_kallsyms, text, &a);
	got = funcs_after(tcr_parse_kallsyms, text, &b);
	assert_int_equal(a, b);
	assert_string_equal(want, got);
	free(want);
	free(got);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_map),
		cmocka_unit_test(test_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
