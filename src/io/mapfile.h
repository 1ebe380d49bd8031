/*
 * Read-only file mappings.  Inputs are mapped, never read into buffers,
 * so a trace larger than RAM costs only page cache.
 */
#ifndef TMX_MAPFILE_H
#define TMX_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"

struct tmx_mapfile {
	const uint8_t *data;  /* NULL for an empty file */
	size_t size;
	char *path;
};

int tmx_mapfile_open(struct tmx_mapfile *m, const char *path, struct tmx_error *err);
void tmx_mapfile_close(struct tmx_mapfile *m);
/* Tells the kernel we read [off, off+len) sequentially soon / no longer need it. */
void tmx_mapfile_advise_sequential(struct tmx_mapfile *m);
void tmx_mapfile_release(struct tmx_mapfile *m, size_t off, size_t len);

#endif
