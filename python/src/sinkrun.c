/*
 * Reader.run: the Reader's source into one of the library's sinks
 * (tracemux/sink.h) through tmx_run, as the command line converts
 * (tracemux.dask.to_parquet runs it on each worker); Reader.columns: an
 * event class's columns (what Reader.read would make of it) without
 * reading an event, for the meta of a dask DataFrame.
 */
#include <string.h>

#include <tracemux/run.h>
#include <tracemux/sink.h>

#include "ext.h"

/* The (key, value or None) pairs of `params` set on `p`; -1 with an exception set. */
static int set_params(struct tmx_sink_params *p, PyObject *params)
{
	PyObject *seq = PySequence_Fast(params, "params: a sequence of (key, value) pairs");
	struct tmx_error err;
	int ret = 0;

	if (!seq)
		return -1;
	for (Py_ssize_t i = 0; !ret && i < PySequence_Fast_GET_SIZE(seq); i++) {
		const char *key, *value = NULL;
		PyObject *v;

		if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "sO", &key, &v) ||
		    (v != Py_None && !(value = PyUnicode_AsUTF8(v))))
			ret = -1;
		else if (tmx_sink_params_set(p, key, value, &err))
			ret = -1, ext_raise(&err);
	}
	Py_DECREF(seq);
	return ret;
}

/*
 * run(sink, params, jobs) -> error or None: every message of the source
 * into the sink `sink` with `params` ([(key, value or None)...]) on
 * `jobs` threads (0: every CPU), without the GIL.  A usage error (a bad
 * sink name or parameter) is raised; an error of the data is returned, not
 * raised, since what came before it was written (the sink is finished
 * after an error too, as the command line does).
 */
PyObject *reader_run(PyObject *self, PyObject *args)
{
	Reader *r = (Reader *)self;
	struct tmx_run_opts opts = TMX_RUN_OPTS_INIT;
	struct tmx_sink_params *p;
	struct tmx_sink *sink = NULL;
	struct tmx_error err;
	const char *name;
	PyObject *params;
	PyThreadState *nogil;
	unsigned jobs;
	int ret;

	if (!reader_check_open(r) || !PyArg_ParseTuple(args, "sOI", &name, &params, &jobs))
		return NULL;
	if (r->done) {
		PyErr_SetString(PyExc_ValueError, "the Reader was read already: open another one");
		return NULL;
	}
	if (!(p = tmx_sink_params_new(name, &err)))
		return ext_raise(&err);
	if (set_params(p, params)) {
		tmx_sink_params_free(p);
		return NULL;
	}
	ret = tmx_sink_open(p, r->src, &(struct tmx_sink_io){ .out_fd = 1, .err_fd = 2, .diag = &r->diag },
			    &sink, &err);
	tmx_sink_params_free(p);
	if (ret) {
		reader_flush_warnings(r);
		return ext_raise(&err);
	}
	opts.jobs = jobs;
	r->busy = r->done = true;
	nogil = PyEval_SaveThread();
	ret = tmx_run(r->src, sink, &opts, &err);
	tmx_sink_free(sink);
	PyEval_RestoreThread(nogil);
	r->busy = false;
	if (reader_flush_warnings(r))
		return NULL;
	return ret ? ext_error_object(&err) : Py_NewRef(Py_None);
}

/*
 * columns(class) -> [(name, dtype, nullable)]: the columns Reader.read
 * makes for class number `class` (Trace.event_classes' index), with
 * `nullable` true where a row can have no value: a field inside a variant
 * or an optional, ts and cycles of a class without a clock, cpu of a class
 * without a CPU field, host (a trace without a hostname).
 */
PyObject *reader_columns(PyObject *self, PyObject *arg)
{
	Reader *r = (Reader *)self;
	const struct tmx_event_class *ec;
	const struct plan *p;
	Py_ssize_t i = PyNumber_AsSsize_t(arg, PyExc_IndexError);
	PyObject *list;

	if ((i == -1 && PyErr_Occurred()) || !reader_check_open(r))
		return NULL;
	if (i < 0 || (size_t)i >= r->n_dense) {
		PyErr_SetString(PyExc_IndexError, "no event class of that number");
		return NULL;
	}
	if (!(p = reader_plan(r, (size_t)i)) || !(list = PyList_New((Py_ssize_t)p->n_cols)))
		return NULL;
	ec = r->classes[i].ec;
	for (size_t c = 0; c < p->n_cols; c++) {
		const struct column *col = &p->cols[c];
		bool nullable = col->nullable;
		PyObject *t;

		if ((int)c == p->fixed[FIX_TS] || (int)c == p->fixed[FIX_CYCLES])
			nullable = !ec->stream_class->default_clock;
		else if ((int)c == p->fixed[FIX_CPU])
			nullable = !p->cpu_field;
		else if ((int)c == p->fixed[FIX_HOST])
			nullable = true;
		t = Py_BuildValue("(NsO)", ext_text(col->name, strlen(col->name)), table_dtype(col->kind),
				  nullable ? Py_True : Py_False);
		if (!t) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)c, t);
	}
	return list;
}
