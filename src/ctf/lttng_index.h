/* LTTng packet index files: see lttng_index.c. */
#ifndef TMX_CTF_LTTNG_INDEX_H
#define TMX_CTF_LTTNG_INDEX_H

#include "ctf/decode.h"

/*
 * Reads the index at `idx_path` for a data file of `file_size` bytes into
 * a malloc'ed array of packet infos (*out, *n_out).  Fails (with the
 * reason) when the index is unreadable or does not match the data file.
 */
int ctf_lttng_index_read(const char *idx_path, const struct tmx_trace_class *tc,
			 uint64_t file_size, struct ctf_packet_info **out, size_t *n_out,
			 struct tmx_error *err);

#endif
