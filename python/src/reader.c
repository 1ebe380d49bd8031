/*
 * Reader: one tmx_source opened with tmx_open(), read once from the start
 * (a source cannot go back: tracemux.Trace opens a Reader per read).  Its
 * metadata (classes, streams, traces, clocks, environment), the events
 * one at a time (next) or every selected one into tables (read).
 *
 * Selection: the library's event filter (class globs and an expression,
 * tmx_source_set_filter, set once before reading with select()), and an
 * optional [begin, end] time range in ns.
 */
#include <string.h>

#include <tracemux/run.h>
#include <tracemux/sink.h>

#include "ext.h"

/* Warnings come while the GIL is given up too (Reader.read's loop): it is taken for them. */
static void on_warning(void *user, const char *msg)
{
	Reader *r = user;
	PyGILState_STATE gil = PyGILState_Ensure();
	PyObject *s = ext_text(msg, strlen(msg));

	if (!s || PyList_Append(r->warnings, s))
		PyErr_Clear();   /* a warning lost, nothing else */
	Py_XDECREF(s);
	PyGILState_Release(gil);
}

/* The library's warnings since the last call, as Python warnings; -1 if one raised. */
int reader_flush_warnings(Reader *r)
{
	Py_ssize_t n = PyList_GET_SIZE(r->warnings);
	int ret = 0;

	for (Py_ssize_t i = 0; i < n && !ret; i++)
		ret = PyErr_WarnEx(ext_warning_class, PyUnicode_AsUTF8(PyList_GET_ITEM(r->warnings, i)),
				   1);
	PyList_SetSlice(r->warnings, 0, n, NULL);
	return ret;
}

static void reader_clear_classes(Reader *r)
{
	for (size_t i = 0; r->classes && i < r->n_classes; i++) {
		Py_XDECREF(r->classes[i].name);
		plan_free(r->classes[i].plan);
	}
	free(r->classes);
	r->classes = NULL;
	r->n_classes = r->n_dense = r->cap_classes = 0;
}

static void reader_dealloc(PyObject *self)
{
	Reader *r = (Reader *)self;

	reader_clear_classes(r);
	if (r->src)
		tmx_source_free(r->src);
	tmx_filter_free(r->filter);   /* after the source, which reads it */
	Py_XDECREF(r->warnings);
	Py_XDECREF(r->instr_map);
	Py_TYPE(self)->tp_free(self);
}

/* Appends `ec` to r->classes: its index, or SIZE_MAX with an exception set. */
static size_t add_class(Reader *r, const struct tmx_event_class *ec, size_t dense)
{
	struct ext_class *c;

	if (r->n_classes == r->cap_classes) {
		size_t cap = r->cap_classes ? 2 * r->cap_classes : 64;
		struct ext_class *n = realloc(r->classes, cap * sizeof(*n));
		if (!n)
			goto nomem;
		r->classes = n;
		r->cap_classes = cap;
	}
	c = &r->classes[r->n_classes];
	*c = (struct ext_class){ .ec = ec, .dense = dense == SIZE_MAX && r->n_classes < r->n_dense
							  ? r->n_classes : dense };
	c->name = ec->name ? ext_text(ec->name, strlen(ec->name)) : Py_NewRef(Py_None);
	if (!c->name)
		return SIZE_MAX;
	return r->n_classes++;
nomem:
	PyErr_NoMemory();
	return SIZE_MAX;
}

static int load_classes(Reader *r)
{
	size_t n = tmx_source_event_class_count(r->src);

	r->n_dense = n;
	for (size_t i = 0; i < n; i++)
		if (add_class(r, tmx_source_event_class(r->src, i), SIZE_MAX) == SIZE_MAX)
			return -1;
	return 0;
}

/*
 * The index of a class met already, SIZE_MAX for another one (no Python: no GIL needed).
 * The source's dense number is the index (load_classes added them in that order); only a
 * class the source does not number (none of its streams' classes, or its index could not
 * be made for want of memory) is looked for among the few added after them.  Reader.read's
 * emit_row remembers the classes met lately in front of it.
 */
static size_t reader_class_known(Reader *r, const struct tmx_event_class *ec)
{
	size_t i = tmx_source_event_class_index(r->src, ec);

	if (i < r->n_dense)
		return i;
	for (i = r->n_dense; i < r->n_classes && r->classes[i].ec != ec; i++)
		;
	return i < r->n_classes ? i : SIZE_MAX;
}

/* The index of `ec` in r->classes, added at its first event (SIZE_MAX: an exception). */
size_t reader_class(Reader *r, const struct tmx_event_class *ec)
{
	size_t i = reader_class_known(r, ec);

	return i != SIZE_MAX ? i : add_class(r, ec, tmx_source_event_class_index(r->src, ec));
}

/* Reader(paths, instr_map=None, symbolize=False, lenient=False) */
static int reader_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "paths", "instr_map", "symbolize", "lenient", NULL };
	Reader *r = (Reader *)self;
	PyObject *paths, *seq = NULL, *instr_map = NULL, **items;
	PyObject *encoded[64], **enc = encoded;
	const char *small[64], **cpaths = small;
	struct tmx_open_opts opts = TMX_OPEN_OPTS_INIT;
	struct tmx_error err;
	int symbolize = 0, lenient = 0, ret = -1;
	Py_ssize_t n = 0, done = 0;

	if (r->src || r->warnings) {
		PyErr_SetString(PyExc_RuntimeError, "Reader is already open");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&pp", names, &paths, PyUnicode_FSConverter,
					 &instr_map, &symbolize, &lenient))
		return -1;
	if (!(r->warnings = PyList_New(0)) || !(seq = PySequence_Fast(paths, "paths: a sequence")))
		goto out;
	n = PySequence_Fast_GET_SIZE(seq);
	items = PySequence_Fast_ITEMS(seq);
	if (n > 64 && (!(enc = PyMem_Calloc((size_t)n, sizeof(*enc))) ||
		       !(cpaths = PyMem_Calloc((size_t)n, sizeof(*cpaths))))) {
		PyErr_NoMemory();
		goto out;
	}
	for (; done < n; done++) {
		if (!PyUnicode_FSConverter(items[done], &enc[done]))
			goto out;
		cpaths[done] = PyBytes_AS_STRING(enc[done]);
	}
	opts.xray.instr_map = instr_map ? PyBytes_AS_STRING(instr_map) : NULL;
	opts.xray.symbolize = symbolize;
	opts.ctf.lenient = opts.tracedat.lenient = opts.xray.lenient = lenient;
	r->diag = (struct tmx_diag){ on_warning, r };
	if (tmx_open(cpaths, (size_t)n, &opts, &r->diag, &r->src, &err)) {
		r->src = NULL;
		reader_flush_warnings(r);
		ext_raise(&err);
		goto out;
	}
	ret = load_classes(r) || reader_flush_warnings(r) ? -1 : 0;
out:
	while (done > 0)
		Py_DECREF(enc[--done]);
	if (enc != encoded)
		PyMem_Free(enc);
	if (cpaths != small)
		PyMem_Free(cpaths);
	Py_XDECREF(seq);
	r->instr_map = instr_map;
	return ret;
}

bool reader_check_open(Reader *r)
{
	if (!r->src)
		PyErr_SetString(PyExc_ValueError, "the Reader is not open");
	else if (r->busy)   /* read() has given up the GIL: another thread came in */
		PyErr_SetString(PyExc_RuntimeError, "the Reader is being read by another thread");
	return r->src != NULL && !r->busy;
}

struct plan *reader_plan(Reader *r, size_t i)
{
	if (!r->classes[i].plan && !(r->classes[i].plan = plan_new(r->classes[i].ec)))
		PyErr_NoMemory();
	return r->classes[i].plan;
}

/* ---- metadata ---- */

static PyObject *text_or_none(const char *s)
{
	return s ? ext_text(s, strlen(s)) : Py_NewRef(Py_None);
}

static PyObject *uuid_or_none(bool has, const uint8_t *uuid)
{
	return has ? PyBytes_FromStringAndSize((const char *)uuid, 16) : Py_NewRef(Py_None);
}

/* [(name, id, stream_class_id, log_level or None), ...] by dense class number. */
static PyObject *reader_event_classes(PyObject *self, PyObject *unused)
{
	Reader *r = (Reader *)self;
	PyObject *list;

	(void)unused;
	if (!reader_check_open(r) || !(list = PyList_New((Py_ssize_t)r->n_dense)))
		return NULL;
	for (size_t i = 0; i < r->n_dense; i++) {
		const struct tmx_event_class *ec = r->classes[i].ec;
		PyObject *level = ec->log_level == TMX_LOG_LEVEL_NONE ? Py_NewRef(Py_None)
								      : PyLong_FromLong(ec->log_level);
		PyObject *t = Py_BuildValue("(OKKN)", r->classes[i].name, (unsigned long long)ec->id,
					    (unsigned long long)ec->stream_class->id, level);
		if (!t) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, t);
	}
	return list;
}

static PyObject *stream_dict(const struct tmx_stream_info *si)
{
	const struct tmx_stream *s = si->stream;

	return Py_BuildValue("{s:K,s:N,s:K,s:N,s:N,s:N,s:K,s:K,s:n}", "id", (unsigned long long)s->id,
			     "name", text_or_none(s->name), "class_id", (unsigned long long)s->cls->id,
			     "trace", text_or_none(s->trace ? s->trace->name : NULL),
			     "begin_ns", si->has_range ? PyLong_FromLongLong(si->begin_ns) : Py_NewRef(Py_None),
			     "end_ns", si->has_range ? PyLong_FromLongLong(si->end_ns) : Py_NewRef(Py_None),
			     "packets", (unsigned long long)si->n_packets, "bytes",
			     (unsigned long long)si->bytes, "files", (Py_ssize_t)si->n_files);
}

static PyObject *reader_streams(PyObject *self, PyObject *unused)
{
	Reader *r = (Reader *)self;
	size_t n;
	PyObject *list;

	(void)unused;
	if (!reader_check_open(r))
		return NULL;
	n = tmx_source_stream_count(r->src);
	if (!(list = PyList_New((Py_ssize_t)n)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct tmx_stream_info si;
		PyObject *d;

		tmx_source_stream_info(r->src, i, &si);
		if (!(d = stream_dict(&si))) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
	return list;
}

static PyObject *clock_dict(const struct tmx_clock_class *cc)
{
	return Py_BuildValue("{s:N,s:N,s:K,s:L,s:K,s:K,s:N,s:O}", "name", text_or_none(cc->name),
			     "description", text_or_none(cc->description), "frequency",
			     (unsigned long long)cc->frequency, "offset_s", (long long)cc->offset_s,
			     "offset_cycles", (unsigned long long)cc->offset_cycles, "precision",
			     (unsigned long long)cc->precision, "uuid",
			     uuid_or_none(cc->has_uuid, cc->uuid), "origin_is_unix_epoch",
			     cc->origin_is_unix_epoch ? Py_True : Py_False);
}

static PyObject *env_dict(const struct tmx_trace_class *tc)
{
	PyObject *d = PyDict_New();

	for (size_t i = 0; d && i < tc->n_env; i++) {
		const struct tmx_env_entry *e = &tc->env[i];
		PyObject *v = e->is_int ? PyLong_FromLongLong(e->int_value) : text_or_none(e->str_value);
		PyObject *k = text_or_none(e->name);
		if (!v || !k || PyDict_SetItem(d, k, v))
			Py_CLEAR(d);
		Py_XDECREF(v);
		Py_XDECREF(k);
	}
	return d;
}

static PyObject *clock_list(const struct tmx_trace_class *tc)
{
	PyObject *list = PyList_New((Py_ssize_t)tc->n_clocks);

	for (size_t i = 0; list && i < tc->n_clocks; i++) {
		PyObject *c = clock_dict(tc->clocks[i]);
		if (!c)
			Py_CLEAR(list);
		else
			PyList_SET_ITEM(list, (Py_ssize_t)i, c);
	}
	return list;
}

static const char *format_name(uint8_t format)
{
	switch (format) {
	case TMX_FORMAT_CTF:
		return "ctf";
	case TMX_FORMAT_TRACEDAT:
		return "trace.dat";
	default:
		return "xray";
	}
}

/* The logical traces: [{name, format, version, uuid, environment, clocks}, ...] */
static PyObject *reader_traces(PyObject *self, PyObject *unused)
{
	Reader *r = (Reader *)self;
	size_t n;
	PyObject *list;

	(void)unused;
	if (!reader_check_open(r))
		return NULL;
	n = tmx_source_logical_trace_count(r->src);
	if (!(list = PyList_New((Py_ssize_t)n)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct tmx_trace *t = tmx_source_logical_trace(r->src, i);
		const struct tmx_trace_class *tc = t->cls;
		PyObject *d = Py_BuildValue("{s:N,s:s,s:(II),s:N,s:N,s:N}", "name", text_or_none(t->name),
					    "format", format_name(tc->format), "version", tc->major,
					    tc->minor, "uuid", uuid_or_none(tc->has_uuid, tc->uuid),
					    "environment", env_dict(tc), "clocks", clock_list(tc));
		if (!d) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
	return list;
}

/* ---- reading ---- */

struct selection {
	bool has_begin, has_end;
	int64_t begin, end;
};

/* select(globs, expr): the library's filter (globs: a list of str or None, expr: str or None). */
static PyObject *reader_select(PyObject *self, PyObject *args)
{
	Reader *r = (Reader *)self;
	PyObject *globs, *expr, *seq = NULL;
	const char *small[16], **g = small, *text = NULL;
	struct tmx_filter *f = NULL;
	struct tmx_error err;
	Py_ssize_t n = 0;
	int ret;

	if (!reader_check_open(r) || !PyArg_ParseTuple(args, "OO", &globs, &expr))
		return NULL;
	if (r->filter) {
		PyErr_SetString(PyExc_RuntimeError, "the Reader has its selection already");
		return NULL;
	}
	if (globs != Py_None) {
		if (!(seq = PySequence_Fast(globs, "globs: a list of str")))
			return NULL;
		n = PySequence_Fast_GET_SIZE(seq);
		if (n > 16 && !(g = PyMem_Calloc((size_t)n, sizeof(*g)))) {
			Py_DECREF(seq);
			return PyErr_NoMemory();
		}
		for (Py_ssize_t i = 0; i < n; i++)
			if (!(g[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i))))
				goto out;
	}
	if (expr != Py_None && !(text = PyUnicode_AsUTF8(expr)))
		goto out;
	ret = tmx_filter_new(globs != Py_None ? g : NULL, (size_t)n, text, &f, &err);
	if (!ret && (ret = tmx_source_set_filter(r->src, f, &err)))
		tmx_filter_free(f);
	if (ret)
		ext_raise(&err);
	else
		r->filter = f;
out:
	if (g != small)
		PyMem_Free(g);
	Py_XDECREF(seq);
	if (PyErr_Occurred())
		return NULL;
	Py_RETURN_NONE;
}

static int parse_selection(Reader *r, PyObject *begin, PyObject *end, struct selection *sel)
{
	*sel = (struct selection){ 0 };
	if (begin != Py_None) {
		sel->has_begin = true;
		sel->begin = PyLong_AsLongLong(begin);
	}
	if (end != Py_None) {
		sel->has_end = true;
		sel->end = PyLong_AsLongLong(end);
	}
	if (PyErr_Occurred())
		return -1;
	/* Packets that end before `begin` are skipped without being decoded. */
	if (sel->has_begin && !r->skipped) {
		tmx_source_skip_before(r->src, sel->begin);
		r->skipped = true;
	}
	return 0;
}

/* Whether a message is a selected event (keep() of tmx_run; Reader.next); *stop: past `end`. */
static bool keep_selected(void *user, const struct tmx_msg *m, bool *stop)
{
	const struct selection *sel = user;

	if (m->kind != TMX_MSG_EVENT)
		return false;
	if (!sel->has_begin && !sel->has_end)
		return true;
	if (!m->has_ts)
		return false;
	if (sel->has_end && m->ns > sel->end) {   /* the muxer gives events in time order */
		*stop = true;
		return false;
	}
	return !sel->has_begin || m->ns >= sel->begin;
}

/*
 * The next selected event: TMX_OK with *msg NULL at the end (or past the
 * time range), an error code with `err` filled, or -1 with a Python
 * exception set (an interrupt).
 */
static int next_selected(Reader *r, const struct selection *sel, const struct tmx_msg **msg,
			 size_t *ci, struct tmx_error *err)
{
	int ret;

	*msg = NULL;
	while (!r->done) {
		const struct tmx_msg *m;
		bool stop = false, keep;

		if (!(++r->ticks & 0xffff) && PyErr_CheckSignals())
			return -1;
		if ((ret = tmx_source_next(r->src, &m, err)) != TMX_OK) {
			r->done = true;
			return ret;
		}
		keep = m && keep_selected((void *)sel, m, &stop);
		if (!m || stop) {
			r->done = true;
			break;
		}
		if (!keep)
			continue;
		if ((*ci = reader_class(r, m->event->cls)) == SIZE_MAX)
			return -1;
		*msg = m;
		return TMX_OK;
	}
	return TMX_OK;
}

/* next(begin, end) -> Event or None */
static PyObject *reader_next(PyObject *self, PyObject *args)
{
	Reader *r = (Reader *)self;
	PyObject *begin, *end, *ev = NULL;
	struct selection sel;
	const struct tmx_msg *msg;
	struct tmx_error err;
	size_t ci;
	int ret;

	if (!reader_check_open(r) || !PyArg_ParseTuple(args, "OO", &begin, &end) ||
	    parse_selection(r, begin, end, &sel))
		return NULL;
	ret = next_selected(r, &sel, &msg, &ci, &err);
	if (reader_flush_warnings(r) || ret == -1)
		return NULL;
	if (ret != TMX_OK)
		return ext_raise(&err);
	if (!msg)
		Py_RETURN_NONE;
	ev = event_new(r, ci, msg);
	return ev;
}

/* An event whose scopes are not its class's: a data error, as the Parquet output reports it. */
static void scope_mismatch(const struct tmx_msg *msg, const struct tmx_event_class *ec,
			   uint8_t scope, struct tmx_error *err)
{
	memset(err, 0, sizeof(*err));
	err->code = TMX_ERR_DATA;
	snprintf(err->file, sizeof(err->file), "%s", msg->stream->name ? msg->stream->name : "");
	snprintf(err->msg, sizeof(err->msg), "event of class `%s`: its %s does not have the class's fields",
		 ec->name ? ec->name : "",
		 scope == REC_NO_SCOPE ? "fields" : tmx_scope_name((enum tmx_scope)scope));
}

struct tables {
	struct table **by_class;   /* by index in r->classes; NULL: none (yet) */
	size_t n;
};

static void tables_free(struct tables *ts)
{
	for (size_t i = 0; ts->by_class && i < ts->n; i++)
		table_free(ts->by_class[i]);
	free(ts->by_class);
}

/* The table of class ci, made when missing (NULL with an exception set). */
static struct table *table_of(Reader *r, struct tables *ts, size_t ci)
{
	struct plan *p;

	if (ci < ts->n && ts->by_class[ci])
		return ts->by_class[ci];
	if (!(p = reader_plan(r, ci)))
		return NULL;
	if (ci >= ts->n) {
		struct table **n = realloc(ts->by_class, r->n_classes * sizeof(*n));
		if (!n)
			return PyErr_NoMemory(), NULL;
		memset(n + ts->n, 0, (r->n_classes - ts->n) * sizeof(*n));
		ts->by_class = n;
		ts->n = r->n_classes;
	}
	if (!(ts->by_class[ci] = table_new(ci, p)))
		PyErr_NoMemory();
	return ts->by_class[ci];
}

/*
 * A table for every class the selection keeps, made before reading so
 * that empty ones are there too.
 */
static int tables_init(Reader *r, struct tables *ts)
{
	*ts = (struct tables){ 0 };
	for (size_t i = 0; i < r->n_dense; i++)
		if (tmx_source_event_class_selected(r->src, i) && !table_of(r, ts, i))
			return -1;
	return 0;
}

/* [{"name": class name, ...table_export()}, ...] */
static PyObject *tables_export(Reader *r, struct tables *ts)
{
	PyObject *list = PyList_New(0);

	for (size_t i = 0; list && i < ts->n; i++) {
		PyObject *t;
		if (!ts->by_class[i])
			continue;
		t = table_export(ts->by_class[i], r->classes[i].plan);
		if (!t || PyDict_SetItemString(t, "name", r->classes[i].name) || PyList_Append(list, t))
			Py_CLEAR(list);
		Py_XDECREF(t);
	}
	return list;
}

/* Reader.read's run: the custom sink's user (emit_row's). */
struct reading {
	Reader *r;
	struct tables ts;
	PyThreadState *nogil;      /* the GIL given up: taken back for what needs Python */
	uint64_t seq;              /* events added */
	bool failed;               /* a Python exception is set (interrupt, no memory) */
	/* The tables of classes met lately, by their address's hash */
	struct { const struct tmx_event_class *ec; struct table *t; const struct plan *p; } memo[16];
};

/* Ends the run on a Python exception (set, or set here by `nomem`). */
static int emit_failed(struct reading *rd, bool nomem, struct tmx_error *err)
{
	if (nomem) {
		PyEval_RestoreThread(rd->nogil);
		PyErr_NoMemory();
		rd->nogil = PyEval_SaveThread();
	}
	rd->failed = true;
	memset(err, 0, sizeof(*err));
	err->code = TMX_ERR_NOMEM;
	snprintf(err->msg, sizeof(err->msg), "Python exception");
	return err->code;
}

/*
 * A selected event's record (record_format's) into its class's table, in
 * the read's order, without the GIL.  It is taken back for what needs
 * Python: a class met for the first time, signals every 64K events.
 * Cheap: the only part of the read that does not run on every core.
 */
static int emit_row(void *user, const struct tmx_msg *msg, const void *rec, size_t len,
		    struct tmx_error *err)
{
	struct reading *rd = user;
	Reader *r = rd->r;
	const struct tmx_event_class *ec;
	struct rec_head h;
	struct table *t;
	size_t ci, slot;
	int ret;

	if (len < sizeof(h))
		return TMX_OK;   /* not an event: keep_selected passes none */
	if (!(++r->ticks & 0xffff)) {
		PyEval_RestoreThread(rd->nogil);
		ret = PyErr_CheckSignals();
		rd->nogil = PyEval_SaveThread();
		if (ret)
			return emit_failed(rd, false, err);
	}
	memcpy(&h, rec, sizeof(h));
	ec = (const struct tmx_event_class *)(uintptr_t)h.ec;
	slot = (size_t)(((uintptr_t)ec * 0x9E3779B97F4A7C15ull) >> 60);   /* 16 = 2^4 */
	if (rd->memo[slot].ec != ec) {
		if ((ci = reader_class_known(r, ec)) == SIZE_MAX ||
		    !(t = ci < rd->ts.n ? rd->ts.by_class[ci] : NULL)) {
			/* A class or a table not met yet: its Python name, its plan are made with the GIL. */
			PyEval_RestoreThread(rd->nogil);
			if (ci == SIZE_MAX)
				ci = reader_class(r, ec);
			t = ci != SIZE_MAX ? table_of(r, &rd->ts, ci) : NULL;
			rd->nogil = PyEval_SaveThread();
			if (!t)
				return emit_failed(rd, false, err);
		}
		rd->memo[slot].ec = ec;
		rd->memo[slot].t = t;
		rd->memo[slot].p = r->classes[ci].plan;
	}
	if (h.status == REC_MISMATCH) {
		scope_mismatch(msg, ec, h.scope, err);
		return TMX_ERR_DATA;
	}
	if (h.status != REC_OK ||
	    table_append(rd->memo[slot].t, rd->memo[slot].p, msg, rec, rd->seq) != TABLE_OK)
		return emit_failed(rd, true, err);
	rd->seq++;
	return TMX_OK;
}

/* Every selected event into the tables, on `jobs` threads (the GIL given up). */
static int read_tables(Reader *r, struct reading *rd, struct selection *sel, unsigned jobs,
		       struct tmx_error *err)
{
	struct tmx_custom_sink def = TMX_CUSTOM_SINK_INIT;
	struct tmx_run_opts opts = TMX_RUN_OPTS_INIT;
	struct tmx_sink *sink;
	int ret;

	def.user = rd;
	def.worker_new = record_worker_new;
	def.worker_free = record_worker_free;
	def.format = record_format;
	def.emit = emit_row;
	opts.jobs = jobs;
	opts.keep = keep_selected;
	opts.keep_user = sel;
	if ((ret = tmx_sink_custom(&def, &sink, err)))
		return ret;
	r->busy = true;
	rd->nogil = PyEval_SaveThread();
	ret = tmx_run(r->src, sink, &opts, err);
	tmx_sink_free(sink);   /* the formatters too */
	PyEval_RestoreThread(rd->nogil);
	r->busy = false;
	r->done = true;
	return ret;
}

/*
 * read(begin, end, jobs) -> (tables, error): every selected event into a
 * table per class, decoded on `jobs` threads (0: every CPU); `error` is
 * the tracemux.Error that stopped the read (not raised: the tables hold
 * what came before it), or None.
 */
static PyObject *reader_read(PyObject *self, PyObject *args)
{
	Reader *r = (Reader *)self;
	PyObject *begin, *end, *list, *error = NULL;
	struct selection sel;
	struct reading rd = { .r = r };
	struct tmx_error err;
	unsigned jobs;
	int ret = TMX_OK;

	if (!reader_check_open(r) || !PyArg_ParseTuple(args, "OOI", &begin, &end, &jobs) ||
	    parse_selection(r, begin, end, &sel))
		return NULL;
	if (tables_init(r, &rd.ts))
		goto fail;
	if (!r->done)   /* a source read to its end (or its error) has no more */
		ret = read_tables(r, &rd, &sel, jobs, &err);
	if (rd.failed)
		goto fail;
	if (reader_flush_warnings(r) || (ret != TMX_OK && !(error = ext_error_object(&err))))
		goto fail;
	list = tables_export(r, &rd.ts);
	tables_free(&rd.ts);
	if (!list) {
		Py_XDECREF(error);
		return NULL;
	}
	return Py_BuildValue("(NN)", list, error ? error : Py_NewRef(Py_None));
fail:
	tables_free(&rd.ts);
	return NULL;
}

static PyMethodDef reader_methods[] = {
	{ "event_classes", reader_event_classes, METH_NOARGS,
	  "[(name, id, stream_class_id, log_level), ...] by dense class number" },
	{ "streams", reader_streams, METH_NOARGS, "a dict per stream" },
	{ "traces", reader_traces, METH_NOARGS, "a dict per logical trace" },
	{ "select", reader_select, METH_VARARGS,
	  "select(globs, expr): the library's event filter, before reading" },
	{ "next", reader_next, METH_VARARGS, "next(begin, end) -> Event or None" },
	{ "read", reader_read, METH_VARARGS,
	  "read(begin, end, jobs) -> (tables, error or None): jobs 0: every CPU" },
	{ "run", reader_run, METH_VARARGS,
	  "run(sink, params, jobs): every message into one of the library's sinks -> error or None" },
	{ "columns", reader_columns, METH_O,
	  "columns(class) -> [(name, dtype, nullable)]: the class's table columns, no event read" },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject ReaderType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "tracemux._tracemux.Reader",
	.tp_doc = "Reader(paths, instr_map=None, symbolize=False, lenient=False): one opened source.",
	.tp_basicsize = sizeof(Reader),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_new = PyType_GenericNew,
	.tp_init = reader_init,
	.tp_dealloc = reader_dealloc,
	.tp_methods = reader_methods,
};
