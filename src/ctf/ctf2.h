/*
 * CTF 2 metadata (JSON text sequence, CTF2-SPEC-2.0 section 5) to the
 * common model.  Internals shared by:
 *
 *   ctf2_json.c  JSON of one fragment: json-c plus a lexical pre-scan that
 *                gives every value its position (json-c keeps none),
 *                catches what json-c accepts but JSON forbids (out-of-range
 *                integers, duplicate keys, single quotes...) and typed
 *                property readers that fail with clear errors
 *   ctf2_meta.c  the fragment stream and the six fragment kinds
 *   ctf2_fc.c    field classes, field class aliases (deep copies)
 *   ctf2_loc.c   field locations bound to value slots, roles to meanings
 */
#ifndef TMX_CTF2_H
#define TMX_CTF2_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctf/metadata.h"
#include "model/field_class.h"

/* What a hostile metadata stream cannot get past. */
#define CTF2_MAX_JSON_DEPTH 1024   /* about TSDL_MAX_TYPE_DEPTH field class levels */
#define CTF2_MAX_TYPE_DEPTH 256    /* as TSDL_MAX_TYPE_DEPTH */
#define CTF2_MAX_COPIES (1u << 20) /* field classes made from aliases, as TSDL_MAX_COPIES */
#define CTF2_MAX_ALIGN (1u << 30)  /* bits, as TSDL's `align` */
/*
 * JSON values of one fragment: json-c spends about 800 bytes on an object
 * (an empty one too), 150 on an array, 70 on a scalar.  A fragment of the
 * largest metadata allowed could hold 20 million `{}`: these bound what
 * json-c holds at once (about 200 + 300 MiB) far above any real fragment.
 */
#define CTF2_MAX_JSON_OBJECTS (1u << 18)
#define CTF2_MAX_JSON_VALUES (1u << 22)
/* Field location steps (through every option of the variants on the way), all fragments. */
#define CTF2_MAX_LOC_STEPS (1u << 26)

/* Where a JSON value starts in the metadata stream. */
struct ctf2_pos {
	uint32_t off;              /* byte offset in the whole stream */
	uint32_t line, col;        /* 1-based */
};

/* Field location origins, in decoding order (spec 5.3.1). */
enum ctf2_scope {
	CTF2_SCOPE_PH, CTF2_SCOPE_PC, CTF2_SCOPE_EH, CTF2_SCOPE_ECC,
	CTF2_SCOPE_ESC, CTF2_SCOPE_EP, CTF2_N_SCOPES,
};

/* A parsed field location (absent origin: relative to the containing structure). */
struct ctf2_loc {
	int origin;                /* enum ctf2_scope, or -1 */
	size_t n;
	const char **path;         /* NULL elements: `null` (parent structure) */
};

/* Roles (spec 5.6.1, 5.8.1), as bits. */
enum {
	CTF2_ROLE_MAGIC = 1 << 0,
	CTF2_ROLE_UUID = 1 << 1,
	CTF2_ROLE_DSC_ID = 1 << 2,
	CTF2_ROLE_DS_ID = 1 << 3,
	CTF2_ROLE_TOTAL_LEN = 1 << 4,
	CTF2_ROLE_CONTENT_LEN = 1 << 5,
	CTF2_ROLE_DEF_CLK_TS = 1 << 6,
	CTF2_ROLE_END_DEF_CLK_TS = 1 << 7,
	CTF2_ROLE_DISC_COUNTER = 1 << 8,
	CTF2_ROLE_SEQ_NUM = 1 << 9,
	CTF2_ROLE_ERC_ID = 1 << 10,
};

/* Selector ranges of an optional or a variant, before the selector is known. */
enum {
	CTF2_RANGES_NEG = 1 << 0,  /* a bound is negative: needs a signed selector */
	CTF2_RANGES_BIG = 1 << 1,  /* a bound is above INT64_MAX: needs an unsigned one */
};

/*
 * Every field class the CTF 2 reader makes is one of these: the model's
 * class first (so a `struct tmx_field_class *` converts back), then what
 * only the reader needs.
 */
struct ctf2_fc {
	struct tmx_field_class fc;
	const struct ctf2_loc *loc;    /* length or selector location, else NULL */
	const char *loc_key;           /* its property name, for errors */
	uint32_t roles;                /* CTF2_ROLE_* */
	uint8_t range_sign;            /* CTF2_RANGES_* */
	bool has_sel_ranges;           /* optional: `selector-field-ranges` given */
	uint32_t off;                  /* where its JSON starts (or its alias is used) */
	const char *alias;             /* copied for a use of this alias, else NULL */
	uint32_t *by_name;             /* structure: member indexes sorted by name (lazy) */
};

static inline struct ctf2_fc *ctf2_fc_of(struct tmx_field_class *fc)
{
	return (struct ctf2_fc *)fc;
}

/* Names to objects (aliases, clock class IDs...): open addressing, FNV-1a. */
struct ctf2_map {
	size_t cap, n;             /* cap: a power of two, at least 2n */
	const char **keys;
	void **vals;
};

/* The JSON of the fragment being read. */
struct ctf2_json {
	json_object *root;
	struct ctf2_pos *vals;     /* non-null values, in document order */
	size_t n_vals, cap_vals;
	uint32_t *keys;            /* key count of each object, in document order */
	size_t n_objs, cap_objs;
};

struct ctf2_parser {
	struct tmx_arena *arena;
	struct tmx_error *err;
	const struct tmx_diag *diag;
	const char *name;          /* file name, for errors */
	const char *text;          /* the whole metadata stream */
	size_t len;

	/* The fragment being read (errors name it). */
	size_t frag_no;            /* 1-based */
	struct ctf2_pos frag_pos;
	const char *frag_type;     /* NULL until known */
	struct ctf2_json json;
	const char *member;        /* innermost member being built, for errors */

	struct tmx_trace_class *tc;
	bool has_trace_fragment, has_uuid;
	uint8_t uuid[16];
	struct ctf2_map aliases;       /* name -> struct tmx_field_class (never used directly) */
	struct ctf2_map clocks;        /* clock class `id` -> struct tmx_clock_class */
	struct ctf2_map streams;       /* data stream class ID (decimal) -> struct tmx_stream_class */
	struct ctf2_map events;        /* "DSC-index:ERC-ID" -> struct tmx_event_class */
	size_t cap_clocks, cap_streams; /* capacities of tc's arrays */
	size_t n_copies;           /* field classes made by copying aliases */
	int32_t *slot_parent;      /* union-find of value slots (ctf2_loc.c) */
	size_t cap_slots;
	size_t loc_steps;          /* field location steps so far */
};

/* ---- ctf2_json.c ---- */

/* The position `n` bytes after `pos` in `s` (which starts at `pos`). */
struct ctf2_pos ctf2_pos_advance(const char *s, size_t n, struct ctf2_pos pos);

/*
 * Parses one fragment's JSON (`s`, `len` bytes at `pos` in the stream) into
 * p->json.  Errors carry the exact position of what is wrong.
 */
int ctf2_json_parse(struct ctf2_parser *p, const char *s, size_t len, struct ctf2_pos pos);
void ctf2_json_fini(struct ctf2_json *j);
/* Where `v` starts (the fragment's start when unknown, e.g. for `null`). */
struct ctf2_pos ctf2_pos_of(const struct ctf2_parser *p, json_object *v);

/* A TMX_ERR_METADATA error at `v` (naming the fragment); returns the code. */
int ctf2_error(struct ctf2_parser *p, json_object *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int ctf2_error_code(struct ctf2_parser *p, enum tmx_status code, json_object *v,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Same at a known position. */
int ctf2_error_pos(struct ctf2_parser *p, enum tmx_status code, struct ctf2_pos pos,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int ctf2_nomem(struct ctf2_parser *p);

/* `what` names the object in errors ("clock class fragment", ...). */
int ctf2_check_keys(struct ctf2_parser *p, json_object *obj, const char *const *allowed,
		    const char *what);
/* Typed properties of `obj`: absent optional ones leave *out untouched. */
int ctf2_get_string(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		    const char **out);
int ctf2_get_uint(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		  uint64_t min, uint64_t max, uint64_t *out, bool *present);
int ctf2_get_object(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		    json_object **out);
int ctf2_get_array(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		   json_object **out);
/* A JSON string value (no U+0000 in it), copied into the arena. */
int ctf2_string_value(struct ctf2_parser *p, json_object *v, const char *what, const char **out);
/*
 * A JSON integer value: *neg true for a negative value (*u then holds its
 * two's complement).  Anything else is an error naming `what`.
 */
int ctf2_int_value(struct ctf2_parser *p, json_object *v, const char *what, bool *neg,
		   uint64_t *u);
/* A JSON integer that fits in int64. */
int ctf2_sint_value(struct ctf2_parser *p, json_object *v, const char *what, int64_t *out);
/* `extensions`: none is supported, so only an empty object passes. */
int ctf2_check_extensions(struct ctf2_parser *p, json_object *obj);
/* `attributes`: an object (contents are free). */
int ctf2_check_attributes(struct ctf2_parser *p, json_object *obj);

/* ---- ctf2_fc.c ---- */

/* A field class (object) or an alias name (string); `depth` bounds nesting. */
int ctf2_fc_build(struct ctf2_parser *p, json_object *v, unsigned depth,
		  struct tmx_field_class **out);
/* A scope's field class (must be a structure); NULL when `key` is absent. */
int ctf2_scope_fc_build(struct ctf2_parser *p, json_object *frag, const char *key,
			struct tmx_field_class **out);
int ctf2_alias_add(struct ctf2_parser *p, json_object *name_v, const char *name,
		   struct tmx_field_class *fc);

/* ---- ctf2_loc.c ---- */

/*
 * The scope field classes a location can reach while resolving one scope
 * (later ones NULL).
 */
struct ctf2_scopes {
	struct tmx_field_class *root[CTF2_N_SCOPES];
};

/*
 * Resolves every field location in the scope `scope` (roots->root[scope]):
 * targets get value slots, referrers ref_slot and tag, selector ranges are
 * checked against the selector's signedness.  Then checks the roles the
 * scope allows and sets meanings (clock timestamps map to `clock`).
 */
int ctf2_resolve_scope(struct ctf2_parser *p, struct ctf2_scopes *roots, enum ctf2_scope scope,
		       const struct tmx_clock_class *clock);

/* Once every fragment is read: slots joined by locations made one, numbered densely. */
int ctf2_finish_slots(struct ctf2_parser *p);

extern const char *const ctf2_scope_names[CTF2_N_SCOPES];

/* ---- ctf2_meta.c ---- */

void *ctf2_map_get(const struct ctf2_map *m, const char *key);
/* Adds `key` (kept, not copied); an existing key is an error the caller reports (1). */
int ctf2_map_put(struct ctf2_parser *p, struct ctf2_map *m, const char *key, void *val);
void ctf2_map_fini(struct ctf2_map *m);

int ctf2_metadata_parse(const char *text, size_t len, const char *name,
			const struct tmx_diag *diag, struct tmx_arena *arena,
			struct tmx_trace_class **out, struct tmx_error *err);

#endif
