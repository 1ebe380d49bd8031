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

#include "sink/parquet/pqbuf.h"

/* Bits needed for values up to `max` (0 for 0). */
unsigned pq_bit_width(uint64_t max);
/*
 * The hybrid encoding of `n` values (each `elem_size` bytes: 1 or 4,
 * native order) of `width` bits (0 to 32), without a length prefix.
 */
void pq_rle_hybrid(struct pq_buf *out, const void *vals, size_t elem_size, size_t n,
		   unsigned width);
/* Levels of a data page v1: 4-byte LE byte length, then the hybrid encoding. */
void pq_levels(struct pq_buf *out, const uint8_t *levels, size_t n, unsigned max_level);

#endif
