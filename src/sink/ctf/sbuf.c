/* Growable strings for the CTF writer's metadata (see sbuf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sink/ctf/sbuf.h"

/* Room for `more` bytes and the NUL (common/grow.h); `oom` set when there is none. */
static void grow(struct sbuf *b, size_t more)
{
	void *s = b->s;

	if (b->oom || b->len + more + 1 <= b->cap)
		return;
	if (more > SIZE_MAX - 1 - b->len || !tmx_grow_array(&s, &b->cap, b->len + more + 1, 1, 4096)) {
		b->oom = true;
		return;
	}
	b->s = s;
}

void cw_sb_put(struct sbuf *b, const char *s, size_t n)
{
	grow(b, n);
	if (b->oom)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void cw_sb_puts(struct sbuf *b, const char *s)
{
	cw_sb_put(b, s, strlen(s));
}

void cw_sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		cw_sb_put(b, tmp, (size_t)n);
		return;
	}
	grow(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void cw_sb_indent(struct sbuf *b, int level)
{
	for (int i = 0; i < level; i++)
		cw_sb_put(b, "\t", 1);
}
