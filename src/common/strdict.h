/*
 * A dictionary of byte strings: each distinct string gets the next entry
 * number (0, 1, ...), in order of arrival.  The Parquet writer's string
 * dictionaries (the entries are the dictionary page as they are stored:
 * PLAIN byte arrays, a 4-byte little-endian length then the bytes) and the
 * Python package's text columns (codes of categoricals).  An open-addressing
 * hash table over the bytes; the last string found is checked first,
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

/* Strings of up to so many bytes (most names) are told apart by their key. */
#define TMX_STRDICT_SHORT 16

/*
 * A slot of the hash table: an entry's number + 1 (0: empty), its length
 * and, when it is short, its key: two numbers that with the length tell
 * it from any other string (8 to 16 bytes: the first 8 and the last 8,
 * which overlap; 4 to 7: the first 4 and the last 4; fewer: the first,
 * middle and last bytes; longer: 0).  A string looked up has its key read
 * once, for its hash and for the slots it is compared with: no load of
 * the entries' bytes (the slot, the offset and the bytes were a chain of
 * loads each waiting for the one before), no loop, no call.
 */
struct tmx_strdict_slot {
	uint64_t lo, hi;
	uint32_t n, e;
};

struct tmx_strdict {
	struct tmx_buf plain;   /* the entries, each a 4-byte LE length and the bytes */
	uint32_t *offs;         /* where each entry starts in `plain` */
	size_t n, offs_cap;
	struct tmx_strdict_slot *slots;
	size_t n_slots;                 /* power of two, or 0 */
	unsigned shift;                 /* 64 - log2(n_slots): a hash's slot is its top bits */
	/* The slot of the last string found or added (NULL: none), until the table grows. */
	const struct tmx_strdict_slot *last;
};

/* Entry `e`'s bytes and their length. */
static inline const uint8_t *tmx_strdict_at(const struct tmx_strdict *d, size_t e, size_t *len)
{
	const uint8_t *at = d->plain.p + d->offs[e];

	*len = (size_t)tmx_le_at(at, 4);
	return at + 4;
}

/* A string looked up: its bytes, its length, its key (as its slot's). */
struct tmx_strdict_str {
	const uint8_t *p;
	size_t n;
	uint64_t lo, hi;
};

static inline __attribute__((always_inline)) struct tmx_strdict_str
tmx_strdict_str(const void *p, size_t n)
{
	struct tmx_strdict_str s = { p, n, 0, 0 };
	uint32_t lo, hi;

	if (n > TMX_STRDICT_SHORT)
		return s;
	if (n >= 8) {
		memcpy(&s.lo, s.p, 8);
		memcpy(&s.hi, s.p + n - 8, 8);
	} else if (n >= 4) {
		memcpy(&lo, s.p, 4);
		memcpy(&hi, s.p + n - 4, 4);
		s.lo = lo;
		s.hi = hi;
	} else if (n) {
		s.lo = s.p[0] | (uint32_t)s.p[n / 2] << 8 | (uint32_t)s.p[n - 1] << 16;
	}
	return s;
}

/*
 * Whether the `n` bytes at `a` and `b` (n > TMX_STRDICT_SHORT: paths,
 * messages) are the same: up to 64 by 8 at a time (the last 8
 * overlapping), cheaper than memcmp's call; longer ones by memcmp.
 */
static inline bool tmx_strdict_same(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint64_t a0, b0, diff = 0;

	if (n > 64)
		return !memcmp(a, b, n);
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&a0, a + i, 8);
		memcpy(&b0, b + i, 8);
		diff |= a0 ^ b0;
	}
	memcpy(&a0, a + n - 8, 8);
	memcpy(&b0, b + n - 8, 8);
	return !(diff | (a0 ^ b0));
}

/* Whether full slot `t` is the string `s`: the key, or a long one's bytes. */
static inline __attribute__((always_inline)) bool
tmx_strdict_is(const struct tmx_strdict *d, const struct tmx_strdict_slot *t,
	       const struct tmx_strdict_str *s)
{
	if (t->n != s->n || t->lo != s->lo || t->hi != s->hi)
		return false;
	return s->n <= TMX_STRDICT_SHORT ||
	       tmx_strdict_same(d->plain.p + d->offs[t->e - 1] + 4, s->p, s->n);
}

/*
 * The hash (it places entries in the table only; their numbers are their
 * order of arrival), whose top bits choose the slot: a short string's key,
 * two multiplications; a longer one's bytes 8 at a time, the last 8
 * overlapping.
 */
static inline __attribute__((always_inline)) uint64_t
tmx_strdict_hash(const struct tmx_strdict_str *s)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ s->n, w;

	if (s->n <= TMX_STRDICT_SHORT)
		return (h ^ s->lo) * 0xff51afd7ed558ccdull ^ s->hi * 0xc4ceb9fe1a85ec53ull;
	for (size_t i = 0; i + 8 < s->n; i += 8) {
		memcpy(&w, s->p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	memcpy(&w, s->p + s->n - 8, 8);
	return (h ^ w) * 0xc4ceb9fe1a85ec53ull;
}

/* Full slot `t` found or added: the last string; its entry. */
static inline int64_t tmx_strdict_found(struct tmx_strdict *d, const struct tmx_strdict_slot *t)
{
	d->last = t;
	return (int64_t)t->e - 1;
}

/*
 * The entry of `s`: the last string's first (runs of one value skip the
 * hash), then the table's.  -1 when the dictionary lacks it: then *h is
 * its hash and, when the table is not empty, *slot the empty slot where
 * it goes (tmx_strdict_add takes them: one probe).  Inline: the Parquet
 * writer's merge thread looks up every string of every row, nearly all
 * of them found (a call was a third of a look-up).
 */
static inline __attribute__((always_inline)) int64_t
tmx_strdict_search(struct tmx_strdict *d, const struct tmx_strdict_str *s, uint64_t *h,
		   size_t *slot)
{
	size_t mask = d->n_slots - 1, i;

	*h = 0;
	*slot = 0;
	if (d->last && tmx_strdict_is(d, d->last, s))
		return (int64_t)d->last->e - 1;
	*h = tmx_strdict_hash(s);
	if (!d->n_slots)
		return -1;
	for (i = *h >> d->shift; d->slots[i].e; i = (i + 1) & mask)
		if (tmx_strdict_is(d, &d->slots[i], s))
			return tmx_strdict_found(d, &d->slots[i]);
	*slot = i;
	return -1;
}

/*
 * `s` added as the next entry, tmx_strdict_search having not found it
 * (`h`, `slot`: what it gave); -1 when it would make more than
 * `max_entries` entries or `plain` longer than `max_bytes` (at most
 * UINT32_MAX), or memory runs out.
 */
int64_t tmx_strdict_add(struct tmx_strdict *d, struct tmx_strdict_str s, uint64_t h, size_t slot,
			size_t max_entries, size_t max_bytes);

/* The entry of the string `p` of `n` bytes, -1 when it has none (nothing added). */
static inline int64_t tmx_strdict_find(struct tmx_strdict *d, const void *p, size_t n)
{
	struct tmx_strdict_str s = tmx_strdict_str(p, n);
	uint64_t h;
	size_t slot;

	return tmx_strdict_search(d, &s, &h, &slot);
}

/* The entry of the string `p` of `n` bytes, added when new (see tmx_strdict_add). */
static inline int64_t tmx_strdict_entry(struct tmx_strdict *d, const void *p, size_t n,
					size_t max_entries, size_t max_bytes)
{
	struct tmx_strdict_str s = tmx_strdict_str(p, n);
	uint64_t h;
	size_t slot;
	int64_t e = tmx_strdict_search(d, &s, &h, &slot);

	return e >= 0 ? e : tmx_strdict_add(d, s, h, slot, max_entries, max_bytes);
}

/* Emptied, the allocations of the entries kept (the hash table is freed). */
void tmx_strdict_clear(struct tmx_strdict *d);
void tmx_strdict_free(struct tmx_strdict *d);

#endif
