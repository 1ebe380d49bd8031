/*
 * Text in a growable buffer (common/buf.h) for the metadata the CTF writer
 * generates (TSDL and CTF 2 JSON): the bytes are kept NUL-terminated once
 * anything was written.  An allocation failure is remembered (`oom`) and
 * every later call does nothing, so generators check once at the end.
 */
#ifndef TMX_SINK_CTF_SBUF_H
#define TMX_SINK_CTF_SBUF_H

#include <stddef.h>

#include "common/buf.h"

void cw_sb_put(struct tmx_buf *b, const char *s, size_t n);
void cw_sb_puts(struct tmx_buf *b, const char *s);
void cw_sb_printf(struct tmx_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cw_sb_indent(struct tmx_buf *b, int level);

/* The text so far ("" when nothing was written). */
static inline const char *cw_sb_str(const struct tmx_buf *b)
{
	return b->p ? (const char *)b->p : "";
}

#endif
