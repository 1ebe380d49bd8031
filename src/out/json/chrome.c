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
 */
#include <stdlib.h>
#include <string.h>

#include "out/json/chrome.h"
#include "out/json/jsonval.h"
#include "out/outbuf.h"

#define MAX_IDS 4096

struct tmx_chrome {
	bool first;
	size_t n_traces, n_streams;
	const struct tmx_trace *traces[MAX_IDS];
	const struct tmx_stream *streams[MAX_IDS];
	struct outbuf out;
};

struct tmx_chrome *tmx_chrome_new(int fd)
{
	struct tmx_chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	outbuf_init(&c->out, fd);
	outbuf_puts(&c->out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	c->first = true;
	return c;
}

void tmx_chrome_free(struct tmx_chrome *c)
{
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
	json_string(b, e->cls->name, strlen(e->cls->name));
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

	if (msg->kind != TMX_MSG_EVENT && msg->kind != TMX_MSG_DISCARDED_EVENTS &&
	    msg->kind != TMX_MSG_DISCARDED_PACKETS)
		return TMX_OK;
	name_stream(c, msg->stream, &pid, &tid);
	if (msg->kind == TMX_MSG_EVENT)
		put_event(c, msg, pid, tid);
	else
		put_discarded(c, msg, msg->kind == TMX_MSG_DISCARDED_EVENTS ? "discarded events" :
				      "discarded packets", pid, tid);
	if (c->out.error)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(c->out.error));
	return TMX_OK;
}

int tmx_chrome_finish(struct tmx_chrome *c, struct tmx_error *err)
{
	int e;

	outbuf_puts(&c->out, "\n]}\n");
	e = outbuf_flush(&c->out);
	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return TMX_OK;
}
