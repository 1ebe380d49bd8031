/*
 * Columns filled in C: a table per event class, a growing buffer per
 * column in the column's own type (integers of their width, floats,
 * booleans as bytes, text as dictionary codes), a validity byte per row
 * only once a column gets its first missing value, byte strings (BLOBs,
 * arrays of uint8) as the end offset of each row in one buffer of bytes,
 * and Python objects only for other arrays, made at the export.  Exported as Buffers that
 * numpy.frombuffer wraps without a copy (tracemux/_frames.py).
 *
 * Nothing here touches Python before table_export(): Reader.read fills the
 * tables with the GIL released.  An array or BLOB value is kept as a copy
 * of its value subtree (struct tmx_value entries, the bytes of its strings
 * and BLOBs copied beside them, pointers as offsets until the export),
 * which convert.c turns into Python objects at the export.
 */
#include <string.h>

#include "ext.h"

struct colbuf {
	unsigned char *data;
	size_t len, cap;
	unsigned char *valid;      /* NULL: every row has a value */
	size_t valid_cap;
	struct strdict *dict;      /* COL_TEXT, COL_LABEL, COL_OPTION */
	/* COL_OBJECT: `data` has each row's first entry in `vals` (SIZE_MAX: None). */
	struct tmx_value *vals;
	size_t n_vals, cap_vals;   /* entries, bytes of `vals` */
	unsigned char *bytes;      /* the strings' and BLOBs' bytes; COL_BYTES: the values */
	size_t n_bytes, cap_bytes;
	int64_t width;             /* COL_BYTES: the fixed length, or -1 */
	/*
	 * Fixed text columns (event, host, trace): the last text and its code.
	 * Their texts are the model's (class names, trace names, environment
	 * values), which stay in place for the whole read: the same pointer
	 * is the same text, and nearly every row repeats the previous one.
	 */
	const char *last_text;
	uint32_t last_code;
};

struct table {
	size_t class_index;
	size_t n_rows;
	size_t n_cols;
	struct colbuf *cols;
	struct colbuf seq;         /* each row's event number in the read */
	char *labels;              /* scratch for joined labels */
	size_t labels_cap;
	const struct tmx_trace *host_trace; /* trace_host()'s last trace and answer */
	const char *host;
};

static const struct {
	const char *dtype;         /* for tracemux/_frames.py */
	unsigned width;            /* bytes per row in `data` (0: objects) */
} kinds[COL_N_KINDS] = {
	[COL_I8] = { "int8", 1 }, [COL_I16] = { "int16", 2 }, [COL_I32] = { "int32", 4 },
	[COL_I64] = { "int64", 8 }, [COL_U8] = { "uint8", 1 }, [COL_U16] = { "uint16", 2 },
	[COL_U32] = { "uint32", 4 }, [COL_U64] = { "uint64", 8 }, [COL_F32] = { "float32", 4 },
	[COL_F64] = { "float64", 8 }, [COL_BOOL] = { "bool", 1 }, [COL_TEXT] = { "text", 4 },
	[COL_LABEL] = { "label", 4 }, [COL_OPTION] = { "option", 4 },
	[COL_BYTES] = { "bytes", 8 },
	[COL_OBJECT] = { "object", 0 },
};

const char *table_dtype(enum col_kind kind)
{
	return kinds[kind].dtype;
}

static bool is_text_kind(enum col_kind k)
{
	return k == COL_TEXT || k == COL_LABEL || k == COL_OPTION;
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t c = 0; c < t->n_cols; c++) {
		free(t->cols[c].data);
		free(t->cols[c].valid);
		strdict_free(t->cols[c].dict);
		free(t->cols[c].vals);
		free(t->cols[c].bytes);
	}
	free(t->cols);
	free(t->seq.data);
	free(t->labels);
	free(t);
}

static inline bool put_int(struct colbuf *cb, unsigned width, uint64_t bits)
	__attribute__((always_inline));

struct table *table_new(size_t class_index, const struct plan *p)
{
	struct table *t = calloc(1, sizeof(*t));
	bool ok = t && (t->cols = calloc(p->n_cols ? p->n_cols : 1, sizeof(*t->cols)));

	if (ok)
		t->n_cols = p->n_cols;
	for (size_t c = 0; ok && c < p->n_cols; c++) {
		if (is_text_kind(p->cols[c].kind))
			ok = (t->cols[c].dict = strdict_new()) != NULL;
		t->cols[c].width = p->cols[c].width;
		/* Byte strings: offsets from a first 0, as a BytesArray takes them (no copy). */
		if (ok && p->cols[c].kind == COL_BYTES)
			ok = put_int(&t->cols[c], 8, 0);
	}
	if (!ok) {
		table_free(t);
		return NULL;
	}
	t->class_index = class_index;
	return t;
}

static bool grow(unsigned char **p, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 256;
	unsigned char *n;

	if (need <= *cap)
		return true;
	while (c < need)
		c *= 2;
	if (!(n = realloc(*p, c)))
		return false;
	*p = n;
	*cap = c;
	return true;
}

static bool put_bytes(struct colbuf *cb, const void *v, size_t n)
{
	if (!grow(&cb->data, &cb->cap, cb->len + n))
		return false;
	memcpy(cb->data + cb->len, v, n);
	cb->len += n;
	return true;
}

/* An integer (its low bits) or a code in a column of `width` bytes (stored in place: no call). */
static inline bool put_int(struct colbuf *cb, unsigned width, uint64_t bits)
{
	unsigned char *at;

	if (cb->len + 8 > cb->cap && !grow(&cb->data, &cb->cap, cb->len + 8))
		return false;
	at = cb->data + cb->len;
	switch (width) {
	case 1:
		*at = (uint8_t)bits;
		break;
	case 2: {
		uint16_t v = (uint16_t)bits;
		memcpy(at, &v, 2);
		break;
	}
	case 4: {
		uint32_t v = (uint32_t)bits;
		memcpy(at, &v, 4);
		break;
	}
	default:
		memcpy(at, &bits, 8);
		width = 8;
		break;
	}
	cb->len += width;
	return true;
}

/* A value in row `row`: marked valid once the column has a validity buffer. */
static bool mark_valid(struct colbuf *cb, size_t row)
{
	if (!cb->valid)
		return true;
	if (!grow(&cb->valid, &cb->valid_cap, row + 1))
		return false;
	cb->valid[row] = 1;
	return true;
}

/* `n` bytes (zeros when `p` is NULL) appended to a COL_BYTES column's values. */
static bool put_values(struct colbuf *cb, const void *p, size_t n)
{
	if (!n)   /* `bytes` may still be NULL */
		return true;
	if (!grow(&cb->bytes, &cb->cap_bytes, cb->n_bytes + n))
		return false;
	if (p)
		memcpy(cb->bytes + cb->n_bytes, p, n);
	else
		memset(cb->bytes + cb->n_bytes, 0, n);
	cb->n_bytes += n;
	return true;
}

/* A byte string (ext_is_bytes): its bytes, then the row's end offset. */
static bool put_byte_string(struct colbuf *cb, const struct tmx_value *v)
{
	if (tmx_fc_kind(v->fc) == TMX_FC_BLOB) {
		if (v->str.len && !put_values(cb, v->str.ptr, (size_t)v->str.len))
			return false;
	} else {
		size_t count = (size_t)v->count;
		if (!put_values(cb, NULL, count))
			return false;
		for (size_t e = 0; e < count; e++)   /* the elements are the entries after it */
			cb->bytes[cb->n_bytes - count + e] = (unsigned char)v[1 + e].u;
	}
	return put_int(cb, 8, cb->n_bytes);
}

static bool put_null(struct colbuf *cb, enum col_kind kind, size_t row)
{
	static const uint64_t zero;

	if (kind == COL_OBJECT)
		return put_int(cb, sizeof(size_t), SIZE_MAX);
	if (is_text_kind(kind))   /* code 0 */
		return put_int(cb, 4, 0);
	/* A fixed-length byte string's room is kept (zeros): its rows stay a 2-D array. */
	if (kind == COL_BYTES && cb->width > 0 &&
	    !put_values(cb, NULL, (size_t)cb->width))
		return false;
	if (!cb->valid) {
		if (!grow(&cb->valid, &cb->valid_cap, row + 1))
			return false;
		memset(cb->valid, 1, row);
	} else if (!grow(&cb->valid, &cb->valid_cap, row + 1)) {
		return false;
	}
	cb->valid[row] = 0;
	if (kind == COL_BYTES)
		return put_int(cb, 8, cb->n_bytes);
	return put_bytes(cb, &zero, kinds[kind].width);
}

static bool put_text(struct colbuf *cb, const char *s, size_t n)
{
	uint32_t code = strdict_code(cb->dict, s ? s : "", n);

	return code && put_int(cb, 4, code);
}

static bool put_labels(struct table *t, struct colbuf *cb, const struct tmx_value *v)
{
	size_t len;

	while ((len = plan_labels(v, t->labels, t->labels_cap)) == SIZE_MAX) {
		size_t cap = t->labels_cap ? 4 * t->labels_cap : 256;
		char *b = realloc(t->labels, cap);
		if (!b)
			return false;
		t->labels = b;
		t->labels_cap = cap;
	}
	return len ? put_text(cb, t->labels, len) : put_int(cb, 4, 0);
}

/* Whether a value's `str` points at bytes (strings, text arrays, BLOBs). */
static bool has_bytes(const struct tmx_value *v)
{
	enum tmx_fc_kind k = tmx_fc_kind(v->fc);

	return k == TMX_FC_STRING || k == TMX_FC_BLOB ||
	       ((k == TMX_FC_ARRAY || k == TMX_FC_SEQUENCE) && tmx_fc_is_text(v->fc));
}

/* A row's start with this bit: an array of integers kept packed (see put_int_array). */
#define PACKED ((size_t)1 << (sizeof(size_t) * 8 - 1))

/* Room for `n` more entries in `vals`. */
static bool vals_room(struct colbuf *cb, size_t n)
{
	unsigned char *vals = (unsigned char *)cb->vals;

	if (!grow(&vals, &cb->cap_vals, (cb->n_vals + n) * sizeof(*cb->vals)))
		return false;
	cb->vals = (struct tmx_value *)vals;
	return true;
}

/*
 * An array or sequence of integers: its own entry, then its elements'
 * 64-bit values packed in the entries after it (a third of the room of an
 * entry each), which byte arrays fill most.
 */
static bool put_int_array(struct colbuf *cb, const struct tmx_value *v)
{
	size_t count = (size_t)v->count, at = cb->n_vals;
	size_t n = 1 + (count * sizeof(uint64_t) + sizeof(*v) - 1) / sizeof(*v);
	uint64_t *packed;

	if (!vals_room(cb, n))
		return false;
	cb->vals[at] = *v;
	packed = (uint64_t *)(void *)&cb->vals[at + 1];
	for (size_t e = 0; e < count; e++)
		packed[e] = v[1 + e].u;
	cb->n_vals += n;
	return put_int(cb, sizeof(size_t), at | PACKED);
}

static bool int_array(const struct tmx_value *v)
{
	enum tmx_fc_kind k = tmx_fc_kind(v->fc);

	return (k == TMX_FC_ARRAY || k == TMX_FC_SEQUENCE) && !tmx_fc_is_text(v->fc) &&
	       tmx_fc_kind(tmx_fc_element(v->fc)) == TMX_FC_INT;
}

/* A copy of the value subtree at `v` (see the top): its first entry's index in the row. */
static bool put_object(struct colbuf *cb, const struct tmx_value *v)
{
	size_t n, at = cb->n_vals;

	if (int_array(v))
		return put_int_array(cb, v);
	n = tmx_value_skip(v, 0);
	if (!vals_room(cb, n))
		return false;
	memcpy(cb->vals + at, v, n * sizeof(*v));
	for (size_t i = at; i < at + n; i++) {
		struct tmx_value *c = &cb->vals[i];
		size_t len = (size_t)c->str.len;
		if (!has_bytes(c))
			continue;
		if (!c->str.ptr || !len) {   /* an empty value: NULL (offset 0), as decoders leave some */
			c->str.ptr = NULL;
			c->str.len = 0;
			continue;
		}
		if (!grow(&cb->bytes, &cb->cap_bytes, cb->n_bytes + len))
			return false;
		memcpy(cb->bytes + cb->n_bytes, c->str.ptr, len);
		c->str.ptr = (const char *)(uintptr_t)(cb->n_bytes + 1);   /* offset + 1 */
		cb->n_bytes += len;
	}
	cb->n_vals += n;
	return put_int(cb, sizeof(size_t), at);
}

/* The list of a packed array of integers, as convert.c makes it from the values. */
static PyObject *int_list(const struct tmx_value *v)
{
	const uint64_t *packed = (const uint64_t *)(const void *)(v + 1);
	bool is_signed = tmx_fc_is_signed(tmx_fc_element(v->fc));
	PyObject *list = PyList_New((Py_ssize_t)v->count);

	for (size_t e = 0; list && e < v->count; e++) {
		PyObject *o = is_signed ? PyLong_FromLongLong((long long)packed[e])
					: PyLong_FromUnsignedLongLong(packed[e]);
		if (!o)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)e, o);
	}
	return list;
}

/* The objects of a COL_OBJECT column, the copies' offsets made pointers again. */
static PyObject *objects(struct colbuf *cb, const struct column *col, size_t rows)
{
	const size_t *start = (const size_t *)cb->data;
	PyObject *list = PyList_New((Py_ssize_t)rows);

	for (size_t r = 0; r < rows; r++) {   /* the subtrees' entries, not packed integers */
		struct tmx_value *c;
		if (start[r] == SIZE_MAX || (start[r] & PACKED))
			continue;
		c = &cb->vals[start[r]];
		for (size_t i = 0, n = tmx_value_skip(c, 0); i < n; i++)
			if (has_bytes(&c[i]) && c[i].str.ptr)
				c[i].str.ptr = (const char *)cb->bytes + ((uintptr_t)c[i].str.ptr - 1);
	}
	for (size_t r = 0; list && r < rows; r++) {
		PyObject *o = start[r] == SIZE_MAX ? Py_NewRef(Py_None)
			      : start[r] & PACKED ? int_list(&cb->vals[start[r] & ~PACKED])
						  : plan_cell(col, &cb->vals[start[r]]);
		if (!o)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)r, o);
	}
	free(cb->vals);
	free(cb->bytes);
	cb->vals = NULL;
	cb->bytes = NULL;
	cb->n_vals = cb->n_bytes = 0;
	return list;
}

/* A field column's value (v non-NULL). */
static bool put_value(struct table *t, struct colbuf *cb, const struct column *col,
		      const struct tmx_value *v)
{
	const char *s;
	size_t len;

	switch (col->kind) {
	case COL_F32: {
		float f = (float)v->d;
		return put_bytes(cb, &f, 4);
	}
	case COL_F64:
		return put_bytes(cb, &v->d, 8);
	case COL_BOOL:
		return put_int(cb, 1, v->u != 0);
	case COL_TEXT:
		s = tmx_value_text(v, &len);
		return put_text(cb, s, s ? len : 0);
	case COL_LABEL:
		return put_labels(t, cb, v);
	case COL_OPTION:
		s = tmx_fc_member_name(v->fc, v->option);
		return put_text(cb, s, s ? strlen(s) : 0);
	case COL_OBJECT:
		return put_object(cb, v);
	case COL_BYTES:
		return put_byte_string(cb, v);
	default:   /* integers: `u` has the value's bits, signed or not */
		return put_int(cb, kinds[col->kind].width, v->u);
	}
}

/* The trace's host as the Parquet output's `host`: its environment's `hostname` text. */
static const char *trace_host(const struct tmx_trace *trace)
{
	const struct tmx_env_entry *host =
		trace && trace->cls ? tmx_trace_class_env(trace->cls, "hostname") : NULL;

	return host && !host->is_int ? host->str_value : NULL;
}

/* The fixed columns' values; false: no memory. */
static bool put_fixed(struct table *t, const struct plan *p, const struct tmx_msg *msg,
		      const struct tmx_value **cells)
{
	const struct tmx_stream *st = msg->stream;
	const char *trace = st->trace && st->trace->name ? st->trace->name : "";
	const char *text;
	bool ok = true;

	for (int f = 0; f < FIX_N && ok; f++) {
		int c = p->fixed[f];
		struct colbuf *cb = &t->cols[c];
		enum col_kind kind = p->cols[c].kind;
		bool has = true;
		uint64_t bits = 0;

		switch (f) {
		case FIX_TS:
			has = msg->has_ts, bits = (uint64_t)msg->ns;
			break;
		case FIX_CYCLES:
			has = msg->has_ts, bits = msg->cycles;
			break;
		case FIX_EVENT:
		case FIX_HOST:
		case FIX_TRACE:
			if (f == FIX_HOST && st->trace != t->host_trace) {
				t->host_trace = st->trace;
				t->host = trace_host(st->trace);
			}
			text = f == FIX_TRACE ? trace : f == FIX_EVENT ? msg->event->cls->name : t->host;
			if (!text) {
				ok = put_null(cb, kind, t->n_rows);
			} else if (text == cb->last_text) {
				ok = put_int(cb, 4, cb->last_code);
			} else {
				cb->last_code = strdict_code(cb->dict, text, strlen(text));
				cb->last_text = cb->last_code ? text : NULL;
				ok = cb->last_code && put_int(cb, 4, cb->last_code);
			}
			continue;
		case FIX_STREAM_ID:
			bits = st->id;
			break;
		case FIX_STREAM_CLASS_ID:
			bits = st->cls->id;
			break;
		default:   /* FIX_CPU */
			/* tmx_event_cpu, the field's value found by the walk */
			has = p->cpu_field && tmx_value_uint64(cells[FIX_CPU], &bits) &&
			      bits <= UINT32_MAX;
			break;
		}
		if (!has)
			ok = put_null(cb, kind, t->n_rows);
		else
			ok = put_int(cb, kinds[kind].width, bits) && mark_valid(cb, t->n_rows);
	}
	return ok;
}

bool table_add(struct table *t, const struct plan *p, const struct tmx_msg *msg,
	       const struct tmx_value **cells, uint64_t seq)
{
	bool ok = put_fixed(t, p, msg, cells) && put_int(&t->seq, 8, seq);

	for (size_t c = p->n_fixed; ok && c < p->n_cols; c++) {
		struct colbuf *cb = &t->cols[c];

		if (!cells[c])
			ok = put_null(cb, p->cols[c].kind, t->n_rows);
		else
			ok = put_value(t, cb, &p->cols[c], cells[c]) && mark_valid(cb, t->n_rows);
	}
	if (!ok)
		return false;
	t->n_rows++;
	return true;
}

/* A buffer's bytes as a Buffer (the colbuf gives them up). */
static PyObject *take_buffer(unsigned char **data, size_t len)
{
	void *p = *data ? *data : malloc(1);

	*data = NULL;
	return p ? ext_buffer_new(p, len) : PyErr_NoMemory();
}

static PyObject *export_column(struct table *t, const struct plan *p, size_t c)
{
	const struct column *col = &p->cols[c];
	struct colbuf *cb = &t->cols[c];
	PyObject *data, *valid, *dict;

	if (col->kind == COL_OBJECT)
		data = objects(cb, col, t->n_rows);
	else
		data = take_buffer(&cb->data, cb->len);
	if (col->kind == COL_BYTES) {   /* the values beside the offsets */
		PyObject *values = take_buffer(&cb->bytes, cb->n_bytes);
		cb->n_bytes = cb->cap_bytes = 0;
		if (!data || !values) {
			Py_XDECREF(data);
			Py_XDECREF(values);
			return NULL;
		}
		data = Py_BuildValue("(NNL)", data, values, (long long)col->width);
	}
	valid = cb->valid ? take_buffer(&cb->valid, t->n_rows) : Py_NewRef(Py_None);
	dict = cb->dict ? strdict_list(cb->dict) : Py_NewRef(Py_None);
	if (!data || !valid || !dict) {
		Py_XDECREF(data);
		Py_XDECREF(valid);
		Py_XDECREF(dict);
		return NULL;
	}
	return Py_BuildValue("{s:N,s:s,s:N,s:N,s:N,s:O}", "name",
			     ext_text(col->name, strlen(col->name)), "dtype",
			     kinds[col->kind].dtype, "data", data, "valid", valid, "strings", dict,
			     "nullable", col->nullable ? Py_True : Py_False);
}

PyObject *table_export(struct table *t, const struct plan *p)
{
	PyObject *cols = PyList_New((Py_ssize_t)p->n_cols), *seq;

	for (size_t c = 0; cols && c < p->n_cols; c++) {
		PyObject *col = export_column(t, p, c);
		if (!col)
			Py_CLEAR(cols);
		else
			PyList_SET_ITEM(cols, (Py_ssize_t)c, col);
	}
	seq = cols ? take_buffer(&t->seq.data, t->seq.len) : NULL;
	if (!seq) {
		Py_XDECREF(cols);
		return NULL;
	}
	return Py_BuildValue("{s:n,s:n,s:N,s:N}", "class", (Py_ssize_t)t->class_index, "rows",
			     (Py_ssize_t)t->n_rows, "seq", seq, "columns", cols);
}
