/*
 * Time-ordered merge of message iterators.
 *
 * Order: by time in ns from origin.  A message without a time (stream
 * beginning/end, events of a clock-less stream) takes the time of the last
 * message the muxer returned, as babeltrace2's muxer does; since that time
 * never decreases, it can be fixed when the message enters the heap.
 * Equal times are ordered as babeltrace2's common_muxing_compare_messages()
 * orders them (src/mux/order.c), then by the iterator's position.
 */
#include <stdlib.h>
#include <string.h>

#include "common/heap.h"
#include "mux/muxer.h"
#include "mux/order.h"
#include "common/errors.h"

struct mux_entry {
	struct tmx_msg_iter *it;
	const struct tmx_msg *msg;   /* pending message (valid while pending) */
	size_t index;                /* input order, the last tie-break */
	bool unchecked;              /* pending from before the filter was set */
};

/*
 * What the heap moves: the entry's key, which decides nearly every
 * comparison without a look at the entry, and the entry, which stays put.
 */
struct mux_slot {
	int64_t key;
	struct mux_entry *e;
};

struct tmx_muxer {
	struct mux_slot *heap;       /* binary min-heap of iterators with a pending message */
	size_t n;
	struct mux_entry *entries;   /* one per input */
	struct tmx_msg_iter **iters;
	size_t n_iters;
	int64_t last_ts;
	bool has_returned;
	size_t n_unchecked;          /* entries whose `unchecked` is set */
	/*
	 * Every entry but the root has a key of at least this (the smaller
	 * of the root's children's; INT64_MIN: not known): a new root key
	 * below it leaves the root where it is, without a comparison of
	 * the children (most messages come from the same stream as the last).
	 */
	int64_t bound;
	bool (*keep)(const void *ctx, const struct tmx_msg *msg);   /* NULL: all */
	const void *keep_ctx;
};

/* Equal keys: the pending messages' tie-breaks. */
static __attribute__((noinline)) bool tie_before(const struct mux_slot *a, const struct mux_slot *b)
{
	struct tmx_mux_pos pa, pb;

	tmx_mux_pos_set(&pa, a->e->msg, a->key);
	tmx_mux_pos_set(&pb, b->e->msg, b->key);
	return tmx_mux_before(&pa, a->e->index, &pb, b->e->index);
}

static inline bool slot_before(const struct mux_slot *a, const struct mux_slot *b)
{
	return a->key != b->key ? a->key < b->key : tie_before(a, b);
}

TMX_HEAP_DEFINE(mux, struct mux_slot, slot_before)

/*
 * The next message of `it` that the filter keeps (NULL at the end).  This
 * and advance_root are inlined: they run once per message.
 */
static inline __attribute__((always_inline)) int
next_kept(const struct tmx_muxer *m, struct tmx_msg_iter *it, const struct tmx_msg **msg,
	  struct tmx_error *err)
{
	int ret;

	while (!(ret = it->next(it, msg, err)) && *msg && m->keep && !m->keep(m->keep_ctx, *msg))
		;
	return ret;
}

/* Fetches the next message of `e->it` and pushes it into the heap. */
static int refill(struct tmx_muxer *m, struct mux_entry *e, struct tmx_error *err)
{
	int ret = next_kept(m, e->it, &e->msg, err);

	if (ret)
		return ret;
	if (!e->msg)
		return TMX_OK;
	m->heap[m->n++] = (struct mux_slot){ tmx_mux_key(e->msg, m->last_ts), e };
	mux_sift_up(m->heap, m->n - 1);
	m->bound = INT64_MIN;
	return TMX_OK;
}

int tmx_muxer_new(struct tmx_msg_iter **iters, size_t n, struct tmx_muxer **out,
		  struct tmx_error *err)
{
	struct tmx_muxer *m = calloc(1, sizeof(*m));

	if (!m || !(m->heap = calloc(n ? n : 1, sizeof(*m->heap))) ||
	    !(m->entries = calloc(n ? n : 1, sizeof(*m->entries))) ||
	    !(m->iters = calloc(n ? n : 1, sizeof(*m->iters)))) {
		if (m) {
			free(m->heap);
			free(m->entries);
		}
		free(m);
		for (size_t i = 0; i < n; i++)
			iters[i]->destroy(iters[i]);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory for the muxer");
	}
	memcpy(m->iters, iters, n * sizeof(*iters));
	m->n_iters = n;
	m->last_ts = INT64_MIN;
	m->bound = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		int ret;
		m->entries[i] = (struct mux_entry){ .it = iters[i], .index = i };
		ret = refill(m, &m->entries[i], err);
		if (ret) {
			tmx_muxer_free(m);
			return ret;
		}
	}
	*out = m;
	return TMX_OK;
}

/*
 * The root, whose key changed (or which was replaced), sifted down, and
 * the bound worked out again.  Out of line: the hot path, where the root
 * stays, then needs fewer registers.
 */
static __attribute__((noinline)) void resift(struct tmx_muxer *m)
{
	if (m->n)
		mux_sift_down(m->heap, m->n, 0);
	m->bound = m->n < 2 ? INT64_MAX :
		   m->n == 2 || m->heap[1].key < m->heap[2].key ? m->heap[1].key : m->heap[2].key;
}

/* The root's iterator gives its next (kept) message, which goes where its time says. */
static inline __attribute__((always_inline)) int
advance_root(struct tmx_muxer *m, struct tmx_error *err)
{
	struct mux_entry *root = m->heap[0].e;
	int ret = next_kept(m, root->it, &root->msg, err);

	if (ret)
		return ret;
	if (__builtin_expect(m->n_unchecked != 0, 0) && root->unchecked) {
		root->unchecked = false;
		m->n_unchecked--;
	}
	if (root->msg) {
		m->heap[0].key = tmx_mux_key(root->msg, m->last_ts);
		if (m->heap[0].key < m->bound)
			return TMX_OK;
	} else {
		m->heap[0] = m->heap[--m->n];
	}
	resift(m);
	return TMX_OK;
}

void tmx_muxer_set_filter(struct tmx_muxer *m,
			  bool (*keep)(const void *ctx, const struct tmx_msg *msg), const void *ctx)
{
	m->keep = keep;
	m->keep_ctx = ctx;
	for (size_t i = 0; i < m->n; i++)
		m->heap[i].e->unchecked = true;
	m->n_unchecked = m->n;
}

int tmx_muxer_next(struct tmx_muxer *m, const struct tmx_msg **msg, struct tmx_error *err)
{
	/*
	 * The entry returned last stayed at the root: its iterator is advanced
	 * only now (its message had to stay valid until the caller was done)
	 * and sifted down in place, which costs one comparison when the same
	 * stream is still the earliest.
	 */
	if (m->has_returned) {
		int ret = advance_root(m, err);

		m->has_returned = false;
		if (ret)
			return ret;
	}
	/* Messages that were pending when the filter was set are checked as they come up. */
	while (__builtin_expect(m->n_unchecked != 0, 0) && m->n && m->heap[0].e->unchecked) {
		int ret;

		m->heap[0].e->unchecked = false;
		m->n_unchecked--;
		if (!m->keep || m->keep(m->keep_ctx, m->heap[0].e->msg))
			break;
		if ((ret = advance_root(m, err)))
			return ret;
	}
	if (m->n == 0) {
		*msg = NULL;
		return TMX_OK;
	}
	m->has_returned = true;
	m->last_ts = m->heap[0].key;
	*msg = m->heap[0].e->msg;
	return TMX_OK;
}

void tmx_muxer_free(struct tmx_muxer *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_iters; i++)
		m->iters[i]->destroy(m->iters[i]);
	free(m->iters);
	free(m->heap);
	free(m->entries);
	free(m);
}

bool tmx_muxer_returned(const struct tmx_muxer *m)
{
	return m->has_returned;
}

static int by_index(const void *a, const void *b)
{
	const struct mux_slot *x = a, *y = b;

	return x->e->index < y->e->index ? -1 : x->e->index > y->e->index;
}

size_t tmx_muxer_take(struct tmx_muxer *m, struct tmx_mux_head *out)
{
	size_t n = m->n;

	qsort(m->heap, n, sizeof(*m->heap), by_index);
	for (size_t i = 0; i < n; i++) {
		const struct mux_entry *e = m->heap[i].e;
		out[i] = (struct tmx_mux_head){ e->it, e->msg, m->heap[i].key, e->index };
	}
	m->n = 0;
	m->bound = INT64_MIN;
	m->has_returned = false;
	return n;
}

size_t tmx_muxer_input_count(const struct tmx_muxer *m)
{
	return m->n_iters;
}
