/*
 * How an event class's columns (the library's column model,
 * include/tracemux/columns.h: names, kinds, nullability) become Parquet
 * columns, and how an event's values fill them.
 *
 * Each column of the model is one Parquet column but arrays and sequences
 * that are not text: those are LISTs (the 3-level encoding: `NAME` LIST
 * group, repeated `list`, `element`), whose element is a leaf, a list, or
 * a group: a structure's members flattened with dots, or `value` (plus
 * `value_label`...) for the other kinds, variants and optionals nullable
 * inside it as at the top level.  Integers are INT32 or INT64 with their
 * width, text strings, BLOBs byte arrays.  Strings are UTF-8 as the JSON
 * output writes them: a byte that is not part of valid UTF-8 becomes the
 * code point of its value.
 */
#ifndef TMX_SINK_PARQUET_FMAP_H
#define TMX_SINK_PARQUET_FMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/columns.h"
#include "tracemux/model.h"
#include "sink/parquet/column.h"
#include "sink/parquet/schema.h"

/* How a field or a column is written (pq_fmap.how, pq_fcol.how). */
enum pq_fhow {
	PQ_F_INT, PQ_F_FLOAT, PQ_F_BOOL, PQ_F_STRING, PQ_F_TEXT, PQ_F_BLOB, PQ_F_ENUM, PQ_F_BITS,
	PQ_F_STRUCT, PQ_F_VARIANT, PQ_F_OPTIONAL, PQ_F_LIST,
	PQ_F_LABEL, PQ_F_OPTION,   /* the model's label and option columns (top level) */
	PQ_F_FIXED,             /* the fixed columns: the caller's */
};

/* A field inside a LIST column: its columns under the list's groups, and their levels. */
struct pq_fmap {
	const struct tmx_field_class *fc;
	uint8_t how;             /* enum pq_fhow */
	uint8_t null_def;        /* definition level when the field is absent */
	uint8_t list_def;        /* lists: level of a present, empty list */
	uint8_t elem_rep;        /* lists: repetition level of the elements after the first */
	int col, col2;           /* value column; label/flags column (-1: none) */
	int col_begin, col_end;  /* every column of the field (contiguous) */
	size_t n_children;       /* members, options, the optional's field, the element */
	struct pq_fmap *children;
};

/* One column of the model as Parquet writes it. */
struct pq_fcol {
	uint8_t how;             /* enum pq_fhow */
	/*
	 * Integers: how many integer columns start here (one record entry
	 * when their values are consecutive, as a structure's members are).
	 */
	uint8_t int_run;
	int col, col_end;        /* its Parquet columns (a LIST has several) */
	struct pq_fmap list;     /* LISTs: the map of the list */
};

/* Walks of scopes as Parquet entries (fmap_ops.h). */
struct pq_op;
struct pq_fprog {
	struct pq_op *ops;
	size_t n, cap;
};

/* An event class's columns: the model's, and how Parquet writes each. */
struct pq_fcols {
	struct tmx_columns *model;
	size_t n;                /* tmx_columns_count(model) */
	size_t n_fixed;          /* tmx_columns_fixed_count(model): the caller's columns */
	struct pq_fcol *cols;
	struct pq_fprog prog;    /* the walks of its scopes, one after the other (pq_fcols_compile) */
	/*
	 * The most bytes of the record entries pq_fcols_emit_rec writes without
	 * asking for room (runs of integers, LISTs of integers of their
	 * class's length), and of an integer's entry after them (the CPU's,
	 * sink_impl.h): the room its caller makes, and it makes again after
	 * each other entry (pq_fcols_rec_heads).
	 */
	size_t rec_room;
	/*
	 * The packet context's columns, when its ops are the first pk_ops
	 * (else 0), all integers at the top level and the CPU field's note:
	 * the same values for every event of a packet, which a table may
	 * store once per packet (table.h, pq_pk).  pk_bytes: the bytes of
	 * their record entries; pk_cpu: the CPU field's index in the packet
	 * context's values, -1 when it is not there.
	 */
	size_t pk_ops, pk_bytes;
	int pk_cpu;
};

/*
 * The columns of `ec` (the fixed ones first) under the schema's root.
 * Returns false when memory runs out (fc made, to be freed, all the same).
 */
bool pq_fcols_new(struct pq_fcols *fc, const struct tmx_event_class *ec, struct pq_schema *s);
void pq_fcols_free(struct pq_fcols *fc);
/*
 * The Parquet columns of the packet context's ops (fc->pk_ops) into
 * out[0, max); returns their number (more than max: not all of them).
 */
size_t pq_fcols_pk_cols(const struct pq_fcols *fc, uint32_t *out, size_t max);
/* The walks of the scopes as ops (fmap_ops.c), by schema `s`'s columns; false without memory. */
bool pq_fcols_compile(struct pq_fcols *fc, const struct pq_schema *s);

/*
 * Where an event's values go: a record (record.h), or with `rec` NULL
 * straight into its table's columns (the sequential path), counting into
 * *bytes what the record would have taken, so that row groups are cut at
 * the same rows either way (the files do not depend on --jobs).  The
 * columns' integers that are not repeated are stored without asking for
 * room: each must have room for the row (pq_table_direct_room).
 */
struct pq_colinfo;
struct pq_labels;
struct pq_rec_emit {
	struct tmx_buf *rec;
	const struct pq_colinfo *ci;   /* of the scope's schema */
	struct tmx_buf *scratch;        /* text made valid UTF-8 */
	struct pq_labels *labels;       /* labels joined, memoized (labels.h) */
	struct pq_col *cols;            /* without `rec`: the columns */
	size_t *bytes;                  /* without `rec`: the record's bytes, added */
	bool *varied;                   /* set: set when a LIST of static length is not */
	/*
	 * Without `rec`: the row's packet is one whose values its table has
	 * (parquet_sink.c, pk_row): the packet context's columns, the stream's ids and,
	 * from the packet context, the CPU are counted, not stored.  With
	 * `rec`: the merge has them from an earlier record (format.c,
	 * pq_format_event), they are left out.
	 */
	bool pk_known;
};

/*
 * The field columns' values of an event whose scopes (`scopes`) are the
 * class's (checked), walked and written in one pass, into a record
 * (pq_fcols_emit_rec, em->rec) or straight into the columns
 * (pq_fcols_emit_direct); the fixed columns are the caller's.  `cells` has room for every column (the values of
 * variants and optionals go there).  Into a record, room for
 * fc->rec_room bytes must have been made, and room for an integer's
 * entry is left (but when memory ran out: em->rec's `oom`).  Returns the
 * CPU field's value, or NULL.
 */
const struct tmx_value *pq_fcols_emit_rec(const struct pq_rec_emit *em, const struct pq_fcols *fc,
					  const struct tmx_value *const scopes[TMX_N_SCOPES],
					  const struct tmx_value **cells);
const struct tmx_value *pq_fcols_emit_direct(const struct pq_rec_emit *em,
					     const struct pq_fcols *fc,
					     const struct tmx_value *const scopes[TMX_N_SCOPES],
					     const struct tmx_value **cells);
/*
 * The heads of the record entries pq_fcols_emit_rec writes without asking for
 * room, and fc->rec_room, from the columns' types and levels (`ci`, of
 * the finished schema): once, before the first record.
 */
void pq_fcols_rec_heads(struct pq_fcols *fc, const struct pq_colinfo *ci);
/*
 * Whether pq_fcols_emit_rec writes the same entry heads (the same entries of
 * the same columns, nulls included) for every event of the class: only
 * integers, floats, booleans, strings, BLOBs, option names and LISTs of
 * integers of a static length (pq_rec_emit.varied: unless an event's
 * is not), no label, other LIST, structure or variant whose entries
 * depend on the values.
 */
bool pq_fcols_static(const struct pq_fcols *fc);
/* A string as UTF-8 (see above) into a record (or the columns). */
void pq_rec_text(const struct pq_rec_emit *em, int col, uint8_t rep, const char *p, size_t n);
void pq_emit_int(const struct pq_rec_emit *em, int col, uint8_t rep, uint64_t bits);
/* ts and cycles (NULL: nulls), stream_id and stream_class_id, all INT64, into the columns. */
void pq_emit_fixed(const struct pq_rec_emit *em, const uint64_t *ts, const uint64_t ids[2]);
void pq_emit_null(const struct pq_rec_emit *em, int col, uint8_t rep, uint8_t def);

/* Values straight into columns (the meta tables). */
struct pq_emit {
	struct pq_col *cols;
	struct tmx_buf *scratch;   /* text made valid UTF-8 */
};

/* A string as UTF-8 (see above) into a column. */
void pq_put_text(const struct pq_emit *em, int col, uint8_t rep, const char *p, size_t n);

#endif
