/*
 * Event: one event of a Reader.  The library's event is a view, valid
 * until the next message of its stream, so the Event copies its value
 * arrays (and the bytes of its strings and BLOBs, which may live in a
 * buffer the reader reuses) into one block; fields become Python objects
 * only when asked for.  Field classes stay valid while the Reader lives:
 * the Event holds a reference to it.
 */
#include <string.h>

#include "ext.h"

typedef struct {
	PyObject_HEAD
	Reader *reader;
	size_t class_index;
	const struct tmx_stream *stream;
	bool has_ts, has_cpu;
	int64_t ns;
	uint64_t cycles, cpu;
	void *block;                                  /* values, then string bytes */
	const struct tmx_value *scopes[TMX_N_SCOPES];
	PyObject *fields;                             /* made at first use */
} Event;

/* Values that carry bytes in str.ptr/len. */
static bool has_bytes(const struct tmx_value *v)
{
	return tmx_fc_is_text(v->fc) || tmx_fc_kind(v->fc) == TMX_FC_BLOB;
}

/* Copies the scopes of `e` into one block. */
static bool copy_scopes(Event *ev, const struct tmx_event *e)
{
	size_t n[TMX_N_SCOPES] = { 0 }, n_values = 0, n_bytes = 0;
	struct tmx_value *vals;
	char *bytes;

	for (int s = 0; s < TMX_N_SCOPES; s++) {
		if (!e->scopes[s])
			continue;
		n[s] = tmx_value_skip(e->scopes[s], 0);
		n_values += n[s];
		for (size_t i = 0; i < n[s]; i++)
			if (has_bytes(&e->scopes[s][i]))
				n_bytes += e->scopes[s][i].str.len;
	}
	ev->block = malloc(n_values * sizeof(struct tmx_value) + n_bytes + 1);
	if (!ev->block)
		return false;
	vals = ev->block;
	bytes = (char *)(vals + n_values);
	for (int s = 0; s < TMX_N_SCOPES; s++) {
		if (!e->scopes[s])
			continue;
		memcpy(vals, e->scopes[s], n[s] * sizeof(*vals));
		for (size_t i = 0; i < n[s]; i++) {
			if (!has_bytes(&vals[i]) || !vals[i].str.len)
				continue;
			memcpy(bytes, vals[i].str.ptr, vals[i].str.len);
			vals[i].str.ptr = bytes;
			bytes += vals[i].str.len;
		}
		ev->scopes[s] = vals;
		vals += n[s];
	}
	return true;
}

PyObject *event_new(Reader *r, size_t class_index, const struct tmx_msg *msg)
{
	Event *ev = PyObject_New(Event, &EventType);

	if (!ev)
		return NULL;
	ev->reader = (Reader *)Py_NewRef(r);
	ev->class_index = class_index;
	ev->stream = msg->stream;
	ev->has_ts = msg->has_ts;
	ev->ns = msg->ns;
	ev->cycles = msg->cycles;
	ev->has_cpu = tmx_event_cpu(msg->event, &ev->cpu);
	ev->fields = NULL;
	memset(ev->scopes, 0, sizeof(ev->scopes));
	if (!copy_scopes(ev, msg->event)) {
		ev->block = NULL;
		Py_DECREF(ev);
		return PyErr_NoMemory();
	}
	return (PyObject *)ev;
}

static void event_dealloc(PyObject *self)
{
	Event *ev = (Event *)self;

	free(ev->block);
	Py_XDECREF(ev->fields);
	Py_XDECREF(ev->reader);
	PyObject_Free(self);
}

/* {column name: value} of the class's field columns, as a row of to_pandas(). */
static PyObject *make_fields(Event *ev)
{
	struct plan *p = reader_plan(ev->reader, ev->class_index);
	const struct tmx_value **cells;
	PyObject *d;

	if (!p)
		return NULL;
	if (!(cells = calloc(p->n_cols ? p->n_cols : 1, sizeof(*cells))))
		return PyErr_NoMemory();
	if (!plan_walk(p, ev->scopes, cells)) {
		free(cells);
		PyErr_SetString(PyExc_ValueError, "the event does not have its class's fields");
		return NULL;
	}
	d = PyDict_New();
	for (size_t c = p->n_fixed; d && c < p->n_cols; c++) {
		PyObject *k = ext_text(p->cols[c].name, strlen(p->cols[c].name));
		PyObject *v = cells[c] ? plan_cell(&p->cols[c], cells[c]) : Py_NewRef(Py_None);
		if (!k || !v || PyDict_SetItem(d, k, v))
			Py_CLEAR(d);
		Py_XDECREF(k);
		Py_XDECREF(v);
	}
	free(cells);
	return d;
}

static PyObject *get_fields(PyObject *self, void *closure)
{
	Event *ev = (Event *)self;

	(void)closure;
	if (!ev->fields && !(ev->fields = make_fields(ev)))
		return NULL;
	return Py_NewRef(ev->fields);
}

static PyObject *get_name(PyObject *self, void *closure)
{
	Event *ev = (Event *)self;

	(void)closure;
	return Py_NewRef(ev->reader->classes[ev->class_index].name);
}

static PyObject *get_ts(PyObject *self, void *closure)
{
	Event *ev = (Event *)self;

	(void)closure;
	return ev->has_ts ? PyLong_FromLongLong(ev->ns) : Py_NewRef(Py_None);
}

static PyObject *get_cycles(PyObject *self, void *closure)
{
	Event *ev = (Event *)self;

	(void)closure;
	return ev->has_ts ? PyLong_FromUnsignedLongLong(ev->cycles) : Py_NewRef(Py_None);
}

static PyObject *get_cpu(PyObject *self, void *closure)
{
	Event *ev = (Event *)self;

	(void)closure;
	return ev->has_cpu ? PyLong_FromUnsignedLongLong(ev->cpu) : Py_NewRef(Py_None);
}

static PyObject *get_stream_id(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLongLong(((Event *)self)->stream->id);
}

static PyObject *get_stream_class_id(PyObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLongLong(((Event *)self)->stream->cls->id);
}

static PyObject *get_trace(PyObject *self, void *closure)
{
	const struct tmx_trace *t = ((Event *)self)->stream->trace;

	(void)closure;
	return ext_text(t && t->name ? t->name : "", t && t->name ? strlen(t->name) : 0);
}

static PyObject *get_class_index(PyObject *self, void *closure)
{
	Event *ev = (Event *)self;
	size_t dense = ev->reader->classes[ev->class_index].dense;

	(void)closure;
	return dense == SIZE_MAX ? Py_NewRef(Py_None) : PyLong_FromSize_t(dense);
}

/* ev["path"]: a field by path (payload, then specific, common and packet context). */
static PyObject *event_subscript(PyObject *self, PyObject *key)
{
	Event *ev = (Event *)self;
	struct tmx_event e = { .cls = ev->reader->classes[ev->class_index].ec };
	const struct tmx_value *v;
	const char *path;
	size_t next;

	if (!PyUnicode_Check(key)) {
		PyErr_SetString(PyExc_TypeError, "a field path is a str");
		return NULL;
	}
	if (!(path = PyUnicode_AsUTF8(key)))
		return NULL;
	memcpy(e.scopes, ev->scopes, sizeof(e.scopes));
	v = tmx_event_field(&e, path);
	if (!v) {
		PyErr_SetObject(PyExc_KeyError, key);
		return NULL;
	}
	return ext_value(v, 0, &next);
}

static PyObject *event_repr(PyObject *self)
{
	Event *ev = (Event *)self;
	PyObject *name = ev->reader->classes[ev->class_index].name;

	if (ev->has_ts)
		return PyUnicode_FromFormat("<tracemux.Event %R ts=%lld>", name, (long long)ev->ns);
	return PyUnicode_FromFormat("<tracemux.Event %R>", name);
}

static PyGetSetDef event_getset[] = {
	{ "name", get_name, NULL, "the event class's name (None when it has none)", NULL },
	{ "ts", get_ts, NULL, "time in ns from the clock's origin (None without a clock)", NULL },
	{ "cycles", get_cycles, NULL, "the clock value in cycles (None without a clock)", NULL },
	{ "cpu", get_cpu, NULL, "the CPU the event was recorded on (tmx_event_cpu), else None", NULL },
	{ "stream_id", get_stream_id, NULL, "the stream's id", NULL },
	{ "stream_class_id", get_stream_class_id, NULL, "the stream class's id", NULL },
	{ "trace", get_trace, NULL, "the trace's name", NULL },
	{ "class_index", get_class_index, NULL, "the index of its class in Trace.event_classes", NULL },
	{ "fields", get_fields, NULL, "{column: value}: the field columns of to_pandas()", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyMappingMethods event_mapping = { .mp_subscript = event_subscript };

PyTypeObject EventType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tracemux.Event",
	.tp_doc = "One event: name, ts, cpu, ev[\"field.path\"], fields (decoded when asked for).",
	.tp_basicsize = sizeof(Event),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_dealloc = event_dealloc,
	.tp_repr = event_repr,
	.tp_getset = event_getset,
	.tp_as_mapping = &event_mapping,
};
