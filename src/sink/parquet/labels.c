/* Enumeration and bit map labels, joined and memoized (labels.h). */
#include <string.h>

#include "sink/parquet/labels.h"

/*
 * The slot of (fc, u): the class's address and the value mixed, then the
 * top bits of a multiplicative hash, so that the small values of one
 * class spread over the slots and classes do not share a pattern.
 */
static struct pq_label_slot *slot_of(struct pq_labels *l, const struct tmx_field_class *fc,
				     uint64_t u)
{
	uint64_t h = ((uint64_t)(uintptr_t)fc >> 4 ^ u) * 0x9E3779B97F4A7C15ull;

	return &l->slot[h >> (64 - 6)];
}

_Static_assert(PQ_LABEL_SLOTS == 1 << 6, "slot_of takes 6 bits");
_Static_assert(PQ_LABEL_MAX <= UINT8_MAX, "a slot's len is a byte");

/*
 * A miss: the labels joined (the one walk of the mappings), remembered in
 * slot `s` when short enough.  Not inlined: the hit, pq_labels_get's
 * usual way, then saves no registers.
 */
static __attribute__((noinline)) const char *join(struct pq_labels *l, struct pq_label_slot *s,
						  const struct tmx_field_class *fc, uint64_t u,
						  size_t *n)
{
	struct tmx_buf *b = &l->join;

	b->len = 0;
	for (size_t m = 0; m < fc->n_mappings; m++) {
		if (!tmx_mapping_holds(fc, &fc->mappings[m], u))
			continue;
		if (b->len)
			tmx_buf_put(b, ", ", 2);
		tmx_buf_put(b, fc->mappings[m].label, strlen(fc->mappings[m].label));
	}
	*n = b->len;
	/* Out of memory, the join may lack labels: not remembered as the answer. */
	if (b->len <= PQ_LABEL_MAX && !b->oom) {
		s->fc = fc;
		s->u = u;
		s->len = (uint8_t)b->len;
		if (b->len)
			memcpy(s->text, b->p, b->len);
	}
	return (const char *)b->p;
}

const char *pq_labels_get(struct pq_labels *l, const struct tmx_field_class *fc, uint64_t u,
			  size_t *n)
{
	struct pq_label_slot *s = slot_of(l, fc, u);

	if (s->fc != fc || s->u != u)
		return join(l, s, fc, u, n);
	*n = s->len;
	return s->text;
}
