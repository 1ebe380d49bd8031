/*
 * Progress calls (tmx_run_opts.progress, tracemux/run.h): a run loop (the
 * sequential one, the parallel merge, a tool's own loop through
 * tmx_progress_meter, trace-cmd report's) notes each message or record it
 * hands on; every 1024 the clock is read, and past the interval the
 * caller's function is called with the bytes read so far, which a
 * function of the loop's owner gives (for a source: its readers'
 * counters, tmx_source_bytes_read).
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
	uint64_t (*bytes)(const void *ctx);   /* the bytes read so far */
	const void *ctx;
};

/*
 * Off when opts->progress is NULL (nothing else is done then): the
 * figures of `bytes_total` bytes, of which bytes(ctx) have been read.
 */
void par_progress_start(struct par_progress *pg, const struct tmx_run_opts *opts,
			uint64_t bytes_total, uint64_t (*bytes)(const void *ctx), const void *ctx);
/* The same over a source (its streams' bytes, its readers' counters). */
void par_progress_init(struct par_progress *pg, const struct tmx_source *src,
		       const struct tmx_run_opts *opts);
/* The clock read, the call made when the interval has passed. */
void par_progress_poll(struct par_progress *pg);
/*
 * The last call.  `complete`: nothing is left to read (the rest of the
 * input was trimmed away, or every byte was read), the bytes are the
 * total; else what was read.
 */
void par_progress_end(struct par_progress *pg, bool complete);

/* One more unit handed on (`event`: an event). */
static inline void par_progress_note(struct par_progress *pg, bool event)
{
	if (!pg->fn)
		return;
	pg->p.events += event;
	if (++pg->tick == 1024) {
		pg->tick = 0;
		par_progress_poll(pg);
	}
}

/* `n` events at once (the dummy sink's parallel batches): the clock read when there are any. */
static inline void par_progress_events(struct par_progress *pg, uint64_t n)
{
	if (!pg->fn || !n)
		return;
	pg->p.events += n;
	par_progress_poll(pg);
}

static inline void par_progress_msg(struct par_progress *pg, const struct tmx_msg *msg)
{
	par_progress_note(pg, msg->kind == TMX_MSG_EVENT);
}

#endif
