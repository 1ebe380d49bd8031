/* Text in growable buffers for the CTF writer's metadata (see sbuf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/ctf/sbuf.h"

/* Room for `more` bytes and the NUL; `oom` set when there is none. */
static bool grow(struct tmx_buf *b, size_t more)
{
	if (more == SIZE_MAX) {
		b->oom = true;
		return false;
	}
	return tmx_buf_reserve(b, more + 1);
}

void cw_sb_put(struct tmx_buf *b, const char *s, size_t n)
{
	if (!grow(b, n))
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void cw_sb_puts(struct tmx_buf *b, const char *s)
{
	cw_sb_put(b, s, strlen(s));
}

void cw_sb_printf(struct tmx_buf *b, const char *fmt, ...)
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
	if (!grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void cw_sb_indent(struct tmx_buf *b, int level)
{
	for (int i = 0; i < level; i++)
		cw_sb_put(b, "\t", 1);
}
