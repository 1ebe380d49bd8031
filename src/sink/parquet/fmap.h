/*
 * How the fields of the model become Parquet columns, and how an event's
 * values fill them.
 *
 * Structures are flattened into dotted names (`a.b`); an enumeration is
 * its integer plus `NAME_label` (its labels joined by ", ", null when none
 * applies); a bit map is its integer plus `NAME_flags` the same way; a
 * variant is `NAME` (the selected option's name) plus the flattened
 * columns of every option (`NAME.OPTION...`), nullable; an optional is its
 * field's columns, nullable.  Arrays and sequences are LISTs (the 3-level
 * encoding: `NAME` LIST group, repeated `list`, `element`), whose element
 * is a leaf, a list, or a group: a structure's members, or `value` (plus
 * `value_label`...) for the other kinds.  Text arrays are strings, BLOBs
 * byte arrays.  Strings are UTF-8 as the JSON output writes them: a byte
 * that is not part of valid UTF-8 becomes the code point of its value.
 */
#ifndef TMX_SINK_PARQUET_FMAP_H
#define TMX_SINK_PARQUET_FMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/model.h"
#include "sink/parquet/column.h"
#include "sink/parquet/schema.h"

struct pq_fmap {
	const struct tmx_field_class *fc;
	uint8_t how;             /* enum in fmap.c */
	uint8_t null_def;        /* definition level when the field is absent */
	uint8_t list_def;        /* lists: level of a present, empty list */
	uint8_t elem_rep;        /* lists: repetition level of the elements after the first */
	int col, col2;           /* value column; label/flags column (-1: none) */
	int col_begin, col_end;  /* every column of the field (contiguous) */
	/*
	 * Members of a scope: how many integer members start here, one column
	 * and one value each, in consecutive columns (one record entry).
	 */
	uint8_t int_run;
	size_t n_children;       /* members, options, the optional's field, the element */
	struct pq_fmap *children;
};

/*
 * The columns of a scope (a structure) under the schema's root: each
 * member by its own name, or `SCOPE.NAME` when the root already has a
 * column of that name (the fixed columns, an earlier scope's).
 * Returns false when memory runs out.
 */
bool pq_fmap_scope(struct pq_fmap *fm, const struct tmx_field_class *fc, struct pq_schema *s,
		   const char *scope);
void pq_fmap_free(struct pq_fmap *fm);

/* Where an event's values go: a record (record.h). */
struct pq_colinfo;
struct pq_rec_emit {
	struct pq_buf *rec;
	const struct pq_colinfo *ci;   /* of the scope's schema */
	struct pq_buf *scratch;        /* text made valid UTF-8 */
	struct pq_buf *labels;         /* labels joined */
};

/* The value at vals[i] and its subtree as record entries; returns the index after it. */
size_t pq_fmap_emit(const struct pq_rec_emit *em, const struct pq_fmap *fm,
		    const struct tmx_value *vals, size_t i, uint8_t rep);
/*
 * A scope's values (the map made by pq_fmap_scope()); *member is set to
 * the value of its member number `want`, when it has one.
 */
void pq_fmap_emit_scope(const struct pq_rec_emit *em, const struct pq_fmap *fm,
			const struct tmx_value *vals, size_t want, const struct tmx_value **member);
/* A string as UTF-8 (see above) into a record. */
void pq_rec_text(const struct pq_rec_emit *em, int col, uint8_t rep, const char *p, size_t n);

/* Values straight into columns (the meta tables). */
struct pq_emit {
	struct pq_col *cols;
	struct pq_buf *scratch;   /* text made valid UTF-8 */
	struct pq_buf *labels;    /* labels joined */
};

/* A string as UTF-8 (see above) into a column. */
void pq_put_text(const struct pq_emit *em, int col, uint8_t rep, const char *p, size_t n);

#endif
