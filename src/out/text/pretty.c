/*
 * babeltrace2-style text (sink.text.pretty, babeltrace2 2.0.4).
 *
 * One line per event:
 *   [time] (+delta) host:domain:procname:(vpid):loglevel name: { packet
 *   context }, { common context }, { specific context }, { payload }
 * and WARNING lines on the error stream for discarded events and packets.
 * The exact spacing, escapes and number formats follow babeltrace2's output
 * (see tests/golden): keep them byte for byte.
 *
 * Hot path: values are formatted straight into a large output buffer by
 * hand-rolled routines; the local time is computed once per second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "out/outbuf.h"
#include "out/text/pretty.h"

#define NS_PER_S INT64_C(1000000000)

#define HEADER_CACHE_SIZE 256

struct header_cache {
	const struct tmx_event_class *ec;
	const struct tmx_trace *trace;
	bool start_line;
	size_t len;
	char text[240];
};

/* The printed packet context of a stream's current packet. */
#define CONTEXT_CACHE_SIZE 64

struct context_cache {
	const struct tmx_packet *packet;
	uint64_t seq;
	size_t len;
	char text[240];
};

struct tmx_pretty {
	struct tmx_pretty_opts opts;
	struct header_cache header_cache[HEADER_CACHE_SIZE];
	struct context_cache context_cache[CONTEXT_CACHE_SIZE];
	bool start_line;
	bool has_last_ns, has_last_cycles;
	int64_t last_ns;
	uint64_t last_cycles;
	bool negative_warning_done;
	/* Broken-down time of `cached_sec`, reused while the second is the same. */
	bool cache_valid;
	int64_t cached_sec;
	char cached_hms[32];       /* "YYYY-MM-DD " prefix + "HH:MM:SS" */
	size_t cached_date_len, cached_len;
	struct outbuf out;
	struct outbuf err;
};

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

void tmx_pretty_opts_default(struct tmx_pretty_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->names_payload = true;
	o->names_context = true;
	o->field_trace_hostname = true;
	o->field_trace_procname = true;
	o->field_trace_vpid = true;
	o->color = TMX_COLOR_AUTO;
	o->out_fd = 1;
	o->err_fd = 2;
}

/* Calls `word` for each comma-separated word; stops at the first failure. */
static int for_each_word(struct tmx_pretty_opts *o, const char *list,
			 int (*word)(struct tmx_pretty_opts *, const char *, size_t))
{
	while (*list) {
		size_t len = strcspn(list, ",");
		if (word(o, list, len))
			return -1;
		list += len;
		if (*list == ',')
			list++;
	}
	return 0;
}

static bool word_is(const char *w, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(w, name, len);
}

static int names_word(struct tmx_pretty_opts *o, const char *w, size_t len)
{
	if (word_is(w, len, "payload") || word_is(w, len, "arg") || word_is(w, len, "args"))
		o->names_payload = true;
	else if (word_is(w, len, "context") || word_is(w, len, "ctx"))
		o->names_context = true;
	else if (word_is(w, len, "scope"))
		o->names_scope = true;
	else if (word_is(w, len, "header"))
		o->names_header = true;
	else if (word_is(w, len, "all"))
		o->names_payload = o->names_context = o->names_scope = o->names_header = true;
	else if (!word_is(w, len, "none"))
		return -1;
	return 0;
}

int tmx_pretty_parse_names(struct tmx_pretty_opts *o, const char *list)
{
	o->names_payload = o->names_context = o->names_scope = o->names_header = false;
	return for_each_word(o, list, names_word);
}

static int fields_word(struct tmx_pretty_opts *o, const char *w, size_t len)
{
	if (word_is(w, len, "trace"))
		o->field_trace = true;
	else if (word_is(w, len, "trace:hostname"))
		o->field_trace_hostname = true;
	else if (word_is(w, len, "trace:domain"))
		o->field_trace_domain = true;
	else if (word_is(w, len, "trace:procname"))
		o->field_trace_procname = true;
	else if (word_is(w, len, "trace:vpid"))
		o->field_trace_vpid = true;
	else if (word_is(w, len, "loglevel"))
		o->field_loglevel = true;
	else if (word_is(w, len, "emf"))
		o->field_emf = true;
	else if (word_is(w, len, "callsite"))
		o->field_callsite = true;
	else if (word_is(w, len, "all"))
		o->field_trace = o->field_trace_hostname = o->field_trace_domain =
			o->field_trace_procname = o->field_trace_vpid = o->field_loglevel =
			o->field_emf = o->field_callsite = true;
	else
		return -1;
	return 0;
}

int tmx_pretty_parse_fields(struct tmx_pretty_opts *o, const char *list)
{
	o->field_trace = o->field_trace_hostname = o->field_trace_domain =
		o->field_trace_procname = o->field_trace_vpid = o->field_loglevel =
		o->field_emf = o->field_callsite = false;
	return for_each_word(o, list, fields_word);
}

struct tmx_pretty *tmx_pretty_new(const struct tmx_pretty_opts *opts)
{
	struct tmx_pretty *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->opts = *opts;
	outbuf_init(&p->out, opts->out_fd);
	outbuf_init(&p->err, opts->err_fd);
	return p;
}

void tmx_pretty_free(struct tmx_pretty *p)
{
	free(p);
}

int tmx_pretty_flush(struct tmx_pretty *p, struct tmx_error *err)
{
	int e = outbuf_flush(&p->out);

	if (!e)
		e = outbuf_flush(&p->err);
	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(e));
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Strings                                                              */
/* ------------------------------------------------------------------ */

/* babeltrace2's escapes: \\ \' \" \? and C escapes for control bytes. */
static void put_escaped(struct outbuf *b, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	outbuf_putc(b, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char x[5];

		if (c >= 0x20 && c != 0x7f && c != '\\' && c != '\'' && c != '"' && c != '?')
			continue;
		switch (c) {
		case '\\': esc = "\\\\"; break;
		case '\'': esc = "\\'"; break;
		case '"': esc = "\\\""; break;
		case '?': esc = "\\?"; break;
		case '\0': esc = "\\0"; break;
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case 27: esc = "\\e"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		default:
			x[0] = '\\';
			x[1] = 'x';
			x[2] = hex[c >> 4];
			x[3] = hex[c & 15];
			x[4] = '\0';
			esc = x;
		}
		outbuf_write(b, run, (size_t)(s + i - run));
		outbuf_puts(b, esc);
		run = s + i + 1;
	}
	outbuf_write(b, run, (size_t)(s + len - run));
	outbuf_putc(b, '"');
}

/* ------------------------------------------------------------------ */
/* Time                                                                 */
/* ------------------------------------------------------------------ */

static void cache_second(struct tmx_pretty *p, int64_t sec)
{
	time_t t = (time_t)sec;
	struct tm tm;
	struct tm *res = p->opts.clock_gmt ? gmtime_r(&t, &tm) : localtime_r(&t, &tm);

	p->cache_valid = res != NULL;
	p->cached_sec = sec;
	if (!res)
		return;
	p->cached_date_len = strftime(p->cached_hms, sizeof(p->cached_hms), "%Y-%m-%d ", &tm);
	p->cached_len = p->cached_date_len +
			strftime(p->cached_hms + p->cached_date_len,
				 sizeof(p->cached_hms) - p->cached_date_len, "%H:%M:%S", &tm);
}

/* Time of day (or seconds) of a time in ns from the origin, as babeltrace2 prints it. */
static void put_wall_time(struct tmx_pretty *p, struct outbuf *b, int64_t ns)
{
	int64_t sec = ns / NS_PER_S, nsec = ns % NS_PER_S;
	uint64_t sec_abs, nsec_abs;
	bool negative;

	negative = ns < 0;
	if (!negative) {
		sec_abs = (uint64_t)sec;
		nsec_abs = (uint64_t)nsec;
	} else if (nsec == 0) {
		sec_abs = (uint64_t)-sec;
		nsec_abs = 0;
	} else {
		/* bt2 prints -(|sec|).(|nsec|) for values below zero */
		sec_abs = (uint64_t)-sec;
		nsec_abs = (uint64_t)-nsec;
	}
	if (!p->opts.clock_seconds) {
		if (negative) {
			if (!p->negative_warning_done) {
				outbuf_flush(&p->out);
				outbuf_puts(&p->err, "[warning] Fallback to [sec.ns] to print negative "
					    "time value. Use --clock-seconds.\n");
				outbuf_flush(&p->err);
				p->negative_warning_done = true;
			}
		} else {
			if (!p->cache_valid || p->cached_sec != (int64_t)sec_abs)
				cache_second(p, (int64_t)sec_abs);
			if (p->cache_valid) {
				if (p->opts.clock_date)
					outbuf_write(b, p->cached_hms, p->cached_len);
				else
					outbuf_write(b, p->cached_hms + p->cached_date_len,
						     p->cached_len - p->cached_date_len);
				outbuf_putc(b, '.');
				outbuf_u64(b, nsec_abs, 9);
				return;
			}
		}
	}
	if (negative)
		outbuf_putc(b, '-');
	outbuf_u64(b, sec_abs, 0);
	outbuf_putc(b, '.');
	outbuf_u64(b, nsec_abs, 9);
}

static void put_name_equal(struct outbuf *b, const char *name)
{
	outbuf_puts(b, name);
	outbuf_write(b, " = ", 3);
}

static void put_timestamp(struct tmx_pretty *p, const struct tmx_msg *msg)
{
	struct outbuf *b = &p->out;
	bool names = p->opts.names_header;
	uint64_t delta = 0;
	bool has_delta;

	if (!msg->has_ts)
		return;
	if (names)
		put_name_equal(b, "timestamp");
	else
		outbuf_putc(b, '[');
	if (p->opts.clock_cycles) {
		outbuf_u64(b, msg->cycles, 20);
		has_delta = p->has_last_cycles;
		delta = msg->cycles - p->last_cycles;
		p->last_cycles = msg->cycles;
		p->has_last_cycles = true;
	} else {
		has_delta = p->has_last_ns;
		delta = (uint64_t)msg->ns - (uint64_t)p->last_ns;
		p->last_ns = msg->ns;
		p->has_last_ns = true;
		put_wall_time(p, b, msg->ns);
	}
	if (!names)
		outbuf_puts(b, "] ");
	if (!p->opts.no_delta) {
		if (names)
			outbuf_puts(b, ", delta = ");
		else
			outbuf_putc(b, '(');
		if (p->opts.clock_cycles) {
			if (has_delta) {
				outbuf_putc(b, '+');
				outbuf_u64(b, delta, 12);
			} else {
				outbuf_puts(b, "+????????????");
			}
		} else if (has_delta) {
			outbuf_putc(b, '+');
			outbuf_u64(b, delta / NS_PER_S, 0);
			outbuf_putc(b, '.');
			outbuf_u64(b, delta % NS_PER_S, 9);
		} else {
			outbuf_puts(b, "+?.?????????");
		}
		if (!names)
			outbuf_puts(b, ") ");
	}
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
		outbuf_puts(b, ", ");
	if (p->opts.names_header)
		put_name_equal(b, name);
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

static void put_event_header_fields(struct tmx_pretty *p, const struct tmx_msg *msg)
{
	const struct tmx_event_class *ec = msg->event->cls;
	const struct tmx_trace_class *tc = msg->stream->trace->cls;
	struct outbuf *b = &p->out;
	bool names = p->opts.names_header;
	bool dom_print = false;

	/* babeltrace2 2.0.4 puts no space after the trace name, and ", " with names. */
	if (p->opts.field_trace && msg->stream->trace->name) {
		if (!p->start_line)
			outbuf_puts(b, ", ");
		if (names)
			put_name_equal(b, "trace");
		outbuf_puts(b, msg->stream->trace->name);
		if (names)
			outbuf_puts(b, ", ");
	}
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
		outbuf_puts(b, ", ");
	p->start_line = true;
	if (names)
		put_name_equal(b, "name");
	outbuf_puts(b, ec->name);
	outbuf_puts(b, names ? ", " : ": ");
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

/* ------------------------------------------------------------------ */
/* Field values                                                         */
/* ------------------------------------------------------------------ */

static void put_integer(struct outbuf *b, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	uint64_t u = v->u;

	switch (fc->base) {
	case 2:
		outbuf_puts(b, "0b");
		for (int bit = (int)fc->size - 1; bit >= 0; bit--)
			outbuf_putc(b, (u >> bit) & 1 ? '1' : '0');
		return;
	case 8:
		if (fc->is_signed && fc->size < 64) {
			unsigned rounded = ((fc->size - 1) / 3 + 1) * 3;
			if (rounded < 64)
				u &= (UINT64_C(1) << rounded) - 1;
		}
		outbuf_putc(b, '0');
		outbuf_oct(b, u);
		return;
	case 16:
		if (fc->size < 64) {
			unsigned rounded = (fc->size + 3) & ~3u;
			if (rounded < 64)
				u &= (UINT64_C(1) << rounded) - 1;
		}
		outbuf_puts(b, "0x");
		outbuf_hex(b, u);
		return;
	default:
		if (fc->is_signed)
			outbuf_i64(b, v->s);
		else
			outbuf_u64(b, u, 0);
	}
}

static bool range_contains(const struct tmx_field_class *fc, const struct tmx_enum_range *r,
			   uint64_t value)
{
	if (fc->is_signed)
		return (int64_t)value >= (int64_t)r->lower && (int64_t)value <= (int64_t)r->upper;
	return value >= r->lower && value <= r->upper;
}

static void put_enum(struct outbuf *b, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	size_t printed = 0;

	outbuf_puts(b, "( ");
	for (size_t m = 0; m < fc->n_mappings; m++) {
		const struct tmx_enum_mapping *map = &fc->mappings[m];
		for (size_t r = 0; r < map->n_ranges; r++) {
			if (!range_contains(fc, &map->ranges[r], v->u))
				continue;
			if (printed++)
				outbuf_puts(b, ", ");
			put_escaped(b, map->label, strlen(map->label));
			break;
		}
	}
	if (!printed)
		outbuf_puts(b, "<unknown>");
	outbuf_puts(b, " : container = ");
	put_integer(b, v);
	outbuf_puts(b, " )");
}

static size_t put_value(struct outbuf *b, const struct tmx_value *vals, size_t i, bool names,
			bool hide_meaning);

static size_t put_struct(struct outbuf *b, const struct tmx_value *vals, size_t i, bool names,
			 bool hide_meaning)
{
	const struct tmx_field_class *fc = vals[i].fc;
	uint32_t n = vals[i].n_members;
	size_t printed = 0;

	i++;
	outbuf_putc(b, '{');
	for (uint32_t m = 0; m < n; m++) {
		const struct tmx_member *mem = &fc->members[m];
		if (hide_meaning && mem->fc->meaning != TMX_MEANING_NONE) {
			i = tmx_value_skip(vals, i);
			continue;
		}
		outbuf_puts(b, printed++ ? ", " : " ");
		if (names)
			put_name_equal(b, mem->name);
		i = put_value(b, vals, i, names, false);
	}
	outbuf_puts(b, " }");
	return i;
}

static size_t put_array(struct outbuf *b, const struct tmx_value *vals, size_t i, bool names)
{
	uint64_t count = vals[i].count;
	bool plain_ints = count && vals[i].fc->elem->kind == TMX_FC_INT;

	i++;
	outbuf_putc(b, '[');
	for (uint64_t e = 0; e < count; e++) {
		outbuf_write(b, e ? ", " : " ", e ? 2 : 1);
		if (names) {
			outbuf_putc(b, '[');
			outbuf_u64(b, e, 0);
			outbuf_write(b, "] = ", 4);
		}
		/* Integer elements (byte buffers, ID lists): no dispatch needed. */
		if (plain_ints)
			put_integer(b, &vals[i++]);
		else
			i = put_value(b, vals, i, names, false);
	}
	outbuf_write(b, " ]", 2);
	return i;
}

static size_t put_value(struct outbuf *b, const struct tmx_value *vals, size_t i, bool names,
			bool hide_meaning)
{
	const struct tmx_value *v = &vals[i];
	char num[64];

	switch (v->fc->kind) {
	case TMX_FC_INT:
		put_integer(b, v);
		return i + 1;
	case TMX_FC_ENUM:
		put_enum(b, v);
		return i + 1;
	case TMX_FC_FLOAT:
		snprintf(num, sizeof(num), "%g", v->d);
		outbuf_puts(b, num);
		return i + 1;
	case TMX_FC_STRING:
		put_escaped(b, v->str.ptr, v->str.len);
		return i + 1;
	case TMX_FC_STRUCT:
		return put_struct(b, vals, i, names, hide_meaning);
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (v->fc->is_text) {
			/* A text array reads as a C string: up to its first NUL. */
			const char *nul = memchr(v->str.ptr, '\0', v->str.len);
			put_escaped(b, v->str.ptr, nul ? (size_t)(nul - v->str.ptr) : v->str.len);
			return i + 1;
		}
		return put_array(b, vals, i, names);
	case TMX_FC_VARIANT:
		outbuf_puts(b, "{ ");
		i = put_value(b, vals, i + 1, names, false);
		outbuf_puts(b, " }");
		return i;
	}
	return i + 1;
}

/* A struct scope with every member hidden is not printed at all. */
static bool has_visible_member(const struct tmx_field_class *fc)
{
	for (size_t m = 0; m < fc->n_members; m++)
		if (fc->members[m].fc->meaning == TMX_MEANING_NONE)
			return true;
	return false;
}

static void put_scope(struct tmx_pretty *p, const struct tmx_value *vals, const char *scope_name,
		      bool names, bool hide_meaning)
{
	struct outbuf *b = &p->out;

	if (!vals)
		return;
	if (hide_meaning && !has_visible_member(vals[0].fc))
		return;
	if (!p->start_line)
		outbuf_puts(b, ", ");
	p->start_line = false;
	if (p->opts.names_scope)
		put_name_equal(b, scope_name);
	put_value(b, vals, 0, names, hide_meaning);
}

/* The packet context is the same for every event of a packet: printed once. */
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
	put_scope(p, e->scopes[TMX_SCOPE_PACKET_CONTEXT], "stream.packet.context",
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
	put_event_header(p, msg);
	put_packet_context(p, e);
	put_scope(p, e->scopes[TMX_SCOPE_COMMON_CONTEXT], "stream.event.context",
		  p->opts.names_context, false);
	put_scope(p, e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT], "event.context",
		  p->opts.names_context, false);
	put_scope(p, e->scopes[TMX_SCOPE_PAYLOAD], "event.fields", p->opts.names_payload, false);
	outbuf_putc(&p->out, '\n');
}

/* ------------------------------------------------------------------ */
/* Discarded events and packets                                         */
/* ------------------------------------------------------------------ */

static void put_uuid(struct outbuf *b, const uint8_t *u)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			outbuf_putc(b, '-');
		outbuf_putc(b, hex[u[i] >> 4]);
		outbuf_putc(b, hex[u[i] & 15]);
	}
}

static void put_discarded(struct tmx_pretty *p, const struct tmx_msg *msg, const char *what)
{
	const struct tmx_stream *s = msg->stream;
	const struct tmx_trace_class *tc = s->trace->cls;
	struct outbuf *b = &p->err;

	/* Keep the warning where it belongs among the events. */
	outbuf_flush(&p->out);
	outbuf_puts(b, "WARNING: Tracer discarded ");
	outbuf_u64(b, msg->count, 0);
	outbuf_putc(b, ' ');
	outbuf_puts(b, what);
	outbuf_puts(b, msg->count == 1 ? " " : "s ");
	if (msg->has_range) {
		outbuf_puts(b, "between [");
		put_wall_time(p, b, msg->begin_ns);
		outbuf_puts(b, "] and [");
		put_wall_time(p, b, msg->end_ns);
		outbuf_putc(b, ']');
	} else {
		outbuf_puts(b, "(unknown time range)");
	}
	outbuf_puts(b, " in trace \"");
	outbuf_puts(b, s->trace->name ? s->trace->name : "(unknown)");
	outbuf_puts(b, "\" ");
	if (tc->has_uuid) {
		outbuf_puts(b, "(UUID: ");
		put_uuid(b, tc->uuid);
		outbuf_puts(b, ") ");
	} else {
		outbuf_puts(b, "(no UUID) ");
	}
	outbuf_puts(b, "within stream \"");
	outbuf_puts(b, s->name);
	outbuf_puts(b, "\" (stream class ID: ");
	outbuf_u64(b, s->cls->id, 0);
	outbuf_puts(b, ", stream ID: ");
	outbuf_u64(b, s->id, 0);
	outbuf_puts(b, ").\n");
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
	if (p->out.error || p->err.error)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(p->out.error ? p->out.error : p->err.error));
	return TMX_OK;
}
