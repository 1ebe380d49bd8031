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
 * event name, `--stat`, `--cpu` (CPUs numbered across files and instances)
 * and the `-F` / `-v` filters (libtraceevent filters, matched as
 * libtracecmd does, on the first file only), `--pid` / `--comm`, `-I` / `-S`,
 * the timestamp options (`--raw-ts`, `--align-ts`, `--ts2secs`,
 * `--nodate`), `-w` wakeup latencies, `--profile` (profile.h) and what
 * report prints instead of the events (-p, -e, --check-events, -f, -P, -E,
 * --cpus, --first-event, --last-event, --uname, --version), in trace-cmd's
 * order of precedence.
 */
#ifndef TMX_TOOLS_TRACECMD_REPORT_H
#define TMX_TOOLS_TRACECMD_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"

struct tmx_run_opts;

struct tdat_record;

#define TMX_TCREPORT_MAX_FILTERS 64
#define TMX_TCREPORT_MAX_CPUS 4096

struct tmx_tcreport_filter {
	const char *expr;   /* as `trace-cmd report -F`: "EVENTS[:FILTER]" */
	bool negated;       /* given after -v */
};

/*
 * Which trace-cmd release's report is printed (--report-version): 3.1
 * (Debian 12's trace-cmd 3.1.6 with libtraceevent 1.7) or 3.3 (trace-cmd
 * 3.3.x/3.4 with libtraceevent 1.8: a flags column after [CPU], `-0x%x` of
 * the flags with -R, sched_switch's prev_state letters from the file's own
 * print fmt).  See report_v33.c.
 */
enum tmx_tcreport_version {
	TMX_TCREPORT_V31 = 31,
	TMX_TCREPORT_V33 = 33,
};

struct tmx_tcreport_opts {
	int out_fd;
	enum tmx_tcreport_version report_version;  /* TMX_TCREPORT_V33 by default */
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
	/*
	 * Threads that read and write the records ahead (0: every CPU
	 * available, 1: none); the output does not depend on it.
	 */
	unsigned jobs;
	const struct tmx_diag *diag;

	/* Information about the files instead of the events (trace-cmd report's order of precedence). */
	bool page_size;     /* -p: "file page size is N, and host page size is N" (first file) */
	bool endian;        /* -e: "file is X endian and host is Y endian" (first file) */
	bool check_events;  /* --check-events: fail if an event format cannot be parsed (first file) */
	bool list_events;   /* -E: system:event of every stored format (first file) */
	/* --events (".*"), --event REGEX: the stored event format files that match (first file) */
	const char *event_formats;
	bool cpus_list;     /* --cpus: the CPUs with data, per file */
	bool first_event;   /* --first-event: with --cpus, each CPU's first time */
	bool last_event;    /* --last-event: with --cpus, each CPU's last time */
	bool uname;         /* --uname: the recorded uname (then the version), per file */
	bool version;       /* --version: the recording trace-cmd's version, per file */

	/* Timestamps. */
	bool raw_ts;        /* --raw-ts: ring-buffer times, no conversion */
	bool align_ts;      /* --align-ts: times from the first event of all files */
	bool no_date;       /* --nodate: ignore the DATE option */
	uint64_t ts2secs;   /* --ts2secs HZ: times are counts of a HZ clock, 0: off */

	/* Records and what is printed with them. */
	bool no_irqs;       /* -I: drop events recorded in hard interrupt context */
	bool no_softirqs;   /* -S: drop events recorded in soft interrupt context */
	bool wakeup;        /* -w: wakeup latency after each sched_switch, summary at the end */
	/* --pid / --comm: comma-separated lists, several options add up (one more -F filter). */
	size_t n_pids, n_comms;
	const char *pids[TMX_TCREPORT_MAX_FILTERS], *comms[TMX_TCREPORT_MAX_FILTERS];
	/* -r / -n: event regexes (matched whole, any case, on name or system). */
	size_t n_raw_events, n_no_handler;
	const char *raw_events[TMX_TCREPORT_MAX_FILTERS], *no_handler[TMX_TCREPORT_MAX_FILTERS];
	bool no_sys_plugins; /* -L: no system-wide libtraceevent plugins */
	bool funcs;         /* -f: the function symbols (first file) */
	bool printk_list;   /* -P: the printk formats (first file) */
	bool profile;       /* --profile: per-task timings instead of the events (profile.h) */
	bool profile_global; /* -G: --profile counts irqs and softirqs per CPU */
	bool profile_by_comm; /* --by-comm: --profile merges the tasks of a comm */
	/* -H: event pairs for --profile (profile.h), printed when parsed as trace-cmd does */
	size_t n_hooks;
	const char *hooks[TMX_TCREPORT_MAX_FILTERS];
	bool filter_test;   /* -T: print the filters as libtraceevent parsed them, nothing else */
	bool ts_check;      /* --ts-check: warn when a CPU's time goes backwards */
	const char *kallsyms; /* --kallsyms FILE: more symbols, read before the file's own */
	/* -O [PLUGIN:]OPTION[=VALUE]: libtraceevent plugin options (and fgraph's), in order */
	size_t n_plugin_options;
	const char *plugin_options[TMX_TCREPORT_MAX_FILTERS];
	/*
	 * --events / --filter (decided on the model, see cli/tracecmd.c): the
	 * records of file `file` (index in the paths) for which keep() is false
	 * are left out as the -F filters leave records out (after them).
	 * NULL: every record.
	 */
	bool (*keep)(const void *ctx, size_t file, const struct tdat_record *rec);
	const void *keep_ctx;
	/*
	 * Progress calls (tracemux/run.h: its progress, progress_user,
	 * progress_ms) while the records are printed; NULL: none.
	 */
	const struct tmx_run_opts *progress;
};

/*
 * --events / --filter decided on the model (report_keep.c): the records of
 * the events of a tmx_tracedat_open() source over the same paths that the
 * filter kept, noted one message at a time (any other message: nothing,
 * true), then given to the report as its keep() (only those records are
 * printed).  add() is false when out of memory.
 */
struct tmx_tcreport_kept;
struct tmx_msg;
struct tmx_tcreport_kept *tmx_tcreport_kept_new(void);
bool tmx_tcreport_kept_add(struct tmx_tcreport_kept *k, const struct tmx_msg *msg);
void tmx_tcreport_keep_only(struct tmx_tcreport_opts *o, struct tmx_tcreport_kept *k);
void tmx_tcreport_kept_free(struct tmx_tcreport_kept *k);

/*
 * Adds LIST to one of the string lists above (--pid, --comm, -r, -n);
 * TMX_ERR_LIMIT past TMX_TCREPORT_MAX_FILTERS.
 */
int tmx_tcreport_add_item(const char **list, size_t *n, const char *item, const char *what,
			  struct tmx_error *err);

void tmx_tcreport_opts_default(struct tmx_tcreport_opts *o);

/*
 * Adds a filter in command-line order; `negated` when -v came before it.
 * Returns TMX_ERR_LIMIT past TMX_TCREPORT_MAX_FILTERS.
 */
int tmx_tcreport_add_filter(struct tmx_tcreport_opts *o, const char *expr, bool negated,
			    struct tmx_error *err);

/* With --lenient: the damaged ring-buffer pages or compressed chunks skipped, and their bytes. */
struct tmx_tcreport_skipped {
	uint64_t units, bytes;
};

/*
 * Prints the report of the trace.dat files `paths` (several files are
 * merged as `trace-cmd report -i A -i B`).  Everything read before an
 * error is printed; returns TMX_OK or the error.  *skipped (may be NULL)
 * gets what the lenient readers skipped, summed over the files.
 */
int tmx_tcreport_run(const char *const *paths, size_t n_paths, const struct tmx_tcreport_opts *o,
		     struct tmx_tcreport_skipped *skipped, struct tmx_error *err);

#endif
