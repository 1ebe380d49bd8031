/*
 * Integer columns as dictionaries (int_dict.h): the entries in order of
 * first appearance and each row's index, from the values (pq_int_dict)
 * or from a packet column's instances (pq_pk_dict).
 */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "sink/parquet/int_dict.h"

/*
 * Integer columns as dictionaries when they have few distinct values
 * (packet context fields, stream ids, CPUs, thread ids, priorities: often
 * one value for long runs).  The indices, RLE / bit-packed, are a few
 * bytes where zstd had to go through 4 or 8 bytes of every value: zstd
 * was a third of the output's time.  Given up as soon as the distinct
 * values pass an eighth of the values, so that a timestamp column costs
 * the hashing of an eighth of its values.  On success the entries are
 * enc->ikeys[0, *n_keys) in order of first appearance and the indices
 * enc->iidx.
 */
#define INT_DICT_MAX 8192   /* entries: the dictionary page stays under 64 KiB */

static inline size_t int_hash(uint64_t v, size_t mask)
{
	return (size_t)((v * 0x9E3779B97F4A7C15ull) >> 40) & mask;
}

/*
 * One loop per width (the hash and the look-ups are most of the time),
 * from value `i` on with `k` entries so far: `slots` (`mask` + 1 of them,
 * zero but for those entries) hold entry + 1.  Returns the number of
 * entries, with *full set when there would be more than `limit`.  Every
 * value is hashed: a test of the value before, which skipped the hash in
 * runs, was mispredicted at a fifth of the values of trace.dat's columns
 * (more than the hashing it saved); the probe loop is left to the values
 * not in their first slot.
 */
#define INT_DICT_LOOP(name, T)                                                           \
	static size_t name(const uint8_t *p, size_t i, size_t n, size_t k, size_t limit,  \
			   uint64_t *keys, uint32_t *slots, size_t mask, uint32_t *idx,   \
			   bool *full)                                                    \
	{                                                                                \
		for (; i < n; i++) {                                                     \
			T v;                                                             \
			size_t s;                                                        \
			uint32_t e;                                                      \
			memcpy(&v, p + i * sizeof(T), sizeof(T));                        \
			s = int_hash(v, mask);                                           \
			e = slots[s];                                                    \
			if (__builtin_expect(!e || keys[e - 1] != v, 0)) {               \
				while ((e = slots[s]) && keys[e - 1] != v)               \
					s = (s + 1) & mask;                              \
				if (!e) {                                                \
					if (k == limit) {                                \
						*full = true;                            \
						return k;                                \
					}                                                \
					keys[k++] = v;                                   \
					slots[s] = e = (uint32_t)k;                      \
				}                                                        \
			}                                                                \
			idx[i] = e - 1;                                                  \
		}                                                                        \
		return k;                                                                \
	}
INT_DICT_LOOP(int_dict32, uint32_t)
INT_DICT_LOOP(int_dict64, uint64_t)

/*
 * The `k` entries' slots zeroed again: a few look-ups where clearing the
 * whole table cost more than the dictionary of a column of one value.
 * Latest first: an entry's probe went through earlier entries' slots
 * only, which are still there when it is looked up.
 */
static void int_dict_clear(uint32_t *slots, size_t mask, const uint64_t *keys, size_t k)
{
	if (k * 16 > mask) {
		memset(slots, 0, (mask + 1) * sizeof(*slots));
		return;
	}
	while (k--) {
		size_t s = int_hash(keys[k], mask);   /* INT32 values zero-extended, as hashed */
		while (slots[s] != k + 1)
			s = (s + 1) & mask;
		slots[s] = 0;
	}
}

/*
 * Whether `n` values of type T only increase (timestamps, cycle counts):
 * then they are all distinct and no dictionary can hold them, which is
 * known without hashing an eighth of them.  Blocks of 64 compared without
 * a branch, left at the first that does not increase.
 */
#define INCREASING(name, T)                                                       \
	static bool name(const uint8_t *p, size_t n)                             \
	{                                                                          \
		for (size_t i = 1; i < n;) {                                       \
			size_t e = n - i < 64 ? n : i + 64;                        \
			bool up = true;                                            \
			for (; i < e; i++) {                                       \
				T a, b;                                            \
				memcpy(&a, p + (i - 1) * sizeof(T), sizeof(T));    \
				memcpy(&b, p + i * sizeof(T), sizeof(T));          \
				up &= b > a;                                       \
			}                                                          \
			if (!up)                                                   \
				return false;                                      \
		}                                                                  \
		return true;                                                       \
	}
INCREASING(increasing32, uint32_t)
INCREASING(increasing64, uint64_t)

/*
 * Whether `n` values of type T are all the first one (a stream's id, a
 * packet context's field in a group of one packet: many integer columns).
 * Then the dictionary is that value and the indices are one run of zeros,
 * written without reading them (put_indices): neither looked up nor
 * stored.  Blocks of 64 compared without a branch, as INCREASING.
 */
#define ALL_SAME(name, T)                                                         \
	static bool name(const uint8_t *p, size_t n)                             \
	{                                                                          \
		typedef T vec __attribute__((vector_size(16)));                    \
		T first;                                                           \
		size_t i = 1;                                                      \
		memcpy(&first, p, sizeof(T));                                      \
		/* Blocks of 64 as 16-byte vectors (GCC's vector types: SSE2 on x86-64). */ \
		for (; n - i >= 64; i += 64) {                                     \
			vec d = { 0 }, x;                                          \
			uint64_t h[2];                                             \
			for (unsigned k = 0; k < 64 * sizeof(T); k += 16) {        \
				memcpy(&x, p + i * sizeof(T) + k, 16);             \
				d |= x ^ first;                                    \
			}                                                          \
			memcpy(h, &d, 16);                                         \
			if (h[0] | h[1])                                           \
				return false;                                      \
		}                                                                  \
		for (; i < n; i++) {                                               \
			T v;                                                       \
			memcpy(&v, p + i * sizeof(T), sizeof(T));                  \
			if (v != first)                                            \
				return false;                                      \
		}                                                                  \
		return true;                                                       \
	}
ALL_SAME(all_same32, uint32_t)
ALL_SAME(all_same64, uint64_t)

/* The values around the first one that int_dict looks up in a table (256 KiB), not by hash. */
#define INT_NEAR (1u << 16)
/* A slot of the table of near values without an entry. */
#define NEAR_EMPTY UINT32_MAX

/*
 * Four indices stored.  Bytes as one word (entries below 256): GCC made
 * the four stores of either size one vector store, from registers moved
 * into a vector one by one, more instructions than the stores.
 */
static inline void store4_w(uint32_t *o, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	uint64_t lo = a | (uint64_t)b << 32, hi = c | (uint64_t)d << 32;

	memcpy(o, &lo, 8);   /* native order: o[0] = a, o[1] = b on either */
	memcpy(o + 2, &hi, 8);
}

static inline void store4_b(uint8_t *o, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t w = a | b << 8 | c << 16 | d << 24;

	memcpy(o, &w, 4);
#else
	o[0] = (uint8_t)a;
	o[1] = (uint8_t)b;
	o[2] = (uint8_t)c;
	o[3] = (uint8_t)d;
#endif
}

/*
 * The entries of four rows, map[k0..k3], stored at `o` by STORE4 with one
 * test of all: true; false, nothing stored, when one has the top bit (no
 * entry: NEAR_EMPTY, PK_NONE; no entry, below INT_DICT_MAX, has it).
 */
#define MAP4(STORE4, o, map, k0, k1, k2, k3)                                          \
	__extension__({                                                                \
		uint32_t d0_ = (map)[k0], d1_ = (map)[k1], d2_ = (map)[k2], d3_ = (map)[k3]; \
		bool ok_ = !__builtin_expect((d0_ | d1_ | d2_ | d3_) >> 31, 0);        \
		if (ok_)                                                               \
			STORE4(o, d0_, d1_, d2_, d3_);                                 \
		ok_;                                                                   \
	})

/*
 * int_dict's loop while the values are near the first one, within
 * INT_NEAR / 2 (CPUs, stream and event ids, priorities, the thread ids
 * of a small machine): their entry at v - base in `near` (NEAR_EMPTY
 * where none: four values tested with one OR), where the hash took a
 * multiplication and a probe; and without the test of the value before,
 * which values that do not come in runs mispredict.
 * The same entries in the same order as the hash: order of first
 * appearance.  From value `i` on with `k` entries so far; returns the
 * number of entries, with *full set as the hash loop; stops at the first
 * value that is not near (*at: its index, n when none is).
 */
#define INT_DICT_NEAR(name, T, IT, STORE4)                                               \
	static size_t name(const uint8_t *p, size_t i, size_t n, size_t k, size_t limit, \
			   uint64_t *keys, uint32_t *near, T base, IT *restrict idx,      \
			   bool *full, size_t *at)                                        \
	{                                                                                \
		for (; i < n; i++) {                                                     \
			T v, off;                                                        \
			uint32_t e;                                                      \
			/*                                                               \
			 * Four values met before, with one test of all: fewer        \
			 * branches and less loop counting (most values of a          \
			 * dictionary are met before).  An empty slot has the top     \
			 * bit, which no entry (< INT_DICT_MAX) has.                  \
			 */                                                              \
			for (; i + 4 <= n; i += 4) {                                     \
				T v0, v1, v2, v3, o0, o1, o2, o3;                        \
				memcpy(&v0, p + i * sizeof(T), sizeof(T));               \
				memcpy(&v1, p + (i + 1) * sizeof(T), sizeof(T));         \
				memcpy(&v2, p + (i + 2) * sizeof(T), sizeof(T));         \
				memcpy(&v3, p + (i + 3) * sizeof(T), sizeof(T));         \
				o0 = (T)(v0 - base);                                     \
				o1 = (T)(v1 - base);                                     \
				o2 = (T)(v2 - base);                                     \
				o3 = (T)(v3 - base);                                     \
				if (__builtin_expect((o0 | o1 | o2 | o3) >= INT_NEAR, 0)) \
					break;                                           \
				if (!MAP4(STORE4, idx + i, near, o0, o1, o2, o3))       \
					break;                                           \
			}                                                                \
			if (i == n)                                                      \
				break;                                                   \
			/* One value: new, far, or of the last three. */                \
			memcpy(&v, p + i * sizeof(T), sizeof(T));                        \
			off = (T)(v - base);                                             \
			if (off >= INT_NEAR)                                             \
				break;                                                   \
			e = near[off];                                                   \
			if (e == NEAR_EMPTY) {                                           \
				if (k == limit) {                                        \
					*full = true;                                    \
					break;                                           \
				}                                                        \
				near[off] = e = (uint32_t)k;                             \
				keys[k++] = v;                                           \
			}                                                                \
			idx[i] = (IT)e;                                                  \
		}                                                                        \
		*at = i;                                                                 \
		return k;                                                                \
	}
INT_DICT_NEAR(int_near32, uint32_t, uint32_t, store4_w)
INT_DICT_NEAR(int_near64, uint64_t, uint32_t, store4_w)
INT_DICT_NEAR(int_near32_b, uint32_t, uint8_t, store4_b)
INT_DICT_NEAR(int_near64_b, uint64_t, uint8_t, store4_b)

/*
 * The loop of near values for `w`-byte values, the indices at `idx` bytes
 * (`narrow`) or 32-bit.
 */
static size_t int_near(const uint8_t *p, unsigned w, size_t i, size_t n, size_t k, size_t limit,
		       struct pq_encoder *enc, uint64_t base, bool narrow, bool *full, size_t *at)
{
	void *idx = enc->iidx.p;

	if (narrow)
		return w == 4 ? int_near32_b(p, i, n, k, limit, enc->ikeys, enc->inear,
					     (uint32_t)base, idx, full, at)
			      : int_near64_b(p, i, n, k, limit, enc->ikeys, enc->inear, base, idx,
					     full, at);
	return w == 4 ? int_near32(p, i, n, k, limit, enc->ikeys, enc->inear, (uint32_t)base, idx,
				   full, at)
		      : int_near64(p, i, n, k, limit, enc->ikeys, enc->inear, base, idx, full, at);
}

/* The first `n` indices, bytes at `p`, as 32-bit ones there: from the last (each 4 bytes at or after its byte). */
static void widen_indices(uint8_t *p, size_t n)
{
	while (n--) {
		uint32_t v = p[n];
		memcpy(p + 4 * n, &v, 4);
	}
}

/* Room for `n` slots of `fill` bytes at *p (*cap of them now). */
static bool filled(uint32_t **p, size_t *cap, size_t n, uint8_t fill)
{
	if (n <= *cap)
		return true;
	free(*p);
	*cap = 0;
	if (!(*p = fill ? malloc(n * sizeof(**p)) : calloc(n, sizeof(**p))))
		return false;
	if (fill)
		memset(*p, fill, n * sizeof(**p));
	*cap = n;
	return true;
}

/*
 * Values a column's dictionary is decided on first (as parquet-mr and
 * Arrow decide on their first page): with more distinct values than an
 * eighth of these, it is given up there, not after hashing most of the
 * column (counters, addresses, durations: the values of a chunk that
 * ends up PLAIN or DELTA_BINARY_PACKED).  Deterministic: from the
 * chunk's values alone.
 */
#define INT_DICT_SAMPLE 8192

/*
 * The dictionary of a column's values: near the first one by the table of
 * INT_NEAR, then (from the first value that is not) by hash, the entries
 * so far put in the hash table first; at most an eighth of the first
 * INT_DICT_SAMPLE values, then at most `limit`.  Returns the number of
 * entries, with *full as the loops; the tables are left empty.  *narrow:
 * the indices are bytes (as long as the values are near and the entries
 * 256 at most, which the near loop writes: a quarter of the stores, and
 * read by pq_rle_hybrid's byte path), else 32-bit.
 */
static size_t int_dict_entries(const uint8_t *p, size_t n, unsigned w, size_t limit,
			       struct pq_encoder *enc, bool *full, bool *narrow)
{
	uint32_t *idx = (uint32_t *)enc->iidx.p;
	uint64_t base = tmx_le_at(p, w) - INT_NEAR / 2, mask = w == 4 ? UINT32_MAX : UINT64_MAX;
	size_t k = 0, k_near, i = 0, n_slots = 64, sample = n < INT_DICT_SAMPLE ? n : INT_DICT_SAMPLE;
	bool hashing = false;

	if (!filled(&enc->inear, &enc->inear_cap, INT_NEAR, 0xff))   /* NEAR_EMPTY */
		return *full = true, 0;
	while (n_slots < 2 * limit)
		n_slots *= 2;
	for (int part = 0; part < 2 && !*full && i < n; part++) {
		size_t end = part ? n : sample, lim = part ? limit : sample / 8 + 1;

		if (lim > limit)
			lim = limit;
		if (!hashing) {
			for (;;) {
				size_t lim_now = *narrow && lim > 256 ? 256 : lim;

				k = int_near(p, w, i, end, k, lim_now, enc, base, *narrow, full, &i);
				if (!*narrow || i == end || (*full && lim_now == lim))
					break;
				/*
				 * A value far from the first (the 32-bit loop stops
				 * there again) or a 257th entry: 32-bit indices.
				 */
				widen_indices(enc->iidx.p, i);
				*narrow = *full = false;
			}
			if (*full || i == end)
				continue;
			/* A value far from the first: the entries so far to the hash table. */
			if (!filled(&enc->islots, &enc->islots_cap, n_slots, 0)) {
				*full = true;
				break;
			}
			for (size_t e = 0; e < k; e++) {   /* distinct: each to an empty slot */
				size_t s = int_hash(enc->ikeys[e], n_slots - 1);
				while (enc->islots[s])
					s = (s + 1) & (n_slots - 1);
				enc->islots[s] = (uint32_t)e + 1;
			}
			hashing = true;
			k_near = k;
		}
		k = (w == 4 ? int_dict32 : int_dict64)(p, i, end, k, lim, enc->ikeys, enc->islots,
						       n_slots - 1, idx, full);
		i = end;
	}
	if (!hashing)
		k_near = k;
	for (size_t e = 0; e < k_near; e++)   /* in the table of near values */
		enc->inear[(enc->ikeys[e] - base) & mask] = NEAR_EMPTY;
	if (hashing)
		int_dict_clear(enc->islots, n_slots - 1, enc->ikeys, k);
	return k;
}

/* Room for `limit` entries in enc->ikeys. */
static bool keys_room(struct pq_encoder *enc, size_t limit)
{
	if (limit > enc->ikeys_cap) {
		uint64_t *keys = realloc(enc->ikeys, limit * sizeof(*keys));
		if (!keys)
			return false;
		enc->ikeys = keys;
		enc->ikeys_cap = limit;
	}
	return true;
}

/*
 * Also sets d->up when the values only increase (as unsigned).  The
 * indices are enc->iidx[0, d->n_idx), not written when every value is the
 * same (one entry: width 0).
 */
bool pq_int_dict(const struct pq_col *c, struct pq_encoder *enc, struct pq_idict *d)
{
	unsigned w = pq_int_width(c->type.phys);
	size_t n = c->vals.len / w, limit = n / 8 + 1;
	bool full = false;

	if (n < 16 || c->vals.oom)
		return false;
	if ((d->up = (w == 4 ? increasing32 : increasing64)(c->vals.p, n)))
		return false;
	if (limit > INT_DICT_MAX)
		limit = INT_DICT_MAX;
	if (!keys_room(enc, limit))
		return false;
	d->n_idx = n;
	if ((w == 4 ? all_same32 : all_same64)(c->vals.p, n)) {
		enc->ikeys[0] = tmx_le_at(c->vals.p, w);
		d->n_keys = 1;
		return true;
	}
	enc->iidx.len = 0;
	if (!tmx_buf_reserve(&enc->iidx, n * 4))
		return false;
	d->n_keys = int_dict_entries(c->vals.p, n, w, limit, enc, &full, &d->narrow);
	return !full;
}

/*
 * The bounds of values that only increase as unsigned (int_dict's test:
 * timestamps, cycle counts) without another pass: the first and the last,
 * in signed order too when both have the same sign, which every value
 * between them then has.  False when stats.c's loop is needed.
 */
bool pq_increasing_stats(const struct pq_col *c, struct pq_chunk *m)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__   /* as increasing32/64 read them */
	bool is_unsigned = c->type.logical == PQ_LT_INT && !c->type.is_signed;
	unsigned w = pq_int_width(c->type.phys);
	uint64_t lo = tmx_le_at(c->vals.p, w), hi = tmx_le_at(c->vals.p + c->vals.len - w, w);

	if (!is_unsigned && (lo >> (8 * w - 1)) != (hi >> (8 * w - 1)))
		return false;
	m->null_count = (int64_t)c->n_nulls;
	pq_set_bounds_le(m, lo, hi, w);
	return true;
#else
	(void)c;
	(void)m;
	return false;
#endif
}

/* The statistics of a dictionary-encoded integer column: from its entries (fewer). */
void pq_int_dict_stats(const struct pq_col *c, const uint64_t *keys, size_t n,
		       struct pq_chunk *m)
{
	bool is_unsigned = c->type.logical == PQ_LT_INT && !c->type.is_signed;

	m->null_count = (int64_t)c->n_nulls;
	if (c->type.phys == PQ_INT32 && is_unsigned) {
		uint32_t lo = (uint32_t)keys[0], hi = lo;
		for (size_t i = 1; i < n; i++) {
			lo = (uint32_t)keys[i] < lo ? (uint32_t)keys[i] : lo;
			hi = (uint32_t)keys[i] > hi ? (uint32_t)keys[i] : hi;
		}
		pq_set_bounds_le(m, lo, hi, 4);
	} else if (c->type.phys == PQ_INT32) {
		int32_t lo = (int32_t)(uint32_t)keys[0], hi = lo;
		for (size_t i = 1; i < n; i++) {
			int32_t v = (int32_t)(uint32_t)keys[i];
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		pq_set_bounds_le(m, (uint32_t)lo, (uint32_t)hi, 4);
	} else if (is_unsigned) {
		uint64_t lo = keys[0], hi = lo;
		for (size_t i = 1; i < n; i++) {
			lo = keys[i] < lo ? keys[i] : lo;
			hi = keys[i] > hi ? keys[i] : hi;
		}
		pq_set_bounds_le(m, lo, hi, 8);
	} else {
		int64_t lo = (int64_t)keys[0], hi = lo;
		for (size_t i = 1; i < n; i++) {
			int64_t v = (int64_t)keys[i];
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		pq_set_bounds_le(m, (uint64_t)lo, (uint64_t)hi, 8);
	}
}

/*
 * A packet's column (column.h, `pk`) encoded from its instances rather
 * than from its values expanded into rows: the same dictionary as
 * int_dict's (the entries in order of the values' first appearance, the
 * same limits: an eighth of the first INT_DICT_SAMPLE rows, then `limit`),
 * made by looking each row's instance up in a table of the instances
 * (instance -> entry + 1) and hashing only an instance's value when it
 * first appears.  Its state while the rows are scanned:
 */
struct pk_scan {
	const struct pq_col *c;
	struct pq_encoder *enc;
	uint32_t *map;          /* enc->pkmap: instance -> entry, PK_NONE when not met */
	size_t n_inst, mask;    /* instances (values in c->vals); the hash table's mask */
	size_t k, sample, lim0, limit;
	bool narrow, full, bad; /* bytes indices; more entries than allowed; an unknown instance */
};

#define PK_NONE UINT32_MAX
/* Instances an index holds (table.h, PQ_PK_MAX), each a slot of enc->pkmap. */
#define PK_MAP (1u << 16)

/*
 * The entry of instance `inst` first met at row `i`: its value's, or a new
 * one; PK_NONE when the entries are full (s->full), when byte indices
 * would need a 257th (the caller widens them) or the instance has no value.
 */
static uint32_t pk_entry(struct pk_scan *s, uint16_t inst, size_t i)
{
	unsigned w = s->c->int_width;
	uint64_t v;
	size_t h;
	uint32_t e;

	if (inst >= s->n_inst) {
		s->bad = true;
		return PK_NONE;
	}
	v = tmx_le_at(s->c->vals.p + (size_t)inst * w, w);
	h = int_hash(v, s->mask);
	while ((e = s->enc->islots[h]) && s->enc->ikeys[e - 1] != v)
		h = (h + 1) & s->mask;
	if (!e) {
		if (s->k == (i < s->sample ? s->lim0 : s->limit)) {
			s->full = true;
			return PK_NONE;
		}
		if (s->narrow && s->k == 256)
			return PK_NONE;
		s->enc->ikeys[s->k++] = v;
		s->enc->islots[h] = e = (uint32_t)s->k;
	}
	return s->map[inst] = e - 1;
}

/*
 * The rows' indices from row `i` on (type IT) until the end or an entry
 * pk_entry does not give.  Four rows of instances met before with one
 * test of all, as INT_DICT_NEAR (most rows are: PK_NONE has the top bit,
 * which no entry has).
 */
#define PK_ROWS(name, IT, STORE4)                                                         \
	static size_t name(struct pk_scan *s, const uint8_t *rows, size_t i, size_t n,   \
			   IT *restrict idx)                                              \
	{                                                                                \
		const uint32_t *map = s->map;                                            \
		for (; i < n; i++) {                                                     \
			uint16_t i0, i1, i2, i3;                                         \
			uint32_t e;                                                      \
			for (; i + 4 <= n; i += 4) {                                     \
				memcpy(&i0, rows + 2 * i, 2);                            \
				memcpy(&i1, rows + 2 * i + 2, 2);                        \
				memcpy(&i2, rows + 2 * i + 4, 2);                        \
				memcpy(&i3, rows + 2 * i + 6, 2);                        \
				if (!MAP4(STORE4, idx + i, map, i0, i1, i2, i3))        \
					break;                                           \
			}                                                                \
			if (i == n)                                                      \
				break;                                                   \
			memcpy(&i0, rows + 2 * i, 2);                                    \
			e = map[i0];                                                     \
			if (e == PK_NONE && (e = pk_entry(s, i0, i)) == PK_NONE)         \
				break;                                                   \
			idx[i] = (IT)e;                                                  \
		}                                                                        \
		return i;                                                                \
	}
PK_ROWS(pk_rows_b, uint8_t, store4_b)
PK_ROWS(pk_rows_w, uint32_t, store4_w)

/*
 * int_dict of the `n` rows of packet column `c` whose instances are
 * `rows` (uint16): false when it gives no dictionary, left to the
 * expansion.  Values that only increase (int_dict's `up`) are n distinct
 * ones, more than the limit: given up here too, so not tested.  The
 * bytes or 32-bit indices give the same hybrid (pq_rle_hybrid), so bytes
 * while the entries are 256 at most, whether or not the values are near
 * the first (int_dict's rule).
 */
bool pq_pk_dict(const struct pq_col *c, const uint8_t *rows, size_t n, struct pq_encoder *enc,
		struct pq_idict *d)
{
	struct pk_scan s = { .c = c, .enc = enc, .narrow = true };
	size_t n_slots = 64, i = 0;

	if (n < 16 || !c->int_width || c->vals.oom)
		return false;
	s.n_inst = c->vals.len / c->int_width;
	s.sample = n < INT_DICT_SAMPLE ? n : INT_DICT_SAMPLE;
	s.limit = n / 8 + 1 < INT_DICT_MAX ? n / 8 + 1 : INT_DICT_MAX;
	s.lim0 = s.sample / 8 + 1 < s.limit ? s.sample / 8 + 1 : s.limit;
	while (n_slots < 2 * s.limit)
		n_slots *= 2;
	s.mask = n_slots - 1;
	enc->iidx.len = 0;
	if (s.n_inst > PK_MAP || !keys_room(enc, s.limit) ||
	    !filled(&enc->pkmap, &enc->pkmap_cap, PK_MAP, 0xff) ||   /* PK_NONE */
	    !filled(&enc->islots, &enc->islots_cap, n_slots, 0) ||
	    !tmx_buf_reserve(&enc->iidx, n * 4))
		return false;
	/*
	 * One value in every instance (a stream's id, a field that does not
	 * change, a group of one packet): one entry and no indices to write
	 * (width 0), when every row's instance is one of them.
	 */
	if (s.n_inst && (c->int_width == 4 ? all_same32 : all_same64)(c->vals.p, s.n_inst) &&
	    pq_pk_or(rows, n) < s.n_inst) {
		enc->ikeys[0] = tmx_le_at(c->vals.p, c->int_width);
		*d = (struct pq_idict){ .on = true, .narrow = true, .n_keys = 1, .n_idx = n };
		return true;
	}
	s.map = enc->pkmap;
	i = pk_rows_b(&s, rows, 0, n, enc->iidx.p);
	if (i < n && !s.full && !s.bad) {   /* a 257th entry: 32-bit indices */
		widen_indices(enc->iidx.p, i);
		s.narrow = false;
		i = pk_rows_w(&s, rows, i, n, (uint32_t *)enc->iidx.p);
	}
	int_dict_clear(enc->islots, s.mask, enc->ikeys, s.k);
	memset(enc->pkmap, 0xff, s.n_inst * sizeof(*enc->pkmap));
	if (i < n)
		return false;
	*d = (struct pq_idict){ .on = true, .narrow = s.narrow, .n_keys = s.k, .n_idx = n };
	return true;
}
