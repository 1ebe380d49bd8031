/*
 * A class's table as table.c fills it and table_export.c exports it (see
 * table.c), and the records record.c makes of events for table.c: not
 * part of the extension's interface (ext.h).
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
	OP_N,
};

static inline enum op_code op_of(enum col_kind kind)
{
	switch (kind) {
	case COL_I8: case COL_U8:
		return OP_W1;
	case COL_I16: case COL_U16:
		return OP_W2;
	case COL_I32: case COL_U32:
		return OP_W4;
	case COL_F32:
		return OP_F32;
	case COL_BOOL:
		return OP_BOOL;
	case COL_TEXT:
		return OP_TEXT;
	case COL_LABEL:
		return OP_LABEL;
	case COL_OPTION:
		return OP_OPTION;
	case COL_BYTES:
		return OP_BYTES;
	case COL_OBJECT:
		return OP_OBJECT;
	default:   /* COL_I64, COL_U64, COL_F64 */
		return OP_W8;
	}
}

/* A field column of a table: where table_append puts the record's entry for it. */
struct op {
	uint8_t code;              /* enum op_code, OP_W1 for OP_BOOL, OP_W4 for OP_F32 */
	/*
	 * Integer columns of one width one after the other: the first of them
	 * has their number (0: not the first, or another kind), their
	 * entries being consecutive in a record without presence bytes.
	 */
	uint16_t run;
	/* A record without presence bytes: the op's code if it starts a run (else OP_N), the ops it covers after it */
	uint8_t step;
	uint16_t skip;
	uint32_t col;
	unsigned char *data;       /* the column's cb->data (set again when the rows grow) */
	struct colbuf *cb;
	/* OP_LABEL, OP_OPTION: the column's class, whose values a record gives by number */
	const struct tmx_field_class *fc;
};

struct table {
	size_t class_index;
	size_t n_rows, cap_rows;
	size_t n_cols;
	struct colbuf *cols;
	struct colbuf seq;         /* each row's event number in the read */
	struct op *ops;            /* the field columns' */
	size_t n_ops;
	bool any_valid;            /* a field column has validity bytes (a missing value met) */
	char *labels;              /* scratch for joined labels */
	size_t labels_cap;
	/* The last stream's fixed values (a stream's events come in runs). */
	const struct tmx_stream *stream;
	const struct tmx_trace *host_trace; /* trace_host()'s last trace and answer */
	const char *host;
	uint32_t host_code, trace_code;
	uint64_t stream_id, stream_class_id;
};

/*
 * An event's record, as record.c writes it on a worker thread and
 * table_append reads it on the reading thread (tracemux/sink.h's custom
 * sink): struct rec_head (ext.h), then an entry per field column in column order,
 * each first a presence byte (0: no value, nothing follows) when the head
 * has REC_WALK, then by its op:
 *
 *   OP_W1, OP_BOOL (0/1)  1 byte      OP_W2  2 bytes
 *   OP_W4, OP_F32 (float) 4 bytes     OP_W8  8 bytes (a double's bits)
 *   OP_TEXT    u64 length, the bytes (up to a text array's first NUL)
 *   OP_LABEL   REC_BY_VALUE and the u64 value (the column's class: its
 *              labels are joined by the reading side, once per value), or
 *              REC_BY_TEXT, u64 length and the joined labels
 *   OP_OPTION  REC_BY_VALUE and the u32 option number, or REC_BY_TEXT,
 *              u64 length and the option's name
 *   OP_BYTES   u64 length, the bytes
 *   OP_OBJECT  REC_PACKED, u64 n, n tmx_value entries (an array of
 *              integers packed: record.c's put_int_array), or REC_TREE, u64 n, u64
 *              bytes, the subtree's n entries (strings' pointers are their
 *              offsets + 1 in the bytes that follow, or NULL), the bytes
 *
 * Integers in the host's order, unaligned (read with memcpy).
 */
enum { REC_WALK = 1, REC_HAS_CPU = 2 };   /* rec_head.flags */
enum { REC_BY_VALUE, REC_BY_TEXT };
enum { REC_TREE, REC_PACKED };

/* Whether a value's `str` points at bytes (strings, text arrays, BLOBs). */
static inline bool has_bytes(const struct tmx_value *v)
{
	enum tmx_fc_kind k = tmx_fc_kind(v->fc);

	return k == TMX_FC_STRING || k == TMX_FC_BLOB ||
	       ((k == TMX_FC_ARRAY || k == TMX_FC_SEQUENCE) && tmx_fc_is_text(v->fc));
}

/* A row's start with this bit: an array of integers kept packed (record.c's put_int_array). */
#define PACKED ((size_t)1 << (sizeof(size_t) * 8 - 1))

#endif
