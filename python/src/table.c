/*
 * Columns filled in C: a table per event class, a growing buffer per
 * column in the column's own type (integers of their width, floats,
 * booleans as bytes, text as dictionary codes), a validity byte per row
 * only once a column gets its first missing value, byte strings (BLOBs,
 * arrays of uint8) as the end offset of each row in one buffer of bytes,
 * and Python objects only for other arrays, made at the export.  Exported as Buffers that
 * numpy.frombuffer wraps without a copy (tracemux/_frames.py).
 *
 * Per event, table_add runs the class's program: an op per field column
 * (struct op: its write chosen once from the column's kind), its value
 * where a static layout has it (no walk) or from the library's walk; the
 * room for a row is made for every column at once (grow_rows).
 *
 * Nothing here touches Python (table_export.c exports): Reader.read fills the
 * tables with the GIL released.  An array or BLOB value is kept as a copy
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

static enum op_code op_of(enum col_kind kind)
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

/* A text column's class whose values are their text (strings, text arrays), else NULL. */
static const struct tmx_field_class *text_class(const struct tmx_field_class *fc)
{
	enum tmx_fc_kind k = fc ? tmx_fc_kind(fc) : TMX_FC_STRUCT;

	return k == TMX_FC_STRING ||
	       ((k == TMX_FC_ARRAY || k == TMX_FC_SEQUENCE) && tmx_fc_is_text(fc)) ? fc : NULL;
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

		op->code = (uint8_t)op_of(p->cols[c].kind);
		op->col = (uint32_t)c;
		op->cb = &t->cols[c];
		op->fc = tmx_column_field_class(p->model, c);
		if (op->code == OP_TEXT)
			op->fc = text_class(op->fc);
	}
	if (!ok) {
		table_free(t);
		return NULL;
	}
	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (p->scope_fc[s]) {
			t->scope_of[t->n_scopes] = (uint8_t)s;
			t->scope_fc[t->n_scopes++] = p->scope_fc[s];
		}
	t->seq.width = 8;
	t->class_index = class_index;
	t->cpu_scope = -1;
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

/* A byte string (ext_is_bytes) in row `row`: its bytes, then the row's end offset. */
static bool put_byte_string(struct colbuf *cb, const struct tmx_value *v, size_t row)
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

/* The code of a COL_TEXT value (0: no memory). */
static inline __attribute__((always_inline)) uint32_t value_text_code(struct colbuf *cb,
								      const struct op *op,
								      const struct tmx_value *v)
{
	const char *s;
	size_t len;

	if (v->fc == op->fc) {   /* tmx_value_text inline: text arrays end at their first NUL */
		const char *nul;
		s = v->str.ptr;
		len = (size_t)v->str.len;
		if (len && (nul = memchr(s, '\0', len)))
			len = (size_t)(nul - s);
		return text_code(cb, s, len);
	}
	s = tmx_value_text(v, &len);
	return text_code(cb, s, s ? len : 0);
}

/* Labels joined (plan_labels) into the table's scratch: their length, SIZE_MAX: no memory. */
static size_t join_labels(struct table *t, const struct tmx_value *v)
{
	size_t len;

	while ((len = plan_labels(v, t->labels, t->labels_cap)) == SIZE_MAX) {
		size_t cap = t->labels_cap ? 4 * t->labels_cap : 256;
		char *b = realloc(t->labels, cap);
		if (!b)
			return SIZE_MAX;
		t->labels = b;
		t->labels_cap = cap;
	}
	return len;
}

/* The code of a label or option value, not remembered; false: no memory. */
static bool named_code(struct table *t, struct colbuf *cb, enum op_code code,
		       const struct tmx_value *v, uint32_t *out)
{
	const char *s;
	size_t len;

	if (code == OP_OPTION) {
		s = tmx_fc_member_name(v->fc, v->option);
		len = s ? strlen(s) : 0;
	} else if ((len = join_labels(t, v)) == SIZE_MAX) {
		return false;
	} else {
		s = t->labels;
	}
	*out = code == OP_LABEL && !len ? 0 : text_code(cb, s, len);   /* no label: no value */
	return code == OP_LABEL && !len ? true : *out != 0;
}

/* The code of a label or option value, by the column's memo for its class's values. */
static bool memo_code(struct table *t, struct colbuf *cb, const struct op *op,
		      const struct tmx_value *v, uint32_t *out)
{
	uint64_t u = op->code == OP_OPTION ? v->option : v->u;
	size_t i = (size_t)((u * 0x9E3779B97F4A7C15ull) >> 58);   /* 64 = 2^6 slots */
	struct memo *m = cb->memo;

	if (v->fc != op->fc)   /* e.g. through a variant: not its class's value */
		return named_code(t, cb, (enum op_code)op->code, v, out);
	if (m->used[i] && m->u[i] == u) {
		*out = m->code[i];
		return true;
	}
	if (!named_code(t, cb, (enum op_code)op->code, v, out))
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

/*
 * An array or sequence of integers: its own entry, then its elements'
 * 64-bit values packed in the entries after it (a third of the room of an
 * entry each), which byte arrays fill most.
 */
static bool put_int_array(struct colbuf *cb, const struct tmx_value *v, size_t row)
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
	store(cb->data, row, sizeof(size_t), at | PACKED);
	return true;
}

static bool int_array(const struct tmx_value *v)
{
	enum tmx_fc_kind k = tmx_fc_kind(v->fc);

	return (k == TMX_FC_ARRAY || k == TMX_FC_SEQUENCE) && !tmx_fc_is_text(v->fc) &&
	       tmx_fc_kind(tmx_fc_element(v->fc)) == TMX_FC_INT;
}

/* A copy of the value subtree at `v` (see the top) in row `row`: its first entry's index. */
static bool put_object(struct colbuf *cb, const struct tmx_value *v, size_t row)
{
	size_t n, at = cb->n_vals;

	if (int_array(v))
		return put_int_array(cb, v, row);
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
	store(cb->data, row, sizeof(size_t), at);
	return true;
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
 * The fixed columns' values (`cpu`: the CPU field's value, NULL: none);
 * false: no memory.  Inline: a call saved and restored most registers.
 */
static inline __attribute__((always_inline)) bool put_fixed(struct table *t, const struct plan *p, const struct tmx_msg *msg,
		      const struct tmx_value *cpu)
{
	size_t row = t->n_rows;
	uint64_t bits = 0;
	bool ok = true, has_cpu;
	uint32_t event;

	if (msg->stream != t->stream && !enter_stream(t, msg->stream))
		return false;
	event = model_text_code(&t->cols[FIX_EVENT], msg->event->cls->name, &ok);
	/* tmx_event_cpu: an unsigned integer's value read here, others by the library */
	if (cpu && cpu->fc == t->cpu_fc)
		bits = cpu->u, has_cpu = true;
	else
		has_cpu = p->cpu_field && tmx_value_uint64(cpu, &bits);
	store(t->cols[FIX_EVENT].data, row, 4, event);
	store(t->cols[FIX_HOST].data, row, 4, t->host_code);
	store(t->cols[FIX_TRACE].data, row, 4, t->trace_code);
	/* never missing */
	store(t->cols[FIX_STREAM_ID].data, row, 8, t->stream_id);
	store(t->cols[FIX_STREAM_CLASS_ID].data, row, 8, t->stream_class_id);
	return ok && put_fixed_int(t, FIX_TS, row, 8, msg->has_ts, (uint64_t)msg->ns) &&
	       put_fixed_int(t, FIX_CYCLES, row, 8, msg->has_ts, msg->cycles) &&
	       put_fixed_int(t, FIX_CPU, row, 4, has_cpu && bits <= UINT32_MAX, bits);
}

/* A run of ops (struct op) from their first value: how many. */
static inline __attribute__((always_inline)) size_t put_run(const struct op *op,
							    const struct tmx_value *v, size_t row)
{
	size_t n = op->run;

	switch (op->code) {
	case OP_W1:
		for (size_t i = 0; i < n; i++)
			store(op[i].data, row, 1, v[i].u);
		break;
	case OP_W2:
		for (size_t i = 0; i < n; i++)
			store(op[i].data, row, 2, v[i].u);
		break;
	case OP_W4:
		for (size_t i = 0; i < n; i++)
			store(op[i].data, row, 4, v[i].u);
		break;
	default:
		for (size_t i = 0; i < n; i++)
			store(op[i].data, row, 8, v[i].u);
		break;
	}
	return n;
}

/*
 * The field columns' values in row `row`, each from scopes[op->scope] +
 * op->off (`fixed`: a static layout, whose values are all there: no
 * missing value) or cells[op->col] (the walk's); false: no memory.
 */
static inline __attribute__((always_inline)) bool
put_fields(struct table *t, const struct plan *p, const struct tmx_value *const *scopes,
	   const struct tmx_value **cells, bool fixed)
{
	size_t row = t->n_rows;

	for (const struct op *op = t->ops, *end = op + t->n_ops; op < end; op++) {
		const struct tmx_value *v = fixed ? scopes[op->scope] + op->off : cells[op->col];
		uint32_t code;
		float f;

		if (fixed && op->run > 1) {
			op += put_run(op, v, row) - 1;
			continue;
		}
		if (!fixed && !v) {
			if (!put_null(op->cb, p->cols[op->col].kind, row, t->cap_rows))
				return false;
			continue;
		}
		switch (op->code) {
		case OP_W1:
			store(op->data, row, 1, v->u);
			break;
		case OP_W2:
			store(op->data, row, 2, v->u);
			break;
		case OP_W4:
			store(op->data, row, 4, v->u);
			break;
		case OP_W8:   /* a double's bits too (`d` shares them) */
			store(op->data, row, 8, v->u);
			break;
		case OP_F32:
			f = (float)v->d;
			memcpy(op->data + 4 * row, &f, 4);
			break;
		case OP_BOOL:
			store(op->data, row, 1, v->u != 0);
			break;
		case OP_TEXT:
			if (!(code = value_text_code(op->cb, op, v)))
				return false;
			store(op->data, row, 4, code);
			break;
		case OP_LABEL:
		case OP_OPTION:
			if (!memo_code(t, op->cb, op, v, &code))
				return false;
			store(op->data, row, 4, code);
			break;
		case OP_BYTES:
			if (!put_byte_string(op->cb, v, row))
				return false;
			break;
		default:   /* OP_OBJECT */
			if (!put_object(op->cb, v, row))
				return false;
			break;
		}
		if (!fixed && op->cb->valid)
			op->cb->valid[row] = 1;
	}
	return true;
}

/* Where `v` is among the scopes' values (n[s] of them): its scope and offset; false: not there. */
static bool locate(const struct tmx_value *const *scopes, const size_t n[TMX_N_SCOPES],
		   const struct tmx_value *v, uint8_t *scope, uint32_t *off)
{
	for (int s = 0; v && s < TMX_N_SCOPES; s++) {
		uintptr_t at = (uintptr_t)v, base = (uintptr_t)scopes[s];
		if (n[s] && at >= base && at < base + n[s] * sizeof(*v)) {
			*scope = (uint8_t)s;
			*off = (uint32_t)((at - base) / sizeof(*v));
			return true;
		}
	}
	return false;
}

/* The runs of a static layout's integer ops (struct op.run). */
static void mark_runs(struct table *t)
{
	struct op *first = NULL;

	for (struct op *op = t->ops; op < t->ops + t->n_ops; op++) {
		if (first && op->code == first->code && op->scope == first->scope &&
		    op->off == first->off + first->run && first->run < UINT16_MAX) {
			first->run++;
			continue;
		}
		first = op->code <= OP_W8 ? op : NULL;
		if (first)
			first->run = 1;
	}
}

/*
 * The class's layout, learnt from its first event's walk (`cells`): static
 * when the value of each field column and the CPU field's are among the
 * values at the same places in every event of the class (plan_fixed_values),
 * then they are where the walk found them.
 */
static enum layout learn_layout(struct table *t, const struct plan *p,
				const struct tmx_value *const *scopes, const struct tmx_value **cells)
{
	size_t n[TMX_N_SCOPES] = { 0 };
	uint8_t scope;
	uint32_t off;
	bool whole;

	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (p->scope_fc[s])
			n[s] = plan_fixed_values(p->scope_fc[s], &whole);
	for (size_t o = 0; o < t->n_ops; o++)
		if (!locate(scopes, n, cells[t->ops[o].col], &t->ops[o].scope, &t->ops[o].off))
			return LAYOUT_WALK;
	if (locate(scopes, n, cells[FIX_CPU], &scope, &off)) {
		t->cpu_scope = scope;
		t->cpu_off = off;
	} else if (cells[FIX_CPU]) {
		return LAYOUT_WALK;
	}
	mark_runs(t);
	return LAYOUT_STATIC;
}

/* Whether every scope of the event is its class's (as tmx_columns_walk checks). */
static bool scopes_match(const struct table *t, const struct tmx_value *const *scopes)
{
	for (int i = 0; i < t->n_scopes; i++) {
		const struct tmx_value *v = scopes[t->scope_of[i]];
		if (!v || v->fc != t->scope_fc[i])
			return false;
	}
	return true;
}

int table_add(struct table *t, const struct plan *p, const struct tmx_msg *msg,
	      const struct tmx_value **cells, uint64_t seq)
{
	const struct tmx_value *const *scopes = msg->event->scopes;
	const struct tmx_value *cpu;
	bool ok;

	if (t->n_rows == t->cap_rows && !grow_rows(t, p))
		return TABLE_NOMEM;
	if (t->layout == LAYOUT_STATIC) {
		if (!scopes_match(t, scopes))
			return TABLE_MISMATCH;
		cpu = t->cpu_scope >= 0 ? scopes[t->cpu_scope] + t->cpu_off : NULL;
		ok = put_fixed(t, p, msg, cpu) && put_fields(t, p, scopes, NULL, true);
	} else {
		if (!plan_walk(p, scopes, cells))
			return TABLE_MISMATCH;
		cpu = cells[FIX_CPU];
		if (t->layout == LAYOUT_UNKNOWN) {
			t->layout = learn_layout(t, p, scopes, cells);
			if (cpu && (tmx_fc_kind(cpu->fc) == TMX_FC_INT ||
				    tmx_fc_kind(cpu->fc) == TMX_FC_ENUM) && !tmx_fc_is_signed(cpu->fc))
				t->cpu_fc = cpu->fc;
		}
		ok = put_fixed(t, p, msg, cpu) && put_fields(t, p, NULL, cells, false);
	}
	if (!ok)
		return TABLE_NOMEM;
	store(t->seq.data, t->n_rows++, 8, seq);
	return TABLE_OK;
}
