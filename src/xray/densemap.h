/*
 * llvm::DenseMap (llvm 14) as far as llvm-xray's outputs depend on it: the
 * iteration order of its buckets.  llvm-xray walks DenseMaps to list
 * threads (the reader's (pid, tid) map, which decides the record order),
 * functions (`account`) and thread roots and callees (`stack`), so the
 * hashing, the probing and the growth of the real map are reproduced.
 */
#ifndef TMX_XRAY_DENSEMAP_H
#define TMX_XRAY_DENSEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* llvm::DenseMap<std::pair<uint64_t, int32_t>, ...>, insertion and iteration. */
struct xr_densemap {
	uint32_t n_buckets, n_entries;
	uint64_t *kpid;
	int32_t *ktid;
	uint32_t *val;
};

void xr_densemap_init(struct xr_densemap *m);
void xr_densemap_free(struct xr_densemap *m);
/* Finds or inserts; *val is the stored value (set to `new_val` if inserted). */
int xr_densemap_insert(struct xr_densemap *m, uint64_t pid, int32_t tid, uint32_t new_val,
		       uint32_t *val, bool *inserted);
/* The value stored for a key; *found tells whether it is there. */
uint32_t xr_densemap_find(const struct xr_densemap *m, uint64_t pid, int32_t tid, bool *found);
/* Values in iteration order (bucket order); `out` has n_entries slots. */
void xr_densemap_values(const struct xr_densemap *m, uint32_t *out);

/*
 * DenseMap<int32_t, T> and DenseMap<uint32_t, T>: keys[0..n) are distinct
 * keys in insertion order (int32 keys as their uint32 bits).  Writes to
 * out[0..n) the indexes of the keys in the order a DenseMap holding them
 * iterates.  Keys erased later keep the place of the others (erasing
 * leaves a tombstone, no rehash): filter them out of this order.  False
 * when out of memory.
 */
bool xr_densemap32_order(const uint32_t *keys, size_t n, uint32_t *out);

#endif
