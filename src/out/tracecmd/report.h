/*
 * `-o tracecmd`: the text of `trace-cmd report` (trace-cmd 3.1.6), byte for
 * byte, for trace.dat files.
 *
 * The event text itself (print fmt, plugins for sched_switch, sched_wakeup,
 * function, kmem, hrtimer...) comes from libtraceevent, the library that
 * trace-cmd uses, fed with the same texts (header page, event formats,
 * kallsyms, printk formats, saved cmdlines) and the same raw records (read
 * by src/tracecmd/).  What trace-cmd itself adds around that text is done
 * here: the order of records (per buffer, the CPU with the smallest
 * timestamp, the lowest CPU on ties; across files and instances the first
 * one on ties), the `cpus=N` line, the file and instance prefixes, the
 * `[N EVENTS DROPPED]` lines, the comm-pid-CPU-time columns, the padded
 * event name, `--stat`, `--cpu` and the `-F` / `-v` filters (libtraceevent
 * filters, matched as libtracecmd does).
 */
#ifndef TMX_OUT_TRACECMD_REPORT_H
#define TMX_OUT_TRACECMD_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "tracemux/error.h"

#define TMX_TCREPORT_MAX_FILTERS 64
#define TMX_TCREPORT_MAX_CPUS 4096

struct tmx_tcreport_filter {
	const char *expr;   /* as `trace-cmd report -F`: "EVENTS[:FILTER]" */
	bool negated;       /* given after -v */
};

struct tmx_tcreport_opts {
	int out_fd;
	bool raw;           /* -R: fields as name=value (TEP_PRINT_INFO_RAW) */
	bool nsec;          /* -t: nanosecond timestamps */
	bool no_plugins;    /* -N: print fmt only */
	bool stat;          /* --stat: the recorded buffer statistics, no events */
	bool latency;       /* -l: latency columns (comm cut to 8, irqs/preempt flags) */
	bool ts_diff;       /* --ts-diff: time since the previous printed record */
	const char *cpus;   /* --cpu LIST ("0", "0-2,5"), NULL: all */
	size_t n_filters;
	struct tmx_tcreport_filter filters[TMX_TCREPORT_MAX_FILTERS];
	bool lenient;       /* passed to the reader: skip damaged pages */
	const struct tmx_diag *diag;
};

void tmx_tcreport_opts_default(struct tmx_tcreport_opts *o);

/*
 * Adds a filter in command-line order; `negated` when -v came before it.
 * Returns TMX_ERR_LIMIT past TMX_TCREPORT_MAX_FILTERS.
 */
int tmx_tcreport_add_filter(struct tmx_tcreport_opts *o, const char *expr, bool negated,
			    struct tmx_error *err);

/*
 * Prints the report of the trace.dat files `paths` (several files are
 * merged as `trace-cmd report -i A -i B`).  Everything read before an
 * error is printed; returns TMX_OK or the error.
 */
int tmx_tcreport_run(const char *const *paths, size_t n_paths, const struct tmx_tcreport_opts *o,
		     struct tmx_error *err);

#endif
