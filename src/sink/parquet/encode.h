/*
 * Parquet's encodings of levels and dictionary indices (Encodings.md): the
 * RLE / bit-packing hybrid.
 *
 *   run        := rle-run | bit-packed-run
 *   rle-run    := varint(count << 1), the value in ceil(width / 8) bytes LE
 *   bit-packed := varint(groups << 1 | 1), groups * 8 values of `width`
 *                 bits each, packed from the least significant bit of each
 *                 byte on; the last group padded with zeros
 *
 * Definition and repetition levels of a data page v1 are prefixed with
 * their byte length (4 bytes LE); dictionary indices with one byte, the
 * bit width.  PLAIN values are written by the columns themselves
 * (little-endian numbers, BYTE_ARRAY as a 4-byte length and the bytes,
 * booleans one bit each from the least significant bit).
 */
#ifndef TMX_SINK_PARQUET_ENCODE_H
#define TMX_SINK_PARQUET_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Bits needed for values up to `max` (0 for 0). */
unsigned pq_bit_width(uint64_t max);
/*
 * The hybrid encoding of `n` values (each `elem_size` bytes: 1 or 4,
 * native order) of `width` bits (0 to 32; at most 8 for 1-byte values),
 * without a length prefix.
 */
void pq_rle_hybrid(struct tmx_buf *out, const void *vals, size_t elem_size, size_t n,
		   unsigned width);
/*
 * pq_rle_hybrid of `n` values that are all `value`, without them: one run
 * of 8 or more, else one group padded with zeros.
 */
void pq_rle_const(struct tmx_buf *out, uint32_t value, size_t n, unsigned width);
/* Levels of a data page v1: 4-byte LE byte length, then the hybrid encoding. */
void pq_levels(struct tmx_buf *out, const uint8_t *levels, size_t n, unsigned max_level);
/*
 * pq_levels of `n` levels that are all `level`, without reading them (a
 * column without nulls: its definition levels are all its deepest).
 */
void pq_levels_all(struct tmx_buf *out, uint8_t level, size_t n, unsigned max_level);
/*
 * DELTA_BINARY_PACKED (Encodings.md) of `n` INT64 values (PLAIN bytes,
 * little-endian): a header (block size 128, 4 miniblocks, the count, the
 * first value zigzag), then per block of 128 deltas (wrapping 64-bit
 * differences) the smallest, zigzag, a bit width per miniblock of 32 and
 * the miniblocks, each delta minus the smallest bit-packed from the least
 * significant bit; the last miniblock padded with zeros, the widths of
 * miniblocks past the values 0 and without bytes.  Timestamps (ascending,
 * close together) take a byte or two each instead of eight.
 */
void pq_delta_int64(struct tmx_buf *out, const uint8_t *vals, size_t n);

#endif
