/*
 * The match of one event (filter.h): the expression evaluated on the
 * event's values, with what was bound per class.  Nothing here writes
 * anything but the stack, so that worker threads can match events of
 * their streams at the same time.  The same evaluator runs at bind time
 * without an event: comparisons that need one are then unknown, and the
 * three-valued result says whether a class can match at all.
 */
#include <string.h>

#include "mux/filter.h"
#include "tracemux/event.h"

/* A comparison's side, read. */
struct rval {
	enum { RV_NONE, RV_UNKNOWN, RV_INT, RV_FLOAT, RV_STR } kind;
	struct fint i;
	double d;
	const char *s;
	size_t len;
	const struct tmx_value *v;   /* a field's value: enumerations give their label */
};

static struct fint from_int64(int64_t v)
{
	return v < 0 ? (struct fint){ true, (uint64_t)0 - (uint64_t)v } : (struct fint){ false, (uint64_t)v };
}

static const struct tmx_value *field_value(const struct fbound_ref *r, const struct tmx_event *ev)
{
	const struct tmx_value *root = ev->scopes[r->scope];

	if (!root)
		return NULL;
	/* The index is the layout's; the class check guards it anyway. */
	if (r->index != SIZE_MAX && root[r->index].fc == r->fc)
		return &root[r->index];
	return tmx_event_field_in(ev, (enum tmx_scope)r->scope, r->path);
}

/* The value at the bound index when it is there (the same class as at bind time). */
static const struct tmx_value *fixed_value(const struct fbound_ref *r, const struct tmx_event *ev)
{
	const struct tmx_value *root = ev->scopes[r->scope];

	return root && root[r->index].fc == r->fc ? &root[r->index] : NULL;
}

/* A plain number whose class was known at bind time: no type questions. */
static void read_fixed(const struct fbound_ref *r, const struct tmx_value *v, struct rval *out)
{
	out->v = v;
	if (r->read == FR_DOUBLE) {
		out->kind = RV_FLOAT;
		out->d = v->d;
	} else {
		out->kind = RV_INT;
		out->i = r->read == FR_SIGNED ? from_int64(v->s) : (struct fint){ false, v->u };
	}
}

/* A value as a number or a string, whatever its field class. */
static void read_value(const struct tmx_value *v, struct rval *out)
{
	int64_t s;
	uint64_t u;

	out->v = v;
	switch (tmx_value_type(v)) {
	case TMX_TYPE_SIGNED:
		tmx_value_int64(v, &s);
		out->kind = RV_INT;
		out->i = from_int64(s);
		break;
	case TMX_TYPE_UNSIGNED:
	case TMX_TYPE_BOOL:
		tmx_value_uint64(v, &u);
		out->kind = RV_INT;
		out->i = (struct fint){ false, u };
		break;
	case TMX_TYPE_DOUBLE:
		tmx_value_double(v, &out->d);
		out->kind = RV_FLOAT;
		break;
	case TMX_TYPE_STRING:
		out->s = tmx_value_text(v, &out->len);
		out->kind = RV_STR;
		break;
	default:
		out->kind = RV_NONE;
	}
}

static struct rval operand(const struct tmx_filter_bound *b, size_t ci, const struct foperand *o,
			   const struct tmx_msg *msg)
{
	struct rval r = { .kind = RV_UNKNOWN };
	const struct fbound_ref *br;
	const struct tmx_value *v;

	switch (o->kind) {
	case OPD_INT:
		r.kind = RV_INT;
		r.i = o->i;
		break;
	case OPD_FLOAT:
		r.kind = RV_FLOAT;
		r.d = o->d;
		break;
	case OPD_STRING:
		r.kind = RV_STR;
		r.s = o->str.ptr;
		r.len = o->str.len;
		break;
	case OPD_NAME:
		r.kind = RV_STR;
		r.s = b->cls[ci]->name ? b->cls[ci]->name : "";
		r.len = strlen(r.s);
		break;
	case OPD_TS:
		if (msg) {
			r.kind = msg->has_ts ? RV_INT : RV_NONE;
			r.i = from_int64(msg->ns);
		}
		break;
	case OPD_FIELD:
		br = &b->refs[ci * b->f->n_refs + o->ref];
		if (br->type == FT_MISSING)
			r.kind = RV_NONE;
		else if (msg && br->read && (v = fixed_value(br, msg->event)))
			read_fixed(br, v, &r);
		else if (msg && (v = field_value(br, msg->event)))
			read_value(v, &r);
		else if (msg)
			r.kind = RV_NONE;
		break;
	}
	return r;
}

/* An enumeration compared with text: its label (none: no match). */
static void as_label(struct rval *r)
{
	const char *label;

	if (r->kind != RV_INT)
		return;
	label = r->v ? tmx_value_label(r->v) : NULL;
	if (!label) {
		r->kind = RV_NONE;
		return;
	}
	r->kind = RV_STR;
	r->s = label;
	r->len = strlen(label);
}

static int cmp_int(struct fint a, struct fint b)
{
	if (a.neg != b.neg)
		return a.neg ? -1 : 1;
	if (a.mag == b.mag)
		return 0;
	return (a.mag < b.mag) != a.neg ? -1 : 1;
}

static double to_double(const struct rval *r)
{
	if (r->kind == RV_FLOAT)
		return r->d;
	return r->i.neg ? -(double)r->i.mag : (double)r->i.mag;
}

static int cmp_str(const struct rval *a, const struct rval *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = n ? memcmp(a->s, b->s, n) : 0;

	if (c)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

static bool order_holds(enum fop op, int c)
{
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	case OP_GE: return c >= 0;
	default: return false;
	}
}

static bool float_holds(enum fop op, double a, double b)
{
	switch (op) {
	case OP_EQ: return a == b;
	case OP_NE: return a != b;
	case OP_LT: return a < b;
	case OP_LE: return a <= b;
	case OP_GT: return a > b;
	case OP_GE: return a >= b;
	default: return false;
	}
}

/* glibc's REG_STARTEND: the text need not end with a NUL (it points into the trace). */
static bool regex_matches(const regex_t *re, const struct rval *r)
{
	regmatch_t m = { .rm_so = 0, .rm_eo = (regoff_t)r->len };

	return regexec(re, r->s, 1, &m, REG_STARTEND) == 0;
}

static enum ftri compare(const struct tmx_filter_bound *b, size_t ci, const struct fnode *n,
			 const struct tmx_msg *msg)
{
	struct rval l = operand(b, ci, &n->l, msg), r = operand(b, ci, &n->r, msg);

	if (l.kind == RV_NONE || r.kind == RV_NONE)
		return TRI_FALSE;   /* a missing field matches nothing */
	if (l.kind == RV_UNKNOWN || r.kind == RV_UNKNOWN)
		return TRI_UNKNOWN;
	if (n->op == OP_MATCH || n->op == OP_NOMATCH) {
		as_label(&l);
		if (l.kind != RV_STR)
			return TRI_FALSE;
		return regex_matches(n->re, &l) == (n->op == OP_MATCH) ? TRI_TRUE : TRI_FALSE;
	}
	if (l.kind == RV_STR)
		as_label(&r);
	else if (r.kind == RV_STR)
		as_label(&l);
	if (l.kind == RV_STR && r.kind == RV_STR)
		return (enum ftri)order_holds(n->op, cmp_str(&l, &r));
	if (l.kind == RV_STR || r.kind == RV_STR)
		return TRI_FALSE;   /* a variant's option of another type */
	if (l.kind == RV_INT && r.kind == RV_INT)
		return (enum ftri)order_holds(n->op, cmp_int(l.i, r.i));
	return (enum ftri)float_holds(n->op, to_double(&l), to_double(&r));
}

static enum ftri eval_node(const struct tmx_filter_bound *b, size_t ci, size_t at,
			   const struct tmx_msg *msg)
{
	const struct fnode *n = &b->f->nodes[at];
	enum ftri x, y;

	switch (n->kind) {
	case FN_NOT:
		x = eval_node(b, ci, n->a, msg);
		return x == TRI_UNKNOWN ? x : (enum ftri)(x == TRI_FALSE);
	case FN_AND:
		if ((x = eval_node(b, ci, n->a, msg)) == TRI_FALSE)
			return x;
		y = eval_node(b, ci, n->b, msg);
		return y == TRI_FALSE ? y : x == TRI_UNKNOWN ? x : y;
	case FN_OR:
		if ((x = eval_node(b, ci, n->a, msg)) == TRI_TRUE)
			return x;
		y = eval_node(b, ci, n->b, msg);
		return y == TRI_TRUE ? y : x == TRI_UNKNOWN ? x : y;
	case FN_CMP:
		return compare(b, ci, n, msg);
	}
	return TRI_FALSE;
}

enum ftri tmx_filter_eval(const struct tmx_filter_bound *b, size_t ci, const struct tmx_msg *msg)
{
	return b->f->has_expr ? eval_node(b, ci, b->f->root, msg) : TRI_TRUE;
}

bool tmx_filter_match(const struct tmx_filter_bound *b, const struct tmx_msg *msg)
{
	size_t ci;

	if (msg->kind != TMX_MSG_EVENT)
		return true;
	ci = tmx_filter_class_number(b, msg->event->cls);
	if (ci >= b->n_classes || b->verdict[ci] == FV_NEVER)
		return false;
	return b->verdict[ci] == FV_ALWAYS || tmx_filter_eval(b, ci, msg) == TRI_TRUE;
}
