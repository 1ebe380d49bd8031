/*
 * CTF 2 field classes (spec 5.3) to model field classes.
 *
 * Each JSON field class becomes one struct ctf2_fc.  An alias name used
 * as a field class is a deep copy of the alias's class, so that every
 * class instance in a scope tree is unique (value slots are per instance);
 * copies are bounded as TSDL's are.  Alignments are the effective ones
 * (spec 6.4.1): a structure's is the largest of its minimum alignment and
 * its members', an array's of its minimum alignment and its element's.
 * Field locations are only parsed here; ctf2_loc.c resolves them once the
 * whole scope exists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf2.h"
#include "model/field_class.h"

#define TRY(x) do { int ret_ = (x); if (ret_) return ret_; } while (0)

#define COMMON_KEYS "type", "attributes", "extensions"
#define BIT_ARRAY_KEYS COMMON_KEYS, "length", "byte-order", "bit-order", "alignment"

/* ------------------------------------------------------------------ */
/* Helpers                                                              */
/* ------------------------------------------------------------------ */

static struct tmx_field_class *fc_new(struct ctf2_parser *p, enum tmx_fc_kind kind,
				      json_object *v)
{
	struct ctf2_fc *c = tmx_arena_alloc(p->arena, sizeof(*c));
	struct ctf2_pos pos = ctf2_pos_of(p, v);

	if (!c)
		return NULL;
	c->fc.kind = kind;
	c->fc.align = 1;
	c->fc.slot = -1;
	c->fc.ref_slot = -1;
	c->fc.base = 10;
	c->fc.line = pos.line;
	c->fc.col = pos.col;
	c->off = pos.off;
	return &c->fc;
}

static bool is_power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int get_align(struct ctf2_parser *p, json_object *v, const char *key, uint32_t *out)
{
	uint64_t a = 1;
	json_object *av = NULL;

	TRY(ctf2_get_uint(p, v, key, false, 1, UINT64_MAX, &a, NULL));
	if (!is_power_of_two(a) || a > CTF2_MAX_ALIGN) {
		json_object_object_get_ex(v, key, &av);
		return ctf2_error(p, av, "`%s`: expected a power of two from 1 to 2^30, got %llu",
				  key, (unsigned long long)a);
	}
	*out = (uint32_t)a;
	return TMX_OK;
}

/* A string property that must be one of `values` (NULL-terminated); *index its position. */
static int get_choice(struct ctf2_parser *p, json_object *v, const char *key, bool required,
		      const char *const *values, const char *expected, int *index)
{
	const char *s = NULL;
	json_object *sv = NULL;

	TRY(ctf2_get_string(p, v, key, required, &s));
	if (!s)
		return TMX_OK;
	for (int i = 0; values[i]; i++)
		if (!strcmp(s, values[i])) {
			*index = i;
			return TMX_OK;
		}
	json_object_object_get_ex(v, key, &sv);
	return ctf2_error(p, sv, "`%s`: expected %s, got \"%s\"", key, expected, s);
}

/* ------------------------------------------------------------------ */
/* Integer ranges (spec 5.3.2)                                          */
/* ------------------------------------------------------------------ */

enum range_kind { RANGES_UNSIGNED, RANGES_SIGNED, RANGES_EITHER };

/*
 * An integer range set.  RANGES_EITHER (selector ranges, whose selector is
 * not known yet) records in *sign whether a bound needs a signed or an
 * unsigned selector; a set that needs both can match no selector.
 */
static int parse_ranges(struct ctf2_parser *p, json_object *set, const char *what,
			enum range_kind kind, struct tmx_enum_range **out, size_t *n_out,
			uint8_t *sign)
{
	size_t n;
	uint8_t s = 0;

	if (!json_object_is_type(set, json_type_array) || !(n = json_object_array_length(set)))
		return ctf2_error(p, set, "%s: expected an integer range set (a non-empty array of "
				  "[lower, upper] arrays)", what);
	if (!(*out = tmx_arena_calloc(p->arena, n, sizeof(**out))))
		return ctf2_nomem(p);
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(set, i);
		bool neg[2];
		uint64_t b[2];

		if (!json_object_is_type(r, json_type_array) || json_object_array_length(r) != 2)
			return ctf2_error(p, r ? r : set, "%s: expected an integer range: an array of "
					  "two integers [lower, upper]", what);
		for (int k = 0; k < 2; k++) {
			json_object *bv = json_object_array_get_idx(r, (size_t)k);
			TRY(ctf2_int_value(p, bv, what, &neg[k], &b[k]));
			if (neg[k] && kind == RANGES_UNSIGNED)
				return ctf2_error(p, bv, "%s: expected a non-negative integer, got %lld",
						  what, (long long)b[k]);
			if (!neg[k] && b[k] > INT64_MAX && kind == RANGES_SIGNED)
				return ctf2_error(p, bv, "%s: %llu is out of range for a signed "
						  "integer", what, (unsigned long long)b[k]);
			s |= neg[k] ? CTF2_RANGES_NEG : b[k] > INT64_MAX ? CTF2_RANGES_BIG : 0;
		}
		if (s == (CTF2_RANGES_NEG | CTF2_RANGES_BIG))
			return ctf2_error(p, r, "%s: the ranges have both negative bounds and bounds "
					  "above 2^63-1: no integer selector can hold both", what);
		/* Negative bounds compare as signed, others as unsigned. */
		if ((neg[0] || neg[1] || kind == RANGES_SIGNED) ? (int64_t)b[0] > (int64_t)b[1] :
		    b[0] > b[1])
			return ctf2_error(p, r, "%s: the range's lower bound is greater than its upper "
					  "bound", what);
		(*out)[i].lower = b[0];
		(*out)[i].upper = b[1];
	}
	*n_out = n;
	if (sign)
		*sign = s;
	return TMX_OK;
}

/* `mappings` of an integer class, or `flags` of a bit map (object: name → range set). */
static int parse_mappings(struct ctf2_parser *p, json_object *v, const char *key,
			  enum range_kind kind, struct tmx_field_class *fc)
{
	json_object *m = NULL;
	size_t n, i = 0;

	TRY(ctf2_get_object(p, v, key, false, &m));
	if (!m || !(n = (size_t)json_object_object_length(m)))
		return TMX_OK;
	if (!(fc->mappings = tmx_arena_calloc(p->arena, n, sizeof(*fc->mappings))))
		return ctf2_nomem(p);
	json_object_object_foreach(m, label, set) {
		struct tmx_enum_mapping *map = &fc->mappings[i++];
		char what[160];
		snprintf(what, sizeof(what), "`%s` `%.100s`", key, label);
		if (!(map->label = tmx_arena_strdup(p->arena, label)))
			return ctf2_nomem(p);
		TRY(parse_ranges(p, set, what, kind, &map->ranges, &map->n_ranges, NULL));
	}
	fc->n_mappings = n;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Roles                                                                */
/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	uint32_t bit;
} role_names[] = {
	{ "packet-magic-number", CTF2_ROLE_MAGIC },
	{ "metadata-stream-uuid", CTF2_ROLE_UUID },
	{ "data-stream-class-id", CTF2_ROLE_DSC_ID },
	{ "data-stream-id", CTF2_ROLE_DS_ID },
	{ "packet-total-length", CTF2_ROLE_TOTAL_LEN },
	{ "packet-content-length", CTF2_ROLE_CONTENT_LEN },
	{ "default-clock-timestamp", CTF2_ROLE_DEF_CLK_TS },
	{ "packet-end-default-clock-timestamp", CTF2_ROLE_END_DEF_CLK_TS },
	{ "discarded-event-record-counter-snapshot", CTF2_ROLE_DISC_COUNTER },
	{ "packet-sequence-number", CTF2_ROLE_SEQ_NUM },
	{ "event-record-class-id", CTF2_ROLE_ERC_ID },
};

/* `roles`: names among the ones `allowed` (CTF2_ROLE_* bits). */
static int parse_roles(struct ctf2_parser *p, json_object *v, uint32_t allowed,
		       struct tmx_field_class *fc)
{
	json_object *roles = NULL;
	uint32_t bits = 0;
	size_t n;

	TRY(ctf2_get_array(p, v, "roles", false, &roles));
	n = roles ? json_object_array_length(roles) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(roles, i);
		const char *name;
		size_t k = 0;

		TRY(ctf2_string_value(p, r, "role", &name));
		while (k < sizeof(role_names) / sizeof(role_names[0]) && strcmp(role_names[k].name, name))
			k++;
		if (k == sizeof(role_names) / sizeof(role_names[0]) || !(role_names[k].bit & allowed))
			return ctf2_error(p, r, "`%s` is not a role of %s field class", name,
					  allowed == CTF2_ROLE_UUID ? "a static-length BLOB" :
					  "an unsigned integer");
		bits |= role_names[k].bit;
	}
	/* The model gives a field one meaning. */
	if (bits & (bits - 1))
		return ctf2_error_code(p, TMX_ERR_UNSUPPORTED, roles,
				       "a field class with several roles is not supported");
	ctf2_fc_of(fc)->roles = bits;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Fixed-length bit arrays and what derives from them (5.3.4-5.3.9)     */
/* ------------------------------------------------------------------ */

static const char *const fixed_types[] = {
	"fixed-length-bit-array", "fixed-length-bit-map", "fixed-length-boolean",
	"fixed-length-unsigned-integer", "fixed-length-signed-integer",
	"fixed-length-floating-point-number", NULL,
};
enum { FL_BIT_ARRAY, FL_BIT_MAP, FL_BOOL, FL_UINT, FL_SINT, FL_FLOAT };

static const char *const byte_orders[] = { "little-endian", "big-endian", NULL };
static const char *const bit_orders[] = { "first-to-last", "last-to-first", NULL };

static int check_fixed_keys(struct ctf2_parser *p, json_object *v, int t)
{
	static const char *const plain[] = { BIT_ARRAY_KEYS, NULL };
	static const char *const map[] = { BIT_ARRAY_KEYS, "flags", NULL };
	static const char *const uint[] = { BIT_ARRAY_KEYS, "preferred-display-base", "mappings",
					    "roles", NULL };
	static const char *const sint[] = { BIT_ARRAY_KEYS, "preferred-display-base", "mappings",
					    NULL };
	const char *const *keys = t == FL_BIT_MAP ? map : t == FL_UINT ? uint :
				  t == FL_SINT ? sint : plain;

	return ctf2_check_keys(p, v, keys, "this field class");
}

static int get_base(struct ctf2_parser *p, json_object *v, struct tmx_field_class *fc)
{
	uint64_t base = 10;
	json_object *bv = NULL;

	TRY(ctf2_get_uint(p, v, "preferred-display-base", false, 0, UINT64_MAX, &base, NULL));
	if (base != 2 && base != 8 && base != 10 && base != 16) {
		json_object_object_get_ex(v, "preferred-display-base", &bv);
		return ctf2_error(p, bv, "`preferred-display-base`: expected 2, 8, 10 or 16, got %llu",
				  (unsigned long long)base);
	}
	fc->base = (uint8_t)base;
	return TMX_OK;
}

/* A float of another size than 32 or 64 bits: the decoder reads only those. */
static int float_size(struct ctf2_parser *p, json_object *v, struct tmx_field_class *fc)
{
	json_object *lv = NULL;

	if (fc->size == 32 || fc->size == 64) {
		fc->exp_dig = fc->size == 32 ? 8 : 11;
		fc->mant_dig = fc->size == 32 ? 24 : 53;
		return TMX_OK;
	}
	json_object_object_get_ex(v, "length", &lv);
	return ctf2_error_code(p, TMX_ERR_UNSUPPORTED, lv, "%s%s%s%u-bit floating point number: "
			       "only 32 and 64 bits are supported", p->member ? "field `" : "",
			       p->member ? p->member : "", p->member ? "`: " : "", fc->size);
}

/* Bit map flags name bit indexes: each must be below the length. */
static int check_flags(struct ctf2_parser *p, json_object *v, const struct tmx_field_class *fc)
{
	json_object *fv = NULL;

	json_object_object_get_ex(v, "flags", &fv);
	if (!fc->n_mappings)
		return ctf2_error(p, fv ? fv : v, "a bit map needs at least one flag in `flags`");
	for (size_t m = 0; m < fc->n_mappings; m++)
		for (size_t r = 0; r < fc->mappings[m].n_ranges; r++)
			if (fc->mappings[m].ranges[r].upper >= fc->size)
				return ctf2_error(p, fv, "flag `%s`: bit index %llu is not below the "
						  "length (%u bits)", fc->mappings[m].label,
						  (unsigned long long)fc->mappings[m].ranges[r].upper,
						  fc->size);
	return TMX_OK;
}

static int build_fixed(struct ctf2_parser *p, json_object *v, int t, struct tmx_field_class **out)
{
	static const enum tmx_fc_kind kinds[] = {
		TMX_FC_BIT_ARRAY, TMX_FC_BIT_ARRAY, TMX_FC_BOOL, TMX_FC_INT, TMX_FC_INT, TMX_FC_FLOAT,
	};
	struct tmx_field_class *fc = fc_new(p, kinds[t], v);
	uint64_t len = 0;
	int bo = 0, bito = -1;

	if (!fc)
		return ctf2_nomem(p);
	TRY(check_fixed_keys(p, v, t));
	TRY(ctf2_get_uint(p, v, "length", true, 1, 64, &len, NULL));
	TRY(get_choice(p, v, "byte-order", true, byte_orders, "\"little-endian\" or \"big-endian\"",
		       &bo));
	TRY(get_choice(p, v, "bit-order", false, bit_orders, "\"first-to-last\" or "
		       "\"last-to-first\"", &bito));
	TRY(get_align(p, v, "alignment", &fc->align));
	fc->size = (uint32_t)len;
	fc->byte_order = bo ? TMX_BO_BE : TMX_BO_LE;
	/* The usual order: first-to-last in little-endian, last-to-first in big-endian. */
	fc->bit_order_rev = bito >= 0 && bito != bo;
	fc->is_signed = t == FL_SINT;
	if (t == FL_UINT || t == FL_SINT) {
		TRY(get_base(p, v, fc));
		TRY(parse_mappings(p, v, "mappings", t == FL_SINT ? RANGES_SIGNED : RANGES_UNSIGNED, fc));
		if (fc->n_mappings)
			fc->kind = TMX_FC_ENUM;
		if (t == FL_UINT)
			TRY(parse_roles(p, v, ~(uint32_t)CTF2_ROLE_UUID, fc));
	} else if (t == FL_BIT_MAP) {
		TRY(parse_mappings(p, v, "flags", RANGES_UNSIGNED, fc));
		TRY(check_flags(p, v, fc));
	} else if (t == FL_FLOAT) {
		TRY(float_size(p, v, fc));
	}
	*out = fc;
	return TMX_OK;
}

/* Variable-length integers (5.3.10): LEB128, 64-bit values, byte-aligned. */
static int build_varlen(struct ctf2_parser *p, json_object *v, bool is_signed,
			struct tmx_field_class **out)
{
	static const char *const ukeys[] = { COMMON_KEYS, "preferred-display-base", "mappings",
					     "roles", NULL };
	static const char *const skeys[] = { COMMON_KEYS, "preferred-display-base", "mappings",
					     NULL };
	struct tmx_field_class *fc = fc_new(p, TMX_FC_INT, v);

	if (!fc)
		return ctf2_nomem(p);
	TRY(ctf2_check_keys(p, v, is_signed ? skeys : ukeys, "this field class"));
	fc->varlen = true;
	fc->size = 64;
	fc->align = 8;
	fc->is_signed = is_signed;
	TRY(get_base(p, v, fc));
	TRY(parse_mappings(p, v, "mappings", is_signed ? RANGES_SIGNED : RANGES_UNSIGNED, fc));
	if (fc->n_mappings)
		fc->kind = TMX_FC_ENUM;
	if (!is_signed)
		TRY(parse_roles(p, v, ~(uint32_t)CTF2_ROLE_UUID, fc));
	*out = fc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Field locations (5.3.1)                                              */
/* ------------------------------------------------------------------ */

const char *const ctf2_scope_names[CTF2_N_SCOPES] = {
	"packet-header", "packet-context", "event-record-header", "event-record-common-context",
	"event-record-specific-context", "event-record-payload",
};

static int parse_location(struct ctf2_parser *p, json_object *v, const char *key,
			  struct tmx_field_class *fc)
{
	static const char *const keys[] = { "origin", "path", NULL };
	static const char *const origins[] = {
		"packet-header", "packet-context", "event-record-header",
		"event-record-common-context", "event-record-specific-context",
		"event-record-payload", NULL,
	};
	struct ctf2_loc *loc = tmx_arena_alloc(p->arena, sizeof(*loc));
	json_object *lv = NULL, *path = NULL;
	int origin = -1;

	if (!loc)
		return ctf2_nomem(p);
	TRY(ctf2_get_object(p, v, key, true, &lv));
	TRY(ctf2_check_keys(p, lv, keys, "a field location"));
	TRY(get_choice(p, lv, "origin", false, origins, "a scope name (\"packet-header\", "
		       "\"packet-context\", \"event-record-header\", \"event-record-common-context\", "
		       "\"event-record-specific-context\" or \"event-record-payload\")", &origin));
	TRY(ctf2_get_array(p, lv, "path", true, &path));
	loc->origin = origin;
	loc->n = json_object_array_length(path);
	if (!loc->n)
		return ctf2_error(p, path, "`path`: expected at least one element");
	if (!(loc->path = tmx_arena_calloc(p->arena, loc->n, sizeof(*loc->path))))
		return ctf2_nomem(p);
	for (size_t i = 0; i < loc->n; i++) {
		json_object *e = json_object_array_get_idx(path, i);
		if (!e && i + 1 == loc->n)
			return ctf2_error(p, path, "`path`: the last element must be a member name, "
					  "not null");
		if (e)
			TRY(ctf2_string_value(p, e, "`path` element", &loc->path[i]));
	}
	ctf2_fc_of(fc)->loc = loc;
	ctf2_fc_of(fc)->loc_key = key;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Strings and BLOBs (5.3.11-5.3.17)                                    */
/* ------------------------------------------------------------------ */

static const char *const encodings[] = {
	"utf-8", "utf-16be", "utf-16le", "utf-32be", "utf-32le", NULL,
};

/* Static lengths in bytes: beyond 2^61-1 their bit count overflows. */
#define MAX_BYTE_LENGTH (UINT64_MAX / 8)

static int build_string(struct ctf2_parser *p, json_object *v, enum tmx_str_length how,
			struct tmx_field_class **out)
{
	static const char *const nt_keys[] = { COMMON_KEYS, "encoding", NULL };
	static const char *const sl_keys[] = { COMMON_KEYS, "encoding", "length", NULL };
	static const char *const dl_keys[] = { COMMON_KEYS, "encoding", "length-field-location", NULL };
	struct tmx_field_class *fc = fc_new(p, TMX_FC_STRING, v);
	int enc = 0;

	if (!fc)
		return ctf2_nomem(p);
	TRY(ctf2_check_keys(p, v, how == TMX_STR_STATIC ? sl_keys : how == TMX_STR_DYNAMIC ? dl_keys :
			    nt_keys, "this field class"));
	TRY(get_choice(p, v, "encoding", false, encodings, "\"utf-8\", \"utf-16be\", \"utf-16le\", "
		       "\"utf-32be\" or \"utf-32le\"", &enc));
	fc->align = 8;
	fc->encoding = TMX_ENC_UTF8;
	fc->str_length = (uint8_t)how;
	fc->str_encoding = (uint8_t)enc;
	if (how == TMX_STR_STATIC)
		TRY(ctf2_get_uint(p, v, "length", true, 0, MAX_BYTE_LENGTH, &fc->length, NULL));
	else if (how == TMX_STR_DYNAMIC)
		TRY(parse_location(p, v, "length-field-location", fc));
	*out = fc;
	return TMX_OK;
}

static int build_blob(struct ctf2_parser *p, json_object *v, bool dynamic,
		      struct tmx_field_class **out)
{
	static const char *const sl_keys[] = { COMMON_KEYS, "length", "media-type", "roles", NULL };
	static const char *const dl_keys[] = { COMMON_KEYS, "length-field-location", "media-type", NULL };
	struct tmx_field_class *fc = fc_new(p, TMX_FC_BLOB, v);

	if (!fc)
		return ctf2_nomem(p);
	TRY(ctf2_check_keys(p, v, dynamic ? dl_keys : sl_keys, "this field class"));
	TRY(ctf2_get_string(p, v, "media-type", false, (const char **)&fc->media_type));
	fc->align = 8;
	if (dynamic) {
		TRY(parse_location(p, v, "length-field-location", fc));
	} else {
		TRY(ctf2_get_uint(p, v, "length", true, 0, MAX_BYTE_LENGTH, &fc->length, NULL));
		TRY(parse_roles(p, v, CTF2_ROLE_UUID, fc));
		if (ctf2_fc_of(fc)->roles && fc->length != 16)
			return ctf2_error(p, v, "a static-length BLOB with the `metadata-stream-uuid` "
					  "role needs `length` 16, not %llu",
					  (unsigned long long)fc->length);
	}
	*out = fc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Compound classes (5.3.18-5.3.23)                                     */
/* ------------------------------------------------------------------ */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Member (or option) names must be unique: sorted, duplicates are neighbours. */
static int check_unique_names(struct ctf2_parser *p, json_object *where,
			      const struct tmx_field_class *fc, const char *what)
{
	const char **names = malloc(fc->n_members * sizeof(*names) + 1);
	size_t n = 0;
	int ret = TMX_OK;

	if (!names)
		return ctf2_nomem(p);
	for (size_t i = 0; i < fc->n_members; i++)
		if (fc->members[i].name[0] || fc->kind == TMX_FC_STRUCT)
			names[n++] = fc->members[i].name;
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 1; i < n && !ret; i++)
		if (!strcmp(names[i - 1], names[i]))
			ret = ctf2_error(p, where, "two %s are named `%s`", what, names[i]);
	free(names);
	return ret;
}

static int build_struct(struct ctf2_parser *p, json_object *v, unsigned depth,
			struct tmx_field_class **out)
{
	static const char *const keys[] = { COMMON_KEYS, "member-classes", "minimum-alignment", NULL };
	static const char *const mkeys[] = { "name", "field-class", "attributes", "extensions", NULL };
	struct tmx_field_class *fc = fc_new(p, TMX_FC_STRUCT, v);
	json_object *members = NULL;
	const char *outer = p->member;

	if (!fc)
		return ctf2_nomem(p);
	TRY(ctf2_check_keys(p, v, keys, "a structure field class"));
	TRY(get_align(p, v, "minimum-alignment", &fc->align));
	TRY(ctf2_get_array(p, v, "member-classes", false, &members));
	fc->n_members = members ? json_object_array_length(members) : 0;
	if (fc->n_members && !(fc->members = tmx_arena_calloc(p->arena, fc->n_members,
							      sizeof(*fc->members))))
		return ctf2_nomem(p);
	for (size_t i = 0; i < fc->n_members; i++) {
		json_object *m = json_object_array_get_idx(members, i), *mfc = NULL;
		if (!json_object_is_type(m, json_type_object))
			return ctf2_error(p, m ? m : members, "`member-classes`: expected member "
					  "classes (objects with `name` and `field-class`)");
		TRY(ctf2_check_keys(p, m, mkeys, "a structure member class"));
		TRY(ctf2_check_attributes(p, m));
		TRY(ctf2_check_extensions(p, m));
		TRY(ctf2_get_string(p, m, "name", true, (const char **)&fc->members[i].name));
		if (!json_object_object_get_ex(m, "field-class", &mfc))
			return ctf2_error(p, m, "member `%s`: missing property `field-class`",
					  fc->members[i].name);
		p->member = fc->members[i].name;
		TRY(ctf2_fc_build(p, mfc, depth + 1, &fc->members[i].fc));
		p->member = outer;
		if (fc->members[i].fc->align > fc->align)
			fc->align = fc->members[i].fc->align;
	}
	TRY(check_unique_names(p, members, fc, "structure members"));
	*out = fc;
	return TMX_OK;
}

static int build_array(struct ctf2_parser *p, json_object *v, bool dynamic, unsigned depth,
		       struct tmx_field_class **out)
{
	static const char *const sl_keys[] = { COMMON_KEYS, "element-field-class", "length",
					       "minimum-alignment", NULL };
	static const char *const dl_keys[] = { COMMON_KEYS, "element-field-class",
					       "length-field-location", "minimum-alignment", NULL };
	struct tmx_field_class *fc = fc_new(p, dynamic ? TMX_FC_SEQUENCE : TMX_FC_ARRAY, v);
	json_object *ev = NULL;

	if (!fc)
		return ctf2_nomem(p);
	TRY(ctf2_check_keys(p, v, dynamic ? dl_keys : sl_keys, "this field class"));
	TRY(get_align(p, v, "minimum-alignment", &fc->align));
	if (dynamic)
		TRY(parse_location(p, v, "length-field-location", fc));
	else
		TRY(ctf2_get_uint(p, v, "length", true, 0, UINT64_MAX, &fc->length, NULL));
	if (!json_object_object_get_ex(v, "element-field-class", &ev))
		return ctf2_error(p, v, "missing property `element-field-class` (a field class)");
	TRY(ctf2_fc_build(p, ev, depth + 1, &fc->elem));
	if (fc->elem->align > fc->align)
		fc->align = fc->elem->align;
	*out = fc;
	return TMX_OK;
}

static int build_optional(struct ctf2_parser *p, json_object *v, unsigned depth,
			  struct tmx_field_class **out)
{
	static const char *const keys[] = { COMMON_KEYS, "field-class", "selector-field-location",
					    "selector-field-ranges", NULL };
	struct tmx_field_class *fc = fc_new(p, TMX_FC_OPTIONAL, v);
	json_object *ov = NULL, *rv = NULL;

	if (!fc)
		return ctf2_nomem(p);
	TRY(ctf2_check_keys(p, v, keys, "an optional field class"));
	TRY(parse_location(p, v, "selector-field-location", fc));
	if (json_object_object_get_ex(v, "selector-field-ranges", &rv)) {
		TRY(parse_ranges(p, rv, "`selector-field-ranges`", RANGES_EITHER, &fc->ranges,
				 &fc->n_ranges, &ctf2_fc_of(fc)->range_sign));
		ctf2_fc_of(fc)->has_sel_ranges = true;
	}
	if (!json_object_object_get_ex(v, "field-class", &ov))
		return ctf2_error(p, v, "missing property `field-class` (a field class)");
	TRY(ctf2_fc_build(p, ov, depth + 1, &fc->elem));
	*out = fc;
	return TMX_OK;
}

static int build_option(struct ctf2_parser *p, json_object *o, unsigned depth,
			struct tmx_field_class *fc, struct tmx_member *m)
{
	static const char *const keys[] = { "name", "field-class", "selector-field-ranges",
					    "attributes", "extensions", NULL };
	json_object *ov = NULL, *rv = NULL;
	uint8_t sign = 0;

	if (!json_object_is_type(o, json_type_object))
		return ctf2_error(p, o, "`options`: expected variant options (objects with "
				  "`field-class` and `selector-field-ranges`)");
	TRY(ctf2_check_keys(p, o, keys, "a variant option"));
	TRY(ctf2_check_attributes(p, o));
	TRY(ctf2_check_extensions(p, o));
	/* An unnamed option gets an empty name: outputs expect one. */
	m->name = "";
	TRY(ctf2_get_string(p, o, "name", false, (const char **)&m->name));
	if (!json_object_object_get_ex(o, "selector-field-ranges", &rv))
		return ctf2_error(p, o, "missing property `selector-field-ranges` (an integer range "
				  "set)");
	TRY(parse_ranges(p, rv, "`selector-field-ranges`", RANGES_EITHER, &m->ranges, &m->n_ranges,
			 &sign));
	ctf2_fc_of(fc)->range_sign |= sign;
	if (ctf2_fc_of(fc)->range_sign == (CTF2_RANGES_NEG | CTF2_RANGES_BIG))
		return ctf2_error(p, rv, "the options' selector ranges have both negative bounds "
				  "and bounds above 2^63-1: no integer selector can hold both");
	if (!json_object_object_get_ex(o, "field-class", &ov))
		return ctf2_error(p, o, "missing property `field-class` (a field class)");
	return ctf2_fc_build(p, ov, depth + 1, &m->fc);
}

static int build_variant(struct ctf2_parser *p, json_object *v, unsigned depth,
			 struct tmx_field_class **out)
{
	static const char *const keys[] = { COMMON_KEYS, "options", "selector-field-location", NULL };
	struct tmx_field_class *fc = fc_new(p, TMX_FC_VARIANT, v);
	json_object *opts = NULL;

	if (!fc)
		return ctf2_nomem(p);
	TRY(ctf2_check_keys(p, v, keys, "a variant field class"));
	TRY(parse_location(p, v, "selector-field-location", fc));
	TRY(ctf2_get_array(p, v, "options", true, &opts));
	fc->n_members = json_object_array_length(opts);
	if (!fc->n_members)
		return ctf2_error(p, opts, "`options`: expected at least one option");
	if (!(fc->members = tmx_arena_calloc(p->arena, fc->n_members, sizeof(*fc->members))))
		return ctf2_nomem(p);
	for (size_t i = 0; i < fc->n_members; i++)
		TRY(build_option(p, json_object_array_get_idx(opts, i), depth, fc, &fc->members[i]));
	TRY(check_unique_names(p, opts, fc, "variant options"));
	*out = fc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Aliases (5.5)                                                        */
/* ------------------------------------------------------------------ */

/*
 * A copy for one use of an alias.  Its classes point where the alias is
 * used (errors about the copy concern that use).  Mappings, ranges and
 * names are never modified, so they are shared.
 */
static int copy_fc(struct ctf2_parser *p, const struct tmx_field_class *src, unsigned depth,
		   struct ctf2_pos use, const char *alias, struct tmx_field_class **out)
{
	struct ctf2_fc *c;

	if (depth > CTF2_MAX_TYPE_DEPTH)
		return ctf2_error_pos(p, TMX_ERR_LIMIT, use, "field classes nested more than %d "
				      "levels deep (through alias `%s`)", CTF2_MAX_TYPE_DEPTH, alias);
	if (++p->n_copies > CTF2_MAX_COPIES)
		return ctf2_error_pos(p, TMX_ERR_LIMIT, use, "the metadata's field class aliases "
				      "expand to more than %u field classes", CTF2_MAX_COPIES);
	if (!(c = tmx_arena_alloc(p->arena, sizeof(*c))))
		return ctf2_nomem(p);
	*c = *(const struct ctf2_fc *)src;
	c->fc.line = use.line;
	c->fc.col = use.col;
	c->off = use.off;
	c->alias = alias;
	if (src->n_members) {
		c->fc.members = tmx_arena_calloc(p->arena, src->n_members, sizeof(*c->fc.members));
		if (!c->fc.members)
			return ctf2_nomem(p);
		for (size_t i = 0; i < src->n_members; i++) {
			c->fc.members[i] = src->members[i];
			TRY(copy_fc(p, src->members[i].fc, depth + 1, use, alias, &c->fc.members[i].fc));
		}
	}
	if (src->elem)
		TRY(copy_fc(p, src->elem, depth + 1, use, alias, &c->fc.elem));
	*out = &c->fc;
	return TMX_OK;
}

int ctf2_alias_add(struct ctf2_parser *p, json_object *name_v, const char *name,
		   struct tmx_field_class *fc)
{
	int ret = ctf2_map_put(p, &p->aliases, name, fc);

	if (ret == 1)
		return ctf2_error(p, name_v, "a field class alias named `%s` already exists", name);
	return ret;
}

static int use_alias(struct ctf2_parser *p, json_object *v, unsigned depth,
		     struct tmx_field_class **out)
{
	const char *name;
	struct tmx_field_class *fc;

	TRY(ctf2_string_value(p, v, "field class alias name", &name));
	if (!(fc = ctf2_map_get(&p->aliases, name)))
		return ctf2_error(p, v, "no field class alias named `%s` before this fragment "
				  "(expected a field class object or the name of an earlier alias)",
				  name);
	return copy_fc(p, fc, depth, ctf2_pos_of(p, v), name, out);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

static int build_typed(struct ctf2_parser *p, json_object *v, const char *type, unsigned depth,
		       struct tmx_field_class **out)
{
	for (int t = 0; fixed_types[t]; t++)
		if (!strcmp(type, fixed_types[t]))
			return build_fixed(p, v, t, out);
	if (!strcmp(type, "variable-length-unsigned-integer"))
		return build_varlen(p, v, false, out);
	if (!strcmp(type, "variable-length-signed-integer"))
		return build_varlen(p, v, true, out);
	if (!strcmp(type, "null-terminated-string"))
		return build_string(p, v, TMX_STR_NUL_TERMINATED, out);
	if (!strcmp(type, "static-length-string"))
		return build_string(p, v, TMX_STR_STATIC, out);
	if (!strcmp(type, "dynamic-length-string"))
		return build_string(p, v, TMX_STR_DYNAMIC, out);
	if (!strcmp(type, "static-length-blob"))
		return build_blob(p, v, false, out);
	if (!strcmp(type, "dynamic-length-blob"))
		return build_blob(p, v, true, out);
	if (!strcmp(type, "structure"))
		return build_struct(p, v, depth, out);
	if (!strcmp(type, "static-length-array"))
		return build_array(p, v, false, depth, out);
	if (!strcmp(type, "dynamic-length-array"))
		return build_array(p, v, true, depth, out);
	if (!strcmp(type, "optional"))
		return build_optional(p, v, depth, out);
	if (!strcmp(type, "variant"))
		return build_variant(p, v, depth, out);
	return ctf2_error(p, v, "unknown field class type \"%s\"", type);
}

int ctf2_fc_build(struct ctf2_parser *p, json_object *v, unsigned depth,
		  struct tmx_field_class **out)
{
	const char *type;

	if (depth > CTF2_MAX_TYPE_DEPTH)
		return ctf2_error_code(p, TMX_ERR_LIMIT, v, "field classes nested more than %d levels "
				       "deep", CTF2_MAX_TYPE_DEPTH);
	if (json_object_is_type(v, json_type_string))
		return use_alias(p, v, depth, out);
	if (!json_object_is_type(v, json_type_object))
		return ctf2_error(p, v, "expected a field class (an object) or the name of a field "
				  "class alias (a string)");
	TRY(ctf2_get_string(p, v, "type", true, &type));
	TRY(build_typed(p, v, type, depth, out));
	TRY(ctf2_check_attributes(p, v));
	return ctf2_check_extensions(p, v);
}

int ctf2_scope_fc_build(struct ctf2_parser *p, json_object *frag, const char *key,
			struct tmx_field_class **out)
{
	json_object *v = NULL;

	*out = NULL;
	if (!json_object_object_get_ex(frag, key, &v))
		return TMX_OK;
	p->member = NULL;
	TRY(ctf2_fc_build(p, v, 0, out));
	if ((*out)->kind != TMX_FC_STRUCT)
		return ctf2_error(p, v, "`%s`: expected a structure field class", key);
	return TMX_OK;
}
