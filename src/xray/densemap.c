/*
 * llvm::DenseMap's layout (llvm 14), for its iteration order: a power of
 * two of buckets, at least 64; key hashes from DenseMapInfo, quadratic
 * probing (bucket += 1, 2, 3...); before an insertion that would reach 3/4
 * load, the buckets double and the entries move there in old-bucket order.
 * Two key types, each with the loop that suits it (the reader's map is
 * looked up per record; the 32-bit orders are built often and only
 * iterated): both follow the rules written once below.
 */
#include <stdlib.h>

#include "xray/densemap.h"

#define MIN_BUCKETS 64u

/* DenseMapInfo<int/unsigned/unsigned long>::getHashValue: (unsigned)(key * 37). */
static uint32_t int_hash(uint64_t key)
{
	return (uint32_t)(key * 37u);
}

/* The probe after bucket b: probe is 1 for the first step, then grows by one. */
static uint32_t next_bucket(uint32_t b, uint32_t *probe, uint32_t mask)
{
	return (b + (*probe)++) & mask;
}

/*
 * InsertIntoBucketImpl: the bucket count to grow to before inserting into
 * a map of `entries` in `buckets` (grow(NumBuckets * 2), at least 64), or
 * 0 when it has room.  Nothing is ever erased here, so there are no
 * tombstones, and llvm's other rehash (when at most 1/8 of the buckets are
 * empty) cannot happen below 3/4 load.  False on overflow.
 */
static bool grow_to(uint64_t entries, uint32_t buckets, uint32_t *to)
{
	*to = 0;
	if ((entries + 1) * 4 < (uint64_t)buckets * 3)
		return true;
	if (buckets > UINT32_MAX / 4)
		return false;
	*to = buckets ? buckets * 2 : MIN_BUCKETS;
	return true;
}

/* ------------------------------------------------------------------ */
/* DenseMap<std::pair<uint64_t, int32_t>, V>                            */
/* ------------------------------------------------------------------ */

#define EMPTY_PID UINT64_MAX          /* DenseMapInfo<unsigned long>::getEmptyKey */
#define EMPTY_TID INT32_MAX           /* DenseMapInfo<int>::getEmptyKey */

/* DenseMapInfo<std::pair>: llvm::detail::combineHashValue of both hashes. */
static uint32_t combine_hash(uint32_t a, uint32_t b)
{
	uint64_t key = (uint64_t)a << 32 | (uint64_t)b;

	key += ~(key << 32);
	key ^= (key >> 22);
	key += ~(key << 13);
	key ^= (key >> 8);
	key += (key << 3);
	key ^= (key >> 15);
	key += ~(key << 27);
	key ^= (key >> 31);
	return (uint32_t)key;
}

static uint32_t pair_hash(uint64_t pid, int32_t tid)
{
	return combine_hash(int_hash(pid), int_hash((uint32_t)tid));
}

static bool is_empty(const struct xr_densemap *m, uint32_t b)
{
	return m->kpid[b] == EMPTY_PID && m->ktid[b] == EMPTY_TID;
}

/* LookupBucketFor: the bucket of the key or the empty one where it would go. */
static uint32_t lookup(const struct xr_densemap *m, uint64_t pid, int32_t tid, bool *found)
{
	uint32_t mask = m->n_buckets - 1, b = pair_hash(pid, tid) & mask, probe = 1;

	for (;;) {
		if (m->kpid[b] == pid && m->ktid[b] == tid) {
			*found = true;
			return b;
		}
		if (is_empty(m, b)) {
			*found = false;
			return b;
		}
		b = next_bucket(b, &probe, mask);
	}
}

void xr_densemap_init(struct xr_densemap *m)
{
	*m = (struct xr_densemap){ 0 };
}

void xr_densemap_free(struct xr_densemap *m)
{
	free(m->kpid);
	free(m->ktid);
	free(m->val);
	*m = (struct xr_densemap){ 0 };
}

/* grow(): n buckets; the entries moved in old-bucket order. */
static int grow(struct xr_densemap *m, uint32_t n)
{
	struct xr_densemap old = *m;

	m->kpid = malloc(n * sizeof(*m->kpid));
	m->ktid = malloc(n * sizeof(*m->ktid));
	m->val = malloc(n * sizeof(*m->val));
	if (!m->kpid || !m->ktid || !m->val) {
		free(m->kpid);
		free(m->ktid);
		free(m->val);
		*m = old;
		return -1;
	}
	m->n_buckets = n;
	for (uint32_t b = 0; b < n; b++) {
		m->kpid[b] = EMPTY_PID;
		m->ktid[b] = EMPTY_TID;
	}
	for (uint32_t b = 0; b < old.n_buckets; b++) {
		bool found;
		uint32_t nb;
		if (is_empty(&old, b))
			continue;
		nb = lookup(m, old.kpid[b], old.ktid[b], &found);
		m->kpid[nb] = old.kpid[b];
		m->ktid[nb] = old.ktid[b];
		m->val[nb] = old.val[b];
	}
	free(old.kpid);
	free(old.ktid);
	free(old.val);
	return 0;
}

int xr_densemap_insert(struct xr_densemap *m, uint64_t pid, int32_t tid, uint32_t new_val,
		       uint32_t *val, bool *inserted)
{
	bool found = false;
	uint32_t b = 0, to;

	*inserted = false;
	if (m->n_buckets)
		b = lookup(m, pid, tid, &found);
	if (found) {
		*val = m->val[b];
		return 0;
	}
	/*
	 * The empty key itself cannot be stored (llvm asserts); such a key is
	 * stored with its tid changed, which only affects hash order.
	 */
	if (pid == EMPTY_PID && tid == EMPTY_TID)
		tid = EMPTY_TID - 1;
	if (!grow_to(m->n_entries, m->n_buckets, &to))
		return -1;
	if (to) {
		if (grow(m, to))
			return -1;
		b = lookup(m, pid, tid, &found);
	}
	m->kpid[b] = pid;
	m->ktid[b] = tid;
	m->val[b] = new_val;
	m->n_entries++;
	*val = new_val;
	*inserted = true;
	return 0;
}

uint32_t xr_densemap_find(const struct xr_densemap *m, uint64_t pid, int32_t tid, bool *found)
{
	uint32_t b;

	*found = false;
	if (!m->n_buckets)
		return 0;
	if (pid == EMPTY_PID && tid == EMPTY_TID)
		tid = EMPTY_TID - 1;
	b = lookup(m, pid, tid, found);
	return *found ? m->val[b] : 0;
}

void xr_densemap_values(const struct xr_densemap *m, uint32_t *out)
{
	size_t n = 0;

	for (uint32_t b = 0; b < m->n_buckets; b++)
		if (!is_empty(m, b))
			out[n++] = m->val[b];
}

/* ------------------------------------------------------------------ */
/* DenseMap<int32_t/uint32_t, T>: the order only                        */
/* ------------------------------------------------------------------ */

/*
 * The buckets hold indexes into the keys (NO_KEY: empty), so that any key
 * value can be placed.  The keys are distinct: an insertion takes the first
 * empty bucket on its probe sequence.
 */
#define NO_KEY UINT32_MAX

static uint32_t first_empty(uint32_t key, const uint32_t *bk, uint32_t mask)
{
	uint32_t b = int_hash(key) & mask, probe = 1;

	while (bk[b] != NO_KEY)
		b = next_bucket(b, &probe, mask);
	return b;
}

bool xr_densemap32_order(const uint32_t *keys, size_t n, uint32_t *out)
{
	uint32_t nb = 0, to;
	uint32_t *bk = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!grow_to(i, nb, &to))
			goto fail;
		if (to) {
			uint32_t *b2 = malloc(to * sizeof(*b2));
			if (!b2)
				goto fail;
			for (uint32_t j = 0; j < to; j++)
				b2[j] = NO_KEY;
			for (uint32_t j = 0; j < nb; j++)
				if (bk[j] != NO_KEY)
					b2[first_empty(keys[bk[j]], b2, to - 1)] = bk[j];
			free(bk);
			bk = b2;
			nb = to;
		}
		bk[first_empty(keys[i], bk, nb - 1)] = (uint32_t)i;
	}
	for (uint32_t j = 0, k = 0; j < nb; j++)
		if (bk[j] != NO_KEY)
			out[k++] = bk[j];
	free(bk);
	return true;
fail:
	free(bk);
	return false;
}
