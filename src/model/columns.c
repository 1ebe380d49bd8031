/*
 * An event class's columns (include/tracemux/columns.h): the one column
 * model of the Parquet output (src/sink/parquet/fmap.c, which adds its
 * LISTs' insides) and the Python package (python/src/plan.c).
 *
 * The columns are made by one walk of the scopes' field classes into a
 * tree of nodes that mirrors the values' pre-order layout (a structure's
 * value, then its members'), compiled into a flat list of steps per scope
 * that tmx_columns_walk() runs per event (the tree itself is walked only
 * below variants and optionals).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "model/columns_plan.h"
#include "tracemux/columns.h"
#include "tracemux/event.h"

/*
 * N_VALUE: one value (no subtree); N_TREE: a value and its subtree
 * (arrays, sequences); N_FLAT: a structure whose members are all N_VALUE,
 * their values and columns consecutive (walked as one loop: most scopes).
 */
enum how { N_VALUE, N_TREE, N_ENUM, N_STRUCT, N_FLAT, N_VARIANT, N_OPTIONAL };

struct tmx_col_node {
	enum how how;
	int col, col2;            /* value column; label column of N_ENUM */
	int col_begin, col_end;   /* every column of the subtree */
	size_t n_children;
	struct tmx_col_node *children;
};

/*
 * A scope's walk compiled into a flat list of steps (model/columns_plan.h;
 * done once per class, so that tmx_columns_walk() is a loop with no
 * recursion for the usual scopes).
 */
enum step_op { S_RUN = TMX_STEP_RUN, S_ENUM = TMX_STEP_ENUM, S_ARRAY = TMX_STEP_ARRAY,
	       S_TREE = TMX_STEP_TREE, S_NODE = TMX_STEP_NODE, S_CPU = TMX_STEP_CPU };
struct plan {
	struct tmx_col_step *steps;
	size_t n, cap;
	uint32_t pre;             /* values to skip before the next step */
};

struct column {
	char *name;
	enum tmx_column_kind kind;
	bool nullable;
	bool is_signed;
	unsigned bits;
	int fixed;                /* enum tmx_fixed_column, -1: a field's */
	const struct tmx_field_class *fc;
};

#define N_FIXED (TMX_COLUMN_CPU + 1)

struct tmx_columns {
	size_t n_cols, cap;
	struct column *cols;
	bool oom;
	const struct tmx_field_class *scope_fc[TMX_N_SCOPES];
	struct tmx_col_node *scope[TMX_N_SCOPES];   /* NULL where the class has no such scope */
	struct plan plan[TMX_N_SCOPES];     /* each scope's walk as steps */
	/* The CPU field: a member of its scope's structure (tmx_stream_class_cpu_field). */
	enum tmx_scope cpu_scope;
	size_t cpu_member;                  /* SIZE_MAX: none */
};

static const char *const scope_names[TMX_N_SCOPES] = {
	"packet_context", "common_context", "specific_context", "payload",
};

const char *tmx_scope_name(enum tmx_scope scope)
{
	return (unsigned)scope < TMX_N_SCOPES ? scope_names[scope] : NULL;
}

static bool taken(const struct tmx_columns *t, const char *name)
{
	for (size_t c = 0; c < t->n_cols; c++)
		if (!strcmp(t->cols[c].name, name))
			return true;
	return false;
}

/* `prefix.name` + suffix (or without the dot when one is empty), made unique with _2, _3... */
static char *column_name(const struct tmx_columns *t, const char *prefix, const char *name,
			 const char *suffix)
{
	const char *dot = *prefix && *name ? "." : "";
	size_t len = strlen(prefix) + strlen(name) + strlen(suffix) + 16;
	char *out = malloc(len);
	int n = 1;

	if (!out)
		return NULL;
	snprintf(out, len, "%s%s%s%s", prefix, dot, name, suffix);
	while (taken(t, out))
		snprintf(out, len, "%s%s%s%s_%d", prefix, dot, name, suffix, ++n);
	return out;
}

/* A new column `prefix` + `suffix` (made unique): its index, -1 when memory runs out. */
static int add_column(struct tmx_columns *t, const char *prefix, const char *suffix,
		      struct column col)
{
	char *name = column_name(t, prefix, "", suffix);

	if (!name || !tmx_grow_array((void **)&t->cols, &t->cap, t->n_cols + 1, sizeof(*t->cols), 16)) {
		free(name);
		t->oom = true;
		return -1;
	}
	col.name = name;
	t->cols[t->n_cols] = col;
	return (int)t->n_cols++;
}

static struct column field_column(enum tmx_column_kind kind, const struct tmx_field_class *fc,
				  bool nullable)
{
	return (struct column){ .kind = kind, .fc = fc, .nullable = nullable, .fixed = -1 };
}

static bool build(struct tmx_columns *t, struct tmx_col_node *n, const struct tmx_field_class *fc,
		  const char *prefix, bool nullable);

/* A structure of N_VALUE members, one column each in order, becomes N_FLAT. */
static void flatten(struct tmx_col_node *n)
{
	for (size_t m = 0; m < n->n_children; m++)
		if (n->children[m].how != N_VALUE || n->children[m].col != n->col_begin + (int)m)
			return;
	n->how = N_FLAT;
}

static bool alloc_children(struct tmx_columns *t, struct tmx_col_node *n, size_t count)
{
	n->n_children = count;
	n->children = calloc(count ? count : 1, sizeof(*n->children));
	if (!n->children)
		t->oom = true;
	return n->children != NULL;
}

/* Members (or variant options) flattened under `prefix`. */
static bool build_members(struct tmx_columns *t, struct tmx_col_node *n, const struct tmx_field_class *fc,
			  const char *prefix, bool nullable)
{
	size_t count = tmx_fc_member_count(fc);

	if (!alloc_children(t, n, count))
		return false;
	for (size_t m = 0; m < count; m++) {
		const char *mname = tmx_fc_member_name(fc, m);
		char *name = column_name(t, prefix, mname ? mname : "", "");
		bool ok = name && build(t, &n->children[m], tmx_fc_member_class(fc, m), name,
					nullable);
		free(name);
		if (!ok)
			return false;
	}
	return true;
}

/* Integers, enumerations and bit maps: the value's column, and the labels' when it has them. */
static void build_int(struct tmx_columns *t, struct tmx_col_node *n, const struct tmx_field_class *fc,
		      const char *prefix, bool nullable)
{
	enum tmx_fc_kind kind = tmx_fc_kind(fc);
	struct column col = field_column(TMX_COLUMN_INT, fc, nullable);

	col.bits = tmx_fc_size(fc) ? tmx_fc_size(fc) : 64;
	col.is_signed = kind != TMX_FC_BIT_ARRAY && tmx_fc_is_signed(fc);
	n->col = add_column(t, prefix, "", col);
	if (kind == TMX_FC_ENUM || (kind == TMX_FC_BIT_ARRAY && tmx_fc_mapping_count(fc))) {
		n->how = N_ENUM;
		n->col2 = add_column(t, prefix, kind == TMX_FC_ENUM ? "_label" : "_flags",
				     field_column(TMX_COLUMN_LABEL, fc, true));
	}
}

static bool build(struct tmx_columns *t, struct tmx_col_node *n, const struct tmx_field_class *fc,
		  const char *prefix, bool nullable)
{
	enum tmx_fc_kind kind = tmx_fc_kind(fc);
	struct column col;
	bool ok = true;

	*n = (struct tmx_col_node){ .how = N_VALUE, .col = -1, .col2 = -1, .col_begin = (int)t->n_cols };
	switch (kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
	case TMX_FC_BIT_ARRAY:
		build_int(t, n, fc, prefix, nullable);
		break;
	case TMX_FC_FLOAT:
		col = field_column(TMX_COLUMN_FLOAT, fc, nullable);
		col.bits = tmx_fc_size(fc) == 32 ? 32 : 64;
		n->col = add_column(t, prefix, "", col);
		break;
	case TMX_FC_BOOL:
		n->col = add_column(t, prefix, "", field_column(TMX_COLUMN_BOOL, fc, nullable));
		break;
	case TMX_FC_STRING:
		n->col = add_column(t, prefix, "", field_column(TMX_COLUMN_TEXT, fc, nullable));
		break;
	case TMX_FC_BLOB:
		n->col = add_column(t, prefix, "", field_column(TMX_COLUMN_BLOB, fc, nullable));
		break;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		n->how = N_TREE;
		n->col = add_column(t, prefix, "",
				    field_column(tmx_fc_is_text(fc) ? TMX_COLUMN_TEXT : TMX_COLUMN_ARRAY,
						 fc, nullable));
		break;
	case TMX_FC_STRUCT:
		n->how = N_STRUCT;
		ok = build_members(t, n, fc, prefix, nullable);
		break;
	case TMX_FC_VARIANT:
		n->how = N_VARIANT;
		n->col = add_column(t, prefix, "", field_column(TMX_COLUMN_OPTION, fc, nullable));
		ok = build_members(t, n, fc, prefix, true);
		break;
	case TMX_FC_OPTIONAL:
		n->how = N_OPTIONAL;
		ok = alloc_children(t, n, 1) &&
		     build(t, &n->children[0], tmx_fc_element(fc), prefix, true);
		break;
	}
	n->col_end = (int)t->n_cols;
	if (ok && n->how == N_STRUCT)
		flatten(n);
	return ok && !t->oom;
}

/* A scope's members at the top level, each prefixed with the scope's name if its name is taken. */
static bool build_scope(struct tmx_columns *t, struct tmx_col_node *n, const struct tmx_field_class *fc,
			const char *scope)
{
	size_t count;

	if (tmx_fc_kind(fc) != TMX_FC_STRUCT)   /* every reader makes its scopes structures */
		return build(t, n, fc, scope, false);
	*n = (struct tmx_col_node){ .how = N_STRUCT, .col = -1, .col2 = -1, .col_begin = (int)t->n_cols };
	count = tmx_fc_member_count(fc);
	if (!alloc_children(t, n, count))
		return false;
	for (size_t m = 0; m < count; m++) {
		const char *mname = tmx_fc_member_name(fc, m);
		char *name;
		bool ok;

		mname = mname ? mname : "";
		name = column_name(t, taken(t, mname) ? scope : "", mname, "");
		ok = name && build(t, &n->children[m], tmx_fc_member_class(fc, m), name, false);
		free(name);
		if (!ok)
			return false;
	}
	n->col_end = (int)t->n_cols;
	flatten(n);
	return !t->oom;
}

static void fixed_columns(struct tmx_columns *t)
{
	static const struct {
		const char *name;
		enum tmx_column_kind kind;
		unsigned bits;
		bool is_signed, nullable;
	} fixed[N_FIXED] = {
		[TMX_COLUMN_TS] = { "ts", TMX_COLUMN_INT, 64, true, true },
		[TMX_COLUMN_CYCLES] = { "cycles", TMX_COLUMN_INT, 64, false, true },
		[TMX_COLUMN_EVENT] = { "event", TMX_COLUMN_TEXT, 0, false, true },
		[TMX_COLUMN_HOST] = { "host", TMX_COLUMN_TEXT, 0, false, true },
		[TMX_COLUMN_TRACE] = { "trace", TMX_COLUMN_TEXT, 0, false, false },
		[TMX_COLUMN_STREAM_ID] = { "stream_id", TMX_COLUMN_INT, 64, false, false },
		[TMX_COLUMN_STREAM_CLASS_ID] = { "stream_class_id", TMX_COLUMN_INT, 64, false, false },
		[TMX_COLUMN_CPU] = { "cpu", TMX_COLUMN_INT, 32, false, true },
	};

	for (int f = 0; f < N_FIXED; f++)
		add_column(t, fixed[f].name, "",
			   (struct column){ .kind = fixed[f].kind, .bits = fixed[f].bits,
					    .is_signed = fixed[f].is_signed,
					    .nullable = fixed[f].nullable, .fixed = f });
}

static void node_free(struct tmx_col_node *n)
{
	for (size_t i = 0; n->children && i < n->n_children; i++)
		node_free(&n->children[i]);
	free(n->children);
}

void tmx_columns_free(struct tmx_columns *t)
{
	if (!t)
		return;
	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (t->scope[s]) {
			node_free(t->scope[s]);
			free(t->scope[s]);
			free(t->plan[s].steps);
		}
	for (size_t c = 0; c < t->n_cols; c++)
		free(t->cols[c].name);
	free(t->cols);
	free(t);
}

/* The member number of `name` in a structure, SIZE_MAX when it has none (tmx_value_member's). */
static size_t member_number(const struct tmx_field_class *st, const char *name)
{
	for (size_t i = 0; st && tmx_fc_kind(st) == TMX_FC_STRUCT && i < tmx_fc_member_count(st); i++)
		if (tmx_fc_member_name(st, i) && !strcmp(tmx_fc_member_name(st, i), name))
			return i;
	return SIZE_MAX;
}

/* ---- the walk as steps ---- */

static bool plan_add(struct plan *pl, uint8_t op, int col, int col2, const struct tmx_col_node *node)
{
	void *steps = pl->steps;
	struct tmx_col_step *last = pl->n ? &pl->steps[pl->n - 1] : NULL;

	/* Values of consecutive columns, nothing skipped between: one run. */
	if (op == S_RUN && !pl->pre && last && last->op == S_RUN && last->col + last->col2 == col) {
		last->col2 += col2;
		return true;
	}
	if (!tmx_grow_array(&steps, &pl->cap, pl->n + 1, sizeof(*pl->steps), 8))
		return false;
	pl->steps = steps;
	pl->steps[pl->n++] = (struct tmx_col_step){ .op = op, .pre = pl->pre, .col = col, .col2 = col2,
					    .node = node };
	pl->pre = 0;
	return true;
}

/* An array or sequence whose elements are single values (its subtree: `count` values). */
static bool flat_array(const struct tmx_field_class *fc)
{
	const struct tmx_field_class *el = tmx_fc_element(fc);

	if (!el)
		return false;
	switch (tmx_fc_kind(el)) {
	case TMX_FC_STRUCT:
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
	case TMX_FC_VARIANT:
	case TMX_FC_OPTIONAL:
		return false;
	default:
		return true;
	}
}

static bool plan_node(const struct tmx_columns *t, struct plan *pl, const struct tmx_col_node *n)
{
	const struct tmx_field_class *fc;

	switch (n->how) {
	case N_VALUE:
		return plan_add(pl, S_RUN, n->col, 1, NULL);
	case N_ENUM:
		return plan_add(pl, S_ENUM, n->col, n->col2, NULL);
	case N_TREE:
		fc = t->cols[n->col].fc;
		if (tmx_fc_is_text(fc))   /* no element values */
			return plan_add(pl, S_RUN, n->col, 1, NULL);
		return plan_add(pl, flat_array(fc) ? S_ARRAY : S_TREE, n->col, -1, NULL);
	case N_STRUCT:
	case N_FLAT:
		pl->pre++;
		for (size_t m = 0; m < n->n_children; m++)
			if (!plan_node(t, pl, &n->children[m]))
				return false;
		return true;
	default:   /* N_VARIANT, N_OPTIONAL */
		return plan_add(pl, S_NODE, n->col_begin, n->col_end, n);
	}
}

/* Scope `s`'s steps (as walk_scope() below walks it). */
static bool plan_scope(struct tmx_columns *t, int s)
{
	const struct tmx_col_node *n = t->scope[s];
	struct plan *pl = &t->plan[s];
	size_t want = s == (int)t->cpu_scope ? t->cpu_member : SIZE_MAX;
	struct tmx_col_step *last;

	if (n->how != N_STRUCT && n->how != N_FLAT) {
		if (!plan_node(t, pl, n))
			return false;
	} else {
		pl->pre++;
		for (size_t m = 0; m < n->n_children; m++)
			if ((m == want && !plan_add(pl, S_CPU, -1, -1, NULL)) ||
			    !plan_node(t, pl, &n->children[m]))
				return false;
	}
	/* Nothing follows the last subtree: not skipped. */
	last = pl->n ? &pl->steps[pl->n - 1] : NULL;
	if (last && (last->op == S_ARRAY || last->op == S_TREE)) {
		last->op = S_RUN;
		last->col2 = 1;
	}
	return true;
}

struct tmx_columns *tmx_columns_new(const struct tmx_event_class *ec)
{
	const struct tmx_stream_class *sc = ec->stream_class;
	struct tmx_columns *t = calloc(1, sizeof(*t));
	const char *cpu;

	if (!t)
		return NULL;
	t->scope_fc[TMX_SCOPE_PACKET_CONTEXT] = sc->packet_context;
	t->scope_fc[TMX_SCOPE_COMMON_CONTEXT] = sc->event_common_context;
	t->scope_fc[TMX_SCOPE_SPECIFIC_CONTEXT] = ec->specific_context;
	t->scope_fc[TMX_SCOPE_PAYLOAD] = ec->payload;
	/* As tmx_event_cpu: XRay's own `cpu` field is also common_context.cpu. */
	cpu = tmx_stream_class_cpu_field(sc, &t->cpu_scope);
	t->cpu_member = cpu ? member_number(t->scope_fc[t->cpu_scope], cpu) : SIZE_MAX;
	fixed_columns(t);
	for (int s = 0; s < TMX_N_SCOPES && !t->oom; s++) {
		if (!t->scope_fc[s])
			continue;
		t->scope[s] = calloc(1, sizeof(struct tmx_col_node));
		if (!t->scope[s] || !build_scope(t, t->scope[s], t->scope_fc[s], tmx_scope_name((enum tmx_scope)s)) ||
		    !plan_scope(t, s))
			t->oom = true;
	}
	if (t->oom) {
		tmx_columns_free(t);
		return NULL;
	}
	return t;
}

size_t tmx_columns_count(const struct tmx_columns *t)
{
	return t->n_cols;
}

size_t tmx_columns_fixed_count(const struct tmx_columns *t)
{
	(void)t;
	return N_FIXED;
}

const char *tmx_column_name(const struct tmx_columns *t, size_t c)
{
	return c < t->n_cols ? t->cols[c].name : NULL;
}

enum tmx_column_kind tmx_column_kind(const struct tmx_columns *t, size_t c)
{
	return c < t->n_cols ? t->cols[c].kind : TMX_COLUMN_INT;
}

bool tmx_column_nullable(const struct tmx_columns *t, size_t c)
{
	return c < t->n_cols && t->cols[c].nullable;
}

unsigned tmx_column_bits(const struct tmx_columns *t, size_t c)
{
	return c < t->n_cols ? t->cols[c].bits : 0;
}

bool tmx_column_is_signed(const struct tmx_columns *t, size_t c)
{
	return c < t->n_cols && t->cols[c].is_signed;
}

const struct tmx_field_class *tmx_column_field_class(const struct tmx_columns *t, size_t c)
{
	return c < t->n_cols ? t->cols[c].fc : NULL;
}

int tmx_column_fixed(const struct tmx_columns *t, size_t c)
{
	return c < t->n_cols ? t->cols[c].fixed : -1;
}

/* ---- values ---- */

static void nulls(const struct tmx_col_node *n, const struct tmx_value **out)
{
	for (int c = n->col_begin; c < n->col_end; c++)
		out[c] = NULL;
}

static size_t walk(const struct tmx_col_node *n, const struct tmx_value *vals, size_t i,
		   const struct tmx_value **out)
{
	const struct tmx_value *v = &vals[i];

	switch (n->how) {
	case N_VALUE:
		out[n->col] = v;
		return i + 1;
	case N_TREE:
		out[n->col] = v;
		return tmx_value_skip(vals, i);
	case N_ENUM:
		out[n->col] = out[n->col2] = v;
		return i + 1;
	case N_STRUCT:
		i++;
		for (size_t m = 0; m < n->n_children; m++)
			i = walk(&n->children[m], vals, i, out);
		return i;
	case N_FLAT:
		i++;
		for (size_t m = 0; m < n->n_children; m++)
			out[n->col_begin + (int)m] = &vals[i + m];
		return i + n->n_children;
	case N_VARIANT:
		out[n->col] = v;
		for (size_t o = 0; o < n->n_children; o++)
			if (o != v->option)
				nulls(&n->children[o], out);
		return walk(&n->children[v->option], vals, i + 1, out);
	default:   /* N_OPTIONAL */
		if (!v->present) {
			nulls(&n->children[0], out);
			return i + 1;
		}
		return walk(&n->children[0], vals, i + 1, out);
	}
}

/* A scope's values by its steps, noting the CPU field's value in *member. */
static void run_plan(const struct plan *pl, const struct tmx_value *vals,
		     const struct tmx_value **member, const struct tmx_value **out)
{
	const struct tmx_col_step *st = pl->steps, *end = st + pl->n;
	size_t i = 0;

	for (; st < end; st++) {
		i += st->pre;
		switch (st->op) {
		case S_RUN: {   /* locals: the stores to `out` could alias *st */
			const struct tmx_value **o = out + st->col, *v = vals + i;
			size_t n = (size_t)st->col2;

			i += n;
			while (n--)
				*o++ = v++;
			break;
		}
		case S_ENUM:
			out[st->col] = out[st->col2] = &vals[i++];
			break;
		case S_ARRAY:
			out[st->col] = &vals[i];
			i += 1 + (size_t)vals[i].count;
			break;
		case S_TREE:
			out[st->col] = &vals[i];
			i = tmx_value_skip(vals, i);
			break;
		case S_NODE:
			i = walk(st->node, vals, i, out);
			break;
		default:   /* S_CPU */
			*member = &vals[i];
			break;
		}
	}
}

bool tmx_columns_walk(const struct tmx_columns *t,
		      const struct tmx_value *const scopes[TMX_N_SCOPES],
		      const struct tmx_value **out)
{
	const struct tmx_value *cpu = NULL;

	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (t->scope[s] && (!scopes[s] || scopes[s][0].fc != t->scope_fc[s]))
			return false;
	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (t->scope[s])
			run_plan(&t->plan[s], scopes[s], &cpu, out);
	out[TMX_COLUMN_CPU] = cpu;
	return true;
}

const struct tmx_col_step *tmx_columns_steps(const struct tmx_columns *t, enum tmx_scope s,
					     size_t *n)
{
	*n = t->scope[s] ? t->plan[s].n : 0;
	return t->scope[s] ? t->plan[s].steps : NULL;
}

size_t tmx_columns_walk_node(const struct tmx_col_node *node, const struct tmx_value *vals,
			     size_t i, const struct tmx_value **out)
{
	return walk(node, vals, i, out);
}
