/*
 * libstdc++'s std::sort, step for step, for the orders llvm-xray leaves
 * equal elements in.  llvm-xray 14 (Debian's, built against libstdc++)
 * sorts with llvm::sort, i.e. std::sort, which is not stable: where its
 * comparator ties (or is not even a strict weak order, as the reader's
 * block comparator), the result is that of libstdc++'s algorithm, so we run
 * the same algorithm.  Used by the reader's record order (order.c) and by
 * xray-account's table (src/tools/xray/).
 */
#ifndef TMX_XRAY_STDSORT_H
#define TMX_XRAY_STDSORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* comp(l, r) of llvm-xray on the elements of indexes l and r: l goes before r. */
typedef bool (*xr_less_fn)(const void *ctx, uint32_t l, uint32_t r);

/*
 * Sorts v[0..n), indexes of the caller's elements, as std::sort sorts the
 * elements themselves (it only moves them and compares them, so the
 * indexes end in the order the elements would).
 */
void xr_std_sort(uint32_t *v, size_t n, xr_less_fn less, const void *ctx);

#endif
