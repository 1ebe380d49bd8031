/* The tracemux program's parts (cli/). */
#ifndef TMX_CLI_H
#define TMX_CLI_H

#include "tracemux/run.h"
#include "tracemux/tracemux.h"

/*
 * Prints "tracemux COMMAND: MESSAGE" (COMMAND may be NULL) and the --help
 * hint of that command; returns 2, the usage exit status.
 */
int cli_command_usage_error(const char *command, const char *fmt, const char *arg);
/* Prints "tracemux: error: ..." and returns the exit status (2 for usage errors, else 1). */
int cli_report(const struct tmx_error *err);
/*
 * --lenient: after all the output, "tracemux: warning: skipped N damaged
 * packets (B bytes)" and exit status 1 when anything was skipped, else 0.
 */
int cli_report_skipped(uint64_t packets, uint64_t bytes);
/* `tracemux query ...` (argv[1] is "query"). */
int cli_query(int argc, char **argv, const struct tmx_diag *diag);
/* `tracemux info ...` (argv[1] is "info"). */
int cli_info(int argc, char **argv, const struct tmx_diag *diag);
/* `tracemux xray-account ...` (argv[1] is "xray-account"). */
int cli_xray_account(int argc, char **argv, const struct tmx_diag *diag);
/* `tracemux xray-stack ...` (argv[1] is "xray-stack"). */
int cli_xray_stack(int argc, char **argv, const struct tmx_diag *diag);
/* `tracemux analyze COMMAND ...` (argv[1] is "analyze"): lttng-analyses' commands. */
int cli_analyze(int argc, char **argv, const struct tmx_diag *diag);

/*
 * --progress (mode 1), --no-progress (-1), neither (0: when standard error
 * is a terminal that the output does not go to): tmx_run's progress calls
 * drawn on standard error (cli/progress.c).
 */
struct tmx_run_opts;
void cli_progress_setup(int mode, bool output_to_stdout, struct tmx_run_opts *opts);
/* Takes the progress line off the terminal before a warning (the next update draws it again). */
void cli_progress_clear(void);
/*
 * The same for a command that reads `src` itself: a meter to note each
 * message in (tracemux/run.h), NULL when no progress is shown.
 */
struct tmx_progress_meter;
struct tmx_progress_meter *cli_progress_meter(int mode, bool output_to_stdout,
					      const struct tmx_source *src);
/* The mode of the option named "progress" (1) or "no-progress" (-1). */
int cli_progress_option(const char *name);

/*
 * `-o tracecmd`: prints trace.dat inputs as `trace-cmd report` and returns
 * the exit status with *handled set; *handled is false for other traces
 * (the caller prints them through the model).  --events / --filter select
 * the records there too (after report's own -F filters).
 */
struct tmx_tcreport_opts;
/* --events and --filter as given (see cli_filter_setup in options.h). */
struct cli_filter_args {
	const char *const *event_args;
	size_t n_event_args;
	const char *expr;
};
int cli_tracecmd(const char *const *inputs, size_t n, struct tmx_tcreport_opts *o,
		 const char *output_path, bool trimming, const struct cli_filter_args *filter,
		 const struct tmx_diag *diag, bool *handled);

#endif
