/*
 * CTF metadata: from the metadata file (text or packetized) to the
 * resolved classes of the common model.
 *
 *   metadata file --(metadata_file.c)--> metadata text
 *   text --(metadata.c)--> CTF 1.8 (TSDL) or CTF 2 (JSON text sequence)
 *   TSDL --(tsdl_lex.c, tsdl_parse.c, tsdl_resolve.c)--> struct tmx_trace_class
 *   JSON --(ctf2_json.c, ctf2_meta.c, ctf2_fc.c, ctf2_loc.c)--> struct tmx_trace_class
 *   (arena-owned)
 */
#ifndef TMX_CTF_METADATA_H
#define TMX_CTF_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

/* Resource limits that a hostile metadata file cannot get past. */
#define CTF_METADATA_MAX_SIZE (64u * 1024 * 1024)
#define CTF_METADATA_MAX_DEPTH 128

/* The metadata text of a trace, de-packetized if needed. */
struct ctf_metadata_text {
	char *text;            /* malloc'ed, NUL-terminated */
	size_t len;
	bool packetized;
	bool packet_byte_order_be; /* packetized: byte order of packet headers */
	bool has_uuid;             /* packetized: UUID from the packet headers */
	uint8_t uuid[16];
};

/*
 * Reads `path` (a CTF `metadata` file).  Packetized metadata (magic
 * 0x75D11D57 in either byte order) is de-framed: payloads are concatenated,
 * packet headers validated (version 1.8, sizes, no compression/encryption/
 * checksum, same UUID in every packet).  Anything else is taken as text.
 */
int ctf_metadata_read(const char *path, struct ctf_metadata_text *out,
		      struct tmx_error *err);
/* Same on a memory buffer (`name` is used in errors). */
int ctf_metadata_decode(const uint8_t *data, size_t size, const char *name,
			struct ctf_metadata_text *out, struct tmx_error *err);
void ctf_metadata_text_fini(struct ctf_metadata_text *t);

/*
 * Parses and resolves metadata text into a trace class allocated in
 * `arena`: a CTF 2 metadata stream when the text starts with a record
 * separator (0x1E), as babeltrace 2.1 decides, TSDL otherwise.  `name` is
 * the file name used in errors (which carry line and column).  On error,
 * nothing useful is left in *out.
 */
int ctf_metadata_parse(const char *text, size_t len, const char *name,
		       const struct tmx_diag *diag, struct tmx_arena *arena,
		       struct tmx_trace_class **out, struct tmx_error *err);
/*
 * TSDL only.  Unknown attributes are reported through `diag` and ignored,
 * as babeltrace2 does.
 */
int ctf_tsdl_parse(const char *text, size_t len, const char *name,
		   const struct tmx_diag *diag, struct tmx_arena *arena,
		   struct tmx_trace_class **out, struct tmx_error *err);

#endif
