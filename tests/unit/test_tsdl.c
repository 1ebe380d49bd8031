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
#define _XOPEN_SOURCE 700   /* nftw, clock_gettime */
#include <dirent.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "model/field_class.h"
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


/* ------------------------------------------------------------------ */
/* 2. The metadata of babeltrace's traces                               */
/* ------------------------------------------------------------------ */

/* Reads `path` (de-framing packetized metadata) and parses it. */
static int parse_metadata_file(const char *path, struct tmx_error *err)
{
	struct ctf_metadata_text text;
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	int ret = ctf_metadata_read(path, &text, err);

	if (ret)
		return ret;
	tmx_arena_init(&arena);
	ret = ctf_metadata_parse(text.text, text.len, path, NULL, &arena, &tc, err);
	tmx_arena_free(&arena);
	ctf_metadata_text_fini(&text);
	return ret;
}

/* nftw() callbacks take no user pointer. */
static int n_succeed_metadata, n_succeed_rejected;

static int parse_succeed_metadata(const char *path, const struct stat *st, int type,
				  struct FTW *ftw)
{
	struct tmx_error err = { 0 };

	(void)st;
	if (type != FTW_F || strcmp(path + ftw->base, "metadata"))
		return 0;
	n_succeed_metadata++;
	if (parse_metadata_file(path, &err)) {
		print_message("%s: %u:%u: %s\n", path, err.line, err.col, err.msg);
		n_succeed_rejected++;
	}
	return 0;
}

static void test_babeltrace_succeed_traces(void **state)
{
	(void)state;
	assert_int_equal(nftw(BT_DIR "/succeed", parse_succeed_metadata, 16, FTW_PHYS), 0);
	/* Text and packetized metadata, LTTng traces nested several levels deep. */
	assert_int_equal(n_succeed_metadata, 36);
	assert_int_equal(n_succeed_rejected, 0);
}

static void test_babeltrace_fail_traces(void **state)
{
	static const struct {
		const char *trace;
		uint32_t line, col;
		const char *msg;
	} cases[] = {
		/* The position of the wrong `major` value (checked after parsing). */
		{ "fail1", 15, 10, "unsupported CTF version 0.1" },
		{ "fail2", 12, 15, "NUL byte" },
		{ "integer-range", 7, 10, "does not fit in 64 bits" },
		{ "metadata-syntax-error", 3, 58, "expected an identifier, found `]`" },
		{ "invalid-sequence-length-field-class", 23, 13, "not an unsigned integer" },
		{ "invalid-variant-selector-field-class", 23, 21, "not an enumeration" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[1024];
		struct tmx_error err = { 0 };

		snprintf(path, sizeof(path), "%s/fail/%s/metadata", BT_DIR, cases[i].trace);
		assert_int_equal(parse_metadata_file(path, &err), TMX_ERR_METADATA);
		assert_string_equal(err.file, path);
		assert_int_equal(err.line, cases[i].line);
		assert_int_equal(err.col, cases[i].col);
		assert_non_null(strstr(err.msg, cases[i].msg));
	}
}

/* ------------------------------------------------------------------ */
/* 3. Hand-written metadata, checked in the resolved model              */
/* ------------------------------------------------------------------ */

#define TRACE_BE "trace { major = 1; minor = 8; byte_order = be; };\n"
#define TRACE_LE "trace { major = 1; minor = 8; byte_order = le; };\n"
#define UINT_ALIASES                                                   \
	"typealias integer { size = 8; } := uint8_t;\n"                \
	"typealias integer { size = 16; } := uint16_t;\n"              \
	"typealias integer { size = 32; } := uint32_t;\n"              \
	"typealias integer { size = 64; } := uint64_t;\n"

struct parsed {
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_error err;
	int n_warnings;
};

static void count_warning(void *user, const char *msg)
{
	(void)msg;
	((struct parsed *)user)->n_warnings++;
}

static int parse_text(struct parsed *pr, const char *text)
{
	const struct tmx_diag diag = { .warn = count_warning, .user = pr };

	memset(pr, 0, sizeof(*pr));
	tmx_arena_init(&pr->arena);
	return ctf_metadata_parse(text, strlen(text), "metadata", &diag, &pr->arena, &pr->tc,
				  &pr->err);
}

static struct tmx_trace_class *parse_ok(struct parsed *pr, const char *text)
{
	if (parse_text(pr, text)) {
		print_message("rejected: %u:%u: %s\n", pr->err.line, pr->err.col, pr->err.msg);
		fail();
	}
	return pr->tc;
}

/* `text` is rejected at line:col (col 0: any) with `msg` in the message. */
static void assert_rejected(const char *text, uint32_t line, uint32_t col, const char *msg)
{
	struct parsed pr;

	assert_int_not_equal(parse_text(&pr, text), TMX_OK);
	if (!strstr(pr.err.msg, msg) || pr.err.line != line || (col && pr.err.col != col))
		print_message("got %u:%u: %s\n", pr.err.line, pr.err.col, pr.err.msg);
	assert_int_equal(pr.err.line, line);
	if (col)
		assert_int_equal(pr.err.col, col);
	assert_non_null(strstr(pr.err.msg, msg));
	tmx_arena_free(&pr.arena);
}

static struct tmx_field_class *member(const struct tmx_field_class *fc, const char *name)
{
	assert_non_null(fc);
	for (size_t i = 0; i < fc->n_members; i++)
		if (!strcmp(fc->members[i].name, name))
			return fc->members[i].fc;
	print_message("no member `%s`\n", name);
	fail();
	return NULL;
}

static const struct tmx_event_class *event_named(const struct tmx_trace_class *tc,
						 const char *name)
{
	for (size_t s = 0; s < tc->n_stream_classes; s++)
		for (size_t e = 0; e < tc->stream_classes[s]->n_event_classes; e++)
			if (!strcmp(tc->stream_classes[s]->event_classes[e]->name, name))
				return tc->stream_classes[s]->event_classes[e];
	print_message("no event `%s`\n", name);
	fail();
	return NULL;
}

static struct tmx_field_class *field(const struct tmx_trace_class *tc, const char *event,
				     const char *name)
{
	return member(event_named(tc, event)->payload, name);
}

static void test_integers(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr, TRACE_BE
		"event { name = e; fields := struct {\n"
		"  integer { size = 8; } a;\n"
		"  integer { size = 3; } b;\n"
		"  integer { size = 16; align = 32; byte_order = le; signed = true; base = hex; } c;\n"
		"  integer { size = 32; byte_order = network; base = X; encoding = UTF8; } d;\n"
		"  integer { size = 64; byte_order = native; base = o; signed = 1; } e;\n"
		"  integer { size = 8; base = binary; encoding = ASCII; } f;\n"
		"  integer { size = 12; base = 16; signed = false; } g;\n"
		"}; };\n");
	const struct tmx_field_class *a = field(tc, "e", "a"), *b = field(tc, "e", "b");
	const struct tmx_field_class *c = field(tc, "e", "c"), *d = field(tc, "e", "d");
	const struct tmx_field_class *e = field(tc, "e", "e"), *f = field(tc, "e", "f");
	const struct tmx_field_class *g = field(tc, "e", "g");

	(void)state;
	assert_int_equal(tc->native_byte_order, TMX_BO_BE);
	/* Defaults: byte-aligned when the size is a multiple of 8, the trace's byte order. */
	assert_int_equal(a->kind, TMX_FC_INT);
	assert_int_equal(a->size, 8);
	assert_int_equal(a->align, 8);
	assert_int_equal(a->byte_order, TMX_BO_BE);
	assert_false(a->is_signed);
	assert_int_equal(a->base, 10);
	assert_int_equal(a->encoding, TMX_ENC_NONE);
	assert_int_equal(a->slot, -1);
	assert_int_equal(a->meaning, TMX_MEANING_NONE);
	assert_null(a->mapped_clock);
	assert_int_equal(b->align, 1);
	assert_int_equal(c->align, 32);
	assert_int_equal(c->byte_order, TMX_BO_LE);
	assert_true(c->is_signed);
	assert_int_equal(c->base, 16);
	assert_int_equal(d->byte_order, TMX_BO_BE);
	assert_int_equal(d->base, 16);
	assert_int_equal(d->encoding, TMX_ENC_UTF8);
	assert_int_equal(e->byte_order, TMX_BO_BE);
	assert_int_equal(e->base, 8);
	assert_true(e->is_signed);
	assert_int_equal(f->base, 2);
	assert_int_equal(f->encoding, TMX_ENC_ASCII);
	assert_int_equal(g->align, 1);
	assert_int_equal(g->base, 16);
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE "typealias integer { size = 0; } := z;\n", 2, 28, "between 1 and 64");
	assert_rejected(TRACE_BE "typealias integer { size = 65; } := z;\n", 2, 28, "between 1 and 64");
	assert_rejected(TRACE_BE "typealias integer { size = 8; align = 3; } := z;\n", 2, 39,
			"power of two");
	assert_rejected(TRACE_BE "typealias integer { align = 8; } := z;\n", 2, 0, "no `size`");
	assert_rejected(TRACE_BE "typealias integer { size = 8; base = 7; } := z;\n", 2, 38,
			"`base`");
	assert_rejected(TRACE_BE "typealias integer { size = 8; size = 16; } := z;\n", 2, 0,
			"duplicate attribute `size`");
}

/* Native byte order resolves to the trace's, wherever `trace` is declared. */
static void test_native_byte_order(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr,
		"typealias integer { size = 32; } := uint32_t;\n"
		"typealias floating_point { exp_dig = 8; mant_dig = 24; } := float;\n"
		"event { name = e; fields := struct { uint32_t a; float f; }; };\n"
		TRACE_LE);

	(void)state;
	assert_int_equal(tc->native_byte_order, TMX_BO_LE);
	assert_int_equal(field(tc, "e", "a")->byte_order, TMX_BO_LE);
	assert_int_equal(field(tc, "e", "f")->byte_order, TMX_BO_LE);
	tmx_arena_free(&pr.arena);
	assert_rejected("trace { major = 1; minor = 8; byte_order = native; };", 1, 44,
			"must be le, be or network");
	assert_rejected("trace { major = 1; minor = 8; };", 0, 0, "no `byte_order`");
}

static void test_floats_strings_structs_arrays(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"typealias integer { size = 32; align = 32; } := aligned32;\n"
		"typealias integer { size = 8; encoding = UTF8; } := char8;\n"
		"event { name = e; fields := struct {\n"
		"  floating_point { exp_dig = 8; mant_dig = 24; } f32;\n"
		"  floating_point { exp_dig = 11; mant_dig = 53; align = 64; byte_order = le; } f64;\n"
		"  string s;\n"
		"  string { encoding = ASCII; } s2;\n"
		"  struct { uint8_t a; aligned32 b; } st;\n"
		"  struct { uint8_t a; } align(64) st64;\n"
		"  struct { integer { size = 3; } a; } st1;\n"
		"  uint16_t arr[4];\n"
		"  uint32_t m[2][3];\n"
		"  char8 text[16];\n"
		"  uint8_t raw[16];\n"
		"  integer { size = 8; align = 16; encoding = UTF8; } wide[2];\n"
		"}; };\n");
	const struct tmx_field_class *f32 = field(tc, "e", "f32"), *f64 = field(tc, "e", "f64");
	const struct tmx_field_class *s = field(tc, "e", "s"), *s2 = field(tc, "e", "s2");
	const struct tmx_field_class *arr = field(tc, "e", "arr"), *m = field(tc, "e", "m");

	(void)state;
	assert_int_equal(f32->kind, TMX_FC_FLOAT);
	assert_int_equal(f32->exp_dig, 8);
	assert_int_equal(f32->mant_dig, 24);
	assert_int_equal(f32->size, 32);
	assert_int_equal(f32->align, 8);
	assert_int_equal(f32->byte_order, TMX_BO_BE);
	assert_int_equal(f64->size, 64);
	assert_int_equal(f64->align, 64);
	assert_int_equal(f64->byte_order, TMX_BO_LE);
	assert_int_equal(s->kind, TMX_FC_STRING);
	assert_int_equal(s->align, 8);
	assert_int_equal(s->encoding, TMX_ENC_UTF8);
	assert_int_equal(s2->encoding, TMX_ENC_ASCII);
	/* A structure aligns as its most aligned member, or more with align(N). */
	assert_int_equal(field(tc, "e", "st")->align, 32);
	assert_int_equal(field(tc, "e", "st64")->align, 64);
	assert_int_equal(field(tc, "e", "st1")->align, 1);
	assert_int_equal(arr->kind, TMX_FC_ARRAY);
	assert_int_equal(arr->length, 4);
	assert_int_equal(arr->align, 8);
	assert_int_equal(arr->elem->size, 16);
	assert_false(arr->is_text);
	/* `m[2][3]`: 2 arrays of 3, as in C. */
	assert_int_equal(m->length, 2);
	assert_int_equal(m->elem->kind, TMX_FC_ARRAY);
	assert_int_equal(m->elem->length, 3);
	assert_int_equal(m->elem->elem->size, 32);
	/* Byte-aligned 8-bit integers with an encoding are text, others are not. */
	assert_true(field(tc, "e", "text")->is_text);
	assert_false(field(tc, "e", "raw")->is_text);
	assert_false(field(tc, "e", "wide")->is_text);
	assert_int_equal(field(tc, "e", "wide")->align, 16);
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE "typealias floating_point { exp_dig = 5; mant_dig = 11; } := half;\n",
			2, 0, "unsupported floating point");
	assert_rejected(TRACE_BE UINT_ALIASES "typealias struct { uint8_t a; } align(3) := s;\n", 6, 0,
			"not a power of two");
}

static void assert_range(const struct tmx_enum_mapping *m, size_t i, int64_t lower, int64_t upper)
{
	assert_true(i < m->n_ranges);
	assert_int_equal((int64_t)m->ranges[i].lower, lower);
	assert_int_equal((int64_t)m->ranges[i].upper, upper);
}

static void test_enums(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr, TRACE_BE
		"typealias integer { size = 8; } := uint8_t;\n"
		"typealias integer { size = 32; signed = true; } := int;\n"
		"enum colors : integer { size = 16; byte_order = le; base = hex; align = 32; } {\n"
		"  RED, GREEN = 5, BLUE, \"with space\" = 10 ... 12, AFTER, RED = 20\n"
		"};\n"
		"event { name = e; fields := struct {\n"
		"  enum colors u;\n"
		"  enum : integer { size = 8; signed = true; } { NEG = -3 ... -1, ZERO, } s;\n"
		"  enum { X, Y = 0x7fffffff } dflt;\n"
		"  enum : uint8_t { LAST = 255 } max;\n"
		"  enum : integer { size = 64; } { HUGE = 18446744073709551615 } huge;\n"
		"}; };\n");
	const struct tmx_field_class *u = field(tc, "e", "u"), *s = field(tc, "e", "s");
	const struct tmx_field_class *dflt = field(tc, "e", "dflt");

	(void)state;
	/* The container's attributes are the enumeration's. */
	assert_int_equal(u->kind, TMX_FC_ENUM);
	assert_int_equal(u->size, 16);
	assert_int_equal(u->byte_order, TMX_BO_LE);
	assert_int_equal(u->base, 16);
	assert_int_equal(u->align, 32);
	assert_false(u->is_signed);
	/* One mapping per label, in declaration order; a repeated label adds a range. */
	assert_int_equal(u->n_mappings, 5);
	assert_string_equal(u->mappings[0].label, "RED");
	assert_int_equal(u->mappings[0].n_ranges, 2);
	assert_range(&u->mappings[0], 0, 0, 0);
	assert_range(&u->mappings[0], 1, 20, 20);
	assert_string_equal(u->mappings[1].label, "GREEN");
	assert_range(&u->mappings[1], 0, 5, 5);
	/* Implicit values follow the previous upper bound. */
	assert_string_equal(u->mappings[2].label, "BLUE");
	assert_range(&u->mappings[2], 0, 6, 6);
	assert_string_equal(u->mappings[3].label, "with space");
	assert_range(&u->mappings[3], 0, 10, 12);
	assert_string_equal(u->mappings[4].label, "AFTER");
	assert_range(&u->mappings[4], 0, 13, 13);
	/* Signed ranges are int64 bit patterns. */
	assert_true(s->is_signed);
	assert_int_equal(s->n_mappings, 2);
	assert_range(&s->mappings[0], 0, -3, -1);
	assert_range(&s->mappings[1], 0, 0, 0);
	/* No container: the `int` type alias. */
	assert_int_equal(dflt->size, 32);
	assert_true(dflt->is_signed);
	assert_range(&dflt->mappings[1], 0, 0x7fffffff, 0x7fffffff);
	assert_range(&field(tc, "e", "max")->mappings[0], 0, 255, 255);
	assert_int_equal(field(tc, "e", "huge")->mappings[0].ranges[0].lower, UINT64_MAX);
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE "typealias integer { size = 8; } := uint8_t;\n"
			"enum e : uint8_t { A = 256 };", 3, 24, "does not fit");
	assert_rejected(TRACE_BE "typealias integer { size = 8; } := uint8_t;\n"
			"enum e : uint8_t { A = -1 };", 3, 24, "negative");
	assert_rejected(TRACE_BE "typealias integer { size = 8; } := uint8_t;\n"
			"enum e : uint8_t { A = 5 ... 4 };", 3, 0, "upper value below");
	assert_rejected(TRACE_BE "enum e { A };", 2, 0, "`int` is not declared");
	assert_rejected(TRACE_BE "typealias string := text;\nenum e : text { A };", 3, 0,
			"not an integer");
}

static void test_sequences_and_slots(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"stream { packet.context := struct { uint32_t count; uint8_t unused; }; };\n"
		"event { name = e; fields := struct {\n"
		"  uint8_t len;\n"
		"  uint16_t rel[len];\n"
		"  struct { uint16_t n; uint8_t inner[n]; uint8_t outer[len]; } st;\n"
		"  uint8_t abs[stream.packet.context.count];\n"
		"  uint8_t abs2[event.fields.len];\n"
		"  uint8_t deep[st.n];\n"
		"  string names[len];\n"
		"}; };\n");
	const struct tmx_field_class *len = field(tc, "e", "len"), *rel = field(tc, "e", "rel");
	const struct tmx_field_class *st = field(tc, "e", "st");
	const struct tmx_field_class *n = member(st, "n");
	const struct tmx_field_class *count = member(tc->stream_classes[0]->packet_context, "count");

	(void)state;
	assert_int_equal(rel->kind, TMX_FC_SEQUENCE);
	assert_string_equal(rel->ref_path, "len");
	assert_int_equal(rel->align, 8);
	assert_int_equal(rel->elem->size, 16);
	/* One slot per target, shared by all the sequences that read it. */
	assert_int_equal(tmx_tc_n_slots(tc), 3);
	assert_true(len->slot >= 0 && n->slot >= 0 && count->slot >= 0);
	assert_int_not_equal(len->slot, n->slot);
	assert_int_not_equal(len->slot, count->slot);
	assert_int_not_equal(n->slot, count->slot);
	assert_int_equal(rel->ref_slot, len->slot);
	assert_int_equal(member(st, "inner")->ref_slot, n->slot);
	assert_int_equal(member(st, "outer")->ref_slot, len->slot);
	assert_int_equal(field(tc, "e", "abs")->ref_slot, count->slot);
	assert_int_equal(field(tc, "e", "abs2")->ref_slot, len->slot);
	assert_int_equal(field(tc, "e", "deep")->ref_slot, n->slot);
	assert_int_equal(field(tc, "e", "names")->elem->kind, TMX_FC_STRING);
	/* Fields nobody refers to have no slot. */
	assert_int_equal(member(tc->stream_classes[0]->packet_context, "unused")->slot, -1);
	assert_int_equal(st->slot, -1);
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE UINT_ALIASES "event { name = e; fields := struct {\n"
			"  integer { size = 8; signed = true; } len;\n  uint8_t s[len];\n}; };",
			8, 13, "not an unsigned integer");
	/* The length must come before the sequence. */
	assert_rejected(TRACE_BE UINT_ALIASES "event { name = e; fields := struct {\n"
			"  uint8_t s[len];\n  uint8_t len;\n}; };", 7, 13,
			"cannot find the sequence length field `len`");
	assert_rejected(TRACE_BE UINT_ALIASES "event { name = e; fields := struct {\n"
			"  uint8_t s[stream.packet.context.len];\n}; };", 7, 13, "cannot find");
}

static void test_variants(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"variant named { uint8_t A; string _B; };\n"
		"event { name = e; fields := struct {\n"
		"  enum : uint8_t { A, _B, C = 5 ... 7, ORPHAN } tag;\n"
		"  variant <tag> { uint8_t A; string B; uint16_t _C; } v;\n"
		"  variant named <event.fields.tag> v2;\n"
		"  struct { uint8_t before; variant <tag> { uint8_t A; string B; uint16_t C; } inner; } st;\n"
		"}; };\n");
	const struct tmx_field_class *tag = field(tc, "e", "tag"), *v = field(tc, "e", "v");
	const struct tmx_field_class *v2 = field(tc, "e", "v2");
	const struct tmx_field_class *inner = member(field(tc, "e", "st"), "inner");

	(void)state;
	assert_int_equal(v->kind, TMX_FC_VARIANT);
	assert_int_equal(v->align, 1);
	assert_string_equal(v->ref_path, "tag");
	assert_ptr_equal(v->tag, tag);
	assert_true(tag->slot >= 0);
	assert_int_equal(v->ref_slot, tag->slot);
	assert_int_equal(tmx_tc_n_slots(tc), 1);
	/* Options in order; the keyword-escaping `_` is not part of the name. */
	assert_int_equal(v->n_members, 3);
	assert_string_equal(v->members[0].name, "A");
	assert_string_equal(v->members[1].name, "B");
	assert_string_equal(v->members[2].name, "C");
	/* Labels match options with or without one leading `_`; ORPHAN selects none. */
	assert_int_equal(v->option_for_mapping[0], 0);
	assert_int_equal(v->option_for_mapping[1], 1);
	assert_int_equal(v->option_for_mapping[2], 2);
	assert_int_equal(v->option_for_mapping[3], -1);
	/* A named variant used with a tag, by absolute path. */
	assert_string_equal(v2->ref_path, "event.fields.tag");
	assert_ptr_equal(v2->tag, tag);
	assert_int_equal(v2->ref_slot, tag->slot);
	assert_int_equal(v2->option_for_mapping[1], 1);
	assert_string_equal(v2->members[1].name, "B");
	/* Relative paths look in the enclosing structures, outward. */
	assert_ptr_equal(inner->tag, tag);
	assert_int_equal(inner->option_for_mapping[2], 2);
	tmx_arena_free(&pr.arena);

	/* A named variant is a type: its options are not shared between uses. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"variant named { uint8_t A; uint16_t B; };\n"
		"event { name = e; fields := struct {\n"
		"  enum : uint8_t { A, B } tag;\n"
		"  variant named <tag> x;\n"
		"  variant named <tag> y;\n"
		"}; };\n");
	assert_ptr_not_equal(field(tc, "e", "x")->members[0].fc, field(tc, "e", "y")->members[0].fc);
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE UINT_ALIASES "event { name = e; fields := struct {\n"
			"  uint8_t tag;\n  variant <tag> { uint8_t A; } v;\n}; };", 8, 17,
			"not an enumeration");
	assert_rejected(TRACE_BE UINT_ALIASES "event { name = e; fields := struct {\n"
			"  variant { uint8_t A; } v;\n}; };", 7, 11, "variant without a tag");
	assert_rejected(TRACE_BE UINT_ALIASES "event { name = e; fields := struct {\n"
			"  enum : uint8_t { A } tag;\n  variant <tag> { uint8_t A; uint8_t Z; } v;\n}; };",
			8, 17, "no mapping named `Z`");
}

#define COMPACT_EXTENDED_HEADER                                                         \
	"  event.header := struct {\n"                                                  \
	"    enum : integer { size = 5; } { compact = 0 ... 30, extended = 31 } id;\n"     \
	"    variant <id> {\n"                                                            \
	"      struct { integer { size = 27; } timestamp; } compact;\n"                    \
	"      struct { uint32_t id; uint64_t timestamp; } extended;\n"                    \
	"    } v;\n"                                                                      \
	"  };\n"

static void test_meanings_and_clocks(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr, UINT_ALIASES
		"clock { name = mono; description = \"the clock\"; freq = 1000; offset_s = 10;\n"
		"  offset = 2500; precision = 3; absolute = true;\n"
		"  uuid = \"01234567-89ab-cdef-0123-456789ABCDEF\"; };\n"
		"trace { major = 1; minor = 8; byte_order = le;\n"
		"  uuid = \"00112233-4455-6677-8899-aabbccddeeff\";\n"
		"  packet.header := struct { uint32_t magic; uint8_t uuid[16]; uint32_t stream_id;\n"
		"    uint64_t stream_instance_id; struct { uint32_t stream_id; } nested; };\n"
		"};\n"
		"stream { id = 0;\n"
		"  packet.context := struct { uint64_t timestamp_begin; uint64_t timestamp_end;\n"
		"    uint64_t content_size; uint64_t packet_size; uint64_t packet_seq_num;\n"
		"    uint32_t events_discarded; struct { uint32_t packet_size; } nested; };\n"
		COMPACT_EXTENDED_HEADER
		"};\n"
		"event { name = e; };\n");
	const struct tmx_field_class *ph = tc->packet_header, *pc, *eh, *v;
	const struct tmx_clock_class *cc;
	static const uint8_t trace_uuid[16] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
						0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff };

	(void)state;
	assert_true(tc->has_uuid);
	assert_memory_equal(tc->uuid, trace_uuid, 16);
	assert_int_equal(member(ph, "magic")->meaning, TMX_MEANING_MAGIC);
	assert_int_equal(member(ph, "uuid")->meaning, TMX_MEANING_UUID);
	assert_int_equal(member(ph, "stream_id")->meaning, TMX_MEANING_STREAM_ID);
	assert_int_equal(member(ph, "stream_instance_id")->meaning, TMX_MEANING_STREAM_INSTANCE_ID);
	/* Packet header and context meanings are top-level only. */
	assert_int_equal(member(member(ph, "nested"), "stream_id")->meaning, TMX_MEANING_NONE);
	pc = tc->stream_classes[0]->packet_context;
	assert_int_equal(member(pc, "timestamp_begin")->meaning, TMX_MEANING_TS_BEGIN);
	assert_int_equal(member(pc, "timestamp_end")->meaning, TMX_MEANING_TS_END);
	assert_int_equal(member(pc, "content_size")->meaning, TMX_MEANING_CONTENT_SIZE);
	assert_int_equal(member(pc, "packet_size")->meaning, TMX_MEANING_PACKET_SIZE);
	assert_int_equal(member(pc, "packet_seq_num")->meaning, TMX_MEANING_PACKET_SEQ_NUM);
	assert_int_equal(member(pc, "events_discarded")->meaning, TMX_MEANING_EVENTS_DISCARDED);
	assert_int_equal(member(member(pc, "nested"), "packet_size")->meaning, TMX_MEANING_NONE);
	/* Event header meanings at any depth (compact and extended headers). */
	eh = tc->stream_classes[0]->event_header;
	v = member(eh, "v");
	assert_int_equal(member(eh, "id")->meaning, TMX_MEANING_EVENT_ID);
	assert_int_equal(member(member(v, "compact"), "timestamp")->meaning, TMX_MEANING_TIMESTAMP);
	assert_int_equal(member(member(v, "extended"), "id")->meaning, TMX_MEANING_EVENT_ID);
	assert_int_equal(member(member(v, "extended"), "timestamp")->meaning, TMX_MEANING_TIMESTAMP);

	assert_int_equal(tc->n_clocks, 1);
	cc = tc->clocks[0];
	assert_string_equal(cc->name, "mono");
	assert_string_equal(cc->description, "the clock");
	assert_int_equal(cc->frequency, 1000);
	/* 2500 cycles at 1 kHz: 2 more seconds and 500 cycles. */
	assert_int_equal(cc->offset_s, 12);
	assert_int_equal(cc->offset_cycles, 500);
	assert_int_equal(cc->precision, 3);
	assert_true(cc->absolute);
	assert_true(cc->origin_is_unix_epoch);
	assert_true(cc->has_uuid);
	assert_int_equal(cc->uuid[0], 0x01);
	assert_int_equal(cc->uuid[15], 0xef);
	/* Timestamps without `map` go to the only clock, which is the stream's. */
	assert_ptr_equal(member(member(v, "compact"), "timestamp")->mapped_clock, cc);
	assert_ptr_equal(member(member(v, "extended"), "timestamp")->mapped_clock, cc);
	assert_ptr_equal(member(pc, "timestamp_begin")->mapped_clock, cc);
	assert_ptr_equal(member(pc, "timestamp_end")->mapped_clock, cc);
	assert_ptr_equal(tc->stream_classes[0]->default_clock, cc);
	tmx_arena_free(&pr.arena);
}

static void test_clock_mapping(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc;

	(void)state;
	/* No clock at all: babeltrace2 makes a 1 GHz "default" clock. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"stream { event.header := struct { uint64_t timestamp; }; };\n"
		"event { name = e; };\n");
	assert_int_equal(tc->n_clocks, 1);
	assert_string_equal(tc->clocks[0]->name, "default");
	assert_int_equal(tc->clocks[0]->frequency, 1000000000);
	assert_int_equal(tc->clocks[0]->offset_s, 0);
	assert_int_equal(tc->clocks[0]->offset_cycles, 0);
	assert_false(tc->clocks[0]->origin_is_unix_epoch);
	assert_ptr_equal(tc->stream_classes[0]->default_clock, tc->clocks[0]);
	tmx_arena_free(&pr.arena);

	/* Explicit `map`, to a clock declared after the type. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"typealias integer { size = 64; map = clock.b.value; } := ts_b;\n"
		"clock { name = a; };\n"
		"clock { name = b; freq = 100; };\n"
		"stream { event.header := struct { ts_b timestamp; }; };\n"
		"event { name = e; };\n");
	assert_int_equal(tc->n_clocks, 2);
	assert_int_equal(tc->clocks[0]->frequency, 1000000000);
	assert_false(tc->clocks[0]->absolute);
	assert_ptr_equal(member(tc->stream_classes[0]->event_header, "timestamp")->mapped_clock,
			 tc->clocks[1]);
	assert_ptr_equal(tc->stream_classes[0]->default_clock, tc->clocks[1]);
	tmx_arena_free(&pr.arena);

	/* No event header timestamp: the packet context's decides. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES "clock { name = c; };\n"
		"stream { packet.context := struct { uint64_t timestamp_begin; }; };\n");
	assert_ptr_equal(tc->stream_classes[0]->default_clock, tc->clocks[0]);
	tmx_arena_free(&pr.arena);

	/* No timestamp anywhere: no default clock. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES "clock { name = c; };\n"
		"stream { packet.context := struct { uint64_t content_size; }; };\n");
	assert_null(tc->stream_classes[0]->default_clock);
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE UINT_ALIASES "clock { name = a; };\nclock { name = b; };\n"
			"stream { event.header := struct { uint64_t timestamp; }; };\n", 0, 0,
			"several clocks");
	assert_rejected(TRACE_BE "typealias integer { size = 64; map = clock.x.value; } := t;\n"
			"event { name = e; fields := struct { t f; }; };\n", 2, 11,
			"undeclared clock");
	assert_rejected(TRACE_BE "clock { name = c; freq = 0; };", 2, 26, "must not be zero");
}

/*
 * babeltrace2's sink.ctf.fs writes a trace's clock once per stream class: an
 * identical repeat is one clock; a different one is rejected where the
 * property differs (at the block when the repeat leaves it out).
 */
static void test_repeated_clocks(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc;

	(void)state;
	/* The same offset written differently (1 s as cycles) is the same clock. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"clock { name = m; description = \"d\"; offset_s = 1; absolute = true;\n"
		"  uuid = \"77022494-db44-4d35-9d19-5696b9beabe5\"; };\n"
		"stream { id = 0; event.header := struct { integer { size = 64; map = clock.m.value; } "
		"timestamp; }; };\n"
		"clock { absolute = true; offset = 1000000000; name = m; description = \"d\";\n"
		"  uuid = \"77022494-db44-4d35-9d19-5696b9beabe5\"; precision = 0; };\n"
		"stream { id = 1; event.header := struct { integer { size = 64; map = clock.m.value; } "
		"timestamp; }; };\n"
		"event { name = a; stream_id = 0; };\nevent { name = b; stream_id = 1; };\n");
	assert_int_equal(tc->n_clocks, 1);
	assert_int_equal(tc->clocks[0]->offset_s, 1);
	assert_ptr_equal(tc->stream_classes[0]->default_clock, tc->clocks[0]);
	assert_ptr_equal(tc->stream_classes[1]->default_clock, tc->clocks[0]);
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE "clock { name = a; freq = 100; };\nclock { name = a; freq = 200; };\n",
			3, 26, "clock `a` declared again with a different `freq`: 200 here, 100 at 2:26");
	assert_rejected(TRACE_BE "clock { name = a; description = \"x\"; };\nclock { name = a; };\n",
			3, 1, "different `description`: none here, \"x\" at 2:33");
	assert_rejected(TRACE_BE "clock { name = a; };\nclock { name = a; precision = 2; };\n",
			3, 31, "different `precision`: 2 here, 0 at 2:1");
	assert_rejected(TRACE_BE "clock { name = a; offset = 5; };\nclock { name = a; offset_s = 5; };\n",
			3, 30, "different `offset_s`: offset_s = 5, offset = 0 here, "
			"offset_s = 0, offset = 5 at 2:1");
	assert_rejected(TRACE_BE "clock { name = a; offset = 5; };\nclock { name = a; offset = 6; };\n",
			3, 28, "different `offset`");
	assert_rejected(TRACE_BE "clock { name = a; absolute = true; };\nclock { name = a; };\n",
			3, 1, "different `absolute`: false here, true at 2:30");
	assert_rejected(TRACE_BE "clock { name = a; };\n"
			"clock { name = a; uuid = \"77022494-db44-4d35-9d19-5696b9beabe5\"; };\n",
			3, 26, "different `uuid`: 77022494-db44-4d35-9d19-5696b9beabe5 here, none at 2:1");
	/* The repeat is compared with the first declaration, not with the others. */
	assert_rejected(TRACE_BE "clock { name = a; };\nclock { name = b; };\nclock { name = a; };\n"
			"clock { name = a; freq = 7; };\n",
			5, 26, "different `freq`: 7 here, 1000000000 at 2:1");
}

static void test_stream_and_event_classes(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc;
	const struct tmx_stream_class *sc;
	const struct tmx_event_class *ev;

	(void)state;
	/* No stream block: one implicit stream class for all events, sorted by ID. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"event { name = second; id = 7; loglevel = 13; model.emf.uri = \"http://x/y\";\n"
		"  context := struct { uint8_t c; }; fields := struct { uint16_t f; }; };\n"
		"event { name = first; id = 2; };\n");
	assert_int_equal(tc->n_stream_classes, 1);
	sc = tc->stream_classes[0];
	assert_int_equal(sc->id, 0);
	assert_false(sc->id_is_set);
	assert_ptr_equal(sc->trace_class, tc);
	assert_int_equal(sc->n_event_classes, 2);
	assert_string_equal(sc->event_classes[0]->name, "first");
	assert_string_equal(sc->event_classes[1]->name, "second");
	ev = tmx_stream_class_event_class(sc, 7);
	assert_non_null(ev);
	assert_ptr_equal(ev->stream_class, sc);
	assert_int_equal(ev->log_level, 13);
	assert_string_equal(ev->emf_uri, "http://x/y");
	assert_non_null(member(ev->specific_context, "c"));
	assert_non_null(member(ev->payload, "f"));
	ev = tmx_stream_class_event_class(sc, 2);
	assert_int_equal(ev->log_level, TMX_LOG_LEVEL_NONE);
	assert_null(ev->emf_uri);
	assert_null(ev->payload);
	tmx_arena_free(&pr.arena);

	/* `stream { event.context }` is the common context; events pick streams by ID. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		"stream { id = 3; event.context := struct { uint8_t common; }; };\n"
		"stream { id = 1; };\n"
		"event { name = a; stream_id = 3; };\n"
		"event { name = b; stream_id = 1; };\n"
		"event { name = c; stream_id = 1; id = 1; };\n");
	assert_int_equal(tc->n_stream_classes, 2);
	assert_true(tc->stream_classes[0]->id_is_set);
	assert_int_equal(event_named(tc, "a")->stream_class->id, 3);
	assert_non_null(member(event_named(tc, "a")->stream_class->event_common_context, "common"));
	assert_int_equal(event_named(tc, "b")->stream_class->id, 1);
	assert_int_equal(event_named(tc, "c")->stream_class->n_event_classes, 2);
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE "stream { id = 1; };\nstream { id = 2; };\nevent { name = e; };\n",
			4, 1, "no stream class");
	assert_rejected(TRACE_BE "stream { id = 1; };\nevent { name = e; stream_id = 2; };\n", 3, 1,
			"no stream class");
	assert_rejected(TRACE_BE "stream { id = 1; };\nstream { id = 1; };\n", 3, 1,
			"duplicate stream class ID");
	assert_rejected(TRACE_BE "event { name = a; id = 1; };\nevent { name = b; id = 1; };\n", 3, 1,
			"duplicate event class ID");
	assert_rejected(TRACE_BE "event { id = 1; };\n", 2, 1, "no `name`");
}

/* Each use of a type is its own instance; struct and variant bodies are scopes. */
static void test_types_and_scopes(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr, TRACE_BE
		"typealias integer { size = 8; } := small;\n"
		"typedef small bytes4[4], single;\n"
		"typealias integer { size = 32; } := unsigned long;\n"
		"event { name = e; fields := struct {\n"
		"  struct inner { typealias integer { size = 16; } := small; small x; } a;\n"
		"  small b;\n"
		"  struct inner c;\n"
		"  small d;\n"
		"  bytes4 q;\n"
		"  const single * s;\n"
		"  unsigned long ul;\n"
		"}; };\n");
	const struct tmx_field_class *a = field(tc, "e", "a"), *c = field(tc, "e", "c");

	(void)state;
	assert_int_equal(member(a, "x")->size, 16);
	assert_int_equal(field(tc, "e", "b")->size, 8);
	assert_int_equal(member(c, "x")->size, 16);
	assert_ptr_not_equal(a, c);
	assert_ptr_not_equal(member(a, "x"), member(c, "x"));
	assert_ptr_not_equal(field(tc, "e", "b"), field(tc, "e", "d"));
	assert_int_equal(field(tc, "e", "q")->kind, TMX_FC_ARRAY);
	assert_int_equal(field(tc, "e", "q")->length, 4);
	assert_int_equal(field(tc, "e", "s")->kind, TMX_FC_INT);
	assert_int_equal(field(tc, "e", "ul")->size, 32);
	tmx_arena_free(&pr.arena);

	/* A type declared in a structure is unknown after it. */
	assert_rejected(TRACE_BE "event { name = e; fields := struct {\n"
			"  struct { typealias integer { size = 16; } := local; local x; } a;\n"
			"  local y;\n}; };", 4, 3, "unknown type `local`");
	assert_rejected(TRACE_BE "typealias integer { size = 8; } := event;", 2, 0,
			"reserved keyword");
}

/*
 * Reserved keywords, where babeltrace2 2.0.4 refuses them and where it
 * takes them (tests/golden/test_conformance.py compares with it live).
 */
static void test_reserved_keywords(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc;

	(void)state;
	assert_rejected(TRACE_BE "typedef integer { size = 8; } int;", 2, 31,
			"`int` is a reserved keyword");
	assert_rejected(TRACE_BE UINT_ALIASES "struct s { uint8_t a; uint8_t struct; };", 6, 31,
			"`struct` is a reserved keyword");
	assert_rejected(TRACE_BE "struct trace { };", 2, 8, "`trace` is a reserved keyword");
	assert_rejected(TRACE_BE UINT_ALIASES
			"struct s { enum : uint8_t { a } _enum; variant <enum> { uint8_t a; } v; };",
			6, 49, "`enum` is a reserved keyword");
	assert_rejected(TRACE_BE UINT_ALIASES
			"struct s { enum : uint8_t { a } e; variant <e> { uint8_t a; uint8_t int; } v; };",
			6, 69, "`int` is a reserved keyword");
	assert_rejected(TRACE_BE UINT_ALIASES "enum e : uint8_t { a, typealias };", 6, 23,
			"`typealias` is a reserved keyword");
	assert_rejected(TRACE_BE "env { a = typealias; };", 2, 11, "`typealias` is a reserved keyword");
	assert_rejected(TRACE_BE "typealias integer { size = 8; } := struct;", 2, 36,
			"`struct` is a reserved keyword");
	/* Accepted: keywords as attribute names and values, labels, C words in aliases. */
	tc = parse_ok(&pr, TRACE_BE UINT_ALIASES
		      "typealias integer { size = 16; } := unsigned short;\n"
		      "env { enum = 1; struct = \"s\"; typedef = int; variant = 2; };\n"
		      "enum e : uint8_t { int, struct, stream };\n"
		      "struct s { enum : uint8_t { a } _enum; variant <_enum> { uint8_t a; } v; };\n");
	assert_int_equal(tmx_trace_class_env(tc, "enum")->int_value, 1);
	assert_string_equal(tmx_trace_class_env(tc, "struct")->str_value, "s");
	assert_string_equal(tmx_trace_class_env(tc, "typedef")->str_value, "int");
	tmx_arena_free(&pr.arena);
}

static void test_literals_escapes_comments(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr, TRACE_BE
		"/* a block comment\n   on two lines */\n"
		"env { // a line comment\n"
		"  hex = 0x1F; oct = 017; bin = 0b101; dec = 42ULL; neg = -5; pos = +7; l = 3l;\n"
		"  min = -9223372036854775808; chr = 'A';\n"
		"  hex3 = \"\\x0231\\x414\\x7e\"; hex0 = \"a\\xzb\";\n"
		"  esc = \"a\\n\\\"\\x20\\040\\\\\\t\"; ident = some_name;\n"
		"};\n");
	static const struct {
		const char *name;
		int64_t value;
	} ints[] = {
		{ "hex", 31 }, { "oct", 15 }, { "bin", 5 }, { "dec", 42 }, { "neg", -5 },
		{ "pos", 7 }, { "l", 3 }, { "min", INT64_MIN }, { "chr", 'A' },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		const struct tmx_env_entry *e = tmx_trace_class_env(tc, ints[i].name);
		assert_non_null(e);
		assert_true(e->is_int);
		assert_int_equal(e->int_value, ints[i].value);
	}
	assert_string_equal(tmx_trace_class_env(tc, "esc")->str_value, "a\n\" \040\\\t");
	/* \x takes up to three digits, the byte their low 8 bits (babeltrace2). */
	assert_string_equal(tmx_trace_class_env(tc, "hex3")->str_value, "#1\x14~");
	assert_string_equal(tmx_trace_class_env(tc, "hex0")->str_value, "a");
	assert_false(tmx_trace_class_env(tc, "ident")->is_int);
	assert_string_equal(tmx_trace_class_env(tc, "ident")->str_value, "some_name");
	/* Environment entries stay in metadata order. */
	assert_string_equal(tc->env[0].name, "hex");
	assert_string_equal(tc->env[tc->n_env - 1].name, "ident");
	tmx_arena_free(&pr.arena);

	assert_rejected(TRACE_BE "env { x = 18446744073709551616; };", 2, 11, "does not fit in 64 bits");
	assert_rejected(TRACE_BE "env { x = 0x1ffffffffffffffff; };", 2, 11, "does not fit in 64 bits");
	assert_rejected(TRACE_BE "env { x = \"unterminated; };", 2, 11, "unterminated string");
	assert_rejected(TRACE_BE "env { x = 12abc; };", 2, 11, "invalid integer literal");
	assert_rejected(TRACE_BE "/* never closed", 2, 1, "unterminated comment");
	assert_rejected("trace { major = 2; minor = 0; byte_order = be; };", 1, 17,
			"unsupported CTF version 2.0");
	assert_rejected("trace { major = 1; byte_order = be; };", 0, 0, "no `major`/`minor`");
	assert_rejected("env { x = 1; };", 0, 0, "no `trace` block");
}

/* CRLF line ends: accepted, and lines still counted right. */
static void test_crlf(void **state)
{
	struct parsed pr;
	const struct tmx_trace_class *tc = parse_ok(&pr,
		"trace {\r\n major = 1;\r\n minor = 8;\r\n byte_order = le;\r\n};\r\n"
		"typealias integer { size = 8; } := uint8_t;\r\n"
		"event {\r\n name = e;\r\n fields := struct { uint8_t a; };\r\n};\r\n");

	(void)state;
	assert_int_equal(field(tc, "e", "a")->size, 8);
	tmx_arena_free(&pr.arena);
	assert_rejected("trace {\r\n major = 1;\r\n minor 8;\r\n};\r\n", 3, 8,
			"expected `=`, found `8`");
}

/* Unknown attributes are warnings, as in babeltrace2; `callsite` is ignored. */
static void test_unknown_attributes(void **state)
{
	struct parsed pr;

	(void)state;
	parse_ok(&pr, "trace { major = 1; minor = 8; byte_order = be; colour = blue; };\n"
		 "clock { name = c; tz = 1; };\n"
		 "typealias integer { size = 8; foo = 1; } := uint8_t;\n"
		 "callsite { name = \"x\"; func = \"f\"; ip = 0x10; file = \"a.c\"; line = 3; };\n"
		 "event { name = e; shape = round; };\n");
	assert_int_equal(pr.n_warnings, 4);
	tmx_arena_free(&pr.arena);
}

/* Hostile metadata: deep nesting and exponential type expansion fail cleanly. */
static void test_limits(void **state)
{
	static const char head[] = TRACE_BE "typealias integer { size = 8; } := u8;\n"
				   "event { name = e; fields := ";
	size_t depth = 100000, len = 0;
	char *text = malloc(sizeof(head) + depth * 20);
	struct parsed pr;

	(void)state;
	assert_non_null(text);
	len += (size_t)sprintf(text, "%s", head);
	for (size_t i = 0; i < depth; i++)
		len += (size_t)sprintf(text + len, "struct { u8 a; ");
	assert_int_not_equal(parse_text(&pr, text), TMX_OK);
	assert_int_equal(pr.err.line, 3);
	assert_non_null(strstr(pr.err.msg, "nested too deeply"));
	tmx_arena_free(&pr.arena);

	/* 40 levels of two copies of the level below: 2^40 fields if expanded. */
	len = (size_t)sprintf(text, TRACE_BE "typealias integer { size = 8; } := t0;\n");
	for (int i = 1; i <= 40; i++)
		len += (size_t)sprintf(text + len,
				       "typealias struct { t%d a; t%d b; } := t%d;\n", i - 1, i - 1, i);
	sprintf(text + len, "event { name = e; fields := struct { t40 x; }; };\n");
	assert_int_not_equal(parse_text(&pr, text), TMX_OK);
	assert_true(pr.err.line > 0);
	tmx_arena_free(&pr.arena);
	free(text);
}

/* The largest metadata of the corpus (LTTng kernel trace, 1.2 MB) parses fast. */
static void test_large_metadata(void **state)
{
	size_t len = 0;
	char *text = read_whole_file(TEXT_DIR "/pass-lttng-modules-2.9.2", &len);
	struct timespec t0, t1;
	struct parsed pr;
	double seconds;

	(void)state;
	assert_non_null(text);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(parse(text, len, &pr.err, &pr.arena, &pr.tc), TMX_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("pass-lttng-modules-2.9.2: %.3f s, %zu event classes\n", seconds,
		      pr.tc->stream_classes[0]->n_event_classes);
	/* A generous bound (sanitizers, loaded machines) that still catches quadratic work. */
	assert_true(seconds < 5.0);
	tmx_arena_free(&pr.arena);
	free(text);
}

/*
 * Blocks added one at a time (events, clocks, stream classes, environment
 * entries, enumeration labels): the arrays grow by doubling, so the arena
 * stays linear in the metadata size.  Arrays regrown by one element each time
 * took O(N^2) memory (40000 events in 1.5 MB of TSDL: 24 GB).
 */
static void test_many_blocks(void **state)
{
	enum { N = 5000 };
	size_t cap = 64 * N + 4096, len = 0;
	char *text = malloc(cap * 5);
	struct parsed pr;

	(void)state;
	assert_non_null(text);
	len += (size_t)sprintf(text + len, TRACE_LE "env {\n");
	for (int i = 0; i < N; i++)
		len += (size_t)sprintf(text + len, "e%d = %d;\n", i, i);
	len += (size_t)sprintf(text + len, "};\n");
	/* Stream class i has ID i; the events, in decreasing ID order, go to the last one. */
	for (int i = 0; i < N; i++)
		len += (size_t)sprintf(text + len, "clock { name = c%d; };\nstream { id = %d; };\n"
				       "event { name = e%d; id = %d; stream_id = %d; };\n",
				       i, i, i, N - i, N);
	len += (size_t)sprintf(text + len, "stream { id = %d; };\n", N);
	len += (size_t)sprintf(text + len, "event { name = en; stream_id = 0; fields := struct { "
			       "enum : integer { size = 16; } {");
	for (int i = 0; i < N; i++)
		len += (size_t)sprintf(text + len, "%sL%d = %d", i ? ", " : " ", i, i);
	sprintf(text + len, " } x; }; };\n");
	assert_true(strlen(text) < cap * 5);
	assert_int_equal(parse_text(&pr, text), TMX_OK);
	assert_int_equal(pr.tc->n_clocks, N);
	assert_int_equal(pr.tc->n_env, N);
	assert_int_equal(pr.tc->n_stream_classes, N + 1);
	assert_int_equal(tmx_stream_class_event_class(pr.tc->stream_classes[0], 0)->payload->members[0]
			 .fc->n_mappings, N);
	/* Events sorted by ID, whatever their order in the text. */
	assert_int_equal(pr.tc->stream_classes[N]->n_event_classes, N);
	for (uint64_t id = 1; id <= N; id++)
		assert_int_equal(pr.tc->stream_classes[N]->event_classes[id - 1]->id, id);
	print_message("%d blocks of each kind: %zu arena bytes\n", N, pr.arena.total);
	assert_true(pr.arena.total < 32u << 20);
	tmx_arena_free(&pr.arena);

	/* The duplicate reported is the first one in file order. */
	assert_rejected(TRACE_LE "stream { };\nevent { name = a; id = 9; };\n"
			"event { name = b; id = 3; };\nevent { name = c; id = 3; };\n"
			"event { name = d; id = 9; };\n", 5, 1, "event `c`");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yactfr_metadata_cases),
		cmocka_unit_test(test_babeltrace_succeed_traces),
		cmocka_unit_test(test_babeltrace_fail_traces),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_native_byte_order),
		cmocka_unit_test(test_floats_strings_structs_arrays),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_sequences_and_slots),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_meanings_and_clocks),
		cmocka_unit_test(test_clock_mapping),
		cmocka_unit_test(test_repeated_clocks),
		cmocka_unit_test(test_stream_and_event_classes),
		cmocka_unit_test(test_types_and_scopes),
		cmocka_unit_test(test_literals_escapes_comments),
		cmocka_unit_test(test_reserved_keywords),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_unknown_attributes),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_large_metadata),
		cmocka_unit_test(test_many_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
