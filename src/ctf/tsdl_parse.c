/*
 * TSDL parser (CTF 1.8 spec, section 7 and appendix C) building the common
 * model's classes directly, then a resolution pass (tsdl_resolve.c) that
 * binds sequence lengths and variant tags, byte orders, meanings and clocks.
 *
 * Every use of a named type (typealias, typedef, named struct/variant/enum)
 * is a deep copy, so that each field has its own class instance.
 *
 * This file: tokens, scopes, field classes, attribute values and the entry
 * point; the other parts are listed in tsdl_parse_impl.h.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf/tsdl_parse_impl.h"

/* ------------------------------------------------------------------ */
/* Errors and tokens                                                    */
/* ------------------------------------------------------------------ */

int tsdl_error(struct tsdl_parser *p, const char *fmt, const char *arg)
{
	return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, p->lx.tok.line,
				 p->lx.tok.col, fmt, arg);
}

const char *tsdl_tok_text(struct tsdl_parser *p)
{
	static __thread char buf[64];
	const struct tsdl_token *t = &p->lx.tok;

	if (t->kind == TOK_EOF)
		return "end of metadata";
	snprintf(buf, sizeof(buf), "`%.*s`", (int)(t->len > 40 ? 40 : t->len), t->start);
	return buf;
}

int tsdl_expected(struct tsdl_parser *p, const char *what)
{
	char msg[256];
	snprintf(msg, sizeof(msg), "expected %s, found %%s", what);
	return tsdl_error(p, msg, tsdl_tok_text(p));
}

int tsdl_check_name(struct tsdl_parser *p, const char *what)
{
	char msg[256];

	if (p->lx.tok.kind != TOK_IDENT || tsdl_keyword(p->lx.tok.str) == TSDL_NOT_KEYWORD)
		return TMX_OK;
	snprintf(msg, sizeof(msg), "%%s is a reserved keyword, expected %s", what);
	return tsdl_error(p, msg, tsdl_tok_text(p));
}

int tsdl_expect_punct(struct tsdl_parser *p, const char *punct)
{
	char what[16];

	if (!tsdl_is_punct(&p->lx.tok, punct)) {
		snprintf(what, sizeof(what), "`%s`", punct);
		return tsdl_expected(p, what);
	}
	return next(p);
}

/* ------------------------------------------------------------------ */
/* Lexical scopes of type names                                         */
/* ------------------------------------------------------------------ */

int tsdl_scope_push(struct tsdl_parser *p)
{
	struct tsdl_scope *s = tmx_arena_alloc(p->arena, sizeof(*s));

	if (!s)
		return nomem(p);
	s->parent = p->scope;
	p->scope = s;
	return TMX_OK;
}

static struct tsdl_alias *scope_find_local(struct tsdl_scope *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->aliases[i].name, name))
			return &s->aliases[i];
	return NULL;
}

struct tmx_field_class *tsdl_lookup_type(struct tsdl_parser *p, const char *name)
{
	for (struct tsdl_scope *s = p->scope; s; s = s->parent) {
		struct tsdl_alias *a = scope_find_local(s, name);
		if (a)
			return a->fc;
	}
	return NULL;
}

/* Whether some visible alias is `name` or starts with `name `. */
bool tsdl_is_type_prefix(struct tsdl_parser *p, const char *name)
{
	size_t l = strlen(name);

	for (struct tsdl_scope *s = p->scope; s; s = s->parent)
		for (size_t i = 0; i < s->n; i++)
			if (!strncmp(s->aliases[i].name, name, l) &&
			    (s->aliases[i].name[l] == '\0' || s->aliases[i].name[l] == ' '))
				return true;
	return false;
}

int tsdl_add_type(struct tsdl_parser *p, const char *name, struct tmx_field_class *fc)
{
	struct tsdl_scope *s = p->scope;

	if (scope_find_local(s, name))
		return tsdl_error(p, "type `%s` is already declared in this scope", name);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct tsdl_alias *a = tmx_arena_grow(p->arena, s->aliases, s->n, cap, sizeof(*a));
		if (!a)
			return nomem(p);
		s->aliases = a;
		s->cap = cap;
	}
	s->aliases[s->n].name = tmx_arena_strdup(p->arena, name);
	s->aliases[s->n].fc = fc;
	if (!s->aliases[s->n].name)
		return nomem(p);
	s->n++;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Field classes                                                        */
/* ------------------------------------------------------------------ */

struct tmx_field_class *tsdl_fc_new(struct tsdl_parser *p, enum tmx_fc_kind kind)
{
	struct tmx_field_class *fc = tmx_arena_alloc(p->arena, sizeof(*fc));

	if (!fc)
		return NULL;
	fc->kind = kind;
	fc->line = p->lx.tok.line;
	fc->col = p->lx.tok.col;
	fc->align = 1;
	fc->slot = -1;
	fc->ref_slot = -1;
	fc->base = 10;
	fc->byte_order = TSDL_BO_NATIVE;
	return fc;
}

/*
 * Copies are where a hostile metadata multiplies: two members of a type
 * that has two members of a type... (a "billion laughs"), or aliases of
 * arrays of aliases.  Both are bounded.
 */
static int copy_fc(struct tsdl_parser *p, const struct tmx_field_class *src, unsigned depth,
		   struct tmx_field_class **out)
{
	struct tmx_field_class *fc;

	if (depth > TSDL_MAX_TYPE_DEPTH)
		return tsdl_error(p, "types nested more than %s levels deep", "256");
	if (++p->n_copies > TSDL_MAX_COPIES)
		return tsdl_error(p, "the metadata's types expand to more than %s fields", "1048576");
	if (!(fc = tmx_arena_alloc(p->arena, sizeof(*fc))))
		return nomem(p);
	*fc = *src;
	if (src->n_members) {
		fc->members = tmx_arena_calloc(p->arena, src->n_members, sizeof(*fc->members));
		if (!fc->members)
			return nomem(p);
		for (size_t i = 0; i < src->n_members; i++) {
			fc->members[i].name = src->members[i].name;
			TRY(copy_fc(p, src->members[i].fc, depth + 1, &fc->members[i].fc));
		}
	}
	if (src->elem)
		TRY(copy_fc(p, src->elem, depth + 1, &fc->elem));
	*out = fc;
	return TMX_OK;
}

int tsdl_fc_copy(struct tsdl_parser *p, const struct tmx_field_class *src,
		 struct tmx_field_class **out)
{
	return copy_fc(p, src, 0, out);
}

/* ------------------------------------------------------------------ */
/* Attribute values: `name = value;`                                    */
/* ------------------------------------------------------------------ */

/*
 * Dotted identifier path: a.b.c.  Keywords may be components (`stream.
 * packet.context`, `align = 8`, `name = int`) except `typealias`, which
 * babeltrace2's grammar leaves out of its expressions.
 */
int tsdl_parse_dotted(struct tsdl_parser *p, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (;;) {
		size_t l;
		if (p->lx.tok.kind != TOK_IDENT)
			return tsdl_expected(p, "an identifier");
		if (!strcmp(p->lx.tok.str, "typealias"))
			return tsdl_error(p, "%s is a reserved keyword, expected an identifier",
					  tsdl_tok_text(p));
		l = strlen(p->lx.tok.str);
		if (n + l + 2 > size)
			return tsdl_error(p, "%s: name too long", tsdl_tok_text(p));
		memcpy(buf + n, p->lx.tok.str, l + 1);
		n += l;
		TRY(next(p));
		if (!tsdl_is_punct(&p->lx.tok, "."))
			return TMX_OK;
		buf[n++] = '.';
		buf[n] = '\0';
		TRY(next(p));
	}
}

int tsdl_parse_ref_path(struct tsdl_parser *p, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (;;) {
		const struct tsdl_token *t = &p->lx.tok;
		uint32_t line = t->line, col = t->col;
		bool scope_word = tsdl_is_ident(t, "trace") || tsdl_is_ident(t, "stream") ||
				  tsdl_is_ident(t, "event") || tsdl_is_ident(t, "env");
		size_t l;

		if (t->kind != TOK_IDENT)
			return tsdl_expected(p, "a field name");
		if (!scope_word)
			TRY(tsdl_check_name(p, "a field name"));
		l = strlen(t->str);
		if (n + l + 2 > size)
			return tsdl_error(p, "%s: name too long", tsdl_tok_text(p));
		memcpy(buf + n, t->str, l + 1);
		n += l;
		TRY(next(p));
		if (!tsdl_is_punct(&p->lx.tok, ".")) {
			if (scope_word)
				return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, line, col,
							 "`%s` is a reserved keyword, expected a "
							 "field name", buf + n - l);
			return TMX_OK;
		}
		buf[n++] = '.';
		buf[n] = '\0';
		TRY(next(p));
	}
}

int tsdl_parse_value(struct tsdl_parser *p, struct value *v)
{
	char path[512];
	int ret;

	memset(v, 0, sizeof(*v));
	v->line = p->lx.tok.line;
	v->col = p->lx.tok.col;
	if (accept_punct(p, "-", &ret)) {
		TRY(ret);
		v->negative = true;
	} else if (accept_punct(p, "+", &ret)) {
		TRY(ret);
	}
	switch (p->lx.tok.kind) {
	case TOK_INT:
	case TOK_CHAR:
		v->kind = VAL_INT;
		v->magnitude = p->lx.tok.value;
		return next(p);
	case TOK_STRING:
		if (v->negative)
			return tsdl_expected(p, "an integer after `-`");
		v->kind = VAL_STRING;
		v->str = tmx_arena_strdup(p->arena, p->lx.tok.str);
		return v->str ? next(p) : nomem(p);
	case TOK_IDENT:
		if (v->negative)
			return tsdl_expected(p, "an integer after `-`");
		v->kind = VAL_IDENT;
		TRY(tsdl_parse_dotted(p, path, sizeof(path)));
		v->str = tmx_arena_strdup(p->arena, path);
		return v->str ? TMX_OK : nomem(p);
	default:
		return tsdl_expected(p, "a value");
	}
}

int tsdl_value_uint(struct tsdl_parser *p, const struct value *v, const char *attr,
		    uint64_t *out)
{
	if (v->kind != VAL_INT || v->negative)
		return value_error(p, v, "attribute `%s` expects a non-negative integer", attr);
	*out = v->magnitude;
	return TMX_OK;
}

int tsdl_value_int(struct tsdl_parser *p, const struct value *v, const char *attr,
		   int64_t *out)
{
	if (v->kind != VAL_INT)
		return value_error(p, v, "attribute `%s` expects an integer", attr);
	if (v->negative ? v->magnitude > (uint64_t)INT64_MAX + 1 : v->magnitude > INT64_MAX)
		return value_error(p, v, "attribute `%s`: integer out of range", attr);
	*out = v->negative ? (int64_t)(0 - v->magnitude) : (int64_t)v->magnitude;
	return TMX_OK;
}

/* Keyword values of an attribute (`le`, `hex`, `UTF8`...). */
struct keyword {
	const char *name;
	uint8_t value;
};

static int value_keyword(struct tsdl_parser *p, const struct value *v, const char *attr,
			 const struct keyword *kw, size_t n, const char *expected, uint8_t *out)
{
	if (v->kind == VAL_IDENT)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(v->str, kw[i].name)) {
				*out = kw[i].value;
				return TMX_OK;
			}
	return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, v->line, v->col,
				 "attribute `%s` expects %s", attr, expected);
}

#define N_KEYWORDS(a) (sizeof(a) / sizeof((a)[0]))

int tsdl_value_bool(struct tsdl_parser *p, const struct value *v, const char *attr, bool *out)
{
	static const struct keyword kw[] = {
		{ "true", 1 }, { "TRUE", 1 }, { "false", 0 }, { "FALSE", 0 },
	};
	uint8_t b = 0;

	if (v->kind == VAL_INT && !v->negative && v->magnitude <= 1) {
		*out = v->magnitude;
		return TMX_OK;
	}
	TRY(value_keyword(p, v, attr, kw, N_KEYWORDS(kw), "a boolean", &b));
	*out = b;
	return TMX_OK;
}

int tsdl_value_byte_order(struct tsdl_parser *p, const struct value *v, uint8_t *out)
{
	static const struct keyword kw[] = {
		{ "le", TMX_BO_LE }, { "be", TMX_BO_BE }, { "network", TMX_BO_BE },
		{ "native", TSDL_BO_NATIVE },
	};
	return value_keyword(p, v, "byte_order", kw, N_KEYWORDS(kw), "le, be, network or native",
			     out);
}

int tsdl_value_encoding(struct tsdl_parser *p, const struct value *v, uint8_t *out)
{
	static const struct keyword kw[] = {
		{ "UTF8", TMX_ENC_UTF8 }, { "utf8", TMX_ENC_UTF8 }, { "ASCII", TMX_ENC_ASCII },
		{ "ascii", TMX_ENC_ASCII }, { "none", TMX_ENC_NONE },
	};
	return value_keyword(p, v, "encoding", kw, N_KEYWORDS(kw), "UTF8, ASCII or none", out);
}

int tsdl_value_base(struct tsdl_parser *p, const struct value *v, uint8_t *out)
{
	static const struct keyword kw[] = {
		{ "decimal", 10 }, { "dec", 10 }, { "d", 10 }, { "i", 10 }, { "u", 10 },
		{ "hexadecimal", 16 }, { "hex", 16 }, { "x", 16 }, { "X", 16 }, { "p", 16 },
		{ "octal", 8 }, { "oct", 8 }, { "o", 8 }, { "binary", 2 }, { "bin", 2 }, { "b", 2 },
	};

	if (v->kind == VAL_INT && !v->negative &&
	    (v->magnitude == 2 || v->magnitude == 8 || v->magnitude == 10 || v->magnitude == 16)) {
		*out = (uint8_t)v->magnitude;
		return TMX_OK;
	}
	return value_keyword(p, v, "base", kw, N_KEYWORDS(kw), "2, 8, 10, 16 or a base name", out);
}

int tsdl_check_not_seen(struct tsdl_parser *p, struct seen_names *seen, const char *name)
{
	for (size_t i = 0; i < seen->n; i++)
		if (!strcmp(seen->names[i], name))
			return tsdl_error(p, "duplicate attribute `%s`", name);
	if (seen->n < sizeof(seen->names) / sizeof(seen->names[0])) {
		if (!(seen->names[seen->n] = tmx_arena_strdup(p->arena, name)))
			return nomem(p);
		seen->n++;
	}
	return TMX_OK;
}

int tsdl_value_align(struct tsdl_parser *p, const struct value *v, uint32_t *out)
{
	uint64_t u = 0;

	TRY(tsdl_value_uint(p, v, "align", &u));
	if (!is_power_of_two(u) || u > (1u << 30))
		return value_error(p, v, "`%s` must be a power of two", "align");
	*out = (uint32_t)u;
	return TMX_OK;
}

/* Parses `{ name = value; ... }` calling `attr` for each. */
int tsdl_parse_attr_block(struct tsdl_parser *p, void *obj,
			  int (*attr)(struct tsdl_parser *, void *, const char *,
				      const struct value *))
{
	struct seen_names seen = { .n = 0 };
	char name[512];
	struct value v;

	int ret;

	TRY(tsdl_expect_punct(p, "{"));
	while (!tsdl_is_punct(&p->lx.tok, "}")) {
		if (accept_punct(p, ";", &ret)) {   /* stray semicolons are allowed */
			TRY(ret);
			continue;
		}
		TRY(tsdl_parse_dotted(p, name, sizeof(name)));
		TRY(tsdl_check_not_seen(p, &seen, name));
		TRY(tsdl_expect_punct(p, "="));
		TRY(tsdl_parse_value(p, &v));
		TRY(attr(p, obj, name, &v));
		TRY(tsdl_expect_punct(p, ";"));
	}
	return next(p);
}

/* ------------------------------------------------------------------ */
/* The entry point                                                      */
/* ------------------------------------------------------------------ */

int ctf_tsdl_parse(const char *text, size_t len, const char *name,
		       const struct tmx_diag *diag, struct tmx_arena *arena,
		       struct tmx_trace_class **out, struct tmx_error *err)
{
	struct tsdl_parser p = { 0 };
	int ret;

	*out = NULL;
	if (len > CTF_METADATA_MAX_SIZE)
		return tmx_error_set(err, TMX_ERR_LIMIT, name, "metadata larger than %u bytes",
				     CTF_METADATA_MAX_SIZE);
	p.arena = arena;
	p.err = err;
	p.diag = diag;
	p.name = name;
	p.tc = tmx_arena_alloc(arena, sizeof(struct tmx_trace_class_impl));
	if (!p.tc)
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	tsdl_lex_init(&p.lx, text, len, name);
	ret = tsdl_scope_push(&p);
	if (!ret)
		ret = next(&p);
	if (!ret)
		ret = tsdl_parse_top_level(&p);
	if (!ret)
		ret = tsdl_resolve(&p);
	tsdl_lex_fini(&p.lx);
	if (!ret)
		*out = p.tc;
	return ret;
}
