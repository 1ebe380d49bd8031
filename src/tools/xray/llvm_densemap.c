/*
 * llvm::DenseMap<int32_t/uint32_t, T> iteration order (llvm 14): buckets
 * from 64, doubled before an insertion that would reach 3/4 load, the
 * entries moved in old-bucket order; hash (unsigned)(key * 37), quadratic
 * probing.  The maps llvm-xray iterates are filled without erasures, so
 * there are no tombstones while inserting.
 */
#include <stdlib.h>

#include "tools/xray/llvm_densemap.h"

#define EMPTY UINT32_MAX

static uint32_t slot_of(uint32_t key, const uint32_t *bk, size_t nb)
{
	size_t p = (key * 37u) & (nb - 1), probe = 1;

	while (bk[p] != EMPTY)
		p = (p + probe++) & (nb - 1);
	return (uint32_t)p;
}

bool llvm_densemap32_order(const uint32_t *keys, size_t n, uint32_t *out)
{
	size_t nb = 0, used = 0;
	uint32_t *bk = NULL;   /* index into keys, EMPTY */

	for (size_t i = 0; i < n; i++) {
		if ((used + 1) * 4 >= nb * 3) {
			size_t nb2 = nb ? nb * 2 : 64;
			uint32_t *b2 = malloc(nb2 * sizeof(*b2));
			if (!b2) {
				free(bk);
				return false;
			}
			for (size_t j = 0; j < nb2; j++)
				b2[j] = EMPTY;
			for (size_t j = 0; j < nb; j++)
				if (bk[j] != EMPTY)
					b2[slot_of(keys[bk[j]], b2, nb2)] = bk[j];
			free(bk);
			bk = b2;
			nb = nb2;
		}
		bk[slot_of(keys[i], bk, nb)] = (uint32_t)i;
		used++;
	}
	for (size_t j = 0, k = 0; j < nb; j++)
		if (bk[j] != EMPTY)
			out[k++] = bk[j];
	free(bk);
	return true;
}
