/* Growing arrays by doubling, for the few places that keep variable-size state. */
#ifndef TMX_GROW_H
#define TMX_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Makes *p (of *cap elements of `elem` bytes) hold at least `need`
 * elements, doubling from `first`.  Returns false on overflow or when out
 * of memory, leaving *p and *cap as they were.
 */
static inline bool tmx_grow_array(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t cap2 = *cap ? *cap : first;
	void *q;

	if (need <= *cap)
		return true;
	while (cap2 < need) {
		if (cap2 > SIZE_MAX / 2)
			return false;
		cap2 *= 2;
	}
	if (cap2 > SIZE_MAX / elem || !(q = realloc(*p, cap2 * elem)))
		return false;
	*p = q;
	*cap = cap2;
	return true;
}

#endif
