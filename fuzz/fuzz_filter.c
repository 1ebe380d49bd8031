/*
 * libFuzzer harness: event filters.  The input is split at its first NUL
 * (or taken whole): the expression, and after it a glob.  What parses is
 * bound to the sample trace of tests/data (every kind of field: integers
 * of several sizes and bases, char arrays, strings, sequences, enums,
 * floats) and every event is matched.
 */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "tracemux/filter.h"
#include "tracemux/tracemux.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char trace[] = TMX_FUZZ_DEFAULT_METADATA;   /* .../sample-trace/metadata */
	const char *path = dirname(trace), *globs[1];
	char *text = malloc(size + 1);
	struct tmx_filter *f = NULL;
	struct tmx_source *src = NULL;
	const struct tmx_msg *msg;
	struct tmx_error err;
	size_t expr_len;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	expr_len = strlen(text);
	globs[0] = expr_len < size ? text + expr_len + 1 : NULL;
	if (!tmx_filter_new(globs, globs[0] && *globs[0] ? 1 : 0, text, &f, &err) &&
	    !tmx_open(&path, 1, NULL, NULL, &src, &err) && !tmx_source_set_filter(src, f, &err))
		while (!tmx_source_next(src, &msg, &err) && msg)
			;
	tmx_source_free(src);
	tmx_filter_free(f);
	free(text);
	return 0;
}
