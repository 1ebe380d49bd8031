/*
 * Tracer quirks, as babeltrace2's source.ctf.fs handles them (its manual,
 * "Trace quirks"), detected from the metadata's `env` block.
 */
#ifndef TMX_CTF_QUIRKS_H
#define TMX_CTF_QUIRKS_H

#include <stdbool.h>

#include "tracemux/model.h"

struct ctf_quirks {
	/* LTTng: packets whose timestamp_end is 0 (lttng-crash) end at their last event. */
	bool zero_end_is_last_event;
	/* LTTng-UST < 2.11.0, LTTng-modules < 2.9.13 and 2.10.0..2.10.9:
	 * every packet ends at its last event (timestamp_end is unreliable). */
	bool end_is_last_event;
	/* barectf < 2.3.1: every packet begins at its first event. */
	bool begin_is_first_event;
};

/*
 * Detects the quirks of the trace that `tc` describes and, for LTTng, sets
 * the monotonic clock's origin to the Unix epoch (so that LTTng traces are
 * always correlatable).
 */
void ctf_quirks_detect(struct tmx_trace_class *tc, struct ctf_quirks *q);

#endif
