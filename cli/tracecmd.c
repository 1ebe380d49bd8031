/*
 * `-o tracecmd`: trace.dat inputs are printed by the trace-cmd report
 * output (src/tools/tracecmd/report.c), which reads the files in trace-cmd's
 * own order; other traces go through the common model like every output
 * (src/sink/tracecmd/layout.c, wired in main.c's sink).  --events and
 * --filter are decided on the model in a first pass (the same filter as
 * for every output), which notes the records it keeps; the report then
 * leaves the others out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "tools/tracecmd/report.h"
#include "tracemux/filter.h"

/* The records of the events that --events / --filter keep, read through the model. */
static int kept_records(const char *const *inputs, size_t n, bool lenient,
			const struct cli_filter_args *fa, const struct tmx_diag *diag,
			struct tmx_tcreport_kept *k)
{
	const struct tmx_tracedat_opts opts = { .size = sizeof(opts), .lenient = lenient };
	struct tmx_error err = { 0 };
	struct tmx_source *src;
	struct tmx_filter *filter;
	const struct tmx_msg *msg;
	int status;

	if (tmx_tracedat_open(inputs, n, &opts, diag, &src, &err))
		return cli_report(&err);
	status = cli_filter_setup(fa->event_args, fa->n_event_args, fa->expr, src, &filter);
	while (!status && !(status = tmx_source_next(src, &msg, &err) ? cli_report(&err) : 0) && msg) {
		if (!tmx_tcreport_kept_add(k, msg)) {
			fputs("tracemux: error: out of memory\n", stderr);
			status = 1;
		}
	}
	tmx_source_free(src);
	tmx_filter_free(filter);
	return status;
}

/* Whether the library reads the input as a trace.dat (unreadable or unknown: no). */
static bool is_tracedat(const char *path)
{
	enum tmx_trace_format fmt;
	struct tmx_error err;

	return !tmx_detect_format(path, &fmt, &err) && fmt == TMX_FORMAT_TRACEDAT;
}

static bool report_options_given(const struct tmx_tcreport_opts *o)
{
	return o->raw || o->nsec || o->no_plugins || o->stat || o->cpus || o->n_filters ||
	       o->latency || o->ts_diff || o->page_size || o->endian || o->event_formats ||
	       o->check_events ||
	       o->list_events || o->cpus_list || o->first_event || o->last_event || o->uname ||
	       o->version || o->raw_ts || o->align_ts || o->no_date || o->ts2secs || o->no_irqs ||
	       o->no_softirqs || o->wakeup || o->n_pids || o->n_comms || o->n_raw_events ||
	       o->n_no_handler || o->no_sys_plugins || o->funcs || o->printk_list || o->profile ||
	       o->profile_global || o->profile_by_comm || o->n_hooks || o->filter_test ||
	       o->ts_check || o->kallsyms;
}

int cli_tracecmd(const char *const *inputs, size_t n, struct tmx_tcreport_opts *o,
		 const char *output_path, bool trimming, const struct cli_filter_args *filter,
		 const struct tmx_diag *diag, bool *handled)
{
	struct tmx_error err = { 0 };
	struct tmx_tcreport_skipped skipped;
	struct tmx_tcreport_kept *kept = NULL;
	size_t n_dat = 0;
	int fd = STDOUT_FILENO, status = 0;

	*handled = true;
	for (size_t i = 0; i < n; i++)
		n_dat += is_tracedat(inputs[i]);
	if (!n_dat) {
		if (report_options_given(o)) {
			/* Name the input: a missing file is the likelier mistake. */
			if (access(inputs[0], R_OK)) {
				fprintf(stderr, "tracemux: error: %s: %s\n", inputs[0], strerror(errno));
				return 1;
			}
			fprintf(stderr, "tracemux: error: %s: not a trace.dat file; the trace-cmd report "
				"options of -o tracecmd (--raw, --nsec, -N, --cpu, -F, --stat...) need "
				"trace.dat inputs\n", inputs[0]);
			return 2;
		}
		*handled = false;   /* other traces: the model path */
		return 0;
	}
	if (trimming) {
		fputs("tracemux: error: --begin, --end, --timerange and --stream-intersection do not "
		      "apply to -o tracecmd on trace.dat files\n", stderr);
		return 2;
	}
	if (n_dat != n) {
		fputs("tracemux: error: -o tracecmd cannot mix trace.dat files with other traces\n",
		      stderr);
		return 2;
	}
	if (filter->n_event_args || filter->expr) {
		if (!(kept = tmx_tcreport_kept_new())) {
			fputs("tracemux: error: out of memory\n", stderr);
			return 1;
		}
		if ((status = kept_records(inputs, n, o->lenient, filter, diag, kept))) {
			tmx_tcreport_kept_free(kept);
			return status;
		}
		tmx_tcreport_keep_only(o, kept);
	}
	if (output_path) {
		fd = open(output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "tracemux: error: %s: cannot open for writing: %s\n", output_path,
				strerror(errno));
			tmx_tcreport_kept_free(kept);
			return 1;
		}
	}
	o->out_fd = fd;
	if (tmx_tcreport_run(inputs, n, o, &skipped, &err))
		status = cli_report(&err);
	tmx_tcreport_kept_free(kept);
	if (fd != STDOUT_FILENO && close(fd) && !status) {
		fprintf(stderr, "tracemux: error: %s: %s\n", output_path, strerror(errno));
		status = 1;
	}
	return status ? status : cli_report_skipped(skipped.units, skipped.bytes);
}
