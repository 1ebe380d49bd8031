/*
 * -o tracecmd's progress on trace.dat files (tmx_tcreport_opts.progress):
 * the report reads the files through its own cursors (in trace-cmd's
 * order, on worker threads too: report_par.c), not through a source, so
 * the bytes read are counted here on the main thread from the records it
 * prints: for each CPU, how far into its data (tdat_cpu_data.size, what
 * the model's tmx_stream_info.bytes says) the last record taken from it
 * lies.  The same calls and figures as tmx_run's (src/par/progress.h).
 */
#include <stdlib.h>

#include "par/progress.h"
#include "tools/tracecmd/report_impl.h"

struct tcr_progress {
	struct par_progress pg;
	uint64_t sum;            /* of upto */
	uint64_t **upto;         /* per handle, per CPU: the bytes up to its last record */
	size_t n;
};

static uint64_t bytes_of(const void *ctx)
{
	return ((const struct tcr_progress *)ctx)->sum;
}

int tcr_progress_start(struct tcr *r, struct tmx_error *err)
{
	struct tcr_progress *p;
	uint64_t total = 0;

	if (!r->o->progress || !r->o->progress->progress)
		return TMX_OK;
	if (!(p = calloc(1, sizeof(*p))) ||
	    !(p->upto = calloc(r->n_handles ? r->n_handles : 1, sizeof(*p->upto)))) {
		free(p);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	r->progress = p;
	p->n = r->n_handles;
	for (size_t i = 0; i < r->n_handles; i++) {
		const struct tcr_handle *h = &r->handles[i];
		const struct tdat_buffer *b = &h->file->f->buffers[h->buffer];

		if (!h->n_cpus)
			continue;
		if (!(p->upto[i] = calloc(h->n_cpus, sizeof(**p->upto))))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		for (size_t c = 0; c < h->n_cpus; c++)
			total += b->cpus[c].size;
	}
	par_progress_start(&p->pg, r->o->progress, total, bytes_of, p);
	return TMX_OK;
}

void tcr_progress_record(struct tcr *r, const struct tcr_handle *h)
{
	struct tcr_progress *p = r->progress;
	const struct tdat_cpu_data *cd = &h->file->f->buffers[h->buffer].cpus[h->rec_cursor];
	const struct tdat_record *rec = h->rec;
	uint64_t *upto = &p->upto[h - r->handles][h->rec_cursor], at;

	/* The record's end, in the CPU's data as stored (compressed: in proportion). */
	if (!cd->compressed)
		at = rec->offset + rec->size > cd->offset ? rec->offset + rec->size - cd->offset : 0;
	else
		at = cd->uncompressed_size ? (uint64_t)((unsigned __int128)(rec->offset + rec->size) *
							cd->size / cd->uncompressed_size) : 0;
	if (at > cd->size)
		at = cd->size;
	if (at > *upto) {
		p->sum += at - *upto;
		*upto = at;
	}
	par_progress_note(&p->pg, true);
}

void tcr_progress_end(struct tcr *r, bool complete)
{
	struct tcr_progress *p = r->progress;

	if (!p)
		return;
	par_progress_end(&p->pg, complete);
	for (size_t i = 0; i < p->n; i++)
		free(p->upto[i]);
	free(p->upto);
	free(p);
	r->progress = NULL;
}
