/* The dictionary of byte strings: see strdict.h. */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/strdict.h"

/* Bytes p[0, n) (n <= 8, any alignment) as a little-endian number. */
static inline uint64_t load_le(const uint8_t *p, size_t n)
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
static inline __attribute__((always_inline)) uint64_t hash_bytes(const uint8_t *p, size_t n)
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
	w = load_le(p, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 29;
}

/* Whether the entry of a full slot is the string `p` of `n` bytes. */
static inline bool slot_is(const struct tmx_strdict *d, uint64_t slot, const void *p, size_t n)
{
	const uint8_t *at = d->plain.p + (slot >> 32);

	return tmx_le_at(at, 4) == n && tmx_strdict_same(at + 4, p, n);
}

static inline uint64_t slot_of(const struct tmx_strdict *d, size_t e)
{
	return (uint64_t)d->offs[e] << 32 | (uint32_t)(e + 1);
}

/*
 * Doubles the hash table (entries rehashed from their bytes).  It starts
 * small: the Parquet output's tables each hold their string columns while
 * their row group fills, most of them with a few distinct strings.
 */
static bool rehash(struct tmx_strdict *d)
{
	size_t n_slots = d->n_slots ? d->n_slots * 2 : 16;
	uint64_t *slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t e = 0; e < d->n; e++) {
		size_t len;
		const uint8_t *at = tmx_strdict_at(d, e, &len);
		size_t s = hash_bytes(at, len) & (n_slots - 1);

		while (slots[s])
			s = (s + 1) & (n_slots - 1);
		slots[s] = slot_of(d, e);
	}
	free(d->slots);
	d->slots = slots;
	d->n_slots = n_slots;
	return true;
}

/* The slot of the string `p` of `n` bytes: its entry's, or the empty one where it would go. */
static inline __attribute__((always_inline)) size_t probe(const struct tmx_strdict *d, const void *p,
							     size_t n)
{
	size_t s = hash_bytes(p, n) & (d->n_slots - 1);

	while (d->slots[s] && !slot_is(d, d->slots[s], p, n))
		s = (s + 1) & (d->n_slots - 1);
	return s;
}

int64_t tmx_strdict_lookup(struct tmx_strdict *d, const void *p, size_t n)
{
	uint32_t e;
	size_t s;

	if (!d->n_slots || !(e = (uint32_t)d->slots[s = probe(d, p, n)]))
		return -1;
	d->last = e;
	d->last_at = (uint32_t)(d->slots[s] >> 32);
	return (int64_t)e - 1;
}

int64_t tmx_strdict_find_add(struct tmx_strdict *d, const void *p, size_t n, size_t max_entries,
			     size_t max_bytes)
{
	size_t s;
	void *offs = d->offs;

	if (max_bytes > UINT32_MAX)
		max_bytes = UINT32_MAX;   /* the offsets are 32-bit */
	if ((d->n + 1) * 2 > d->n_slots && !rehash(d))
		return -1;
	s = probe(d, p, n);
	if (d->slots[s]) {
		d->last = (uint32_t)d->slots[s];
		d->last_at = (uint32_t)(d->slots[s] >> 32);
		return (int64_t)d->last - 1;
	}
	if (d->n >= max_entries || d->n >= UINT32_MAX - 1 || n > max_bytes ||
	    d->plain.len + n + 4 > max_bytes || !tmx_buf_reserve(&d->plain, n + 4) ||
	    !tmx_grow_array(&offs, &d->offs_cap, d->n + 1, sizeof(*d->offs), 64))
		return -1;
	d->offs = offs;
	d->offs[d->n] = (uint32_t)d->plain.len;
	tmx_buf_le(&d->plain, n, 4);
	tmx_buf_put(&d->plain, p, n);
	d->slots[s] = slot_of(d, d->n);
	d->last_at = d->offs[d->n];
	d->last = (uint32_t)++d->n;
	return (int64_t)d->n - 1;
}

void tmx_strdict_clear(struct tmx_strdict *d)
{
	free(d->slots);
	d->slots = NULL;
	d->n_slots = 0;
	d->n = 0;
	d->last = d->last_at = 0;
	d->plain.len = 0;
	d->plain.oom = false;
}

void tmx_strdict_free(struct tmx_strdict *d)
{
	tmx_buf_free(&d->plain);
	free(d->offs);
	free(d->slots);
	*d = (struct tmx_strdict){ 0 };
}
