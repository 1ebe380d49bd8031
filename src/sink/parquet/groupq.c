/* Full row groups encoded on any thread, written in order: see groupq.h. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "common/errors.h"
#include "sink/parquet/groupq.h"

enum job_state { QUEUED, RUNNING, DONE };

struct job {
	struct job *next;
	struct pq_table *t;
	struct tmx_buf recs;        /* the group's rows as the table buffered them */
	size_t n_cols, bytes;
	int64_t n_rows;
	size_t acct;               /* what the columns count into from now on */
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
	/*
	 * Record buffers of groups made into columns, for the tables' next
	 * groups: fresh memory for every group cost a page fault per 4 KiB of
	 * records (a tenth of the output's time in the kernel).
	 */
	struct tmx_buf spare[PQ_GROUPQ_SPARE];
	size_t n_spare;
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

static void job_free(struct job *j)
{
	tmx_buf_free(&j->recs);
	pq_group_free(&j->g);
	free(j);
}

static void encoder_free(struct encoder *e)
{
	ZSTD_freeCCtx(e->enc.zctx);
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
	while (q->n_spare)
		tmx_buf_free(&q->spare[--q->n_spare]);
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
	if (e && !(e->enc.zctx = ZSTD_createCCtx())) {
		free(e);
		return NULL;
	}
	if (e)
		e->enc.level = q->level;
	return e;
}

/* Under the lock: the next QUEUED job after `j`. */
static struct job *next_queued(struct job *j)
{
	for (j = j->next; j && j->state != QUEUED; j = j->next)
		;
	return j;
}

/* A group's record buffer, made into columns: kept for a table's next group, in place of the oldest. */
static void give_back(struct pq_groupq *q, struct tmx_buf *recs)
{
	struct tmx_buf old = { 0 };

	pthread_mutex_lock(&q->lock);
	if (!recs->oom && recs->cap) {
		if (q->n_spare == PQ_GROUPQ_SPARE) {
			old = q->spare[0];
			memmove(q->spare, q->spare + 1, (PQ_GROUPQ_SPARE - 1) * sizeof(*q->spare));
			q->n_spare--;
		}
		recs->len = 0;
		q->spare[q->n_spare++] = *recs;
		*recs = (struct tmx_buf){ 0 };
	}
	pthread_mutex_unlock(&q->lock);
	tmx_buf_free(&old);
	tmx_buf_free(recs);
}

/*
 * Under the lock: a kept record buffer for `want` bytes, the newest of at
 * most 4 times that (a larger one would keep memory that a small table
 * does not use, for as long as its group takes to fill), or an empty one.
 */
static struct tmx_buf take_spare(struct pq_groupq *q, size_t want)
{
	for (size_t k = q->n_spare; k-- > 0;) {
		struct tmx_buf b = q->spare[k];

		if (b.cap / 4 <= want) {
			memmove(q->spare + k, q->spare + k + 1, (q->n_spare - k - 1) * sizeof(*q->spare));
			q->n_spare--;
			return b;
		}
	}
	return (struct tmx_buf){ 0 };
}

/*
 * Encodes the first queued job (the lock held on entry and on return,
 * released meanwhile); false when none is queued.
 */
static bool run_one(struct pq_groupq *q)
{
	struct job *j = q->queued;
	struct encoder *e;
	struct pq_col *cols;

	if (!j)
		return false;
	e = take_encoder(q);
	j->state = RUNNING;
	q->queued = next_queued(j);
	pthread_mutex_unlock(&q->lock);
	/*
	 * The columns made from the rows (the table's schema is only read) in
	 * the encoder's reused columns, then encoded; the records go back
	 * before the encoding's buffers grow.
	 */
	cols = e ? pq_encoder_cols(&e->enc, j->n_cols) : NULL;
	if (cols && !j->recs.oom) {
		pq_table_reuse_cols(j->t, cols, &j->acct);
		for (size_t c = 0; c < j->n_cols; c++)
			pq_col_presize(&cols[c], (size_t)j->n_rows);
		pq_table_apply(cols, j->n_cols, j->n_rows, j->recs.p, j->recs.len);
		give_back(q, &j->recs);
		pq_group_encode(&j->g, cols, j->n_cols, j->n_rows, &e->enc);
	} else {   /* the group fails as an encoding without memory does */
		j->g = (struct pq_group){ .num_rows = j->n_rows, .failed = 0 };
	}
	tmx_buf_free(&j->recs);
	pthread_mutex_lock(&q->lock);
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
	*j = (struct job){ .t = t, .recs = t->recs, .n_cols = t->schema.n_cols, .bytes = t->bytes,
			   .n_rows = t->n_rows, .state = QUEUED };
	t->n_rows = 0;
	t->bytes = 0;
	/*
	 * The table starts again in the buffer of a group already made into
	 * columns when one fits (its pages are there), else in fresh
	 * memory with room for a little more than this group (its pages
	 * count only once filled).
	 */
	t->recs = (struct tmx_buf){ 0 };
	pthread_mutex_lock(&q->lock);
	t->recs = take_spare(q, j->recs.len + j->recs.len / 8);
	pthread_mutex_unlock(&q->lock);
	if (!t->recs.cap)
		tmx_buf_reserve(&t->recs, j->recs.len + j->recs.len / 8);
	t->recs.oom = false;
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
