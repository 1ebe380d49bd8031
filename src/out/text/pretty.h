/*
 * Text output in the style of babeltrace2's sink.text.pretty: one line per
 * event, warnings about discarded events/packets on the error stream.
 */
#ifndef TMX_OUT_PRETTY_H
#define TMX_OUT_PRETTY_H

#include <stdbool.h>

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
	enum tmx_color_mode color;
	int out_fd;            /* events */
	int err_fd;            /* discarded events/packets warnings */
};

/*
 * babeltrace2's defaults: field names of payloads and contexts; the
 * trace:hostname, trace:procname and trace:vpid fields; color auto.
 */
void tmx_pretty_opts_default(struct tmx_pretty_opts *opts);
/*
 * -n/--names and -f/--fields: comma-separated words replacing the default
 * set, as babeltrace2 does.  Return 0, or -1 for an unknown word.
 */
int tmx_pretty_parse_names(struct tmx_pretty_opts *opts, const char *list);
int tmx_pretty_parse_fields(struct tmx_pretty_opts *opts, const char *list);

struct tmx_pretty;

struct tmx_pretty *tmx_pretty_new(const struct tmx_pretty_opts *opts);
/* Consumes one message; returns TMX_OK or an error (e.g. write failure). */
int tmx_pretty_consume(struct tmx_pretty *p, const struct tmx_msg *msg,
		       struct tmx_error *err);
/* Flushes buffered output. */
int tmx_pretty_flush(struct tmx_pretty *p, struct tmx_error *err);
void tmx_pretty_free(struct tmx_pretty *p);

#endif
