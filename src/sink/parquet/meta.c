/* _streams, _traces and _discarded (see meta.h). */
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "common/uuid.h"
#include "sink/parquet/meta.h"
#include "tracemux/tracemux.h"

enum kind { K_TEXT, K_U64, K_I64, K_BOOL };

struct flat_col {
	const char *name;
	enum kind kind;
	bool nullable;
};

static struct pq_type type_of(enum kind k)
{
	switch (k) {
	case K_TEXT:
		return pq_type_string();
	case K_U64:
		return pq_type_int(64, false);
	case K_I64:
		return pq_type_int(64, true);
	default:
		return pq_type_plain(PQ_BOOLEAN);
	}
}

static void add_cols(struct pq_table *t, const struct flat_col *cols, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pq_schema_leaf(&t->schema, 0, cols[i].name,
			       cols[i].nullable ? PQ_OPTIONAL : PQ_REQUIRED, type_of(cols[i].kind));
}

/* The values of one row, column after column. */
struct row {
	struct pq_emit em;
	int col;
};

static struct row row_of(struct pq_table *t, const struct pq_meta_ctx *ctx)
{
	return (struct row){ .em = { t->cols, ctx->scratch } };
}

static void r_null(struct row *r)
{
	pq_col_null(&r->em.cols[r->col++], 0, 0);
}

static void r_text(struct row *r, const char *s)
{
	if (!s) {
		r_null(r);
		return;
	}
	pq_put_text(&r->em, r->col++, 0, s, strlen(s));
}

static void r_int(struct row *r, uint64_t bits)
{
	struct pq_col *c = &r->em.cols[r->col++];

	pq_col_int(c, 0, c->max_def, bits);
}

static void r_int_if(struct row *r, bool has, uint64_t bits)
{
	if (has)
		r_int(r, bits);
	else
		r_null(r);
}

static const char *format_name(uint8_t format)
{
	return format == TMX_FORMAT_TRACEDAT ? "tracedat" : format == TMX_FORMAT_XRAY ? "xray" : "ctf";
}

static int meta_table(struct pq_table *t, const struct pq_meta_ctx *ctx, const char *file,
		      unsigned *next_part, const struct flat_col *cols, size_t n,
		      struct tmx_error *err)
{
	char path[4096];
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", ctx->dir, file) >= sizeof(path))
		return tmx_error_set(err, TMX_ERR_LIMIT, ctx->dir, "path too long");
	ret = pq_table_init(t, path, next_part, ctx->lim, err);
	if (ret)
		return ret;
	add_cols(t, cols, n);
	return TMX_OK;
}

/* ---- _streams.parquet ---- */

static const struct flat_col stream_cols[] = {
	{ "trace", K_TEXT, false }, { "stream_id", K_U64, false },
	{ "stream_class_id", K_U64, false }, { "name", K_TEXT, false },
	{ "events", K_U64, false }, { "packets", K_U64, false }, { "bytes", K_U64, false },
	{ "begin_ns", K_I64, true }, { "end_ns", K_I64, true },
	{ "clock", K_TEXT, true }, { "clock_frequency", K_U64, true },
	{ "clock_offset_s", K_I64, true }, { "clock_offset_cycles", K_U64, true },
	{ "clock_precision", K_U64, true }, { "clock_origin_unix_epoch", K_BOOL, true },
	{ "clock_uuid", K_TEXT, true }, { "clock_description", K_TEXT, true },
};

static void stream_row(struct row *r, const struct tmx_stream_info *info, uint64_t events)
{
	const struct tmx_stream *s = info->stream;
	const struct tmx_clock_class *cc = s->cls->default_clock;
	char uuid[40];

	r_text(r, s->trace->name);
	r_int(r, s->id);
	r_int(r, s->cls->id);
	r_text(r, s->name);
	r_int(r, events);
	r_int(r, info->n_packets);
	r_int(r, info->bytes);
	r_int_if(r, info->has_range, (uint64_t)info->begin_ns);
	r_int_if(r, info->has_range, (uint64_t)info->end_ns);
	r_text(r, cc ? cc->name : NULL);
	r_int_if(r, cc, cc ? cc->frequency : 0);
	r_int_if(r, cc, cc ? (uint64_t)cc->offset_s : 0);
	r_int_if(r, cc, cc ? cc->offset_cycles : 0);
	r_int_if(r, cc, cc ? cc->precision : 0);
	if (cc) {
		struct pq_col *c = &r->em.cols[r->col++];
		pq_col_bool(c, 0, c->max_def, cc->origin_is_unix_epoch);
	} else {
		r_null(r);
	}
	if (cc && cc->has_uuid)
		tmx_uuid_text(uuid, cc->uuid);
	r_text(r, cc && cc->has_uuid ? uuid : NULL);
	r_text(r, cc ? cc->description : NULL);
}

int pq_write_streams(const struct pq_meta_ctx *ctx, const struct tmx_source *src,
		     pq_stream_events_fn events, void *user, struct tmx_error *err)
{
	size_t n = tmx_source_stream_count(src);
	struct pq_table t;
	int ret;

	ret = meta_table(&t, ctx, "_streams.parquet", NULL, stream_cols,
			 sizeof(stream_cols) / sizeof(stream_cols[0]), err);
	if (!ret)
		ret = pq_table_ready(&t, err);
	for (size_t i = 0; !ret && i < n; i++) {
		struct tmx_stream_info info;
		struct row r = row_of(&t, ctx);
		tmx_source_stream_info(src, i, &info);
		stream_row(&r, &info, events(user, info.stream));
		ret = pq_table_row_end(&t, ctx->enc, err);
	}
	if (!ret)
		ret = pq_table_close(&t, ctx->enc, err);
	pq_table_free(&t);
	return ret;
}

/* ---- _traces.parquet ---- */

static const struct flat_col trace_cols[] = {
	{ "name", K_TEXT, false }, { "format", K_TEXT, false },
	{ "version_major", K_U64, false }, { "version_minor", K_U64, false },
	{ "uuid", K_TEXT, true }, { "host", K_TEXT, true },
};

const char *pq_trace_host(const struct tmx_trace_class *tc)
{
	const struct tmx_env_entry *host = tmx_trace_class_env(tc, "hostname");

	return host && !host->is_int ? host->str_value : NULL;
}

/* NAME: LIST (required) > list (repeated) > element (required group); its index. */
static int list_of_groups(struct pq_schema *s, const char *name)
{
	int g = pq_schema_group(s, 0, name, PQ_REQUIRED, PQ_LT_LIST);
	int list = g < 0 ? -1 : pq_schema_group(s, g, "list", PQ_REPEATED, PQ_LT_NONE);

	return list < 0 ? -1 : pq_schema_group(s, list, "element", PQ_REQUIRED, PQ_LT_NONE);
}

/* env: LIST (required) > list (repeated) > element {name, int_value, str_value}. */
static void env_schema(struct pq_schema *s)
{
	int elem = list_of_groups(s, "env");

	if (elem < 0)
		return;   /* s->oom is set */
	pq_schema_leaf(s, elem, "name", PQ_REQUIRED, pq_type_string());
	pq_schema_leaf(s, elem, "int_value", PQ_OPTIONAL, pq_type_int(64, true));
	pq_schema_leaf(s, elem, "str_value", PQ_OPTIONAL, pq_type_string());
}

/* Levels: the list's entries at definition level 1, repeated at level 1. */
static void env_row(struct row *r, const struct tmx_trace_class *tc)
{
	int c = r->col;

	if (!tc->n_env)
		for (int k = 0; k < 3; k++)
			pq_col_null(&r->em.cols[c + k], 0, 0);
	for (size_t i = 0; i < tc->n_env; i++) {
		const struct tmx_env_entry *e = &tc->env[i];
		uint8_t rep = i ? 1 : 0;
		pq_put_text(&r->em, c, rep, e->name, strlen(e->name));
		if (e->is_int)
			pq_col_int(&r->em.cols[c + 1], rep, 2, (uint64_t)e->int_value);
		else
			pq_col_null(&r->em.cols[c + 1], rep, 1);
		if (!e->is_int && e->str_value)
			pq_put_text(&r->em, c + 2, rep, e->str_value, strlen(e->str_value));
		else
			pq_col_null(&r->em.cols[c + 2], rep, 1);
	}
	r->col += 3;
}

/* clocks: a LIST of the trace class's clocks (see meta.h). */
static const struct flat_col clock_cols[] = {
	{ "name", K_TEXT, true }, { "description", K_TEXT, true },
	{ "frequency", K_U64, true }, { "offset_s", K_I64, true },
	{ "offset_cycles", K_U64, true }, { "precision", K_U64, true },
	{ "origin_unix_epoch", K_BOOL, true }, { "origin", K_TEXT, true },
};
#define N_CLOCK_COLS (sizeof(clock_cols) / sizeof(clock_cols[0]))

static void clocks_schema(struct pq_schema *s)
{
	int elem = list_of_groups(s, "clocks");

	for (size_t i = 0; elem >= 0 && i < N_CLOCK_COLS; i++)
		pq_schema_leaf(s, elem, clock_cols[i].name, PQ_OPTIONAL, type_of(clock_cols[i].kind));
}

/* A CTF 2 custom origin as NAMESPACE/NAME/UID (empty parts left empty). */
static const char *origin_text(const struct tmx_clock_class *cc, char *buf, size_t size)
{
	if (cc->origin_is_unix_epoch)
		return "unix-epoch";
	if (!cc->origin_name)
		return NULL;
	snprintf(buf, size, "%s/%s/%s", cc->origin_ns ? cc->origin_ns : "", cc->origin_name,
		 cc->origin_uid ? cc->origin_uid : "");
	return buf;
}

/* Levels as env_row's: a present value at 2, a null one at 1, an empty list 0. */
static void clocks_row(struct row *r, const struct tmx_trace_class *tc)
{
	struct pq_col *cols = &r->em.cols[r->col];
	char origin[1024];

	if (!tc->n_clocks)
		for (size_t k = 0; k < N_CLOCK_COLS; k++)
			pq_col_null(&cols[k], 0, 0);
	for (size_t i = 0; i < tc->n_clocks; i++) {
		const struct tmx_clock_class *cc = tc->clocks[i];
		const char *text[] = { cc->name, cc->description };
		const char *o = origin_text(cc, origin, sizeof(origin));
		uint64_t ints[] = { cc->frequency, (uint64_t)cc->offset_s, cc->offset_cycles,
				    cc->precision };
		uint8_t rep = i ? 1 : 0;
		int c = r->col;

		for (size_t k = 0; k < 2; k++, c++)
			if (text[k])
				pq_put_text(&r->em, c, rep, text[k], strlen(text[k]));
			else
				pq_col_null(&r->em.cols[c], rep, 1);
		for (size_t k = 0; k < 4; k++, c++)
			pq_col_int(&r->em.cols[c], rep, 2, ints[k]);
		pq_col_bool(&r->em.cols[c++], rep, 2, cc->origin_is_unix_epoch);
		if (o)
			pq_put_text(&r->em, c, rep, o, strlen(o));
		else
			pq_col_null(&r->em.cols[c], rep, 1);
	}
	r->col += (int)N_CLOCK_COLS;
}

int pq_write_traces(const struct pq_meta_ctx *ctx, const struct tmx_source *src,
		    struct tmx_error *err)
{
	size_t n = tmx_source_logical_trace_count(src);
	struct pq_table t;
	int ret;

	ret = meta_table(&t, ctx, "_traces.parquet", NULL, trace_cols,
			 sizeof(trace_cols) / sizeof(trace_cols[0]), err);
	if (!ret) {
		env_schema(&t.schema);
		clocks_schema(&t.schema);
		ret = pq_table_ready(&t, err);
	}
	for (size_t i = 0; !ret && i < n; i++) {
		const struct tmx_trace *tr = tmx_source_logical_trace(src, i);
		const struct tmx_trace_class *tc = tr->cls;
		struct row r = row_of(&t, ctx);
		char uuid[40];

		if (tc->has_uuid)
			tmx_uuid_text(uuid, tc->uuid);
		r_text(&r, tr->name);
		r_text(&r, format_name(tc->format));
		r_int(&r, tc->major);
		r_int(&r, tc->minor);
		r_text(&r, tc->has_uuid ? uuid : NULL);
		r_text(&r, pq_trace_host(tc));
		env_row(&r, tc);
		clocks_row(&r, tc);
		ret = pq_table_row_end(&t, ctx->enc, err);
	}
	if (!ret)
		ret = pq_table_close(&t, ctx->enc, err);
	pq_table_free(&t);
	return ret;
}

/* ---- _discarded/ ---- */

static const struct flat_col discarded_cols[] = {
	{ "kind", K_TEXT, false }, { "trace", K_TEXT, false }, { "stream_id", K_U64, false },
	{ "stream_class_id", K_U64, false }, { "count", K_U64, false },
	{ "begin_ns", K_I64, true }, { "end_ns", K_I64, true },
	{ "begin_cycles", K_U64, true }, { "end_cycles", K_U64, true },
};

int pq_discarded_add(struct pq_discarded *d, const struct pq_meta_ctx *ctx,
		     const struct tmx_msg *msg, struct tmx_error *err)
{
	struct row r;
	int ret;

	if (!d->made) {
		ret = meta_table(&d->t, ctx, "_discarded", &d->next_part, discarded_cols,
				 sizeof(discarded_cols) / sizeof(discarded_cols[0]), err);
		d->made = !ret;
		if (!ret)
			ret = pq_table_ready(&d->t, err);
		if (ret)
			return ret;
	}
	r = row_of(&d->t, ctx);
	r_text(&r, msg->kind == TMX_MSG_DISCARDED_EVENTS ? "events" : "packets");
	r_text(&r, msg->stream->trace->name);
	r_int(&r, msg->stream->id);
	r_int(&r, msg->stream->cls->id);
	r_int(&r, msg->count);
	r_int_if(&r, msg->has_range, (uint64_t)msg->begin_ns);
	r_int_if(&r, msg->has_range, (uint64_t)msg->end_ns);
	r_int_if(&r, msg->has_range, msg->begin_cycles);
	r_int_if(&r, msg->has_range, msg->end_cycles);
	return pq_table_row_end(&d->t, ctx->enc, err);
}

int pq_discarded_close(struct pq_discarded *d, const struct pq_meta_ctx *ctx,
		       struct tmx_error *err)
{
	return d->made ? pq_table_close(&d->t, ctx->enc, err) : TMX_OK;
}

void pq_discarded_free(struct pq_discarded *d)
{
	if (d->made)
		pq_table_free(&d->t);
	d->made = false;
}
