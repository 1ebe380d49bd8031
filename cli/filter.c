/*
 * --events=GLOB[,GLOB...] and --filter=EXPR: one library filter
 * (include/tracemux/filter.h) set on the source, for every output and for
 * `tracemux info`.  Errors name the option they come from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "tracemux/filter.h"

/* Errors of the expression have a position; the others are about --events. */
static int filter_error(const struct tmx_error *err)
{
	if (err->code != TMX_ERR_USAGE)
		return cli_report(err);
	fprintf(stderr, "tracemux: error: %s: %s\n", err->line ? "--filter" : "--events", err->msg);
	return 2;
}

/* Every --events value split at its commas, into `copies` (freed by the caller). */
static int split_globs(const char *const *args, size_t n, char ***globs, size_t *n_globs,
		       char ***copies)
{
	size_t cap = 0;

	*globs = NULL;
	*n_globs = 0;
	for (size_t i = 0; i < n; i++)
		cap += 1 + strlen(args[i]);   /* more than the commas */
	*copies = calloc(n ? n : 1, sizeof(**copies));
	*globs = calloc(cap ? cap : 1, sizeof(**globs));
	if (!*copies || !*globs) {
		fputs("tracemux: error: out of memory\n", stderr);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		char *s = (*copies)[i] = strdup(args[i]), *comma;

		if (!s) {
			fputs("tracemux: error: out of memory\n", stderr);
			return 1;
		}
		for (;; s = comma + 1) {
			comma = strchr(s, ',');
			if (comma)
				*comma = '\0';
			if (!*s) {
				fprintf(stderr, "tracemux: error: --events: empty pattern in `%s`\n", args[i]);
				return 2;
			}
			(*globs)[(*n_globs)++] = s;
			if (!comma)
				break;
		}
	}
	return 0;
}

int cli_filter_setup(const char *const *event_args, size_t n_event_args, const char *expr,
		     struct tmx_source *src, struct tmx_filter **f)
{
	struct tmx_error err = { 0 };
	char **globs = NULL, **copies = NULL;
	size_t n_globs = 0;
	int status;

	*f = NULL;
	if (!n_event_args && !expr)
		return 0;
	status = split_globs(event_args, n_event_args, &globs, &n_globs, &copies);
	if (!status && tmx_filter_new((const char *const *)globs, n_globs, expr, f, &err))
		status = filter_error(&err);
	if (!status && tmx_source_set_filter(src, *f, &err))
		status = filter_error(&err);
	if (status) {
		tmx_filter_free(*f);
		*f = NULL;
	}
	for (size_t i = 0; copies && i < n_event_args; i++)
		free(copies[i]);
	free(copies);
	free(globs);
	return status;
}
