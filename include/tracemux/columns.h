/*
 * tracemux — an event class's fields as the columns of a table: the one
 * column model of the Parquet output (-o parquet) and of the Python
 * package's to_numpy/to_pandas, so that both name and type every column
 * alike.
 *
 *   struct tmx_columns *cols = tmx_columns_new(ec);
 *   const struct tmx_value **cells = calloc(tmx_columns_count(cols), sizeof(*cells));
 *   for (size_t c = 0; c < tmx_columns_count(cols); c++)
 *       printf("%s\n", tmx_column_name(cols, c));
 *   ... for each event of class ec:
 *   if (tmx_columns_walk(cols, msg->event->scopes, cells))
 *       ... cells[c]: the value of field column c (NULL: none)
 *   tmx_columns_free(cols);
 *
 * The columns, in order: the fixed ones every class has (enum
 * tmx_fixed_column: ts, cycles, event, host, trace, stream_id,
 * stream_class_id, cpu; tmx_column_fixed()), then the members of each
 * scope (packet context, common context, specific context, payload) at the
 * top level, named after the member, or `SCOPE.NAME` when a column of that
 * name exists already (SCOPE: packet_context, common_context,
 * specific_context, payload).  Structures are flattened with dots
 * (`a.b`); an enumeration is its integer and `NAME_label` (its labels
 * joined by ", ", null when none applies); a bit map with flags is its
 * integer and `NAME_flags` the same way; a variant is `NAME` (the selected
 * option's name) and the flattened columns of every option, nullable; an
 * optional's columns are nullable; text arrays are text; BLOBs, other
 * arrays and sequences are one column of the whole value.  A name already
 * taken gets _2, _3...
 */
#ifndef TRACEMUX_COLUMNS_H
#define TRACEMUX_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/export.h"
#include "tracemux/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tmx_columns;

/* What a column holds.  New kinds may be added at the end. */
enum tmx_column_kind {
	TMX_COLUMN_INT,       /* integers, enumerations' and bit maps' values: tmx_column_bits, _is_signed */
	TMX_COLUMN_FLOAT,     /* tmx_column_bits: 32 or 64 */
	TMX_COLUMN_BOOL,
	TMX_COLUMN_TEXT,      /* strings and text arrays (tmx_value_text) */
	TMX_COLUMN_LABEL,     /* an enumeration's labels or a bit map's flags of the value, joined by ", " */
	TMX_COLUMN_OPTION,    /* the name of a variant's selected option (the variant's value) */
	TMX_COLUMN_BLOB,      /* a BLOB's bytes */
	TMX_COLUMN_ARRAY,     /* an array or sequence that is not text: the whole value */
};

/*
 * The fixed columns, which every class has, first and in this order:
 * ts (signed 64-bit: ns from the clock's origin), cycles (unsigned 64),
 * event, host, trace (text), stream_id, stream_class_id (unsigned 64), cpu
 * (unsigned 32).  Their values are the message's, not fields: the walk
 * fills only `cpu`'s cell (below).  New ones may be added at the end.
 */
enum tmx_fixed_column {
	TMX_COLUMN_TS, TMX_COLUMN_CYCLES, TMX_COLUMN_EVENT, TMX_COLUMN_HOST, TMX_COLUMN_TRACE,
	TMX_COLUMN_STREAM_ID, TMX_COLUMN_STREAM_CLASS_ID, TMX_COLUMN_CPU,
};

/*
 * A scope's name as columns are prefixed with it: packet_context,
 * common_context, specific_context, payload (NULL for another value).
 */
TMX_API const char *tmx_scope_name(enum tmx_scope scope);

/* The columns of `ec` (NULL when memory runs out); freed with tmx_columns_free. */
TMX_API struct tmx_columns *tmx_columns_new(const struct tmx_event_class *ec);
TMX_API void tmx_columns_free(struct tmx_columns *cols);
/* Number of columns, the fixed ones included. */
TMX_API size_t tmx_columns_count(const struct tmx_columns *cols);
/* Number of fixed columns: the field columns follow them. */
TMX_API size_t tmx_columns_fixed_count(const struct tmx_columns *cols);

/* Column `c`'s name (unique among the class's columns). */
TMX_API const char *tmx_column_name(const struct tmx_columns *cols, size_t c);
TMX_API enum tmx_column_kind tmx_column_kind(const struct tmx_columns *cols, size_t c);
/*
 * Whether column `c` can miss a value: a field inside a variant or an
 * optional, a label; the fixed ts and cycles (no clock), event (a class
 * without a name), host (a trace without one), cpu (no CPU field).
 */
TMX_API bool tmx_column_nullable(const struct tmx_columns *cols, size_t c);
/*
 * TMX_COLUMN_INT: the field's size in bits (64 when it has none);
 * TMX_COLUMN_FLOAT: 32 or 64; 0 for the other kinds.
 */
TMX_API unsigned tmx_column_bits(const struct tmx_columns *cols, size_t c);
/* TMX_COLUMN_INT: whether values are signed (never for bit maps). */
TMX_API bool tmx_column_is_signed(const struct tmx_columns *cols, size_t c);
/*
 * The field class of column `c`'s values (the variant's for an option
 * column, the enumeration's or bit map's for a label column); NULL for a
 * fixed column.
 */
TMX_API const struct tmx_field_class *tmx_column_field_class(const struct tmx_columns *cols,
							     size_t c);
/* The tmx_fixed_column of column `c`, -1 for a field column. */
TMX_API int tmx_column_fixed(const struct tmx_columns *cols, size_t c);

/*
 * An event's values by column: cells[c] (tmx_columns_count entries) is
 * set for every field column to its value, NULL when it has none (an
 * option not selected, an absent optional); cells[TMX_COLUMN_CPU] to the
 * value of the class's CPU field (tmx_stream_class_cpu_field: read it with
 * tmx_value_uint64), NULL when it has none.  The other fixed columns'
 * cells are left alone.  `scopes` are the event's (tmx_event.scopes).
 * Returns false, leaving the cells alone, when a scope of the event does
 * not have its class's fields.
 */
TMX_API bool tmx_columns_walk(const struct tmx_columns *cols,
			      const struct tmx_value *const scopes[TMX_N_SCOPES],
			      const struct tmx_value **cells);

#ifdef __cplusplus
}
#endif

#endif
