/*
 * A column chunk's statistics (see column.h): the null count and PLAIN
 * bounds of its values, as ColumnMetaData's Statistics.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sink/parquet/column.h"
#include "sink/parquet/thrift.h"

/* PLAIN bounds: `n` bytes of each, little-endian. */
void pq_set_bounds_le(struct pq_chunk *m, uint64_t lo, uint64_t hi, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		m->min[i] = (uint8_t)(lo >> (8 * i));
		m->max[i] = (uint8_t)(hi >> (8 * i));
	}
	m->min_len = m->max_len = (uint8_t)n;
	m->has_minmax = true;
}

/* The bits of a FLOAT (n = 4) or DOUBLE value. */
static uint64_t float_bits(double d, unsigned n)
{
	uint64_t u;

	if (n == 4) {
		float f = (float)d;
		uint32_t w;
		memcpy(&w, &f, 4);
		return w;
	}
	memcpy(&u, &d, 8);
	return u;
}

/*
 * The bounds of `n` PLAIN values of type T, read as U: one loop per
 * type, which the compiler vectorizes (the values are most of a chunk).
 */
#define BOUNDS(name, T)                                                          \
	static void name(const uint8_t *p, size_t n, T *lo, T *hi)              \
	{                                                                         \
		T l, h, v;                                                        \
		memcpy(&l, p, sizeof(T));                                         \
		h = l;                                                            \
		for (size_t i = 1; i < n; i++) {                                  \
			memcpy(&v, p + i * sizeof(T), sizeof(T));                 \
			l = v < l ? v : l;                                        \
			h = v > h ? v : h;                                        \
		}                                                                 \
		*lo = l;                                                          \
		*hi = h;                                                          \
	}
BOUNDS(bounds_u32, uint32_t)
BOUNDS(bounds_i32, int32_t)
BOUNDS(bounds_u64, uint64_t)
BOUNDS(bounds_i64, int64_t)

/* Integers: signed order, or unsigned for unsigned logical types. */
static void int_stats(const struct pq_col *c, struct pq_chunk *m)
{
	bool is_unsigned = c->type.logical == PQ_LT_INT && !c->type.is_signed;
	size_t n = c->vals.len / pq_int_width(c->type.phys);

	if (!n)
		return;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (c->type.phys == PQ_INT32) {
		if (is_unsigned) {
			uint32_t lo, hi;
			bounds_u32(c->vals.p, n, &lo, &hi);
			pq_set_bounds_le(m, lo, hi, 4);
		} else {
			int32_t lo, hi;
			bounds_i32(c->vals.p, n, &lo, &hi);
			pq_set_bounds_le(m, (uint32_t)lo, (uint32_t)hi, 4);
		}
	} else if (is_unsigned) {
		uint64_t lo, hi;
		bounds_u64(c->vals.p, n, &lo, &hi);
		pq_set_bounds_le(m, lo, hi, 8);
	} else {
		int64_t lo, hi;
		bounds_i64(c->vals.p, n, &lo, &hi);
		pq_set_bounds_le(m, (uint64_t)lo, (uint64_t)hi, 8);
	}
#else
	{
		unsigned w = pq_int_width(c->type.phys), sh = 64 - 8 * w;
		const uint8_t *p = c->vals.p, *end = p + n * w;
		uint64_t lo = tmx_le_at(p, w), hi = lo;

		if (is_unsigned) {
			for (; p < end; p += w) {
				uint64_t u = tmx_le_at(p, w);
				lo = u < lo ? u : lo;
				hi = u > hi ? u : hi;
			}
		} else {
			int64_t slo = (int64_t)(lo << sh) >> sh, shi = slo;   /* sign-extended */
			for (; p < end; p += w) {
				int64_t v = (int64_t)(tmx_le_at(p, w) << sh) >> sh;
				slo = v < slo ? v : slo;
				shi = v > shi ? v : shi;
			}
			lo = (uint64_t)slo;
			hi = (uint64_t)shi;
		}
		pq_set_bounds_le(m, lo, hi, w);
	}
#endif
}

/*
 * Floating point (TYPE_ORDER rules of parquet.thrift): NaNs counted and
 * left out of the bounds; a zero minimum is -0.0, a zero maximum +0.0.
 */
static void float_stats(const struct pq_col *c, struct pq_chunk *m)
{
	unsigned n = c->type.phys == PQ_FLOAT ? 4 : 8;
	double lo = INFINITY, hi = -INFINITY;
	bool any = false;

	m->has_nan_count = true;
	for (size_t i = 0; i < c->vals.len; i += n) {
		uint64_t u = tmx_le_at(c->vals.p + i, n);
		double d;
		if (n == 4) {
			float f;
			uint32_t w = (uint32_t)u;
			memcpy(&f, &w, 4);
			d = f;
		} else {
			memcpy(&d, &u, 8);
		}
		if (isnan(d)) {
			m->nan_count++;
			continue;
		}
		any = true;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	if (!any)
		return;
	if (lo == 0)
		lo = -0.0;
	if (hi == 0)
		hi = 0.0;
	pq_set_bounds_le(m, float_bits(lo, n), float_bits(hi, n), n);
}

static void bool_stats(const struct pq_col *c, struct pq_chunk *m)
{
	uint8_t lo = 1, hi = 0;

	for (uint64_t i = 0; i < c->n_vals; i++) {
		uint8_t b = (uint8_t)((c->vals.p[i / 8] >> (i % 8)) & 1);
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	if (c->n_vals)
		pq_set_bounds_le(m, lo, hi, 1);
}

/* Unsigned byte-wise order, a prefix first. */
static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int r = memcmp(a, b, an < bn ? an : bn);

	return r ? r : (an > bn) - (an < bn);
}

/* Byte arrays: from the dictionary's entries or from the PLAIN values. */
static void bytes_stats(const struct pq_col *c, struct pq_chunk *m)
{
	const struct tmx_buf *b = c->dict_on ? &c->dict.plain : &c->vals;
	const uint8_t *lo = NULL, *hi = NULL;
	size_t lo_n = 0, hi_n = 0;

	for (size_t i = 0; i + 4 <= b->len;) {
		size_t n = (size_t)tmx_le_at(b->p + i, 4);
		const uint8_t *p = b->p + i + 4;
		if (!lo || bytes_cmp(p, n, lo, lo_n) < 0)
			lo = p, lo_n = n;
		if (!hi || bytes_cmp(p, n, hi, hi_n) > 0)
			hi = p, hi_n = n;
		i += 4 + n;
	}
	if (!lo || lo_n > PQ_STAT_MAX || hi_n > PQ_STAT_MAX)
		return;   /* longer bounds would have to be truncated: none is kept */
	memcpy(m->min, lo, lo_n);
	memcpy(m->max, hi, hi_n);
	m->min_len = (uint8_t)lo_n;
	m->max_len = (uint8_t)hi_n;
	m->has_minmax = true;
}

void pq_chunk_stats(const struct pq_col *c, struct pq_chunk *m)
{
	m->null_count = (int64_t)c->n_nulls;
	switch (c->type.phys) {
	case PQ_INT32:
	case PQ_INT64:
		int_stats(c, m);
		break;
	case PQ_FLOAT:
	case PQ_DOUBLE:
		float_stats(c, m);
		break;
	case PQ_BOOLEAN:
		bool_stats(c, m);
		break;
	default:
		bytes_stats(c, m);
		break;
	}
}

void pq_chunk_stats_thrift(const struct pq_chunk *m, struct pq_thrift *t, int16_t id)
{
	pq_t_struct(t, id);
	pq_t_i64(t, 3, m->null_count);
	if (m->has_minmax) {
		pq_t_binary(t, 5, m->max, m->max_len);
		pq_t_binary(t, 6, m->min, m->min_len);
	}
	if (m->has_nan_count)
		pq_t_i64(t, 9, m->nan_count);
	pq_t_struct_end(t);
}
