/*
 * tracemux — the command-line tool.  Parses options, opens the inputs with
 * libtracemux and feeds the messages to the chosen output.  No format
 * knowledge lives here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "tracemux/filter.h"
#include "tracemux/run.h"
#include "tracemux/sink.h"
#include "tracemux/tracemux.h"
#include "tracemux/trim.h"

void cli_usage(FILE *out)
{
	fputs("Usage: tracemux [OPTIONS] TRACE...\n"
	      "       tracemux query [--json] trace-infos|metadata-info|support-info PATH...\n"
	      "       tracemux info [--events=GLOBS] [--filter=EXPR] TRACE...  (summary: streams,\n"
	      "                                     packets, sizes, time range, event counts by\n"
	      "                                     class, discarded events)\n"
	      "       tracemux xray-account [--instr-map BIN] XRAY_LOG  (llvm-xray account's\n"
	      "                                     per-function latencies; see its --help)\n"
	      "       tracemux xray-stack [--instr-map BIN] XRAY_LOG...  (llvm-xray stack's\n"
	      "                                     call stacks, flame graphs; see its --help)\n"
	      "       tracemux analyze COMMAND [OPTIONS] TRACE...  (lttng-analyses' cputop,\n"
	      "                                     sched*, syscallstats, irq*, memtop, io*;\n"
	      "                                     see its --help)\n"
	      "\n"
	      "Read traces and print them as babeltrace2 does, or convert them.\n"
	      "Each TRACE is a CTF 1.8 or CTF 2 trace directory (or a directory containing\n"
	      "traces), a trace-cmd trace.dat file or an LLVM XRay log; the format is\n"
	      "recognized from the input.  All their streams are merged by time.\n"
	      "\n"
	      "Output:\n"
	      "  -o, --output-format=FMT  text (default), dummy (decode, print nothing),\n"
	      "                           ctf-metadata (print the metadata text),\n"
	      "                           json (JSON Lines: one object per event, typed fields),\n"
	      "                           chrome (Chrome Trace Event / Perfetto JSON; XRay logs\n"
	      "                           as llvm-xray's trace_event; --sched-slices: also\n"
	      "                           sched_switch events as per-CPU slices),\n"
	      "                           tracecmd (trace-cmd report's text, see below),\n"
	      "                           ctf (CTF 1.8 or 2 trace directories, one per input trace,\n"
	      "                           under the directory given with -w),\n"
	      "                           xray-yaml (llvm-xray convert --output-format=yaml),\n"
	      "                           parquet (a Parquet dataset under the directory given\n"
	      "                           with -w: DIR/event=NAME/part-N.parquet per event class,\n"
	      "                           DIR/_streams.parquet, DIR/_traces.parquet, DIR/_discarded/),\n"
	      "                           perfetto (Perfetto's protobuf trace: kernel events as\n"
	      "                           ftrace bundles, user-space events as track events;\n"
	      "                           to -w FILE, or to standard output when not a terminal)\n"
	      "  -w, --output=PATH        write to PATH instead of standard output\n"
	      "      --ctf-version=VERSION  -o ctf: 1.8 (default; CTF 2 field classes translated\n"
	      "                           where CTF 1.8 can say them) or 2 (JSON metadata)\n"
	      "      --ctf-packet-size=BYTES  -o ctf: close packets at BYTES of content\n"
	      "                           (default: one packet per input packet, as babeltrace2,\n"
	      "                           input packets over 4 MiB split)\n"
	      "      --lttng-kernel       -o ctf of trace.dat files: an LTTng kernel trace\n"
	      "                           (lttng-modules 2.13's events, fields and env), for\n"
	      "                           lttng-analyses and Trace Compass\n"
	      "      --parquet-row-group-rows=N  -o parquet: rows per row group (default 65536)\n"
	      "      --parquet-part-row-groups=N  -o parquet: row groups per part file (default 128)\n"
	      "      --partition=KEYS     -o parquet: also split each class by host, trace or\n"
	      "                           host,trace (DIR/event=NAME/host=H/trace=T/part-N.parquet,\n"
	      "                           host from the trace's `hostname`): one dataset of many traces\n"
	      "      --perfetto-compress=zstd  -o perfetto: the whole file as one zstd frame (Perfetto\n"
	      "                           reads it; about a third of the size, twice the CPU); none\n"
	      "                           (default)\n"
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
	      "\n", out);
	fputs(cli_tracecmd_usage, out);
	fputs(	      "Trimming (as babeltrace2's flt.utils.trimmer):\n"
	      "  -b, --begin=TIME         drop what comes before TIME\n"
	      "  -e, --end=TIME           drop what comes after TIME\n"
	      "  -t, --timerange=[B,E]    both at once\n"
	      "      --stream-intersection  only the time range in which every stream is active\n"
	      "  TIME is YYYY-MM-DD hh:mm[:ss[.ns]], hh:mm[:ss[.ns]] (on the trace's first day)\n"
	      "  or [-]s[.ns] (seconds from the clock's origin); local time unless --clock-gmt.\n"
	      "\n"
	      "Filters (every output, and info; see the manual, FILTERS):\n"
	      "      --events=GLOB[,GLOB...]  only the event classes whose name matches a glob\n"
	      "                           (sched_*, syscall_entry_*; trace.dat's system:event\n"
	      "                           also by its event part: sched:*, sched_switch; XRay:\n"
	      "                           function-enter...); repeatable; the '=' is needed\n"
	      "      --filter=EXPR        only the events for which EXPR holds: comparisons\n"
	      "                           (== != < <= > >=) of fields, numbers and \"strings\",\n"
	      "                           =~ and !~ (POSIX extended regex), &&, ||, !, ( );\n"
	      "                           $name $ts $cpu $pid $tid; e.g. 'prev_tid > 0 &&\n"
	      "                           next_comm =~ \"^kworker\"'.  Fields: payload, then\n"
	      "                           specific, common and packet context; a missing field\n"
	      "                           makes a comparison false\n"
	      "\n"
	      "Input (as babeltrace2's src.ctf.fs):\n"
	      "      --clock-offset=SEC   add SEC seconds to every clock's offset\n"
	      "      --clock-offset-ns=NS add NS nanoseconds to every clock's offset\n"
	      "      (also --clock-class-offset-s / --clock-class-offset-ns)\n"
	      "      --force-clock-class-origin-unix-epoch  take every clock's origin as the Unix epoch\n"
	      "      --trace-name=NAME    name every trace NAME\n"
	      "      --lenient            skip damaged packets (reported) instead of stopping;\n"
	      "                           the exit status is still 1 if any was skipped\n"
	      "\n"
	      "Threads:\n"
	      "  -j, --jobs=N             read and format on N threads (default: the\n"
	      "                           environment variable TRACEMUX_JOBS, else every CPU the\n"
	      "                           process may use; 0: every CPU; 1: one thread). The\n"
	      "                           output is the same whatever N: text, json, dummy and\n"
	      "                           tracecmd (not of trace.dat files) are formatted in\n"
	      "                           parallel, the other outputs after a sequential read\n"
	      "      --progress           show the progress on standard error (bytes read of the\n"
	      "                           total, events, rate, time left; default: when it is a\n"
	      "                           terminal that the output does not go to); also for\n"
	      "                           info, analyze, xray-account, xray-stack\n"
	      "      --no-progress        never show it\n"
	      "\n"
	      "LLVM XRay logs (as llvm-xray convert):\n"
	      "      --instr-map=BIN      instrumentation map: an instrumented ELF binary (its\n"
	      "                           xray_instr_map section) or llvm-xray extract's YAML\n"
	      "      --symbolize          name functions from the binary's symbol table\n"
	      "      --sort=BOOL          true (default): records sorted by TSC; false: per\n"
	      "                           thread, in llvm-xray's block order\n"
	      "\n"
	      "  -h, --help               show this help\n"
	      "  -V, --version            show the version\n"
	      "\n"
	      "Exit status: 0 on success, 1 on error, 2 on bad usage.\n", out);
}

static void print_warning(void *user, const char *msg)
{
	(void)user;
	cli_progress_clear();
	fprintf(stderr, "tracemux: warning: %s\n", msg);
}

int cli_report(const struct tmx_error *err)
{
	char buf[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];

	tmx_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "tracemux: error: %s\n", buf);
	return err->code == TMX_ERR_USAGE ? 2 : 1;
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

/* The trimmer of --begin/--end/--timerange or --stream-intersection (NULL: none asked for). */
static int setup_trimming(struct cli *cli, struct tmx_source *src, struct tmx_trimmer **t,
			  struct tmx_error *err)
{
	struct tmx_trim_opts to = TMX_TRIM_OPTS_INIT;

	*t = NULL;
	if (!cli->stream_intersection && !cli->begin_text && !cli->end_text)
		return TMX_OK;
	to.begin = cli->begin_text;
	to.end = cli->end_text;
	to.gmt = cli->clock_gmt;
	to.stream_intersection = cli->stream_intersection;
	return tmx_trimmer_new(src, &to, t, err);
}

int cli_report_skipped(uint64_t packets, uint64_t bytes)
{
	if (!packets)
		return 0;
	fprintf(stderr, "tracemux: warning: skipped %llu damaged packet%s (%llu bytes)\n",
		(unsigned long long)packets, packets == 1 ? "" : "s", (unsigned long long)bytes);
	return 1;
}

/* --lenient: what was skipped makes the run fail, after all the output. */
static int report_skipped(const struct tmx_source *src)
{
	uint64_t packets, bytes;

	tmx_source_skipped(src, &packets, &bytes);
	return cli_report_skipped(packets, bytes);
}

/* The sink of the chosen output, with the parameters given for it. */
static int sink_open(struct cli *cli, struct tmx_source *src, int out_fd, struct tmx_sink **sink)
{
	static const struct tmx_diag diag = { .warn = print_warning };
	static const char *const names[] = {
		[OUT_TEXT] = "text", [OUT_DUMMY] = "dummy", [OUT_JSON] = "json",
		[OUT_CHROME] = "chrome", [OUT_TRACECMD] = "tracecmd", [OUT_CTF] = "ctf",
		[OUT_XRAY_YAML] = "xray-yaml", [OUT_PARQUET] = "parquet",
		[OUT_PERFETTO] = "perfetto",
	};
	const struct tmx_sink_io io = { .out_fd = out_fd, .err_fd = STDERR_FILENO, .diag = &diag };
	struct tmx_error err = { 0 };
	struct tmx_sink_params *p = tmx_sink_params_new(names[cli->format], &err);
	int ret = p ? TMX_OK : (int)err.code;

	/* -o ctf, -o parquet: -w is the output directory */
	if (!ret && (cli->format == OUT_CTF || cli->format == OUT_PARQUET))
		ret = tmx_sink_params_set(p, "path", cli->output_path, &err);
	for (size_t i = 0; !ret && i < cli->n_sink_args; i++)
		if (!strcmp(cli->sink_args[i].sink, names[cli->format]))
			ret = tmx_sink_params_set(p, cli->sink_args[i].key, cli->sink_args[i].value,
						  &err);
	if (!ret)
		ret = tmx_sink_open(p, src, &io, sink, &err);
	tmx_sink_params_free(p);
	return ret ? cli_report(&err) : 0;
}

/* Trimming as tmx_run's keep predicate (it depends on the message only). */
static bool trim_keep(void *user, const struct tmx_msg *msg, bool *stop)
{
	return tmx_trimmer_keep(user, msg, stop);
}

/* -j/--jobs, else TRACEMUX_JOBS, else every CPU (0). */
static int jobs_of(const struct cli *cli, unsigned *jobs)
{
	const char *env = getenv("TRACEMUX_JOBS");

	*jobs = cli->jobs;
	if (cli->jobs_set || !env || !*env)
		return 0;
	return cli_parse_jobs("TRACEMUX_JOBS", env, jobs);
}

/* Pulls every message and hands it to the output. */
static int run(struct cli *cli, struct tmx_source *src, int out_fd)
{
	struct tmx_sink *sink;
	struct tmx_error err = { 0 };
	struct tmx_trimmer *trimmer;
	struct tmx_run_opts opts = TMX_RUN_OPTS_INIT;
	int status = 0;

	if (jobs_of(cli, &opts.jobs))
		return 2;
	/* -o ctf and -o parquet write to the -w directory, never to out_fd. */
	cli_progress_setup(cli->progress, out_fd == STDOUT_FILENO && cli->format != OUT_CTF &&
					  cli->format != OUT_PARQUET, &opts);
		if (setup_trimming(cli, src, &trimmer, &err))
		return cli_report(&err);   /* 2 for a bad time, 1 for a trace without one */
	if (trimmer) {
		opts.keep = trim_keep;
		opts.keep_user = trimmer;
	}
	status = sink_open(cli, src, out_fd, &sink);
	if (status) {
		tmx_trimmer_free(trimmer);
		return status;
	}
	/* Everything decoded before an error is still printed. */
	if (tmx_run(src, sink, &opts, &err))
		status = 1;
	tmx_sink_free(sink);
	tmx_trimmer_free(trimmer);
	if (status)
		cli_report(&err);
	return status ? status : report_skipped(src);
}

int main(int argc, char **argv)
{
	struct cli cli = { .open = TMX_OPEN_OPTS_INIT };
	struct tmx_diag diag = { .warn = print_warning };
	struct tmx_error err = { 0 };
	struct tmx_source *src;
	struct tmx_filter *filter = NULL;
	int out_fd = STDOUT_FILENO;
	int status;

	if (argc > 1 && !strcmp(argv[1], "query"))
		return cli_query(argc, argv, &diag);
	if (argc > 1 && !strcmp(argv[1], "info"))
		return cli_info(argc, argv, &diag);
	if (argc > 1 && !strcmp(argv[1], "xray-account"))
		return cli_xray_account(argc, argv, &diag);
	if (argc > 1 && !strcmp(argv[1], "xray-stack"))
		return cli_xray_stack(argc, argv, &diag);
	if (argc > 1 && !strcmp(argv[1], "analyze"))
		return cli_analyze(argc, argv, &diag);
	status = cli_parse_args(&cli, argc, argv);
	if (status)
		return status;
	/* trace.dat files are read in trace-cmd's own order by the report (cli/tracecmd.c). */
	if (cli.format == OUT_TRACECMD) {
		struct tmx_run_opts progress = TMX_RUN_OPTS_INIT;
		bool handled;

		cli_progress_setup(cli.progress, !cli.output_path, &progress);
		cli.tcreport.progress = &progress;
		cli.tcreport.lenient = cli.open.tracedat.lenient;
		cli.tcreport.diag = cli.tc_quiet ? NULL : &diag;
		if (jobs_of(&cli, &cli.tcreport.jobs))
			return 2;
		const struct cli_filter_args fa = { cli.event_args, cli.n_event_args, cli.filter_expr };

		status = cli_tracecmd(cli.inputs, cli.n_inputs, &cli.tcreport, cli.output_path,
				      cli.begin_text || cli.end_text || cli.stream_intersection, &fa,
				      &diag, &handled);
		if (handled)
			return status;
	}
	/* babeltrace2 reads only the metadata for -o ctf-metadata: so do we. */
	cli.open.ctf.metadata_only = cli.format == OUT_CTF_METADATA;
	/* The XRay reader decodes its sorted output on as many threads as tmx_run uses. */
	if (jobs_of(&cli, &cli.open.xray.jobs))
		return 2;
	if (tmx_open(cli.inputs, cli.n_inputs, &cli.open, &diag, &src, &err))
		return cli_report(&err);
	if ((cli.format == OUT_CTF || cli.format == OUT_PARQUET) && !cli.output_path) {
		tmx_source_free(src);
		return cli_usage_error("%s", cli.format == OUT_CTF
						     ? "-o ctf needs an output directory: -w DIR"
						     : "-o parquet needs an output directory: -w DIR");
	}
	/* -o perfetto is binary: to a file, or to standard output when it is not a terminal */
	if (cli.format == OUT_PERFETTO && !cli.output_path && isatty(STDOUT_FILENO)) {
		tmx_source_free(src);
		return cli_usage_error("%s", "-o perfetto writes a binary trace: give -w FILE "
					     "or redirect standard output");
	}
	/* -o ctf, -o parquet: -w is a directory */
	if (cli.output_path && cli.format != OUT_CTF && cli.format != OUT_PARQUET) {
		out_fd = open(cli.output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			fprintf(stderr, "tracemux: error: %s: cannot open for writing: %s\n",
				cli.output_path, strerror(errno));
			tmx_source_free(src);
			return 1;
		}
	}
	/* Filters apply before any output sees a message (and trimming after them). */
	status = cli_filter_setup(cli.event_args, cli.n_event_args, cli.filter_expr, src, &filter);
	if (status)
		;
	else if (cli.format == OUT_CTF_METADATA)
		status = print_metadata(src, out_fd);
	else
		status = run(&cli, src, out_fd);
	if (out_fd != STDOUT_FILENO && close(out_fd) && !status) {
		fprintf(stderr, "tracemux: error: %s: %s\n", cli.output_path, strerror(errno));
		status = 1;
	}
	tmx_source_free(src);
	tmx_filter_free(filter);   /* after the source, which reads it */
	return status;
}
