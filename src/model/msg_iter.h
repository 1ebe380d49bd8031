/*
 * A message iterator: what a format reader gives the muxer, and what the
 * muxer gives the outputs.  A returned message (and the packet/event views
 * it points to) stays valid until the next call to next() on the same
 * iterator.
 */
#ifndef TMX_MSG_ITER_H
#define TMX_MSG_ITER_H

#include "tracemux/error.h"
#include "tracemux/model.h"

struct tmx_msg_iter {
	/* Sets *msg to the next message, or to NULL at the end. */
	int (*next)(struct tmx_msg_iter *it, const struct tmx_msg **msg,
		    struct tmx_error *err);
	void (*destroy)(struct tmx_msg_iter *it);
};

#endif
