/*
 * The CTF writer's CTF 2 metadata (src/sink/ctf/json_gen.c) and its CTF 1.8
 * translation of the CTF 2 field classes (src/sink/ctf/tsdl_gen.c).
 *
 * 1. Every field class kind of the model, built by hand, gives the JSON
 *    that CTF2-SPEC-2.0 section 5.3 describes (exact text): integers of
 *    both signs with mappings (TSDL's repeated labels joined), variable-
 *    length integers, booleans, bit arrays and bit maps, floats, strings
 *    of every length kind and encoding, BLOBs, structures, arrays, text
 *    arrays and sequences (as static/dynamic-length strings), optionals
 *    with boolean and integer selectors, variants chosen by ranges or by a
 *    CTF 1.8 tag's mappings.
 * 2. Field locations: from the scope's root through structure members,
 *    into another scope, through an array only from inside its element;
 *    a length or selector that cannot be located is generated just before
 *    the field (`_NAME_len`, `_NAME_tag`, unique among the members).
 * 3. JSON strings escaped (quotes, backslashes, controls, invalid UTF-8).
 * 4. The fragments of a whole trace: preamble, trace class, one clock class
 *    for a clock two stream classes share (offset normalized, custom
 *    origin, accuracy), data stream classes, event record classes with
 *    LTTng's log level and EMF URI attributes.
 * 5. The metadata read back by tracemux's CTF 2 parser generates the same
 *    field classes again.
 * 6. CTF 1.8: the translations (a comment above each, as babeltrace 2.1),
 *    the TSDL read back, and the errors that name the field a version
 *    cannot describe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctf/metadata.h"
#include "model/field_class.h"
#include "sink/ctf/encode_plan.h"

static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static struct tmx_arena A;

/* ------------------------------------------------------------------ */
/* Building models                                                      */
/* ------------------------------------------------------------------ */

static struct tmx_field_class *fc_new(enum tmx_fc_kind kind, uint32_t size, uint32_t align)
{
	struct tmx_field_class *fc = tmx_arena_calloc(&A, 1, sizeof(*fc));

	assert_non_null(fc);
	fc->kind = kind;
	fc->size = size;
	fc->align = align;
	fc->base = 10;
	fc->slot = fc->ref_slot = -1;
	return fc;
}

static struct tmx_field_class *uint_(uint32_t size, uint32_t align)
{
	return fc_new(TMX_FC_INT, size, align);
}

static struct tmx_field_class *sint_(uint32_t size, uint32_t align)
{
	struct tmx_field_class *fc = fc_new(TMX_FC_INT, size, align);
	fc->is_signed = true;
	return fc;
}

static struct tmx_field_class *slotted(struct tmx_field_class *fc, int32_t slot)
{
	fc->slot = slot;
	return fc;
}

static struct tmx_field_class *varint(bool is_signed)
{
	struct tmx_field_class *fc = fc_new(TMX_FC_INT, 64, 8);
	fc->varlen = true;
	fc->is_signed = is_signed;
	return fc;
}

static struct tmx_enum_range *ranges(size_t n, ...)
{
	struct tmx_enum_range *r = tmx_arena_calloc(&A, n, sizeof(*r));
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		r[i].lower = (uint64_t)va_arg(ap, long long);
		r[i].upper = (uint64_t)va_arg(ap, long long);
	}
	va_end(ap);
	return r;
}

/* Adds mapping `label` with one range [lo, hi] (a repeated label adds another). */
static void map_(struct tmx_field_class *fc, const char *label, long long lo, long long hi)
{
	struct tmx_enum_mapping *m = tmx_arena_grow(&A, fc->mappings, fc->n_mappings,
						    fc->n_mappings + 1, sizeof(*m));
	assert_non_null(m);
	fc->mappings = m;
	m = &fc->mappings[fc->n_mappings++];
	m->label = tmx_arena_strdup(&A, label);
	m->n_ranges = 1;
	m->ranges = ranges(1, lo, hi);
}

static struct tmx_field_class *string_(uint8_t length_kind, uint8_t enc, uint64_t length,
				       int32_t ref_slot)
{
	struct tmx_field_class *fc = fc_new(TMX_FC_STRING, 0, 8);
	fc->str_length = length_kind;
	fc->str_encoding = enc;
	fc->length = length;
	fc->ref_slot = ref_slot;
	return fc;
}

static struct tmx_field_class *array_(enum tmx_fc_kind kind, struct tmx_field_class *elem,
				      uint64_t length, int32_t ref_slot)
{
	struct tmx_field_class *fc = fc_new(kind, 0, elem->align);
	fc->elem = elem;
	fc->length = length;
	fc->ref_slot = ref_slot;
	return fc;
}

/* A structure (or variant) of `n` (name, class) pairs. */
static struct tmx_field_class *compound(enum tmx_fc_kind kind, size_t n, ...)
{
	struct tmx_field_class *fc = fc_new(kind, 0, 1);
	va_list ap;

	fc->n_members = n;
	fc->members = tmx_arena_calloc(&A, n ? n : 1, sizeof(*fc->members));
	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		fc->members[i].name = tmx_arena_strdup(&A, va_arg(ap, const char *));
		fc->members[i].fc = va_arg(ap, struct tmx_field_class *);
		if (fc->members[i].fc->align > fc->align)
			fc->align = fc->members[i].fc->align;
	}
	va_end(ap);
	return fc;
}

#define st(...) compound(TMX_FC_STRUCT, __VA_ARGS__)

static struct tmx_trace_class *trace_(struct tmx_field_class *common, struct tmx_field_class *payload)
{
	struct tmx_trace_class *tc = tmx_arena_calloc(&A, 1, sizeof(struct tmx_trace_class_impl));
	struct tmx_stream_class *sc = tmx_arena_calloc(&A, 1, sizeof(*sc));
	struct tmx_event_class *ec = tmx_arena_calloc(&A, 1, sizeof(*ec));

	tc->major = 2;
	tmx_tc_impl(tc)->n_slots = 8;
	tc->n_stream_classes = 1;
	tc->stream_classes = tmx_arena_calloc(&A, 1, sizeof(*tc->stream_classes));
	tc->stream_classes[0] = sc;
	sc->trace_class = tc;
	sc->event_common_context = common;
	sc->n_event_classes = 1;
	sc->event_classes = tmx_arena_calloc(&A, 1, sizeof(*sc->event_classes));
	sc->event_classes[0] = ec;
	ec->name = tmx_arena_strdup(&A, "e");
	ec->log_level = TMX_LOG_LEVEL_NONE;
	ec->payload = payload;
	ec->stream_class = sc;
	return tc;
}

static char *generate(const struct tmx_trace_class *tc, enum cw_version version)
{
	struct cw_trace_plan plan;
	struct tmx_error err = { 0 };
	char *text;

	if (cw_plan_build(&plan, tc, uuid, version, &err))
		fail_msg("cw_plan_build: %s", err.msg);
	text = strdup(plan.metadata);
	cw_plan_free(&plan);
	return text;
}

/* The value of `"KEY":` in the metadata, up to the end of its fragment's object. */
static char *property(const char *text, const char *key)
{
	char pattern[128];
	const char *at, *end;
	char *out;

	snprintf(pattern, sizeof(pattern), "\"%s\":", key);
	at = strstr(text, pattern);
	if (!at)
		fail_msg("no %s in:\n%s", key, text);
	at += strlen(pattern);
	end = strchr(at, '\n');
	assert_non_null(end);
	end--;   /* the fragment's closing brace */
	out = strndup(at, (size_t)(end - at));
	return out;
}

static void expect_payload(const struct tmx_trace_class *tc, const char *members)
{
	char *text = generate(tc, CW_CTF_2);
	char *got = property(text, "payload-field-class");
	char want[8192], align[64] = "";
	uint32_t a = tc->stream_classes[0]->event_classes[0]->payload->align;

	if (a > 1)
		snprintf(align, sizeof(align), ",\"minimum-alignment\":%u", a);
	snprintf(want, sizeof(want), "{\"type\":\"structure\",\"member-classes\":[%s]%s}", members,
		 align);
	assert_string_equal(got, want);
	free(got);
	free(text);
}

#define FIELD(name, fc_json) "{\"name\":\"" name "\",\"field-class\":" fc_json "}"
#define LE "\"byte-order\":\"little-endian\""
#define BE "\"byte-order\":\"big-endian\""
#define LOC(origin, path) "{\"origin\":\"" origin "\",\"path\":[" path "]}"
#define GEN_LEN(name) FIELD(name, "{\"type\":\"fixed-length-unsigned-integer\",\"length\":32," LE \
			     ",\"alignment\":8}")

static int setup(void **state)
{
	(void)state;
	tmx_arena_init(&A);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tmx_arena_free(&A);
	return 0;
}

/* ------------------------------------------------------------------ */
/* 1. Field classes                                                     */
/* ------------------------------------------------------------------ */

static void test_integers(void **state)
{
	struct tmx_field_class *a = uint_(32, 8), *b = sint_(5, 1), *c = sint_(16, 8), *e = varint(true);
	struct tmx_field_class *d = varint(false), *f = uint_(64, 8);

	(void)state;
	a->base = 16;
	b->byte_order = TMX_BO_BE;
	c->kind = TMX_FC_ENUM;
	map_(c, "NEG", -10, -1);
	map_(c, "POS", 1, 5);
	map_(c, "POS", 7, 7);   /* TSDL may repeat a label: one property */
	d->base = 8;
	e->kind = TMX_FC_ENUM;
	map_(e, "M", -1, -1);
	f->kind = TMX_FC_ENUM;
	map_(f, "BIG", 128, (long long)UINT64_MAX);
	expect_payload(trace_(NULL, st(6, "a", a, "b", b, "c", c, "d", d, "e", e, "f", f)),
		FIELD("a", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":32," LE
			   ",\"alignment\":8,\"preferred-display-base\":16}") ","
		FIELD("b", "{\"type\":\"fixed-length-signed-integer\",\"length\":5," BE "}") ","
		FIELD("c", "{\"type\":\"fixed-length-signed-integer\",\"length\":16," LE ",\"alignment\":8,"
			   "\"mappings\":{\"NEG\":[[-10,-1]],\"POS\":[[1,5],[7,7]]}}") ","
		FIELD("d", "{\"type\":\"variable-length-unsigned-integer\",\"preferred-display-base\":8}") ","
		FIELD("e", "{\"type\":\"variable-length-signed-integer\",\"mappings\":{\"M\":[[-1,-1]]}}") ","
		FIELD("f", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":64," LE ",\"alignment\":8,"
			   "\"mappings\":{\"BIG\":[[128,18446744073709551615]]}}"));
}

static void test_bits_and_floats(void **state)
{
	struct tmx_field_class *b = fc_new(TMX_FC_BOOL, 8, 8), *ba = fc_new(TMX_FC_BIT_ARRAY, 13, 1);
	struct tmx_field_class *bm = fc_new(TMX_FC_BIT_ARRAY, 8, 8), *f = fc_new(TMX_FC_FLOAT, 32, 32);
	struct tmx_field_class *d = fc_new(TMX_FC_FLOAT, 64, 8);

	(void)state;
	map_(bm, "A", 0, 0);
	map_(bm, "HIGH", 4, 7);
	f->byte_order = TMX_BO_BE;
	expect_payload(trace_(NULL, st(5, "b", b, "ba", ba, "bm", bm, "f", f, "d", d)),
		FIELD("b", "{\"type\":\"fixed-length-boolean\",\"length\":8," LE ",\"alignment\":8}") ","
		FIELD("ba", "{\"type\":\"fixed-length-bit-array\",\"length\":13," LE "}") ","
		FIELD("bm", "{\"type\":\"fixed-length-bit-map\",\"length\":8," LE ",\"alignment\":8,"
			    "\"flags\":{\"A\":[[0,0]],\"HIGH\":[[4,7]]}}") ","
		FIELD("f", "{\"type\":\"fixed-length-floating-point-number\",\"length\":32," BE
			   ",\"alignment\":32}") ","
		FIELD("d", "{\"type\":\"fixed-length-floating-point-number\",\"length\":64," LE
			   ",\"alignment\":8}"));
}

static void test_strings_and_blobs(void **state)
{
	struct tmx_field_class *blob = fc_new(TMX_FC_BLOB, 0, 8), *dblob = fc_new(TMX_FC_BLOB, 0, 8);

	(void)state;
	blob->length = 16;
	blob->media_type = tmx_arena_strdup(&A, "image/png");
	dblob->ref_slot = 1;
	expect_payload(trace_(NULL, st(8,
		"nt", string_(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0, -1),
		"nt16", string_(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16LE, 0, -1),
		"s32", string_(TMX_STR_STATIC, TMX_STR_UTF32BE, 6, -1),
		"len", slotted(uint_(8, 8), 0),
		"ds", string_(TMX_STR_DYNAMIC, TMX_STR_UTF8, 0, 0),
		"blob", blob,
		"blen", slotted(uint_(16, 8), 1),
		"db", dblob)),
		FIELD("nt", "{\"type\":\"null-terminated-string\"}") ","
		FIELD("nt16", "{\"type\":\"null-terminated-string\",\"encoding\":\"utf-16le\"}") ","
		FIELD("s32", "{\"type\":\"static-length-string\",\"length\":6,\"encoding\":\"utf-32be\"}") ","
		FIELD("len", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8," LE
			     ",\"alignment\":8}") ","
		FIELD("ds", "{\"type\":\"dynamic-length-string\",\"length-field-location\":"
			    LOC("event-record-payload", "\"len\"") "}") ","
		FIELD("blob", "{\"type\":\"static-length-blob\",\"length\":16,\"media-type\":\"image/png\"}") ","
		FIELD("blen", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":16," LE
			      ",\"alignment\":8}") ","
		FIELD("db", "{\"type\":\"dynamic-length-blob\",\"length-field-location\":"
			    LOC("event-record-payload", "\"blen\"") "}"));
}

#define U8 "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8," LE ",\"alignment\":8}"
#define U16A16 "{\"type\":\"fixed-length-unsigned-integer\",\"length\":16," LE ",\"alignment\":16}"
#define U32 "{\"type\":\"fixed-length-unsigned-integer\",\"length\":32," LE ",\"alignment\":8}"

static void test_compounds(void **state)
{
	struct tmx_field_class *chr = uint_(8, 8), *text = array_(TMX_FC_ARRAY, chr, 4, -1);
	struct tmx_field_class *chr2 = uint_(8, 8), *tseq = array_(TMX_FC_SEQUENCE, chr2, 0, 0);

	(void)state;
	chr->encoding = chr2->encoding = TMX_ENC_UTF8;
	text->is_text = tseq->is_text = true;
	expect_payload(trace_(NULL, st(5,
		"inner", st(2, "x", uint_(8, 8), "n", slotted(uint_(32, 8), 0)),
		"arr", array_(TMX_FC_ARRAY, uint_(16, 16), 3, -1),
		"seq", array_(TMX_FC_SEQUENCE, uint_(8, 8), 0, 0),
		"text", text,
		"tseq", tseq)),
		FIELD("inner", "{\"type\":\"structure\",\"member-classes\":[" FIELD("x", U8) ","
			       FIELD("n", U32) "],\"minimum-alignment\":8}") ","
		FIELD("arr", "{\"type\":\"static-length-array\",\"length\":3,\"minimum-alignment\":16,"
			     "\"element-field-class\":" U16A16 "}") ","
		/* The length through a nested structure: its path has both names. */
		FIELD("seq", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			     LOC("event-record-payload", "\"inner\",\"n\"") ",\"minimum-alignment\":8,"
			     "\"element-field-class\":" U8 "}") ","
		/* CTF 1.8 text arrays and sequences: strings, as babeltrace 2.1 reads them. */
		FIELD("text", "{\"type\":\"static-length-string\",\"length\":4}") ","
		FIELD("tseq", "{\"type\":\"dynamic-length-string\",\"length-field-location\":"
			      LOC("event-record-payload", "\"inner\",\"n\"") "}"));
}

static void test_optionals(void **state)
{
	struct tmx_field_class *sel = slotted(fc_new(TMX_FC_BOOL, 8, 8), 0);
	struct tmx_field_class *isel = slotted(sint_(8, 8), 1);
	struct tmx_field_class *o1 = fc_new(TMX_FC_OPTIONAL, 0, 1), *o2 = fc_new(TMX_FC_OPTIONAL, 0, 1);
	struct tmx_field_class *o3 = fc_new(TMX_FC_OPTIONAL, 0, 1);

	(void)state;
	o1->elem = uint_(8, 8);
	o1->ref_slot = 0;
	o1->tag = sel;
	o2->elem = string_(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0, -1);
	o2->ref_slot = 1;
	o2->tag = isel;
	o2->n_ranges = 1;
	o2->ranges = ranges(1, -5LL, -1LL);
	o3->elem = uint_(8, 8);   /* no selector in the model: a boolean is generated */
	expect_payload(trace_(NULL, st(5, "sel", sel, "o1", o1, "isel", isel, "o2", o2, "o3", o3)),
		FIELD("sel", "{\"type\":\"fixed-length-boolean\",\"length\":8," LE ",\"alignment\":8}") ","
		FIELD("o1", "{\"type\":\"optional\",\"selector-field-location\":"
			    LOC("event-record-payload", "\"sel\"") ",\"field-class\":" U8 "}") ","
		FIELD("isel", "{\"type\":\"fixed-length-signed-integer\",\"length\":8," LE
			      ",\"alignment\":8}") ","
		FIELD("o2", "{\"type\":\"optional\",\"selector-field-location\":"
			    LOC("event-record-payload", "\"isel\"") ",\"selector-field-ranges\":[[-5,-1]],"
			    "\"field-class\":{\"type\":\"null-terminated-string\"}}") ","
		FIELD("_o3_tag", "{\"type\":\"fixed-length-boolean\",\"length\":8," LE
				 ",\"alignment\":8}") ","
		FIELD("o3", "{\"type\":\"optional\",\"selector-field-location\":"
			    LOC("event-record-payload", "\"_o3_tag\"") ",\"field-class\":" U8 "}"));
}

static void test_variants(void **state)
{
	struct tmx_field_class *sel = slotted(sint_(8, 8), 0), *v = compound(TMX_FC_VARIANT, 2,
		"neg", uint_(8, 8), "pos", string_(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0, -1));
	struct tmx_field_class *tag = slotted(uint_(8, 8), 1), *v2;
	struct tmx_field_class *tag3 = slotted(uint_(8, 8), 2), *v3;
	static int32_t ofm[3] = { 0, 1, 1 }, ofm3[2] = { 0, 1 };

	(void)state;
	v->ref_slot = 0;
	v->tag = sel;
	v->members[0].n_ranges = 1;
	v->members[0].ranges = ranges(1, -128LL, -1LL);
	v->members[1].n_ranges = 1;
	v->members[1].ranges = ranges(1, 0LL, 127LL);
	/* CTF 1.8: options chosen by the tag's labels, B by two of them. */
	tag->kind = TMX_FC_ENUM;
	map_(tag, "A", 0, 0);
	map_(tag, "B", 1, 2);
	map_(tag, "B2", 3, 3);
	v2 = compound(TMX_FC_VARIANT, 2, "A", uint_(8, 8), "B", uint_(8, 8));
	v2->ref_slot = 1;
	v2->tag = tag;
	v2->option_for_mapping = ofm;
	/* Overlapping mappings cannot be CTF 2 ranges: a generated selector. */
	tag3->kind = TMX_FC_ENUM;
	map_(tag3, "X", 0, 5);
	map_(tag3, "Y", 3, 9);
	v3 = compound(TMX_FC_VARIANT, 2, "X", uint_(8, 8), "Y", uint_(8, 8));
	v3->ref_slot = 2;
	v3->tag = tag3;
	v3->option_for_mapping = ofm3;
	expect_payload(trace_(NULL, st(6, "sel", sel, "v", v, "tag", tag, "v2", v2, "tag3", tag3,
				       "v3", v3)),
		FIELD("sel", "{\"type\":\"fixed-length-signed-integer\",\"length\":8," LE
			     ",\"alignment\":8}") ","
		FIELD("v", "{\"type\":\"variant\",\"selector-field-location\":"
			   LOC("event-record-payload", "\"sel\"") ",\"options\":["
			   "{\"name\":\"neg\",\"selector-field-ranges\":[[-128,-1]],\"field-class\":" U8 "},"
			   "{\"name\":\"pos\",\"selector-field-ranges\":[[0,127]],"
			   "\"field-class\":{\"type\":\"null-terminated-string\"}}]}") ","
		FIELD("tag", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8," LE ",\"alignment\":8,"
			     "\"mappings\":{\"A\":[[0,0]],\"B\":[[1,2]],\"B2\":[[3,3]]}}") ","
		FIELD("v2", "{\"type\":\"variant\",\"selector-field-location\":"
			    LOC("event-record-payload", "\"tag\"") ",\"options\":["
			    "{\"name\":\"A\",\"selector-field-ranges\":[[0,0]],\"field-class\":" U8 "},"
			    "{\"name\":\"B\",\"selector-field-ranges\":[[1,2],[3,3]],\"field-class\":" U8 "}]}")
		","
		FIELD("tag3", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8," LE ",\"alignment\":8,"
			      "\"mappings\":{\"X\":[[0,5]],\"Y\":[[3,9]]}}") ","
		FIELD("_v3_tag", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":16," LE
				 ",\"alignment\":8}") ","
		FIELD("v3", "{\"type\":\"variant\",\"selector-field-location\":"
			    LOC("event-record-payload", "\"_v3_tag\"") ",\"options\":["
			    "{\"name\":\"X\",\"selector-field-ranges\":[[0,0]],\"field-class\":" U8 "},"
			    "{\"name\":\"Y\",\"selector-field-ranges\":[[1,1]],\"field-class\":" U8 "}]}"));
}

/* CTF 2 options may be unnamed (the model's empty names): no `name` written. */
static void test_unnamed_options(void **state)
{
	struct tmx_field_class *sel = slotted(uint_(8, 8), 0);
	struct tmx_field_class *v = compound(TMX_FC_VARIANT, 2, "", uint_(8, 8), "", uint_(8, 8));

	(void)state;
	v->ref_slot = 0;
	v->tag = sel;
	v->members[0].n_ranges = v->members[1].n_ranges = 1;
	v->members[0].ranges = ranges(1, 0LL, 0LL);
	v->members[1].ranges = ranges(1, 1LL, 1LL);
	expect_payload(trace_(NULL, st(2, "sel", sel, "v", v)),
		FIELD("sel", U8) ","
		FIELD("v", "{\"type\":\"variant\",\"selector-field-location\":"
			   LOC("event-record-payload", "\"sel\"") ",\"options\":["
			   "{\"selector-field-ranges\":[[0,0]],\"field-class\":" U8 "},"
			   "{\"selector-field-ranges\":[[1,1]],\"field-class\":" U8 "}]}"));
}

/* ------------------------------------------------------------------ */
/* 2. Field locations                                                   */
/* ------------------------------------------------------------------ */

static void test_locations(void **state)
{
	/* From inside an array element: through the array (the element being decoded). */
	struct tmx_field_class *elem = st(2, "n", slotted(uint_(8, 8), 0),
					  "d", array_(TMX_FC_SEQUENCE, uint_(8, 8), 0, 0));
	/* From outside an array: no element to locate, generated (a `_d2_len` exists: one more `_`). */
	struct tmx_field_class *outside = array_(TMX_FC_SEQUENCE, uint_(8, 8), 0, 1);
	/* No length in the model at all (trace.dat's __data_loc arrays). */
	struct tmx_field_class *none = array_(TMX_FC_SEQUENCE, uint_(8, 8), 0, -1);
	/* In another scope. */
	struct tmx_field_class *other = array_(TMX_FC_SEQUENCE, uint_(8, 8), 0, 2);

	(void)state;
	expect_payload(trace_(st(1, "cc_len", slotted(uint_(32, 8), 2)),
			      st(6, "arr", array_(TMX_FC_ARRAY, elem, 2, -1),
				 "arr2", array_(TMX_FC_ARRAY, st(1, "n2", slotted(uint_(8, 8), 1)), 2, -1),
				 "_d2_len", uint_(8, 8), "d2", outside, "s", none, "o", other)),
		FIELD("arr", "{\"type\":\"static-length-array\",\"length\":2,\"minimum-alignment\":8,"
			     "\"element-field-class\":{\"type\":\"structure\",\"member-classes\":["
			     FIELD("n", U8) ","
			     FIELD("d", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
					LOC("event-record-payload", "\"arr\",\"n\"")
					",\"minimum-alignment\":8,\"element-field-class\":" U8 "}")
			     "],\"minimum-alignment\":8}}") ","
		FIELD("arr2", "{\"type\":\"static-length-array\",\"length\":2,\"minimum-alignment\":8,"
			      "\"element-field-class\":{\"type\":\"structure\",\"member-classes\":["
			      FIELD("n2", U8) "],\"minimum-alignment\":8}}") ","
		FIELD("_d2_len", U8) ","
		GEN_LEN("__d2_len") ","
		FIELD("d2", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			    LOC("event-record-payload", "\"__d2_len\"") ",\"minimum-alignment\":8,"
			    "\"element-field-class\":" U8 "}") ","
		GEN_LEN("_s_len") ","
		FIELD("s", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			   LOC("event-record-payload", "\"_s_len\"") ",\"minimum-alignment\":8,"
			   "\"element-field-class\":" U8 "}") ","
		FIELD("o", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			   LOC("event-record-common-context", "\"cc_len\"") ",\"minimum-alignment\":8,"
			   "\"element-field-class\":" U8 "}"));
}

/* A length in the packet context: located there, unless it has a meaning (the writer's own). */
static void test_packet_context_locations(void **state)
{
	struct tmx_field_class *size = slotted(uint_(64, 8), 0), *len = slotted(uint_(16, 8), 1);
	struct tmx_trace_class *tc;
	char *text, *got;

	(void)state;
	size->meaning = TMX_MEANING_PACKET_SIZE;
	tc = trace_(NULL, st(2, "a", array_(TMX_FC_SEQUENCE, uint_(8, 8), 0, 0),
			     "b", array_(TMX_FC_SEQUENCE, uint_(8, 8), 0, 1)));
	tc->stream_classes[0]->packet_context = st(3, "packet_size", size, "len", len,
						  "packet_seq_num", uint_(8, 8));
	tc->major = 1;   /* a CTF input: its packet properties are kept, none here */
	text = generate(tc, CW_CTF_2);
	got = property(text, "payload-field-class");
	assert_string_equal(got, "{\"type\":\"structure\",\"member-classes\":["
		GEN_LEN("_a_len") ","
		FIELD("a", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			   LOC("event-record-payload", "\"_a_len\"") ",\"minimum-alignment\":8,"
			   "\"element-field-class\":" U8 "}") ","
		FIELD("b", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			   LOC("packet-context", "\"len\"") ",\"minimum-alignment\":8,"
			   "\"element-field-class\":" U8 "}")
		"],\"minimum-alignment\":8}");
	free(got);
	/* The writer's own members, then the input's (a clash made unique: one more `_`). */
	got = property(text, "packet-context-field-class");
	assert_non_null(strstr(got, FIELD("packet_size", "{\"type\":\"fixed-length-unsigned-integer\","
			       "\"length\":64," LE ",\"alignment\":8,\"roles\":[\"packet-total-length\"]}")));
	assert_non_null(strstr(got, "{\"name\":\"_packet_seq_num\",\"field-class\":{\"type\":"
			       "\"fixed-length-unsigned-integer\",\"length\":64," LE ",\"alignment\":8,"
			       "\"roles\":[\"packet-sequence-number\"]}}," FIELD("len",
			       "{\"type\":\"fixed-length-unsigned-integer\",\"length\":16," LE
			       ",\"alignment\":8}") "," FIELD("packet_seq_num", U8)));
	assert_null(strstr(got, "events_discarded"));
	assert_null(strstr(got, "timestamp_begin"));
	free(got);
	free(text);
}

/* ------------------------------------------------------------------ */
/* 3. JSON strings                                                      */
/* ------------------------------------------------------------------ */

static void test_escapes(void **state)
{
	(void)state;
	expect_payload(trace_(NULL, st(4, "q\"b\\s", uint_(8, 8), "c\x01\n", uint_(8, 8),
				       "bad\xff\xc3", uint_(8, 8), "\xc3\xa9t\xc3\xa9", uint_(8, 8))),
		FIELD("q\\\"b\\\\s", U8) "," FIELD("c\\u0001\\n", U8) ","
		FIELD("bad\\u00ff\\u00c3", U8) "," FIELD("\xc3\xa9t\xc3\xa9", U8));
}

/* ------------------------------------------------------------------ */
/* 4. Fragments                                                         */
/* ------------------------------------------------------------------ */

static void test_fragments(void **state)
{
	struct tmx_clock_class *cc = tmx_arena_calloc(&A, 1, sizeof(*cc));
	struct tmx_trace_class *tc = trace_(NULL, st(1, "x", uint_(8, 8)));
	struct tmx_stream_class *sc2 = tmx_arena_calloc(&A, 1, sizeof(*sc2));
	struct tmx_event_class *ec2 = tmx_arena_calloc(&A, 1, sizeof(*ec2));
	struct tmx_env_entry env[2] = {
		{ .name = "a", .is_int = true, .int_value = -1 },
		{ .name = "b", .str_value = "x\ty" },
	};
	char *text;

	(void)state;
	cc->name = "clk";
	cc->description = "a clock";
	cc->frequency = 1000;
	cc->offset_s = 10;
	cc->offset_cycles = 2500;   /* 2 s and 500 cycles */
	cc->origin_ns = "o.ns";
	cc->origin_name = "on";
	cc->origin_uid = "ou";
	cc->has_accuracy = true;
	cc->accuracy = 7;
	tc->ns = "t.ns";
	tc->name = "tn";
	tc->uid = "tu";
	tc->n_env = 2;
	tc->env = env;
	tc->n_clocks = 1;
	tc->clocks = tmx_arena_calloc(&A, 1, sizeof(*tc->clocks));
	tc->clocks[0] = cc;
	tc->stream_classes[0]->default_clock = cc;
	tc->stream_classes[0]->event_classes[0]->log_level = 13;
	tc->stream_classes[0]->event_classes[0]->emf_uri = "http://e";
	/* A second stream class with the same clock: one clock class fragment. */
	sc2->id = 5;
	sc2->default_clock = cc;
	sc2->trace_class = tc;
	sc2->n_event_classes = 1;
	sc2->event_classes = tmx_arena_calloc(&A, 1, sizeof(*sc2->event_classes));
	sc2->event_classes[0] = ec2;
	ec2->id = 3;
	ec2->ns = "e.ns";
	ec2->uid = "eu";
	ec2->log_level = 99;   /* not one babeltrace2 knows: none written */
	ec2->stream_class = sc2;
	tc->n_stream_classes = 2;
	tc->stream_classes = tmx_arena_grow(&A, tc->stream_classes, 1, 2, sizeof(*tc->stream_classes));
	tc->stream_classes[1] = sc2;
	/* A CTF 2 input whose packets have no times nor counters: none written. */
	text = generate(tc, CW_CTF_2);
#define OWN(name, role) FIELD(name, "{\"type\":\"fixed-length-unsigned-integer\",\"length\":64," LE \
			       ",\"alignment\":8,\"roles\":[\"" role "\"]}")
#define DSC(id) "\x1e{\"type\":\"data-stream-class\",\"id\":" id ",\"default-clock-class-id\":\"clk\"," \
	"\"packet-context-field-class\":{\"type\":\"structure\",\"member-classes\":[" \
	OWN("packet_size", "packet-total-length") "," OWN("content_size", "packet-content-length") "," \
	OWN("packet_seq_num", "packet-sequence-number") "],\"minimum-alignment\":8}," \
	"\"event-record-header-field-class\":{\"type\":\"structure\",\"member-classes\":[" \
	OWN("id", "event-record-class-id") "," OWN("timestamp", "default-clock-timestamp") \
	"],\"minimum-alignment\":8}}\n"
	assert_string_equal(text,
		"\x1e{\"type\":\"preamble\",\"version\":2,\"uuid\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}\n"
		"\x1e{\"type\":\"trace-class\",\"namespace\":\"t.ns\",\"name\":\"tn\",\"uid\":\"tu\","
		"\"environment\":{\"a\":-1,\"b\":\"x\\ty\"},\"packet-header-field-class\":{\"type\":\"structure\","
		"\"member-classes\":[" FIELD("magic", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":32,"
		LE ",\"alignment\":8,\"preferred-display-base\":16,\"roles\":[\"packet-magic-number\"]}") ","
		FIELD("uuid", "{\"type\":\"static-length-blob\",\"length\":16,\"roles\":"
		"[\"metadata-stream-uuid\"]}") "," OWN("stream_id", "data-stream-class-id") ","
		OWN("stream_instance_id", "data-stream-id") "],\"minimum-alignment\":8}}\n"
		"\x1e{\"type\":\"clock-class\",\"id\":\"clk\",\"name\":\"clk\",\"description\":\"a clock\","
		"\"frequency\":1000,\"offset-from-origin\":{\"seconds\":12,\"cycles\":500},"
		"\"origin\":{\"namespace\":\"o.ns\",\"name\":\"on\",\"uid\":\"ou\"},\"accuracy\":7}\n"
		DSC("0")
		"\x1e{\"type\":\"event-record-class\",\"id\":0,\"data-stream-class-id\":0,\"name\":\"e\","
		"\"attributes\":{\"lttng.org,2009\":{\"log-level\":\"debug:line\",\"emf-uri\":\"http://e\"}},"
		"\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":[" FIELD("x", U8)
		"],\"minimum-alignment\":8}}\n"
		DSC("5")
		"\x1e{\"type\":\"event-record-class\",\"id\":3,\"data-stream-class-id\":5,\"namespace\":\"e.ns\","
		"\"uid\":\"eu\"}\n");
	free(text);
}

/* A CTF 1.8 input: its UUID as the trace class UID, its clock's as the clock's, Unix epoch. */
static void test_ctf18_identity(void **state)
{
	struct tmx_clock_class *cc = tmx_arena_calloc(&A, 1, sizeof(*cc));
	struct tmx_trace_class *tc = trace_(NULL, NULL);
	char *text;

	(void)state;
	tc->major = 1;
	tc->has_uuid = true;
	memcpy(tc->uuid, uuid, 16);
	cc->name = "monotonic";
	cc->frequency = 1000000000;
	cc->offset_s = -3;
	cc->origin_is_unix_epoch = true;
	cc->has_uuid = true;
	memset(cc->uuid, 0xab, 16);
	tc->stream_classes[0]->default_clock = cc;
	text = generate(tc, CW_CTF_2);
	assert_non_null(strstr(text, "\"type\":\"trace-class\",\"uid\":"
			       "\"01020304-0506-0708-090a-0b0c0d0e0f10\","));
	assert_non_null(strstr(text, "\x1e{\"type\":\"clock-class\",\"id\":\"monotonic\",\"name\":"
			       "\"monotonic\",\"uid\":\"abababab-abab-abab-abab-abababababab\","
			       "\"frequency\":1000000000,\"offset-from-origin\":{\"seconds\":-3,"
			       "\"cycles\":0},\"origin\":\"unix-epoch\",\"precision\":0}\n"));
	free(text);
}

/* ------------------------------------------------------------------ */
/* 5. Read back by the CTF 2 parser                                     */
/* ------------------------------------------------------------------ */

/* The event record class fragments (everything the model's classes give). */
static const char *event_classes(const char *text)
{
	const char *at = strstr(text, "\x1e{\"type\":\"event-record-class\"");
	assert_non_null(at);
	return at;
}

static void read_back(struct tmx_trace_class *tc)
{
	char *text = generate(tc, CW_CTF_2), *again;
	struct tmx_arena a2;
	struct tmx_trace_class *out = NULL;
	struct tmx_error err = { 0 };

	tmx_arena_init(&a2);
	if (ctf_metadata_parse(text, strlen(text), "metadata", NULL, &a2, &out, &err))
		fail_msg("the CTF 2 parser refuses the metadata: %s (%u:%u)\n%s", err.msg, err.line,
			 err.col, text);
	again = generate(out, CW_CTF_2);
	assert_string_equal(event_classes(again), event_classes(text));
	free(again);
	free(text);
	tmx_arena_free(&a2);
}

static void test_read_back(void **state)
{
	struct tmx_field_class *c = sint_(16, 8), *bm = fc_new(TMX_FC_BIT_ARRAY, 8, 8);
	struct tmx_field_class *blob = fc_new(TMX_FC_BLOB, 0, 8), *dblob = fc_new(TMX_FC_BLOB, 0, 8);
	struct tmx_field_class *bsel = slotted(fc_new(TMX_FC_BOOL, 8, 8), 2);
	struct tmx_field_class *isel = slotted(sint_(8, 8), 3), *o1, *o2, *v;

	(void)state;
	c->kind = TMX_FC_ENUM;
	map_(c, "NEG", -10, -1);
	map_(bm, "A", 0, 0);
	blob->length = 3;
	dblob->ref_slot = 1;
	o1 = fc_new(TMX_FC_OPTIONAL, 0, 1);
	o1->elem = varint(true);
	o1->ref_slot = 2;
	o1->tag = bsel;
	o2 = fc_new(TMX_FC_OPTIONAL, 0, 1);
	o2->elem = fc_new(TMX_FC_FLOAT, 64, 8);
	o2->ref_slot = 3;
	o2->tag = isel;
	o2->n_ranges = 1;
	o2->ranges = ranges(1, -5LL, -1LL);
	v = compound(TMX_FC_VARIANT, 2, "neg", uint_(8, 8),
		     "pos", string_(TMX_STR_STATIC, TMX_STR_UTF16BE, 4, -1));
	v->ref_slot = 3;
	v->tag = isel;
	v->members[0].n_ranges = v->members[1].n_ranges = 1;
	v->members[0].ranges = ranges(1, -128LL, -1LL);
	v->members[1].ranges = ranges(1, 0LL, 127LL);
	read_back(trace_(NULL, st(15, "c", c, "bm", bm, "b1", fc_new(TMX_FC_BOOL, 1, 1),
		"len", slotted(varint(false), 0),
		"ds", string_(TMX_STR_DYNAMIC, TMX_STR_UTF32LE, 0, 0),
		"blob", blob, "blen", slotted(uint_(16, 8), 1), "db", dblob,
		"bsel", bsel, "o1", o1, "isel", isel, "o2", o2, "v", v,
		"arr", array_(TMX_FC_SEQUENCE, st(1, "y", uint_(8, 8)), 0, 0),
		"gen", array_(TMX_FC_SEQUENCE, uint_(8, 8), 0, -1))));
}

/* ------------------------------------------------------------------ */
/* 6. CTF 1.8                                                           */
/* ------------------------------------------------------------------ */

static void test_ctf18_translations(void **state)
{
	struct tmx_field_class *blob = fc_new(TMX_FC_BLOB, 0, 8), *dblob = fc_new(TMX_FC_BLOB, 0, 8);
	struct tmx_field_class *bsel = slotted(fc_new(TMX_FC_BOOL, 8, 8), 1), *o = fc_new(TMX_FC_OPTIONAL, 0, 1);
	struct tmx_trace_class *tc, *out = NULL;
	struct tmx_arena a2;
	struct tmx_error err = { 0 };
	char *text;

	(void)state;
	blob->length = 16;
	dblob->ref_slot = 0;
	o->elem = uint_(16, 16);
	o->ref_slot = 1;
	o->tag = bsel;
	tc = trace_(NULL, st(9, "b", fc_new(TMX_FC_BOOL, 8, 8), "ba", fc_new(TMX_FC_BIT_ARRAY, 13, 1),
			     "v", varint(true), "s16", string_(TMX_STR_STATIC, TMX_STR_UTF16LE, 8, -1),
			     "blob", blob, "len", slotted(uint_(8, 8), 0), "db", dblob, "bsel", bsel,
			     "o", o));
	text = generate(tc, CW_CTF_1_8);
	assert_non_null(strstr(text,
		"\t\t/* The integer field class below was a CTF 2 boolean field class. */\n"
		"\t\tinteger { size = 8; align = 8; } _b;\n"
		"\t\t/* The integer field class below was a CTF 2 bit array field class. */\n"
		"\t\tinteger { size = 13; align = 1; base = x; } _ba;\n"
		"\t\tinteger { size = 64; align = 8; signed = true; } _v;\n"
		"\t\tstring { encoding = UTF8; } _s16;\n"
		"\t\t/* The array below was a CTF 2 BLOB field class. */\n"
		"\t\tinteger { size = 8; align = 8; base = x; } _blob[16];\n"
		"\t\tinteger { size = 8; align = 8; } _len;\n"
		"\t\t/* The array below was a CTF 2 BLOB field class. */\n"
		"\t\tinteger { size = 8; align = 8; base = x; } _db[_len];\n"
		"\t\t/* The integer field class below was a CTF 2 boolean field class. */\n"
		"\t\tinteger { size = 8; align = 8; } _bsel;\n"
		"\t\t/* The enumeration and variant field classes below were a CTF 2 optional field "
		"class. */\n"
		"\t\tenum : integer { size = 8; align = 8; } { none = 0, content = 1, } __o_tag;\n"
		"\t\tvariant <__o_tag> {\n"
		"\t\t\tstruct { } none;\n"
		"\t\t\tinteger { size = 16; align = 16; } content;\n"
		"\t\t} _o;\n"));
	/* It is TSDL a reader takes. */
	tmx_arena_init(&a2);
	if (ctf_metadata_parse(text, strlen(text), "metadata", NULL, &a2, &out, &err))
		fail_msg("%s (%u:%u)\n%s", err.msg, err.line, err.col, text);
	tmx_arena_free(&a2);
	free(text);
}

/* A generated tag needs a structure to be a member of: none in an array. */
static void test_ctf18_inexpressible(void **state)
{
	struct tmx_field_class *o = fc_new(TMX_FC_OPTIONAL, 0, 1);
	struct tmx_trace_class *tc;
	struct cw_trace_plan plan;
	struct tmx_error err = { 0 };
	char *text;

	(void)state;
	o->elem = uint_(8, 8);
	tc = trace_(NULL, st(1, "opts", array_(TMX_FC_ARRAY, o, 2, -1)));
	assert_int_equal(cw_plan_build(&plan, tc, uuid, CW_CTF_1_8, &err), TMX_ERR_UNSUPPORTED);
	cw_plan_free(&plan);
	assert_non_null(strstr(err.msg, "event class `e` (id 0), payload field `opts[]`: its tag cannot "
			       "be written in CTF 1.8"));
	/* CTF 2 generates a selector there neither: it names the field the same way. */
	assert_int_equal(cw_plan_build(&plan, tc, uuid, CW_CTF_2, &err), TMX_ERR_UNSUPPORTED);
	cw_plan_free(&plan);
	assert_non_null(strstr(err.msg, "payload field `opts[]`"));
	/* What neither version can write is named as well. */
	tc = trace_(NULL, st(1, "s", st(1, "f", fc_new(TMX_FC_FLOAT, 16, 8))));
	assert_int_equal(cw_plan_build(&plan, tc, uuid, CW_CTF_2, &err), TMX_ERR_UNSUPPORTED);
	cw_plan_free(&plan);
	assert_string_equal(err.msg, "CTF writer: event class `e` (id 0), payload field `s.f`: "
			    "16-bit floating point number");
	/* With its selector in the element, CTF 2 locates it. */
	o->ref_slot = 0;
	o->tag = slotted(fc_new(TMX_FC_BOOL, 8, 8), 0);
	tc = trace_(NULL, st(1, "opts", array_(TMX_FC_ARRAY, st(2, "sel", o->tag, "o", o), 2, -1)));
	text = generate(tc, CW_CTF_2);
	assert_non_null(strstr(text, LOC("event-record-payload", "\"opts\",\"sel\"")));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_integers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bits_and_floats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strings_and_blobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_optionals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_variants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unnamed_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_packet_context_locations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fragments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctf18_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctf18_translations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctf18_inexpressible, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
