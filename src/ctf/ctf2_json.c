/*
 * The JSON of one CTF 2 fragment.
 *
 * json-c builds the tree but keeps no positions, clamps out-of-range
 * integers to the nearest limit, keeps the last of duplicate keys and
 * accepts single-quoted strings and NaN even in strict mode.  A lexical
 * pre-scan of the fragment catches those (RFC 8259 tokens only, integers
 * within [-2^63, 2^64-1]) and records where each value and object starts;
 * after json-c's parse, a walk in document order gives every value its
 * position (json-c userdata) and compares each object's key count with the
 * scan's, which finds duplicate keys.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf2.h"
#include "common/errors.h"
#include "model/field_class.h"

#define TRY(x) do { int ret_ = (x); if (ret_) return ret_; } while (0)

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

static int verror_pos(struct ctf2_parser *p, enum tmx_status code, struct ctf2_pos pos,
		      const char *fmt, va_list ap)
{
	char msg[TMX_ERROR_MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	tmx_error_at_line(p->err, code, p->name, pos.line, pos.col, "fragment %zu%s%s%s, byte %u: %s",
			  p->frag_no, p->frag_type ? " (" : "", p->frag_type ? p->frag_type : "",
			  p->frag_type ? ")" : "", pos.off, msg);
	if (p->err) {
		p->err->has_offset = true;
		p->err->offset = pos.off;
	}
	return code;
}

int ctf2_error_pos(struct ctf2_parser *p, enum tmx_status code, struct ctf2_pos pos,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_pos(p, code, pos, fmt, ap);
	va_end(ap);
	return code;
}

int ctf2_error(struct ctf2_parser *p, json_object *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_pos(p, TMX_ERR_METADATA, ctf2_pos_of(p, v), fmt, ap);
	va_end(ap);
	return TMX_ERR_METADATA;
}

int ctf2_error_code(struct ctf2_parser *p, enum tmx_status code, json_object *v,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror_pos(p, code, ctf2_pos_of(p, v), fmt, ap);
	va_end(ap);
	return code;
}

int ctf2_nomem(struct ctf2_parser *p)
{
	return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
}

struct ctf2_pos ctf2_pos_of(const struct ctf2_parser *p, json_object *v)
{
	uintptr_t i = v ? (uintptr_t)json_object_get_userdata(v) : 0;

	return i && i <= p->json.n_vals ? p->json.vals[i - 1] : p->frag_pos;
}

/* ------------------------------------------------------------------ */
/* Lexical pre-scan                                                     */
/* ------------------------------------------------------------------ */

struct scan {
	struct ctf2_parser *p;
	const char *s;
	size_t len, i;
	struct ctf2_pos pos;       /* of s[i] */
	/* Open containers: '{' or '[', for objects whether a key comes next. */
	struct frame {
		char kind;
		bool expect_key;
		size_t obj;        /* index in p->json.keys */
	} *stack;
	size_t depth;
};

static void advance(struct scan *sc, size_t n)
{
	for (size_t k = 0; k < n && sc->i < sc->len; k++) {
		if (sc->s[sc->i] == '\n') {
			sc->pos.line++;
			sc->pos.col = 1;
		} else {
			sc->pos.col++;
		}
		sc->pos.off++;
		sc->i++;
	}
}

static int push_value(struct scan *sc)
{
	struct ctf2_json *j = &sc->p->json;

	if (j->n_vals == CTF2_MAX_JSON_VALUES)
		return ctf2_error_pos(sc->p, TMX_ERR_LIMIT, sc->pos, "fragment with more than %u "
				      "JSON values", CTF2_MAX_JSON_VALUES);
	if (j->n_vals == j->cap_vals) {
		size_t cap = j->cap_vals ? 2 * j->cap_vals : 64;
		struct ctf2_pos *v = realloc(j->vals, cap * sizeof(*v));
		if (!v)
			return ctf2_nomem(sc->p);
		j->vals = v;
		j->cap_vals = cap;
	}
	j->vals[j->n_vals++] = sc->pos;
	return TMX_OK;
}

static int open_container(struct scan *sc, char kind)
{
	struct ctf2_json *j = &sc->p->json;
	struct frame *f;

	if (sc->depth == CTF2_MAX_JSON_DEPTH)
		return ctf2_error_pos(sc->p, TMX_ERR_LIMIT, sc->pos,
				      "JSON nested more than %d levels deep", CTF2_MAX_JSON_DEPTH);
	TRY(push_value(sc));
	f = &sc->stack[sc->depth++];
	f->kind = kind;
	f->expect_key = kind == '{';
	if (kind == '{') {
		if (j->n_objs == CTF2_MAX_JSON_OBJECTS)
			return ctf2_error_pos(sc->p, TMX_ERR_LIMIT, sc->pos, "fragment with more than "
					      "%u JSON objects", CTF2_MAX_JSON_OBJECTS);
		if (j->n_objs == j->cap_objs) {
			size_t cap = j->cap_objs ? 2 * j->cap_objs : 32;
			uint32_t *k = realloc(j->keys, cap * sizeof(*k));
			if (!k)
				return ctf2_nomem(sc->p);
			j->keys = k;
			j->cap_objs = cap;
		}
		f->obj = j->n_objs;
		j->keys[j->n_objs++] = 0;
	}
	advance(sc, 1);
	return TMX_OK;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static int scan_string(struct scan *sc)
{
	struct ctf2_pos start = sc->pos;
	struct frame *top = sc->depth ? &sc->stack[sc->depth - 1] : NULL;

	if (top && top->kind == '{' && top->expect_key)
		sc->p->json.keys[top->obj]++;
	else
		TRY(push_value(sc));
	advance(sc, 1);
	while (sc->i < sc->len && sc->s[sc->i] != '"') {
		unsigned char c = (unsigned char)sc->s[sc->i];
		if (c < 0x20)
			return ctf2_error_pos(sc->p, TMX_ERR_METADATA, sc->pos,
					      "invalid JSON: control character 0x%02x in a string "
					      "(expected `\\u%04x`)", c, c);
		if (c != '\\') {
			advance(sc, 1);
			continue;
		}
		if (sc->i + 1 < sc->len && strchr("\"\\/bfnrt", sc->s[sc->i + 1]) && sc->s[sc->i + 1]) {
			advance(sc, 2);
		} else if (sc->i + 5 < sc->len && sc->s[sc->i + 1] == 'u' && is_hex(sc->s[sc->i + 2]) &&
			   is_hex(sc->s[sc->i + 3]) && is_hex(sc->s[sc->i + 4]) &&
			   is_hex(sc->s[sc->i + 5])) {
			advance(sc, 6);
		} else {
			return ctf2_error_pos(sc->p, TMX_ERR_METADATA, sc->pos,
					      "invalid JSON: bad escape sequence in a string "
					      "(expected \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or "
					      "\\uXXXX)");
		}
	}
	if (sc->i == sc->len)
		return ctf2_error_pos(sc->p, TMX_ERR_METADATA, start,
				      "invalid JSON: unterminated string");
	advance(sc, 1);
	return TMX_OK;
}

static size_t digits(const char *s, size_t i, size_t len)
{
	size_t n = 0;

	while (i + n < len && s[i + n] >= '0' && s[i + n] <= '9')
		n++;
	return n;
}

/*
 * RFC 8259 numbers; integers must fit CTF 2's range (int64 or uint64):
 * json-c would silently clamp the others.
 */
static int scan_number(struct scan *sc)
{
	const char *s = sc->s;
	size_t i = sc->i, int_start, int_len;
	bool neg = false, integer = true;

	if (s[i] == '-') {
		neg = true;
		i++;
	}
	int_start = i;
	int_len = digits(s, i, sc->len);
	if (!int_len || (int_len > 1 && s[i] == '0'))
		return ctf2_error_pos(sc->p, TMX_ERR_METADATA, sc->pos,
				      "invalid JSON number (expected digits without a leading zero)");
	i += int_len;
	if (i < sc->len && s[i] == '.') {
		size_t n = digits(s, i + 1, sc->len);
		if (!n)
			return ctf2_error_pos(sc->p, TMX_ERR_METADATA, sc->pos,
					      "invalid JSON number (expected digits after `.`)");
		i += 1 + n;
		integer = false;
	}
	if (i < sc->len && (s[i] == 'e' || s[i] == 'E')) {
		size_t n;
		i++;
		if (i < sc->len && (s[i] == '+' || s[i] == '-'))
			i++;
		n = digits(s, i, sc->len);
		if (!n)
			return ctf2_error_pos(sc->p, TMX_ERR_METADATA, sc->pos,
					      "invalid JSON number (expected an exponent)");
		i += n;
		integer = false;
	}
	if (integer) {
		const char *limit = neg ? "9223372036854775808" : "18446744073709551615";
		size_t l = strlen(limit);
		if (int_len > l || (int_len == l && memcmp(s + int_start, limit, l) > 0))
			return ctf2_error_pos(sc->p, TMX_ERR_METADATA, sc->pos,
					      "integer %.*s out of range (expected -2^63 to 2^64-1)",
					      (int)(i - sc->i > 64 ? 64 : i - sc->i), s + sc->i);
	}
	TRY(push_value(sc));
	advance(sc, i - sc->i);
	return TMX_OK;
}

static int scan_literal(struct scan *sc)
{
	static const char *const words[] = { "true", "false", "null" };

	for (size_t w = 0; w < 3; w++) {
		size_t l = strlen(words[w]);
		if (sc->len - sc->i >= l && !memcmp(sc->s + sc->i, words[w], l)) {
			if (w < 2)   /* json-c has no object for null */
				TRY(push_value(sc));
			advance(sc, l);
			return TMX_OK;
		}
	}
	return ctf2_error_pos(sc->p, TMX_ERR_METADATA, sc->pos,
			      "invalid JSON: unexpected character `%c` (expected a value: an "
			      "object, an array, a double-quoted string, a number, true, false "
			      "or null)", sc->s[sc->i]);
}

static int scan_token(struct scan *sc)
{
	char c = sc->s[sc->i];
	struct frame *top = sc->depth ? &sc->stack[sc->depth - 1] : NULL;

	switch (c) {
	case ' ': case '\t': case '\n': case '\r':
		advance(sc, 1);
		return TMX_OK;
	case '{': case '[':
		return open_container(sc, c);
	case '}': case ']':
		if (sc->depth)   /* mismatches are json-c's to report */
			sc->depth--;
		advance(sc, 1);
		return TMX_OK;
	case ':': case ',':
		if (top && top->kind == '{')
			top->expect_key = c == ',';
		advance(sc, 1);
		return TMX_OK;
	case '"':
		return scan_string(sc);
	default:
		if (c == '-' || (c >= '0' && c <= '9'))
			return scan_number(sc);
		if (c != '\'' && (c | 0x20) >= 'a' && (c | 0x20) <= 'z')
			return scan_literal(sc);
		return ctf2_error_pos(sc->p, TMX_ERR_METADATA, sc->pos,
				      "invalid JSON: unexpected character %s%c%s (0x%02x)",
				      c == '\'' ? "" : "`", c >= 0x20 && c < 0x7f ? c : '?',
				      c == '\'' ? " (JSON strings take double quotes)" : "`",
				      (unsigned char)c);
	}
}

static int prescan(struct ctf2_parser *p, const char *s, size_t len, struct ctf2_pos pos)
{
	struct scan sc = { .p = p, .s = s, .len = len, .pos = pos };
	int ret = TMX_OK;

	sc.stack = malloc(CTF2_MAX_JSON_DEPTH * sizeof(*sc.stack));
	if (!sc.stack)
		return ctf2_nomem(p);
	while (!ret && sc.i < len)
		ret = scan_token(&sc);
	free(sc.stack);
	return ret;
}

/* ------------------------------------------------------------------ */
/* json-c parse and positions                                           */
/* ------------------------------------------------------------------ */

struct ctf2_pos ctf2_pos_advance(const char *s, size_t n, struct ctf2_pos pos)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			pos.line++;
			pos.col = 1;
		} else {
			pos.col++;
		}
	}
	pos.off += (uint32_t)n;
	return pos;
}

struct walk {
	struct ctf2_parser *p;
	size_t val, obj;
};

static int set_positions(struct walk *w, json_object *v)
{
	struct ctf2_json *j = &w->p->json;

	if (!v)
		return TMX_OK;
	if (w->val == j->n_vals)   /* cannot happen when the scan and json-c agree */
		return ctf2_error(w->p, NULL, "invalid JSON (internal position mismatch)");
	json_object_set_userdata(v, (void *)(uintptr_t)++w->val, NULL);
	if (json_object_is_type(v, json_type_object)) {
		size_t obj = w->obj++;
		if (obj >= j->n_objs || (size_t)json_object_object_length(v) != j->keys[obj])
			return ctf2_error(w->p, v, "invalid JSON: this object has the same key "
					  "twice");
		json_object_object_foreach(v, key, child) {
			(void)key;
			TRY(set_positions(w, child));
		}
	} else if (json_object_is_type(v, json_type_array)) {
		size_t n = json_object_array_length(v);
		for (size_t i = 0; i < n; i++)
			TRY(set_positions(w, json_object_array_get_idx(v, i)));
	}
	return TMX_OK;
}

static int json_c_parse(struct ctf2_parser *p, const char *s, size_t len, struct ctf2_pos pos)
{
	struct json_tokener *tok = json_tokener_new_ex(CTF2_MAX_JSON_DEPTH + 1);
	enum json_tokener_error e;
	size_t end;

	if (!tok)
		return ctf2_nomem(p);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS |
			       JSON_TOKENER_VALIDATE_UTF8);
	p->json.root = json_tokener_parse_ex(tok, s, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (e == json_tokener_continue || (e != json_tokener_success && end >= len))
		return ctf2_error_pos(p, TMX_ERR_METADATA, ctf2_pos_advance(s, len, pos),
				      "truncated JSON: the fragment ends inside its JSON text "
				      "(expected the end of %s)", len && s[0] == '{' ?
				      "the fragment's object" : "a JSON value");
	if (e != json_tokener_success)
		return ctf2_error_pos(p, TMX_ERR_METADATA, ctf2_pos_advance(s, end, pos),
				      "invalid JSON: %s", json_tokener_error_desc(e));
	while (end < len && strchr(" \t\r\n", s[end]))
		end++;
	if (end < len)
		return ctf2_error_pos(p, TMX_ERR_METADATA, ctf2_pos_advance(s, end, pos),
				      "unexpected text after the fragment's JSON text (expected a "
				      "record separator, 0x1E, before the next fragment)");
	return TMX_OK;
}

void ctf2_json_fini(struct ctf2_json *j)
{
	if (j->root)
		json_object_put(j->root);
	j->root = NULL;
	j->n_vals = 0;
	j->n_objs = 0;
}

int ctf2_json_parse(struct ctf2_parser *p, const char *s, size_t len, struct ctf2_pos pos)
{
	struct walk w = { .p = p };

	ctf2_json_fini(&p->json);
	if (len > INT32_MAX)
		return ctf2_error_pos(p, TMX_ERR_LIMIT, pos, "fragment larger than 2 GiB");
	TRY(prescan(p, s, len, pos));
	TRY(json_c_parse(p, s, len, pos));
	return set_positions(&w, p->json.root);
}

/* ------------------------------------------------------------------ */
/* Typed access                                                         */
/* ------------------------------------------------------------------ */

static const char *type_name(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a non-integer number";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "a JSON value";
}

int ctf2_check_keys(struct ctf2_parser *p, json_object *obj, const char *const *allowed,
		    const char *what)
{
	json_object_object_foreach(obj, key, val) {
		size_t i = 0;
		while (allowed[i] && strcmp(allowed[i], key))
			i++;
		if (!allowed[i])
			return ctf2_error(p, val ? val : obj, "unknown property `%s` in %s", key, what);
	}
	return TMX_OK;
}

/* The property `key` (NULL when absent); `present` tells JSON null from absence. */
static json_object *prop(json_object *obj, const char *key, bool *present)
{
	json_object *v = NULL;

	*present = json_object_object_get_ex(obj, key, &v);
	return v;
}

static int missing(struct ctf2_parser *p, json_object *obj, const char *key, const char *expected)
{
	return ctf2_error(p, obj, "missing property `%s` (%s)", key, expected);
}

int ctf2_string_value(struct ctf2_parser *p, json_object *v, const char *what, const char **out)
{
	const char *s;
	size_t len;

	if (!json_object_is_type(v, json_type_string))
		return ctf2_error(p, v, "%s: expected a string, got %s", what, type_name(v));
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (memchr(s, '\0', len))
		return ctf2_error(p, v, "%s: the string contains U+0000 (not supported)", what);
	if (!(*out = tmx_arena_strndup(p->arena, s, len)))
		return ctf2_nomem(p);
	return TMX_OK;
}

int ctf2_get_string(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		    const char **out)
{
	bool present;
	json_object *v = prop(obj, key, &present);
	char what[96];

	if (!present)
		return required ? missing(p, obj, key, "a string") : TMX_OK;
	snprintf(what, sizeof(what), "`%s`", key);
	return ctf2_string_value(p, v, what, out);
}

int ctf2_int_value(struct ctf2_parser *p, json_object *v, const char *what, bool *neg,
		   uint64_t *u)
{
	int64_t s;

	if (!json_object_is_type(v, json_type_int))
		return ctf2_error(p, v, "%s: expected an integer, got %s", what, type_name(v));
	/*
	 * json-c keeps integers above INT64_MAX as uint64; get_int64 then
	 * clamps to INT64_MAX and get_uint64 gives the value.  The pre-scan
	 * rejected what json-c would have clamped.
	 */
	s = json_object_get_int64(v);
	*neg = s < 0;
	*u = *neg ? (uint64_t)s : json_object_get_uint64(v);
	return TMX_OK;
}

int ctf2_sint_value(struct ctf2_parser *p, json_object *v, const char *what, int64_t *out)
{
	bool neg;
	uint64_t u;

	TRY(ctf2_int_value(p, v, what, &neg, &u));
	if (!neg && u > INT64_MAX)
		return ctf2_error(p, v, "%s: %llu is out of range (expected -2^63 to 2^63-1)", what,
				  (unsigned long long)u);
	*out = (int64_t)u;
	return TMX_OK;
}

int ctf2_get_uint(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		  uint64_t min, uint64_t max, uint64_t *out, bool *present_out)
{
	bool present, neg;
	json_object *v = prop(obj, key, &present);
	uint64_t u;
	char what[96];

	if (present_out)
		*present_out = present;
	if (!present)
		return required ? missing(p, obj, key, "an integer") : TMX_OK;
	snprintf(what, sizeof(what), "`%s`", key);
	TRY(ctf2_int_value(p, v, what, &neg, &u));
	if (neg || u < min || u > max) {
		if (max == UINT64_MAX)
			return ctf2_error(p, v, "`%s`: expected an integer >= %llu, got %s%llu", key,
					  (unsigned long long)min, neg ? "-" : "",
					  (unsigned long long)(neg ? -u : u));
		return ctf2_error(p, v, "`%s`: expected an integer from %llu to %llu, got %s%llu", key,
				  (unsigned long long)min, (unsigned long long)max, neg ? "-" : "",
				  (unsigned long long)(neg ? -u : u));
	}
	*out = u;
	return TMX_OK;
}

static int get_typed(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		     enum json_type type, const char *expected, json_object **out)
{
	bool present;
	json_object *v = prop(obj, key, &present);

	if (!present)
		return required ? missing(p, obj, key, expected) : TMX_OK;
	if (!json_object_is_type(v, type))
		return ctf2_error(p, v ? v : obj, "`%s`: expected %s, got %s", key, expected,
				  type_name(v));
	*out = v;
	return TMX_OK;
}

int ctf2_get_object(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		    json_object **out)
{
	return get_typed(p, obj, key, required, json_type_object, "an object", out);
}

int ctf2_get_array(struct ctf2_parser *p, json_object *obj, const char *key, bool required,
		   json_object **out)
{
	return get_typed(p, obj, key, required, json_type_array, "an array", out);
}

int ctf2_check_extensions(struct ctf2_parser *p, json_object *obj)
{
	json_object *ext = NULL;

	TRY(ctf2_get_object(p, obj, "extensions", false, &ext));
	if (!ext)
		return TMX_OK;
	/* Spec 5.1: a consumer must not read a trace with an extension it does not support. */
	json_object_object_foreach(ext, ns, names) {
		if (!json_object_is_type(names, json_type_object))
			return ctf2_error(p, names ? names : ext, "extensions of namespace `%s`: "
					  "expected an object, got %s", ns, type_name(names));
		json_object_object_foreach(names, name, val) {
			(void)val;
			return ctf2_error_code(p, TMX_ERR_UNSUPPORTED, names,
					       "unsupported extension `%s` of namespace `%s` (no "
					       "CTF 2 extension is supported)", name, ns);
		}
	}
	return TMX_OK;
}

int ctf2_check_attributes(struct ctf2_parser *p, json_object *obj)
{
	json_object *attrs = NULL;

	return ctf2_get_object(p, obj, "attributes", false, &attrs);
}
