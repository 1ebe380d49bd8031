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
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/field_class.h"
#include "sink/outbuf.h"
#include "sink/split.h"
#include "sink/text/pretty.h"
#include "sink/member_text.h"
#include "sink/timefmt.h"
#include "common/errors.h"

/* babeltrace2's terminal codes; the "bright" ones depend on the environment. */
#define COLOR_RESET "\033[0m"
#define COLOR_BOLD "\033[1m"
#define COLOR_FIELD_NAME "\033[36m"
#define COLOR_YELLOW "\033[33m"
#define COLOR_CODE_MAX 24

struct colors {
	bool events;    /* event lines: --color allows and the terminal has them */
	bool warnings;  /* discarded-item warnings: whenever the terminal has them */
	char timestamp[COLOR_CODE_MAX];
	char event_name[COLOR_CODE_MAX];
	char unknown[COLOR_CODE_MAX];
};

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
	struct colors colors;
	struct header_cache header_cache[HEADER_CACHE_SIZE];
	struct context_cache context_cache[CONTEXT_CACHE_SIZE];
	/* `, name = ` of each member of the structure classes met, colors included. */
	struct member_texts names;
	/* Nothing printed yet on the line (babeltrace2's `start_line`). */
	bool start_line;
	bool has_last_ns, has_last_cycles;
	int64_t last_ns;
	uint64_t last_cycles;
	bool negative_warning_done;
	/*
	 * The event being printed is of a CTF 2 trace: babeltrace 2.1 braces
	 * several enumeration labels (`( { "A", "B" } : ...`), which 2.0.4,
	 * the reference for CTF 1.8, does not.
	 */
	bool brace_labels;
	struct timefmt time;
	/*
	 * A worker's formatter (src/par/): the time column of a negative time
	 * and the delta column are holes, filled by tmx_pretty_emit().
	 */
	bool worker;
	uint64_t *hole;
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

/* A word of a -n/-f list and the option flag it sets. */
struct list_word {
	const char *word;
	size_t flag;    /* offset of a bool in struct tmx_pretty_opts */
};

#define FLAG(member) offsetof(struct tmx_pretty_opts, member)

static const struct list_word name_words[] = {
	{ "payload", FLAG(names_payload) }, { "args", FLAG(names_payload) },
	{ "arg", FLAG(names_payload) }, { "context", FLAG(names_context) },
	{ "ctx", FLAG(names_context) }, { "scope", FLAG(names_scope) },
	{ "header", FLAG(names_header) },
};

static const struct list_word field_words[] = {
	{ "trace", FLAG(field_trace) }, { "trace:hostname", FLAG(field_trace_hostname) },
	{ "trace:domain", FLAG(field_trace_domain) },
	{ "trace:procname", FLAG(field_trace_procname) },
	{ "trace:vpid", FLAG(field_trace_vpid) }, { "loglevel", FLAG(field_loglevel) },
	{ "emf", FLAG(field_emf) }, { "callsite", FLAG(field_callsite) },
};

struct word_list {
	const char *option;    /* for messages: "--names" */
	const char *what;      /* "name" */
	const char *expected;
	const struct list_word *words;
	size_t n_words;
	bool has_none;         /* `none` is a word of this list */
};

static const struct word_list names_list = {
	"--names", "name", "payload, context, scope, header, all or none",
	name_words, sizeof(name_words) / sizeof(name_words[0]), true,
};

static const struct word_list fields_list = {
	"--fields", "field",
	"trace, trace:hostname, trace:domain, trace:procname, trace:vpid, loglevel, emf, "
	"callsite or all",
	field_words, sizeof(field_words) / sizeof(field_words[0]), false,
};

static bool *flag_of(struct tmx_pretty_opts *o, size_t offset)
{
	return (bool *)((char *)o + offset);
}

static bool word_is(const char *w, size_t len, const char *name)
{
	return strlen(name) == len && !memcmp(w, name, len);
}

/* Words are separated by commas or white space, as babeltrace2's scanner reads them. */
static bool next_word(const char **list, const char **word, size_t *len)
{
	static const char separators[] = ", \t\n";
	const char *s = *list + strspn(*list, separators);

	*word = s;
	*len = strcspn(s, separators);
	*list = s + *len;
	return *len != 0;
}

/*
 * babeltrace2's rules: the listed flags replace the default set, `all`
 * sets every flag, `none` only clears the defaults, and an empty list
 * gives the defaults.
 */
static int parse_list(struct tmx_pretty_opts *o, const struct word_list *set, const char *list,
		      struct tmx_error *err)
{
	struct tmx_pretty_opts result = *o, defaults;
	bool all = false, none = false, any = false;
	const char *w;
	size_t len;

	tmx_pretty_opts_default(&defaults);
	for (size_t i = 0; i < set->n_words; i++)
		*flag_of(&result, set->words[i].flag) = false;
	while (next_word(&list, &w, &len)) {
		size_t i = 0;

		any = true;
		if (word_is(w, len, "all")) {
			all = true;
			continue;
		}
		if (set->has_none && word_is(w, len, "none")) {
			none = true;
			continue;
		}
		while (i < set->n_words && !word_is(w, len, set->words[i].word))
			i++;
		if (i == set->n_words)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "unknown %s `%.*s` in %s (expected %s)", set->what,
					     (int)len, w, set->option, set->expected);
		*flag_of(&result, set->words[i].flag) = true;
	}
	if (all && none)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "%s: `all` and `none` cannot be given together", set->option);
	for (size_t i = 0; i < set->n_words; i++) {
		bool *flag = flag_of(&result, set->words[i].flag);

		if (!any)
			*flag = *flag_of(&defaults, set->words[i].flag);
		else if (all)
			*flag = true;
	}
	*o = result;
	return TMX_OK;
}

int tmx_pretty_set_names(struct tmx_pretty_opts *o, const char *list, struct tmx_error *err)
{
	return parse_list(o, &names_list, list, err);
}

int tmx_pretty_set_fields(struct tmx_pretty_opts *o, const char *list, struct tmx_error *err)
{
	return parse_list(o, &fields_list, list, err);
}

/* ------------------------------------------------------------------ */
/* Terminal colors                                                      */
/* ------------------------------------------------------------------ */

/* A terminal, not a pipe or a file; babeltrace2 also rejects non-character devices. */
static bool is_real_tty(int fd)
{
	struct stat st;

	return isatty(fd) && (fstat(fd, &st) || S_ISCHR(st.st_mode));
}

bool tmx_pretty_terminal_colors(void)
{
	static const char *const terms[] = {
		"xterm", "rxvt", "konsole", "gnome", "screen", "tmux", "putty",
	};
	const char *force = getenv("BABELTRACE_TERM_COLOR");
	const char *term = getenv("TERM");

	if (force && !strcasecmp(force, "always"))
		return true;
	if ((force && !strcasecmp(force, "never")) || !term)
		return false;
	for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++)
		if (!strncmp(term, terms[i], strlen(terms[i])))
			return is_real_tty(STDOUT_FILENO) && is_real_tty(STDERR_FILENO);
	return false;
}

/* Bold, then a "bright" color: bold too unless BABELTRACE_TERM_COLOR_BRIGHT_MEANS_BOLD=0. */
static void bold_bright(char *code, char color_digit)
{
	const char *bold = getenv("BABELTRACE_TERM_COLOR_BRIGHT_MEANS_BOLD");

	if (bold && !strcmp(bold, "0"))
		snprintf(code, COLOR_CODE_MAX, COLOR_BOLD "\033[9%cm", color_digit);
	else
		snprintf(code, COLOR_CODE_MAX, COLOR_BOLD COLOR_BOLD "\033[3%cm", color_digit);
}

/*
 * babeltrace2 2.0.4 emits codes only when the terminal has colors, even
 * with --color=always, and colors its warnings even with --color=never.
 */
static void init_colors(struct colors *c, enum tmx_color_mode mode)
{
	c->warnings = tmx_pretty_terminal_colors();
	c->events = c->warnings && mode != TMX_COLOR_NEVER;
	bold_bright(c->timestamp, '3');
	bold_bright(c->event_name, '5');
	bold_bright(c->unknown, '1');
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                           */
/* ------------------------------------------------------------------ */

struct tmx_pretty *tmx_pretty_new(const struct tmx_pretty_opts *opts)
{
	struct tmx_pretty *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->opts = *opts;
	init_colors(&p->colors, opts->color);
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

/* ------------------------------------------------------------------ */
/* Small pieces                                                         */
/* ------------------------------------------------------------------ */

static inline void put_color(struct tmx_pretty *p, const char *code)
{
	if (p->colors.events)
		outbuf_puts(&p->out, code);
}

/* `name = `, the name in `color`. */
static void put_colored_name(struct tmx_pretty *p, const char *color, const char *name)
{
	put_color(p, color);
	outbuf_puts(&p->out, name);
	put_color(p, COLOR_RESET);
	outbuf_write(&p->out, " = ", 3);
}

/* Header and scope names are bold, field names cyan. */
static void put_name_equal(struct tmx_pretty *p, const char *name)
{
	put_colored_name(p, COLOR_BOLD, name);
}

/* babeltrace2's escapes: \\ \' \" \? and C escapes or \xNN for control bytes. */
static outbuf_escapes bt2_escapes = {
	[0x00] = "\\0", [0x01] = "\\x01", [0x02] = "\\x02", [0x03] = "\\x03",
	[0x04] = "\\x04", [0x05] = "\\x05", [0x06] = "\\x06", [0x07] = "\\a",
	[0x08] = "\\b", [0x09] = "\\t", [0x0a] = "\\n", [0x0b] = "\\v",
	[0x0c] = "\\f", [0x0d] = "\\r", [0x0e] = "\\x0e", [0x0f] = "\\x0f",
	[0x10] = "\\x10", [0x11] = "\\x11", [0x12] = "\\x12", [0x13] = "\\x13",
	[0x14] = "\\x14", [0x15] = "\\x15", [0x16] = "\\x16", [0x17] = "\\x17",
	[0x18] = "\\x18", [0x19] = "\\x19", [0x1a] = "\\x1a", [0x1b] = "\\e",
	[0x1c] = "\\x1c", [0x1d] = "\\x1d", [0x1e] = "\\x1e", [0x1f] = "\\x1f",
	[0x7f] = "\\x7f", ['\\'] = "\\\\", ['\''] = "\\'", ['"'] = "\\\"",
	['?'] = "\\?",
};

/* A quoted string in `color` (bold for values and enumeration labels). */
static void put_quoted(struct tmx_pretty *p, const char *color, const char *s, size_t len)
{
	put_color(p, color);
	outbuf_putc(&p->out, '"');
	outbuf_escaped(&p->out, s, len, bt2_escapes);
	outbuf_putc(&p->out, '"');
	put_color(p, COLOR_RESET);
}

/* ------------------------------------------------------------------ */
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

/* ------------------------------------------------------------------ */
/* Field values                                                         */
/* ------------------------------------------------------------------ */

/* The low `bits` bits of `u`, as babeltrace2 masks signed octal and hex values. */
static uint64_t low_bits(uint64_t u, unsigned bits)
{
	return bits < 64 ? u & ((UINT64_C(1) << bits) - 1) : u;
}

static void put_integer_any(struct tmx_pretty *p, const struct tmx_value *v);

/* Decimal and hexadecimal integers take at most this many bytes. */
#define INT_TEXT_MAX 21

/* Whether int_text() writes the integer (decimal or hexadecimal). */
static bool int_text_base(const struct tmx_field_class *fc)
{
	return fc->base != 2 && fc->base != 8;
}

/* A decimal or hexadecimal integer at q (room for INT_TEXT_MAX bytes); returns the end. */
static inline char *int_text(char *q, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	uint64_t u = v->u;

	if (fc->base == 16) {
		memcpy(q, "0x", 2);
		return tmx_put_hex(q + 2, low_bits(u, (fc->size + 3) & ~3u));
	}
	if (fc->is_signed && v->s < 0) {
		*q++ = '-';
		u = 0 - u;
	}
	if (u < 10) {
		*q = (char)('0' + u);
		return q + 1;
	}
	if (u < 100) {
		memcpy(q, tmx_digit_pairs + 2 * u, 2);
		return q + 2;
	}
	return tmx_put_u64(q, u);
}

static inline void put_integer(struct tmx_pretty *p, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	struct outbuf *b = &p->out;

	if (!p->colors.events && int_text_base(fc)) {
		outbuf_commit(b, int_text(outbuf_reserve(b, INT_TEXT_MAX), v));
		return;
	}
	put_integer_any(p, v);
}

/* Any base, colors included. */
static void put_integer_any(struct tmx_pretty *p, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	struct outbuf *b = &p->out;

	put_color(p, COLOR_BOLD);
	switch (fc->base) {
	case 2:
		outbuf_write(b, "0b", 2);
		outbuf_bin(b, v->u, fc->size);
		break;
	case 8:
		/* A signed value shows its two's complement over whole octal digits. */
		outbuf_putc(b, '0');
		outbuf_oct(b, fc->is_signed ? low_bits(v->u, (fc->size + 2) / 3 * 3) : v->u);
		break;
	case 16:
		outbuf_write(b, "0x", 2);
		outbuf_hex(b, low_bits(v->u, (fc->size + 3) & ~3u));
		break;
	default:
		if (fc->is_signed)
			outbuf_i64(b, v->s);
		else
			outbuf_u64(b, v->u, 0);
	}
	put_color(p, COLOR_RESET);
}

/* Whether a mapping from `from` on also holds the value. */
static bool more_labels(const struct tmx_field_class *fc, size_t from, uint64_t value)
{
	for (size_t m = from; m < fc->n_mappings; m++)
		if (tmx_mapping_holds(fc, &fc->mappings[m], value))
			return true;
	return false;
}

/* `( "A", "B" : container = 5 )`: every label whose ranges hold the value. */
static void put_enum(struct tmx_pretty *p, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	struct outbuf *b = &p->out;
	size_t printed = 0;

	bool braces = false;

	outbuf_write(b, "( ", 2);
	for (size_t m = 0; m < fc->n_mappings; m++) {
		const char *label = fc->mappings[m].label;

		if (!tmx_mapping_holds(fc, &fc->mappings[m], v->u))
			continue;
		if (printed++)
			outbuf_write(b, ", ", 2);
		else if (p->brace_labels && more_labels(fc, m + 1, v->u)) {
			braces = true;
			outbuf_write(b, "{ ", 2);
		}
		put_quoted(p, COLOR_BOLD, label, strlen(label));
	}
	if (braces)
		outbuf_write(b, " }", 2);
	if (!printed) {
		put_color(p, p->colors.unknown);
		outbuf_puts(b, "<unknown>");
		put_color(p, COLOR_RESET);
	}
	outbuf_puts(b, " : container = ");
	put_integer(p, v);
	outbuf_write(b, " )", 2);
}

static void put_float(struct tmx_pretty *p, double d)
{
	char num[32];
	size_t n = tmx_format_g(num, d);   /* babeltrace2 prints "%g" */

	put_color(p, COLOR_BOLD);
	outbuf_write(&p->out, num, n);
	put_color(p, COLOR_RESET);
}

static void put_bool(struct tmx_pretty *p, const struct tmx_value *v)
{
	put_color(p, COLOR_BOLD);
	outbuf_puts(&p->out, v->u ? "true" : "false");
	put_color(p, COLOR_RESET);
}

/* Label comparison for qsort: babeltrace 2.1 sorts active flags by name. */
static int cmp_labels(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * `0x8B { "A", "B", "HIGH" }`: the value in hex, then the labels of the
 * flags with any of their bits set, sorted (babeltrace 2.1's print_bit_array).
 */
static void put_bit_array(struct tmx_pretty *p, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	const char *stack_labels[64], **labels = stack_labels;
	size_t n = 0;

	put_color(p, COLOR_BOLD);
	outbuf_write(&p->out, "0x", 2);
	outbuf_hex(&p->out, v->u);
	put_color(p, COLOR_RESET);
	if (!fc->n_mappings)
		return;
	if (fc->n_mappings > 64) {
		labels = malloc(fc->n_mappings * sizeof(*labels));
		if (!labels)
			return;
	}
	for (size_t m = 0; m < fc->n_mappings; m++)
		if (tmx_mapping_holds(fc, &fc->mappings[m], v->u))
			labels[n++] = fc->mappings[m].label;
	if (n) {
		qsort(labels, n, sizeof(*labels), cmp_labels);
		outbuf_write(&p->out, " { ", 3);
		for (size_t k = 0; k < n; k++) {
			if (k)
				outbuf_write(&p->out, ", ", 2);
			put_quoted(p, COLOR_BOLD, labels[k], strlen(labels[k]));
		}
		outbuf_write(&p->out, " }", 2);
	}
	if (labels != stack_labels)
		free(labels);
}

/* `{ de ad }`: each byte in lowercase hex followed by a space (babeltrace 2.1). */
static void put_blob(struct tmx_pretty *p, const struct tmx_value *v)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)v->str.ptr;
	struct outbuf *b = &p->out;

	outbuf_write(b, "{ ", 2);
	for (uint64_t k = 0; k < v->str.len; k++) {
		char byte[3] = { hex[s[k] >> 4], hex[s[k] & 15], ' ' };
		outbuf_write(b, byte, 3);
	}
	outbuf_putc(b, '}');
}

static size_t put_value(struct tmx_pretty *p, const struct tmx_value *vals, size_t i, bool names,
			bool hide_meaning);

/* The member texts of `fc` (member_text_make): `, name = `, colors included. */
static bool make_prefixes(void *ctx, const struct tmx_field_class *fc, struct member_text *mt)
{
	const struct tmx_pretty *p = ctx;
	size_t color_len = p->colors.events ? strlen(COLOR_FIELD_NAME) + strlen(COLOR_RESET) : 0;
	size_t total = OUTBUF_PAD, at = 0;

	for (size_t m = 0; m < fc->n_members; m++)
		total += strlen(fc->members[m].name) + color_len + 5;
	if (total > UINT32_MAX || !(mt->end = malloc(fc->n_members * sizeof(*mt->end))) ||
	    !(mt->text = malloc(total)))
		return false;
	for (size_t m = 0; m < fc->n_members; m++) {
		const char *parts[5] = { ", ", p->colors.events ? COLOR_FIELD_NAME : "",
					 fc->members[m].name, p->colors.events ? COLOR_RESET : "",
					 " = " };
		for (int k = 0; k < 5; k++) {
			size_t len = strlen(parts[k]);
			memcpy(mt->text + at, parts[k], len);
			at += len;
		}
		mt->end[m] = (uint32_t)at;
	}
	memset(mt->text + at, 0, OUTBUF_PAD);
	return true;
}

/* The separator before member m (` ` for the first printed, else `, `) and its `name = `. */
static void put_member_name(struct tmx_pretty *p, const struct member_text *mt,
			    const struct tmx_field_class *fc, uint32_t m, bool first)
{
	if (mt) {
		member_text_put(&p->out, mt, m, first);
		return;
	}
	outbuf_write(&p->out, first ? " " : ", ", first ? 1 : 2);
	put_colored_name(p, COLOR_FIELD_NAME, fc->members[m].name);
}

static size_t put_struct(struct tmx_pretty *p, const struct tmx_value *vals, size_t i, bool names,
			 bool hide_meaning)
{
	const struct tmx_field_class *fc = vals[i].fc;
	uint32_t n = vals[i].n_members;
	struct outbuf *b = &p->out;
	size_t printed = 0;
	const struct member_text *mt = names && n ? member_text_of(&p->names, fc, make_prefixes, p) :
					    NULL;

	i++;
	outbuf_putc(b, '{');
	for (uint32_t m = 0; m < n; m++) {
		const struct tmx_member *mem = &fc->members[m];

		if (hide_meaning && mem->fc->meaning != TMX_MEANING_NONE) {
			i = tmx_value_skip(vals, i);
			continue;
		}
		if (names)
			put_member_name(p, mt, fc, m, !printed);
		else
			outbuf_write(b, printed ? ", " : " ", printed ? 2 : 1);
		printed++;
		i = put_value(p, vals, i, names, false);
	}
	outbuf_write(b, " }", 2);
	return i;
}

/*
 * `[k] = V` for integer elements in decimal or hexadecimal, without
 * colors: each element written in place with one bounds check.
 */
static size_t put_int_elements(struct tmx_pretty *p, const struct tmx_value *vals, size_t i,
			       uint64_t count)
{
	struct outbuf *b = &p->out;

	for (uint64_t e = 0; e < count; e++) {
		char *q = outbuf_reserve(b, 3 + 20 + 4 + INT_TEXT_MAX);

		if (e) {
			memcpy(q, ", [", 3);
			q += 3;
		} else {
			memcpy(q, " [", 2);
			q += 2;
		}
		q = e < 10 ? (*q = (char)('0' + e), q + 1) : tmx_put_u64(q, e);
		memcpy(q, "] = ", 4);
		outbuf_commit(b, int_text(q + 4, &vals[i++]));
	}
	return i;
}

static size_t put_array(struct tmx_pretty *p, const struct tmx_value *vals, size_t i, bool names)
{
	uint64_t count = vals[i].count;
	bool plain_ints = count && vals[i].fc->elem->kind == TMX_FC_INT;
	struct outbuf *b = &p->out;

	i++;
	outbuf_putc(b, '[');
	if (plain_ints && names && !p->colors.events && int_text_base(vals[i].fc)) {
		i = put_int_elements(p, vals, i, count);
		count = 0;
	}
	for (uint64_t e = 0; e < count; e++) {
		outbuf_write(b, e ? ", " : " ", e ? 2 : 1);
		if (names) {
			outbuf_putc(b, '[');
			outbuf_u64(b, e, 0);
			outbuf_write(b, "] = ", 4);
		}
		/* Integer elements (byte buffers, ID lists): no dispatch needed. */
		if (plain_ints)
			put_integer(p, &vals[i++]);
		else
			i = put_value(p, vals, i, names, false);
	}
	outbuf_write(b, " ]", 2);
	return i;
}

/* A text array reads as a C string: up to its first NUL. */
static void put_text_array(struct tmx_pretty *p, const struct tmx_value *v)
{
	put_quoted(p, COLOR_BOLD, v->str.ptr, tmx_value_text_len(v));
}

/* Prints the subtree at vals[i]; returns the index just after it. */
static size_t put_value(struct tmx_pretty *p, const struct tmx_value *vals, size_t i, bool names,
			bool hide_meaning)
{
	const struct tmx_value *v = &vals[i];

	switch (v->fc->kind) {
	case TMX_FC_INT:
		put_integer(p, v);
		break;
	case TMX_FC_ENUM:
		put_enum(p, v);
		break;
	case TMX_FC_FLOAT:
		put_float(p, v->d);
		break;
	case TMX_FC_STRING:
		put_quoted(p, COLOR_BOLD, v->str.ptr, v->str.len);
		break;
	case TMX_FC_STRUCT:
		return put_struct(p, vals, i, names, hide_meaning);
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (!v->fc->is_text)
			return put_array(p, vals, i, names);
		put_text_array(p, v);
		break;
	case TMX_FC_VARIANT:
		/* babeltrace2 2.0.4 does not name the selected option. */
		outbuf_write(&p->out, "{ ", 2);
		i = put_value(p, vals, i + 1, names, false);
		outbuf_write(&p->out, " }", 2);
		return i;
	case TMX_FC_BOOL:
		put_bool(p, v);
		break;
	case TMX_FC_BIT_ARRAY:
		put_bit_array(p, v);
		break;
	case TMX_FC_BLOB:
		put_blob(p, v);
		break;
	case TMX_FC_OPTIONAL:
		if (!v->present) {
			outbuf_puts(&p->out, "<none>");
			break;
		}
		outbuf_write(&p->out, "{ ", 2);
		i = put_value(p, vals, i + 1, names, false);
		outbuf_write(&p->out, " }", 2);
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
	if (!vals)
		return;
	if (hide_meaning && !has_visible_member(vals[0].fc))
		return;
	if (!p->start_line)
		outbuf_write(&p->out, ", ", 2);
	p->start_line = false;
	if (p->opts.names_scope)
		put_name_equal(p, scope_name);
	put_value(p, vals, 0, names, hide_meaning);
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
	p->brace_labels = tmx_trace_class_is_ctf2(msg->stream->trace->cls);
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
