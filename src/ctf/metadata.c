/*
 * Which metadata language a CTF trace uses: babeltrace 2.1 reads a CTF 2
 * metadata stream (JSON text sequence, spec 5) when its first byte is the
 * record separator 0x1E, TSDL otherwise.  Packetized metadata is
 * de-framed first (metadata_file.c), so both can be packetized.
 */
#include "ctf/ctf2.h"
#include "ctf/metadata.h"
#include "model/field_class.h"

int ctf_metadata_parse(const char *text, size_t len, const char *name,
		       const struct tmx_diag *diag, struct tmx_arena *arena,
		       struct tmx_trace_class **out, struct tmx_error *err)
{
	if (len && text[0] == 0x1E)
		return ctf2_metadata_parse(text, len, name, diag, arena, out, err);
	return ctf_tsdl_parse(text, len, name, diag, arena, out, err);
}
