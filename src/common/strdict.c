/* The dictionary of byte strings: see strdict.h. */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/strdict.h"

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
		size_t s = tmx_strdict_hash(at, len) & (n_slots - 1);

		while (slots[s])
			s = (s + 1) & (n_slots - 1);
		slots[s] = slot_of(d, e);
	}
	free(d->slots);
	d->slots = slots;
	d->n_slots = n_slots;
	return true;
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
	s = tmx_strdict_probe(d, p, n);
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
