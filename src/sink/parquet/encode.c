/* The RLE / bit-packing hybrid: see encode.h. */
#include <string.h>

#include "sink/parquet/encode.h"

/* The element types of PACK_WIDTH's names. */
typedef uint8_t u8_t;
typedef uint32_t u32_t;

/*
 * Runs of at least this many equal values are RLE runs; shorter ones go
 * into bit-packed groups (a group of 8 costs `width` bytes, a run header
 * and value 2 or more).
 */
#define MIN_RLE_RUN 8
/* Groups per bit-packed run: 63 keeps the header in one byte. */
#define MAX_GROUPS 63

unsigned pq_bit_width(uint64_t max)
{
	unsigned w = 0;

	while (max) {
		w++;
		max >>= 1;
	}
	return w;
}

/* The 8 bytes of `v` at `o`, little-endian. */
static inline void store_le64(uint8_t *o, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(o, &v, 8);
#else
	for (unsigned b = 0; b < 8; b++)
		o[b] = (uint8_t)(v >> (8 * b));
#endif
}

/*
 * Bit-packed groups: 8 values of W bits each, LSB first, a group W bytes.
 * One function per width and input size (the shifts constant, the loop of
 * 8 unrolled, 8-byte stores: a loop with the width as a variable cost
 * some 30 instructions a value, the dictionary indices of wide
 * dictionaries and the repetition levels of LISTs most of the encoding).
 * They may write up to 8 bytes past the last group: the caller reserves
 * that room, and the bytes past its length are overwritten later.
 */
static inline __attribute__((always_inline)) void pack_words(uint8_t *o, const void *vals,
							      unsigned size, unsigned n, unsigned w)
{
	uint64_t acc = 0;
	unsigned bits = 0;

#pragma GCC unroll 32
	for (unsigned i = 0; i < n; i++) {
		/* size and n are constants where this is inlined: no branch left */
		uint64_t x = size == 4 ? ((const uint32_t *)vals)[i] : ((const uint64_t *)vals)[i];

		acc |= x << bits;   /* bits < 64 here */
		bits += w;
		if (bits >= 64) {
			store_le64(o, acc);
			o += 8;
			bits -= 64;
			acc = bits ? x >> (w - bits) : 0;
		}
	}
	if (bits)   /* n * w bits in all, n a multiple of 8: whole bytes */
		store_le64(o, acc);
}

static inline __attribute__((always_inline)) void pack8_u32(uint8_t *o, const uint32_t *u,
							     unsigned w)
{
	pack_words(o, u, 4, 8, w);
}

/* Levels (at most 8 bits): a group fits one 64-bit word. */
static inline __attribute__((always_inline)) void pack8_u8(uint8_t *o, const uint8_t *b,
							    unsigned w)
{
	uint64_t acc = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (w == 1) {
		/*
		 * Eight 0/1 bytes: the multiplication moves byte v's bit to
		 * bit 56 + v, each product bit apart (no carries).
		 */
		memcpy(&acc, b, 8);
		store_le64(o, (acc * 0x0102040810204080ull) >> 56);
		return;
	}
#endif

#pragma GCC unroll 8
	for (unsigned v = 0; v < 8; v++)
		acc |= (uint64_t)b[v] << (v * w);
	store_le64(o, acc);
}

typedef void pack_fn(uint8_t *o, const void *vals, size_t groups);

#define PACK_WIDTH(T, W)                                                       \
	static void pack_##T##_##W(uint8_t *o, const void *vals, size_t groups) \
	{                                                                      \
		const T##_t *v = vals;                                         \
		for (size_t g = 0; g < groups; g++, v += 8, o += W)           \
			pack8_##T(o, v, W);                                    \
	}
#define PACK_8(T, A, B, C, D, E, F, G, H)                                         \
	PACK_WIDTH(T, A) PACK_WIDTH(T, B) PACK_WIDTH(T, C) PACK_WIDTH(T, D)        \
	PACK_WIDTH(T, E) PACK_WIDTH(T, F) PACK_WIDTH(T, G) PACK_WIDTH(T, H)
PACK_8(u8, 1, 2, 3, 4, 5, 6, 7, 8)
PACK_8(u32, 1, 2, 3, 4, 5, 6, 7, 8)
PACK_8(u32, 9, 10, 11, 12, 13, 14, 15, 16)
PACK_8(u32, 17, 18, 19, 20, 21, 22, 23, 24)
PACK_8(u32, 25, 26, 27, 28, 29, 30, 31, 32)

static pack_fn *const pack_u8[9] = {
	NULL, pack_u8_1, pack_u8_2, pack_u8_3, pack_u8_4, pack_u8_5, pack_u8_6, pack_u8_7, pack_u8_8,
};
static pack_fn *const pack_u32[33] = {
	NULL,       pack_u32_1,  pack_u32_2,  pack_u32_3,  pack_u32_4,  pack_u32_5,  pack_u32_6,
	pack_u32_7, pack_u32_8,  pack_u32_9,  pack_u32_10, pack_u32_11, pack_u32_12, pack_u32_13,
	pack_u32_14, pack_u32_15, pack_u32_16, pack_u32_17, pack_u32_18, pack_u32_19, pack_u32_20,
	pack_u32_21, pack_u32_22, pack_u32_23, pack_u32_24, pack_u32_25, pack_u32_26, pack_u32_27,
	pack_u32_28, pack_u32_29, pack_u32_30, pack_u32_31, pack_u32_32,
};

/* How many values equal to vals[i] start at i: blocks of 8 compared at once, the end found in the block from a mask. */
static size_t run_length(const void *vals, size_t elem_size, size_t n, size_t i)
{
	size_t j = i + 1;

	if (elem_size == 1) {
		const uint8_t *b = vals;
		uint64_t pat = 0x0101010101010101ull * b[i], w;

		while (j + 8 <= n) {
			memcpy(&w, b + j, 8);
			if (w != pat) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				/* The first byte that differs, without a loop to mispredict. */
				return j + (size_t)__builtin_ctzll(w ^ pat) / 8 - i;
#else
				break;
#endif
			}
			j += 8;
		}
		while (j < n && b[j] == b[i])
			j++;
		return j - i;
	}
	{
		const uint32_t *u = vals;
		uint32_t v = u[i];

		while (j + 8 <= n) {
			uint32_t d = 0;
			for (unsigned k = 0; k < 8; k++)
				d |= u[j + k] ^ v;
			if (d) {
#if defined(__SSE2__)
				/* The first value that differs from a mask of the block's, as for bytes. */
				typedef int32_t v4i __attribute__((vector_size(16)));
				typedef float v4f __attribute__((vector_size(16)));
				v4i a, b, vv = { (int32_t)v, (int32_t)v, (int32_t)v, (int32_t)v };
				unsigned m;
				memcpy(&a, u + j, 16);
				memcpy(&b, u + j + 4, 16);
				m = (unsigned)__builtin_ia32_movmskps((v4f)(a != vv)) |
				    (unsigned)__builtin_ia32_movmskps((v4f)(b != vv)) << 4;
				return j + (size_t)__builtin_ctz(m) - i;
#else
				break;
#endif
			}
			j += 8;
		}
		while (j < n && u[j] == v)
			j++;
	}
	return j - i;
}

/* A run header (a varint of at most 10 bytes) at o; returns the end. */
static inline uint8_t *put_varint(uint8_t *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	return o;
}

/*
 * Written in place after one reservation: tmx_buf_le of a size that is
 * not a constant called memcpy, some 60 instructions a run.
 */
static void rle_run(struct tmx_buf *out, uint32_t value, size_t count, unsigned width)
{
	uint8_t *o;

	if (!tmx_buf_reserve(out, 16))
		return;
	o = put_varint(out->p + out->len, (uint64_t)count << 1);
	for (unsigned b = 0; b < (width + 7) / 8; b++)
		*o++ = (uint8_t)(value >> (8 * b));
	out->len = (size_t)(o - out->p);
}

/*
 * Values [i, i + 8 * groups) (zeros past n) as one bit-packed run: the
 * whole groups packed in place, a last partial one from a padded copy.
 */
static void bit_packed_run(struct tmx_buf *out, const void *vals, size_t elem_size, size_t n,
			   size_t i, size_t groups, unsigned width)
{
	pack_fn *pack = elem_size == 1 ? pack_u8[width] : pack_u32[width];
	size_t full = (n - i) / 8;
	uint8_t *o;

	if (!tmx_buf_reserve(out, 10 + groups * width + 8))
		return;
	out->len = (size_t)(put_varint(out->p + out->len, (uint64_t)groups << 1 | 1) - out->p);
	if (!width)
		return;
	o = out->p + out->len;
	if (full > groups)
		full = groups;
	pack(o, (const uint8_t *)vals + i * elem_size, full);
	if (full < groups) {
		uint32_t pad[8] = { 0 };   /* room for 8 values of either size */
		memcpy(pad, (const uint8_t *)vals + (i + 8 * full) * elem_size,
		       (n - i - 8 * full) * elem_size);
		pack(o + full * width, pad, 1);
	}
	out->len += groups * width;
}

/* Whether at least MIN_RLE_RUN values equal to u[i] start at i (n > i). */
static inline bool long_run32(const uint32_t *u, size_t n, size_t i)
{
	typedef uint32_t v4u __attribute__((vector_size(16)));
	v4u a, b, d;
	uint64_t h[2];

	if (n - i < MIN_RLE_RUN)
		return false;
	/*
	 * The 8 values at once, one branch (a loop left at the first that
	 * differs was mispredicted at most groups of bit-packed indices).
	 */
	memcpy(&a, u + i, 16);
	memcpy(&b, u + i + 4, 16);
	d = (a ^ u[i]) | (b ^ u[i]);
	memcpy(h, &d, 16);
	return !(h[0] | h[1]);
}

/* Whether at least MIN_RLE_RUN (8) bytes equal to b[i] start at i (n > i). */
static inline bool long_run8(const uint8_t *b, size_t n, size_t i)
{
	uint64_t w;

	if (n - i < MIN_RLE_RUN)
		return false;
	memcpy(&w, b + i, 8);
	return w == 0x0101010101010101ull * b[i];
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
		bit_packed_run(out, u, 4, n, i, groups, width);
		i += groups * 8;
	}
}

void pq_rle_hybrid(struct tmx_buf *out, const void *vals, size_t elem_size, size_t n,
		   unsigned width)
{
	const uint8_t *b = vals;
	size_t i = 0;

	if (!width && n) {
		/*
		 * Every value 0 (a dictionary of one entry: a stream's or a
		 * packet's column): one run, or one group of padding when too
		 * short for a run, without reading the values.
		 */
		tmx_buf_uvarint(out, n >= MIN_RLE_RUN ? (uint64_t)n << 1 : 1u << 1 | 1);
		return;
	}
	if (elem_size == 4) {
		rle_hybrid32(out, vals, n, width);
		return;
	}

	while (i < n) {
		size_t run = run_length(vals, elem_size, n, i), groups = 0;

		if (run >= MIN_RLE_RUN) {
			rle_run(out, b[i], run, width);
			i += run;
			continue;
		}
		/* Groups of 8 until a long run starts at a group boundary. */
		do
			groups++;
		while (groups < MAX_GROUPS && i + groups * 8 < n && !long_run8(b, n, i + groups * 8));
		bit_packed_run(out, vals, elem_size, n, i, groups, width);
		i += groups * 8;
	}
}

void pq_rle_const(struct tmx_buf *out, uint32_t value, size_t n, unsigned width)
{
	uint32_t few[MIN_RLE_RUN];

	if (n >= MIN_RLE_RUN && width) {
		rle_run(out, value, n, width);
		return;
	}
	for (unsigned k = 0; k < MIN_RLE_RUN; k++)
		few[k] = value;
	pq_rle_hybrid(out, few, 4, n, width);
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

void pq_levels_all(struct tmx_buf *out, uint8_t level, size_t n, unsigned max_level)
{
	size_t at = out->len, len;

	tmx_buf_le(out, 0, 4);
	pq_rle_const(out, level, n, pq_bit_width(max_level));
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
 * 32 values of W bits (1 to 64; each below 2^W), LSB first, into 4 * W
 * bytes, and up to 4 bytes past them: one function per width up to 32
 * (timestamps, counters), as the bit-packed groups above.
 */
static inline __attribute__((always_inline)) void pack32_w(uint8_t *o, const uint64_t *v,
							    unsigned w)
{
	pack_words(o, v, 8, 32, w);   /* 32 * w bits: 0 or 32 left at the end */
}

typedef void pack32_fn(uint8_t *o, const uint64_t *v);

#define PACK32_WIDTH(W)                                              \
	static void pack32_##W(uint8_t *o, const uint64_t *v)        \
	{                                                            \
		pack32_w(o, v, W);                                   \
	}
#define PACK32_8(A, B, C, D, E, F, G, H)                                              \
	PACK32_WIDTH(A) PACK32_WIDTH(B) PACK32_WIDTH(C) PACK32_WIDTH(D) PACK32_WIDTH(E) \
	PACK32_WIDTH(F) PACK32_WIDTH(G) PACK32_WIDTH(H)
PACK32_8(1, 2, 3, 4, 5, 6, 7, 8)
PACK32_8(9, 10, 11, 12, 13, 14, 15, 16)
PACK32_8(17, 18, 19, 20, 21, 22, 23, 24)
PACK32_8(25, 26, 27, 28, 29, 30, 31, 32)

/* Wider deltas (scattered values, no longer timestamps): the width a variable. */
static void pack32_wide(uint8_t *o, const uint64_t *v, unsigned w)
{
	pack32_w(o, v, w);
}

static pack32_fn *const pack32[33] = {
	NULL,      pack32_1,  pack32_2,  pack32_3,  pack32_4,  pack32_5,  pack32_6,  pack32_7,
	pack32_8,  pack32_9,  pack32_10, pack32_11, pack32_12, pack32_13, pack32_14, pack32_15,
	pack32_16, pack32_17, pack32_18, pack32_19, pack32_20, pack32_21, pack32_22, pack32_23,
	pack32_24, pack32_25, pack32_26, pack32_27, pack32_28, pack32_29, pack32_30, pack32_31,
	pack32_32,
};

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
		const uint8_t *src = vals + 8 * i;
		uint8_t widths[DELTA_BLOCK / DELTA_MINI] = { 0 };
		int64_t min;
		uint64_t v;

		/* Two passes: the deltas and their smallest, then each miniblock less it and its width. */
		memcpy(&v, src, 8);
		d[0] = v - prev;   /* wraps: the reader adds back modulo 2^64 */
		prev = v;
		min = (int64_t)d[0];
		for (size_t j = 1; j < k; j++) {
			memcpy(&v, src + 8 * j, 8);
			d[j] = v - prev;
			prev = v;
			min = (int64_t)d[j] < min ? (int64_t)d[j] : min;
		}
		if (k < DELTA_BLOCK)
			memset(d + k, 0, (DELTA_BLOCK - k) * sizeof(*d));   /* padding: zeros */
		for (size_t m = 0; m * DELTA_MINI < k; m++) {
			size_t end = (m + 1) * DELTA_MINI < k ? (m + 1) * DELTA_MINI : k;
			uint64_t bits = 0;
			for (size_t j = m * DELTA_MINI; j < end; j++) {
				d[j] -= (uint64_t)min;
				bits |= d[j];
			}
			widths[m] = (uint8_t)(bits ? 64 - __builtin_clzll(bits) : 0);
		}
		tmx_buf_uvarint(out, zigzag(min));
		tmx_buf_put(out, widths, sizeof(widths));
		for (size_t m = 0; m * DELTA_MINI < k; m++) {
			size_t bytes = 4 * (size_t)widths[m];
			if (!bytes || !tmx_buf_reserve(out, bytes + 8))
				continue;
			if (widths[m] <= 32)
				pack32[widths[m]](out->p + out->len, d + m * DELTA_MINI);
			else
				pack32_wide(out->p + out->len, d + m * DELTA_MINI, widths[m]);
			out->len += bytes;
		}
		i += k;
	}
}
