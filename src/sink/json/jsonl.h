/* JSON Lines output: one object per event or discard record (see jsonl.c). */
#ifndef TMX_OUT_JSONL_H
#define TMX_OUT_JSONL_H

#include "tracemux/error.h"
#include "tracemux/model.h"

struct tmx_jsonl;

struct tmx_jsonl *tmx_jsonl_new(int fd);
int tmx_jsonl_consume(struct tmx_jsonl *j, const struct tmx_msg *msg, struct tmx_error *err);
int tmx_jsonl_flush(struct tmx_jsonl *j, struct tmx_error *err);
void tmx_jsonl_free(struct tmx_jsonl *j);

#endif
