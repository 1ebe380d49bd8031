/*
 * libFuzzer harness: CTF packet and event decoding of an arbitrary data
 * stream, given fixed metadata: the LTTng-like sample trace's (compact and
 * extended headers, variants, sequences, strings, text arrays, enums,
 * floats) or, with TMX_FUZZ_METADATA set, any metadata file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/metadata.h"
#include "decode_all.h"

#ifndef TMX_FUZZ_DEFAULT_METADATA
#define TMX_FUZZ_DEFAULT_METADATA "tests/data/sample-trace/metadata"
#endif

static struct tmx_arena arena;
static struct tmx_trace_class *tc;

static void load_metadata(void)
{
	const char *path = getenv("TMX_FUZZ_METADATA");
	struct ctf_metadata_text text;
	struct tmx_error err;

	if (!path)
		path = TMX_FUZZ_DEFAULT_METADATA;
	tmx_arena_init(&arena);
	if (ctf_metadata_read(path, &text, &err) ||
	    ctf_metadata_parse(text.text, text.len, path, NULL, &arena, &tc, &err)) {
		fprintf(stderr, "fuzz_ctf_packets: %s: %s\n", path, err.msg);
		abort();
	}
	ctf_metadata_text_fini(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!tc)
		load_metadata();
	decode_all(tc, data, size);
	return 0;
}
