/*
 * The worker pool of pool.h: per unit a queue of filled batches and a list
 * of batches handed back, under one lock; workers wait on work_cv (a queue
 * has room again, or stop), the main thread on main_cv (a batch was
 * queued).
 */
#include <pthread.h>
#include <stdlib.h>

#include "par/pool.h"

struct pool_node {
	struct pool_node *next;
	void *batch;
};

struct pool_unit {
	struct pool_node *q_head, *q_tail;   /* filled, in order */
	struct pool_node *spare;             /* handed back, or nodes without a batch */
	size_t queued;
	bool busy;                           /* a worker fills it */
	bool done;                           /* its last batch is queued */
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
};

/* The unit to fill next: free, with room, the fewest batches queued (ties: the previous one). */
static struct pool_unit *pick(struct par_pool *p, struct pool_unit *prev, bool *all_done)
{
	struct pool_unit *best = NULL;

	*all_done = true;
	for (size_t i = 0; i < p->n_units; i++) {
		struct pool_unit *u = &p->units[i];

		if (u->done)
			continue;
		*all_done = false;
		if (u->busy || u->queued >= p->depth)
			continue;
		if (!best || u->queued < best->queued || (u->queued == best->queued && u == prev))
			best = u;
	}
	return best;
}

/* A node for `batch` (NULL: a new batch), or NULL without memory. */
static struct pool_node *new_node(struct par_pool *p, void *batch)
{
	struct pool_node *n = malloc(sizeof(*n));

	if (n && !batch && !(batch = p->ops->batch_new(p->ctx))) {
		free(n);
		return NULL;
	}
	if (n) {
		n->next = NULL;
		n->batch = batch;
	} else if (batch) {
		p->ops->batch_free(p->ctx, batch);
	}
	return n;
}

static void *worker_main(void *arg)
{
	struct pool_worker *w = arg;
	struct par_pool *p = w->p;
	struct pool_unit *u = NULL;
	bool all_done;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct pool_node *n;
		bool last;

		if (!(u = pick(p, u, &all_done))) {
			if (all_done)
				break;
			pthread_cond_wait(&p->work_cv, &p->lock);
			continue;
		}
		u->busy = true;
		/* a batch handed back, else a new one (allocated outside the lock) */
		if ((n = u->spare))
			u->spare = n->next;
		pthread_mutex_unlock(&p->lock);
		if (!n)
			n = new_node(p, NULL);
		/* without memory the unit ends here: the main thread's take() gets NULL */
		last = !n || p->ops->fill(p->ctx, w->ws, (size_t)(u - p->units), n->batch);
		pthread_mutex_lock(&p->lock);
		u->busy = false;
		if (n) {
			n->next = NULL;
			if (u->q_tail)
				u->q_tail->next = n;
			else
				u->q_head = n;
			u->q_tail = n;
			u->queued++;
		}
		u->done = last;
		pthread_cond_signal(&p->main_cv);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void *par_pool_take(struct par_pool *p, size_t i)
{
	struct pool_unit *u = &p->units[i];
	struct pool_node *n;
	void *batch = NULL;

	pthread_mutex_lock(&p->lock);
	while (!u->q_head && !u->done)
		pthread_cond_wait(&p->main_cv, &p->lock);
	if ((n = u->q_head)) {
		u->q_head = n->next;
		if (!u->q_head)
			u->q_tail = NULL;
		u->queued--;
		pthread_cond_signal(&p->work_cv);
	}
	pthread_mutex_unlock(&p->lock);
	if (n) {
		batch = n->batch;
		free(n);
	}
	return batch;
}

void par_pool_give_back(struct par_pool *p, size_t i, void *batch)
{
	struct pool_unit *u = &p->units[i];
	struct pool_node *n = new_node(p, batch);

	if (!n)
		return;
	pthread_mutex_lock(&p->lock);
	n->next = u->spare;
	u->spare = n;
	pthread_mutex_unlock(&p->lock);
}

static void free_nodes(struct par_pool *p, struct pool_node *n)
{
	while (n) {
		struct pool_node *next = n->next;
		if (n->batch)
			p->ops->batch_free(p->ctx, n->batch);
		free(n);
		n = next;
	}
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
		free_nodes(p, p->units[i].q_head);
		free_nodes(p, p->units[i].spare);
	}
	pthread_cond_destroy(&p->main_cv);
	pthread_cond_destroy(&p->work_cv);
	pthread_mutex_destroy(&p->lock);
	free(p->units);
	free(p->workers);
	free(p);
}

int par_pool_start(struct par_pool **out, size_t units, size_t workers, size_t depth,
		   const struct par_pool_ops *ops, void *ctx, struct tmx_error *err)
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
