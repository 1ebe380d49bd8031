/*
 * babeltrace2-style text (sink.text.pretty, babeltrace2 2.0.4).
 *
 * One line per event:
 *   [time] (+delta) host:domain:procname:(vpid):loglevel name: { packet
 *   context }, { common context }, { specific context }, { payload }
 * and WARNING lines on the error stream for discarded events and packets.
 * The exact spacing, escapes, number formats and terminal colors follow
 * babeltrace2's output (see tests/unit/test_pretty.c and tests/golden):
 * keep them byte for byte, quirks included.
 *
 * Hot path: values are formatted straight into a large output buffer by
 * hand-rolled routines; the time of day is computed once per second; the
 * text between the timestamp and the fields is formatted once per event
 * class and the packet context once per packet.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/uuid.h"
#include "model/field_class.h"
#include "sink/split.h"
#include "sink/text/pretty_impl.h"

/* ------------------------------------------------------------------ */
/* Life cycle                                                           */
/* ------------------------------------------------------------------ */

struct tmx_pretty *tmx_pretty_new(const struct tmx_pretty_opts *opts)
{
	struct tmx_pretty *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->opts = *opts;
	pretty_init_colors(&p->colors, opts->color);
	timefmt_init(&p->time, opts->clock_gmt);
	outbuf_init(&p->out, opts->out_fd);
	outbuf_init(&p->err, opts->err_fd);
	return p;
}

void tmx_pretty_free(struct tmx_pretty *p)
{
	if (!p)
		return;
	member_texts_free(&p->names);
	free(p);
}

static int write_error(struct tmx_pretty *p, struct tmx_error *err)
{
	int e = p->out.error ? p->out.error : p->err.error;

	if (!e)
		return TMX_OK;
	return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
}

int tmx_pretty_flush(struct tmx_pretty *p, struct tmx_error *err)
{
	outbuf_flush(&p->out);
	outbuf_flush(&p->err);
	return write_error(p, err);
}
/* Time                                                                 */
/* ------------------------------------------------------------------ */

/*
 * babeltrace2 prints the first negative time as seconds, after a warning
 * on the error stream; later ones go through the time-of-day path with
 * their absolute value (a 2.0.4 quirk, kept for identical output).
 * Returns whether this time is printed as seconds for that reason.
 */
static bool negative_fallback(struct tmx_pretty *p, const struct timefmt_split *ts)
{
	if (!ts->negative || p->opts.clock_seconds || p->negative_warning_done)
		return false;
	p->negative_warning_done = true;
	/* Before the line that needs it, as babeltrace2 writes it. */
	outbuf_flush(&p->out);
	outbuf_puts(&p->err, "[warning] Fallback to [sec.ns] to print negative time value. "
		    "Use --clock-seconds.\n");
	outbuf_flush(&p->err);
	return true;
}

static void put_wall_time(struct tmx_pretty *p, struct outbuf *b, const struct timefmt_split *ts,
			  bool as_seconds)
{
	if (as_seconds || p->opts.clock_seconds ||
	    !timefmt_put_clock(&p->time, b, ts->sec, ts->nsec, p->opts.clock_date))
		timefmt_put_seconds(b, ts);
}

static void put_delta(struct tmx_pretty *p, bool known, uint64_t delta)
{
	struct outbuf *b = &p->out;

	/* The common case, `(+S.NNNNNNNNN) `, in place. */
	if (known && !p->opts.names_header && !p->opts.clock_cycles) {
		char *q = outbuf_reserve(b, 2 + 30 + 2);

		memcpy(q, "(+", 2);
		q = tmx_put_sec_ns(q + 2, delta / TIMEFMT_NS_PER_S,
				   (uint32_t)(delta % TIMEFMT_NS_PER_S));
		memcpy(q, ") ", 2);
		outbuf_commit(b, q + 2);
		return;
	}
	if (p->opts.names_header) {
		outbuf_write(b, ", ", 2);
		put_name_equal(p, "delta");
	} else {
		outbuf_putc(b, '(');
	}
	if (!known) {
		outbuf_puts(b, p->opts.clock_cycles ? "+????????????" : "+?.?????????");
	} else if (p->opts.clock_cycles) {
		outbuf_putc(b, '+');
		outbuf_u64(b, delta, 12);
	} else {
		outbuf_putc(b, '+');
		outbuf_sec_ns(b, delta / TIMEFMT_NS_PER_S, (uint32_t)(delta % TIMEFMT_NS_PER_S));
	}
	if (!p->opts.names_header)
		outbuf_write(b, ") ", 2);
}

/*
 * The delta column: the time since the previous event printed (in merged
 * order: on the main thread with the parallel runner).
 */
static void put_delta_of(struct tmx_pretty *p, const struct tmx_msg *msg)
{
	bool known;
	uint64_t delta;

	if (p->opts.clock_cycles) {
		known = p->has_last_cycles;
		delta = msg->cycles - p->last_cycles;
		p->last_cycles = msg->cycles;
		p->has_last_cycles = true;
	} else {
		/* babeltrace2 keeps the difference in 64 unsigned bits. */
		known = p->has_last_ns;
		delta = (uint64_t)msg->ns - (uint64_t)p->last_ns;
		p->last_ns = msg->ns;
		p->has_last_ns = true;
	}
	if (!p->opts.no_delta)
		put_delta(p, known, delta);
}

/*
 * Whether the time is printed by the main thread: a negative time may be
 * the first one, printed as seconds after a warning.
 */
static bool time_deferred(const struct tmx_pretty *p, const struct timefmt_split *ts)
{
	return p->worker && ts->negative && !p->opts.clock_cycles && !p->opts.clock_seconds;
}

/* Events of a stream without a clock have no timestamp column at all. */
static void put_timestamp(struct tmx_pretty *p, const struct tmx_msg *msg)
{
	struct outbuf *b = &p->out;
	bool names = p->opts.names_header;
	struct timefmt_split ts;
	bool as_seconds = false;

	if (!msg->has_ts)
		return;
	ts = timefmt_split(msg->ns);
	if (!p->worker && !p->opts.clock_cycles)
		as_seconds = negative_fallback(p, &ts);
	if (names)
		put_name_equal(p, "timestamp");
	else
		outbuf_putc(b, '[');
	put_color(p, p->colors.timestamp);
	if (p->opts.clock_cycles)
		outbuf_u64(b, msg->cycles, 20);
	else if (time_deferred(p, &ts))
		p->hole[0] = outbuf_pos(b);
	else
		put_wall_time(p, b, &ts, as_seconds);
	put_color(p, COLOR_RESET);
	if (!names)
		outbuf_write(b, "] ", 2);
	if (p->worker)
		p->hole[1] = outbuf_pos(b);
	else
		put_delta_of(p, msg);
	p->start_line = !names;
}

/* ------------------------------------------------------------------ */
/* Event header fields                                                  */
/* ------------------------------------------------------------------ */

static const char *const log_level_names[] = {
	"TRACE_EMERG", "TRACE_ALERT", "TRACE_CRIT", "TRACE_ERR", "TRACE_WARNING",
	"TRACE_NOTICE", "TRACE_INFO", "TRACE_DEBUG_SYSTEM", "TRACE_DEBUG_PROGRAM",
	"TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE", "TRACE_DEBUG_UNIT",
	"TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE", "TRACE_DEBUG",
};

/* One of the colon-joined header fields (hostname, domain, ...). */
static void put_dom_field(struct tmx_pretty *p, bool *dom_print, const char *name,
			  const char *text)
{
	struct outbuf *b = &p->out;

	if (!p->start_line)
		outbuf_write(b, ", ", 2);
	if (p->opts.names_header)
		put_name_equal(p, name);
	else if (*dom_print)
		outbuf_putc(b, ':');
	outbuf_puts(b, text);
	*dom_print = true;
}

/* hostname, domain, procname: strings of the trace environment. */
static void put_env_string(struct tmx_pretty *p, bool *dom_print, const struct tmx_trace_class *tc,
			   const char *env, const char *name)
{
	const struct tmx_env_entry *e = tmx_trace_class_env(tc, env);

	if (e && !e->is_int)
		put_dom_field(p, dom_print, name, e->str_value);
}

static void put_trace_name(struct tmx_pretty *p, const char *name)
{
	/* babeltrace2 2.0.4 puts no space after the trace name, and ", " with names. */
	if (!p->start_line)
		outbuf_write(&p->out, ", ", 2);
	if (p->opts.names_header)
		put_name_equal(p, "trace");
	outbuf_puts(&p->out, name);
	if (p->opts.names_header)
		outbuf_write(&p->out, ", ", 2);
}

static void put_event_header_fields(struct tmx_pretty *p, const struct tmx_msg *msg)
{
	const struct tmx_event_class *ec = msg->event->cls;
	const struct tmx_trace_class *tc = msg->stream->trace->cls;
	struct outbuf *b = &p->out;
	bool names = p->opts.names_header;
	bool dom_print = false;

	if (p->opts.field_trace && msg->stream->trace->name)
		put_trace_name(p, msg->stream->trace->name);
	if (p->opts.field_trace_hostname)
		put_env_string(p, &dom_print, tc, "hostname", "trace:hostname");
	if (p->opts.field_trace_domain)
		put_env_string(p, &dom_print, tc, "domain", "trace:domain");
	if (p->opts.field_trace_procname)
		put_env_string(p, &dom_print, tc, "procname", "trace:procname");
	if (p->opts.field_trace_vpid) {
		const struct tmx_env_entry *e = tmx_trace_class_env(tc, "vpid");
		if (e && e->is_int) {
			char text[32];
			snprintf(text, sizeof(text), "(%lld)", (long long)e->int_value);
			put_dom_field(p, &dom_print, "trace:vpid", text);
		}
	}
	if (p->opts.field_loglevel && ec->log_level >= 0 &&
	    ec->log_level < (int)(sizeof(log_level_names) / sizeof(log_level_names[0]))) {
		char text[64];
		snprintf(text, sizeof(text), "%s (%d)", log_level_names[ec->log_level], ec->log_level);
		put_dom_field(p, &dom_print, "loglevel", text);
	}
	if (p->opts.field_emf && ec->emf_uri)
		put_dom_field(p, &dom_print, "model.emf.uri", ec->emf_uri);
	if (dom_print && !names)
		outbuf_putc(b, ' ');
	if (!p->start_line)
		outbuf_write(b, ", ", 2);
	p->start_line = true;
	if (names)
		put_name_equal(p, "name");
	put_color(p, p->colors.event_name);
	outbuf_puts(b, ec->name ? ec->name : "<unknown>");   /* CTF 2 names are optional */
	put_color(p, COLOR_RESET);
	outbuf_write(b, names ? ", " : ": ", 2);
}

/*
 * The cache entry of (event class, trace, start_line), or a free entry for
 * it (ec == NULL), or NULL when the table is full: linear probing.
 */
static struct header_cache *find_header(struct tmx_pretty *p, const struct tmx_event_class *ec,
					const struct tmx_trace *trace, bool start_line)
{
	size_t h = (((uintptr_t)ec >> 4) * 31 + ((uintptr_t)trace >> 4) + start_line);

	for (size_t i = 0; i < HEADER_CACHE_SIZE; i++) {
		struct header_cache *c = &p->header_cache[(h + i) % HEADER_CACHE_SIZE];
		if (!c->ec || (c->ec == ec && c->trace == trace && c->start_line == start_line))
			return c;
	}
	return NULL;
}

/*
 * Everything between the timestamp and the fields depends only on the
 * event class, the trace and whether a timestamp was printed: it is
 * formatted once and copied afterwards.
 */
static void put_event_header(struct tmx_pretty *p, const struct tmx_msg *msg)
{
	const struct tmx_event_class *ec = msg->event->cls;
	const struct tmx_trace *trace = msg->stream->trace;
	struct header_cache *c;
	size_t before;
	bool start_line;

	put_timestamp(p, msg);
	start_line = p->start_line;
	c = find_header(p, ec, trace, start_line);
	if (c && c->ec) {
		outbuf_write(&p->out, c->text, c->len);
		p->start_line = true;
		return;
	}
	before = p->out.len;
	put_event_header_fields(p, msg);
	/* Cache it unless the buffer was flushed meanwhile or it is too long. */
	if (c && p->out.len >= before && p->out.len - before <= sizeof(c->text)) {
		c->ec = ec;
		c->trace = trace;
		c->start_line = start_line;
		c->len = p->out.len - before;
		memcpy(c->text, p->out.data + before, c->len);
	}
}


/*
 * The packet context is the same for every event of a packet: printed
 * once.  Its members with a meaning (sizes, timestamps, counters) are
 * packet properties in babeltrace2, not fields: hidden.
 */
static void put_packet_context(struct tmx_pretty *p, const struct tmx_event *e)
{
	const struct tmx_packet *pk = e->packet;
	struct context_cache *c = &p->context_cache[((uintptr_t)pk >> 4) % CONTEXT_CACHE_SIZE];
	bool start_line = p->start_line;
	size_t before;

	if (c->packet == pk && c->seq == pk->seq && start_line) {
		outbuf_write(&p->out, c->text, c->len);
		p->start_line = c->len == 0;
		return;
	}
	before = p->out.len;
	pretty_put_scope(p, e->scopes[TMX_SCOPE_PACKET_CONTEXT], "stream.packet.context",
		  p->opts.names_context, true);
	/* Only the common case (a line start before it) is cached. */
	if (start_line && p->out.len >= before && p->out.len - before <= sizeof(c->text)) {
		c->packet = pk;
		c->seq = pk->seq;
		c->len = p->out.len - before;
		memcpy(c->text, p->out.data + before, c->len);
	}
}

static void put_event(struct tmx_pretty *p, const struct tmx_msg *msg)
{
	const struct tmx_event *e = msg->event;

	p->start_line = true;
	p->brace_labels = tmx_trace_class_is_ctf2(msg->stream->trace->cls);
	put_event_header(p, msg);
	put_packet_context(p, e);
	pretty_put_scope(p, e->scopes[TMX_SCOPE_COMMON_CONTEXT], "stream.event.context",
		  p->opts.names_context, false);
	pretty_put_scope(p, e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT], "event.context",
		  p->opts.names_context, false);
	pretty_put_scope(p, e->scopes[TMX_SCOPE_PAYLOAD], "event.fields", p->opts.names_payload, false);
	outbuf_putc(&p->out, '\n');
}

/* ------------------------------------------------------------------ */
/* Discarded events and packets                                         */
/* ------------------------------------------------------------------ */

static void put_uuid(struct outbuf *b, const uint8_t *u)
{
	char text[TMX_UUID_TEXT_LEN + 1];

	tmx_uuid_text(text, u);
	outbuf_write(b, text, TMX_UUID_TEXT_LEN);
}

/* "N events", or "events" when the tracer did not count them. */
static void put_discarded_count(struct outbuf *b, uint64_t count, const char *what)
{
	if (count) {
		outbuf_puts(b, "Tracer discarded ");
		outbuf_u64(b, count, 0);
		outbuf_putc(b, ' ');
		outbuf_puts(b, what);
		if (count != 1)
			outbuf_putc(b, 's');
	} else {
		outbuf_puts(b, "Tracer may have discarded ");
		outbuf_puts(b, what);
		outbuf_putc(b, 's');
	}
}

/* `between [begin] and [end]`, as wall-clock times even with --clock-cycles. */
static void put_discarded_range(struct tmx_pretty *p, const struct timefmt_split *begin,
				bool begin_as_seconds, const struct timefmt_split *end,
				bool end_as_seconds)
{
	struct outbuf *b = &p->err;

	outbuf_puts(b, "between [");
	put_wall_time(p, b, begin, begin_as_seconds);
	outbuf_puts(b, "] and [");
	put_wall_time(p, b, end, end_as_seconds);
	outbuf_putc(b, ']');
}

static void put_discarded_origin(struct outbuf *b, const struct tmx_stream *s)
{
	const struct tmx_trace_class *tc = s->trace->cls;

	outbuf_puts(b, " in trace \"");
	outbuf_puts(b, s->trace->name ? s->trace->name : "(unknown)");
	outbuf_puts(b, "\" ");
	if (tmx_trace_class_is_ctf2(tc)) {
		/* babeltrace 2.1 names a CTF 2 trace by its trace class's UID. */
		if (tc->uid) {
			outbuf_puts(b, "(UID: ");
			outbuf_puts(b, tc->uid);
			outbuf_puts(b, ") ");
		} else {
			outbuf_puts(b, "(no UID) ");
		}
	} else if (tc->has_uuid) {
		outbuf_puts(b, "(UUID: ");
		put_uuid(b, tc->uuid);
		outbuf_puts(b, ") ");
	} else {
		outbuf_puts(b, "(no UUID) ");
	}
	outbuf_puts(b, "within stream \"");
	outbuf_puts(b, s->name ? s->name : "(unknown)");
	outbuf_puts(b, "\" (stream class ID: ");
	outbuf_u64(b, s->cls->id, 0);
	outbuf_puts(b, ", stream ID: ");
	outbuf_u64(b, s->id, 0);
	outbuf_putc(b, ')');
}

static void put_discarded(struct tmx_pretty *p, const struct tmx_msg *msg, const char *what)
{
	struct timefmt_split begin = timefmt_split(msg->begin_ns);
	struct timefmt_split end = timefmt_split(msg->end_ns);
	bool begin_as_seconds = false, end_as_seconds = false;
	bool colors = p->colors.warnings;
	struct outbuf *b = &p->err;

	/* Keep the warning where it belongs among the events. */
	outbuf_flush(&p->out);
	/* A negative-time warning comes before the message that needs it. */
	if (msg->has_range) {
		begin_as_seconds = negative_fallback(p, &begin);
		end_as_seconds = negative_fallback(p, &end);
	}
	outbuf_puts(b, colors ? COLOR_YELLOW COLOR_BOLD "WARNING" COLOR_RESET COLOR_YELLOW ": "
			      : "WARNING: ");
	put_discarded_count(b, msg->count, what);
	outbuf_putc(b, ' ');
	if (msg->has_range)
		put_discarded_range(p, &begin, begin_as_seconds, &end, end_as_seconds);
	else
		outbuf_puts(b, "(unknown time range)");
	put_discarded_origin(b, msg->stream);
	outbuf_puts(b, colors ? "." COLOR_RESET "\n" : ".\n");
	outbuf_flush(b);
}

int tmx_pretty_consume(struct tmx_pretty *p, const struct tmx_msg *msg, struct tmx_error *err)
{
	switch (msg->kind) {
	case TMX_MSG_EVENT:
		put_event(p, msg);
		break;
	case TMX_MSG_DISCARDED_EVENTS:
		put_discarded(p, msg, "event");
		break;
	case TMX_MSG_DISCARDED_PACKETS:
		put_discarded(p, msg, "packet");
		break;
	default:
		return TMX_OK;
	}
	return write_error(p, err);
}

/* ------------------------------------------------------------------ */
/* The split for the parallel runner (src/sink/split.h)                 */
/* ------------------------------------------------------------------ */

struct tmx_pretty *tmx_pretty_worker_new(const struct tmx_pretty *sink)
{
	struct tmx_pretty *w = tmx_pretty_new(&sink->opts);

	if (w) {
		w->colors = sink->colors;
		w->worker = true;
	}
	return w;
}

struct outbuf *tmx_pretty_worker_outbuf(struct tmx_pretty *w)
{
	return &w->out;
}

/*
 * Events only: discarded items are warnings on the error stream, written
 * by tmx_pretty_emit() in merged order.
 */
void tmx_pretty_format(struct tmx_pretty *w, const struct tmx_msg *msg, uint64_t hole[2])
{
	hole[0] = hole[1] = SINK_NO_POS;
	if (msg->kind != TMX_MSG_EVENT)
		return;
	w->hole = hole;
	put_event(w, msg);
}

/* Writes text[from, to). */
static void put_part(struct tmx_pretty *p, const struct sink_piece *pc, uint32_t from, uint32_t to)
{
	outbuf_write(&p->out, pc->text + from, to - from);
}

int tmx_pretty_emit(struct tmx_pretty *p, const struct sink_piece *pc, struct tmx_error *err)
{
	const struct tmx_msg *msg = pc->msg;
	uint32_t at = 0;

	if (msg->kind != TMX_MSG_EVENT)
		return tmx_pretty_consume(p, msg, err);
	if (pc->hole[0] != SINK_NO_HOLE) {
		struct timefmt_split ts = timefmt_split(msg->ns);
		bool as_seconds = negative_fallback(p, &ts);

		put_part(p, pc, 0, pc->hole[0]);
		put_wall_time(p, &p->out, &ts, as_seconds);
		at = pc->hole[0];
	}
	if (pc->hole[1] != SINK_NO_HOLE) {
		put_part(p, pc, at, pc->hole[1]);
		put_delta_of(p, msg);
		at = pc->hole[1];
	}
	put_part(p, pc, at, pc->len);
	return write_error(p, err);
}
