/* Values as Python objects (see ext.h). */
#include "ext.h"

#define BYTES_HANDLER "tracemux.bytes"

/*
 * The decoding error handler of ext_text(): every byte of a sequence that
 * is not UTF-8 becomes the code point of its value, as the JSON Lines and
 * Parquet outputs write it.  Python's decoder rejects what tracemux's
 * does (overlong forms, surrogates, values past U+10FFFF), and the bytes of
 * a rejected range after its first one are continuation bytes, which never
 * start a sequence: byte by byte or range by range, the result is the same.
 */
static PyObject *bytes_handler(PyObject *self, PyObject *exc)
{
	Py_ssize_t start, end;
	PyObject *obj, *text;

	(void)self;
	if (!PyObject_TypeCheck(exc, (PyTypeObject *)PyExc_UnicodeDecodeError)) {
		PyErr_SetString(PyExc_TypeError, "tracemux.bytes only handles decoding errors");
		return NULL;
	}
	if (PyUnicodeDecodeError_GetStart(exc, &start) || PyUnicodeDecodeError_GetEnd(exc, &end))
		return NULL;
	obj = PyUnicodeDecodeError_GetObject(exc);
	if (!obj)
		return NULL;
	text = PyUnicode_DecodeLatin1(PyBytes_AS_STRING(obj) + start, end - start, NULL);
	Py_DECREF(obj);
	return text ? Py_BuildValue("(Nn)", text, end) : NULL;
}

static PyMethodDef bytes_handler_def = { BYTES_HANDLER, bytes_handler, METH_O, NULL };

int ext_convert_init(void)
{
	PyObject *f = PyCFunction_New(&bytes_handler_def, NULL);
	int ret;

	if (!f)
		return -1;
	ret = PyCodec_RegisterError(BYTES_HANDLER, f);
	Py_DECREF(f);
	return ret;
}

PyObject *ext_text(const char *s, size_t n)
{
	return PyUnicode_DecodeUTF8(s ? s : "", (Py_ssize_t)n, BYTES_HANDLER);
}

bool ext_is_bytes(const struct tmx_field_class *fc)
{
	enum tmx_fc_kind k = tmx_fc_kind(fc);
	const struct tmx_field_class *e;

	if (k == TMX_FC_BLOB)
		return true;
	if ((k != TMX_FC_ARRAY && k != TMX_FC_SEQUENCE) || tmx_fc_is_text(fc))
		return false;
	e = tmx_fc_element(fc);
	return tmx_fc_kind(e) == TMX_FC_INT && tmx_fc_size(e) == 8 && !tmx_fc_is_signed(e) &&
	       !tmx_fc_mapping_count(e);
}

/* An array of uint8 (ext_is_bytes) as bytes: its elements are the entries after it. */
static PyObject *byte_array_value(const struct tmx_value *vals, size_t i, size_t *next)
{
	uint64_t count = vals[i].count;
	PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)count);

	for (uint64_t e = 0; b && e < count; e++)
		PyBytes_AS_STRING(b)[e] = (char)vals[i + 1 + e].u;
	*next = i + 1 + count;
	return b;
}

static PyObject *array_value(const struct tmx_value *vals, size_t i, size_t *next)
{
	uint64_t count = vals[i].count;
	PyObject *list = PyList_New((Py_ssize_t)count);

	i++;
	for (uint64_t e = 0; list && e < count; e++) {
		PyObject *item = ext_value(vals, i, &i);
		if (!item)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)e, item);
	}
	*next = i;
	return list;
}

static PyObject *struct_value(const struct tmx_value *vals, size_t i, size_t *next)
{
	const struct tmx_field_class *fc = vals[i].fc;
	uint32_t n = vals[i].n_members;
	PyObject *dict = PyDict_New();

	i++;
	for (uint32_t m = 0; dict && m < n; m++) {
		const char *name = tmx_fc_member_name(fc, m);
		PyObject *item = ext_value(vals, i, &i);
		if (!item || PyDict_SetItemString(dict, name ? name : "", item))
			Py_CLEAR(dict);
		Py_XDECREF(item);
	}
	*next = i;
	return dict;
}

PyObject *ext_value(const struct tmx_value *vals, size_t i, size_t *next)
{
	const struct tmx_value *v = &vals[i];
	const struct tmx_field_class *fc = v->fc;
	size_t len;
	const char *text;

	*next = i + 1;
	if ((text = tmx_fc_is_text(fc) ? tmx_value_text(v, &len) : NULL))
		return ext_text(text, len);
	switch (tmx_fc_kind(fc)) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		return tmx_fc_is_signed(fc) ? PyLong_FromLongLong(v->s)
					    : PyLong_FromUnsignedLongLong(v->u);
	case TMX_FC_BIT_ARRAY:
		return PyLong_FromUnsignedLongLong(v->u);
	case TMX_FC_FLOAT:
		return PyFloat_FromDouble(v->d);
	case TMX_FC_BOOL:
		return PyBool_FromLong(v->u != 0);
	case TMX_FC_BLOB:
		return PyBytes_FromStringAndSize(v->str.ptr ? v->str.ptr : "",
						 (Py_ssize_t)v->str.len);
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (ext_is_bytes(fc))
			return byte_array_value(vals, i, next);
		return array_value(vals, i, next);
	case TMX_FC_STRUCT:
		return struct_value(vals, i, next);
	case TMX_FC_VARIANT:   /* its selected option's value */
		return ext_value(vals, i + 1, next);
	case TMX_FC_OPTIONAL:
		if (!v->present)
			return Py_NewRef(Py_None);
		return ext_value(vals, i + 1, next);
	default:
		*next = tmx_value_skip(vals, i);
		return Py_NewRef(Py_None);
	}
}
