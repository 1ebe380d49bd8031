/*
 * The CTF writer's metadata generation (src/sink/ctf/tsdl_gen.c).
 *
 * 1. TSDL names as babeltrace2's sink.ctf.fs writes them: every structure
 *    member gets a `_` (its output of smalltrace has `_str` for `str`);
 *    keywords and names starting with `_` are "protected".
 * 2. The meta-variant-* traces: babeltrace2 2.0.4's sink.ctf.fs writes
 *    the variant options so that they equal the tag's labels (`__PELCHAT`
 *    for the option `_PELCHAT` of label `__PELCHAT`, `_align` for the
 *    keyword option `align`).  Our metadata must name them the same way and
 *    read back to the same label -> option binding.
 * 3. A sequence whose length lives in a scope the writer replaces (the
 *    event header) gets a generated 32-bit length just before it, as
 *    babeltrace2 does when it cannot name the length field.
 * 4. Output directories (src/common/paths.c), as babeltrace2's
 *    sink.ctf.fs makes them (fs-sink-trace.c: sanitize_trace_path(),
 *    make_lttng_trace_path_rel()); the golden test also compares whole
 *    trees with babeltrace2 -o ctf.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/field_class.h"
#include "testutil.h"

#include "ctf/metadata.h"
#include "common/paths.h"
#include "sink/ctf/encode_plan.h"

#define BT_SUCCEED TMX_CORPUS "/babeltrace-tests/ctf-traces/succeed"

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static void test_names(void **state)
{
	char out[64];

	(void)state;
	cw_member_name("str", out, sizeof(out));
	assert_string_equal(out, "_str");
	cw_member_name("_x", out, sizeof(out));
	assert_string_equal(out, "__x");
	cw_member_name("a-b.c", out, sizeof(out));
	assert_string_equal(out, "_a_b_c");
	cw_member_name("align", out, sizeof(out));
	assert_string_equal(out, "_align");
	cw_member_name("", out, sizeof(out));
	assert_string_equal(out, "_");
	cw_member_name("abcdef", out, 4);
	assert_string_equal(out, "_ab");

	assert_true(cw_must_protect("align"));
	assert_true(cw_must_protect("_Bool"));
	assert_true(cw_must_protect("_x"));
	assert_false(cw_must_protect("x"));
	assert_false(cw_must_protect("aligned"));

	assert_true(cw_is_identifier("x_1"));
	assert_false(cw_is_identifier("1x"));
	assert_false(cw_is_identifier("a b"));
	assert_false(cw_is_identifier("struct"));
	assert_false(cw_is_identifier(""));
}

static struct tmx_trace_class *parse(const char *text, size_t len, struct tmx_arena *arena)
{
	struct tmx_trace_class *tc = NULL;
	struct tmx_error err = { 0 };
	int ret;

	tmx_arena_init(arena);
	ret = ctf_metadata_parse(text, len, "metadata", NULL, arena, &tc, &err);
	if (ret)
		fail_msg("parse: %s (line %u)", err.msg, err.line);
	return tc;
}

/* The payload's member `name` of the first event class. */
static const struct tmx_field_class *payload_member(const struct tmx_trace_class *tc,
						    const char *name)
{
	const struct tmx_field_class *p = tc->stream_classes[0]->event_classes[0]->payload;

	for (size_t i = 0; i < p->n_members; i++)
		if (!strcmp(p->members[i].name, name))
			return p->members[i].fc;
	fail_msg("no member %s", name);
	return NULL;
}

/*
 * Generates the metadata of a meta-variant trace, reads it back, and
 * compares the variant: option names (as shown), and which option each
 * label selects.
 */
static void round_trip_variant(const char *trace, const char *const *tsdl_options, size_t n)
{
	char path[512];
	size_t len = 0;
	char *text;
	struct tmx_arena a1, a2;
	struct tmx_trace_class *in, *out;
	struct cw_trace_plan plan;
	struct tmx_error err = { 0 };
	const struct tmx_field_class *v1, *v2;

	snprintf(path, sizeof(path), "%s/%s/metadata", BT_SUCCEED, trace);
	text = read_whole_file(path, &len);
	assert_non_null(text);
	in = parse(text, len, &a1);
	assert_int_equal(cw_plan_build(&plan, in, uuid, CW_CTF_1_8, &err), TMX_OK);
	out = parse(plan.metadata, plan.metadata_len, &a2);

	v1 = payload_member(in, "var");
	v2 = payload_member(out, "var");
	assert_int_equal(v1->n_members, n);
	assert_int_equal(v2->n_members, n);
	for (size_t o = 0; o < n; o++) {
		char decl[128];
		/* As babeltrace2 wrote it, e.g. `string { encoding = UTF8; } __PELCHAT;` */
		snprintf(decl, sizeof(decl), "} %s;\n", tsdl_options[o]);
		assert_non_null(strstr(plan.metadata, decl));
		assert_string_equal(v1->members[o].name, v2->members[o].name);
	}
	assert_int_equal(v1->tag->n_mappings, v2->tag->n_mappings);
	for (size_t m = 0; m < v1->tag->n_mappings; m++) {
		assert_string_equal(v1->tag->mappings[m].label, v2->tag->mappings[m].label);
		assert_int_equal(v1->option_for_mapping[m], v2->option_for_mapping[m]);
	}
	/* The tag is a member: escaped, and the variant refers to it by that name. */
	assert_non_null(strstr(plan.metadata, "variant <_tag> {"));
	cw_plan_free(&plan);
	tmx_arena_free(&a1);
	tmx_arena_free(&a2);
	free(text);
}

static void test_meta_variants(void **state)
{
	static const char *const none[] = { "COSSETTE", "PELCHAT", "VOISINE" };
	static const char *const one[] = { "COSSETTE", "PELCHAT", "_VOISINE" };
	static const char *const two[] = { "COSSETTE", "__PELCHAT", "VOISINE" };
	static const char *const same[] = { "COSSETTE", "_PELCHAT", "__PELCHAT" };
	static const char *const kw[] = { "_align", "_callsite", "_const", "_char", "_clock",
		"_double", "_enum", "_env", "_event", "_floating_point", "_float", "_integer",
		"_int", "_long", "_short", "_signed", "_stream", "_string", "_struct", "_trace",
		"_typealias", "_typedef", "_unsigned", "_variant", "_void", "__Bool", "__Complex",
		"__Imaginary" };

	(void)state;
	round_trip_variant("meta-variant-no-underscore", none, 3);
	round_trip_variant("meta-variant-one-underscore", one, 3);
	round_trip_variant("meta-variant-two-underscores", two, 3);
	round_trip_variant("meta-variant-same-with-underscore", same, 3);
	round_trip_variant("meta-variant-reserved-keywords", kw, 28);
}

static const char generated_length_tsdl[] =
	"/* CTF 1.8 */\n"
	"trace { major = 1; minor = 8; byte_order = le; };\n"
	"stream {\n"
	"  event.header := struct { integer { size = 8; align = 8; } id;\n"
	"                           integer { size = 8; align = 8; } n; };\n"
	"};\n"
	"event { name = e; id = 0;\n"
	"  fields := struct {\n"
	"    integer { size = 16; align = 8; } x[stream.event.header.n];\n"
	"    integer { size = 8; align = 8; } len;\n"
	"    string s[len];\n"
	"  };\n"
	"};\n";

static void test_generated_length(void **state)
{
	struct tmx_arena a1, a2;
	struct tmx_trace_class *in, *out;
	struct cw_trace_plan plan;
	struct tmx_error err = { 0 };
	const struct tmx_field_class *x, *s;

	(void)state;
	in = parse(generated_length_tsdl, sizeof(generated_length_tsdl) - 1, &a1);
	assert_int_equal(cw_plan_build(&plan, in, uuid, CW_CTF_1_8, &err), TMX_OK);
	/* The event header is the writer's own: the length of x comes just before x. */
	assert_non_null(strstr(plan.metadata, "integer { size = 32; align = 8; } __x_len;\n"));
	assert_non_null(strstr(plan.metadata, " _x[__x_len];\n"));
	/* A sibling length keeps its (escaped) name, as a relative reference. */
	assert_non_null(strstr(plan.metadata, " _s[_len];\n"));
	out = parse(plan.metadata, plan.metadata_len, &a2);
	x = payload_member(out, "x");
	s = payload_member(out, "s");
	assert_int_equal(x->kind, TMX_FC_SEQUENCE);
	assert_int_equal(s->kind, TMX_FC_SEQUENCE);
	assert_int_equal(x->elem->size, 16);
	assert_int_equal(s->elem->kind, TMX_FC_STRING);
	/* The packet context the writer adds, and the event header. */
	assert_non_null(strstr(plan.metadata, "packet_seq_num;"));
	assert_null(strstr(plan.metadata, "events_discarded;"));
	cw_plan_free(&plan);
	tmx_arena_free(&a1);
	tmx_arena_free(&a2);
}

static void test_trace_paths(void **state)
{
	static const char *const cases[][2] = {
		{ "host/a/b", "host/a/b" }, { ".", "_" }, { "..", "__" }, { "a/./b", "a/_/b" },
		{ "a/../b", "a/__/b" }, { "a/..b/.c", "a/..b/.c" }, { "a/b/", "a/b" }, { "", "trace" },
		{ "/", "trace" }, { "./..", "_/__" },
	};
	static const char env_tsdl[] =
		"/* CTF 1.8 */\n"
		"trace { major = 1; minor = 8; byte_order = le; };\n"
		"env { tracer_name = \"lttng-ust\"; tracer_major = 2; tracer_minor = 13;\n"
		"      hostname = \"h\"; trace_name = \"s\";\n"
		"      trace_creation_datetime = \"20200101T000000+0000\"; domain = \"ust\";\n"
		"      tracer_buffering_scheme = \"uid\"; tracer_buffering_id = 1000;\n"
		"      architecture_bit_width = 64; };\n"
		"event { name = e; fields := struct { string s; }; };\n";
	char out[256];
	struct tmx_arena a;
	struct tmx_trace_class *tc;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cw_sanitize_trace_path(cases[i][0], out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
	/* Cut to the size by whole components: `..xyz` must not become `..`. */
	cw_sanitize_trace_path("ab/..xyz", out, 6);
	assert_string_equal(out, "ab");
	cw_sanitize_trace_path("ab/..xyz", out, 9);
	assert_string_equal(out, "ab/..xyz");
	tc = parse(env_tsdl, sizeof(env_tsdl) - 1, &a);
	assert_true(cw_lttng_trace_path(tc, out, sizeof(out)));
	assert_string_equal(out, "h/s-20200101T000000+0000/ust/uid/1000/64-bit");
	tmx_arena_free(&a);
	/* LTTng before 2.11 has no such environment: the trace name is used. */
	static const char old_tsdl[] =
		"/* CTF 1.8 */ trace { major = 1; minor = 8; byte_order = le; };"
		"env { tracer_name = \"lttng-ust\"; tracer_major = 2; tracer_minor = 10; };"
		"event { name = e; };";
	tc = parse(old_tsdl, sizeof(old_tsdl) - 1, &a);
	assert_false(cw_lttng_trace_path(tc, out, sizeof(out)));
	tmx_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_meta_variants),
		cmocka_unit_test(test_generated_length),
		cmocka_unit_test(test_trace_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
