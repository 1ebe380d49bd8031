/*
 * libFuzzer harness: CTF packet and event decoding of an arbitrary data
 * stream, given fixed metadata: the LTTng-like sample trace's (compact and
 * extended headers, variants, sequences, strings, text arrays, enums,
 * floats) or, with TMX_FUZZ_METADATA set, any metadata file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/decode.h"
#include "ctf/metadata.h"

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
	struct ctf_decoder d;
	struct tmx_error err;
	uint64_t off = 0;

	if (!tc)
		load_metadata();
	if (ctf_decoder_init(&d, tc, "fuzz", data, size, &err))
		return 0;
	while (off < size) {
		struct ctf_packet_info info;
		if (ctf_decode_packet_start(&d, off, &info, &err))
			break;
		for (;;) {
			const struct tmx_event_class *ec;
			size_t scopes[TMX_N_SCOPES];
			bool more;
			if (ctf_decode_event(&d, &more, info.sc, &ec, scopes, &err) || !more)
				break;
		}
		off += info.packet_bits / 8;
	}
	ctf_decoder_fini(&d);
	return 0;
}
