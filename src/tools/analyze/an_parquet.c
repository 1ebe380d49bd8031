/*
 * `tracemux analyze --format=parquet -w DIR`: the rows of the MI tables
 * (an_rows.c) as DIR/NAME.parquet, one file per table, through the
 * library's Parquet writer (src/sink/parquet/: a table of one file, its
 * schema, columns and row groups, zstd-compressed), as its meta tables
 * (_streams.parquet) use it.  Columns are those of the CSV, typed: INT64
 * for time stamps, counts, sizes, ids (period_begin, process_tid...),
 * DOUBLE for durations and ratios (an MI duration is an integer or a
 * float), BOOLEAN, UTF-8 strings; every column optional (null: no value).
 */
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "sink/parquet/table.h"
#include "tools/analyze/an_rows.h"

#define MAX_FILES 32

struct pqo {
	const char *dir;
	struct pq_limits lim;
	struct pq_encoder enc;
	struct {
		char name[96];
		struct pq_table t;
		bool ready;
	} files[MAX_FILES];
	size_t n_files;
	struct pq_table *cur;
	FILE *errout;
};

static bool report(struct pqo *p, int ret, const struct tmx_error *err)
{
	if (ret)
		fprintf(p->errout, "Error: %s\n", err->msg);
	return !ret;
}

static struct pq_type type_of(uint8_t t)
{
	switch (t) {
	case AN_R_INT: return pq_type_int(64, true);
	case AN_R_DOUBLE: return pq_type_plain(PQ_DOUBLE);
	case AN_R_BOOL: return pq_type_plain(PQ_BOOLEAN);
	default: return pq_type_string();
	}
}

static bool table(void *ctx, const struct an_rtable *t)
{
	struct pqo *p = ctx;
	struct tmx_error err = { 0 };
	char path[4096];
	size_t i;

	for (i = 0; i < p->n_files; i++)
		if (!strcmp(p->files[i].name, t->name)) {
			p->cur = &p->files[i].t;
			return true;
		}
	if (i == MAX_FILES) {
		fprintf(p->errout, "Error: more than %d tables\n", MAX_FILES);
		return false;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.parquet", p->dir, t->name) >= sizeof(path)) {
		fprintf(p->errout, "Error: %s: path too long\n", p->dir);
		return false;
	}
	if (!report(p, pq_table_init(&p->files[i].t, path, NULL, &p->lim, &err), &err))
		return false;
	snprintf(p->files[i].name, sizeof(p->files[i].name), "%s", t->name);
	p->n_files++;
	for (size_t c = 0; c < t->n; c++)
		pq_schema_leaf(&p->files[i].t.schema, 0, t->col[c].name, PQ_OPTIONAL,
			       type_of(t->col[c].type));
	if (!report(p, pq_table_ready(&p->files[i].t, &err), &err))
		return false;
	p->files[i].ready = true;
	p->cur = &p->files[i].t;
	return true;
}

static bool row(void *ctx, const struct an_rtable *t, json_object *const *v)
{
	struct pqo *p = ctx;
	struct tmx_error err = { 0 };

	for (size_t i = 0; i < t->n; i++) {
		struct pq_col *c = &p->cur->cols[i];
		json_object *x = v[i];
		int64_t n;
		if (!x || json_object_is_type(x, json_type_null)) {
			pq_col_null(c, 0, 0);
			continue;
		}
		switch (t->col[i].type) {
		case AN_R_INT:
			if (!an_rows_int(x, &n)) {
				fprintf(p->errout, "Error: %s: %s is not an integer\n", t->col[i].name,
					json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN));
				return false;
			}
			pq_col_int(c, 0, c->max_def, (uint64_t)n);
			break;
		case AN_R_DOUBLE:
			pq_col_double(c, 0, c->max_def, json_object_get_double(x));
			break;
		case AN_R_BOOL:
			pq_col_bool(c, 0, c->max_def, json_object_get_boolean(x));
			break;
		default: {
			const char *s = json_object_is_type(x, json_type_string)
				? json_object_get_string(x)
				: json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN);
			pq_col_bytes(c, 0, c->max_def, s, strlen(s));
		}
		}
	}
	return report(p, pq_table_row_end(p->cur, &p->enc, &err), &err);
}

static bool finish(void *ctx)
{
	struct pqo *p = ctx;
	bool ok = true;

	for (size_t i = 0; i < p->n_files; i++) {
		struct tmx_error err = { 0 };
		if (p->files[i].ready)
			ok &= report(p, pq_table_close(&p->files[i].t, &p->enc, &err), &err);
		p->files[i].ready = false;
	}
	return ok;
}

static void pqo_free(void *ctx)
{
	struct pqo *p = ctx;

	for (size_t i = 0; i < p->n_files; i++)
		pq_table_free(&p->files[i].t);
	pq_encoder_free_bufs(&p->enc);
	pq_encoder_zstd_free(&p->enc);
	free(p);
}

bool an_parquet_out(struct an_rows_out *w, const struct tmx_an_opts *o, FILE *errout)
{
	struct pqo *p = calloc(1, sizeof(*p));

	if (!p || !pq_encoder_zstd(&p->enc, 1)) {
		free(p);
		fprintf(errout, "Error: out of memory\n");
		return false;
	}
	p->dir = o->rows_dir;
	p->errout = errout;
	/* one file per table: row groups of 64 Ki rows or 32 MiB, never a second part */
	p->lim = (struct pq_limits){ .group_rows = 65536, .group_bytes = 32u << 20,
				     .file_groups = SIZE_MAX, .file_bytes = UINT64_MAX };
	*w = (struct an_rows_out){ p, table, row, finish, pqo_free };
	return true;
}
