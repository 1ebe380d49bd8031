/* JSON Lines output: one object per event or discard record (see jsonl.c). */
#ifndef TMX_SINK_JSON_JSONL_H
#define TMX_SINK_JSON_JSONL_H

#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

struct tmx_jsonl;

struct tmx_jsonl *tmx_jsonl_new(int fd);
int tmx_jsonl_consume(struct tmx_jsonl *j, const struct tmx_msg *msg, struct tmx_error *err);
int tmx_jsonl_flush(struct tmx_jsonl *j, struct tmx_error *err);
void tmx_jsonl_free(struct tmx_jsonl *j);

/* The split for the parallel runner (src/sink/split.h): no holes. */
struct outbuf;
struct sink_piece;
struct tmx_jsonl *tmx_jsonl_worker_new(const struct tmx_jsonl *sink);
struct outbuf *tmx_jsonl_worker_outbuf(struct tmx_jsonl *w);
void tmx_jsonl_format(struct tmx_jsonl *w, const struct tmx_msg *msg, uint64_t hole[2]);
int tmx_jsonl_emit(struct tmx_jsonl *j, const struct sink_piece *pc, struct tmx_error *err);

#endif
