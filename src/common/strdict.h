/*
 * A dictionary of byte strings: each distinct string gets the next entry
 * number (0, 1, ...), in order of arrival.  The Parquet writer's string
 * dictionaries (the entries are the dictionary page as they are stored:
 * PLAIN byte arrays, a 4-byte little-endian length then the bytes) and the
 * Python package's text columns (codes of categoricals).  An open-addressing
 * hash table over the bytes; the last string looked up is checked first,
 * since consecutive events often repeat a value.
 *
 * The Python extension compiles this file itself (python/src/common.c):
 * the library's archive keeps only the TMX_API functions global.
 */
#ifndef TMX_COMMON_STRDICT_H
#define TMX_COMMON_STRDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/buf.h"

struct tmx_strdict {
	struct tmx_buf plain;   /* the entries, each a 4-byte LE length and the bytes */
	uint32_t *offs;         /* where each entry starts in `plain` */
	size_t n, offs_cap;
	/*
	 * Hash table: entry + 1 (0 when empty) in the low 32 bits, where it
	 * starts in `plain` in the high ones, so that a look-up goes from
	 * its slot to the bytes without a load of `offs` between: the hash,
	 * the slot, the offset and the bytes were a chain of loads each
	 * waiting for the one before (Parquet's dictionaries are small and
	 * in the caches; the latency, not misses, was most of a look-up).
	 */
	uint64_t *slots;
	size_t n_slots;         /* power of two, or 0 */
	uint32_t last;          /* the last string's entry + 1 (0: none) */
	uint32_t last_at;       /* where it starts in `plain` (its check loads no `offs`) */
};

/* Entry `e`'s bytes and their length. */
static inline const uint8_t *tmx_strdict_at(const struct tmx_strdict *d, size_t e, size_t *len)
{
	const uint8_t *at = d->plain.p + d->offs[e];

	*len = (size_t)tmx_le_at(at, 4);
	return at + 4;
}

/*
 * Whether the `n` bytes at `a` and `b` are the same: up to 16 (most
 * names) by two loads each that may overlap, up to 64 by a loop, not a
 * call to memcmp.
 */
static inline bool tmx_strdict_same(const uint8_t *a, const void *b, size_t n)
{
	const uint8_t *q = b;
	uint64_t a0, a1, b0, b1;
	uint32_t c0, c1, d0, d1;

	if (n > 16) {
		/*
		 * Paths and messages: 8 bytes at a time up to 64 (the last 8
		 * overlapping), cheaper than memcmp's call; longer ones memcmp's.
		 */
		uint64_t diff = 0;
		size_t i = 0;

		if (n > 64)
			return !memcmp(a, b, n);
		for (; i + 8 < n; i += 8) {
			memcpy(&a0, a + i, 8);
			memcpy(&b0, q + i, 8);
			diff |= a0 ^ b0;
		}
		memcpy(&a1, a + n - 8, 8);
		memcpy(&b1, q + n - 8, 8);
		return !(diff | (a1 ^ b1));
	}
	if (n >= 8) {
		memcpy(&a0, a, 8);
		memcpy(&b0, q, 8);
		memcpy(&a1, a + n - 8, 8);
		memcpy(&b1, q + n - 8, 8);
		return !((a0 ^ b0) | (a1 ^ b1));
	}
	if (n >= 4) {
		memcpy(&c0, a, 4);
		memcpy(&d0, q, 4);
		memcpy(&c1, a + n - 4, 4);
		memcpy(&d1, q + n - 4, 4);
		return !((c0 ^ d0) | (c1 ^ d1));
	}
	return !n || (a[0] == q[0] && a[n / 2] == q[n / 2] && a[n - 1] == q[n - 1]);
}

/* Whether the string `p` of `n` bytes is the last one found or added. */
static inline bool tmx_strdict_is_last(const struct tmx_strdict *d, const void *p, size_t n)
{
	const uint8_t *at;

	if (!d->last)
		return false;
	at = d->plain.p + d->last_at;
	return tmx_le_at(at, 4) == n && tmx_strdict_same(at + 4, p, n);
}

/* Bytes p[0, n) (n <= 8, any alignment) as a little-endian number. */
static inline uint64_t tmx_strdict_le_tail(const uint8_t *p, size_t n)
{
	uint32_t lo, hi;

	if (n >= 4) {   /* two loads that overlap: the shared bytes are the same */
		memcpy(&lo, p, 4);
		memcpy(&hi, p + n - 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		lo = __builtin_bswap32(lo);
		hi = __builtin_bswap32(hi);
#endif
		return lo | (uint64_t)hi << (8 * (n - 4));
	}
	if (!n)
		return 0;
	return p[0] | (uint64_t)p[n / 2] << (8 * (n / 2)) | (uint64_t)p[n - 1] << (8 * (n - 1));
}

/*
 * The hash: 8 bytes at a time, the tail (under 8) as one number (it places
 * entries in the table only; their numbers are their order of arrival).
 */
static inline __attribute__((always_inline)) uint64_t tmx_strdict_hash(const uint8_t *p,
								       size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;

	if (n > 8 && n <= 16) {   /* most names: the first 8 bytes and the last 8, overlapping */
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		memcpy(&w, p + n - 8, 8);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
		return h ^ h >> 29;
	}
	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = tmx_strdict_le_tail(p, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

/* Whether the entry of a full slot is the string `p` of `n` bytes. */
static inline bool tmx_strdict_slot_is(const struct tmx_strdict *d, uint64_t slot, const void *p,
				       size_t n)
{
	const uint8_t *at = d->plain.p + (slot >> 32);

	return tmx_le_at(at, 4) == n && tmx_strdict_same(at + 4, p, n);
}

/* The slot of the string `p` of `n` bytes: its entry's, or the empty one where it would go. */
static inline __attribute__((always_inline)) size_t
tmx_strdict_probe(const struct tmx_strdict *d, const void *p, size_t n)
{
	size_t s = tmx_strdict_hash(p, n) & (d->n_slots - 1);

	while (d->slots[s] && !tmx_strdict_slot_is(d, d->slots[s], p, n))
		s = (s + 1) & (d->n_slots - 1);
	return s;
}

int64_t tmx_strdict_find_add(struct tmx_strdict *d, const void *p, size_t n, size_t max_entries,
			     size_t max_bytes);

/*
 * The entry of the string `p` of `n` bytes, -1 when it has none (nothing
 * added).  Inline: the Parquet writer's merge thread looks up every
 * string of every row, nearly all of them found (a call, and
 * tmx_strdict_find_add's checks for adding, were a third of a look-up).
 */
static inline int64_t tmx_strdict_lookup(struct tmx_strdict *d, const void *p, size_t n)
{
	uint64_t slot;

	if (!d->n_slots || !(slot = d->slots[tmx_strdict_probe(d, p, n)]))
		return -1;
	d->last = (uint32_t)slot;
	d->last_at = (uint32_t)(slot >> 32);
	return (int64_t)d->last - 1;
}

/*
 * The entry of the string `p` of `n` bytes, added when new; -1 when it
 * would make more than `max_entries` entries or `plain` longer than
 * `max_bytes` (at most UINT32_MAX), or memory runs out.
 */
static inline int64_t tmx_strdict_entry(struct tmx_strdict *d, const void *p, size_t n,
					size_t max_entries, size_t max_bytes)
{
	int64_t e;

	/* Runs of one value (a trace's fixed columns) skip the hash. */
	if (tmx_strdict_is_last(d, p, n))
		return d->last - 1;
	if ((e = tmx_strdict_lookup(d, p, n)) >= 0)
		return e;
	return tmx_strdict_find_add(d, p, n, max_entries, max_bytes);
}

/* tmx_strdict_lookup() after the last entry found or added is tried first (as tmx_strdict_entry). */
static inline int64_t tmx_strdict_find(struct tmx_strdict *d, const void *p, size_t n)
{
	if (tmx_strdict_is_last(d, p, n))
		return d->last - 1;
	return tmx_strdict_lookup(d, p, n);
}

/* Emptied, the allocations of the entries kept (the hash table is freed). */
void tmx_strdict_clear(struct tmx_strdict *d);
void tmx_strdict_free(struct tmx_strdict *d);

#endif
