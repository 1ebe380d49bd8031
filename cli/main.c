/*
 * tracemux — the command-line tool.  Parses options, opens the inputs with
 * libtracemux and feeds the messages to the chosen output.  No format
 * knowledge lives here.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/text/pretty.h"
#include "tracemux/tracemux.h"

enum output_format { OUT_TEXT, OUT_DUMMY, OUT_CTF_METADATA };

struct cli {
	enum output_format format;
	const char *output_path;
	struct tmx_ctf_fs_opts fs;
	struct tmx_pretty_opts pretty;
	const char **inputs;
	size_t n_inputs;
};

enum {
	OPT_CLOCK_CYCLES = 256,
	OPT_CLOCK_SECONDS,
	OPT_CLOCK_DATE,
	OPT_CLOCK_GMT,
	OPT_NO_DELTA,
	OPT_CLOCK_OFFSET,
	OPT_CLOCK_OFFSET_NS,
	OPT_COLOR,
};

static const struct option long_options[] = {
	{ "output-format", required_argument, NULL, 'o' },
	{ "output", required_argument, NULL, 'w' },
	{ "names", required_argument, NULL, 'n' },
	{ "fields", required_argument, NULL, 'f' },
	{ "clock-cycles", no_argument, NULL, OPT_CLOCK_CYCLES },
	{ "clock-seconds", no_argument, NULL, OPT_CLOCK_SECONDS },
	{ "clock-date", no_argument, NULL, OPT_CLOCK_DATE },
	{ "clock-gmt", no_argument, NULL, OPT_CLOCK_GMT },
	{ "no-delta", no_argument, NULL, OPT_NO_DELTA },
	{ "clock-offset", required_argument, NULL, OPT_CLOCK_OFFSET },
	{ "clock-offset-ns", required_argument, NULL, OPT_CLOCK_OFFSET_NS },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("Usage: tracemux [OPTIONS] TRACE_DIR...\n"
	      "\n"
	      "Read CTF 1.8 traces and print them as babeltrace2 does.\n"
	      "Each TRACE_DIR is a trace directory or a directory containing traces;\n"
	      "all their streams are merged by time.\n"
	      "\n"
	      "Output:\n"
	      "  -o, --output-format=FMT  text (default), dummy (decode, print nothing),\n"
	      "                           ctf-metadata (print the metadata text)\n"
	      "  -w, --output=PATH        write to PATH instead of standard output\n"
	      "\n"
	      "Text output (as babeltrace2's sink.text.pretty):\n"
	      "      --clock-cycles       print timestamps in clock cycles\n"
	      "      --clock-seconds      print timestamps as seconds.nanoseconds\n"
	      "      --clock-date         print the date with the time of day\n"
	      "      --clock-gmt          print times in UTC instead of local time\n"
	      "      --no-delta           do not print the time since the previous event\n"
	      "  -n, --names=LIST         print field names: none, all, payload, context,\n"
	      "                           scope, header (comma-separated)\n"
	      "  -f, --fields=LIST        print optional fields: trace, trace:hostname,\n"
	      "                           trace:domain, trace:procname, trace:vpid,\n"
	      "                           loglevel, emf, callsite, all\n"
	      "      --color=WHEN         never, auto (default), always\n"
	      "\n"
	      "Input (as babeltrace2's src.ctf.fs):\n"
	      "      --clock-offset=SEC   add SEC seconds to every clock's offset\n"
	      "      --clock-offset-ns=NS add NS nanoseconds to every clock's offset\n"
	      "\n"
	      "  -h, --help               show this help\n"
	      "  -V, --version            show the version\n"
	      "\n"
	      "Exit status: 0 on success, 1 on error, 2 on bad usage.\n", out);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("tracemux: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'tracemux --help'.\n", stderr);
	return 2;
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

static int parse_args(struct cli *cli, int argc, char **argv)
{
	int c;

	tmx_pretty_opts_default(&cli->pretty);
	while ((c = getopt_long(argc, argv, "o:w:n:f:hV", long_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "text"))
				cli->format = OUT_TEXT;
			else if (!strcmp(optarg, "dummy"))
				cli->format = OUT_DUMMY;
			else if (!strcmp(optarg, "ctf-metadata"))
				cli->format = OUT_CTF_METADATA;
			else
				return usage_error("unknown output format `%s`", optarg);
			break;
		case 'w':
			cli->output_path = optarg;
			break;
		case 'n':
			if (tmx_pretty_parse_names(&cli->pretty, optarg))
				return usage_error("invalid --names value `%s`", optarg);
			break;
		case 'f':
			if (tmx_pretty_parse_fields(&cli->pretty, optarg))
				return usage_error("invalid --fields value `%s`", optarg);
			break;
		case OPT_CLOCK_CYCLES:
			cli->pretty.clock_cycles = true;
			break;
		case OPT_CLOCK_SECONDS:
			cli->pretty.clock_seconds = true;
			break;
		case OPT_CLOCK_DATE:
			cli->pretty.clock_date = true;
			break;
		case OPT_CLOCK_GMT:
			cli->pretty.clock_gmt = true;
			break;
		case OPT_NO_DELTA:
			cli->pretty.no_delta = true;
			break;
		case OPT_CLOCK_OFFSET:
			if (!parse_int64(optarg, &cli->fs.clock_offset_s))
				return usage_error("invalid --clock-offset value `%s`", optarg);
			break;
		case OPT_CLOCK_OFFSET_NS:
			if (!parse_int64(optarg, &cli->fs.clock_offset_ns))
				return usage_error("invalid --clock-offset-ns value `%s`", optarg);
			break;
		case OPT_COLOR:
			if (!strcmp(optarg, "never"))
				cli->pretty.color = TMX_COLOR_NEVER;
			else if (!strcmp(optarg, "auto"))
				cli->pretty.color = TMX_COLOR_AUTO;
			else if (!strcmp(optarg, "always"))
				cli->pretty.color = TMX_COLOR_ALWAYS;
			else
				return usage_error("invalid --color value `%s`", optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("tracemux %s\n", TRACEMUX_VERSION_STRING);
			exit(0);
		default:
			return usage_error("%s", "invalid option");
		}
	}
	if (optind >= argc)
		return usage_error("%s", "no input trace given");
	cli->inputs = (const char **)&argv[optind];
	cli->n_inputs = (size_t)(argc - optind);
	return 0;
}

static void print_warning(void *user, const char *msg)
{
	(void)user;
	fprintf(stderr, "tracemux: warning: %s\n", msg);
}

static int report(const struct tmx_error *err)
{
	char buf[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];

	tmx_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "tracemux: error: %s\n", buf);
	return 1;
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = write(fd, s, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

static int print_metadata(struct tmx_source *src, int fd)
{
	for (size_t i = 0; i < tmx_source_trace_count(src); i++) {
		const char *text = tmx_source_trace_metadata(src, i);
		/* babeltrace2 ends the text with one more newline. */
		if (write_all(fd, text, strlen(text)) || write_all(fd, "\n", 1)) {
			fprintf(stderr, "tracemux: error: cannot write: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* Pulls every message and hands it to the output. */
static int run(struct cli *cli, struct tmx_source *src, int out_fd)
{
	struct tmx_pretty *pretty = NULL;
	struct tmx_error err = { 0 };
	const struct tmx_msg *msg;
	int status = 0;

	if (cli->format == OUT_TEXT) {
		cli->pretty.out_fd = out_fd;
		cli->pretty.err_fd = STDERR_FILENO;
		pretty = tmx_pretty_new(&cli->pretty);
		if (!pretty) {
			fputs("tracemux: error: out of memory\n", stderr);
			return 1;
		}
	}
	for (;;) {
		if (tmx_source_next(src, &msg, &err)) {
			status = 1;
			break;
		}
		if (!msg)
			break;
		if (pretty && tmx_pretty_consume(pretty, msg, &err)) {
			status = 1;
			break;
		}
	}
	/* Everything decoded before an error is still printed. */
	if (pretty) {
		struct tmx_error ferr = { 0 };
		if (tmx_pretty_flush(pretty, &ferr) && !status) {
			err = ferr;
			status = 1;
		}
		tmx_pretty_free(pretty);
	}
	if (status)
		report(&err);
	return status;
}

int main(int argc, char **argv)
{
	struct cli cli = { 0 };
	struct tmx_diag diag = { .warn = print_warning };
	struct tmx_error err = { 0 };
	struct tmx_source *src;
	int out_fd = STDOUT_FILENO;
	int status;

	status = parse_args(&cli, argc, argv);
	if (status)
		return status;
	if (tmx_ctf_fs_open(cli.inputs, cli.n_inputs, &cli.fs, &diag, &src, &err))
		return report(&err);
	if (cli.output_path) {
		out_fd = open(cli.output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			fprintf(stderr, "tracemux: error: %s: cannot open for writing: %s\n",
				cli.output_path, strerror(errno));
			tmx_source_free(src);
			return 1;
		}
	}
	if (cli.format == OUT_CTF_METADATA)
		status = print_metadata(src, out_fd);
	else
		status = run(&cli, src, out_fd);
	if (out_fd != STDOUT_FILENO && close(out_fd) && !status) {
		fprintf(stderr, "tracemux: error: %s: %s\n", cli.output_path, strerror(errno));
		status = 1;
	}
	tmx_source_free(src);
	return status;
}
