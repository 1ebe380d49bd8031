/*
 * The run of an analysis: events decoded on every core by tmx_run into a
 * sink of its own (each event's record written on the reading threads,
 * an_event.c), fed in time order on the calling thread (within the
 * streams' common range unless --no-intersection, as babeltrace 1's
 * TraceCollection(intersect_mode=True) gives them to lttng-analyses),
 * every event class bound before the run (an_state.c) and each event
 * handed to lttng-analyses' kernel state, the one period from --begin (or
 * the first event) to the last event before --end, the commands and their
 * errors.  What the state sees does not depend on the number of jobs.
 */
#include <stdlib.h>
#include <string.h>

#include "model/kmap.h"
#include "source/source.h"
#include "tracemux/sink.h"
#include "tools/analyze/an_run.h"
#include "tools/analyze/an_time.h"

/* ------------------------------------------------------------------ */
/* Filters shared by the analyses                                       */
/* ------------------------------------------------------------------ */

bool an_filter_process(const struct an *a, const struct an_proc *p)
{
	if (!p)
		return true;
	if (a->o->n_procnames) {
		bool found = false;
		for (size_t i = 0; i < a->o->n_procnames && !found; i++)
			found = strlen(a->o->procnames[i]) == p->comm.len &&
				!memcmp(a->o->procnames[i], p->comm.s, p->comm.len);
		if (!found)
			return false;
	}
	if (a->o->n_tids) {
		bool found = false;
		for (size_t i = 0; i < a->o->n_tids && !found; i++)
			found = a->o->tids[i] == p->tid;
		if (!found)
			return false;
	}
	return true;
}

bool an_filter_cpu(const struct an *a, int64_t cpu)
{
	if (!a->o->n_cpus)
		return true;
	for (size_t i = 0; i < a->o->n_cpus; i++)
		if (a->o->cpus[i] == cpu)
			return true;
	return false;
}

size_t an_cpu_count(const struct an *a)
{
	return a->cpus.n;
}

/* ------------------------------------------------------------------ */
/* The run                                                              */
/* ------------------------------------------------------------------ */

static const struct an_ops *const command_ops[TMX_AN_N_CMDS] = {
	[TMX_AN_CPUTOP] = &an_cputop_ops,
	[TMX_AN_SCHEDSTATS] = &an_sched_ops,
	[TMX_AN_SCHEDTOP] = &an_sched_ops,
	[TMX_AN_SCHEDLOG] = &an_sched_ops,
	[TMX_AN_SCHEDFREQ] = &an_sched_ops,
	[TMX_AN_SYSCALLSTATS] = &an_syscalls_ops,
	[TMX_AN_IRQSTATS] = &an_irq_ops,
	[TMX_AN_IRQLOG] = &an_irq_ops,
	[TMX_AN_IRQFREQ] = &an_irq_ops,
	[TMX_AN_MEMTOP] = &an_memtop_ops,
	[TMX_AN_IOLATENCYSTATS] = &an_io_ops,
	[TMX_AN_IOLATENCYTOP] = &an_io_ops,
	[TMX_AN_IOLATENCYFREQ] = &an_io_ops,
	[TMX_AN_IOLOG] = &an_io_ops,
	[TMX_AN_IOUSAGETOP] = &an_io_ops,
};

static const char *const command_names[TMX_AN_N_CMDS] = {
	[TMX_AN_CPUTOP] = "cputop",
	[TMX_AN_SCHEDSTATS] = "schedstats",
	[TMX_AN_SCHEDTOP] = "schedtop",
	[TMX_AN_SCHEDLOG] = "schedlog",
	[TMX_AN_SCHEDFREQ] = "schedfreq",
	[TMX_AN_SYSCALLSTATS] = "syscallstats",
	[TMX_AN_IRQSTATS] = "irqstats",
	[TMX_AN_IRQLOG] = "irqlog",
	[TMX_AN_IRQFREQ] = "irqfreq",
	[TMX_AN_MEMTOP] = "memtop",
	[TMX_AN_IOLATENCYSTATS] = "iolatencystats",
	[TMX_AN_IOLATENCYTOP] = "iolatencytop",
	[TMX_AN_IOLATENCYFREQ] = "iolatencyfreq",
	[TMX_AN_IOLOG] = "iolog",
	[TMX_AN_IOUSAGETOP] = "iousagetop",
};

bool tmx_an_command(const char *name, enum tmx_an_cmd *cmd)
{
	for (int i = 0; i < TMX_AN_N_CMDS; i++)
		if (command_names[i] && !strcmp(command_names[i], name)) {
			*cmd = (enum tmx_an_cmd)i;
			return true;
		}
	return false;
}

const char *tmx_an_command_name(enum tmx_an_cmd cmd)
{
	return cmd < TMX_AN_N_CMDS ? command_names[cmd] : NULL;
}

/* "Error: ..." as lttng-analyses' Command._error: MI JSON on stdout, else stderr. */
static void an_error(const struct tmx_an_opts *o, FILE *out, FILE *errout, const char *prefix,
	      const char *msg)
{
	if (o->mi) {
		char buf[512];
		snprintf(buf, sizeof(buf), "%s%s", prefix, msg);
		fputs("{\"error-message\": ", out);
		an_json_string(out, buf, strlen(buf));
		fputs("}\n", out);
	} else {
		fprintf(errout, "%s%s\n", prefix, msg);
	}
}

/* An env integer, or a string of digits (lttng-analyses' regex takes `"*(\d+)"*`). */
static bool env_int(const struct tmx_env_entry *e, int64_t *v)
{
	const char *s = e->str_value;

	if (e->is_int) {
		*v = e->int_value;
		return true;
	}
	if (!s || *s < '0' || *s > '9')
		return false;
	*v = strtoll(s, NULL, 10);
	return true;
}

/*
 * The tracer version of lttng-modules from the env: sched_wakeup's prio
 * before 2.7.1.  False in *found when no trace has it (lttng-analyses:
 * "Malformed metadata, cannot read tracer version").
 */
static bool prio_offset_of(struct tmx_source *src, const struct tmx_kmap *kmap, bool *found)
{
	/* lttng-analyses reads the trace in a directory named `kernel`: the kernel domain first */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < tmx_source_logical_trace_count(src); i++) {
			const struct tmx_trace *t = tmx_source_logical_trace(src, i);
			const struct tmx_trace_class *tc = kmap ? tmx_kmap_trace(kmap, t)->cls : t->cls;
			const struct tmx_env_entry *d = tmx_trace_class_env(tc, "domain");
			const struct tmx_env_entry *e[3] = {
				tmx_trace_class_env(tc, "tracer_major"),
				tmx_trace_class_env(tc, "tracer_minor"),
				tmx_trace_class_env(tc, "tracer_patchlevel"),
			};
			bool kernel = d && !d->is_int && d->str_value && !strcmp(d->str_value, "kernel");
			int64_t v[3];
			if ((pass == 0) != kernel || !e[0] || !e[1] || !e[2])
				continue;
			*found = true;
			for (int k = 0; k < 3; k++)
				if (!env_int(e[k], &v[k]))
					*found = false;
			return *found && (v[0] < 2 || (v[0] == 2 && (v[1] < 7 || (v[1] == 7 && v[2] < 1))));
		}
	*found = false;
	return false;
}

/*
 * trace.dat: the ftrace events a command reads, when the trace has none of
 * them (lttng-analyses prints empty tables without a word; so does this,
 * and names them on stderr, which its output leaves alone).
 */
static void warn_missing(const struct an_run *r, FILE *errout)
{
	static const struct {
		enum an_kind kind;
		const char *events;
	} needs[] = {
		{ K_SWITCH, "sched:sched_switch" },
		{ K_WAKEUP, "sched:sched_wakeup or sched:sched_waking" },
		{ K_SYSCALL_ENTRY, "raw_syscalls:sys_enter and sys_exit (or syscalls:sys_enter_*)" },
		{ K_IRQ_ENTRY, "irq:irq_handler_entry and irq_handler_exit" },
		{ K_PAGE_ALLOC, "kmem:mm_page_alloc and mm_page_free" },
	};
	uint32_t want = 0;

	switch (r->a.o->cmd) {
	case TMX_AN_CPUTOP:
		want = 1u << K_SWITCH;
		break;
	case TMX_AN_SCHEDSTATS: case TMX_AN_SCHEDTOP: case TMX_AN_SCHEDLOG: case TMX_AN_SCHEDFREQ:
		want = 1u << K_SWITCH | 1u << K_WAKEUP;
		break;
	case TMX_AN_SYSCALLSTATS:
		want = 1u << K_SWITCH | 1u << K_SYSCALL_ENTRY;
		break;
	case TMX_AN_IRQSTATS: case TMX_AN_IRQLOG: case TMX_AN_IRQFREQ:
		want = 1u << K_IRQ_ENTRY;
		break;
	case TMX_AN_MEMTOP:
		want = 1u << K_SWITCH | 1u << K_PAGE_ALLOC;
		break;
	default:
		break;
	}
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if ((want & 1u << needs[i].kind) && !(r->seen & 1u << needs[i].kind))
			fprintf(errout, "Warning: %s needs %s events; the trace has none\n",
				tmx_an_command_name(r->a.o->cmd), needs[i].events);
}

static void period_begin(struct an_run *r, int64_t ts)
{
	r->in_period = true;
	r->period_begin = ts;
	if (r->ops->begin)
		r->ops->begin(r->self, ts);
}

/* Analysis.process_event: false when the analysis has ended (an event after --end). */
static bool process_event(struct an_run *r, int64_t ts)
{
	if (r->has_end && ts > r->end_ts) {
		r->ended = true;
		return false;
	}
	r->last_ts = ts;
	r->has_last = true;
	if (!r->started) {
		if (r->has_begin) {
			if (ts >= r->begin_ts) {
				period_begin(r, ts);
				r->started = true;
			}
		} else {
			r->started = true;
		}
	}
	return true;
}

/*
 * trace.dat: the intersection of the streams that have events, as
 * babeltrace 1 sees the conversion (an empty CPU is an empty file there,
 * which it passes over).  False when no stream has events.
 */
static bool ranged_intersection(const struct tmx_source *src, const struct tmx_trace *trace,
				int64_t *b, int64_t *e)
{
	bool any = false;

	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;
		tmx_source_stream_info(src, i, &info);
		if (info.stream->trace != trace || !info.has_range)
			continue;
		if (!any || info.begin_ns > *b)
			*b = info.begin_ns;
		if (!any || info.end_ns < *e)
			*e = info.end_ns;
		any = true;
	}
	return any && *b <= *e;
}

/* Whether any stream of `src` has events (a range). */
static bool has_events(const struct tmx_source *src)
{
	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;
		tmx_source_stream_info(src, i, &info);
		if (info.has_range)
			return true;
	}
	return false;
}

/*
 * babeltrace 1's intersect mode: each trace's streams' common time range;
 * with several traces, the events of every trace's range (a kernel and a
 * user space trace together: lttng-analyses starts at the kernel's first
 * event).  False when no trace has one.
 */
static bool intersection(struct tmx_source *src, bool kmap, int64_t *b, int64_t *e)
{
	bool any = false;

	for (size_t i = 0; i < tmx_source_logical_trace_count(src); i++) {
		struct tmx_error err = { 0 };
		int64_t tb, te;
		if (kmap ? !ranged_intersection(src, tmx_source_logical_trace(src, i), &tb, &te)
			 : tmx_source_stream_intersection(src, tmx_source_logical_trace(src, i), &tb,
							  &te, &err))
			continue;
		if (!any || tb < *b)
			*b = tb;
		if (!any || te > *e)
			*e = te;
		any = true;
	}
	return any && *b <= *e;
}

/*
 * An event's record (an_event.c) into the analysis at `ts`, as
 * lttng-analyses' loop does; false when the analysis has ended.
 */
static bool feed(struct an_run *r, const void *rec, size_t len, int64_t ts)
{
	struct an_ev ev;
	struct an_class *c;
	enum an_read got = an_ev_read(r, rec, len, ts, &ev);

	if (got == AN_READ_OOM) {   /* a formatter out of memory */
		r->a.oom = true;
		return false;
	}
	if (!r->a.o->no_intersection && (ts < r->ib || ts > r->ie))
		return true;
	if (r->first) {
		/* Analysis.begin_analysis: without --begin, the period starts here. */
		if (!r->has_begin)
			period_begin(r, ts);
		r->first = false;
	}
	if (!process_event(r, ts))
		return false;
	if (got != AN_READ_EVENT)
		return true;   /* an event the state reads nothing of: only its time counts */
	c = &r->classes[ev.ci];
	if (!r->checked[ev.ci]) {
		r->checked[ev.ci] = true;
		if (!an_check_class(r, c, ev.missing))
			return true;
	}
	r->seen |= 1u << c->kind;
	an_automaton(r, &ev, c);
	return true;
}

static bool class_read(const void *ctx, const struct tmx_event_class *ec)
{
	return an_class_read(ctx, ec);
}

/*
 * trace.dat: the state dump the --lttng-kernel conversion writes before
 * its trace's first event (the saved_cmdlines tasks, kmap.h), fed as
 * lttng-analyses reads it there; false when the analysis has ended.  It
 * depends on which event comes first in the trace's order: made here, on
 * emit's thread, and its records written there (r->sd).
 */
static bool kmap_statedump(struct an_run *r, const struct tmx_msg *in)
{
	const struct tmx_msg *sd;

	for (size_t i = 0;; i++) {
		if (!tmx_kmap_statedump(r->kmap, in, i, &sd)) {
			r->a.oom = true;
			return false;
		}
		if (!sd)
			return true;
		an_fmt_event(&r->sd, sd, NULL, 0);
		if (!feed(r, r->sd.rec.p, r->sd.rec.len, sd->ns))
			return false;
	}
}

/* ------------------------------------------------------------------ */
/* The events, decoded on every core (tmx_sink_custom)                  */
/* ------------------------------------------------------------------ */

/* Only events reach the sink: nothing else is read. */
static bool keep_events(void *user, const struct tmx_msg *msg, bool *stop)
{
	(void)user, (void)stop;
	return msg->kind == TMX_MSG_EVENT;
}

/* A reading thread's formatter: its own map on trace.dat (a map is not shared between threads). */
static void *worker_new(void *user)
{
	struct an_run *r = user;
	struct an_fmt *f = malloc(sizeof(*f));

	if (f && !an_fmt_init(f, r, r->kmap != NULL)) {
		free(f);
		return NULL;
	}
	return f;
}

static void worker_free(void *worker)
{
	an_fmt_free(worker);
	free(worker);
}

/*
 * On a reading thread: the event's record (len 0: no lttng-modules
 * equivalent), written in place in the sink's record unless it outgrew
 * the reservation.
 */
static void format(void *worker, const struct tmx_msg *msg, struct tmx_record *rec)
{
	struct an_fmt *f = worker;
	char *p = tmx_record_reserve(rec, AN_REC_ROOM);

	an_fmt_event(f, msg, p, AN_REC_ROOM);
	if (f->rec.p == p)
		tmx_record_commit(rec, f->rec.len);
	else
		tmx_record_write(rec, f->rec.p, f->rec.len);
}

/*
 * On the calling thread, in the trace's order: the state dump before a
 * trace's first event, then the event.  The end of the analysis (an event
 * after --end, an error of the analysis) ends the run there, as an error
 * that an_analyze_run tells from the source's by r->stopped.
 */
static int emit(void *user, const struct tmx_msg *msg, const void *rec, size_t len,
		struct tmx_error *err)
{
	struct an_run *r = user;

	if ((!r->kmap || kmap_statedump(r, msg)) && (!len || feed(r, rec, len, msg->ns)) &&
	    !r->a.oom && !r->missing_field[0] && !r->a.fatal[0])
		return TMX_OK;
	r->stopped = true;
	return tmx_error_set(err, TMX_ERR_LIMIT, NULL, "the analysis ended");
}

/*
 * Every class bound before the run (the formatters read them on every
 * thread); false when out of memory.
 */
static bool bind_classes(struct an_run *r)
{
	r->n_classes = r->kmap ? tmx_kmap_class_count(r->kmap) : tmx_source_event_class_count(r->src);
	r->classes = calloc(r->n_classes ? r->n_classes : 1, sizeof(*r->classes));
	r->checked = calloc(r->n_classes ? r->n_classes : 1, sizeof(*r->checked));
	if (!r->classes || !r->checked)
		return false;
	for (size_t i = 0; i < r->n_classes; i++) {
		const struct tmx_event_class *ec = r->kmap ? tmx_kmap_class(r->kmap, i)
							   : tmx_source_event_class(r->src, i);
		if (ec)
			an_bind_class(r, &r->classes[i], ec);
	}
	return an_fmt_init(&r->sd, r, false);
}

/* The events through the analysis: TMX_OK, or the source's error (what came before it is analysed). */
static int run_events(struct an_run *r, struct tmx_error *err)
{
	struct tmx_custom_sink def = TMX_CUSTOM_SINK_INIT;
	struct tmx_run_opts opts = r->a.o->run;
	struct tmx_sink *sink;
	int ret;

	def.user = r;
	def.worker_new = worker_new;
	def.worker_free = worker_free;
	def.format = format;
	def.emit = emit;
	opts.keep = keep_events;
	if ((ret = tmx_sink_custom(&def, &sink, err)))
		return ret;
	ret = tmx_run(r->src, sink, &opts, err);
	tmx_sink_free(sink);
	if (r->stopped) {   /* the analysis ended the run: no error of the source */
		*err = (struct tmx_error){ 0 };
		return TMX_OK;
	}
	return ret;
}

int tmx_analyze(struct tmx_source *src, const struct tmx_an_opts *o, FILE *out, FILE *errout,
		struct tmx_error *err)
{
	/* CSV, Parquet: the MI of the same run, turned into rows (an_rows.c) */
	return o->rows ? an_rows_analyze(src, o, out, errout, err)
		       : an_analyze_run(src, o, out, errout, err);
}

int an_analyze_run(struct tmx_source *src, const struct tmx_an_opts *o, FILE *out, FILE *errout,
		   struct tmx_error *err)
{
	struct an_run r = { 0 };
	int64_t ib = 0, ie = 0, trace_begin = 0, trace_end = 0;
	bool read_failed = false;
	int status = 0;
	struct an_time_ctx tctx = { .gmt = o->gmt };

	r.a.o = o;
	r.a.out = out;
	r.a.procs.size = sizeof(struct an_proc);
	r.a.cpus.size = sizeof(struct an_cpu);
	r.a.retired.size = sizeof(struct an_proc);
	r.ops = command_ops[o->cmd];
	/* babeltrace 1's timestamp_begin/end: the first and last times of the trace */
	tmx_source_first_ns(src, &trace_begin);
	trace_end = trace_begin;
	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;
		tmx_source_stream_info(src, i, &info);
		if (info.has_range && info.end_ns > trace_end)
			trace_end = info.end_ns;
	}
	tctx.trace_begin = trace_begin;
	tctx.trace_end = trace_end;
	{
		char msgbuf[256];
		int rc = an_time_args(&tctx, o, &r.has_begin, &r.begin_ts, &r.has_end, &r.end_ts,
				      msgbuf, sizeof(msgbuf));
		if (rc) {
			an_error(o, out, errout, "Command line error: ", msgbuf);
			return 1;
		}
	}
	r.a.multi_day = tctx.multi_day;
	if (tmx_kmap_applies(src)) {
		/* trace.dat: ftrace's events as lttng-modules records them (src/model/kmap.c) */
		if (tmx_kmap_new(src, &r.kmap, err)) {
			an_error(o, out, errout, "Error: ", "Cannot create analysis: out of memory");
			return 1;
		}
		if (!has_events(src)) {
			/* what lttng-analyses says of the conversion: babeltrace 1 opens no stream */
			an_error(o, out, errout, "Error: ",
				 "Cannot open trace: Creation of multiple iterators is unsupported.");
			tmx_kmap_free(r.kmap);
			return 1;
		}
	} else {
		for (size_t i = 0; i < tmx_source_logical_trace_count(src); i++) {
			uint8_t f = tmx_source_logical_trace(src, i)->cls->format;
			if (f == TMX_FORMAT_CTF)
				continue;
			an_error(o, out, errout, "Error: ", f == TMX_FORMAT_XRAY
				 ? "not a Linux kernel trace (XRay logs are not analysed)"
				 : "trace.dat files and CTF traces cannot be analysed together");
			return 1;
		}
	}
	{
		bool found;
		r.a.prio_offset = prio_offset_of(src, r.kmap, &found);
		if (!found) {
			an_error(o, out, errout, "Error: ", "Malformed metadata, cannot read tracer version");
			tmx_kmap_free(r.kmap);
			return 1;
		}
	}
	if (!o->mi && !o->skip_validation)
		fputs("Checking the trace for lost events...\n", out);
	if (!o->no_intersection && !intersection(src, r.kmap != NULL, &ib, &ie)) {
		an_error(o, out, errout, "Error: ",
			 "Trace has no intersection. Use --no-intersection to override");
		tmx_kmap_free(r.kmap);
		return 1;
	}
	if (!(r.self = r.ops->create(&r.a))) {
		an_error(o, out, errout, "Error: ", "Cannot create analysis: out of memory");
		tmx_kmap_free(r.kmap);
		return 1;
	}
	r.src = src;
	r.ib = ib;
	r.ie = ie;
	r.first = true;
	/* the events the state ignores are stepped over, not decoded (a third of the reading) */
	if (!r.kmap)
		tmx_source_skip_fields_of(src, class_read, &r);
	if (!bind_classes(&r))
		r.a.oom = true;
	else
		read_failed = run_events(&r, err) != TMX_OK;
	if (r.missing_field[0]) {
		char buf[256];
		snprintf(buf, sizeof(buf), "Cannot run analysis: '%s'", r.missing_field);
		an_error(o, out, errout, "Error: ", buf);
		status = 1;
	} else if (r.a.fatal[0]) {
		char buf[256];
		snprintf(buf, sizeof(buf), "Cannot run analysis: %s", r.a.fatal);
		an_error(o, out, errout, "Error: ", buf);
		status = 1;
	} else if (r.a.oom) {
		an_error(o, out, errout, "Error: ", "Cannot run analysis: out of memory");
		status = 1;
	} else {
		/* Analysis.end_analysis: the period ends at the last event read. */
		/* no event before --end: lttng-analyses' tick has no end and prints nothing */
		if (r.in_period && r.has_last)
			r.ops->end(r.self, r.period_begin, r.last_ts);
		r.ops->finish(r.self);
		if (r.ops->failed && r.ops->failed(r.self))
			status = 1;
		if (r.kmap)
			warn_missing(&r, errout);
	}
	if (read_failed)
		status = 1;
	r.ops->free(r.self);
	an_fmt_free(&r.sd);
	tmx_kmap_free(r.kmap);
	free(r.classes);
	free(r.checked);
	an_table_free(&r.a.procs);
	for (size_t i = 0; i < r.a.cpus.n; i++)
		free(((struct an_cpu *)an_table_at(&r.a.cpus, i))->soft);
	an_table_free(&r.a.cpus);
	an_table_free(&r.a.retired);
	return status;
}
