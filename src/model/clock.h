/*
 * Cycles to nanoseconds from a clock's origin, with what depends on the
 * clock alone (its offset in ns, whether it runs at 1 GHz) worked out
 * once: readers keep one per stream and convert every event's time with
 * it.  tmx_clock_ns_from_origin (model.c) is the same conversion, made
 * for one value.
 */
#ifndef TMX_MODEL_CLOCK_H
#define TMX_MODEL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "tracemux/model.h"

struct tmx_clock_conv {
	bool ok;             /* the offset is within int64 ns: else no value converts */
	bool ghz;            /* 1 GHz: cycles are ns (no double division) */
	uint64_t frequency;
	int64_t base;        /* the offset, ns from origin */
	/* The most ns from the offset that convert: below INT64_MAX, base + them within int64. */
	uint64_t max_ns;
};

/*
 * Adds `s` seconds and `cycles` cycles to the clock's offset and keeps
 * offset_cycles below the frequency.  The seconds saturate at the int64
 * limits (every conversion then reports overflow) instead of wrapping.
 * For readers building their clock classes (not in the API: a model read
 * from a source is not changed by its users).
 */
void tmx_clock_add_offset(struct tmx_clock_class *cc, int64_t s, uint64_t cycles);

void tmx_clock_conv_init(struct tmx_clock_conv *cv, const struct tmx_clock_class *cc);

/* babeltrace2's cycles to ns for a clock that does not run at 1 GHz. */
uint64_t tmx_clock_ns_from_cycles(uint64_t frequency, uint64_t cycles);

/* tmx_clock_ns_from_origin with a conversion made by tmx_clock_conv_init. */
static inline bool tmx_clock_conv_ns(const struct tmx_clock_conv *cv, uint64_t cycles,
				     int64_t *ns)
{
	uint64_t value_ns;

	if (__builtin_expect(!cv->ok, 0))
		return false;
	value_ns = cv->ghz ? cycles : tmx_clock_ns_from_cycles(cv->frequency, cycles);
	if (value_ns > cv->max_ns)
		return false;
	*ns = cv->base + (int64_t)value_ns;
	return true;
}

#endif
