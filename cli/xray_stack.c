/*
 * `tracemux xray-stack [OPTIONS] XRAY_LOG...`: llvm-xray stack's call-stack
 * report (src/tools/xray/stack.c) with llvm-xray's options and spellings
 * (-all-stacks, -stack-format=flame, -k, -m...), plus --flame-exclusive.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_options.h"
#include "tools/xray/stack.h"

static void stack_usage(FILE *out)
{
	fputs("Usage: tracemux xray-stack [OPTIONS] [--instr-map BINARY] XRAY_LOG...\n"
	      "\n"
	      "Call stacks of LLVM XRay logs, as `llvm-xray stack` prints them: the number\n"
	      "of unique stacks and the top 10 stacks by leaf sum and by leaf count (time in\n"
	      "TSC cycles), or every stack for flamegraph.pl.  Several logs add up.\n"
	      "Options take llvm-xray's spellings too (-all-stacks, -k, -m BIN...).\n"
	      "\n"
	      "  -m, --instr-map=BINARY   instrumented binary (or llvm-xray's YAML map): names\n"
	      "                           functions (without it: #ID, as llvm-xray)\n"
	      "      --per-thread-stacks  the top stacks of each thread\n"
	      "      --aggregate-threads  the threads' call trees merged\n"
	      "      --all-stacks, --all  every stack, one line each (needs --stack-format=flame)\n"
	      "      --stack-format=FMT   human (default, without --all-stacks) or flame\n"
	      "                           (flamegraph.pl's folded stacks, with --all-stacks)\n"
	      "      --aggregation-type=TYPE  flame values: time (default: the time of every\n"
	      "                           call of the stack, its callees' included) or count\n"
	      "                           (its calls)\n"
	      "      --flame-exclusive    flame values: the time of each stack less its\n"
	      "                           callees' time, so that flamegraph.pl, which adds a\n"
	      "                           stack's callees to it, draws the true times (llvm-xray\n"
	      "                           prints inclusive times, which it counts twice:\n"
	      "                           llvm-project issue 63676); a stack that never exited\n"
	      "                           counts 0.  Needs --all-stacks --stack-format=flame,\n"
	      "                           time aggregation\n"
	      "  -k, --keep-going         go on after an exit record with no matching entry\n"
	      "                           (reported on standard error, the stack it closes\n"
	      "                           accounted as llvm-xray does) and after a log that\n"
	      "                           cannot be read\n"
	      "      --lenient            skip damaged buffers of a log (reported)\n"
	      "  -o, --output=FILE        write the report to FILE ('-': standard output)\n"
	      "      --progress           show the progress of each log on standard error (bytes\n"
	      "                           read of the total, events, rate, time left; default:\n"
	      "                           when it is a terminal that the report does not go to)\n"
	      "      --no-progress        never show it\n"
	      "\n"
	      "Without -k, an exit record with no matching entry is an error and nothing is\n"
	      "printed, as llvm-xray does.  A damaged log: the stacks read before the damage\n"
	      "are printed, then the error.  Exit status: 0, 1 on error, 2 on bad usage.\n",
	      out);
}

static void stack_warning(void *user, const char *msg)
{
	(void)user;
	cli_progress_clear();
	fprintf(stderr, "tracemux: warning: %s\n", msg);
}

/* The first unmatched records are shown as llvm-xray -k shows them, the others counted. */
#define SHOWN_UNMATCHED 10

struct run {
	struct tmx_xstack *stack;
	bool keep_going;
	uint64_t unmatched;
	bool failed;               /* an error was reported: exit 1 */
	bool no_report;            /* llvm-xray would print nothing (an unmatched exit without -k) */
	int progress;              /* --progress 1, --no-progress -1 (a line per log) */
	bool to_stdout;            /* the report goes to standard output */
};

/*
 * Every record of one log into the stacks.  Returns false when the run
 * must stop (an error without -k, out of memory); a read error with -k is
 * reported and the run goes on with the next log.
 */
static bool stack_log(struct run *r, const char *path, const struct tmx_xray_opts *xopts,
		      const struct tmx_diag *diag)
{
	struct tmx_error err = { 0 };
	struct tmx_source *src = NULL;
	const struct tmx_msg *msg;
	struct tmx_xstack_unmatched um;
	struct tmx_progress_meter *meter;
	char text[1024];
	bool unmatched, go_on = true;

	if (tmx_xray_open(&path, 1, xopts, diag, &src, &err)) {
		cli_report(&err);
		r->failed = true;
		return r->keep_going;
	}
	tmx_xstack_begin_file(r->stack);
	meter = cli_progress_meter(r->progress, r->to_stdout, src);
	for (;;) {
		if (tmx_source_next(src, &msg, &err)) {
			tmx_progress_meter_end(meter, false);
			cli_report(&err);
			r->failed = true;
			go_on = r->keep_going;
			break;
		}
		if (!msg)
			break;
		if (meter)
			tmx_progress_meter_note(meter, msg);
		if (tmx_xstack_consume(r->stack, msg, &unmatched, &um, &err)) {
			tmx_progress_meter_end(meter, false);
			cli_report(&err);
			r->failed = r->no_report = true;
			go_on = false;
			break;
		}
		if (!unmatched)
			continue;
		tmx_xstack_describe(r->stack, &um, text, sizeof(text));
		if (!r->keep_going) {
			tmx_progress_meter_end(meter, false);
			/* As llvm-xray without -k: this error, no report. */
			fprintf(stderr, "tracemux: error: %s: %s (tsc %llu; -k goes on)\n", path, text,
				(unsigned long long)um.tsc);
			r->failed = r->no_report = true;
			go_on = false;
			break;
		}
		if (r->unmatched++ < SHOWN_UNMATCHED) {
			cli_progress_clear();
			fprintf(stderr, "tracemux: warning: %s: %s\n", path, text);
		}
	}
	tmx_progress_meter_end(meter, go_on);   /* (after an error: already ended) */
	tmx_progress_meter_free(meter);
	tmx_source_free(src);
	return go_on;
}

/* Checks the option combinations llvm-xray refuses, and ours. */
static int check_options(const struct tmx_xstack_opts *o, bool flame)
{
	if (o->per_thread && o->aggregate_threads)
		return cli_command_usage_error("xray-stack",
					       "%s", "can't specify options for per thread reporting and "
					       "reporting that aggregates threads");
	if (!o->all_stacks && flame)
		return cli_command_usage_error("xray-stack",
					       "%s", "can't specify a non-human format without --all-stacks");
	if (o->all_stacks && !flame)
		return cli_command_usage_error("xray-stack",
					       "%s", "you must specify a non-human format when reporting "
					       "with --all-stacks (--stack-format=flame)");
	if (o->exclusive && !o->all_stacks)
		return cli_command_usage_error("xray-stack",
					       "%s", "--flame-exclusive goes with --all-stacks "
					       "--stack-format=flame");
	if (o->exclusive && o->count)
		return cli_command_usage_error("xray-stack",
					       "%s", "--flame-exclusive takes times off: with "
					       "--aggregation-type=count each line already counts the "
					       "calls of its own stack only");
	return 0;
}

static int write_report(struct tmx_xstack *stack, const char *output)
{
	struct tmx_error err = { 0 };
	int fd = STDOUT_FILENO, status = 0;

	if (output) {
		fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "tracemux: error: %s: cannot open for writing: %s\n", output,
				strerror(errno));
			return 1;
		}
	}
	if (tmx_xstack_write(stack, fd, &err))
		status = cli_report(&err);
	if (fd != STDOUT_FILENO && close(fd) && !status) {
		fprintf(stderr, "tracemux: error: %s: %s\n", output, strerror(errno));
		status = 1;
	}
	return status;
}

/* After the logs: the report (or why there is none); returns the exit status. */
static int finish(struct run *r, const char *output)
{
	uint64_t clamped;

	if (tmx_xstack_empty(r->stack)) {
		/* After a read error, that error says it all. */
		if (!r->failed)
			fputs("tracemux: error: no instrumented calls were accounted in the input\n",
			      stderr);
		return 1;
	}
	if (write_report(r->stack, output))
		return 1;
	clamped = tmx_xstack_clamped(r->stack);
	if (clamped)
		fprintf(stderr, "tracemux xray-stack: %llu stack%s took less time than %s callees "
			"(a call never exited): printed as 0\n", (unsigned long long)clamped,
			clamped == 1 ? "" : "s", clamped == 1 ? "its" : "their");
	return r->failed ? 1 : 0;
}

/* What the options of xray-stack fill. */
struct stack_args {
	struct tmx_xstack_opts opts;
	struct tmx_xray_opts xopts;
	bool keep_going, flame;
	const char *output;
	int progress;
};

static int set_format(void *state, const struct cmd_option *o, const char *arg)
{
	(void)o;
	return cmd_choice("xray-stack", "--stack-format", arg, "human", "flame",
			  &((struct stack_args *)state)->flame);
}

static int set_aggregation(void *state, const struct cmd_option *o, const char *arg)
{
	(void)o;
	return cmd_choice("xray-stack", "--aggregation-type", arg, "time", "count",
			  &((struct stack_args *)state)->opts.count);
}

static int show_help(void *state, const struct cmd_option *o, const char *arg)
{
	(void)state, (void)o, (void)arg;
	stack_usage(stdout);
	return CMD_EXIT_OK;
}

static const struct cmd_option stack_options[] = {
	CMD_TEXT("instr-map", 'm', struct stack_args, xopts.instr_map),
	CMD_TEXT("instr_map", 'm', struct stack_args, xopts.instr_map),
	CMD_FLAG("keep-going", 'k', struct stack_args, keep_going),
	CMD_FLAG("per-thread-stacks", 0, struct stack_args, opts.per_thread),
	CMD_FLAG("aggregate-threads", 0, struct stack_args, opts.aggregate_threads),
	CMD_FLAG("all-stacks", 0, struct stack_args, opts.all_stacks),
	CMD_FLAG("all", 0, struct stack_args, opts.all_stacks),
	{ "stack-format", 0, required_argument, set_format, 0 },
	{ "aggregation-type", 0, required_argument, set_aggregation, 0 },
	CMD_FLAG("flame-exclusive", 0, struct stack_args, opts.exclusive),
	CMD_FLAG("lenient", 0, struct stack_args, xopts.lenient),
	CMD_OUTPUT("output", 'o', struct stack_args, output),
	CMD_PROGRESS("progress", struct stack_args, progress),
	CMD_PROGRESS("no-progress", struct stack_args, progress),
	{ "help", 'h', no_argument, show_help, 0 },
};

int cli_xray_stack(int argc, char **argv, const struct tmx_diag *diag_in)
{
	struct stack_args args = { .xopts = { .size = sizeof(args.xopts), .unsorted = true } };
	struct tmx_xstack_opts *opts = &args.opts;
	struct tmx_xray_opts *xopts = &args.xopts;
	struct tmx_diag diag = diag_in ? *diag_in : (struct tmx_diag){ .warn = stack_warning };
	struct run r = { 0 };
	int status, first;

	argv++, argc--;   /* "xray-stack" becomes argv[0] */
	if ((status = cli_cmd_parse("xray-stack", stack_options,
				    sizeof(stack_options) / sizeof(stack_options[0]), &args, argc, argv,
				    &first)))
		return status == CMD_EXIT_OK ? 0 : status;
	r.keep_going = args.keep_going;
	r.progress = args.progress;
	r.to_stdout = !args.output;
	if (first >= argc)
		return cli_command_usage_error("xray-stack", "%s", "no XRay log given");
	if ((status = check_options(opts, args.flame)))
		return status;
	/* llvm-xray stack names functions from the map whenever there is one. */
	xopts->symbolize = opts->symbolized = xopts->instr_map != NULL;
	r.stack = tmx_xstack_new(opts);
	if (!r.stack) {
		fputs("tracemux: error: out of memory\n", stderr);
		return 1;
	}
	for (int i = first; i < argc; i++)
		if (!stack_log(&r, argv[i], xopts, &diag))
			break;
	if (r.unmatched > SHOWN_UNMATCHED)
		fprintf(stderr, "tracemux xray-stack: %llu exit records with no matching entry in "
			"all (-k)\n", (unsigned long long)r.unmatched);
	status = r.no_report ? 1 : finish(&r, args.output);
	tmx_xstack_free(r.stack);
	return status;
}
