/*
 * The main thread's part of the parallel runner: a binary heap over the
 * streams' current elements, ordered as the muxer orders messages
 * (src/mux/order.h, then the stream's input position), and the sink's
 * emit() for each piece in that order.
 *
 * What the sequential muxer meets when it reads a stream again (right
 * after handing out that stream's previous message) is met here at the
 * same point: when a stream's element has been handed out, the elements
 * that follow it are looked at at once, warnings replayed, an error
 * returned.
 */
#include <stdlib.h>

#include "common/grow.h"
#include "common/heap.h"
#include "par/par.h"

struct cursor {
	int64_t key;                /* the current element's, for the heap's common case */
	struct par_stream *s;
	size_t index;               /* input position: the last tie-break */
	struct par_batch *b;
	size_t i;                   /* current element of b */
};

struct merge {
	struct par_runner *r;
	struct cursor *heap;
	size_t n;
	/* tmx_warn_once keys warned about in this run. */
	const void **keys;
	size_t n_keys, keys_cap;
	/* tmx_warn_limit keys and how many times each was said. */
	struct limit_count {
		const void *key;
		unsigned n;
	} *counts;
	size_t n_counts, counts_cap;
	/* The message emit() hands out, made again for each element (par_elem_msg). */
	struct tmx_msg msg;
	bool msg_disc;
};

static const struct par_elem *head(const struct cursor *c)
{
	return &c->b->elems[c->i];
}

static bool before(const struct cursor *a, const struct cursor *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return tmx_mux_before(&head(a)->pos, a->index, &head(b)->pos, b->index);
}

TMX_HEAP_DEFINE(cursor, struct cursor, before)

/*
 * The stream's next batch; NULL when the stream got no memory for one.
 * The main thread does not wait idle (so that `jobs` threads in all do
 * the work): when no worker is reading the stream, it reads it itself;
 * while a worker is, it reads ahead another stream with room, as a worker
 * would.
 */
static struct par_batch *wait_batch(struct par_runner *r, struct par_stream *s)
{
	struct par_batch *b;

	pthread_mutex_lock(&r->lock);
	while (!s->q_head && !s->done) {
		struct par_stream *other;
		bool all_done;

		if (!s->busy)
			other = s;
		else
			other = par_pick(r, NULL, &all_done);
		if (other) {
			other->busy = true;
			par_read_batch(&r->workers[0], other);
			continue;
		}
		/*
		 * Side work, else wait; the lock was released meanwhile: a batch
		 * queued then was not waited for.
		 */
		if (par_side_work(r) || s->q_head || s->done)
			continue;
		pthread_cond_wait(&r->main_cv, &r->lock);
	}
	b = s->q_head;
	if (b) {
		s->q_head = b->next;
		if (!s->q_head)
			s->q_tail = NULL;
		par_queued(s, -1);
		/* Room in the queue: a waiting worker may read this stream again. */
		pthread_cond_broadcast(&r->work_cv);
	}
	pthread_mutex_unlock(&r->lock);
	return b;
}

static void release_batch(struct par_runner *r, struct par_stream *s, struct par_batch *b)
{
	pthread_mutex_lock(&r->lock);
	b->next = *par_spares(s);
	*par_spares(s) = b;
	pthread_mutex_unlock(&r->lock);
}

/*
 * Whether a tmx_warn_limit warning is said: fewer than its limit said
 * before for its key, in merged order (a stream's segments each count
 * their own).
 */
static bool within_limit(struct merge *m, const struct par_elem *e)
{
	for (size_t k = 0; k < m->n_counts; k++) {
		if (m->counts[k].key != e->u.warn.key)
			continue;
		if (m->counts[k].n >= e->u.warn.limit)
			return false;
		m->counts[k].n++;
		return true;
	}
	/* Without memory to count, the warning is said: harmless. */
	if (tmx_grow_array((void **)&m->counts, &m->counts_cap, m->n_counts + 1,
			   sizeof(*m->counts), 8))
		m->counts[m->n_counts++] = (struct limit_count){ e->u.warn.key, 1 };
	return true;
}

/* A warning at its place in merged order; a keyed one once per run. */
static void replay(struct merge *m, const struct par_elem *e)
{
	if (!e->u.warn.warning)
		return;
	if (e->u.warn.key && e->u.warn.limit) {
		if (!within_limit(m, e))
			return;
	} else if (e->u.warn.key) {
		for (size_t k = 0; k < m->n_keys; k++)
			if (m->keys[k] == e->u.warn.key)
				return;
		/* Without memory to remember the key, the warning may come again: harmless. */
		if (tmx_grow_array((void **)&m->keys, &m->keys_cap, m->n_keys + 1, sizeof(*m->keys), 8))
			m->keys[m->n_keys++] = e->u.warn.key;
	}
	e->u.warn.diag->warn(e->u.warn.diag->user, e->u.warn.warning);
}

enum settle { SETTLED, ENDED, FAILED };

/*
 * Moves `c` to its stream's next message-like element (MSG, SKIP, STOP),
 * replaying warnings and returning the stream's error on the way.
 */
static enum settle settle(struct merge *m, struct cursor *c, struct tmx_error *err)
{
	for (;;) {
		const struct par_elem *e;

		if (!c->b || c->i == c->b->n) {
			bool last = c->b && c->b->last;

			if (c->b) {
				/* Nothing to emit (dummy): the batch's events count as it is passed. */
				par_progress_events(m->r->progress, c->b->sparse_events);
				release_batch(m->r, c->s, c->b);
			}
			c->b = NULL;
			/*
			 * A segment's end: the stream goes on with its next
			 * one, and the workers may read one more ahead.
			 */
			if (last && c->s->seg_next) {
				c->s = c->s->seg_next;
				pthread_mutex_lock(&m->r->lock);
				c->s->group->merging = c->s->seg_index;
				pthread_cond_broadcast(&m->r->work_cv);
				pthread_mutex_unlock(&m->r->lock);
			} else if (last) {
				return ENDED;
			}
			c->i = 0;
			if (!(c->b = wait_batch(m->r, c->s))) {
				tmx_error_set(err, TMX_ERR_NOMEM, NULL,
					      "out of memory for the parallel runner");
				return FAILED;
			}
			continue;
		}
		e = head(c);
		if (e->kind == PE_WARN) {
			replay(m, e);
			c->i++;
			continue;
		}
		if (e->kind == PE_ERROR) {
			*err = c->b->err;
			return FAILED;
		}
		c->key = e->pos.key;
		return SETTLED;
	}
}

static int emit(struct merge *m, const struct par_batch *b, const struct par_elem *e, void *out,
		struct tmx_error *err)
{
	struct sink_piece pc;

	par_elem_msg(e, &m->msg, &m->msg_disc);
	pc.msg = &m->msg;
	pc.text = b->text + e->text_off;
	pc.len = e->len;
	for (int h = 0; h < SINK_HOLES; h++)
		pc.hole[h] = e->hole[h];
	return m->r->split->emit(out, &pc, err);
}

/*
 * The smallest key of the other streams' current elements (the top's
 * children), and whether there are any: while the top's next elements
 * have smaller keys, the top stays the first without a comparison of
 * their tie-breaks nor a sift (a run of one stream, most often a whole
 * batch when streams interleave by batches of time).
 */
static bool bound_of(const struct merge *m, int64_t *bound)
{
	if (m->n < 2)
		return false;
	*bound = m->heap[1].key;
	if (m->n > 2 && m->heap[2].key < *bound)
		*bound = m->heap[2].key;
	return true;
}

static int run(struct merge *m, struct tmx_error *err)
{
	struct par_runner *r = m->r;
	bool emits = r->split->emit != NULL;

	for (size_t i = 0; i < r->n_streams; i++) {
		struct cursor c = { 0, &r->streams[i], r->streams[i].index, NULL, 0 };
		enum settle st;

		/* One cursor per stream: a stream's later segments follow its first. */
		if (c.s->group && c.s != c.s->group->first)
			continue;
		st = settle(m, &c, err);

		if (st == FAILED) {
			if (c.b)
				release_batch(r, c.s, c.b);
			return err->code;
		}
		if (st == SETTLED) {
			m->heap[m->n++] = c;
			cursor_sift_up(m->heap, m->n - 1);
		}
	}
	while (m->n) {
		struct cursor *top = &m->heap[0];
		const struct par_batch *b = top->b;
		size_t i = top->i;
		int64_t bound = INT64_MAX;
		bool others = bound_of(m, &bound);
		enum settle st;

		/* The top's run: its elements up to one that may not come first. */
		for (;;) {
			const struct par_elem *e = &b->elems[i];

			if (e->kind == PE_STOP)
				return TMX_OK;
			if (e->kind == PE_MSG) {
				if (emits && emit(m, b, e, r->sink_out, err))
					return err->code;
				par_progress_note(r->progress, e->pos.kind == TMX_MSG_EVENT);
			}
			/*
			 * The next element of the same batch is most often a
			 * message: settled here as settle() would, without the
			 * call.
			 */
			if (++i == b->n || b->elems[i].kind > PE_STOP)
				break;
			if (others && b->elems[i].pos.key >= bound)
				break;
		}
		top->i = i;
		if (i < b->n && b->elems[i].kind <= PE_STOP) {
			top->key = b->elems[i].pos.key;
			st = SETTLED;
		} else {
			st = settle(m, top, err);
		}
		if (st == FAILED)
			return err->code;
		if (st == ENDED)
			m->heap[0] = m->heap[--m->n];
		if (m->n > 1)
			cursor_sift_down(m->heap, m->n, 0);
	}
	return TMX_OK;
}

int par_merge(struct par_runner *r, struct tmx_error *err)
{
	struct merge m = { .r = r };
	int ret;

	m.heap = malloc((r->n_streams ? r->n_streams : 1) * sizeof(*m.heap));
	if (!m.heap)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	ret = run(&m, err);
	/* Batches still held by cursors go back to their streams, freed with them. */
	for (size_t i = 0; i < m.n; i++)
		if (m.heap[i].b)
			release_batch(r, m.heap[i].s, m.heap[i].b);
	free(m.heap);
	free(m.keys);
	free(m.counts);
	return ret;
}
