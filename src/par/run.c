/*
 * tmx_run (include/tracemux/run.h): a source into a sink, with one job the
 * sequential loop, with more the parallel runner when the sink has a split
 * (src/sink/split.h) and the source's streams can be taken over.
 *
 * Memory: a stream's queue holds at most `depth` batches, plus one being
 * filled and one being merged; batches are sealed at a size chosen so that
 * all of them fit in PAR_BUDGET_BASE + PAR_BUDGET_PER_WORKER per worker
 * (a batch holds at least PAR_MIN_ELEMS elements whatever the number of
 * streams, and the one message that crosses the size limit).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "tracemux/sink.h"
#include "tracemux/tracemux.h"
#include "source/source.h"
#include "model/opts.h"
#include "mux/muxer.h"
#include "par/par.h"
#include "par/progress.h"

#define PAR_BUDGET_BASE (32u << 20)
#define PAR_BUDGET_PER_WORKER (8u << 20)
#define PAR_DEPTH 2
#define PAR_MIN_ELEMS 16
#define PAR_MAX_ELEMS 512
#define PAR_MAX_BATCH_BYTES (128u << 10)
#define PAR_SPARSE_MSGS 16384
#define PAR_SPARSE_DEPTH 64

unsigned tmx_cpu_count(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned)n : 1;
}

/* Today's loop: pull, keep, consume. */
static int run_sequential(struct tmx_source *src, struct tmx_sink *sink,
			  const struct tmx_run_opts *opts, struct par_progress *pg,
			  struct tmx_error *err)
{
	struct tmx_muxer *mux = tmx_source_muxer(src);
	const struct tmx_msg *msg;

	for (;;) {
		bool stop = false;

		if (mux ? tmx_muxer_next(mux, &msg, err) : tmx_source_next(src, &msg, err))
			return err->code;
		if (!msg)
			return TMX_OK;
		if (opts->keep && !opts->keep(opts->keep_user, msg, &stop)) {
			if (stop)
				return TMX_OK;
			continue;
		}
		if (tmx_sink_consume(sink, msg, err))
			return err->code;
		par_progress_msg(pg, msg);
	}
}

/* Batch sizes for the memory budget (see the top of this file). */
static void size_batches(struct par_runner *r)
{
	size_t budget = PAR_BUDGET_BASE + PAR_BUDGET_PER_WORKER * r->n_workers;
	/* per stream: a stream read in segments has its share, spread over them (split.c) */
	size_t per_batch = budget / (r->n_inputs * (PAR_DEPTH + 2));

	r->depth = PAR_DEPTH;
	r->batch_bytes = per_batch / 2 < PAR_MAX_BATCH_BYTES ? per_batch / 2 : PAR_MAX_BATCH_BYTES;
	r->batch_elems = per_batch / 2 / sizeof(struct par_elem);
	if (r->batch_elems < PAR_MIN_ELEMS)
		r->batch_elems = PAR_MIN_ELEMS;
	if (r->batch_elems > PAR_MAX_ELEMS)
		r->batch_elems = PAR_MAX_ELEMS;
	/*
	 * Nothing to emit (dummy): a batch holds only warnings and errors, so
	 * it may span many messages and many may be queued; the workers then
	 * read ahead on every stream while the merge goes through one (it
	 * meets nothing in the others until their first warning).
	 */
	if (!r->split->emit) {
		r->batch_elems = PAR_SPARSE_MSGS;
		r->depth = PAR_SPARSE_DEPTH;
	}
	par_groups_size(r, budget);
}

static void runner_free(struct par_runner *r)
{
	for (size_t i = 0; i < r->n_streams; i++) {
		struct par_stream *s = &r->streams[i];
		for (struct par_batch *b = s->q_head, *next; b; b = next) {
			next = b->next;
			par_batch_free(b);
		}
		for (struct par_batch *b = s->spare, *next; b; b = next) {
			next = b->next;
			par_batch_free(b);
		}
	}
	for (size_t i = 0; i < r->n_groups; i++) {
		for (struct par_batch *b = r->groups[i].spare, *next; b; b = next) {
			next = b->next;
			par_batch_free(b);
		}
	}
	free(r->groups);
	free(r->streams);
	free(r->workers);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->main_cv);
	pthread_cond_destroy(&r->work_cv);
}

/* The sink queued side work: idle threads look for it (src/sink/split.h). */
static void side_wake(void *ctx)
{
	struct par_runner *r = ctx;

	pthread_mutex_lock(&r->lock);
	r->side_gen++;
	pthread_cond_broadcast(&r->work_cv);
	pthread_cond_broadcast(&r->main_cv);
	pthread_mutex_unlock(&r->lock);
}

static int run_parallel(struct par_runner *r, struct tmx_source *src,
			const struct tmx_mux_head *heads, size_t n_heads, unsigned jobs,
			struct tmx_error *err)
{
	struct tmx_error ignored;
	int ret;

	if ((ret = par_units_make(r, src, heads, n_heads, jobs, err)))
		return ret;
	/* The main thread and jobs - 1 workers, at most one per unit. */
	r->n_workers = 1 + (jobs - 1 < r->n_streams ? jobs - 1 : r->n_streams);
	r->workers = calloc(r->n_workers, sizeof(*r->workers));
	if (!r->workers)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	size_batches(r);
	ret = par_workers_start(r, err);
	if (!ret && r->split->side) {
		struct sink_side side = { side_wake, r, (unsigned)r->n_workers };
		r->split->side->start(r->sink_out, &side);
		int merged = par_merge(r, err);
		int ended = r->split->side->end(r->sink_out, merged, merged ? &ignored : err);

		ret = merged ? merged : ended;
	} else if (!ret) {
		ret = par_merge(r, err);
	}
	par_workers_stop(r);
	return ret;
}

/*
 * The parallel path, when it applies: sets *ran and returns the run's
 * status.
 */
static int try_parallel(struct tmx_source *src, struct tmx_sink *sink, unsigned jobs,
			const struct tmx_run_opts *opts, struct par_progress *pg, bool *ran,
			struct tmx_error *err)
{
	struct par_runner r = { .opts = opts, .filter = tmx_source_filter(src), .progress = pg };
	struct tmx_mux_head *heads;
	struct tmx_error ignored;
	size_t n_heads;
	int ret;

	*ran = false;
	r.split = tmx_sink_split(sink, &r.sink_out);
	if (!r.split || tmx_source_take_streams(src, &heads, &n_heads, &ignored))
		return TMX_OK;
	/*
	 * The classes' dense numbers, made at the first question: made here,
	 * so that a formatter of the caller's own (tmx_sink_custom) may ask
	 * tmx_source_event_class_index on the workers, which then only read.
	 */
	tmx_source_event_class_count(src);
	*ran = true;
	if (n_heads == 0) {
		free(heads);
		return TMX_OK;
	}
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.main_cv, NULL);
	pthread_cond_init(&r.work_cv, NULL);
	ret = run_parallel(&r, src, heads, n_heads, jobs, err);
	runner_free(&r);
	free(heads);
	return ret;
}

/* A sink with nothing to format (dummy, src/sink/split.h): no field needs decoding. */
static bool reads_nothing(const struct tmx_sink *sink)
{
	void *out;
	const struct sink_split *split = tmx_sink_split(sink, &out);

	return split && !split->worker_new;
}

int tmx_run(struct tmx_source *src, struct tmx_sink *sink, const struct tmx_run_opts *opts,
	    struct tmx_error *err)
{
	struct tmx_run_opts own;
	struct par_progress pg;
	struct tmx_error ferr = { 0 };
	unsigned jobs;
	bool ran = false;
	int ret = TMX_OK;

	if ((ret = tmx_opts_copy(&own, sizeof(own), opts, "tmx_run_opts", err))) {
		tmx_sink_finish(sink, &ferr);
		return ret;
	}
	opts = &own;
	jobs = opts->jobs ? opts->jobs : tmx_cpu_count();
	if (reads_nothing(sink))
		tmx_source_skip_fields(src);
	par_progress_init(&pg, src, opts);
	if (jobs > 1)
		ret = try_parallel(src, sink, jobs, opts, &pg, &ran, err);
	if (!ran)
		ret = run_sequential(src, sink, opts, &pg, err);
	/* Everything consumed before an error is still written. */
	if (tmx_sink_finish(sink, &ferr) && !ret) {
		*err = ferr;
		ret = ferr.code;
	}
	par_progress_end(&pg, ret == TMX_OK);
	return ret;
}
