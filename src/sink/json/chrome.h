/* Chrome Trace Event / Perfetto JSON (object format): see chrome.c. */
#ifndef TMX_SINK_JSON_CHROME_H
#define TMX_SINK_JSON_CHROME_H

#include "tracemux/error.h"
#include "tracemux/model.h"
#include "tracemux/tracemux.h"

struct outbuf;
struct sink_piece;

struct tmx_chrome;

struct tmx_chrome *tmx_chrome_new(int fd);
/*
 * Also draw scheduling as per-CPU slices: each sched_switch event (CTF or
 * ftrace, CPU from the packet context's cpu_id) ends the slice running on
 * its CPU and starts one named after next_comm, on a "CPUs" process of its
 * trace with a thread per CPU.  Call before the first message.
 */
void tmx_chrome_set_sched_slices(struct tmx_chrome *c, bool on);
int tmx_chrome_consume(struct tmx_chrome *c, const struct tmx_msg *msg, struct tmx_error *err);
/* Closes the JSON document and flushes. */
int tmx_chrome_finish(struct tmx_chrome *c, struct tmx_error *err);
void tmx_chrome_free(struct tmx_chrome *c);

/*
 * The split for the parallel runner (src/sink/split.h), which applies
 * when none of the source's traces (told by tmx_chrome_note_traces) is an
 * XRay log.
 */
void tmx_chrome_note_traces(struct tmx_chrome *c, const struct tmx_source *src);
bool tmx_chrome_splits(const struct tmx_chrome *c);
struct tmx_chrome *tmx_chrome_worker_new(const struct tmx_chrome *sink);
struct outbuf *tmx_chrome_worker_outbuf(struct tmx_chrome *w);
void tmx_chrome_format(struct tmx_chrome *w, const struct tmx_msg *msg, uint64_t hole[2]);
int tmx_chrome_emit(struct tmx_chrome *c, const struct sink_piece *pc, struct tmx_error *err);

#endif
