/* Perfetto's protobuf trace format (-o perfetto): see perfetto.c. */
#ifndef TMX_SINK_PERFETTO_H
#define TMX_SINK_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"
#include "tracemux/tracemux.h"

struct tmx_perfetto;

/*
 * A Perfetto output on `fd` for the traces of `src` (their system info
 * written now); `zstd`: the whole file as one zstd frame (PERFETTO.md: a
 * whole-file zstd wrapper is read too), compressed as it is written.
 */
struct tmx_perfetto *tmx_perfetto_new(int fd, const struct tmx_source *src, bool zstd);
int tmx_perfetto_consume(struct tmx_perfetto *s, const struct tmx_msg *msg, struct tmx_error *err);
/* Writes the open bundles and flushes. */
int tmx_perfetto_finish(struct tmx_perfetto *s, struct tmx_error *err);
void tmx_perfetto_free(struct tmx_perfetto *s);

/* The split for the parallel runner (src/sink/split.h). */
struct outbuf;
struct sink_piece;
struct pf_worker;
bool tmx_perfetto_splits(const struct tmx_perfetto *s);
struct pf_worker *tmx_perfetto_worker_new(const struct tmx_perfetto *s);
void tmx_perfetto_worker_free(struct pf_worker *w);
struct outbuf *tmx_perfetto_worker_outbuf(struct pf_worker *w);
void tmx_perfetto_format(struct pf_worker *w, const struct tmx_msg *msg, uint64_t hole[2]);
int tmx_perfetto_emit(struct tmx_perfetto *s, const struct sink_piece *pc, struct tmx_error *err);

#endif
