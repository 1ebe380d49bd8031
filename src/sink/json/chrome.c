/*
 * Chrome Trace Event Format, JSON object form, as Perfetto's UI and
 * chrome://tracing load it:
 *
 *   {"displayTimeUnit":"ns","traceEvents":[
 *    {"name":"process_name","ph":"M","pid":1,"args":{"name":"TRACE"}},
 *    {"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"STREAM"}},
 *    {"name":"EVENT","cat":"TRACE","ph":"i","s":"t","ts":123.456,"pid":1,"tid":1,
 *     "args":{...payload fields...}}, ...]}
 *
 * A trace is a process and each of its streams a thread; events are
 * instant events with their payload (and contexts) as args; discarded
 * events and packets are instant events too.  Times are microseconds with
 * the full nanosecond precision (three decimals), from the clock's origin.
 *
 * With tmx_chrome_set_sched_slices(), sched_switch events also become
 * per-CPU slices ("B"/"E" on a process "CPUs: TRACE", pid 1000000 + the
 * trace's, one thread per CPU): from a switch to the next one on the same
 * CPU, named after next_comm, args {"tid": next_tid or next_pid}; none
 * while the CPU is idle (next tid 0); slices still open at the end close
 * at the last event's time.
 *
 * LLVM XRay traces (trace class env tracer_name "llvm-xray") are written as
 * `llvm-xray convert --output-format=trace_event` writes them: B/E events
 * per thread and a "stackFrames" table, see chrome_xray.c.
 */
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/json/chrome.h"
#include "sink/json/jsonval.h"
#include "sink/outbuf.h"
#include "sink/json/chrome_xray.h"
#include "model/errors.h"

#define MAX_IDS 4096

/* A CPU of a trace with a slice open (sched slices). */
struct cpu_slice {
	size_t pid;                /* the trace's pid */
	uint64_t cpu;
	bool open;
};

struct tmx_chrome {
	bool first;
	bool sched_slices;
	struct cpu_slice *cpus;
	size_t n_cpus, cap_cpus;
	int64_t last_ns;           /* of the last event with a time */
	size_t n_traces, n_streams;
	const struct tmx_trace *traces[MAX_IDS];
	const struct tmx_stream *streams[MAX_IDS];
	struct chrome_xray *xr;
	struct outbuf out;
};

struct tmx_chrome *tmx_chrome_new(int fd)
{
	struct tmx_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (!(c->xr = chrome_xray_new())) {
		free(c);
		return NULL;
	}
	outbuf_init(&c->out, fd);
	outbuf_puts(&c->out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	c->first = true;
	return c;
}

void tmx_chrome_free(struct tmx_chrome *c)
{
	if (!c)
		return;
	chrome_xray_free(c->xr);
	free(c->cpus);
	free(c);
}

/* A small number for a pointer, in order of first appearance (0 when out of ids). */
static size_t id_of(const void **table, size_t *n, const void *p)
{
	for (size_t i = 0; i < *n; i++)
		if (table[i] == p)
			return i + 1;
	if (*n == MAX_IDS)
		return 0;
	table[(*n)++] = p;
	return *n;
}

static void begin_record(struct tmx_chrome *c)
{
	outbuf_puts(&c->out, c->first ? "\n{" : ",\n{");
	c->first = false;
}

static void put_ids(struct tmx_chrome *c, size_t pid, size_t tid)
{
	outbuf_puts(&c->out, ",\"pid\":");
	outbuf_u64(&c->out, pid, 0);
	outbuf_puts(&c->out, ",\"tid\":");
	outbuf_u64(&c->out, tid, 0);
}

/* Microseconds with three decimals: exact nanoseconds. */
static void put_ts(struct outbuf *b, int64_t ns)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;

	outbuf_puts(b, ",\"ts\":");
	if (ns < 0)
		outbuf_putc(b, '-');
	outbuf_u64(b, a / 1000, 0);
	outbuf_putc(b, '.');
	outbuf_u64(b, a % 1000, 3);
}

/* Process and thread names, the first time a stream shows up. */
static void name_stream(struct tmx_chrome *c, const struct tmx_stream *s, size_t *pid, size_t *tid)
{
	size_t nt = c->n_traces, ns = c->n_streams;
	struct outbuf *b = &c->out;

	*pid = id_of((const void **)c->traces, &c->n_traces, s->trace);
	*tid = id_of((const void **)c->streams, &c->n_streams, s);
	if (c->n_traces > nt) {
		begin_record(c);
		outbuf_puts(b, "\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
		outbuf_u64(b, *pid, 0);
		outbuf_puts(b, ",\"args\":{\"name\":");
		json_string(b, s->trace->name, strlen(s->trace->name));
		outbuf_puts(b, "}}");
	}
	if (c->n_streams > ns) {
		begin_record(c);
		outbuf_puts(b, "\"name\":\"thread_name\",\"ph\":\"M\"");
		put_ids(c, *pid, *tid);
		outbuf_puts(b, ",\"args\":{\"name\":");
		json_string(b, s->name, strlen(s->name));
		outbuf_puts(b, "}}");
	}
}

/* The fields of a scope as args members (a scope is a structure). */
static void put_scope_args(struct outbuf *b, const struct tmx_value *vals, bool *first)
{
	const struct tmx_field_class *fc;
	size_t i = 1;

	if (!vals || vals[0].fc->kind != TMX_FC_STRUCT)
		return;
	fc = vals[0].fc;
	for (uint32_t m = 0; m < vals[0].n_members; m++) {
		json_key(b, fc->members[m].name, *first);
		*first = false;
		i = json_value(b, vals, i);
	}
}

static void put_event(struct tmx_chrome *c, const struct tmx_msg *msg, size_t pid, size_t tid)
{
	const struct tmx_event *e = msg->event;
	struct outbuf *b = &c->out;
	bool first = true;

	begin_record(c);
	outbuf_puts(b, "\"name\":");
	/* CTF 2 names are optional; babeltrace2's text says <unknown>. */
	json_string(b, e->cls->name ? e->cls->name : "<unknown>",
		    e->cls->name ? strlen(e->cls->name) : 9);
	outbuf_puts(b, ",\"cat\":");
	json_string(b, msg->stream->trace->name, strlen(msg->stream->trace->name));
	outbuf_puts(b, ",\"ph\":\"i\",\"s\":\"t\"");
	put_ts(b, msg->has_ts ? msg->ns : 0);
	put_ids(c, pid, tid);
	outbuf_puts(b, ",\"args\":{");
	put_scope_args(b, e->scopes[TMX_SCOPE_COMMON_CONTEXT], &first);
	put_scope_args(b, e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT], &first);
	put_scope_args(b, e->scopes[TMX_SCOPE_PAYLOAD], &first);
	outbuf_puts(b, "}}");
}

void tmx_chrome_set_sched_slices(struct tmx_chrome *c, bool on)
{
	c->sched_slices = on;
}

/* The value index of member `name` of a scope's structure, or 0 when absent. */
static size_t member(const struct tmx_value *vals, const char *name)
{
	size_t i = 1;

	if (!vals || vals[0].fc->kind != TMX_FC_STRUCT)
		return 0;
	for (uint32_t m = 0; m < vals[0].n_members; m++) {
		if (!strcmp(vals[0].fc->members[m].name, name))
			return i;
		i = tmx_value_skip(vals, i);
	}
	return 0;
}

static bool int_member(const struct tmx_value *vals, const char *name, uint64_t *v)
{
	size_t i = member(vals, name);

	if (!i || (vals[i].fc->kind != TMX_FC_INT && vals[i].fc->kind != TMX_FC_ENUM))
		return false;
	*v = vals[i].u;
	return true;
}

static void put_slice_edge(struct tmx_chrome *c, const char *ph, size_t pid, uint64_t cpu,
			   int64_t ns)
{
	struct outbuf *b = &c->out;

	begin_record(c);
	outbuf_puts(b, "\"ph\":\"");
	outbuf_puts(b, ph);
	outbuf_putc(b, '"');
	put_ts(b, ns);
	put_ids(c, 1000000 + pid, cpu);
}

/* The slice state of (trace, CPU), named on first use; NULL when out of memory. */
static struct cpu_slice *cpu_slice(struct tmx_chrome *c, const struct tmx_msg *msg, size_t pid,
				   uint64_t cpu)
{
	struct outbuf *b = &c->out;
	bool new_proc = true;
	struct cpu_slice *s;

	for (size_t i = 0; i < c->n_cpus; i++) {
		if (c->cpus[i].pid == pid && c->cpus[i].cpu == cpu)
			return &c->cpus[i];
		new_proc &= c->cpus[i].pid != pid;
	}
	if (c->n_cpus == c->cap_cpus) {
		size_t cap = c->cap_cpus ? 2 * c->cap_cpus : 16;
		struct cpu_slice *p = realloc(c->cpus, cap * sizeof(*p));
		if (!p)
			return NULL;
		c->cpus = p;
		c->cap_cpus = cap;
	}
	if (new_proc) {
		const char *t = msg->stream->trace->name;
		size_t n = strlen(t);
		char *pname = malloc(n + 7);
		if (!pname)
			return NULL;
		memcpy(pname, "CPUs: ", 6);
		memcpy(pname + 6, t, n + 1);
		begin_record(c);
		outbuf_puts(b, "\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
		outbuf_u64(b, 1000000 + pid, 0);
		outbuf_puts(b, ",\"args\":{\"name\":");
		json_string(b, pname, n + 6);
		outbuf_puts(b, "}}");
		free(pname);
	}
	begin_record(c);
	outbuf_puts(b, "\"name\":\"thread_name\",\"ph\":\"M\"");
	put_ids(c, 1000000 + pid, cpu);
	outbuf_puts(b, ",\"args\":{\"name\":\"CPU ");
	outbuf_u64(b, cpu, 0);
	outbuf_puts(b, "\"}}");
	s = &c->cpus[c->n_cpus++];
	s->pid = pid;
	s->cpu = cpu;
	s->open = false;
	return s;
}

static int put_sched_slice(struct tmx_chrome *c, const struct tmx_msg *msg, size_t pid,
			   struct tmx_error *err)
{
	const struct tmx_event *e = msg->event;
	const struct tmx_value *pl = e->scopes[TMX_SCOPE_PAYLOAD];
	const struct tmx_value *pc = msg->packet ? msg->packet->context : NULL;
	struct outbuf *b = &c->out;
	struct cpu_slice *s;
	uint64_t cpu, next_tid;
	size_t comm;

	size_t len = e->cls->name ? strlen(e->cls->name) : 0;

	/* "sched_switch" (LTTng), "sched:sched_switch" (ftrace: system:event). */
	if (len < 12 || strcmp(e->cls->name + len - 12, "sched_switch") ||
	    (len > 12 && e->cls->name[len - 13] != ':'))
		return TMX_OK;
	if (!msg->has_ts || !int_member(pc, "cpu_id", &cpu) ||
	    !(int_member(pl, "next_tid", &next_tid) || int_member(pl, "next_pid", &next_tid)))
		return TMX_OK;
	if (!(s = cpu_slice(c, msg, pid, cpu)))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory (Chrome output)");
	if (s->open) {
		put_slice_edge(c, "E", pid, cpu, msg->ns);
		outbuf_putc(b, '}');
	}
	s->open = next_tid != 0;
	if (!s->open)
		return TMX_OK;
	put_slice_edge(c, "B", pid, cpu, msg->ns);
	outbuf_puts(b, ",\"name\":");
	comm = member(pl, "next_comm");
	if (comm && pl[comm].fc->kind == TMX_FC_STRING)
		json_string(b, pl[comm].str.ptr, pl[comm].str.len);
	else if (comm && pl[comm].fc->is_text)
		json_string(b, pl[comm].str.ptr, strnlen(pl[comm].str.ptr, pl[comm].str.len));
	else
		outbuf_puts(b, "\"?\"");
	outbuf_puts(b, ",\"args\":{\"tid\":");
	outbuf_u64(b, next_tid, 0);
	outbuf_puts(b, "}}");
	return TMX_OK;
}

static void put_discarded(struct tmx_chrome *c, const struct tmx_msg *msg, const char *what,
			  size_t pid, size_t tid)
{
	struct outbuf *b = &c->out;

	begin_record(c);
	outbuf_puts(b, "\"name\":\"");
	outbuf_puts(b, what);
	outbuf_puts(b, "\",\"ph\":\"i\",\"s\":\"t\"");
	put_ts(b, msg->has_range ? msg->begin_ns : 0);
	put_ids(c, pid, tid);
	outbuf_puts(b, ",\"args\":{\"count\":");
	outbuf_u64(b, msg->count, 0);
	outbuf_puts(b, "}}");
}

int tmx_chrome_consume(struct tmx_chrome *c, const struct tmx_msg *msg, struct tmx_error *err)
{
	size_t pid, tid;

	if (msg->kind == TMX_MSG_EVENT && chrome_xray_is_xray(c->xr, msg->stream->cls->trace_class)) {
		if (chrome_xray_event(c->xr, &c->out, &c->first, msg, err))
			return err->code;
		goto written;
	}
	if (msg->kind != TMX_MSG_EVENT && msg->kind != TMX_MSG_DISCARDED_EVENTS &&
	    msg->kind != TMX_MSG_DISCARDED_PACKETS)
		return TMX_OK;
	name_stream(c, msg->stream, &pid, &tid);
	if (msg->kind == TMX_MSG_EVENT) {
		put_event(c, msg, pid, tid);
		if (c->sched_slices && put_sched_slice(c, msg, pid, err))
			return err->code;
		if (msg->has_ts)
			c->last_ns = msg->ns;
	}
	else
		put_discarded(c, msg, msg->kind == TMX_MSG_DISCARDED_EVENTS ? "discarded events" :
				      "discarded packets", pid, tid);
written:
	if (c->out.error)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(c->out.error));
	return TMX_OK;
}

int tmx_chrome_finish(struct tmx_chrome *c, struct tmx_error *err)
{
	int e;

	for (size_t i = 0; i < c->n_cpus; i++)
		if (c->cpus[i].open) {
			put_slice_edge(c, "E", c->cpus[i].pid, c->cpus[i].cpu, c->last_ns);
			outbuf_putc(&c->out, '}');
		}
	outbuf_puts(&c->out, "\n]");
	chrome_xray_finish(c->xr, &c->out);
	outbuf_puts(&c->out, "}\n");
	e = outbuf_flush(&c->out);
	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return TMX_OK;
}
