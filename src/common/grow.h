/* Growing arrays by doubling, for the few places that keep variable-size state. */
#ifndef TMX_COMMON_GROW_H
#define TMX_COMMON_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * tmx_grow_array() for arrays whose new elements must read as zeros
 * (counters, flags, stamps, pointers tested before they are set):
 * the elements between the old and the new capacity are zeroed.
 */
static inline bool tmx_grow_zeroed(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t old = *cap;

	if (!tmx_grow_array(p, cap, need, elem, first))
		return false;
	if (*cap > old)
		memset((char *)*p + old * elem, 0, (*cap - old) * elem);
	return true;
}

/*
 * Appends data[0, n) to the bytes *buf[0, *len) (of *cap allocated, grown
 * by doubling from `first`).  False when out of memory, nothing appended.
 */
static inline bool tmx_grow_append(char **buf, size_t *cap, size_t *len, const void *data,
				   size_t n, size_t first)
{
	if (*len > SIZE_MAX - n || !tmx_grow_array((void **)buf, cap, *len + n, 1, first))
		return false;
	memcpy(*buf + *len, data, n);
	*len += n;
	return true;
}

#endif
