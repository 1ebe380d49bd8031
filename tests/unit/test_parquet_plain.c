/*
 * PLAIN values, levels and dictionaries of the Parquet writer's columns
 * (sink/parquet/column.c, page.c) against bytes worked out by hand:
 * little-endian integers and IEEE floats, booleans one bit each, byte
 * arrays with a 4-byte length; a string column's dictionary and indices,
 * and the dictionary dropped for PLAIN values when it grows too large;
 * then whole column chunks: the page headers read back, the pages
 * decompressed and compared, and the min/max statistics (signed, unsigned,
 * floating point with NaN, byte arrays); integer columns as dictionaries
 * (one value; values near the first, then one far from it; negative
 * values; too many distinct values) read back with an independent decoder
 * of the indices (pq_hybrid.h); a row group whose columns repeat the
 * one before (copied chunks) against each column encoded alone, and short
 * pages' compressions, remembered, read back; pages of every size
 * compressed with the encoders' static zstd context.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include <cmocka.h>

#include "pq_hybrid.h"
#include "sink/parquet/column.h"
#include "sink/parquet/file.h"

static size_t acct;

static void expect_buf(const struct tmx_buf *b, const uint8_t *want, size_t n)
{
	assert_false(b->oom);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->p, want, n);
}

static void test_plain_numbers(void **state)
{
	struct pq_col c;

	(void)state;
	pq_col_init(&c, pq_type_int(32, true), 0, 0, &acct);
	pq_col_int(&c, 0, 0, (uint64_t)-2);
	pq_col_int(&c, 0, 0, 0x01020304);
	expect_buf(&c.vals, (const uint8_t[]){ 0xFE, 0xFF, 0xFF, 0xFF, 0x04, 0x03, 0x02, 0x01 }, 8);
	assert_int_equal(c.defs.len, 0);   /* a required column has no levels */
	pq_col_free(&c);

	pq_col_init(&c, pq_type_int(64, false), 1, 0, &acct);
	pq_col_int(&c, 0, 1, 0x0102030405060708ull);
	pq_col_null(&c, 0, 0);
	expect_buf(&c.vals, (const uint8_t[]){ 8, 7, 6, 5, 4, 3, 2, 1 }, 8);
	expect_buf(&c.defs, (const uint8_t[]){ 1, 0 }, 2);
	assert_int_equal(c.n_levels, 2);
	assert_int_equal(c.n_nulls, 1);
	pq_col_free(&c);

	pq_col_init(&c, pq_type_plain(PQ_DOUBLE), 0, 0, &acct);
	pq_col_double(&c, 0, 0, 1.5);
	pq_col_double(&c, 0, 0, -2.0);
	expect_buf(&c.vals, (const uint8_t[]){ 0, 0, 0, 0, 0, 0, 0xF8, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0xC0 }, 16);
	pq_col_free(&c);

	pq_col_init(&c, pq_type_plain(PQ_FLOAT), 0, 0, &acct);
	pq_col_double(&c, 0, 0, 1.5);
	expect_buf(&c.vals, (const uint8_t[]){ 0, 0, 0xC0, 0x3F }, 4);
	pq_col_free(&c);
}

static void test_plain_bools(void **state)
{
	static const bool v[] = { true, false, true, true, false, false, false, false, true };
	struct pq_col c;

	(void)state;
	pq_col_init(&c, pq_type_plain(PQ_BOOLEAN), 0, 0, &acct);
	for (size_t i = 0; i < sizeof(v); i++)
		pq_col_bool(&c, 0, 0, v[i]);
	/* 1 0 1 1 0 0 0 0 | 1 from the least significant bit: 0x0D, 0x01 */
	expect_buf(&c.vals, (const uint8_t[]){ 0x0D, 0x01 }, 2);
	pq_col_free(&c);
}

static void test_dictionary(void **state)
{
	struct pq_col c;

	(void)state;
	pq_col_init(&c, pq_type_string(), 1, 0, &acct);
	assert_true(c.dict_on);
	pq_col_bytes(&c, 0, 1, "a", 1);
	pq_col_bytes(&c, 0, 1, "bc", 2);
	pq_col_null(&c, 0, 0);
	pq_col_bytes(&c, 0, 1, "a", 1);
	assert_true(c.dict_on);
	assert_int_equal(c.dict.n, 2);
	expect_buf(&c.dict.plain, (const uint8_t[]){ 1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'c' }, 11);
	expect_buf(&c.dict_idx, (const uint8_t *)(const uint32_t[]){ 0, 1, 0 }, 12);
	assert_int_equal(c.vals.len, 0);
	/* A value the dictionary has, by look-up only (the last one and another); not one it lacks. */
	assert_true(pq_col_bytes_known(&c, 0, 1, "a", 1));
	assert_true(pq_col_bytes_known(&c, 0, 1, "bc", 2));
	assert_false(pq_col_bytes_known(&c, 0, 1, "b", 1));
	assert_false(pq_col_bytes_known(&c, 0, 1, "bcd", 3));
	assert_int_equal(c.dict.n, 2);
	assert_int_equal(c.n_levels, 6);
	assert_int_equal(c.n_vals, 5);
	expect_buf(&c.defs, (const uint8_t[]){ 1, 1, 0, 1, 1, 1 }, 6);
	expect_buf(&c.dict_idx, (const uint8_t *)(const uint32_t[]){ 0, 1, 0, 0, 1 }, 20);
	pq_col_free(&c);
}

/* Past PQ_DICT_MAX_ENTRIES distinct values, every value so far becomes PLAIN. */
static void test_dictionary_dropped(void **state)
{
	struct pq_col c;
	char s[16];
	size_t at = 0;

	(void)state;
	pq_col_init(&c, pq_type_string(), 0, 0, &acct);
	for (unsigned i = 0; i <= PQ_DICT_MAX_ENTRIES; i++) {
		snprintf(s, sizeof(s), "v%u", i % (PQ_DICT_MAX_ENTRIES + 1));
		pq_col_bytes(&c, 0, 0, s, strlen(s));
	}
	assert_false(c.dict_on);
	assert_int_equal(c.dict.n, 0);
	for (unsigned i = 0; i <= PQ_DICT_MAX_ENTRIES; i++) {
		size_t n = (size_t)snprintf(s, sizeof(s), "v%u", i);
		assert_int_equal(c.vals.p[at], n);
		assert_memory_equal(c.vals.p + at + 1, ((const uint8_t[]){ 0, 0, 0 }), 3);
		assert_memory_equal(c.vals.p + at + 4, s, n);
		at += 4 + n;
	}
	assert_int_equal(at, c.vals.len);
	pq_col_free(&c);
}

/* ---- whole chunks: a small reader of Thrift's compact protocol ---- */

struct rd {
	const uint8_t *p, *end;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->p < r->end) {
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7F) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t rd_zigzag(struct rd *r)
{
	uint64_t u = rd_varint(r);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/*
 * Reads a struct; every integer field is stored by its path of field ids
 * (as id1 * 100 + id2: the page header has two levels) in `ints`.
 */
static void rd_struct(struct rd *r, int64_t *ints, int base)
{
	int16_t last = 0;

	for (;;) {
		uint8_t h = *r->p++;
		int type = h & 15, id;
		if (!h)
			return;
		id = (h >> 4) ? last + (h >> 4) : (int)rd_zigzag(r);
		last = (int16_t)id;
		if (type == 5 || type == 6)
			ints[base + id] = rd_zigzag(r);
		else if (type == 12)
			rd_struct(r, ints, id * 100);
		else
			fail_msg("unexpected field type %d", type);
	}
}

/* One page: its header's integers, then its decompressed body. */
static void read_page(struct rd *r, int64_t *ints, uint8_t *body, size_t cap, size_t *n)
{
	memset(ints, 0, 1000 * sizeof(*ints));
	rd_struct(r, ints, 0);
	assert_true((size_t)ints[3] <= (size_t)(r->end - r->p));
	*n = ZSTD_decompress(body, cap, r->p, (size_t)ints[3]);
	assert_false(ZSTD_isError(*n));
	assert_int_equal(*n, ints[2]);   /* uncompressed_page_size */
	r->p += ints[3];
}

static void encode(struct pq_col *c, struct tmx_buf *out, struct pq_chunk *m)
{
	struct pq_encoder enc = { .zctx = ZSTD_createCCtx(), .level = 3 };

	assert_true(pq_col_encode(c, &enc, 1000, out, m));
	ZSTD_freeCCtx(enc.zctx);
	pq_encoder_free_bufs(&enc);
}

static void test_chunk_dictionary(void **state)
{
	static int64_t ints[1000];
	uint8_t body[256];
	struct tmx_buf out = { 0 };
	struct pq_chunk m;
	struct pq_col c;
	struct rd r;
	size_t n;

	(void)state;
	pq_col_init(&c, pq_type_string(), 1, 0, &acct);
	pq_col_bytes(&c, 0, 1, "b", 1);
	pq_col_bytes(&c, 0, 1, "a", 1);
	pq_col_null(&c, 0, 0);
	pq_col_bytes(&c, 0, 1, "b", 1);
	encode(&c, &out, &m);
	assert_true(m.dict);
	assert_int_equal(m.dict_offset, 1000);
	assert_int_equal(m.num_values, 4);
	assert_int_equal(m.null_count, 1);
	assert_int_equal(m.compressed, out.len);
	assert_true(m.has_minmax);
	assert_int_equal(m.min_len, 1);
	assert_int_equal(m.min[0], 'a');
	assert_int_equal(m.max[0], 'b');
	r = (struct rd){ out.p, out.p + out.len };
	read_page(&r, ints, body, sizeof(body), &n);
	assert_int_equal(ints[1], 2);        /* DICTIONARY_PAGE */
	assert_int_equal(ints[701], 2);      /* num_values */
	assert_int_equal(ints[702], 0);      /* PLAIN */
	assert_int_equal(n, 10);
	assert_memory_equal(body, ((const uint8_t[]){ 1, 0, 0, 0, 'b', 1, 0, 0, 0, 'a' }), 10);
	assert_int_equal(m.data_offset, 1000 + (r.p - out.p));
	read_page(&r, ints, body, sizeof(body), &n);
	assert_int_equal(ints[1], 0);        /* DATA_PAGE */
	assert_int_equal(ints[501], 4);      /* num_values, nulls included */
	assert_int_equal(ints[502], 8);      /* RLE_DICTIONARY */
	assert_int_equal(ints[503], 3);      /* levels: RLE */
	/*
	 * Definition levels 1 1 0 1 (length 2: header 0x03, bits 1011 -> 0x0B),
	 * bit width 1, indices 0 1 0 bit-packed (0x03, 010 -> 0x02).
	 */
	assert_int_equal(n, 4 + 2 + 1 + 2);
	assert_memory_equal(body, ((const uint8_t[]){ 2, 0, 0, 0, 0x03, 0x0B, 1, 0x03, 0x02 }), 9);
	assert_ptr_equal(r.p, out.p + out.len);
	/* The column is empty again, ready for the next row group. */
	assert_int_equal(c.n_levels, 0);
	assert_int_equal(c.dict.n, 0);
	tmx_buf_free(&out);
	pq_col_free(&c);
}

static void test_chunk_plain_stats(void **state)
{
	static int64_t ints[1000];
	uint8_t body[64];
	struct tmx_buf out = { 0 };
	struct pq_chunk m;
	struct pq_col c;
	struct rd r;
	size_t n;

	(void)state;
	/* Unsigned 32-bit: 0xFFFFFFFF is the maximum, not -1. */
	pq_col_init(&c, pq_type_int(32, false), 0, 0, &acct);
	pq_col_int(&c, 0, 0, 0xFFFFFFFFu);
	pq_col_int(&c, 0, 0, 5);
	encode(&c, &out, &m);
	assert_false(m.dict);
	assert_int_equal(m.dict_offset, -1);
	assert_memory_equal(m.min, ((const uint8_t[]){ 5, 0, 0, 0 }), 4);
	assert_memory_equal(m.max, ((const uint8_t[]){ 0xFF, 0xFF, 0xFF, 0xFF }), 4);
	r = (struct rd){ out.p, out.p + out.len };
	read_page(&r, ints, body, sizeof(body), &n);
	assert_int_equal(ints[502], 0);      /* PLAIN */
	/* No levels at all for a required, unrepeated column. */
	assert_memory_equal(body, ((const uint8_t[]){ 0xFF, 0xFF, 0xFF, 0xFF, 5, 0, 0, 0 }), 8);
	assert_int_equal(n, 8);
	pq_col_free(&c);

	/* Signed 64-bit. */
	out.len = 0;
	pq_col_init(&c, pq_type_int(64, true), 0, 0, &acct);
	pq_col_int(&c, 0, 0, (uint64_t)-1);
	pq_col_int(&c, 0, 0, 7);
	encode(&c, &out, &m);
	assert_memory_equal(m.min, ((const uint8_t[]){ 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF }), 8);
	assert_memory_equal(m.max, ((const uint8_t[]){ 7, 0, 0, 0, 0, 0, 0, 0 }), 8);
	pq_col_free(&c);

	/* Doubles: NaN counted and left out; a zero minimum is -0.0. */
	out.len = 0;
	pq_col_init(&c, pq_type_plain(PQ_DOUBLE), 0, 0, &acct);
	pq_col_double(&c, 0, 0, NAN);
	pq_col_double(&c, 0, 0, 0.0);
	pq_col_double(&c, 0, 0, 2.0);
	encode(&c, &out, &m);
	assert_true(m.has_nan_count);
	assert_int_equal(m.nan_count, 1);
	assert_memory_equal(m.min, ((const uint8_t[]){ 0, 0, 0, 0, 0, 0, 0, 0x80 }), 8);
	assert_memory_equal(m.max, ((const uint8_t[]){ 0, 0, 0, 0, 0, 0, 0, 0x40 }), 8);
	pq_col_free(&c);

	/* Booleans, and a column of nulls only: no bounds. */
	out.len = 0;
	pq_col_init(&c, pq_type_plain(PQ_BOOLEAN), 1, 0, &acct);
	pq_col_null(&c, 0, 0);
	encode(&c, &out, &m);
	assert_false(m.has_minmax);
	assert_int_equal(m.null_count, 1);
	pq_col_free(&c);
	tmx_buf_free(&out);
}

/* A chunk's dictionary page (PLAIN `w`-byte values) and data page indices, decoded. */
static size_t read_int_dict(const struct tmx_buf *out, unsigned w, uint64_t *keys, size_t max_keys,
			    uint32_t *idx, size_t n)
{
	static int64_t ints[1000];
	static uint8_t body[1 << 16];
	struct rd r = { out->p, out->p + out->len };
	struct tmx_buf b;
	size_t len, n_keys;

	read_page(&r, ints, body, sizeof(body), &len);
	assert_int_equal(ints[1], 2);        /* DICTIONARY_PAGE */
	n_keys = (size_t)ints[701];
	assert_true(n_keys <= max_keys);
	assert_int_equal(len, n_keys * w);
	for (size_t k = 0; k < n_keys; k++) {
		keys[k] = 0;
		for (unsigned i = 0; i < w; i++)
			keys[k] |= (uint64_t)body[k * w + i] << (8 * i);
	}
	read_page(&r, ints, body, sizeof(body), &len);
	assert_int_equal(ints[1], 0);        /* DATA_PAGE */
	assert_int_equal(ints[502], 8);      /* RLE_DICTIONARY */
	assert_int_equal(ints[501], n);
	assert_true(len >= 1);
	b = (struct tmx_buf){ .p = body + 1, .len = len - 1 };
	hybrid_decode(&b, body[0], idx, n);
	assert_ptr_equal(r.p, out->p + out->len);
	return n_keys;
}

/* The dictionary of v[0, n) as it must be: entries in order of first appearance. */
static size_t first_appearance(const uint64_t *v, size_t n, uint64_t *keys)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < k && keys[j] != v[i])
			j++;
		if (j == k)
			keys[k++] = v[i];
	}
	return k;
}

static void int_dict_case(struct pq_type type, const uint64_t *v, size_t n, uint64_t lo,
			  uint64_t hi)
{
	static uint64_t keys[1024], want[1024];
	static uint32_t idx[4096];
	unsigned w = type.phys == PQ_INT32 ? 4 : 8;
	uint64_t mask = w == 4 ? UINT32_MAX : UINT64_MAX;
	struct tmx_buf out = { 0 };
	struct pq_chunk m;
	struct pq_col c;
	size_t n_keys, n_want = first_appearance(v, n, want);

	assert_true(n <= 4096 && n_want <= 1024);
	pq_col_init(&c, type, 0, 0, &acct);
	for (size_t i = 0; i < n; i++)
		pq_col_int(&c, 0, 0, v[i]);
	encode(&c, &out, &m);
	assert_true(m.dict);
	n_keys = read_int_dict(&out, w, keys, 1024, idx, n);
	assert_int_equal(n_keys, n_want);
	for (size_t k = 0; k < n_keys; k++)
		assert_int_equal(keys[k], want[k] & mask);
	for (size_t i = 0; i < n; i++) {
		assert_true(idx[i] < n_keys);
		assert_int_equal(keys[idx[i]], v[i] & mask);
	}
	assert_true(m.has_minmax);
	assert_int_equal(m.min_len, w);
	assert_int_equal(tmx_le_at(m.min, w), lo & mask);
	assert_int_equal(tmx_le_at(m.max, w), hi & mask);
	tmx_buf_free(&out);
	pq_col_free(&c);
}

static void test_chunk_int_dictionary(void **state)
{
	static uint64_t v[4096];
	uint64_t x = 88172645463325252ull;
	struct tmx_buf out = { 0 };
	struct pq_chunk m;
	struct pq_col c;

	(void)state;
	/* One value: one entry, the indices one run of width 0. */
	for (size_t i = 0; i < 1000; i++)
		v[i] = (uint64_t)-5;
	int_dict_case(pq_type_int(64, true), v, 1000, (uint64_t)-5, (uint64_t)-5);
	/*
	 * Unsigned 32-bit values near the first one (100 to 111), then one far
	 * from it (the dictionary goes on by hash), then both kinds mixed.
	 */
	for (size_t i = 0; i < 3000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = 100 + x % 12;
		if (i == 1500 || (i > 1500 && x % 97 == 0))
			v[i] = 0xFFFFFF00u + x % 3;
	}
	int_dict_case(pq_type_int(32, false), v, 3000, 100, 0xFFFFFF02u);
	/* The same order of entries when the far value comes first. */
	v[0] = 0xFFFFFF01u;
	int_dict_case(pq_type_int(32, false), v, 3000, 100, 0xFFFFFF02u);
	/* Signed 64-bit values around zero, the first negative: signed bounds. */
	for (size_t i = 0; i < 2000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		v[i] = (uint64_t)((int64_t)(x % 21) - 10);
	}
	v[0] = (uint64_t)-3;
	int_dict_case(pq_type_int(64, true), v, 2000, (uint64_t)-10, 10);
	/*
	 * One value but one, anywhere: in a block of 64 compared at once or in
	 * the values after the last whole block (not one run of width 0).
	 */
	{
		static const size_t at[] = { 1, 63, 64, 65, 128, 500, 998 };
		for (size_t a = 0; a < sizeof(at) / sizeof(*at); a++) {
			for (size_t i = 0; i < 999; i++)
				v[i] = i == at[a] ? 6 : 7;
			int_dict_case(pq_type_int(64, true), v, 999, 6, 7);
			int_dict_case(pq_type_int(32, true), v, 999, 6, 7);
		}
	}
	/* An odd count, a new value the last (the values are looked up two at a time). */
	v[1998] = 11;
	int_dict_case(pq_type_int(64, true), v, 1999, (uint64_t)-10, 11);
	/*
	 * Near values with more than 256 entries (the indices bytes up to the
	 * 257th, 32-bit after it), then with one far value after a few of them
	 * (an odd count: the values are looked up four at a time).
	 */
	for (size_t i = 0; i < 3001; i++)
		v[i] = 1000 + (i * 7) % 300;
	int_dict_case(pq_type_int(32, true), v, 3001, 1000, 1299);
	int_dict_case(pq_type_int(64, true), v, 3001, 1000, 1299);
	v[2999] = 5u << 30;
	int_dict_case(pq_type_int(64, true), v, 3001, 1000, 5u << 30);
	for (size_t i = 0; i < 3001; i++)
		v[i] = 1000 + (i * 7) % 200;
	v[1001] = 5u << 30;
	int_dict_case(pq_type_int(32, true), v, 3001, 1000, 5u << 30);
	/* Signed 32-bit, far apart (INT32_MIN and INT32_MAX): by hash only. */
	for (size_t i = 0; i < 200; i++)
		v[i] = i % 3 == 0 ? 0x80000000u : i % 3 == 1 ? 0x7FFFFFFFu : 7;
	int_dict_case(pq_type_int(32, true), v, 200, 0x80000000u, 0x7FFFFFFFu);

	/*
	 * Decided on the first 8192 values: all distinct there, the same value
	 * after them (an eighth of all 65536 in the end, but no dictionary);
	 * 1025 distinct there (an eighth and one), the same after: one.
	 */
	for (int distinct = 8192; distinct >= 1025; distinct -= 8192 - 1025) {
		pq_col_init(&c, pq_type_int(64, true), 0, 0, &acct);
		for (size_t i = 0; i < 65536; i++)
			pq_col_int(&c, 0, 0, i < 8192 ? (i % (size_t)distinct) * 1000003 : 5);
		out.len = 0;
		encode(&c, &out, &m);
		assert_int_equal(m.dict, distinct == 1025);
		pq_col_free(&c);
	}
	tmx_buf_free(&out);
	out = (struct tmx_buf){ 0 };

	/* More distinct values than an eighth of them: no dictionary. */
	pq_col_init(&c, pq_type_int(32, true), 0, 0, &acct);
	for (size_t i = 0; i < 1000; i++)
		pq_col_int(&c, 0, 0, (i * 7919) % 1000);
	encode(&c, &out, &m);
	assert_false(m.dict);
	assert_int_equal(tmx_le_at(m.min, 4), 0);
	assert_int_equal(tmx_le_at(m.max, 4), 999);
	tmx_buf_free(&out);
	pq_col_free(&c);
}

/* Column `c`'s chunk in `g` is the chunk of `alone` encoded alone (at offset 1000), with the same metadata. */
static void expect_chunk(const struct pq_group *g, size_t c, struct pq_col *alone)
{
	const struct pq_chunk *m = &g->chunks[c];
	struct tmx_buf out = { 0 };
	struct pq_chunk want;
	int64_t at = m->dict_offset >= 0 ? m->dict_offset : m->data_offset;

	encode(alone, &out, &want);
	assert_int_equal(m->compressed, out.len);
	assert_true(at >= 0 && (size_t)at + out.len <= g->out.len);
	assert_memory_equal(g->out.p + at, out.p, out.len);
	assert_int_equal(m->data_offset - at, want.data_offset - 1000);
	assert_int_equal(m->dict_offset >= 0, want.dict_offset >= 0);
	assert_int_equal(m->dict, want.dict);
	assert_int_equal(m->delta, want.delta);
	assert_int_equal(m->num_values, want.num_values);
	assert_int_equal(m->uncompressed, want.uncompressed);
	assert_int_equal(m->null_count, want.null_count);
	assert_int_equal(m->has_minmax, want.has_minmax);
	assert_int_equal(m->min_len, want.min_len);
	assert_memory_equal(m->min, want.min, want.min_len);
	assert_memory_equal(m->max, want.max, want.max_len);
	tmx_buf_free(&out);
}

/*
 * Columns that would make the pages of the one before (`ts` and `cycles`
 * of a clock counting from zero) copy its chunk: the same bytes as each
 * encoded alone, and each its own statistics (the values cross 2^63:
 * increasing as unsigned, not as signed).
 */
static void test_group_repeats(void **state)
{
	static const struct { bool is_signed, late_difference, nulls; } kind[] = {
		{ true, false, false }, { false, false, false }, { false, false, false },
		{ true, true, false },  { true, false, true },   { true, false, true },
	};
	enum { N_COLS = sizeof(kind) / sizeof(kind[0]), ROWS = 3000 };
	struct pq_encoder enc = { .zctx = ZSTD_createCCtx(), .level = 3 };
	struct pq_col cols[N_COLS], alone[N_COLS];
	struct pq_group g;

	(void)state;
	for (size_t c = 0; c < N_COLS; c++) {
		pq_col_init(&cols[c], pq_type_int(64, kind[c].is_signed), kind[c].nulls, 0, &acct);
		pq_col_init(&alone[c], pq_type_int(64, kind[c].is_signed), kind[c].nulls, 0, &acct);
		for (uint64_t i = 0; i < ROWS; i++) {
			uint64_t v = 0x7FFFFFFFFFFFF000ull + i * 3 + (i * i) % 5;
			if (kind[c].late_difference && i == ROWS - 1)
				v++;
			if (kind[c].nulls && i % 7 == 3) {
				pq_col_null(&cols[c], 0, 0);
				pq_col_null(&alone[c], 0, 0);
			} else {
				pq_col_int(&cols[c], 0, kind[c].nulls, v);
				pq_col_int(&alone[c], 0, kind[c].nulls, v);
			}
		}
	}
	assert_true(pq_col_same(&cols[0], &cols[1]));   /* the types differ, not the pages */
	assert_true(pq_col_same(&cols[1], &cols[2]));
	assert_false(pq_col_same(&cols[2], &cols[3]));  /* the last value */
	assert_false(pq_col_same(&cols[3], &cols[4]));  /* the levels */
	assert_true(pq_col_same(&cols[4], &cols[5]));
	assert_true(pq_group_encode(&g, cols, N_COLS, ROWS, &enc));
	assert_true(g.chunks[0].delta);
	/* Signed: the last values are the smallest; unsigned: the first. */
	assert_int_equal(tmx_le_at(g.chunks[0].min, 8) >> 63, 1);
	assert_int_equal(tmx_le_at(g.chunks[1].min, 8), 0x7FFFFFFFFFFFF000ull);
	for (size_t c = 0; c < N_COLS; c++) {
		expect_chunk(&g, c, &alone[c]);
		assert_int_equal(cols[c].n_levels, 0);   /* emptied, copied or not */
		pq_col_free(&cols[c]);
		pq_col_free(&alone[c]);
	}
	pq_group_free(&g);
	ZSTD_freeCCtx(enc.zctx);
	pq_encoder_free_bufs(&enc);
}

/*
 * Short pages (dictionaries of a few integers, uncompressed: zpage.c) of
 * many kinds, twice over with one encoder: each page read back is its
 * column's.
 */
static void test_short_pages(void **state)
{
	static uint64_t keys[64];
	static uint32_t idx[64];
	struct pq_encoder enc = { 0 };

	(void)state;
	assert_true(pq_encoder_zstd(&enc, 3));
	for (unsigned round = 0; round < 2; round++) {
		for (uint64_t k = 0; k < 192; k++) {
			struct tmx_buf out = { 0 };
			struct pq_chunk m;
			struct pq_col c;
			size_t n_keys;

			pq_col_init(&c, pq_type_int(64, false), 0, 0, &acct);
			for (uint64_t i = 0; i < 32; i++)   /* entries k, k + 1 and k + 2 */
				pq_col_int(&c, 0, 0, i % 4 ? k : k + 1 + i / 4 % 2);
			assert_true(pq_col_encode(&c, &enc, 0, &out, &m));
			assert_true(m.dict);
			n_keys = read_int_dict(&out, 8, keys, 64, idx, 32);
			assert_int_equal(n_keys, 3);
			for (uint64_t i = 0; i < 32; i++)
				assert_int_equal(keys[idx[i]], i % 4 ? k : k + 1 + i / 4 % 2);
			tmx_buf_free(&out);
			pq_col_free(&c);
		}
	}
	pq_encoder_zstd_free(&enc);
	pq_encoder_free_bufs(&enc);
}

/* The value `i` of test_static_context_sizes: one in three random (x), the others repeating. */
static uint64_t sized_value(uint64_t *x, size_t i)
{
	*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
	return i % 3 ? i / 7 : *x;
}

/*
 * The static context of pq_encoder_zstd compresses pages of every size
 * (zstd's parameters differ below 16, 128 and 256 KiB and above) into
 * the bytes of a context of ZSTD_createCCtx(): PLAIN pages of integers,
 * partly random, read back.
 */
static void test_static_context_sizes(void **state)
{
	static const size_t rows[] = { 300, 1000, 3000, 10000, 20000, 40000, 100000 };
	static const int levels[] = { 1, 3 };
	static int64_t ints[1000];
	static uint8_t body[8 * 100000];
	struct tmx_buf out = { 0 }, plain = { 0 };
	struct pq_chunk m;
	struct pq_col c;

	(void)state;
	for (size_t l = 0; l < sizeof(levels) / sizeof(*levels); l++) {
		struct pq_encoder enc = { 0 }, own = { 0 };

		assert_true(pq_encoder_zstd_as(&enc, levels[l], true));
		assert_true(pq_encoder_zstd_as(&own, levels[l], false));
		assert_non_null(enc.zws);
		assert_null(own.zws);
		for (size_t s = 0; s < sizeof(rows) / sizeof(*rows); s++) {
			uint64_t x = 88172645463325252ull + s;
			struct rd r;
			size_t n;

			for (struct pq_encoder *e = &own; e; e = e == &own ? &enc : NULL) {
				pq_col_init(&c, pq_type_int(64, true), 0, 0, &acct);
				x = 88172645463325252ull + s;
				for (size_t i = 0; i < rows[s]; i++)
					pq_col_int(&c, 0, 0, sized_value(&x, i));
				out.len = 0;
				assert_true(pq_col_encode(&c, e, 0, &out, &m));
				assert_false(m.dict || m.delta);
				pq_col_free(&c);
				if (e == &own)
					tmx_buf_put(&plain, out.p, out.len);
			}
			assert_int_equal(out.len, plain.len);
			assert_memory_equal(out.p, plain.p, out.len);
			plain.len = 0;
			r = (struct rd){ out.p, out.p + out.len };
			read_page(&r, ints, body, sizeof(body), &n);
			assert_int_equal(n, 8 * rows[s]);
			x = 88172645463325252ull + s;
			for (size_t i = 0; i < rows[s]; i++)
				assert_int_equal(tmx_le_at(body + 8 * i, 8), sized_value(&x, i));
		}
		pq_encoder_zstd_free(&enc);
		pq_encoder_free_bufs(&enc);
		pq_encoder_zstd_free(&own);
		pq_encoder_free_bufs(&own);
	}
	tmx_buf_free(&out);
	tmx_buf_free(&plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_numbers),
		cmocka_unit_test(test_plain_bools),
		cmocka_unit_test(test_dictionary),
		cmocka_unit_test(test_dictionary_dropped),
		cmocka_unit_test(test_chunk_dictionary),
		cmocka_unit_test(test_chunk_plain_stats),
		cmocka_unit_test(test_chunk_int_dictionary),
		cmocka_unit_test(test_group_repeats),
		cmocka_unit_test(test_short_pages),
		cmocka_unit_test(test_static_context_sizes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
