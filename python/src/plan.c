/*
 * An event class's columns, named and typed as the Parquet output makes
 * them (src/sink/parquet/fmap.c): the members of each scope at the top
 * level (prefixed with the scope's name when a column of that name exists),
 * structures flattened with dots, an enumeration as its integer and a
 * NAME_label column, a bit map with NAME_flags, a variant as a column of
 * the selected option's name and its options' columns (nullable), an
 * optional's columns nullable, arrays and BLOBs as one column of objects.
 * A name already taken gets _2, _3...
 */
#include <string.h>

#include "ext.h"

const char *const ext_scope_names[TMX_N_SCOPES] = {
	"packet_context", "common_context", "specific_context", "payload",
};

enum how { N_LEAF, N_ENUM, N_STRUCT, N_VARIANT, N_OPTIONAL };

struct pnode {
	enum how how;
	int col, col2;            /* value column; label column of N_ENUM */
	int col_begin, col_end;   /* every column of the subtree */
	size_t n_children;
	struct pnode *children;
};

struct builder {
	struct plan *p;
	size_t cap;
	bool oom;
};

static bool taken(const struct plan *p, const char *name)
{
	for (size_t c = 0; c < p->n_cols; c++)
		if (!strcmp(p->cols[c].name, name))
			return true;
	return false;
}

/* `prefix.name` + suffix (or without the dot when one is empty), made unique. */
static char *column_name(const struct plan *p, const char *prefix, const char *name,
			 const char *suffix)
{
	const char *dot = *prefix && *name ? "." : "";
	size_t len = strlen(prefix) + strlen(name) + strlen(suffix) + 16;
	char *out = malloc(len);
	int n = 1;

	if (!out)
		return NULL;
	snprintf(out, len, "%s%s%s%s", prefix, dot, name, suffix);
	while (taken(p, out))
		snprintf(out, len, "%s%s%s%s_%d", prefix, dot, name, suffix, ++n);
	return out;
}

/* A new column named `name` (unique already, or made so): its index, -1 when memory runs out. */
static int add_column(struct builder *b, const char *prefix, const char *suffix,
		      enum col_kind kind, bool nullable)
{
	struct plan *p = b->p;
	char *name = column_name(p, prefix, "", suffix);

	if (!name || (p->n_cols == b->cap && !(b->cap = b->cap ? 2 * b->cap : 16,
						 p->cols = realloc(p->cols, b->cap * sizeof(*p->cols))))) {
		free(name);
		b->oom = true;
		return -1;
	}
	p->cols[p->n_cols] = (struct column){ .name = name, .kind = kind, .nullable = nullable,
					      .width = -1 };
	return (int)p->n_cols++;
}

static enum col_kind int_kind(uint32_t bits, bool is_signed)
{
	static const enum col_kind s[] = { COL_I8, COL_I16, COL_I32, COL_I64 };
	static const enum col_kind u[] = { COL_U8, COL_U16, COL_U32, COL_U64 };
	int w = bits == 0 || bits > 32 ? 3 : bits > 16 ? 2 : bits > 8 ? 1 : 0;

	return is_signed ? s[w] : u[w];
}

static bool build(struct builder *b, struct pnode *n, const struct tmx_field_class *fc,
		  const char *prefix, bool nullable);

static bool alloc_children(struct builder *b, struct pnode *n, size_t count)
{
	n->n_children = count;
	n->children = calloc(count ? count : 1, sizeof(*n->children));
	if (!n->children)
		b->oom = true;
	return n->children != NULL;
}

/* Members (or variant options) flattened under `prefix`. */
static bool build_members(struct builder *b, struct pnode *n, const struct tmx_field_class *fc,
			  const char *prefix, bool nullable)
{
	size_t count = tmx_fc_member_count(fc);

	if (!alloc_children(b, n, count))
		return false;
	for (size_t m = 0; m < count; m++) {
		const char *mname = tmx_fc_member_name(fc, m);
		char *name = column_name(b->p, prefix, mname ? mname : "", "");
		bool ok = name && build(b, &n->children[m], tmx_fc_member_class(fc, m), name,
					nullable);
		free(name);
		if (!ok)
			return false;
	}
	return true;
}

static bool build(struct builder *b, struct pnode *n, const struct tmx_field_class *fc,
		  const char *prefix, bool nullable)
{
	enum tmx_fc_kind kind = tmx_fc_kind(fc);
	bool ok = true;

	*n = (struct pnode){ .how = N_LEAF, .col = -1, .col2 = -1,
			     .col_begin = (int)b->p->n_cols };
	if (tmx_fc_is_text(fc)) {
		n->col = add_column(b, prefix, "", COL_TEXT, nullable);
	} else {
		switch (kind) {
		case TMX_FC_INT:
		case TMX_FC_ENUM:
		case TMX_FC_BIT_ARRAY:
			n->col = add_column(b, prefix, "",
					    int_kind(tmx_fc_size(fc),
						     kind != TMX_FC_BIT_ARRAY && tmx_fc_is_signed(fc)),
					    nullable);
			if (kind == TMX_FC_ENUM || tmx_fc_mapping_count(fc)) {
				n->how = N_ENUM;
				n->col2 = add_column(b, prefix,
						     kind == TMX_FC_ENUM ? "_label" : "_flags",
						     COL_LABEL, true);
			}
			break;
		case TMX_FC_FLOAT:
			n->col = add_column(b, prefix, "", tmx_fc_size(fc) == 32 ? COL_F32 : COL_F64,
					    nullable);
			break;
		case TMX_FC_BOOL:
			n->col = add_column(b, prefix, "", COL_BOOL, nullable);
			break;
		case TMX_FC_STRUCT:
			n->how = N_STRUCT;
			ok = build_members(b, n, fc, prefix, nullable);
			break;
		case TMX_FC_VARIANT:
			n->how = N_VARIANT;
			n->col = add_column(b, prefix, "", COL_OPTION, nullable);
			ok = build_members(b, n, fc, prefix, true);
			break;
		case TMX_FC_OPTIONAL:
			n->how = N_OPTIONAL;
			ok = alloc_children(b, n, 1) &&
			     build(b, &n->children[0], tmx_fc_element(fc), prefix, true);
			break;
		default:   /* arrays, sequences, BLOBs */
			if (!ext_is_bytes(fc)) {
				n->col = add_column(b, prefix, "", COL_OBJECT, nullable);
				break;
			}
			n->col = add_column(b, prefix, "", COL_BYTES, nullable);
			/* Static arrays and BLOBs (a static BLOB of 0 bytes is left variable). */
			if (n->col >= 0 && (kind == TMX_FC_ARRAY || tmx_fc_length(fc)))
				b->p->cols[n->col].width = (int64_t)tmx_fc_length(fc);
			break;
		}
	}
	n->col_end = (int)b->p->n_cols;
	return ok && !b->oom;
}

/* A scope's members at the top level, each prefixed with the scope's name if its name is taken. */
static bool build_scope(struct builder *b, struct pnode *n, const struct tmx_field_class *fc,
			const char *scope)
{
	size_t count;

	if (tmx_fc_kind(fc) != TMX_FC_STRUCT)   /* every reader makes its scopes structures */
		return build(b, n, fc, scope, false);
	*n = (struct pnode){ .how = N_STRUCT, .col = -1, .col2 = -1,
			     .col_begin = (int)b->p->n_cols };
	count = tmx_fc_member_count(fc);
	if (!alloc_children(b, n, count))
		return false;
	for (size_t m = 0; m < count; m++) {
		const char *mname = tmx_fc_member_name(fc, m);
		char *name;
		bool ok;

		mname = mname ? mname : "";
		name = column_name(b->p, taken(b->p, mname) ? scope : "", mname, "");
		ok = name && build(b, &n->children[m], tmx_fc_member_class(fc, m), name, false);
		free(name);
		if (!ok)
			return false;
	}
	n->col_end = (int)b->p->n_cols;
	return !b->oom;
}

static void fixed_columns(struct builder *b, const struct tmx_event_class *ec)
{
	static const struct {
		const char *name;
		enum col_kind kind;
	} fixed[FIX_N] = {
		[FIX_TS] = { "ts", COL_I64 }, [FIX_CYCLES] = { "cycles", COL_U64 },
		[FIX_EVENT] = { "event", COL_TEXT }, [FIX_HOST] = { "host", COL_TEXT },
		[FIX_TRACE] = { "trace", COL_TEXT }, [FIX_STREAM_ID] = { "stream_id", COL_U64 },
		[FIX_STREAM_CLASS_ID] = { "stream_class_id", COL_U64 }, [FIX_CPU] = { "cpu", COL_U32 },
	};
	struct plan *p = b->p;

	for (int f = 0; f < FIX_N; f++)
		p->fixed[f] = add_column(b, fixed[f].name, "", fixed[f].kind, false);
	/* As the Parquet output: XRay's own `cpu` field is also common_context.cpu. */
	p->cpu_field = tmx_stream_class_cpu_field(ec->stream_class, &p->cpu_scope);
	p->n_fixed = p->n_cols;
}

static void node_free(struct pnode *n)
{
	for (size_t i = 0; n->children && i < n->n_children; i++)
		node_free(&n->children[i]);
	free(n->children);
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (p->scope[s]) {
			node_free(p->scope[s]);
			free(p->scope[s]);
		}
	for (size_t c = 0; c < p->n_cols; c++)
		free(p->cols[c].name);
	free(p->cols);
	free(p);
}

/*
 * The column of the cpu field (a member of its scope's structure): the
 * fixed cpu column takes its value from the walk's cells rather than
 * looking the field up by name in every event.
 */
static int cpu_column(const struct plan *p)
{
	const struct tmx_field_class *st;
	const struct pnode *n;

	if (!p->cpu_field || !(n = p->scope[p->cpu_scope]) || n->how != N_STRUCT)
		return -1;
	st = p->scope_fc[p->cpu_scope];
	for (size_t m = 0; m < tmx_fc_member_count(st) && m < n->n_children; m++) {
		const char *name = tmx_fc_member_name(st, m);
		if (name && !strcmp(name, p->cpu_field))
			return n->children[m].col;
	}
	return -1;
}

struct plan *plan_new(const struct tmx_event_class *ec)
{
	const struct tmx_stream_class *sc = ec->stream_class;
	struct builder b = { .p = calloc(1, sizeof(struct plan)) };

	if (!b.p)
		return NULL;
	b.p->scope_fc[TMX_SCOPE_PACKET_CONTEXT] = sc->packet_context;
	b.p->scope_fc[TMX_SCOPE_COMMON_CONTEXT] = sc->event_common_context;
	b.p->scope_fc[TMX_SCOPE_SPECIFIC_CONTEXT] = ec->specific_context;
	b.p->scope_fc[TMX_SCOPE_PAYLOAD] = ec->payload;
	fixed_columns(&b, ec);
	for (int s = 0; s < TMX_N_SCOPES && !b.oom; s++) {
		if (!b.p->scope_fc[s])
			continue;
		b.p->scope[s] = calloc(1, sizeof(struct pnode));
		if (!b.p->scope[s] ||
		    !build_scope(&b, b.p->scope[s], b.p->scope_fc[s], ext_scope_names[s]))
			b.oom = true;
	}
	if (b.oom) {
		plan_free(b.p);
		return NULL;
	}
	b.p->cpu_col = cpu_column(b.p);
	return b.p;
}

/* ---- values ---- */

static void nulls(const struct pnode *n, const struct tmx_value **out)
{
	for (int c = n->col_begin; c < n->col_end; c++)
		out[c] = NULL;
}

static size_t walk(const struct pnode *n, const struct tmx_value *vals, size_t i,
		   const struct tmx_value **out)
{
	const struct tmx_value *v = &vals[i];

	switch (n->how) {
	case N_LEAF:
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

bool plan_walk(const struct plan *p, const struct tmx_value *const scopes[TMX_N_SCOPES],
	       const struct tmx_value **out)
{
	for (int s = 0; s < TMX_N_SCOPES; s++) {
		if (!p->scope[s])
			continue;
		if (!scopes[s] || scopes[s][0].fc != p->scope_fc[s])
			return false;
		walk(p->scope[s], scopes[s], 0, out);
	}
	return true;
}

size_t plan_labels(const struct tmx_value *v, char *buf, size_t size)
{
	size_t len = 0, count = tmx_fc_mapping_count(v->fc);

	for (size_t m = 0; m < count; m++) {
		const char *label;
		size_t l;

		if (!tmx_value_has_mapping(v, m))
			continue;
		label = tmx_fc_mapping_label(v->fc, m);
		l = strlen(label);
		if (len + 2 + l > size)
			return SIZE_MAX;
		if (len) {
			memcpy(buf + len, ", ", 2);
			len += 2;
		}
		memcpy(buf + len, label, l);
		len += l;
	}
	return len;
}

/* Labels joined with ", " as str, None when the value has none. */
static PyObject *labels_cell(const struct tmx_value *v)
{
	char small[512], *buf = small;
	size_t size = sizeof(small), len;
	PyObject *out;

	while ((len = plan_labels(v, buf, size)) == SIZE_MAX) {
		if (buf != small)
			PyMem_Free(buf);
		size *= 4;
		if (!(buf = PyMem_Malloc(size)))
			return PyErr_NoMemory();
	}
	out = len ? ext_text(buf, len) : Py_NewRef(Py_None);
	if (buf != small)
		PyMem_Free(buf);
	return out;
}

PyObject *plan_cell(const struct column *col, const struct tmx_value *v)
{
	const char *s;
	size_t len, next;

	switch (col->kind) {
	case COL_I8: case COL_I16: case COL_I32: case COL_I64:
		return PyLong_FromLongLong(v->s);
	case COL_U8: case COL_U16: case COL_U32: case COL_U64:
		return PyLong_FromUnsignedLongLong(v->u);
	case COL_F32: case COL_F64:
		return PyFloat_FromDouble(v->d);
	case COL_BOOL:
		return PyBool_FromLong(v->u != 0);
	case COL_TEXT:
		s = tmx_value_text(v, &len);
		return ext_text(s, s ? len : 0);
	case COL_LABEL:
		return labels_cell(v);
	case COL_OPTION:
		s = tmx_fc_member_name(v->fc, v->option);
		return ext_text(s, s ? strlen(s) : 0);
	default:
		return ext_value(v, 0, &next);
	}
}
