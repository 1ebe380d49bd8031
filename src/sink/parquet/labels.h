/*
 * The labels of an enumeration's value or a bit map's active flags,
 * joined by ", " (fmap_values.c's put_labels), memoized: most such fields
 * take a few values, and walking every mapping then joining costs
 * hundreds of instructions per event.  Each formatter (the sequential
 * sink's, each worker's) has its own: no lock, no shared state.
 */
#ifndef TMX_SINK_PARQUET_LABELS_H
#define TMX_SINK_PARQUET_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/field_class.h"
#include "common/buf.h"

/* Slots, direct-mapped by (class, value); a power of two. */
#define PQ_LABEL_SLOTS 64
/* Joined labels up to so many bytes are memoized (a slot is 64 bytes). */
#define PQ_LABEL_MAX 47
/* Bytes that may be read from a memoized text (its slot's text and length). */
#define PQ_LABEL_READ (PQ_LABEL_MAX + 1)

struct pq_label_slot {
	const struct tmx_field_class *fc;   /* NULL: empty */
	uint64_t u;
	char text[PQ_LABEL_MAX];            /* valid UTF-8 */
	uint8_t len;                        /* 0: no label holds (null) */
};

/* Zeroed: empty.  Only `join` owns memory (tmx_buf_free). */
struct pq_labels {
	struct tmx_buf join;   /* the labels joined when not memoized */
	struct pq_label_slot slot[PQ_LABEL_SLOTS];
};

/*
 * The labels of `fc` (an enumeration or a bit map) that hold for value
 * bits `u`, joined by ", ": their bytes (not NUL-terminated; valid until
 * the next call), their length in *n, 0 when none holds (or, with `join`
 * out of memory, what it could hold: as the join always did).  *memo
 * tells a memoized text, a fact about its bytes the caller need not find
 * again per event: valid UTF-8 (labels are the metadata's text, checked
 * like any; those that are not are joined each time), PQ_LABEL_READ bytes
 * readable from it (copied by a move of a fixed size, without a loop).
 */
const char *pq_labels_get(struct pq_labels *l, const struct tmx_field_class *fc, uint64_t u,
			  size_t *n, bool *memo);

#endif
