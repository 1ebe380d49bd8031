/* The RLE / bit-packing hybrid: see encode.h. */
#include <string.h>

#include "sink/parquet/encode.h"

/*
 * Runs of at least this many equal values are RLE runs; shorter ones go
 * into bit-packed groups (a group of 8 costs `width` bytes, a run header
 * and value 2 or more).
 */
#define MIN_RLE_RUN 8
/* Groups per bit-packed run: 63 keeps the header in one byte. */
#define MAX_GROUPS 63

static inline uint32_t get(const void *vals, size_t elem_size, size_t i)
{
	return elem_size == 1 ? ((const uint8_t *)vals)[i] : ((const uint32_t *)vals)[i];
}

unsigned pq_bit_width(uint64_t max)
{
	unsigned w = 0;

	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

/* How many values equal to vals[i] start at i. */
static size_t run_length(const void *vals, size_t elem_size, size_t n, size_t i)
{
	size_t j = i + 1;

	if (elem_size == 1) {   /* levels: long runs of one value, compared 8 at a time */
		const uint8_t *b = vals;
		uint64_t pat = 0x0101010101010101ull * b[i], w;

		while (j + 8 <= n) {
			memcpy(&w, b + j, 8);
			if (w != pat)
				break;
			j += 8;
		}
		while (j < n && b[j] == b[i])
			j++;
		return j - i;
	}
	{
		const uint32_t *u = vals;
		uint32_t v = u[i];

		while (j < n && u[j] == v)
			j++;
	}
	return j - i;
}

static void rle_run(struct tmx_buf *out, uint32_t value, size_t count, unsigned width)
{
	tmx_buf_uvarint(out, (uint64_t)count << 1);
	tmx_buf_le(out, value, (width + 7) / 8);
}

/*
 * Values [i, i + 8 * groups) (zeros past n), `width` bits each, LSB first:
 * a group of 8 values is `width` bytes, written at once into room reserved
 * for the whole run (the dictionary indices of interleaved streams are
 * mostly such runs).
 */
static void bit_packed_run(struct tmx_buf *out, const void *vals, size_t elem_size, size_t n,
			   size_t i, size_t groups, unsigned width)
{
	uint8_t *o;

	tmx_buf_uvarint(out, (uint64_t)groups << 1 | 1);
	if (!tmx_buf_reserve(out, groups * width))
		return;
	o = out->p + out->len;
	for (size_t g = 0, k = i; g < groups; g++, o += width) {
		uint64_t acc = 0;   /* 8 values of at most 32 bits: up to 256 bits, in 64-bit words */
		unsigned bits = 0, at = 0;
		uint8_t word[32];

		for (unsigned v = 0; v < 8; v++, k++) {
			uint64_t x = k < n ? get(vals, elem_size, k) : 0;
			acc |= x << bits;
			bits += width;
			if (bits >= 64) {
				for (unsigned b = 0; b < 8; b++)
					word[at++] = (uint8_t)(acc >> (8 * b));
				bits -= 64;
				acc = bits ? x >> (width - bits) : 0;
			}
		}
		for (unsigned b = 0; at < width; b++)
			word[at++] = (uint8_t)(acc >> (8 * b));
		memcpy(o, word, width);
	}
	out->len += groups * width;
}

/* Whether at least MIN_RLE_RUN values equal to u[i] start at i (n > i). */
static inline bool long_run32(const uint32_t *u, size_t n, size_t i)
{
	if (n - i < MIN_RLE_RUN)
		return false;
	for (size_t j = i + 1; j < i + MIN_RLE_RUN; j++)
		if (u[j] != u[i])
			return false;
	return true;
}

/*
 * bit_packed_run for 32-bit values of at most 8 bits (dictionaries of up
 * to 256 entries: the indices of most columns): a group of 8 in one
 * 64-bit word.
 */
static void bit_packed_run32_narrow(struct tmx_buf *out, const uint32_t *u, size_t n, size_t i,
				    size_t groups, unsigned width)
{
	uint8_t *o;

	tmx_buf_uvarint(out, (uint64_t)groups << 1 | 1);
	if (!tmx_buf_reserve(out, groups * width))
		return;
	o = out->p + out->len;
	for (size_t g = 0; g < groups; g++, i += 8, o += width) {
		uint64_t acc = 0;

		if (i + 8 <= n) {
			for (unsigned v = 0; v < 8; v++)
				acc |= (uint64_t)u[i + v] << (v * width);
		} else {
			for (unsigned v = 0; i + v < n; v++)
				acc |= (uint64_t)u[i + v] << (v * width);
		}
		for (unsigned b = 0; b < width; b++)
			o[b] = (uint8_t)(acc >> (8 * b));
	}
	out->len += groups * width;
}

/* pq_rle_hybrid of 32-bit values (dictionary indices). */
static void rle_hybrid32(struct tmx_buf *out, const uint32_t *u, size_t n, unsigned width)
{
	size_t i = 0;

	while (i < n) {
		size_t run = run_length(u, 4, n, i), groups = 0;

		if (run >= MIN_RLE_RUN) {
			rle_run(out, u[i], run, width);
			i += run;
			continue;
		}
		do
			groups++;
		while (groups < MAX_GROUPS && i + groups * 8 < n && !long_run32(u, n, i + groups * 8));
		if (width <= 8)
			bit_packed_run32_narrow(out, u, n, i, groups, width);
		else
			bit_packed_run(out, u, 4, n, i, groups, width);
		i += groups * 8;
	}
}

void pq_rle_hybrid(struct tmx_buf *out, const void *vals, size_t elem_size, size_t n,
		   unsigned width)
{
	size_t i = 0;

	if (elem_size == 4) {
		rle_hybrid32(out, vals, n, width);
		return;
	}

	while (i < n) {
		size_t run = run_length(vals, elem_size, n, i), groups = 0;

		if (run >= MIN_RLE_RUN) {
			rle_run(out, get(vals, elem_size, i), run, width);
			i += run;
			continue;
		}
		/* Groups of 8 until a long run starts at a group boundary. */
		do
			groups++;
		while (groups < MAX_GROUPS && i + groups * 8 < n &&
		       run_length(vals, elem_size, n, i + groups * 8) < MIN_RLE_RUN);
		bit_packed_run(out, vals, elem_size, n, i, groups, width);
		i += groups * 8;
	}
}

void pq_levels(struct tmx_buf *out, const uint8_t *levels, size_t n, unsigned max_level)
{
	size_t at = out->len, len;

	tmx_buf_le(out, 0, 4);
	pq_rle_hybrid(out, levels, 1, n, pq_bit_width(max_level));
	if (out->oom)
		return;
	len = out->len - at - 4;
	for (unsigned k = 0; k < 4; k++)
		out->p[at + k] = (uint8_t)(len >> (8 * k));
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/*
 * 32 values of `width` bits (1 to 64), LSB first, into 4 * width bytes:
 * through a 128-bit accumulator, 8 bytes stored at a time.
 */
static void pack32(uint8_t *out, const uint64_t *v, unsigned width)
{
	unsigned __int128 acc = 0;
	unsigned bits = 0;
	uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;

	for (unsigned i = 0; i < 32; i++) {
		acc |= (unsigned __int128)(v[i] & mask) << bits;
		bits += width;
		if (bits >= 64) {
			uint64_t w = (uint64_t)acc;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			memcpy(out, &w, 8);
#else
			for (unsigned b = 0; b < 8; b++)
				out[b] = (uint8_t)(w >> (8 * b));
#endif
			out += 8;
			acc >>= 64;
			bits -= 64;
		}
	}
	/* 32 * width bits: 0 or 32 left */
	for (unsigned b = 0; b < bits / 8; b++)
		out[b] = (uint8_t)(acc >> (8 * b));
}

#define DELTA_BLOCK 128
#define DELTA_MINI 32

void pq_delta_int64(struct tmx_buf *out, const uint8_t *vals, size_t n)
{
	uint64_t prev = 0, d[DELTA_BLOCK];

	tmx_buf_uvarint(out, DELTA_BLOCK);
	tmx_buf_uvarint(out, DELTA_BLOCK / DELTA_MINI);
	tmx_buf_uvarint(out, n);
	if (!n) {
		tmx_buf_uvarint(out, 0);
		return;
	}
	memcpy(&prev, vals, 8);
	tmx_buf_uvarint(out, zigzag((int64_t)prev));
	for (size_t i = 1; i < n;) {
		size_t k = n - i < DELTA_BLOCK ? n - i : DELTA_BLOCK;
		int64_t min;
		uint8_t widths[DELTA_BLOCK / DELTA_MINI] = { 0 };
		uint64_t v;

		for (size_t j = 0; j < k; j++) {
			memcpy(&v, vals + 8 * (i + j), 8);
			d[j] = v - prev;   /* wraps: the reader adds back modulo 2^64 */
			prev = v;
		}
		min = (int64_t)d[0];
		for (size_t j = 1; j < k; j++)
			min = (int64_t)d[j] < min ? (int64_t)d[j] : min;
		for (size_t j = 0; j < DELTA_BLOCK; j++)
			d[j] = j < k ? d[j] - (uint64_t)min : 0;   /* padding: zeros */
		for (size_t m = 0; m * DELTA_MINI < k; m++) {
			uint64_t bits = 0;
			for (size_t j = m * DELTA_MINI; j < (m + 1) * DELTA_MINI; j++)
				bits |= d[j];
			widths[m] = (uint8_t)pq_bit_width(bits);
		}
		tmx_buf_uvarint(out, zigzag(min));
		tmx_buf_put(out, widths, sizeof(widths));
		for (size_t m = 0; m * DELTA_MINI < k; m++) {
			size_t bytes = 4 * (size_t)widths[m];
			if (!bytes || !tmx_buf_reserve(out, bytes))
				continue;
			pack32(out->p + out->len, d + m * DELTA_MINI, widths[m]);
			out->len += bytes;
		}
		i += k;
	}
}
