/*
 * A table's columns as Python objects (table_export): each column's
 * buffers given up to Buffers that numpy.frombuffer wraps without a copy,
 * its dictionary's strings, and the objects of COL_OBJECT columns made
 * from the copies of their values.  The only part of a table that touches
 * Python (the GIL held).
 */
#include "table_impl.h"

#include <string.h>

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

/* A buffer's first `len` bytes as a Buffer (the colbuf gives them up; none yet: zeros). */
static PyObject *take_buffer(unsigned char **data, size_t len)
{
	void *p = *data ? *data : calloc(1, len ? len : 1);

	*data = NULL;
	return p ? ext_buffer_new(p, len, 0) : PyErr_NoMemory();
}

/* A column's data as a Buffer of its first `len` bytes (the colbuf gives it up). */
static PyObject *take_data(struct colbuf *cb, size_t len)
{
	size_t mapped = cb->mapped;
	void *data = cb->data;

	if (!mapped)
		return take_buffer(&cb->data, len);
	cb->mapped = 0;
	cb->data = NULL;
	return ext_buffer_new(data, len, mapped);
}

static PyObject *export_column(struct table *t, const struct plan *p, size_t c)
{
	const struct column *col = &p->cols[c];
	struct colbuf *cb = &t->cols[c];
	PyObject *data, *valid, *dict;

	if (col->kind == COL_OBJECT)
		data = objects(cb, col, t->n_rows);
	else
		data = take_data(cb, (t->n_rows + (col->kind == COL_BYTES)) * cb->width);
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
			     table_dtype(col->kind), "data", data, "valid", valid, "strings", dict,
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
	seq = cols ? take_data(&t->seq, t->n_rows * 8) : NULL;
	if (!seq) {
		Py_XDECREF(cols);
		return NULL;
	}
	return Py_BuildValue("{s:n,s:n,s:N,s:N}", "class", (Py_ssize_t)t->class_index, "rows",
			     (Py_ssize_t)t->n_rows, "seq", seq, "columns", cols);
}
