/*
 * CTF 2 metadata reader tests: every error, checked for its code, the
 * fragment it names, its line:column and byte offset, and its words.
 * JSON (truncated, no record separator, what json-c would accept, nesting,
 * sizes), fragments, field classes, aliases, field locations, roles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctf2_meta_util.h"
#include "model/field_class.h"

static void test_fragment_errors(void **state)
{
	(void)state;
	expect_error(DSC PRE, TMX_ERR_METADATA, 1, "{", 0, "the first fragment must be the preamble");
	expect_error(PRE PRE DSC, TMX_ERR_METADATA, 2, "{", 1, "must be the first fragment");
	expect_error(F("{\"type\":\"preamble\",\"version\":3}"), TMX_ERR_METADATA, 1, "3", 0,
		     "`version`: expected 2");
	expect_error(F("{\"type\":\"preamble\"}"), TMX_ERR_METADATA, 1, "{", 0,
		     "missing property `version`");
	expect_error(PRE F("{\"type\":\"stream-class\"}"), TMX_ERR_METADATA, 2, "{", 1,
		     "unknown fragment type \"stream-class\"");
	expect_error(PRE F("{\"type\":\"data-stream-class\",\"size\":1}"), TMX_ERR_METADATA, 2, "1}",
		     0, "unknown property `size` in a data stream class fragment");
	/* No extension is supported: declaring one makes the trace unreadable (spec 5.1). */
	expect_error(F("{\"type\":\"preamble\",\"version\":2,\"extensions\":{\"my.tracer\":"
		       "{\"piano\":{}}}}") DSC, TMX_ERR_UNSUPPORTED, 1, "{\"piano", 0,
		     "unsupported extension `piano` of namespace `my.tracer`");
	expect_error(PAYLOAD(M("x", "{\"type\":\"null-terminated-string\",\"extensions\":{\"a\":"
			       "{\"b\":1}}}")), TMX_ERR_UNSUPPORTED, 3, "{\"b\"", 0,
		     "unsupported extension `b`");
	expect_error(PRE F("{\"type\":\"trace-class\"}") F("{\"type\":\"trace-class\"}") DSC,
		     TMX_ERR_METADATA, 3, "{", 2, "at most one trace class fragment");
	expect_error(PRE DSC F("{\"type\":\"trace-class\"}"), TMX_ERR_METADATA, 3, "{", 2,
		     "must come before the data stream class fragments");
	expect_error(PRE F("{\"type\":\"clock-class\",\"id\":\"c\",\"frequency\":1}")
		     F("{\"type\":\"clock-class\",\"id\":\"c\",\"frequency\":1}") DSC,
		     TMX_ERR_METADATA, 3, "\"c\"", 1, "a clock class with ID `c` already exists");
	expect_error(PRE F("{\"type\":\"clock-class\",\"id\":\"c\",\"frequency\":0}"), TMX_ERR_METADATA,
		     2, "0}", 0, "`frequency`: expected an integer >= 1, got 0");
	expect_error(PRE F("{\"type\":\"clock-class\",\"id\":\"c\",\"frequency\":10,"
			   "\"offset-from-origin\":{\"cycles\":10}}"), TMX_ERR_METADATA, 2, "10}", 0,
		     "`cycles`: expected an integer from 0 to 9, got 10");
	expect_error(PRE F("{\"type\":\"clock-class\",\"id\":\"c\",\"frequency\":10,\"origin\":\"boot\"}"),
		     TMX_ERR_METADATA, 2, "\"boot\"", 0, "expected \"unix-epoch\" or a clock origin");
	expect_error(PRE F("{\"type\":\"clock-class\",\"id\":\"c\",\"frequency\":10,\"origin\":"
			   "{\"name\":\"x\"}}"), TMX_ERR_METADATA, 2, "{\"name", 0,
		     "missing property `uid`");
	expect_error(PRE F("{\"type\":\"data-stream-class\",\"default-clock-class-id\":\"nope\"}"),
		     TMX_ERR_METADATA, 2, "\"nope\"", 0, "no clock class fragment with ID `nope`");
	expect_error(PRE F("{\"type\":\"data-stream-class\",\"id\":4}")
		     F("{\"type\":\"data-stream-class\",\"id\":4}"), TMX_ERR_METADATA, 3, "4}", 1,
		     "a data stream class with ID 4 already exists");
	expect_error(PRE DSC DSC, TMX_ERR_METADATA, 3, "{", 2,
		     "a data stream class with ID 0 already exists");
	expect_error(PRE DSC F("{\"type\":\"event-record-class\",\"data-stream-class-id\":1}"),
		     TMX_ERR_METADATA, 3, "1}", 0, "no data stream class fragment with ID 1");
	expect_error(PRE DSC F("{\"type\":\"event-record-class\",\"id\":5}")
		     F("{\"type\":\"event-record-class\",\"id\":5}"), TMX_ERR_METADATA, 4, "5}", 1,
		     "an event record class with ID 5 already exists in data stream class 0");
	expect_error(PRE F("{\"type\":\"trace-class\",\"environment\":{\"a\":[1]}}"),
		     TMX_ERR_METADATA, 2, "[1]", 0, "environment entry `a`: expected an integer or a "
		     "string");
	expect_error(PRE F("{\"type\":\"trace-class\",\"environment\":{\"a\":9223372036854775808}}"),
		     TMX_ERR_METADATA, 2, "9223", 0, "out of range (expected -2^63 to 2^63-1)");
	expect_error(PRE F("{\"type\":\"preamble\",\"version\":2,\"uuid\":[1,2]}"), TMX_ERR_METADATA,
		     2, "{", 1, "the preamble fragment must be the first");
	expect_error(F("{\"type\":\"preamble\",\"version\":2,\"uuid\":[1,2]}"), TMX_ERR_METADATA,
		     1, "[1,2]", 0, "`uuid`: expected an array of 16 integers");
	expect_error(PRE F("{\"type\":\"field-class-alias\",\"name\":\"a\",\"field-class\":" U8 "}")
		     F("{\"type\":\"field-class-alias\",\"name\":\"a\",\"field-class\":" U8 "}"),
		     TMX_ERR_METADATA, 3, "\"a\"", 1, "a field class alias named `a` already exists");
	expect_error(PRE F("{\"type\":\"data-stream-class\",\"packet-context-field-class\":" U8 "}"),
		     TMX_ERR_METADATA, 2, "{\"type\":\"fixed", 0,
		     "`packet-context-field-class`: expected a structure field class");
	expect_error(PRE F("{\"type\":\"data-stream-class\",\"name\":7}"), TMX_ERR_METADATA, 2, "7}",
		     0, "`name`: expected a string, got an integer");
	expect_error(PRE F("{\"type\":\"data-stream-class\",\"name\":\"a\\u0000b\"}"),
		     TMX_ERR_METADATA, 2, "\"a\\u", 0, "contains U+0000");
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

/* A fragment holding `n` + 1 times `value` in an array: rejected before json-c holds them. */
static void check_many(size_t n, const char *value, const char *needle)
{
	size_t vlen = strlen(value), len = 0;
	char *text = malloc(64 + (n + 1) * (vlen + 1));

	assert_non_null(text);
	len += (size_t)sprintf(text, "%s\x1e{\"a\":[", PRE);
	for (size_t i = 0; i <= n; i++) {
		memcpy(text + len, value, vlen);
		len += vlen;
		text[len++] = ',';
	}
	memcpy(text + len - 1, "]}", 3);
	check_error(text, len + 1, TMX_ERR_LIMIT, 2, NULL, 0, needle);
	free(text);
}

static void test_json_errors(void **state)
{
	static const char truncated[] = PRE "\x1e{\"type\":\"data-stream-class\",\"id\":";
	static const char nul_inside[] = PRE "\x1e{\"type\":\0\"x\"}";
	char deep[4 * CTF2_MAX_JSON_DEPTH + 64];
	size_t n = 0;

	(void)state;
	/* Truncated: the error is at the end of the fragment. */
	check_error(truncated, sizeof(truncated) - 1, TMX_ERR_METADATA, 2, "$", 0, "truncated JSON");
	expect_error(PRE "\x1e{\"type\":\"data-stream-class\",\n\"id\":\n", TMX_ERR_METADATA, 2, "$",
		     0, "truncated JSON");
	/* Two objects with no separator between them. */
	expect_error(PRE "\x1e{\"type\":\"data-stream-class\"} {\"type\":\"data-stream-class\"}",
		     TMX_ERR_METADATA, 2, "{\"type\":\"data-stream-class\"}", 1,
		     "expected a record separator");
	expect_error(PRE "\x1e{'type':1}", TMX_ERR_METADATA, 2, "'", 0, "JSON strings take double "
		     "quotes");
	expect_error(PRE "\x1e{\"type\":NaN}", TMX_ERR_METADATA, 2, "NaN", 0, "unexpected character `N`");
	expect_error(PRE "\x1e{\"type\":Infinity}", TMX_ERR_METADATA, 2, "Inf", 0,
		     "unexpected character `I`");
	expect_error(PRE "\x1e{\"id\":18446744073709551616}", TMX_ERR_METADATA, 2, "1844", 0,
		     "integer 18446744073709551616 out of range");
	expect_error(PRE "\x1e{\"id\":-9223372036854775809}", TMX_ERR_METADATA, 2, "-922", 0,
		     "out of range");
	expect_error(PRE "\x1e{\"id\":012}", TMX_ERR_METADATA, 2, "012", 0, "leading zero");
	expect_error(PRE "\x1e{\"id\":1.}", TMX_ERR_METADATA, 2, "1.", 0, "digits after `.`");
	expect_error(PRE "\x1e{\"a\":\"x\ty\"}", TMX_ERR_METADATA, 2, "\ty", 0,
		     "control character 0x09");
	expect_error(PRE "\x1e{\"a\":\"\\q\"}", TMX_ERR_METADATA, 2, "\\q", 0, "bad escape");
	expect_error(PRE "\x1e{\"a\":\"xy}", TMX_ERR_METADATA, 2, "\"xy", 0, "unterminated string");
	expect_error(PRE "\x1e{\"type\":\"data-stream-class\",\"id\":1,\"id\":2}", TMX_ERR_METADATA,
		     2, "{\"type\":\"data", 0, "the same key twice");
	expect_error(PRE "\x1e{\"type\":\"data-stream-class\",\"x\":{\"a\":1,\"a\":1}}",
		     TMX_ERR_METADATA, 2, "{\"a\"", 0, "the same key twice");
	expect_error(PRE "\x1e{\"type\":\"x\",}", TMX_ERR_METADATA, 2, "}", 1, "invalid JSON");
	expect_error(PRE "\x1e{\"type\":\"\xff\"}", TMX_ERR_METADATA, 2, NULL, 0, "invalid JSON");
	check_error(nul_inside, sizeof(nul_inside) - 1, TMX_ERR_METADATA, 2, NULL, 0,
		    "unexpected character");
	expect_error(PRE "\x1e  \n \x1e" DSC, TMX_ERR_METADATA, 2, "  \n", 0, "empty fragment");
	expect_error(PRE "\x1e[1]", TMX_ERR_METADATA, 2, "[1]", 0, "a fragment is a JSON object");
	/* What json-c would hold of one fragment is bounded. */
	check_many(CTF2_MAX_JSON_OBJECTS, "{}", "more than 262144 JSON objects");
	check_many(CTF2_MAX_JSON_VALUES, "0", "more than 4194304 JSON values");
	/* Nesting beyond the limit. */
	n += (size_t)sprintf(deep + n, "%s\x1e{\"a\":", PRE);
	for (int i = 0; i < CTF2_MAX_JSON_DEPTH; i++)
		deep[n++] = '[';
	deep[n] = '\0';
	expect_error(deep, TMX_ERR_LIMIT, 2, NULL, 0, "JSON nested more than 1024 levels deep");
}

/* ------------------------------------------------------------------ */
/* Field classes                                                        */
/* ------------------------------------------------------------------ */

static void test_field_class_errors(void **state)
{
	(void)state;
	/* A float of another size than 32 or 64 bits: named, not supported. */
	expect_error(PAYLOAD(M("half", "{\"type\":\"fixed-length-floating-point-number\",\"length\":16,"
			       "\"byte-order\":\"little-endian\"}")), TMX_ERR_UNSUPPORTED, 3, "16,", 0,
		     "field `half`: 16-bit floating point number: only 32 and 64 bits");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":0,"
			       "\"byte-order\":\"little-endian\"}")), TMX_ERR_METADATA, 3, "0,", 0,
		     "`length`: expected an integer from 1 to 64, got 0");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-bit-array\",\"length\":65,"
			       "\"byte-order\":\"little-endian\"}")), TMX_ERR_METADATA, 3, "65", 0,
		     "from 1 to 64, got 65");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-boolean\",\"length\":1.5,"
			       "\"byte-order\":\"little-endian\"}")), TMX_ERR_METADATA, 3, "1.5", 0,
		     "`length`: expected an integer, got a non-integer number");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-boolean\",\"length\":8,"
			       "\"byte-order\":\"middle-endian\"}")), TMX_ERR_METADATA, 3, "\"middle", 0,
		     "`byte-order`: expected \"little-endian\" or \"big-endian\"");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-boolean\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"alignment\":12}")), TMX_ERR_METADATA, 3,
		     "12}", 0, "`alignment`: expected a power of two");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-boolean\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"alignment\":2147483648}")),
		     TMX_ERR_METADATA, 3, NULL, 0, "from 1 to 2^30");
	expect_error(PAYLOAD(M("x", "{\"type\":\"variable-length-signed-integer\","
			       "\"preferred-display-base\":3}")), TMX_ERR_METADATA, 3, "3}", 0,
		     "expected 2, 8, 10 or 16, got 3");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"mappings\":{\"A\":[[5,4]]}}")),
		     TMX_ERR_METADATA, 3, "[5,4]", 0, "lower bound is greater than its upper bound");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"mappings\":{\"A\":[[-1,4]]}}")),
		     TMX_ERR_METADATA, 3, "-1", 0, "`mappings` `A`: expected a non-negative integer");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-signed-integer\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"mappings\":{\"A\":[[0,18446744073709551615]]}}")),
		     TMX_ERR_METADATA, 3, "18446", 0, "out of range for a signed integer");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"mappings\":{\"A\":[]}}")),
		     TMX_ERR_METADATA, 3, "[]", 0, "expected an integer range set");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"mappings\":{\"A\":[[1]]}}")),
		     TMX_ERR_METADATA, 3, "[1]", 0, "two integers [lower, upper]");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-bit-map\",\"length\":4,"
			       "\"byte-order\":\"big-endian\",\"flags\":{\"A\":[[0,4]]}}")),
		     TMX_ERR_METADATA, 3, "{\"A\"", 0, "flag `A`: bit index 4 is not below the length");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-bit-map\",\"length\":4,"
			       "\"byte-order\":\"big-endian\",\"flags\":{}}")),
		     TMX_ERR_METADATA, 3, "{}", 0, "at least one flag");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-signed-integer\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"roles\":[]}")),
		     TMX_ERR_METADATA, 3, "[]", 0, "unknown property `roles`");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"roles\":[\"packet-size\"]}")),
		     TMX_ERR_METADATA, 3, "\"packet-size\"", 0, "`packet-size` is not a role of an "
		     "unsigned integer");
	expect_error(PAYLOAD(M("x", "{\"type\":\"static-length-blob\",\"length\":16,\"roles\":"
			       "[\"packet-magic-number\"]}")), TMX_ERR_METADATA, 3, "\"packet-magic",
		     0, "not a role of a static-length BLOB");
	expect_error(PAYLOAD(M("x", "{\"type\":\"static-length-blob\",\"length\":8,\"roles\":"
			       "[\"metadata-stream-uuid\"]}")), TMX_ERR_METADATA, 3, "{\"type\":\"static",
		     0, "needs `length` 16, not 8");
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,"
			       "\"byte-order\":\"big-endian\",\"roles\":[\"packet-total-length\","
			       "\"packet-content-length\"]}")), TMX_ERR_UNSUPPORTED, 3, "[\"packet-total",
		     0, "several roles is not supported");
	expect_error(PAYLOAD(M("x", "{\"type\":\"static-length-string\",\"length\":2305843009213693952}")),
		     TMX_ERR_METADATA, 3, "2305", 0, "from 0 to 2305843009213693951");
	expect_error(PAYLOAD(M("x", "{\"type\":\"null-terminated-string\",\"encoding\":\"latin-1\"}")),
		     TMX_ERR_METADATA, 3, "\"latin", 0, "`encoding`: expected \"utf-8\"");
	expect_error(PAYLOAD(M("x", NT) "," M("x", NT)), TMX_ERR_METADATA, 3, "[{\"name\":\"x\"", 0,
		     "two structure members are named `x`");
	expect_error(PAYLOAD(M("x", "{\"type\":\"structure\",\"member-classes\":[{\"name\":\"y\"}]}")),
		     TMX_ERR_METADATA, 3, "{\"name\":\"y\"", 0, "member `y`: missing property `field-class`");
	expect_error(PAYLOAD(M("x", "{\"type\":\"static-length-array\",\"length\":2}")),
		     TMX_ERR_METADATA, 3, "{\"type\":\"static", 0, "missing property `element-field-class`");
	expect_error(PAYLOAD(M("x", "{\"type\":\"variant\",\"selector-field-location\":" LOC("\"s\"")
			       ",\"options\":[]}")), TMX_ERR_METADATA, 3, "[]", 0, "at least one option");
	expect_error(PAYLOAD(M("s", U8) "," M("x", "{\"type\":\"variant\",\"selector-field-location\":"
			       LOC("\"s\"") ",\"options\":[{\"name\":\"a\",\"selector-field-ranges\":"
			       "[[0,0]],\"field-class\":" NT "},{\"name\":\"a\",\"selector-field-ranges\":"
			       "[[1,1]],\"field-class\":" NT "}]}")), TMX_ERR_METADATA, 3, "[{\"name\":\"a\"",
		     0, "two variant options are named `a`");
	expect_error(PAYLOAD(M("x", "{\"type\":\"variant\",\"selector-field-location\":" LOC("\"s\"")
			       ",\"options\":[{\"field-class\":" NT "}]}")), TMX_ERR_METADATA, 3,
		     "{\"field-class\"", 0, "missing property `selector-field-ranges`");
	expect_error(PAYLOAD(M("x", "{\"type\":\"variant\",\"selector-field-location\":" LOC("\"s\"")
			       ",\"options\":[{\"field-class\":" NT ",\"selector-field-ranges\":"
			       "[[-1,-1],[9223372036854775808,9223372036854775808]]}]}")),
		     TMX_ERR_METADATA, 3, "[9223", 0, "both negative bounds and bounds above 2^63-1");
	expect_error(PAYLOAD(M("x", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			       "{\"path\":[]},\"element-field-class\":" U8 "}")),
		     TMX_ERR_METADATA, 3, "[]", 0, "`path`: expected at least one element");
	expect_error(PAYLOAD(M("x", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			       "{\"path\":[\"a\",null]},\"element-field-class\":" U8 "}")),
		     TMX_ERR_METADATA, 3, "[\"a\",null]", 0, "the last element must be a member name");
	expect_error(PAYLOAD(M("x", "{\"type\":\"dynamic-length-array\",\"length-field-location\":"
			       "{\"origin\":\"payload\",\"path\":[\"a\"]},\"element-field-class\":" U8 "}")),
		     TMX_ERR_METADATA, 3, "\"payload\"", 0, "`origin`: expected a scope name");
	expect_error(PAYLOAD(M("x", "{\"type\":\"text\"}")), TMX_ERR_METADATA, 3,
		     "{\"type\":\"text", 0, "unknown field class type \"text\"");
	expect_error(PAYLOAD(M("x", "[1]")), TMX_ERR_METADATA, 3, "[1]", 0,
		     "expected a field class (an object) or the name of a field class alias");
}

static void test_aliases(void **state)
{
	char *text;
	size_t n = 0, cap = 1 << 16;

	(void)state;
	expect_error(PAYLOAD(M("x", "\"u8\"")), TMX_ERR_METADATA, 3, "\"u8\"", 0,
		     "no field class alias named `u8` before this fragment");
	/* An alias cannot name itself (it exists once its fragment is read). */
	expect_error(PRE F("{\"type\":\"field-class-alias\",\"name\":\"a\",\"field-class\":"
			   "{\"type\":\"static-length-array\",\"length\":1,\"element-field-class\":\"a\"}}"),
		     TMX_ERR_METADATA, 2, "\"a\"}", 0, "no field class alias named `a`");
	/* Aliases of aliases that double at each level: the copies are bounded. */
	text = malloc(cap);
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "%s\x1e{\"type\":\"field-class-alias\",\"name\":"
			      "\"a0\",\"field-class\":%s}\n", PRE, U8);
	for (int i = 1; i <= 24; i++)
		n += (size_t)snprintf(text + n, cap - n, "\x1e{\"type\":\"field-class-alias\",\"name\":"
				      "\"a%d\",\"field-class\":{\"type\":\"structure\",\"member-classes\":"
				      "[{\"name\":\"x\",\"field-class\":\"a%d\"},{\"name\":\"y\","
				      "\"field-class\":\"a%d\"}]}}\n", i, i - 1, i - 1);
	snprintf(text + n, cap - n, "%s\x1e{\"type\":\"event-record-class\",\"payload-field-class\":"
		 "\"a24\"}\n", DSC);
	/* a19's fragment: the copies made for a1..a19 pass 2^20. */
	expect_error(text, TMX_ERR_LIMIT, 21, "\"a18\"}", 0,
		     "expand to more than 1048576 field classes");
	free(text);
}

static void test_location_errors(void **state)
{
	(void)state;
	expect_error(PAYLOAD(M("a", DYN(LOC("\"len\""))) "," M("len", U8)), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "member `len` comes after the field that refers to it");
	expect_error(PAYLOAD(M("a", DYN(LOC("\"a\"")))), TMX_ERR_METADATA, 3, "{\"type\":\"dynamic", 0,
		     "the path leads to the field class that refers to it");
	expect_error(PAYLOAD(M("a", DYN(LOC("\"nope\"")))), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "no structure member named `nope` on the way");
	expect_error(PAYLOAD(M("n", S8) "," M("a", DYN(LOC("\"n\"")))), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "the length field must be an unsigned integer, not a "
		     "signed integer");
	expect_error(PAYLOAD(M("n", NT) "," M("a", DYN(LOC("\"n\"")))), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "locates a string (expected an integer or boolean");
	expect_error(PAYLOAD(M("n", ST(M("m", U8))) "," M("a", DYN(LOC("\"n\"")))), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "locates a structure (expected an unsigned integer length)");
	expect_error(PAYLOAD(M("n", U8) "," M("a", DYN(LOC("\"n\",\"m\"")))), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "`n` is an unsigned integer: the path cannot go on to `m`");
	expect_error(PAYLOAD(M("n", U8) "," M("a", DYN(LOC("null,\"n\"")))), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "too many `null` elements");
	expect_error(PAYLOAD(M("n", U8) "," M("a", DYN(PLOC("null,\"n\"")))), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "the path starts at the scope root");
	/* The optional does not contain the referrer: its field may be absent. */
	expect_error(PAYLOAD(M("b", BOOL8) "," M("o", "{\"type\":\"optional\",\"selector-field-location\":"
			     LOC("\"b\"") ",\"field-class\":" U8 "}") "," M("a", DYN(LOC("\"o\"")))),
		     TMX_ERR_METADATA, 3, "{\"type\":\"dynamic", 0,
		     "the path goes into an optional that does not contain");
	/* Every option must have the rest of the path. */
	expect_error(PAYLOAD(M("u", U8) "," M("v", "{\"type\":\"variant\",\"selector-field-location\":"
			     LOC("\"u\"") ",\"options\":[{\"selector-field-ranges\":[[0,0]],\"field-class\":"
			     ST(M("k", U8)) "},{\"selector-field-ranges\":[[1,1]],\"field-class\":"
			     ST(M("j", U8)) "}]}") "," M("a", DYN(LOC("\"v\",\"k\"")))),
		     TMX_ERR_METADATA, 3, "{\"type\":\"dynamic", 0, "no structure member named `k`");
	/* Scopes: a later one, or one the data stream class does not have. */
	expect_error(PRE F("{\"type\":\"data-stream-class\",\"packet-context-field-class\":"
			   ST(M("a", DYN("{\"origin\":\"event-record-payload\",\"path\":[\"n\"]}"))) "}"),
		     TMX_ERR_METADATA, 2, "{\"type\":\"dynamic", 0,
		     "packet-context member `a`: `length-field-location` event-record-payload [\"n\"]: "
		     "a field cannot depend on a field of the later event-record-payload scope");
	expect_error(PAYLOAD(M("a", DYN("{\"origin\":\"packet-context\",\"path\":[\"n\"]}"))),
		     TMX_ERR_METADATA, 3, "{\"type\":\"dynamic", 0, "there is no packet-context scope here");
}

/* An error inside an alias's copy is reported where the alias is used. */
static void test_alias_location_error(void **state)
{
	(void)state;
	expect_error(PRE F("{\"type\":\"field-class-alias\",\"name\":\"d\",\"field-class\":"
			   DYN(LOC("\"len\"")) "}") DSC ERC(ST(M("x", "\"d\""))), TMX_ERR_METADATA, 4,
		     "\"d\"", 1, "no structure member named `len` on the way (in field class alias `d`)");
}

/* ------------------------------------------------------------------ */
/* Roles                                                                */
/* ------------------------------------------------------------------ */

static void test_role_errors(void **state)
{
	(void)state;
	expect_error(PAYLOAD(M("x", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,"
			     "\"byte-order\":\"big-endian\",\"roles\":[\"packet-total-length\"]}")),
		     TMX_ERR_METADATA, 3, "{\"type\":\"fixed", 0,
		     "event-record-payload: the `packet-total-length` role is not allowed in this scope");
	expect_error(PRE F("{\"type\":\"data-stream-class\",\"event-record-header-field-class\":"
			   ST(M("t", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":8,"
				"\"byte-order\":\"big-endian\",\"roles\":[\"default-clock-timestamp\"]}"))
			   "}"), TMX_ERR_METADATA, 2, "{\"type\":\"fixed", 0,
		     "needs a default clock class");
	expect_error(PRE F("{\"type\":\"trace-class\",\"packet-header-field-class\":" ST(M("a", U8) ","
			   M("m", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":32,"
			     "\"byte-order\":\"big-endian\",\"roles\":[\"packet-magic-number\"]}")) "}"),
		     TMX_ERR_METADATA, 2, "{\"type\":\"fixed-length-unsigned-integer\",\"length\":32", 0,
		     "the packet header's first member");
	expect_error(PRE F("{\"type\":\"trace-class\",\"packet-header-field-class\":"
			   ST(M("m", "{\"type\":\"fixed-length-unsigned-integer\",\"length\":16,"
				"\"byte-order\":\"big-endian\",\"roles\":[\"packet-magic-number\"]}")) "}"),
		     TMX_ERR_METADATA, 2, "{\"type\":\"fixed", 0, "a 32-bit fixed-length unsigned integer");
	expect_error(PRE F("{\"type\":\"trace-class\",\"packet-header-field-class\":"
			   ST(M("u", "{\"type\":\"static-length-blob\",\"length\":16,"
				"\"roles\":[\"metadata-stream-uuid\"]}")) "}"),
		     TMX_ERR_METADATA, 2, "{\"type\":\"static", 0, "needs the preamble fragment's `uuid`");
}

/* ------------------------------------------------------------------ */
/* Limits                                                               */
/* ------------------------------------------------------------------ */

static void test_deep_field_classes(void **state)
{
	size_t cap = 80 * (CTF2_MAX_TYPE_DEPTH + 8) + 256, n = 0;
	char *text = malloc(cap);

	(void)state;
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "%s%s\x1e{\"type\":\"event-record-class\","
			      "\"payload-field-class\":", PRE, DSC);
	for (int i = 0; i <= CTF2_MAX_TYPE_DEPTH; i++)
		n += (size_t)snprintf(text + n, cap - n, "{\"type\":\"static-length-array\","
				      "\"length\":1,\"element-field-class\":");
	n += (size_t)snprintf(text + n, cap - n, "%s", U8);
	for (int i = 0; i <= CTF2_MAX_TYPE_DEPTH; i++)
		text[n++] = '}';
	snprintf(text + n, cap - n, "}\n");
	expect_error(text, TMX_ERR_LIMIT, 3, NULL, 0, "field classes nested more than 256 levels");
	free(text);
}

/*
 * A location after a variant follows every option: many options and many
 * such locations would take quadratic time; the steps are bounded.
 */
static void test_location_steps(void **state)
{
	enum { OPTIONS = 4096, REFS = 17000 };
	size_t cap = 128 * (OPTIONS + REFS) + 512, n = 0;
	char *text = malloc(cap);

	(void)state;
	assert_non_null(text);
	n += (size_t)snprintf(text + n, cap - n, "%s%s\x1e{\"type\":\"event-record-class\","
			      "\"payload-field-class\":{\"type\":\"structure\",\"member-classes\":["
			      "{\"name\":\"s\",\"field-class\":%s},{\"name\":\"v\",\"field-class\":"
			      "{\"type\":\"variant\",\"selector-field-location\":{\"path\":[\"s\"]},"
			      "\"options\":[", PRE, DSC, U8);
	for (int i = 0; i < OPTIONS; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s{\"selector-field-ranges\":[[%d,%d]],"
				      "\"field-class\":{\"type\":\"structure\",\"member-classes\":"
				      "[{\"name\":\"n\",\"field-class\":%s}]}}", i ? "," : "", i, i, U8);
	n += (size_t)snprintf(text + n, cap - n, "]}}");
	for (int i = 0; i < REFS; i++)
		n += (size_t)snprintf(text + n, cap - n, ",{\"name\":\"d%d\",\"field-class\":"
				      "{\"type\":\"dynamic-length-blob\",\"length-field-location\":"
				      "{\"path\":[\"v\",\"n\"]}}}", i);
	snprintf(text + n, cap - n, "]}}\n");
	expect_error(text, TMX_ERR_LIMIT, 3, NULL, 0, "the field locations take more than 67108864 "
		     "steps to follow");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fragment_errors),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_field_class_errors),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_location_errors),
		cmocka_unit_test(test_alias_location_error),
		cmocka_unit_test(test_role_errors),
		cmocka_unit_test(test_deep_field_classes),
		cmocka_unit_test(test_location_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
