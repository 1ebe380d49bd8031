/*
 * CTF 1.8 metadata (TSDL) of the CTF writer's plan (plan_build.c).
 *
 * Names follow babeltrace2's sink.ctf.fs, so that a trace read back shows
 * the same names: every structure member gets a leading `_` (TSDL's escape,
 * which readers remove); a variant option keeps the name that makes it
 * match its tag's label (`_` added when the option is a keyword or starts
 * with `_`, or when the label has one more `_`).  When the option names
 * cannot match the labels, or when a length or variant tag cannot be named
 * in TSDL (it lives in a scope the writer replaces, or behind an array or
 * a variant option), the writer generates its own length (32-bit) or tag
 * (16-bit enumeration) just before the field, again as babeltrace2 does;
 * an optional field (CTF 2) always gets an 8-bit `none`/`content` tag.
 *
 * References are written as babeltrace2 writes them: the target's name
 * alone when looking it up from the field outwards finds it, else an
 * absolute path (`event.fields._a._b`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/ctf/encode_plan_impl.h"
#include "common/errors.h"
#include "common/uuid.h"

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
/* References: lengths and tags                                         */
/* ------------------------------------------------------------------ */

static const char *const scope_prefix[CW_N_SCOPES] = {
	"stream.packet.context", "stream.event.context", "event.context", "event.fields",
};

/* babeltrace2's relative reference: the target's name alone. */
static bool relative_ref(struct cw_resolver *r, const struct cw_path *target, const char **ref)
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

static bool absolute_ref(struct cw_resolver *r, int scope, const struct cw_path *target, char **ref)
{
	struct tmx_buf b = { 0 };

	cw_sb_puts(&b, scope_prefix[scope]);
	for (size_t i = 1; i < target->n; i++) {
		const struct cw_node *parent = target->nodes[i - 1], *n = target->nodes[i];
		/*
		 * Through structure members only: a path through a variant
		 * option names a field that exists only when that option is
		 * selected, which TSDL readers (babeltrace2, tracemux) refuse.
		 */
		if (parent->op != CW_STRUCT || n->skip || !n->name) {
			free(b.p);
			return false;
		}
		cw_sb_put(&b, ".", 1);
		cw_sb_puts(&b, n->name);
	}
	if (b.oom) {
		free(b.p);
		return false;
	}
	*ref = cw_strdup(r->bd, (char *)b.p);
	free(b.p);
	return *ref != NULL;
}

/* Names the length/tag of `n`, or asks for a generated one. */
static int resolve_ref(struct cw_resolver *r, struct cw_node *n)
{
	struct cw_path *target = malloc(sizeof(*target));
	const struct cw_node *t;
	const char *rel;
	char *abs;
	int scope;

	if (!target)
		return cw_nomem(r->bd);
	n->gen_before = true;
	if (!cw_find_target(r, n, target, &scope))
		goto out;
	t = target->nodes[target->n - 1];
	/* A length is an integer, a tag an enumeration (checked when naming options). */
	if (t->op != CW_INT || (t->fc->kind != TMX_FC_INT && t->fc->kind != TMX_FC_ENUM))
		goto out;
	if (scope == r->scope && relative_ref(r, target, &rel)) {
		n->ref = (char *)rel;
		n->gen_before = false;
	} else if (absolute_ref(r, scope, target, &abs)) {
		n->ref = abs;
		n->gen_before = false;
	}
	if (!n->gen_before)
		n->ref_slot = t->fc->slot;
out:
	free(target);
	return TMX_OK;
}

static bool has_range(const struct tmx_enum_range *r, size_t n, const struct tmx_enum_range *x)
{
	for (size_t i = 0; i < n; i++)
		if (r[i].lower == x->lower && r[i].upper == x->upper)
			return true;
	return false;
}

/*
 * The option mapping `m` of the tag selects: the model's binding (CTF
 * 1.8), or the option whose selector ranges are the mapping's (a CTF 2
 * variant whose selector has mappings, like the ones babeltrace 2.1
 * writes for CTF 1.8 variants); -1 when none.
 */
static int32_t option_of_mapping(const struct tmx_field_class *fc, size_t m)
{
	const struct tmx_enum_mapping *map = &fc->tag->mappings[m];

	if (fc->option_for_mapping)
		return fc->option_for_mapping[m];
	for (size_t o = 0; o < fc->n_members; o++) {
		const struct tmx_member *opt = &fc->members[o];
		bool same = opt->n_ranges == map->n_ranges && map->n_ranges;
		for (size_t i = 0; i < map->n_ranges && same; i++)
			same = has_range(opt->ranges, opt->n_ranges, &map->ranges[i]) &&
			       has_range(map->ranges, map->n_ranges, &opt->ranges[i]);
		if (same)
			return (int32_t)o;
	}
	return -1;
}

/* The option names of a variant whose tag the model names. */
static bool name_options_from_tag(struct cw_resolver *r, struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc, *tag = fc->tag;

	if (!tag || tag->kind != TMX_FC_ENUM || tag->n_mappings != fc->n_members)
		return false;
	for (size_t o = 0; o < fc->n_members; o++) {
		const char *opt = fc->members[o].name, *label = NULL;
		size_t hits = 0;
		char *name;

		for (size_t m = 0; m < tag->n_mappings; m++) {
			if (option_of_mapping(fc, m) == (int32_t)o) {
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
		name = cw_strdup(r->bd, label);
		if (!name)
			return false;
		n->children[o].name = name;
	}
	return true;
}

/* Generated tag: options named as babeltrace2 protects them, made unique. */
static int name_options_generated(struct cw_resolver *r, struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc;

	for (size_t o = 0; o < fc->n_members; o++) {
		const char *opt = fc->members[o].name;
		size_t len = strlen(opt) + 24;
		char *name = tmx_arena_alloc(&r->bd->p->arena, len);
		bool clash;

		if (!name)
			return cw_nomem(r->bd);
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

static int generated_name(struct cw_resolver *r, struct cw_node *n, const char *suffix)
{
	const struct cw_node *parent = r->stack.n ? r->stack.nodes[r->stack.n - 1] : NULL;
	const char *base = n->name ? n->name : "field";
	size_t len = strlen(base) + strlen(suffix) + 3 + 8;
	size_t extra = 0;

	if (!parent || parent->op != CW_STRUCT)
		return cw_field_error(r, n, "its %s cannot be written in CTF 1.8: TSDL cannot refer "
				      "to its %s field, and a generated one must be a structure "
				      "member, which this field is not",
				      suffix[1] == 'l' ? "length" : "tag",
				      suffix[1] == 'l' ? "length" : "tag");
	n->ref = tmx_arena_alloc(&r->bd->p->arena, len);
	if (!n->ref)
		return cw_nomem(r->bd);
	/*
	 * `_x` becomes `__x_len`: one more `_` than the member itself; and a
	 * `_` more at the end while a sibling has that name but for its
	 * leading `_`s (ftrace's thermal_power_cpu_get_power has `load[]` and
	 * `load_len`: babeltrace2 takes `__load_len` and `_load_len` for one).
	 */
	for (;;) {
		bool clash = false;
		snprintf(n->ref, len, "_%s%s%.*s", base, suffix, (int)extra, "________");
		for (size_t i = 0; i < parent->n_children && !clash; i++) {
			const char *sib = parent->children[i].name;
			const char *a = n->ref;
			if (!sib)
				continue;
			while (*a == '_')
				a++;
			while (*sib == '_')
				sib++;
			clash = !strcmp(a, sib);
		}
		if (!clash || extra == 8)
			return TMX_OK;
		extra++;
	}
}

int cw_tsdl_resolve(struct cw_resolver *r, struct cw_node *n)
{
	int ret;

	switch (n->op) {
	case CW_SEQUENCE:
	case CW_TEXT_SEQ:
	case CW_DYN_BLOB:
		ret = resolve_ref(r, n);
		if (!ret && n->gen_before)
			ret = generated_name(r, n, "_len");
		return ret;
	case CW_VARIANT:
		ret = n->fc->tag ? resolve_ref(r, n) : TMX_OK;
		if (ret)
			return ret;
		if (!n->fc->tag || n->gen_before || !name_options_from_tag(r, n)) {
			n->gen_before = true;
			n->ref_slot = -1;
			ret = generated_name(r, n, "_tag");
			if (!ret)
				ret = name_options_generated(r, n);
		}
		return ret;
	case CW_OPTIONAL:
		/* babeltrace2's translation: always a generated none/content tag. */
		n->gen_before = true;
		return generated_name(r, n, "_tag");
	default:
		/* Dynamic-length strings are null-terminated ones in CTF 1.8. */
		return TMX_OK;
	}
}

/* ------------------------------------------------------------------ */
/* TSDL text                                                            */
/* ------------------------------------------------------------------ */

/* A TSDL string literal (babeltrace2's escapes). */
static void put_quoted(struct tmx_buf *b, const char *s)
{
	cw_sb_put(b, "\"", 1);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '\a': cw_sb_puts(b, "\\a"); break;
		case '\b': cw_sb_puts(b, "\\b"); break;
		case '\f': cw_sb_puts(b, "\\f"); break;
		case '\n': cw_sb_puts(b, "\\n"); break;
		case '\r': cw_sb_puts(b, "\\r"); break;
		case '\t': cw_sb_puts(b, "\\t"); break;
		case '\v': cw_sb_puts(b, "\\v"); break;
		case '"': cw_sb_puts(b, "\\\""); break;
		case '\\': cw_sb_puts(b, "\\\\"); break;
		default:
			/*
			 * babeltrace2 writes \xHH, and its reader (ours too)
			 * takes up to three hexadecimal digits: before a
			 * hexadecimal digit, three octal digits say the byte.
			 */
			if ((*c < 32 || *c >= 127) && tmx_hex_digit((char)c[1]) >= 0)
				cw_sb_printf(b, "\\%03o", *c);
			else if (*c < 32 || *c >= 127)
				cw_sb_printf(b, "\\x%02x", *c);
			else
				cw_sb_put(b, (const char *)c, 1);
		}
	}
	cw_sb_put(b, "\"", 1);
}

struct gen {
	struct tmx_buf b;
	const struct cw_trace_plan *p;
};

static void put_uuid(struct tmx_buf *b, const uint8_t u[16])
{
	char text[TMX_UUID_TEXT_LEN + 1];

	tmx_uuid_text(text, u);
	cw_sb_printf(b, "\"%s\"", text);
}

/* `integer { ... }` for the writer's own fields, in the trace's byte order. */
static void own_integer(struct gen *g, int indent, unsigned size, const char *extra,
			const char *name)
{
	cw_sb_indent(&g->b, indent);
	cw_sb_printf(&g->b, "integer { size = %u; align = 8;%s } %s;\n", size, extra ? extra : "",
		  name);
}

static void put_integer(struct gen *g, const struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc;
	/* A boolean is unsigned decimal, a bit array unsigned hexadecimal (babeltrace 2.1). */
	bool plain_int = fc->kind == TMX_FC_INT || fc->kind == TMX_FC_ENUM;
	unsigned base = fc->kind == TMX_FC_BIT_ARRAY ? 16 : plain_int ? fc->base : 10;

	cw_sb_printf(&g->b, "integer { size = %u; align = %u;", n->size, n->align);
	if (plain_int && fc->is_signed)
		cw_sb_puts(&g->b, " signed = true;");
	if (n->big_endian != g->p->big_endian)
		cw_sb_puts(&g->b, n->big_endian ? " byte_order = be;" : " byte_order = le;");
	switch (base) {
	case 2: cw_sb_puts(&g->b, " base = b;"); break;
	case 8: cw_sb_puts(&g->b, " base = o;"); break;
	case 16: cw_sb_puts(&g->b, " base = x;"); break;
	default: break;
	}
	if (plain_int && fc->encoding == TMX_ENC_UTF8)
		cw_sb_puts(&g->b, " encoding = UTF8;");
	else if (plain_int && fc->encoding == TMX_ENC_ASCII)
		cw_sb_puts(&g->b, " encoding = ASCII;");
	cw_sb_puts(&g->b, " }");
}

static void put_bound(struct gen *g, const struct tmx_field_class *fc, uint64_t v)
{
	if (fc->is_signed)
		cw_sb_printf(&g->b, "%lld", (long long)(int64_t)v);
	else
		cw_sb_printf(&g->b, "%llu", (unsigned long long)v);
}

static void put_field(struct gen *g, const struct cw_node *n, int indent);

/* What comes before member `c`: its generated length or tag, a translation note. */
static void put_before_member(struct gen *g, const struct cw_node *c, int indent)
{
	if (c->gen_before && (c->op == CW_SEQUENCE || c->op == CW_TEXT_SEQ || c->op == CW_DYN_BLOB)) {
		own_integer(g, indent, 32, NULL, c->ref);
	} else if (c->gen_before && c->op == CW_VARIANT) {
		cw_sb_indent(&g->b, indent);
		cw_sb_puts(&g->b, "enum : integer { size = 16; align = 8; } {\n");
		for (size_t o = 0; o < c->n_children; o++) {
			cw_sb_indent(&g->b, indent + 1);
			put_quoted(&g->b, c->children[o].name);
			cw_sb_printf(&g->b, " = %zu,\n", o);
		}
		cw_sb_indent(&g->b, indent);
		cw_sb_printf(&g->b, "} %s;\n", c->ref);
	} else if (c->op == CW_OPTIONAL) {
		cw_sb_indent(&g->b, indent);
		cw_sb_puts(&g->b, "/* The enumeration and variant field classes below were a CTF 2 "
			   "optional field class. */\n");
		cw_sb_indent(&g->b, indent);
		cw_sb_printf(&g->b, "enum : integer { size = 8; align = 8; } { none = 0, content = 1, } "
			     "%s;\n", c->ref);
	} else if (c->op == CW_INT && c->fc->kind == TMX_FC_BOOL) {
		cw_sb_indent(&g->b, indent);
		cw_sb_puts(&g->b, "/* The integer field class below was a CTF 2 boolean field class. */\n");
	} else if (c->op == CW_INT && c->fc->kind == TMX_FC_BIT_ARRAY) {
		cw_sb_indent(&g->b, indent);
		cw_sb_puts(&g->b, "/* The integer field class below was a CTF 2 bit array field class. */\n");
	} else if (c->op == CW_BLOB || c->op == CW_DYN_BLOB) {
		cw_sb_indent(&g->b, indent);
		cw_sb_puts(&g->b, "/* The array below was a CTF 2 BLOB field class. */\n");
	}
}

/* One member (or option) `name` of class `c`; arrays C-style: `type name[len]...`. */
static void put_member(struct gen *g, const struct cw_node *c, const char *name, int indent)
{
	const struct cw_node *base = c;
	struct tmx_buf lengths = { 0 };

	while (base->op == CW_ARRAY || base->op == CW_SEQUENCE || base->op == CW_TEXT_ARRAY ||
	       base->op == CW_TEXT_SEQ) {
		if (base->op == CW_ARRAY || base->op == CW_TEXT_ARRAY)
			cw_sb_printf(&lengths, "[%llu]", (unsigned long long)base->length);
		else
			cw_sb_printf(&lengths, "[%s]", base->ref);
		base = base->children;
	}
	cw_sb_indent(&g->b, indent);
	if (base->op == CW_BLOB || base->op == CW_DYN_BLOB) {
		/* Bytes: CTF 1.8's own UUID field is such an array. */
		if (base->op == CW_BLOB)
			cw_sb_printf(&lengths, "[%llu]", (unsigned long long)base->length);
		else
			cw_sb_printf(&lengths, "[%s]", base->ref);
		cw_sb_puts(&g->b, "integer { size = 8; align = 8; base = x; }");
	} else {
		put_field(g, base, indent);
	}
	cw_sb_printf(&g->b, " %s%s;\n", name, cw_sb_str(&lengths));
	if (lengths.oom)
		g->b.oom = true;
	free(lengths.p);
}

static void put_members(struct gen *g, const struct cw_node *n, int indent, bool struct_members)
{
	for (size_t i = 0; i < n->n_children; i++) {
		const struct cw_node *c = &n->children[i];

		if (c->skip)
			continue;
		if (struct_members)
			put_before_member(g, c, indent);
		put_member(g, c, c->name, indent);
	}
}

static void put_enum(struct gen *g, const struct cw_node *n, int indent)
{
	const struct tmx_field_class *fc = n->fc;

	cw_sb_puts(&g->b, "enum : ");
	put_integer(g, n);
	cw_sb_puts(&g->b, " {\n");
	for (size_t m = 0; m < fc->n_mappings; m++) {
		const struct tmx_enum_mapping *map = &fc->mappings[m];
		for (size_t r = 0; r < map->n_ranges; r++) {
			cw_sb_indent(&g->b, indent + 1);
			put_quoted(&g->b, map->label);
			cw_sb_puts(&g->b, " = ");
			put_bound(g, fc, map->ranges[r].lower);
			if (map->ranges[r].upper != map->ranges[r].lower) {
				cw_sb_puts(&g->b, " ... ");
				put_bound(g, fc, map->ranges[r].upper);
			}
			cw_sb_puts(&g->b, ",\n");
		}
	}
	cw_sb_indent(&g->b, indent);
	cw_sb_puts(&g->b, "}");
}

static void put_field(struct gen *g, const struct cw_node *n, int indent)
{
	const struct tmx_field_class *fc = n->fc;

	switch (n->op) {
	case CW_INT:
		if (fc->kind == TMX_FC_ENUM)
			put_enum(g, n, indent);
		else
			put_integer(g, n);
		break;
	case CW_FLOAT:
		cw_sb_printf(&g->b, "floating_point { exp_dig = %u; mant_dig = %u; align = %u;",
			  n->size == 32 ? 8 : 11, n->size == 32 ? 24 : 53, n->align);
		if (n->big_endian != g->p->big_endian)
			cw_sb_puts(&g->b, n->big_endian ? " byte_order = be;" : " byte_order = le;");
		cw_sb_puts(&g->b, " }");
		break;
	case CW_STRING:
		cw_sb_puts(&g->b, fc->kind == TMX_FC_STRING && fc->encoding == TMX_ENC_ASCII ?
			   "string { encoding = ASCII; }" : "string { encoding = UTF8; }");
		break;
	case CW_STRUCT:
		cw_sb_puts(&g->b, "struct {\n");
		put_members(g, n, indent + 1, true);
		cw_sb_indent(&g->b, indent);
		cw_sb_printf(&g->b, "} align(%u)", n->align);
		break;
	case CW_VARIANT:
		cw_sb_printf(&g->b, "variant <%s> {\n", n->ref);
		put_members(g, n, indent + 1, false);
		cw_sb_indent(&g->b, indent);
		cw_sb_puts(&g->b, "}");
		break;
	case CW_OPTIONAL:
		/* babeltrace 2.1's translation of an option field class. */
		cw_sb_printf(&g->b, "variant <%s> {\n", n->ref);
		cw_sb_indent(&g->b, indent + 1);
		cw_sb_puts(&g->b, "struct { } none;\n");
		put_member(g, n->children, "content", indent + 1);
		cw_sb_indent(&g->b, indent);
		cw_sb_puts(&g->b, "}");
		break;
	default:
		/* Arrays are written by put_member(); the CTF 2 kinds do not occur in 1.8 plans. */
		break;
	}
}

static void put_trace(struct gen *g)
{
	const struct cw_trace_plan *p = g->p;
	struct tmx_buf *b = &g->b;

	cw_sb_puts(b, "/* CTF 1.8 */\n\n/* Written by tracemux's CTF writer. */\n\n");
	cw_sb_puts(b, "trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = ");
	put_uuid(b, p->uuid);
	cw_sb_printf(b, ";\n\tbyte_order = %s;\n", p->big_endian ? "be" : "le");
	cw_sb_puts(b, "\tpacket.header := struct {\n");
	own_integer(g, 2, 32, " base = x;", "magic");
	own_integer(g, 2, 8, NULL, "uuid[16]");
	own_integer(g, 2, 64, NULL, "stream_id");
	own_integer(g, 2, 64, NULL, "stream_instance_id");
	cw_sb_puts(b, "\t} align(8);\n};\n\n");
}

static void put_env(struct gen *g)
{
	const struct tmx_trace_class *tc = g->p->tc;
	struct tmx_buf *b = &g->b;

	if (!tc->n_env)
		return;
	cw_sb_puts(b, "env {\n");
	for (size_t i = 0; i < tc->n_env; i++) {
		const struct tmx_env_entry *e = &tc->env[i];
		char name[256];

		sanitize(e->name, name, sizeof(name));
		if (!name[0])
			continue;
		cw_sb_printf(b, "\t%s = ", name);
		if (e->is_int)
			cw_sb_printf(b, "%lld", (long long)e->int_value);
		else
			put_quoted(b, e->str_value ? e->str_value : "");
		cw_sb_puts(b, ";\n");
	}
	cw_sb_puts(b, "};\n\n");
}

static void put_clocks(struct gen *g)
{
	struct tmx_buf *b = &g->b;
	uint8_t uuid[16];

	for (size_t i = 0; i < g->p->n_clocks; i++) {
		const struct tmx_clock_class *cc = g->p->clocks[i];
		cw_sb_printf(b, "clock {\n\tname = %s;\n", g->p->clock_names[i]);
		if (cc->description) {
			cw_sb_puts(b, "\tdescription = ");
			put_quoted(b, cc->description);
			cw_sb_puts(b, ";\n");
		}
		cw_sb_printf(b, "\tfreq = %llu;\n\tprecision = %llu;\n\toffset_s = %lld;\n"
			  "\toffset = %llu;\n\tabsolute = %s;\n",
			  (unsigned long long)cc->frequency, (unsigned long long)cc->precision,
			  (long long)cc->offset_s, (unsigned long long)cc->offset_cycles,
			  cc->origin_is_unix_epoch ? "true" : "false");
		/* A CTF 2 clock UID that is a UUID's text (babeltrace 2.1 makes a
		 * CTF 1.8 clock UUID the UID): the clock's UUID again. */
		if (cc->has_uuid || tmx_uuid_parse(cc->uid, uuid)) {
			cw_sb_puts(b, "\tuuid = ");
			put_uuid(b, cc->has_uuid ? cc->uuid : uuid);
			cw_sb_puts(b, ";\n");
		}
		cw_sb_puts(b, "};\n\n");
	}
}

static void put_root(struct gen *g, const char *what, const struct cw_node *n)
{
	if (!n)
		return;
	cw_sb_printf(&g->b, "\t%s := ", what);
	put_field(g, n, 1);
	cw_sb_puts(&g->b, ";\n");
}

static const char *clock_name(const struct cw_trace_plan *p, const struct tmx_clock_class *cc)
{
	for (size_t i = 0; i < p->n_clocks; i++)
		if (p->clocks[i] == cc)
			return p->clock_names[i];
	return "unknown";
}

static void put_stream(struct gen *g, const struct cw_stream_plan *sp)
{
	struct tmx_buf *b = &g->b;
	const char *clock = sp->clock ? clock_name(g->p, sp->clock) : NULL;
	char map[128];
	uint32_t align = 8;

	if (clock)
		snprintf(map, sizeof(map), " map = clock.%s.value;", clock);
	cw_sb_printf(b, "stream {\n\tid = %llu;\n\tpacket.context := struct {\n",
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
	cw_sb_printf(b, "\t} align(%u);\n\n\tevent.header := struct {\n", align);
	own_integer(g, 2, 64, NULL, "id");
	if (clock)
		own_integer(g, 2, 64, map, "timestamp");
	cw_sb_puts(b, "\t} align(8);\n");
	put_root(g, "event.context", sp->common_context);
	cw_sb_puts(b, "};\n\n");

	for (size_t e = 0; e < sp->n_events; e++) {
		const struct cw_event_plan *ep = &sp->events[e];
		const struct tmx_event_class *ec = ep->ec;
		cw_sb_puts(b, "event {\n\tname = ");
		put_quoted(b, ec->name ? ec->name : "unknown");
		cw_sb_printf(b, ";\n\tstream_id = %llu;\n\tid = %llu;\n",
			  (unsigned long long)sp->sc->id, (unsigned long long)ec->id);
		if (ec->emf_uri) {
			cw_sb_puts(b, "\tmodel.emf.uri = ");
			put_quoted(b, ec->emf_uri);
			cw_sb_puts(b, ";\n");
		}
		if (ec->log_level != TMX_LOG_LEVEL_NONE)
			cw_sb_printf(b, "\tloglevel = %d;\n", ec->log_level);
		put_root(g, "context", ep->specific_context);
		put_root(g, "fields", ep->payload);
		cw_sb_puts(b, "};\n\n");
	}
}

int cw_tsdl_text(struct cw_trace_plan *p, struct tmx_error *err)
{
	struct gen g = { .p = p };

	put_trace(&g);
	put_env(&g);
	put_clocks(&g);
	for (size_t s = 0; s < p->n_streams; s++)
		put_stream(&g, &p->streams[s]);
	if (g.b.oom) {
		free(g.b.p);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	p->metadata = (char *)g.b.p;
	p->metadata_len = g.b.len;
	return TMX_OK;
}
