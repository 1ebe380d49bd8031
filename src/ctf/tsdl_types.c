/*
 * TSDL type specifiers: integer, floating_point and string blocks, named
 * types (`unsigned long`, longest match), declarators (bitfields, arrays and
 * sequences), typealias and typedef.  struct, variant and enum bodies are
 * in tsdl_compound.c.
 */
#include <string.h>

#include "ctf/tsdl_parse_impl.h"

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
	if (!(ta->fc = tsdl_fc_new(p, kind)))
		return nomem(p);
	TRY(next(p));
	return tsdl_parse_attr_block(p, ta, attr);
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
		TRY(tsdl_value_uint(p, v, name, &u));
		if (u == 0 || u > 64)
			return value_error(p, v, "integer `%s` must be between 1 and 64", name);
		fc->size = (uint32_t)u;
		ia->has_size = true;
	} else if (!strcmp(name, "align")) {
		TRY(tsdl_value_align(p, v, &fc->align));
		ia->has_align = true;
	} else if (!strcmp(name, "signed")) {
		TRY(tsdl_value_bool(p, v, name, &fc->is_signed));
	} else if (!strcmp(name, "byte_order")) {
		TRY(tsdl_value_byte_order(p, v, &fc->byte_order));
	} else if (!strcmp(name, "base")) {
		TRY(tsdl_value_base(p, v, &fc->base));
	} else if (!strcmp(name, "encoding")) {
		TRY(tsdl_value_encoding(p, v, &fc->encoding));
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
		return tsdl_error(p, "integer type before %s has no `size`", tsdl_tok_text(p));
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
		TRY(tsdl_value_uint(p, v, name, &u));
		fc->exp_dig = u > 64 ? 65 : (uint32_t)u;
	} else if (!strcmp(name, "mant_dig")) {
		TRY(tsdl_value_uint(p, v, name, &u));
		fc->mant_dig = u > 64 ? 65 : (uint32_t)u;
	} else if (!strcmp(name, "align")) {
		TRY(tsdl_value_align(p, v, &fc->align));
		fa->has_align = true;
	} else if (!strcmp(name, "byte_order")) {
		TRY(tsdl_value_byte_order(p, v, &fc->byte_order));
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
				  tsdl_tok_text(p));
	default_align(&fa);
	*out = fc;
	return TMX_OK;
}

static int string_attr(struct tsdl_parser *p, void *obj, const char *name, const struct value *v)
{
	struct tmx_field_class *fc = obj;

	if (!strcmp(name, "encoding"))
		return tsdl_value_encoding(p, v, &fc->encoding);
	warn_unknown(p, v, "string", name);
	return TMX_OK;
}

static int parse_string(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct tmx_field_class *fc = tsdl_fc_new(p, TMX_FC_STRING);

	if (!fc)
		return nomem(p);
	fc->align = 8;
	fc->encoding = TMX_ENC_UTF8;
	TRY(next(p));
	if (tsdl_is_punct(&p->lx.tok, "{"))
		TRY(tsdl_parse_attr_block(p, fc, string_attr));
	*out = fc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Declarators                                                          */
/* ------------------------------------------------------------------ */

/* `unit_type name:size` (GNU/C bitfield, spec 4.1.6), after the name. */
static int parse_bitfield(struct tsdl_parser *p, const struct tmx_field_class *unit,
			  struct tmx_field_class **out)
{
	struct tmx_field_class *fc;

	TRY(next(p));   /* the `:` */
	if (p->lx.tok.kind != TOK_INT)
		return tsdl_expected(p, "a bitfield size");
	if (unit->kind != TMX_FC_INT && unit->kind != TMX_FC_ENUM)
		return tsdl_error(p, "the unit type of a bitfield must be an integer type%s", "");
	if (!is_power_of_two(unit->size))
		return tsdl_error(p, "a bitfield unit type must be 8, 16, 32 or 64 bits wide%s", "");
	if (p->lx.tok.value == 0 || p->lx.tok.value > unit->size)
		return tsdl_error(p, "bitfield size %s does not fit its unit type",
				  tsdl_tok_text(p));
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
int tsdl_parse_declarator(struct tsdl_parser *p, const struct tmx_field_class *type,
			  bool need_name, char **name, struct tmx_field_class **out)
{
	struct tmx_field_class *dims[16];
	size_t n_dims = 0;
	struct tmx_field_class *fc;
	int ret;

	while (accept_punct(p, "*", &ret))
		TRY(ret);
	*name = NULL;
	TRY(tsdl_check_name(p, "a name"));
	if (p->lx.tok.kind == TOK_IDENT) {
		if (!(*name = take_ident(p)))
			return nomem(p);
		TRY(next(p));
	} else if (need_name) {
		return tsdl_expected(p, "a field name");
	}
	if (tsdl_is_punct(&p->lx.tok, ":") && *name)
		return parse_bitfield(p, type, out);
	while (accept_punct(p, "[", &ret)) {
		struct tmx_field_class *dim;
		TRY(ret);
		if (n_dims == sizeof(dims) / sizeof(dims[0]))
			return tsdl_error(p, "too many array dimensions before %s",
					  tsdl_tok_text(p));
		if (p->lx.tok.kind == TOK_INT) {
			dim = tsdl_fc_new(p, TMX_FC_ARRAY);
			if (!dim)
				return nomem(p);
			dim->length = p->lx.tok.value;
			TRY(next(p));
		} else if (p->lx.tok.kind == TOK_IDENT) {
			char path[512];
			dim = tsdl_fc_new(p, TMX_FC_SEQUENCE);
			if (!dim)
				return nomem(p);
			TRY(tsdl_parse_ref_path(p, path, sizeof(path)));
			if (!(dim->ref_path = tmx_arena_strdup(p->arena, path)))
				return nomem(p);
		} else {
			return tsdl_expected(p, "an array length or a sequence length field");
		}
		TRY(tsdl_expect_punct(p, "]"));
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
	if (!tsdl_is_type_prefix(p, name))
		return tsdl_error(p, "unknown type `%s`", name);
	TRY(next(p));
	while (p->lx.tok.kind == TOK_IDENT) {
		char longer[512];
		int n = snprintf(longer, sizeof(longer), "%s %s", name, p->lx.tok.str);
		if (n < 0 || (size_t)n >= sizeof(longer) || !tsdl_is_type_prefix(p, longer))
			break;
		memcpy(name, longer, (size_t)n + 1);
		TRY(next(p));
	}
	fc = tsdl_lookup_type(p, name);
	if (!fc)
		return tsdl_error(p, "unknown type `%s`", name);
	*out = (struct tmx_field_class *)fc;   /* copied by the declarator */
	return TMX_OK;
}

int tsdl_parse_type_spec(struct tsdl_parser *p, struct tmx_field_class **out)
{
	const struct tsdl_token *t = &p->lx.tok;
	int ret;

	if (++p->depth > CTF_METADATA_MAX_DEPTH)
		return tsdl_error(p, "types nested too deeply at %s", tsdl_tok_text(p));
	while (is_qualifier(t))
		TRY(next(p));
	if (t->kind != TOK_IDENT)
		ret = tsdl_expected(p, "a type");
	else if (!strcmp(t->str, "integer"))
		ret = parse_integer(p, out);
	else if (!strcmp(t->str, "floating_point"))
		ret = parse_float(p, out);
	else if (!strcmp(t->str, "string"))
		ret = parse_string(p, out);
	else if (!strcmp(t->str, "struct"))
		ret = tsdl_parse_struct(p, out);
	else if (!strcmp(t->str, "variant"))
		ret = tsdl_parse_variant(p, out);
	else if (!strcmp(t->str, "enum"))
		ret = tsdl_parse_enum(p, out);
	else
		ret = parse_named_type(p, out);
	p->depth--;
	while (!ret && is_qualifier(t))
		ret = next(p);
	return ret;
}

/* typealias TYPE [declarator] := NAME [words] [declarator-suffix]; */
int tsdl_parse_typealias(struct tsdl_parser *p)
{
	struct tmx_field_class *type, *fc;
	char *unused;
	char name[512];
	size_t n = 0;
	int ret;

	TRY(next(p));
	TRY(tsdl_parse_type_spec(p, &type));
	TRY(tsdl_parse_declarator(p, type, false, &unused, &fc));
	TRY(tsdl_expect_punct(p, ":="));
	name[0] = '\0';
	while (p->lx.tok.kind == TOK_IDENT) {
		size_t l = strlen(p->lx.tok.str);
		/* The C type words may make up the name (`unsigned long`), not TSDL's. */
		if (tsdl_keyword(p->lx.tok.str) == TSDL_KW_CTF)
			return tsdl_error(p, "%s is a reserved keyword, expected a type name",
					  tsdl_tok_text(p));
		if (n + l + 2 > sizeof(name))
			return tsdl_error(p, "type name too long at %s", tsdl_tok_text(p));
		if (n)
			name[n++] = ' ';
		memcpy(name + n, p->lx.tok.str, l + 1);
		n += l;
		TRY(next(p));
	}
	if (!n)
		return tsdl_expected(p, "a type name after `:=`");
	/* `:= name[4]` makes the alias an array of the type. */
	TRY(tsdl_parse_declarator(p, fc, false, &unused, &fc));
	TRY(tsdl_add_type(p, name, fc));
	(void)ret;
	return tsdl_expect_punct(p, ";");
}

/* typedef TYPE declarator[, declarator]; */
int tsdl_parse_typedef(struct tsdl_parser *p)
{
	struct tmx_field_class *type;
	int ret;

	TRY(next(p));
	TRY(tsdl_parse_type_spec(p, &type));
	do {
		char *name;
		struct tmx_field_class *fc;
		TRY(tsdl_parse_declarator(p, type, true, &name, &fc));
		TRY(tsdl_add_type(p, name, fc));
	} while (accept_punct(p, ",", &ret) && !ret);
	TRY(ret);
	return tsdl_expect_punct(p, ";");
}
