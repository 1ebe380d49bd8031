/*
 * llvm-xray's record order, reproduced.
 *
 * `llvm-xray convert` stable-sorts records by TSC, so records with equal
 * TSCs keep the order llvm-xray built them in: threads in the iteration
 * order of a llvm::DenseMap keyed by (process id, thread id) (densemap.c),
 * each thread's blocks after a std::sort with a comparator that is not a
 * strict weak order (libstdc++'s algorithm: stdsort.c), since llvm-xray 14
 * on Debian is built against libstdc++.
 */
#include "xray/internal.h"
#include "xray/stdsort.h"

/*
 * Trace.cpp: L.Wallclock.seconds < R.seconds && L.nanos < R.nanos.  Not a
 * strict weak order, so libstdc++'s unguarded loops could run off the
 * range in llvm-xray (undefined behaviour); xr_std_sort stops at the bounds.
 */
static bool block_less(const void *blocks, uint32_t l, uint32_t r)
{
	const struct xr_block *L = (const struct xr_block *)blocks + l;
	const struct xr_block *R = (const struct xr_block *)blocks + r;

	return L->wall_sec < R->wall_sec && L->wall_usec < R->wall_usec;
}

void xr_sort_blocks(uint32_t *idx, size_t n, const struct xr_block *blocks)
{
	xr_std_sort(idx, n, block_less, blocks);
}
