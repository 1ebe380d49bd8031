/*
 * TSDL parser (CTF 1.8 spec, section 7 and appendix C) building the common
 * model's classes directly, then a resolution pass (tsdl_resolve.c) that
 * binds sequence lengths and variant tags, byte orders, meanings and clocks.
 *
 * Every use of a named type (typealias, typedef, named struct/variant/enum)
 * is a deep copy, so that each field has its own class instance.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf/tsdl.h"
#include "model/errors.h"
#include "model/field_class.h"

#define TRY(x) do { int ret_ = (x); if (ret_) return ret_; } while (0)

/* ------------------------------------------------------------------ */
/* Errors and tokens                                                    */
/* ------------------------------------------------------------------ */

int tsdl_error(struct tsdl_parser *p, const char *fmt, const char *arg)
{
	return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, p->lx.tok.line,
				 p->lx.tok.col, fmt, arg);
}

static int nomem(struct tsdl_parser *p)
{
	return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
}

static const char *tok_text(struct tsdl_parser *p)
{
	static __thread char buf[64];
	const struct tsdl_token *t = &p->lx.tok;

	if (t->kind == TOK_EOF)
		return "end of metadata";
	snprintf(buf, sizeof(buf), "`%.*s`", (int)(t->len > 40 ? 40 : t->len), t->start);
	return buf;
}

static int next(struct tsdl_parser *p)
{
	return tsdl_lex_next(&p->lx, p->err);
}

static int expected(struct tsdl_parser *p, const char *what)
{
	char msg[256];
	snprintf(msg, sizeof(msg), "expected %s, found %%s", what);
	return tsdl_error(p, msg, tok_text(p));
}

static int expect_punct(struct tsdl_parser *p, const char *punct)
{
	char what[16];

	if (!tsdl_is_punct(&p->lx.tok, punct)) {
		snprintf(what, sizeof(what), "`%s`", punct);
		return expected(p, what);
	}
	return next(p);
}

/* Consumes `punct` if it is next; *ret is the status of that (TMX_OK if absent). */
static bool accept_punct(struct tsdl_parser *p, const char *punct, int *ret)
{
	*ret = TMX_OK;
	if (!tsdl_is_punct(&p->lx.tok, punct))
		return false;
	*ret = next(p);
	return true;
}

static char *take_ident(struct tsdl_parser *p)
{
	return tmx_arena_strdup(p->arena, p->lx.tok.str);
}

/* ------------------------------------------------------------------ */
/* Lexical scopes of type names                                         */
/* ------------------------------------------------------------------ */

static int scope_push(struct tsdl_parser *p)
{
	struct tsdl_scope *s = tmx_arena_alloc(p->arena, sizeof(*s));

	if (!s)
		return nomem(p);
	s->parent = p->scope;
	p->scope = s;
	return TMX_OK;
}

static void scope_pop(struct tsdl_parser *p)
{
	p->scope = p->scope->parent;
}

static struct tsdl_alias *scope_find_local(struct tsdl_scope *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->aliases[i].name, name))
			return &s->aliases[i];
	return NULL;
}

static struct tmx_field_class *lookup_type(struct tsdl_parser *p, const char *name)
{
	for (struct tsdl_scope *s = p->scope; s; s = s->parent) {
		struct tsdl_alias *a = scope_find_local(s, name);
		if (a)
			return a->fc;
	}
	return NULL;
}

/* Whether some visible alias is `name` or starts with `name `. */
static bool is_type_prefix(struct tsdl_parser *p, const char *name)
{
	size_t l = strlen(name);

	for (struct tsdl_scope *s = p->scope; s; s = s->parent)
		for (size_t i = 0; i < s->n; i++)
			if (!strncmp(s->aliases[i].name, name, l) &&
			    (s->aliases[i].name[l] == '\0' || s->aliases[i].name[l] == ' '))
				return true;
	return false;
}

static int add_type(struct tsdl_parser *p, const char *name, struct tmx_field_class *fc)
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

static struct tmx_field_class *fc_new(struct tsdl_parser *p, enum tmx_fc_kind kind)
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

enum value_kind { VAL_INT, VAL_STRING, VAL_IDENT };

struct value {
	enum value_kind kind;
	bool negative;     /* VAL_INT: -magnitude */
	uint64_t magnitude;
	char *str;         /* VAL_STRING, VAL_IDENT (dotted path joined with '.') */
	uint32_t line, col;
};

/* Dotted identifier path: a.b.c (keywords allowed as components). */
static int parse_dotted(struct tsdl_parser *p, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (;;) {
		size_t l;
		if (p->lx.tok.kind != TOK_IDENT)
			return expected(p, "an identifier");
		l = strlen(p->lx.tok.str);
		if (n + l + 2 > size)
			return tsdl_error(p, "%s: name too long", tok_text(p));
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

static int parse_value(struct tsdl_parser *p, struct value *v)
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
			return expected(p, "an integer after `-`");
		v->kind = VAL_STRING;
		v->str = tmx_arena_strdup(p->arena, p->lx.tok.str);
		return v->str ? next(p) : nomem(p);
	case TOK_IDENT:
		if (v->negative)
			return expected(p, "an integer after `-`");
		v->kind = VAL_IDENT;
		TRY(parse_dotted(p, path, sizeof(path)));
		v->str = tmx_arena_strdup(p->arena, path);
		return v->str ? TMX_OK : nomem(p);
	default:
		return expected(p, "a value");
	}
}

static int value_error(struct tsdl_parser *p, const struct value *v, const char *fmt,
		       const char *attr)
{
	return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, v->line, v->col, fmt, attr);
}

static int value_uint(struct tsdl_parser *p, const struct value *v, const char *attr,
		      uint64_t *out)
{
	if (v->kind != VAL_INT || v->negative)
		return value_error(p, v, "attribute `%s` expects a non-negative integer", attr);
	*out = v->magnitude;
	return TMX_OK;
}

static int value_int(struct tsdl_parser *p, const struct value *v, const char *attr,
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

static int value_bool(struct tsdl_parser *p, const struct value *v, const char *attr, bool *out)
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

static int value_byte_order(struct tsdl_parser *p, const struct value *v, uint8_t *out)
{
	static const struct keyword kw[] = {
		{ "le", TMX_BO_LE }, { "be", TMX_BO_BE }, { "network", TMX_BO_BE },
		{ "native", TSDL_BO_NATIVE },
	};
	return value_keyword(p, v, "byte_order", kw, N_KEYWORDS(kw), "le, be, network or native",
			     out);
}

static int value_encoding(struct tsdl_parser *p, const struct value *v, uint8_t *out)
{
	static const struct keyword kw[] = {
		{ "UTF8", TMX_ENC_UTF8 }, { "utf8", TMX_ENC_UTF8 }, { "ASCII", TMX_ENC_ASCII },
		{ "ascii", TMX_ENC_ASCII }, { "none", TMX_ENC_NONE },
	};
	return value_keyword(p, v, "encoding", kw, N_KEYWORDS(kw), "UTF8, ASCII or none", out);
}

static int value_base(struct tsdl_parser *p, const struct value *v, uint8_t *out)
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

static bool is_power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Names already set in one block: an attribute may appear once. */
struct seen_names {
	const char *names[64];
	size_t n;
};

static int check_not_seen(struct tsdl_parser *p, struct seen_names *seen, const char *name)
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

static int value_align(struct tsdl_parser *p, const struct value *v, uint32_t *out)
{
	uint64_t u = 0;

	TRY(value_uint(p, v, "align", &u));
	if (!is_power_of_two(u) || u > (1u << 30))
		return value_error(p, v, "`%s` must be a power of two", "align");
	*out = (uint32_t)u;
	return TMX_OK;
}

/* Parses `{ name = value; ... }` calling `attr` for each. */
static int parse_attr_block(struct tsdl_parser *p, void *obj,
			    int (*attr)(struct tsdl_parser *, void *, const char *,
					const struct value *))
{
	struct seen_names seen = { .n = 0 };
	char name[512];
	struct value v;

	int ret;

	TRY(expect_punct(p, "{"));
	while (!tsdl_is_punct(&p->lx.tok, "}")) {
		if (accept_punct(p, ";", &ret)) {   /* stray semicolons are allowed */
			TRY(ret);
			continue;
		}
		TRY(parse_dotted(p, name, sizeof(name)));
		TRY(check_not_seen(p, &seen, name));
		TRY(expect_punct(p, "="));
		TRY(parse_value(p, &v));
		TRY(attr(p, obj, name, &v));
		TRY(expect_punct(p, ";"));
	}
	return next(p);
}

static void warn_unknown(struct tsdl_parser *p, const struct value *v, const char *what,
			 const char *name)
{
	tmx_warn(p->diag, "%s:%u:%u: unknown %s attribute `%s` (ignored)", p->name, v->line,
		 v->col, what, name);
}

/* A scope assignment (`name := type`) no block of this kind has: ignored, as babeltrace2 does. */
static void warn_unknown_scope(struct tsdl_parser *p, const char *what, const char *name)
{
	tmx_warn(p->diag, "%s:%u:%u: unknown %s scope `%s` (ignored)", p->name, p->lx.tok.line,
		 p->lx.tok.col, what, name);
}

/* ------------------------------------------------------------------ */
/* integer, floating_point, string                                      */
/* ------------------------------------------------------------------ */

/* A class being built from an `integer { }` or `floating_point { }` block. */
struct type_attrs {
	struct tmx_field_class *fc;
	bool has_size, has_align;
};

/* A new class of `kind` and its attribute block; the default alignment after. */
static int parse_type_block(struct tsdl_parser *p, enum tmx_fc_kind kind,
			    int (*attr)(struct tsdl_parser *, void *, const char *,
					const struct value *),
			    struct type_attrs *ta)
{
	if (!(ta->fc = fc_new(p, kind)))
		return nomem(p);
	TRY(next(p));
	return parse_attr_block(p, ta, attr);
}

static void default_align(struct type_attrs *ta)
{
	if (!ta->has_align)
		ta->fc->align = ta->fc->size % 8 ? 1 : 8;
}

static int integer_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct type_attrs *ia = obj;
	struct tmx_field_class *fc = ia->fc;
	uint64_t u = 0;

	if (!strcmp(name, "size")) {
		TRY(value_uint(p, v, name, &u));
		if (u == 0 || u > 64)
			return value_error(p, v, "integer `%s` must be between 1 and 64", name);
		fc->size = (uint32_t)u;
		ia->has_size = true;
	} else if (!strcmp(name, "align")) {
		TRY(value_align(p, v, &fc->align));
		ia->has_align = true;
	} else if (!strcmp(name, "signed")) {
		TRY(value_bool(p, v, name, &fc->is_signed));
	} else if (!strcmp(name, "byte_order")) {
		TRY(value_byte_order(p, v, &fc->byte_order));
	} else if (!strcmp(name, "base")) {
		TRY(value_base(p, v, &fc->base));
	} else if (!strcmp(name, "encoding")) {
		TRY(value_encoding(p, v, &fc->encoding));
	} else if (!strcmp(name, "map")) {
		const char *c = v->str;
		size_t l;
		if (v->kind != VAL_IDENT || strncmp(c, "clock.", 6))
			return value_error(p, v, "`%s` expects clock.NAME.value", name);
		c += 6;
		l = strlen(c);
		if (l < 7 || strcmp(c + l - 6, ".value"))
			return value_error(p, v, "`%s` expects clock.NAME.value", name);
		/* The clock may be declared later: tsdl_resolve.c binds it. */
		fc->ref_path = v->str;
	} else {
		warn_unknown(p, v, "integer", name);
	}
	return TMX_OK;
}

static int parse_integer(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct type_attrs ia = { 0 };

	TRY(parse_type_block(p, TMX_FC_INT, integer_attr, &ia));
	if (!ia.has_size)
		return tsdl_error(p, "integer type before %s has no `size`", tok_text(p));
	default_align(&ia);
	*out = ia.fc;
	return TMX_OK;
}

static int float_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct type_attrs *fa = obj;
	struct tmx_field_class *fc = fa->fc;
	uint64_t u = 0;

	if (!strcmp(name, "exp_dig")) {
		TRY(value_uint(p, v, name, &u));
		fc->exp_dig = u > 64 ? 65 : (uint32_t)u;
	} else if (!strcmp(name, "mant_dig")) {
		TRY(value_uint(p, v, name, &u));
		fc->mant_dig = u > 64 ? 65 : (uint32_t)u;
	} else if (!strcmp(name, "align")) {
		TRY(value_align(p, v, &fc->align));
		fa->has_align = true;
	} else if (!strcmp(name, "byte_order")) {
		TRY(value_byte_order(p, v, &fc->byte_order));
	} else {
		warn_unknown(p, v, "floating_point", name);
	}
	return TMX_OK;
}

static int parse_float(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct type_attrs fa = { 0 };
	struct tmx_field_class *fc;

	TRY(parse_type_block(p, TMX_FC_FLOAT, float_attr, &fa));
	fc = fa.fc;
	fc->size = fc->exp_dig + fc->mant_dig;
	if (!((fc->exp_dig == 8 && fc->mant_dig == 24) || (fc->exp_dig == 11 && fc->mant_dig == 53)))
		return tsdl_error(p, "unsupported floating point type before %s: only 32-bit "
				  "(exp_dig 8, mant_dig 24) and 64-bit (11, 53) are supported",
				  tok_text(p));
	default_align(&fa);
	*out = fc;
	return TMX_OK;
}

static int string_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct tmx_field_class *fc = obj;

	if (!strcmp(name, "encoding"))
		return value_encoding(p, v, &fc->encoding);
	warn_unknown(p, v, "string", name);
	return TMX_OK;
}

static int parse_string(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct tmx_field_class *fc = fc_new(p, TMX_FC_STRING);

	if (!fc)
		return nomem(p);
	fc->align = 8;
	fc->encoding = TMX_ENC_UTF8;
	TRY(next(p));
	if (tsdl_is_punct(&p->lx.tok, "{"))
		TRY(parse_attr_block(p, fc, string_attr));
	*out = fc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Declarators, struct and variant bodies                               */
/* ------------------------------------------------------------------ */

static int parse_type_spec(struct tsdl_parser *p, struct tmx_field_class **out);
static int parse_typealias(struct tsdl_parser *p);
static int parse_typedef(struct tsdl_parser *p);

/* `unit_type name:size` (GNU/C bitfield, spec 4.1.6), after the name. */
static int parse_bitfield(struct tsdl_parser *p, const struct tmx_field_class *unit,
			  struct tmx_field_class **out)
{
	struct tmx_field_class *fc;

	TRY(next(p));   /* the `:` */
	if (p->lx.tok.kind != TOK_INT)
		return expected(p, "a bitfield size");
	if (unit->kind != TMX_FC_INT && unit->kind != TMX_FC_ENUM)
		return tsdl_error(p, "the unit type of a bitfield must be an integer type%s", "");
	if (!is_power_of_two(unit->size))
		return tsdl_error(p, "a bitfield unit type must be 8, 16, 32 or 64 bits wide%s", "");
	if (p->lx.tok.value == 0 || p->lx.tok.value > unit->size)
		return tsdl_error(p, "bitfield size %s does not fit its unit type", tok_text(p));
	TRY(tsdl_fc_copy(p, unit, &fc));
	fc->size = (uint32_t)p->lx.tok.value;
	fc->align = 1;
	fc->bitfield_unit = unit->size;
	*out = fc;
	return next(p);
}

/*
 * Parses a declarator after a type: `*`s (ignored), a name (optional for
 * typealias targets), then `[N]` / `[path]` suffixes that wrap the type in
 * arrays and sequences (outermost first, as in C).
 */
static int parse_declarator(struct tsdl_parser *p, const struct tmx_field_class *type,
			    bool need_name, char **name, struct tmx_field_class **out)
{
	struct tmx_field_class *dims[16];
	size_t n_dims = 0;
	struct tmx_field_class *fc;
	int ret;

	while (accept_punct(p, "*", &ret))
		TRY(ret);
	*name = NULL;
	if (p->lx.tok.kind == TOK_IDENT) {
		if (!(*name = take_ident(p)))
			return nomem(p);
		TRY(next(p));
	} else if (need_name) {
		return expected(p, "a field name");
	}
	if (tsdl_is_punct(&p->lx.tok, ":") && *name)
		return parse_bitfield(p, type, out);
	while (accept_punct(p, "[", &ret)) {
		struct tmx_field_class *dim;
		TRY(ret);
		if (n_dims == sizeof(dims) / sizeof(dims[0]))
			return tsdl_error(p, "too many array dimensions before %s", tok_text(p));
		if (p->lx.tok.kind == TOK_INT) {
			dim = fc_new(p, TMX_FC_ARRAY);
			if (!dim)
				return nomem(p);
			dim->length = p->lx.tok.value;
			TRY(next(p));
		} else if (p->lx.tok.kind == TOK_IDENT) {
			char path[512];
			dim = fc_new(p, TMX_FC_SEQUENCE);
			if (!dim)
				return nomem(p);
			TRY(parse_dotted(p, path, sizeof(path)));
			if (!(dim->ref_path = tmx_arena_strdup(p->arena, path)))
				return nomem(p);
		} else {
			return expected(p, "an array length or a sequence length field");
		}
		TRY(expect_punct(p, "]"));
		dims[n_dims++] = dim;
	}
	TRY(tsdl_fc_copy(p, type, &fc));
	/* `x[2][3]` is an array of 2 arrays of 3: the last suffix is innermost. */
	while (n_dims > 0) {
		struct tmx_field_class *dim = dims[--n_dims];
		dim->elem = fc;
		dim->align = fc->align;
		fc = dim;
	}
	*out = fc;
	return TMX_OK;
}

/*
 * `array` (n elements, arena-allocated) with room for element n.  The copy
 * doubles the capacity at powers of two, so adding N elements one by one
 * costs O(N) arena memory (the arena never frees an outgrown array).
 */
static void *arena_room(struct tsdl_parser *p, void *array, size_t n, size_t size)
{
	if (n != 0 && (n < 4 || (n & (n - 1))))
		return array;
	return tmx_arena_grow(p->arena, array, n, n ? 2 * n : 4, size);
}

static int add_member(struct tsdl_parser *p, struct tmx_field_class *parent, char *name,
		      struct tmx_field_class *fc)
{
	struct tmx_member *m;

	for (size_t i = 0; i < parent->n_members; i++)
		if (!strcmp(parent->members[i].name, name))
			return tsdl_error(p, "duplicate field or option `%s`", name);
	m = arena_room(p, parent->members, parent->n_members, sizeof(*m));
	if (!m)
		return nomem(p);
	parent->members = m;
	parent->members[parent->n_members].name = name;
	parent->members[parent->n_members].fc = fc;
	parent->n_members++;
	return TMX_OK;
}

/* `{ type decl, decl; typealias ...; ... }` of a struct or variant. */
static int parse_fields(struct tsdl_parser *p, struct tmx_field_class *parent)
{
	int ret;

	TRY(expect_punct(p, "{"));
	TRY(scope_push(p));
	while (!tsdl_is_punct(&p->lx.tok, "}")) {
		struct tmx_field_class *type;

		if (accept_punct(p, ";", &ret)) {   /* stray semicolons are allowed */
			TRY(ret);
			continue;
		}
		if (tsdl_is_ident(&p->lx.tok, "typealias")) {
			TRY(parse_typealias(p));
			continue;
		}
		if (tsdl_is_ident(&p->lx.tok, "typedef")) {
			TRY(parse_typedef(p));
			continue;
		}
		if (p->lx.tok.kind == TOK_EOF)
			return expected(p, "`}`");
		TRY(parse_type_spec(p, &type));
		if (accept_punct(p, ";", &ret)) {
			TRY(ret);
			continue;
		}
		do {
			char *name;
			struct tmx_field_class *fc;
			TRY(parse_declarator(p, type, true, &name, &fc));
			TRY(add_member(p, parent, name, fc));
		} while (accept_punct(p, ",", &ret) && !ret);
		TRY(ret);
		TRY(expect_punct(p, ";"));
	}
	scope_pop(p);
	return next(p);
}

/* The largest member alignment; a bitfield counts with its unit's (as GCC lays it out). */
static int struct_align(struct tmx_field_class *fc)
{
	for (size_t i = 0; i < fc->n_members; i++) {
		const struct tmx_field_class *m = fc->members[i].fc;
		uint32_t a = m->bitfield_unit > m->align ? m->bitfield_unit : m->align;
		if (a > fc->align)
			fc->align = a;
	}
	return TMX_OK;
}

/* struct [NAME] [{ ... }] [align(N)] */
static int parse_struct(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct tmx_field_class *fc;
	char *name = NULL;
	char key[600];

	TRY(next(p));
	if (p->lx.tok.kind == TOK_IDENT) {
		if (!(name = take_ident(p)))
			return nomem(p);
		TRY(next(p));
	}
	if (!tsdl_is_punct(&p->lx.tok, "{")) {
		const struct tmx_field_class *named;
		if (!name)
			return expected(p, "`{` or a structure name");
		snprintf(key, sizeof(key), "struct %s", name);
		named = lookup_type(p, key);
		if (!named)
			return tsdl_error(p, "unknown structure `%s`", name);
		return tsdl_fc_copy(p, named, out);
	}
	if (!(fc = fc_new(p, TMX_FC_STRUCT)))
		return nomem(p);
	TRY(parse_fields(p, fc));
	struct_align(fc);
	if (tsdl_is_ident(&p->lx.tok, "align")) {
		uint64_t a;
		TRY(next(p));
		TRY(expect_punct(p, "("));
		if (p->lx.tok.kind != TOK_INT)
			return expected(p, "an alignment");
		a = p->lx.tok.value;
		if (!is_power_of_two(a) || a > (1u << 30))
			return tsdl_error(p, "structure alignment %s is not a power of two", tok_text(p));
		if (a > fc->align)
			fc->align = (uint32_t)a;
		TRY(next(p));
		TRY(expect_punct(p, ")"));
	}
	if (name) {
		snprintf(key, sizeof(key), "struct %s", name);
		TRY(add_type(p, key, fc));
	}
	*out = fc;
	return TMX_OK;
}

/* variant [NAME] [<tag>] [{ ... }] */
static int parse_variant(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct tmx_field_class *fc;
	char *name = NULL, *tag = NULL;
	char key[600];
	int ret;

	TRY(next(p));
	if (p->lx.tok.kind == TOK_IDENT) {
		if (!(name = take_ident(p)))
			return nomem(p);
		TRY(next(p));
	}
	if (accept_punct(p, "<", &ret)) {
		char path[512];
		TRY(ret);
		TRY(parse_dotted(p, path, sizeof(path)));
		TRY(expect_punct(p, ">"));
		if (!(tag = tmx_arena_strdup(p->arena, path)))
			return nomem(p);
	}
	if (!tsdl_is_punct(&p->lx.tok, "{")) {
		const struct tmx_field_class *named;
		if (!name)
			return expected(p, "`{` or a variant name");
		snprintf(key, sizeof(key), "variant %s", name);
		named = lookup_type(p, key);
		if (!named)
			return tsdl_error(p, "unknown variant `%s`", name);
		TRY(tsdl_fc_copy(p, named, &fc));
	} else {
		if (!(fc = fc_new(p, TMX_FC_VARIANT)))
			return nomem(p);
		TRY(parse_fields(p, fc));
		if (fc->n_members == 0)
			return tsdl_error(p, "variant before %s has no option", tok_text(p));
		fc->ref_path = tag;
		if (name) {
			snprintf(key, sizeof(key), "variant %s", name);
			TRY(add_type(p, key, fc));
			TRY(tsdl_fc_copy(p, fc, &fc));
		}
	}
	if (tag)
		fc->ref_path = tag;
	*out = fc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Enumerations                                                         */
/* ------------------------------------------------------------------ */

static int add_mapping(struct tsdl_parser *p, struct tmx_field_class *fc, const char *label,
		       uint64_t lower, uint64_t upper)
{
	struct tmx_enum_mapping *m = NULL;
	struct tmx_enum_range *r;

	for (size_t i = 0; i < fc->n_mappings && !m; i++)
		if (!strcmp(fc->mappings[i].label, label))
			m = &fc->mappings[i];
	if (!m) {
		struct tmx_enum_mapping *all = arena_room(p, fc->mappings, fc->n_mappings, sizeof(*all));
		if (!all)
			return nomem(p);
		fc->mappings = all;
		m = &all[fc->n_mappings++];
		if (!(m->label = tmx_arena_strdup(p->arena, label)))
			return nomem(p);
	}
	r = arena_room(p, m->ranges, m->n_ranges, sizeof(*r));
	if (!r)
		return nomem(p);
	r[m->n_ranges].lower = lower;
	r[m->n_ranges].upper = upper;
	m->ranges = r;
	m->n_ranges++;
	return TMX_OK;
}

/* An enumerator value as the container sees it (int64 bits when signed). */
static int enum_value(struct tsdl_parser *p, const struct tmx_field_class *fc, uint64_t *out)
{
	struct value v;
	int64_t s = 0;

	TRY(parse_value(p, &v));
	if (v.kind != VAL_INT)
		return value_error(p, &v, "enumerator value must be an integer%s", "");
	if (fc->is_signed) {
		TRY(value_int(p, &v, "enumerator", &s));
		if (fc->size < 64 && (s < -(INT64_C(1) << (fc->size - 1)) ||
				      s > (INT64_C(1) << (fc->size - 1)) - 1))
			return value_error(p, &v, "enumerator value does not fit in the container%s", "");
		*out = (uint64_t)s;
	} else {
		if (v.negative)
			return value_error(p, &v, "negative enumerator value in an unsigned container%s", "");
		if (fc->size < 64 && v.magnitude >> fc->size)
			return value_error(p, &v, "enumerator value does not fit in the container%s", "");
		*out = v.magnitude;
	}
	return TMX_OK;
}

static int parse_enumerators(struct tsdl_parser *p, struct tmx_field_class *fc)
{
	uint64_t next_value = 0;
	int ret;

	TRY(expect_punct(p, "{"));
	while (!tsdl_is_punct(&p->lx.tok, "}")) {
		char *label;
		uint64_t lower = next_value, upper;

		if (p->lx.tok.kind != TOK_IDENT && p->lx.tok.kind != TOK_STRING)
			return expected(p, "an enumerator");
		if (!(label = take_ident(p)))
			return nomem(p);
		TRY(next(p));
		if (accept_punct(p, "=", &ret)) {
			TRY(ret);
			TRY(enum_value(p, fc, &lower));
		}
		upper = lower;
		if (accept_punct(p, "...", &ret)) {
			TRY(ret);
			TRY(enum_value(p, fc, &upper));
			if (fc->is_signed ? (int64_t)upper < (int64_t)lower : upper < lower)
				return tsdl_error(p, "enumerator range of `%s` has its upper value "
						  "below its lower value", label);
		}
		TRY(add_mapping(p, fc, label, lower, upper));
		next_value = upper + 1;
		if (!accept_punct(p, ",", &ret))
			break;
		TRY(ret);
	}
	if (fc->n_mappings == 0)
		return tsdl_error(p, "enumeration without any enumerator before %s", tok_text(p));
	return expect_punct(p, "}");
}

/* enum [NAME] [: container] [{ ... }] */
static int parse_enum(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct tmx_field_class *fc, *container = NULL;
	char *name = NULL;
	char key[600];
	int ret;

	TRY(next(p));
	if (p->lx.tok.kind == TOK_IDENT) {
		if (!(name = take_ident(p)))
			return nomem(p);
		TRY(next(p));
	}
	if (accept_punct(p, ":", &ret)) {
		TRY(ret);
		TRY(parse_type_spec(p, &container));
	}
	if (!tsdl_is_punct(&p->lx.tok, "{")) {
		const struct tmx_field_class *named;
		if (!name)
			return expected(p, "`{` or an enumeration name");
		snprintf(key, sizeof(key), "enum %s", name);
		named = lookup_type(p, key);
		if (!named)
			return tsdl_error(p, "unknown enumeration `%s`", name);
		return tsdl_fc_copy(p, named, out);
	}
	if (!container) {
		container = lookup_type(p, "int");
		if (!container)
			return tsdl_error(p, "enumeration %s has no container type and `int` is not "
					  "declared", name ? name : "");
	}
	if (container->kind != TMX_FC_INT)
		return tsdl_error(p, "enumeration container of %s is not an integer type",
				  name ? name : "an enumeration");
	TRY(tsdl_fc_copy(p, container, &fc));
	fc->kind = TMX_FC_ENUM;
	TRY(parse_enumerators(p, fc));
	if (name) {
		snprintf(key, sizeof(key), "enum %s", name);
		TRY(add_type(p, key, fc));
	}
	*out = fc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Type specifiers, typealias, typedef                                  */
/* ------------------------------------------------------------------ */

static bool is_qualifier(const struct tsdl_token *t)
{
	return tsdl_is_ident(t, "const") || tsdl_is_ident(t, "volatile");
}

/* A type name made of several words (`unsigned long`): longest match. */
static int parse_named_type(struct tsdl_parser *p, struct tmx_field_class **out)
{
	char name[512];
	const struct tmx_field_class *fc;

	snprintf(name, sizeof(name), "%s", p->lx.tok.str);
	if (!is_type_prefix(p, name))
		return tsdl_error(p, "unknown type `%s`", name);
	TRY(next(p));
	while (p->lx.tok.kind == TOK_IDENT) {
		char longer[512];
		int n = snprintf(longer, sizeof(longer), "%s %s", name, p->lx.tok.str);
		if (n < 0 || (size_t)n >= sizeof(longer) || !is_type_prefix(p, longer))
			break;
		memcpy(name, longer, (size_t)n + 1);
		TRY(next(p));
	}
	fc = lookup_type(p, name);
	if (!fc)
		return tsdl_error(p, "unknown type `%s`", name);
	*out = (struct tmx_field_class *)fc;   /* copied by the declarator */
	return TMX_OK;
}

static int parse_type_spec(struct tsdl_parser *p, struct tmx_field_class **out)
{
	const struct tsdl_token *t = &p->lx.tok;
	int ret;

	if (++p->depth > CTF_METADATA_MAX_DEPTH)
		return tsdl_error(p, "types nested too deeply at %s", tok_text(p));
	while (is_qualifier(t))
		TRY(next(p));
	if (t->kind != TOK_IDENT)
		ret = expected(p, "a type");
	else if (!strcmp(t->str, "integer"))
		ret = parse_integer(p, out);
	else if (!strcmp(t->str, "floating_point"))
		ret = parse_float(p, out);
	else if (!strcmp(t->str, "string"))
		ret = parse_string(p, out);
	else if (!strcmp(t->str, "struct"))
		ret = parse_struct(p, out);
	else if (!strcmp(t->str, "variant"))
		ret = parse_variant(p, out);
	else if (!strcmp(t->str, "enum"))
		ret = parse_enum(p, out);
	else
		ret = parse_named_type(p, out);
	p->depth--;
	while (!ret && is_qualifier(t))
		ret = next(p);
	return ret;
}

/* TSDL keywords cannot name a type (C type words such as `int` can). */
static bool is_reserved_name(const char *name)
{
	static const char *const reserved[] = {
		"align", "callsite", "const", "clock", "enum", "env", "event", "floating_point",
		"integer", "stream", "string", "struct", "trace", "typealias", "typedef", "variant",
	};

	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(name, reserved[i]))
			return true;
	return false;
}

/* typealias TYPE [declarator] := NAME [words] [declarator-suffix]; */
static int parse_typealias(struct tsdl_parser *p)
{
	struct tmx_field_class *type, *fc;
	char *unused;
	char name[512];
	size_t n = 0;
	int ret;

	TRY(next(p));
	TRY(parse_type_spec(p, &type));
	TRY(parse_declarator(p, type, false, &unused, &fc));
	TRY(expect_punct(p, ":="));
	name[0] = '\0';
	while (p->lx.tok.kind == TOK_IDENT) {
		size_t l = strlen(p->lx.tok.str);
		if (n + l + 2 > sizeof(name))
			return tsdl_error(p, "type name too long at %s", tok_text(p));
		if (n)
			name[n++] = ' ';
		memcpy(name + n, p->lx.tok.str, l + 1);
		n += l;
		TRY(next(p));
	}
	if (!n)
		return expected(p, "a type name after `:=`");
	if (is_reserved_name(name))
		return tsdl_error(p, "`%s` is a reserved keyword, not a type name", name);
	/* `:= name[4]` makes the alias an array of the type. */
	TRY(parse_declarator(p, fc, false, &unused, &fc));
	TRY(add_type(p, name, fc));
	(void)ret;
	return expect_punct(p, ";");
}

/* typedef TYPE declarator[, declarator]; */
static int parse_typedef(struct tsdl_parser *p)
{
	struct tmx_field_class *type;
	int ret;

	TRY(next(p));
	TRY(parse_type_spec(p, &type));
	do {
		char *name;
		struct tmx_field_class *fc;
		TRY(parse_declarator(p, type, true, &name, &fc));
		TRY(add_type(p, name, fc));
	} while (accept_punct(p, ",", &ret) && !ret);
	TRY(ret);
	return expect_punct(p, ";");
}

/* ------------------------------------------------------------------ */
/* Top-level blocks                                                     */
/* ------------------------------------------------------------------ */

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

	TRY(expect_punct(p, "{"));
	TRY(scope_push(p));
	while (!tsdl_is_punct(&p->lx.tok, "}")) {
		const struct tsdl_token *t = &p->lx.tok;

		if (accept_punct(p, ";", &ret)) {   /* stray semicolons are allowed */
			TRY(ret);
		} else if (tsdl_is_ident(t, "typealias")) {
			TRY(parse_typealias(p));
		} else if (tsdl_is_ident(t, "typedef")) {
			TRY(parse_typedef(p));
		} else if (tsdl_is_ident(t, "struct") || tsdl_is_ident(t, "variant") ||
			   tsdl_is_ident(t, "enum")) {
			struct tmx_field_class *unused;
			TRY(parse_type_spec(p, &unused));
			TRY(expect_punct(p, ";"));
		} else if (t->kind == TOK_IDENT) {
			uint32_t line = t->line, col = t->col;
			TRY(parse_dotted(p, name, sizeof(name)));
			TRY(check_not_seen(p, &seen, name));
			if (accept_punct(p, ":=", &ret)) {
				struct tmx_field_class *type, *fc;
				char *unused;
				TRY(ret);
				if (!assign)
					return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, line,
								 col, "`%s := ...` is not allowed here",
								 name);
				TRY(parse_type_spec(p, &type));
				TRY(parse_declarator(p, type, false, &unused, &fc));
				TRY(assign(p, obj, name, fc));
			} else {
				struct value v;
				TRY(expect_punct(p, "="));
				TRY(parse_value(p, &v));
				TRY(attr(p, obj, name, &v));
			}
			TRY(expect_punct(p, ";"));
		} else {
			return expected(p, "an attribute, a declaration or `}`");
		}
	}
	scope_pop(p);
	TRY(next(p));
	return expect_punct(p, ";");
}

static int trace_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct tmx_trace_class *tc = obj;
	uint64_t u = 0;

	if (!strcmp(name, "major")) {
		TRY(value_uint(p, v, name, &u));
		tc->major = (uint32_t)(u > UINT32_MAX ? UINT32_MAX : u);
		p->has_major = true;
		p->major_line = v->line;
		p->major_col = v->col;
	} else if (!strcmp(name, "minor")) {
		TRY(value_uint(p, v, name, &u));
		tc->minor = (uint32_t)(u > UINT32_MAX ? UINT32_MAX : u);
		p->has_minor = true;
		p->minor_line = v->line;
		p->minor_col = v->col;
	} else if (!strcmp(name, "uuid")) {
		if (v->kind != VAL_STRING || tsdl_parse_uuid(v->str, tc->uuid))
			return value_error(p, v, "`%s` expects a UUID string", name);
		tc->has_uuid = true;
	} else if (!strcmp(name, "byte_order")) {
		uint8_t bo = 0;
		TRY(value_byte_order(p, v, &bo));
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
		TRY(value_int(p, v, name, &e->int_value));
		e->is_int = true;
	} else {
		e->str_value = v->str;
	}
	tc->n_env++;
	return TMX_OK;
}

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
		if (v->kind != VAL_STRING || tsdl_parse_uuid(v->str, cc->uuid))
			return value_error(p, v, "`%s` expects a UUID string", name);
		cc->has_uuid = true;
		clock_prop_at(b, TSDL_CLOCK_UUID, v);
	} else if (!strcmp(name, "description")) {
		if (v->kind != VAL_STRING)
			return value_error(p, v, "clock `%s` expects a string", name);
		cc->description = v->str;
		clock_prop_at(b, TSDL_CLOCK_DESCRIPTION, v);
	} else if (!strcmp(name, "freq")) {
		TRY(value_uint(p, v, name, &u));
		if (u == 0)
			return value_error(p, v, "clock `%s` must not be zero", name);
		cc->frequency = u;
		clock_prop_at(b, TSDL_CLOCK_FREQ, v);
	} else if (!strcmp(name, "precision")) {
		TRY(value_uint(p, v, name, &cc->precision));
		clock_prop_at(b, TSDL_CLOCK_PRECISION, v);
	} else if (!strcmp(name, "offset_s")) {
		TRY(value_int(p, v, name, &cc->offset_s));
		clock_prop_at(b, TSDL_CLOCK_OFFSET_S, v);
	} else if (!strcmp(name, "offset")) {
		TRY(value_uint(p, v, name, &cc->offset_cycles));
		clock_prop_at(b, TSDL_CLOCK_OFFSET, v);
	} else if (!strcmp(name, "absolute")) {
		TRY(value_bool(p, v, name, &cc->absolute));
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

static int stream_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct tmx_stream_class *sc = obj;

	if (!strcmp(name, "id")) {
		TRY(value_uint(p, v, name, &sc->id));
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
		TRY(value_uint(p, v, name, &ec->id));
		ev->has_id = true;
	} else if (!strcmp(name, "stream_id")) {
		TRY(value_uint(p, v, name, &u));
		ev->stream_id = u;
		ev->has_stream_id = true;
	} else if (!strcmp(name, "loglevel")) {
		TRY(value_int(p, v, name, &s));
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

static int parse_top_level(struct tsdl_parser *p)
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
			TRY(parse_typealias(p));
		} else if (tsdl_is_ident(t, "typedef")) {
			TRY(parse_typedef(p));
		} else if (tsdl_is_ident(t, "struct") || tsdl_is_ident(t, "variant") ||
			   tsdl_is_ident(t, "enum")) {
			struct tmx_field_class *unused;
			TRY(parse_type_spec(p, &unused));
			TRY(expect_punct(p, ";"));
		} else {
			return expected(p, "`trace`, `env`, `clock`, `stream`, `event`, `typealias`, "
					"`typedef` or a type declaration");
		}
	}
	return TMX_OK;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The canonical 8-4-4-4-12 form only. */
int tsdl_parse_uuid(const char *s, uint8_t out[16])
{
	int n = 0;

	if (strlen(s) != 36)
		return -1;
	for (int i = 0; i < 36;) {
		int hi, lo;
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i++] != '-')
				return -1;
			continue;
		}
		hi = hex_digit(s[i]);
		lo = hex_digit(s[i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	return 0;
}

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
	p.tc = tmx_arena_alloc(arena, sizeof(*p.tc));
	if (!p.tc)
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	tsdl_lex_init(&p.lx, text, len, name);
	ret = scope_push(&p);
	if (!ret)
		ret = next(&p);
	if (!ret)
		ret = parse_top_level(&p);
	if (!ret)
		ret = tsdl_resolve(&p);
	tsdl_lex_fini(&p.lx);
	if (!ret)
		*out = p.tc;
	return ret;
}
