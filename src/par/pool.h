/*
 * A pool of worker threads that fill the batches of units of work ahead
 * of a main thread that takes each unit's batches in order (and merges
 * the units as it likes).  It knows nothing of what a batch holds.
 *
 * A unit's batches are independent: batch k of unit u is whatever the
 * caller's fill(u, k) makes of it, whoever fills it and when, so several
 * workers fill batches of one unit at the same time (a trace.dat CPU that
 * holds most of the events is cut into runs of pages that every worker
 * decodes), and the pool hands them to the main thread in order.
 *
 * Scheduling: a worker takes the next batch of the unit with the fewest
 * batches started and not yet taken (the unit the main thread waits for
 * comes first).  Memory is bounded: at most `depth` batches per unit are
 * being filled or wait to be taken, plus the one the main thread holds.
 *
 * Used by `-o tracecmd` on trace.dat files (src/tools/tracecmd/
 * report_par.c), whose units are the CPUs of the files' buffers and
 * batches runs of a CPU's pages.
 */
#ifndef TMX_PAR_POOL_H
#define TMX_PAR_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "common/errors.h"

struct par_pool;

struct par_pool_ops {
	/* A worker's own state (NULL is an error), made and freed on the calling thread. */
	void *(*worker_new)(void *ctx);
	void (*worker_free)(void *ctx, void *ws);
	/* An empty batch (NULL is an error: the unit ends there, see par_pool_take). */
	void *(*batch_new)(void *ctx);
	void (*batch_free)(void *ctx, void *batch);
	/*
	 * On a worker thread: empties `batch` (new or handed back) and fills
	 * it as batch `k` of unit `unit`.  Returns true when the unit has
	 * nothing after this batch although it was given more (an error the
	 * batch carries): the later ones are not filled, or dropped.
	 */
	bool (*fill)(void *ctx, void *ws, size_t unit, size_t k, void *batch);
};

/*
 * Starts `workers` threads over `units` units, unit u having counts[u]
 * batches (copied); TMX_OK or an error (nothing left running).
 */
int par_pool_start(struct par_pool **out, size_t units, const size_t *counts, size_t workers,
		   size_t depth, const struct par_pool_ops *ops, void *ctx, struct tmx_error *err);

/*
 * Main thread: unit u's next batch, waiting for it; NULL once the unit's
 * last batch was taken (or a batch could not be allocated: the caller's
 * fill() should end units with a batch of their own to tell the two apart).
 */
void *par_pool_take(struct par_pool *p, size_t u);

/* Main thread: a batch taken is no longer used (it is refilled, for any unit). */
void par_pool_give_back(struct par_pool *p, void *batch);

/* Stops the workers (they finish the batch in hand) and frees everything. */
void par_pool_stop(struct par_pool *p);

#endif
