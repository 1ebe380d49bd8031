/*
 * llvm's DWARFDebugAranges::construct() in C: see cu_ranges.h.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/xray/cu_ranges.h"

bool tmx_cu_ranges_add(struct tmx_cu_ranges *r, uint32_t unit, uint64_t lo, uint64_t hi)
{
	if (lo >= hi)
		return true;
	if (!tmx_grow_array((void **)&r->ranges, &r->cap_ranges, r->n_ranges + 1,
			    sizeof(*r->ranges), 16))
		return false;
	r->ranges[r->n_ranges++] = (struct tmx_cu_range){ lo, hi, unit };
	return true;
}

struct endpoint {
	uint64_t addr;
	uint32_t unit;
	bool start;
};

static int endpoint_cmp(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The units covering the current address: llvm's std::multiset ValidCUs,
 * here an ascending array (ranges rarely overlap: a few entries at most).
 */
struct active {
	uint32_t *v;
	size_t n, cap;
};

static bool active_add(struct active *a, uint32_t unit)
{
	size_t i;

	if (!tmx_grow_array((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v), 16))
		return false;
	for (i = a->n; i > 0 && a->v[i - 1] > unit; i--)
		a->v[i] = a->v[i - 1];
	a->v[i] = unit;
	a->n++;
	return true;
}

static bool active_has(const struct active *a, uint32_t unit)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i] == unit)
			return true;
	return false;
}

static void active_remove(struct active *a, uint32_t unit)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i] == unit) {
			memmove(a->v + i, a->v + i + 1, (a->n - i - 1) * sizeof(*a->v));
			a->n--;
			return;
		}
}

bool tmx_cu_ranges_build(struct tmx_cu_ranges *r)
{
	struct endpoint *eps;
	struct active act = { NULL, 0, 0 };
	size_t n_eps = 2 * r->n_ranges, cap_segs = 0;
	uint64_t prev = UINT64_MAX;
	bool ok = false;

	free(r->segs);
	r->segs = NULL;
	r->n_segs = 0;
	if (!r->n_ranges)
		return true;
	if (r->n_ranges > SIZE_MAX / 2 / sizeof(*eps) || !(eps = malloc(n_eps * sizeof(*eps))))
		return false;
	for (size_t i = 0; i < r->n_ranges; i++) {
		eps[2 * i] = (struct endpoint){ r->ranges[i].lo, r->ranges[i].unit, true };
		eps[2 * i + 1] = (struct endpoint){ r->ranges[i].hi, r->ranges[i].unit, false };
	}
	/*
	 * Ties at one address need no order: a segment is only cut between two
	 * different addresses, from the units left after all the endpoints at
	 * the first one.
	 */
	qsort(eps, n_eps, sizeof(*eps), endpoint_cmp);
	for (size_t i = 0; i < n_eps; i++) {
		const struct endpoint *e = &eps[i];
		if (prev < e->addr && act.n) {
			struct tmx_cu_range *last = r->n_segs ? &r->segs[r->n_segs - 1] : NULL;
			struct tmx_cu_range seg = { prev, e->addr, act.v[0] };
			if (last && last->hi == prev && active_has(&act, last->unit)) {
				last->hi = e->addr;   /* the unit before keeps the address */
			} else {
				if (!tmx_grow_array((void **)&r->segs, &cap_segs, r->n_segs + 1,
						    sizeof(*r->segs), 16))
					goto out;
				r->segs[r->n_segs++] = seg;
			}
		}
		if (e->start) {
			if (!active_add(&act, e->unit))
				goto out;
		} else {
			active_remove(&act, e->unit);
		}
		prev = e->addr;
	}
	ok = true;
out:
	free(eps);
	free(act.v);
	return ok;
}

bool tmx_cu_ranges_find(const struct tmx_cu_ranges *r, uint64_t addr, uint32_t *unit)
{
	size_t lo = 0, hi = r->n_segs;

	/* The last segment starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->segs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= r->segs[lo - 1].hi)
		return false;
	*unit = r->segs[lo - 1].unit;
	return true;
}

void tmx_cu_ranges_free(struct tmx_cu_ranges *r)
{
	free(r->ranges);
	free(r->segs);
	memset(r, 0, sizeof(*r));
}
