/*
 * xray-account, pass 1: the latencies, within the memory budget.
 *
 * MEMORY.  The order statistics need the latencies, and a log far larger
 * than RAM has more calls than RAM can hold.  So:
 *
 * - Pass 1 keeps count, min, max and sum per function (exact, O(1) each)
 *   and stores the latencies compactly: those below 2^32 cycles as
 *   uint32, the rare others in a uint64 side array (selection only needs
 *   the multiset: a rank below the count of small ones is a small one).
 *   Large arrays are anonymous mappings grown with mremap: no copy, and
 *   the untouched capacity costs no resident memory.
 * - When the stored bytes would pass opts.memory, they are all dropped and
 *   each order statistic becomes a *target*: "the k-th smallest of
 *   function f's latencies in [lo, hi], of which there are n_in", starting
 *   from [min, max], or from 1/16 of an octave when the function got a
 *   log-linear histogram for the rest of pass 1 (7.6 KiB each, given to
 *   functions in order while they fit the budget; the dropped latencies go
 *   in first).  Then the log is read again: account_passes.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* mremap */
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/grow.h"
#include "tools/xray/account_impl.h"

/* Room for `need` elements of `elem` bytes. */
bool xacct_vec_reserve(struct vec *v, size_t need, size_t elem)
{
	size_t bytes = v->bytes ? v->bytes : 64 * elem;
	void *q;

	if (need > SIZE_MAX / elem)
		return false;
	if (need * elem <= v->bytes)
		return true;
	while (bytes < need * elem) {
		if (bytes > SIZE_MAX / 2)
			return false;
		bytes *= 2;
	}
	if (bytes < VEC_MAP_BYTES) {
		if (!(q = realloc(v->p, bytes)))
			return false;
	} else if (v->mapped) {
		q = mremap(v->p, v->bytes, bytes, MREMAP_MAYMOVE);
		if (q == MAP_FAILED)
			return false;
	} else {
		q = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			return false;
		if (v->n)
			memcpy(q, v->p, v->n * elem);
		free(v->p);
		v->mapped = true;
	}
	v->p = q;
	v->bytes = bytes;
	return true;
}

void xacct_vec_free(struct vec *v)
{
	if (v->mapped)
		munmap(v->p, v->bytes);
	else
		free(v->p);
	*v = (struct vec){ 0 };
}

/*
 * Pass 1 over the budget: a log-linear histogram per function (while they
 * fit the budget), so that pass 2 starts from 1/16 of an octave rather
 * than [min, max]: values below 16 exactly, then 16 buckets per power of
 * two.
 */
#define LH_SUB 16
#define LH_BUCKETS (LH_SUB + (64 - 4) * LH_SUB)
#define LH_BYTES (LH_BUCKETS * sizeof(uint64_t))

static unsigned lh_bucket(uint64_t v)
{
	unsigned e;

	if (v < LH_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);   /* >= 4 */
	return LH_SUB + (e - 4) * LH_SUB + (unsigned)((v >> (e - 4)) & (LH_SUB - 1));
}

/* The first value of bucket b, and its width as a shift. */
static uint64_t lh_low(unsigned b, unsigned *shift)
{
	unsigned e;

	if (b < LH_SUB) {
		*shift = 0;
		return b;
	}
	e = (b - LH_SUB) / LH_SUB + 4;
	*shift = e - 4;
	return (uint64_t)(LH_SUB + (b - LH_SUB) % LH_SUB) << (e - 4);
}

/* A histogram for f if the budget has room (f's latencies so far must all go in). */
static bool lh_new(struct tmx_xacct *a, struct func *f)
{
	if (a->lh_bytes + LH_BYTES > a->budget)
		return true;   /* none: pass 2 starts from [min, max] */
	if (!(f->lhist = calloc(LH_BUCKETS, sizeof(*f->lhist))))
		return false;
	a->lh_bytes += LH_BYTES;
	return true;
}

/*
 * Over the budget: the stored latencies go (into the histograms), later
 * passes will find the order statistics.
 */
static bool drop_stored(struct tmx_xacct *a)
{
	a->over = true;
	for (size_t i = 0; i < a->n_lat_order; i++) {
		struct func *f = &a->funcs[a->lat_order[i]];
		if (!lh_new(a, f))
			return false;
		if (f->lhist) {
			for (size_t j = 0; j < f->small.n; j++)
				f->lhist[lh_bucket(((uint32_t *)f->small.p)[j])]++;
			for (size_t j = 0; j < f->big.n; j++)
				f->lhist[lh_bucket(((uint64_t *)f->big.p)[j])]++;
		}
		xacct_vec_free(&f->small);
		xacct_vec_free(&f->big);
	}
	a->stored = 0;
	return true;
}

bool xacct_first_latency(struct tmx_xacct *a, struct func *f, uint64_t latency)
{
	if (f->n == 0) {
		if (!tmx_grow_array((void **)&a->lat_order, &a->cap_lat_order, a->n_lat_order + 1,
				    sizeof(*a->lat_order), 8))
			return false;
		a->lat_order[a->n_lat_order++] = (uint32_t)(f - a->funcs);
		if (a->over && !lh_new(a, f))
			return false;
		f->min = f->max = latency;
	} else if (latency < f->min) {
		f->min = latency;
	} else if (latency > f->max) {
		f->max = latency;
	}
	f->n++;
	f->sum += (double)latency;
	f->check += latency;
	a->total++;
	if (!a->over) {
		bool narrow = latency <= UINT32_MAX;
		size_t size = narrow ? sizeof(uint32_t) : sizeof(uint64_t);
		struct vec *v = narrow ? &f->small : &f->big;
		if (a->stored + size <= a->budget) {
			if (!xacct_vec_reserve(v, v->n + 1, size))
				return false;
			if (narrow)
				((uint32_t *)v->p)[v->n++] = (uint32_t)latency;
			else
				((uint64_t *)v->p)[v->n++] = latency;
			a->stored += size;
			return true;
		}
		if (!drop_stored(a))
			return false;
	}
	if (f->lhist)
		f->lhist[lh_bucket(latency)]++;
	return true;
}

/* ------------------------------------------------------------------ */
/* Selection                                                            */
/* ------------------------------------------------------------------ */

/* The k-th smallest of v[0..n) (v is reordered): quickselect, Hoare partition. */
#define DEFINE_SELECT(name, T)                                                         \
	T name(T *v, size_t n, size_t k)                                                \
	{                                                                               \
		size_t lo = 0, hi = n - 1;                                              \
                                                                                        \
		while (lo < hi) {                                                       \
			size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;                \
			T a = v[lo], b = v[mid], c = v[hi], pivot;                      \
			/* Median of three, so sorted and equal runs stay linear. */   \
			pivot = a < b ? (b < c ? b : (a < c ? c : a))                   \
				      : (a < c ? a : (b < c ? c : b));                  \
			for (;;) {                                                      \
				while (v[i] < pivot)                                    \
					i++;                                            \
				while (v[j] > pivot)                                    \
					j--;                                            \
				if (i >= j)                                             \
					break;                                          \
				T tmp = v[i];                                           \
				v[i] = v[j];                                            \
				v[j] = tmp;                                             \
				i++;                                                    \
				j--;                                                    \
			}                                                               \
			/* v[lo..j] <= pivot <= v[j+1..hi] */                           \
			if (k <= j)                                                     \
				hi = j;                                                 \
			else                                                            \
				lo = j + 1;                                             \
		}                                                                       \
		return v[k];                                                            \
	}

DEFINE_SELECT(xacct_select_u32, uint32_t)
DEFINE_SELECT(xacct_select_u64, uint64_t)

/* llvm-xray's ranks: element n/2, floor(n*0.9), floor(n*0.99) of the sorted latencies. */
uint64_t xacct_rank(uint64_t n, int which)
{
	switch (which) {
	case Q_MED:
		return n / 2;
	case Q_90:
		return (uint64_t)floor((double)n * 0.9);
	default:
		return (uint64_t)floor((double)n * 0.99);
	}
}

void xacct_select_stored(struct func *f)
{
	size_t n_small = f->small.n;

	for (int q = 0; q < N_Q; q++) {
		uint64_t k = xacct_rank(f->n, q);
		f->q[q] = k < n_small ? xacct_select_u32(f->small.p, n_small, (size_t)k)
				      : xacct_select_u64(f->big.p, f->big.n, (size_t)(k - n_small));
	}
	xacct_vec_free(&f->small);
	xacct_vec_free(&f->big);
}

bool lh_narrow(const struct func *f, struct target *t)
{
	uint64_t below = 0, lo;
	unsigned b = 0, shift;

	while (b < LH_BUCKETS && below + f->lhist[b] <= t->k)
		below += f->lhist[b++];
	if (b == LH_BUCKETS)
		return false;   /* the counts do not add up to n: cannot be */
	lo = lh_low(b, &shift);
	/* [lo, lo + 2^shift - 1] within [min, max] (the last bucket ends at UINT64_MAX). */
	if (lo > t->lo)
		t->lo = lo;
	if (t->hi - lo > ((uint64_t)1 << shift) - 1)
		t->hi = lo + (((uint64_t)1 << shift) - 1);
	t->k -= below;
	t->n_in = f->lhist[b];
	return true;
}
