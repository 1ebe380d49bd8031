/* Enumeration and bit map labels, joined and memoized (labels.h). */
#include <stddef.h>
#include <string.h>

#include "common/utf8.h"
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
_Static_assert(offsetof(struct pq_label_slot, len) ==
		       offsetof(struct pq_label_slot, text) + PQ_LABEL_MAX,
	       "PQ_LABEL_READ bytes from a slot's text are the slot's");

/* Whether p[0, n) is valid UTF-8. */
static bool utf8_valid(const char *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t l;

	for (size_t i = 0; i < n; i += l)
		if (!(l = tmx_utf8_seq_len(s + i, n - i)))
			return false;
	return true;
}

/*
 * A miss: the labels joined (the one walk of the mappings), remembered in
 * slot `s` when short enough and valid UTF-8.  Not inlined: the hit,
 * pq_labels_get's usual way, then saves no registers.
 */
static __attribute__((noinline)) const char *join(struct pq_labels *l, struct pq_label_slot *s,
						  const struct tmx_field_class *fc, uint64_t u,
						  size_t *n, bool *memo)
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
	*memo = b->len <= PQ_LABEL_MAX && !b->oom && utf8_valid((const char *)b->p, b->len);
	if (!*memo)
		return (const char *)b->p;
	s->fc = fc;
	s->u = u;
	s->len = (uint8_t)b->len;
	if (b->len)
		memcpy(s->text, b->p, b->len);
	return s->text;
}

const char *pq_labels_get(struct pq_labels *l, const struct tmx_field_class *fc, uint64_t u,
			  size_t *n, bool *memo)
{
	struct pq_label_slot *s = slot_of(l, fc, u);

	if (s->fc != fc || s->u != u)
		return join(l, s, fc, u, n, memo);
	*n = s->len;
	*memo = true;
	return s->text;
}
