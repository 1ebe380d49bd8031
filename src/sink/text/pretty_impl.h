/*
 * What the files of the text output (babeltrace2's sink.text.pretty) share:
 * the sink's state and the small pieces every part writes with.
 *
 *   pretty.c         the sink: life cycle, time stamps, the event line's
 *                    header and scopes, discarded items, the parallel split
 *   pretty_opts.c    options (-n/-f word lists) and terminal colors
 *   pretty_values.c  field values: integers, enumerations, floats, strings,
 *                    arrays, structures, variants; a scope
 */
#ifndef TMX_SINK_TEXT_PRETTY_IMPL_H
#define TMX_SINK_TEXT_PRETTY_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink/member_text.h"
#include "sink/outbuf.h"
#include "sink/text/pretty.h"
#include "sink/timefmt.h"

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

/* The terminal codes of `mode` (pretty_opts.c). */
void pretty_init_colors(struct colors *c, enum tmx_color_mode mode);
/*
 * A scope (`, ` before it unless first on the line, `scope_name = ` with
 * the names option), its members with a meaning hidden when asked
 * (pretty_values.c).
 */
void pretty_put_scope(struct tmx_pretty *p, const struct tmx_value *vals, const char *scope_name,
		      bool names, bool hide_meaning);

/* ---- small pieces ---- */

static inline void put_color(struct tmx_pretty *p, const char *code)
{
	if (p->colors.events)
		outbuf_puts(&p->out, code);
}

/* `name = `, the name in `color`. */
static inline void put_colored_name(struct tmx_pretty *p, const char *color, const char *name)
{
	put_color(p, color);
	outbuf_puts(&p->out, name);
	put_color(p, COLOR_RESET);
	outbuf_write(&p->out, " = ", 3);
}

/* Header and scope names are bold, field names cyan. */
static inline void put_name_equal(struct tmx_pretty *p, const char *name)
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
static inline void put_quoted(struct tmx_pretty *p, const char *color, const char *s, size_t len)
{
	put_color(p, color);
	outbuf_putc(&p->out, '"');
	outbuf_escaped(&p->out, s, len, bt2_escapes);
	outbuf_putc(&p->out, '"');
	put_color(p, COLOR_RESET);
}


#endif
