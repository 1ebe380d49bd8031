/*
 * Integer columns as dictionaries (int_dict.c): whether a column chunk's
 * integers are written as a dictionary page and its indices, the entries
 * and indices made, and the statistics that follow from them.  page.c
 * writes the pages.
 */
#ifndef TMX_PQ_INT_DICT_H
#define TMX_PQ_INT_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink/parquet/column.h"

/*
 * An integer column's dictionary made (on): its entries enc->ikeys[0,
 * n_keys), its indices enc->iidx[0, n_idx), bytes when `narrow`; `up`:
 * the values only increase (no dictionary).
 */
struct pq_idict {
	bool on, up, narrow;
	size_t n_keys, n_idx;
};

/* The dictionary of the values of INT32 or INT64 column `c` (no nulls, no LIST): false when none. */
bool pq_int_dict(const struct pq_col *c, struct pq_encoder *enc, struct pq_idict *d);
/*
 * The same dictionary for packet column `c` (column.h, `pk`) from the
 * instances `rows` (uint16) of its `n` rows: false when it gives none.
 */
bool pq_pk_dict(const struct pq_col *c, const uint8_t *rows, size_t n, struct pq_encoder *enc,
		struct pq_idict *d);
/* The statistics of a dictionary-encoded integer column: from its `n` entries `keys`. */
void pq_int_dict_stats(const struct pq_col *c, const uint64_t *keys, size_t n, struct pq_chunk *m);
/*
 * The statistics of values that only increase (pq_int_dict's `up`):
 * false when stats.c's loop is needed.
 */
bool pq_increasing_stats(const struct pq_col *c, struct pq_chunk *m);

#endif
