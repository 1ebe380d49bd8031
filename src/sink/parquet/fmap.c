/* Field classes to Parquet columns (see fmap.h; their values: fmap_values.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/parquet/fmap.h"


/* Definition and repetition levels reached at schema element `e`. */
static void levels_at(const struct pq_schema *s, int e, uint8_t *def, uint8_t *rep)
{
	unsigned d = 0, r = 0;

	for (; e > 0; e = s->elems[e].parent) {
		d += s->elems[e].repetition != PQ_REQUIRED;
		r += s->elems[e].repetition == PQ_REPEATED;
	}
	/* Deeper nesting is refused by pq_schema_finish(): these stay unused then. */
	*def = (uint8_t)(d > PQ_MAX_LEVEL ? PQ_MAX_LEVEL : d);
	*rep = (uint8_t)(r > PQ_MAX_LEVEL ? PQ_MAX_LEVEL : r);
}

/* `prefix.name` (or `name` without a prefix), made unique under `parent` with _2, _3... */
static char *child_name(const struct pq_schema *s, int parent, const char *prefix,
			const char *name, const char *suffix)
{
	size_t len = strlen(prefix) + strlen(name) + strlen(suffix) + 16;
	char *out = malloc(len);
	int n = 1;

	if (!out)
		return NULL;
	snprintf(out, len, "%s%s%s%s", prefix, *prefix && *name ? "." : "", name, suffix);
	while (pq_schema_has_child(s, parent, out))
		snprintf(out, len, "%s%s%s%s_%d", prefix, *prefix && *name ? "." : "", name, suffix,
			 ++n);
	return out;
}

static int leaf(struct pq_schema *s, int parent, const char *prefix, const char *suffix,
		bool nullable, struct pq_type type)
{
	char *name = child_name(s, parent, prefix, "", suffix);
	int col;

	if (!name) {
		s->oom = true;
		return -1;
	}
	col = pq_schema_leaf(s, parent, name, nullable ? PQ_OPTIONAL : PQ_REQUIRED, type);
	free(name);
	return col;
}

static bool build(struct pq_fmap *fm, const struct tmx_field_class *fc, struct pq_schema *s,
		  int parent, const char *prefix, bool nullable);

static bool alloc_children(struct pq_fmap *fm, size_t n)
{
	fm->n_children = n;
	fm->children = calloc(n ? n : 1, sizeof(*fm->children));
	return fm->children != NULL;
}

/* Members (or, with `nullable`, variant options) flattened under `prefix`. */
static bool build_members(struct pq_fmap *fm, const struct tmx_field_class *fc,
			  struct pq_schema *s, int parent, const char *prefix, bool nullable)
{
	if (!alloc_children(fm, fc->n_members))
		return false;
	for (size_t m = 0; m < fc->n_members; m++) {
		const char *mname = fc->members[m].name ? fc->members[m].name : "";
		char *name = child_name(s, parent, prefix, mname, "");
		bool ok = name && build(&fm->children[m], fc->members[m].fc, s, parent, name,
					nullable);
		free(name);
		if (!ok)
			return false;
	}
	return true;
}

/* Whether an element class makes exactly one leaf (or list) of its own. */
static bool single_node(const struct tmx_field_class *fc)
{
	switch (fc->kind) {
	case TMX_FC_INT: case TMX_FC_FLOAT: case TMX_FC_BOOL: case TMX_FC_STRING:
	case TMX_FC_BLOB: case TMX_FC_ARRAY: case TMX_FC_SEQUENCE:
		return true;
	case TMX_FC_BIT_ARRAY:
		return fc->n_mappings == 0;
	default:
		return false;
	}
}

/* NAME (LIST) > list (repeated) > element. */
static bool build_list(struct pq_fmap *fm, const struct tmx_field_class *fc, struct pq_schema *s,
		       int parent, const char *prefix, bool nullable)
{
	char *name = child_name(s, parent, prefix, "", "");
	int g, list;
	uint8_t rep;

	if (!name)
		return false;
	g = pq_schema_group(s, parent, name, nullable ? PQ_OPTIONAL : PQ_REQUIRED, PQ_LT_LIST);
	free(name);
	list = g < 0 ? -1 : pq_schema_group(s, g, "list", PQ_REPEATED, PQ_LT_NONE);
	if (list < 0 || !alloc_children(fm, 1))
		return false;
	levels_at(s, g, &fm->list_def, &rep);
	levels_at(s, list, &rep, &fm->elem_rep);
	if (single_node(fc->elem))
		return build(&fm->children[0], fc->elem, s, list, "element", false);
	g = pq_schema_group(s, list, "element", PQ_REQUIRED, PQ_LT_NONE);
	if (g < 0)
		return false;
	if (fc->elem->kind == TMX_FC_STRUCT) {
		fm->children[0] = (struct pq_fmap){ .fc = fc->elem, .how = PQ_F_STRUCT, .col = -1,
						    .col2 = -1, .col_begin = (int)s->n_cols };
		levels_at(s, g, &fm->children[0].null_def, &rep);
		if (!build_members(&fm->children[0], fc->elem, s, g, "", false))
			return false;
		fm->children[0].col_end = (int)s->n_cols;
		return true;
	}
	return build(&fm->children[0], fc->elem, s, g, "value", false);
}

static struct pq_type int_type(const struct tmx_field_class *fc)
{
	return pq_type_int(fc->size ? fc->size : 64, fc->is_signed);
}

static bool build(struct pq_fmap *fm, const struct tmx_field_class *fc, struct pq_schema *s,
		  int parent, const char *prefix, bool nullable)
{
	uint8_t rep;
	bool ok = true;

	*fm = (struct pq_fmap){ .fc = fc, .col = -1, .col2 = -1, .col_begin = (int)s->n_cols };
	levels_at(s, parent, &fm->null_def, &rep);
	switch (fc->kind) {
	case TMX_FC_INT:
		fm->how = PQ_F_INT;
		fm->col = leaf(s, parent, prefix, "", nullable, int_type(fc));
		break;
	case TMX_FC_ENUM:
	case TMX_FC_BIT_ARRAY:
		fm->how = fc->kind == TMX_FC_ENUM ? PQ_F_ENUM : PQ_F_BITS;
		fm->col = leaf(s, parent, prefix, "", nullable,
			       fc->kind == TMX_FC_ENUM ? int_type(fc) : pq_type_int(fc->size, false));
		if (fc->kind == TMX_FC_ENUM || fc->n_mappings)
			fm->col2 = leaf(s, parent, prefix, fc->kind == TMX_FC_ENUM ? "_label" : "_flags",
					true, pq_type_string());
		break;
	case TMX_FC_FLOAT:
		fm->how = PQ_F_FLOAT;
		fm->col = leaf(s, parent, prefix, "", nullable,
			       pq_type_plain(fc->size == 32 ? PQ_FLOAT : PQ_DOUBLE));
		break;
	case TMX_FC_BOOL:
		fm->how = PQ_F_BOOL;
		fm->col = leaf(s, parent, prefix, "", nullable, pq_type_plain(PQ_BOOLEAN));
		break;
	case TMX_FC_STRING:
		fm->how = PQ_F_STRING;
		fm->col = leaf(s, parent, prefix, "", nullable, pq_type_string());
		break;
	case TMX_FC_BLOB:
		fm->how = PQ_F_BLOB;
		fm->col = leaf(s, parent, prefix, "", nullable, pq_type_plain(PQ_BYTE_ARRAY));
		break;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (fc->is_text) {
			fm->how = PQ_F_TEXT;
			fm->col = leaf(s, parent, prefix, "", nullable, pq_type_string());
		} else {
			fm->how = PQ_F_LIST;
			ok = build_list(fm, fc, s, parent, prefix, nullable);
		}
		break;
	case TMX_FC_STRUCT:
		fm->how = PQ_F_STRUCT;
		ok = build_members(fm, fc, s, parent, prefix, nullable);
		break;
	case TMX_FC_VARIANT:
		fm->how = PQ_F_VARIANT;
		fm->col = leaf(s, parent, prefix, "", nullable, pq_type_string());
		ok = build_members(fm, fc, s, parent, prefix, true);
		break;
	case TMX_FC_OPTIONAL:
		fm->how = PQ_F_OPTIONAL;
		ok = alloc_children(fm, 1) &&
		     build(&fm->children[0], fc->elem, s, parent, prefix, true);
		break;
	}
	fm->col_end = (int)s->n_cols;
	return ok && !s->oom;
}


static void pq_fmap_free(struct pq_fmap *fm)
{
	for (size_t i = 0; fm->children && i < fm->n_children; i++)
		pq_fmap_free(&fm->children[i]);
	free(fm->children);
	fm->children = NULL;
}

/* The Parquet type of an integer or floating-point column of the model. */
static struct pq_type number_type(const struct tmx_columns *m, size_t c)
{
	if (tmx_column_kind(m, c) == TMX_COLUMN_FLOAT)
		return pq_type_plain(tmx_column_bits(m, c) == 32 ? PQ_FLOAT : PQ_DOUBLE);
	return pq_type_int(tmx_column_bits(m, c), tmx_column_is_signed(m, c));
}

/* Column c of the model under the root: its Parquet columns. */
static bool fcol_build(struct pq_fcol *pc, const struct tmx_columns *m, size_t c,
		       struct pq_schema *s)
{
	static const uint8_t how[] = {
		[TMX_COLUMN_INT] = PQ_F_INT, [TMX_COLUMN_FLOAT] = PQ_F_FLOAT, [TMX_COLUMN_BOOL] = PQ_F_BOOL,
		[TMX_COLUMN_TEXT] = PQ_F_TEXT, [TMX_COLUMN_LABEL] = PQ_F_LABEL,
		[TMX_COLUMN_OPTION] = PQ_F_OPTION, [TMX_COLUMN_BLOB] = PQ_F_BLOB,
		[TMX_COLUMN_ARRAY] = PQ_F_LIST,
	};
	const struct tmx_field_class *fc = tmx_column_field_class(m, c);
	const char *name = tmx_column_name(m, c);
	enum pq_repetition rep = tmx_column_nullable(m, c) ? PQ_OPTIONAL : PQ_REQUIRED;
	struct pq_type type;

	*pc = (struct pq_fcol){ .how = how[tmx_column_kind(m, c)], .col = (int)s->n_cols };
	switch (pc->how) {
	case PQ_F_INT: case PQ_F_FLOAT:
		type = number_type(m, c);
		break;
	case PQ_F_BOOL:
		type = pq_type_plain(PQ_BOOLEAN);
		break;
	case PQ_F_BLOB:
		type = pq_type_plain(PQ_BYTE_ARRAY);
		break;
	case PQ_F_LIST:   /* the model's names are unique under the root already */
		if (!build(&pc->list, fc, s, 0, name, rep == PQ_OPTIONAL))
			return false;
		pc->col_end = (int)s->n_cols;
		return true;
	default:   /* text, labels, option names */
		if (pc->how == PQ_F_TEXT && fc && fc->kind == TMX_FC_STRING)
			pc->how = PQ_F_STRING;
		type = pq_type_string();
		break;
	}
	if (tmx_column_fixed(m, c) >= 0)
		pc->how = PQ_F_FIXED;
	pq_schema_leaf(s, 0, name, rep, type);
	pc->col_end = (int)s->n_cols;
	return !s->oom;
}

bool pq_fcols_new(struct pq_fcols *fc, const struct tmx_event_class *ec, struct pq_schema *s)
{
	*fc = (struct pq_fcols){ .model = tmx_columns_new(ec) };
	if (!fc->model)
		return false;
	fc->n = tmx_columns_count(fc->model);
	fc->n_fixed = tmx_columns_fixed_count(fc->model);
	fc->cols = calloc(fc->n ? fc->n : 1, sizeof(*fc->cols));
	if (!fc->cols)
		return false;
	for (size_t c = 0; c < fc->n; c++)
		if (!fcol_build(&fc->cols[c], fc->model, c, s))
			return false;
	if (!pq_fcols_compile(fc, s))
		return false;
	/* Runs of integer columns, from the last one back. */
	for (size_t c = fc->n; c-- > 0;) {
		struct pq_fcol *pc = &fc->cols[c];
		const struct pq_fcol *next = c + 1 < fc->n ? &fc->cols[c + 1] : NULL;

		if (pc->how != PQ_F_INT)
			continue;
		pc->int_run = 1;
		if (next && next->int_run && next->int_run < 255 && next->col == pc->col + 1)
			pc->int_run = (uint8_t)(next->int_run + 1);
	}
	return true;
}

void pq_fcols_free(struct pq_fcols *fc)
{
	for (size_t c = 0; fc->cols && c < fc->n; c++)
		if (fc->cols[c].how == PQ_F_LIST)
			pq_fmap_free(&fc->cols[c].list);
	free(fc->cols);
	free(fc->prog.ops);
	tmx_columns_free(fc->model);
	*fc = (struct pq_fcols){ 0 };
}
