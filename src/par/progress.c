/* Progress calls (see progress.h) and the public meter (tracemux/run.h). */
#include <stdlib.h>
#include <time.h>

#include "tracemux/tracemux.h"
#include "model/opts.h"
#include "source/source.h"
#include "par/progress.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void par_progress_start(struct par_progress *pg, const struct tmx_run_opts *opts,
			uint64_t bytes_total, uint64_t (*bytes)(const void *ctx), const void *ctx)
{
	*pg = (struct par_progress){ 0 };
	if (!opts->progress)
		return;
	pg->fn = opts->progress;
	pg->user = opts->progress_user;
	pg->interval_ns = (uint64_t)(opts->progress_ms ? opts->progress_ms : 250) * 1000000u;
	pg->start_ns = now_ns();
	pg->next_ns = pg->start_ns + pg->interval_ns;
	pg->p.bytes_total = bytes_total;
	pg->bytes = bytes;
	pg->ctx = ctx;
}

static uint64_t source_bytes(const void *src)
{
	return tmx_source_bytes_read(src);
}

void par_progress_init(struct par_progress *pg, const struct tmx_source *src,
		       const struct tmx_run_opts *opts)
{
	uint64_t total = 0;

	if (opts->progress)
		for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
			struct tmx_stream_info info;

			tmx_source_stream_info(src, i, &info);
			total += info.bytes;
		}
	par_progress_start(pg, opts, total, source_bytes, src);
}

/* What was read, never past the total, never backwards (also when the counters are read ahead). */
static void update_bytes(struct par_progress *pg)
{
	uint64_t read = pg->bytes ? pg->bytes(pg->ctx) : 0;

	if (read > pg->p.bytes_total)
		read = pg->p.bytes_total;
	if (read > pg->p.bytes_read)
		pg->p.bytes_read = read;
}

void par_progress_poll(struct par_progress *pg)
{
	uint64_t now = now_ns();

	if (now < pg->next_ns)
		return;
	pg->next_ns = now + pg->interval_ns;
	pg->p.elapsed_ns = now - pg->start_ns;
	update_bytes(pg);
	pg->fn(pg->user, &pg->p);
}

void par_progress_end(struct par_progress *pg, bool complete)
{
	if (!pg->fn)
		return;
	pg->p.elapsed_ns = now_ns() - pg->start_ns;
	update_bytes(pg);
	if (complete)
		pg->p.bytes_read = pg->p.bytes_total;
	pg->p.done = true;
	pg->fn(pg->user, &pg->p);
	pg->fn = NULL;
}

/* ---- tmx_progress_meter (tracemux/run.h): the same calls for a caller's own loop ---- */

struct tmx_progress_meter {
	struct par_progress pg;
};

struct tmx_progress_meter *tmx_progress_meter_new(const struct tmx_source *src,
						  const struct tmx_run_opts *opts)
{
	struct tmx_run_opts own;
	struct tmx_error ignored;
	struct tmx_progress_meter *m;

	if (!src || !opts || tmx_opts_copy(&own, sizeof(own), opts, "tmx_run_opts", &ignored) ||
	    !own.progress || !(m = malloc(sizeof(*m))))
		return NULL;
	par_progress_init(&m->pg, src, &own);
	return m;
}

void tmx_progress_meter_note(struct tmx_progress_meter *m, const struct tmx_msg *msg)
{
	if (m && m->pg.fn)   /* (after the end: nothing) */
		par_progress_msg(&m->pg, msg);
}

void tmx_progress_meter_end(struct tmx_progress_meter *m, bool complete)
{
	if (m)
		par_progress_end(&m->pg, complete);   /* once: it turns the calls off */
}

void tmx_progress_meter_free(struct tmx_progress_meter *m)
{
	free(m);
}
