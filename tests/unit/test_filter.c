/*
 * Event filters (include/tracemux/filter.h, src/mux/filter*.c): the parser's
 * trees (precedence, associativity, literals), every syntax error with its
 * line:column, the binder's errors (unknown names, type mismatches), and
 * matches on the small sample trace checked against the same selection
 * done here with tmx_event_field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fcbuild.h"
#include "source/source.h"
#include "mux/filter.h"
#include "tracemux/event.h"
#include "tracemux/filter.h"
#include "tracemux/tracemux.h"

#define SAMPLE TMX_TEST_DATA "/sample-trace"

static const char *const op_names[] = { "==", "!=", "<", "<=", ">", ">=", "=~", "!~" };

static void print_operand(const struct tmx_filter *f, const struct foperand *o, char **p,
			  char *end)
{
	switch (o->kind) {
	case OPD_INT:
		*p += snprintf(*p, (size_t)(end - *p), "%s%llu", o->i.neg ? "-" : "",
			       (unsigned long long)o->i.mag);
		break;
	case OPD_FLOAT:
		*p += snprintf(*p, (size_t)(end - *p), "%gf", o->d);
		break;
	case OPD_STRING:
		*p += snprintf(*p, (size_t)(end - *p), "\"");
		for (size_t i = 0; i < o->str.len; i++) {
			unsigned char c = (unsigned char)o->str.ptr[i];

			*p += snprintf(*p, (size_t)(end - *p), c < 32 || c == '"' ? "<%02x>" : "%c", c);
		}
		*p += snprintf(*p, (size_t)(end - *p), "\"");
		break;
	case OPD_NAME:
		*p += snprintf(*p, (size_t)(end - *p), "$name");
		break;
	case OPD_TS:
		*p += snprintf(*p, (size_t)(end - *p), "$ts");
		break;
	case OPD_FIELD:
		*p += snprintf(*p, (size_t)(end - *p), "%s", f->refs[o->ref].path);
		break;
	}
}

/* The tree as an S-expression: (or A B), (and A B), (not A), (== l r). */
static void print_node(const struct tmx_filter *f, size_t at, char **p, char *end)
{
	const struct fnode *n = &f->nodes[at];

	switch (n->kind) {
	case FN_OR:
	case FN_AND:
		*p += snprintf(*p, (size_t)(end - *p), "(%s ", n->kind == FN_OR ? "or" : "and");
		print_node(f, n->a, p, end);
		*p += snprintf(*p, (size_t)(end - *p), " ");
		print_node(f, n->b, p, end);
		break;
	case FN_NOT:
		*p += snprintf(*p, (size_t)(end - *p), "(not ");
		print_node(f, n->a, p, end);
		break;
	case FN_CMP:
		*p += snprintf(*p, (size_t)(end - *p), "(%s ", op_names[n->op]);
		print_operand(f, &n->l, p, end);
		*p += snprintf(*p, (size_t)(end - *p), " ");
		print_operand(f, &n->r, p, end);
		break;
	}
	*p += snprintf(*p, (size_t)(end - *p), ")");
}

static void check_tree(const char *expr, const char *want)
{
	struct tmx_filter *f;
	struct tmx_error err = { 0 };
	char buf[1024], *p = buf;

	if (tmx_filter_new(NULL, 0, expr, &f, &err))
		fail_msg("%s: %s", expr, err.msg);
	print_node(f, f->root, &p, buf + sizeof(buf));
	if (strcmp(buf, want))
		fail_msg("%s\n  gives %s\n  wants %s", expr, buf, want);
	tmx_filter_free(f);
}

static void test_precedence(void **state)
{
	(void)state;
	check_tree("a == 1", "(== a 1)");
	check_tree("a == 1 || b == 2 && c == 3", "(or (== a 1) (and (== b 2) (== c 3)))");
	check_tree("a == 1 && b == 2 || c == 3", "(or (and (== a 1) (== b 2)) (== c 3))");
	check_tree("(a == 1 || b == 2) && c == 3", "(and (or (== a 1) (== b 2)) (== c 3))");
	check_tree("!a == 1 && b != 2", "(and (not (== a 1)) (!= b 2))");
	check_tree("!!(a < 1)", "(not (not (< a 1)))");
	check_tree("!(a <= 1 || b >= 2)", "(not (or (<= a 1) (>= b 2)))");
	/* Left-associative chains. */
	check_tree("a > 1 && b > 2 && c > 3", "(and (and (> a 1) (> b 2)) (> c 3))");
	check_tree("a > 1 || b > 2 || c > 3", "(or (or (> a 1) (> b 2)) (> c 3))");
	check_tree("x.y.z =~ \"^a\" || $name !~ \"b\"", "(or (=~ x.y.z \"^a\") (!~ $name \"b\"))");
	check_tree("$ts>=5&&$cpu==0&&$pid!=$tid", "(and (and (>= $ts 5) (== $cpu 0)) (!= $pid $tid))");
	check_tree("prev_pid == next_pid", "(== prev_pid next_pid)");
	check_tree("1 < a", "(< 1 a)");
	check_tree("  a\n==\t1  ", "(== a 1)");
}

static void test_literals(void **state)
{
	(void)state;
	check_tree("a == 0", "(== a 0)");
	check_tree("a == -0", "(== a 0)");
	check_tree("a == 18446744073709551615", "(== a 18446744073709551615)");
	check_tree("a == -9223372036854775808", "(== a -9223372036854775808)");
	check_tree("a == 0xFFFFffffFFFFffff", "(== a 18446744073709551615)");
	check_tree("a == 0x10", "(== a 16)");
	check_tree("a == -0x10", "(== a -16)");
	check_tree("a == 1.5", "(== a 1.5f)");
	check_tree("a == -2.5e3", "(== a -2500f)");
	check_tree("a == .25", "(== a 0.25f)");
	check_tree("a == 1e-3", "(== a 0.001f)");
	check_tree("a == \"\"", "(== a \"\")");
	check_tree("a == \"x y\"", "(== a \"x y\")");
	check_tree("a == \"q\\\"\\\\\\n\\t\\r\\x41\\0\"", "(== a \"q<22>\\<0a><09><0d>A<00>\")");
	check_tree("a == \"a&&b||c\"", "(== a \"a&&b||c\")");
}

/* Each syntax error and where it is reported. */
static void test_syntax_errors(void **state)
{
	static const struct {
		const char *expr, *msg;
	} cases[] = {
		{ "", "1:1: expected a comparison (a field, $name, $ts, $cpu, $pid, $tid or a literal), "
		      "'!' or '('" },
		{ "prev_pid == ", "1:13: expected a value after '=='" },
		{ "next_comm =~", "1:13: expected a value after '=~'" },
		{ "a", "1:2: expected a comparison operator (==, !=, <, <=, >, >=, =~, !~) before the end "
		       "of the expression" },
		{ "a b", "1:3: expected a comparison operator (==, !=, <, <=, >, >=, =~, !~) before 'b'" },
		{ "a = 1", "1:3: '=' is not an operator: expected '==' or '=~'" },
		{ "a == 1 & b == 2", "1:8: '&' is not an operator: expected '&&'" },
		{ "a == 1 | b == 2", "1:8: '|' is not an operator: expected '||'" },
		{ "a == 1 b", "1:8: expected '&&', '||' or the end of the expression before 'b'" },
		{ "a == 1 )", "1:8: expected '&&', '||' or the end of the expression before ')'" },
		{ "(a == 1", "1:8: expected ')' to close the '(' at 1:1, before the end of the expression" },
		{ "((a == 1) || (b == 2)", "1:22: expected ')' to close the '(' at 1:1, before the end of "
					"the expression" },
		{ "a == 1 &&", "1:10: expected a comparison (a field, $name, $ts, $cpu, $pid, $tid or a "
			       "literal), '!' or '('" },
		{ "!", "1:2: expected a comparison (a field, $name, $ts, $cpu, $pid, $tid or a literal), "
		       "'!' or '('" },
		{ "a == #", "1:6: unexpected character '#'" },
		/* A string read before the error is freed (the sanitizer build checks). */
		{ "\"a\" # 1", "1:5: unexpected character '#'" },
		{ "a == \"b\" &", "1:10: '&' is not an operator: expected '&&'" },
		{ "a == \"abc", "1:6: unterminated string: expected '\"' before the end of the expression" },
		{ "a == \"ab\nc\"", "1:6: unterminated string: expected '\"' before the end of the line" },
		{ "a == \"a\\qb\"", "1:8: unknown escape '\\q' (expected \\\" \\\\ \\n \\t \\r \\0 or \\xHH)" },
		{ "a == \"\\x4\"", "1:7: expected two hexadecimal digits after '\\x'" },
		{ "a == 18446744073709551616", "1:6: integer '18446744073709551616' out of range (64 bits)" },
		{ "a == -9223372036854775809", "1:6: integer '-9223372036854775809' out of range (64 bits)" },
		{ "a == 0x", "1:6: expected hexadecimal digits after '0x'" },
		{ "a == 0x1g", "1:6: invalid number '0x1g'" },
		{ "a == 12ab", "1:6: invalid number '12ab'" },
		{ "a == 1.2.3", "1:6: invalid number '1.2.3'" },
		{ "a == 1e999", "1:6: number '1e999' out of range (double)" },
		{ "a. == 1", "1:3: expected a member name after '.'" },
		{ "$foo == 1", "1:1: unknown name '$foo' (expected $name, $ts, $cpu, $pid or $tid)" },
		{ "a =~ 1", "1:6: expected a string (a POSIX extended regular expression) after '=~'" },
		{ "a !~ b", "1:6: expected a string (a POSIX extended regular expression) after '!~'" },
		{ "1 =~ \"x\"", "1:1: expected a field or $name before '=~' (it matches text)" },
		{ "a =~ \"(\"", "1:6: invalid regular expression: " },
		{ "a =~ \"(a|b)++++++++++++++++\"", "1:6: regular expression too complex (its "
						  "repetitions of repetitions would make a huge automaton)" },
		{ "a =~ \"((a{99}){99}){99}\"", "1:6: regular expression too complex (its repetitions "
					      "of repetitions would make a huge automaton)" },
		{ "a =~ \"x\\0y\"", "1:6: a regular expression cannot hold a NUL byte" },
		{ "a == 1 &&\n  b = 2", "2:5: '=' is not an operator: expected '==' or '=~'" },
		{ "a == 1 ||\n\n (", "3:3: expected a comparison (a field, $name, $ts, $cpu, $pid, $tid or a "
				 "literal), '!' or '('" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tmx_filter *f = (struct tmx_filter *)1;
		struct tmx_error err = { 0 };
		unsigned line, col;

		if (tmx_filter_new(NULL, 0, cases[i].expr, &f, &err) != TMX_ERR_USAGE)
			fail_msg("accepted: %s", cases[i].expr);
		assert_null(f);
		/* Regex error texts are the C library's: only the start is ours. */
		if (strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) ||
		    (strcmp(err.msg, cases[i].msg) && !strstr(cases[i].msg, "regular expression: ")))
			fail_msg("%s\n  gives %s\n  wants %s", cases[i].expr, err.msg, cases[i].msg);
		assert_int_equal(sscanf(cases[i].msg, "%u:%u", &line, &col), 2);
		assert_int_equal(err.line, line);
		assert_int_equal(err.col, col);
	}
}

static void test_nesting_limits(void **state)
{
	static char deep[1024], lng[8 * 5000];
	struct tmx_filter *f;
	struct tmx_error err = { 0 };
	char *p = lng;

	(void)state;
	memset(deep, '(', 300);
	strcpy(deep + 300, "a == 1");
	assert_int_equal(tmx_filter_new(NULL, 0, deep, &f, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "nested too deeply"));
	for (int i = 0; i < 5000; i++)
		p += sprintf(p, "%sa==1", i ? "||" : "");
	assert_int_equal(tmx_filter_new(NULL, 0, lng, &f, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "expression too long"));
}

static struct tmx_source *open_sample(void)
{
	const char *path = SAMPLE;
	struct tmx_source *src;
	struct tmx_error err;

	assert_int_equal(tmx_open(&path, 1, NULL, NULL, &src, &err), TMX_OK);
	return src;
}

/* Binding errors: the position of the name and what is wrong with it. */
static void test_bind_errors(void **state)
{
	static const struct {
		const char *glob, *expr, *msg;
	} cases[] = {
		{ NULL, "nosuch == 1", "1:1: unknown field 'nosuch': no selected event class has it" },
		{ NULL, "prev_tid == 1 || x.y == 2", "1:18: unknown field 'x.y': no selected event class "
						     "has it" },
		{ "app:*", "prev_tid == 1", "1:1: unknown field 'prev_tid': no selected event class has "
					    "it" },
		{ NULL, "$pid == 1", "1:1: $pid is not known for the selected event classes (they have no "
				     "vpid, pid or common_pid context field)" },
		{ NULL, "prev_tid =~ \"1\"", "1:1: 'prev_tid' is a number in event class 'sched:switch': it "
					     "cannot be matched with a regular expression" },
		{ NULL, "prev_comm == 5", "1:1: cannot compare 'prev_comm' (a string in event class "
					  "'sched:switch') with an integer" },
		{ NULL, "1.5 < msg", "1:7: cannot compare 'msg' (a string in event class 'app:measure') "
				     "with a floating-point number" },
		{ NULL, "prev_tid == \"x\"", "1:1: cannot compare 'prev_tid' (an integer in event class "
					     "'sched:switch') with a string" },
		{ NULL, "$ts == msg", "1:8: cannot compare 'msg' (a string in event class 'app:measure') "
				      "with an integer" },
		{ NULL, "$name != 1201", "1:1: cannot compare '$name' (a string in event class "
					 "'sched:switch') with an integer" },
		{ NULL, "5 < $name", "1:5: cannot compare '$name' (a string in event class "
				     "'sched:switch') with an integer" },
		{ NULL, "1 == \"a\"", "1:1: cannot compare an integer with a string" },
		{ NULL, "prev_tid == 1 && 1.5 < prev_comm", "1:24: cannot compare 'prev_comm' (a string "
							   "in event class 'sched:switch') with a "
							   "floating-point number" },
		{ NULL, "data == 1", "1:1: 'data' is a structure, an array or a BLOB in event class "
				     "'net:packet': it cannot be compared (name one of its members)" },
		{ "nosuch*", NULL, "event class pattern 'nosuch*' matches no event class" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tmx_source *src = open_sample();
		struct tmx_filter *f;
		struct tmx_error err = { 0 };
		const char *globs[1] = { cases[i].glob };

		assert_int_equal(tmx_filter_new(globs, cases[i].glob ? 1 : 0, cases[i].expr, &f, &err),
				 TMX_OK);
		if (tmx_source_set_filter(src, f, &err) != TMX_ERR_USAGE)
			fail_msg("bound: %s", cases[i].expr);
		if (strcmp(err.msg, cases[i].msg))
			fail_msg("%s\n  gives %s\n  wants %s", cases[i].expr, err.msg, cases[i].msg);
		tmx_source_free(src);
		tmx_filter_free(f);
	}
}

/* What a test's own reading of one event says about it. */
typedef bool (*predicate)(const struct tmx_msg *msg);

static bool int_field(const struct tmx_msg *msg, const char *name, int64_t *v)
{
	return tmx_value_int64(tmx_event_field(msg->event, name), v);
}

static bool text_field(const struct tmx_msg *msg, const char *name, const char **s, size_t *len)
{
	return (*s = tmx_value_text(tmx_event_field(msg->event, name), len)) != NULL;
}

static bool name_is(const struct tmx_msg *msg, const char *name)
{
	return !strcmp(msg->event->cls->name, name);
}

static bool p_prev_tid(const struct tmx_msg *m)
{
	int64_t v;
	return int_field(m, "prev_tid", &v) && v > 1000 && v <= 3000;
}

static bool p_not_prev_tid(const struct tmx_msg *m)
{
	int64_t v;
	return !(int_field(m, "prev_tid", &v) && v == 4924);
}

static bool p_ne_prev_tid(const struct tmx_msg *m)
{
	int64_t v;
	return int_field(m, "prev_tid", &v) && v != 4924;
}

static bool p_comm(const struct tmx_msg *m)
{
	const char *s;
	size_t len;
	return text_field(m, "next_comm", &s, &len) && len >= 2 && !memcmp(s, "py", 2);
}

static bool p_enum_label(const struct tmx_msg *m)
{
	const char *l = tmx_value_label(tmx_event_field(m->event, "proto"));
	return l && !strcmp(l, "ICMP");
}

static bool p_enum_int(const struct tmx_msg *m)
{
	int64_t v;
	return int_field(m, "proto", &v) && v >= 1;
}

static bool p_float(const struct tmx_msg *m)
{
	double d;
	return tmx_value_double(tmx_event_field(m->event, "value"), &d) && d < 500.5 &&
	       name_is(m, "app:measure");
}

static bool p_unsigned(const struct tmx_msg *m)
{
	uint64_t v;
	return tmx_value_uint64(tmx_event_field(m->event, "flags"), &v) && v >= 0x8000;
}

static bool p_cpu_name(const struct tmx_msg *m)
{
	int64_t cpu;
	return int_field(m, "cpu_id", &cpu) && cpu == 1 &&
	       (name_is(m, "syscall:openat") || name_is(m, "net:packet"));
}

static bool p_ts(const struct tmx_msg *m)
{
	return m->ns >= 1700000005391911344 && m->ns < 1700000005391950000;
}

static bool p_str_order(const struct tmx_msg *m)
{
	const char *s;
	size_t len;
	int c;

	if (!text_field(m, "filename", &s, &len))
		return false;
	c = memcmp(s, "/proc", len < 5 ? len : 5);
	return c > 0 || (c == 0 && len > 5);
}

static bool p_vtid(const struct tmx_msg *m)
{
	int64_t v;
	return int_field(m, "vtid", &v) && v == 1001 && !name_is(m, "sched:switch");
}

static bool p_neg(const struct tmx_msg *m)
{
	int64_t v;
	return int_field(m, "dfd", &v) && v > -200;
}

static bool p_field_field(const struct tmx_msg *m)
{
	int64_t a, b;
	return int_field(m, "prev_tid", &a) && int_field(m, "next_tid", &b) && a < b;
}

/* Runs the filter on the sample trace and checks the events it lets through. */
static void check_matches(const char *glob, const char *expr, predicate want)
{
	struct tmx_source *src = open_sample(), *ref = open_sample();
	struct tmx_filter *f;
	struct tmx_error err = { 0 };
	const struct tmx_msg *msg;
	const char *globs[1] = { glob };
	size_t got = 0, wanted = 0, other = 0, other_ref = 0;

	if (tmx_filter_new(globs, glob ? 1 : 0, expr, &f, &err) || tmx_source_set_filter(src, f, &err))
		fail_msg("%s: %s", expr, err.msg);
	while (tmx_source_next(src, &msg, &err) == TMX_OK && msg) {
		if (msg->kind != TMX_MSG_EVENT) {
			other++;
			continue;
		}
		if (!want(msg))
			fail_msg("%s: an event of %s passes", expr, msg->event->cls->name);
		got++;
	}
	while (tmx_source_next(ref, &msg, &err) == TMX_OK && msg) {
		if (msg->kind == TMX_MSG_EVENT)
			wanted += want(msg);
		else
			other_ref++;
	}
	if (got != wanted || got == 0)
		fail_msg("%s: %zu events pass, %zu wanted", expr, got, wanted);
	assert_int_equal(other, other_ref);   /* the other messages are all there */
	tmx_source_free(src);
	tmx_source_free(ref);
	tmx_filter_free(f);
}

static void test_matches(void **state)
{
	(void)state;
	check_matches(NULL, "prev_tid > 1000 && prev_tid <= 3000", p_prev_tid);
	check_matches(NULL, "!(prev_tid == 4924)", p_not_prev_tid);
	check_matches(NULL, "prev_tid != 4924", p_ne_prev_tid);
	check_matches(NULL, "next_comm =~ \"^py\"", p_comm);
	check_matches(NULL, "proto == \"ICMP\"", p_enum_label);
	check_matches(NULL, "proto >= 1", p_enum_int);
	check_matches("app:*", "value < 500.5", p_float);
	check_matches(NULL, "flags >= 0x8000", p_unsigned);
	check_matches("[sn][ye]*", "$cpu == 1", p_cpu_name);
	check_matches(NULL, "$ts >= 1700000005391911344 && $ts < 1700000005391950000", p_ts);
	check_matches(NULL, "filename > \"/proc\" && $name == \"syscall:openat\"", p_str_order);
	check_matches(NULL, "vtid == 1001 && !($name =~ \"^sched\")", p_vtid);
	check_matches(NULL, "dfd > -200", p_neg);
	check_matches(NULL, "prev_tid < next_tid", p_field_field);
}

/* Classes excluded by name or by a comparison on $name are never evaluated. */
static void test_verdicts(void **state)
{
	struct tmx_source *src = open_sample();
	struct tmx_filter *f;
	struct tmx_error err = { 0 };
	const char *globs[2] = { "sched:*", "measure" };
	const struct tmx_filter_bound *b;

	(void)state;
	assert_int_equal(tmx_filter_new(globs, 2, "$name == \"app:measure\" || prev_tid > 5", &f, &err),
			 TMX_OK);
	assert_int_equal(tmx_source_set_filter(src, f, &err), TMX_OK);
	b = tmx_source_filter(src);
	for (size_t i = 0; i < b->n_classes; i++) {
		const char *name = b->cls[i]->name;
		uint8_t want = !strcmp(name, "app:measure")    ? FV_ALWAYS
			       : !strcmp(name, "sched:switch") ? FV_EVALUATE
							       : FV_NEVER;

		assert_int_equal(b->verdict[i], want);
	}
	/* A NULL filter removes it. */
	assert_int_equal(tmx_source_set_filter(src, NULL, &err), TMX_OK);
	assert_null(tmx_source_filter(src));
	tmx_source_free(src);
	tmx_filter_free(f);
}

/*
 * Hand-made classes and events for paths: class 0's payload is
 * { a: u8, b: u8[a], c: { a: i32, b: string }, d: variant(string | i32), e: u8 }
 * (the sequence moves everything after it: c.a and e are looked up by
 * name), class 1's is { a: u8, b: { a: u8 } } (b.a at the fixed index 3).
 */
struct hand {
	struct fcb_trace t;
	struct ptr_index ix;
	struct tmx_value v0[11], v1[4];
	struct tmx_event ev[2];
	struct tmx_msg msg[2];
};

static void hand_init(struct hand *h)
{
	struct tmx_field_class *seq_len = fcb_slot(fcb_u8(), 0), *sel = fcb_slot(fcb_u8(), 1);
	struct tmx_field_class *i32 = fcb_fixed(TMX_FC_INT, 32, TMX_BO_LE, false, true, 8);
	struct tmx_field_class *opts[2] = { fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0),
					    fcb_fixed(TMX_FC_INT, 32, TMX_BO_LE, false, true, 8) };
	static const int64_t bounds[] = { 0, 0, 1, 1 };
	struct tmx_field_class *seq = fcb_array(fcb_u8(), 0, 0);
	struct tmx_field_class *c = fcb_struct(2, i32, fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0));
	struct tmx_field_class *d = fcb_variant(sel, 1, 2, opts, bounds);
	struct tmx_field_class *p0 = fcb_struct(5, seq_len, seq, c, d, fcb_u8());
	struct tmx_field_class *inner = fcb_struct(1, fcb_u8());
	struct tmx_field_class *p1 = fcb_struct(2, fcb_u8(), inner);
	struct tmx_field_class *payloads[2] = { p0, p1 };
	const void *list[2];

	fcb_trace_init(&h->t, 2, 2, payloads);
	h->t.ec[0].name = "zero";
	h->t.ec[1].name = "sys:one";
	list[0] = &h->t.ec[0];
	list[1] = &h->t.ec[1];
	assert_true(ptr_index_build(&h->ix, list, 2));
	h->v0[0] = (struct tmx_value){ .fc = p0, .n_members = 5 };
	h->v0[1] = (struct tmx_value){ .fc = seq_len, .u = 2 };
	h->v0[2] = (struct tmx_value){ .fc = seq, .count = 2 };
	h->v0[3] = (struct tmx_value){ .fc = seq->elem, .u = 7 };
	h->v0[4] = (struct tmx_value){ .fc = seq->elem, .u = 8 };
	h->v0[5] = (struct tmx_value){ .fc = c, .n_members = 2 };
	h->v0[6] = (struct tmx_value){ .fc = i32, .s = -3 };
	h->v0[7] = (struct tmx_value){ .fc = c->members[1].fc, .str = { "abc", 3 } };
	h->v0[8] = (struct tmx_value){ .fc = d, .option = 0 };
	h->v0[9] = (struct tmx_value){ .fc = opts[0], .str = { "xyz", 3 } };
	h->v0[10] = (struct tmx_value){ .fc = p0->members[4].fc, .u = 9 };
	h->v1[0] = (struct tmx_value){ .fc = p1, .n_members = 2 };
	h->v1[1] = (struct tmx_value){ .fc = p1->members[0].fc, .u = 1 };
	h->v1[2] = (struct tmx_value){ .fc = inner, .n_members = 1 };
	h->v1[3] = (struct tmx_value){ .fc = inner->members[0].fc, .u = 200 };
	for (int i = 0; i < 2; i++) {
		h->ev[i] = (struct tmx_event){ .cls = &h->t.ec[i] };
		h->ev[i].scopes[TMX_SCOPE_PAYLOAD] = i ? h->v1 : h->v0;
		h->msg[i] = (struct tmx_msg){ .kind = TMX_MSG_EVENT, .event = &h->ev[i], .has_ts = true,
					      .ns = 100 + i };
	}
}

/* Which of the two events `expr` (with `glob`) keeps: bit 0 class 0's, bit 1 class 1's. */
static unsigned hand_match(struct hand *h, const char *glob, const char *expr)
{
	struct tmx_filter *f;
	struct tmx_filter_bound *b;
	struct tmx_error err = { 0 };
	const char *globs[1] = { glob };
	unsigned got;

	if (tmx_filter_new(globs, glob ? 1 : 0, expr, &f, &err) || tmx_filter_bind(f, &h->ix, &b, &err))
		fail_msg("%s: %s", expr, err.msg);
	got = (unsigned)tmx_filter_match(b, &h->msg[0]) | (unsigned)tmx_filter_match(b, &h->msg[1]) << 1;
	tmx_filter_bound_free(b);
	tmx_filter_free(f);
	return got;
}

static void test_paths(void **state)
{
	struct hand h;
	struct tmx_filter *f;
	struct tmx_filter_bound *b;
	struct tmx_error err = { 0 };

	(void)state;
	hand_init(&h);
	assert_int_equal(hand_match(&h, NULL, "c.a == -3 && c.b == \"abc\""), 1);
	assert_int_equal(hand_match(&h, NULL, "c.a < -2 && !(c.a > -3) && c.b =~ \"^ab\""), 1);
	assert_int_equal(hand_match(&h, NULL, "e == 9 && a == 2"), 1);
	assert_int_equal(hand_match(&h, NULL, "a == 2 || a == 1"), 3);
	assert_int_equal(hand_match(&h, NULL, "b.a == 200"), 2);   /* class 0's b is a sequence */
	assert_int_equal(hand_match(&h, NULL, "b.a != 200"), 0);
	assert_int_equal(hand_match(&h, NULL, "!(b.a == 200)"), 1);
	/* A variant: its option's type, per event. */
	assert_int_equal(hand_match(&h, NULL, "d == \"xyz\""), 1);
	assert_int_equal(hand_match(&h, NULL, "d == 5"), 0);
	assert_int_equal(hand_match(&h, NULL, "d =~ \"y\" && $ts == 100"), 1);
	assert_int_equal(hand_match(&h, NULL, "$ts >= 100"), 3);
	/* Names: the whole one, or the part after "system:". */
	assert_int_equal(hand_match(&h, "one", NULL), 2);
	assert_int_equal(hand_match(&h, "sys:*", "a > 0"), 2);
	assert_int_equal(hand_match(&h, NULL, "$name == \"sys:one\""), 2);
	/* Where the values are: at fixed indexes, or looked up behind the sequence. */
	assert_int_equal(tmx_filter_new(NULL, 0, "b.a == 1 || c.a == 1 || e == 1", &f, &err), TMX_OK);
	assert_int_equal(tmx_filter_bind(f, &h.ix, &b, &err), TMX_OK);
	assert_int_equal(b->refs[1 * 3 + 0].index, 3);         /* class 1, b.a */
	assert_int_equal(b->refs[0 * 3 + 0].type, FT_MISSING); /* class 0, b.a */
	assert_int_equal(b->refs[0 * 3 + 1].index, SIZE_MAX);  /* class 0, c.a */
	assert_int_equal(b->refs[0 * 3 + 2].index, SIZE_MAX);  /* class 0, e */
	tmx_filter_bound_free(b);
	tmx_filter_free(f);
	/* A structure is no value; a member that no class has is unknown. */
	assert_int_equal(tmx_filter_new(NULL, 0, "c == 1", &f, &err), TMX_OK);
	assert_int_equal(tmx_filter_bind(f, &h.ix, &b, &err), TMX_ERR_USAGE);
	assert_string_equal(err.msg, "1:1: 'c' is a structure, an array or a BLOB in event class "
			    "'zero': it cannot be compared (name one of its members)");
	tmx_filter_free(f);
	assert_int_equal(tmx_filter_new(NULL, 0, "c.z == 1", &f, &err), TMX_OK);
	assert_int_equal(tmx_filter_bind(f, &h.ix, &b, &err), TMX_ERR_USAGE);
	assert_string_equal(err.msg, "1:1: unknown field 'c.z': no selected event class has it");
	tmx_filter_free(f);
	ptr_index_free(&h.ix);
	fcb_free_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),    cmocka_unit_test(test_literals),
		cmocka_unit_test(test_syntax_errors), cmocka_unit_test(test_nesting_limits),
		cmocka_unit_test(test_bind_errors),   cmocka_unit_test(test_matches),
		cmocka_unit_test(test_verdicts),      cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
