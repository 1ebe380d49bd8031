/* Dense numbers for objects known by address: see ptr_index.h. */
#include <stdlib.h>

#include "common/ptr_index.h"

bool ptr_index_build(struct ptr_index *ix, const void *const *list, size_t n)
{
	size_t cap = 8;
	unsigned bits = 3;

	*ix = (struct ptr_index){ 0 };
	/* A power of two at least twice the objects: short probe sequences. */
	while (cap < n || cap - n < n) {
		if (cap > SIZE_MAX / 2 / sizeof(*ix->slots))
			return false;
		cap *= 2;
		bits++;
	}
	ix->slots = calloc(cap, sizeof(*ix->slots));
	ix->dense = malloc((n ? n : 1) * sizeof(*ix->dense));
	if (!ix->slots || !ix->dense) {
		ptr_index_free(ix);
		return false;
	}
	ix->mask = cap - 1;
	ix->shift = 64 - bits;
	for (size_t k = 0; k < n; k++) {
		const void *p = list[k];
		size_t i;

		if (!p)
			continue;
		for (i = ptr_index_slot(ix, p); ix->slots[i].p && ix->slots[i].p != p;
		     i = (i + 1) & ix->mask)
			;
		if (ix->slots[i].p)
			continue;    /* met before: it keeps its first number */
		ix->slots[i] = (struct ptr_slot){ p, ix->n };
		ix->dense[ix->n++] = p;
	}
	return true;
}

void ptr_index_free(struct ptr_index *ix)
{
	free(ix->dense);
	free(ix->slots);
	*ix = (struct ptr_index){ 0 };
}
