/* tmx_run's progress calls (see progress.h). */
#include <stdlib.h>
#include <time.h>

#include "tracemux/tracemux.h"
#include "par/progress.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void par_progress_init(struct par_progress *pg, const struct tmx_source *src,
		       const struct tmx_run_opts *opts)
{
	size_t n;

	*pg = (struct par_progress){ 0 };
	if (!opts->progress)
		return;
	n = tmx_source_stream_count(src);
	pg->fn = opts->progress;
	pg->user = opts->progress_user;
	pg->interval_ns = (uint64_t)(opts->progress_ms ? opts->progress_ms : 250) * 1000000u;
	pg->start_ns = now_ns();
	pg->next_ns = pg->start_ns + pg->interval_ns;
	/* Without memory for the ranges the estimate stays at 0 until the end. */
	pg->spans = calloc(n ? n : 1, sizeof(*pg->spans));
	for (size_t i = 0; pg->spans && i < n; i++) {
		struct tmx_stream_info info;

		tmx_source_stream_info(src, i, &info);
		pg->p.bytes_total += info.bytes;
		if (info.has_range)
			pg->spans[pg->n_spans++] = (struct par_span){ info.begin_ns, info.end_ns, info.bytes };
	}
}

/* Each stream's bytes in proportion to how far `t` is into its range. */
static uint64_t bytes_read(const struct par_progress *pg)
{
	double sum = 0;

	if (!pg->has_t)
		return 0;
	for (size_t i = 0; i < pg->n_spans; i++) {
		const struct par_span *s = &pg->spans[i];

		if (pg->t >= s->end)
			sum += (double)s->bytes;
		else if (pg->t > s->begin)
			sum += (double)s->bytes * (((double)pg->t - (double)s->begin) /
						   ((double)s->end - (double)s->begin));
	}
	return sum < (double)pg->p.bytes_total ? (uint64_t)sum : pg->p.bytes_total;
}

void par_progress_poll(struct par_progress *pg)
{
	uint64_t now = now_ns(), read;

	if (now < pg->next_ns)
		return;
	pg->next_ns = now + pg->interval_ns;
	pg->p.elapsed_ns = now - pg->start_ns;
	/* Never backwards, also when messages are not in time order (XRay's --sort=false). */
	read = bytes_read(pg);
	if (read > pg->p.bytes_read)
		pg->p.bytes_read = read;
	pg->fn(pg->user, &pg->p);
}

void par_progress_end(struct par_progress *pg, bool complete)
{
	if (!pg->fn)
		return;
	pg->p.elapsed_ns = now_ns() - pg->start_ns;
	if (complete)
		pg->p.bytes_read = pg->p.bytes_total;
	else if (bytes_read(pg) > pg->p.bytes_read)
		pg->p.bytes_read = bytes_read(pg);
	pg->p.done = true;
	pg->fn(pg->user, &pg->p);
	free(pg->spans);
	pg->spans = NULL;
}
