/*
 * The run of an analysis: events in time order (within the streams'
 * common range unless --no-intersection, as babeltrace 1's
 * TraceCollection(intersect_mode=True) gives them to lttng-analyses),
 * each event class bound once (an_state.c) and handed to lttng-analyses'
 * kernel state, the one period from --begin (or the first event) to the
 * last event before --end, the commands and their errors.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "model/kmap.h"
#include "source/source.h"
#include "tracemux/event.h"
#include "tools/analyze/an_run.h"
#include "tools/analyze/an_time.h"

/* event['cpu_id']: the packet context's cpu_id in LTTng traces (per packet, cached) */
static int64_t event_cpu(struct an_run *r, const struct tmx_msg *msg)
{
	struct an_packet_cpu *k;
	uint64_t cpu = 0;

	if (!msg->packet) {
		tmx_event_cpu(msg->event, &cpu);
		return (int64_t)cpu;
	}
	k = &r->pcpu[cache_slot(msg->packet)];
	if (k->packet != msg->packet || k->seq != msg->packet->seq) {
		k->packet = msg->packet;
		k->seq = msg->packet->seq;
		k->cpu = 0;
		tmx_event_cpu(msg->event, &k->cpu);
	}
	return (int64_t)k->cpu;
}

static size_t class_index(struct an_run *r, const struct tmx_event_class *ec)
{
	struct an_class_slot *k = &r->ccache[cache_slot(ec)];

	if (r->kmap)   /* the mapped classes are numbered by their ids */
		return ec->id;
	if (k->ec != ec) {
		k->ec = ec;
		k->index = tmx_source_event_class_index(r->src, ec);
	}
	return k->index;
}

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

/* An event into the analysis, as lttng-analyses' loop does; false when the analysis has ended. */
static bool feed(struct an_run *r, const struct tmx_msg *msg, bool *first, int64_t ib, int64_t ie)
{
	const struct tmx_event *ev = msg->event;
	struct an_class *c;
	size_t ci;

	if (!r->a.o->no_intersection && (msg->ns < ib || msg->ns > ie))
		return true;
	if (*first) {
		/* Analysis.begin_analysis: without --begin, the period starts here. */
		if (!r->has_begin)
			period_begin(r, msg->ns);
		*first = false;
	}
	if (!process_event(r, msg->ns))
		return false;
	ci = class_index(r, ev->cls);
	if (ci >= r->n_classes)
		return true;
	c = &r->classes[ci];
	if (!c->bound)
		an_bind_class(r, c, ev->cls);
	if (c->kind == K_NONE || (!c->checked && !an_check_class(r, ev, c)))
		return true;
	r->seen |= 1u << c->kind;
	an_automaton(r, ev, c, msg->ns, event_cpu(r, msg));
	return true;
}

static bool class_read(const void *ctx, const struct tmx_event_class *ec)
{
	return an_class_read(ctx, ec);
}

/*
 * trace.dat: the state dump the --lttng-kernel conversion writes before
 * its trace's first event (the saved_cmdlines tasks, kmap.h), fed as
 * lttng-analyses reads it there; false when the analysis has ended.
 */
static bool kmap_statedump(struct an_run *r, const struct tmx_msg *in, bool *first, int64_t ib,
			   int64_t ie)
{
	const struct tmx_msg *sd;

	for (size_t i = 0;; i++) {
		if (!tmx_kmap_statedump(r->kmap, in, i, &sd)) {
			r->a.oom = true;
			return false;
		}
		if (!sd)
			return true;
		if (!feed(r, sd, first, ib, ie))
			return false;
	}
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
	const struct tmx_msg *msg;
	int64_t ib = 0, ie = 0, trace_begin = 0, trace_end = 0;
	bool first = true, read_failed = false;
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
	/* the events the state ignores are stepped over, not decoded (a third of the reading) */
	if (!r.kmap)
		tmx_source_skip_fields_of(src, class_read, &r);
	r.n_classes = r.kmap ? tmx_kmap_class_count(r.kmap) : tmx_source_event_class_count(src);
	r.classes = calloc(r.n_classes ? r.n_classes : 1, sizeof(*r.classes));
	if (!r.classes)
		r.a.oom = true;
	while (!r.a.oom && !r.missing_field[0] && !r.a.fatal[0]) {
		if (tmx_source_next(src, &msg, err)) {
			read_failed = true;
			break;
		}
		if (!msg)
			break;
		if (o->progress)   /* --progress: the CLI's meter */
			tmx_progress_meter_note(o->progress, msg);
		if (msg->kind != TMX_MSG_EVENT)
			continue;
		if (r.kmap && !kmap_statedump(&r, msg, &first, ib, ie))
			break;
		if (r.kmap && !tmx_kmap_msg(r.kmap, msg, &msg)) {
			r.a.oom = true;
			break;
		}
		if (!msg)
			continue;   /* no lttng-modules equivalent */
		if (!feed(&r, msg, &first, ib, ie))
			break;
	}
	tmx_progress_meter_end(o->progress, !read_failed && !r.missing_field[0] && !r.a.fatal[0] &&
					    !r.a.oom);
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
	tmx_kmap_free(r.kmap);
	free(r.classes);
	an_table_free(&r.a.procs);
	for (size_t i = 0; i < r.a.cpus.n; i++)
		free(((struct an_cpu *)an_table_at(&r.a.cpus, i))->soft);
	an_table_free(&r.a.cpus);
	an_table_free(&r.a.retired);
	return status;
}
