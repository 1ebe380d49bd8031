/*
 * Internals shared by the TSDL parser (tsdl_parse.c and its parts, see
 * tsdl_parse_impl.h) and the resolution pass (tsdl_resolve.c).
 */
#ifndef TMX_TSDL_H
#define TMX_TSDL_H

#include <stdio.h>

#include "ctf/metadata.h"
#include "ctf/tsdl_lex.h"

/* What a hostile metadata cannot get past. */
#define TSDL_MAX_COPIES (1u << 20)
#define TSDL_MAX_TYPE_DEPTH 256

/* Byte order not yet known: `native` or unspecified, resolved at the end. */
#define TSDL_BO_NATIVE 2

struct tsdl_alias {
	const char *name;   /* "uint32_t", "unsigned long", "struct foo", "enum bar"... */
	struct tmx_field_class *fc;
};

struct tsdl_scope {
	struct tsdl_scope *parent;
	struct tsdl_alias *aliases;
	size_t n, cap;
};

/* An event block, before it is attached to its stream class. */
struct tsdl_event {
	struct tmx_event_class *ec;
	bool has_id, has_stream_id;
	uint64_t stream_id;
	uint32_t line, col;
};

/*
 * The clock properties a repeated clock block must repeat: babeltrace2's
 * sink.ctf.fs writes one identical block per stream class, so a repeat is
 * only an error when it disagrees.
 */
enum tsdl_clock_prop {
	TSDL_CLOCK_DESCRIPTION,
	TSDL_CLOCK_UUID,
	TSDL_CLOCK_FREQ,
	TSDL_CLOCK_PRECISION,
	TSDL_CLOCK_OFFSET_S,
	TSDL_CLOCK_OFFSET,
	TSDL_CLOCK_ABSOLUTE,
	TSDL_CLOCK_N_PROPS      /* also "no difference" */
};

/* Where a clock block and each of its properties are written (line 0: not written). */
struct tsdl_clock_decl {
	uint32_t line, col;
	uint32_t prop_line[TSDL_CLOCK_N_PROPS], prop_col[TSDL_CLOCK_N_PROPS];
};

struct tsdl_parser {
	struct tsdl_lexer lx;
	struct tmx_arena *arena;
	struct tmx_error *err;
	const struct tmx_diag *diag;
	const char *name;
	struct tsdl_scope *scope;
	int depth;
	struct tmx_trace_class *tc;
	bool has_trace, has_major, has_minor, has_byte_order;
	/* Where `major` and `minor` are set: the version is checked after parsing. */
	uint32_t major_line, major_col, minor_line, minor_col;
	struct tsdl_event *events;
	size_t n_events;
	struct tsdl_clock_decl *clock_decls; /* parallel to tc->clocks */
	size_t n_copies;      /* field classes made by copying types */
};

/* Error at the current token; `fmt` has one %s for `arg`. */
int tsdl_error(struct tsdl_parser *p, const char *fmt, const char *arg);
/* A deep copy of a type for a new use; bounded (TSDL_MAX_COPIES, TSDL_MAX_TYPE_DEPTH). */
int tsdl_fc_copy(struct tsdl_parser *p, const struct tmx_field_class *src,
		 struct tmx_field_class **out);

/*
 * The first property in which two clock classes (offsets normalized) differ,
 * or TSDL_CLOCK_N_PROPS if none; `a_text` and `b_text` (`size` bytes each)
 * then describe the property's value in each.
 */
enum tsdl_clock_prop tsdl_clock_diff(const struct tmx_clock_class *a,
				     const struct tmx_clock_class *b, char *a_text,
				     char *b_text, size_t size);
const char *tsdl_clock_prop_name(enum tsdl_clock_prop prop);

/* Attaches events, resolves references, byte orders, meanings, clocks. */
int tsdl_resolve(struct tsdl_parser *p);

#endif
