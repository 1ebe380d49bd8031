/*
 * The compiled print fmts of -o tracecmd (src/tools/tracecmd/fastfmt.c)
 * against libtraceevent itself: for hand-written event formats and many
 * generated records (both byte orders), tcf_render() must give exactly
 * what tep_print_event(TEP_PRINT_INFO) gives; and the print fmts outside
 * the compiled subset must not be compiled at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event-parse.h>
#include <trace-seq.h>

#include "tools/tracecmd/fastfmt.h"
#include "xorshift.h"

/* Payload layout shared by the test formats (offsets in the record). */
#define OFF_A 8       /* int */
#define OFF_B 12      /* unsigned int */
#define OFF_C 16      /* long */
#define OFF_D 24      /* unsigned long */
#define OFF_E 32      /* short */
#define OFF_F 34      /* unsigned char */
#define OFF_COMM 35   /* char[16] */
#define OFF_ARGS 56   /* unsigned long[3] */
#define OFF_NAME 80   /* __data_loc char[] */
#define OFF_RNAME 84  /* __rel_loc char[] */
#define OFF_G 88      /* signed char */
#define OFF_H 90      /* unsigned short */
#define FIXED 96

static const char fields[] =
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int b;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:long c;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:unsigned long d;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:short e;\toffset:32;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned char f;\toffset:34;\tsize:1;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:35;\tsize:16;\tsigned:0;\n"
	"\tfield:unsigned long args[3];\toffset:56;\tsize:24;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:80;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rname;\toffset:84;\tsize:4;\tsigned:0;\n"
	"\tfield:signed char g;\toffset:88;\tsize:1;\tsigned:1;\n"
	"\tfield:unsigned short h;\toffset:90;\tsize:2;\tsigned:0;\n"
	"\n";

/* Print fmts that must compile (and then render exactly as libtraceevent). */
static const char *const compiled[] = {
	"\"a=%d b=%u c=%ld d=%lu e=%d f=%u comm=%s\", REC->a, REC->b, REC->c, REC->d, REC->e, REC->f, REC->comm",
	"\"NR %ld (%lx, %lx, %lx)\", REC->c, REC->args[0], REC->args[1], REC->args[2]",
	"\"[%5d|%-5d|%05d|%x|%X|%08lx|%-10s|%10s|%i|%lld|%llu|%zu]\", REC->a, REC->a, REC->a, REC->b, REC->b, REC->d, REC->comm, REC->comm, REC->e, REC->c, REC->d, REC->d",
	"\"name=%s rname=%s g=%d h=%u h=%x\", __get_str(name), __get_rel_str(rname), REC->g, REC->h, REC->h",
	"\"100%% \\\"quoted\\\"\\ttab %u%%\", REC->b",
	"\"%d %u %x %ld %lu %lx\", REC->c, REC->c, REC->c, REC->a, REC->a, REC->e",
	"\"target_cpu=%03d prio=%d\", REC->a, REC->e",
	"\"%-8x|%020lx|%-20d|%18d|%017u|%-3ld|%024ld\", REC->b, REC->d, REC->a, REC->c, REC->b, REC->c, REC->c",
	"\"no args at all\"",
};

/* Print fmts outside the compiled subset. */
static const char *const not_compiled[] = {
	"\"%p\", REC->d",
	"\"%pS\", REC->d",
	"\"%hd\", REC->e",
	"\"%.3d\", REC->a",
	"\"%*d\", REC->a, REC->b",
	"\"%+d\", REC->a",
	"\"%c\", REC->f",
	"\"%o\", REC->b",
	"\"%d\", (int)REC->a",
	"\"%d\", REC->a + 1",
	"\"%s\", __print_symbolic(REC->a, { 0, \"ZERO\" }, { 1, \"ONE\" })",
	"\"%s\", REC->d",
	"\"%d\"",
};

struct ctx {
	struct tep_handle *tep;
	bool big;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	return xorshift64(&rng_state);
}

/* Interesting numbers: 0, small, negative, extremes, random. */
static uint64_t value(void)
{
	static const uint64_t special[] = { 0, 1, 7, 42, (uint64_t)-1, (uint64_t)-42, 0x7fffffff,
					    0x80000000, 0xffffffff, 0x7fffffffffffffffULL,
					    0x8000000000000000ULL, 0x12345678abcdefULL };
	uint64_t r = rnd();

	if (r % 3 == 0)
		return special[(r >> 8) % (sizeof(special) / sizeof(special[0]))];
	return rnd() >> (r % 64);
}

static void put(uint8_t *rec, unsigned off, unsigned size, uint64_t v, bool big)
{
	for (unsigned i = 0; i < size; i++) {
		unsigned shift = 8 * (big ? size - 1 - i : i);
		rec[off + i] = (uint8_t)(v >> shift);
	}
}

static struct tep_event *parse(struct ctx *c, int id, const char *fmt)
{
	char text[4096];
	int n = snprintf(text, sizeof(text), "name: ev%d\nID: %d\n%sprint fmt: %s\n", id, id, fields, fmt);

	assert_true(n > 0 && (size_t)n < sizeof(text));
	tep_parse_event(c->tep, text, (unsigned long)n, "test");
	return tep_find_event(c->tep, id);
}

static void setup_ctx(struct ctx *c, bool big)
{
	c->tep = tep_alloc();
	assert_non_null(c->tep);
	c->big = big;
	tep_set_long_size(c->tep, 8);
	tep_set_file_bigendian(c->tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(c->tep, TEP_LITTLE_ENDIAN);
}

static size_t make_record(uint8_t *rec, int id, bool big)
{
	static const char *const words[] = { "", "x", "sh", "work.sh", "kworker/0:1",
					     "exactly16chars!!", "a much longer string than sixteen" };
	const char *name = words[rnd() % 7], *rname = words[rnd() % 7];
	size_t nl = strlen(name) + 1, rl = strlen(rname) + 1, n;
	const char *comm = words[rnd() % 6];

	memset(rec, 0, 256);
	put(rec, 0, 2, (uint64_t)id, big);
	put(rec, 4, 4, 1234, big);
	put(rec, OFF_A, 4, value(), big);
	put(rec, OFF_B, 4, value(), big);
	put(rec, OFF_C, 8, value(), big);
	put(rec, OFF_D, 8, value(), big);
	put(rec, OFF_E, 2, value(), big);
	put(rec, OFF_F, 1, value(), big);
	memcpy(rec + OFF_COMM, comm, strlen(comm) < 16 ? strlen(comm) : 16);
	for (int i = 0; i < 3; i++)
		put(rec, OFF_ARGS + 8 * i, 8, value(), big);
	put(rec, OFF_G, 1, value(), big);
	put(rec, OFF_H, 2, value(), big);
	/* __data_loc: len << 16 | offset; __rel_loc: offset from the end of the field */
	memcpy(rec + FIXED, name, nl);
	put(rec, OFF_NAME, 4, (uint64_t)nl << 16 | FIXED, big);
	memcpy(rec + FIXED + nl, rname, rl);
	put(rec, OFF_RNAME, 4, (uint64_t)rl << 16 | (FIXED + nl - (OFF_RNAME + 4)), big);
	n = FIXED + nl + rl;
	return (n + 3) & ~(size_t)3;
}

static void check_against_libtraceevent(bool big)
{
	struct ctx c;
	struct trace_seq s;
	uint8_t rec[256];
	char buf[1024];

	setup_ctx(&c, big);
	trace_seq_init(&s);
	for (size_t k = 0; k < sizeof(compiled) / sizeof(compiled[0]); k++) {
		struct tep_event *ev = parse(&c, (int)k + 1, compiled[k]);
		struct tcf_plan *p;

		assert_non_null(ev);
		p = tcf_compile(ev, big, 8);
		if (!p)
			fail_msg("not compiled: %s", compiled[k]);
		for (int i = 0; i < 2000; i++) {
			struct tep_record tr = { 0 };
			size_t size = make_record(rec, ev->id, big);
			int n;

			tr.data = rec;
			tr.size = (int)size;
			trace_seq_reset(&s);
			tep_print_event(c.tep, &s, &tr, "%s", TEP_PRINT_INFO);
			trace_seq_terminate(&s);
			n = tcf_render(p, rec, (uint32_t)size, buf, sizeof(buf));
			assert_true(n >= 0);
			buf[n] = '\0';
			if (strcmp(buf, s.buffer))
				fail_msg("%s\n fastfmt:        [%s]\n libtraceevent:  [%s]", compiled[k], buf,
					 s.buffer);
		}
		tcf_free(p);
	}
	trace_seq_destroy(&s);
	tep_free(c.tep);
}

static void test_little_endian(void **state)
{
	(void)state;
	check_against_libtraceevent(false);
}

static void test_big_endian(void **state)
{
	(void)state;
	check_against_libtraceevent(true);
}

static void test_outside_subset(void **state)
{
	struct ctx c;

	(void)state;
	setup_ctx(&c, false);
	for (size_t k = 0; k < sizeof(not_compiled) / sizeof(not_compiled[0]); k++) {
		struct tep_event *ev = parse(&c, 100 + (int)k, not_compiled[k]);
		struct tcf_plan *p = ev ? tcf_compile(ev, false, 8) : NULL;
		if (p) {
			tcf_free(p);
			fail_msg("compiled, but libtraceevent must render it: %s", not_compiled[k]);
		}
	}
	tep_free(c.tep);
}

/* Records too short for the fields, and strings without their NUL, go to libtraceevent. */
static void test_refused_records(void **state)
{
	struct ctx c;
	struct tep_event *ev;
	struct tcf_plan *p;
	uint8_t rec[256];
	char buf[512];
	size_t size;

	(void)state;
	setup_ctx(&c, false);
	ev = parse(&c, 1, compiled[3]);
	assert_non_null(ev);
	assert_non_null(p = tcf_compile(ev, false, 8));
	size = make_record(rec, 1, false);
	assert_true(tcf_render(p, rec, (uint32_t)size, buf, sizeof(buf)) >= 0);
	assert_int_equal(tcf_render(p, rec, OFF_RNAME + 2, buf, sizeof(buf)), -1);
	/* the dynamic string points past the record */
	put(rec, OFF_NAME, 4, 200, false);
	assert_int_equal(tcf_render(p, rec, (uint32_t)size, buf, sizeof(buf)), -1);
	/* no NUL before the end of the record */
	put(rec, OFF_NAME, 4, FIXED, false);
	memset(rec + FIXED, 'x', size - FIXED);
	assert_int_equal(tcf_render(p, rec, (uint32_t)size, buf, sizeof(buf)), -1);
	/* output larger than the buffer */
	size = make_record(rec, 1, false);
	assert_int_equal(tcf_render(p, rec, (uint32_t)size, buf, 4), -1);
	tcf_free(p);
	tep_free(c.tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_little_endian),
		cmocka_unit_test(test_big_endian),
		cmocka_unit_test(test_outside_subset),
		cmocka_unit_test(test_refused_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
