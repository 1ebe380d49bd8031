/*
 * The order of merged messages, shared by the muxer (src/mux/muxer.c) and
 * the parallel runner's merge (src/par/): one copy of babeltrace2's
 * comparison.
 *
 * A message's position is its time (the muxer's key: its own time, or for
 * a message without one the key of the message before it in its stream,
 * INT64_MIN for a stream's first) and what breaks ties, all of which stays
 * valid after the message view is gone (classes and streams outlive it).
 */
#ifndef TMX_MUX_ORDER_H
#define TMX_MUX_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/model.h"

struct tmx_mux_pos {
	int64_t key;
	enum tmx_msg_kind kind;
	const struct tmx_stream *stream;
	const struct tmx_event_class *ec;   /* events only */
};

static inline void tmx_mux_pos_set(struct tmx_mux_pos *p, const struct tmx_msg *msg, int64_t key)
{
	p->key = key;
	p->kind = msg->kind;
	p->stream = msg->stream;
	p->ec = msg->kind == TMX_MSG_EVENT ? msg->event->cls : NULL;
}

/* The key a message gets when the previous one of its stream had `prev_key`. */
static inline int64_t tmx_mux_key(const struct tmx_msg *msg, int64_t prev_key)
{
	return msg->has_ts ? msg->ns : prev_key;
}

/*
 * <0, 0, >0 as `a` comes before, ties with, or comes after `b`: time, then
 * babeltrace2's common_muxing_compare_messages() (trace UUID, trace name,
 * stream class ID, stream ID, message type, event class properties).  The
 * caller breaks a tie by input order.
 */
int tmx_mux_compare(const struct tmx_mux_pos *a, const struct tmx_mux_pos *b);

/*
 * Whether the message at `a` (input position ia) comes before the one at
 * `b` (ib): by key, then tmx_mux_compare, then input position.
 */
static inline bool tmx_mux_before(const struct tmx_mux_pos *a, size_t ia,
				  const struct tmx_mux_pos *b, size_t ib)
{
	int r;

	if (a->key != b->key)
		return a->key < b->key;
	r = tmx_mux_compare(a, b);
	return r ? r < 0 : ia < ib;
}

#endif
