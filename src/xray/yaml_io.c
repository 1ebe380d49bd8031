/*
 * llvm::yaml::Input's value rules over libyaml events (see yaml_io.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memmem */
#endif
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "xray/yaml_io.h"
#include "common/errors.h"

#define XY_CHUNK 64
#define XY_U_FDD0 "\xEF\xB7\x90"

/* libyaml's read handler: XY_CHUNK bytes or less at a time, DELs as U+FDD0. */
static int read_chunk(void *data, unsigned char *buf, size_t size, size_t *size_read)
{
	struct xy_parser *y = data;
	size_t k = 0;

	while (k < size && k < XY_CHUNK && y->in_pos < y->in_end) {
		if (*y->in_pos == 0x7f && y->del_subst) {
			if (size - k < 3)
				break;
			memcpy(buf + k, XY_U_FDD0, 3);
			k += 3;
		} else {
			buf[k++] = *y->in_pos;
		}
		y->in_pos++;
	}
	*size_read = k;
	return 1;
}

void xy_init(struct xy_parser *y, const char *path, const uint8_t *data, size_t size, bool del)
{
	memset(y, 0, sizeof(*y));
	y->path = path;
	y->in = y->in_pos = data;
	y->in_end = data + size;
	y->del_subst = del && !memmem(data, size, XY_U_FDD0, 3);
	/* Fails only when out of memory, which the first parse then reports. */
	yaml_parser_initialize(&y->p);
	yaml_parser_set_input(&y->p, read_chunk, y);
}

size_t xy_copy_text(const struct xy_parser *y, const char *s, size_t n, uint8_t *out)
{
	size_t k = 0;

	if (!y->del_subst) {
		if (n)
			memcpy(out, s, n);
		return n;
	}
	for (size_t i = 0; i < n; i++) {
		if (i + 3 <= n && !memcmp(s + i, XY_U_FDD0, 3)) {
			out[k++] = 0x7f;
			i += 2;
		} else {
			out[k++] = (uint8_t)s[i];
		}
	}
	return k;
}

/* The offset in the text of libyaml's byte offset `off` (DELs count 1 there, 3 here). */
static uint64_t text_offset(const struct xy_parser *y, size_t off)
{
	const uint8_t *p = y->in;

	for (size_t seen = 0; p < y->in_end && seen < off; p++)
		seen += *p == 0x7f && y->del_subst ? 3 : 1;
	return (uint64_t)(p - y->in);
}

void xy_fini(struct xy_parser *y)
{
	if (y->have_ev)
		yaml_event_delete(&y->ev);
	y->have_ev = false;
	yaml_parser_delete(&y->p);
}

static int verror_at(const struct xy_parser *y, struct tmx_error *err, const yaml_mark_t *m,
		     const char *fmt, va_list ap)
{
	char msg[TMX_ERROR_MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return tmx_error_at_line(err, TMX_ERR_DATA, y->path, (uint32_t)m->line + 1,
				 (uint32_t)m->column + 1, "%s", msg);
}

int xy_error_at(const struct xy_parser *y, struct tmx_error *err, const yaml_mark_t *m,
		const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = verror_at(y, err, m, fmt, ap);
	va_end(ap);
	return ret;
}

int xy_error(const struct xy_parser *y, struct tmx_error *err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = verror_at(y, err, &y->ev.start_mark, fmt, ap);
	va_end(ap);
	return ret;
}

/* libyaml's own error: where and what, with its context ("while parsing a flow mapping"). */
static int syntax_error(const struct xy_parser *y, struct tmx_error *err)
{
	const yaml_parser_t *p = &y->p;
	const char *problem = p->problem ? p->problem : "unknown error";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	case YAML_READER_ERROR:
		/* Bad encoding: libyaml knows the byte, not the line. */
		if (p->problem_value >= 0)
			return tmx_error_at(err, TMX_ERR_DATA, y->path,
					    text_offset(y, p->problem_offset),
					    "not a YAML text: %s (byte 0x%02x)", problem,
					    (unsigned)p->problem_value);
		return tmx_error_at(err, TMX_ERR_DATA, y->path, text_offset(y, p->problem_offset),
				    "not a YAML text: %s", problem);
	default:
		if (p->context)
			return tmx_error_at_line(err, TMX_ERR_DATA, y->path,
						 (uint32_t)p->problem_mark.line + 1,
						 (uint32_t)p->problem_mark.column + 1,
						 "YAML syntax error: %s (%s started at %zu:%zu)",
						 problem, p->context, p->context_mark.line + 1,
						 p->context_mark.column + 1);
		return tmx_error_at_line(err, TMX_ERR_DATA, y->path,
					 (uint32_t)p->problem_mark.line + 1,
					 (uint32_t)p->problem_mark.column + 1, "YAML syntax error: %s",
					 problem);
	}
}

int xy_next(struct xy_parser *y, struct tmx_error *err)
{
	if (y->have_ev)
		yaml_event_delete(&y->ev);
	y->have_ev = false;
	if (!yaml_parser_parse(&y->p, &y->ev))
		return syntax_error(y, err);
	y->have_ev = true;
	if (y->ev.type == YAML_ALIAS_EVENT)
		return xy_error(y, err, "YAML alias *%s: aliases are not supported (nor by "
				"llvm-xray)", (const char *)y->ev.data.alias.anchor);
	return TMX_OK;
}

static bool is_empty_value(const yaml_event_t *ev)
{
	return ev->type == YAML_SCALAR_EVENT && ev->data.scalar.length == 0 &&
	       ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/*
 * 's' for a message: at most 40 bytes of it, control bytes as '?' (the
 * text comes from the input), "..." when cut.
 */
static const char *quote(const char *s, size_t n, char *buf, size_t size)
{
	size_t k = 0, lim = n;

	if (size < 48)
		return "a scalar";
	if (n > 40)   /* cut at a UTF-8 character's start */
		for (lim = 40; lim > 0 && ((unsigned char)s[lim] & 0xC0) == 0x80; lim--)
			;
	buf[k++] = '\'';
	for (size_t i = 0; i < lim; i++)
		buf[k++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	if (n > 40) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k++] = '\'';
	buf[k] = '\0';
	return buf;
}

const char *xy_what(const struct xy_parser *y, char *buf, size_t size)
{
	const yaml_event_t *ev = &y->ev;

	switch (ev->type) {
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SEQUENCE_START_EVENT:
		return "a sequence";
	case YAML_SCALAR_EVENT:
		if (is_empty_value(ev))
			return "an empty value";
		return quote((const char *)ev->data.scalar.value, ev->data.scalar.length, buf, size);
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
	case YAML_DOCUMENT_END_EVENT:
	case YAML_STREAM_END_EVENT:
		return "nothing";
	default:
		return "something else";
	}
}

int xy_skip_node(struct xy_parser *y, struct tmx_error *err)
{
	size_t depth = 0;
	int ret;

	for (;;) {
		switch (y->ev.type) {
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			depth++;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		if (depth == 0)
			return TMX_OK;
		if ((ret = xy_next(y, err)))
			return ret;
	}
}

int xy_expect_mapping(const struct xy_parser *y, const char *what, struct tmx_error *err)
{
	char buf[64];

	if (y->ev.type == YAML_MAPPING_START_EVENT)
		return TMX_OK;
	return xy_error(y, err, "not a mapping: expected %s (key: value pairs), found %s", what,
			xy_what(y, buf, sizeof(buf)));
}

/* llvm's yaml Input::isNull: the scalars a sequence may stand for no element with. */
static bool is_null_scalar(const yaml_event_t *ev)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t n = ev->data.scalar.length;

	return ev->type == YAML_SCALAR_EVENT &&
	       (n == 0 || (n == 1 && s[0] == '~') ||
		(n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4))));
}

int xy_begin_sequence(const struct xy_parser *y, const char *what, bool *is_seq,
		      struct tmx_error *err)
{
	char buf[64];

	*is_seq = y->ev.type == YAML_SEQUENCE_START_EVENT;
	if (*is_seq || is_null_scalar(&y->ev))
		return TMX_OK;
	return xy_error(y, err, "not a sequence: expected %s ([ ... ] or '- ' items), found %s",
			what, xy_what(y, buf, sizeof(buf)));
}

int xy_key(const struct xy_parser *y, const char *const *names, size_t n, const char *where,
	   uint32_t *seen, size_t *idx, yaml_mark_t *first, struct tmx_error *err)
{
	const yaml_event_t *ev = &y->ev;
	char buf[64];
	size_t len;

	if (!*seen)
		*first = ev->start_mark;

	if (ev->type != YAML_SCALAR_EVENT)
		return xy_error(y, err, "expected a key of %s, found %s", where,
				xy_what(y, buf, sizeof(buf)));
	len = ev->data.scalar.length;
	for (size_t i = 0; i < n; i++) {
		if (strlen(names[i]) != len || memcmp(names[i], ev->data.scalar.value, len))
			continue;
		if (*seen >> i & 1)
			return xy_error(y, err, "key '%s' given twice in %s", names[i], where);
		*seen |= 1u << i;
		*idx = i;
		return TMX_OK;
	}
	{
		char keys[512];
		size_t k = 0;
		keys[0] = '\0';
		for (size_t i = 0; i < n && k < sizeof(keys); i++)
			k += (size_t)snprintf(keys + k, sizeof(keys) - k, "%s%s", i ? ", " : "",
					      names[i]);
		return xy_error(y, err, "unknown key %s in %s (known keys: %s)",
				xy_what(y, buf, sizeof(buf)), where, keys);
	}
}

int xy_missing_key(const struct xy_parser *y, const yaml_mark_t *m, const char *const *names,
		   size_t n, uint32_t required, uint32_t seen, const char *where,
		   struct tmx_error *err)
{
	for (size_t i = 0; i < n; i++)
		if ((required >> i & 1) && !(seen >> i & 1))
			return xy_error_at(y, err, m, "missing required key '%s' in %s", names[i],
					   where);
	return TMX_OK;
}

/* The current event as a scalar that is not an empty value, or an error. */
static int scalar(const struct xy_parser *y, const char *key, const char *expected,
		  const char **s, size_t *n, struct tmx_error *err)
{
	char buf[64];

	if (y->ev.type != YAML_SCALAR_EVENT || is_empty_value(&y->ev))
		return xy_error(y, err, "expected %s for '%s', found %s", expected, key,
				xy_what(y, buf, sizeof(buf)));
	*s = (const char *)y->ev.data.scalar.value;
	*n = y->ev.data.scalar.length;
	return TMX_OK;
}

/*
 * llvm's consumeUnsignedInteger with radix 0, over the whole text: false
 * when it is not a number (*overflow: a number too large for 64 bits).
 */
static bool parse_unsigned(const char *s, size_t n, uint64_t *v, bool *overflow)
{
	unsigned radix = 10;
	uint64_t x = 0;

	*overflow = false;
	*v = 0;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		radix = 16, s += 2, n -= 2;
	else if (n >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		radix = 2, s += 2, n -= 2;
	else if (n >= 2 && s[0] == '0' && s[1] == 'o')
		radix = 8, s += 2, n -= 2;
	else if (n >= 2 && s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		radix = 8, s += 1, n -= 1;
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     c >= 'a' && c <= 'z' ? (unsigned)(c - 'a' + 10) :
			     c >= 'A' && c <= 'Z' ? (unsigned)(c - 'A' + 10) : 99;
		if (d >= radix)
			return false;
		if (x > (UINT64_MAX - d) / radix)
			*overflow = true;
		x = x * radix + d;
	}
	*v = x;
	return !*overflow;
}

/* The message of a number (the current scalar) that is not what `key` takes. */
static int bad_number(const struct xy_parser *y, const char *key, bool is_number,
		      const char *range, struct tmx_error *err)
{
	char buf[64];

	return xy_error(y, err, "%s %s for '%s': expected an integer %s (decimal, 0x hex, 0o or "
			"0-prefixed octal, 0b binary)",
			is_number ? "out of range number" : "invalid number",
			xy_what(y, buf, sizeof(buf)), key, range);
}

int xy_uint(const struct xy_parser *y, const char *key, uint64_t max, uint64_t *v,
	    struct tmx_error *err)
{
	const char *s;
	size_t n;
	bool overflow;
	char range[64];
	int ret;

	if ((ret = scalar(y, key, "an unsigned integer", &s, &n, err)))
		return ret;
	if (parse_unsigned(s, n, v, &overflow) && *v <= max)
		return TMX_OK;
	snprintf(range, sizeof(range), "from 0 to %" PRIu64, max);
	return bad_number(y, key, overflow || *v > max, range, err);
}

int xy_int(const struct xy_parser *y, const char *key, int64_t min, int64_t max, int64_t *v,
	   struct tmx_error *err)
{
	const char *s;
	size_t n;
	uint64_t u = 0;
	bool neg, overflow, ok;
	char range[64];
	int ret;

	if ((ret = scalar(y, key, "an integer", &s, &n, err)))
		return ret;
	neg = s[0] == '-';
	ok = parse_unsigned(s + neg, n - neg, &u, &overflow);
	/* As llvm: "-0" is 0, -2^63 is the most negative. */
	if (ok && u <= (uint64_t)INT64_MAX + neg) {
		int64_t x = neg ? (int64_t)(0 - u) : (int64_t)u;
		if (x >= min && x <= max) {
			*v = x;
			return TMX_OK;
		}
	}
	snprintf(range, sizeof(range), "from %" PRId64 " to %" PRId64, min, max);
	return bad_number(y, key, ok || overflow, range, err);
}

int xy_bool(const struct xy_parser *y, const char *key, bool *v, struct tmx_error *err)
{
	/* llvm's yaml::parseBool. */
	static const char *const yes[] = { "y", "Y", "yes", "Yes", "YES", "true", "True",
					   "TRUE", "on", "On", "ON" };
	static const char *const no[] = { "n", "N", "no", "No", "NO", "false", "False",
					  "FALSE", "off", "Off", "OFF" };
	const char *s;
	char buf[64];
	size_t n;
	int ret;

	if ((ret = scalar(y, key, "a boolean", &s, &n, err)))
		return ret;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strlen(yes[i]) == n && !memcmp(yes[i], s, n)) {
			*v = true;
			return TMX_OK;
		}
		if (strlen(no[i]) == n && !memcmp(no[i], s, n)) {
			*v = false;
			return TMX_OK;
		}
	}
	return xy_error(y, err, "invalid boolean %s for '%s': expected true or false (or yes/no, "
			"on/off, y/n)", xy_what(y, buf, sizeof(buf)), key);
}

int xy_string(const struct xy_parser *y, const char *key, const char **s, size_t *len,
	      struct tmx_error *err)
{
	return scalar(y, key, "a string", s, len, err);
}
