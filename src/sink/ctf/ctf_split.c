/*
 * The CTF writer on the parallel runner's workers (src/sink/split.h).
 *
 * What an output stream holds depends on its input stream's messages
 * only: an event's bits depend on its position in its packet, which the
 * stream's earlier messages decide, and so do packet splits, sequence
 * numbers and discarded counts.  So each stream has a writer of its own on
 * the workers (a "shadow": the writer's struct cw_stream and its packet
 * buffer, run by ctf_writer.c's cw_consume, any worker, one at a time as
 * the runner hands the stream over), which encodes and writes no file:
 * it journals, as the piece of each message, what the main thread must
 * do.  emit() replays the journal in merged order on the main thread's
 * copy of the stream (same struct, same buffer), which therefore is at any
 * point what the sequential writer would hold; everything that depends on
 * merged order is done there:
 *
 *   USE p     the trace's metadata follows plan p if it is new and knows
 *             more event classes (cw_plan_use)
 *   CREATE    the stream's data file: named (unique in its trace, in order
 *             of first message) and created
 *   COPY      bytes of the packet buffer that changed (new bits, the
 *             header fields patched at a packet's close)
 *   WRITE n   a packet is complete: its n bytes go to the file
 *   WARN      the trace cannot record discarded events (said once)
 *   STATE     the stream's state after the message (struct cw_pstate)
 *   EVENT     instead of STATE and COPY for most events: the event's bytes,
 *             its time and the new position (cw_event_step on the main
 *             thread makes the same state)
 *   ERROR     the message failed: the error, at its place in merged order
 *
 * After an error (the writer's or a reader's) the run stops there and
 * tmx_ctf_writer_finish() closes the main thread's copies, whatever the
 * workers read beyond: the files are those of --jobs 1.  A shadow does not
 * know its file's name (merged order): its errors name CW_SHADOW_PATH,
 * which emit() replaces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "sink/ctf/cw_impl.h"
#include "sink/split.h"

#define CW_SHADOW_PATH "\001stream"

enum cw_journal_op { OP_USE, OP_CREATE, OP_COPY, OP_WRITE, OP_WARN, OP_STATE, OP_EVENT, OP_ERROR };

struct op_hdr {
	uint64_t op, a, b;
};

/* The workers' writers of the streams, by input stream. */
struct cw_shadows {
	pthread_mutex_t lock;
	size_t n, cap;             /* open addressing, cap a power of two */
	struct cw_stream **slot;
};

/* A worker's formatter. */
struct cw_fmt {
	struct tmx_ctf_writer *w;
	struct cw_stream *last;    /* the shadow of the last message's stream */
	struct outbuf out;         /* the journal */
};

/* ---- the journal ---- */

static void put_op(struct outbuf *j, enum cw_journal_op op, uint64_t a, uint64_t b)
{
	struct op_hdr h = { op, a, b };

	outbuf_write(j, (const char *)&h, sizeof(h));
}

static void put_copy(struct cw_stream *s, size_t lo, size_t hi)
{
	if (hi <= lo)
		return;
	put_op(s->journal, OP_COPY, lo, hi - lo);
	outbuf_write(s->journal, (const char *)s->b.buf + lo, hi - lo);
}

void cw_journal_use(struct cw_stream *s, struct cw_trace_plan *p)
{
	put_op(s->journal, OP_USE, (uintptr_t)p, 0);
}

void cw_journal_write(struct cw_stream *s, size_t lo, size_t hi, size_t bytes)
{
	put_copy(s, s->synced, bytes);
	put_copy(s, lo, hi);
	put_op(s->journal, OP_WRITE, bytes, 0);
	s->synced = 0;
}

void cw_journal_warn_discards(struct cw_stream *s)
{
	put_op(s->journal, OP_WARN, 0, 0);
}

/*
 * The end of a message: the new bytes (the last one may still change) and
 * the state; for an event that only added its bits to the open packet,
 * what the main thread needs to make the same state.
 */
static void put_state(struct cw_stream *s, bool event)
{
	size_t end = (size_t)((s->b.pos + 7) / 8);

	if (event && s->b.buf && s->synced == s->sent_pos / 8) {
		/* `sent` made what the main thread will make of it. */
		cw_event_step(&s->sent, s->st.last_ts);
		if (!memcmp(&s->sent, &s->st, sizeof(s->st))) {
			put_op(s->journal, OP_EVENT, s->b.pos, s->st.last_ts);
			outbuf_write(s->journal, (const char *)s->b.buf + s->synced, end - s->synced);
			goto sent;
		}
	}
	if (s->b.buf)
		put_copy(s, s->synced, end);
	put_op(s->journal, OP_STATE, s->b.pos, 0);
	outbuf_write(s->journal, (const char *)&s->st, sizeof(s->st));
	s->sent = s->st;
sent:
	if (s->b.buf)
		s->synced = (size_t)(s->b.pos / 8);
	s->sent_pos = s->b.pos;
}

static void put_error(struct outbuf *j, const struct tmx_error *err)
{
	put_op(j, OP_ERROR, 0, 0);
	outbuf_write(j, (const char *)err, sizeof(*err));
}

/* ---- the workers' writers ---- */

static void shadow_free(struct cw_stream *s)
{
	cw_buf_free(&s->b);
	free(s);
}

void cw_shadows_free(struct cw_shadows *sh)
{
	if (!sh)
		return;
	for (size_t i = 0; i < sh->cap; i++)
		if (sh->slot[i])
			shadow_free(sh->slot[i]);
	free(sh->slot);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}

/* The shadow of `st`, or where it goes; under the lock. */
static struct cw_stream **shadow_slot(struct cw_shadows *sh, const struct tmx_stream *st)
{
	size_t h = cw_hash_ptr(st, sh->cap);

	while (sh->slot[h] && sh->slot[h]->stream != st)
		h = (h + 1) & (sh->cap - 1);
	return &sh->slot[h];
}

static bool shadow_insert(struct cw_shadows *sh, struct cw_stream *s)
{
	if ((sh->n + 1) * 2 > sh->cap) {
		struct cw_shadows grown = { .cap = sh->cap ? 2 * sh->cap : 64 };

		if (!(grown.slot = calloc(grown.cap, sizeof(*grown.slot))))
			return false;
		for (size_t i = 0; i < sh->cap; i++)
			if (sh->slot[i])
				*shadow_slot(&grown, sh->slot[i]->stream) = sh->slot[i];
		free(sh->slot);
		sh->slot = grown.slot;
		sh->cap = grown.cap;
	}
	*shadow_slot(sh, s->stream) = s;
	sh->n++;
	return true;
}

static struct cw_stream *shadow_find(struct cw_shadows *sh, const struct tmx_stream *st)
{
	struct cw_stream *s;

	pthread_mutex_lock(&sh->lock);
	s = sh->cap ? *shadow_slot(sh, st) : NULL;
	pthread_mutex_unlock(&sh->lock);
	return s;
}

/* The trace of `tr`: the writer made them all when it opened (the main thread's list). */
static struct cw_trace *known_trace(const struct tmx_ctf_writer *w, const struct tmx_trace *tr)
{
	for (size_t i = 0; i < w->n_traces; i++)
		if (w->traces[i]->trace == tr)
			return w->traces[i];
	return NULL;
}

/* A new shadow for the first message of `st` (journaled), or NULL (error journaled). */
static struct cw_stream *shadow_new(struct cw_fmt *f, const struct tmx_stream *st)
{
	struct tmx_error err = { 0 };
	struct cw_stream *s = calloc(1, sizeof(*s));
	int ret = TMX_OK;

	if (!s)
		ret = tmx_error_set(&err, TMX_ERR_NOMEM, NULL, "out of memory");
	else if (!(s->t = known_trace(f->w, st->trace)))
		ret = tmx_error_set(&err, TMX_ERR_USAGE, NULL,
				    "CTF writer: a stream of a trace the writer was not given");
	if (!ret) {
		s->fd = -1;
		s->stream = st;
		s->path = (char *)CW_SHADOW_PATH;
		s->b.path = CW_SHADOW_PATH;
		s->b.trace_be = s->t->big_endian;
		s->journal = &f->out;
		ret = cw_stream_plan_for(s, st->cls, &s->st.sp, &err);
	}
	if (!ret) {
		pthread_mutex_lock(&f->w->shadows->lock);
		if (!shadow_insert(f->w->shadows, s))
			ret = tmx_error_set(&err, TMX_ERR_NOMEM, NULL, "out of memory");
		pthread_mutex_unlock(&f->w->shadows->lock);
	}
	if (ret) {
		if (s)
			shadow_free(s);
		put_error(&f->out, &err);
		return NULL;
	}
	put_op(&f->out, OP_CREATE, 0, 0);
	return s;
}

static void *worker_new(const void *out)
{
	struct tmx_ctf_writer *w = (struct tmx_ctf_writer *)out;
	struct cw_fmt *f;

	/* Workers are made on the main thread, before any runs. */
	if (!w->shadows) {
		if (!(w->shadows = calloc(1, sizeof(*w->shadows))))
			return NULL;
		pthread_mutex_init(&w->shadows->lock, NULL);
	}
	if (!(f = malloc(sizeof(*f))))
		return NULL;
	f->w = w;
	f->last = NULL;
	outbuf_init(&f->out, -1);
	return f;
}

static void worker_free(void *fmt)
{
	free(fmt);
}

static struct outbuf *worker_outbuf(void *fmt)
{
	return &((struct cw_fmt *)fmt)->out;
}

/*
 * The runner hands a stream to one worker at a time, its batches in
 * order: the shadow of a stream is only touched by the worker reading it.
 */
static void format(void *fmt, const struct tmx_msg *msg, uint64_t hole[SINK_HOLES])
{
	struct cw_fmt *f = fmt;
	struct cw_stream *s = f->last;
	struct tmx_error err;   /* set with the status (1.5 KB: not cleared per message) */
	int ret;

	hole[0] = hole[1] = SINK_NO_POS;
	if ((!s || s->stream != msg->stream) && !(s = shadow_find(f->w->shadows, msg->stream)) &&
	    !(s = shadow_new(f, msg->stream)))
		return;
	f->last = s;
	s->journal = &f->out;
	ret = cw_consume(f->w, s, msg, &err);
	put_state(s, !ret && msg->kind == TMX_MSG_EVENT);
	if (ret)
		put_error(&f->out, &err);
}

/* ---- the main thread ---- */

static int copy(struct cw_stream *s, uint64_t off, uint64_t len, const char *data,
		struct tmx_error *err)
{
	if (off + len + 8 > s->b.cap) {
		int ret = cw_buf_grow(&s->b, off + len + 8, err);
		if (ret)
			return ret;
	}
	memcpy(s->b.buf + off, data, len);
	return TMX_OK;
}

static int apply_state(struct cw_stream *s, uint64_t pos, const char *data, struct tmx_error *err)
{
	bool was_ended = s->st.ended;

	memcpy(&s->st, data, sizeof(s->st));
	s->b.pos = pos;
	return !was_ended && s->st.ended ? cw_stream_ended(s, TMX_OK, err) : TMX_OK;
}

static int replay_error(const struct cw_stream *s, const char *data, struct tmx_error *err)
{
	memcpy(err, data, sizeof(*err));
	if (s && !strcmp(err->file, CW_SHADOW_PATH))
		snprintf(err->file, sizeof(err->file), "%s", s->path);
	return err->code;
}

static int emit(void *out, const struct sink_piece *pc, struct tmx_error *err)
{
	struct tmx_ctf_writer *w = out;
	const struct tmx_stream *st = pc->msg->stream;
	struct cw_stream *s = w->last && w->last->stream == st ? w->last : cw_stream_find(w, st);
	const char *p = pc->text, *end = pc->text + pc->len;
	struct cw_trace *t;
	int ret = TMX_OK;

	w->last = s ? s : w->last;
	while (!ret && p < end) {
		struct op_hdr h;

		memcpy(&h, p, sizeof(h));
		p += sizeof(h);
		switch ((enum cw_journal_op)h.op) {
		case OP_USE:
			ret = cw_find_trace(w, st->trace, &t, err);
			if (!ret)
				ret = cw_plan_use(t, (struct cw_trace_plan *)(uintptr_t)h.a, err);
			break;
		case OP_CREATE:
			ret = cw_stream_new(w, st, false, &s, err);
			break;
		case OP_COPY:
			ret = copy(s, h.a, h.b, p, err);
			p += h.b;
			break;
		case OP_WRITE:
			/* Not zeroed: COPY gives every byte again (see cw_replicas_zero). */
			ret = cw_write_all(s, s->b.buf, (size_t)h.a, err);
			break;
		case OP_WARN:
			cw_warn_discards(w, s->t);
			break;
		case OP_STATE:
			ret = apply_state(s, h.a, p, err);
			p += sizeof(s->st);
			break;
		case OP_EVENT: {
			size_t lo = (size_t)(s->b.pos / 8), hi = (size_t)((h.a + 7) / 8);

			ret = copy(s, lo, hi - lo, p, err);
			p += hi - lo;
			cw_event_step(&s->st, h.b);
			s->b.pos = h.a;
			break;
		}
		case OP_ERROR:
			return replay_error(s, p, err);
		}
	}
	return ret;
}

void cw_replicas_zero(struct tmx_ctf_writer *w)
{
	for (size_t i = 0; w->shadows && i < w->n_streams; i++) {
		struct cw_stream *s = w->streams[i];
		size_t end = (size_t)((s->b.pos + 7) / 8);

		if (s->b.buf && end < s->b.cap)
			memset(s->b.buf + end, 0, s->b.cap - end);
	}
}

/* lttng-kernel's mapped messages are written sequentially. */
static bool applies(const void *out)
{
	return !((const struct tmx_ctf_writer *)out)->kmap;
}

const struct sink_split tmx_ctf_writer_split = {
	worker_new, worker_free, worker_outbuf, format, emit, applies, NULL,
	false,   /* the shadows follow each stream in its order */
	NULL,
};
