/*
 * Columns filled in C: a table per event class, a growing buffer per
 * column in the column's own type (integers of their width, floats,
 * booleans as bytes, text as dictionary codes), a validity byte per row
 * only once a column gets its first missing value, byte strings (BLOBs,
 * arrays of uint8) as the end offset of each row in one buffer of bytes,
 * and Python objects only for other arrays, made at the export.  Exported as Buffers that
 * numpy.frombuffer wraps without a copy (tracemux/_frames.py).
 *
 * Per event, table_append adds the record record.c made of it on a worker
 * thread (table_impl.h): an op per field column (struct op: its write
 * chosen once from the column's kind) takes its entry; dictionary codes
 * are given here, in the order of the read; the room for a row is made
 * for every column at once (grow_rows).
 *
 * Nothing here touches Python (table_export.c exports): Reader.read fills the
 * tables with the GIL released.  An array (not of bytes) is kept as a copy
 * of its value subtree (struct tmx_value entries, the bytes of its strings
 * and BLOBs copied beside them, pointers as offsets until the export),
 * which convert.c turns into Python objects at the export.
 */
#include "table_impl.h"   /* Python.h first: it sets _GNU_SOURCE (mremap) */

#include <string.h>
#include <sys/mman.h>

/*
 * Column buffers of so many bytes or more are mappings of their own,
 * grown by mremap: no copy, no page touched again (realloc copied a
 * column at each doubling while it was in the heap).
 */
#define MAP_MIN ((size_t)256 << 10)

static const struct {
	const char *dtype;         /* for tracemux/_frames.py */
	unsigned width;            /* bytes per row in `data` */
} kinds[COL_N_KINDS] = {
	[COL_I8] = { "int8", 1 }, [COL_I16] = { "int16", 2 }, [COL_I32] = { "int32", 4 },
	[COL_I64] = { "int64", 8 }, [COL_U8] = { "uint8", 1 }, [COL_U16] = { "uint16", 2 },
	[COL_U32] = { "uint32", 4 }, [COL_U64] = { "uint64", 8 }, [COL_F32] = { "float32", 4 },
	[COL_F64] = { "float64", 8 }, [COL_BOOL] = { "bool", 1 }, [COL_TEXT] = { "text", 4 },
	[COL_LABEL] = { "label", 4 }, [COL_OPTION] = { "option", 4 },
	[COL_BYTES] = { "bytes", 8 },
	[COL_OBJECT] = { "object", sizeof(size_t) },   /* each row's first entry in `vals` */
};

const char *table_dtype(enum col_kind kind)
{
	return kinds[kind].dtype;
}

static bool is_text_kind(enum col_kind k)
{
	return k == COL_TEXT || k == COL_LABEL || k == COL_OPTION;
}

/*
 * Runs of integer columns of one width (struct op.run), whose entries a
 * record without presence bytes has in a row.
 */
static void mark_runs(struct table *t)
{
	struct op *first = NULL;

	for (struct op *op = t->ops; op < t->ops + t->n_ops; op++) {
		op->step = OP_N;
		if (first && op->code == first->code && first->run < UINT16_MAX) {
			first->run++;
			first->skip++;
			continue;
		}
		first = op->code <= OP_W8 ? op : NULL;
		if (first) {
			first->run = 1;
			first->step = first->code;
		}
	}
}

static void free_data(struct colbuf *cb)
{
	if (cb->mapped)
		munmap(cb->data, cb->mapped);
	else
		free(cb->data);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t c = 0; c < t->n_cols; c++) {
		free_data(&t->cols[c]);
		free(t->cols[c].valid);
		strdict_free(t->cols[c].dict);
		free(t->cols[c].memo);
		free(t->cols[c].vals);
		free(t->cols[c].bytes);
	}
	free(t->cols);
	free_data(&t->seq);
	free(t->ops);
	free(t->labels);
	free(t);
}

struct table *table_new(size_t class_index, const struct plan *p)
{
	struct table *t = calloc(1, sizeof(*t));
	size_t n_fields = p->n_cols - p->n_fixed;
	bool ok = t && (t->cols = calloc(p->n_cols ? p->n_cols : 1, sizeof(*t->cols))) &&
		  (t->ops = calloc(n_fields ? n_fields : 1, sizeof(*t->ops)));

	if (ok)
		t->n_cols = p->n_cols;
	for (size_t c = 0; ok && c < p->n_cols; c++) {
		struct colbuf *cb = &t->cols[c];
		enum col_kind kind = p->cols[c].kind;

		if (is_text_kind(kind))
			ok = (cb->dict = strdict_new()) != NULL;
		if (ok && (kind == COL_LABEL || kind == COL_OPTION))
			ok = (cb->memo = calloc(1, sizeof(*cb->memo))) != NULL;
		cb->width = kinds[kind].width;
		cb->len = p->cols[c].width;
	}
	for (size_t c = p->n_fixed; ok && c < p->n_cols; c++) {
		struct op *op = &t->ops[t->n_ops++];
		enum op_code code = op_of(p->cols[c].kind);

		/* a record has booleans as bytes, 32-bit floats as their bits */
		op->code = (uint8_t)(code == OP_BOOL ? OP_W1 : code == OP_F32 ? OP_W4 : code);
		op->col = (uint32_t)c;
		op->cb = &t->cols[c];
		op->fc = tmx_column_field_class(p->model, c);
	}
	mark_runs(t);
	if (!ok) {
		table_free(t);
		return NULL;
	}
	t->seq.width = 8;
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

/* `data` of `size` bytes, its first `old` kept: malloc'd while small, then mapped (MAP_MIN). */
static unsigned char *data_room(struct colbuf *cb, size_t old, size_t size)
{
	void *d;

	if (size < MAP_MIN)
		return realloc(cb->data, size);
	if (cb->mapped) {
		d = mremap(cb->data, cb->mapped, size, MREMAP_MAYMOVE);
	} else if ((d = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			     0)) != MAP_FAILED) {
		if (old)
			memcpy(d, cb->data, old);
		free(cb->data);
	}
	if (d == MAP_FAILED)
		return NULL;
	cb->mapped = size;
	return d;
}

/* A column's room for `rows` rows, `old` before (byte strings: and their first offset, 0, set). */
static bool col_room(struct colbuf *cb, size_t old, size_t rows, bool offsets)
{
	unsigned char *d = data_room(cb, cb->data ? (old + 1) * cb->width : 0,
				     (rows + 1) * cb->width);

	if (!d)
		return false;
	if (!cb->data && offsets)
		memset(d, 0, 8);
	cb->data = d;
	if (cb->valid) {
		if (!(d = realloc(cb->valid, rows)))
			return false;
		cb->valid = d;
	}
	return true;
}

/* Room for twice the rows in every column (geometric: the copies add up to the last size). */
static bool grow_rows(struct table *t, const struct plan *p)
{
	size_t rows = t->cap_rows ? 2 * t->cap_rows : 1024;

	for (size_t c = 0; c < t->n_cols; c++)
		if (!col_room(&t->cols[c], t->cap_rows, rows, p->cols[c].kind == COL_BYTES))
			return false;
	if (!col_room(&t->seq, t->cap_rows, rows, false))
		return false;
	for (size_t o = 0; o < t->n_ops; o++)
		t->ops[o].data = t->ops[o].cb->data;
	t->cap_rows = rows;
	return true;
}

/* An integer's low bits, or a code, as row `row` of a column of `width` bytes. */
static inline __attribute__((always_inline)) void store(unsigned char *data, size_t row,
						       unsigned width, uint64_t bits)
{
	switch (width) {
	case 1:
		data[row] = (uint8_t)bits;
		break;
	case 2: {
		uint16_t v = (uint16_t)bits;
		memcpy(data + 2 * row, &v, 2);
		break;
	}
	case 4: {
		uint32_t v = (uint32_t)bits;
		memcpy(data + 4 * row, &v, 4);
		break;
	}
	default:
		memcpy(data + 8 * row, &bits, 8);
		break;
	}
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

/* A byte string's bytes in row `row`, then the row's end offset. */
static bool put_byte_string(struct colbuf *cb, const void *p, size_t n, size_t row)
{
	if (!put_values(cb, p, n))
		return false;
	store(cb->data, row + 1, 8, cb->n_bytes);
	return true;
}

/* No value in row `row` of a column of `kind`. */
static bool put_null(struct colbuf *cb, enum col_kind kind, size_t row, size_t cap_rows)
{
	if (kind == COL_OBJECT) {
		store(cb->data, row, sizeof(size_t), SIZE_MAX);
		return true;
	}
	if (is_text_kind(kind)) {   /* code 0 */
		store(cb->data, row, 4, 0);
		return true;
	}
	/* A fixed-length byte string's room is kept (zeros): its rows stay a 2-D array. */
	if (kind == COL_BYTES && cb->len > 0 && !put_values(cb, NULL, (size_t)cb->len))
		return false;
	if (!cb->valid) {
		if (!(cb->valid = malloc(cap_rows)))
			return false;
		memset(cb->valid, 1, row);
	}
	cb->valid[row] = 0;
	if (kind == COL_BYTES)
		store(cb->data, row + 1, 8, cb->n_bytes);
	else
		memset(cb->data + row * cb->width, 0, cb->width);
	return true;
}

/* The code of a text (0: no memory). */
static uint32_t text_code(struct colbuf *cb, const char *s, size_t n)
{
	return strdict_code(cb->dict, s ? s : "", n);
}

/* The code of a text the model keeps in place (see colbuf.last_text); NULL: code 0. */
static inline uint32_t model_text_code(struct colbuf *cb, const char *text, bool *ok)
{
	if (!text)
		return 0;
	if (text != cb->last_text) {
		cb->last_code = text_code(cb, text, strlen(text));
		cb->last_text = cb->last_code ? text : NULL;
		*ok = *ok && cb->last_code;
	}
	return cb->last_code;
}


/*
 * Labels of a value of column class `fc` joined into the table's scratch:
 * their length, SIZE_MAX: no memory.
 */
static size_t join_labels(struct table *t, const struct tmx_field_class *fc, uint64_t u)
{
	const struct tmx_value v = { .fc = fc, .u = u };

	return plan_labels_grown(&v, &t->labels, &t->labels_cap);
}

/* The code of a label or option given as text: no label is no value (code 0); false: no memory. */
static bool named_code(struct colbuf *cb, enum op_code code, const char *s, size_t len,
		       uint32_t *out)
{
	if (code == OP_LABEL && !len) {
		*out = 0;
		return true;
	}
	return (*out = text_code(cb, s, len)) != 0;
}

/*
 * The code of a value of a label or option column's class, given by its
 * number (an enumeration's value, an option's index): by the column's memo,
 * its labels or name looked up only when the memo lacks it.
 */
static bool memo_code(struct table *t, const struct op *op, uint64_t u, uint32_t *out)
{
	size_t i = (size_t)((u * 0x9E3779B97F4A7C15ull) >> 58);   /* 64 = 2^6 slots */
	struct memo *m = op->cb->memo;
	const char *s;
	size_t len;

	if (m->used[i] && m->u[i] == u) {
		*out = m->code[i];
		return true;
	}
	if (op->code == OP_OPTION) {
		s = tmx_fc_member_name(op->fc, (size_t)u);
		len = s ? strlen(s) : 0;
	} else if ((len = join_labels(t, op->fc, u)) == SIZE_MAX) {
		return false;
	} else {
		s = t->labels;
	}
	if (!named_code(op->cb, (enum op_code)op->code, s, len, out))
		return false;
	m->used[i] = true;
	m->u[i] = u;
	m->code[i] = *out;
	return true;
}

/* Room for `n` more entries in `vals`. */
static bool vals_room(struct colbuf *cb, size_t n)
{
	unsigned char *vals = (unsigned char *)cb->vals;

	if (!grow(&vals, &cb->cap_vals, (cb->n_vals + n) * sizeof(*cb->vals)))
		return false;
	cb->vals = (struct tmx_value *)vals;
	return true;
}

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * A COL_OBJECT entry of a record at `r` (table_impl.h) in row `row`: its
 * values appended to `vals`, its strings' offsets moved past the bytes
 * already there.  Returns the record after it, NULL: no memory.
 */
static const unsigned char *put_object(struct colbuf *cb, const unsigned char *r, size_t row)
{
	bool packed = *r++ == REC_PACKED;
	size_t n = (size_t)rd64(r), n_bytes = packed ? 0 : (size_t)rd64(r + 8), at = cb->n_vals;

	r += packed ? 8 : 16;
	if (!vals_room(cb, n) || !grow(&cb->bytes, &cb->cap_bytes, cb->n_bytes + n_bytes))
		return NULL;
	memcpy(cb->vals + at, r, n * sizeof(*cb->vals));
	r += n * sizeof(*cb->vals);
	for (size_t i = at; !packed && i < at + n; i++) {
		struct tmx_value *c = &cb->vals[i];
		if (has_bytes(c) && c->str.ptr)
			c->str.ptr = (const char *)((uintptr_t)c->str.ptr + cb->n_bytes);
	}
	if (n_bytes)
		memcpy(cb->bytes + cb->n_bytes, r, n_bytes);
	cb->n_bytes += n_bytes;
	cb->n_vals += n;
	store(cb->data, row, sizeof(size_t), at | (packed ? PACKED : 0));
	return r + n_bytes;
}

/* The trace's host as the Parquet output's `host`: its environment's `hostname` text. */
static const char *trace_host(const struct tmx_trace *trace)
{
	const struct tmx_env_entry *host =
		trace && trace->cls ? tmx_trace_class_env(trace->cls, "hostname") : NULL;

	return host && !host->is_int ? host->str_value : NULL;
}
/* A stream's fixed values, for its events (false: no memory). */
static bool enter_stream(struct table *t, const struct tmx_stream *st)
{
	const char *trace = st->trace && st->trace->name ? st->trace->name : "";
	bool ok = true;

	if (st->trace != t->host_trace) {
		t->host_trace = st->trace;
		t->host = trace_host(st->trace);
	}
	t->host_code = model_text_code(&t->cols[FIX_HOST], t->host, &ok);
	t->trace_code = model_text_code(&t->cols[FIX_TRACE], trace, &ok);
	t->stream_id = st->id;
	t->stream_class_id = st->cls->id;
	t->stream = ok ? st : NULL;
	return ok;
}

/*
 * A fixed column's value in row `row` (`width`: the model's type's,
 * tracemux/columns.h), or none (false: no memory).
 */
static inline __attribute__((always_inline)) bool put_fixed_int(struct table *t, int f, size_t row,
								unsigned width, bool has,
								uint64_t bits)
{
	struct colbuf *cb = &t->cols[f];

	if (!has)
		return put_null(cb, COL_U64, row, t->cap_rows);   /* a fixed width's */
	store(cb->data, row, width, bits);
	if (cb->valid)
		cb->valid[row] = 1;
	return true;
}


/*
 * The fixed columns' values: ts and cycles from msg, cpu from the record's
 * head; false: no memory.
 */
static inline __attribute__((always_inline)) bool put_fixed(struct table *t,
							    const struct tmx_msg *msg,
							    const struct tmx_event_class *ec,
							    const struct rec_head *h)
{
	size_t row = t->n_rows;
	bool ok = true;
	uint32_t event;

	if (msg->stream != t->stream && !enter_stream(t, msg->stream))
		return false;
	event = model_text_code(&t->cols[FIX_EVENT], ec->name, &ok);
	store(t->cols[FIX_EVENT].data, row, 4, event);
	store(t->cols[FIX_HOST].data, row, 4, t->host_code);
	store(t->cols[FIX_TRACE].data, row, 4, t->trace_code);
	/* never missing */
	store(t->cols[FIX_STREAM_ID].data, row, 8, t->stream_id);
	store(t->cols[FIX_STREAM_CLASS_ID].data, row, 8, t->stream_class_id);
	return ok && put_fixed_int(t, FIX_TS, row, 8, msg->has_ts, (uint64_t)msg->ns) &&
	       put_fixed_int(t, FIX_CYCLES, row, 8, msg->has_ts, msg->cycles) &&
	       put_fixed_int(t, FIX_CPU, row, 4, h->flags & REC_HAS_CPU, h->cpu);
}

/*
 * The entry at `r` of field column `op` in row `row` (present): the
 * record after it, NULL: no memory.
 */
static inline __attribute__((always_inline)) const unsigned char *
put_value(struct table *t, const struct op *op, const unsigned char *r, size_t row)
{
	uint32_t code;
	size_t len;

	switch (op->code) {
	case OP_W1:
		op->data[row] = *r;
		return r + 1;
	case OP_W2:
		memcpy(op->data + 2 * row, r, 2);
		return r + 2;
	case OP_W4:
		memcpy(op->data + 4 * row, r, 4);
		return r + 4;
	case OP_W8:
		memcpy(op->data + 8 * row, r, 8);
		return r + 8;
	case OP_TEXT:
		len = (size_t)rd64(r);
		if (!(code = text_code(op->cb, (const char *)r + 8, len)))
			return NULL;
		store(op->data, row, 4, code);
		return r + 8 + len;
	case OP_LABEL:
	case OP_OPTION:
		if (*r++ == REC_BY_VALUE) {
			uint64_t u;
			uint32_t option;   /* 4 bytes: the last entry's may end the record */

			if (op->code == OP_LABEL) {
				u = rd64(r);
				r += 8;
			} else {
				memcpy(&option, r, 4);
				u = option;
				r += 4;
			}
			if (!memo_code(t, op, u, &code))
				return NULL;
		} else {
			len = (size_t)rd64(r);
			if (!named_code(op->cb, (enum op_code)op->code, (const char *)r + 8, len, &code))
				return NULL;
			r += 8 + len;
		}
		store(op->data, row, 4, code);
		return r;
	case OP_BYTES:
		len = (size_t)rd64(r);
		return put_byte_string(op->cb, r + 8, len, row) ? r + 8 + len : NULL;
	default:   /* OP_OBJECT */
		return put_object(op->cb, r, row);
	}
}

/* A run of integer entries (struct op.run) of `width` bytes at `r`, in one loop. */
static inline __attribute__((always_inline)) const unsigned char *
put_run(const struct op *op, const unsigned char *r, size_t row, unsigned width)
{
	for (size_t i = 0, n = op->run; i < n; i++, r += width)
		memcpy(op[i].data + width * row, r, width);
	return r;
}

/*
 * The field columns' entries of a record at `r` (see table_impl.h) in row
 * `row`.  False: no memory.
 */
static bool put_fields(struct table *t, const struct plan *p, const unsigned char *r, bool walk)
{
	const struct op *op = t->ops, *end = op + t->n_ops;
	size_t row = t->n_rows;

	if (walk) {   /* each entry's presence byte first */
		for (; op < end; op++) {
			if (!*r++) {
				if (!put_null(op->cb, p->cols[op->col].kind, row, t->cap_rows))
					return false;
				t->any_valid = t->any_valid || op->cb->valid;
				continue;
			}
			if (!(r = put_value(t, op, r, row)))
				return false;
			if (op->cb->valid)
				op->cb->valid[row] = 1;
		}
		return true;
	}
	for (; op < end; op += op->skip + 1) {
		switch (op->step) {
		case OP_W1:
			r = put_run(op, r, row, 1);
			break;
		case OP_W2:
			r = put_run(op, r, row, 2);
			break;
		case OP_W4:
			r = put_run(op, r, row, 4);
			break;
		case OP_W8:
			r = put_run(op, r, row, 8);
			break;
		default:
			if (!(r = put_value(t, op, r, row)))
				return false;
			break;
		}
	}
	if (t->any_valid)   /* a record without missing values after one with */
		for (op = t->ops; op < end; op++)
			if (op->cb->valid)
				op->cb->valid[row] = 1;
	return true;
}

int table_append(struct table *t, const struct plan *p, const struct tmx_msg *msg,
		 const void *rec, uint64_t seq)
{
	struct rec_head h;

	memcpy(&h, rec, sizeof(h));
	if (t->n_rows == t->cap_rows && !grow_rows(t, p))
		return TABLE_NOMEM;
	if (!put_fixed(t, msg, (const struct tmx_event_class *)(uintptr_t)h.ec, &h) ||
	    !put_fields(t, p, (const unsigned char *)rec + sizeof(h), h.flags & REC_WALK))
		return TABLE_NOMEM;
	store(t->seq.data, t->n_rows++, 8, seq);
	return TABLE_OK;
}
