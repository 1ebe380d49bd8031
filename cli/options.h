/*
 * The command line of `tracemux [OPTIONS] TRACE...`: what it asks for
 * (struct cli) and the tables of options that fill it.  Each option is one
 * row: its names, whether it takes a value, and how that value is applied
 * (a sink parameter, a trace-cmd report flag, or a handler of its own).
 */
#ifndef TMX_CLI_OPTIONS_H
#define TMX_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tools/tracecmd/report.h"
#include "tracemux/tracemux.h"

enum output_format { OUT_TEXT, OUT_DUMMY, OUT_CTF_METADATA, OUT_JSON, OUT_CHROME, OUT_TRACECMD,
		     OUT_CTF, OUT_XRAY_YAML, OUT_PARQUET, OUT_PERFETTO };

#define CLI_MAX_SINK_ARGS 32
#define CLI_MAX_EVENT_ARGS 64

struct cli {
	enum output_format format;
	const char *output_path;
	struct tmx_open_opts open;
	/* Parameters of the sinks (checked when given, applied to the chosen one). */
	struct sink_arg {
		const char *sink, *key, *value;
	} sink_args[CLI_MAX_SINK_ARGS];
	size_t n_sink_args;
	bool clock_gmt;                      /* --clock-gmt: also for --begin/--end */
	const char *begin_text, *end_text;   /* --begin, --end, --timerange */
	bool stream_intersection;
	const char **inputs;
	size_t n_inputs;
	struct tmx_tcreport_opts tcreport;   /* -o tracecmd: trace-cmd report's options */
	bool tc_invert;                      /* -v seen: the next -F filters are negated */
	bool tc_options;                     /* one of them was given */
	bool tc_quiet;                       /* -q: no warnings from -o tracecmd */
	bool tc_events_seen;                 /* --events: wins over --event */
	/* --events=GLOB[,GLOB...] (each option as given) and --filter=EXPR */
	const char *event_args[CLI_MAX_EVENT_ARGS];
	size_t n_event_args;
	const char *filter_expr;
	unsigned jobs;                       /* -j/--jobs (0: every CPU) */
	bool jobs_set;                       /* else TRACEMUX_JOBS, else every CPU */
	int progress;                        /* --progress 1, --no-progress -1, else 0 */
};

struct cli_option {
	const char *name;         /* long name */
	int short_name;           /* 0: none */
	/* getopt's no_argument (false), required_argument (true) or optional_argument */
	int has_arg;
	/* Applies the option (`arg` is NULL without a value); 0 or an exit status. */
	int (*apply)(struct cli *cli, const struct cli_option *o, const char *arg);
	/* What the generic appliers below use. */
	const char *sink, *key;   /* cli_sink_param: the sink and its parameter */
	size_t at, count_at;      /* tc_*: offsets in struct tmx_tcreport_opts */
};

/* The general options (cli/options.c) and trace-cmd report's (cli/tracecmd_options.c). */
extern const struct cli_option cli_general_options[];
extern const size_t cli_n_general_options;
extern const struct cli_option cli_tracecmd_options[];
extern const size_t cli_n_tracecmd_options;
/* "3.1" or "3.3" into *v; a usage error naming `what` otherwise. */
int cli_tracecmd_version(const char *what, const char *arg, enum tmx_tcreport_version *v);
/* trace-cmd report's --events (no value): the general --events row hands it over. */
int cli_tracecmd_events(struct cli *cli, const struct cli_option *o, const char *arg);
/* The --help text of the trace-cmd report options. */
extern const char cli_tracecmd_usage[];

/* A parameter of the option's sink (o->sink, o->key) set to `arg`. */
int cli_sink_param(struct cli *cli, const struct cli_option *o, const char *arg);

/* Prints "tracemux: MESSAGE" and the --help hint; returns 2 (usage exit status). */
int cli_usage_error(const char *fmt, const char *arg);
/* A number of jobs (`what` names the option or variable); 0, or 2 after a message. */
int cli_parse_jobs(const char *what, const char *arg, unsigned *jobs);
/* The --help text. */
void cli_usage(FILE *out);

/*
 * --events and --filter (cli/filter.c): the filter they make, bound to
 * `src` (NULL *f when neither was given); 0, or the exit status after a
 * message (2 for errors in them).  *f must outlive src.
 */
struct tmx_filter;
int cli_filter_setup(const char *const *event_args, size_t n_event_args, const char *expr,
		     struct tmx_source *src, struct tmx_filter **f);

/* Fills `cli` from the command line; 0, or the exit status after a message. */
int cli_parse_args(struct cli *cli, int argc, char **argv);

#endif
