/* libFuzzer harness: the TSDL parser and resolver on arbitrary text. */
#include <stddef.h>
#include <stdint.h>

#include "ctf/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_error err;

	tmx_arena_init(&arena);
	ctf_metadata_parse((const char *)data, size, "fuzz", NULL, &arena, &tc, &err);
	tmx_arena_free(&arena);
	return 0;
}
