/*
 * The LLVM XRay part of the Chrome output (chrome.c): function entries and
 * exits as llvm-xray's trace_event B/E events, see chrome_xray.c.
 */
#ifndef TMX_SINK_JSON_CHROME_XRAY_H
#define TMX_SINK_JSON_CHROME_XRAY_H

#include <stdbool.h>

#include "sink/outbuf.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

struct chrome_xray;

struct chrome_xray *chrome_xray_new(void);
void chrome_xray_free(struct chrome_xray *x);
/* Is `tc` an XRay trace class (env tracer_name "llvm-xray")?  Cached. */
bool chrome_xray_is_xray(struct chrome_xray *x, const struct tmx_trace_class *tc);
/*
 * Writes what an event of an XRay trace becomes (nothing, "M" metadata,
 * one "B", one or more "E"), each record preceded by "\n" or ",\n" as
 * *first says (and clears).
 */
int chrome_xray_event(struct chrome_xray *x, struct outbuf *b, bool *first,
		      const struct tmx_msg *msg, struct tmx_error *err);
/* `,"stackFrames":{...}` when an XRay event was seen, else nothing. */
void chrome_xray_finish(struct chrome_xray *x, struct outbuf *b);

#endif
