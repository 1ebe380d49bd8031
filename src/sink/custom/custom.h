/*
 * A sink of the caller's own (tmx_sink_custom, include/tracemux/sink.h):
 * the caller's format() and emit() behind the split every parallel output
 * has (src/sink/split.h), and both in turn for one job.
 */
#ifndef TMX_SINK_CUSTOM_H
#define TMX_SINK_CUSTOM_H

#include "tracemux/sink.h"
#include "sink/split.h"

struct tmx_custom;
struct custom_worker;

int tmx_custom_open(const struct tmx_custom_sink *def, struct tmx_custom **out,
		    struct tmx_error *err);
/* One message formatted and emitted on the calling thread (one job). */
int tmx_custom_consume(struct tmx_custom *c, const struct tmx_msg *msg, struct tmx_error *err);
int tmx_custom_finish(struct tmx_custom *c, struct tmx_error *err);
void tmx_custom_free(struct tmx_custom *c);

/* The split's parts. */
struct custom_worker *tmx_custom_worker_new(const struct tmx_custom *c);
void tmx_custom_worker_free(struct custom_worker *w);
struct outbuf *tmx_custom_worker_outbuf(struct custom_worker *w);
void tmx_custom_format(struct custom_worker *w, const struct tmx_msg *msg,
		       uint64_t hole[SINK_HOLES]);
int tmx_custom_emit(struct tmx_custom *c, const struct sink_piece *pc, struct tmx_error *err);

#endif
