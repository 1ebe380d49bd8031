/*
 * The compiled walk of an event class's columns (src/model/columns.c),
 * for the library's own writers that go from an event's values to their
 * columns without the cells of tmx_columns_walk() (the Parquet output's
 * rows, src/sink/parquet/fmap.c).  Not installed.
 *
 * Each scope's walk is a flat list of steps over its values (the scope's
 * pre-order layout, tracemux/model.h): a step first skips `pre` values
 * (structures' own values), then:
 *   TMX_STEP_RUN    columns col .. col + col2 - 1 are the next col2 values
 *   TMX_STEP_ENUM   columns col and col2 (its labels) are the next value
 *   TMX_STEP_ARRAY  column col is the next value, an array or sequence of
 *                   `count` single-value elements, skipped with them
 *   TMX_STEP_TREE   column col is the next value, its subtree skipped
 *   TMX_STEP_NODE   a variant or an optional, columns col .. col2 - 1:
 *                   tmx_columns_walk_node() gives their values
 *   TMX_STEP_CPU    the next value is the CPU field's (none consumed)
 */
#ifndef TMX_MODEL_COLUMNS_PLAN_H
#define TMX_MODEL_COLUMNS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "tracemux/columns.h"

enum tmx_step_op { TMX_STEP_RUN, TMX_STEP_ENUM, TMX_STEP_ARRAY, TMX_STEP_TREE, TMX_STEP_NODE,
		   TMX_STEP_CPU };

struct tmx_col_node;

struct tmx_col_step {
	uint8_t op;
	uint32_t pre;
	int col, col2;
	const struct tmx_col_node *node;   /* TMX_STEP_NODE */
};

/* Scope `s`'s steps (*n of them); NULL when the class has no such scope. */
const struct tmx_col_step *tmx_columns_steps(const struct tmx_columns *t, enum tmx_scope s,
					     size_t *n);
/* A TMX_STEP_NODE's values (vals[i] first) into out[col .. col2 - 1]; returns the index after them. */
size_t tmx_columns_walk_node(const struct tmx_col_node *node, const struct tmx_value *vals,
			     size_t i, const struct tmx_value **out);

#endif
