/*
 * xray-account, the passes after the first when the latencies did not fit
 * the memory budget (account_store.c): exact order statistics all the same.
 *
 * The log is read again from its start, through the same stack machine
 * (skip statistics are counted in pass 1 only), so that every pass sees
 * the same latencies; each pass checks that it saw the same count and sum
 * of latencies per function as pass 1.
 *
 * - In each later pass, the targets of one function with the same interval
 *   share a *probe*.  A probe either collects the latencies of its interval
 *   (n_in of them, as uint32 offsets from lo when the interval is narrow)
 *   and selects, which resolves its targets; or counts them in a histogram
 *   of B buckets of width 2^s over its interval, after which each target
 *   narrows to its bucket (the rank within it follows from the counts
 *   below).  Probes are planned cheapest collection first: as many
 *   collections as fit the budget while every other probe keeps a
 *   histogram of at least 256 buckets (TMX_XACCT_MIN_PROBE bytes, the one
 *   floor over the budget), then the rest share what is left, up to 65536
 *   buckets each.  A histogram shrinks a range R to below 2R/B <= R/128:
 *   64-bit ranges are down to one value after at most 9 histogram passes:
 *   at most 10 passes in all.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* qsort_r */
#endif
#include <stdlib.h>

#include "common/errors.h"
#include "tools/xray/account_impl.h"

void xacct_free_probes(struct tmx_xacct *a)
{
	for (size_t i = 0; i < a->n_probes; i++) {
		free(a->probes[i].counts);
		xacct_vec_free(&a->probes[i].vals);
	}
	free(a->probes);
	a->probes = NULL;
	a->n_probes = 0;
}

bool xacct_probe_latency(struct tmx_xacct *a, struct func *f, uint64_t latency)
{
	f->seen++;
	f->seen_check += latency;
	a->pass_total++;
	for (unsigned i = 0; i < f->n_probes; i++) {
		struct probe *p = &a->probes[f->probe[i]];
		uint64_t off = latency - p->lo;
		if (latency < p->lo || off > p->hi - p->lo)
			continue;
		if (p->kind == PROBE_HIST) {
			p->counts[off >> p->shift]++;
		} else if (p->vals.n < p->n_in) {
			/* Room for n_in was reserved; more would mean another log (caught at the end). */
			if (p->wide)
				((uint64_t *)p->vals.p)[p->vals.n++] = latency;
			else
				((uint32_t *)p->vals.p)[p->vals.n++] = (uint32_t)off;
		} else {
			p->vals.n++;   /* counted only, for the check */
		}
	}
	return true;
}

static int changed(struct tmx_error *err, const char *what)
{
	return tmx_error_set(err, TMX_ERR_DATA, NULL,
			     "the log changed between passes over it (%s): cannot account it "
			     "within the memory budget", what);
}

/* Pass 1 over the budget: every order statistic not obvious from count, min and max is a target. */
static int make_targets(struct tmx_xacct *a, struct tmx_error *err)
{
	if (!(a->targets = malloc((a->n_lat_order ? a->n_lat_order : 1) * N_Q * sizeof(*a->targets))))
		return xacct_nomem(err);
	for (size_t i = 0; i < a->n_lat_order; i++) {
		struct func *f = &a->funcs[a->lat_order[i]];
		for (int q = 0; q < N_Q; q++) {
			uint64_t k = xacct_rank(f->n, q);
			if (k == 0 || f->min == f->max) {
				f->q[q] = f->min;
			} else if (k == f->n - 1) {
				f->q[q] = f->max;
			} else {
				struct target t = {
					.func = a->lat_order[i], .which = (uint8_t)q,
					.lo = f->min, .hi = f->max, .k = k, .n_in = f->n,
				};
				if (f->lhist && !lh_narrow(f, &t))
					return changed(err, "internal histogram");
				if (t.lo == t.hi)
					f->q[q] = t.lo;
				else
					a->targets[a->n_targets++] = t;
			}
		}
		free(f->lhist);
		f->lhist = NULL;
	}
	return TMX_OK;
}

static size_t sat_add(size_t x, size_t y)
{
	return x > SIZE_MAX - y ? SIZE_MAX : x + y;
}

static size_t sat_mul(size_t x, size_t y)
{
	return y && x > SIZE_MAX / y ? SIZE_MAX : x * y;
}

static int cmp_cost(const void *x, const void *y, void *probes)
{
	const struct probe *p = (const struct probe *)probes + *(const uint32_t *)x;
	const struct probe *q = (const struct probe *)probes + *(const uint32_t *)y;

	if (p->cost != q->cost)
		return p->cost < q->cost ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/*
 * The probes of the next pass (see the top): one per function and
 * interval of the unresolved targets; the cheapest collections that leave
 * every other probe TMX_XACCT_MIN_PROBE bytes of histogram, then
 * histograms sharing the rest.
 */
static int plan_pass(struct tmx_xacct *a, struct tmx_error *err)
{
	size_t n = 0, budget = a->budget, floor_bytes = 0, best = 0, prefix = 0, left, per, buckets;
	uint32_t *order;

	xacct_free_probes(a);
	if (!(a->probes = calloc(a->n_targets ? a->n_targets : 1, sizeof(*a->probes))))
		return xacct_nomem(err);
	for (size_t i = 0; i < a->n_funcs; i++)
		a->funcs[i].n_probes = 0;
	/* Targets of one function are consecutive: its probes are the last few. */
	for (size_t i = 0; i < a->n_targets; i++) {
		struct target *t = &a->targets[i];
		size_t j = n;
		if (t->done)
			continue;
		while (j > 0 && a->probes[j - 1].func == t->func &&
		       (a->probes[j - 1].lo != t->lo || a->probes[j - 1].hi != t->hi))
			j--;
		if (j == 0 || a->probes[j - 1].func != t->func) {
			struct probe *p = &a->probes[n];
			p->func = t->func;
			p->lo = t->lo;
			p->hi = t->hi;
			p->n_in = t->n_in;
			p->wide = t->hi - t->lo > UINT32_MAX;
			p->cost = t->n_in > SIZE_MAX / 8 ? SIZE_MAX
							 : (size_t)t->n_in * (p->wide ? 8 : 4);
			floor_bytes = sat_add(floor_bytes, p->cost < TMX_XACCT_MIN_PROBE
							   ? p->cost : TMX_XACCT_MIN_PROBE);
			j = ++n;
		}
		t->probe = (uint32_t)(j - 1);
	}
	a->n_probes = n;
	if (budget < floor_bytes)
		budget = floor_bytes;
	if (!(order = malloc((n ? n : 1) * sizeof(*order))))
		return xacct_nomem(err);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_cost, a->probes);
	/* The most collections that leave the others their floor (i = the cheap ones always does). */
	for (size_t i = 0, sum = 0;; i++) {
		if (sat_add(sum, sat_mul(n - i, TMX_XACCT_MIN_PROBE)) <= budget) {
			best = i;
			prefix = sum;
		}
		if (i == n)
			break;
		sum = sat_add(sum, a->probes[order[i]].cost);
	}
	left = budget - prefix;
	per = n > best ? left / (n - best) / sizeof(uint64_t) : 0;
	for (buckets = HIST_MIN_BUCKETS; buckets < HIST_MAX_BUCKETS && buckets * 2 <= per;)
		buckets *= 2;
	for (size_t i = 0; i < n; i++) {
		struct probe *p = &a->probes[order[i]];
		struct func *f = &a->funcs[p->func];
		if (i < best) {
			p->kind = PROBE_COLLECT;
			if (!xacct_vec_reserve(&p->vals, (size_t)p->n_in, p->wide ? 8 : 4))
				goto fail;
		} else {
			uint64_t range = p->hi - p->lo;
			p->kind = PROBE_HIST;
			while ((range >> p->shift) >= buckets)
				p->shift++;
			p->n_buckets = (size_t)(range >> p->shift) + 1;
			if (!(p->counts = calloc(p->n_buckets, sizeof(*p->counts))))
				goto fail;
		}
		f->probe[f->n_probes++] = order[i];
	}
	free(order);
	return TMX_OK;
fail:
	free(order);
	return xacct_nomem(err);
}

/*
 * After a later pass: checks that it saw pass 1's latencies, then narrows
 * or resolves the targets.
 */
static int end_pass(struct tmx_xacct *a, struct tmx_error *err)
{
	uint64_t skipped = 0;

	for (int k = 0; k < TMX_XACCT_N_SKIPS; k++)
		skipped += a->stats.skipped[k];
	if (a->pass_total != a->total || a->pass_skips != skipped)
		return changed(err, "other records");
	for (size_t i = 0; i < a->n_lat_order; i++) {
		const struct func *f = &a->funcs[a->lat_order[i]];
		if (f->seen != f->n || f->seen_check != f->check)
			return changed(err, "other latencies");
	}
	for (size_t i = 0; i < a->n_probes; i++) {
		struct probe *p = &a->probes[i];
		if (p->kind == PROBE_COLLECT && p->vals.n != p->n_in)
			return changed(err, "other latencies");
		if (p->kind == PROBE_HIST) {
			uint64_t in = 0;
			for (size_t b = 0; b < p->n_buckets; b++)
				in += p->counts[b];
			if (in != p->n_in)
				return changed(err, "other latencies");
		}
	}
	for (size_t i = 0; i < a->n_targets; i++) {
		struct target *t = &a->targets[i];
		struct probe *p = &a->probes[t->probe];
		struct func *f = &a->funcs[t->func];
		if (t->done)
			continue;
		if (p->kind == PROBE_COLLECT) {
			size_t k = (size_t)t->k;
			f->q[t->which] = p->wide ? xacct_select_u64(p->vals.p, p->vals.n, k)
						 : p->lo + xacct_select_u32(p->vals.p, p->vals.n, k);
			t->done = true;
			continue;
		}
		/* The bucket of the k-th: its bounds, and the rank within it. */
		uint64_t below = 0, width = (uint64_t)1 << p->shift;
		size_t b = 0;
		while (below + p->counts[b] <= t->k)
			below += p->counts[b++];
		t->lo = p->lo + ((uint64_t)b << p->shift);
		t->hi = p->hi - t->lo < width ? p->hi : t->lo + (width - 1);
		t->k -= below;
		t->n_in = p->counts[b];
		if (t->lo == t->hi) {
			f->q[t->which] = t->lo;
			t->done = true;
		}
	}
	xacct_free_probes(a);
	return TMX_OK;
}

int tmx_xacct_begin_pass(struct tmx_xacct *a, struct tmx_error *err)
{
	/* A fresh stack machine over the same records. */
	for (size_t i = 0; i < a->n_threads; i++) {
		a->threads[i].depth = 0;
		imap_free(&a->threads[i].recursion);
		a->threads[i].recursion = (struct imap){ 0 };
	}
	for (size_t i = 0; i < a->n_funcs; i++)
		a->funcs[i].seen = a->funcs[i].seen_check = 0;
	a->last_tc = NULL;
	a->last_thread = NULL;
	a->pass_total = a->pass_skips = 0;
	a->pass++;
	return plan_pass(a, err);
}

int tmx_xacct_finish(struct tmx_xacct *a, bool *again, struct tmx_error *err)
{
	int ret;

	*again = false;
	if (a->pass == 1) {
		a->stats.still_open = 0;
		for (size_t i = 0; i < a->n_threads; i++)
			a->stats.still_open += a->threads[i].depth;
		if (!a->over) {
			for (size_t i = 0; i < a->n_lat_order; i++)
				xacct_select_stored(&a->funcs[a->lat_order[i]]);
			return TMX_OK;
		}
		if ((ret = make_targets(a, err)))
			return ret;
	} else if ((ret = end_pass(a, err))) {
		return ret;
	}
	for (size_t i = 0; i < a->n_targets; i++)
		if (!a->targets[i].done) {
			if (a->pass >= MAX_PASSES)
				return tmx_error_set(err, TMX_ERR_LIMIT, NULL,
						     "xray-account: order statistics unresolved after "
						     "%u passes (internal error)", a->pass);
			*again = true;
			break;
		}
	return TMX_OK;
}
