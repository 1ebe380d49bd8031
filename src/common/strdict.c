/* The dictionary of byte strings: see strdict.h. */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/strdict.h"

/* The empty slot where a string of hash `h` goes: the first from its own. */
static size_t place(const struct tmx_strdict *d, uint64_t h)
{
	size_t s = h >> d->shift;

	while (d->slots[s].e)
		s = (s + 1) & (d->n_slots - 1);
	return s;
}

/*
 * Doubles the hash table (the slots moved, long strings rehashed from
 * their bytes).  It starts small: the Parquet output's tables each hold
 * their string columns while their row group fills, most of them with a
 * few distinct strings.
 */
static bool rehash(struct tmx_strdict *d)
{
	struct tmx_strdict old = *d;

	d->n_slots = old.n_slots ? old.n_slots * 2 : 16;
	d->shift = old.n_slots ? old.shift - 1 : 60;
	if (!(d->slots = calloc(d->n_slots, sizeof(*d->slots)))) {
		*d = old;
		return false;
	}
	for (size_t i = 0; i < old.n_slots; i++) {
		const struct tmx_strdict_slot *t = &old.slots[i];
		struct tmx_strdict_str s = { NULL, t->n, t->lo, t->hi };
		size_t len;

		if (!t->e)
			continue;
		if (t->n > TMX_STRDICT_SHORT)
			s.p = tmx_strdict_at(d, t->e - 1, &len);
		d->slots[place(d, tmx_strdict_hash(&s))] = *t;
	}
	free(old.slots);
	return true;
}

int64_t tmx_strdict_add(struct tmx_strdict *d, struct tmx_strdict_str s, uint64_t h, size_t slot,
			size_t max_entries, size_t max_bytes)
{
	void *offs = d->offs;

	if (max_bytes > UINT32_MAX)
		max_bytes = UINT32_MAX;   /* the offsets are 32-bit */
	if (d->n >= max_entries || d->n >= UINT32_MAX - 1 || s.n > max_bytes ||
	    d->plain.len + s.n + 4 > max_bytes || !tmx_buf_reserve(&d->plain, s.n + 4) ||
	    !tmx_grow_array(&offs, &d->offs_cap, d->n + 1, sizeof(*d->offs), 64))
		return -1;
	d->offs = offs;
	/* The table at most half full; `slot` (tmx_strdict_search's) is in the one it had. */
	if ((d->n + 1) * 2 > d->n_slots) {
		if (!rehash(d))
			return -1;
		slot = place(d, h);
	}
	d->offs[d->n] = (uint32_t)d->plain.len;
	tmx_buf_le(&d->plain, s.n, 4);
	tmx_buf_put(&d->plain, s.p, s.n);
	d->slots[slot] = (struct tmx_strdict_slot){ s.lo, s.hi, (uint32_t)s.n, (uint32_t)++d->n };
	return tmx_strdict_found(d, &d->slots[slot]);
}

void tmx_strdict_clear(struct tmx_strdict *d)
{
	free(d->slots);
	d->slots = NULL;
	d->n_slots = 0;
	d->n = 0;
	d->last = NULL;
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
