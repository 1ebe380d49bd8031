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
#include "sink/jsonval.h"
#include "sink/outbuf.h"
#include "sink/split.h"
#include "sink/json/chrome_xray.h"
#include "common/errors.h"
#include "tracemux/tracemux.h"

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
	bool has_xray;             /* of the source's traces (no split) */
	struct cpu_slice *cpus;
	size_t n_cpus, cap_cpus;
	int64_t last_ns;           /* of the last event with a time */
	size_t n_traces, n_streams;
	const struct tmx_trace *traces[MAX_IDS];
	const struct tmx_stream *streams[MAX_IDS];
	struct chrome_xray *xr;
	struct json_keys *keys;
	struct outbuf out;
};

/* A Chrome output on `fd` (-1: a worker's formatter, src/sink/split.h). */
static struct tmx_chrome *chrome_alloc(int fd, bool sched_slices)
{
	struct tmx_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (!(c->xr = chrome_xray_new()) || !(c->keys = json_keys_new())) {
		chrome_xray_free(c->xr);
		free(c);
		return NULL;
	}
	outbuf_init(&c->out, fd);
	c->first = true;
	c->sched_slices = sched_slices;
	return c;
}

struct tmx_chrome *tmx_chrome_new(int fd)
{
	struct tmx_chrome *c = chrome_alloc(fd, false);

	if (c)
		outbuf_puts(&c->out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	return c;
}

void tmx_chrome_free(struct tmx_chrome *c)
{
	if (!c)
		return;
	chrome_xray_free(c->xr);
	json_keys_free(c->keys);
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

/* A record's separator ("{" is the record's own). */
static void begin_record(struct tmx_chrome *c)
{
	outbuf_puts(&c->out, c->first ? "\n" : ",\n");
	c->first = false;
}

static void put_ids(struct outbuf *b, size_t pid, size_t tid)
{
	outbuf_puts(b, ",\"pid\":");
	outbuf_u64(b, pid, 0);
	outbuf_puts(b, ",\"tid\":");
	outbuf_u64(b, tid, 0);
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
		outbuf_puts(b, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
		outbuf_u64(b, *pid, 0);
		outbuf_puts(b, ",\"args\":{\"name\":");
		json_string(b, s->trace->name, strlen(s->trace->name));
		outbuf_puts(b, "}}");
	}
	if (c->n_streams > ns) {
		begin_record(c);
		outbuf_puts(b, "{\"name\":\"thread_name\",\"ph\":\"M\"");
		put_ids(b, *pid, *tid);
		outbuf_puts(b, ",\"args\":{\"name\":");
		json_string(b, s->name, strlen(s->name));
		outbuf_puts(b, "}}");
	}
}

/* The fields of a scope as args members (a scope is a structure). */
static void put_scope_args(struct tmx_chrome *c, const struct tmx_value *vals, bool *first)
{
	if (vals && vals[0].fc->kind == TMX_FC_STRUCT)
		json_members(&c->out, c->keys, vals, first);
}

/*
 * The parts of a record around its ids, which are numbered in order of
 * first appearance (merged order): what comes before them...
 */
static void put_head(struct outbuf *b, const struct tmx_msg *msg)
{
	const struct tmx_event_class *ec = msg->kind == TMX_MSG_EVENT ? msg->event->cls : NULL;

	outbuf_puts(b, "{\"name\":");
	if (!ec)
		json_string(b, msg->kind == TMX_MSG_DISCARDED_EVENTS ? "discarded events" :
			    "discarded packets", msg->kind == TMX_MSG_DISCARDED_EVENTS ? 16 : 17);
	else   /* CTF 2 names are optional; babeltrace2's text says <unknown>. */
		json_string(b, ec->name ? ec->name : "<unknown>", ec->name ? strlen(ec->name) : 9);
	if (ec) {
		outbuf_puts(b, ",\"cat\":");
		json_string(b, msg->stream->trace->name, strlen(msg->stream->trace->name));
	}
	outbuf_puts(b, ",\"ph\":\"i\",\"s\":\"t\"");
	if (ec)
		put_ts(b, msg->has_ts ? msg->ns : 0);
	else
		put_ts(b, msg->has_range ? msg->begin_ns : 0);
}

/* ...and after them. */
static void put_tail(struct tmx_chrome *c, const struct tmx_msg *msg)
{
	const struct tmx_event *e = msg->event;
	struct outbuf *b = &c->out;
	bool first = true;

	if (msg->kind != TMX_MSG_EVENT) {
		outbuf_puts(b, ",\"args\":{\"count\":");
		outbuf_u64(b, msg->count, 0);
		outbuf_puts(b, "}}");
		return;
	}
	outbuf_puts(b, ",\"args\":{");
	put_scope_args(c, e->scopes[TMX_SCOPE_COMMON_CONTEXT], &first);
	put_scope_args(c, e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT], &first);
	put_scope_args(c, e->scopes[TMX_SCOPE_PAYLOAD], &first);
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
	outbuf_puts(b, "{\"ph\":\"");
	outbuf_puts(b, ph);
	outbuf_putc(b, '"');
	put_ts(b, ns);
	put_ids(b, 1000000 + pid, cpu);
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
		outbuf_puts(b, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
		outbuf_u64(b, 1000000 + pid, 0);
		outbuf_puts(b, ",\"args\":{\"name\":");
		json_string(b, pname, n + 6);
		outbuf_puts(b, "}}");
		free(pname);
	}
	begin_record(c);
	outbuf_puts(b, "{\"name\":\"thread_name\",\"ph\":\"M\"");
	put_ids(b, 1000000 + pid, cpu);
	outbuf_puts(b, ",\"args\":{\"name\":\"CPU ");
	outbuf_u64(b, cpu, 0);
	outbuf_puts(b, "\"}}");
	s = &c->cpus[c->n_cpus++];
	s->pid = pid;
	s->cpu = cpu;
	s->open = false;
	return s;
}

/*
 * What a sched_switch event says for the slices (false for any other
 * event, or one without a time, a CPU or a next tid): its CPU and next tid.
 */
static bool sched_switch(const struct tmx_msg *msg, uint64_t *cpu, uint64_t *next_tid)
{
	const struct tmx_event *e = msg->event;
	const struct tmx_value *pl = e->scopes[TMX_SCOPE_PAYLOAD];
	const struct tmx_value *pc = msg->packet ? msg->packet->context : NULL;
	size_t len = e->cls->name ? strlen(e->cls->name) : 0;

	/* "sched_switch" (LTTng), "sched:sched_switch" (ftrace: system:event). */
	if (len < 12 || strcmp(e->cls->name + len - 12, "sched_switch") ||
	    (len > 12 && e->cls->name[len - 13] != ':'))
		return false;
	return msg->has_ts && int_member(pc, "cpu_id", cpu) &&
	       (int_member(pl, "next_tid", next_tid) || int_member(pl, "next_pid", next_tid));
}

/* The end of the "B" record of a slice that begins (name and args). */
static void put_slice_tail(struct outbuf *b, const struct tmx_msg *msg, uint64_t next_tid)
{
	const struct tmx_value *pl = msg->event->scopes[TMX_SCOPE_PAYLOAD];
	size_t comm = member(pl, "next_comm");

	outbuf_puts(b, ",\"name\":");
	if (comm && pl[comm].fc->kind == TMX_FC_STRING)
		json_string(b, pl[comm].str.ptr, pl[comm].str.len);
	else if (comm && pl[comm].fc->is_text)
		json_string(b, pl[comm].str.ptr, strnlen(pl[comm].str.ptr, pl[comm].str.len));
	else
		outbuf_puts(b, "\"?\"");
	outbuf_puts(b, ",\"args\":{\"tid\":");
	outbuf_u64(b, next_tid, 0);
	outbuf_puts(b, "}}");
}

/*
 * A switch on `cpu` at `ns`: the slice running there ends, and one begins
 * when `opens`, whose "B" record the caller ends.
 */
static int switch_slice(struct tmx_chrome *c, const struct tmx_msg *msg, size_t pid,
			uint64_t cpu, bool opens, struct tmx_error *err)
{
	struct cpu_slice *s = cpu_slice(c, msg, pid, cpu);

	if (!s)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory (Chrome output)");
	if (s->open) {
		put_slice_edge(c, "E", pid, cpu, msg->ns);
		outbuf_putc(&c->out, '}');
	}
	s->open = opens;
	if (opens)
		put_slice_edge(c, "B", pid, cpu, msg->ns);
	return TMX_OK;
}

static int write_error(const struct tmx_chrome *c, struct tmx_error *err)
{
	if (c->out.error)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(c->out.error));
	return TMX_OK;
}

static bool charted(const struct tmx_msg *msg)
{
	return msg->kind == TMX_MSG_EVENT || msg->kind == TMX_MSG_DISCARDED_EVENTS ||
	       msg->kind == TMX_MSG_DISCARDED_PACKETS;
}

int tmx_chrome_consume(struct tmx_chrome *c, const struct tmx_msg *msg, struct tmx_error *err)
{
	uint64_t cpu, next_tid;
	size_t pid, tid;

	if (msg->kind == TMX_MSG_EVENT && chrome_xray_is_xray(c->xr, msg->stream->cls->trace_class)) {
		if (chrome_xray_event(c->xr, &c->out, &c->first, msg, err))
			return err->code;
		return write_error(c, err);
	}
	if (!charted(msg))
		return TMX_OK;
	name_stream(c, msg->stream, &pid, &tid);
	begin_record(c);
	put_head(&c->out, msg);
	put_ids(&c->out, pid, tid);
	put_tail(c, msg);
	if (msg->kind == TMX_MSG_EVENT && msg->has_ts)
		c->last_ns = msg->ns;
	if (c->sched_slices && msg->kind == TMX_MSG_EVENT && sched_switch(msg, &cpu, &next_tid)) {
		if (switch_slice(c, msg, pid, cpu, next_tid != 0, err))
			return err->code;
		if (next_tid)
			put_slice_tail(&c->out, msg, next_tid);
	}
	return write_error(c, err);
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

/*
 * The split (src/sink/split.h).  A worker writes a record's head, a hole
 * for its ids (numbered in merged order), its tail; for a sched_switch
 * with slices on, a second hole, then the CPU and next tid (8 bytes each,
 * host order) and the "B" record's end.  emit() writes the separators,
 * the process and thread names when new, the ids and the slices, whose
 * state runs in merged order.
 */
void tmx_chrome_note_traces(struct tmx_chrome *c, const struct tmx_source *src)
{
	for (size_t i = 0; i < tmx_source_logical_trace_count(src); i++)
		c->has_xray |= chrome_xray_is_xray(c->xr, tmx_source_logical_trace(src, i)->cls);
}

bool tmx_chrome_splits(const struct tmx_chrome *c)
{
	/* XRay's B/E stacks run in llvm-xray's order: sequential. */
	return !c->has_xray;
}

struct tmx_chrome *tmx_chrome_worker_new(const struct tmx_chrome *sink)
{
	return chrome_alloc(-1, sink->sched_slices);
}

struct outbuf *tmx_chrome_worker_outbuf(struct tmx_chrome *w)
{
	return &w->out;
}

void tmx_chrome_format(struct tmx_chrome *w, const struct tmx_msg *msg, uint64_t hole[2])
{
	uint64_t sw[2];

	hole[0] = hole[1] = SINK_NO_POS;
	if (!charted(msg))
		return;
	put_head(&w->out, msg);
	hole[0] = outbuf_pos(&w->out);
	put_tail(w, msg);
	if (!w->sched_slices || msg->kind != TMX_MSG_EVENT || !sched_switch(msg, &sw[0], &sw[1]))
		return;
	hole[1] = outbuf_pos(&w->out);
	outbuf_write(&w->out, (const char *)sw, sizeof(sw));
	if (sw[1])
		put_slice_tail(&w->out, msg, sw[1]);
}

int tmx_chrome_emit(struct tmx_chrome *c, const struct sink_piece *pc, struct tmx_error *err)
{
	const struct tmx_msg *msg = pc->msg;
	uint32_t end = pc->hole[1] == SINK_NO_HOLE ? pc->len : pc->hole[1];
	uint64_t sw[2];
	size_t pid, tid;

	if (!charted(msg))
		return TMX_OK;
	name_stream(c, msg->stream, &pid, &tid);
	begin_record(c);
	outbuf_write(&c->out, pc->text, pc->hole[0]);
	put_ids(&c->out, pid, tid);
	outbuf_write(&c->out, pc->text + pc->hole[0], end - pc->hole[0]);
	if (msg->kind == TMX_MSG_EVENT && msg->has_ts)
		c->last_ns = msg->ns;
	if (end < pc->len) {
		memcpy(sw, pc->text + end, sizeof(sw));
		if (switch_slice(c, msg, pid, sw[0], sw[1] != 0, err))
			return err->code;
		outbuf_write(&c->out, pc->text + end + sizeof(sw), pc->len - end - sizeof(sw));
	}
	return write_error(c, err);
}
