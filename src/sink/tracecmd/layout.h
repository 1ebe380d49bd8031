/*
 * `-o tracecmd` for traces that are not trace.dat files (CTF, XRay): the
 * events of the common model in the layout of `trace-cmd report -R`.
 *
 * There is no trace-cmd reference for these inputs, so this is a
 * documented approximation, one line per event:
 *
 *     COMM-PID [CPU] SECS.USECS: NAME: field=value field=value ...
 *
 *   COMM   a string context field named procname or comm, else "<...>"
 *   PID    an integer context field named tid, vtid, pid or vpid, else 0
 *   CPU    the packet context's cpu_id, else 0
 *   time   nanoseconds from the clock's origin, printed in microseconds as
 *          trace-cmd prints them
 *   NAME   the event class name, padded to 20 columns as trace-cmd does
 *   fields the event's specific context then payload fields, nested
 *          structures as {a=1 b=2}, arrays and sequences as [1, 2],
 *          variants as their selected option's value
 *
 * Discarded events become "CPU:N [COUNT EVENTS DROPPED]" lines (trace-cmd's
 * text for a page with missed events); discarded packets
 * "CPU:N [EVENTS DROPPED]".
 */
#ifndef TMX_SINK_TRACECMD_LAYOUT_H
#define TMX_SINK_TRACECMD_LAYOUT_H

#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

struct tmx_tclayout;

struct tmx_tclayout *tmx_tclayout_new(int out_fd);
int tmx_tclayout_consume(struct tmx_tclayout *m, const struct tmx_msg *msg, struct tmx_error *err);
int tmx_tclayout_flush(struct tmx_tclayout *m, struct tmx_error *err);
void tmx_tclayout_free(struct tmx_tclayout *m);

/* The split for the parallel runner (src/sink/split.h): no holes. */
struct outbuf;
struct sink_piece;
struct tmx_tclayout *tmx_tclayout_worker_new(const struct tmx_tclayout *sink);
struct outbuf *tmx_tclayout_worker_outbuf(struct tmx_tclayout *w);
void tmx_tclayout_format(struct tmx_tclayout *w, const struct tmx_msg *msg, uint64_t hole[2]);
int tmx_tclayout_emit(struct tmx_tclayout *m, const struct sink_piece *pc, struct tmx_error *err);

#endif
