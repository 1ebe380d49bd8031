/*
 * Helpers shared by the CTF 2 metadata tests (include after <cmocka.h>):
 * metadata streams written inline, one fragment per line, and the checks
 * of what the reader makes of them.
 */
#ifndef TMX_CTF2_META_UTIL_H
#define TMX_CTF2_META_UTIL_H

#include <stdio.h>
#include <string.h>

#include "ctf/ctf2.h"
#include "ctf/metadata.h"

/* One fragment per line: fragment k starts on line k, its `{` in column 2. */
#define F(json) "\x1e" json "\n"
#define PRE F("{\"type\":\"preamble\",\"version\":2}")
#define DSC F("{\"type\":\"data-stream-class\"}")
#define M(name, fc) "{\"name\":\"" name "\",\"field-class\":" fc "}"
#define ST(...) "{\"type\":\"structure\",\"member-classes\":[" __VA_ARGS__ "]}"
#define U8 "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,\"byte-order\":\"little-endian\"}"
#define S8 "{\"type\":\"fixed-length-signed-integer\",\"length\":8,\"byte-order\":\"little-endian\"}"
#define BOOL8 "{\"type\":\"fixed-length-boolean\",\"length\":8,\"byte-order\":\"little-endian\"}"
#define NT "{\"type\":\"null-terminated-string\"}"
#define ERC(payload) F("{\"type\":\"event-record-class\",\"payload-field-class\":" payload "}")
/* A metadata stream whose only event record class has this payload. */
#define PAYLOAD(...) PRE DSC ERC(ST(__VA_ARGS__))
#define LOC(path) "{\"path\":[" path "]}"
#define PLOC(path) "{\"origin\":\"event-record-payload\",\"path\":[" path "]}"
#define DYN(loc) "{\"type\":\"dynamic-length-array\",\"length-field-location\":" loc \
	",\"element-field-class\":" U8 "}"

struct parsed {
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_error err;
	int ret;
};

static inline int parse_len(struct parsed *pr, const char *text, size_t len)
{
	memset(pr, 0, sizeof(*pr));
	tmx_arena_init(&pr->arena);
	pr->ret = ctf_metadata_parse(text, len, "metadata", NULL, &pr->arena, &pr->tc, &pr->err);
	return pr->ret;
}

static inline int parse(struct parsed *pr, const char *text)
{
	return parse_len(pr, text, strlen(text));
}

static inline void parsed_ok(struct parsed *pr, const char *text)
{
	if (parse(pr, text) != TMX_OK) {
		char buf[2048];
		tmx_error_format(&pr->err, buf, sizeof(buf));
		print_error("unexpected error: %s\n", buf);
		fail();
	}
}

static inline const struct tmx_field_class *member(const struct tmx_field_class *st, const char *name)
{
	assert_non_null(st);
	for (size_t i = 0; i < st->n_members; i++)
		if (!strcmp(st->members[i].name, name))
			return st->members[i].fc;
	fail_msg("no member `%s`", name);
	return NULL;
}

/* The payload of the only event record class of the only data stream class. */
static inline const struct tmx_field_class *payload(const struct parsed *pr)
{
	assert_int_equal(pr->tc->n_stream_classes, 1);
	assert_int_equal(pr->tc->stream_classes[0]->n_event_classes, 1);
	return pr->tc->stream_classes[0]->event_classes[0]->payload;
}

/*
 * The error: its code, the fragment it names, and its position, that of
 * the `nth` (0-based) occurrence of `at` in the text ("$": the end of the
 * text, NULL: no position check); the message contains `needle`.
 */
static inline void check_error(const char *text, size_t len, int code, size_t frag, const char *at,
			int nth, const char *needle)
{
	struct parsed pr;
	char buf[2048], want[32];
	const char *p = text;
	uint32_t line = 1, col = 1;

	parse_len(&pr, text, len);
	tmx_error_format(&pr.err, buf, sizeof(buf));
	snprintf(want, sizeof(want), "fragment %zu", frag);
	if (pr.ret != code || !strstr(pr.err.msg, needle) || (frag && !strstr(pr.err.msg, want)))
		fail_msg("expected status %d, fragment %zu, \"%s\"; got %d: %s", code, frag, needle,
			 pr.ret, buf);
	if (at) {
		const char *hit = text + len;   /* "$": the end of the text */
		for (int i = 0; strcmp(at, "$") && i <= nth; i++) {
			hit = strstr(i ? hit + 1 : text, at);
			if (!hit)
				fail_msg("no `%s` in the test text", at);
		}
		for (; p < hit; p++) {
			if (*p == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		if (pr.err.line != line || pr.err.col != col || !pr.err.has_offset ||
		    pr.err.offset != (uint64_t)(hit - text))
			fail_msg("expected the error at %u:%u (byte %zu), got %u:%u (byte %llu): %s",
				 line, col, (size_t)(hit - text), pr.err.line, pr.err.col,
				 (unsigned long long)pr.err.offset, buf);
	}
	tmx_arena_free(&pr.arena);
}

static inline void expect_error(const char *text, int code, size_t frag, const char *at, int nth,
			 const char *needle)
{
	check_error(text, strlen(text), code, frag, at, nth, needle);
}

#endif
