/*
 * Thrift's compact protocol, the encoding of Parquet's footer and page
 * headers (apache/parquet-format, src/main/thrift/parquet.thrift), write
 * side only:
 *
 *   field header   one byte (id delta << 4 | type) when the id is 1 to 15
 *                  above the previous field of the same struct, else the
 *                  type byte and the id as a zigzag varint
 *   i16/i32/i64    zigzag varints;  bool: the type of its header (1 true, 2 false)
 *   binary         varint length, bytes
 *   list           one byte (size << 4 | element type) below 15 elements,
 *                  else 0xF0 | type and a varint size; elements without headers
 *   struct         its fields, then a stop byte (0); field ids start over
 *                  inside every nested struct
 */
#ifndef TMX_SINK_PARQUET_THRIFT_H
#define TMX_SINK_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"

enum pq_ttype {
	PQ_T_TRUE = 1, PQ_T_FALSE = 2, PQ_T_BYTE = 3, PQ_T_I16 = 4, PQ_T_I32 = 5,
	PQ_T_I64 = 6, PQ_T_DOUBLE = 7, PQ_T_BINARY = 8, PQ_T_LIST = 9, PQ_T_STRUCT = 12,
};

/* Nesting deeper than Parquet's metadata needs is a bug of the caller. */
#define PQ_THRIFT_MAX_DEPTH 16

struct pq_thrift {
	struct tmx_buf *b;
	int depth;
	int16_t last[PQ_THRIFT_MAX_DEPTH];   /* previous field id per open struct */
};

/* Starts the outermost struct in `b`; end it with pq_t_struct_end(). */
void pq_t_begin(struct pq_thrift *t, struct tmx_buf *b);

void pq_t_byte(struct pq_thrift *t, int16_t id, int8_t v);
void pq_t_i32(struct pq_thrift *t, int16_t id, int32_t v);
void pq_t_i64(struct pq_thrift *t, int16_t id, int64_t v);
void pq_t_bool(struct pq_thrift *t, int16_t id, bool v);
void pq_t_binary(struct pq_thrift *t, int16_t id, const void *p, size_t n);
void pq_t_string(struct pq_thrift *t, int16_t id, const char *s);
/* A struct field (or, with pq_t_elem_struct, a list element): its fields follow. */
void pq_t_struct(struct pq_thrift *t, int16_t id);
void pq_t_elem_struct(struct pq_thrift *t);
/* The stop byte of the innermost open struct. */
void pq_t_struct_end(struct pq_thrift *t);
/* A list field of `n` elements of type `elem`, which follow. */
void pq_t_list(struct pq_thrift *t, int16_t id, enum pq_ttype elem, uint32_t n);
void pq_t_elem_i32(struct pq_thrift *t, int32_t v);
void pq_t_elem_string(struct pq_thrift *t, const char *s);
/* An empty struct as a field: how unions say which member they hold. */
void pq_t_empty(struct pq_thrift *t, int16_t id);

#endif
