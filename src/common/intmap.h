/*
 * A small map from 64-bit keys (below UINT64_MAX) to 32-bit values (open addressing, linear
 * probing, grows at 3/4 load): thread ids and function ids of XRay logs.
 * Zero-initialise a struct imap before use.
 */
#ifndef TMX_COMMON_INTMAP_H
#define TMX_COMMON_INTMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct imap {
	uint64_t *keys;     /* key + 1; 0 = empty slot */
	uint32_t *vals;
	size_t cap, n;      /* cap: power of two */
};

static inline size_t imap_hash(uint64_t k, size_t cap)
{
	k ^= k >> 29;
	return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static inline bool imap_grow(struct imap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		size_t j = imap_hash(m->keys[i] - 1, cap);
		while (keys[j])
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return true;
}

/* The value slot of `k`, inserted with `init` when absent; NULL when out of memory. */
static inline uint32_t *imap_get(struct imap *m, uint64_t k, uint32_t init, bool *added)
{
	size_t i;

	*added = false;
	if ((m->n + 1) * 4 > m->cap * 3 && !imap_grow(m))
		return NULL;
	i = imap_hash(k, m->cap);
	while (m->keys[i] && m->keys[i] != k + 1)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i]) {
		m->keys[i] = k + 1;
		m->vals[i] = init;
		m->n++;
		*added = true;
	}
	return &m->vals[i];
}

/* The value slot of `k`, or NULL when absent. */
static inline uint32_t *imap_find(const struct imap *m, uint64_t k)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = imap_hash(k, m->cap);
	while (m->keys[i] && m->keys[i] != k + 1)
		i = (i + 1) & (m->cap - 1);
	return m->keys[i] ? &m->vals[i] : NULL;
}

static inline void imap_free(struct imap *m)
{
	free(m->keys);
	free(m->vals);
}

#endif
