/*
 * --events / --filter on trace.dat files (report.h): the records of the
 * model's events that the filter kept, noted in a first pass over a
 * tmx_tracedat_open() source, then found again by the report's keep().
 */
#include <stdlib.h>

#include "common/grow.h"
#include "tools/tracecmd/report.h"
#include "tracecmd/tracedat.h"

/* A record, as the model's messages and the report's cursors both know it. */
struct rec_key {
	size_t file;
	uint32_t buffer, cpu;
	uint64_t offset;
};

struct tmx_tcreport_kept {
	struct rec_key *keys;   /* sorted once tmx_tcreport_keep_only() is called */
	size_t n, cap;
};

static int cmp_key(const void *a, const void *b)
{
	const struct rec_key *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->buffer != y->buffer)
		return x->buffer < y->buffer ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static bool keep_record(const void *ctx, size_t file, const struct tdat_record *rec)
{
	const struct tmx_tcreport_kept *k = ctx;
	struct rec_key key = { file, rec->buffer, rec->cpu, rec->offset };

	/* (no records kept: no array, which bsearch() must not see) */
	return k->n && bsearch(&key, k->keys, k->n, sizeof(key), cmp_key) != NULL;
}

struct tmx_tcreport_kept *tmx_tcreport_kept_new(void)
{
	return calloc(1, sizeof(struct tmx_tcreport_kept));
}

bool tmx_tcreport_kept_add(struct tmx_tcreport_kept *k, const struct tmx_msg *msg)
{
	const struct tdat_record *rec = msg->kind == TMX_MSG_EVENT ? tdat_record_of(msg) : NULL;

	if (!rec)
		return true;
	if (!tmx_grow_array((void **)&k->keys, &k->cap, k->n + 1, sizeof(*k->keys), 1024))
		return false;
	k->keys[k->n++] = (struct rec_key){ rec->file_index, rec->buffer, rec->cpu, rec->offset };
	return true;
}

void tmx_tcreport_keep_only(struct tmx_tcreport_opts *o, struct tmx_tcreport_kept *k)
{
	if (k->n)
		qsort(k->keys, k->n, sizeof(*k->keys), cmp_key);
	o->keep = keep_record;
	o->keep_ctx = k;
}

void tmx_tcreport_kept_free(struct tmx_tcreport_kept *k)
{
	if (k)
		free(k->keys);
	free(k);
}
