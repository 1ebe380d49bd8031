/*
 * The parts of `trace-cmd report` (report.h) share this state; one file per
 * job of trace-cmd's trace-read.c:
 *
 *   report.c         the run: files opened and set up, each printed line
 *                    (trace_show_data()), --profile glue, the main loop
 *   report_tep.c     libtraceevent set up as trace-cmd sets it up
 *                    (plugins, header page, formats, kallsyms, printk, comms)
 *   report_filter.c  -F / -v, --pid / --comm, -T, and the -r / -n event flags
 *   report_order.c   records handed to libtraceevent, handles and their
 *                    cursors, --cpu, libtracecmd's record order, --ts-check
 *   report_time.c    --raw-ts, --ts2secs, --nodate, --align-ts, time columns
 *   report_stat.c    --stat
 *   report_info.c    what is printed instead of the events (-p, -e, --events,
 *                    --check-events, -f, -P, -E, --cpus, --uname, --version)
 *   report_wakeup.c  -w wakeup latencies
 *   report_par.c     --jobs: the CPUs read and their lines written ahead on
 *                    worker threads, merged here in libtracecmd's order
 *   report_v33.c     --report-version=3.3: the flags column, sched_switch's
 *                    prev_state as libtraceevent 1.8 prints it
 *
 * Functions that several parts call are prefixed tcr_ (the report); the
 * helpers inlined here are on the per-record path.
 */
#ifndef TMX_TOOLS_TRACECMD_REPORT_IMPL_H
#define TMX_TOOLS_TRACECMD_REPORT_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "sink/outbuf.h"
#include "tools/tracecmd/funcgraph.h"
#include "tools/tracecmd/report.h"
#include "tracecmd/tracedat.h"

struct tcf_plan;
struct tcr_v33;
struct tcr_par;
struct tcg_vcpus;
struct tcp_hook;
struct tcp_profile;
struct tfg;

/* One input file: its reader, its libtraceevent handle and its filters. */
struct tcr_file {
	struct tdat_file *f;
	const char *base;            /* base name, the prefix with several files */
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	struct tep_event_filter **pos, **neg;
	size_t n_pos, n_neg;
	/* libtracecmd's stack-trace follow-up for filters. */
	int kernel_stack_id, user_stack_id;
	bool *last_printed;
	int n_last_printed;
	bool usecs;                  /* TRACECMD_FL_IN_USECS */
	int cpus;                    /* what `cpus=` prints (libtracecmd's max_cpu) */
	/* Compiled print fmts by event id (fastfmt.h), NULL: libtraceevent renders it. */
	struct tcf_plan **plans;
	int n_plans;
	/*
	 * libtraceevent's event by id (tep_find_event(), looked up once per
	 * id at set-up: its one-entry cache misses on alternating events, and
	 * worker threads must not write it); ids_all: every id is below
	 * n_ev_by_id, so an id past it has no event.
	 */
	struct tep_event **ev_by_id;
	int64_t *need_by_id;         /* and tcr_fixed_need() of it */
	char **col_by_id;            /* and its " NAME: " column (tcr_put_name_text()) */
	uint32_t *col_len_by_id;
	size_t n_ev_by_id;
	bool ids_all;
	bool primed;                 /* libtraceevent's common field offsets found (index_events()) */
	/*
	 * Where libtraceevent reads common_type and common_pid (primed, and
	 * checked against it at set-up): tcr_type() and tcr_pid() read them
	 * without a call.  common_fast false: they ask libtraceevent.
	 */
	bool common_fast;
	uint32_t type_off, type_size, pid_off, pid_size;
	bool swap;                   /* file and host byte orders differ */
	uint32_t common_end;         /* bytes of the common fields (common_type, common_pid...) */
	/* Formats libtraceevent could not parse (--check-events), the first one's name. */
	int parse_failures;
	char first_failure[96];
	/* Timestamps (rec_time()). */
	bool raw_ts;                 /* --raw-ts */
	double ts2secs;              /* --ts2secs: 1e9 / HZ, 0: none */
	uint64_t adjust;             /* added to every time: --nodate, --align-ts (modulo 2^64) */
	bool use_trace_clock;        /* libtracecmd's use_trace_clock: --ts-diff in usecs */
	/* -w: the sched events and fields that libtracecmd's init_wakeup() looks up. */
	bool wakeup;
	int wk_id, wk_new_id, sw_id;
	struct tep_format_field *wk_pid, *wk_success, *wk_new_pid, *wk_new_success;
	struct tep_format_field *sw_pid, *sw_prio;
	struct tcp_profile *profile;  /* --profile */
	struct tcp_hook *hooks;       /* the file's HOOK options, in file order */
	size_t n_hooks;
	struct tcr_v33 *v33;          /* --report-version=3.3 (report_v33.c), or NULL */
};

/* -w: pids woken and not yet switched to, with the wakeup time (open addressing). */
struct tcr_wakeups {
	uint32_t *pid;
	uint64_t *start;
	bool *used;
	size_t cap, n;
};

/* -w: one set of latency statistics (all tasks, or RT tasks: next_prio <= 99). */
struct tcr_lat {
	uint64_t total, count, max, max_time, min, min_time;
};

/* One buffer of one file: trace-cmd's tracecmd_input handle. */
struct tcr_handle {
	struct tcr *r;
	struct tcr_file *file;
	size_t buffer;
	const char *label;           /* prefix name, NULL for a lone file's top buffer */
	size_t n_cpus;
	struct tdat_cursor **cur;
	/*
	 * Per cursor, the record its last peek gave (NULL: its end) and that
	 * record's time, while nothing was taken from it since (known): the
	 * order compares them without asking the cursors again
	 * (report_order.c's cursor_peek/cursor_next keep them).
	 */
	struct tcr_head {
		const struct tdat_record *rec;
		uint64_t ts;
		bool known;
	} *heads;
	const struct tdat_record *rec;   /* taken from its cursor, not printed yet */
	uint64_t ts;                     /* its time (rec_time()) */
	size_t rec_cursor;               /* the cursor it came from */
	uint64_t cpu_base;               /* the index of its CPU 0 among all handles' CPUs */
	bool *listed;                    /* --cpu: per cursor, printed or not (NULL: all are) */
	bool done;
	struct tfg_handle fg;            /* what the function graph look-ahead reads */
	size_t unit;                     /* with workers: its cursor i is unit `unit + i` (report_par.c) */
};

struct tcr {
	const struct tmx_tcreport_opts *o;
	struct outbuf *out;
	struct trace_seq seq;
	struct tcr_file *files;
	size_t n_files;
	struct tcr_handle *handles;
	size_t n_handles, cap_handles;
	unsigned *cpu_list;          /* --cpu, in the order given */
	size_t n_cpu_list;
	uint64_t cpu_base;           /* the next handle's cpu_base (tcr_add_handle()) */
	uint64_t check_ts;           /* --ts-check: the previous printed time */
	uint8_t *pad;                /* a short record padded for libtraceevent (tcr_prepare()) */
	size_t pad_size;
	uint64_t last_ts;            /* --ts-diff: previous printed time (0: none yet) */
	bool multi;                  /* several input files */
	size_t instances;            /* trace-cmd's `instances` (last file's count) */
	size_t max_label;            /* trace-cmd's max_file_size */
	struct tcr_wakeups wakeups;  /* -w */
	struct tcr_lat lat, rt_lat;
	const char *const *paths;    /* as given (--cpus names them) */
	struct tcp_hook *hooks;      /* -H, in command-line order */
	size_t n_hooks;
	bool filter_test_done;       /* -T printed the filters: nothing else */
	struct tcg_vcpus *guests;    /* KVM guests' vCPUs (guest.h) */
	struct tfg *fg;              /* funcgraph_entry/exit handlers (funcgraph.h) */
	struct tcr_par *par;         /* worker threads read the cursors (report_par.c), or NULL */
	struct tcr_progress *progress;   /* --progress (report_progress.c), or NULL */
	/*
	 * tep_data_comm_from_pid()'s answers by pid (a bsearch each): valid
	 * while gen is comm_gen, which each libtraceevent print moves on (the
	 * sched plugins register comms as they print).
	 */
	struct tcr_comm {
		int pid;
		uint32_t gen;
		const char *comm;
		size_t len;
		char col[16];            /* "%16s" of it, when it fits */
	} comms[256];
	uint32_t comm_gen;
};

/* ---- Columns (printf semantics without printf; digits from outbuf.h) ---- */

/* "%*s" (right) or "%-*s" (left) of the text [p, end): padded, never cut. */
static inline void put_num(struct outbuf *b, const char *p, const char *end, size_t width,
			   bool left)
{
	size_t len = (size_t)(end - p);

	if (!left && width > len)
		outbuf_spaces(b, width - len);
	outbuf_write(b, p, len);
	if (left && width > len)
		outbuf_spaces(b, width - len);
}

/* "%*s": right-aligned, never cut. */
static inline void put_right(struct outbuf *b, const char *s, size_t width)
{
	put_num(b, s, s + strlen(s), width, false);
}

/* "%llx" (outbuf_hex() writes upper-case digits) */
static inline void put_hex(struct outbuf *b, uint64_t v)
{
	char buf[16], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	outbuf_write(b, p, (size_t)(buf + sizeof(buf) - p));
}

/* ---- Records ---- */

static inline void to_tep_record(const struct tdat_record *rec, struct tep_record *tr)
{
	memset(tr, 0, sizeof(*tr));
	tr->ts = rec->ts;
	tr->offset = rec->offset;
	tr->missed_events = rec->missed_events;
	tr->size = (int)rec->size;
	tr->record_size = (int)rec->size;
	/* libtraceevent only reads the data; its API is not const-correct. */
	tr->data = (void *)(uintptr_t)rec->data;
	tr->cpu = (int)rec->cpu;
	tr->ref_count = 1;
}

/* The record holds its common fields (what the columns and the event lookup read). */
static inline bool common_inside(const struct tcr_file *tf, const struct tdat_record *rec)
{
	return rec->size >= tf->common_end;
}

/*
 * The tep_record to hand libtraceevent for `rec` (report_order.c); false
 * when libtraceevent cannot be given the record at all.
 */
bool tcr_prepare(struct tcr *r, const struct tcr_file *tf, const struct tdat_record *rec,
		 struct tep_record *tr, struct tep_event **evp);
/*
 * The bytes libtraceevent reads of any record of `ev` (at least), -1 when
 * it cannot be given one, TCR_NEED_VARIES when that depends on the record
 * (dynamic fields).
 */
#define TCR_NEED_VARIES (-2)
int64_t tcr_fixed_need(const struct tep_event *ev);

/* tep_read_number(): a number of `size` bytes in the file's byte order (0 for other sizes). */
static inline uint64_t tcr_read_number(const struct tcr_file *tf, const uint8_t *p, uint32_t size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v2, p, 2);
		return tf->swap ? __builtin_bswap16(v2) : v2;
	case 4:
		memcpy(&v4, p, 4);
		return tf->swap ? __builtin_bswap32(v4) : v4;
	case 8:
		memcpy(&v8, p, 8);
		return tf->swap ? __builtin_bswap64(v8) : v8;
	default:
		return 0;
	}
}

/* tep_data_type() of a record holding its common fields. */
static inline int tcr_type(const struct tcr_file *tf, const struct tdat_record *rec)
{
	struct tep_record tr;

	if (tf->common_fast)
		return (int)tcr_read_number(tf, rec->data + tf->type_off, tf->type_size);
	to_tep_record(rec, &tr);
	return tep_data_type(tf->tep, &tr);
}

/* tep_data_pid() of a record holding its common fields. */
static inline int tcr_pid(const struct tcr_file *tf, const struct tdat_record *rec)
{
	struct tep_record tr;

	if (tf->common_fast)
		return (int)tcr_read_number(tf, rec->data + tf->pid_off, tf->pid_size);
	to_tep_record(rec, &tr);
	return tep_data_pid(tf->tep, &tr);
}

/* libtraceevent's tep_find_event_by_record() for a record holding its common fields. */
static inline struct tep_event *tcr_event_of(const struct tcr_file *tf,
					     const struct tdat_record *rec)
{
	int id = tcr_type(tf, rec);

	if (id >= 0 && (size_t)id < tf->n_ev_by_id)
		return tf->ev_by_id[id];
	return tf->ids_all ? NULL : tep_find_event(tf->tep, id);
}

/* ---- Timestamps ---- */

/*
 * trace-cmd's record->ts under the timestamp options (libtracecmd's
 * timestamp_calc()): the raw time for --raw-ts; else the time after
 * TIME_SHIFT times the --ts2secs factor (instead of TSC2NSEC), plus the
 * OFFSET and DATE options, plus the --nodate / --align-ts adjustment.
 */
static inline uint64_t time_of(const struct tcr_file *tf, uint64_t raw, uint64_t ts)
{
	const struct tdat_file *f = tf->f;

	if (tf->raw_ts)
		return raw;
	if (tf->ts2secs) {
		uint64_t synced = f->has_tsc2nsec && f->tsc2nsec_mult ? raw
								      : ts - (uint64_t)f->ts_offset;
		/*
		 * libtracecmd's `ts *= ts2secs`: a double product converted back;
		 * past 2^64 the x86-64 conversion gives 0 (C leaves it undefined).
		 */
		double d = (double)synced * tf->ts2secs;
		ts = (d < 18446744073709551616.0 ? (uint64_t)d : 0) + (uint64_t)f->ts_offset;
	}
	return ts + tf->adjust;
}

static inline uint64_t rec_time(const struct tcr_file *tf, const struct tdat_record *rec)
{
	return time_of(tf, rec->ts_raw, rec->ts);
}

/* report_time.c */
int tcr_setup_times(struct tcr *r, struct tcr_file *tf, struct tmx_error *err);
int tcr_align_times(struct tcr *r, struct tmx_error *err);
void tcr_put_ts(const struct tcr *r, struct outbuf *b, const struct tcr_file *tf, uint64_t ts);

/* report.c: the parts of a line that depend on the record alone (emit()). */
bool tcr_put_head(const struct tcr *r, struct outbuf *b, const struct tcr_file *tf,
		  const char *label, const struct tdat_record *rec);
void tcr_put_pid_cpu(struct outbuf *b, int pid, uint32_t cpu);
void tcr_put_time_col(const struct tcr *r, struct outbuf *b, const struct tcr_file *tf,
		      uint64_t ts);
/* An event text longer than this comes from libtraceevent. */
#define TCR_TEXT_MAX 4096
bool tcr_put_name_text(struct outbuf *b, const struct tcr_file *tf, const struct tep_event *ev,
		       const struct tdat_record *rec);
/* The " NAME: " column of ev, padded to 20 columns (set-up: report_tep.c); NULL without memory. */
char *tcr_name_col(const struct tep_event *ev, uint32_t *len);

/* report_tep.c */
bool tcr_needs_texts(const struct tmx_tcreport_opts *o);
int tcr_setup_tep(struct tcr *r, struct tcr_file *tf, struct tmx_error *err);

/* report_filter.c */
int tcr_set_event_flags(struct tcr_file *tf, const char *const *list, size_t n, int flag,
			const char *opt, struct tmx_error *err);
int tcr_setup_filters(struct tcr *r, struct tcr_file *tf, struct tmx_error *err);
int tcr_test_filters(struct tcr *r, struct tcr_file *tf, struct tmx_error *err);
bool tcr_filter_pass(struct tcr_file *tf, struct tep_record *tr);

/* report_order.c */
int tcr_parse_cpu_list(struct tcr *r, const char *s, struct tmx_error *err);
int tcr_add_handle(struct tcr *r, struct tcr_file *tf, size_t buffer, const char *label,
		   struct tmx_error *err);
int tcr_next_handle(struct tcr *r, struct tcr_handle **best, struct tmx_error *err);
void tcr_check_ts(struct tcr *r, struct tcr_handle *h);

/* report_par.c */

/*
 * Those parts, written ahead by a worker (emit() adds the rest); valid
 * until the next read.  They follow each other in one run of bytes: the
 * head (label, DROPPED line) from base + at[0], pid and CPU from at[1],
 * the time from at[2], name and text from at[3], to at[4].
 */
enum { TCR_HEAD, TCR_PID_CPU, TCR_TIME, TCR_TEXT, TCR_END };
struct tcr_parts {
	const char *base;
	uint32_t at[5];
	bool whole;                  /* head is the whole line (a record too short) */
	bool rendered;               /* text has the event text, else libtraceevent prints it */
	int pid;
};

/*
 * With more than one job, and when the report's options let the records be
 * read ahead (not --profile, not function graphs...): workers read every
 * listed cursor of the handles (added by now) from here on.
 */
int tcr_par_start(struct tcr *r, unsigned jobs, struct tmx_error *err);
void tcr_par_stop(struct tcr *r);
/*
 * tdat_cursor_peek() / tdat_cursor_next() of handle h's cursor i, through
 * the workers; *head: the next peek's record when it is known without
 * reading anything (the next in the batch), else NULL.
 */
int tcr_par_peek(struct tcr *r, struct tcr_handle *h, size_t i, const struct tdat_record **rec,
		 struct tmx_error *err);
int tcr_par_next(struct tcr *r, struct tcr_handle *h, size_t i, const struct tdat_record **rec,
		 const struct tdat_record **head, struct tmx_error *err);
/* The parts written ahead for a record that tcr_par_next() gave. */
const struct tcr_parts *tcr_par_parts(const struct tdat_record *rec);

/* report_v33.c */
/* With version 3.3: the flags column cache and sched_switch's handler (after the formats). */
int tcr_v33_setup(struct tcr *r, struct tcr_file *tf, struct tmx_error *err);
/* The 3.3 flags column after "[CPU]": " d.h1." or, with -R, "-0x9". */
void tcr_v33_put_flags(struct tcr *r, struct tcr_file *tf, const struct tdat_record *rec);
void tcr_v33_free(struct tcr_file *tf);

/* report_stat.c */
void tcr_print_stats(struct tcr *r, struct tcr_file *tf);

/* report_info.c */
int tcr_info_mode(struct tcr *r, bool *done, struct tmx_error *err);
void tcr_print_uname(struct tcr *r, const struct tdat_file *f);
size_t tcr_cpus_by_id(const struct tcr_file *tf, const struct tdat_cpu_data ***out);
int tcr_through_stdout(struct tcr *r, int (*fn)(void *), void *arg, struct tmx_error *err);

/* report_wakeup.c */
void tcr_init_wakeup(struct tcr_file *tf);
void tcr_process_wakeup(struct tcr *r, struct tcr_file *tf, const struct tdat_record *rec);
void tcr_finish_wakeup(struct tcr *r);
void tcr_free_wakeup(struct tcr *r);

/*
 * report_progress.c: the progress calls of tmx_tcreport_opts.progress,
 * started once the handles are made (nothing when there are none to
 * make), each record the main loop takes noted, the last call at the end
 * (`complete`: no error) with the memory freed (also when never started).
 */
int tcr_progress_start(struct tcr *r, struct tmx_error *err);
void tcr_progress_record(struct tcr *r, const struct tcr_handle *h);
void tcr_progress_end(struct tcr *r, bool complete);

#endif
