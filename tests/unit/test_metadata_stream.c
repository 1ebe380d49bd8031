/*
 * Packetized metadata framing (CTF 1.8 spec 7.1), with yactfr's cases in
 * corpus yactfr-tests/metadata-stream: every `pass-*` stream de-frames and
 * into text; every `fail-*` stream is rejected with the byte
 * offset of the fault; never a crash.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctf/metadata.h"

#define STREAM_DIR TMX_CORPUS "/yactfr-tests/metadata-stream"

/* The streams hold TSDL fragments (not whole metadata): check the framing. */
static void check_pass(const char *name)
{
	char path[1024];
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };

	snprintf(path, sizeof(path), "%s/%s", STREAM_DIR, name);
	if (ctf_metadata_read(path, &t, &err) != TMX_OK)
		fail_msg("%s: %s", name, err.msg);
	/* Only the pass-text* cases are plain text. */
	assert_int_equal(t.packetized, strncmp(name, "pass-text", 9) != 0);
	assert_true(t.len > 0);
	assert_int_equal(strlen(t.text), t.len);
	/* No packet header survives in the text (its magic, either byte order). */
	assert_null(memmem(t.text, t.len, "\x57\x1d\xd1\x75", 4));
	assert_null(memmem(t.text, t.len, "\x75\xd1\x1d\x57", 4));
	ctf_metadata_text_fini(&t);
}

static void check_fail(const char *name)
{
	char path[1024];
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };

	snprintf(path, sizeof(path), "%s/%s", STREAM_DIR, name);
	if (ctf_metadata_read(path, &t, &err) == TMX_OK) {
		ctf_metadata_text_fini(&t);
		fail_msg("%s: accepted", name);
	}
	assert_true(err.msg[0] != '\0');
	/* Every framing fault is located, except an empty file. */
	if (strcmp(name, "fail-empty") != 0 && !err.has_offset)
		fail_msg("%s: error without a byte offset: %s", name, err.msg);
}

static void test_yactfr_metadata_streams(void **state)
{
	DIR *d = opendir(STREAM_DIR);
	struct dirent *de;
	int pass = 0, fail = 0;

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, "pass-", 5)) {
			check_pass(de->d_name);
			pass++;
		} else if (!strncmp(de->d_name, "fail-", 5)) {
			check_fail(de->d_name);
			fail++;
		}
	}
	closedir(d);
	assert_int_equal(pass, 6);
	assert_int_equal(fail, 24);
}

/* 23 packets: the payloads are concatenated in order, headers removed. */
static void test_concatenation(void **state)
{
	struct ctf_metadata_text t;
	struct tmx_error err = { 0 };

	(void)state;
	assert_int_equal(ctf_metadata_read(STREAM_DIR "/pass-23-pkts", &t, &err), TMX_OK);
	assert_non_null(strstr(t.text, "trace {"));
	assert_null(memchr(t.text, 0xC1, t.len));       /* no header bytes left */
	assert_int_equal(strlen(t.text), t.len);
	ctf_metadata_text_fini(&t);
}

/* babeltrace's fail traces with pre-1.8 packet headers are rejected. */
static void test_old_headers(void **state)
{
	static const char *const traces[] = { "packet-based-metadata", "lttng-modules-2.0-pre1" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char path[1024];
		struct ctf_metadata_text t;
		struct tmx_error err = { 0 };
		struct tmx_arena arena;
		struct tmx_trace_class *tc;
		int ret;

		snprintf(path, sizeof(path), "%s/babeltrace-tests/ctf-traces/fail/%s/metadata",
			 TMX_CORPUS, traces[i]);
		ret = ctf_metadata_read(path, &t, &err);
		if (ret == TMX_OK) {
			tmx_arena_init(&arena);
			ret = ctf_metadata_parse(t.text, t.len, path, NULL, &arena, &tc, &err);
			tmx_arena_free(&arena);
			ctf_metadata_text_fini(&t);
		}
		assert_int_not_equal(ret, TMX_OK);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yactfr_metadata_streams),
		cmocka_unit_test(test_concatenation),
		cmocka_unit_test(test_old_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
