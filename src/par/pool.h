/*
 * A pool of worker threads that fill bounded queues of batches, one queue
 * per unit of work, for a main thread that takes the batches of each unit
 * in order (and merges them as it likes).  It knows nothing of what a
 * batch holds: the caller's fill() reads a unit's next items into one.
 *
 * Scheduling is the parallel runner's (worker.c): a worker takes the unit
 * that has room in its queue and the fewest batches queued (the unit the
 * main thread waits for comes first), one worker per unit at a time, any
 * worker.  Memory is bounded by the caller's batch size times `depth`
 * batches per unit (plus the one being filled and the one in use).
 *
 * Used by `-o tracecmd` on trace.dat files (src/tools/tracecmd/
 * report_par.c), whose units are the CPUs of the files' buffers.
 */
#ifndef TMX_PAR_POOL_H
#define TMX_PAR_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/errors.h"

struct par_pool;

struct par_pool_ops {
	/* A worker's own state (NULL is an error), made and freed on the calling thread. */
	void *(*worker_new)(void *ctx);
	void (*worker_free)(void *ctx, void *ws);
	/* An empty batch (NULL is an error: the unit ends there, see par_pool_take). */
	void *(*batch_new)(void *ctx);
	void (*batch_free)(void *ctx, void *batch);
	/*
	 * On a worker thread: empties `batch` (new or handed back) and fills it
	 * with unit `unit`'s next items.  Returns true when the unit has nothing
	 * after this batch (its end, or an error the batch carries).
	 */
	bool (*fill)(void *ctx, void *ws, size_t unit, void *batch);
};

/* Starts `workers` threads over `units` units; TMX_OK or an error (nothing left running). */
int par_pool_start(struct par_pool **out, size_t units, size_t workers, size_t depth,
		   const struct par_pool_ops *ops, void *ctx, struct tmx_error *err);

/*
 * Main thread: unit u's next batch, waiting for it; NULL once the unit's
 * last batch was taken (or a batch could not be allocated: the caller's
 * fill() should end units with a batch of their own to tell the two apart).
 */
void *par_pool_take(struct par_pool *p, size_t u);

/* Main thread: a batch taken from unit u is no longer used (it is refilled). */
void par_pool_give_back(struct par_pool *p, size_t u, void *batch);

/* Stops the workers (they finish the batch in hand) and frees everything. */
void par_pool_stop(struct par_pool *p);

#endif
