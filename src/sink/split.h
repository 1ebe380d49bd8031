/*
 * A sink split for the parallel runner (src/par/): what depends on one
 * message only is formatted on worker threads, what depends on the
 * messages before it in merged order is done by emit() on the main thread.
 *
 *   worker threads:  format(msg) -> bytes, with holes at the places that
 *                    depend on earlier messages (the text output's
 *                    `(+delta)`, say)
 *   main thread:     emit(piece), in merged order: the bytes, the holes
 *                    filled, and whatever else needs the merged order
 *                    (discarded-items warnings, the first negative time)
 *
 * A sink without a split runs on the main thread as today (after a
 * sequential read).  Internal to the library.
 */
#ifndef TMX_SINK_SPLIT_H
#define TMX_SINK_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/model.h"
#include "tracemux/sink.h"
#include "sink/outbuf.h"

#define SINK_HOLES 2
#define SINK_NO_HOLE UINT32_MAX
#define SINK_NO_POS UINT64_MAX   /* format(): no hole */

/* One message as a worker formatted it, handed to emit(). */
struct sink_piece {
	/* The message's own fields; its views (packet, event) are gone: NULL. */
	const struct tmx_msg *msg;
	const char *text;               /* what format() wrote */
	uint32_t len;
	/* Offsets in `text` where emit() inserts, in increasing order, or SINK_NO_HOLE. */
	uint32_t hole[SINK_HOLES];
};

/*
 * What the runner gives a sink that has side work: wake(ctx) makes its
 * idle threads (`threads` in all, the main one included) call side_run().
 */
struct sink_side {
	void (*wake)(void *ctx);
	void *ctx;
	unsigned threads;
};

/*
 * Side work: what emit() queues besides writing (parquet: full row groups
 * to encode), done by any of the runner's threads between batches and by
 * the main thread instead of waiting.
 */
struct sink_side_ops {
	/* Before the first piece. */
	void (*start)(void *out, const struct sink_side *side);
	/* One piece of work, false when none is queued (any thread, also while emit() runs). */
	bool (*run)(void *out);
	/*
	 * On the main thread when the merge is over (`status`: its result),
	 * while the threads still call run(): after it, the sink queues
	 * nothing more and does its work itself.
	 */
	int (*end)(void *out, int status, struct tmx_error *err);
};

struct sink_split {
	/*
	 * A formatter for one worker thread, set up as the sink `out` is.
	 * NULL (the dummy sink): there is nothing to format or emit, and the
	 * sink reads nothing of the messages (tmx_run tells the source that
	 * event fields need not be decoded).
	 */
	void *(*worker_new)(const void *out);
	void (*worker_free)(void *w);
	/* Where format() writes (the runner makes it drain into its batches). */
	struct outbuf *(*worker_outbuf)(void *w);
	/*
	 * Formats `msg` into the worker's outbuf.  Holes are recorded as
	 * outbuf_pos() values (SINK_NO_POS for none); the runner makes them
	 * offsets in the piece.
	 */
	void (*format)(void *w, const struct tmx_msg *msg, uint64_t hole[SINK_HOLES]);
	/* Writes one piece, in merged order. */
	int (*emit)(void *out, const struct sink_piece *pc, struct tmx_error *err);
	/* Whether the split applies to this output (NULL: always). */
	bool (*applies)(const void *out);
	/* Optional side work (see struct sink_side_ops), or NULL. */
	const struct sink_side_ops *side;
	/*
	 * format() depends on the message alone (and on what the sink made
	 * at open, or makes under its lock): the runner may then read a long
	 * stream as segments on several threads at once (src/par/split.c).
	 * False when a formatter keeps state along a stream (the CTF
	 * writer's per-stream shadows): a stream is then formatted by one
	 * thread at a time, in its order.  (Perfetto's user-space sequences
	 * keep such state, but only trace.dat streams, kernel ones, are cut.)
	 */
	bool segments;
	/*
	 * A batch starts (NULL: nothing to do): format() may keep state
	 * along a batch's messages, which are one stream's in its order, but
	 * none from one batch to the next (batches of a stream, its segments
	 * above all, are formatted by any thread in any order).
	 */
	void (*batch)(void *w);
};

/* The sink's split (NULL when it has none) and its output handle. */
const struct sink_split *tmx_sink_split(const struct tmx_sink *sink, void **out);

#endif
