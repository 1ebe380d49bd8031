/* Perfetto's protobuf trace format (-o perfetto): see perfetto.c. */
#ifndef TMX_SINK_PERFETTO_H
#define TMX_SINK_PERFETTO_H

#include "tracemux/error.h"
#include "tracemux/model.h"
#include "tracemux/tracemux.h"

struct tmx_perfetto;

/* A Perfetto output on `fd` for the traces of `src` (their system info written now). */
struct tmx_perfetto *tmx_perfetto_new(int fd, const struct tmx_source *src);
int tmx_perfetto_consume(struct tmx_perfetto *s, const struct tmx_msg *msg, struct tmx_error *err);
/* Writes the open bundles and flushes. */
int tmx_perfetto_finish(struct tmx_perfetto *s, struct tmx_error *err);
void tmx_perfetto_free(struct tmx_perfetto *s);

#endif
