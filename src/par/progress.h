/*
 * tmx_run's progress calls (tmx_run_opts.progress, tracemux/run.h): the
 * run loops (the sequential one, the parallel merge) note each message
 * they hand to the sink; every 1024 messages the clock is read, and past
 * the interval the caller's function is called with the estimate.
 */
#ifndef TMX_PAR_PROGRESS_H
#define TMX_PAR_PROGRESS_H

#include "tracemux/run.h"

struct tmx_source;

struct par_progress {
	void (*fn)(void *user, const struct tmx_progress *p);   /* NULL: off */
	void *user;
	struct tmx_progress p;
	uint64_t start_ns, interval_ns, next_ns;
	unsigned tick;
	bool has_t;
	int64_t t;                  /* the time of the last message with one */
	struct par_span {           /* each stream's time range and bytes */
		int64_t begin, end;
		uint64_t bytes;
	} *spans;
	size_t n_spans;
};

/* Off when opts->progress is NULL (nothing else is done then). */
void par_progress_init(struct par_progress *pg, const struct tmx_source *src,
		       const struct tmx_run_opts *opts);
/* The clock read, the call made when the interval has passed. */
void par_progress_poll(struct par_progress *pg);
/* The last call (`complete`: every byte was read), and the memory freed. */
void par_progress_end(struct par_progress *pg, bool complete);

static inline void par_progress_msg(struct par_progress *pg, const struct tmx_msg *msg)
{
	if (!pg->fn)
		return;
	pg->p.events += msg->kind == TMX_MSG_EVENT;
	if (msg->has_ts) {
		pg->t = msg->ns;
		pg->has_t = true;
	}
	if (++pg->tick == 1024) {
		pg->tick = 0;
		par_progress_poll(pg);
	}
}

#endif
