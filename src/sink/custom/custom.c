/*
 * A sink of the caller's own (include/tracemux/sink.h): a record is what
 * the caller's format() writes into a formatter's outbuf.  With several
 * jobs the parallel runner drains the outbufs into its batches and hands
 * each record to emit() in merged order; with one job, consume() formats
 * a message and emits its record at once, from the outbuf itself (or,
 * for a record longer than the outbuf, from `spill`, where it was drained).
 */
#include <stdlib.h>
#include <string.h>

#include "sink/custom/custom.h"
#include "sink/outbuf.h"
#include "common/errors.h"
#include "model/opts.h"

/* The record's bytes go to the outbuf: the public name of a formatter's outbuf. */
struct tmx_record {
	struct outbuf ob;
};

struct custom_worker {
	struct tmx_record rec;
	void *user;                  /* the caller's formatter */
	const struct tmx_custom *c;
};

struct tmx_custom {
	struct tmx_custom_sink def;
	struct custom_worker *seq;   /* one job's formatter, made at the first consume() */
	char *spill;                 /* one job: a record longer than the outbuf */
	size_t spill_len, spill_cap;
	bool spill_oom;
};

void tmx_record_write(struct tmx_record *rec, const void *data, size_t n)
{
	outbuf_write(&rec->ob, data, n);
}

void *tmx_record_reserve(struct tmx_record *rec, size_t n)
{
	return n <= TMX_RECORD_RESERVE_MAX ? outbuf_reserve(&rec->ob, n) : NULL;
}

void tmx_record_commit(struct tmx_record *rec, size_t n)
{
	rec->ob.len += n;
}

int tmx_custom_open(const struct tmx_custom_sink *def, struct tmx_custom **out,
		    struct tmx_error *err)
{
	struct tmx_custom *c;
	int ret;

	*out = NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	if ((ret = tmx_opts_copy(&c->def, sizeof(c->def), def, "tmx_custom_sink", err))) {
		free(c);
		return ret;
	}
	if (!c->def.format || !c->def.emit) {
		free(c);
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "tmx_sink_custom: format and emit are required");
	}
	*out = c;
	return TMX_OK;
}

struct custom_worker *tmx_custom_worker_new(const struct tmx_custom *c)
{
	struct custom_worker *w = malloc(sizeof(*w));

	if (!w)
		return NULL;
	outbuf_init(&w->rec.ob, -1);
	w->c = c;
	w->user = c->def.worker_new ? c->def.worker_new(c->def.user) : c->def.user;
	if (!w->user) {
		free(w);
		return NULL;
	}
	return w;
}

void tmx_custom_worker_free(struct custom_worker *w)
{
	if (w && w->c->def.worker_new && w->c->def.worker_free)
		w->c->def.worker_free(w->user);
	free(w);
}

struct outbuf *tmx_custom_worker_outbuf(struct custom_worker *w)
{
	return &w->rec.ob;
}

void tmx_custom_format(struct custom_worker *w, const struct tmx_msg *msg,
		       uint64_t hole[SINK_HOLES])
{
	for (int h = 0; h < SINK_HOLES; h++)
		hole[h] = SINK_NO_POS;
	w->c->def.format(w->user, msg, &w->rec);
}

int tmx_custom_emit(struct tmx_custom *c, const struct sink_piece *pc, struct tmx_error *err)
{
	return c->def.emit(c->def.user, pc->msg, pc->text, pc->len, err);
}

/* One job: what a record longer than the outbuf drains goes to `spill`. */
static void spill(void *ctx, const char *data, size_t len)
{
	struct tmx_custom *c = ctx;

	if (c->spill_oom)
		return;
	if (len > c->spill_cap - c->spill_len) {
		size_t cap = c->spill_cap ? c->spill_cap : OUTBUF_SIZE;
		char *p;

		while (cap - c->spill_len < len)
			cap *= 2;
		if (!(p = realloc(c->spill, cap))) {
			c->spill_oom = true;
			return;
		}
		c->spill = p;
		c->spill_cap = cap;
	}
	memcpy(c->spill + c->spill_len, data, len);
	c->spill_len += len;
}

int tmx_custom_consume(struct tmx_custom *c, const struct tmx_msg *msg, struct tmx_error *err)
{
	struct tmx_msg own = *msg;
	struct outbuf *ob;
	size_t len;

	if (!c->seq) {
		if (!(c->seq = tmx_custom_worker_new(c)))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		outbuf_set_drain(&c->seq->rec.ob, spill, c);
	}
	ob = &c->seq->rec.ob;
	ob->len = 0;
	ob->drained = 0;
	c->def.format(c->seq->user, msg, &c->seq->rec);
	/* emit() sees what it sees with several jobs: the message without its views. */
	own.packet = NULL;
	own.event = NULL;
	if (!ob->drained)
		return c->def.emit(c->def.user, &own, ob->data, ob->len, err);
	outbuf_flush(ob);
	len = c->spill_len;
	c->spill_len = 0;
	if (c->spill_oom) {
		c->spill_oom = false;
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	return c->def.emit(c->def.user, &own, c->spill, len, err);
}

int tmx_custom_finish(struct tmx_custom *c, struct tmx_error *err)
{
	return c->def.finish ? c->def.finish(c->def.user, err) : TMX_OK;
}

void tmx_custom_free(struct tmx_custom *c)
{
	if (!c)
		return;
	tmx_custom_worker_free(c->seq);
	free(c->spill);
	free(c);
}
