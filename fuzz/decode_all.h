/*
 * Shared by the decoding harnesses: the fixed metadata they decode streams
 * with, and every packet and event of a stream.
 */
#ifndef TMX_FUZZ_DECODE_ALL_H
#define TMX_FUZZ_DECODE_ALL_H

#include <stdio.h>
#include <stdlib.h>

#include "ctf/decode.h"
#include "ctf/metadata.h"

/*
 * The trace class of the metadata file named by TMX_FUZZ_METADATA, else of
 * `default_path`; loaded once per process (it lives as long as the process).
 */
static inline const struct tmx_trace_class *fixed_metadata(const char *default_path,
							   const char *harness)
{
	static struct tmx_arena arena;
	static struct tmx_trace_class *tc;
	const char *path = getenv("TMX_FUZZ_METADATA");
	struct ctf_metadata_text text;
	struct tmx_error err;

	if (tc)
		return tc;
	if (!path)
		path = default_path;
	tmx_arena_init(&arena);
	if (ctf_metadata_read(path, &text, &err) ||
	    ctf_metadata_parse(text.text, text.len, path, NULL, &arena, &tc, &err)) {
		fprintf(stderr, "%s: %s: %s\n", harness, path, err.msg);
		abort();
	}
	ctf_metadata_text_fini(&text);
	return tc;
}

static inline void decode_all(const struct tmx_trace_class *tc, const uint8_t *data, size_t size)
{
	struct ctf_decoder d;
	struct tmx_error err;
	uint64_t off = 0;

	if (ctf_decoder_init(&d, tc, "fuzz", data, size, &err))
		return;
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
}

#endif
