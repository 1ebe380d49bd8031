#define _GNU_SOURCE   /* memmem */
/*
 * libFuzzer harness: metadata and data together.  The input is TSDL text,
 * a line "--DATA--", then a data stream; both are parsed and decoded as a
 * trace would be.  Seeded with yactfr's bit-level decoding cases, it reaches
 * every field class kind with hostile data.
 */
#include <string.h>

#include "ctf/metadata.h"
#include "decode_all.h"

#define SEPARATOR "\n--DATA--\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep = memmem(data, size, SEPARATOR, strlen(SEPARATOR));
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_error err;
	size_t meta_len;

	if (!sep)
		return 0;
	meta_len = (size_t)(sep - data);
	tmx_arena_init(&arena);
	if (!ctf_metadata_parse((const char *)data, meta_len, "fuzz", NULL, &arena, &tc, &err))
		decode_all(tc, sep + strlen(SEPARATOR), size - meta_len - strlen(SEPARATOR));
	tmx_arena_free(&arena);
	return 0;
}
