/* Field classes to Parquet columns, values to column entries: see fmap.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "model/field_class.h"
#include "sink/parquet/fmap.h"
#include "sink/parquet/record.h"

enum how {
	F_INT, F_FLOAT, F_BOOL, F_STRING, F_TEXT, F_BLOB, F_ENUM, F_BITS,
	F_STRUCT, F_VARIANT, F_OPTIONAL, F_LIST,
	F_LABEL, F_OPTION,   /* the model's label and option columns (top level) */
	F_FIXED,             /* the fixed columns: the caller's */
};

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
		fm->children[0] = (struct pq_fmap){ .fc = fc->elem, .how = F_STRUCT, .col = -1,
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
		fm->how = F_INT;
		fm->col = leaf(s, parent, prefix, "", nullable, int_type(fc));
		break;
	case TMX_FC_ENUM:
	case TMX_FC_BIT_ARRAY:
		fm->how = fc->kind == TMX_FC_ENUM ? F_ENUM : F_BITS;
		fm->col = leaf(s, parent, prefix, "", nullable,
			       fc->kind == TMX_FC_ENUM ? int_type(fc) : pq_type_int(fc->size, false));
		if (fc->kind == TMX_FC_ENUM || fc->n_mappings)
			fm->col2 = leaf(s, parent, prefix, fc->kind == TMX_FC_ENUM ? "_label" : "_flags",
					true, pq_type_string());
		break;
	case TMX_FC_FLOAT:
		fm->how = F_FLOAT;
		fm->col = leaf(s, parent, prefix, "", nullable,
			       pq_type_plain(fc->size == 32 ? PQ_FLOAT : PQ_DOUBLE));
		break;
	case TMX_FC_BOOL:
		fm->how = F_BOOL;
		fm->col = leaf(s, parent, prefix, "", nullable, pq_type_plain(PQ_BOOLEAN));
		break;
	case TMX_FC_STRING:
		fm->how = F_STRING;
		fm->col = leaf(s, parent, prefix, "", nullable, pq_type_string());
		break;
	case TMX_FC_BLOB:
		fm->how = F_BLOB;
		fm->col = leaf(s, parent, prefix, "", nullable, pq_type_plain(PQ_BYTE_ARRAY));
		break;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (fc->is_text) {
			fm->how = F_TEXT;
			fm->col = leaf(s, parent, prefix, "", nullable, pq_type_string());
		} else {
			fm->how = F_LIST;
			ok = build_list(fm, fc, s, parent, prefix, nullable);
		}
		break;
	case TMX_FC_STRUCT:
		fm->how = F_STRUCT;
		ok = build_members(fm, fc, s, parent, prefix, nullable);
		break;
	case TMX_FC_VARIANT:
		fm->how = F_VARIANT;
		fm->col = leaf(s, parent, prefix, "", nullable, pq_type_string());
		ok = build_members(fm, fc, s, parent, prefix, true);
		break;
	case TMX_FC_OPTIONAL:
		fm->how = F_OPTIONAL;
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
		[TMX_COLUMN_INT] = F_INT, [TMX_COLUMN_FLOAT] = F_FLOAT, [TMX_COLUMN_BOOL] = F_BOOL,
		[TMX_COLUMN_TEXT] = F_TEXT, [TMX_COLUMN_LABEL] = F_LABEL,
		[TMX_COLUMN_OPTION] = F_OPTION, [TMX_COLUMN_BLOB] = F_BLOB,
		[TMX_COLUMN_ARRAY] = F_LIST,
	};
	const struct tmx_field_class *fc = tmx_column_field_class(m, c);
	const char *name = tmx_column_name(m, c);
	enum pq_repetition rep = tmx_column_nullable(m, c) ? PQ_OPTIONAL : PQ_REQUIRED;
	struct pq_type type;

	*pc = (struct pq_fcol){ .how = how[tmx_column_kind(m, c)], .col = (int)s->n_cols };
	switch (pc->how) {
	case F_INT: case F_FLOAT:
		type = number_type(m, c);
		break;
	case F_BOOL:
		type = pq_type_plain(PQ_BOOLEAN);
		break;
	case F_BLOB:
		type = pq_type_plain(PQ_BYTE_ARRAY);
		break;
	case F_LIST:   /* the model's names are unique under the root already */
		if (!build(&pc->list, fc, s, 0, name, rep == PQ_OPTIONAL))
			return false;
		pc->col_end = (int)s->n_cols;
		return true;
	default:   /* text, labels, option names */
		if (pc->how == F_TEXT && fc && fc->kind == TMX_FC_STRING)
			pc->how = F_STRING;
		type = pq_type_string();
		break;
	}
	if (tmx_column_fixed(m, c) >= 0)
		pc->how = F_FIXED;
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
	/* Runs of integer columns, from the last one back. */
	for (size_t c = fc->n; c-- > 0;) {
		struct pq_fcol *pc = &fc->cols[c];
		const struct pq_fcol *next = c + 1 < fc->n ? &fc->cols[c + 1] : NULL;

		if (pc->how != F_INT)
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
		if (fc->cols[c].how == F_LIST)
			pq_fmap_free(&fc->cols[c].list);
	free(fc->cols);
	tmx_columns_free(fc->model);
	*fc = (struct pq_fcols){ 0 };
}

/* ---- values ---- */

/*
 * Each value goes into the record, or straight into its column with the
 * bytes its record entry would have taken counted (see fmap.h).
 */
static inline unsigned int_width(const struct pq_rec_emit *em, int col)
{
	return em->ci[col].phys == PQ_INT32 ? 4 : 8;
}

void pq_emit_null(const struct pq_rec_emit *em, int col, uint8_t rep, uint8_t def)
{
	if (em->rec) {
		pq_rec_null(em->rec, (uint32_t)col, rep, def);
		return;
	}
	pq_col_null(&em->cols[col], rep, def);
	*em->bytes += PQ_REC_HEAD;
}

void pq_emit_int(const struct pq_rec_emit *em, int col, uint8_t rep, uint64_t bits)
{
	struct pq_col *c;

	if (em->rec) {
		pq_rec_int(em->rec, em->ci, (uint32_t)col, rep, bits);
		return;
	}
	c = &em->cols[col];
	pq_col_int_put(c, rep, c->max_def, bits);
	*em->bytes += PQ_REC_HEAD + int_width(em, col);
}

static void emit_double(const struct pq_rec_emit *em, int col, uint8_t rep, double v)
{
	struct pq_col *c;

	if (em->rec) {
		pq_rec_double(em->rec, em->ci, (uint32_t)col, rep, v);
		return;
	}
	c = &em->cols[col];
	pq_col_double(c, rep, c->max_def, v);
	*em->bytes += PQ_REC_HEAD + 8;
}

static void emit_bool(const struct pq_rec_emit *em, int col, uint8_t rep, bool v)
{
	struct pq_col *c;

	if (em->rec) {
		pq_rec_bool(em->rec, em->ci, (uint32_t)col, rep, v);
		return;
	}
	c = &em->cols[col];
	pq_col_bool(c, rep, c->max_def, v);
	*em->bytes += PQ_REC_HEAD + 1;
}

/* A byte array as it is (strings: made UTF-8 by pq_rec_text). */
static void emit_bytes(const struct pq_rec_emit *em, int col, uint8_t rep, const void *s,
		       size_t n)
{
	struct pq_col *c;

	if (em->rec) {
		pq_rec_bytes(em->rec, em->ci, (uint32_t)col, rep, s, n);
		return;
	}
	c = &em->cols[col];
	if (n > UINT32_MAX) {   /* no Parquet page holds it: the row group fails */
		c->vals.oom = true;
		return;
	}
	pq_col_bytes(c, rep, c->max_def, s, n);
	*em->bytes += PQ_REC_HEAD + 4 + n;
}

void pq_emit_u64s(const struct pq_rec_emit *em, int col, const uint64_t *v, size_t n)
{
	size_t bytes = PQ_REC_HEAD;

	if (em->rec) {
		pq_rec_u64s(em->rec, em->ci, (uint32_t)col, v, n);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		struct pq_col *c = &em->cols[col + (int)k];

		pq_col_int_put(c, 0, c->max_def, v[k]);
		bytes += int_width(em, col + (int)k);
	}
	*em->bytes += bytes;
}

/* `n` integers (tmx_value.u) of columns col, col + 1... (a run: see pq_rec_ints). */
static void emit_ints(const struct pq_rec_emit *em, int col, const struct tmx_value *v, size_t n)
{
	size_t bytes = PQ_REC_HEAD;

	if (em->rec) {
		pq_rec_ints(em->rec, em->ci, (uint32_t)col, v, n);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		struct pq_col *c = &em->cols[col + (int)k];

		pq_col_int_put(c, 0, c->max_def, v[k].u);
		bytes += int_width(em, col + (int)k);
	}
	*em->bytes += bytes;
}

/* A LIST's `n` (> 0) integer elements (see pq_rec_elems). */
static void emit_elems(const struct pq_rec_emit *em, int col, uint8_t rep, uint8_t elem_rep,
		       const struct tmx_value *v, uint32_t n)
{
	struct pq_col *c;
	unsigned w;

	if (em->rec) {
		pq_rec_elems(em->rec, em->ci, (uint32_t)col, rep, elem_rep, v, n);
		return;
	}
	c = &em->cols[col];
	w = int_width(em, col);
	/* Levels: every element present (the deepest level), the first at `rep`. */
	if (c->max_rep && tmx_buf_reserve(&c->reps, n)) {
		c->reps.p[c->reps.len] = rep;
		memset(c->reps.p + c->reps.len + 1, elem_rep, n - 1);
		c->reps.len += n;
	}
	if (c->max_def && tmx_buf_reserve(&c->defs, n)) {
		memset(c->defs.p + c->defs.len, c->max_def, n);
		c->defs.len += n;
	}
	if (tmx_buf_reserve(&c->vals, (size_t)w * n)) {
		for (uint32_t k = 0; k < n; k++)
			tmx_buf_le(&c->vals, v[k].u, w);
	}
	c->n_levels += n;
	c->n_vals += n;
	*em->bytes += PQ_REC_HEAD + 4 + (size_t)w * n;
}

/* Every column of the field: absent at its level. */
static void nulls(const struct pq_rec_emit *em, const struct pq_fmap *fm, uint8_t rep)
{
	for (int c = fm->col_begin; c < fm->col_end; c++)
		pq_emit_null(em, c, rep, fm->null_def);
}

/*
 * p[0, n) as UTF-8: itself when it is, else a copy in `scratch` where each
 * byte that is not part of valid UTF-8 is the code point of its value, as
 * in JSON.  Returns the bytes, their length in *out_n.
 */
static const char *utf8_text(struct tmx_buf *scratch, const char *p, size_t n, size_t *out_n)
{
	const unsigned char *s = (const unsigned char *)p;
	size_t i = 0, l;
	uint64_t w;

	/* ASCII, 8 bytes at a time: most text is. */
	while (i + 8 <= n) {
		memcpy(&w, s + i, 8);
		if (w & 0x8080808080808080ull)
			break;
		i += 8;
	}
	while (i < n && (l = tmx_utf8_seq_len(s + i, n - i)))
		i += l;
	*out_n = n;
	if (i == n)
		return p;
	scratch->len = 0;
	tmx_buf_put(scratch, s, i);
	for (; i < n; i += l) {
		l = tmx_utf8_seq_len(s + i, n - i);
		if (l) {
			tmx_buf_put(scratch, s + i, l);
			continue;
		}
		tmx_buf_byte(scratch, (uint8_t)(0xC0 | s[i] >> 6));
		tmx_buf_byte(scratch, (uint8_t)(0x80 | (s[i] & 0x3F)));
		l = 1;
	}
	*out_n = scratch->len;
	return (const char *)scratch->p;
}

void pq_put_text(const struct pq_emit *em, int col, uint8_t rep, const char *p, size_t n)
{
	struct pq_col *c = &em->cols[col];
	const char *t = utf8_text(em->scratch, p, n, &n);

	pq_col_bytes(c, rep, c->max_def, t, n);
}

void pq_rec_text(const struct pq_rec_emit *em, int col, uint8_t rep, const char *p, size_t n)
{
	const char *t = utf8_text(em->scratch, p, n, &n);

	emit_bytes(em, col, rep, t, n);
}

/*
 * The labels of an enumeration's value or a bit map's active flags, joined
 * by ", ", into column `col` (null at `null_def` when none applies).
 */
static void put_labels(const struct pq_rec_emit *em, const struct tmx_field_class *fc, int col,
		       uint8_t null_def, uint64_t u, uint8_t rep)
{
	struct tmx_buf *b = em->labels;

	b->len = 0;
	for (size_t m = 0; m < fc->n_mappings; m++) {
		if (!tmx_mapping_holds(fc, &fc->mappings[m], u))
			continue;
		if (b->len)
			tmx_buf_put(b, ", ", 2);
		tmx_buf_put(b, fc->mappings[m].label, strlen(fc->mappings[m].label));
	}
	if (b->len)   /* labels come from the metadata: checked like any text */
		pq_rec_text(em, col, rep, (const char *)b->p, b->len);
	else
		pq_emit_null(em, col, rep, null_def);
}

static size_t fmap_emit(const struct pq_rec_emit *em, const struct pq_fmap *fm,
			const struct tmx_value *vals, size_t i, uint8_t rep);

static size_t emit_list(const struct pq_rec_emit *em, const struct pq_fmap *fm,
			const struct tmx_value *vals, size_t i, uint8_t rep)
{
	uint64_t count = vals[i].count;

	i++;
	if (!count) {
		for (int c = fm->col_begin; c < fm->col_end; c++)
			pq_emit_null(em, c, rep, fm->list_def);
		return i;
	}
	/* Integers (byte arrays of a sequence, most often): one entry. */
	if (fm->children[0].how == F_INT && count <= UINT32_MAX) {
		emit_elems(em, fm->children[0].col, rep, fm->elem_rep, &vals[i], (uint32_t)count);
		return i + count;
	}
	for (uint64_t k = 0; k < count; k++)
		i = fmap_emit(em, &fm->children[0], vals, i, k ? fm->elem_rep : rep);
	return i;
}

/* The value at vals[i] and its subtree as record entries; returns the index after it. */
static size_t fmap_emit(const struct pq_rec_emit *em, const struct pq_fmap *fm,
			const struct tmx_value *vals, size_t i, uint8_t rep)
{
	const struct tmx_value *v = &vals[i];
	const struct tmx_field_class *fc = fm->fc;

	switch (fm->how) {
	case F_INT:   /* signed or not, `u` has the value's bits */
		pq_emit_int(em, fm->col, rep, v->u);
		return i + 1;
	case F_ENUM:
	case F_BITS:
		pq_emit_int(em, fm->col, rep, v->u);
		if (fm->col2 >= 0)
			put_labels(em, fc, fm->col2, fm->null_def, v->u, rep);
		return i + 1;
	case F_FLOAT:
		emit_double(em, fm->col, rep, v->d);
		return i + 1;
	case F_BOOL:
		emit_bool(em, fm->col, rep, v->u != 0);
		return i + 1;
	case F_STRING:
		pq_rec_text(em, fm->col, rep, v->str.ptr, v->str.len);
		return i + 1;
	case F_TEXT:   /* as babeltrace2 reads a text array: up to its first NUL */
		pq_rec_text(em, fm->col, rep, v->str.ptr, tmx_value_text_len(v));
		return i + 1;
	case F_BLOB:
		emit_bytes(em, fm->col, rep, v->str.ptr, v->str.len);
		return i + 1;
	case F_STRUCT:
		i++;
		for (size_t m = 0; m < fm->n_children; m++)
			i = fmap_emit(em, &fm->children[m], vals, i, rep);
		return i;
	case F_VARIANT: {
		const char *name = fc->members[v->option].name;
		pq_rec_text(em, fm->col, rep, name ? name : "", name ? strlen(name) : 0);
		for (size_t o = 0; o < fm->n_children; o++)
			if (o != v->option)
				nulls(em, &fm->children[o], rep);
		return fmap_emit(em, &fm->children[v->option], vals, i + 1, rep);
	}
	case F_OPTIONAL:
		if (!v->present) {
			nulls(em, &fm->children[0], rep);
			return i + 1;
		}
		return fmap_emit(em, &fm->children[0], vals, i + 1, rep);
	default:
		return emit_list(em, fm, vals, i, rep);
	}
}

/* Integer columns from pc on whose values are consecutive: one record entry; returns their number. */
static size_t emit_int_run(const struct pq_rec_emit *em, const struct pq_fcol *pc,
			const struct tmx_value *const *cells)
{
	const struct tmx_value *v = cells[0];
	size_t n = 1;

	while (n < pc->int_run && cells[n] == v + n)
		n++;
	if (n > 1)
		emit_ints(em, pc->col, v, n);
	else   /* signed or not, `u` has the value's bits */
		pq_emit_int(em, pc->col, 0, v->u);
	return n;
}

void pq_fcols_emit(const struct pq_rec_emit *em, const struct pq_fcols *fc,
		   const struct tmx_value *const *cells)
{
	for (size_t c = fc->n_fixed; c < fc->n;) {
		const struct pq_fcol *pc = &fc->cols[c];
		const struct tmx_value *v = cells[c];
		const char *name;

		if (!v) {   /* an option not selected, an absent optional */
			for (int k = pc->col; k < pc->col_end; k++)
				pq_emit_null(em, k, 0, 0);
			c++;
			continue;
		}
		switch (pc->how) {
		case F_INT:
			c += emit_int_run(em, pc, &cells[c]);
			continue;
		case F_FLOAT:
			emit_double(em, pc->col, 0, v->d);
			break;
		case F_BOOL:
			emit_bool(em, pc->col, 0, v->u != 0);
			break;
		case F_STRING:
			pq_rec_text(em, pc->col, 0, v->str.ptr, v->str.len);
			break;
		case F_TEXT:   /* as babeltrace2 reads a text array: up to its first NUL */
			pq_rec_text(em, pc->col, 0, v->str.ptr, tmx_value_text_len(v));
			break;
		case F_BLOB:
			emit_bytes(em, pc->col, 0, v->str.ptr, v->str.len);
			break;
		case F_LABEL:
			put_labels(em, v->fc, pc->col, 0, v->u, 0);
			break;
		case F_OPTION:
			name = v->fc->members[v->option].name;
			pq_rec_text(em, pc->col, 0, name ? name : "", name ? strlen(name) : 0);
			break;
		default:   /* F_LIST */
			fmap_emit(em, &pc->list, v, 0, 0);
			break;
		}
		c++;
	}
}
