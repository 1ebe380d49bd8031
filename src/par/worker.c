/*
 * Worker threads: each takes a stream whose queue has room (the one with
 * the fewest batches queued, so the stream the merge waits for comes
 * first), reads up to one batch of its messages, formats them and queues
 * the batch.  A stream is read by one worker at a time, any worker.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "mux/filter.h"
#include "par/par.h"

static void batch_reset(struct par_batch *b)
{
	/* (not walked without warnings: the merge's core has the elements in its caches) */
	for (size_t i = 0; b->warnings && i < b->n; i++)
		if (b->elems[i].kind == PE_WARN)
			free(b->elems[i].u.warn.warning);
	b->warnings = false;
	b->next = NULL;
	b->n = 0;
	b->len = 0;
	b->last = false;
	b->oom = false;
	b->sparse_events = 0;
}

void par_batch_free(struct par_batch *b)
{
	if (!b)
		return;
	batch_reset(b);
	free(b->elems);
	free(b->text);
	free(b);
}

/*
 * Points the formatter's outbuf at the end of the batch's text, with
 * OUTBUF_SIZE bytes of room: the formatter writes each piece where it
 * stays, and a flush only counts the bytes (no copy).  Without memory,
 * the outbuf writes to its own buffer and drain() copies (or fails).
 */
static void aim(struct par_worker *w, struct par_batch *b)
{
	if (b->len > SIZE_MAX - OUTBUF_SIZE ||
	    !tmx_grow_array((void **)&b->text, &b->text_cap, b->len + OUTBUF_SIZE, 1, 64 * 1024)) {
		outbuf_set_data(w->out, w->out->store);
		return;
	}
	outbuf_set_data(w->out, b->text + b->len);
}

/* The formatter's outbuf flushes here: the bytes join the batch's text. */
static void drain(void *ctx, const char *data, size_t len)
{
	struct par_worker *w = ctx;
	struct par_batch *b = w->batch;

	if (!b || b->oom)
		return;
	if (data == b->text + b->len)   /* written in place (aim) */
		b->len += len;
	else if (len && !tmx_grow_append(&b->text, &b->text_cap, &b->len, data, len, 64 * 1024))
		b->oom = true;
	/* A piece longer than the room left: room for its next bytes. */
	if (!w->sealing && !b->oom)
		aim(w, b);
}

/*
 * A new element of the batch being filled, or NULL without memory (b->oom
 * set).  One more slot is always allocated: room for the error that ends
 * a batch.
 */
static struct par_elem *add_elem(struct par_batch *b, enum par_kind kind)
{
	struct par_elem *e;

	if (!tmx_grow_array((void **)&b->elems, &b->cap, b->n + 2, sizeof(*b->elems), 64)) {
		b->oom = true;
		return NULL;
	}
	e = &b->elems[b->n++];
	e->kind = kind;
	return e;
}

/*
 * Before a warning or an error: the sequential muxer meets them when it
 * reads the stream again after handing out its previous message, which
 * may be one the keep predicate dropped.  That one takes its place in the
 * merge (and writes nothing).
 */
static void flush_skip(struct par_stream *s, struct par_batch *b)
{
	struct par_elem *e;

	if (!s->has_skip)
		return;
	s->has_skip = false;
	if ((e = add_elem(b, PE_SKIP)))
		e->pos = s->skip;
}

/* Warnings of the stream being read (tmx_warn on this thread). */
static void capture_warning(void *ctx, const struct tmx_diag *diag, const void *key,
			    const char *msg)
{
	struct par_worker *w = ctx;
	struct par_stream *s = w->stream;
	struct par_elem *e;

	if (key) {   /* once per stream here; once per run at the merge */
		for (size_t i = 0; i < s->n_warned; i++)
			if (s->warned[i] == key)
				return;
		if (s->n_warned < sizeof(s->warned) / sizeof(s->warned[0]))
			s->warned[s->n_warned++] = key;
	}
	flush_skip(s, w->batch);
	if (!(e = add_elem(w->batch, PE_WARN)))
		return;
	w->batch->warnings = true;
	e->u.warn.diag = diag;
	e->u.warn.key = key;
	e->u.warn.limit = 0;
	e->u.warn.warning = strdup(msg);
	if (!e->u.warn.warning)
		w->batch->oom = true;
}

/*
 * tmx_warn_limit's warnings: each unit has its own count (a stream's
 * segments count theirs), the merge counts them again in merged order.
 */
static void capture_warning_limit(void *ctx, const struct tmx_diag *diag, const void *key,
				  unsigned limit, const char *msg)
{
	struct par_worker *w = ctx;
	struct par_elem *e;

	flush_skip(w->stream, w->batch);
	if (!(e = add_elem(w->batch, PE_WARN)))
		return;
	w->batch->warnings = true;
	e->u.warn.diag = diag;
	e->u.warn.key = key;
	e->u.warn.limit = limit;
	e->u.warn.warning = strdup(msg);
	if (!e->u.warn.warning)
		w->batch->oom = true;
}

/* The stream's error ends the batch (in the slot add_elem keeps free). */
static void add_error(struct par_stream *s, struct par_batch *b, const struct tmx_error *err)
{
	struct par_elem *e;

	flush_skip(s, b);
	e = &b->elems[b->n++];
	e->kind = PE_ERROR;
	b->err = *err;
	b->last = true;
}

/* Out of memory: the pieces whose text was lost are dropped, the error ends the batch. */
static void add_oom_error(struct par_stream *s, struct par_batch *b)
{
	struct tmx_error err = { 0 };

	while (b->n && b->elems[b->n - 1].kind == PE_MSG &&
	       b->elems[b->n - 1].text_off + (size_t)b->elems[b->n - 1].len > b->len)
		b->n--;
	tmx_error_set(&err, TMX_ERR_NOMEM, NULL, "out of memory for the parallel runner");
	add_error(s, b, &err);
}

/* Formats `msg` into the batch as a piece. */
static void add_piece(struct par_worker *w, const struct tmx_msg *msg, int64_t key)
{
	struct par_runner *r = w->r;
	struct par_batch *b = w->batch;
	struct par_elem *e;
	uint64_t hole[SINK_HOLES], start;

	/* add_elem()'s common case without the call: room for it and the error slot */
	if (__builtin_expect(b->n + 2 <= b->cap, 1)) {
		e = &b->elems[b->n++];
		e->kind = PE_MSG;
	} else if (!(e = add_elem(b, PE_MSG))) {
		return;
	}
	tmx_mux_pos_set(&e->pos, msg, key);
	if (!w->fmt) {
		e->len = 0;
		for (int h = 0; h < SINK_HOLES; h++)
			e->hole[h] = SINK_NO_HOLE;
		return;
	}
	e->has_ts = msg->has_ts;
	e->cycles = msg->cycles;
	e->ns = msg->ns;
	if (msg->kind == TMX_MSG_DISCARDED_EVENTS || msg->kind == TMX_MSG_DISCARDED_PACKETS) {
		e->has_range = msg->has_range;
		e->u.disc.count = msg->count;
		e->u.disc.begin_cycles = msg->begin_cycles;
		e->u.disc.end_cycles = msg->end_cycles;
		e->u.disc.begin_ns = msg->begin_ns;
		e->u.disc.end_ns = msg->end_ns;
	}
	start = outbuf_pos(w->out);
	r->split->format(w->fmt, msg, hole);
	e->text_off = (uint32_t)(start - w->base);
	e->len = (uint32_t)(outbuf_pos(w->out) - start);
	/* No hole (SINK_NO_POS has every bit set): most pieces, every record's. */
	_Static_assert(SINK_HOLES == 2, "one test for both holes");
	if (__builtin_expect((hole[0] & hole[1]) == SINK_NO_POS, 1)) {
		e->hole[0] = e->hole[1] = SINK_NO_HOLE;
		return;
	}
	for (int h = 0; h < SINK_HOLES; h++)
		e->hole[h] = hole[h] != SINK_NO_POS ? (uint32_t)(hole[h] - start) : SINK_NO_HOLE;
}

/*
 * Reads messages of `s` into `b` until the batch is full, the stream ends,
 * fails or keep() says stop.
 */
static void fill(struct par_worker *w, struct par_stream *s, struct par_batch *b)
{
	const struct tmx_run_opts *opts = w->r->opts;
	/*
	 * A sink with nothing to emit (dummy) needs no element per message:
	 * each one is left as the stream's pending SKIP, so that the batch
	 * holds only what the merge replays (warnings, the error, the stop),
	 * each after the position of the message before it.  The merge of
	 * these few elements meets them in the same order as the merge of
	 * every message would.
	 */
	bool sparse = !w->r->split->emit;
	/* (loaded once: the calls below could change them, for all the compiler knows) */
	const struct tmx_filter_bound *filter = w->r->filter;
	size_t max_elems = s->group ? s->group->batch_elems : w->r->batch_elems;
	size_t max_bytes = s->group ? s->group->batch_bytes : w->r->batch_bytes;
	size_t read = 0;
	struct tmx_error err = { 0 };

	w->stream = s;
	w->batch = b;
	if (w->out) {
		w->base = outbuf_pos(w->out);
		aim(w, b);
	}
	if (w->fmt && w->r->split->batch)
		w->r->split->batch(w->fmt);
	tmx_warn_capture_set(&w->capture);
	while (read < max_elems && b->len < max_bytes && !b->oom) {
		const struct tmx_msg *msg = s->first;
		bool stop = false, kept;
		int64_t key = s->last_key;   /* the first message's: the muxer's */

		s->first = NULL;
		read++;
		if (!msg) {
			if (s->it->next(s->it, &msg, &err)) {
				add_error(s, b, &err);
				break;
			}
			if (!msg) {
				/*
				 * A segment's last message dropped: its place
				 * in the merge, before the next segment's
				 * first warning (split.c).
				 */
				if (s->seg_next)
					flush_skip(s, b);
				b->last = true;
				break;
			}
			key = tmx_mux_key(msg, s->last_key);
		}
		/*
		 * The source's event filter drops events within their stream,
		 * before any ordering, as the readers' muxers do when read in
		 * sequence (tmx_muxer_set_filter): a dropped event leaves no
		 * trace, not even its key, and an error after it comes where
		 * the stream's previous kept message leaves it.
		 */
		if (filter && !tmx_filter_match(filter, msg))
			continue;
		s->last_key = key;
		/*
		 * The one place where a per-stream predicate on merged order
		 * applies (trimming, through keep()).
		 */
		kept = !opts->keep || opts->keep(opts->keep_user, msg, &stop);
		if (stop) {
			struct par_elem *e = add_elem(b, PE_STOP);
			if (e)
				tmx_mux_pos_set(&e->pos, msg, key);
			b->last = true;
			break;
		}
		if (!kept || sparse) {
			b->sparse_events += kept && msg->kind == TMX_MSG_EVENT;
			s->has_skip = true;
			tmx_mux_pos_set(&s->skip, msg, key);
			continue;
		}
		s->has_skip = false;
		add_piece(w, msg, key);
	}
	if (w->out) {   /* what the formatter still holds is this batch's */
		w->sealing = true;
		outbuf_flush(w->out);
		w->sealing = false;
		/* Nothing written between batches reaches one. */
		outbuf_set_data(w->out, w->out->store);
	}
	tmx_warn_capture_set(NULL);
	if (b->oom)
		add_oom_error(s, b);
	w->batch = NULL;
}

struct par_stream *par_pick(struct par_runner *r, struct par_stream *prev, bool *all_done)
{
	struct par_stream *best = NULL;
	const struct par_group *seen = NULL;

	*all_done = true;
	for (size_t i = 0; i < r->n_streams; i++) {
		struct par_stream *s = &r->streams[i];

		if (s->done)
			continue;
		*all_done = false;
		if (s->busy)
			continue;
		if (s->group) {
			/*
			 * A stream's segments: its earliest one not being
			 * read, near the merge, within the group's share.
			 */
			if (s->group == seen)
				continue;
			seen = s->group;
			if (s->group->queued >= s->group->cap ||
			    s->seg_index >= s->group->merging + s->group->window)
				continue;
		} else if (s->queued >= r->depth) {
			continue;
		}
		if (!best || s->queued < best->queued || (s->queued == best->queued && s == prev))
			best = s;
	}
	return best;
}

void par_read_batch(struct par_worker *w, struct par_stream *s)
{
	struct par_runner *r = w->r;
	size_t full = s->group ? s->group->batch_elems : r->batch_elems;
	size_t first_elems = r->split->emit ? full + 2 : 64;
	struct par_batch *b;

	if ((b = *par_spares(s)))
		*par_spares(s) = b->next;
	pthread_mutex_unlock(&r->lock);
	/*
	 * A new batch gets room for the elements of a full one (and the
	 * error's slot) at once: grown by doubling from 64, its elements were
	 * copied four times and it ended with twice the room it uses.  With
	 * nothing to emit, a batch holds few elements (fill()).
	 */
	if (b)
		batch_reset(b);
	else if ((b = calloc(1, sizeof(*b))) &&
		 !tmx_grow_array((void **)&b->elems, &b->cap, first_elems, sizeof(*b->elems),
				 first_elems)) {
		free(b);
		b = NULL;
	}
	if (b)
		fill(w, s, b);
	pthread_mutex_lock(&r->lock);
	s->busy = false;
	if (!b) {
		/* Without a batch the stream ends here: the merge says so. */
		s->done = true;
		pthread_cond_signal(&r->main_cv);
		return;
	}
	if (s->q_tail)
		s->q_tail->next = b;
	else
		s->q_head = b;
	s->q_tail = b;
	par_queued(s, 1);
	s->done = b->last;
	pthread_cond_signal(&r->main_cv);
}

bool par_side_work(struct par_runner *r)
{
	unsigned gen = r->side_gen;
	bool ran = false;

	if (!r->split->side)
		return false;
	pthread_mutex_unlock(&r->lock);
	while (r->split->side->run(r->sink_out))
		ran = true;
	pthread_mutex_lock(&r->lock);
	return ran || gen != r->side_gen;
}

static void *worker_main(void *arg)
{
	struct par_worker *w = arg;
	struct par_runner *r = w->r;
	struct par_stream *s = NULL;
	bool all_done;

	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		/* The sink's side work first: emit() may be waiting for it. */
		if (par_side_work(r))
			continue;
		/* The lock was released: a stop said meanwhile was not waited for. */
		if (r->stop)
			break;
		if (!(s = par_pick(r, s, &all_done))) {
			/* With side work, more may come until the runner stops. */
			if (all_done && !r->split->side)
				break;
			pthread_cond_wait(&r->work_cv, &r->lock);
			continue;
		}
		s->busy = true;
		par_read_batch(w, s);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static int start_one(struct par_runner *r, struct par_worker *w, struct tmx_error *err)
{
	w->r = r;
	w->capture = (struct tmx_warn_capture){ capture_warning, w, capture_warning_limit };
	if (r->split->worker_new) {
		w->fmt = r->split->worker_new(r->sink_out);
		if (!w->fmt)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		w->out = r->split->worker_outbuf(w->fmt);
		outbuf_set_drain(w->out, drain, w);
	}
	if (w == &r->workers[0])   /* the main thread's: no thread of its own */
		return TMX_OK;
	if (pthread_create(&w->thread, NULL, worker_main, w))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "cannot start a worker thread");
	w->started = true;
	return TMX_OK;
}

int par_workers_start(struct par_runner *r, struct tmx_error *err)
{
	for (size_t i = 0; i < r->n_workers; i++) {
		int ret = start_one(r, &r->workers[i], err);
		if (ret)
			return ret;
	}
	return TMX_OK;
}

/* Stops the workers (they finish the batch in hand) and frees what they hold. */
void par_workers_stop(struct par_runner *r)
{
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->work_cv);
	pthread_mutex_unlock(&r->lock);
	for (size_t i = 0; i < r->n_workers; i++) {
		struct par_worker *w = &r->workers[i];

		if (w->started)
			pthread_join(w->thread, NULL);
		if (w->fmt)
			r->split->worker_free(w->fmt);
	}
}
