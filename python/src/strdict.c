/*
 * Text columns as dictionary codes: each distinct byte string is made a
 * Python str once, and a column holds 32-bit codes (0: no value).  An
 * open-addressing hash table over the strings' bytes, kept in one arena;
 * the last string looked up is checked first (consecutive events often
 * repeat a value).
 */
#include <string.h>

#include "ext.h"

struct entry {
	uint64_t hash;
	size_t off, len;   /* in `bytes` */
};

struct strdict {
	struct entry *entries;   /* code c is entries[c - 1] */
	uint32_t n, cap_entries;
	uint32_t *slots;         /* codes; 0: empty */
	uint32_t n_slots;        /* a power of two, at least twice n */
	char *bytes;
	size_t len, cap;
	uint32_t last;
};

struct strdict *strdict_new(void)
{
	return calloc(1, sizeof(struct strdict));
}

void strdict_free(struct strdict *d)
{
	if (!d)
		return;
	free(d->entries);
	free(d->slots);
	free(d->bytes);
	free(d);
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static bool same(const struct strdict *d, uint32_t code, uint64_t h, const char *s, size_t n)
{
	const struct entry *e = &d->entries[code - 1];

	return e->hash == h && e->len == n && !memcmp(d->bytes + e->off, s, n);
}

static bool rehash(struct strdict *d)
{
	uint32_t n_slots = d->n_slots ? d->n_slots * 2 : 64;
	uint32_t *slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return false;
	for (uint32_t c = 1; c <= d->n; c++) {
		uint32_t i = (uint32_t)d->entries[c - 1].hash & (n_slots - 1);
		while (slots[i])
			i = (i + 1) & (n_slots - 1);
		slots[i] = c;
	}
	free(d->slots);
	d->slots = slots;
	d->n_slots = n_slots;
	return true;
}

static bool reserve(struct strdict *d, size_t n)
{
	if (d->n == d->cap_entries) {
		uint32_t cap = d->cap_entries ? d->cap_entries * 2 : 64;
		struct entry *e = realloc(d->entries, cap * sizeof(*e));
		if (!e)
			return false;
		d->entries = e;
		d->cap_entries = cap;
	}
	if (!d->bytes || d->len + n > d->cap) {
		size_t cap = d->cap ? d->cap : 4096;
		char *b;
		while (cap < d->len + n)
			cap *= 2;
		if (!(b = realloc(d->bytes, cap)))
			return false;
		d->bytes = b;
		d->cap = cap;
	}
	return (d->n + 1) * 2 <= d->n_slots || rehash(d);
}

uint32_t strdict_code(struct strdict *d, const char *s, size_t n)
{
	uint64_t h;
	uint32_t i;

	if (d->last) {
		const struct entry *e = &d->entries[d->last - 1];
		if (e->len == n && !memcmp(d->bytes + e->off, s, n))
			return d->last;
	}
	h = hash_bytes(s, n);
	for (i = (uint32_t)h & (d->n_slots - 1); d->n_slots && d->slots[i];
	     i = (i + 1) & (d->n_slots - 1))
		if (same(d, d->slots[i], h, s, n))
			return d->last = d->slots[i];
	if (d->n == UINT32_MAX - 1 || !reserve(d, n))
		return 0;
	memcpy(d->bytes + d->len, s, n);
	d->entries[d->n] = (struct entry){ h, d->len, n };
	d->len += n;
	d->n++;
	for (i = (uint32_t)h & (d->n_slots - 1); d->slots[i]; i = (i + 1) & (d->n_slots - 1))
		;
	d->slots[i] = d->n;
	return d->last = d->n;
}

PyObject *strdict_list(const struct strdict *d)
{
	PyObject *list = PyList_New((Py_ssize_t)d->n + 1);

	if (!list)
		return NULL;
	PyList_SET_ITEM(list, 0, Py_NewRef(Py_None));
	for (uint32_t c = 1; c <= d->n; c++) {
		const struct entry *e = &d->entries[c - 1];
		PyObject *s = ext_text(d->bytes + e->off, e->len);
		if (!s) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, c, s);
	}
	return list;
}
