/*
 * Option parsing, driven by the tables of cli/options.h: getopt's long
 * options and short-option string are built from the rows, and each option
 * found is applied by its row.  This file has the general options (output,
 * text, trimming, input, XRay); trace-cmd report's are in tracecmd_options.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "tracemux/sink.h"

int cli_command_usage_error(const char *command, const char *fmt, const char *arg)
{
	const char *sep = command ? " " : "";

	command = command ? command : "";
	fprintf(stderr, "tracemux%s%s: ", sep, command);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'tracemux%s%s --help'.\n", sep, command);
	return 2;
}

int cli_usage_error(const char *fmt, const char *arg)
{
	return cli_command_usage_error(NULL, fmt, arg);
}

static bool parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

/*
 * Checked now (as the option is read, so that errors come in command-line
 * order) and kept for when the chosen sink is opened: only the chosen
 * sink's parameters are applied.
 */
int cli_sink_param(struct cli *cli, const struct cli_option *o, const char *arg)
{
	struct tmx_error err = { 0 };
	struct tmx_sink_params *p;
	char what[64];
	int ret;

	if (cli->n_sink_args == CLI_MAX_SINK_ARGS)
		return cli_usage_error("%s", "too many output options");
	p = tmx_sink_params_new(o->sink, &err);
	ret = p ? tmx_sink_params_set(p, o->key, arg, &err) : (int)err.code;
	tmx_sink_params_free(p);
	if (ret) {
		snprintf(what, sizeof(what), "--%s: %%s", o->name);
		return cli_usage_error(what, err.msg);
	}
	cli->sink_args[cli->n_sink_args++] = (struct sink_arg){ o->sink, o->key, arg };
	return 0;
}

static int set_output_format(struct cli *cli, const struct cli_option *o, const char *arg)
{
	static const char *const names[] = {
		[OUT_TEXT] = "text", [OUT_DUMMY] = "dummy", [OUT_CTF_METADATA] = "ctf-metadata",
		[OUT_JSON] = "json", [OUT_CHROME] = "chrome", [OUT_TRACECMD] = "tracecmd",
		[OUT_CTF] = "ctf", [OUT_XRAY_YAML] = "xray-yaml", [OUT_PARQUET] = "parquet",
		[OUT_PERFETTO] = "perfetto",
	};

	(void)o;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i])) {
			cli->format = (enum output_format)i;
			return 0;
		}
	return cli_usage_error("unknown output format `%s`", arg);
}

static int set_output(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	cli->output_path = arg;
	return 0;
}

/* --clock-gmt is also how --begin/--end read times of day. */
static int set_clock_gmt(struct cli *cli, const struct cli_option *o, const char *arg)
{
	cli->clock_gmt = true;
	return cli_sink_param(cli, o, arg);
}

static int set_begin(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	cli->begin_text = arg;
	return 0;
}

static int set_end(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	cli->end_text = arg;
	return 0;
}

/* `[BEGIN,END]` (brackets optional), split into copies of both. */
static int set_timerange(struct cli *cli, const struct cli_option *o, const char *arg)
{
	static char buf[512];
	size_t len = strlen(arg);
	char *s = buf, *comma;

	(void)o;
	if (len >= sizeof(buf))
		return cli_usage_error("invalid --timerange value `%s`: too long", arg);
	memcpy(buf, arg, len + 1);
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']') {
		s[len - 1] = '\0';
		s++;
	}
	comma = strchr(s, ',');
	if (!comma)
		return cli_usage_error("invalid --timerange value `%s`: expected [BEGIN,END]", arg);
	*comma = '\0';
	cli->begin_text = s;
	cli->end_text = comma + 1;
	return 0;
}

static int set_stream_intersection(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	cli->stream_intersection = true;
	return 0;
}

static int set_clock_offset(struct cli *cli, const struct cli_option *o, const char *arg)
{
	int64_t *v = !strcmp(o->key, "s") ? &cli->open.ctf.clock_offset_s
					 : &cli->open.ctf.clock_offset_ns;
	char what[80];

	if (parse_int64(arg, v))
		return 0;
	snprintf(what, sizeof(what), "invalid --%s value `%%s`", o->name);
	return cli_usage_error(what, arg);
}

static int set_force_epoch(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	cli->open.ctf.force_origin_unix_epoch = true;
	return 0;
}

static int set_trace_name(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	cli->open.ctf.trace_name = arg;
	return 0;
}

static int set_lenient(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	cli->open.ctf.lenient = cli->open.tracedat.lenient = cli->open.xray.lenient = true;
	return 0;
}

static int set_instr_map(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	cli->open.xray.instr_map = arg;
	return 0;
}

static int set_symbolize(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	cli->open.xray.symbolize = true;
	return 0;
}

/* llvm-xray's --sort: true (default) or false. */
static int set_xray_sort(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (!strcmp(arg, "true") || !strcmp(arg, "1"))
		cli->open.xray.unsorted = false;
	else if (!strcmp(arg, "false") || !strcmp(arg, "0"))
		cli->open.xray.unsorted = true;
	else
		return cli_usage_error("invalid --sort value `%s`: true or false", arg);
	return 0;
}

/*
 * --events=GLOB[,GLOB...] (repeatable) selects event classes; `--events`
 * alone is trace-cmd report's (the stored formats, with -o tracecmd).
 */
static int set_events(struct cli *cli, const struct cli_option *o, const char *arg)
{
	if (!arg)
		return cli_tracecmd_events(cli, o, arg);
	if (cli->n_event_args == CLI_MAX_EVENT_ARGS)
		return cli_usage_error("%s", "too many --events options");
	cli->event_args[cli->n_event_args++] = arg;
	return 0;
}

static int set_filter(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (cli->filter_expr)
		return cli_usage_error("%s", "--filter can be given once (join expressions with &&)");
	cli->filter_expr = arg;
	return 0;
}

/* The number of jobs of -j/--jobs and TRACEMUX_JOBS: 1 or more, 0 for every CPU. */
int cli_parse_jobs(const char *what, const char *arg, unsigned *jobs)
{
	char *end;
	unsigned long n;
	char fmt[96];

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (!errno && end != arg && !*end && *arg >= '0' && *arg <= '9' && n <= 4096) {
		*jobs = (unsigned)n;
		return 0;
	}
	snprintf(fmt, sizeof(fmt), "invalid %s value `%%s`: a number of jobs (0: every CPU)", what);
	return cli_usage_error(fmt, arg);
}

static int set_jobs(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	cli->jobs_set = true;
	return cli_parse_jobs("--jobs", arg, &cli->jobs);
}

static int set_progress(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)arg;
	cli->progress = strcmp(o->name, "progress") ? -1 : 1;
	return 0;
}

static int show_help(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)cli, (void)o, (void)arg;
	cli_usage(stdout);
	exit(0);
}

static int show_version(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)cli, (void)o, (void)arg;
	printf("tracemux %s\n", TRACEMUX_VERSION_STRING);
	exit(0);
}

/* A sink parameter named as the option. */
#define SINK(name, short_name, has_arg, sink) \
	{ name, short_name, has_arg, cli_sink_param, sink, name, 0, 0 }
#define SINK_AS(name, short_name, has_arg, sink, key) \
	{ name, short_name, has_arg, cli_sink_param, sink, key, 0, 0 }
#define DO(name, short_name, has_arg, fn) { name, short_name, has_arg, fn, NULL, NULL, 0, 0 }

const struct cli_option cli_general_options[] = {
	/* Output */
	DO("output-format", 'o', true, set_output_format),
	DO("output", 'w', true, set_output),
	SINK("ctf-version", 0, true, "ctf"),
	SINK_AS("ctf-packet-size", 0, true, "ctf", "packet-size"),
	SINK("lttng-kernel", 0, false, "ctf"),
	SINK("sched-slices", 0, false, "chrome"),
	SINK_AS("parquet-row-group-rows", 0, true, "parquet", "row-group-rows"),
	SINK_AS("parquet-part-row-groups", 0, true, "parquet", "part-row-groups"),
	SINK("partition", 0, true, "parquet"),
	SINK_AS("perfetto-compress", 0, true, "perfetto", "compress"),
	/* Text output */
	SINK("clock-cycles", 0, false, "text"),
	SINK("clock-seconds", 0, false, "text"),
	SINK("clock-date", 0, false, "text"),
	{ "clock-gmt", 0, false, set_clock_gmt, "text", "clock-gmt", 0, 0 },
	SINK("no-delta", 0, false, "text"),
	SINK("names", 'n', true, "text"),
	SINK("fields", 'f', true, "text"),
	SINK("color", 0, true, "text"),
	/* Trimming */
	DO("begin", 'b', true, set_begin),
	DO("end", 'e', true, set_end),
	DO("timerange", 't', true, set_timerange),
	DO("stream-intersection", 0, false, set_stream_intersection),
	/* Filters */
	DO("events", 0, optional_argument, set_events),
	DO("filter", 0, true, set_filter),
	/* Input */
	{ "clock-offset", 0, true, set_clock_offset, NULL, "s", 0, 0 },
	{ "clock-offset-ns", 0, true, set_clock_offset, NULL, "ns", 0, 0 },
	{ "clock-class-offset-s", 0, true, set_clock_offset, NULL, "s", 0, 0 },
	{ "clock-class-offset-ns", 0, true, set_clock_offset, NULL, "ns", 0, 0 },
	DO("force-clock-class-origin-unix-epoch", 0, false, set_force_epoch),
	DO("trace-name", 0, true, set_trace_name),
	DO("lenient", 0, false, set_lenient),
	/* Threads */
	DO("jobs", 'j', true, set_jobs),
	/* Progress on standard error */
	DO("progress", 0, false, set_progress),
	DO("no-progress", 0, false, set_progress),
	/* LLVM XRay */
	DO("instr-map", 0, true, set_instr_map),
	DO("instr_map", 0, true, set_instr_map),
	DO("symbolize", 0, false, set_symbolize),
	DO("sort", 0, true, set_xray_sort),
	DO("help", 'h', false, show_help),
	DO("version", 'V', false, show_version),
};
const size_t cli_n_general_options = sizeof(cli_general_options) / sizeof(cli_general_options[0]);

/* Both tables as one: option i of the command line is row i here. */
static const struct cli_option *row(size_t i)
{
	return i < cli_n_general_options ? &cli_general_options[i]
					 : &cli_tracecmd_options[i - cli_n_general_options];
}

int cli_parse_args(struct cli *cli, int argc, char **argv)
{
	size_t n = cli_n_general_options + cli_n_tracecmd_options;
	struct option *longs = calloc(n + 1, sizeof(*longs));
	char *shorts = malloc(2 * n + 1), *s = shorts;
	int c, status = 0;

	if (!longs || !shorts) {
		free(longs);
		free(shorts);
		fputs("tracemux: error: out of memory\n", stderr);
		return 1;
	}
	tmx_tcreport_opts_default(&cli->tcreport);
	/* the environment first: --report-version overrides it */
	if (getenv("TRACEMUX_REPORT_VERSION") && *getenv("TRACEMUX_REPORT_VERSION"))
		status = cli_tracecmd_version("TRACEMUX_REPORT_VERSION",
					      getenv("TRACEMUX_REPORT_VERSION"), &cli->tcreport.report_version);
	for (size_t i = 0; i < n; i++) {
		const struct cli_option *o = row(i);

		/* A short option is returned as its letter, a long one as 256 + its row. */
		longs[i] = (struct option){ o->name, o->has_arg, NULL,
					    o->short_name ? o->short_name : 256 + (int)i };
		if (o->short_name) {
			*s++ = (char)o->short_name;
			if (o->has_arg)
				*s++ = ':';
		}
	}
	*s = '\0';
	while (!status && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		size_t i = 0;

		if (c >= 256)
			i = (size_t)(c - 256);
		else
			while (i < n && row(i)->short_name != c)
				i++;
		if (i >= n)
			status = cli_usage_error("%s", "invalid option");
		else
			status = row(i)->apply(cli, row(i), optarg);
	}
	free(longs);
	free(shorts);
	if (status)
		return status;
	if (optind >= argc)
		return cli_usage_error("%s", "no input trace given");
	if (cli->tc_events_seen && cli->format != OUT_TRACECMD)
		return cli_usage_error("%s", "--events selects event classes with its value attached: "
				       "--events=GLOB[,GLOB...] (alone, it is trace-cmd report's "
				       "--events, with -o tracecmd)");
	if (cli->tc_options && cli->format != OUT_TRACECMD)
		return cli_usage_error("%s", "the trace-cmd report options (-R, --nsec, -N, --cpu, -F, "
				       "-v, --stat, -l, --ts-diff... see --help) go with -o tracecmd");
	cli->inputs = (const char **)&argv[optind];
	cli->n_inputs = (size_t)(argc - optind);
	return 0;
}
