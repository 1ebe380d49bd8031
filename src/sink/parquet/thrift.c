/* Thrift compact protocol writer: see thrift.h. */
#include <string.h>

#include "sink/parquet/thrift.h"

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

void pq_t_begin(struct pq_thrift *t, struct tmx_buf *b)
{
	t->b = b;
	t->depth = 0;
	t->last[0] = 0;
}

static void field(struct pq_thrift *t, int16_t id, enum pq_ttype type)
{
	int delta = id - t->last[t->depth];

	if (delta > 0 && delta <= 15) {
		tmx_buf_byte(t->b, (uint8_t)(delta << 4 | type));
	} else {
		tmx_buf_byte(t->b, (uint8_t)type);
		tmx_buf_uvarint(t->b, zigzag(id));
	}
	t->last[t->depth] = id;
}

/* i8: one raw byte (not a varint). */
void pq_t_byte(struct pq_thrift *t, int16_t id, int8_t v)
{
	field(t, id, PQ_T_BYTE);
	tmx_buf_byte(t->b, (uint8_t)v);
}

void pq_t_i32(struct pq_thrift *t, int16_t id, int32_t v)
{
	field(t, id, PQ_T_I32);
	tmx_buf_uvarint(t->b, zigzag(v));
}

void pq_t_i64(struct pq_thrift *t, int16_t id, int64_t v)
{
	field(t, id, PQ_T_I64);
	tmx_buf_uvarint(t->b, zigzag(v));
}

void pq_t_bool(struct pq_thrift *t, int16_t id, bool v)
{
	field(t, id, v ? PQ_T_TRUE : PQ_T_FALSE);
}

void pq_t_binary(struct pq_thrift *t, int16_t id, const void *p, size_t n)
{
	field(t, id, PQ_T_BINARY);
	tmx_buf_uvarint(t->b, n);
	tmx_buf_put(t->b, p, n);
}

void pq_t_string(struct pq_thrift *t, int16_t id, const char *s)
{
	pq_t_binary(t, id, s, strlen(s));
}

static void open_struct(struct pq_thrift *t)
{
	/* Deeper nesting would be a bug in this writer: keep writing at the top level. */
	if (t->depth + 1 < PQ_THRIFT_MAX_DEPTH)
		t->depth++;
	t->last[t->depth] = 0;
}

void pq_t_struct(struct pq_thrift *t, int16_t id)
{
	field(t, id, PQ_T_STRUCT);
	open_struct(t);
}

void pq_t_elem_struct(struct pq_thrift *t)
{
	open_struct(t);
}

void pq_t_struct_end(struct pq_thrift *t)
{
	tmx_buf_byte(t->b, 0);
	if (t->depth > 0)
		t->depth--;
}

void pq_t_list(struct pq_thrift *t, int16_t id, enum pq_ttype elem, uint32_t n)
{
	field(t, id, PQ_T_LIST);
	if (n < 15) {
		tmx_buf_byte(t->b, (uint8_t)(n << 4 | elem));
	} else {
		tmx_buf_byte(t->b, (uint8_t)(0xF0 | elem));
		tmx_buf_uvarint(t->b, n);
	}
}

void pq_t_elem_i32(struct pq_thrift *t, int32_t v)
{
	tmx_buf_uvarint(t->b, zigzag(v));
}

void pq_t_elem_string(struct pq_thrift *t, const char *s)
{
	size_t n = strlen(s);

	tmx_buf_uvarint(t->b, n);
	tmx_buf_put(t->b, s, n);
}

void pq_t_empty(struct pq_thrift *t, int16_t id)
{
	pq_t_struct(t, id);
	pq_t_struct_end(t);
}
