/*
 * An event class's columns: the library's column model
 * (tracemux/columns.h), which the Parquet output writes too, each column
 * given the type its table holds (integers of their width, text as
 * dictionary codes, byte strings as offsets and bytes, other arrays as
 * Python objects).
 */
#include <string.h>

#include "ext.h"

static enum col_kind int_kind(unsigned bits, bool is_signed)
{
	static const enum col_kind s[] = { COL_I8, COL_I16, COL_I32, COL_I64 };
	static const enum col_kind u[] = { COL_U8, COL_U16, COL_U32, COL_U64 };
	int w = bits == 0 || bits > 32 ? 3 : bits > 16 ? 2 : bits > 8 ? 1 : 0;

	return is_signed ? s[w] : u[w];
}

/* Column c of the model as its table holds it. */
static struct column column_of(const struct tmx_columns *m, size_t c)
{
	const struct tmx_field_class *fc = tmx_column_field_class(m, c);
	struct column col = { .kind = COL_OBJECT, .width = -1,
			      /* the fixed columns' missing values are masked */
			      .nullable = tmx_column_fixed(m, c) < 0 && tmx_column_nullable(m, c) };

	switch (tmx_column_kind(m, c)) {
	case TMX_COLUMN_INT:
		col.kind = int_kind(tmx_column_bits(m, c), tmx_column_is_signed(m, c));
		break;
	case TMX_COLUMN_FLOAT:
		col.kind = tmx_column_bits(m, c) == 32 ? COL_F32 : COL_F64;
		break;
	case TMX_COLUMN_BOOL:
		col.kind = COL_BOOL;
		break;
	case TMX_COLUMN_TEXT:
		col.kind = COL_TEXT;
		break;
	case TMX_COLUMN_LABEL:
		col.kind = COL_LABEL;
		break;
	case TMX_COLUMN_OPTION:
		col.kind = COL_OPTION;
		break;
	default:   /* arrays, sequences, BLOBs */
		if (!fc || !ext_is_bytes(fc))
			break;
		col.kind = COL_BYTES;
		/* Static arrays and BLOBs (a static BLOB of 0 bytes is left variable). */
		if (tmx_fc_kind(fc) == TMX_FC_ARRAY || tmx_fc_length(fc))
			col.width = (int64_t)tmx_fc_length(fc);
		break;
	}
	return col;
}

void plan_free(struct plan *p)
{
	if (!p)
		return;
	for (size_t c = 0; p->cols && c < p->n_cols; c++)
		free(p->cols[c].name);
	free(p->cols);
	tmx_columns_free(p->model);
	free(p);
}

struct plan *plan_new(const struct tmx_event_class *ec)
{
	const struct tmx_stream_class *sc = ec->stream_class;
	struct plan *p = calloc(1, sizeof(struct plan));

	if (!p || !(p->model = tmx_columns_new(ec)))
		goto fail;
	p->n_cols = tmx_columns_count(p->model);
	p->n_fixed = tmx_columns_fixed_count(p->model);
	if (!(p->cols = calloc(p->n_cols ? p->n_cols : 1, sizeof(*p->cols))))
		goto fail;
	for (size_t c = 0; c < p->n_cols; c++) {
		p->cols[c] = column_of(p->model, c);
		if (!(p->cols[c].name = strdup(tmx_column_name(p->model, c))))
			goto fail;
	}
	for (int f = 0; f < FIX_N; f++)
		p->fixed[f] = f;   /* enum fixed_col is the model's order */
	p->cpu_field = tmx_stream_class_cpu_field(sc, &p->cpu_scope);
	p->scope_fc[TMX_SCOPE_PACKET_CONTEXT] = sc->packet_context;
	p->scope_fc[TMX_SCOPE_COMMON_CONTEXT] = sc->event_common_context;
	p->scope_fc[TMX_SCOPE_SPECIFIC_CONTEXT] = ec->specific_context;
	p->scope_fc[TMX_SCOPE_PAYLOAD] = ec->payload;
	return p;
fail:
	plan_free(p);
	return NULL;
}

bool plan_walk(const struct plan *p, const struct tmx_value *const scopes[TMX_N_SCOPES],
	       const struct tmx_value **out)
{
	return tmx_columns_walk(p->model, scopes, out);
}

/* See ext.h (a static layout of the records, record.c). */
size_t plan_fixed_values(const struct tmx_field_class *fc, bool *whole)
{
	size_t n = 1, sub;

	*whole = true;
	switch (tmx_fc_kind(fc)) {
	case TMX_FC_STRUCT:
		for (size_t m = 0; m < tmx_fc_member_count(fc) && *whole; m++) {
			sub = plan_fixed_values(tmx_fc_member_class(fc, m), whole);
			n += sub;
			if (n >= UINT32_MAX)
				*whole = false;
		}
		return n;
	case TMX_FC_ARRAY:
		if (tmx_fc_is_text(fc))
			return 1;
		sub = plan_fixed_values(tmx_fc_element(fc), whole);
		if (!*whole || tmx_fc_length(fc) >= UINT32_MAX / sub) {
			*whole = false;
			return 1;
		}
		return 1 + (size_t)tmx_fc_length(fc) * sub;
	case TMX_FC_SEQUENCE:
		*whole = tmx_fc_is_text(fc);
		return 1;
	case TMX_FC_VARIANT:
	case TMX_FC_OPTIONAL:
		*whole = false;
		return 1;
	default:
		return 1;
	}
}

size_t plan_labels(const struct tmx_value *v, char *buf, size_t size)
{
	size_t len = 0, count = tmx_fc_mapping_count(v->fc);

	for (size_t m = 0; m < count; m++) {
		const char *label;
		size_t l;

		if (!tmx_value_has_mapping(v, m))
			continue;
		label = tmx_fc_mapping_label(v->fc, m);
		l = strlen(label);
		if (len + 2 + l > size)
			return SIZE_MAX;
		if (len) {
			memcpy(buf + len, ", ", 2);
			len += 2;
		}
		memcpy(buf + len, label, l);
		len += l;
	}
	return len;
}

size_t plan_labels_grown(const struct tmx_value *v, char **buf, size_t *cap)
{
	size_t len;

	while ((len = plan_labels(v, *buf, *cap)) == SIZE_MAX) {
		size_t more = *cap ? 4 * *cap : 256;
		char *b = realloc(*buf, more);
		if (!b)
			return SIZE_MAX;
		*buf = b;
		*cap = more;
	}
	return len;
}

/* Labels joined with ", " as str, None when the value has none. */
static PyObject *labels_cell(const struct tmx_value *v)
{
	char small[512], *buf = small;
	size_t size = sizeof(small), len;
	PyObject *out;

	while ((len = plan_labels(v, buf, size)) == SIZE_MAX) {
		if (buf != small)
			PyMem_Free(buf);
		size *= 4;
		if (!(buf = PyMem_Malloc(size)))
			return PyErr_NoMemory();
	}
	out = len ? ext_text(buf, len) : Py_NewRef(Py_None);
	if (buf != small)
		PyMem_Free(buf);
	return out;
}

PyObject *plan_cell(const struct column *col, const struct tmx_value *v)
{
	const char *s;
	size_t len, next;

	switch (col->kind) {
	case COL_I8: case COL_I16: case COL_I32: case COL_I64:
		return PyLong_FromLongLong(v->s);
	case COL_U8: case COL_U16: case COL_U32: case COL_U64:
		return PyLong_FromUnsignedLongLong(v->u);
	case COL_F32: case COL_F64:
		return PyFloat_FromDouble(v->d);
	case COL_BOOL:
		return PyBool_FromLong(v->u != 0);
	case COL_TEXT:
		s = tmx_value_text(v, &len);
		return ext_text(s, s ? len : 0);
	case COL_LABEL:
		return labels_cell(v);
	case COL_OPTION:
		s = tmx_fc_member_name(v->fc, v->option);
		return ext_text(s, s ? strlen(s) : 0);
	default:
		return ext_value(v, 0, &next);
	}
}
