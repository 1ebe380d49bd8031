#define _GNU_SOURCE   /* memmem */
/*
 * libFuzzer harness: metadata and data together.  The input is TSDL text,
 * a line "--DATA--", then a data stream; both are parsed and decoded as a
 * trace would be.  Seeded with yactfr's bit-level decoding cases, it reaches
 * every field class kind with hostile data.
 */
#include <string.h>

#include "ctf/decode.h"
#include "ctf/metadata.h"

#define SEPARATOR "\n--DATA--\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_error err;
	struct ctf_decoder d;
	const uint8_t *stream;
	size_t meta_len, stream_len;
	uint64_t off = 0;

	if (!sep)
		return 0;
	meta_len = (size_t)(sep - data);
	stream = sep + strlen(SEPARATOR);
	stream_len = size - meta_len - strlen(SEPARATOR);
	tmx_arena_init(&arena);
	if (ctf_metadata_parse((const char *)data, meta_len, "fuzz", NULL, &arena, &tc, &err) ||
	    ctf_decoder_init(&d, tc, "fuzz", stream, stream_len, &err)) {
		tmx_arena_free(&arena);
		return 0;
	}
	while (off < stream_len) {
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
	tmx_arena_free(&arena);
	return 0;
}
