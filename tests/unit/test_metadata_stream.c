/*
 * Metadata file framing (CTF 1.8 spec 7.1): plain text, or packets whose
 * payloads are concatenated.  Cases: yactfr's metadata streams (corpus
 * yactfr-tests/metadata-stream), babeltrace's packetized traces and
 * babeltrace2's `-o ctf-metadata` output of one, and streams built here
 * to cut and corrupt at every place.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctf/metadata.h"
#include "testutil.h"

#define STREAM_DIR TMX_CORPUS "/yactfr-tests/metadata-stream"
#define BT_TRACES TMX_CORPUS "/babeltrace-tests/ctf-traces"
#define HEADER_SIZE 37

/* ------------------------------------------------------------------ */
/* yactfr's cases                                                      */
/* ------------------------------------------------------------------ */

/* The UUID in the headers of all of yactfr's packetized streams. */
static const uint8_t yactfr_uuid[16] = {
	0xa5, 0x60, 0xbb, 0xc4, 0x7f, 0x93, 0xb3, 0x46,
	0xa9, 0x80, 0x39, 0x59, 0x74, 0x5a, 0x0f, 0x5d,
};

struct pass_case {
	const char *name;
	bool packetized, big_endian;
	size_t len;               /* sum of the payloads (content size - 37) */
	const char *head, *tail;  /* how the text starts and ends */
};

/* Lengths, heads and tails read off the files with a hex dump. */
static const struct pass_case pass_cases[] = {
	{ "pass-23-pkts", true, false, 11633, "typealias integer { size = 8; align = 8;",
	  "\tname = \"mm_vmscan_lru_shrink_inactive\";\n\tid = 1356;\n\tstream_id = 0;\n" },
	/* Two packets, the second with a content size of exactly 37 bytes. */
	{ "pass-empty-pkt", true, false, 1084, "typealias integer { size = 8; align = 8;",
	  "uuid = \"d61dd2f6-320c-4508-b5ce-ea5209a03ad3\";\n" },
	{ "pass-with-signature", true, false, 1084, "/* CTF 1.8 */",
	  "uuid = \"d61dd2f6-320c-4508-b5ce-ea5209a03ad3\";\n" },
	{ "pass-with-signature-be", true, true, 1084, "/* CTF 1.8 */",
	  "uuid = \"d61dd2f6-320c-4508-b5ce-ea5209a03ad3\";\n" },
	{ "pass-text", false, false, 378, "/* CTF 1.8 */\n\ntrace {", "};\n" },
	{ "pass-text-no-sig", false, false, 363, "trace {\n  major = 1;", "};\n" },
};

static void read_stream(const char *name, struct ctf_metadata_text *t)
{
	char path[1024];
	struct tmx_error err = { 0 };

	snprintf(path, sizeof(path), "%s/%s", STREAM_DIR, name);
	if (ctf_metadata_read(path, t, &err) != TMX_OK)
		fail_msg("%s: %s", name, err.msg);
}

static void test_yactfr_pass(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(pass_cases) / sizeof(pass_cases[0]); i++) {
		const struct pass_case *c = &pass_cases[i];
		size_t head = strlen(c->head), tail = strlen(c->tail);
		struct ctf_metadata_text t;

		read_stream(c->name, &t);
		assert_int_equal(t.packetized, c->packetized);
		assert_int_equal(t.packet_byte_order_be, c->big_endian);
		assert_int_equal(t.has_uuid, c->packetized);
		if (c->packetized)
			assert_memory_equal(t.uuid, yactfr_uuid, 16);
		assert_int_equal(t.len, c->len);
		assert_int_equal(strlen(t.text), t.len);
		assert_memory_equal(t.text, c->head, head);
		assert_memory_equal(t.text + t.len - tail, c->tail, tail);
		ctf_metadata_text_fini(&t);
	}
}

/* Only the byte order of the packet headers differs. */
static void test_yactfr_both_byte_orders(void **state)
{
	struct ctf_metadata_text le, be;

	(void)state;
	read_stream("pass-with-signature", &le);
	read_stream("pass-with-signature-be", &be);
	assert_int_equal(le.len, be.len);
	assert_memory_equal(le.text, be.text, le.len);
	ctf_metadata_text_fini(&le);
	ctf_metadata_text_fini(&be);
}

struct fail_case {
	const char *name;
	enum tmx_status code;
	bool has_offset;
	uint64_t offset;          /* of the packet at fault */
};

/*
 * yactfr's packets are 4096 bytes long: the `fail-ends-*` streams are 22
 * good packets (90112 bytes) and a cut 23rd one; the others fault in
 * their first packet, or their second for the UUID.
 */
static const struct fail_case fail_cases[] = {
	{ "fail-empty", TMX_ERR_METADATA, false, 0 },
	{ "fail-ends-magic", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-uuid", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-checksum", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-pkt-content-size", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-pkt-total-size", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-compression-scheme", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-encryption-scheme", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-checksum-scheme", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-major-version", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-minor-version", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-content", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-padding", TMX_ERR_METADATA, true, 90112 },
	{ "fail-ends-one-header", TMX_ERR_METADATA, true, 0 },
	{ "fail-pkt-content-size-gt-pkt-size", TMX_ERR_METADATA, true, 0 },
	{ "fail-pkt-content-size-lt-header-size", TMX_ERR_METADATA, true, 0 },
	{ "fail-pkt-content-size-not-multiple-8", TMX_ERR_METADATA, true, 0 },
	{ "fail-pkt-total-size-not-multiple-8", TMX_ERR_METADATA, true, 0 },
	{ "fail-unsupported-checksum-scheme", TMX_ERR_UNSUPPORTED, true, 0 },
	{ "fail-unsupported-compression-scheme", TMX_ERR_UNSUPPORTED, true, 0 },
	{ "fail-unsupported-encryption-scheme", TMX_ERR_UNSUPPORTED, true, 0 },
	{ "fail-uuid-mismatch", TMX_ERR_METADATA, true, 4096 },
	{ "fail-wrong-major", TMX_ERR_METADATA, true, 0 },
	{ "fail-wrong-minor", TMX_ERR_METADATA, true, 0 },
};

static void test_yactfr_fail(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fail_cases) / sizeof(fail_cases[0]); i++) {
		const struct fail_case *c = &fail_cases[i];
		char path[1024];
		struct ctf_metadata_text t;
		struct tmx_error err = { 0 };
		int ret;

		snprintf(path, sizeof(path), "%s/%s", STREAM_DIR, c->name);
		ret = ctf_metadata_read(path, &t, &err);
		if (ret == TMX_OK) {
			ctf_metadata_text_fini(&t);
			fail_msg("%s: accepted", c->name);
		}
		if ((int)c->code != ret || c->has_offset != err.has_offset ||
		    c->offset != err.offset)
			fail_msg("%s: %s at %d:%" PRIu64 " (%s), expected %s at %d:%" PRIu64,
				 c->name, tmx_status_name(ret), err.has_offset, err.offset, err.msg,
				 tmx_status_name(c->code), c->has_offset, c->offset);
		assert_string_equal(err.file, path);
		assert_null(t.text);
	}
}

/* ------------------------------------------------------------------ */
/* babeltrace's traces                                                 */
/* ------------------------------------------------------------------ */

/*
 * babeltrace2 2.0.4's `-o ctf-metadata` prints the de-packetized text and
 * one more newline.  It does not add the CTF 1.8 signature comment that
 * this text lacks (later versions do: upstream's
 * cli/test-output-ctf-metadata.ref).  The stored reference has a command
 * line before and an exit status after.
 */
static void test_wk_heartbeat_as_babeltrace2(void **state)
{
	static const char exit_line[] = "# exit=0\n";
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };
	size_t len = 0;
	char *ref = read_whole_file(TMX_CORPUS "/babeltrace-tests/generated-reference/"
				    "bt2-cli-options/wk-ctf-metadata.txt", &len);
	char *body;

	(void)state;
	assert_non_null(ref);
	body = strchr(ref, '\n') + 1;
	len -= (size_t)(body - ref);
	assert_true(len > sizeof(exit_line));
	assert_string_equal(body + len - (sizeof(exit_line) - 1), exit_line);
	len -= sizeof(exit_line) - 1;
	assert_int_equal(body[len - 1], '\n');
	len--;

	assert_int_equal(ctf_metadata_read(BT_TRACES "/succeed/wk-heartbeat-u/metadata", &t, &err),
			 TMX_OK);
	assert_true(t.packetized);
	assert_int_equal(t.len, len);
	assert_memory_equal(t.text, body, len);
	ctf_metadata_text_fini(&t);
	free(ref);
}

/* A packetized metadata that is a whole TSDL description: it parses. */
static void test_2packets_parses(void **state)
{
	static const char path[] = BT_TRACES "/succeed/2packets/metadata";
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };
	struct tmx_arena arena;
	struct tmx_trace_class *tc;

	(void)state;
	assert_int_equal(ctf_metadata_read(path, &t, &err), TMX_OK);
	assert_true(t.packetized);
	assert_true(t.has_uuid);
	assert_int_equal(strncmp(t.text, "/* CTF 1.8 */", 13), 0);
	tmx_arena_init(&arena);
	if (ctf_metadata_parse(t.text, t.len, path, NULL, &arena, &tc, &err) != TMX_OK)
		fail_msg("%s", err.msg);
	tmx_arena_free(&arena);
	ctf_metadata_text_fini(&t);
}

/*
 * Pre-1.8 packet headers have no version bytes: where major and minor
 * would be (bytes 35 and 36), these files have the start of their text,
 * "ty" of "typealias".
 */
static void test_old_headers(void **state)
{
	static const char *const traces[] = { "packet-based-metadata", "lttng-modules-2.0-pre1" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char path[1024];
		struct ctf_metadata_text t;
		struct tmx_error err = { 0 };

		snprintf(path, sizeof(path), "%s/fail/%s/metadata", BT_TRACES, traces[i]);
		assert_int_equal(ctf_metadata_read(path, &t, &err), TMX_ERR_METADATA);
		assert_true(err.has_offset);
		assert_int_equal(err.offset, 0);
		assert_non_null(strstr(err.msg, "116.121"));
	}
}

/* ------------------------------------------------------------------ */
/* Streams built here                                                  */
/* ------------------------------------------------------------------ */

static void put32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Writes one 1.8 packet at `p`; returns its size. */
static size_t put_packet(uint8_t *p, bool be, const char *payload, size_t padding)
{
	size_t content = HEADER_SIZE + strlen(payload);

	put32(p, 0x75D11D57, be);
	for (int i = 0; i < 16; i++)
		p[4 + i] = (uint8_t)(0xA0 + i);
	put32(p + 20, 0, be);
	put32(p + 24, (uint32_t)(content * 8), be);
	put32(p + 28, (uint32_t)((content + padding) * 8), be);
	memcpy(p + 32, "\0\0\0\1\10", 5);
	memcpy(p + HEADER_SIZE, payload, strlen(payload));
	memset(p + content, 0xEE, padding);
	return content + padding;
}

/* Three packets: some text, an empty payload, text without padding. */
static const char *const payloads[] = { "trace { major = 1;", "", " minor = 8; };" };
static const size_t paddings[] = { 5, 11, 0 };
#define N_PACKETS 3

struct built {
	uint8_t bytes[512];
	size_t size;
	size_t starts[N_PACKETS + 1];   /* the last one is the size */
};

static void build(struct built *b, bool be)
{
	b->size = 0;
	for (int i = 0; i < N_PACKETS; i++) {
		b->starts[i] = b->size;
		b->size += put_packet(b->bytes + b->size, be, payloads[i], paddings[i]);
	}
	b->starts[N_PACKETS] = b->size;
}

/* Decodes the first `size` bytes from a heap copy of exactly that size. */
static int decode_prefix(const struct built *b, size_t size, struct ctf_metadata_text *t,
			 struct tmx_error *err)
{
	uint8_t *copy = malloc(size);
	int ret;

	assert_non_null(copy);
	memcpy(copy, b->bytes, size);
	ret = ctf_metadata_decode(copy, size, "built", t, err);
	free(copy);
	return ret;
}

/*
 * Every cut from the first complete magic on: at a packet boundary the
 * packets before it make the text; anywhere else the packet that was cut
 * is named by its offset.
 */
static void check_every_cut(bool be)
{
	struct built b;
	int packet = 0;

	build(&b, be);
	for (size_t size = 4; size <= b.size; size++) {
		struct ctf_metadata_text t;
		struct tmx_error err = { 0 };
		int ret = decode_prefix(&b, size, &t, &err);

		while (size > b.starts[packet + 1])
			packet++;
		if (size == b.starts[packet + 1]) {
			char expected[128] = "";

			for (int i = 0; i <= packet; i++)
				strcat(expected, payloads[i]);
			if (ret != TMX_OK)
				fail_msg("%s, %zu bytes: %s", be ? "BE" : "LE", size, err.msg);
			assert_true(t.packetized);
			assert_int_equal(t.packet_byte_order_be, be);
			assert_string_equal(t.text, expected);
			assert_int_equal(t.len, strlen(expected));
			ctf_metadata_text_fini(&t);
			continue;
		}
		if (ret != TMX_ERR_METADATA || !err.has_offset || err.offset != b.starts[packet])
			fail_msg("%s, %zu bytes: %s at %" PRIu64 " (%s), expected an error at %zu",
				 be ? "BE" : "LE", size, tmx_status_name(ret), err.offset, err.msg,
				 b.starts[packet]);
	}
}

static void test_every_cut(void **state)
{
	(void)state;
	check_every_cut(false);
	check_every_cut(true);
}

struct corruption {
	const char *what;
	unsigned at;             /* header byte */
	unsigned n;
	uint8_t bytes[4];        /* as stored in a little-endian stream */
	enum tmx_status code;
};

static const struct corruption corruptions[] = {
	{ "magic in the other byte order", 0, 4, { 0x75, 0xD1, 0x1D, 0x57 }, TMX_ERR_METADATA },
	{ "another UUID", 19, 1, { 0x00 }, TMX_ERR_METADATA },
	{ "content size not a multiple of 8", 24, 1, { 0x41 }, TMX_ERR_METADATA },
	{ "packet size not a multiple of 8", 28, 1, { 0x44 }, TMX_ERR_METADATA },
	{ "content size below the header", 24, 4, { 0x20, 0x01, 0, 0 }, TMX_ERR_METADATA },
	{ "content size above the packet size", 24, 4, { 0xF8, 0xFF, 0xFF, 0xFF },
	  TMX_ERR_METADATA },
	{ "packet larger than the file", 28, 4, { 0xF8, 0xFF, 0xFF, 0xFF }, TMX_ERR_METADATA },
	{ "compression", 32, 1, { 2 }, TMX_ERR_UNSUPPORTED },
	{ "encryption", 33, 1, { 1 }, TMX_ERR_UNSUPPORTED },
	{ "checksum", 34, 1, { 1 }, TMX_ERR_UNSUPPORTED },
	{ "version 2.8", 35, 1, { 2 }, TMX_ERR_METADATA },
	{ "version 1.7", 36, 1, { 7 }, TMX_ERR_METADATA },
};

/* Each fault in the header of the second packet fails at its offset. */
static void test_corrupt_second_header(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(corruptions) / sizeof(corruptions[0]); i++) {
		const struct corruption *c = &corruptions[i];
		struct built b;
		struct ctf_metadata_text t;
		struct tmx_error err = { 0 };
		int ret;

		build(&b, false);
		memcpy(b.bytes + b.starts[1] + c->at, c->bytes, c->n);
		ret = decode_prefix(&b, b.size, &t, &err);
		if (ret != (int)c->code || !err.has_offset || err.offset != b.starts[1])
			fail_msg("%s: %s at %" PRIu64 " (%s), expected %s at %zu", c->what,
				 tmx_status_name(ret), err.offset, err.msg,
				 tmx_status_name(c->code), b.starts[1]);
	}
}

/* babeltrace2 takes the text up to the first NUL of the payloads. */
static void test_nul_in_payload(void **state)
{
	struct built b = { .size = 0 };
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };

	(void)state;
	b.size = put_packet(b.bytes, false, "trace {", 0);
	b.size += put_packet(b.bytes + b.size, false, " major = 1;X rest", 3);
	b.bytes[b.size - 3 - strlen("X rest")] = '\0';
	assert_int_equal(decode_prefix(&b, b.size, &t, &err), TMX_OK);
	assert_string_equal(t.text, "trace { major = 1;");
	assert_int_equal(t.len, strlen("trace { major = 1;"));
	ctf_metadata_text_fini(&t);
}

/* Text is taken as is, signature or not, CRLF or not. */
static void test_plain_text(void **state)
{
	static const char text[] = "trace {\r\n\tmajor = 1;\r\n};\r\n";
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };

	(void)state;
	assert_int_equal(ctf_metadata_decode((const uint8_t *)text, sizeof(text) - 1, "text", &t,
					     &err), TMX_OK);
	assert_false(t.packetized);
	assert_false(t.has_uuid);
	assert_int_equal(t.len, sizeof(text) - 1);
	assert_string_equal(t.text, text);
	ctf_metadata_text_fini(&t);
}

/* The spec's signature names the version: only 1.8 is read (as babeltrace2). */
static void test_signature_version(void **state)
{
	static const char *const texts[] = {
		"/* CTF 1.9 */\ntrace {};", "/* CTF 2.0 */", "/*CTF 18.0",
	};
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		assert_int_equal(ctf_metadata_decode((const uint8_t *)texts[i], strlen(texts[i]),
						     "text", &t, &err), TMX_ERR_METADATA);
		assert_int_equal(err.line, 1);
		assert_int_equal(err.col, 1);
	}
	assert_int_equal(ctf_metadata_decode((const uint8_t *)"/* CTF 1.8", 10, "text", &t, &err),
			 TMX_OK);
	ctf_metadata_text_fini(&t);
}

/* A file past the limit is refused before anything is copied. */
static void test_size_limit(void **state)
{
	uint8_t *big = calloc(CTF_METADATA_MAX_SIZE + 1, 1);   /* pages never touched */
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };

	(void)state;
	assert_non_null(big);
	assert_int_equal(ctf_metadata_decode(big, CTF_METADATA_MAX_SIZE + 1, "big", &t, &err),
			 TMX_ERR_LIMIT);
	assert_null(t.text);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yactfr_pass),
		cmocka_unit_test(test_yactfr_both_byte_orders),
		cmocka_unit_test(test_yactfr_fail),
		cmocka_unit_test(test_wk_heartbeat_as_babeltrace2),
		cmocka_unit_test(test_2packets_parses),
		cmocka_unit_test(test_old_headers),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_corrupt_second_header),
		cmocka_unit_test(test_nul_in_payload),
		cmocka_unit_test(test_plain_text),
		cmocka_unit_test(test_signature_version),
		cmocka_unit_test(test_size_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
