/*
 * Dense numbers for a set of objects known by address: the source numbers
 * its event classes and its streams this way (tracemux.h), so that callers
 * can keep per-object data in plain arrays.
 */
#ifndef TMX_MODEL_PTR_INDEX_H
#define TMX_MODEL_PTR_INDEX_H

#include <stdbool.h>
#include <stddef.h>

struct ptr_index {
	const void **dense;          /* number i → object */
	struct ptr_pos {
		const void *p;
		size_t i;
	} *sorted;                   /* by address, for look-ups */
	size_t n;
};

/*
 * Numbers the objects of `list` (n entries, duplicates allowed) in the
 * order of their first place.  False when out of memory (`ix` empty).
 */
bool ptr_index_build(struct ptr_index *ix, const void *const *list, size_t n);
/* The number of `p`, or SIZE_MAX when it is not in the index. */
size_t ptr_index_find(const struct ptr_index *ix, const void *p);
void ptr_index_free(struct ptr_index *ix);

#endif
