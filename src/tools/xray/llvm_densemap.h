/*
 * The iteration order of llvm::DenseMap with 32-bit integer keys
 * (DenseMap<int32_t, T>, DenseMap<uint32_t, T>), which llvm-xray's outputs
 * follow: `account` lists functions in it before sorting, `stack` lists
 * threads and merges call trees in it.
 */
#ifndef TMX_OUT_XRAY_LLVM_DENSEMAP_H
#define TMX_OUT_XRAY_LLVM_DENSEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * keys[0..n): distinct keys in insertion order (int32 keys as their uint32
 * bits).  Writes to out[0..n) the indexes of the keys in the order a
 * DenseMap holding them iterates.  Keys erased later keep the place of the
 * others (erasing leaves a tombstone, no rehash): filter them out of this
 * order.  False when out of memory.
 */
bool llvm_densemap32_order(const uint32_t *keys, size_t n, uint32_t *out);

#endif
