/*
 * The MI result tables as rows, for --format=csv and --format=parquet.
 * an_rows.c runs the command as --mi into a temporary file, then walks
 * that JSON table by table and row by row (one source of truth: the
 * numbers are the MI's), naming the columns from lttng-analyses' table
 * classes; an output (an_csv.c, an_parquet.c) writes the rows.
 */
#ifndef TMX_TOOLS_ANALYZE_ROWS_H
#define TMX_TOOLS_ANALYZE_ROWS_H

#include <stdbool.h>
#include <stdio.h>

#include <json-c/json.h>

#include "tools/analyze/an_impl.h"

/* A column's type: from the MI value class of the column and the part. */
enum an_rtype { AN_R_INT, AN_R_DOUBLE, AN_R_STRING, AN_R_BOOL };

#define AN_R_MAX_COLS 512

struct an_rtable {
	char name[96];            /* the MI table class: [a-z0-9_-] only */
	size_t n;
	struct an_rcol {
		char name[160];
		uint8_t type;     /* enum an_rtype */
	} col[AN_R_MAX_COLS];
};

/* Where the rows go. */
struct an_rows_out {
	void *ctx;
	/* Rows of `t` follow (a name seen before: more rows of that table); false on an error. */
	bool (*table)(void *ctx, const struct an_rtable *t);
	/* One row: t->n values (json-c scalars; NULL: null); false on an error. */
	bool (*row)(void *ctx, const struct an_rtable *t, json_object *const *v);
	/* The end (every table written); false on an error. */
	bool (*finish)(void *ctx);
	void (*free)(void *ctx);
};

/* The outputs, on `out` or in o->rows_dir; errors are written to errout. */
bool an_csv_out(struct an_rows_out *w, const struct tmx_an_opts *o, FILE *out, FILE *errout);
bool an_parquet_out(struct an_rows_out *w, const struct tmx_an_opts *o, FILE *errout);

/* A JSON integer as an int64 (sizes beyond it: uint64 bits); false when it is no integer. */
static inline bool an_rows_int(json_object *v, int64_t *x)
{
	if (json_object_is_type(v, json_type_int)) {
		*x = json_object_get_int64(v) == INT64_MAX ? (int64_t)json_object_get_uint64(v)
							    : json_object_get_int64(v);
		return true;
	}
	if (json_object_is_type(v, json_type_double)) {
		double d = json_object_get_double(v);
		*x = (int64_t)d;
		return d >= -9.2e18 && d <= 9.2e18 && (double)*x == d;
	}
	return false;
}

#endif
