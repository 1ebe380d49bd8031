/*
 * llvm-xray's record order, reproduced.
 *
 * `llvm-xray convert` stable-sorts records by TSC, so records with equal
 * TSCs keep the order llvm-xray built them in: threads in the iteration
 * order of a llvm::DenseMap keyed by (process id, thread id), each thread's
 * blocks after a std::sort with a comparator that is not a strict weak
 * order.  Both are reproduced here exactly (DenseMap's hashing, probing and
 * growth; libstdc++'s introsort), since llvm-xray 14 on Debian is built
 * against libstdc++.
 */
#include <stdlib.h>

#include "xray/internal.h"

/* ------------------------------------------------------------------ */
/* DenseMap<std::pair<uint64_t, int32_t>, V>                            */
/* ------------------------------------------------------------------ */

#define EMPTY_PID UINT64_MAX          /* DenseMapInfo<unsigned long>::getEmptyKey */
#define EMPTY_TID INT32_MAX           /* DenseMapInfo<int>::getEmptyKey */

static unsigned combine_hash(unsigned a, unsigned b)
{
	uint64_t key = (uint64_t)a << 32 | (uint64_t)b;

	key += ~(key << 32);
	key ^= (key >> 22);
	key += ~(key << 13);
	key ^= (key >> 8);
	key += (key << 3);
	key ^= (key >> 15);
	key += ~(key << 27);
	key ^= (key >> 31);
	return (unsigned)key;
}

static unsigned pair_hash(uint64_t pid, int32_t tid)
{
	return combine_hash((unsigned)(pid * 37UL), (unsigned)tid * 37U);
}

static bool is_empty(const struct xr_densemap *m, uint32_t b)
{
	return m->kpid[b] == EMPTY_PID && m->ktid[b] == EMPTY_TID;
}

/* LookupBucketFor: quadratic probing; returns the bucket of the key or the empty one. */
static uint32_t lookup(const struct xr_densemap *m, uint64_t pid, int32_t tid, bool *found)
{
	uint32_t mask = m->n_buckets - 1, b = pair_hash(pid, tid) & mask, probe = 1;

	for (;;) {
		if (m->kpid[b] == pid && m->ktid[b] == tid) {
			*found = true;
			return b;
		}
		if (is_empty(m, b)) {
			*found = false;
			return b;
		}
		b = (b + probe++) & mask;
	}
}

void xr_densemap_init(struct xr_densemap *m)
{
	*m = (struct xr_densemap){ 0 };
}

void xr_densemap_free(struct xr_densemap *m)
{
	free(m->kpid);
	free(m->ktid);
	free(m->val);
	*m = (struct xr_densemap){ 0 };
}

/* grow(): at least 64 buckets, a power of two; entries moved in bucket order. */
static int grow(struct xr_densemap *m, uint32_t at_least)
{
	struct xr_densemap old = *m;
	uint32_t n = 64;

	while (n < at_least)
		n *= 2;
	m->kpid = malloc(n * sizeof(*m->kpid));
	m->ktid = malloc(n * sizeof(*m->ktid));
	m->val = malloc(n * sizeof(*m->val));
	if (!m->kpid || !m->ktid || !m->val) {
		free(m->kpid);
		free(m->ktid);
		free(m->val);
		*m = old;
		return -1;
	}
	m->n_buckets = n;
	for (uint32_t b = 0; b < n; b++) {
		m->kpid[b] = EMPTY_PID;
		m->ktid[b] = EMPTY_TID;
	}
	for (uint32_t b = 0; b < old.n_buckets; b++) {
		bool found;
		uint32_t nb;
		if (is_empty(&old, b))
			continue;
		nb = lookup(m, old.kpid[b], old.ktid[b], &found);
		m->kpid[nb] = old.kpid[b];
		m->ktid[nb] = old.ktid[b];
		m->val[nb] = old.val[b];
	}
	free(old.kpid);
	free(old.ktid);
	free(old.val);
	return 0;
}

int xr_densemap_insert(struct xr_densemap *m, uint64_t pid, int32_t tid, uint32_t new_val,
		       uint32_t *val, bool *inserted)
{
	bool found = false;
	uint32_t b = 0;

	*inserted = false;
	if (m->n_buckets)
		b = lookup(m, pid, tid, &found);
	if (found) {
		*val = m->val[b];
		return 0;
	}
	/*
	 * The empty key itself cannot be stored (llvm asserts); such a key is
	 * stored with its tid changed, which only affects hash order.
	 */
	if (pid == EMPTY_PID && tid == EMPTY_TID)
		tid = EMPTY_TID - 1;
	/* InsertIntoBucketImpl: grow when 3/4 full (no tombstones here). */
	if ((uint64_t)(m->n_entries + 1) * 4 >= (uint64_t)m->n_buckets * 3) {
		if (m->n_buckets > UINT32_MAX / 4 || grow(m, m->n_buckets * 2))
			return -1;
		b = lookup(m, pid, tid, &found);
	} else if (m->n_buckets - (m->n_entries + 1) <= m->n_buckets / 8) {
		if (grow(m, m->n_buckets))
			return -1;
		b = lookup(m, pid, tid, &found);
	}
	m->kpid[b] = pid;
	m->ktid[b] = tid;
	m->val[b] = new_val;
	m->n_entries++;
	*val = new_val;
	*inserted = true;
	return 0;
}

uint32_t xr_densemap_find(const struct xr_densemap *m, uint64_t pid, int32_t tid, bool *found)
{
	uint32_t b;

	*found = false;
	if (!m->n_buckets)
		return 0;
	if (pid == EMPTY_PID && tid == EMPTY_TID)
		tid = EMPTY_TID - 1;
	b = lookup(m, pid, tid, found);
	return *found ? m->val[b] : 0;
}

void xr_densemap_values(const struct xr_densemap *m, uint32_t *out)
{
	size_t n = 0;

	for (uint32_t b = 0; b < m->n_buckets; b++)
		if (!is_empty(m, b))
			out[n++] = m->val[b];
}

/* ------------------------------------------------------------------ */
/* libstdc++ std::sort with llvm-xray's block comparator                */
/* ------------------------------------------------------------------ */

/*
 * Trace.cpp: L.Wallclock.seconds < R.seconds && L.nanos < R.nanos.  Not a
 * strict weak order, so libstdc++'s unguarded loops could run off the
 * range in llvm-xray (undefined behaviour); here they stop at the bounds.
 */
struct sorter {
	uint32_t *a;
	const struct xr_block *blocks;
};

static bool less(const struct sorter *s, uint32_t l, uint32_t r)
{
	const struct xr_block *L = &s->blocks[l], *R = &s->blocks[r];

	return L->wall_sec < R->wall_sec && L->wall_usec < R->wall_usec;
}

static void swap_at(uint32_t *a, size_t i, size_t j)
{
	uint32_t t = a[i];
	a[i] = a[j];
	a[j] = t;
}

static void move_median_to_first(struct sorter *s, size_t result, size_t a, size_t b, size_t c)
{
	uint32_t *v = s->a;

	if (less(s, v[a], v[b])) {
		if (less(s, v[b], v[c]))
			swap_at(v, result, b);
		else if (less(s, v[a], v[c]))
			swap_at(v, result, c);
		else
			swap_at(v, result, a);
	} else if (less(s, v[a], v[c])) {
		swap_at(v, result, a);
	} else if (less(s, v[b], v[c])) {
		swap_at(v, result, c);
	} else {
		swap_at(v, result, b);
	}
}

static size_t unguarded_partition(struct sorter *s, size_t first, size_t last, size_t pivot)
{
	uint32_t *v = s->a;
	size_t lo = first, hi = last;

	for (;;) {
		while (lo < last && less(s, v[lo], v[pivot]))
			lo++;
		hi--;
		while (hi > first && less(s, v[pivot], v[hi]))
			hi--;
		if (!(lo < hi))
			return lo;
		swap_at(v, lo, hi);
		lo++;
	}
}

static void adjust_heap(struct sorter *s, size_t first, size_t hole, size_t len, uint32_t value)
{
	uint32_t *v = s->a + first;
	size_t top = hole, child = hole, parent;

	while (len > 2 && child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (less(s, v[child], v[child - 1]))
			child--;
		v[hole] = v[child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		v[hole] = v[child - 1];
		hole = child - 1;
	}
	/* __push_heap */
	parent = hole ? (hole - 1) / 2 : 0;
	while (hole > top && less(s, v[parent], value)) {
		v[hole] = v[parent];
		hole = parent;
		parent = hole ? (hole - 1) / 2 : 0;
	}
	v[hole] = value;
}

/* __partial_sort(first, last, last): make_heap then sort_heap. */
static void heap_sort(struct sorter *s, size_t first, size_t last)
{
	size_t len = last - first;

	if (len >= 2) {
		size_t parent = (len - 2) / 2;
		for (;;) {
			adjust_heap(s, first, parent, len, s->a[first + parent]);
			if (parent == 0)
				break;
			parent--;
		}
	}
	while (last - first > 1) {
		uint32_t value;
		last--;
		value = s->a[last];
		s->a[last] = s->a[first];
		adjust_heap(s, first, 0, last - first, value);
	}
}

static void introsort_loop(struct sorter *s, size_t first, size_t last, size_t depth)
{
	while (last - first > 16) {
		size_t cut;
		if (depth == 0) {
			heap_sort(s, first, last);
			return;
		}
		depth--;
		move_median_to_first(s, first, first + 1, first + (last - first) / 2, last - 1);
		cut = unguarded_partition(s, first + 1, last, first);
		introsort_loop(s, cut, last, depth);
		last = cut;
	}
}

static void linear_insert(struct sorter *s, size_t first, size_t i)
{
	uint32_t *v = s->a, val = v[i];

	while (i > first && less(s, val, v[i - 1])) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = val;
}

static void insertion_sort(struct sorter *s, size_t first, size_t last)
{
	uint32_t *v = s->a;

	for (size_t i = first + 1; i < last; i++) {
		if (less(s, v[i], v[first])) {
			uint32_t val = v[i];
			for (size_t j = i; j > first; j--)
				v[j] = v[j - 1];
			v[first] = val;
		} else {
			linear_insert(s, first, i);
		}
	}
}

void xr_sort_blocks(uint32_t *idx, size_t n, const struct xr_block *blocks)
{
	struct sorter s = { idx, blocks };
	size_t lg = 0;

	if (n < 2)
		return;
	while ((n >> (lg + 1)) != 0)
		lg++;
	introsort_loop(&s, 0, n, 2 * lg);
	if (n > 16) {
		insertion_sort(&s, 0, 16);
		for (size_t i = 16; i < n; i++)
			linear_insert(&s, 0, i);
	} else {
		insertion_sort(&s, 0, n);
	}
}
