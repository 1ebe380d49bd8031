/*
 * tracemux — reading an event's fields without knowing how the model lays
 * them out.
 *
 *   const struct tmx_value *v = tmx_event_field(msg->event, "prev_comm");
 *   const char *s; size_t len; int64_t n;
 *   if ((s = tmx_value_text(v, &len)))      ... a string, whatever the format
 *   else if (tmx_value_int64(v, &n))         ... an integer
 *
 * Values point into the event, which is valid until the next message of
 * its stream (see tmx_msg in model.h): copy what must outlive it.
 */
#ifndef TRACEMUX_EVENT_H
#define TRACEMUX_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/export.h"
#include "tracemux/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a value holds, for a reader: text arrays are strings here. */
enum tmx_value_type {
	TMX_TYPE_NONE = 0,    /* NULL value, or an absent optional */
	TMX_TYPE_SIGNED,      /* signed integer or enumeration: tmx_value_int64 */
	TMX_TYPE_UNSIGNED,    /* unsigned integer, enumeration, bit array: tmx_value_uint64 */
	TMX_TYPE_DOUBLE,      /* floating point: tmx_value_double */
	TMX_TYPE_BOOL,        /* boolean: tmx_value_uint64 gives 0 or 1 */
	TMX_TYPE_STRING,      /* string or text array: tmx_value_text */
	TMX_TYPE_BYTES,       /* BLOB: tmx_value_bytes */
	TMX_TYPE_ARRAY,       /* array or sequence: tmx_value_length, tmx_value_element */
	TMX_TYPE_STRUCT,      /* structure: tmx_value_length, tmx_value_member */
};

/*
 * The type of `v`.  Variants and present optionals are transparent: the
 * type is the one of the selected option or of the optional's field (and
 * every accessor below looks through them the same way).
 */
TMX_API enum tmx_value_type tmx_value_type(const struct tmx_value *v);

/*
 * Integers.  tmx_value_int64: signed integers and enumerations, unsigned
 * ones up to INT64_MAX, booleans.  tmx_value_uint64: unsigned integers,
 * enumerations and bit arrays, signed ones from 0, booleans.  Return false
 * (leaving *out alone) for anything else or a value out of range.
 */
TMX_API bool tmx_value_int64(const struct tmx_value *v, int64_t *out);
TMX_API bool tmx_value_uint64(const struct tmx_value *v, uint64_t *out);
/* Floating-point values, and integers converted to double. */
TMX_API bool tmx_value_double(const struct tmx_value *v, double *out);
/*
 * A string's UTF-8 bytes (not NUL-terminated) and their length: strings of
 * every CTF kind and encoding, and arrays/sequences of 8-bit characters up
 * to their first NUL (as babeltrace2 prints them).  NULL for anything else.
 */
TMX_API const char *tmx_value_text(const struct tmx_value *v, size_t *len);
/* A BLOB's bytes and length; NULL for anything else. */
TMX_API const uint8_t *tmx_value_bytes(const struct tmx_value *v, size_t *len);
/*
 * The first label of an enumeration's value (or of a bit map's first set
 * flag); NULL when it has none or is not an enumeration.
 */
TMX_API const char *tmx_value_label(const struct tmx_value *v);
/*
 * Whether mapping `i` of an enumeration holds the value of `v` (one of its
 * ranges contains it), or, for a bit map, whether flag `i` is active (a bit
 * of its ranges is set): with tmx_fc_mapping_count() and
 * tmx_fc_mapping_label(), every label of a value.  False for anything else.
 */
TMX_API bool tmx_value_has_mapping(const struct tmx_value *v, size_t i);

/* Number of elements of an array or members of a structure (else 0). */
TMX_API size_t tmx_value_length(const struct tmx_value *v);
/* Element `i` of an array or sequence; NULL when out of range. */
TMX_API const struct tmx_value *tmx_value_element(const struct tmx_value *v, size_t i);
/* Member `name` of a structure; NULL when it has none of that name. */
TMX_API const struct tmx_value *tmx_value_member(const struct tmx_value *v, const char *name);

/*
 * A field of the event by path: member names separated by dots, from the
 * root of one scope ("ctx.cpu_id", "prev_comm").  tmx_event_field looks in
 * the payload, then the specific context, the common context and the
 * packet context, and returns the first match; NULL when there is none.
 */
TMX_API const struct tmx_value *tmx_event_field(const struct tmx_event *ev, const char *path);
TMX_API const struct tmx_value *tmx_event_field_in(const struct tmx_event *ev,
						   enum tmx_scope scope, const char *path);

/*
 * The CPU an event was recorded on, where the format knows it: trace.dat
 * (the per-CPU buffer, `cpu_id` of the packet context), LTTng and other CTF
 * traces with a `cpu_id` integer in the packet context, XRay (the record's
 * `cpu` in the common context).  One rule for every user (filters' `$cpu`,
 * the Parquet `cpu` column, the Python package's `ev.cpu`).
 *
 * tmx_stream_class_cpu_field: the name of the field that holds it for the
 * events of `sc`, and its scope; NULL when its events have no CPU.
 * tmx_event_cpu: false when the event has no CPU.
 */
TMX_API const char *tmx_stream_class_cpu_field(const struct tmx_stream_class *sc,
					       enum tmx_scope *scope);
TMX_API bool tmx_event_cpu(const struct tmx_event *ev, uint64_t *cpu);

#ifdef __cplusplus
}
#endif

#endif /* TRACEMUX_EVENT_H */
