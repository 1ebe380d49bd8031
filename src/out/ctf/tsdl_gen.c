/*
 * The CTF writer's plan and TSDL metadata, generated from the model.
 *
 * Names follow babeltrace2's sink.ctf.fs, so that a trace read back shows
 * the same names: every structure member gets a leading `_` (TSDL's escape,
 * which readers remove); a variant option keeps the name that makes it
 * match its tag's label (`_` added when the option is a keyword or starts
 * with `_`, or when the label has one more `_`).  When the option names
 * cannot match the labels, or when a sequence length or variant tag cannot
 * be named in TSDL (it lives in a scope the writer replaces, or behind an
 * array), the writer generates its own length (32-bit) or tag (16-bit
 * enumeration) just before the field, again as babeltrace2 does.
 *
 * References are written as babeltrace2 writes them: the target's name
 * alone when looking it up from the field outwards finds it, else an
 * absolute path (`event.fields._a._b`).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/ctf/plan.h"

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

static const char *const tsdl_keywords[] = {
	"align", "callsite", "const", "char", "clock", "double", "enum", "env", "event",
	"floating_point", "float", "integer", "int", "long", "short", "signed", "stream",
	"string", "struct", "trace", "typealias", "typedef", "unsigned", "variant", "void",
	"_Bool", "_Complex", "_Imaginary",
};

static bool is_keyword(const char *name)
{
	for (size_t i = 0; i < sizeof(tsdl_keywords) / sizeof(tsdl_keywords[0]); i++)
		if (!strcmp(name, tsdl_keywords[i]))
			return true;
	return false;
}

static bool ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

bool cw_is_identifier(const char *name)
{
	if (!name[0] || is_keyword(name))
		return false;
	for (const char *c = name; *c; c++)
		if (!ident_char(*c, c == name))
			return false;
	return true;
}

bool cw_must_protect(const char *name)
{
	return name[0] == '_' || is_keyword(name);
}

/* Copies `name` with every character an identifier cannot hold made `_`. */
static void sanitize(const char *name, char *out, size_t size)
{
	size_t n = 0;

	for (const char *c = name; *c && n + 1 < size; c++)
		out[n++] = ident_char(*c, false) ? *c : '_';
	out[n] = '\0';
}

void cw_member_name(const char *name, char *out, size_t size)
{
	if (size < 2) {
		if (size)
			out[0] = '\0';
		return;
	}
	out[0] = '_';
	sanitize(name, out + 1, size - 1);
}

/* ------------------------------------------------------------------ */
/* A growable string for the metadata text                              */
/* ------------------------------------------------------------------ */

struct sbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void sb_grow(struct sbuf *b, size_t more)
{
	size_t cap;
	char *s;

	if (b->oom || b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return;
	}
	b->s = s;
	b->cap = cap;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	if (b->oom)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		sb_put(b, tmp, (size_t)n);
		return;
	}
	sb_grow(b, (size_t)n);
	if (b->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void sb_indent(struct sbuf *b, int level)
{
	for (int i = 0; i < level; i++)
		sb_put(b, "\t", 1);
}

/* A TSDL string literal (babeltrace2's escapes). */
static void sb_quoted(struct sbuf *b, const char *s)
{
	sb_put(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '\a': sb_puts(b, "\\a"); break;
		case '\b': sb_puts(b, "\\b"); break;
		case '\f': sb_puts(b, "\\f"); break;
		case '\n': sb_puts(b, "\\n"); break;
		case '\r': sb_puts(b, "\\r"); break;
		case '\t': sb_puts(b, "\\t"); break;
		case '\v': sb_puts(b, "\\v"); break;
		case '"': sb_puts(b, "\\\""); break;
		case '\\': sb_puts(b, "\\\\"); break;
		default:
			if (*c < 32 || *c >= 127)
				sb_printf(b, "\\x%02x", *c);
			else
				sb_put(b, (const char *)c, 1);
		}
	}
	sb_put(b, "\"", 1);
}

/* ------------------------------------------------------------------ */
/* Plan nodes                                                           */
/* ------------------------------------------------------------------ */

struct builder {
	struct cw_trace_plan *p;
	struct tmx_error *err;
};

static char *arena_name(struct builder *bd, const char *s)
{
	return tmx_arena_strdup(&bd->p->arena, s);
}

static char *member_name(struct builder *bd, const char *name)
{
	size_t n = strlen(name) + 2;
	char *out = tmx_arena_alloc(&bd->p->arena, n);

	if (out)
		cw_member_name(name, out, n);
	return out;
}

static int nomem(struct builder *bd)
{
	return tmx_error_set(bd->err, TMX_ERR_NOMEM, NULL, "out of memory");
}

static int build_node(struct builder *bd, struct cw_node *n, const struct tmx_field_class *fc,
		      unsigned depth);

static int build_children(struct builder *bd, struct cw_node *n, const struct tmx_field_class *fc,
			  unsigned depth)
{
	n->n_children = fc->n_members;
	if (!fc->n_members)
		return TMX_OK;
	n->children = tmx_arena_calloc(&bd->p->arena, fc->n_members, sizeof(*n->children));
	if (!n->children)
		return nomem(bd);
	for (size_t i = 0; i < fc->n_members; i++) {
		struct cw_node *c = &n->children[i];
		int ret = build_node(bd, c, fc->members[i].fc, depth + 1);
		if (ret)
			return ret;
		/* Struct members: always escaped; variant options: named later. */
		c->name = fc->kind == TMX_FC_STRUCT ? member_name(bd, fc->members[i].name) :
						      arena_name(bd, fc->members[i].name);
		if (!c->name)
			return nomem(bd);
	}
	return TMX_OK;
}

static int build_node(struct builder *bd, struct cw_node *n, const struct tmx_field_class *fc,
		      unsigned depth)
{
	/* The model's readers bound nesting; this only guards the recursion. */
	if (depth > 256)
		return tmx_error_set(bd->err, TMX_ERR_LIMIT, NULL,
				     "CTF writer: field classes nested too deeply");
	n->fc = fc;
	n->align = fc->align ? fc->align : 1;
	n->big_endian = fc->byte_order == TMX_BO_BE;
	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		if (fc->size < 1 || fc->size > 64)
			return tmx_error_set(bd->err, TMX_ERR_UNSUPPORTED, NULL,
					     "CTF writer: %u-bit integer", fc->size);
		n->op = CW_INT;
		n->size = fc->size;
		return TMX_OK;
	case TMX_FC_FLOAT:
		if (fc->size != 32 && fc->size != 64)
			return tmx_error_set(bd->err, TMX_ERR_UNSUPPORTED, NULL,
					     "CTF writer: %u-bit floating point number", fc->size);
		n->op = CW_FLOAT;
		n->size = fc->size;
		return TMX_OK;
	case TMX_FC_STRING:
		n->op = CW_STRING;
		if (n->align < 8)
			n->align = 8;
		return TMX_OK;
	case TMX_FC_STRUCT:
	case TMX_FC_VARIANT: {
		int ret;
		n->op = fc->kind == TMX_FC_STRUCT ? CW_STRUCT : CW_VARIANT;
		ret = build_children(bd, n, fc, depth);
		/*
		 * The alignment written (`align(N)`) is at least every member's
		 * (every option's, for a variant in a structure), whatever the
		 * model says: a TSDL reader aligns a structure to the largest of
		 * both, so the encoder must too.
		 */
		for (size_t i = 0; i < n->n_children; i++)
			if (n->children[i].align > n->align)
				n->align = n->children[i].align;
		return ret;
	}
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (!fc->elem)
			return tmx_error_set(bd->err, TMX_ERR_UNSUPPORTED, NULL,
					     "CTF writer: array without an element class");
		if (fc->kind == TMX_FC_ARRAY) {
			n->op = fc->is_text ? CW_TEXT_ARRAY : CW_ARRAY;
			n->length = fc->length;
		} else {
			n->op = fc->is_text ? CW_TEXT_SEQ : CW_SEQUENCE;
		}
		/* Text is written byte by byte: its elements are 8-bit and aligned. */
		if (fc->is_text && (fc->elem->size != 8 || fc->elem->align % 8 ||
				    (fc->elem->kind != TMX_FC_INT && fc->elem->kind != TMX_FC_ENUM)))
			n->op = fc->kind == TMX_FC_ARRAY ? CW_ARRAY : CW_SEQUENCE;
		n->n_children = 1;
		n->children = tmx_arena_calloc(&bd->p->arena, 1, sizeof(*n->children));
		if (!n->children)
			return nomem(bd);
		{
			int ret = build_node(bd, n->children, fc->elem, depth + 1);
			/* TSDL: an array is aligned as its element, even when empty. */
			n->align = n->children->align;
			return ret;
		}
	}
	return tmx_error_set(bd->err, TMX_ERR_UNSUPPORTED, NULL, "CTF writer: unknown field class");
}

static int build_root(struct builder *bd, struct cw_node **out, const struct tmx_field_class *fc,
		      const char *scope)
{
	*out = NULL;
	if (!fc)
		return TMX_OK;
	if (fc->kind != TMX_FC_STRUCT)
		return tmx_error_set(bd->err, TMX_ERR_UNSUPPORTED, NULL,
				     "CTF writer: the %s is not a structure", scope);
	*out = tmx_arena_calloc(&bd->p->arena, 1, sizeof(**out));
	if (!*out)
		return nomem(bd);
	return build_node(bd, *out, fc, 0);
}

/* ------------------------------------------------------------------ */
/* References: sequence lengths and variant tags                        */
/* ------------------------------------------------------------------ */

enum { SCOPE_PACKET_CONTEXT, SCOPE_COMMON_CONTEXT, SCOPE_SPECIFIC_CONTEXT, SCOPE_PAYLOAD,
       N_SCOPES };

static const char *const scope_prefix[N_SCOPES] = {
	"stream.packet.context", "stream.event.context", "event.context", "event.fields",
};

#define MAX_DEPTH 258

struct path {
	size_t n;
	struct cw_node *nodes[MAX_DEPTH];   /* root first */
};

struct resolver {
	struct builder *bd;
	struct cw_node *roots[N_SCOPES];
	int scope;                           /* the scope being resolved */
	struct path stack;                   /* ancestors of the current node */
};

static bool is_target(const struct cw_node *n, const struct tmx_field_class *want_fc,
		      int32_t want_slot)
{
	return want_fc ? n->fc == want_fc : (n->fc->slot >= 0 && n->fc->slot == want_slot);
}

/* Depth-first search for the target; fills `path` (root first) when found. */
static bool find(struct cw_node *n, const struct tmx_field_class *want_fc, int32_t want_slot,
		 struct path *path)
{
	if (path->n >= MAX_DEPTH)
		return false;
	path->nodes[path->n++] = n;
	if (is_target(n, want_fc, want_slot))
		return true;
	for (size_t i = 0; i < n->n_children; i++)
		if (find(&n->children[i], want_fc, want_slot, path))
			return true;
	path->n--;
	return false;
}

/* babeltrace2's relative reference: the target's name alone. */
static bool relative_ref(struct resolver *r, const struct path *target, const char **ref)
{
	const struct cw_node *t = target->nodes[target->n - 1];

	if (!t->name || t->skip || target->n < 2)
		return false;
	for (size_t si = r->stack.n; si-- > 0;) {
		const struct cw_node *a = r->stack.nodes[si];
		if (a->op == CW_ARRAY || a->op == CW_SEQUENCE)
			continue;
		/* Options of a variant are not fields a name can find (see absolute_ref()). */
		if (a->op != CW_STRUCT)
			return false;
		for (size_t i = 0; i < a->n_children; i++) {
			if (a->children[i].name && !strcmp(a->children[i].name, t->name)) {
				if (&a->children[i] != t)
					return false;
				*ref = t->name;
				return true;
			}
		}
	}
	return false;
}

static bool absolute_ref(struct resolver *r, int scope, const struct path *target, char **ref)
{
	struct sbuf b = { 0 };

	sb_puts(&b, scope_prefix[scope]);
	for (size_t i = 1; i < target->n; i++) {
		const struct cw_node *parent = target->nodes[i - 1], *n = target->nodes[i];
		/*
		 * Through structure members only: a path through a variant
		 * option names a field that exists only when that option is
		 * selected, which TSDL readers (babeltrace2, tracemux) refuse.
		 */
		if (parent->op != CW_STRUCT || n->skip || !n->name) {
			free(b.s);
			return false;
		}
		sb_put(&b, ".", 1);
		sb_puts(&b, n->name);
	}
	if (b.oom) {
		free(b.s);
		return false;
	}
	*ref = arena_name(r->bd, b.s);
	free(b.s);
	return *ref != NULL;
}

/* Names the length/tag of `n` (a sequence or variant), or asks for a generated one. */
static int resolve_ref(struct resolver *r, struct cw_node *n, const struct tmx_field_class *want_fc,
		       int32_t want_slot)
{
	struct path *target = malloc(sizeof(*target));
	const char *rel;
	char *abs;
	int ret = TMX_OK;

	if (!target)
		return nomem(r->bd);
	for (int s = 0; s <= r->scope; s++) {
		target->n = 0;
		if (!r->roots[s] || !find(r->roots[s], want_fc, want_slot, target))
			continue;
		if (target->nodes[target->n - 1]->op != CW_INT)
			break;
		if (s == r->scope && relative_ref(r, target, &rel)) {
			n->ref = (char *)rel;
			goto out;
		}
		if (absolute_ref(r, s, target, &abs)) {
			n->ref = abs;
			goto out;
		}
		break;
	}
	n->gen_before = true;
out:
	free(target);
	return ret;
}

/* The option names of a variant whose tag the model names. */
static bool name_options_from_tag(struct resolver *r, struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc, *tag = fc->tag;

	if (!tag || !fc->option_for_mapping || tag->n_mappings != fc->n_members)
		return false;
	for (size_t o = 0; o < fc->n_members; o++) {
		const char *opt = fc->members[o].name, *label = NULL;
		size_t hits = 0;
		char *name;

		for (size_t m = 0; m < tag->n_mappings; m++) {
			if (fc->option_for_mapping[m] == (int32_t)o) {
				label = tag->mappings[m].label;
				hits++;
			}
		}
		if (hits != 1)
			return false;
		/* babeltrace2: the (protected) option name must equal the label. */
		if (cw_must_protect(opt)) {
			if (label[0] != '_' || strcmp(label + 1, opt))
				return false;
		} else if (strcmp(label, opt) &&
			   (label[0] != '_' || strcmp(label + 1, opt))) {
			return false;
		}
		if (!cw_is_identifier(label))
			return false;
		name = arena_name(r->bd, label);
		if (!name)
			return false;
		n->children[o].name = name;
	}
	return true;
}

/* Generated tag: options named as babeltrace2 protects them, made unique. */
static int name_options_generated(struct resolver *r, struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc;

	for (size_t o = 0; o < fc->n_members; o++) {
		const char *opt = fc->members[o].name;
		size_t len = strlen(opt) + 24;
		char *name = tmx_arena_alloc(&r->bd->p->arena, len);
		bool clash;

		if (!name)
			return nomem(r->bd);
		if (cw_must_protect(opt) || !cw_is_identifier(opt))
			cw_member_name(opt, name, len);
		else
			snprintf(name, len, "%s", opt);
		do {
			clash = false;
			for (size_t i = 0; i < o && !clash; i++)
				clash = !strcmp(n->children[i].name, name);
			if (clash) {
				size_t l = strlen(name);
				snprintf(name + l, len - l, "_%zu", o);
			}
		} while (clash && strlen(name) + 8 < len);
		n->children[o].name = name;
	}
	return TMX_OK;
}

static int generated_name(struct resolver *r, struct cw_node *n, const char *suffix)
{
	const struct cw_node *parent = r->stack.n ? r->stack.nodes[r->stack.n - 1] : NULL;
	const char *base = n->name ? n->name : "field";
	size_t len = strlen(base) + strlen(suffix) + 3;

	if (!parent || parent->op != CW_STRUCT)
		return tmx_error_set(r->bd->err, TMX_ERR_UNSUPPORTED, NULL,
				     "CTF writer: the length or tag of `%s` cannot be written in "
				     "CTF 1.8 (it is not a structure member)", base);
	n->ref = tmx_arena_alloc(&r->bd->p->arena, len);
	if (!n->ref)
		return nomem(r->bd);
	/* `_x` becomes `__x_len`: one more `_` than the member itself. */
	snprintf(n->ref, len, "_%s%s", base, suffix);
	return TMX_OK;
}

static int resolve(struct resolver *r, struct cw_node *n)
{
	int ret;

	if (n->op == CW_SEQUENCE || n->op == CW_TEXT_SEQ) {
		ret = resolve_ref(r, n, NULL, n->fc->ref_slot);
		if (!ret && n->gen_before)
			ret = generated_name(r, n, "_len");
		if (ret)
			return ret;
	} else if (n->op == CW_VARIANT) {
		ret = n->fc->tag ? resolve_ref(r, n, n->fc->tag, -1) : TMX_OK;
		if (ret)
			return ret;
		if (!n->fc->tag || n->gen_before || !name_options_from_tag(r, n)) {
			n->gen_before = true;
			ret = generated_name(r, n, "_tag");
			if (!ret)
				ret = name_options_generated(r, n);
			if (ret)
				return ret;
		}
	}
	if (!n->n_children)
		return TMX_OK;
	if (r->stack.n >= MAX_DEPTH)
		return tmx_error_set(r->bd->err, TMX_ERR_LIMIT, NULL,
				     "CTF writer: field classes nested too deeply");
	r->stack.nodes[r->stack.n++] = n;
	for (size_t i = 0; i < n->n_children; i++) {
		if (n->children[i].skip)
			continue;
		ret = resolve(r, &n->children[i]);
		if (ret)
			return ret;
	}
	r->stack.n--;
	return TMX_OK;
}

static int resolve_scope(struct resolver *r, int scope)
{
	if (!r->roots[scope])
		return TMX_OK;
	r->scope = scope;
	r->stack.n = 0;
	return resolve(r, r->roots[scope]);
}

/* ------------------------------------------------------------------ */
/* Stream classes                                                       */
/* ------------------------------------------------------------------ */

static bool has_meaning(const struct tmx_field_class *ctx, enum tmx_meaning m)
{
	if (!ctx || ctx->kind != TMX_FC_STRUCT)
		return false;
	for (size_t i = 0; i < ctx->n_members; i++)
		if (ctx->members[i].fc->meaning == m)
			return true;
	return false;
}

/*
 * A CTF input tells which packet properties its streams have (the packet
 * context members with a meaning): the output keeps exactly those, as
 * babeltrace2 does.  Other formats do not describe packets in CTF terms:
 * their output gets packet times (when there is a clock) and a discarded
 * events counter, so that their discarded-events records survive.
 */
static void packet_properties(struct cw_stream_plan *sp, const struct tmx_trace_class *tc)
{
	const struct tmx_field_class *ctx = sp->sc->packet_context;

	if (tc->major == 1) {
		sp->has_ts_begin = sp->clock && has_meaning(ctx, TMX_MEANING_TS_BEGIN);
		sp->has_ts_end = sp->clock && has_meaning(ctx, TMX_MEANING_TS_END);
		sp->has_discarded = has_meaning(ctx, TMX_MEANING_EVENTS_DISCARDED);
	} else {
		sp->has_ts_begin = sp->has_ts_end = sp->clock != NULL;
		sp->has_discarded = true;
	}
}

static int build_stream(struct builder *bd, struct cw_stream_plan *sp,
			const struct tmx_stream_class *sc)
{
	struct resolver *r;
	int ret;

	sp->sc = sc;
	sp->clock = sc->default_clock;
	packet_properties(sp, bd->p->tc);
	ret = build_root(bd, &sp->packet_context, sc->packet_context, "packet context");
	if (ret)
		return ret;
	if (sp->packet_context) {
		/* babeltrace2 makes these packet properties: the writer writes its own. */
		for (size_t i = 0; i < sp->packet_context->n_children; i++)
			sp->packet_context->children[i].skip =
				sc->packet_context->members[i].fc->meaning != TMX_MEANING_NONE;
	}
	ret = build_root(bd, &sp->common_context, sc->event_common_context,
			 "event common context");
	if (ret)
		return ret;
	sp->n_events = sc->n_event_classes;
	if (sp->n_events) {
		sp->events = tmx_arena_calloc(&bd->p->arena, sp->n_events, sizeof(*sp->events));
		if (!sp->events)
			return nomem(bd);
	}
	for (size_t e = 0; e < sp->n_events; e++) {
		const struct tmx_event_class *ec = sc->event_classes[e];
		sp->events[e].ec = ec;
		ret = build_root(bd, &sp->events[e].specific_context, ec->specific_context,
				 "event specific context");
		if (!ret)
			ret = build_root(bd, &sp->events[e].payload, ec->payload, "event payload");
		if (ret)
			return ret;
	}

	/* Direct lookup by id for the encoder, when ids are reasonably small. */
	if (sp->n_events && sc->event_classes[sp->n_events - 1]->id < 65536) {
		uint64_t max = 0;
		for (size_t e = 0; e < sp->n_events; e++)
			if (sc->event_classes[e]->id > max)
				max = sc->event_classes[e]->id;
		sp->n_by_id = (size_t)max + 1;
		sp->by_id = tmx_arena_calloc(&bd->p->arena, sp->n_by_id, sizeof(*sp->by_id));
		if (!sp->by_id)
			return nomem(bd);
		for (size_t e = 0; e < sp->n_events; e++)
			if (sc->event_classes[e]->id < sp->n_by_id)
				sp->by_id[sc->event_classes[e]->id] = &sp->events[e];
	}

	r = calloc(1, sizeof(*r));
	if (!r)
		return nomem(bd);
	r->bd = bd;
	r->roots[SCOPE_PACKET_CONTEXT] = sp->packet_context;
	r->roots[SCOPE_COMMON_CONTEXT] = sp->common_context;
	ret = resolve_scope(r, SCOPE_PACKET_CONTEXT);
	if (!ret)
		ret = resolve_scope(r, SCOPE_COMMON_CONTEXT);
	for (size_t e = 0; e < sp->n_events && !ret; e++) {
		r->roots[SCOPE_SPECIFIC_CONTEXT] = sp->events[e].specific_context;
		r->roots[SCOPE_PAYLOAD] = sp->events[e].payload;
		ret = resolve_scope(r, SCOPE_SPECIFIC_CONTEXT);
		if (!ret)
			ret = resolve_scope(r, SCOPE_PAYLOAD);
	}
	free(r);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Clocks                                                               */
/* ------------------------------------------------------------------ */

static int add_clock(struct builder *bd, const struct tmx_clock_class *cc)
{
	struct cw_trace_plan *p = bd->p;
	size_t len;
	char *name;

	if (!cc)
		return TMX_OK;
	for (size_t i = 0; i < p->n_clocks; i++)
		if (p->clocks[i] == cc)
			return TMX_OK;
	p->clocks = tmx_arena_grow(&p->arena, p->clocks, p->n_clocks, p->n_clocks + 1,
				   sizeof(*p->clocks));
	p->clock_names = tmx_arena_grow(&p->arena, p->clock_names, p->n_clocks, p->n_clocks + 1,
					sizeof(*p->clock_names));
	len = strlen(cc->name ? cc->name : "") + 32;
	name = tmx_arena_alloc(&p->arena, len);
	if (!p->clocks || !p->clock_names || !name)
		return nomem(bd);
	if (cc->name && cw_is_identifier(cc->name))
		snprintf(name, len, "%s", cc->name);
	else
		cw_member_name(cc->name ? cc->name : "clock", name, len);
	/* Clock names are unique in a trace. */
	for (size_t i = 0; i < p->n_clocks; i++) {
		if (!strcmp(p->clock_names[i], name)) {
			size_t l = strlen(name);
			snprintf(name + l, len - l, "_%zu", p->n_clocks);
			break;
		}
	}
	p->clocks[p->n_clocks] = cc;
	p->clock_names[p->n_clocks++] = name;
	return TMX_OK;
}

static const char *clock_name(const struct cw_trace_plan *p, const struct tmx_clock_class *cc)
{
	for (size_t i = 0; i < p->n_clocks; i++)
		if (p->clocks[i] == cc)
			return p->clock_names[i];
	return "unknown";
}

/* ------------------------------------------------------------------ */
/* TSDL text                                                            */
/* ------------------------------------------------------------------ */

struct gen {
	struct sbuf b;
	const struct cw_trace_plan *p;
};

static void put_uuid(struct sbuf *b, const uint8_t u[16])
{
	sb_printf(b, "\"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\"",
		  u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		  u[13], u[14], u[15]);
}

/* `integer { ... }` for the writer's own fields, in the trace's byte order. */
static void own_integer(struct gen *g, int indent, unsigned size, const char *extra,
			const char *name)
{
	sb_indent(&g->b, indent);
	sb_printf(&g->b, "integer { size = %u; align = 8;%s } %s;\n", size, extra ? extra : "",
		  name);
}

static void put_integer(struct gen *g, const struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc;

	sb_printf(&g->b, "integer { size = %u; align = %u;", n->size, n->align);
	if (fc->is_signed)
		sb_puts(&g->b, " signed = true;");
	if (n->big_endian != g->p->big_endian)
		sb_puts(&g->b, n->big_endian ? " byte_order = be;" : " byte_order = le;");
	switch (fc->base) {
	case 2: sb_puts(&g->b, " base = b;"); break;
	case 8: sb_puts(&g->b, " base = o;"); break;
	case 16: sb_puts(&g->b, " base = x;"); break;
	default: break;
	}
	if (fc->encoding == TMX_ENC_UTF8)
		sb_puts(&g->b, " encoding = UTF8;");
	else if (fc->encoding == TMX_ENC_ASCII)
		sb_puts(&g->b, " encoding = ASCII;");
	sb_puts(&g->b, " }");
}

static void put_bound(struct gen *g, const struct tmx_field_class *fc, uint64_t v)
{
	if (fc->is_signed)
		sb_printf(&g->b, "%lld", (long long)(int64_t)v);
	else
		sb_printf(&g->b, "%llu", (unsigned long long)v);
}

static void put_field(struct gen *g, const struct cw_node *n, int indent);

static void put_members(struct gen *g, const struct cw_node *n, int indent, bool struct_members)
{
	for (size_t i = 0; i < n->n_children; i++) {
		const struct cw_node *c = &n->children[i];
		const struct cw_node *base = c;
		struct sbuf lengths = { 0 };

		if (c->skip)
			continue;
		if (struct_members && c->gen_before && (c->op == CW_SEQUENCE || c->op == CW_TEXT_SEQ)) {
			own_integer(g, indent, 32, NULL, c->ref);
		} else if (struct_members && c->gen_before && c->op == CW_VARIANT) {
			sb_indent(&g->b, indent);
			sb_puts(&g->b, "enum : integer { size = 16; align = 8; } {\n");
			for (size_t o = 0; o < c->n_children; o++) {
				sb_indent(&g->b, indent + 1);
				sb_quoted(&g->b, c->children[o].name);
				sb_printf(&g->b, " = %zu,\n", o);
			}
			sb_indent(&g->b, indent);
			sb_printf(&g->b, "} %s;\n", c->ref);
		}
		/* Arrays and sequences are written C-style: `type name[len]...`. */
		while (base->op == CW_ARRAY || base->op == CW_SEQUENCE || base->op == CW_TEXT_ARRAY ||
		       base->op == CW_TEXT_SEQ) {
			if (base->op == CW_ARRAY || base->op == CW_TEXT_ARRAY)
				sb_printf(&lengths, "[%llu]", (unsigned long long)base->length);
			else
				sb_printf(&lengths, "[%s]", base->ref);
			base = base->children;
		}
		sb_indent(&g->b, indent);
		put_field(g, base, indent);
		sb_printf(&g->b, " %s%s;\n", c->name, lengths.s ? lengths.s : "");
		if (lengths.oom)
			g->b.oom = true;
		free(lengths.s);
	}
}

static void put_field(struct gen *g, const struct cw_node *n, int indent)
{
	const struct tmx_field_class *fc = n->fc;

	switch (n->op) {
	case CW_INT:
		if (fc->kind == TMX_FC_ENUM) {
			sb_puts(&g->b, "enum : ");
			put_integer(g, n);
			sb_puts(&g->b, " {\n");
			for (size_t m = 0; m < fc->n_mappings; m++) {
				const struct tmx_enum_mapping *map = &fc->mappings[m];
				for (size_t r = 0; r < map->n_ranges; r++) {
					sb_indent(&g->b, indent + 1);
					sb_quoted(&g->b, map->label);
					sb_puts(&g->b, " = ");
					put_bound(g, fc, map->ranges[r].lower);
					if (map->ranges[r].upper != map->ranges[r].lower) {
						sb_puts(&g->b, " ... ");
						put_bound(g, fc, map->ranges[r].upper);
					}
					sb_puts(&g->b, ",\n");
				}
			}
			sb_indent(&g->b, indent);
			sb_puts(&g->b, "}");
		} else {
			put_integer(g, n);
		}
		break;
	case CW_FLOAT:
		sb_printf(&g->b, "floating_point { exp_dig = %u; mant_dig = %u; align = %u;",
			  n->size == 32 ? 8 : 11, n->size == 32 ? 24 : 53, n->align);
		if (n->big_endian != g->p->big_endian)
			sb_puts(&g->b, n->big_endian ? " byte_order = be;" : " byte_order = le;");
		sb_puts(&g->b, " }");
		break;
	case CW_STRING:
		sb_puts(&g->b, fc->encoding == TMX_ENC_ASCII ? "string { encoding = ASCII; }" :
							      "string { encoding = UTF8; }");
		break;
	case CW_STRUCT:
		sb_puts(&g->b, "struct {\n");
		put_members(g, n, indent + 1, true);
		sb_indent(&g->b, indent);
		sb_printf(&g->b, "} align(%u)", n->align);
		break;
	case CW_VARIANT:
		sb_printf(&g->b, "variant <%s> {\n", n->ref);
		put_members(g, n, indent + 1, false);
		sb_indent(&g->b, indent);
		sb_puts(&g->b, "}");
		break;
	default:
		/* Arrays are written by put_members(); a bare one cannot occur. */
		break;
	}
}

static void put_trace(struct gen *g)
{
	const struct cw_trace_plan *p = g->p;
	struct sbuf *b = &g->b;

	sb_puts(b, "/* CTF 1.8 */\n\n/* Written by tracemux's CTF writer. */\n\n");
	sb_puts(b, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = ");
	put_uuid(b, p->uuid);
	sb_printf(b, ";\n\tbyte_order = %s;\n", p->big_endian ? "be" : "le");
	sb_puts(b, "\tpacket.header := struct {\n");
	own_integer(g, 2, 32, " base = x;", "magic");
	own_integer(g, 2, 8, NULL, "uuid[16]");
	own_integer(g, 2, 64, NULL, "stream_id");
	own_integer(g, 2, 64, NULL, "stream_instance_id");
	sb_puts(b, "\t} align(8);\n};\n\n");
}

static void put_env(struct gen *g)
{
	const struct tmx_trace_class *tc = g->p->tc;
	struct sbuf *b = &g->b;

	if (!tc->n_env)
		return;
	sb_puts(b, "env {\n");
	for (size_t i = 0; i < tc->n_env; i++) {
		const struct tmx_env_entry *e = &tc->env[i];
		char name[256];

		sanitize(e->name, name, sizeof(name));
		if (!name[0])
			continue;
		sb_printf(b, "\t%s = ", name);
		if (e->is_int)
			sb_printf(b, "%lld", (long long)e->int_value);
		else
			sb_quoted(b, e->str_value ? e->str_value : "");
		sb_puts(b, ";\n");
	}
	sb_puts(b, "};\n\n");
}

static void put_clocks(struct gen *g)
{
	struct sbuf *b = &g->b;

	for (size_t i = 0; i < g->p->n_clocks; i++) {
		const struct tmx_clock_class *cc = g->p->clocks[i];
		sb_printf(b, "clock {\n\tname = %s;\n", g->p->clock_names[i]);
		if (cc->description) {
			sb_puts(b, "\tdescription = ");
			sb_quoted(b, cc->description);
			sb_puts(b, ";\n");
		}
		sb_printf(b, "\tfreq = %llu;\n\tprecision = %llu;\n\toffset_s = %lld;\n"
			  "\toffset = %llu;\n\tabsolute = %s;\n",
			  (unsigned long long)cc->frequency, (unsigned long long)cc->precision,
			  (long long)cc->offset_s, (unsigned long long)cc->offset_cycles,
			  cc->origin_is_unix_epoch ? "true" : "false");
		if (cc->has_uuid) {
			sb_puts(b, "\tuuid = ");
			put_uuid(b, cc->uuid);
			sb_puts(b, ";\n");
		}
		sb_puts(b, "};\n\n");
	}
}

static void put_root(struct gen *g, const char *what, const struct cw_node *n)
{
	if (!n)
		return;
	sb_printf(&g->b, "\t%s := ", what);
	put_field(g, n, 1);
	sb_puts(&g->b, ";\n");
}

static void put_stream(struct gen *g, const struct cw_stream_plan *sp)
{
	struct sbuf *b = &g->b;
	const char *clock = sp->clock ? clock_name(g->p, sp->clock) : NULL;
	char map[128];
	uint32_t align = 8;

	if (clock)
		snprintf(map, sizeof(map), " map = clock.%s.value;", clock);
	sb_printf(b, "stream {\n\tid = %llu;\n\tpacket.context := struct {\n",
		  (unsigned long long)sp->sc->id);
	own_integer(g, 2, 64, NULL, "packet_size");
	own_integer(g, 2, 64, NULL, "content_size");
	if (sp->has_ts_begin)
		own_integer(g, 2, 64, map, "timestamp_begin");
	if (sp->has_ts_end)
		own_integer(g, 2, 64, map, "timestamp_end");
	if (sp->has_discarded)
		own_integer(g, 2, 64, NULL, "events_discarded");
	own_integer(g, 2, 64, NULL, "packet_seq_num");
	if (sp->packet_context) {
		put_members(g, sp->packet_context, 2, true);
		if (sp->packet_context->align > align)
			align = sp->packet_context->align;
	}
	sb_printf(b, "\t} align(%u);\n\n\tevent.header := struct {\n", align);
	own_integer(g, 2, 64, NULL, "id");
	if (clock)
		own_integer(g, 2, 64, map, "timestamp");
	sb_puts(b, "\t} align(8);\n");
	put_root(g, "event.context", sp->common_context);
	sb_puts(b, "};\n\n");

	for (size_t e = 0; e < sp->n_events; e++) {
		const struct cw_event_plan *ep = &sp->events[e];
		const struct tmx_event_class *ec = ep->ec;
		sb_puts(b, "event {\n\tname = ");
		sb_quoted(b, ec->name ? ec->name : "unknown");
		sb_printf(b, ";\n\tstream_id = %llu;\n\tid = %llu;\n",
			  (unsigned long long)sp->sc->id, (unsigned long long)ec->id);
		if (ec->emf_uri) {
			sb_puts(b, "\tmodel.emf.uri = ");
			sb_quoted(b, ec->emf_uri);
			sb_puts(b, ";\n");
		}
		if (ec->log_level != TMX_LOG_LEVEL_NONE)
			sb_printf(b, "\tloglevel = %d;\n", ec->log_level);
		put_root(g, "context", ep->specific_context);
		put_root(g, "fields", ep->payload);
		sb_puts(b, "};\n\n");
	}
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

int cw_plan_build(struct cw_trace_plan *p, const struct tmx_trace_class *tc,
		  const uint8_t uuid[16], struct tmx_error *err)
{
	struct builder bd = { .p = p, .err = err };
	struct gen g = { .p = p };
	int ret;

	memset(p, 0, sizeof(*p));
	tmx_arena_init(&p->arena);
	p->tc = tc;
	memcpy(p->uuid, uuid, 16);
	p->big_endian = tc->native_byte_order == TMX_BO_BE;
	for (size_t i = 0; i < tc->n_clocks; i++) {
		ret = add_clock(&bd, tc->clocks[i]);
		if (ret)
			return ret;
	}
	for (size_t s = 0; s < tc->n_stream_classes; s++) {
		ret = add_clock(&bd, tc->stream_classes[s]->default_clock);
		if (ret)
			return ret;
	}
	p->n_streams = tc->n_stream_classes;
	if (p->n_streams) {
		p->streams = tmx_arena_calloc(&p->arena, p->n_streams, sizeof(*p->streams));
		if (!p->streams)
			return nomem(&bd);
	}
	for (size_t s = 0; s < p->n_streams; s++) {
		ret = build_stream(&bd, &p->streams[s], tc->stream_classes[s]);
		if (ret)
			return ret;
	}

	put_trace(&g);
	put_env(&g);
	put_clocks(&g);
	for (size_t s = 0; s < p->n_streams; s++)
		put_stream(&g, &p->streams[s]);
	if (g.b.oom) {
		free(g.b.s);
		return nomem(&bd);
	}
	p->metadata = g.b.s;
	p->metadata_len = g.b.len;
	return TMX_OK;
}

void cw_plan_free(struct cw_trace_plan *p)
{
	free(p->metadata);
	tmx_arena_free(&p->arena);
	memset(p, 0, sizeof(*p));
}
