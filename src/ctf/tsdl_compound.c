/*
 * TSDL struct and variant bodies (members, alignment, variant tags) and
 * enumerations (enumerators, ranges, container types).  Named ones are
 * added to the current scope; a use by name is a deep copy.
 */
#include <stdio.h>
#include <string.h>

#include "ctf/tsdl_parse_impl.h"

/* ------------------------------------------------------------------ */
/* Struct and variant bodies                                            */
/* ------------------------------------------------------------------ */

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

	TRY(tsdl_expect_punct(p, "{"));
	TRY(tsdl_scope_push(p));
	while (!tsdl_is_punct(&p->lx.tok, "}")) {
		struct tmx_field_class *type;

		if (accept_punct(p, ";", &ret)) {   /* stray semicolons are allowed */
			TRY(ret);
			continue;
		}
		if (tsdl_is_ident(&p->lx.tok, "typealias")) {
			TRY(tsdl_parse_typealias(p));
			continue;
		}
		if (tsdl_is_ident(&p->lx.tok, "typedef")) {
			TRY(tsdl_parse_typedef(p));
			continue;
		}
		if (p->lx.tok.kind == TOK_EOF)
			return tsdl_expected(p, "`}`");
		TRY(tsdl_parse_type_spec(p, &type));
		if (accept_punct(p, ";", &ret)) {
			TRY(ret);
			continue;
		}
		do {
			char *name;
			struct tmx_field_class *fc;
			TRY(tsdl_parse_declarator(p, type, true, &name, &fc));
			TRY(add_member(p, parent, name, fc));
		} while (accept_punct(p, ",", &ret) && !ret);
		TRY(ret);
		TRY(tsdl_expect_punct(p, ";"));
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

/*
 * After `struct`, `variant` or `enum`: the optional NAME (*name stays NULL
 * without one), the token after it current.
 */
static int compound_name(struct tsdl_parser *p, char **name)
{
	TRY(next(p));
	TRY(tsdl_check_name(p, "a name or `{`"));
	if (p->lx.tok.kind == TOK_IDENT) {
		if (!(*name = take_ident(p)))
			return nomem(p);
		TRY(next(p));
	}
	return TMX_OK;
}

/*
 * `KEYWORD NAME` with no body: a copy of the type declared as such before.
 * `expected` and `unknown` (a format of the name) are the messages.
 */
static int named_copy(struct tsdl_parser *p, const char *keyword, const char *expected,
		      const char *unknown, const char *name, struct tmx_field_class **out)
{
	const struct tmx_field_class *named;
	char key[600];

	if (!name)
		return tsdl_expected(p, expected);
	snprintf(key, sizeof(key), "%s %s", keyword, name);
	named = tsdl_lookup_type(p, key);
	if (!named)
		return tsdl_error(p, unknown, name);
	return tsdl_fc_copy(p, named, out);
}

/* struct [NAME] [{ ... }] [align(N)] */
int tsdl_parse_struct(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct tmx_field_class *fc;
	char *name = NULL;
	char key[600];

	TRY(compound_name(p, &name));
	if (!tsdl_is_punct(&p->lx.tok, "{"))
		return named_copy(p, "struct", "`{` or a structure name", "unknown structure `%s`", name,
				  out);
	if (!(fc = tsdl_fc_new(p, TMX_FC_STRUCT)))
		return nomem(p);
	TRY(parse_fields(p, fc));
	struct_align(fc);
	if (tsdl_is_ident(&p->lx.tok, "align")) {
		uint64_t a;
		TRY(next(p));
		TRY(tsdl_expect_punct(p, "("));
		if (p->lx.tok.kind != TOK_INT)
			return tsdl_expected(p, "an alignment");
		a = p->lx.tok.value;
		if (!is_power_of_two(a) || a > (1u << 30))
			return tsdl_error(p, "structure alignment %s is not a power of two",
					  tsdl_tok_text(p));
		if (a > fc->align)
			fc->align = (uint32_t)a;
		TRY(next(p));
		TRY(tsdl_expect_punct(p, ")"));
	}
	if (name) {
		snprintf(key, sizeof(key), "struct %s", name);
		TRY(tsdl_add_type(p, key, fc));
	}
	*out = fc;
	return TMX_OK;
}

/* variant [NAME] [<tag>] [{ ... }] */
int tsdl_parse_variant(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct tmx_field_class *fc;
	char *name = NULL, *tag = NULL;
	char key[600];
	int ret;

	TRY(compound_name(p, &name));
	if (accept_punct(p, "<", &ret)) {
		char path[512];
		TRY(ret);
		TRY(tsdl_parse_ref_path(p, path, sizeof(path)));
		TRY(tsdl_expect_punct(p, ">"));
		if (!(tag = tmx_arena_strdup(p->arena, path)))
			return nomem(p);
	}
	if (!tsdl_is_punct(&p->lx.tok, "{")) {
		TRY(named_copy(p, "variant", "`{` or a variant name", "unknown variant `%s`",
			       name, &fc));
	} else {
		if (!(fc = tsdl_fc_new(p, TMX_FC_VARIANT)))
			return nomem(p);
		TRY(parse_fields(p, fc));
		if (fc->n_members == 0)
			return tsdl_error(p, "variant before %s has no option", tsdl_tok_text(p));
		fc->ref_path = tag;
		if (name) {
			snprintf(key, sizeof(key), "variant %s", name);
			TRY(tsdl_add_type(p, key, fc));
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

	TRY(tsdl_parse_value(p, &v));
	if (v.kind != VAL_INT)
		return value_error(p, &v, "enumerator value must be an integer%s", "");
	if (fc->is_signed) {
		TRY(tsdl_value_int(p, &v, "enumerator", &s));
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

	TRY(tsdl_expect_punct(p, "{"));
	while (!tsdl_is_punct(&p->lx.tok, "}")) {
		char *label;
		uint64_t lower = next_value, upper;

		if (p->lx.tok.kind != TOK_IDENT && p->lx.tok.kind != TOK_STRING)
			return tsdl_expected(p, "an enumerator");
		/* Keywords may be labels, but for `typealias` (babeltrace2's grammar). */
		if (tsdl_is_ident(&p->lx.tok, "typealias"))
			return tsdl_error(p, "%s is a reserved keyword, expected an enumerator",
					  tsdl_tok_text(p));
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
		return tsdl_error(p, "enumeration without any enumerator before %s",
				  tsdl_tok_text(p));
	return tsdl_expect_punct(p, "}");
}

/* enum [NAME] [: container] [{ ... }] */
int tsdl_parse_enum(struct tsdl_parser *p, struct tmx_field_class **out)
{
	struct tmx_field_class *fc, *container = NULL;
	char *name = NULL;
	char key[600];
	int ret;

	TRY(compound_name(p, &name));
	if (accept_punct(p, ":", &ret)) {
		TRY(ret);
		TRY(tsdl_parse_type_spec(p, &container));
	}
	if (!tsdl_is_punct(&p->lx.tok, "{"))
		return named_copy(p, "enum", "`{` or an enumeration name",
				  "unknown enumeration `%s`", name, out);
	if (!container) {
		container = tsdl_lookup_type(p, "int");
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
		TRY(tsdl_add_type(p, key, fc));
	}
	*out = fc;
	return TMX_OK;
}
