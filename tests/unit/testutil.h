/* Helpers shared by the unit tests (include after <cmocka.h>). */
#ifndef TMX_TESTUTIL_H
#define TMX_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>

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

#endif
