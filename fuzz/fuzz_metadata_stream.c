/* libFuzzer harness: packetized metadata framing, then TSDL, as `metadata` files are read. */
#include <stddef.h>
#include <stdint.h>

#include "ctf/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctf_metadata_text text;
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_error err;

	if (ctf_metadata_decode(data, size, "fuzz", &text, &err))
		return 0;
	tmx_arena_init(&arena);
	ctf_metadata_parse(text.text, text.len, "fuzz", NULL, &arena, &tc, &err);
	tmx_arena_free(&arena);
	ctf_metadata_text_fini(&text);
	return 0;
}
