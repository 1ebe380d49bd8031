/*
 * A class's table as table.c fills it and table_export.c exports it (see
 * table.c): not part of the extension's interface (ext.h).
 */
#ifndef TMX_PY_TABLE_IMPL_H
#define TMX_PY_TABLE_IMPL_H

#include "ext.h"

/* Labels and option names of so many recent values per column, by value (see struct memo). */
#define MEMO_SIZE 64

/*
 * A label or option column's codes of recent values: a value's labels
 * (its option's name) depend only on the value and its class, so a value
 * met again takes its code without joining and looking up its labels.
 */
struct memo {
	uint64_t u[MEMO_SIZE];
	uint32_t code[MEMO_SIZE];
	bool used[MEMO_SIZE];
};

struct colbuf {
	/*
	 * Every row's value at row * width (byte strings: their end offsets,
	 * after a first 0): room for the table's cap_rows (+ 1) rows, made
	 * for all columns at once (grow_rows), not checked per value.
	 */
	unsigned char *data;
	size_t mapped;             /* `data` is a mapping of so many bytes (0: malloc'd) */
	unsigned width;            /* bytes per row in `data` */
	unsigned char *valid;      /* NULL: every row has a value; else room for cap_rows */
	struct strdict *dict;      /* COL_TEXT, COL_LABEL, COL_OPTION */
	struct memo *memo;         /* COL_LABEL, COL_OPTION */
	/* COL_OBJECT: `data` has each row's first entry in `vals` (SIZE_MAX: None). */
	struct tmx_value *vals;
	size_t n_vals, cap_vals;   /* entries, bytes of `vals` */
	unsigned char *bytes;      /* the strings' and BLOBs' bytes; COL_BYTES: the values */
	size_t n_bytes, cap_bytes;
	int64_t len;               /* COL_BYTES: the fixed length, or -1 */
	/*
	 * Fixed text columns (event, host, trace): the last text and its code.
	 * Their texts are the model's (class names, trace names, environment
	 * values), which stay in place for the whole read: the same pointer
	 * is the same text, and nearly every row repeats the previous one.
	 */
	const char *last_text;
	uint32_t last_code;
};

/*
 * How a field column's value is written, chosen once per class from its
 * kind: a switch per value, no look-up of the column's type.
 */
enum op_code {
	OP_W1, OP_W2, OP_W4, OP_W8,   /* integers (their low bits) and doubles (their bits) */
	OP_F32, OP_BOOL, OP_TEXT, OP_LABEL, OP_OPTION, OP_BYTES, OP_OBJECT,
};

struct op {
	uint8_t code;              /* enum op_code */
	uint8_t scope;             /* a static layout's: the value is scopes[scope][off] */
	/*
	 * A static layout's integers of one width, consecutive in a scope: the
	 * first op of the run has their number (0: not the first), written in
	 * one loop.
	 */
	uint16_t run;
	uint32_t off;
	uint32_t col;
	unsigned char *data;       /* the column's cb->data (set again when the rows grow) */
	struct colbuf *cb;
	/* OP_TEXT, OP_LABEL, OP_OPTION: the column's class, whose values take the short path */
	const struct tmx_field_class *fc;
};

/*
 * Where the values of a class's columns are.  Most classes' scopes have no
 * variant, optional or sequence: their values are at the same places in
 * every event, learnt from the library's walk of the first event
 * (tmx_columns_walk) and then read there without walking.
 */
enum layout { LAYOUT_UNKNOWN, LAYOUT_STATIC, LAYOUT_WALK };

struct table {
	size_t class_index;
	size_t n_rows, cap_rows;
	size_t n_cols;
	struct colbuf *cols;
	struct colbuf seq;         /* each row's event number in the read */
	struct op *ops;            /* the field columns' */
	size_t n_ops;
	enum layout layout;
	/* The scopes the class has: scope_of[i] and their classes (tmx_columns_walk's check) */
	int n_scopes;
	uint8_t scope_of[TMX_N_SCOPES];
	const struct tmx_field_class *scope_fc[TMX_N_SCOPES];
	int cpu_scope;             /* LAYOUT_STATIC: the CPU field at scopes[cpu_scope][cpu_off], -1: none */
	uint32_t cpu_off;
	const struct tmx_field_class *cpu_fc; /* the CPU field's class when it is an unsigned integer */
	char *labels;              /* scratch for joined labels */
	size_t labels_cap;
	/* The last stream's fixed values (a stream's events come in runs). */
	const struct tmx_stream *stream;
	const struct tmx_trace *host_trace; /* trace_host()'s last trace and answer */
	const char *host;
	uint32_t host_code, trace_code;
	uint64_t stream_id, stream_class_id;
};

/* Whether a value's `str` points at bytes (strings, text arrays, BLOBs). */
static inline bool has_bytes(const struct tmx_value *v)
{
	enum tmx_fc_kind k = tmx_fc_kind(v->fc);

	return k == TMX_FC_STRING || k == TMX_FC_BLOB ||
	       ((k == TMX_FC_ARRAY || k == TMX_FC_SEQUENCE) && tmx_fc_is_text(v->fc));
}

/* A row's start with this bit: an array of integers kept packed (see put_int_array). */
#define PACKED ((size_t)1 << (sizeof(size_t) * 8 - 1))

#endif
