/*
 * Each event class's walk (model/columns_plan.h) compiled into Parquet
 * ops (fmap_ops.h), which fmap_values.c runs for each event.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "model/columns_plan.h"
#include "model/field_class.h"
#include "sink/parquet/fmap.h"
#include "sink/parquet/fmap_ops.h"
#include "sink/parquet/record.h"

/*
 * A LIST's values of its class's length go into a record without asking
 * for room (pq_op.rec_bytes) up to so many bytes.
 */
#define REC_ELEMS_MAX 4096

static bool op_add(struct pq_fprog *pr, struct pq_op op)
{
	void *ops = pr->ops;

	if (!tmx_grow_array(&ops, &pr->cap, pr->n + 1, sizeof(*pr->ops), 8))
		return false;
	pr->ops = ops;
	pr->ops[pr->n++] = op;
	return true;
}

/*
 * Integers of consecutive values and columns that the steps cut: across
 * the CPU field's note (the packet context's members), and an
 * enumeration's value after them (its labels then emitted alone).  One
 * record entry where there were two.
 */
static void merge_runs(const struct pq_fcols *fc, struct pq_fprog *pr)
{
	for (size_t k = 0; k + 1 < pr->n; k++) {
		struct pq_op *a = &pr->ops[k], *b = &pr->ops[k + 1], *c = k + 2 < pr->n ? b + 1 : NULL;

		if (a->op != OP_INTS)
			continue;
		if (b->op == OP_CPU && !b->pre && c && c->op == OP_INTS && !c->pre &&
		    c->a == a->a + a->n && a->n + c->n <= 255) {
			struct pq_op cpu = { .op = OP_CPU, .pre = a->pre, .a = a->n };

			a->n = (uint8_t)(a->n + c->n);
			a->pre = 0;
			*b = *a;
			*a = cpu;
			memmove(c, c + 1, (size_t)(pr->ops + pr->n - (c + 1)) * sizeof(*c));
			pr->n--;
			k--;   /* the run may go on */
		} else if (b->op == OP_ENUM && !b->pre && fc->cols[b->a].col == a->a + a->n &&
			   a->n < 255) {
			a->n++;
			*b = (struct pq_op){ .op = OP_LABEL, .a = b->b };
		}
	}
}

/*
 * A LIST of integers of a static length (not 0): one `elems` entry
 * whose count is the class's (emit_list; one that is not says so).
 */
static bool static_list(const struct pq_fcol *pc)
{
	const struct pq_fmap *fm = &pc->list;

	return pc->how == PQ_F_LIST && fm->how == PQ_F_LIST && fm->fc &&
	       fm->fc->kind == TMX_FC_ARRAY && fm->fc->length && fm->fc->length <= UINT32_MAX &&
	       fm->n_children == 1 && fm->children[0].how == PQ_F_INT;
}

/* A LIST of integers of another length (emit_list's one `elems` entry but when empty). */
static bool int_list(const struct pq_fcol *pc)
{
	const struct pq_fmap *fm = &pc->list;

	return pc->how == PQ_F_LIST && fm->how == PQ_F_LIST && fm->n_children == 1 &&
	       fm->children[0].how == PQ_F_INT;
}

/* The bytes of a run's record entry (pq_rec_ints), from the schema's types. */
static uint32_t run_bytes(const struct pq_schema *schema, int col, unsigned n)
{
	uint32_t bytes = PQ_REC_HEAD;

	for (size_t e = 0; e < schema->n; e++) {
		const struct pq_elem *el = &schema->elems[e];

		if (el->leaf && el->col >= col && el->col < col + (int)n)
			bytes += pq_int_width(el->type.phys);
	}
	return bytes;
}

/* The op of each step of one value but a run's and the CPU's. */
static const uint8_t step_op[] = {
	[TMX_STEP_ENUM] = OP_ENUM,
	[TMX_STEP_ARRAY] = OP_ARRAY,
	[TMX_STEP_TREE] = OP_TREE,
	[TMX_STEP_NODE] = OP_NODE,
};

/* The ops of scope `s` into `pr`. */
static bool compile_scope(struct pq_fcols *fc, const struct pq_schema *schema, enum tmx_scope s,
			  struct pq_fprog *pr)
{
	size_t n_steps;
	const struct tmx_col_step *st = tmx_columns_steps(fc->model, s, &n_steps);

	for (size_t k = 0; k < n_steps; k++, st++) {
		struct pq_op op = { .pre = st->pre, .a = st->col, .b = st->col2, .node = st->node };
		bool ok = true;

		switch (st->op) {
		case TMX_STEP_RUN:
			for (int c = st->col, end = st->col + st->col2; ok && c < end;) {
				const struct pq_fcol *pc = &fc->cols[c];
				int n = 1;

				if (pc->how == PQ_F_INT) {
					while (n < 255 && c + n < end && fc->cols[c + n].how == PQ_F_INT &&
					       fc->cols[c + n].col == pc->col + n)
						n++;
					op = (struct pq_op){ .op = OP_INTS, .n = (uint8_t)n, .pre = op.pre,
							     .a = pc->col };
				} else if (pc->how == PQ_F_STRING || pc->how == PQ_F_TEXT) {
					op = (struct pq_op){ .op = OP_TEXT, .pre = op.pre, .a = pc->col,
							     .b = pc->how == PQ_F_TEXT };
				} else {
					op = (struct pq_op){ .op = static_list(pc) ? OP_ELEMS
								   : int_list(pc)  ? OP_SEQ
										   : OP_VAL,
							     .pre = op.pre, .a = c };
				}
				ok = op_add(pr, op);
				op.pre = 0;
				c += n;
			}
			break;
		case TMX_STEP_CPU:
			op = (struct pq_op){ .op = OP_CPU, .pre = st->pre };
			ok = op_add(pr, op);
			break;
		default:   /* one op of the step's columns */
			op.op = step_op[st->op];
			ok = op_add(pr, op);
			break;
		}
		if (!ok)
			return false;
	}
	/*
	 * Once: a merge changes nothing before its run but the CPU op now in
	 * front of it, whose `pre` is the run's.  The run before could take
	 * it only if the two were of consecutive columns with no value
	 * between them, which they are only when the first was cut at 255
	 * columns, too long to take more.  A second pass finds nothing, and
	 * the runs' bytes below are those of the final runs.
	 */
	merge_runs(fc, pr);
	for (size_t k = 0; k < pr->n; k++)
		if (pr->ops[k].op == OP_INTS)
			pr->ops[k].b = (int)run_bytes(schema, pr->ops[k].a, pr->ops[k].n);
	return true;
}

void pq_fcols_rec_heads(struct pq_fcols *fc, const struct pq_colinfo *ci)
{
	size_t room = PQ_REC_HEAD + 8;   /* an integer's entry after them (the CPU's) */

	for (size_t k = 0; k < fc->prog.n; k++) {
		struct pq_op *op = &fc->prog.ops[k];
		uint8_t h[8] = { 0 };
		uint32_t col = (uint32_t)op->a;
		unsigned w = 0;

		if (op->op == OP_INTS) {
			for (unsigned j = 0; j < op->n; j++)
				w += pq_int_width(ci[col + j].phys);
			if (op->n > 1)   /* pq_rec_ints's entry, else pq_rec_int's */
				pq_rec_head_at(h, col | PQ_REC_RUN, 0, op->n);
			else
				pq_rec_head_at(h, col, 0, ci[col].max_def);
			if (op->n == 1)
				op->op = OP_INT1;
			else if (w == 4u * op->n)
				op->op = OP_INTS4;
			else if (w == 8u * op->n)
				op->op = OP_INTS8;
			op->rec_bytes = PQ_REC_HEAD + w;
			room += PQ_REC_HEAD + 8 * (size_t)op->n;
		} else if (op->op == OP_VAL && fc->cols[op->a].how == PQ_F_FLOAT) {
			/* pq_rec_double's entry */
			col = (uint32_t)fc->cols[op->a].col;
			pq_rec_head_at(h, col, 0, ci[col].max_def);
			op->op = OP_DOUBLE;
			op->rec_bytes = PQ_REC_HEAD + 8;
			room += op->rec_bytes;
		} else if (op->op == OP_ELEMS) {
			const struct pq_fmap *fm = &fc->cols[op->a].list;

			col = (uint32_t)fm->children[0].col;
			w = pq_int_width(ci[col].phys);
			op->rec_bytes = 0;
			if (fm->fc->length * w > REC_ELEMS_MAX)
				continue;
			op->b = (int)fm->fc->length;
			op->rec_bytes = PQ_REC_HEAD + 4 + w * (uint32_t)op->b;
			pq_rec_head_at(h, col | PQ_REC_ELEMS, 0, fm->elem_rep);
			room += op->rec_bytes;
		} else {
			continue;
		}
		memcpy(&op->head, h, 8);
	}
	fc->rec_room = room;
}

bool pq_fcols_static(const struct pq_fcols *fc)
{
	for (size_t k = 0; k < fc->prog.n; k++) {
		const struct pq_op *op = &fc->prog.ops[k];

		if (op->op == OP_INTS || op->op == OP_INT1 || op->op == OP_INTS4 ||
		    op->op == OP_INTS8 || op->op == OP_CPU || op->op == OP_DOUBLE ||
		    op->op == OP_TEXT || op->op == OP_ELEMS)
			continue;   /* a run, an integer or float, no entry, one string's, a static list */
		if (op->op == OP_ARRAY && static_list(&fc->cols[op->a]))
			continue;
		if (op->op != OP_VAL)
			return false;   /* labels, other lists, trees, variants' nodes */
		switch (fc->cols[op->a].how) {
		case PQ_F_INT:
		case PQ_F_FLOAT:
		case PQ_F_BOOL:
		case PQ_F_STRING:
		case PQ_F_TEXT:
		case PQ_F_BLOB:
		case PQ_F_OPTION:
			break;   /* emit_column: one entry of a value, never a null */
		default:   /* lists other than static_list's (OP_ELEMS) too */
			return false;
		}
	}
	return true;
}

static bool op_int(const struct pq_op *op)
{
	return op->op == OP_INTS || op->op == OP_INT1 || op->op == OP_INTS4 || op->op == OP_INTS8;
}

/* fc's pk_ops, pk_bytes and pk_cpu from its ops (see fmap.h). */
static void packet_ops(struct pq_fcols *fc)
{
	const struct pq_fprog *pr = &fc->prog;
	size_t k = 0, i = 0, bytes = 0;
	int cpu = -1;

	fc->pk_ops = fc->pk_bytes = 0;
	fc->pk_cpu = -1;
	if (!pr->n || pr->ops[0].scope != 1 + TMX_SCOPE_PACKET_CONTEXT)
		return;
	for (; k < pr->n && (!k || !pr->ops[k].scope); k++) {
		const struct pq_op *op = &pr->ops[k];

		i += op->pre;
		if (op->op == OP_CPU) {
			cpu = (int)(i + (size_t)op->a);
		} else if (op_int(op)) {
			bytes += (size_t)op->b;
			i += op->n;
		} else {
			return;   /* other values: stored per row */
		}
	}
	fc->pk_ops = k;
	fc->pk_bytes = bytes;
	fc->pk_cpu = cpu;
}

size_t pq_fcols_pk_cols(const struct pq_fcols *fc, uint32_t *out, size_t max)
{
	size_t n = 0;

	for (size_t k = 0; k < fc->pk_ops; k++) {
		const struct pq_op *op = &fc->prog.ops[k];

		for (unsigned j = 0; op_int(op) && j < op->n; j++, n++)
			if (n < max)
				out[n] = (uint32_t)(op->a + (int)j);
	}
	return n;
}

/* The scopes' ops one after the other (pq_op.scope), one loop for an event. */
bool pq_fcols_compile(struct pq_fcols *fc, const struct pq_schema *schema)
{
	bool ok = true;

	for (int s = 0; ok && s < TMX_N_SCOPES; s++) {
		struct pq_fprog pr = { 0 };

		ok = compile_scope(fc, schema, (enum tmx_scope)s, &pr);
		if (ok && pr.n)
			pr.ops[0].scope = (uint8_t)(s + 1);
		for (size_t k = 0; ok && k < pr.n; k++)
			ok = op_add(&fc->prog, pr.ops[k]);
		free(pr.ops);
	}
	packet_ops(fc);
	return ok;
}
