#include <stdint.h>
#include <stdlib.h>

#include "model/ptr_index.h"

/* By address, then by place in the list. */
static int cmp_pos(const void *a, const void *b)
{
	const struct ptr_pos *x = a, *y = b;

	if (x->p != y->p)
		return (uintptr_t)x->p < (uintptr_t)y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_place(const void *a, const void *b)
{
	const struct ptr_pos *x = a, *y = b;

	return x->i < y->i ? -1 : x->i > y->i;
}

bool ptr_index_build(struct ptr_index *ix, const void *const *list, size_t n)
{
	*ix = (struct ptr_index){ 0 };
	ix->sorted = malloc((n ? n : 1) * sizeof(*ix->sorted));
	ix->dense = malloc((n ? n : 1) * sizeof(*ix->dense));
	if (!ix->sorted || !ix->dense) {
		ptr_index_free(ix);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		ix->sorted[i] = (struct ptr_pos){ list[i], i };
	/* Keep each object's first place, then number them in that order. */
	qsort(ix->sorted, n, sizeof(*ix->sorted), cmp_pos);
	for (size_t i = 0; i < n; i++)
		if (!ix->n || ix->sorted[ix->n - 1].p != ix->sorted[i].p)
			ix->sorted[ix->n++] = ix->sorted[i];
	qsort(ix->sorted, ix->n, sizeof(*ix->sorted), cmp_place);
	for (size_t i = 0; i < ix->n; i++) {
		ix->dense[i] = ix->sorted[i].p;
		ix->sorted[i].i = i;
	}
	qsort(ix->sorted, ix->n, sizeof(*ix->sorted), cmp_pos);
	return true;
}

size_t ptr_index_find(const struct ptr_index *ix, const void *p)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ix->sorted[mid].p == p)
			return ix->sorted[mid].i;
		if ((uintptr_t)ix->sorted[mid].p < (uintptr_t)p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

void ptr_index_free(struct ptr_index *ix)
{
	free(ix->dense);
	free(ix->sorted);
	*ix = (struct ptr_index){ 0 };
}
