/*
 * A filter's names bound to one source's event classes: which classes the
 * globs select, where each field the expression reads lies in each class
 * (scope, and its index in the scope's value array when the layout fixes
 * it), whether the comparisons are well typed, and what the expression
 * comes to for each class before any event is read (FV_NEVER classes can
 * be skipped by the readers).  All of it in arrays indexed by the source's
 * dense class numbers, read-only afterwards.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "mux/filter.h"
#include "tracemux/event.h"

/* A glob matches "system:event" whole or its "event" part. */
static bool glob_matches(const char *glob, const char *name)
{
	const char *colon = strchr(name, ':');

	return !fnmatch(glob, name, 0) || (colon && !fnmatch(glob, colon + 1, 0));
}

static const char *class_name(const struct tmx_event_class *ec)
{
	return ec->name ? ec->name : "";
}

static bool selected(const struct tmx_filter *f, const struct tmx_event_class *ec)
{
	if (!f->n_globs)
		return true;
	for (size_t g = 0; g < f->n_globs; g++)
		if (glob_matches(f->globs[g], class_name(ec)))
			return true;
	return false;
}

static enum ftype type_of_class(const struct tmx_field_class *fc)
{
	if (tmx_fc_is_text(fc))
		return FT_STRING;
	switch (tmx_fc_kind(fc)) {
	case TMX_FC_INT:
	case TMX_FC_BOOL:
		return FT_INT;
	case TMX_FC_BIT_ARRAY:
		return tmx_fc_mapping_count(fc) ? FT_ENUM : FT_INT;
	case TMX_FC_ENUM:
		return FT_ENUM;
	case TMX_FC_FLOAT:
		return FT_FLOAT;
	case TMX_FC_STRING:
		return FT_STRING;
	case TMX_FC_VARIANT:
	case TMX_FC_OPTIONAL:
		return FT_DYNAMIC;
	default:
		return FT_COMPOUND;
	}
}

/* The member of a structure class named by the first `len` bytes of `name`. */
static const struct tmx_field_class *member(const struct tmx_field_class *fc, const char *name,
					    size_t len, size_t *index)
{
	for (size_t m = 0; m < tmx_fc_member_count(fc); m++) {
		const char *mn = tmx_fc_member_name(fc, m);

		if (strlen(mn) == len && !strncmp(mn, name, len)) {
			*index = m;
			return tmx_fc_member_class(fc, m);
		}
	}
	return NULL;
}

/*
 * The type of the field at `path` below `fc`: through variants and
 * optionals it exists when one option has it, and its type is known only
 * per event.
 */
static enum ftype find(const struct tmx_field_class *fc, const char *path)
{
	const char *dot;
	size_t len, m;
	bool found = false;

	if (!*path)
		return type_of_class(fc);
	switch (tmx_fc_kind(fc)) {
	case TMX_FC_VARIANT:
		for (m = 0; m < tmx_fc_member_count(fc); m++)
			found |= find(tmx_fc_member_class(fc, m), path) != FT_MISSING;
		return found ? FT_DYNAMIC : FT_MISSING;
	case TMX_FC_OPTIONAL:
		return find(tmx_fc_element(fc), path) != FT_MISSING ? FT_DYNAMIC : FT_MISSING;
	case TMX_FC_STRUCT:
		dot = strchr(path, '.');
		len = dot ? (size_t)(dot - path) : strlen(path);
		fc = member(fc, path, len, &m);
		return fc ? find(fc, path + len + (dot != NULL)) : FT_MISSING;
	default:
		return FT_MISSING;
	}
}

/* Values a field of class fc takes in a value array, when that never changes. */
static size_t subtree_size(const struct tmx_field_class *fc)
{
	size_t n = 1, e;

	if (tmx_fc_is_text(fc))
		return 1;
	switch (tmx_fc_kind(fc)) {
	case TMX_FC_STRUCT:
		for (size_t m = 0; m < tmx_fc_member_count(fc) && n != SIZE_MAX; m++) {
			e = subtree_size(tmx_fc_member_class(fc, m));
			n = e == SIZE_MAX || e > SIZE_MAX / 2 - n ? SIZE_MAX : n + e;
		}
		return n;
	case TMX_FC_ARRAY:
		e = subtree_size(tmx_fc_element(fc));
		if (e == SIZE_MAX || (tmx_fc_length(fc) && e > (SIZE_MAX / 2) / tmx_fc_length(fc)))
			return SIZE_MAX;
		return 1 + e * (size_t)tmx_fc_length(fc);
	case TMX_FC_SEQUENCE:
	case TMX_FC_VARIANT:
	case TMX_FC_OPTIONAL:
		return SIZE_MAX;
	default:
		return 1;
	}
}

/*
 * Index of the value at `path` in the scope's pre-order array when only
 * structures and fixed-size fields lead to it, else SIZE_MAX; *out_fc its class.
 */
static size_t fixed_index(const struct tmx_field_class *fc, const char *path,
			  const struct tmx_field_class **out_fc)
{
	size_t at = 0;

	while (*path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path), m;
		const struct tmx_field_class *next;

		if (tmx_fc_kind(fc) != TMX_FC_STRUCT || !(next = member(fc, path, len, &m)))
			return SIZE_MAX;
		at++;
		for (size_t i = 0; i < m; i++) {
			size_t n = subtree_size(tmx_fc_member_class(fc, i));

			if (n == SIZE_MAX || n > SIZE_MAX / 2 - at)
				return SIZE_MAX;
			at += n;
		}
		fc = next;
		path += len + (dot != NULL);
	}
	*out_fc = fc;
	return at;
}

static const struct tmx_field_class *scope_class(const struct tmx_event_class *ec,
						 enum tmx_scope scope)
{
	switch (scope) {
	case TMX_SCOPE_PAYLOAD: return ec->payload;
	case TMX_SCOPE_SPECIFIC_CONTEXT: return ec->specific_context;
	case TMX_SCOPE_COMMON_CONTEXT: return ec->stream_class->event_common_context;
	case TMX_SCOPE_PACKET_CONTEXT: return ec->stream_class->packet_context;
	default: return NULL;
	}
}

/* `path` in `scope` of `ec`, if there. */
static bool bind_in(const struct tmx_event_class *ec, enum tmx_scope scope, const char *path,
		    struct fbound_ref *r)
{
	const struct tmx_field_class *fc = scope_class(ec, scope);
	enum ftype t = fc ? find(fc, path) : FT_MISSING;

	if (t == FT_MISSING)
		return false;
	*r = (struct fbound_ref){ .type = (uint8_t)t, .scope = (uint8_t)scope, .path = path };
	r->index = fixed_index(fc, path, &r->fc);
	if (r->index != SIZE_MAX && (t == FT_INT || t == FT_ENUM))
		r->read = tmx_fc_is_signed(r->fc) ? FR_SIGNED : FR_UNSIGNED;
	else if (r->index != SIZE_MAX && t == FT_FLOAT)
		r->read = FR_DOUBLE;
	return true;
}

/* A field by name: payload, specific context, common context, packet context. */
static void bind_field(const struct tmx_event_class *ec, const char *path, struct fbound_ref *r)
{
	static const enum tmx_scope order[] = { TMX_SCOPE_PAYLOAD, TMX_SCOPE_SPECIFIC_CONTEXT,
						TMX_SCOPE_COMMON_CONTEXT, TMX_SCOPE_PACKET_CONTEXT };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (bind_in(ec, order[i], path, r))
			return;
}

/*
 * $cpu: the field tmx_stream_class_cpu_field names (one rule with the
 * Parquet column and the Python package).  $pid, $tid: the first of their
 * names that a context of the class has as an integer (LTTng's vpid/vtid
 * or pid/tid contexts, trace.dat's common_pid, XRay's pid, tid).
 */
static const char *const *id_names(enum fspecial s)
{
	static const char *const pid[] = { "vpid", "pid", "common_pid", NULL };
	static const char *const tid[] = { "vtid", "tid", "common_pid", NULL };

	return s == FS_PID ? pid : tid;
}

static void bind_special(const struct tmx_event_class *ec, enum fspecial s, struct fbound_ref *r)
{
	static const enum tmx_scope order[] = { TMX_SCOPE_COMMON_CONTEXT, TMX_SCOPE_SPECIFIC_CONTEXT,
						TMX_SCOPE_PACKET_CONTEXT };
	enum tmx_scope scope;
	const char *cpu;

	if (s == FS_CPU) {
		if ((cpu = tmx_stream_class_cpu_field(ec->stream_class, &scope)))
			bind_in(ec, scope, cpu, r);
		return;
	}
	for (const char *const *name = id_names(s); *name; name++)
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
			if (bind_in(ec, order[i], *name, r)) {
				if (r->type == FT_INT || r->type == FT_ENUM || r->type == FT_DYNAMIC)
					return;
				*r = (struct fbound_ref){ 0 };
			}
}

static int ref_error(const struct fref *ref, struct tmx_error *err, const char *fmt,
		     const char *a, const char *b)
{
	char what[TMX_ERROR_MSG_MAX - 32];

	snprintf(what, sizeof(what), fmt, a, b);
	return tmx_error_at_line(err, TMX_ERR_USAGE, NULL, ref->line, ref->col, "%u:%u: %s",
				 (unsigned)ref->line, (unsigned)ref->col, what);
}

/* Every reference must exist in at least one selected class. */
static int check_refs_exist(const struct tmx_filter_bound *b, struct tmx_error *err)
{
	const struct tmx_filter *f = b->f;

	for (size_t r = 0; r < f->n_refs; r++) {
		bool found = false;

		for (size_t ci = 0; ci < b->n_classes && !found; ci++)
			found = b->verdict[ci] && b->refs[ci * f->n_refs + r].type != FT_MISSING;
		if (found)
			continue;
		if (f->refs[r].special == FS_NONE)
			return ref_error(&f->refs[r], err, "unknown field '%s': no selected event class "
					 "has it%s", f->refs[r].path, "");
		return ref_error(&f->refs[r], err, "%s is not known for the selected event classes "
				 "(they have no %s context field)", f->refs[r].path,
				 f->refs[r].special == FS_CPU ? "packet context cpu_id (XRay: cpu)"
				 : f->refs[r].special == FS_PID ? "vpid, pid or common_pid"
								: "vtid, tid or common_pid");
	}
	return TMX_OK;
}

/* The type an operand has in class ci (literals and specials included). */
static enum ftype operand_type(const struct tmx_filter_bound *b, size_t ci,
			       const struct foperand *o)
{
	switch (o->kind) {
	case OPD_INT:
	case OPD_TS:
		return FT_INT;
	case OPD_FLOAT:
		return FT_FLOAT;
	case OPD_STRING:
	case OPD_NAME:
		return FT_STRING;
	case OPD_FIELD:
		return (enum ftype)b->refs[ci * b->f->n_refs + o->ref].type;
	}
	return FT_MISSING;
}

static const char *type_name(enum ftype t)
{
	switch (t) {
	case FT_INT: return "an integer";
	case FT_FLOAT: return "a floating-point number";
	case FT_STRING: return "a string";
	case FT_ENUM: return "an enumeration";
	default: return "a structure, an array or a BLOB";
	}
}

static bool numeric(enum ftype t)
{
	return t == FT_INT || t == FT_FLOAT;
}

/* An error at an operand's place in the expression. */
static int opd_error(const struct foperand *o, struct tmx_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int opd_error(const struct foperand *o, struct tmx_error *err, const char *fmt, ...)
{
	char what[TMX_ERROR_MSG_MAX - 32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tmx_error_at_line(err, TMX_ERR_USAGE, NULL, o->line, o->col, "%u:%u: %s",
				 (unsigned)o->line, (unsigned)o->col, what);
}

/* How an error names an operand: a field's path, a special; NULL for a literal. */
static const char *opd_name(const struct tmx_filter *f, const struct foperand *o)
{
	switch (o->kind) {
	case OPD_FIELD: return f->refs[o->ref].path;
	case OPD_NAME: return "$name";
	case OPD_TS: return "$ts";
	default: return NULL;
	}
}

/* A comparison in one class: both sides comparable, regexes on text. */
static int check_cmp(const struct tmx_filter_bound *b, size_t ci, const struct fnode *n,
		     struct tmx_error *err)
{
	const struct tmx_filter *f = b->f;
	const struct foperand *side[2] = { &n->l, &n->r }, *named;
	enum ftype type[2] = { operand_type(b, ci, &n->l), operand_type(b, ci, &n->r) };
	const char *cls = class_name(b->cls[ci]);
	int i;

	if (type[0] == FT_MISSING || type[1] == FT_MISSING)
		return TMX_OK;   /* never true in this class */
	for (i = 0; i < 2; i++)
		if (type[i] == FT_COMPOUND)
			return opd_error(side[i], err, "'%s' is a structure, an array or a BLOB in event "
					 "class '%s': it cannot be compared (name one of its members)",
					 opd_name(f, side[i]), cls);
	if (n->op == OP_MATCH || n->op == OP_NOMATCH) {
		if (numeric(type[0]))
			return opd_error(&n->l, err, "'%s' is a number in event class '%s': it cannot be "
					 "matched with a regular expression", opd_name(f, &n->l), cls);
		return TMX_OK;
	}
	if (!(numeric(type[0]) && type[1] == FT_STRING) && !(type[0] == FT_STRING && numeric(type[1])))
		return TMX_OK;
	/* Name a field first, then a special; two literals are named by their types. */
	i = n->l.kind == OPD_FIELD ? 0 : n->r.kind == OPD_FIELD ? 1 : opd_name(f, &n->l) ? 0 : 1;
	named = side[i];
	if (!opd_name(f, named))
		return opd_error(&n->l, err, "cannot compare %s with %s", type_name(type[0]),
				 type_name(type[1]));
	return opd_error(named, err, "cannot compare '%s' (%s in event class '%s') with %s",
			 opd_name(f, named), type_name(type[i]), cls, type_name(type[1 - i]));
}

static int check_types(const struct tmx_filter_bound *b, struct tmx_error *err)
{
	const struct tmx_filter *f = b->f;

	for (size_t ci = 0; ci < b->n_classes; ci++) {
		if (!b->verdict[ci])
			continue;
		for (size_t i = 0; i < f->n_nodes; i++) {
			int ret;

			if (f->nodes[i].kind == FN_CMP && (ret = check_cmp(b, ci, &f->nodes[i], err)))
				return ret;
		}
	}
	return TMX_OK;
}

/* Every glob selects at least one class: a typo would silently select nothing. */
static int check_globs(const struct tmx_filter_bound *b, struct tmx_error *err)
{
	for (size_t g = 0; g < b->f->n_globs; g++) {
		bool any = false;

		for (size_t ci = 0; ci < b->n_classes && !any; ci++)
			any = glob_matches(b->f->globs[g], class_name(b->cls[ci]));
		if (!any)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "event class pattern '%s' matches no event class",
					     b->f->globs[g]);
	}
	return TMX_OK;
}

static int bind_classes(struct tmx_filter_bound *b, struct tmx_error *err)
{
	const struct tmx_filter *f = b->f;
	int ret;

	for (size_t ci = 0; ci < b->n_classes; ci++) {
		b->cls[ci] = b->classes->dense[ci];
		b->verdict[ci] = selected(f, b->cls[ci]) ? FV_EVALUATE : FV_NEVER;
		for (size_t r = 0; r < f->n_refs; r++) {
			struct fbound_ref *br = &b->refs[ci * f->n_refs + r];

			*br = (struct fbound_ref){ 0 };
			if (f->refs[r].special != FS_NONE)
				bind_special(b->cls[ci], f->refs[r].special, br);
			else
				bind_field(b->cls[ci], f->refs[r].path, br);
		}
	}
	if ((ret = check_globs(b, err)) || (ret = check_refs_exist(b, err)) ||
	    (ret = check_types(b, err)))
		return ret;
	/* What each selected class comes to before reading any event. */
	for (size_t ci = 0; ci < b->n_classes; ci++) {
		enum ftri t;

		if (!b->verdict[ci])
			continue;
		t = f->has_expr ? tmx_filter_eval(b, ci, NULL) : TRI_TRUE;
		b->verdict[ci] = t == TRI_FALSE ? FV_NEVER : t == TRI_TRUE ? FV_ALWAYS : FV_EVALUATE;
	}
	return TMX_OK;
}

int tmx_filter_bind(const struct tmx_filter *f, const struct ptr_index *classes,
		    struct tmx_filter_bound **out, struct tmx_error *err)
{
	struct tmx_filter_bound *b = calloc(1, sizeof(*b));
	size_t n = classes->n;
	int ret;

	*out = NULL;
	if (!b)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	*b = (struct tmx_filter_bound){ .f = f, .classes = classes, .n_classes = n };
	b->cls = calloc(n ? n : 1, sizeof(*b->cls));
	b->verdict = calloc(n ? n : 1, 1);
	if (f->n_refs && n && n > SIZE_MAX / sizeof(*b->refs) / f->n_refs)
		b->refs = NULL;
	else
		b->refs = calloc(n && f->n_refs ? n * f->n_refs : 1, sizeof(*b->refs));
	if (!b->cls || !b->verdict || !b->refs) {
		tmx_filter_bound_free(b);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	if ((ret = bind_classes(b, err))) {
		tmx_filter_bound_free(b);
		return ret;
	}
	*out = b;
	return TMX_OK;
}

void tmx_filter_bound_free(struct tmx_filter_bound *b)
{
	if (!b)
		return;
	free(b->cls);
	free(b->verdict);
	free(b->refs);
	free(b);
}
