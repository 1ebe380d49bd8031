/*
 * Merges the messages of many iterators (one per stream) by time.
 *
 * A binary heap keyed by each iterator's pending message time.  Messages
 * without a time (stream beginning/end) take their stream's last time so
 * that they come out in stream order.  Equal times are broken the way
 * babeltrace2 2.0's muxer does (see muxer.c).
 */
#ifndef TMX_MUXER_H
#define TMX_MUXER_H

#include <stdbool.h>
#include <stddef.h>

#include "model/msg_iter.h"

struct tmx_muxer;

/* Takes ownership of the iterators (destroyed with the muxer). */
int tmx_muxer_new(struct tmx_msg_iter **iters, size_t n, struct tmx_muxer **out,
		  struct tmx_error *err);
int tmx_muxer_next(struct tmx_muxer *m, const struct tmx_msg **msg, struct tmx_error *err);
/*
 * From now on, messages for which keep(ctx, msg) is false are dropped as
 * each stream's iterator gives them, before they enter the heap (the
 * pending ones are checked when they come up); NULL keep: every message.
 */
void tmx_muxer_set_filter(struct tmx_muxer *m,
			  bool (*keep)(const void *ctx, const struct tmx_msg *msg), const void *ctx);
void tmx_muxer_free(struct tmx_muxer *m);

/*
 * Taking a muxer's streams over (the parallel runner, src/par/): each
 * iterator still going, with the message it holds and that message's key
 * (src/mux/order.h).
 */
struct tmx_mux_head {
	struct tmx_msg_iter *it;
	const struct tmx_msg *msg;   /* NULL: nothing pulled from `it` yet */
	int64_t key;
	size_t index;                /* the iterator's input position */
};

/* Whether a message was returned (its iterator not yet advanced again). */
bool tmx_muxer_returned(const struct tmx_muxer *m);
/* How many iterators the muxer was given. */
size_t tmx_muxer_input_count(const struct tmx_muxer *m);
/*
 * Writes the heads of the iterators still going into `out` (room for
 * tmx_muxer_input_count()) in input order and returns their number.  The
 * muxer gives no message afterwards but still destroys the iterators.
 */
size_t tmx_muxer_take(struct tmx_muxer *m, struct tmx_mux_head *out);

#endif
