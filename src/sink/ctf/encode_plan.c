/*
 * The CTF writer's plan (plan.h), built from the model for the CTF
 * version written; the metadata text comes from tsdl_gen.c (CTF 1.8) or
 * json_gen.c (CTF 2).
 *
 * CTF 2 keeps every field class of the model.  CTF 1.8 lacks some: they
 * are translated as babeltrace 2.1's sink.ctf.fs translates them, where it
 * has a translation (a comment above each in the metadata):
 *   - boolean: an unsigned integer of the same size (0 or 1);
 *   - bit array / bit map: an unsigned hexadecimal integer of the same
 *     size (the flags' names are lost);
 *   - optional: a variant of an empty structure `none` and the field
 *     `content`, with a generated 8-bit tag;
 * and otherwise the closest CTF 1.8 class that keeps the data:
 *   - variable-length integer: a 64-bit integer (mappings kept);
 *   - string of any length kind and encoding: a null-terminated UTF-8
 *     string (its text up to the first NUL, as readers show it);
 *   - BLOB: an array or sequence of 8-bit hexadecimal integers (CTF 1.8's
 *     own UUID field is such an array; the media type is lost);
 *   - variant chosen by integer ranges: a generated 16-bit tag.
 * What CTF 1.8 still cannot say (a generated length or tag outside a
 * structure) fails with the field named.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/ctf/encode_plan_impl.h"
#include "common/errors.h"

int cw_nomem(struct cw_builder *bd)
{
	return tmx_error_set(bd->err, TMX_ERR_NOMEM, NULL, "out of memory");
}

char *cw_strdup(struct cw_builder *bd, const char *s)
{
	return tmx_arena_strdup(&bd->p->arena, s);
}

bool cw_input_is_ctf(const struct tmx_trace_class *tc)
{
	return tc->format == TMX_FORMAT_CTF;
}

/* ------------------------------------------------------------------ */
/* Plan nodes                                                           */
/* ------------------------------------------------------------------ */

static const char *const scope_names[CW_N_SCOPES] = {
	"packet context", "event common context", "event specific context", "payload",
};

static char *member_name(struct cw_builder *bd, const char *name)
{
	size_t n;
	char *out;

	if (bd->p->version == CW_CTF_2)
		return cw_strdup(bd, name);
	/* TSDL: always escaped, as babeltrace2 writes members. */
	n = strlen(name) + 2;
	out = tmx_arena_alloc(&bd->p->arena, n);
	if (out)
		cw_member_name(name, out, n);
	return out;
}

static int build_node(struct cw_builder *bd, struct cw_node *n, const struct tmx_field_class *fc,
		      unsigned depth);

static int build_children(struct cw_builder *bd, struct cw_node *n, const struct tmx_field_class *fc,
			  unsigned depth)
{
	n->n_children = fc->n_members;
	if (!fc->n_members)
		return TMX_OK;
	n->children = tmx_arena_calloc(&bd->p->arena, fc->n_members, sizeof(*n->children));
	if (!n->children)
		return cw_nomem(bd);
	for (size_t i = 0; i < fc->n_members; i++) {
		struct cw_node *c = &n->children[i];
		int ret;
		if (depth + 1 < CW_MAX_DEPTH)
			bd->names[depth + 1] = fc->members[i].name;
		ret = build_node(bd, c, fc->members[i].fc, depth + 1);
		if (ret)
			return ret;
		/* Struct members: escaped in TSDL; variant options: named when resolved. */
		c->name = fc->kind == TMX_FC_STRUCT ? member_name(bd, fc->members[i].name) :
						      cw_strdup(bd, fc->members[i].name);
		if (!c->name)
			return cw_nomem(bd);
	}
	return TMX_OK;
}

/* One child: an array's element, an optional's field. */
static int build_only_child(struct cw_builder *bd, struct cw_node *n,
			    const struct tmx_field_class *child, unsigned depth)
{
	n->n_children = 1;
	n->children = tmx_arena_calloc(&bd->p->arena, 1, sizeof(*n->children));
	if (!n->children)
		return cw_nomem(bd);
	if (depth + 1 < CW_MAX_DEPTH)
		bd->names[depth + 1] = NULL;   /* an element: `[]` */
	return build_node(bd, n->children, child, depth + 1);
}

/* An error about the node at `depth` being built: "CTF writer: WHERE field `a.b`: MSG". */
static int build_error(struct cw_builder *bd, unsigned depth, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int build_error(struct cw_builder *bd, unsigned depth, int code, const char *fmt, ...)
{
	struct tmx_buf path = { 0 };
	char msg[256];
	va_list ap;

	for (unsigned i = 1; i <= depth && i < CW_MAX_DEPTH; i++) {
		if (bd->names[i] && path.len)
			cw_sb_put(&path, ".", 1);
		cw_sb_puts(&path, bd->names[i] ? bd->names[i] : "[]");
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tmx_error_set(bd->err, code, NULL, "CTF writer: %s field `%s`: %s", bd->where,
		      cw_sb_str(&path), msg);
	free(path.p);
	return code;
}

static int unsupported_size(struct cw_builder *bd, const struct tmx_field_class *fc,
			    unsigned depth, const char *what)
{
	return build_error(bd, depth, TMX_ERR_UNSUPPORTED, "%u-bit %s", fc->size, what);
}

static int build_string(struct cw_builder *bd, struct cw_node *n, const struct tmx_field_class *fc,
			unsigned depth)
{
	if (n->align < 8)
		n->align = 8;
	n->op = CW_STRING;
	n->str_enc = TMX_STR_UTF8;
	if (bd->p->version != CW_CTF_2)
		return TMX_OK;   /* any string: null-terminated UTF-8 in CTF 1.8 */
	if (fc->str_encoding > TMX_STR_UTF32LE)
		return build_error(bd, depth, TMX_ERR_UNSUPPORTED, "unknown string encoding %u",
				   fc->str_encoding);
	n->str_enc = fc->str_encoding;
	if (fc->str_length == TMX_STR_STATIC) {
		n->op = CW_STATIC_STRING;
		n->length = fc->length;
	} else if (fc->str_length == TMX_STR_DYNAMIC) {
		n->op = CW_DYN_STRING;
	}
	return TMX_OK;
}

static int build_array(struct cw_builder *bd, struct cw_node *n, const struct tmx_field_class *fc,
		       unsigned depth)
{
	int ret;

	if (!fc->elem)
		return build_error(bd, depth, TMX_ERR_UNSUPPORTED, "array without an element class");
	if (fc->kind == TMX_FC_ARRAY) {
		n->op = fc->is_text ? CW_TEXT_ARRAY : CW_ARRAY;
		n->length = fc->length;
	} else {
		n->op = fc->is_text ? CW_TEXT_SEQ : CW_SEQUENCE;
	}
	/*
	 * Text is written byte by byte: its elements are bytes, contiguous
	 * (an element aligned beyond 8 bits would leave gaps).
	 */
	if (fc->is_text && (fc->elem->size != 8 || fc->elem->align % 8 || fc->elem->align > 8 ||
			    fc->elem->varlen ||
			    (fc->elem->kind != TMX_FC_INT && fc->elem->kind != TMX_FC_ENUM)))
		n->op = fc->kind == TMX_FC_ARRAY ? CW_ARRAY : CW_SEQUENCE;
	ret = build_only_child(bd, n, fc->elem, depth);
	/* TSDL: an array is aligned as its element, even when empty. */
	n->align = n->children->align;
	return ret;
}

static int build_node(struct cw_builder *bd, struct cw_node *n, const struct tmx_field_class *fc,
		      unsigned depth)
{
	bool v2 = bd->p->version == CW_CTF_2;

	/* The model's readers bound nesting; this only guards the recursion. */
	if (depth > 256)
		return build_error(bd, depth, TMX_ERR_LIMIT, "field classes nested too deeply");
	n->fc = fc;
	n->align = fc->align ? fc->align : 1;
	n->big_endian = fc->byte_order == TMX_BO_BE;
	n->ref_slot = -1;
	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		if (fc->varlen) {
			/* LEB128 in CTF 2; its 64-bit value as a fixed-length integer in 1.8. */
			n->op = v2 ? CW_VARINT : CW_INT;
			n->size = 64;
			n->align = 8;
			n->big_endian = bd->p->big_endian;
			return TMX_OK;
		}
		if (fc->size < 1 || fc->size > 64)
			return unsupported_size(bd, fc, depth, "integer");
		n->op = CW_INT;
		n->size = fc->size;
		return TMX_OK;
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
		if (fc->size < 1 || fc->size > 64)
			return unsupported_size(bd, fc, depth,
						fc->kind == TMX_FC_BOOL ? "boolean" : "bit array");
		n->op = CW_INT;
		n->size = fc->size;
		return TMX_OK;
	case TMX_FC_FLOAT:
		if (fc->size != 32 && fc->size != 64)
			return unsupported_size(bd, fc, depth, "floating point number");
		n->op = CW_FLOAT;
		n->size = fc->size;
		return TMX_OK;
	case TMX_FC_STRING:
		return build_string(bd, n, fc, depth);
	case TMX_FC_BLOB:
		n->op = fc->ref_slot >= 0 ? CW_DYN_BLOB : CW_BLOB;
		n->length = fc->length;
		n->align = 8;
		return TMX_OK;
	case TMX_FC_STRUCT:
	case TMX_FC_VARIANT: {
		int ret;
		n->op = fc->kind == TMX_FC_STRUCT ? CW_STRUCT : CW_VARIANT;
		ret = build_children(bd, n, fc, depth);
		/*
		 * The alignment written (`align(N)`, `minimum-alignment`) is at
		 * least every member's (every option's, for a variant in a
		 * structure), whatever the model says: a TSDL reader aligns a
		 * structure to the largest of both, so the encoder must too.
		 */
		for (size_t i = 0; i < n->n_children; i++)
			if (n->children[i].align > n->align)
				n->align = n->children[i].align;
		return ret;
	}
	case TMX_FC_OPTIONAL: {
		int ret;
		if (!fc->elem)
			return build_error(bd, depth, TMX_ERR_UNSUPPORTED,
					   "optional without a field class");
		n->op = CW_OPTIONAL;
		ret = build_only_child(bd, n, fc->elem, depth);
		n->align = n->children->align;
		return ret;
	}
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		return build_array(bd, n, fc, depth);
	}
	return build_error(bd, depth, TMX_ERR_UNSUPPORTED, "unknown field class");
}

/* The root of a scope: `ec` is NULL for the stream's scopes. */
static int build_root(struct cw_builder *bd, struct cw_node **out, const struct tmx_field_class *fc,
		      const struct tmx_stream_class *sc, const struct tmx_event_class *ec,
		      const char *scope)
{
	*out = NULL;
	if (!fc)
		return TMX_OK;
	if (ec)
		snprintf(bd->where, sizeof(bd->where), "event class `%.64s` (id %llu), %s",
			 ec->name ? ec->name : "", (unsigned long long)ec->id, scope);
	else
		snprintf(bd->where, sizeof(bd->where), "stream class %llu, %s",
			 (unsigned long long)sc->id, scope);
	if (fc->kind != TMX_FC_STRUCT)
		return tmx_error_set(bd->err, TMX_ERR_UNSUPPORTED, NULL,
				     "CTF writer: %s: not a structure", bd->where);
	*out = tmx_arena_calloc(&bd->p->arena, 1, sizeof(**out));
	if (!*out)
		return cw_nomem(bd);
	return build_node(bd, *out, fc, 0);
}

/*
 * Generated lengths and tags are 8-bit aligned members: the structure that
 * holds one is aligned at least so, and what holds that structure too.
 */
static uint32_t final_align(struct cw_node *n)
{
	uint32_t max = 1;

	for (size_t i = 0; i < n->n_children; i++) {
		uint32_t a = final_align(&n->children[i]);
		if (a > max)
			max = a;
		if (n->op == CW_STRUCT && n->children[i].gen_before && !n->children[i].skip && max < 8)
			max = 8;
	}
	switch (n->op) {
	case CW_STRUCT:
	case CW_VARIANT:
		if (max > n->align)
			n->align = max;
		break;
	case CW_ARRAY:
	case CW_SEQUENCE:
	case CW_OPTIONAL:
		n->align = n->children->align;
		break;
	default:
		break;
	}
	return n->align;
}

/* ------------------------------------------------------------------ */
/* References: lengths and selectors                                    */
/* ------------------------------------------------------------------ */

bool cw_is_dependent(const struct cw_node *n)
{
	switch (n->op) {
	case CW_SEQUENCE:
	case CW_TEXT_SEQ:
	case CW_DYN_BLOB:
	case CW_DYN_STRING:
	case CW_VARIANT:
	case CW_OPTIONAL:
		return true;
	default:
		return false;
	}
}

static bool is_target(const struct cw_node *n, const struct tmx_field_class *want_fc,
		      int32_t want_slot)
{
	return want_fc ? n->fc == want_fc : (n->fc->slot >= 0 && n->fc->slot == want_slot);
}

/* Depth-first search for the target; fills `path` (root first) when found. */
static bool find(struct cw_node *n, const struct tmx_field_class *want_fc, int32_t want_slot,
		 struct cw_path *path)
{
	if (path->n >= CW_MAX_DEPTH)
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

bool cw_find_target(struct cw_resolver *r, const struct cw_node *n, struct cw_path *target,
		    int *scope)
{
	const struct tmx_field_class *fc = n->fc;
	/* A variant's tag class is exact; a slot may be shared by several fields. */
	const struct tmx_field_class *want_fc =
		(fc->kind == TMX_FC_VARIANT || fc->kind == TMX_FC_OPTIONAL) ? fc->tag : NULL;

	if (!want_fc && fc->ref_slot < 0)
		return false;
	for (int s = 0; s <= r->scope; s++) {
		target->n = 0;
		if (r->roots[s] && find(r->roots[s], want_fc, fc->ref_slot, target)) {
			*scope = s;
			return true;
		}
	}
	return false;
}


/* The model's name of child `c` of `parent`, NULL for elements. */
static const char *model_name(const struct cw_node *parent, const struct cw_node *c)
{
	size_t i = (size_t)(c - parent->children);

	if ((parent->op == CW_STRUCT || parent->op == CW_VARIANT) && i < parent->fc->n_members)
		return parent->fc->members[i].name;
	return NULL;
}

const char *cw_node_base_name(const struct cw_resolver *r, const struct cw_node *n)
{
	const struct cw_node *parent = r->stack.n ? r->stack.nodes[r->stack.n - 1] : NULL;
	const char *name = parent ? model_name(parent, n) : NULL;

	/* An element: its array's name. */
	for (size_t i = r->stack.n; !name && i-- > 1;)
		name = model_name(r->stack.nodes[i - 1], r->stack.nodes[i]);
	return name ? name : "field";
}

int cw_field_error(struct cw_resolver *r, const struct cw_node *n, const char *fmt, ...)
{
	struct tmx_buf path = { 0 };
	char msg[512];
	va_list ap;

	for (size_t i = 1; i <= r->stack.n; i++) {
		const struct cw_node *parent = r->stack.nodes[i - 1];
		const struct cw_node *c = i < r->stack.n ? r->stack.nodes[i] : n;
		const char *name = model_name(parent, c);
		if (name) {
			if (path.len)
				cw_sb_put(&path, ".", 1);
			cw_sb_puts(&path, name);
		} else {
			cw_sb_puts(&path, "[]");
		}
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->ec)
		tmx_error_set(r->bd->err, TMX_ERR_UNSUPPORTED, NULL,
			      "CTF writer: event class `%s` (id %llu), %s field `%s`: %s",
			      r->ec->name ? r->ec->name : "", (unsigned long long)r->ec->id,
			      scope_names[r->scope], cw_sb_str(&path), msg);
	else
		tmx_error_set(r->bd->err, TMX_ERR_UNSUPPORTED, NULL,
			      "CTF writer: stream class %llu, %s field `%s`: %s",
			      (unsigned long long)r->sc->id, scope_names[r->scope], cw_sb_str(&path),
			      msg);
	free(path.p);
	return TMX_ERR_UNSUPPORTED;
}

static int resolve(struct cw_resolver *r, struct cw_node *n)
{
	int ret;

	if (cw_is_dependent(n)) {
		ret = r->bd->p->version == CW_CTF_2 ? cw_json_resolve(r, n) : cw_tsdl_resolve(r, n);
		if (ret)
			return ret;
	}
	if (!n->n_children)
		return TMX_OK;
	if (r->stack.n >= CW_MAX_DEPTH)
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

static int resolve_scope(struct cw_resolver *r, int scope)
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

	if (cw_input_is_ctf(tc)) {
		sp->has_ts_begin = sp->clock && has_meaning(ctx, TMX_MEANING_TS_BEGIN);
		sp->has_ts_end = sp->clock && has_meaning(ctx, TMX_MEANING_TS_END);
		sp->has_discarded = has_meaning(ctx, TMX_MEANING_EVENTS_DISCARDED);
	} else {
		sp->has_ts_begin = sp->has_ts_end = sp->clock != NULL;
		sp->has_discarded = true;
	}
}

/*
 * CTF 2: the writer's own packet context members, named so that no input
 * member has the same name (a `_` is added until none has).
 */
static int own_member_names(struct cw_builder *bd, struct cw_stream_plan *sp)
{
	static const char *const base[6] = {
		"packet_size", "content_size", "timestamp_begin", "timestamp_end",
		"events_discarded", "packet_seq_num",
	};
	const struct tmx_field_class *ctx = sp->sc->packet_context;

	for (size_t k = 0; k < 6; k++) {
		char name[64 + 32];
		bool clash;
		snprintf(name, sizeof(name), "%s", base[k]);
		do {
			clash = false;
			/* The input's members with a meaning are not written. */
			for (size_t i = 0; ctx && i < ctx->n_members && !clash; i++)
				clash = !ctx->members[i].fc->meaning &&
					!strcmp(ctx->members[i].name, name);
			if (clash) {
				memmove(name + 1, name, strlen(name) + 1);
				name[0] = '_';
			}
		} while (clash && strlen(name) < 64);
		if (!(sp->own_names[k] = cw_strdup(bd, name)))
			return cw_nomem(bd);
	}
	return TMX_OK;
}

static int build_events(struct cw_builder *bd, struct cw_stream_plan *sp)
{
	const struct tmx_stream_class *sc = sp->sc;
	int ret;

	sp->n_events = sc->n_event_classes;
	if (sp->n_events) {
		sp->events = tmx_arena_calloc(&bd->p->arena, sp->n_events, sizeof(*sp->events));
		if (!sp->events)
			return cw_nomem(bd);
	}
	for (size_t e = 0; e < sp->n_events; e++) {
		const struct tmx_event_class *ec = sc->event_classes[e];
		sp->events[e].ec = ec;
		ret = build_root(bd, &sp->events[e].specific_context, ec->specific_context, sc, ec,
				 scope_names[CW_SCOPE_SPECIFIC_CONTEXT]);
		if (!ret)
			ret = build_root(bd, &sp->events[e].payload, ec->payload, sc, ec,
					 scope_names[CW_SCOPE_PAYLOAD]);
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
			return cw_nomem(bd);
		for (size_t e = 0; e < sp->n_events; e++)
			if (sc->event_classes[e]->id < sp->n_by_id)
				sp->by_id[sc->event_classes[e]->id] = &sp->events[e];
	}
	return TMX_OK;
}

static int resolve_stream(struct cw_builder *bd, struct cw_stream_plan *sp)
{
	struct cw_resolver *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return cw_nomem(bd);
	r->bd = bd;
	r->sc = sp->sc;
	r->roots[CW_SCOPE_PACKET_CONTEXT] = sp->packet_context;
	r->roots[CW_SCOPE_COMMON_CONTEXT] = sp->common_context;
	ret = resolve_scope(r, CW_SCOPE_PACKET_CONTEXT);
	if (!ret)
		ret = resolve_scope(r, CW_SCOPE_COMMON_CONTEXT);
	for (size_t e = 0; e < sp->n_events && !ret; e++) {
		r->ec = sp->events[e].ec;
		r->roots[CW_SCOPE_SPECIFIC_CONTEXT] = sp->events[e].specific_context;
		r->roots[CW_SCOPE_PAYLOAD] = sp->events[e].payload;
		ret = resolve_scope(r, CW_SCOPE_SPECIFIC_CONTEXT);
		if (!ret)
			ret = resolve_scope(r, CW_SCOPE_PAYLOAD);
	}
	free(r);
	if (ret)
		return ret;
	if (sp->packet_context)
		final_align(sp->packet_context);
	if (sp->common_context)
		final_align(sp->common_context);
	for (size_t e = 0; e < sp->n_events; e++) {
		if (sp->events[e].specific_context)
			final_align(sp->events[e].specific_context);
		if (sp->events[e].payload)
			final_align(sp->events[e].payload);
	}
	return TMX_OK;
}

static int build_stream(struct cw_builder *bd, struct cw_stream_plan *sp,
			const struct tmx_stream_class *sc)
{
	int ret;

	sp->sc = sc;
	sp->clock = sc->default_clock;
	sp->n_slots = tmx_tc_n_slots(bd->p->tc) > 0 ? tmx_tc_n_slots(bd->p->tc) : 0;
	packet_properties(sp, bd->p->tc);
	ret = build_root(bd, &sp->packet_context, sc->packet_context, sc, NULL,
			 scope_names[CW_SCOPE_PACKET_CONTEXT]);
	if (ret)
		return ret;
	if (sp->packet_context) {
		/* babeltrace2 makes these packet properties: the writer writes its own. */
		for (size_t i = 0; i < sp->packet_context->n_children; i++)
			sp->packet_context->children[i].skip =
				sc->packet_context->members[i].fc->meaning != TMX_MEANING_NONE;
	}
	if (bd->p->version == CW_CTF_2 && (ret = own_member_names(bd, sp)))
		return ret;
	ret = build_root(bd, &sp->common_context, sc->event_common_context, sc, NULL,
			 scope_names[CW_SCOPE_COMMON_CONTEXT]);
	if (!ret)
		ret = build_events(bd, sp);
	return ret ? ret : resolve_stream(bd, sp);
}

/* ------------------------------------------------------------------ */
/* Clocks                                                               */
/* ------------------------------------------------------------------ */

/* TSDL: an identifier; CTF 2: the fragment id (any string). Unique in the trace. */
static int add_clock(struct cw_builder *bd, const struct tmx_clock_class *cc)
{
	struct cw_trace_plan *p = bd->p;
	const char *base = cc ? (p->version == CW_CTF_2 && cc->ctf2_id ? cc->ctf2_id : cc->name) : NULL;
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
	len = strlen(base ? base : "") + 32;
	name = tmx_arena_alloc(&p->arena, len);
	if (!p->clocks || !p->clock_names || !name)
		return cw_nomem(bd);
	if (base && (p->version == CW_CTF_2 ? base[0] != '\0' : cw_is_identifier(base)))
		snprintf(name, len, "%s", base);
	else if (p->version == CW_CTF_2)
		snprintf(name, len, "clock");
	else
		cw_member_name(base ? base : "clock", name, len);
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

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

int cw_plan_build(struct cw_trace_plan *p, const struct tmx_trace_class *tc,
		  const uint8_t uuid[16], enum cw_version version, struct tmx_error *err)
{
	struct cw_builder bd = { .p = p, .err = err };
	int ret;

	memset(p, 0, sizeof(*p));
	tmx_arena_init(&p->arena);
	p->tc = tc;
	p->version = version == CW_CTF_2 ? CW_CTF_2 : CW_CTF_1_8;
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
			return cw_nomem(&bd);
	}
	for (size_t s = 0; s < p->n_streams; s++) {
		ret = build_stream(&bd, &p->streams[s], tc->stream_classes[s]);
		if (ret)
			return ret;
	}
	return p->version == CW_CTF_2 ? cw_json_text(p, err) : cw_tsdl_text(p, err);
}

void cw_plan_free(struct cw_trace_plan *p)
{
	free(p->metadata);
	tmx_arena_free(&p->arena);
	memset(p, 0, sizeof(*p));
}
