/*
 * Dense numbers for a set of objects known by address: the source numbers
 * its event classes and its streams this way (tracemux.h), so that callers
 * can keep per-object data in plain arrays, and the event filters find the
 * number of an event's class with it (mux/filter.h).  A look-up is one or
 * two probes of an open-addressing table (Fibonacci hashing of the
 * address), where a binary search took ten: it runs once per event.
 */
#ifndef TMX_COMMON_PTR_INDEX_H
#define TMX_COMMON_PTR_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ptr_index {
	const void **dense;          /* number i → object */
	size_t n;
	struct ptr_slot {
		const void *p;       /* NULL: empty */
		size_t i;
	} *slots;                    /* mask + 1 of them, at least twice n */
	size_t mask;
	unsigned shift;              /* 64 - log2(mask + 1) */
};

/*
 * Numbers the objects of `list` (n entries, duplicates allowed, NULL ones
 * left out) in the order of their first place.  False when out of memory
 * (`ix` empty).
 */
bool ptr_index_build(struct ptr_index *ix, const void *const *list, size_t n);
void ptr_index_free(struct ptr_index *ix);

static inline size_t ptr_index_slot(const struct ptr_index *ix, const void *p)
{
	return (size_t)(((uint64_t)(uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15)) >> ix->shift);
}

/* The number of `p`, or SIZE_MAX when it is not in the index. */
static inline size_t ptr_index_find(const struct ptr_index *ix, const void *p)
{
	if (!ix->slots || !p)
		return SIZE_MAX;
	for (size_t i = ptr_index_slot(ix, p);; i = (i + 1) & ix->mask) {
		if (ix->slots[i].p == p)
			return ix->slots[i].i;
		if (!ix->slots[i].p)
			return SIZE_MAX;
	}
}

#endif
