/*
 * The ops of an event class's walk (fmap.h's pq_fprog), internal to
 * fmap_ops.c, which compiles them, and fmap_values.c, which runs them.
 */
#ifndef TMX_SINK_PARQUET_FMAP_OPS_H
#define TMX_SINK_PARQUET_FMAP_OPS_H

#include <stdint.h>

#include "model/columns_plan.h"

/*
 * Each scope's walk (model/columns_plan.h) made Parquet entries once per
 * class: integers of consecutive columns and values one run (one record
 * entry, one loop), other columns each by its kind.  Each op first skips
 * `pre` values.
 */
enum op_kind {
	OP_INTS,    /* Parquet columns a .. a + n - 1: the next n values */
	OP_VAL,     /* model column a: the next value */
	OP_ELEMS,   /* model column a, static_list's: the next value (its elements after it) */
	OP_SEQ,     /* model column a, another LIST of integers: the next value (the same) */
	OP_TEXT,    /* Parquet column a: the next value, a string (b 0) or a text array (b 1) */
	OP_ENUM,    /* model columns a (value) and b (labels): the next value */
	OP_ARRAY,   /* model column a: the next value and its `count` elements */
	OP_TREE,    /* model column a: the next value and its subtree */
	OP_NODE,    /* model columns a .. b - 1: a variant's or an optional's (by cells) */
	OP_LABEL,   /* model column a (an enumeration's labels): the value before */
	OP_CPU,     /* the value `a` after the next is the CPU field's (none consumed) */
	/* OP_INTS of one column, of several all INT32 or all INT64 (pq_fcols_rec_heads) */
	OP_INT1, OP_INTS4, OP_INTS8,
	OP_DOUBLE,  /* OP_VAL of a FLOAT or DOUBLE column: its record entry's head made once */
};

struct pq_op {
	uint8_t op;
	uint8_t n;
	/* A scope's first op: 1 + the scope, whose values it starts (from their first); else 0. */
	uint8_t scope;
	uint32_t pre;
	int a, b;
	/*
	 * OP_INTS, OP_DOUBLE, and OP_ELEMS of at most REC_ELEMS_MAX bytes of
	 * values (b: the class's length): the bytes of the op's record entry
	 * (0: none such), written without asking for room
	 * (pq_fcols_rec_heads), and its head's 6 bytes.
	 */
	uint32_t rec_bytes;
	const struct tmx_col_node *node;
	uint64_t head;
};

#endif
