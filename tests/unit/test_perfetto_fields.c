/*
 * The Perfetto output's payload leaves (sink/perfetto/fields.c): a class's
 * leaves (structures dotted, compound values one string leaf, past 30
 * folded into "_more"), the values a walk hands out (the compound ones as
 * -o json writes them), and text made valid UTF-8.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fcbuild.h"
#include "sink/perfetto/fields.h"

struct seen {
	char text[8][64];
	size_t n;
};

static void collect(void *ctx, const struct pf_leaf *leaf, const struct pf_leaf_value *v)
{
	struct seen *s = ctx;

	assert_int_equal(v->index, s->n);
	if (leaf->type == PF_LEAF_STRING)
		snprintf(s->text[s->n], 64, "%s=%.*s", leaf->name, (int)v->len, v->s);
	else if (leaf->type == PF_LEAF_INT)
		snprintf(s->text[s->n], 64, "%s=%lld", leaf->name, (long long)v->i);
	else
		snprintf(s->text[s->n], 64, "%s=%llu", leaf->name, (unsigned long long)v->u);
	s->n++;
}

static void test_nested(void **state)
{
	struct tmx_field_class *u8 = fcb_u8(), *i8 = fcb_i8();
	struct tmx_field_class *str = fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0);
	struct tmx_field_class *inner = fcb_struct(2, i8, str);
	struct tmx_field_class *arr = fcb_array(fcb_u8(), 2, -1);
	struct tmx_field_class *top = fcb_struct(3, u8, inner, arr);
	struct tmx_value v[8] = {
		{ .fc = top, .n_members = 3 }, { .fc = u8, .u = 5 },
		{ .fc = inner, .n_members = 2 }, { .fc = i8, .s = -3 },
		{ .fc = str, .str = { "hi", 2 } }, { .fc = arr, .count = 2 },
		{ .fc = arr->elem, .u = 1 }, { .fc = arr->elem, .u = 2 },
	};
	struct pf_render *r = pf_render_new();
	struct pf_leaves l;
	struct seen s = { 0 };

	(void)state;
	assert_non_null(r);
	assert_true(pf_leaves_of(&l, top));
	assert_int_equal(l.n, 4);
	assert_string_equal(l.leaf[0].name, "a");
	assert_int_equal(l.leaf[0].type, PF_LEAF_UINT);
	assert_string_equal(l.leaf[1].name, "b.a");
	assert_int_equal(l.leaf[1].type, PF_LEAF_INT);
	assert_string_equal(l.leaf[2].name, "b.b");
	assert_false(l.leaf[2].rendered);
	assert_string_equal(l.leaf[3].name, "c");
	assert_true(l.leaf[3].rendered);
	pf_leaves_walk(&l, v, r, collect, &s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.text[0], "a=5");
	assert_string_equal(s.text[1], "b.a=-3");
	assert_string_equal(s.text[2], "b.b=hi");
	assert_string_equal(s.text[3], "c=[1,2]");
	pf_leaves_free(&l);
	pf_render_free(r);
	fcb_free_all();
}

struct folded {
	size_t n;
	char more[128];
};

static void collect_folded(void *ctx, const struct pf_leaf *leaf, const struct pf_leaf_value *v)
{
	struct folded *f = ctx;

	if (v->index == PF_LEAVES_MAX - 1) {
		assert_string_equal(leaf->name, "_more");
		snprintf(f->more, sizeof(f->more), "%.*s", (int)v->len, v->s);
	} else {
		assert_int_equal(v->u, v->index);
	}
	f->n++;
}

/* 35 integers (named a..z, a..i): 30 leaves, then "_more" with the last 5. */
static void test_folded(void **state)
{
	struct tmx_field_class *m[35];
	struct tmx_field_class *top;
	struct tmx_value v[36];
	struct pf_render *r = pf_render_new();
	struct pf_leaves l;
	struct folded f = { 0 };

	(void)state;
	for (int i = 0; i < 35; i++)
		m[i] = fcb_u8();
	top = fcb_struct(35, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], m[10],
			 m[11], m[12], m[13], m[14], m[15], m[16], m[17], m[18], m[19], m[20],
			 m[21], m[22], m[23], m[24], m[25], m[26], m[27], m[28], m[29], m[30],
			 m[31], m[32], m[33], m[34]);
	v[0] = (struct tmx_value){ .fc = top, .n_members = 35 };
	for (int i = 0; i < 35; i++)
		v[i + 1] = (struct tmx_value){ .fc = m[i], .u = (uint64_t)i };
	assert_true(pf_leaves_of(&l, top));
	assert_int_equal(l.n_all, 35);
	assert_int_equal(l.n, PF_LEAVES_MAX);
	assert_string_equal(l.leaf[PF_LEAVES_MAX - 1].name, "_more");
	assert_int_equal(l.leaf[PF_LEAVES_MAX - 1].type, PF_LEAF_STRING);
	pf_leaves_walk(&l, v, r, collect_folded, &f);
	assert_int_equal(f.n, PF_LEAVES_MAX);
	assert_string_equal(f.more, "e=30 f=31 g=32 h=33 i=34");
	pf_leaves_free(&l);
	pf_render_free(r);
	fcb_free_all();
}

static void test_utf8(void **state)
{
	struct pf_render *r = pf_render_new();
	const char *ok = "caf\xc3\xa9", *out;
	size_t n;

	(void)state;
	out = pf_utf8(r, ok, strlen(ok), &n);
	assert_ptr_equal(out, ok);   /* valid: not copied */
	assert_int_equal(n, 5);
	out = pf_utf8(r, "a\xff" "b", 3, &n);   /* 0xFF is U+00FF: C3 BF */
	assert_int_equal(n, 4);
	assert_memory_equal(out, "a\xc3\xbf" "b", 4);
	out = pf_utf8(r, "\xe2\x82", 2, &n);    /* a cut sequence: each byte on its own */
	assert_int_equal(n, 4);
	assert_memory_equal(out, "\xc3\xa2\xc2\x82", 4);
	out = pf_utf8(r, "\xed\xa0\x80", 3, &n);   /* a surrogate is not valid UTF-8 */
	assert_int_equal(n, 6);
	pf_render_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
