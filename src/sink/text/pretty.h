/*
 * Text output in the style of babeltrace2's sink.text.pretty: one line per
 * event, warnings about discarded events/packets on the error stream.
 */
#ifndef TMX_SINK_TEXT_PRETTY_H
#define TMX_SINK_TEXT_PRETTY_H

#include <stdbool.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

enum tmx_color_mode { TMX_COLOR_NEVER, TMX_COLOR_AUTO, TMX_COLOR_ALWAYS };

struct tmx_pretty_opts {
	/* Timestamp column. */
	bool clock_cycles;     /* --clock-cycles: print cycles, not time */
	bool clock_seconds;    /* --clock-seconds: print seconds.ns */
	bool clock_date;       /* --clock-date: print the date too */
	bool clock_gmt;        /* --clock-gmt: UTC instead of local time */
	bool no_delta;         /* --no-delta: no (+delta) column */
	/* -n/--names: print field names of these scopes. */
	bool names_payload, names_context, names_scope, names_header;
	/* -f/--fields: which optional fields to print. */
	bool field_trace, field_trace_hostname, field_trace_domain,
	     field_trace_procname, field_trace_vpid, field_loglevel, field_emf,
	     field_callsite;
	enum tmx_color_mode color; /* see tmx_pretty_terminal_colors() */
	int out_fd;            /* events */
	int err_fd;            /* discarded events/packets warnings */
};

/*
 * babeltrace2's defaults: field names of payloads and contexts; the
 * trace:hostname, trace:procname and trace:vpid fields; color auto.
 */
void tmx_pretty_opts_default(struct tmx_pretty_opts *opts);
/*
 * -n/--names and -f/--fields, read as babeltrace2 reads them: words
 * separated by commas or spaces.  Names: payload (or arg, args), context
 * (or ctx), scope, header, all, none.  Fields: trace, trace:hostname,
 * trace:domain, trace:procname, trace:vpid, loglevel, emf, callsite (accepted,
 * prints nothing, as in babeltrace2 2.0.4), all.  The listed ones replace
 * the default set, `all` selects every one, `none` none, and an empty list
 * gives the defaults.  On an unknown word (or `all` with `none`), fills
 * `err` (TMX_ERR_USAGE, naming the word), leaves `opts` as it was and
 * returns the error code; else returns TMX_OK.
 */
int tmx_pretty_set_names(struct tmx_pretty_opts *opts, const char *list, struct tmx_error *err);
int tmx_pretty_set_fields(struct tmx_pretty_opts *opts, const char *list, struct tmx_error *err);

/*
 * Whether babeltrace2 would use terminal colors in this process:
 * BABELTRACE_TERM_COLOR=always/never decides, else TERM must name a known
 * terminal (xterm, rxvt, konsole, gnome, screen, tmux, putty) and both
 * standard output and standard error must be terminals.  Without that,
 * babeltrace2 2.0.4 prints no codes even with --color=always; with it, it
 * colors the discarded-items warnings even with --color=never (and its CLI
 * writes a color reset to standard output and error at exit).
 */
bool tmx_pretty_terminal_colors(void);

struct tmx_pretty;

struct tmx_pretty *tmx_pretty_new(const struct tmx_pretty_opts *opts);
/* Consumes one message; returns TMX_OK or an error (e.g. write failure). */
int tmx_pretty_consume(struct tmx_pretty *p, const struct tmx_msg *msg,
		       struct tmx_error *err);
/* Flushes buffered output. */
int tmx_pretty_flush(struct tmx_pretty *p, struct tmx_error *err);
void tmx_pretty_free(struct tmx_pretty *p);

/*
 * The split for the parallel runner (src/sink/split.h): a worker's
 * formatter with the sink's options (free it with tmx_pretty_free); events
 * formatted with two holes, the time of a negative timestamp (which may be
 * the first, printed as seconds after a warning) and the delta; emit()
 * fills them and writes the discarded-items warnings.
 */
struct outbuf;
struct sink_piece;
struct tmx_pretty *tmx_pretty_worker_new(const struct tmx_pretty *sink);
struct outbuf *tmx_pretty_worker_outbuf(struct tmx_pretty *w);
void tmx_pretty_format(struct tmx_pretty *w, const struct tmx_msg *msg, uint64_t hole[2]);
int tmx_pretty_emit(struct tmx_pretty *p, const struct sink_piece *pc, struct tmx_error *err);

#endif
