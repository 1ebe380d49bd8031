/*
 * An event's payload as a flat list of named scalar "leaves", for what
 * Perfetto can say: a generic ftrace event's fields (numbered 1..31, scalar
 * types only) and a track event's debug annotations.
 *
 *   structure        its members' leaves, names joined with dots (a.b)
 *   integer, enum,   one leaf: int64 / uint64 (enumerations by value,
 *   bool, bit array  booleans and bit arrays as uint64)
 *   float            one leaf: double
 *   string, text     one leaf: string
 *   array, sequence, one leaf: a string holding the value as -o json
 *   variant, optional,   writes it (so nothing is lost)
 *   BLOB
 *
 * A class with more than 31 leaves keeps the first 30, and its leaf 31
 * (named "_more") holds the others as `name=value` pairs separated by
 * spaces, each value as -o json writes it.
 */
#ifndef TMX_SINK_PERFETTO_FIELDS_H
#define TMX_SINK_PERFETTO_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/field_class.h"
#include "common/buf.h"
#include "tracemux/model.h"

enum pf_leaf_type { PF_LEAF_INT, PF_LEAF_UINT, PF_LEAF_DOUBLE, PF_LEAF_STRING };

struct pf_leaf {
	char *name;
	uint8_t type;            /* enum pf_leaf_type */
	bool rendered;           /* a string made from a compound value */
	uint8_t int_array;       /* rendered: an array or sequence of integers (PF_INT_ARRAY_*) */
	bool raw;                /* int_array: handed out not rendered (s NULL) unless empty */
};
enum { PF_INT_ARRAY_UNSIGNED = 1, PF_INT_ARRAY_SIGNED };

struct pf_leaves {
	struct pf_leaf *leaf;
	size_t n;                /* at most PF_LEAVES_MAX, the last being "_more" past it */
	size_t n_all;            /* leaves before folding */
};

#define PF_LEAVES_MAX 31

/* The leaves of payload class `fc` (NULL: none).  False when out of memory. */
bool pf_leaves_of(struct pf_leaves *l, const struct tmx_field_class *fc);
void pf_leaves_free(struct pf_leaves *l);

/* One leaf's value, as pf_leaves_walk hands it out. */
struct pf_leaf_value {
	size_t index;            /* in pf_leaves (0-based) */
	int64_t i;
	uint64_t u;
	double d;
	const char *s;
	size_t len;
	/* a rendered leaf: its value in the pre-order array (an integer array's elements follow it,
	 * one each) */
	const struct tmx_value *arr;
};

/*
 * A value renderer (-o json's text of a compound value), with the scratch
 * buffers it writes into: one per sink.
 */
struct pf_render;
struct pf_render *pf_render_new(void);
void pf_render_free(struct pf_render *r);

/*
 * Text as valid UTF-8 (protobuf strings must be): `s` itself when it is,
 * else a copy in which each byte that is not part of a valid sequence is
 * the code point U+00XX (as -o json writes it), valid until the next call.
 */
const char *pf_utf8(struct pf_render *r, const char *s, size_t n, size_t *out_len);

/*
 * Calls `fn` for every leaf of the payload `vals` (of the class that
 * `l` was made from), in order.  Strings handed out are valid until the
 * next call.
 */
void pf_leaves_walk(const struct pf_leaves *l, const struct tmx_value *vals, struct pf_render *r,
		    void (*fn)(void *ctx, const struct pf_leaf *leaf,
			       const struct pf_leaf_value *v),
		    void *ctx);

/*
 * The value after `v` and its subtree in a pre-order value array: the next
 * one for a scalar (most fields; this runs for every member of every event),
 * else what tmx_value_skip says.
 */
static inline const struct tmx_value *pf_value_after(const struct tmx_value *v)
{
	switch (v->fc->kind) {
	case TMX_FC_STRUCT:
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
	case TMX_FC_VARIANT:
	case TMX_FC_OPTIONAL:
		return v + tmx_value_skip(v, 0);
	default:
		return v + 1;
	}
}

#endif
