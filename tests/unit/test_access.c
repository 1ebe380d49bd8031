/*
 * The public accessors (include/tracemux/event.h, the field class accessors
 * of model.h) on value arrays laid out as the decoders lay them out:
 * lookup by path through structures, variants and optionals, typed reads
 * with their range checks, text arrays read as strings, labels, the CPU
 * of an event in each format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fcbuild.h"
#include "tracemux/event.h"

/* An enumeration of `size` bits with labels "LOW" [0, 9] and "HIGH" [10, 99]. */
static struct tmx_field_class *labelled_enum(bool is_signed)
{
	static const int64_t low[] = { 0, 9 }, high[] = { 10, 99 };
	struct tmx_field_class *fc = fcb_fixed(TMX_FC_ENUM, 16, TMX_BO_LE, false, is_signed, 8);

	fc->n_mappings = 2;
	fc->mappings = fcb_alloc(2 * sizeof(*fc->mappings));
	fc->mappings[0] = (struct tmx_enum_mapping){ "LOW", 1, fcb_ranges(1, low) };
	fc->mappings[1] = (struct tmx_enum_mapping){ "HIGH", 1, fcb_ranges(1, high) };
	return fc;
}

/*
 * payload { a: u8 = 200, b: i8 = -3, c: char[4] "ab\0z", d: struct { a: enum = 42 },
 *           e: variant (option "opt" = string "hi"), f: optional absent,
 *           g: float 2.5, h: sequence of 2 u8 [7, 8], i: BLOB de ad }
 */
struct fixture {
	struct tmx_value v[20];
	struct tmx_event ev;
};

static void build(struct fixture *fx)
{
	struct tmx_field_class *text = fcb_array(fcb_u8(), 4, -1);
	struct tmx_field_class *sel = fcb_u8(), *opt_sel = fcb_fixed(TMX_FC_BOOL, 8, TMX_BO_LE,
								  false, false, 8);
	struct tmx_field_class *str = fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0);
	static const int64_t bounds[] = { 0, 5 };
	struct tmx_field_class *payload;
	struct tmx_value *v = fx->v;
	size_t n = 0;

	text->is_text = true;
	text->elem->encoding = TMX_ENC_UTF8;
	payload = fcb_struct(9, fcb_u8(), fcb_i8(), text, fcb_struct(1, labelled_enum(false)),
			     fcb_variant(sel, 0, 1, &str, bounds),
			     fcb_optional(opt_sel, 1, fcb_u8(), 0, NULL),
			     fcb_fixed(TMX_FC_FLOAT, 64, TMX_BO_LE, false, true, 8),
			     fcb_array(fcb_u8(), 0, 2), fcb_blob(2, -1));
	memset(fx, 0, sizeof(*fx));
	v[n++] = (struct tmx_value){ .fc = payload, .n_members = 9 };
	v[n++] = (struct tmx_value){ .fc = payload->members[0].fc, .u = 200 };
	v[n++] = (struct tmx_value){ .fc = payload->members[1].fc, .s = -3 };
	v[n++] = (struct tmx_value){ .fc = text, .str = { "ab\0z", 4 } };
	v[n++] = (struct tmx_value){ .fc = payload->members[3].fc, .n_members = 1 };
	v[n++] = (struct tmx_value){ .fc = payload->members[3].fc->members[0].fc, .u = 42 };
	v[n++] = (struct tmx_value){ .fc = payload->members[4].fc, .option = 0 };
	v[n++] = (struct tmx_value){ .fc = str, .str = { "hi", 2 } };
	v[n++] = (struct tmx_value){ .fc = payload->members[5].fc, .present = 0 };
	v[n++] = (struct tmx_value){ .fc = payload->members[6].fc, .d = 2.5 };
	v[n++] = (struct tmx_value){ .fc = payload->members[7].fc, .count = 2 };
	v[n++] = (struct tmx_value){ .fc = payload->members[7].fc->elem, .u = 7 };
	v[n++] = (struct tmx_value){ .fc = payload->members[7].fc->elem, .u = 8 };
	v[n++] = (struct tmx_value){ .fc = payload->members[8].fc, .str = { "\xde\xad", 2 } };
	fx->ev.scopes[TMX_SCOPE_PAYLOAD] = v;
}

static void test_lookup_and_types(void **state)
{
	struct fixture fx;
	const char *s;
	size_t len;
	int64_t i;
	uint64_t u;
	double d;

	(void)state;
	build(&fx);
	assert_true(tmx_value_uint64(tmx_event_field(&fx.ev, "a"), &u) && u == 200);
	assert_true(tmx_value_int64(tmx_event_field(&fx.ev, "a"), &i) && i == 200);
	assert_int_equal(tmx_value_type(tmx_event_field(&fx.ev, "b")), TMX_TYPE_SIGNED);
	assert_true(tmx_value_int64(tmx_event_field(&fx.ev, "b"), &i) && i == -3);
	u = 1;
	assert_false(tmx_value_uint64(tmx_event_field(&fx.ev, "b"), &u));   /* negative */
	assert_int_equal(u, 1);
	/* A char[4] is a string up to its first NUL, as babeltrace2 prints it. */
	assert_int_equal(tmx_value_type(tmx_event_field(&fx.ev, "c")), TMX_TYPE_STRING);
	s = tmx_value_text(tmx_event_field(&fx.ev, "c"), &len);
	assert_non_null(s);
	assert_int_equal(len, 2);
	assert_memory_equal(s, "ab", 2);
	/* Nested member, and its label. */
	assert_true(tmx_value_uint64(tmx_event_field(&fx.ev, "d.a"), &u) && u == 42);
	assert_string_equal(tmx_value_label(tmx_event_field(&fx.ev, "d.a")), "HIGH");
	assert_null(tmx_value_label(tmx_event_field(&fx.ev, "a")));
	/* Every label, one mapping at a time: 42 is HIGH only. */
	assert_false(tmx_value_has_mapping(tmx_event_field(&fx.ev, "d.a"), 0));
	assert_true(tmx_value_has_mapping(tmx_event_field(&fx.ev, "d.a"), 1));
	assert_false(tmx_value_has_mapping(tmx_event_field(&fx.ev, "d.a"), 2));
	assert_false(tmx_value_has_mapping(tmx_event_field(&fx.ev, "a"), 0));
	/* A variant reads as its selected option; an absent optional as nothing. */
	s = tmx_value_text(tmx_event_field(&fx.ev, "e"), &len);
	assert_true(s && len == 2 && !memcmp(s, "hi", 2));
	assert_int_equal(tmx_value_type(tmx_event_field(&fx.ev, "f")), TMX_TYPE_NONE);
	assert_false(tmx_value_uint64(tmx_event_field(&fx.ev, "f"), &u));
	assert_true(tmx_value_double(tmx_event_field(&fx.ev, "g"), &d) && d == 2.5);
	assert_false(tmx_value_int64(tmx_event_field(&fx.ev, "g"), &i));
	/* Arrays: length and elements (the sequence after the float). */
	assert_int_equal(tmx_value_length(tmx_event_field(&fx.ev, "h")), 2);
	assert_true(tmx_value_uint64(tmx_value_element(tmx_event_field(&fx.ev, "h"), 1), &u) &&
		    u == 8);
	assert_null(tmx_value_element(tmx_event_field(&fx.ev, "h"), 2));
	/* BLOB after them all: found only if every subtree before it was skipped right. */
	{
		const uint8_t *b = tmx_value_bytes(tmx_event_field(&fx.ev, "i"), &len);
		assert_true(b && len == 2 && b[0] == 0xde && b[1] == 0xad);
	}
	/* Not found: unknown names, paths through non-structures, empty path, other scopes. */
	assert_null(tmx_event_field(&fx.ev, "zz"));
	assert_null(tmx_event_field(&fx.ev, "a.b"));
	assert_null(tmx_event_field(&fx.ev, ""));
	assert_null(tmx_event_field_in(&fx.ev, TMX_SCOPE_COMMON_CONTEXT, "a"));
	assert_int_equal(tmx_value_type(NULL), TMX_TYPE_NONE);
	fcb_free_all();
}

static void test_field_class_accessors(void **state)
{
	struct fixture fx;
	const struct tmx_field_class *p;

	(void)state;
	build(&fx);
	p = fx.v[0].fc;
	assert_int_equal(tmx_fc_kind(p), TMX_FC_STRUCT);
	assert_int_equal(tmx_fc_member_count(p), 9);
	assert_string_equal(tmx_fc_member_name(p, 3), "d");
	assert_null(tmx_fc_member_name(p, 9));
	assert_int_equal(tmx_fc_size(tmx_fc_member_class(p, 1)), 8);
	assert_true(tmx_fc_is_signed(tmx_fc_member_class(p, 1)));
	assert_false(tmx_fc_is_signed(tmx_fc_member_class(p, 0)));
	assert_true(tmx_fc_is_text(tmx_fc_member_class(p, 2)));
	assert_int_equal(tmx_fc_length(tmx_fc_member_class(p, 2)), 4);
	assert_int_equal(tmx_fc_size(tmx_fc_member_class(p, 2)), 0);   /* not fixed-length */
	assert_int_equal(tmx_fc_mapping_count(tmx_fc_member_class(tmx_fc_member_class(p, 3), 0)), 2);
	assert_string_equal(
		tmx_fc_mapping_label(tmx_fc_member_class(tmx_fc_member_class(p, 3), 0), 1), "HIGH");
	assert_int_equal(tmx_fc_kind(tmx_fc_element(tmx_fc_member_class(p, 5))), TMX_FC_INT);
	assert_int_equal(tmx_fc_length(tmx_fc_member_class(p, 8)), 2);
	assert_int_equal(tmx_fc_base(tmx_fc_member_class(p, 0)), 10);
	assert_null(tmx_fc_element(p));
	assert_null(tmx_fc_mapped_clock(p));
	fcb_free_all();
}

/* tmx_event_cpu: each format's field, an integer only, absent when the class has none. */
static void test_event_cpu(void **state)
{
	static const struct { uint8_t format; enum tmx_scope scope; const char *name; } cases[] = {
		{ TMX_FORMAT_CTF, TMX_SCOPE_PACKET_CONTEXT, "cpu_id" },
		{ TMX_FORMAT_TRACEDAT, TMX_SCOPE_PACKET_CONTEXT, "cpu_id" },
		{ TMX_FORMAT_XRAY, TMX_SCOPE_COMMON_CONTEXT, "cpu" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fcb_trace t;
		struct tmx_field_class *none = NULL, *root = fcb_struct(2, fcb_u8(), fcb_u8());
		struct tmx_value v[3] = {
			{ .fc = root, .n_members = 2 }, { .fc = root->members[0].fc, .u = 5 },
			{ .fc = root->members[1].fc, .u = 3 },
		};
		struct tmx_event ev = { 0 };
		enum tmx_scope scope;
		uint64_t cpu = 99;

		fcb_trace_init(&t, 0, 1, &none);
		t.tc.format = cases[i].format;
		ev.cls = &t.ec[0];
		/* Another name: no CPU. */
		*(cases[i].scope == TMX_SCOPE_PACKET_CONTEXT ? &t.sc.packet_context
							     : &t.sc.event_common_context) = root;
		ev.scopes[cases[i].scope] = v;
		assert_null(tmx_stream_class_cpu_field(&t.sc, &scope));
		assert_false(tmx_event_cpu(&ev, &cpu));
		/* The format's name, second member. */
		root->members[1].name = (char *)cases[i].name;
		assert_string_equal(tmx_stream_class_cpu_field(&t.sc, &scope), cases[i].name);
		assert_int_equal(scope, cases[i].scope);
		assert_true(tmx_event_cpu(&ev, &cpu));
		assert_int_equal(cpu, 3);
		/* Not an integer: no CPU. */
		root->members[1].fc = fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0);
		assert_null(tmx_stream_class_cpu_field(&t.sc, &scope));
	}
	fcb_free_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_and_types),
		cmocka_unit_test(test_field_class_accessors),
		cmocka_unit_test(test_event_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
