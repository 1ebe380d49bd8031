/* Full row groups encoded on any thread, written in order: see groupq.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "sink/parquet/groupq.h"

enum job_state { QUEUED, RUNNING, DONE };

struct job {
	struct job *next;
	struct pq_table *t;
	struct pq_col *cols;        /* the group's columns, taken from its table */
	size_t n_alloc, n_cols, bytes;
	int64_t n_rows;
	enum job_state state;
	struct pq_group g;
};

struct encoder {
	struct encoder *next;
	struct pq_encoder enc;
};

struct pq_groupq {
	pthread_mutex_t lock;
	pthread_cond_t done;       /* a job was encoded */
	struct job *head, *tail;   /* in submission order: written from the head */
	struct job *queued;        /* the first QUEUED job, or NULL */
	size_t n, bytes;           /* jobs not yet written, and their columns' bytes */
	struct encoder *free_encs; /* idle encoders, one per thread at most in use */
	struct pq_colsets sets;    /* columns of encoded groups, for the tables' next groups */
	int level;
	bool async;
	size_t max_groups;
	void (*wake)(void *ctx);
	void *wake_ctx;
};

struct pq_groupq *pq_groupq_new(int zstd_level)
{
	struct pq_groupq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->done, NULL);
	q->level = zstd_level;
	return q;
}

static void cols_free(struct pq_col *cols, size_t n)
{
	for (size_t c = 0; c < n; c++)
		pq_col_free(&cols[c]);
	free(cols);
}

static void job_free(struct job *j)
{
	cols_free(j->cols, j->n_alloc);
	pq_group_free(&j->g);
	free(j);
}

static void encoder_free(struct encoder *e)
{
	pq_encoder_zstd_free(&e->enc);
	pq_encoder_free_bufs(&e->enc);
	free(e);
}

void pq_groupq_free(struct pq_groupq *q)
{
	if (!q)
		return;
	for (struct job *j = q->head, *next; j; j = next) {
		next = j->next;
		job_free(j);
	}
	for (struct encoder *e = q->free_encs, *next; e; e = next) {
		next = e->next;
		encoder_free(e);
	}
	pq_colsets_free(&q->sets);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->done);
	free(q);
}

/* Under the lock: an idle encoder, or a new one (NULL without memory). */
static struct encoder *take_encoder(struct pq_groupq *q)
{
	struct encoder *e = q->free_encs;

	if (e) {
		q->free_encs = e->next;
		return e;
	}
	e = calloc(1, sizeof(*e));
	if (e && !pq_encoder_zstd(&e->enc, q->level)) {
		free(e);
		return NULL;
	}
	return e;
}

/* Under the lock: the next QUEUED job after `j`. */
static struct job *next_queued(struct job *j)
{
	for (j = j->next; j && j->state != QUEUED; j = j->next)
		;
	return j;
}

void pq_groupq_take_cols(struct pq_groupq *q, const struct pq_table *t, struct pq_col **cols,
			 size_t *n)
{
	struct pq_colset set;

	pthread_mutex_lock(&q->lock);
	if (pq_colsets_take(&q->sets, t, &set)) {
		*cols = set.cols;
		*n = set.n;
	}
	pthread_mutex_unlock(&q->lock);
}

void pq_groupq_give_cols(struct pq_groupq *q, const struct pq_table *t, struct pq_col *cols,
			 size_t n)
{
	pthread_mutex_lock(&q->lock);
	pq_colsets_give(&q->sets, (struct pq_colset){ cols, n, t });
	pthread_mutex_unlock(&q->lock);
}

bool pq_groupq_is_async(const struct pq_groupq *q)
{
	return q->async;
}

/*
 * Encodes the first queued job (the lock held on entry and on return,
 * released meanwhile); false when none is queued.
 */
static bool run_one(struct pq_groupq *q)
{
	struct job *j = q->queued;
	struct encoder *e;

	if (!j)
		return false;
	e = take_encoder(q);
	j->state = RUNNING;
	q->queued = next_queued(j);
	pthread_mutex_unlock(&q->lock);
	if (e) {
		pq_group_encode(&j->g, j->cols, j->n_cols, j->n_rows, &e->enc);
	} else {   /* the group fails as an encoding without memory does */
		j->g = (struct pq_group){ .num_rows = j->n_rows, .failed = 0 };
	}
	pthread_mutex_lock(&q->lock);
	/* The columns, emptied, kept for a table's next group. */
	pq_colsets_give(&q->sets, (struct pq_colset){ j->cols, j->n_alloc, j->t });
	j->cols = NULL;
	j->n_alloc = 0;
	if (e) {
		e->next = q->free_encs;
		q->free_encs = e;
	}
	j->state = DONE;
	pthread_cond_broadcast(&q->done);
	return true;
}

bool pq_groupq_run(struct pq_groupq *q)
{
	bool ran;

	pthread_mutex_lock(&q->lock);
	ran = run_one(q);
	pthread_mutex_unlock(&q->lock);
	return ran;
}

/*
 * Under the lock: writes the encoded jobs at the head, in order; with
 * `until`, also waits for (or encodes) jobs until the queue holds at most
 * that many (0: empty).  Keeps the first error.
 */
static int retire(struct pq_groupq *q, size_t until, bool wait, struct tmx_error *err)
{
	int ret = TMX_OK;

	for (;;) {
		struct job *j = q->head;

		if (!j)
			break;
		if (j->state != DONE) {
			if (!wait || (q->n <= until && q->bytes <= PQ_GROUPQ_BYTES))
				break;
			/* Help rather than wait: the first queued job, else the head's end. */
			if (!run_one(q))
				pthread_cond_wait(&q->done, &q->lock);
			continue;
		}
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		q->n--;
		q->bytes -= j->bytes;
		pthread_mutex_unlock(&q->lock);
		{
			struct tmx_error e = { 0 };
			int r = pq_table_put(j->t, &j->g, &e);
			if (r && !ret) {
				ret = r;
				*err = e;
			}
		}
		job_free(j);
		pthread_mutex_lock(&q->lock);
	}
	return ret;
}

int pq_groupq_submit(struct pq_groupq *q, struct pq_table *t, struct tmx_error *err)
{
	struct job *j = calloc(1, sizeof(*j));
	int ret;

	if (!j)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	/* The group's columns go with it (its rows are in them: see pq_table_flush); the table takes others. */
	*j = (struct job){ .t = t, .cols = t->cols, .n_alloc = t->n_alloc, .n_cols = t->schema.n_cols,
			   .bytes = t->bytes, .n_rows = t->n_rows, .state = QUEUED };
	t->cols = NULL;
	t->n_alloc = 0;
	t->direct = false;
	t->n_rows = 0;
	t->bytes = 0;
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	if (!q->queued)
		q->queued = j;
	q->n++;
	q->bytes += j->bytes;
	if (q->async) {
		pthread_mutex_unlock(&q->lock);
		q->wake(q->wake_ctx);
		pthread_mutex_lock(&q->lock);
		ret = retire(q, q->max_groups, true, err);
	} else {
		ret = retire(q, 0, true, err);
	}
	pthread_mutex_unlock(&q->lock);
	return ret;
}

int pq_groupq_drain(struct pq_groupq *q, struct tmx_error *err)
{
	int ret;

	pthread_mutex_lock(&q->lock);
	ret = retire(q, 0, true, err);
	pthread_mutex_unlock(&q->lock);
	return ret;
}

void pq_groupq_async(struct pq_groupq *q, void (*wake)(void *ctx), void *ctx, size_t max_groups)
{
	pthread_mutex_lock(&q->lock);
	q->async = true;
	q->wake = wake;
	q->wake_ctx = ctx;
	q->max_groups = max_groups ? max_groups : 1;
	pthread_mutex_unlock(&q->lock);
}

int pq_groupq_sync(struct pq_groupq *q, struct tmx_error *err)
{
	int ret;

	pthread_mutex_lock(&q->lock);
	ret = retire(q, 0, true, err);
	q->async = false;
	q->wake = NULL;
	q->wake_ctx = NULL;
	pthread_mutex_unlock(&q->lock);
	return ret;
}
