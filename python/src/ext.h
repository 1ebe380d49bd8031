/*
 * The _tracemux extension: what its files share.
 *
 *   module.c   the module, tracemux.Error and its subclasses, warnings,
 *              the Buffer type (malloc'd memory numpy.frombuffer wraps)
 *   reader.c   Reader: one opened tmx_source, its metadata, the message loop
 *   plan.c     an event class's columns (the library's column model,
 *              tracemux/columns.h, which the Parquet output writes too)
 *              as the tables hold them
 *   record.c   an event as a record of its columns' values, made on any
 *              of tmx_run's threads (the custom sink's format())
 *   table.c    columns filled in C from the records, one table per event class
 *   strdict.c  text columns as dictionary codes
 *   common.c   the library's internal helpers it uses (src/common/strdict.c
 *              and buf.c), compiled here: the archive does not export them
 *   event.c    Event: one event copied out of the source, decoded on demand
 *   convert.c  values as Python objects
 *   sinkrun.c  Reader.run (a source into one of the library's sinks),
 *              Reader.columns (a class's columns without reading)
 *
 * Only the public API of libtracemux (include/tracemux/) is used, besides
 * the helpers common.c compiles.
 */
#ifndef TRACEMUX_PY_EXT_H
#define TRACEMUX_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>

#include <tracemux/columns.h>
#include <tracemux/event.h>
#include <tracemux/filter.h>
#include <tracemux/tracemux.h>

/* ---- module.c ---- */

/* Raises the tracemux.Error subclass of err->code; returns NULL. */
PyObject *ext_raise(const struct tmx_error *err);
/* The exception object for `err`, not raised (NULL with an exception set on failure). */
PyObject *ext_error_object(const struct tmx_error *err);

/* tracemux.TraceWarning: what the library warns about (e.g. with lenient=True). */
extern PyObject *ext_warning_class;

/*
 * A block of memory exposed through the buffer protocol: malloc'd, or a
 * mapping of `mapped` bytes (not 0).  Takes `data` (freed on failure).
 */
PyObject *ext_buffer_new(void *data, size_t len, size_t mapped);
extern PyTypeObject ExtBufferType;

/* ---- convert.c ---- */

/* UTF-8 text as str; bytes that are not UTF-8 become U+0000-U+00FF, as in the JSON output. */
PyObject *ext_text(const char *s, size_t n);
/* The value at vals[i] (a whole subtree) as a Python object; *next gets the index after it. */
PyObject *ext_value(const struct tmx_value *vals, size_t i, size_t *next);
/*
 * Whether values of `fc` are byte strings: BLOBs, and arrays and sequences
 * of 8-bit unsigned integers that are not text and have no mappings.
 * They are `bytes` everywhere in the package (Event.fields, columns).
 */
bool ext_is_bytes(const struct tmx_field_class *fc);
/* Registers the decoding error handler ext_text() uses. */
int ext_convert_init(void);

/* ---- plan.c ---- */

enum col_kind {
	COL_I8, COL_I16, COL_I32, COL_I64, COL_U8, COL_U16, COL_U32, COL_U64,
	COL_F32, COL_F64, COL_BOOL,
	COL_TEXT,     /* strings and text arrays (dictionary codes) */
	COL_LABEL,    /* an enumeration's labels / a bit map's flags, joined by ", " */
	COL_OPTION,   /* a variant's selected option name */
	COL_BYTES,    /* BLOBs and arrays of uint8 (ext_is_bytes): offsets and bytes, no object per row */
	COL_OBJECT,   /* other arrays (lists): a Python object per row, made at the export */
	COL_N_KINDS,
};

/* The fixed columns every table starts with: the column model's (enum tmx_fixed_column). */
enum fixed_col {
	FIX_TS = TMX_COLUMN_TS, FIX_CYCLES = TMX_COLUMN_CYCLES, FIX_EVENT = TMX_COLUMN_EVENT,
	FIX_HOST = TMX_COLUMN_HOST, FIX_TRACE = TMX_COLUMN_TRACE,
	FIX_STREAM_ID = TMX_COLUMN_STREAM_ID, FIX_STREAM_CLASS_ID = TMX_COLUMN_STREAM_CLASS_ID,
	FIX_CPU = TMX_COLUMN_CPU, FIX_N,
};

struct column {
	char *name;
	enum col_kind kind;
	bool nullable;        /* inside a variant or an optional */
	int64_t width;        /* COL_BYTES: every value's length when fixed (static), else -1 */
};

/*
 * An event class's columns.  Fixed columns come first, every class has
 * them, of the Parquet output's types (src/sink/parquet/parquet_sink.c):
 * ts (int64 ns from the clock's origin, whatever the clock), cycles
 * (uint64), event, host, trace (text), stream_id, stream_class_id
 * (uint64), cpu (uint32); a missing value (no clock, no CPU, no host) is
 * masked.  `fixed[f]` is the column of fixed column f.
 */
struct plan {
	size_t n_cols;
	size_t n_fixed;       /* columns 0..n_fixed-1 are the fixed ones */
	struct column *cols;
	int fixed[FIX_N];
	/* The cpu column's field (tmx_stream_class_cpu_field, NULL: none), found once. */
	const char *cpu_field;
	enum tmx_scope cpu_scope;
	const struct tmx_field_class *scope_fc[TMX_N_SCOPES];   /* NULL: no such scope */
	struct tmx_columns *model;
};


struct plan *plan_new(const struct tmx_event_class *ec);   /* NULL: no memory */
void plan_free(struct plan *p);
/*
 * Sets out[c] to the value of every field column c of the event's scopes
 * (NULL: no value, e.g. an option not selected) and out[FIX_CPU] to the
 * CPU field's value (tmx_columns_walk).  Returns false when a scope of the
 * event does not have its class's fields.
 */
bool plan_walk(const struct plan *p, const struct tmx_value *const scopes[TMX_N_SCOPES],
	       const struct tmx_value **out);
/*
 * How many values at the start of a value's subtree (tmx_value_skip's
 * layout, tracemux/model.h) are at the same places in every value of
 * class `fc`: all of them (*whole) unless a sequence, variant or optional
 * is met, whose own value is the last of them.
 */
size_t plan_fixed_values(const struct tmx_field_class *fc, bool *whole);
/*
 * Joins the labels of an enumeration / flags of a bit map value with ", "
 * into buf; returns the length (0: none), or SIZE_MAX when buf is too small.
 */
size_t plan_labels(const struct tmx_value *v, char *buf, size_t size);
/*
 * The same into a scratch buffer of one's own (malloc'd), grown as needed
 * (*buf, *cap): the length, SIZE_MAX when memory runs out.  No Python.
 */
size_t plan_labels_grown(const struct tmx_value *v, char **buf, size_t *cap);
/* The column value of out[c] (non-NULL) as a Python object, as its table column holds it. */
PyObject *plan_cell(const struct column *col, const struct tmx_value *v);

/* ---- reader.c ---- */

/*
 * The classes events come with, in the library's dense order
 * (tmx_source_event_class); `dense` is their number there, SIZE_MAX for a
 * class the source does not list (none is known).
 */
struct ext_class {
	const struct tmx_event_class *ec;
	PyObject *name;          /* str, or None */
	struct plan *plan;       /* made when first needed */
	size_t dense;
};

typedef struct {
	PyObject_HEAD
	struct tmx_source *src;
	size_t n_dense, n_classes, cap_classes;
	struct ext_class *classes; /* the source's dense classes first, in their order */
	struct tmx_diag diag;    /* the source keeps a pointer to it */
	PyObject *instr_map;     /* bytes (or NULL): the XRay map's path given to the source */
	PyObject *warnings;      /* list of str: sent as Python warnings after each call */
	struct tmx_filter *filter; /* select()'s, freed after the source */
	bool done;               /* the end or an error was reached */
	bool skipped;            /* tmx_source_skip_before() was called */
	bool busy;               /* read() runs without the GIL: no other call meanwhile */
	unsigned ticks;          /* events read, for the signal checks */
} Reader;

extern PyTypeObject ReaderType;
/* False with an exception set when the Reader is closed or being read by another thread. */
bool reader_check_open(Reader *r);
/* The library's warnings since the last call, as Python warnings; -1 if one raised. */
int reader_flush_warnings(Reader *r);
/* The plan of class i, made at its first use (NULL with MemoryError set). */
struct plan *reader_plan(Reader *r, size_t i);
/* The index in r->classes of the class of an event (SIZE_MAX with MemoryError set). */
size_t reader_class(Reader *r, const struct tmx_event_class *ec);

/* ---- sinkrun.c ---- */

PyObject *reader_run(PyObject *self, PyObject *args);
PyObject *reader_columns(PyObject *self, PyObject *arg);

/* ---- record.c ---- */

/*
 * The start of an event's record (the rest: table_impl.h), written by
 * record_format on a worker thread, read on the reading thread.
 */
enum rec_status {
	REC_OK,
	REC_NOMEM,      /* the formatter ran out of memory */
	REC_MISMATCH,   /* the event's scopes are not its class's (nothing follows) */
};
struct rec_head {
	uint64_t ec;               /* the event's class (its address) */
	uint32_t cpu;              /* the cpu column's value (REC_HAS_CPU) */
	uint8_t status;            /* enum rec_status */
	uint8_t flags;             /* table_impl.h's REC_WALK, REC_HAS_CPU */
	uint8_t scope;             /* REC_MISMATCH: a scope that is not the class's, REC_NO_SCOPE */
	uint8_t pad;
};
#define REC_NO_SCOPE 0xff   /* no scope named: "fields" */

struct tmx_record;
/* The custom sink's worker_new, worker_free and format (tracemux/sink.h): no Python. */
void *record_worker_new(void *unused);   /* NULL: no memory */
void record_worker_free(void *worker);
void record_format(void *worker, const struct tmx_msg *msg, struct tmx_record *rec);

/* ---- table.c ---- */

/* No Python (and no GIL needed) but in table_export. */
struct table;
struct table *table_new(size_t class_index, const struct plan *p);   /* NULL: no memory */
void table_free(struct table *t);
enum { TABLE_OK, TABLE_NOMEM };
/*
 * Appends the row of an event of the table's class from its record (REC_OK,
 * record_format's): TABLE_OK or TABLE_NOMEM (memory ran out).
 */
int table_append(struct table *t, const struct plan *p, const struct tmx_msg *msg,
		 const void *rec, uint64_t seq);
/* The NumPy dtype name of a kind ("text", "label", "option", "object" for the others). */
const char *table_dtype(enum col_kind kind);
/* The table as a dict for tracemux._frames; the table is emptied. */
PyObject *table_export(struct table *t, const struct plan *p);

/* ---- strdict.c ---- */

/* Distinct byte strings numbered 1, 2, 3... in order of first appearance. */
struct strdict;
struct strdict *strdict_new(void);
void strdict_free(struct strdict *d);
/* The code of `s`, added if new; 0 when memory runs out. */
uint32_t strdict_code(struct strdict *d, const char *s, size_t n);
/* [None, str of code 1, str of code 2, ...] */
PyObject *strdict_list(const struct strdict *d);

/* ---- event.c ---- */

extern PyTypeObject EventType;
/* An Event holding a copy of the message's event (NULL with an exception set). */
PyObject *event_new(Reader *r, size_t class_index, const struct tmx_msg *msg);

#endif
