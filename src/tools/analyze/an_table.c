/*
 * Records kept in first-insertion order with an id map into them: what a
 * Python dict of lttng-analyses is (tasks by tid, CPUs by id), so tables
 * list entries in the same order and ties sort as they do there.
 */
#define _GNU_SOURCE   /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/analyze/an_impl.h"

/* Map keys: the sign bit flipped, so that -1 is a key too (imap keeps UINT64_MAX free). */
static inline uint64_t key_of(int64_t key)
{
	return (uint64_t)key ^ (1ull << 63);
}

void *an_table_get(struct an_table *t, int64_t key, bool *added)
{
	uint32_t *slot = imap_find(&t->map, key_of(key));
	void *r;

	*added = false;
	if (slot)
		return an_table_at(t, *slot);
	/* Room for the record first: a failure leaves the map as it was. */
	if (t->n >= UINT32_MAX || !tmx_grow_array((void **)&t->rec, &t->cap, t->n + 1, t->size, 16) ||
	    !imap_get(&t->map, key_of(key), (uint32_t)t->n, added))
		return NULL;
	r = an_table_at(t, t->n++);
	memset(r, 0, t->size);
	return r;
}

void *an_table_find(const struct an_table *t, int64_t key)
{
	const uint32_t *slot = imap_find(&t->map, key_of(key));

	return slot ? an_table_at(t, *slot) : NULL;
}

void an_table_free(struct an_table *t)
{
	imap_free(&t->map);
	free(t->rec);
	memset(t, 0, sizeof(*t));
}

struct order_ctx {
	const struct an_table *t;
	int (*cmp)(const void *a, const void *b);
};

static int order_cmp(const void *x, const void *y, void *arg)
{
	const struct order_ctx *c = arg;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int r = c->cmp(an_table_at(c->t, i), an_table_at(c->t, j));

	return r ? r : (i > j) - (i < j);
}

size_t *an_table_order(const struct an_table *t, int (*cmp)(const void *a, const void *b))
{
	struct order_ctx c = { t, cmp };
	size_t *idx = malloc((t->n ? t->n : 1) * sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		idx[i] = i;
	qsort_r(idx, t->n, sizeof(*idx), order_cmp, &c);
	return idx;
}

bool an_prios_add(struct an_prios *p, int64_t prio)
{
	size_t i = 0;

	while (i < p->n && p->v[i].prio < prio)
		i++;
	if (i < p->n && p->v[i].prio == prio) {
		p->v[i].count++;
		return true;
	}
	if (!tmx_grow_array((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v), 4))
		return false;
	memmove(p->v + i + 1, p->v + i, (p->n - i) * sizeof(*p->v));
	p->v[i] = (struct an_prio){ prio, 1 };
	p->n++;
	return true;
}
