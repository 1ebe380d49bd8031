/*
 * CTF writer (CTF 1.8 or CTF 2: the same data layout, only the metadata
 * and the CTF 2 field classes differ).
 *
 * Each input trace becomes a directory under the output directory, named
 * as babeltrace2's sink.ctf.fs names it (LTTng's session layout from the
 * trace environment, else the trace's name, else `trace`; `.`/`..`
 * components made `_`/`__`; `-N` added when it exists).  Its `metadata`
 * is generated from the model (plan_build.c, then tsdl_gen.c or
 * json_gen.c) when the trace is first seen;
 * each stream is one data file named after the input stream's file.
 *
 * Packets: by default one output packet per input packet (up to 4 MiB, so
 * that memory stays bounded whatever the input's packets), with the same
 * beginning and end times, so that what babeltrace2 derives from packets
 * (discarded events between consecutive packets' ends, discarded packets
 * from sequence-number gaps) comes out the same when the trace is read
 * back.  Discarded-events and discarded-packets messages feed the output's
 * events_discarded counter and packet_seq_num.  Events outside any packet
 * (trimmed packet beginnings, formats without packets) go to packets the
 * writer opens itself; --ctf-packet-size caps every packet (an input packet
 * is split, except the one that carries new discarded events: its end time
 * is what babeltrace2 shows as the end of the discarded range).
 *
 * Encoding (encode.c): each event is written straight into its stream's
 * packet buffer by walking the precomputed plan of its class (plan.h)
 * alongside its values; the buffer only grows, packets are written with
 * one write() when they close.  Nothing is allocated per event.
 *
 * Traces, plans and data files are cw_setup.c's; with more than one job,
 * each stream's messages run through cw_consume() on the workers and the
 * main thread replays what they did (ctf_split.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/field_class.h"
#include "model/kmap.h"
#include "sink/ctf/cw_impl.h"
#include "common/paths.h"
#include "common/errors.h"

#define CTF_MAGIC UINT32_C(0xC1FC1FC1)

/* ------------------------------------------------------------------ */
/* Packets                                                              */
/* ------------------------------------------------------------------ */

/*
 * The stream plan of a packet context's class, among the plans the stream
 * used (the input's physical trace may vary): a property of the stream's
 * own messages, whatever the other streams did before.
 */
static const struct cw_stream_plan *plan_of_context(const struct cw_stream *s,
						     const struct tmx_field_class *ctx_fc)
{
	if (s->st.sp->sc->packet_context == ctx_fc)
		return s->st.sp;
	for (size_t i = 0; i < s->n_plans; i++)
		for (size_t k = 0; k < s->plans[i]->n_streams; k++)
			if (s->plans[i]->streams[k].sc->packet_context == ctx_fc)
				return &s->plans[i]->streams[k];
	return NULL;
}

static int mismatch(struct cw_stream *s, struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_DATA, s->path,
			     "CTF writer: an event's values do not match its class");
}

/*
 * Opens a packet: header, and the context with its sizes and end time
 * left to close_packet().  `ctx` is the input packet's context, if any.
 */
static int open_packet(struct cw_stream *s, bool explicit_packet, bool has_begin, uint64_t begin,
		       const struct tmx_value *ctx, struct tmx_error *err)
{
	const struct cw_stream_plan *sp;
	bool be = s->t->big_endian;
	uint32_t ctx_align = 8;
	int ret;

	/* The packet's own class (the input's physical trace may vary). */
	if (ctx) {
		const struct cw_stream_plan *own = plan_of_context(s, ctx[0].fc);
		if (own)
			s->st.sp = own;
	}
	sp = s->st.sp;
	s->b.pos = 0;
	s->st.open = true;
	s->st.explicit_packet = explicit_packet;
	s->st.has_begin = has_begin;
	s->st.begin = begin;
	s->st.has_end = false;
	s->st.n_events = 0;
	/*
	 * A reader counts the discarded events of a packet from the previous
	 * packet's counter, or from zero when that packet has none (a packet
	 * of another stream class in the same stream): the counter restarts.
	 */
	if (!sp->has_discarded)
		s->st.discarded_total = 0;
	s->st.discarded_at_open = s->st.discarded_total;
	ret = cw_buf_slots(&s->b, sp->n_slots, err);
	if (!ret)
		ret = cw_reserve(&s->b, 64 * 8, err);
	if (ret)
		return ret;
	cw_put_bits(&s->b, CTF_MAGIC, 32, be);
	memcpy(s->b.buf + 4, s->t->uuid, 16);
	s->b.pos += 128;
	cw_put_bits(&s->b, sp->sc->id, 64, be);
	/*
	 * The model's stream id.  babeltrace2 orders messages of equal times
	 * by stream id: for a CTF input that gives the input's order back.
	 */
	cw_put_bits(&s->b, s->stream->id, 64, be);

	if (sp->packet_context && sp->packet_context->align > ctx_align)
		ctx_align = sp->packet_context->align;
	cw_align(&s->b, ctx_align);
	ret = cw_reserve(&s->b, 6 * 64, err);
	if (ret)
		return ret;
	s->st.off_packet_size = (size_t)(s->b.pos / 8);
	cw_put_bits(&s->b, 0, 64, be);
	s->st.off_content_size = (size_t)(s->b.pos / 8);
	cw_put_bits(&s->b, 0, 64, be);
	if (sp->has_ts_begin) {
		s->st.off_ts_begin = (size_t)(s->b.pos / 8);
		cw_put_bits(&s->b, 0, 64, be);
	}
	if (sp->has_ts_end) {
		s->st.off_ts_end = (size_t)(s->b.pos / 8);
		cw_put_bits(&s->b, 0, 64, be);
	}
	if (sp->has_discarded)
		cw_put_bits(&s->b, s->st.discarded_total, 64, be);
	cw_put_bits(&s->b, s->st.seq++, 64, be);
	if (!sp->packet_context)
		return TMX_OK;
	if (ctx) {
		size_t i = 0;
		const struct cw_node *n = sp->packet_context;
		/* The members after the writer's own: the root struct, unaligned again. */
		if (ctx[0].fc->kind != TMX_FC_STRUCT || ctx[0].n_members != n->n_children)
			return mismatch(s, err);
		i = 1;
		for (size_t k = 0; k < n->n_children; k++) {
			if (n->children[k].skip) {
				i = tmx_value_skip(ctx, i);
				continue;
			}
			ret = cw_encode(&s->b, &n->children[k], ctx, &i, err);
			if (ret)
				return ret;
		}
		return TMX_OK;
	}
	for (size_t k = 0; k < sp->packet_context->n_children; k++) {
		if (sp->packet_context->children[k].skip)
			continue;
		ret = cw_encode_zero(&s->b, &sp->packet_context->children[k], err);
		if (ret)
			return ret;
	}
	return TMX_OK;
}

static int close_packet(struct cw_stream *s, struct tmx_error *err)
{
	const struct cw_pstate *st = &s->st;
	uint64_t bytes = (s->b.pos + 7) / 8;
	uint64_t begin, end;
	size_t patched = st->off_content_size;
	int ret = TMX_OK;

	if (!st->open)
		return TMX_OK;
	/*
	 * Times: the input packet's when known; else the first and last event
	 * times; the end never before the last event nor the beginning.
	 */
	begin = st->has_begin ? st->begin : st->n_events ? st->first_ts :
		st->has_last_ts ? st->last_ts : 0;
	end = st->has_end ? st->end : st->n_events ? st->last_ts : begin;
	if (!st->has_end && end < begin)
		end = begin;
	cw_patch_u64(&s->b, st->off_packet_size, bytes * 8);
	cw_patch_u64(&s->b, st->off_content_size, s->b.pos);
	if (st->sp->has_ts_begin)
		cw_patch_u64(&s->b, patched = st->off_ts_begin, begin);
	if (st->sp->has_ts_end)
		cw_patch_u64(&s->b, patched = st->off_ts_end, end);
	s->st.open = false;
	s->st.discarded_prev_packet = st->discarded_at_open;
	if (s->journal)
		cw_journal_write(s, st->off_packet_size, patched + 8, (size_t)bytes);
	else
		ret = cw_write_all(s, s->b.buf, (size_t)bytes, err);
	memset(s->b.buf, 0, (size_t)bytes);
	s->b.pos = 0;
	return ret;
}

static int end_at_pending(struct cw_stream *s, const struct tmx_value *pctx, struct tmx_error *err);

static int end_stream(struct cw_stream *s, struct tmx_error *err)
{
	int ret;

	/*
	 * A discard whose count no packet carries yet (the input ended, or
	 * stopped at a damage, before the next event): the packet that carries
	 * it ends where the discarded range does, as it would have.
	 */
	if (s->st.has_pending_end) {
		ret = end_at_pending(s, NULL, err);
		if (ret)
			return ret;
	}

	/*
	 * An input packet without its end message (the input stopped at a
	 * damage): it still ends when its context says, as babeltrace2 tells
	 * its discarded events up to there, and as its end message would.
	 */
	if (s->st.open && s->st.explicit_packet && s->st.in_has_end && !s->st.has_end) {
		s->st.has_end = true;
		s->st.end = s->st.in_end;
	}
	return cw_stream_ended(s, close_packet(s, err), err);
}

int cw_stream_ended(struct cw_stream *s, int ret, struct tmx_error *err)
{
	if (s->fd >= 0) {
		if (close(s->fd) && !ret)
			ret = tmx_error_set(err, TMX_ERR_IO, s->path, "cannot write: %s",
					    strerror(errno));
		s->fd = -1;
	}
	/* A stream that ended keeps no memory. */
	cw_buf_free(&s->b);
	s->st.ended = true;
	return ret;
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */
/* ------------------------------------------------------------------ */

static const struct cw_event_plan *event_plan(struct cw_stream *s, const struct tmx_event_class *ec,
					      const struct cw_stream_plan **spp, struct tmx_error *err)
{
	const struct cw_stream_plan *sp;
	size_t lo, hi;

	if (s->last_ep && s->last_ep->ec == ec) {
		*spp = s->last_sp;
		return s->last_ep;
	}
	if (ec->stream_class == s->st.sp->sc)
		sp = s->st.sp;
	else if (cw_stream_plan_for(s, ec->stream_class, &sp, err))
		return NULL;
	*spp = s->last_sp = sp;
	if (ec->id < sp->n_by_id && sp->by_id[ec->id] && sp->by_id[ec->id]->ec == ec)
		return s->last_ep = sp->by_id[ec->id];
	lo = 0;
	hi = sp->n_events;
	/* Event classes are sorted by id (model.h). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp->events[mid].ec->id < ec->id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sp->n_events && sp->events[lo].ec == ec)
		return s->last_ep = &sp->events[lo];
	for (size_t i = 0; i < sp->n_events; i++)
		if (sp->events[i].ec == ec)
			return s->last_ep = &sp->events[i];
	return NULL;
}

static uint64_t packet_limit(const struct tmx_ctf_writer *w, const struct cw_stream *s)
{
	(void)s;
	return w->opts.packet_size ? w->opts.packet_size : TMX_CTF_DEFAULT_PACKET_SIZE;
}

/* Opens the packet after a discard or a split, or one for events outside packets. */
static int open_next(struct cw_stream *s, bool has_ts, uint64_t ts, const struct tmx_value *pctx,
		     struct tmx_error *err)
{
	bool cont = s->st.cont, has_begin = s->st.has_next_begin || has_ts;
	uint64_t begin = s->st.has_next_begin ? s->st.next_begin : ts;

	s->st.cont = s->st.has_next_begin = false;
	return open_packet(s, cont, has_begin, begin, pctx, err);
}

/*
 * Closes the packet that carries a new discarded count at the end of the
 * discarded range (opening it empty if needed); what follows goes on in a
 * new packet from that time.
 */
static int end_at_pending(struct cw_stream *s, const struct tmx_value *pctx, struct tmx_error *err)
{
	bool cont;
	int ret;

	if (!s->st.open) {
		ret = open_next(s, false, 0, pctx, err);
		if (ret)
			return ret;
	}
	cont = s->st.explicit_packet;
	s->st.has_end = !s->st.n_events || s->st.last_ts <= s->st.pending_end;
	s->st.end = s->st.pending_end;
	s->st.has_pending_end = false;
	ret = close_packet(s, err);
	s->st.cont = cont;
	s->st.has_next_begin = true;
	s->st.next_begin = s->st.pending_end;
	return ret;
}

/*
 * A discard reported while a packet is open: that packet ends at the
 * beginning of the discarded range, and the count (or the sequence-number
 * gap) goes with the next one.
 */
static int discard_in_packet(struct cw_stream *s, const struct tmx_msg *msg, bool events,
			     struct tmx_error *err)
{
	bool cont;
	int ret;

	if (s->st.has_pending_end) {   /* two discards in a row: the first range ends first */
		ret = end_at_pending(s, NULL, err);
		if (ret)
			return ret;
	}
	if (!s->st.open)
		return TMX_OK;
	cont = s->st.explicit_packet;
	if (msg->has_range && (!s->st.n_events || s->st.last_ts <= msg->begin_cycles)) {
		s->st.has_end = true;
		s->st.end = msg->begin_cycles;
	}
	ret = close_packet(s, err);
	s->st.cont = cont;
	if (msg->has_range) {
		s->st.has_next_begin = true;
		s->st.next_begin = events ? msg->begin_cycles : msg->end_cycles;
		s->st.has_pending_end = events;
		s->st.pending_end = msg->end_cycles;
	}
	return ret;
}

/*
 * A clock value whose time overflows (`has` false, cycles set: a huge value
 * or offset) is still the value to write, so that the trace read back says
 * the same; only no value at all (0 and `has` false) is unknown.
 */
static bool has_clock_value(bool has, uint64_t cycles)
{
	return has || cycles;
}

void cw_event_step(struct cw_pstate *st, uint64_t ts)
{
	if (!st->n_events++)
		st->first_ts = ts;
	st->last_ts = ts;
	st->has_last_ts = true;
}

static int write_event(struct tmx_ctf_writer *w, struct cw_stream *s, const struct tmx_msg *msg,
		       struct tmx_error *err)
{
	const struct tmx_event *e = msg->event;
	const struct cw_stream_plan *sp = NULL;
	const struct cw_event_plan *ep;
	const struct tmx_value *pctx = e->packet ? e->packet->context : NULL;
	bool be = s->t->big_endian;
	uint64_t ts = has_clock_value(msg->has_ts, msg->cycles) ? msg->cycles :
		      s->st.has_last_ts ? s->st.last_ts : 0;
	size_t i;
	int ret;

	err->code = TMX_OK;
	ep = event_plan(s, e->cls, &sp, err);
	if (!ep && err->code)
		return err->code;
	if (!ep)
		return tmx_error_set(err, TMX_ERR_DATA, s->path,
				      "CTF writer: event class `%s` is not in its stream class",
				      e->cls->name ? e->cls->name : "");
	if (s->st.has_pending_end && ts > s->st.pending_end) {
		/* The packet with the new discarded count ends where the range does. */
		ret = end_at_pending(s, pctx, err);
		if (ret)
			return ret;
	}
	if (s->st.open && s->st.n_events && s->b.pos / 8 >= packet_limit(w, s) &&
	    !(s->st.discarded_at_open != s->st.discarded_prev_packet)) {
		/* Split: the rest of the input packet continues in a new one. */
		bool explicit_packet = s->st.explicit_packet;
		ret = close_packet(s, err);
		if (!ret)
			ret = open_packet(s, explicit_packet, true, ts, pctx, err);
		if (ret)
			return ret;
	}
	if (!s->st.open) {
		ret = open_next(s, msg->has_ts, ts, pctx, err);
		if (ret)
			return ret;
	}
	/* Header: 64-bit id and 64-bit timestamp, byte-aligned. */
	cw_align(&s->b, 8);
	ret = cw_buf_slots(&s->b, sp->n_slots, err);
	if (!ret)
		ret = cw_reserve(&s->b, 128, err);
	if (ret)
		return ret;
	cw_put_bits(&s->b, e->cls->id, 64, be);
	if (sp->clock)
		cw_put_bits(&s->b, ts, 64, be);
	if (sp->common_context) {
		if (!e->scopes[TMX_SCOPE_COMMON_CONTEXT])
			return mismatch(s, err);
		i = 0;
		ret = cw_encode(&s->b, sp->common_context, e->scopes[TMX_SCOPE_COMMON_CONTEXT], &i, err);
		if (ret)
			return ret;
	}
	if (ep->specific_context) {
		if (!e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT])
			return mismatch(s, err);
		i = 0;
		ret = cw_encode(&s->b, ep->specific_context, e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT], &i, err);
		if (ret)
			return ret;
	}
	if (ep->payload) {
		if (!e->scopes[TMX_SCOPE_PAYLOAD])
			return mismatch(s, err);
		i = 0;
		ret = cw_encode(&s->b, ep->payload, e->scopes[TMX_SCOPE_PAYLOAD], &i, err);
		if (ret)
			return ret;
	}
	cw_event_step(&s->st, ts);
	return TMX_OK;
}

/* The writer's stream of `st`, made at its first message. */
static int find_stream(struct tmx_ctf_writer *w, const struct tmx_stream *st,
		       struct cw_stream **out, struct tmx_error *err)
{
	struct cw_stream *s;

	if (w->last && w->last->stream == st) {
		*out = w->last;
		return TMX_OK;
	}
	if ((s = cw_stream_find(w, st))) {
		*out = w->last = s;
		return TMX_OK;
	}
	return cw_stream_new(w, st, true, out, err);
}

void cw_warn_discards(const struct tmx_ctf_writer *w, struct cw_trace *t)
{
	if (t->warned_discards)
		return;
	t->warned_discards = true;
	tmx_warn(w->opts.diag, "%s: discarded events cannot be recorded: the input's "
		 "packets have no discarded-events counter", t->path);
}

/* --lttng-kernel: the state dump of the trace of `in`, before its first event (kmap.h). */
static int lttng_statedump(struct tmx_ctf_writer *w, const struct tmx_msg *in,
			   struct tmx_error *err)
{
	const struct tmx_msg *sd;
	struct cw_stream *s = NULL;
	int ret;

	for (size_t i = 0;; i++) {
		if (!tmx_kmap_statedump(w->kmap, in, i, &sd))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		if (!sd)
			return TMX_OK;
		if ((ret = find_stream(w, sd->stream, &s, err)) || (ret = cw_consume(w, s, sd, err)))
			return ret;
	}
}

int tmx_ctf_writer_consume(struct tmx_ctf_writer *w, const struct tmx_msg *msg,
			   struct tmx_error *err)
{
	struct cw_stream *s = NULL;
	int ret;

	if (w->kmap && (ret = lttng_statedump(w, msg, err)))
		return ret;
	if (w->kmap && cw_lttng_kernel_msg(w, &msg, err))
		return err->code;
	if (!msg)
		return TMX_OK;
	ret = find_stream(w, msg->stream, &s, err);
	return ret ? ret : cw_consume(w, s, msg, err);
}

int cw_consume(struct tmx_ctf_writer *w, struct cw_stream *s, const struct tmx_msg *msg,
	       struct tmx_error *err)
{
	int ret;

	if (s->st.ended)
		return msg->kind == TMX_MSG_STREAM_END ? TMX_OK :
			tmx_error_set(err, TMX_ERR_DATA, s->path,
				      "CTF writer: a message after the end of its stream");
	switch (msg->kind) {
	case TMX_MSG_STREAM_BEGIN:
		return TMX_OK;
	case TMX_MSG_PACKET_BEGIN:
		ret = close_packet(s, err);
		if (ret)
			return ret;
		s->st.cont = s->st.has_next_begin = s->st.has_pending_end = false;
		s->st.in_has_end = has_clock_value(msg->packet->has_end, msg->packet->end_cycles);
		s->st.in_end = msg->packet->end_cycles;
		return open_packet(s, true,
				   has_clock_value(msg->packet->has_begin, msg->packet->begin_cycles),
				   msg->packet->begin_cycles, msg->packet->context, err);
	case TMX_MSG_PACKET_END:
		if (s->st.has_pending_end) {
			ret = end_at_pending(s, msg->packet->context, err);
			if (ret)
				return ret;
		}
		if (!s->st.open && s->st.cont) {
			/* The input packet's end after a discard: an empty packet up to it. */
			ret = open_next(s, false, 0, msg->packet->context, err);
			if (ret)
				return ret;
		}
		s->st.cont = s->st.has_next_begin = s->st.in_has_end = false;
		if (!s->st.open)
			return TMX_OK;
		if (has_clock_value(msg->packet->has_end, msg->packet->end_cycles)) {
			s->st.has_end = true;
			s->st.end = msg->packet->end_cycles;
		}
		return close_packet(s, err);
	case TMX_MSG_EVENT:
		return write_event(w, s, msg, err);
	case TMX_MSG_DISCARDED_EVENTS:
		if (!s->st.sp->has_discarded && s->journal)
			cw_journal_warn_discards(s);
		else if (!s->st.sp->has_discarded)
			cw_warn_discards(w, s->t);
		/* Between packets (CTF): the count goes with the next packet. */
		ret = discard_in_packet(s, msg, true, err);
		s->st.discarded_total += msg->count ? msg->count : 1;
		return ret;
	case TMX_MSG_DISCARDED_PACKETS:
		ret = discard_in_packet(s, msg, false, err);
		s->st.seq += msg->count ? msg->count : 1;
		return ret;
	case TMX_MSG_STREAM_END:
		return end_stream(s, err);
	}
	return TMX_OK;
}

int tmx_ctf_writer_add_trace(struct tmx_ctf_writer *w, const struct tmx_trace *trace,
			     struct tmx_error *err)
{
	struct cw_trace *t;

	if (w->kmap && !(trace = tmx_kmap_trace(w->kmap, trace)))
		return TMX_OK;
	return cw_find_trace(w, trace, &t, err);
}

int tmx_ctf_writer_new(const struct tmx_ctf_writer_opts *opts, struct tmx_ctf_writer **out,
		       struct tmx_error *err)
{
	struct tmx_ctf_writer *w;
	size_t len;

	*out = NULL;
	if (!opts->dir || !opts->dir[0])
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "-o ctf needs an output directory (-w DIR)");
	w = calloc(1, sizeof(*w));
	if (!w || !(w->dir = strdup(opts->dir))) {
		free(w);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	w->opts = *opts;
	len = strlen(w->dir);
	while (len > 1 && w->dir[len - 1] == '/')
		w->dir[--len] = '\0';
	if (cw_mkdir_p(w->dir)) {
		int ret = tmx_error_set(err, TMX_ERR_IO, opts->dir, "cannot create the directory: %s",
					strerror(errno));
		free(w->dir);
		free(w);
		return ret;
	}
	*out = w;
	return TMX_OK;
}

int tmx_ctf_writer_finish(struct tmx_ctf_writer *w, struct tmx_error *err)
{
	int ret = TMX_OK;

	cw_replicas_zero(w);
	for (size_t i = 0; i < w->n_streams; i++) {
		struct cw_stream *s = w->streams[i];
		struct tmx_error e2;
		if (!s->st.ended && end_stream(s, ret ? &e2 : err) && !ret)
			ret = err->code;
	}
	return ret;
}

void tmx_ctf_writer_free(struct tmx_ctf_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_streams; i++)
		cw_stream_free(w->streams[i]);
	cw_shadows_free(w->shadows);
	for (size_t i = 0; i < w->n_traces; i++)
		cw_trace_free(w->traces[i]);
	free(w->streams);
	free(w->traces);
	free(w->map);
	free(w->dir);
	tmx_kmap_free(w->kmap);
	free(w);
}
