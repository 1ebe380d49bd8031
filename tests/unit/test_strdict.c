/*
 * The dictionary of byte strings (src/common/strdict.c: Parquet's string
 * dictionaries, the Python package's text codes) against a plain list
 * searched one string after another: entries numbered in order of
 * arrival, each entry's bytes as stored (4-byte LE length, the bytes),
 * look-ups of strings it has and has not (the last one, the hash table
 * through its growth, strings that differ in one byte or in length only,
 * short ones told apart by their key, strings whose hashes choose one
 * slot), its limits of entries and bytes, and a dictionary emptied and
 * filled again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/strdict.h"
#include "xorshift.h"

#define N_WORDS 3000
#define MAX_LEN 80   /* keys up to 16, then tmx_strdict_same by words, past 64 by memcmp */

static uint8_t words[N_WORDS][MAX_LEN];
static size_t lens[N_WORDS];

/* Words that look alike: a few byte values, so that many share their first or last bytes. */
static void make_words(uint64_t seed)
{
	for (size_t w = 0; w < N_WORDS; w++) {
		lens[w] = (size_t)(xorshift64(&seed) % (MAX_LEN + 1));
		for (size_t i = 0; i < lens[w]; i++)
			words[w][i] = (uint8_t)('a' + xorshift64(&seed) % 3);
	}
}

/* The reference: the first word equal to word `w`, its rank among the distinct ones, or -1. */
struct ref {
	size_t first[N_WORDS];  /* distinct words by entry */
	size_t n;
};

static int64_t ref_find(const struct ref *r, const void *p, size_t n)
{
	for (size_t e = 0; e < r->n; e++)
		if (lens[r->first[e]] == n && !memcmp(words[r->first[e]], p, n))
			return (int64_t)e;
	return -1;
}

static void check_entry(const struct tmx_strdict *d, size_t e, const void *p, size_t n)
{
	size_t len;
	const uint8_t *at = tmx_strdict_at(d, e, &len);

	assert_int_equal(len, n);
	assert_int_equal(tmx_le_at(at - 4, 4), n);   /* PLAIN: the length before the bytes */
	if (n)
		assert_memory_equal(at, p, n);
}

/* Words added in a random order (repeats, runs of one), each checked against the reference. */
static void fill_and_check(struct tmx_strdict *d, uint64_t seed)
{
	struct ref r = { .n = 0 };

	for (size_t k = 0; k < 4 * N_WORDS; k++) {
		size_t w = (size_t)(xorshift64(&seed) % N_WORDS);
		int64_t want = ref_find(&r, words[w], lens[w]), found, e;

		found = tmx_strdict_find(d, words[w], lens[w]);
		assert_int_equal(found, want);
		e = tmx_strdict_entry(d, words[w], lens[w], SIZE_MAX, SIZE_MAX);
		if (want < 0) {
			want = (int64_t)r.n;
			r.first[r.n++] = w;
		}
		assert_int_equal(e, want);
		assert_int_equal(d->last->e, e + 1);   /* the one checked first next */
		assert_int_equal(d->n, r.n);
		check_entry(d, (size_t)e, words[w], lens[w]);
		/* Again at once: the last one. */
		assert_int_equal(tmx_strdict_find(d, words[w], lens[w]), want);
		assert_int_equal(tmx_strdict_entry(d, words[w], lens[w], SIZE_MAX, SIZE_MAX), want);
	}
	for (size_t e = 0; e < r.n; e++)
		check_entry(d, e, words[r.first[e]], lens[r.first[e]]);
}

static void test_against_list(void **state)
{
	struct tmx_strdict d = { 0 };

	(void)state;
	make_words(0x9E3779B97F4A7C15ull);
	fill_and_check(&d, 7);
	/* Emptied, the same strings are new again and numbered from 0. */
	tmx_strdict_clear(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(tmx_strdict_find(&d, words[0], lens[0]), -1);
	fill_and_check(&d, 11);
	tmx_strdict_free(&d);
}

/* One byte apart, or a prefix: never the same entry. */
static void test_near_strings(void **state)
{
	struct tmx_strdict d = { 0 };
	uint8_t s[32];

	(void)state;
	memset(s, 'x', sizeof(s));
	for (size_t n = 0; n <= sizeof(s); n++)
		assert_int_equal(tmx_strdict_entry(&d, s, n, SIZE_MAX, SIZE_MAX), (int64_t)n);
	for (size_t n = 1; n <= sizeof(s); n++) {
		for (size_t i = 0; i < n; i++) {
			s[i] = 'y';
			assert_int_equal(tmx_strdict_find(&d, s, n), -1);
			s[i] = 'x';
		}
		assert_int_equal(tmx_strdict_find(&d, s, n), (int64_t)n);
	}
	tmx_strdict_free(&d);
}

/*
 * Strings whose hashes all choose the table's last slot (16 slots, a table
 * half full at most): a chain that wraps to the first slots.  Each string
 * added goes to the empty slot its search ended on (tmx_strdict_search's
 * `slot`, no second probe); all are found after, and after the table
 * grows.
 */
static void test_one_slot(void **state)
{
	struct tmx_strdict d = { 0 };
	char s[9][8];
	size_t k = 0;

	(void)state;
	for (uint32_t i = 0; k < 9; i++) {
		struct tmx_strdict_str t;

		memcpy(s[k], "key", 3);
		memcpy(s[k] + 3, &i, 4);
		t = tmx_strdict_str(s[k], 7);
		if (tmx_strdict_hash(&t) >> 60 == 15)
			k++;
	}
	for (k = 0; k < 8; k++) {
		assert_int_equal(tmx_strdict_find(&d, s[k], 7), -1);
		assert_int_equal(tmx_strdict_entry(&d, s[k], 7, SIZE_MAX, SIZE_MAX), (int64_t)k);
		assert_int_equal(d.n_slots, 16);
		for (size_t j = 0; j <= k; j++)
			assert_int_equal(tmx_strdict_find(&d, s[j], 7), (int64_t)j);
	}
	/* Its slots: the last one, then from the first on. */
	assert_int_equal(d.slots[15].e, 1);
	for (k = 1; k < 8; k++)
		assert_int_equal(d.slots[k - 1].e, k + 1);
	assert_int_equal(tmx_strdict_entry(&d, s[8], 7, SIZE_MAX, SIZE_MAX), 8);
	assert_int_equal(d.n_slots, 32);
	for (k = 0; k < 9; k++)
		assert_int_equal(tmx_strdict_find(&d, s[k], 7), (int64_t)k);
	tmx_strdict_free(&d);
}

/* Past max_entries or max_bytes: -1, nothing added, the entries before still found. */
static void test_limits(void **state)
{
	struct tmx_strdict d = { 0 };

	(void)state;
	assert_int_equal(tmx_strdict_entry(&d, "ab", 2, 2, 100), 0);
	assert_int_equal(tmx_strdict_entry(&d, "cd", 2, 2, 100), 1);
	assert_int_equal(tmx_strdict_entry(&d, "ef", 2, 2, 100), -1);
	assert_int_equal(d.n, 2);
	assert_int_equal(tmx_strdict_entry(&d, "ab", 2, 2, 100), 0);
	assert_int_equal(tmx_strdict_find(&d, "cd", 2), 1);
	assert_int_equal(tmx_strdict_find(&d, "ef", 2), -1);
	/* 12 bytes stored (two entries of 2 + 4): one more of 2 makes 18. */
	assert_int_equal(tmx_strdict_entry(&d, "gh", 2, 10, 17), -1);
	assert_int_equal(tmx_strdict_entry(&d, "gh", 2, 10, 18), 2);
	assert_int_equal(d.plain.len, 18);
	tmx_strdict_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_list),
		cmocka_unit_test(test_near_strings),
		cmocka_unit_test(test_one_slot),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
