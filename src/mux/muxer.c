/*
 * Time-ordered merge of message iterators.
 *
 * Order: by time in ns from origin.  A message without a time (stream
 * beginning/end, events of a clock-less stream) takes the time of the last
 * message the muxer returned, as babeltrace2's muxer does; since that time
 * never decreases, it can be fixed when the message enters the heap.
 * Equal times are ordered as babeltrace2's common_muxing_compare_messages()
 * orders them: trace UUID, trace name, stream class ID, stream ID, message
 * type, then event class properties, then the iterator's position.
 */
#include <stdlib.h>
#include <string.h>

#include "mux/muxer.h"
#include "model/errors.h"

struct mux_entry {
	struct tmx_msg_iter *it;
	const struct tmx_msg *msg;   /* pending message */
	int64_t key;                 /* its time */
	size_t index;                /* input order, the last tie-break */
	bool unchecked;              /* pending from before the filter was set */
};

struct tmx_muxer {
	struct mux_entry *heap;      /* binary min-heap of iterators with a pending message */
	size_t n;
	struct tmx_msg_iter **iters;
	size_t n_iters;
	int64_t last_ts;
	bool has_returned;
	bool (*keep)(const void *ctx, const struct tmx_msg *msg);   /* NULL: all */
	const void *keep_ctx;
};

/* babeltrace2: SB < PB < EV < DE < PE < DP < SE */
static int type_rank(enum tmx_msg_kind k)
{
	switch (k) {
	case TMX_MSG_STREAM_BEGIN: return 0;
	case TMX_MSG_PACKET_BEGIN: return 1;
	case TMX_MSG_EVENT: return 2;
	case TMX_MSG_DISCARDED_EVENTS: return 3;
	case TMX_MSG_PACKET_END: return 4;
	case TMX_MSG_DISCARDED_PACKETS: return 5;
	case TMX_MSG_STREAM_END: return 6;
	}
	return 7;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_str(const char *a, const char *b)
{
	if (a && b)
		return strcmp(a, b);
	return a ? 1 : b ? -1 : 0;
}

static int compare_events(const struct tmx_event_class *a, const struct tmx_event_class *b)
{
	int r = cmp_u64(a->id, b->id);

	if (r)
		return r;
	r = cmp_str(a->name, b->name);
	if (r)
		return r;
	if (a->log_level != b->log_level) {
		if (a->log_level == TMX_LOG_LEVEL_NONE)
			return 1;
		if (b->log_level == TMX_LOG_LEVEL_NONE)
			return -1;
		return a->log_level < b->log_level ? -1 : 1;
	}
	return cmp_str(a->emf_uri, b->emf_uri);
}

static int compare_msgs(const struct tmx_msg *a, const struct tmx_msg *b)
{
	const struct tmx_trace_class *ta = a->stream->trace->cls, *tb = b->stream->trace->cls;
	int r;

	if (ta->has_uuid != tb->has_uuid)
		return ta->has_uuid ? -1 : 1;
	if (ta->has_uuid) {
		r = memcmp(ta->uuid, tb->uuid, 16);
		if (r)
			return r;
	}
	r = cmp_str(a->stream->trace->name, b->stream->trace->name);
	if (r)
		return r;
	r = cmp_u64(a->stream->cls->id, b->stream->cls->id);
	if (r)
		return r;
	r = cmp_u64(a->stream->id, b->stream->id);
	if (r)
		return r;
	if (a->kind != b->kind)
		return type_rank(a->kind) - type_rank(b->kind);
	if (a->kind == TMX_MSG_EVENT)
		return compare_events(a->event->cls, b->event->cls);
	return 0;
}

static bool entry_before(const struct mux_entry *a, const struct mux_entry *b)
{
	int r;

	if (a->key != b->key)
		return a->key < b->key;
	r = compare_msgs(a->msg, b->msg);
	if (r)
		return r < 0;
	return a->index < b->index;
}

static void sift_up(struct tmx_muxer *m, size_t i)
{
	struct mux_entry e = m->heap[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!entry_before(&e, &m->heap[parent]))
			break;
		m->heap[i] = m->heap[parent];
		i = parent;
	}
	m->heap[i] = e;
}

static void sift_down(struct tmx_muxer *m, size_t i)
{
	struct mux_entry e = m->heap[i];

	for (;;) {
		size_t child = 2 * i + 1;
		if (child >= m->n)
			break;
		if (child + 1 < m->n && entry_before(&m->heap[child + 1], &m->heap[child]))
			child++;
		if (!entry_before(&m->heap[child], &e))
			break;
		m->heap[i] = m->heap[child];
		i = child;
	}
	m->heap[i] = e;
}

/* The next message of `it` that the filter keeps (NULL at the end). */
static int next_kept(const struct tmx_muxer *m, struct tmx_msg_iter *it, const struct tmx_msg **msg,
		     struct tmx_error *err)
{
	int ret;

	while (!(ret = it->next(it, msg, err)) && *msg && m->keep && !m->keep(m->keep_ctx, *msg))
		;
	return ret;
}

/* Fetches the next message of `e->it` and pushes it into the heap. */
static int refill(struct tmx_muxer *m, struct mux_entry e, struct tmx_error *err)
{
	int ret = next_kept(m, e.it, &e.msg, err);

	if (ret)
		return ret;
	if (!e.msg)
		return TMX_OK;
	e.key = e.msg->has_ts ? e.msg->ns : m->last_ts;
	m->heap[m->n++] = e;
	sift_up(m, m->n - 1);
	return TMX_OK;
}

int tmx_muxer_new(struct tmx_msg_iter **iters, size_t n, struct tmx_muxer **out,
		  struct tmx_error *err)
{
	struct tmx_muxer *m = calloc(1, sizeof(*m));

	if (!m || !(m->heap = calloc(n ? n : 1, sizeof(*m->heap))) ||
	    !(m->iters = calloc(n ? n : 1, sizeof(*m->iters)))) {
		if (m)
			free(m->heap);
		free(m);
		for (size_t i = 0; i < n; i++)
			iters[i]->destroy(iters[i]);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory for the muxer");
	}
	memcpy(m->iters, iters, n * sizeof(*iters));
	m->n_iters = n;
	m->last_ts = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		struct mux_entry e = { .it = iters[i], .index = i };
		int ret = refill(m, e, err);
		if (ret) {
			tmx_muxer_free(m);
			return ret;
		}
	}
	*out = m;
	return TMX_OK;
}

/* The root's iterator gives its next (kept) message, which goes where its time says. */
static int advance_root(struct tmx_muxer *m, struct tmx_error *err)
{
	struct mux_entry *root = &m->heap[0];
	int ret = next_kept(m, root->it, &root->msg, err);

	if (ret)
		return ret;
	root->unchecked = false;
	if (root->msg)
		root->key = root->msg->has_ts ? root->msg->ns : m->last_ts;
	else
		*root = m->heap[--m->n];
	if (m->n)
		sift_down(m, 0);
	return TMX_OK;
}

void tmx_muxer_set_filter(struct tmx_muxer *m,
			  bool (*keep)(const void *ctx, const struct tmx_msg *msg), const void *ctx)
{
	m->keep = keep;
	m->keep_ctx = ctx;
	for (size_t i = 0; i < m->n; i++)
		m->heap[i].unchecked = true;
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
	while (m->n && m->heap[0].unchecked) {
		int ret;

		m->heap[0].unchecked = false;
		if (!m->keep || m->keep(m->keep_ctx, m->heap[0].msg))
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
	*msg = m->heap[0].msg;
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
	free(m);
}
