/* Helpers shared by the unit tests (include after <cmocka.h>). */
#ifndef TMX_TESTUTIL_H
#define TMX_TESTUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracemux/error.h"

/* The whole file, NUL-terminated (malloc'ed), its size in *len; NULL if unreadable. */
static inline char *read_whole_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = '\0';
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/* What a reading gave, as text (test_tracedat_ranges, test_tracedat_segments). */
struct log {
	char *p;
	size_t n, cap;
};

/* printf to the end of l (grown as needed). */
static inline __attribute__((format(printf, 2, 3))) void say(struct log *l, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (l->cap - l->n < 4096) {
		l->cap = l->cap ? l->cap * 2 : 1 << 16;
		l->p = realloc(l->p, l->cap);
		assert_non_null(l->p);
	}
	va_start(ap, fmt);
	k = vsnprintf(l->p + l->n, l->cap - l->n, fmt, ap);
	va_end(ap);
	assert_true(k >= 0 && (size_t)k < l->cap - l->n);
	l->n += (size_t)k;
}

/* A tmx_diag warning callback logging into the struct log `user`. */
static inline void warned(void *user, const char *msg)
{
	say(user, "warning: %s\n", msg);
}

/* An error as tmx_error_format() words it, on a line of its own. */
static inline void say_error(struct log *l, const struct tmx_error *err)
{
	char buf[TMX_ERROR_MSG_MAX + 600];

	tmx_error_format(err, buf, sizeof(buf));
	say(l, "error: %s\n", buf);
}

/*
 * Whether two logs differ (a reading cut into pieces against the whole);
 * when they do, both are NUL-terminated for the failure message.
 */
static inline bool log_differs(struct log *a, struct log *b)
{
	if (a->n == b->n && (!a->n || !memcmp(a->p, b->p, a->n)))
		return false;
	if (a->p)
		a->p[a->n] = '\0';
	if (b->p)
		b->p[b->n] = '\0';
	return true;
}

#endif
