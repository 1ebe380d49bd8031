/*
 * A growable string for the metadata texts the CTF writer generates (TSDL
 * and CTF 2 JSON).  An allocation failure is remembered (`oom`) and every
 * later call does nothing, so generators check once at the end.
 */
#ifndef TMX_SINK_CTF_SBUF_H
#define TMX_SINK_CTF_SBUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
	char *s;      /* NUL-terminated once anything was written */
	size_t len, cap;
	bool oom;
};

void cw_sb_put(struct sbuf *b, const char *s, size_t n);
void cw_sb_puts(struct sbuf *b, const char *s);
void cw_sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cw_sb_indent(struct sbuf *b, int level);

#endif
