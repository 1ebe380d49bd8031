/*
 * The worker pool of pool.h: per unit a ring of `depth` slots for the
 * batches started and not yet taken (batch k in slot k % depth), and one
 * list of batches handed back for any unit, under one lock; workers wait
 * on work_cv (a unit has room again, or stop), the main thread on main_cv
 * (a batch was filled).
 */
#include <pthread.h>
#include <stdlib.h>

#include "common/grow.h"
#include "par/pool.h"

struct pool_unit {
	size_t count;      /* its batches (fewer once a fill ended the unit) */
	size_t started;    /* the next batch to give a worker */
	size_t taken;      /* the next batch the main thread takes */
	void **slot;       /* depth slots: batch k once filled, else NULL */
};

struct pool_worker {
	struct par_pool *p;
	pthread_t thread;
	bool started;
	void *ws;
};

struct par_pool {
	pthread_mutex_t lock;
	pthread_cond_t main_cv, work_cv;
	bool stop;
	const struct par_pool_ops *ops;
	void *ctx;
	size_t depth;
	struct pool_unit *units;
	size_t n_units;
	struct pool_worker *workers;
	size_t n_workers;
	void **spare;      /* batches handed back */
	size_t n_spare, cap_spare;
};

/* The unit to fill next: room, the fewest batches started and not taken (ties: the previous one). */
static struct pool_unit *pick(struct par_pool *p, struct pool_unit *prev, bool *all_done)
{
	struct pool_unit *best = NULL;

	*all_done = true;
	for (size_t i = 0; i < p->n_units; i++) {
		struct pool_unit *u = &p->units[i];
		size_t ahead = u->started - u->taken;

		if (u->started >= u->count)
			continue;
		*all_done = false;
		if (ahead >= p->depth)
			continue;
		if (!best || ahead < best->started - best->taken ||
		    (ahead == best->started - best->taken && u == prev))
			best = u;
	}
	return best;
}

/* Under the lock: keeps a batch for reuse (freed when the list cannot grow). */
static void keep_spare(struct par_pool *p, void *batch)
{
	if (tmx_grow_array((void **)&p->spare, &p->cap_spare, p->n_spare + 1, sizeof(*p->spare), 16))
		p->spare[p->n_spare++] = batch;
	else
		p->ops->batch_free(p->ctx, batch);
}

/* Under the lock: the unit ends before batch `end`; what was filled after it goes. */
static void end_unit(struct par_pool *p, struct pool_unit *u, size_t end)
{
	if (end >= u->count)
		return;
	u->count = end;
	for (size_t k = end > u->taken ? end : u->taken; k < u->started; k++) {
		void **s = &u->slot[k % p->depth];
		if (*s) {
			keep_spare(p, *s);
			*s = NULL;
		}
	}
}

static void *worker_main(void *arg)
{
	struct pool_worker *w = arg;
	struct par_pool *p = w->p;
	struct pool_unit *u = NULL;
	bool all_done;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		void *batch = NULL;
		size_t k;
		bool last;

		if (!(u = pick(p, u, &all_done))) {
			if (all_done)
				break;
			pthread_cond_wait(&p->work_cv, &p->lock);
			continue;
		}
		k = u->started++;
		if (p->n_spare)
			batch = p->spare[--p->n_spare];
		pthread_mutex_unlock(&p->lock);
		if (!batch)
			batch = p->ops->batch_new(p->ctx);
		/* without memory the unit ends here: the main thread's take() gets NULL */
		last = !batch || p->ops->fill(p->ctx, w->ws, (size_t)(u - p->units), k, batch);
		pthread_mutex_lock(&p->lock);
		if (!batch) {
			end_unit(p, u, k);
		} else if (k >= u->count) {
			keep_spare(p, batch);   /* an earlier batch ended the unit */
		} else {
			u->slot[k % p->depth] = batch;
			if (last)
				end_unit(p, u, k + 1);
		}
		pthread_cond_signal(&p->main_cv);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void *par_pool_take(struct par_pool *p, size_t i)
{
	struct pool_unit *u = &p->units[i];
	void *batch = NULL;

	pthread_mutex_lock(&p->lock);
	while (u->taken < u->count && !u->slot[u->taken % p->depth])
		pthread_cond_wait(&p->main_cv, &p->lock);
	if (u->taken < u->count) {
		void **s = &u->slot[u->taken++ % p->depth];
		batch = *s;
		*s = NULL;
		pthread_cond_signal(&p->work_cv);
	}
	pthread_mutex_unlock(&p->lock);
	return batch;
}

void par_pool_give_back(struct par_pool *p, void *batch)
{
	pthread_mutex_lock(&p->lock);
	keep_spare(p, batch);
	pthread_mutex_unlock(&p->lock);
}

void par_pool_stop(struct par_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->lock);
	for (size_t i = 0; i < p->n_workers; i++) {
		struct pool_worker *w = &p->workers[i];
		if (w->started)
			pthread_join(w->thread, NULL);
		if (w->ws)
			p->ops->worker_free(p->ctx, w->ws);
	}
	for (size_t i = 0; i < p->n_units; i++) {
		for (size_t k = 0; p->units[i].slot && k < p->depth; k++)
			if (p->units[i].slot[k])
				p->ops->batch_free(p->ctx, p->units[i].slot[k]);
		free(p->units[i].slot);
	}
	for (size_t i = 0; i < p->n_spare; i++)
		p->ops->batch_free(p->ctx, p->spare[i]);
	pthread_cond_destroy(&p->main_cv);
	pthread_cond_destroy(&p->work_cv);
	pthread_mutex_destroy(&p->lock);
	free(p->spare);
	free(p->units);
	free(p->workers);
	free(p);
}

int par_pool_start(struct par_pool **out, size_t units, const size_t *counts, size_t workers,
		   size_t depth, const struct par_pool_ops *ops, void *ctx, struct tmx_error *err)
{
	struct par_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->main_cv, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	p->ops = ops;
	p->ctx = ctx;
	p->depth = depth ? depth : 1;
	p->units = calloc(units ? units : 1, sizeof(*p->units));
	p->workers = calloc(workers ? workers : 1, sizeof(*p->workers));
	p->n_units = units;
	if (!p->units || !p->workers) {
		par_pool_stop(p);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < units; i++) {
		p->units[i].count = counts[i];
		if (!(p->units[i].slot = calloc(p->depth, sizeof(*p->units[i].slot)))) {
			par_pool_stop(p);
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		}
	}
	for (size_t i = 0; i < workers; i++) {
		struct pool_worker *w = &p->workers[i];
		p->n_workers = i + 1;
		w->p = p;
		if (!(w->ws = ops->worker_new(ctx))) {
			par_pool_stop(p);
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		}
		if (pthread_create(&w->thread, NULL, worker_main, w)) {
			par_pool_stop(p);
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "cannot start a worker thread");
		}
		w->started = true;
	}
	*out = p;
	return TMX_OK;
}
