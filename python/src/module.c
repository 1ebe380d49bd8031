/* The _tracemux module: errors, the Buffer type, the module itself (see ext.h). */
#include <sys/mman.h>

#include "ext.h"

/* tracemux.Error and a subclass per tmx_status (TMX_OK has none). */
static PyObject *error_base;
PyObject *ext_warning_class;
static PyObject *error_classes[TMX_ERR_LIMIT + 1];

static const struct {
	enum tmx_status code;
	const char *name;      /* tracemux.NAME */
	const char *doc;
} error_table[] = {
	{ TMX_ERR_IO, "InputError", "An input cannot be opened, read or mapped." },
	{ TMX_ERR_NOMEM, "OutOfMemoryError", "Memory ran out." },
	{ TMX_ERR_METADATA, "MetadataError", "Invalid metadata or format description." },
	{ TMX_ERR_DATA, "DataError", "Invalid or truncated binary data." },
	{ TMX_ERR_UNSUPPORTED, "UnsupportedError", "Valid input that tracemux does not support." },
	{ TMX_ERR_USAGE, "UsageError", "A bad option or argument." },
	{ TMX_ERR_LIMIT, "LimitError", "A resource limit was hit." },
};

static int set_attr(PyObject *exc, const char *name, PyObject *value)
{
	int ret;

	if (!value)
		return -1;
	ret = PyObject_SetAttrString(exc, name, value);
	Py_DECREF(value);
	return ret;
}

static PyObject *int_or_none(bool has, unsigned long long v)
{
	return has ? PyLong_FromUnsignedLongLong(v) : Py_NewRef(Py_None);
}

PyObject *ext_error_object(const struct tmx_error *err)
{
	char text[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];
	PyObject *cls = error_base, *exc;

	if ((unsigned)err->code <= TMX_ERR_LIMIT && error_classes[err->code])
		cls = error_classes[err->code];
	tmx_error_format(err, text, sizeof(text));
	exc = PyObject_CallFunction(cls, "N", ext_text(text, strlen(text)));
	if (!exc)
		return NULL;
	if (set_attr(exc, "code", PyUnicode_FromString(tmx_status_name(err->code))) ||
	    set_attr(exc, "file", err->file[0] ? ext_text(err->file, strlen(err->file))
					       : Py_NewRef(Py_None)) ||
	    set_attr(exc, "offset", int_or_none(err->has_offset, err->offset)) ||
	    set_attr(exc, "line", int_or_none(err->line != 0, err->line)) ||
	    set_attr(exc, "column", int_or_none(err->col != 0, err->col)) ||
	    set_attr(exc, "message", ext_text(err->msg, strlen(err->msg))) ||
	    set_attr(exc, "partial", Py_NewRef(Py_None))) {
		Py_DECREF(exc);
		return NULL;
	}
	return exc;
}

PyObject *ext_raise(const struct tmx_error *err)
{
	PyObject *exc = ext_error_object(err);

	if (exc) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

/* ---- Buffer ---- */

typedef struct {
	PyObject_HEAD
	void *data;
	Py_ssize_t len;
	size_t mapped;    /* `data` is a mapping of so many bytes (0: malloc'd) */
} ExtBuffer;

static int buffer_get(PyObject *self, Py_buffer *view, int flags)
{
	ExtBuffer *b = (ExtBuffer *)self;

	return PyBuffer_FillInfo(view, self, b->data, b->len, 0, flags);
}

static void buffer_free(void *data, size_t mapped)
{
	if (mapped)
		munmap(data, mapped);
	else
		free(data);
}

static void buffer_dealloc(PyObject *self)
{
	buffer_free(((ExtBuffer *)self)->data, ((ExtBuffer *)self)->mapped);
	Py_TYPE(self)->tp_free(self);
}

static PyBufferProcs buffer_procs = { .bf_getbuffer = buffer_get };

PyTypeObject ExtBufferType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tracemux._tracemux.Buffer",
	.tp_doc = "Memory filled by the extension (wrapped by numpy.frombuffer).",
	.tp_basicsize = sizeof(ExtBuffer),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = buffer_dealloc,
	.tp_as_buffer = &buffer_procs,
};

PyObject *ext_buffer_new(void *data, size_t len, size_t mapped)
{
	ExtBuffer *b = PyObject_New(ExtBuffer, &ExtBufferType);

	if (!b) {
		buffer_free(data, mapped);
		return NULL;
	}
	b->data = data;
	b->len = (Py_ssize_t)len;
	b->mapped = mapped;
	return (PyObject *)b;
}

/* ---- the module ---- */

static int add_errors(PyObject *m)
{
	error_base = PyErr_NewExceptionWithDoc(
		"tracemux.Error",
		"A tracemux error: `code`, `file`, `offset` (byte offset in `file`), `line` and "
		"`column` (text positions), `message`; `partial` holds what was read before the "
		"fault when the call returns data.",
		NULL, NULL);
	if (!error_base || PyModule_AddObjectRef(m, "Error", error_base))
		return -1;
	ext_warning_class = PyErr_NewExceptionWithDoc(
		"tracemux.TraceWarning", "A warning of the library (an odd trace, a damaged packet skipped).",
		PyExc_UserWarning, NULL);
	if (!ext_warning_class || PyModule_AddObjectRef(m, "TraceWarning", ext_warning_class))
		return -1;
	for (size_t i = 0; i < sizeof(error_table) / sizeof(error_table[0]); i++) {
		char qual[64];
		PyObject *bases, *cls;

		snprintf(qual, sizeof(qual), "tracemux.%s", error_table[i].name);
		if (error_table[i].code == TMX_ERR_NOMEM)
			bases = PyTuple_Pack(2, error_base, PyExc_MemoryError);
		else if (error_table[i].code == TMX_ERR_USAGE)
			bases = PyTuple_Pack(2, error_base, PyExc_ValueError);
		else
			bases = PyTuple_Pack(1, error_base);
		if (!bases)
			return -1;
		cls = PyErr_NewExceptionWithDoc(qual, error_table[i].doc, bases, NULL);
		Py_DECREF(bases);
		if (!cls || PyModule_AddObjectRef(m, error_table[i].name, cls)) {
			Py_XDECREF(cls);
			return -1;
		}
		error_classes[error_table[i].code] = cls;
	}
	return 0;
}

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "tracemux._tracemux",
	.m_doc = "libtracemux's public API for the tracemux package (use `tracemux`, not this).",
	.m_size = -1,
};

PyMODINIT_FUNC PyInit__tracemux(void)
{
	PyObject *m;

	if (PyType_Ready(&ExtBufferType) || PyType_Ready(&ReaderType) || PyType_Ready(&EventType) ||
	    ext_convert_init())
		return NULL;
	m = PyModule_Create(&module);
	if (!m)
		return NULL;
	if (add_errors(m) || PyModule_AddType(m, &ReaderType) || PyModule_AddType(m, &EventType) ||
	    PyModule_AddStringConstant(m, "library_version", TRACEMUX_VERSION_STRING)) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
