/*
 * Event filters (include/tracemux/filter.h) inside: the parsed expression
 * (filter_parse.c), its names bound to one source's event classes
 * (filter_bind.c) and the match of one event (filter_eval.c).
 *
 * A filter is read-only once parsed; a binding is read-only once made.
 * tmx_filter_match() only reads both and the event, so worker threads may
 * call it at the same time on events of different streams.
 */
#ifndef TMX_MUX_FILTER_H
#define TMX_MUX_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ptr_index.h"
#include "tracemux/filter.h"
#include "tracemux/tracemux.h"

enum fnode_kind { FN_OR, FN_AND, FN_NOT, FN_CMP };

enum fop { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_MATCH, OP_NOMATCH };

/* What a comparison reads: a literal, a special ($...) or a field. */
enum fopd_kind {
	OPD_INT,      /* integer literal: `neg` and its magnitude */
	OPD_FLOAT,
	OPD_STRING,
	OPD_NAME,     /* $name */
	OPD_TS,       /* $ts */
	OPD_FIELD,    /* a field by path, or $cpu/$pid/$tid: `ref` */
};

/* An integer of either signedness, exactly: -mag when neg. */
struct fint {
	bool neg;
	uint64_t mag;
};

struct foperand {
	enum fopd_kind kind;
	uint32_t line, col;        /* where it starts in the expression */
	union {
		struct fint i;
		double d;
		struct {
			char *ptr;         /* NUL-terminated copy (may hold NULs) */
			size_t len;
		} str;
		size_t ref;        /* OPD_FIELD: index in filter->refs */
	};
};

struct fnode {
	enum fnode_kind kind;
	enum fop op;               /* FN_CMP */
	size_t a, b;               /* children (FN_OR/AND: both, FN_NOT: a) */
	struct foperand l, r;      /* FN_CMP */
	regex_t *re;               /* OP_MATCH/OP_NOMATCH: compiled r */
};

/* The specials that are fields under several names. */
enum fspecial { FS_NONE, FS_CPU, FS_PID, FS_TID };

/* A field name (or a special) that the expression reads. */
struct fref {
	char *path;                /* as written ("a.b"), or "$cpu"... */
	enum fspecial special;
	uint32_t line, col;        /* first use, for errors */
};

struct tmx_filter {
	char **globs;
	size_t n_globs;
	struct fnode *nodes;
	size_t n_nodes, cap_nodes, root;
	struct fref *refs;
	size_t n_refs, cap_refs;
	bool has_expr;
};

/* What a value is, per class, for the comparisons (filter_bind.c). */
enum ftype {
	FT_MISSING = 0,   /* the class has no such field: comparisons are false */
	FT_INT,           /* integers, booleans, bit arrays */
	FT_FLOAT,
	FT_STRING,        /* strings and character arrays */
	FT_ENUM,          /* an integer with labels */
	FT_DYNAMIC,       /* through a variant or an optional: known per event */
	FT_COMPOUND,      /* a structure, array or BLOB: not comparable */
};

/* A reference bound in one class: where its value is. */
struct fbound_ref {
	uint8_t type;              /* enum ftype */
	uint8_t scope;             /* enum tmx_scope */
	uint8_t read;              /* enum fread: how the value at `index` reads */
	/* Index of the value in its scope's array when it never moves, else SIZE_MAX. */
	size_t index;
	const struct tmx_field_class *fc;  /* the class expected at `index` */
	const char *path;          /* the field's path in its scope (looked up otherwise) */
};

/* A value at its fixed index, when its class is the one bound: read directly. */
enum fread { FR_GENERIC = 0, FR_SIGNED, FR_UNSIGNED, FR_DOUBLE };

/* Per class, what the expression comes to before any event is read. */
enum fverdict { FV_NEVER = 0, FV_ALWAYS, FV_EVALUATE };

struct tmx_filter_bound {
	const struct tmx_filter *f;
	const struct ptr_index *classes;   /* the source's dense class numbers */
	size_t n_classes;
	const struct tmx_event_class **cls; /* number → class */
	uint8_t *verdict;                  /* enum fverdict per class */
	struct fbound_ref *refs;           /* n_classes × f->n_refs */
};

/* Three-valued results: bind time knows only some comparisons. */
enum ftri { TRI_FALSE = 0, TRI_TRUE = 1, TRI_UNKNOWN = 2 };

/*
 * Binds f to the event classes numbered by `classes` (the source's dense
 * numbers, which must outlive the binding).
 */
int tmx_filter_bind(const struct tmx_filter *f, const struct ptr_index *classes,
		    struct tmx_filter_bound **out, struct tmx_error *err);
void tmx_filter_bound_free(struct tmx_filter_bound *b);

/*
 * The expression on one event of class number `ci`; msg NULL: at bind
 * time (comparisons on event values are TRI_UNKNOWN).
 */
enum ftri tmx_filter_eval(const struct tmx_filter_bound *b, size_t ci, const struct tmx_msg *msg);

/*
 * Whether `msg` passes: every message that is not an event does; an event
 * passes when its class is selected and the expression holds.  A pure
 * function of the binding and the message (thread-safe).
 */
bool tmx_filter_match(const struct tmx_filter_bound *b, const struct tmx_msg *msg);

/* The number of class `ec` in the binding, SIZE_MAX when it is not one of the source's. */
static inline size_t tmx_filter_class_number(const struct tmx_filter_bound *b,
					     const struct tmx_event_class *ec)
{
	return ptr_index_find(b->classes, ec);
}

/* Whether the expression reads any field (or $cpu, $pid, $tid). */
static inline bool tmx_filter_reads_fields(const struct tmx_filter_bound *b)
{
	return b->f->n_refs != 0;
}

/* Whether events of class number `ci` can pass at all (readers may skip the others). */
static inline bool tmx_filter_class_wanted(const struct tmx_filter_bound *b, size_t ci)
{
	return ci < b->n_classes && b->verdict[ci] != FV_NEVER;
}

#endif
