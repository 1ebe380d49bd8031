/*
 * The top-level blocks of TSDL metadata: trace, env, clock (a repeat
 * checked against the first), stream, event and callsite, each body read
 * by parse_block() with its attribute and scope handlers.
 */
#include <string.h>

#include "common/uuid.h"
#include "ctf/tsdl_parse_impl.h"
#include "model/clock.h"

/* ------------------------------------------------------------------ */
/* Block bodies                                                         */
/* ------------------------------------------------------------------ */

/* A scope assignment (`name := type`) no block of this kind has: ignored, as babeltrace2 does. */
static void warn_unknown_scope(struct tsdl_parser *p, const char *what, const char *name)
{
	tmx_warn(p->diag, "%s:%u:%u: unknown %s scope `%s` (ignored)", p->name, p->lx.tok.line,
		 p->lx.tok.col, what, name);
}

/*
 * A block body: typealias/typedef, `name = value;`, `name := type;`, and
 * type declarations.  `assign` handles the two assignment forms.
 */
static int parse_block(struct tsdl_parser *p, void *obj,
		       int (*attr)(struct tsdl_parser *, void *, const char *, const struct value *),
		       int (*assign)(struct tsdl_parser *, void *, const char *,
				     struct tmx_field_class *))
{
	struct seen_names seen = { .n = 0 };
	char name[512];
	int ret;

	TRY(tsdl_expect_punct(p, "{"));
	TRY(tsdl_scope_push(p));
	while (!tsdl_is_punct(&p->lx.tok, "}")) {
		const struct tsdl_token *t = &p->lx.tok;
		/* `typedef = 1;` is an attribute, as in babeltrace2 (not `typealias = 1;`). */
		bool attribute = tsdl_lex_next_is_equal(&p->lx);

		if (accept_punct(p, ";", &ret)) {   /* stray semicolons are allowed */
			TRY(ret);
		} else if (tsdl_is_ident(t, "typealias")) {
			TRY(tsdl_parse_typealias(p));
		} else if (tsdl_is_ident(t, "typedef") && !attribute) {
			TRY(tsdl_parse_typedef(p));
		} else if (!attribute && (tsdl_is_ident(t, "struct") || tsdl_is_ident(t, "variant") ||
					  tsdl_is_ident(t, "enum"))) {
			struct tmx_field_class *unused;
			TRY(tsdl_parse_type_spec(p, &unused));
			TRY(tsdl_expect_punct(p, ";"));
		} else if (t->kind == TOK_IDENT) {
			uint32_t line = t->line, col = t->col;
			TRY(tsdl_parse_dotted(p, name, sizeof(name)));
			TRY(tsdl_check_not_seen(p, &seen, name));
			if (accept_punct(p, ":=", &ret)) {
				struct tmx_field_class *type, *fc;
				char *unused;
				TRY(ret);
				if (!assign)
					return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, line,
								 col, "`%s := ...` is not allowed here",
								 name);
				TRY(tsdl_parse_type_spec(p, &type));
				TRY(tsdl_parse_declarator(p, type, false, &unused, &fc));
				TRY(assign(p, obj, name, fc));
			} else {
				struct value v;
				TRY(tsdl_expect_punct(p, "="));
				TRY(tsdl_parse_value(p, &v));
				TRY(attr(p, obj, name, &v));
			}
			TRY(tsdl_expect_punct(p, ";"));
		} else {
			return tsdl_expected(p, "an attribute, a declaration or `}`");
		}
	}
	scope_pop(p);
	TRY(next(p));
	return tsdl_expect_punct(p, ";");
}

/* ------------------------------------------------------------------ */
/* trace and env                                                        */
/* ------------------------------------------------------------------ */

static int trace_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct tmx_trace_class *tc = obj;
	uint64_t u = 0;

	if (!strcmp(name, "major")) {
		TRY(tsdl_value_uint(p, v, name, &u));
		tc->major = (uint32_t)(u > UINT32_MAX ? UINT32_MAX : u);
		p->has_major = true;
		p->major_line = v->line;
		p->major_col = v->col;
	} else if (!strcmp(name, "minor")) {
		TRY(tsdl_value_uint(p, v, name, &u));
		tc->minor = (uint32_t)(u > UINT32_MAX ? UINT32_MAX : u);
		p->has_minor = true;
		p->minor_line = v->line;
		p->minor_col = v->col;
	} else if (!strcmp(name, "uuid")) {
		if (v->kind != VAL_STRING || !tmx_uuid_parse(v->str, tc->uuid))
			return value_error(p, v, "`%s` expects a UUID string", name);
		tc->has_uuid = true;
	} else if (!strcmp(name, "byte_order")) {
		uint8_t bo = 0;
		TRY(tsdl_value_byte_order(p, v, &bo));
		if (bo == TSDL_BO_NATIVE)
			return value_error(p, v, "the trace `%s` must be le, be or network", name);
		tc->native_byte_order = bo;
		p->has_byte_order = true;
	} else {
		warn_unknown(p, v, "trace", name);
	}
	return TMX_OK;
}

static int trace_assign(struct tsdl_parser *p, void *obj, const char *name,
			struct tmx_field_class *fc)
{
	struct tmx_trace_class *tc = obj;

	if (strcmp(name, "packet.header")) {
		warn_unknown_scope(p, "trace", name);
		return TMX_OK;
	}
	if (fc->kind != TMX_FC_STRUCT)
		return tsdl_error(p, "`%s` must be a structure", name);
	tc->packet_header = fc;
	return TMX_OK;
}

static int env_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct tmx_trace_class *tc = obj;
	struct tmx_env_entry *e;

	for (size_t i = 0; i < tc->n_env; i++)
		if (!strcmp(tc->env[i].name, name))
			return value_error(p, v, "duplicate environment entry `%s`", name);
	e = arena_room(p, tc->env, tc->n_env, sizeof(*e));
	if (!e)
		return nomem(p);
	tc->env = e;
	e = &e[tc->n_env];
	if (!(e->name = tmx_arena_strdup(p->arena, name)))
		return nomem(p);
	if (v->kind == VAL_INT) {
		TRY(tsdl_value_int(p, v, name, &e->int_value));
		e->is_int = true;
	} else {
		e->str_value = v->str;
	}
	tc->n_env++;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* clock                                                                */
/* ------------------------------------------------------------------ */

/* A clock block being parsed: the class and where its properties are written. */
struct clock_block {
	struct tmx_clock_class *cc;
	struct tsdl_clock_decl decl;
};

static void clock_prop_at(struct clock_block *b, enum tsdl_clock_prop prop, const struct value *v)
{
	b->decl.prop_line[prop] = v->line;
	b->decl.prop_col[prop] = v->col;
}

static int clock_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct clock_block *b = obj;
	struct tmx_clock_class *cc = b->cc;
	uint64_t u = 0;

	if (!strcmp(name, "name")) {
		if (v->kind == VAL_INT)
			return value_error(p, v, "clock `%s` expects a name", name);
		cc->name = v->str;
	} else if (!strcmp(name, "uuid")) {
		if (v->kind != VAL_STRING || !tmx_uuid_parse(v->str, cc->uuid))
			return value_error(p, v, "`%s` expects a UUID string", name);
		cc->has_uuid = true;
		clock_prop_at(b, TSDL_CLOCK_UUID, v);
	} else if (!strcmp(name, "description")) {
		if (v->kind != VAL_STRING)
			return value_error(p, v, "clock `%s` expects a string", name);
		cc->description = v->str;
		clock_prop_at(b, TSDL_CLOCK_DESCRIPTION, v);
	} else if (!strcmp(name, "freq")) {
		TRY(tsdl_value_uint(p, v, name, &u));
		if (u == 0)
			return value_error(p, v, "clock `%s` must not be zero", name);
		cc->frequency = u;
		clock_prop_at(b, TSDL_CLOCK_FREQ, v);
	} else if (!strcmp(name, "precision")) {
		TRY(tsdl_value_uint(p, v, name, &cc->precision));
		clock_prop_at(b, TSDL_CLOCK_PRECISION, v);
	} else if (!strcmp(name, "offset_s")) {
		TRY(tsdl_value_int(p, v, name, &cc->offset_s));
		clock_prop_at(b, TSDL_CLOCK_OFFSET_S, v);
	} else if (!strcmp(name, "offset")) {
		TRY(tsdl_value_uint(p, v, name, &cc->offset_cycles));
		clock_prop_at(b, TSDL_CLOCK_OFFSET, v);
	} else if (!strcmp(name, "absolute")) {
		TRY(tsdl_value_bool(p, v, name, &cc->absolute));
		clock_prop_at(b, TSDL_CLOCK_ABSOLUTE, v);
	} else {
		warn_unknown(p, v, "clock", name);
	}
	return TMX_OK;
}

/*
 * A clock named like an earlier one: babeltrace2's sink.ctf.fs writes the
 * same block once per stream class, so an identical repeat is dropped
 * (*dup set); a different one is an error at the first differing property.
 */
static int clock_repeat(struct tsdl_parser *p, const struct clock_block *b, bool *dup)
{
	const struct tmx_trace_class *tc = p->tc;
	char here[160], there[160];

	*dup = false;
	for (size_t i = 0; i < tc->n_clocks; i++) {
		const struct tsdl_clock_decl *first = &p->clock_decls[i];
		enum tsdl_clock_prop prop;
		uint32_t line, col, first_line, first_col;

		if (strcmp(tc->clocks[i]->name, b->cc->name))
			continue;
		prop = tsdl_clock_diff(b->cc, tc->clocks[i], here, there, sizeof(here));
		if (prop == TSDL_CLOCK_N_PROPS) {
			*dup = true;
			return TMX_OK;
		}
		/* Point at the property where it is written, else at the block. */
		line = b->decl.prop_line[prop] ? b->decl.prop_line[prop] : b->decl.line;
		col = b->decl.prop_line[prop] ? b->decl.prop_col[prop] : b->decl.col;
		first_line = first->prop_line[prop] ? first->prop_line[prop] : first->line;
		first_col = first->prop_line[prop] ? first->prop_col[prop] : first->col;
		return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, line, col,
					 "clock `%s` declared again with a different `%s`: %s here, "
					 "%s at %u:%u",
					 b->cc->name, tsdl_clock_prop_name(prop), here, there,
					 first_line, first_col);
	}
	return TMX_OK;
}

static int parse_clock(struct tsdl_parser *p)
{
	struct tmx_trace_class *tc = p->tc;
	struct clock_block b = { .cc = tmx_arena_alloc(p->arena, sizeof(*b.cc)) };
	struct tmx_clock_class **all;
	struct tsdl_clock_decl *decls;
	bool dup;

	if (!b.cc)
		return nomem(p);
	b.decl.line = p->lx.tok.line;
	b.decl.col = p->lx.tok.col;
	b.cc->frequency = 1000000000;
	TRY(next(p));
	TRY(parse_block(p, &b, clock_attr, NULL));
	if (!b.cc->name)
		return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, b.decl.line,
					 b.decl.col, "clock block has no `%s`", "name");
	/* babeltrace2 keeps offset_cycles below the frequency. */
	tmx_clock_add_offset(b.cc, 0, 0);
	b.cc->origin_is_unix_epoch = b.cc->absolute;
	TRY(clock_repeat(p, &b, &dup));
	if (dup)
		return TMX_OK;
	all = arena_room(p, tc->clocks, tc->n_clocks, sizeof(*all));
	decls = arena_room(p, p->clock_decls, tc->n_clocks, sizeof(*decls));
	if (!all || !decls)
		return nomem(p);
	decls[tc->n_clocks] = b.decl;
	all[tc->n_clocks++] = b.cc;
	tc->clocks = all;
	p->clock_decls = decls;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* stream and event                                                     */
/* ------------------------------------------------------------------ */

static int stream_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct tmx_stream_class *sc = obj;

	if (!strcmp(name, "id")) {
		TRY(tsdl_value_uint(p, v, name, &sc->id));
		sc->id_is_set = true;
	} else {
		warn_unknown(p, v, "stream", name);
	}
	return TMX_OK;
}

static int stream_assign(struct tsdl_parser *p, void *obj, const char *name,
			 struct tmx_field_class *fc)
{
	struct tmx_stream_class *sc = obj;

	if (fc->kind != TMX_FC_STRUCT)
		return tsdl_error(p, "`%s` must be a structure", name);
	if (!strcmp(name, "packet.context"))
		sc->packet_context = fc;
	else if (!strcmp(name, "event.header"))
		sc->event_header = fc;
	else if (!strcmp(name, "event.context"))
		sc->event_common_context = fc;
	else
		warn_unknown_scope(p, "stream", name);
	return TMX_OK;
}

static int parse_stream(struct tsdl_parser *p)
{
	struct tmx_trace_class *tc = p->tc;
	struct tmx_stream_class *sc = tmx_arena_alloc(p->arena, sizeof(*sc));
	struct tmx_stream_class **all;
	uint32_t line = p->lx.tok.line, col = p->lx.tok.col;

	if (!sc)
		return nomem(p);
	sc->trace_class = tc;
	TRY(next(p));
	TRY(parse_block(p, sc, stream_attr, stream_assign));
	for (size_t i = 0; i < tc->n_stream_classes; i++)
		if (tc->stream_classes[i]->id == sc->id)
			return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, line, col,
						 "duplicate stream class ID %s",
						 sc->id_is_set ? "" : "(none given)");
	all = arena_room(p, tc->stream_classes, tc->n_stream_classes, sizeof(*all));
	if (!all)
		return nomem(p);
	all[tc->n_stream_classes++] = sc;
	tc->stream_classes = all;
	return TMX_OK;
}

static int event_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct tsdl_event *ev = obj;
	struct tmx_event_class *ec = ev->ec;
	uint64_t u = 0;
	int64_t s = 0;

	if (!strcmp(name, "name")) {
		if (v->kind == VAL_INT)
			return value_error(p, v, "event `%s` expects a name", name);
		ec->name = v->str;
	} else if (!strcmp(name, "id")) {
		TRY(tsdl_value_uint(p, v, name, &ec->id));
		ev->has_id = true;
	} else if (!strcmp(name, "stream_id")) {
		TRY(tsdl_value_uint(p, v, name, &u));
		ev->stream_id = u;
		ev->has_stream_id = true;
	} else if (!strcmp(name, "loglevel")) {
		TRY(tsdl_value_int(p, v, name, &s));
		ec->log_level = (int)(s < INT32_MIN ? INT32_MIN : s > INT32_MAX ? INT32_MAX : s);
	} else if (!strcmp(name, "model.emf.uri")) {
		if (v->kind != VAL_STRING)
			return value_error(p, v, "`%s` expects a string", name);
		ec->emf_uri = v->str;
	} else {
		warn_unknown(p, v, "event", name);
	}
	return TMX_OK;
}

static int event_assign(struct tsdl_parser *p, void *obj, const char *name,
			struct tmx_field_class *fc)
{
	struct tsdl_event *ev = obj;

	if (fc->kind != TMX_FC_STRUCT)
		return tsdl_error(p, "`%s` must be a structure", name);
	if (!strcmp(name, "context"))
		ev->ec->specific_context = fc;
	else if (!strcmp(name, "fields"))
		ev->ec->payload = fc;
	else
		warn_unknown_scope(p, "event", name);
	return TMX_OK;
}

static int parse_event(struct tsdl_parser *p)
{
	struct tsdl_event *ev = tmx_arena_alloc(p->arena, sizeof(*ev));
	struct tsdl_event *all;

	if (!ev || !(ev->ec = tmx_arena_alloc(p->arena, sizeof(*ev->ec))))
		return nomem(p);
	ev->ec->log_level = TMX_LOG_LEVEL_NONE;
	ev->line = p->lx.tok.line;
	ev->col = p->lx.tok.col;
	TRY(next(p));
	TRY(parse_block(p, ev, event_attr, event_assign));
	if (!ev->ec->name)
		return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, ev->line, ev->col,
					 "event block has no `%s`", "name");
	all = arena_room(p, p->events, p->n_events, sizeof(*all));
	if (!all)
		return nomem(p);
	all[p->n_events++] = *ev;
	p->events = all;
	return TMX_OK;
}

static int callsite_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	(void)p;
	(void)obj;
	(void)name;
	(void)v;
	return TMX_OK;   /* parsed and ignored, as babeltrace2 does */
}

/* ------------------------------------------------------------------ */
/* The metadata                                                         */
/* ------------------------------------------------------------------ */

int tsdl_parse_top_level(struct tsdl_parser *p)
{
	const struct tsdl_token *t = &p->lx.tok;

	while (t->kind != TOK_EOF) {
		int ret;

		if (accept_punct(p, ";", &ret)) {   /* stray semicolons are allowed */
			TRY(ret);
		} else if (tsdl_is_ident(t, "trace")) {
			if (p->has_trace)
				return tsdl_error(p, "duplicate %s block", "trace");
			p->has_trace = true;
			TRY(next(p));
			TRY(parse_block(p, p->tc, trace_attr, trace_assign));
		} else if (tsdl_is_ident(t, "env")) {
			TRY(next(p));
			TRY(parse_block(p, p->tc, env_attr, NULL));
		} else if (tsdl_is_ident(t, "clock")) {
			TRY(parse_clock(p));
		} else if (tsdl_is_ident(t, "stream")) {
			TRY(parse_stream(p));
		} else if (tsdl_is_ident(t, "event")) {
			TRY(parse_event(p));
		} else if (tsdl_is_ident(t, "callsite")) {
			TRY(next(p));
			TRY(parse_block(p, NULL, callsite_attr, NULL));
		} else if (tsdl_is_ident(t, "typealias")) {
			TRY(tsdl_parse_typealias(p));
		} else if (tsdl_is_ident(t, "typedef")) {
			TRY(tsdl_parse_typedef(p));
		} else if (tsdl_is_ident(t, "struct") || tsdl_is_ident(t, "variant") ||
			   tsdl_is_ident(t, "enum")) {
			struct tmx_field_class *unused;
			TRY(tsdl_parse_type_spec(p, &unused));
			TRY(tsdl_expect_punct(p, ";"));
		} else {
			return tsdl_expected(p, "`trace`, `env`, `clock`, `stream`, `event`, "
					     "`typealias`, `typedef` or a type declaration");
		}
	}
	return TMX_OK;
}

