/*
 * xorshift64: cheap reproducible pseudo-random values, the same on every
 * run, for the unit tests' generated inputs (one copy for all of them).
 */
#ifndef TMX_TEST_XORSHIFT_H
#define TMX_TEST_XORSHIFT_H

#include <stdint.h>

/* The next value after *state (which must not be 0), stored back. */
static inline uint64_t xorshift64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif
