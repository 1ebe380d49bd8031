/*
 * trace-cmd's function_graph rendering: see funcgraph.h.
 *
 * The handlers read their fields with libtraceevent (tep_get_field_val()
 * and friends, with the error text they write into the line when a field
 * is missing), as libtracecmd does, so that odd formats print the same.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "common/grow.h"
#include "tools/tracecmd/funcgraph.h"
#include "common/errors.h"

#define INDENT_PER_LEVEL 2   /* trace-cmd's TRACE_GRAPH_INDENT */

/* A record copied out of its page: reading the cursor again may overwrite the page. */
struct rec_copy {
	struct tdat_record rec;
	uint8_t *buf;
	size_t cap;
};

/* What the handlers of one file's libtraceevent handle share. */
struct tfg_file {
	struct tfg *g;
	bool looked;                /* funcgraph_exit looked up */
	struct tep_event *exit_ev;  /* NULL: the file has no funcgraph_exit format */
	size_t exit_span;           /* bytes its fields span */
};

struct tfg {
	struct tfg_file **files;
	size_t n_files, cap_files;
	/* Between tfg_before_print() and tfg_after_print() of a funcgraph entry: */
	const struct tfg_handle *h;
	size_t at;                  /* the printed record's cursor */
	uint64_t at_time;           /* and its time */
	struct rec_copy entry, next;
	bool failed;
	struct tmx_error err;
	/* -O: trace-ftrace.c's fgraph options, global to all files as in trace-cmd */
	const char *const *opts;
	size_t n_opts;
	bool tailprint, depth;
	/* The last record's event format and whether it is ftrace:funcgraph_entry (per record, no strcmp). */
	const struct tdat_event *last_ev;
	bool last_is_entry;
};

struct tfg *tfg_new(void)
{
	return calloc(1, sizeof(struct tfg));
}

void tfg_free(struct tfg *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n_files; i++)
		free(g->files[i]);
	free(g->files);
	free(g->entry.buf);
	free(g->next.buf);
	free(g);
}

/* ------------------------------------------------------------------ */
/* Records                                                              */
/* ------------------------------------------------------------------ */

/* Bytes the fields of a libtraceevent format span. */
static size_t tep_span(const struct tep_event *ev)
{
	const struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };
	size_t end = 0;

	for (int k = 0; k < 2; k++)
		for (const struct tep_format_field *fl = lists[k]; fl; fl = fl->next)
			if (fl->offset >= 0 && fl->size >= 0 && (size_t)(fl->offset + fl->size) > end)
				end = (size_t)(fl->offset + fl->size);
	return end;
}

/* Bytes the fields of a trace.dat format span. */
static size_t tdat_span(const struct tdat_event *ev)
{
	size_t end = 0;

	for (size_t i = 0; ev && i < ev->n_fields; i++)
		if ((size_t)ev->fields[i].offset + ev->fields[i].size > end)
			end = (size_t)ev->fields[i].offset + ev->fields[i].size;
	return end;
}

/*
 * Copies `rec` with the bytes that follow it in its page, up to `span`
 * bytes in all (what libtraceevent reads of a record shorter than its
 * format); past the page, zeros, as report.c pads such records.
 */
static bool copy_record(struct rec_copy *c, const struct tdat_record *rec, size_t span)
{
	size_t n = span > rec->size ? span : rec->size;
	size_t have = rec->avail < n ? rec->avail : n;

	if (!tmx_grow_array((void **)&c->buf, &c->cap, n ? n : 1, 1, 64))
		return false;
	memcpy(c->buf, rec->data, have);
	memset(c->buf + have, 0, n - have);
	c->rec = *rec;
	c->rec.data = c->buf;
	c->rec.avail = (uint32_t)have;
	return true;
}

size_t tfg_look_span(struct tep_handle *tep, const struct tdat_file *f)
{
	const struct tep_event *exit_ev = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit");
	size_t span = exit_ev ? tep_span(exit_ev) : 0;

	for (size_t i = 0; i < f->n_events; i++)
		if (!strcmp(f->events[i]->name, "funcgraph_entry") &&
		    !strcmp(f->events[i]->system, "ftrace") && tdat_span(f->events[i]) > span)
			span = tdat_span(f->events[i]);
	return span;
}

static void to_tep_record(const struct tdat_record *rec, struct tep_record *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->ts = rec->ts;
	tr->size = (int)rec->size;
	tr->record_size = (int)rec->size;
	tr->data = (void *)(uintptr_t)rec->data;   /* libtraceevent only reads it */
	tr->cpu = (int)rec->cpu;
	tr->ref_count = 1;
}

static void fail(struct tfg *g, const struct tmx_error *err)
{
	if (!g->failed)
		g->err = *err;
	g->failed = true;
}

static void fail_nomem(struct tfg *g)
{
	struct tmx_error e;

	tmx_error_set(&e, TMX_ERR_NOMEM, NULL, "out of memory (function graph look-ahead)");
	fail(g, &e);
}

static bool is_entry(struct tfg *g, const struct tdat_record *rec)
{
	if (rec->event != g->last_ev) {
		g->last_ev = rec->event;
		/* (events alternate: most names fail at their first byte) */
		g->last_is_entry = rec->event && rec->event->name[0] == 'f' &&
				   !strcmp(rec->event->name, "funcgraph_entry") &&
				   !strcmp(rec->event->system, "ftrace");
	}
	return g->last_is_entry;
}

const struct tdat_record *tfg_before_print(struct tfg *g, const struct tfg_handle *h, size_t at,
					   const struct tdat_record *rec)
{
	g->h = NULL;
	if (!g->n_files || !is_entry(g, rec))
		return rec;
	if (!copy_record(&g->entry, rec, tdat_span(rec->event))) {
		fail_nomem(g);
		return rec;
	}
	g->h = h;
	g->at = at;
	g->at_time = h->time(h->time_arg, rec);
	return &g->entry.rec;
}

int tfg_after_print(struct tfg *g, struct tmx_error *err)
{
	g->h = NULL;
	if (!g->failed)
		return TMX_OK;
	g->failed = false;
	*err = g->err;
	return err->code;
}

/* ------------------------------------------------------------------ */
/* The look-ahead: libtracecmd's tracecmd_peek_next_data()               */
/* ------------------------------------------------------------------ */

/*
 * --cpu: trace-cmd reads the other CPUs too, in time order, and drops
 * their records; what it has dropped by now is what comes before the
 * printed record (earlier, or as early on a CPU listed before it).
 */
static bool catch_up(struct tfg *g)
{
	const struct tfg_handle *h = g->h;
	struct tmx_error err;

	for (size_t i = 0; h->listed && i < h->n_cur; i++) {
		const struct tdat_record *rec;
		if (i == g->at || h->listed[i])
			continue;
		for (;;) {
			uint64_t t;
			if (h->peek(h, i, &rec, &err)) {
				fail(g, &err);
				return false;
			}
			if (!rec)
				break;
			t = h->time(h->time_arg, rec);
			if (t > g->at_time || (t == g->at_time && i > g->at))
				break;
			if (h->next(h, i, &rec, &err)) {
				fail(g, &err);
				return false;
			}
		}
	}
	return true;
}

/* The handle's next record by time (the first CPU on ties), *rec NULL at the end. */
static bool peek_next(struct tfg *g, const struct tdat_record **next, size_t *at)
{
	const struct tfg_handle *h = g->h;
	uint64_t best = 0;
	struct tmx_error err;

	*next = NULL;
	for (size_t i = 0; i < h->n_cur; i++) {
		const struct tdat_record *rec;
		uint64_t t;
		if (h->peek(h, i, &rec, &err)) {
			fail(g, &err);
			return false;
		}
		if (!rec)
			continue;
		t = h->time(h->time_arg, rec);
		if (!*next || t < best) {
			*next = rec;
			best = t;
			*at = i;
		}
	}
	return true;
}

static struct tep_event *exit_event(struct tfg_file *gf, struct tep_handle *tep)
{
	if (!gf->looked) {
		gf->exit_ev = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit");
		gf->exit_span = gf->exit_ev ? tep_span(gf->exit_ev) : 0;
		gf->looked = true;
	}
	return gf->exit_ev;
}

/*
 * libtracecmd's get_return_for_leaf(): the next record is a funcgraph_exit
 * of the same pid (compared as trace-cmd does, the entry's pid as an int)
 * and function; then it is taken from its cursor into *exit.
 */
static bool take_exit(struct tfg_file *gf, struct trace_seq *s, int pid, unsigned long long func,
		      struct tep_record *exit)
{
	struct tfg *g = gf->g;
	const struct tdat_record *next;
	unsigned long long type, npid, nfunc;
	struct tmx_error err;
	size_t at = 0;

	if (!g->h || !catch_up(g) || !peek_next(g, &next, &at) || !next)
		return false;
	if (!copy_record(&g->next, next, gf->exit_span)) {
		fail_nomem(g);
		return false;
	}
	to_tep_record(&g->next.rec, exit);
	if (tep_get_common_field_val(s, gf->exit_ev, "common_type", exit, &type, 1) ||
	    type != (unsigned long long)gf->exit_ev->id)
		return false;
	if (tep_get_common_field_val(s, gf->exit_ev, "common_pid", exit, &npid, 1) ||
	    (unsigned long long)pid != npid)
		return false;
	if (tep_get_field_val(s, gf->exit_ev, "func", exit, &nfunc, 1) || nfunc != func)
		return false;
	if (g->h->next(g->h, at, &next, &err)) {
		fail(g, &err);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* The text                                                             */
/* ------------------------------------------------------------------ */

/* trace-cmd's print_graph_overhead(): how long, at a glance. */
static const char *mark(unsigned long long ns)
{
	if (ns == ~0ULL)
		return "  ";
	if (ns > 1000000000ULL)
		return "$ ";
	if (ns > 1000000ULL)
		return "# ";
	if (ns > 100000ULL)
		return "! ";
	if (ns > 10000ULL)
		return "+ ";
	return "  ";
}

/* The mark, then "USECS.NNN us " in a 7-wide column (no ".NNN" from 7 digits), then "|  ". */
static void put_duration(struct trace_seq *s, unsigned long long ns)
{
	char num[48];
	int n = snprintf(num, sizeof(num), "%llu", ns / 1000);

	if (n < 7)
		n += snprintf(num + n, sizeof(num) - (size_t)n, ".%03llu", ns % 1000);
	trace_seq_puts(s, mark(ns));
	trace_seq_puts(s, num);
	trace_seq_puts(s, " us ");
	for (; n < 7; n++)
		trace_seq_putc(s, ' ');
	trace_seq_puts(s, "|  ");
}

/* 2 columns per level; trace-cmd's count is an int (a depth of -1 indents nothing). */
static void put_indent(struct trace_seq *s, unsigned long long depth)
{
	int32_t n = (int32_t)(uint32_t)(depth * INDENT_PER_LEVEL);

	if (n > TFG_MAX_INDENT)
		n = TFG_MAX_INDENT;
	if (n > 0)
		trace_seq_printf(s, "%*s", (int)n, "");
}

/* The function's name, or its address in hex; then `tail`. */
static void put_func(struct trace_seq *s, struct tep_handle *tep, unsigned long long addr,
		     const char *tail)
{
	const char *name = tep_find_function(tep, addr);

	if (name)
		trace_seq_printf(s, "%s%s", name, tail);
	else
		trace_seq_printf(s, "%llx%s", addr, tail);
}

/* -O fgraph:depth */
static void put_depth(struct trace_seq *s, const struct tfg *g, unsigned long long depth)
{
	if (g->depth)
		trace_seq_printf(s, " (%lld)", (long long)depth);
}

/* An entry's indent, function and `tail` ("();" or "() {"), then -O fgraph:depth's mark. */
static void put_call(struct trace_seq *s, const struct tfg *g, struct tep_event *ev,
		     struct tep_record *entry, const char *tail)
{
	unsigned long long depth, func;

	if (tep_get_field_val(s, ev, "depth", entry, &depth, 1)) {
		trace_seq_putc(s, '!');
		return;
	}
	put_indent(s, depth);
	if (tep_get_field_val(s, ev, "func", entry, &func, 1)) {
		trace_seq_putc(s, '!');
		return;
	}
	put_func(s, ev->tep, func, tail);
	put_depth(s, g, depth);
}

/* An entry and its exit as one line: mark, duration, indent, "func();". */
static void put_leaf(struct trace_seq *s, struct tfg_file *gf, struct tep_event *ev,
		     struct tep_record *entry, struct tep_record *exit)
{
	unsigned long long rettime, calltime;

	if (tep_get_field_val(s, gf->exit_ev, "rettime", exit, &rettime, 1) ||
	    tep_get_field_val(s, gf->exit_ev, "calltime", exit, &calltime, 1)) {
		trace_seq_putc(s, '!');
		return;
	}
	put_duration(s, rettime - calltime);
	put_call(s, gf->g, ev, entry, "();");
}

/* An entry whose exit comes later: no mark, no duration, "func() {". */
static void put_nested(struct trace_seq *s, const struct tfg *g, struct tep_event *ev,
		       struct tep_record *entry)
{
	trace_seq_puts(s, "  ");
	trace_seq_puts(s, "           |  ");
	put_call(s, g, ev, entry, "() {");
}

/*
 * The handlers return what libtraceevent then does: 0 for nothing more, else
 * the print fmt follows (trace-cmd returns -1 when the file has no
 * funcgraph_exit format, and the '!' of a missing field).
 */
static int entry_handler(struct trace_seq *s, struct tep_record *record, struct tep_event *ev,
			 void *context)
{
	struct tfg_file *gf = context;
	unsigned long long pid, func;
	struct tep_record exit;

	if (!exit_event(gf, ev->tep))
		return -1;
	if (tep_get_common_field_val(s, ev, "common_pid", record, &pid, 1) ||
	    tep_get_field_val(s, ev, "func", record, &func, 1))
		return trace_seq_putc(s, '!');
	if (take_exit(gf, s, (int)pid, func, &exit))
		put_leaf(s, gf, ev, record, &exit);
	else
		put_nested(s, gf->g, ev, record);
	return 0;
}

static int exit_handler(struct trace_seq *s, struct tep_record *record, struct tep_event *ev,
			void *context)
{
	const struct tfg *g = ((const struct tfg_file *)context)->g;
	unsigned long long rettime, calltime, depth, func;
	const char *name;

	if (!exit_event(context, ev->tep))
		return -1;
	if (tep_get_field_val(s, ev, "rettime", record, &rettime, 1) ||
	    tep_get_field_val(s, ev, "calltime", record, &calltime, 1))
		return trace_seq_putc(s, '!');
	put_duration(s, rettime - calltime);
	if (tep_get_field_val(s, ev, "depth", record, &depth, 1))
		return trace_seq_putc(s, '!');
	put_indent(s, depth);
	trace_seq_putc(s, '}');
	/* -O fgraph:tailprint; without a func field or its symbol, not even the depth */
	if (g->tailprint) {
		if (tep_get_field_val(s, ev, "func", record, &func, 0) ||
		    !(name = tep_find_function(ev->tep, func)))
			return 0;
		trace_seq_printf(s, " /* %s */", name);
	}
	put_depth(s, g, depth);
	return 0;
}

void tfg_set_options(struct tfg *g, const char *const *opts, size_t n)
{
	g->opts = opts;
	g->n_opts = n;
}

/*
 * The value libtraceevent keeps for `-O [plugin:]name[=value]` options of
 * this plugin (or of none): the last such option's, `*found` false when
 * there is none.  Its value is NULL without '='.
 */
static const char *stored_value(const struct tfg *g, const char *plugin, const char *name,
				bool *found)
{
	const char *value = NULL;
	size_t plen = plugin ? strlen(plugin) : 0, nlen = strlen(name);

	*found = false;
	for (size_t i = 0; i < g->n_opts; i++) {
		const char *o = g->opts[i], *eq = strchr(o, '='), *colon = strchr(o, ':');
		size_t len = eq ? (size_t)(eq - o) : strlen(o);

		if (colon && colon > o + len)
			colon = NULL;   /* a ':' in the value */
		if (plugin ? !colon || (size_t)(colon - o) != plen || strncmp(o, plugin, plen) : !!colon)
			continue;
		if (colon) {
			len -= (size_t)(colon + 1 - o);
			o = colon + 1;
		}
		if (len == nlen && !strncmp(o, name, nlen)) {
			*found = true;
			value = eq ? eq + 1 : NULL;
		}
	}
	return value;
}

/* libtraceevent's update_option_value() on a boolean option. */
static void update_value(bool *set, const char *value)
{
	if (!value)
		*set = !*set;
	else if (!strcmp(value, "1") || !strcmp(value, "true"))
		*set = true;
	else if (!strcmp(value, "0") || !strcmp(value, "false"))
		*set = false;
}

/*
 * What libtraceevent does to a plugin option each time its plugin is
 * registered (trace-cmd registers trace-ftrace.c's once per input file):
 * the value stored for "fgraph:name", then the one for "name".  So a bare
 * `-O depth` toggles the option once per file.
 */
static void register_options(struct tfg *g)
{
	static const char *const names[] = { "tailprint", "depth" };

	for (size_t i = 0; i < 2; i++) {
		bool *set = i ? &g->depth : &g->tailprint, found;
		const char *value = stored_value(g, "fgraph", names[i], &found);

		if (found)
			update_value(set, value);
		value = stored_value(g, NULL, names[i], &found);
		if (found)
			update_value(set, value);
	}
}

int tfg_attach(struct tfg *g, struct tep_handle *tep, const char *path, struct tmx_error *err)
{
	struct tfg_file *gf;

	if (!tmx_grow_array((void **)&g->files, &g->cap_files, g->n_files + 1, sizeof(*g->files), 4) ||
	    !(gf = calloc(1, sizeof(*gf))))
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
	gf->g = g;
	g->files[g->n_files++] = gf;
	register_options(g);
	/* by name: the formats may not be parsed yet (libtraceevent keeps the handler until then) */
	if (tep_register_event_handler(tep, -1, "ftrace", "funcgraph_entry", entry_handler, gf) < 0 ||
	    tep_register_event_handler(tep, -1, "ftrace", "funcgraph_exit", exit_handler, gf) < 0)
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
	return TMX_OK;
}
