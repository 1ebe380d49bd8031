/*
 * The kernel event mapping: Linux kernel events recorded by ftrace
 * (trace.dat: `system:event` classes with ftrace's field names) seen as
 * lttng-modules 2.13 records them, on the common model.  Readers of LTTng
 * kernel traces (lttng-analyses, Trace Compass, `tracemux analyze`) then
 * read them unchanged: `-o ctf -p lttng-kernel` writes the mapped messages,
 * and `tracemux analyze` reads them on a trace.dat (kmap.c explains each
 * rule).
 *
 * A map is made for a source; each message of that source is mapped to a
 * message of the mapped traces (their own trace, stream and event
 * classes), valid until the next call.  Events with no lttng-modules
 * equivalent that LTTng readers would misread are dropped (NULL).  The
 * tasks a trace names (saved_cmdlines) become the state dump LTTng records
 * at a session's start (tmx_kmap_statedump), before the first event.
 */
#ifndef TMX_MODEL_KMAP_H
#define TMX_MODEL_KMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "tracemux/error.h"
#include "tracemux/model.h"
#include "tracemux/tracemux.h"

struct tmx_kmap;

/* Whether the map applies to the traces of `src`: all are trace.dat files. */
bool tmx_kmap_applies(const struct tmx_source *src);
/* A map of every trace of `src`; its classes are made here, once. */
int tmx_kmap_new(struct tmx_source *src, struct tmx_kmap **out, struct tmx_error *err);
void tmx_kmap_free(struct tmx_kmap *m);
/* The mapped trace of input trace `t` (NULL when `t` is not one of the source's). */
const struct tmx_trace *tmx_kmap_trace(const struct tmx_kmap *m, const struct tmx_trace *t);
/*
 * The message as an LTTng kernel trace has it, or NULL when it has no
 * equivalent (an event dropped).  Valid until the next call.  Returns
 * false only when out of memory.
 */
bool tmx_kmap_msg(struct tmx_kmap *m, const struct tmx_msg *in, const struct tmx_msg **out);
/*
 * The state dump of the trace of event message `in`, which the caller
 * writes (or reads) before `in` when `in` is its trace's first event:
 * lttng_statedump_process_state for task `i` of the trace
 * (tmx_trace_task(): trace.dat's saved_cmdlines), at `in`'s time, in its
 * stream.  *out is NULL once the trace's state dump is done (the call
 * past the last task ends it) or when `in` is not a first event; the
 * message is valid until the next call.  False only when out of memory.
 * `in` may come without its event and packet (as a sink of the caller's
 * own emits it, tracemux/sink.h): the state dump then has no packet (and
 * no packet context: no CPU).
 */
bool tmx_kmap_statedump(struct tmx_kmap *m, const struct tmx_msg *in, size_t i,
			const struct tmx_msg **out);
/* The mapped event classes: their ids are 0 .. count - 1, in every mapped trace. */
size_t tmx_kmap_class_count(const struct tmx_kmap *m);
/*
 * The mapped class of id `id` (NULL past the count).  Maps of the same
 * source make the same classes with the same ids: a class of one is the
 * class of that id in another.
 */
const struct tmx_event_class *tmx_kmap_class(const struct tmx_kmap *m, size_t id);

#endif
