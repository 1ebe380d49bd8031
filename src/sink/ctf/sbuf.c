/* Growable strings for the CTF writer's metadata (see sbuf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/ctf/sbuf.h"

static void grow(struct sbuf *b, size_t more)
{
	size_t cap;
	char *s;

	if (b->oom || b->len + more + 1 <= b->cap)
		return;
	if (more > ((size_t)-1) / 4 - b->len) {
		b->oom = true;
		return;
	}
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return;
	}
	b->s = s;
	b->cap = cap;
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
