/*
 * std::sort as libstdc++ (GCC's bits/stl_algo.h) writes it: introsort
 * (median of three moved to the front, unguarded partition around it,
 * recursion on the right part), heap sort once 2*floor(log2 n) levels are
 * used up, then one insertion sort: guarded over the first 16 elements,
 * unguarded over the rest.
 *
 * libstdc++'s unguarded loops count on a strict weak order to stop them.
 * The reader's block comparator is not one, and there llvm-xray's loops
 * may run off the range (undefined behaviour); here every such loop also
 * stops at the bounds of its range.  Under a strict weak order the bounds
 * are never reached first, so the steps are libstdc++'s exactly.
 */
#include "xray/stdsort.h"

enum { SORT_THRESHOLD = 16 };   /* libstdc++'s _S_threshold */

struct sorter {
	uint32_t *v;
	xr_less_fn less;
	const void *ctx;
};

static bool less_at(const struct sorter *s, size_t i, size_t j)
{
	return s->less(s->ctx, s->v[i], s->v[j]);
}

static void swap_at(uint32_t *v, size_t i, size_t j)
{
	uint32_t t = v[i];

	v[i] = v[j];
	v[j] = t;
}

/* std::__move_median_to_first */
static void move_median_to_first(const struct sorter *s, size_t result, size_t a, size_t b,
				 size_t c)
{
	if (less_at(s, a, b)) {
		if (less_at(s, b, c))
			swap_at(s->v, result, b);
		else if (less_at(s, a, c))
			swap_at(s->v, result, c);
		else
			swap_at(s->v, result, a);
	} else if (less_at(s, a, c)) {
		swap_at(s->v, result, a);
	} else if (less_at(s, b, c)) {
		swap_at(s->v, result, c);
	} else {
		swap_at(s->v, result, b);
	}
}

/* std::__unguarded_partition of [first, last) around the element at `pivot`. */
static size_t unguarded_partition(const struct sorter *s, size_t first, size_t last, size_t pivot)
{
	size_t lo = first, hi = last;

	for (;;) {
		while (lo < last && less_at(s, lo, pivot))
			lo++;
		hi--;
		while (hi > first && less_at(s, pivot, hi))
			hi--;
		if (!(lo < hi))
			return lo;
		swap_at(s->v, lo, hi);
		lo++;
	}
}

/* std::__adjust_heap then std::__push_heap, on the heap v[first..first+len). */
static void adjust_heap(const struct sorter *s, size_t first, size_t hole, size_t len,
			uint32_t value)
{
	uint32_t *v = s->v + first;
	size_t top = hole, child = hole, parent;

	while (len > 2 && child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (s->less(s->ctx, v[child], v[child - 1]))
			child--;
		v[hole] = v[child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		v[hole] = v[child - 1];
		hole = child - 1;
	}
	parent = hole ? (hole - 1) / 2 : 0;
	while (hole > top && s->less(s->ctx, v[parent], value)) {
		v[hole] = v[parent];
		hole = parent;
		parent = hole ? (hole - 1) / 2 : 0;
	}
	v[hole] = value;
}

/* std::__partial_sort(first, last, last): make_heap, then sort_heap. */
static void heap_sort(const struct sorter *s, size_t first, size_t last)
{
	size_t len = last - first;

	if (len >= 2)
		for (size_t parent = (len - 2) / 2;; parent--) {
			adjust_heap(s, first, parent, len, s->v[first + parent]);
			if (parent == 0)
				break;
		}
	while (last - first > 1) {
		uint32_t value;

		last--;
		value = s->v[last];
		s->v[last] = s->v[first];
		adjust_heap(s, first, 0, last - first, value);
	}
}

static void introsort_loop(const struct sorter *s, size_t first, size_t last, size_t depth)
{
	while (last - first > SORT_THRESHOLD) {
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

/* std::__unguarded_linear_insert of v[i] (stopping at `first`, see the top). */
static void linear_insert(const struct sorter *s, size_t first, size_t i)
{
	uint32_t *v = s->v, val = v[i];

	while (i > first && s->less(s->ctx, val, v[i - 1])) {
		v[i] = v[i - 1];
		i--;
	}
	v[i] = val;
}

/* std::__insertion_sort: an element before the first one moves there at once. */
static void insertion_sort(const struct sorter *s, size_t first, size_t last)
{
	uint32_t *v = s->v;

	for (size_t i = first + 1; i < last; i++) {
		if (less_at(s, i, first)) {
			uint32_t val = v[i];
			for (size_t j = i; j > first; j--)
				v[j] = v[j - 1];
			v[first] = val;
		} else {
			linear_insert(s, first, i);
		}
	}
}

void xr_std_sort(uint32_t *v, size_t n, xr_less_fn less, const void *ctx)
{
	struct sorter s = { v, less, ctx };
	size_t lg = 0;

	if (n < 2)
		return;
	while ((n >> (lg + 1)) != 0)
		lg++;
	introsort_loop(&s, 0, n, 2 * lg);
	if (n > SORT_THRESHOLD) {
		insertion_sort(&s, 0, SORT_THRESHOLD);
		for (size_t i = SORT_THRESHOLD; i < n; i++)
			linear_insert(&s, 0, i);
	} else {
		insertion_sort(&s, 0, n);
	}
}
