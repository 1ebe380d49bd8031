/*
 * Inside the TSDL parser: what its files share.  Not an interface: the
 * resolution pass (tsdl_resolve.c) and the clock checks see tsdl.h only.
 *
 *   tsdl_parse.c     tokens, scopes of type names, field classes and their
 *                    copies, attribute values (`name = value;`), the entry
 *                    point
 *   tsdl_types.c     type specifiers (integer, floating_point, string, named
 *                    types), declarators, typealias and typedef
 *   tsdl_compound.c  struct and variant bodies, enumerations
 *   tsdl_blocks.c    the top-level blocks: trace, env, clock, stream, event,
 *                    callsite
 *
 * Functions that several files call are prefixed tsdl_; the small helpers
 * inlined here keep their names.
 */
#ifndef TMX_CTF_TSDL_PARSE_IMPL_H
#define TMX_CTF_TSDL_PARSE_IMPL_H

#include <string.h>

#include "ctf/tsdl.h"
#include "common/errors.h"
#include "model/field_class.h"

#define TRY(x) do { int ret_ = (x); if (ret_) return ret_; } while (0)

/* ------------------------------------------------------------------ */
/* Errors and tokens                                                    */
/* ------------------------------------------------------------------ */

static inline int nomem(struct tsdl_parser *p)
{
	return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
}

const char *tsdl_tok_text(struct tsdl_parser *p);
int tsdl_expected(struct tsdl_parser *p, const char *what);
int tsdl_expect_punct(struct tsdl_parser *p, const char *punct);

/*
 * A reserved keyword where a name is declared (a field, a variant option,
 * a typedef, a struct/variant/enum name): an error at the keyword naming
 * it and `what` was expected, as CTF 1.8 and babeltrace2 refuse it.
 * TMX_OK for any other token.
 */
int tsdl_check_name(struct tsdl_parser *p, const char *what);

static inline int next(struct tsdl_parser *p)
{
	return tsdl_lex_next(&p->lx, p->err);
}

/* Consumes `punct` if it is next; *ret is the status of that (TMX_OK if absent). */
static inline bool accept_punct(struct tsdl_parser *p, const char *punct, int *ret)
{
	*ret = TMX_OK;
	if (!tsdl_is_punct(&p->lx.tok, punct))
		return false;
	*ret = next(p);
	return true;
}

static inline char *take_ident(struct tsdl_parser *p)
{
	return tmx_arena_strdup(p->arena, p->lx.tok.str);
}

/* ------------------------------------------------------------------ */
/* Lexical scopes of type names                                         */
/* ------------------------------------------------------------------ */

int tsdl_scope_push(struct tsdl_parser *p);
struct tmx_field_class *tsdl_lookup_type(struct tsdl_parser *p, const char *name);
bool tsdl_is_type_prefix(struct tsdl_parser *p, const char *name);
int tsdl_add_type(struct tsdl_parser *p, const char *name, struct tmx_field_class *fc);

static inline void scope_pop(struct tsdl_parser *p)
{
	p->scope = p->scope->parent;
}

/* ------------------------------------------------------------------ */
/* Field classes                                                        */
/* ------------------------------------------------------------------ */

struct tmx_field_class *tsdl_fc_new(struct tsdl_parser *p, enum tmx_fc_kind kind);

/*
 * `array` (n elements, arena-allocated) with room for element n.  The copy
 * doubles the capacity at powers of two, so adding N elements one by one
 * costs O(N) arena memory (the arena never frees an outgrown array).
 */
static inline void *arena_room(struct tsdl_parser *p, void *array, size_t n, size_t size)
{
	if (n != 0 && (n < 4 || (n & (n - 1))))
		return array;
	return tmx_arena_grow(p->arena, array, n, n ? 2 * n : 4, size);
}

static inline bool is_power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
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

int tsdl_parse_dotted(struct tsdl_parser *p, char *buf, size_t size);
int tsdl_parse_value(struct tsdl_parser *p, struct value *v);
/*
 * A variant tag or sequence length: a dotted path whose components are
 * field names, so no keywords but the scope words of an absolute path
 * followed by a dot (`trace.`, `stream.`, `event.`, and `env.` for lengths:
 * yactfr reads them, babeltrace2 2.0.4 does not).
 */
int tsdl_parse_ref_path(struct tsdl_parser *p, char *buf, size_t size);

static inline int value_error(struct tsdl_parser *p, const struct value *v, const char *fmt,
			      const char *attr)
{
	return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, v->line, v->col, fmt, attr);
}

/* A value of the kind that attribute `attr` expects, or an error at the value. */
int tsdl_value_uint(struct tsdl_parser *p, const struct value *v, const char *attr,
		    uint64_t *out);
int tsdl_value_int(struct tsdl_parser *p, const struct value *v, const char *attr,
		   int64_t *out);
int tsdl_value_bool(struct tsdl_parser *p, const struct value *v, const char *attr, bool *out);
int tsdl_value_byte_order(struct tsdl_parser *p, const struct value *v, uint8_t *out);
int tsdl_value_encoding(struct tsdl_parser *p, const struct value *v, uint8_t *out);
int tsdl_value_base(struct tsdl_parser *p, const struct value *v, uint8_t *out);
int tsdl_value_align(struct tsdl_parser *p, const struct value *v, uint32_t *out);

/* Names already set in one block: an attribute may appear once. */
struct seen_names {
	const char *names[64];
	size_t n;
};

int tsdl_check_not_seen(struct tsdl_parser *p, struct seen_names *seen, const char *name);

int tsdl_parse_attr_block(struct tsdl_parser *p, void *obj,
			  int (*attr)(struct tsdl_parser *, void *, const char *,
				      const struct value *));

static inline void warn_unknown(struct tsdl_parser *p, const struct value *v, const char *what,
				const char *name)
{
	tmx_warn(p->diag, "%s:%u:%u: unknown %s attribute `%s` (ignored)", p->name, v->line,
		 v->col, what, name);
}

/* ------------------------------------------------------------------ */
/* Types (tsdl_types.c, tsdl_compound.c)                                */
/* ------------------------------------------------------------------ */

int tsdl_parse_type_spec(struct tsdl_parser *p, struct tmx_field_class **out);
int tsdl_parse_declarator(struct tsdl_parser *p, const struct tmx_field_class *type,
			  bool need_name, char **name, struct tmx_field_class **out);
int tsdl_parse_typealias(struct tsdl_parser *p);
int tsdl_parse_typedef(struct tsdl_parser *p);

/* struct, variant and enum specifiers, from their keyword on. */
int tsdl_parse_struct(struct tsdl_parser *p, struct tmx_field_class **out);
int tsdl_parse_variant(struct tsdl_parser *p, struct tmx_field_class **out);
int tsdl_parse_enum(struct tsdl_parser *p, struct tmx_field_class **out);

/* ------------------------------------------------------------------ */
/* Top-level blocks (tsdl_blocks.c)                                     */
/* ------------------------------------------------------------------ */

/* The whole metadata, block after block. */
int tsdl_parse_top_level(struct tsdl_parser *p);

#endif
