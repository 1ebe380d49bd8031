/*
 * Bytes of input a reader has consumed, for the progress display
 * (tmx_run_opts.progress): one thread (the one reading the stream) adds to
 * the counter once per packet, page or chunk, and any thread may read it
 * meanwhile.  Relaxed atomics: plain loads and stores on the machines we
 * build for, no ordering with anything else (a figure for display), and
 * never touched per event.
 */
#ifndef TMX_COMMON_PROGRESS_COUNT_H
#define TMX_COMMON_PROGRESS_COUNT_H

#include <stdint.h>

/* Only the owning thread writes: a load and a store, no locked instruction. */
static inline void tmx_count_set(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, v, __ATOMIC_RELAXED);
}

static inline void tmx_count_add(uint64_t *c, uint64_t n)
{
	tmx_count_set(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n);
}

static inline uint64_t tmx_count_get(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

#endif
