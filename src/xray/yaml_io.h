/*
 * llvm::yaml::Input's rules over libyaml's event parser, for the two YAML
 * files llvm-xray reads: its YAML traces (yaml_in.c) and its YAML
 * instrumentation maps (instrmap.c).
 *
 * libyaml does the YAML (syntax, quoting, escapes, flow and block styles,
 * comments); this layer gives each value llvm's meaning:
 *
 * - integers as llvm's getAsUnsignedInteger / getAsSignedInteger with
 *   radix 0: decimal, 0x/0X hexadecimal, 0b/0B binary, 0o or a leading 0
 *   octal; quoted or not; no '+', no spaces; out of range is an error;
 * - booleans as llvm's yaml::parseBool (y/n, yes/no, true/false, on/off in
 *   lower, Capitalized or UPPER case);
 * - a sequence may be written as an empty value or a null scalar (null,
 *   Null, NULL, ~): no element;
 * - tags are ignored; aliases are refused (llvm: "unknown node kind").
 *
 * Where tracemux is stricter than llvm 14: a key given twice in one mapping
 * is an error (invalid YAML; llvm keeps the last value).
 *
 * Every error names the file and the line:column (1-based, as llvm prints
 * them) of the node at fault, and what was expected there.
 */
#ifndef TMX_XRAY_YAML_IO_H
#define TMX_XRAY_YAML_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "tracemux/error.h"

struct xy_parser {
	yaml_parser_t p;
	yaml_event_t ev;      /* the current event */
	bool have_ev;
	const char *path;
	const uint8_t *in, *in_pos, *in_end;  /* the text; what libyaml has been given */
	bool del_subst;       /* raw DEL bytes are given to libyaml as U+FDD0 */
};

/*
 * Parses `size` bytes at `data` (which must outlive the parser), handed to
 * libyaml a little at a time, so that a bad byte stops the reading where
 * it is rather than up to 16 KiB before.
 *
 * `del`: llvm-xray writes the DEL bytes of custom-event data raw inside
 * double quotes, which YAML does not allow (libyaml refuses them, llvm's
 * own parser takes them).  With `del`, each raw DEL reaches libyaml as the
 * noncharacter U+FDD0 (one character for one: positions stay right) and
 * xy_copy_text turns it back -- unless the text holds a U+FDD0 of its
 * own, when raw DELs stay an error.
 */
void xy_init(struct xy_parser *y, const char *path, const uint8_t *data, size_t size, bool del);

/* A scalar's text into `out` (room for n bytes), DELs given back; returns its length. */
size_t xy_copy_text(const struct xy_parser *y, const char *s, size_t n, uint8_t *out);
void xy_fini(struct xy_parser *y);

/* The next event into y->ev; a syntax error is TMX_ERR_DATA with its position. */
int xy_next(struct xy_parser *y, struct tmx_error *err);

/* TMX_ERR_DATA at the start of the current event. */
int xy_error(const struct xy_parser *y, struct tmx_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* TMX_ERR_DATA at `m`. */
int xy_error_at(const struct xy_parser *y, struct tmx_error *err, const yaml_mark_t *m,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* What the current event starts, for messages ("a mapping", "the scalar 'x'"...). */
const char *xy_what(const struct xy_parser *y, char *buf, size_t size);

/*
 * The node starting at the current event, passed over: on return y->ev is
 * its last event (the scalar itself, or the end of the collection).
 */
int xy_skip_node(struct xy_parser *y, struct tmx_error *err);

/*
 * The current node must start a mapping ("not a mapping" otherwise);
 * `what` names it in the message.
 */
int xy_expect_mapping(const struct xy_parser *y, const char *what, struct tmx_error *err);

/*
 * The current node as a sequence: *is_seq is true for a sequence start,
 * false for an empty or null value (no element); anything else is an error.
 */
int xy_begin_sequence(const struct xy_parser *y, const char *what, bool *is_seq,
		      struct tmx_error *err);

/*
 * Keys of a mapping: `names` has n (<= 32) entries.  At a key event,
 * xy_key gives its index, refusing non-scalar, unknown and repeated keys
 * (*seen keeps the keys met; *first becomes the position of the first
 * key).  At the mapping's end, xy_missing_key reports the first name of
 * `required` (a bit mask) not in *seen at `m`: the first key, or the
 * mapping's start when it has none, as llvm places it.
 */
int xy_key(const struct xy_parser *y, const char *const *names, size_t n, const char *where,
	   uint32_t *seen, size_t *idx, yaml_mark_t *first, struct tmx_error *err);
int xy_missing_key(const struct xy_parser *y, const yaml_mark_t *m, const char *const *names,
		   size_t n, uint32_t required, uint32_t seen, const char *where,
		   struct tmx_error *err);

/* Scalars of the current event, read as llvm's ScalarTraits read them. */
int xy_uint(const struct xy_parser *y, const char *key, uint64_t max, uint64_t *v,
	    struct tmx_error *err);
int xy_int(const struct xy_parser *y, const char *key, int64_t min, int64_t max, int64_t *v,
	   struct tmx_error *err);
int xy_bool(const struct xy_parser *y, const char *key, bool *v, struct tmx_error *err);
/* Any scalar but an empty value; the text stays valid until the next event. */
int xy_string(const struct xy_parser *y, const char *key, const char **s, size_t *len,
	      struct tmx_error *err);

#endif
