/*
 * `trace-cmd report` for trace.dat files: see report.h.
 *
 * Who decides what, so that the text is trace-cmd's:
 *   - libtraceevent renders the event text (TEP_PRINT_INFO, or
 *     TEP_PRINT_INFO_RAW for -R) with the plugins it loads from its
 *     plugin directories, exactly as trace-cmd (which links the same
 *     library) does; the tep handle is set up in trace-cmd's order
 *     (plugins, byte orders, long size, header page, ftrace formats,
 *     event formats, kallsyms, printk formats, saved cmdlines).
 *   - this file writes what trace-cmd's trace-read.c writes around it:
 *     "%16s-%-5d [%03d]" for comm, pid and CPU, the time as
 *     libtraceevent's print_event_time() formats " %6.1000d:" (usecs),
 *     " %9.1d:" (-t) or "%12d:" (raw counter clocks), then " NAME: "
 *     padded to 20 columns.  These are plain integer and string columns,
 *     written with the output buffer's number formatting instead of four
 *     tep_print_event() calls per record.
 *   - the order of records is libtracecmd's: within a buffer the CPU
 *     whose next record has the smallest timestamp (strict <, so the
 *     lowest CPU index wins ties); across files and instances the first
 *     handle in trace-cmd's list wins ties (files in command-line order,
 *     then each file's instances).
 *   - -F / -v: one libtraceevent filter per expression, matched as
 *     libtracecmd's tracecmd_filter_match() does (a record passes if any
 *     positive filter matches or there is none, and no negative one
 *     matches; a kernel/user stack event follows the event it belongs to).
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "sink/outbuf.h"
#include "tools/tracecmd/fastfmt.h"
#include "tools/tracecmd/funcgraph.h"
#include "tools/tracecmd/guest.h"
#include "tools/tracecmd/profile.h"
#include "tools/tracecmd/report.h"
#include "tracecmd/tracedat.h"
#include "model/errors.h"

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
	struct tcr_file *file;
	size_t buffer;
	const char *label;           /* prefix name, NULL for a lone file's top buffer */
	size_t n_cpus;
	struct tdat_cursor **cur;
	const struct tdat_record *rec;   /* taken from its cursor, not printed yet */
	uint64_t ts;                     /* its time (rec_time()) */
	size_t rec_cursor;               /* the cursor it came from */
	uint64_t *last_ts;               /* --ts-check: per cursor, the last printed time */
	bool done;
	struct tfg_handle fg;            /* what the function graph look-ahead reads */
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
	char scratch[4096];          /* one event's text from a compiled print fmt */
	uint8_t *pad;                /* a short record padded for libtraceevent (prepare()) */
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
};

void tmx_tcreport_opts_default(struct tmx_tcreport_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->out_fd = 1;
}

int tmx_tcreport_add_filter(struct tmx_tcreport_opts *o, const char *expr, bool negated,
			    struct tmx_error *err)
{
	if (o->n_filters >= TMX_TCREPORT_MAX_FILTERS)
		return tmx_error_set(err, TMX_ERR_LIMIT, NULL, "at most %d -F filters",
				     TMX_TCREPORT_MAX_FILTERS);
	o->filters[o->n_filters].expr = expr;
	o->filters[o->n_filters].negated = negated;
	o->n_filters++;
	return TMX_OK;
}

int tmx_tcreport_add_item(const char **list, size_t *n, const char *item, const char *what,
			  struct tmx_error *err)
{
	if (*n >= TMX_TCREPORT_MAX_FILTERS)
		return tmx_error_set(err, TMX_ERR_LIMIT, NULL, "at most %d %s options",
				     TMX_TCREPORT_MAX_FILTERS, what);
	list[(*n)++] = item;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Column formatting (printf semantics, without printf)                 */
/* ------------------------------------------------------------------ */

static void put_spaces(struct outbuf *b, size_t n)
{
	static const char spaces[] = "                                ";

	while (n) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;
		outbuf_write(b, spaces, k);
		n -= k;
	}
}

/* "%*s": right-aligned, never cut. */
static void put_right(struct outbuf *b, const char *s, size_t width)
{
	size_t len = strlen(s);

	if (len < width)
		put_spaces(b, width - len);
	outbuf_write(b, s, len);
}

/* Decimal digits of v into buf (right-aligned at buf + 24); returns the start. */
static char *fmt_u64(char buf[24], uint64_t v)
{
	char *p = buf + 24;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

static char *fmt_i64(char buf[24], int64_t v)
{
	char *p;

	if (v >= 0)
		return fmt_u64(buf, (uint64_t)v);
	p = fmt_u64(buf, -(uint64_t)v);
	*--p = '-';
	return p;
}

/* "%*llu" (right) or "%-*d" (left) for a formatted number. */
static void put_num(struct outbuf *b, const char *p, const char *end, int width, bool left)
{
	size_t len = (size_t)(end - p);

	if (!left && (size_t)width > len)
		put_spaces(b, (size_t)width - len);
	outbuf_write(b, p, len);
	if (left && (size_t)width > len)
		put_spaces(b, (size_t)width - len);
}

/* "%llx" */
static void put_hex(struct outbuf *b, uint64_t v)
{
	char buf[16], *p = buf + sizeof(buf);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	outbuf_write(b, p, (size_t)(buf + sizeof(buf) - p));
}

/*
 * libtraceevent's print_event_time() for a "%<prec>.<div>d" format:
 * time = (ts + div/2) / div, then "%5llu.%0<prec>llu", or "%12llu" when
 * the precision is 0 (libtraceevent 1.7.1; trace-cmd's "%12d" for counter
 * clocks overflows its int power of ten, which gives "%12llu" too).
 */
static void put_time(struct outbuf *b, uint64_t ts, int prec, uint64_t div)
{
	char buf[24], *p;
	uint64_t p10 = 1;

	if (div > 1)
		ts = (ts + div / 2) / div;
	for (int i = 0; i < prec; i++)
		p10 *= 10;
	if (p10 > 1) {
		p = fmt_u64(buf, ts / p10);
		put_num(b, p, buf + 24, 5, false);
		outbuf_putc(b, '.');
		outbuf_u64(b, ts % p10, prec);
	} else {
		p = fmt_u64(buf, ts);
		put_num(b, p, buf + 24, 12, false);
	}
}

/* ------------------------------------------------------------------ */
/* Setting up libtraceevent as trace-cmd does                           */
/* ------------------------------------------------------------------ */

/* libtraceevent parsers want NUL-terminated (and for some, writable) text. */
static char *text_dup(const struct tdat_text *t)
{
	char *s = malloc(t->len + 1);

	if (s) {
		if (t->len)
			memcpy(s, t->ptr, t->len);
		s[t->len] = '\0';
	}
	return s;
}

/*
 * trace-cmd's extract_trace_clock(): the clock in brackets of a
 * trace_clock text ("[local] global counter ...") keeps timestamps in
 * usecs when it is one of these; any other (x86-tsc, counter...) prints
 * raw integers.
 */
static bool clock_text_in_usecs(const char *text, size_t len, bool *found)
{
	static const char *const usec_clocks[] = { "local", "global", "uptime", "perf",
						   "tsc2nsec", "tai" };
	const char *open = memchr(text, '[', len), *close;
	size_t n;

	*found = false;
	if (!open)
		return true;
	close = memchr(open, ']', len - (size_t)(open - text));
	if (!close)
		close = text + len;
	n = (size_t)(close - open - 1);
	*found = n > 0;
	if (n >= 4 && !memcmp(open + 1, "mono", 4))
		return true;
	for (size_t i = 0; i < sizeof(usec_clocks) / sizeof(usec_clocks[0]); i++)
		if (strlen(usec_clocks[i]) == n && !memcmp(open + 1, usec_clocks[i], n))
			return true;
	return false;
}

/*
 * TRACECMD_FL_IN_USECS.  libtracecmd clears it for a clock that is not in
 * nanoseconds, and for any clock with --raw-ts (TRACECMD_FL_RAW_TS);
 * TSC2NSEC sets it again, except with --raw-ts (the conversion is off).
 */
static bool file_in_usecs(const struct tdat_file *f, bool raw_ts)
{
	bool found, usecs = true;

	/* The TRACECLOCK option: the whole trace_clock file. */
	if (f->has_traceclock && f->traceclock.len &&
	    (!clock_text_in_usecs(f->traceclock.ptr, f->traceclock.len, &found) || raw_ts) && found)
		usecs = false;
	/* v6 with TRACECLOCK: the "[clock]" text after "flyrecord" too. */
	if (f->version < 7 && f->has_traceclock && f->n_buffers && f->buffers[0].clock) {
		char tmp[80];
		int n = snprintf(tmp, sizeof(tmp), "[%s]", f->buffers[0].clock);
		if (n > 0 && (size_t)n < sizeof(tmp) &&
		    (!clock_text_in_usecs(tmp, (size_t)n, &found) || raw_ts) && found)
			usecs = false;
	}
	/* TSC2NSEC converts to nanoseconds: usecs again (not applied with --raw-ts). */
	if (f->has_tsc2nsec && !raw_ts)
		usecs = true;
	return usecs;
}

static int parse_text(struct tep_handle *tep, const struct tdat_text *t,
		      int (*parse)(struct tep_handle *, const char *), const char *what,
		      const char *path, struct tmx_error *err)
{
	char *s;

	if (!t->len)
		return TMX_OK;
	if (!(s = text_dup(t)))
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory for the %s", what);
	parse(tep, s);
	free(s);
	return TMX_OK;
}

/* The print fmts that fastfmt can render, by event id. */
static int compile_plans(struct tcr_file *tf, struct tmx_error *err)
{
	struct tep_event **evs = tep_list_events(tf->tep, TEP_EVENT_SORT_ID);
	int max_id = -1;

	if (!evs)
		return TMX_OK;   /* no events: nothing to compile */
	for (size_t i = 0; evs[i]; i++)
		if (evs[i]->id > max_id && evs[i]->id < 65536)
			max_id = evs[i]->id;
	if (max_id < 0)
		return TMX_OK;
	if (!(tf->plans = calloc((size_t)max_id + 1, sizeof(*tf->plans))))
		return tmx_error_set(err, TMX_ERR_NOMEM, tf->f->path, "out of memory");
	tf->n_plans = max_id + 1;
	for (size_t i = 0; evs[i]; i++) {
		int id = evs[i]->id;
		/* an id that two formats claim (the blktrace hack may) is libtraceevent's to pick */
		if (id < 0 || id > max_id || (evs[i + 1] && evs[i + 1]->id == id) ||
		    (i && evs[i - 1]->id == id))
			continue;
		tf->plans[id] = tcf_compile(evs[i], tf->swap, tep_get_long_size(tf->tep));
	}
	return TMX_OK;
}

/*
 * libtracecmd's tracecmd_blk_hack(), run when it reads the data: an
 * ftrace:blktrace event made up after ftrace:power, kmem_free or user_stack
 * (the id the kernel's TRACE_BLK had), for files with the usual common
 * fields.  It matters to -F regexes, -T and a record of that id.
 */
static void blk_hack(struct tep_handle *tep)
{
	static const char *const after[] = { "power", "kmem_free", "user_stack" };
	static const char *const common[] = { "common_type", "common_flags", "common_preempt_count",
					      "common_pid" };
	static const int offsets[] = { 0, 2, 3, 4 }, sizes[] = { 2, 1, 1, 4 };
	struct tep_event *ev = NULL;
	struct tep_format_field *fl;
	char buf[2048];
	int n;

	for (size_t i = 0; i < 3 && !ev; i++)
		ev = tep_find_event_by_name(tep, "ftrace", after[i]);
	if (!ev)
		return;
	for (size_t i = 0; i < 4; i++)
		if (!(fl = tep_find_common_field(ev, common[i])) || fl->offset != offsets[i] ||
		    fl->size != sizes[i])
			return;
	n = snprintf(buf, sizeof(buf),
		     "name: blktrace\nID: %d\nformat:\n"
		     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
		     "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\n"
		     "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\n"
		     "\tfield:int common_pid;\toffset:4;\tsize:4;\n", ev->id + 1);
	if ((fl = tep_find_common_field(ev, "common_lock_depth"))) {
		if (fl->offset != 8 || fl->size != 4)
			return;
		n += snprintf(buf + n, sizeof(buf) - (size_t)n,
			      "\tfield:int common_lock_depth;\toffset:8;\tsize:4;\n");
	}
	n += snprintf(buf + n, sizeof(buf) - (size_t)n,
		      "\n\tfield:u64 sector;\toffset:16;\tsize:8;\n"
		      "\tfield:int bytes;\toffset:24;\tsize:4;\n"
		      "\tfield:int action;\toffset:28;\tsize:4;\n"
		      "\tfield:int pid;\toffset:32;\tsize:4;\n"
		      "\tfield:int device;\toffset:36;\tsize:4;\n"
		      "\tfield:int cpu;\toffset:40;\tsize:4;\n"
		      "\tfield:short error;\toffset:44;\tsize:2;\n"
		      "\tfield:short pdu_len;\toffset:46;\tsize:2;\n"
		      "\tfield:void data;\toffset:48;\tsize:0;\n"
		      "\n"
		      "print fmt: \"%%d\", REC->pid\n");
	if (n > 0 && (size_t)n < sizeof(buf))
		tep_parse_event(tep, buf, (unsigned long)n, "ftrace");
}

/*
 * One format file into libtraceevent; a failure is counted (--check-events:
 * libtracecmd's parsing_failures) with the first failing format's name.
 */
static void parse_format(struct tcr_file *tf, const struct tdat_format_file *ff, const char *sys)
{
	const char *name, *end;
	size_t n;

	if (!tep_parse_event(tf->tep, ff->text.ptr, ff->text.len, sys))
		return;
	if (tf->parse_failures++)
		return;
	/* "name: NAME" is the format's first line; the text is not NUL-terminated. */
	n = ff->text.len;
	name = n > 6 && !memcmp(ff->text.ptr, "name: ", 6) ? ff->text.ptr + 6 : "?";
	end = name[0] == '?' ? name + 1 : memchr(name, '\n', n - 6);
	if (!end)
		end = ff->text.ptr + n;
	snprintf(tf->first_failure, sizeof(tf->first_failure), "%s:%.*s", sys,
		 (int)(end - name < 64 ? end - name : 64), name);
}

/* Whether the report prints events (not -p, -e, --check-events, -E, --cpus, --uname, --stat...). */
static bool prints_events(const struct tmx_tcreport_opts *o)
{
	return !(o->page_size || o->endian || o->event_formats || o->check_events || o->funcs ||
		 o->printk_list ||
		 o->list_events || o->cpus_list || o->first_event || o->last_event || o->uname ||
		 o->version || o->stat);
}

/* Whether kallsyms, printk formats and saved cmdlines are needed: events, -f, -P. */
static bool needs_texts(const struct tmx_tcreport_opts *o)
{
	return prints_events(o) || o->funcs || o->printk_list;
}

/* The DATE options' offset in ns, read as libtracecmd does (strtoll of the text, usecs). */
static uint64_t date_offset(const struct tdat_file *f)
{
	uint64_t ns = 0;

	for (size_t i = 0; i < f->n_options; i++) {
		const struct tdat_option *o = &f->options[i];
		char tmp[64];
		size_t m;

		if (o->id != TDAT_OPT_DATE)
			continue;
		m = o->size < sizeof(tmp) - 1 ? o->size : sizeof(tmp) - 1;
		memcpy(tmp, o->data, m);
		tmp[m] = '\0';
		ns += (uint64_t)strtoll(tmp, NULL, 0) * 1000;
	}
	return ns;
}

/* --raw-ts, --ts2secs, --nodate (--align-ts is set once every file is open). */
static int setup_times(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	const struct tdat_file *f = tf->f;

	tf->raw_ts = r->o->raw_ts;
	/* libtracecmd's use_trace_clock: a TRACECLOCK option, and no --ts2secs. */
	tf->use_trace_clock = f->has_traceclock && !r->o->ts2secs;
	/* tracecmd_set_ts2secs(): a double, 1e9 / HZ. */
	tf->ts2secs = r->o->ts2secs ? 1e9 / (double)r->o->ts2secs : 0;
	/*
	 * --ts2secs replaces TSC2NSEC on the time after TIME_SHIFT; the reader
	 * gives that time only without TSC2NSEC (rec->ts - the offsets) or
	 * without TIME_SHIFT (the raw time).
	 */
	if (tf->ts2secs && f->has_tsc2nsec && f->tsc2nsec_mult && f->has_time_shift)
		return tmx_error_set(err, TMX_ERR_UNSUPPORTED, f->path,
				     "--ts2secs on a file with both TSC2NSEC and TIME_SHIFT options "
				     "is not supported");
	if (r->o->no_date)
		tf->adjust -= date_offset(f);
	return TMX_OK;
}

/*
 * trace-cmd's record->ts under the timestamp options (libtracecmd's
 * timestamp_calc()): the raw time for --raw-ts; else the time after
 * TIME_SHIFT times the --ts2secs factor (instead of TSC2NSEC), plus the
 * OFFSET and DATE options, plus the --nodate / --align-ts adjustment.
 */
static uint64_t time_of(const struct tcr_file *tf, uint64_t raw, uint64_t ts)
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

/* rec_time() for the function graph look-ahead (funcgraph.h). */
static uint64_t fg_time(const void *tf, const struct tdat_record *rec)
{
	return rec_time(tf, rec);
}

/*
 * -r / -n: trace-cmd's set_event_flags(), each regex matched whole
 * ("^REGEX$", any case) against every event's name and system.
 */
static int set_event_flags(struct tcr_file *tf, const char *const *list, size_t n, int flag,
			   const char *opt, struct tmx_error *err)
{
	struct tep_event **evs;

	if (!n)
		return TMX_OK;
	evs = tep_list_events(tf->tep, TEP_EVENT_SORT_ID);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(list[i]);
		char *match = malloc(len + 3);
		regex_t re;
		int rc;

		if (!match)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		match[0] = '^';
		memcpy(match + 1, list[i], len);
		memcpy(match + 1 + len, "$", 2);
		rc = regcomp(&re, match, REG_ICASE | REG_NOSUB);
		free(match);
		if (rc)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL, "%s: invalid regular expression `%s`",
					     opt, list[i]);
		for (size_t k = 0; evs && evs[k]; k++)
			if ((evs[k]->name && !regexec(&re, evs[k]->name, 0, NULL, 0)) ||
			    (evs[k]->system && !regexec(&re, evs[k]->system, 0, NULL, 0)))
				evs[k]->flags |= flag;
		regfree(&re);
	}
	return TMX_OK;
}

/* --kallsyms FILE into libtraceevent (a /proc/kallsyms text). */
static int extra_kallsyms(struct tcr *r, struct tep_handle *tep, struct tmx_error *err)
{
	const char *path = r->o->kallsyms;
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!fp)
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot read the --kallsyms file: %s",
				     strerror(errno));
	do {
		if (cap - len < 65536) {
			char *nb;
			if (cap > (1u << 30)) {
				fclose(fp);
				free(buf);
				return tmx_error_set(err, TMX_ERR_LIMIT, path,
						     "--kallsyms file larger than 1 GiB");
			}
			if (!(nb = realloc(buf, cap = cap * 2 + 65536 + 1))) {
				fclose(fp);
				free(buf);
				return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, fp);
		len += n;
	} while (n);
	if (ferror(fp)) {
		fclose(fp);
		free(buf);
		return tmx_error_set(err, TMX_ERR_IO, path, "cannot read the --kallsyms file");
	}
	fclose(fp);
	buf[len] = '\0';
	tep_parse_kallsyms(tep, buf);
	free(buf);
	return TMX_OK;
}

static int setup_tep(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	const struct tdat_file *f = tf->f;
	struct tep_handle *tep;
	char *hp;
	int ret;

	if (!(tf->tep = tep = tep_alloc()))
		return tmx_error_set(err, TMX_ERR_NOMEM, f->path, "out of memory");
	/* trace-cmd loads the plugins first: they attach to events as they are parsed. */
	if (!r->o->no_plugins) {
		/* -L: libtracecmd's TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS */
		if (r->o->no_sys_plugins)
			tep_set_flag(tep, TEP_DISABLE_SYS_PLUGINS);
		tf->plugins = tep_load_plugins(tep);
		/* libtracecmd's trace-ftrace.c handlers come with the system plugins (-N, -L: none) */
		if (!r->o->no_sys_plugins && (ret = tfg_attach(r->fg, tep, f->path, err)))
			return ret;
	}
	/* --kallsyms: trace-cmd parses it right after opening, before the file's own symbols */
	if (r->o->kallsyms && needs_texts(r->o) && (ret = extra_kallsyms(r, tep, err)))
		return ret;
	tep_set_file_bigendian(tep, f->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	{
		const uint16_t one = 1;
		tep_set_local_bigendian(tep, *(const uint8_t *)&one ? TEP_LITTLE_ENDIAN
								  : TEP_BIG_ENDIAN);
	}
	tep_set_long_size(tep, f->long_size);
	if (f->header_page.len) {
		if (!(hp = text_dup(&f->header_page)))
			return tmx_error_set(err, TMX_ERR_NOMEM, f->path, "out of memory");
		tep_parse_header_page(tep, hp, f->header_page.len, f->long_size);
		free(hp);
	}
	/* A format that libtraceevent cannot parse only loses that event, as in trace-cmd. */
	for (size_t i = 0; i < f->n_ftrace_formats; i++)
		parse_format(tf, &f->ftrace_formats[i], "ftrace");
	for (size_t i = 0; i < f->n_event_formats; i++)
		parse_format(tf, &f->event_formats[i], f->event_formats[i].system);
	/* Symbols, printk formats and comms only matter to printed events, -f and -P. */
	if (needs_texts(r->o) &&
	    ((ret = parse_text(tep, &f->kallsyms, tep_parse_kallsyms, "kallsyms", f->path, err)) ||
	     (ret = parse_text(tep, &f->printk, tep_parse_printk_formats, "printk formats", f->path,
			       err)) ||
	     (ret = parse_text(tep, &f->cmdlines, tep_parse_saved_cmdlines, "saved cmdlines",
			       f->path, err))))
		return ret;

	if (prints_events(r->o))
		blk_hack(tep);

	/* libtracecmd's max_cpu: the CPU count, or more if the top buffer has more. */
	tf->cpus = (int)f->max_cpu;
	if (f->n_buffers) {
		const struct tdat_buffer *top = &f->buffers[0];
		for (uint32_t i = 0; i < top->n_cpus; i++)
			if ((int)top->cpus[i].cpu + 1 > tf->cpus)
				tf->cpus = (int)top->cpus[i].cpu + 1;
	}
	tep_set_cpus(tep, f->has_cpucount ? (int)f->cpucount : tf->cpus);
	if (r->o->nsec)
		tep_set_flag(tep, TEP_NSEC_OUTPUT);
	tf->usecs = file_in_usecs(f, r->o->raw_ts);
	if ((ret = setup_times(r, tf, err)))
		return ret;
	{
		const uint16_t one = 1;
		struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
		tf->swap = f->big_endian == (*(const uint8_t *)&one != 0);
		tf->common_end = 8;   /* common_type, flags, preempt count, pid */
		for (size_t i = 0; evs && evs[i]; i++)
			for (struct tep_format_field *fl = evs[i]->format.common_fields; fl; fl = fl->next)
				if (fl->offset >= 0 && fl->size >= 0 &&
				    (uint32_t)(fl->offset + fl->size) > tf->common_end)
					tf->common_end = (uint32_t)(fl->offset + fl->size);
	}
	if (prints_events(r->o) &&
	    ((ret = set_event_flags(tf, r->o->no_handler, r->o->n_no_handler, TEP_EVENT_FL_NOHANDLE,
				    "-n", err)) ||
	     (ret = set_event_flags(tf, r->o->raw_events, r->o->n_raw_events, TEP_EVENT_FL_PRINTRAW,
				    "-r", err))))
		return ret;
	/* (after the flags: events printed raw or without their handler are not compiled) */
	if (!r->o->raw && prints_events(r->o))
		return compile_plans(tf, err);
	return TMX_OK;
}

/* Appends "||" (unless first) and trace-cmd's pid filter term for one pid (as text). */
static bool pid_term(char **s, size_t *len, size_t *cap, const char *pid)
{
	char term[256];
	int n = snprintf(term, sizeof(term), "%s(common_pid==%s)||(pid==%s)||(next_pid==%s)",
			 *len ? "||" : ".*:", pid, pid, pid);

	if (n < 0 || (size_t)n >= sizeof(term))
		return false;
	if (*len + (size_t)n + 1 > *cap) {
		size_t nc = (*cap ? *cap * 2 : 256) + (size_t)n;
		char *p = realloc(*s, nc);
		if (!p)
			return false;
		*s = p;
		*cap = nc;
	}
	memcpy(*s + *len, term, (size_t)n + 1);
	*len += (size_t)n;
	return true;
}

/* A list of pid texts (at most 23 characters each). */
struct pid_seq {
	char (*v)[24];
	size_t n, cap;
};

static bool pid_push(struct pid_seq *q, const char *pid, size_t len)
{
	if (q->n == q->cap) {
		size_t nc = q->cap ? q->cap * 2 : 16;
		void *p = realloc(q->v, nc * sizeof(*q->v));
		if (!p)
			return false;
		q->v = p;
		q->cap = nc;
	}
	snprintf(q->v[q->n++], sizeof(q->v[0]), "%.*s", (int)len, pid);
	return true;
}

/*
 * --pid / --comm: trace-cmd's make_pid_filter(), one positive filter
 * ".*:(common_pid==P)||(pid==P)||(next_pid==P)||..." over the pids given
 * and those that the saved cmdlines give each comm (a comm without any
 * only warns; with no pid at all there is no filter).  *out is NULL then.
 * The order is trace-cmd's (its lists are built by prepending): -T prints it.
 */
static int pid_filter(struct tcr *r, struct tcr_file *tf, char **out, struct tmx_error *err)
{
	const struct tmx_tcreport_opts *o = r->o;
	struct pid_seq seq = { 0 }, comms = { 0 };
	size_t len = 0, cap = 0;
	char *s = NULL;
	int ret = TMX_OK;

	*out = NULL;
	/* the --pid tokens, in command-line order (a pid is an integer, kept as written) */
	for (size_t i = 0; i < o->n_pids && !ret; i++) {
		const char *p = o->pids[i];
		while (*p && !ret) {
			size_t n = strcspn(p, ","), k = p[0] == '-';
			if (!n) {
				p++;
				continue;
			}
			while (k < n && p[k] >= '0' && p[k] <= '9')
				k++;
			if (k != n || n == (size_t)(p[0] == '-') || n > 20)
				ret = tmx_error_set(err, TMX_ERR_USAGE, NULL,
						    "invalid --pid value `%s`: comma-separated pids",
						    o->pids[i]);
			else if (!pid_push(&seq, p, n))
				ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
			p += n + (p[n] == ',');
		}
	}
	/* the comm tokens in command-line order (names up to 23 bytes: comms have 16) */
	for (size_t i = 0; i < o->n_comms && !ret; i++) {
		const char *p = o->comms[i];
		while (*p && !ret) {
			size_t n = strcspn(p, ",");
			if (n && !pid_push(&comms, p, n))
				ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
			p += n + (p[n] == ',');
		}
	}
	/* then, the last comm first, the pids of each comm as the cmdlines give them */
	for (size_t i = comms.n; i-- > 0 && !ret;) {
		struct tep_cmdline *cl = NULL;
		bool found = false;
		while (!ret && (cl = tep_data_pid_from_comm(tf->tep, comms.v[i], cl))) {
			char pid[24];
			int n = snprintf(pid, sizeof(pid), "%d", tep_cmdline_pid(tf->tep, cl));
			found = true;
			if (!pid_push(&seq, pid, (size_t)n))
				ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		}
		if (!found && o->diag && o->diag->warn) {
			char msg[320];
			snprintf(msg, sizeof(msg), "%s: comm: %s not in cmdline list", tf->f->path,
				 comms.v[i]);
			o->diag->warn(o->diag->user, msg);
		}
	}
	/* the filter lists them newest first */
	for (size_t i = seq.n; i-- > 0 && !ret;)
		if (!pid_term(&s, &len, &cap, seq.v[i]))
			ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	free(seq.v);
	free(comms.v);
	if (ret) {
		free(s);
		return ret;
	}
	*out = s;
	return TMX_OK;
}

static int add_filter(struct tcr_file *tf, const char *expr, bool negated, struct tmx_error *err)
{
	struct tep_event_filter *flt = tep_filter_alloc(tf->tep);
	enum tep_errno e;
	char msg[200];

	if (!flt)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	if (negated)
		tf->neg[tf->n_neg++] = flt;
	else
		tf->pos[tf->n_pos++] = flt;
	e = tep_filter_add_filter_str(flt, expr);
	if (e < 0) {
		if (tep_strerror(tf->tep, e, msg, sizeof(msg)))
			snprintf(msg, sizeof(msg), "error %d", (int)e);
		return tmx_error_set(err, TMX_ERR_USAGE, tf->f->path, "Error filtering: %s: %s", expr,
				     msg);
	}
	return TMX_OK;
}

static int setup_filters(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	const struct tmx_tcreport_opts *o = r->o;
	struct tep_event *ev;
	char *pids = NULL;
	int ret;

	if ((o->n_pids || o->n_comms) && (ret = pid_filter(r, tf, &pids, err)))
		return ret;
	if (!o->n_filters && !pids)
		return TMX_OK;
	tf->pos = calloc(o->n_filters + 1, sizeof(*tf->pos));
	tf->neg = calloc(o->n_filters + 1, sizeof(*tf->neg));
	if (!tf->pos || !tf->neg) {
		free(pids);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < o->n_filters; i++)
		if ((ret = add_filter(tf, o->filters[i].expr, o->filters[i].negated, err))) {
			free(pids);
			return ret;
		}
	/* trace-cmd adds the pid filter after the -F filters, positive even after -v. */
	ret = pids ? add_filter(tf, pids, false, err) : TMX_OK;
	free(pids);
	if (ret)
		return ret;
	tf->kernel_stack_id = tf->user_stack_id = -1;
	if ((ev = tep_find_event_by_name(tf->tep, "ftrace", "kernel_stack")))
		tf->kernel_stack_id = ev->id;
	if ((ev = tep_find_event_by_name(tf->tep, "ftrace", "user_stack")))
		tf->user_stack_id = ev->id;
	tf->n_last_printed = tep_get_cpus(tf->tep);
	if (tf->n_last_printed > 0 &&
	    !(tf->last_printed = calloc((size_t)tf->n_last_printed, sizeof(bool))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	return TMX_OK;
}

struct filter_setup {
	struct tcr *r;
	struct tcr_file *tf;
	struct tmx_error *err;
};

static int setup_filters_cb(void *arg)
{
	struct filter_setup *fs = arg;

	return setup_filters(fs->r, fs->tf, fs->err);
}

/* ------------------------------------------------------------------ */
/* Records                                                              */
/* ------------------------------------------------------------------ */

static void to_tep_record(const struct tdat_record *rec, struct tep_record *tr)
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

static uint32_t read32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

/*
 * libtraceevent reads fields and __data_loc / __rel_loc strings without
 * looking at the record size.  Returns -1 when a dynamic field lies outside
 * the record (or its string has no NUL), else the bytes its static fields
 * need (which may be more than the record: ftrace:kernel_stack records
 * store fewer `caller` entries than the format's array).
 */
static int64_t fields_need(const struct tep_format_field *fl, const uint8_t *d, uint32_t size,
			   bool swap)
{
	uint64_t need = 0;

	for (; fl; fl = fl->next) {
		uint64_t end, off, len;

		if (fl->offset < 0 || fl->size < 0)
			return -1;
		end = (uint64_t)fl->offset + (uint64_t)fl->size;
		if (end > need)
			need = end;
		if (!(fl->flags & TEP_FIELD_IS_DYNAMIC) || fl->size != 4)
			continue;
		if (end > size)
			return -1;
		off = read32(d + fl->offset, swap);
		len = off >> 16;
		off &= 0xffff;
		if (fl->flags & TEP_FIELD_IS_RELATIVE)
			off += end;
		if (off + len > size)
			return -1;
		/* a string is printed up to its NUL: there must be one */
		if ((fl->flags & TEP_FIELD_IS_STRING) && !memchr(d + off, '\0', size - off))
			return -1;
	}
	return (int64_t)need;
}

/* The record holds its common fields (what the columns and the event lookup read). */
static bool common_inside(const struct tcr_file *tf, const struct tdat_record *rec)
{
	return rec->size >= tf->common_end;
}

#define TCR_MAX_PAD 65536

/*
 * The tep_record to hand libtraceevent for `rec`: the record itself (also
 * when the format's static fields run past its end but stay inside its page:
 * libtraceevent then reads what follows, as trace-cmd prints it), or a copy
 * padded with zeros when they would run past the page.  False when the record cannot
 * be given to libtraceevent at all.
 */
static bool prepare(struct tcr *r, const struct tcr_file *tf, const struct tdat_record *rec,
		    struct tep_record *tr, struct tep_event **evp)
{
	struct tep_event *ev;
	int64_t a, b;

	to_tep_record(rec, tr);
	*evp = NULL;
	if (!common_inside(tf, rec))
		return false;
	*evp = ev = tep_find_event_by_record(tf->tep, tr);
	if (!ev)
		return true;
	a = fields_need(ev->format.common_fields, rec->data, rec->size, tf->swap);
	b = fields_need(ev->format.fields, rec->data, rec->size, tf->swap);
	if (a < 0 || b < 0)
		return false;
	if (b < a)
		b = a;
	if (b <= rec->size)
		return true;
	/* What follows the record in its page: libtraceevent reads it, as in trace-cmd. */
	if (b <= rec->avail)
		return true;
	if (b > TCR_MAX_PAD)
		return false;
	if ((size_t)b > r->pad_size) {
		void *p = realloc(r->pad, (size_t)b);
		if (!p)
			return false;
		r->pad = p;
		r->pad_size = (size_t)b;
	}
	memcpy(r->pad, rec->data, rec->size);
	memset(r->pad + rec->size, 0, (size_t)b - rec->size);
	tr->data = r->pad;
	return true;
}

static bool filter_hit(struct tep_event_filter *flt, struct tep_record *tr)
{
	enum tep_errno e = tep_filter_match(flt, tr);

	return e == TEP_ERRNO__NO_FILTER || e == TEP_ERRNO__FILTER_MATCH;
}

/*
 * libtracecmd's tracecmd_filter_match() as in trace-cmd 3.1.6: a record
 * passes if a positive filter matches (or there is none) and no negative
 * one does.  A kernel or user stack event that no filter matches still
 * passes when the CPU's last record that got through the positive filters
 * was printed; a record dropped by the positive filters leaves that state
 * unchanged (so a stack trace after a dropped event may still print, as
 * trace-cmd 3.1.6 prints it).
 */
static bool filter_pass(struct tcr_file *tf, struct tep_record *tr)
{
	bool found = false;

	if (!tf->n_pos && !tf->n_neg)
		return true;
	for (size_t i = 0; i < tf->n_pos && !found; i++)
		found = filter_hit(tf->pos[i], tr);
	if (!found && tf->n_pos) {
		int id = tep_data_type(tf->tep, tr);
		bool stack = id >= 0 && (id == tf->kernel_stack_id || id == tf->user_stack_id);
		if (!stack || tr->cpu < 0 || tr->cpu >= tf->n_last_printed ||
		    !tf->last_printed[tr->cpu])
			return false;
	}
	found = false;
	for (size_t i = 0; i < tf->n_neg && !found; i++)
		found = filter_hit(tf->neg[i], tr);
	if (tf->last_printed && tr->cpu >= 0 && tr->cpu < tf->n_last_printed)
		tf->last_printed[tr->cpu] = !found;
	return !found;
}

/* Whether the handle's cursor i is printed: every CPU, or one --cpu names. */
static bool cpu_listed(const struct tcr *r, const struct tcr_handle *h, size_t i)
{
	const struct tdat_buffer *b = &h->file->f->buffers[h->buffer];

	for (size_t k = 0; k < r->n_cpu_list; k++)
		if (b->cpus[i].cpu == r->cpu_list[k])
			return true;
	return !r->n_cpu_list;
}

/* The handle's next record that passes the filters, into h->rec (NULL at the end). */
static int handle_next(struct tcr *r, struct tcr_handle *h, struct tmx_error *err)
{
	for (;;) {
		const struct tdat_record *best = NULL, *rec;
		size_t best_i = 0;
		uint64_t best_ts = 0;
		struct tep_record tr;
		int ret;

		/* --cpu too: trace-cmd reads the CPUs in their order (the first wins ties) */
		for (size_t i = 0; i < h->n_cpus; i++) {
			if (!cpu_listed(r, h, i))
				continue;
			if ((ret = tdat_cursor_peek(h->cur[i], &rec, err)))
				return ret;
			if (rec && (!best || rec_time(h->file, rec) < best_ts)) {
				best = rec;
				best_ts = rec_time(h->file, rec);
				best_i = (size_t)i;
			}
		}
		if (!best) {
			h->done = true;
			h->rec = NULL;
			return TMX_OK;
		}
		if ((ret = tdat_cursor_next(h->cur[best_i], &rec, err)))
			return ret;
		if (!rec) {   /* cannot happen after a peek; do not loop on it */
			h->done = true;
			return TMX_OK;
		}
		if (h->file->n_pos || h->file->n_neg) {
			struct tep_event *ev;
			/* A record libtraceevent cannot read matches no filter. */
			if (!prepare(r, h->file, rec, &tr, &ev) || !filter_pass(h->file, &tr))
				continue;
		}
		/* -I / -S: trace-cmd's test_filters() drops them after the -F filters. */
		if ((r->o->no_irqs || r->o->no_softirqs) && common_inside(h->file, rec)) {
			int fl;
			to_tep_record(rec, &tr);
			fl = tep_data_flags(h->file->tep, &tr);
			if ((r->o->no_irqs && (fl & TRACE_FLAG_HARDIRQ)) ||
			    (r->o->no_softirqs && (fl & TRACE_FLAG_SOFTIRQ)))
				continue;
		}
		h->rec = rec;
		h->ts = rec_time(h->file, rec);
		h->rec_cursor = best_i;
		return TMX_OK;
	}
}

/* trace-cmd's print_handle_file(). */
static void put_label(struct tcr *r, const char *label)
{
	if (!r->multi && !r->instances)
		return;
	if (label) {
		put_right(r->out, label, r->max_label);
		outbuf_write(r->out, ": ", 2);
	} else {
		put_spaces(r->out, r->max_label + 2);
	}
}

static void process_wakeup(struct tcr *r, struct tcr_file *tf, const struct tdat_record *rec);

/* One line: trace-cmd's trace_show_data(). */
static void emit(struct tcr *r, struct tcr_handle *h, const struct tdat_record *rec)
{
	struct tcr_file *tf = h->file;
	struct outbuf *b = r->out;
	struct tep_record tr;
	struct tep_event *ev;
	char buf[24], *p;
	const char *comm, *name;
	unsigned len;
	int pid, n;
	uint64_t ts = rec_time(tf, rec);

	put_label(r, h->label);
	if (rec->missed_events) {
		outbuf_write(b, "CPU:", 4);
		outbuf_u64(b, rec->cpu, 0);
		if (rec->missed_events > 0) {
			outbuf_write(b, " [", 2);
			p = fmt_i64(buf, rec->missed_events);
			outbuf_write(b, p, (size_t)(buf + 24 - p));
			outbuf_puts(b, " EVENTS DROPPED]\n");
		} else {
			outbuf_puts(b, " [EVENTS DROPPED]\n");
		}
	}
	to_tep_record(rec, &tr);
	if (!common_inside(tf, rec)) {
		outbuf_puts(b, "CPU:");
		outbuf_u64(b, rec->cpu, 0);
		outbuf_puts(b, " [INVALID RECORD: ");
		outbuf_u64(b, rec->size, 0);
		outbuf_puts(b, " bytes, shorter than the common fields]\n");
		return;
	}
	pid = tep_data_pid(tf->tep, &tr);
	comm = tep_data_comm_from_pid(tf->tep, pid);
	if (!comm)
		comm = "<...>";
	if (r->o->latency) {
		/* "%8.8s-%-5d %3d", then libtraceevent's latency flags (-R: "-0x%x" of them) */
		size_t cl = strnlen(comm, 8);
		put_spaces(b, 8 - cl);
		outbuf_write(b, comm, cl);
		outbuf_putc(b, '-');
		p = fmt_i64(buf, pid);
		put_num(b, p, buf + 24, 5, true);
		outbuf_putc(b, ' ');
		p = fmt_u64(buf, rec->cpu);
		put_num(b, p, buf + 24, 3, false);
		if (r->o->raw) {
			outbuf_write(b, "-0x", 3);
			put_hex(b, (uint32_t)tep_data_flags(tf->tep, &tr));
		} else {
			trace_seq_reset(&r->seq);
			tep_print_event(tf->tep, &r->seq, &tr, "%s", TEP_PRINT_LATENCY);
			outbuf_write(b, r->seq.buffer, r->seq.len);
		}
	} else {
		/* "%16s-%-5d [%03d]" */
		put_right(b, comm, 16);
		outbuf_putc(b, '-');
		p = fmt_i64(buf, pid);
		put_num(b, p, buf + 24, 5, true);
		outbuf_write(b, " [", 2);
		outbuf_u64(b, rec->cpu, 3);
		outbuf_putc(b, ']');
	}
	/* " %6.1000d:", " %9.1d:" or "%12d:" */
	if (!tf->usecs) {
		put_time(b, ts, 0, 1);
	} else {
		outbuf_putc(b, ' ');
		if (r->o->nsec)
			put_time(b, ts, 9, 1);
		else
			put_time(b, ts, 6, 1000);
	}
	outbuf_putc(b, ':');
	if (r->o->ts_diff) {
		/* " %-8s" of "(+DIFF)" in the printed unit, empty for the first record */
		size_t dl = 0;
		outbuf_putc(b, ' ');
		/* trace-cmd: use_trace_clock (a TRACECLOCK option, no --ts2secs) and no -t: usecs */
		if (tf->use_trace_clock && !r->o->nsec)
			ts = (ts + 500) / 1000;
		if (r->last_ts) {
			p = fmt_i64(buf, (int64_t)(ts - r->last_ts));
			dl = (size_t)(buf + 24 - p) + 3;
			outbuf_write(b, "(+", 2);
			outbuf_write(b, p, dl - 3);
			outbuf_putc(b, ')');
		}
		if (dl < 8)
			put_spaces(b, 8 - dl);
		r->last_ts = ts;
	}
	/* " %s: " and the name padded to 20 columns */
	ev = tep_find_event_by_record(tf->tep, &tr);
	name = ev && ev->name ? ev->name : "";
	outbuf_putc(b, ' ');
	outbuf_puts(b, name);
	outbuf_write(b, ": ", 2);
	if (strlen(name) < 20)
		put_spaces(b, 20 - strlen(name));
	/* trace-cmd drops one newline at the end of the line. */
	if (ev && ev->id >= 0 && ev->id < tf->n_plans && tf->plans[ev->id] &&
	    (n = tcf_render(tf->plans[ev->id], rec->data, rec->size, r->scratch,
			    sizeof(r->scratch))) >= 0) {
		if (n && r->scratch[n - 1] == '\n')
			n--;
		outbuf_write(b, r->scratch, (size_t)n);
	} else if (!prepare(r, tf, rec, &tr, &ev)) {
		outbuf_puts(b, "[INVALID RECORD: a field lies outside the record]");
	} else {
		trace_seq_reset(&r->seq);
		tep_print_event(tf->tep, &r->seq, &tr, "%s",
				r->o->raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
		len = r->seq.len;
		if (len && r->seq.buffer[len - 1] == '\n')
			len--;
		outbuf_write(b, r->seq.buffer, len);
	}
	if (r->o->wakeup)
		process_wakeup(r, tf, rec);
	outbuf_putc(b, '\n');
}

/* ------------------------------------------------------------------ */
/* --stat                                                                */
/* ------------------------------------------------------------------ */

static size_t n_cpustat_options(const struct tdat_file *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n_options; i++)
		n += f->options[i].id == TDAT_OPT_CPUSTAT;
	return n;
}

/* libtracecmd's tracecmd_print_stats() for the top buffer. */
static void print_stats(struct tcr *r, struct tcr_file *tf)
{
	const struct tdat_file *f = tf->f;
	struct outbuf *b = r->out;
	uint64_t next_offset = f->page_size;   /* decompressed data: a temp file from page_size */
	const struct tdat_buffer *top;
	uint32_t n_ids = 0;

	outbuf_puts(b, "\nKernel buffer statistics:\n"
		    "  Note: \"entries\" are the entries left in the kernel ring buffer and are not\n"
		    "        recorded in the trace data. They should all be zero.\n\n");
	if (n_cpustat_options(f)) {
		/*
		 * libtracecmd concatenates the CPUSTAT options as stored, each
		 * one's last byte (its NUL) made a newline, and prints that as
		 * a C string with one more newline: a NUL inside an option ends
		 * everything.
		 */
		for (size_t i = 0; i < f->n_options; i++) {
			const struct tdat_option *op = &f->options[i];
			size_t n;
			if (op->id != TDAT_OPT_CPUSTAT || !op->size)
				continue;
			n = strnlen((const char *)op->data, op->size - 1);
			outbuf_write(b, (const char *)op->data, n);
			if (n < op->size - 1)
				break;
			outbuf_putc(b, '\n');
		}
		outbuf_putc(b, '\n');
	} else {
		outbuf_puts(b, " No stats in this file\n");
	}
	if (!f->n_buffers || f->buffers[0].latency)
		return;
	/*
	 * libtracecmd keeps one entry per CPU id up to the highest listed
	 * (a v7 BUFFER option may list only the CPUs with data): the missing
	 * ones print as offset 0, size 0.
	 */
	top = &f->buffers[0];
	for (uint32_t i = 0; i < top->n_cpus; i++)
		if (top->cpus[i].cpu + 1 > n_ids)
			n_ids = top->cpus[i].cpu + 1;
	for (uint32_t id = 0; id < n_ids && id < TMX_TCREPORT_MAX_CPUS; id++) {
		const struct tdat_cpu_data *cd = NULL;
		uint64_t off = 0, size = 0;

		for (uint32_t i = 0; i < top->n_cpus && !cd; i++)
			if (top->cpus[i].cpu == id)
				cd = &top->cpus[i];
		if (cd && cd->compressed) {
			off = next_offset;
			size = cd->uncompressed_size;
			next_offset += size;
		} else if (cd) {
			off = cd->offset;
			size = cd->size;
		}
		outbuf_write(b, "CPU", 3);
		outbuf_u64(b, id, 0);
		outbuf_puts(b, " data recorded at offset=0x");
		put_hex(b, off);
		outbuf_puts(b, "\n    ");
		outbuf_u64(b, size, 0);
		outbuf_puts(b, " bytes in size\n");
	}
}

/* ------------------------------------------------------------------ */
/* The report                                                            */
/* ------------------------------------------------------------------ */

/* --cpu LIST as trace-cmd's parse_cpulist(): "N", "A-B", separated by ',' or ':'. */
static int parse_cpu_list(struct tcr *r, const char *s, struct tmx_error *err)
{
	const char *p = s;

	if (!(r->cpu_list = malloc(TMX_TCREPORT_MAX_CPUS * sizeof(*r->cpu_list))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	do {
		unsigned long a, b;
		char *end;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "invalid character '%c' in cpu string '%s'", *p, s);
		b = a = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p < '0' || *p > '9')
				return tmx_error_set(err, TMX_ERR_USAGE, NULL,
						     "invalid character '%c' in cpu string '%s'", *p, s);
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (a > b)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "range of cpu numbers must be lower to greater");
		if (b >= TMX_TCREPORT_MAX_CPUS)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL, "cpu %lu: at most %d CPUs", b,
					     TMX_TCREPORT_MAX_CPUS);
		for (; a <= b; a++) {
			bool dup = false;
			for (size_t i = 0; i < r->n_cpu_list; i++)
				dup |= r->cpu_list[i] == a;
			if (!dup)
				r->cpu_list[r->n_cpu_list++] = (unsigned)a;
		}
		if (*p == ',' || *p == ':')
			p++;
		else if (*p)
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "invalid character '%c' in cpu string '%s'", *p, s);
	} while (*p);
	return TMX_OK;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int add_handle(struct tcr *r, struct tcr_file *tf, size_t buffer, const char *label,
		      struct tmx_error *err)
{
	const struct tdat_buffer *b = &tf->f->buffers[buffer];
	struct tcr_handle *h;
	int ret;

	if (r->n_handles == r->cap_handles) {
		size_t cap = r->cap_handles ? 2 * r->cap_handles : 8;
		void *p = realloc(r->handles, cap * sizeof(*r->handles));
		if (!p)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		r->handles = p;
		r->cap_handles = cap;
	}
	h = &r->handles[r->n_handles++];
	memset(h, 0, sizeof(*h));
	h->file = tf;
	h->buffer = buffer;
	h->label = label;
	if (label && strlen(label) > r->max_label)
		r->max_label = strlen(label);
	if (b->latency || !b->n_cpus) {
		h->done = true;
		return TMX_OK;
	}
	if (!(h->cur = calloc(b->n_cpus, sizeof(*h->cur))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (uint32_t i = 0; i < b->n_cpus; i++) {
		if ((ret = tdat_cursor_open(tf->f, buffer, i, &h->cur[i], err)))
			return ret;
		h->n_cpus = i + 1;
	}
	h->fg = (struct tfg_handle){ h->cur, h->n_cpus, b, r->cpu_list, r->n_cpu_list, fg_time, tf };
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Information modes: -p, -e, --check-events, -E, --cpus, --uname...    */
/* ------------------------------------------------------------------ */

/* "%d" */
static void put_int(struct outbuf *b, int64_t v)
{
	char buf[24], *p = fmt_i64(buf, v);

	outbuf_write(b, p, (size_t)(buf + 24 - p));
}

/* An option printed by libtracecmd with "%s\n" (up to its first NUL), or the missing text. */
static void put_option_text(struct outbuf *b, const struct tdat_text *t, const char *missing)
{
	if (!t->ptr) {
		outbuf_puts(b, missing);
		return;
	}
	outbuf_write(b, t->ptr, strnlen(t->ptr, t->len));
	outbuf_putc(b, '\n');
}

/* libtraceevent's TIME_FMT_TS: "%6.1000d", "%9.1d" (-t) or "%12d" (no usecs). */
static void put_ts(struct tcr *r, const struct tcr_file *tf, uint64_t ts)
{
	if (!tf->usecs)
		put_time(r->out, ts, 0, 1);
	else if (r->o->nsec)
		put_time(r->out, ts, 9, 1);
	else
		put_time(r->out, ts, 6, 1000);
}

static int cmp_cpu_id(const void *a, const void *b)
{
	const struct tdat_cpu_data *x = *(const struct tdat_cpu_data *const *)a;
	const struct tdat_cpu_data *y = *(const struct tdat_cpu_data *const *)b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/*
 * The top buffer's CPUs in id order, each id once and below the file's
 * CPU count (libtracecmd indexes its CPU data by id).  Returns the count.
 */
static size_t cpus_by_id(const struct tcr_file *tf, const struct tdat_cpu_data ***out)
{
	const struct tdat_file *f = tf->f;
	const struct tdat_buffer *top = f->n_buffers ? &f->buffers[0] : NULL;
	const struct tdat_cpu_data **v;
	size_t n = 0;

	*out = NULL;
	if (!top || top->latency || !top->n_cpus)
		return 0;
	if (!(v = malloc(top->n_cpus * sizeof(*v))))
		return (size_t)-1;
	for (uint32_t i = 0; i < top->n_cpus; i++)
		if ((int64_t)top->cpus[i].cpu < tf->cpus)
			v[n++] = &top->cpus[i];
	qsort(v, n, sizeof(*v), cmp_cpu_id);
	*out = v;
	return n;
}

/* --cpus, --first-event, --last-event for one file (trace-cmd's show_cpus). */
static int print_cpus(struct tcr *r, size_t i, struct tmx_error *err)
{
	struct tcr_file *tf = &r->files[i];
	const struct tdat_file *f = tf->f;
	const struct tdat_cpu_data **cpus;
	size_t n = cpus_by_id(tf, &cpus);

	if (n == (size_t)-1)
		return tmx_error_set(err, TMX_ERR_NOMEM, f->path, "out of memory");
	outbuf_puts(r->out, "List of CPUs in ");
	outbuf_puts(r->out, r->paths[i]);
	outbuf_puts(r->out, " with data:\n");
	for (size_t k = 0; k < n; k++) {
		const struct tdat_cpu_data *cd = cpus[k];
		uint64_t first, last;

		if (k && cd->cpu == cpus[k - 1]->cpu)
			continue;
		if (!tdat_cpu_time_range(f, 0, (size_t)(cd - f->buffers[0].cpus), &first, &last))
			continue;
		outbuf_write(r->out, "  ", 2);
		put_int(r->out, cd->cpu);
		if (r->o->first_event) {
			outbuf_puts(r->out, "\tFirst event:");
			put_ts(r, tf, time_of(tf, first, tdat_convert_ts_cpu(f, first, cd->cpu)));
		}
		if (r->o->last_event) {
			outbuf_puts(r->out, "\tLast event:");
			put_ts(r, tf, time_of(tf, last, tdat_convert_ts_cpu(f, last, cd->cpu)));
		}
		outbuf_putc(r->out, '\n');
	}
	free(cpus);
	return TMX_OK;
}

/*
 * --align-ts: every time minus the earliest first event of the files' top
 * buffers (libtracecmd's tracecmd_get_first_ts(): 0 for a file without CPU
 * data, which then aligns nothing).
 */
static int align_times(struct tcr *r, struct tmx_error *err)
{
	uint64_t first_ts = 0;

	for (size_t i = 0; i < r->n_files; i++) {
		struct tcr_file *tf = &r->files[i];
		const struct tdat_cpu_data **cpus;
		size_t n = cpus_by_id(tf, &cpus);
		uint64_t ts = 0;
		bool any = false;

		if (n == (size_t)-1)
			return tmx_error_set(err, TMX_ERR_NOMEM, tf->f->path, "out of memory");
		for (size_t k = 0; k < n; k++) {
			uint64_t a, b, t;
			if (!cpus[k]->size ||
			    !tdat_cpu_time_range(tf->f, 0, (size_t)(cpus[k] - tf->f->buffers[0].cpus),
						 &a, &b))
				continue;
			t = time_of(tf, a, tdat_convert_ts_cpu(tf->f, a, cpus[k]->cpu));
			if (!any || t < ts)
				ts = t;
			any = true;
		}
		free(cpus);
		if (!i || ts < first_ts)
			first_ts = ts;
	}
	for (size_t i = 0; i < r->n_files; i++)
		r->files[i].adjust -= first_ts;
	return TMX_OK;
}

/*
 * -f and -P: libtraceevent's own listings (tep_print_funcs(), tep_print_printk()),
 * which printf() to stdout; stdout is pointed at the output for the call.
 */
static int through_stdout(struct tcr *r, int (*fn)(void *), void *arg, struct tmx_error *err)
{
	int saved = -1, e, ret;

	if ((e = outbuf_flush(r->out)) || fflush(stdout))
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(e ? e : errno));
	if (r->o->out_fd != STDOUT_FILENO) {
		if ((saved = dup(STDOUT_FILENO)) < 0 || dup2(r->o->out_fd, STDOUT_FILENO) < 0) {
			e = errno;
			if (saved >= 0)
				close(saved);
			return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot redirect the output: %s",
					     strerror(e));
		}
	}
	ret = fn(arg);
	e = fflush(stdout) ? errno : 0;
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	if (e && !ret)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return ret;
}

static int print_funcs_cb(void *tep)
{
	tep_print_funcs(tep);
	return TMX_OK;
}

static int print_printk_cb(void *tep)
{
	tep_print_printk(tep);
	return TMX_OK;
}

/* Compiles one half of an --event regex as libtracecmd does. */
static int compile_event_regex(regex_t *re, const char *text, size_t len, const char *whole,
			       struct tmx_error *err)
{
	char *s = strndup(text, len);
	int rc;

	if (!s)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	rc = regcomp(re, s, REG_ICASE | REG_NOSUB);
	free(s);
	if (rc)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "--event: invalid regular expression `%s`", whole);
	return TMX_OK;
}

/*
 * libtracecmd's regex_event_buf(): the first line of a format file that is
 * not empty, without its "name: ", against `re`.
 */
static bool format_name_matches(const struct tdat_text *t, const regex_t *re)
{
	size_t len = strnlen(t->ptr, t->len), at = 0, end;
	char *line;
	bool match;

	while (at < len && t->ptr[at] == '\n')
		at++;
	for (end = at; end < len && t->ptr[end] != '\n'; end++)
		;
	if (at == end)
		return false;
	if (end - at >= 6 && !memcmp(t->ptr + at, "name: ", 6))
		at += 6;
	if (!(line = strndup(t->ptr + at, end - at)))
		return false;
	match = !regexec(re, line, 0, NULL, 0);
	free(line);
	return match;
}

/*
 * --events, --event REGEX: libtracecmd's tracecmd_print_events() on the
 * event systems (the ftrace formats, which it has already read when it is
 * called, are never printed).  REGEX is SYSTEM:EVENT, split at colons as
 * strtok() splits it; without an EVENT half the one regex is tried on both,
 * and a system that matches prints all its formats.  Basic regexes, any
 * case, unanchored.  trace-cmd 3.1.6 prints nothing for a v7 file (it
 * looks for the formats where a v6 file keeps them); here v7 files print
 * as v6 files do.
 */
static int print_event_formats(struct tcr *r, const struct tdat_file *f, const char *regex,
			       struct tmx_error *err)
{
	size_t sys_at = strspn(regex, ":"), sys_len = strcspn(regex + sys_at, ":");
	size_t ev_at = sys_at + sys_len + strspn(regex + sys_at + sys_len, ":");
	size_t ev_len = strcspn(regex + ev_at, ":");
	bool unique = ev_len > 0;   /* SYSTEM:EVENT */
	regex_t sys_re, ev_re;
	const char *printed = NULL; /* the system block whose header is out */
	int ret;

	if (!sys_len)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL, "--event: empty regular expression");
	if ((ret = compile_event_regex(&sys_re, regex + sys_at, sys_len, regex, err)))
		return ret;
	if ((ret = compile_event_regex(&ev_re, unique ? regex + ev_at : regex + sys_at,
				       unique ? ev_len : sys_len, regex, err))) {
		regfree(&sys_re);
		return ret;
	}
	for (size_t i = 0; i < f->n_event_formats; i++) {
		const struct tdat_format_file *ff = &f->event_formats[i];
		bool sys_match = !regexec(&sys_re, ff->system, 0, NULL, 0);
		bool print_all = sys_match && !unique;

		if (unique && !sys_match)
			continue;
		if (!print_all && !format_name_matches(&ff->text, &ev_re))
			continue;
		if (printed != ff->system) {
			outbuf_puts(r->out, "\nsystem: ");
			outbuf_puts(r->out, ff->system);
			outbuf_putc(r->out, '\n');
			printed = ff->system;
		}
		outbuf_write(r->out, ff->text.ptr, strnlen(ff->text.ptr, ff->text.len));
		outbuf_putc(r->out, '\n');
	}
	regfree(&sys_re);
	regfree(&ev_re);
	return TMX_OK;
}

/*
 * What trace-cmd prints instead of the events for -p, -e, --events,
 * --event, --check-events, -f, -P, -E, --cpus.
 */
static int info_mode(struct tcr *r, bool *done, struct tmx_error *err)
{
	const struct tmx_tcreport_opts *o = r->o;
	struct tcr_file *tf = &r->files[0];
	int ret;

	*done = true;
	/* These look at the first file only, in this order (trace-cmd's trace_report()). */
	if (o->page_size) {
		outbuf_puts(r->out, "file page size is ");
		put_int(r->out, tf->f->page_size);
		outbuf_puts(r->out, ", and host page size is ");
		put_int(r->out, sysconf(_SC_PAGESIZE));
		outbuf_putc(r->out, '\n');
		return TMX_OK;
	}
	if (o->endian) {
		const uint16_t one = 1;
		outbuf_puts(r->out, tf->f->big_endian ? "file is big endian" : "file is little endian");
		outbuf_puts(r->out, *(const uint8_t *)&one ? " and host is little endian\n"
							  : " and host is big endian\n");
		return TMX_OK;
	}
	if (o->event_formats)
		return print_event_formats(r, tf->f, o->event_formats, err);
	if (o->check_events) {
		if (tf->parse_failures)
			return tmx_error_set(err, TMX_ERR_DATA, tf->f->path,
					     "%d event format%s cannot be parsed (the first: %s)",
					     tf->parse_failures, tf->parse_failures == 1 ? "" : "s",
					     tf->first_failure);
		return TMX_OK;
	}
	if (o->funcs)
		return through_stdout(r, print_funcs_cb, tf->tep, err);
	if (o->printk_list)
		return through_stdout(r, print_printk_cb, tf->tep, err);
	if (o->list_events) {
		struct tep_event **evs = tep_list_events(tf->tep, TEP_EVENT_SORT_SYSTEM);
		for (size_t i = 0; evs && evs[i]; i++) {
			if (evs[i]->system) {
				outbuf_puts(r->out, evs[i]->system);
				outbuf_putc(r->out, ':');
			}
			outbuf_puts(r->out, evs[i]->name ? evs[i]->name : "(null)");
			outbuf_putc(r->out, '\n');
		}
		return TMX_OK;
	}
	/* --cpus (--first-event, --last-event): every file. */
	if (o->cpus_list || o->first_event || o->last_event) {
		for (size_t i = 0; i < r->n_files; i++)
			if ((ret = print_cpus(r, i, err)))
				return ret;
		return TMX_OK;
	}
	*done = false;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* -w: wakeup latencies (trace-cmd's process_wakeup())                  */
/* ------------------------------------------------------------------ */

/* libtracecmd's init_wakeup(): without these events and fields, -w prints nothing. */
static void init_wakeup(struct tcr_file *tf)
{
	struct tep_event *ev;

	tf->wakeup = false;
	if (!(ev = tep_find_event_by_name(tf->tep, "sched", "sched_wakeup")) ||
	    !(tf->wk_pid = tep_find_field(ev, "pid")))
		return;
	tf->wk_id = ev->id;
	tf->wk_success = tep_find_field(ev, "success");
	if (!(ev = tep_find_event_by_name(tf->tep, "sched", "sched_switch")) ||
	    !(tf->sw_pid = tep_find_field(ev, "next_pid")) ||
	    !(tf->sw_prio = tep_find_field(ev, "next_prio")))
		return;
	tf->sw_id = ev->id;
	tf->wk_new_id = -1;
	if ((ev = tep_find_event_by_name(tf->tep, "sched", "sched_wakeup_new"))) {
		if (!(tf->wk_new_pid = tep_find_field(ev, "pid")))
			return;
		tf->wk_new_id = ev->id;
		tf->wk_new_success = tep_find_field(ev, "success");
	}
	tf->wakeup = true;
}

static size_t wk_slot(const struct tcr_wakeups *w, uint32_t pid)
{
	size_t i = (pid * 2654435761u) & (w->cap - 1);

	while (w->used[i] && w->pid[i] != pid)
		i = (i + 1) & (w->cap - 1);
	return i;
}

static bool wk_grow(struct tcr_wakeups *w)
{
	struct tcr_wakeups n = { 0 };

	n.cap = w->cap ? w->cap * 2 : 256;
	n.pid = malloc(n.cap * sizeof(*n.pid));
	n.start = malloc(n.cap * sizeof(*n.start));
	n.used = calloc(n.cap, sizeof(*n.used));
	if (!n.pid || !n.start || !n.used) {
		free(n.pid);
		free(n.start);
		free(n.used);
		return false;
	}
	for (size_t i = 0; i < w->cap; i++) {
		if (!w->used[i])
			continue;
		size_t k = wk_slot(&n, w->pid[i]);
		n.used[k] = true;
		n.pid[k] = w->pid[i];
		n.start[k] = w->start[i];
	}
	n.n = w->n;
	free(w->pid);
	free(w->start);
	free(w->used);
	*w = n;
	return true;
}

/* A wakeup of pid at ts (a second wakeup before the switch restarts the clock). */
static bool wk_add(struct tcr_wakeups *w, uint32_t pid, uint64_t ts)
{
	size_t i;

	if ((w->n + 1) * 2 > w->cap && !wk_grow(w))
		return false;
	i = wk_slot(w, pid);
	if (!w->used[i]) {
		w->used[i] = true;
		w->pid[i] = pid;
		w->n++;
	}
	w->start[i] = ts;
	return true;
}

/* Removes pid; its wakeup time into *start.  False if it was not woken. */
static bool wk_take(struct tcr_wakeups *w, uint32_t pid, uint64_t *start)
{
	size_t i, j;

	if (!w->cap)
		return false;
	i = wk_slot(w, pid);
	if (!w->used[i])
		return false;
	*start = w->start[i];
	/* Backward-shift deletion keeps every probe chain unbroken. */
	w->used[i] = false;
	w->n--;
	for (j = (i + 1) & (w->cap - 1); w->used[j]; j = (j + 1) & (w->cap - 1)) {
		size_t home = (w->pid[j] * 2654435761u) & (w->cap - 1);
		/* j's entry may move to i if its home is not in (i, j] (cyclically) */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			w->used[i] = true;
			w->pid[i] = w->pid[j];
			w->start[i] = w->start[j];
			w->used[j] = false;
			i = j;
		}
	}
	return true;
}

static void lat_add(struct tcr_lat *l, uint64_t cal, uint64_t end)
{
	if (cal > l->max) {
		l->max = cal;
		l->max_time = end;
	}
	if (!l->count || cal < l->min) {
		l->min = cal;
		l->min_time = end;
	}
	l->total += cal;
	l->count++;
}

/* "%llu.%03llu" of a nanosecond count in usecs */
static void put_usecs3(struct outbuf *b, uint64_t ns)
{
	outbuf_u64(b, ns / 1000, 0);
	outbuf_putc(b, '.');
	outbuf_u64(b, ns % 1000, 3);
}

/* After a printed record (before its newline), as trace-cmd's process_wakeup(). */
static void process_wakeup(struct tcr *r, struct tcr_file *tf, const struct tdat_record *rec)
{
	unsigned long long val;
	struct tep_record tr;
	struct tep_event *ev;
	uint64_t ts = rec_time(tf, rec), start;
	int id;

	if (!tf->wakeup || !prepare(r, tf, rec, &tr, &ev))
		return;
	id = tep_data_type(tf->tep, &tr);
	if (id == tf->wk_id || id == tf->wk_new_id) {
		struct tep_format_field *succ = id == tf->wk_id ? tf->wk_success : tf->wk_new_success;
		struct tep_format_field *pid = id == tf->wk_id ? tf->wk_pid : tf->wk_new_pid;
		if (succ && !tep_read_number_field(succ, tr.data, &val) && !val)
			return;
		if (tep_read_number_field(pid, tr.data, &val))
			return;
		if (!wk_add(&r->wakeups, (uint32_t)val, ts))
			tf->wakeup = false;   /* out of memory: stop measuring, print on */
	} else if (id == tf->sw_id) {
		bool rt;
		uint64_t cal;
		if (tep_read_number_field(tf->sw_prio, tr.data, &val))
			return;
		rt = val <= 99;
		if (tep_read_number_field(tf->sw_pid, tr.data, &val) ||
		    !wk_take(&r->wakeups, (uint32_t)val, &start))
			return;
		cal = ts - start;
		lat_add(&r->lat, cal, ts);
		if (rt)
			lat_add(&r->rt_lat, cal, ts);
		outbuf_puts(r->out, " Latency: ");
		put_usecs3(r->out, cal);
		outbuf_puts(r->out, " usecs");
	}
}

/* "LABEL: N.NNN usecs at timestamp: S.UUUUUU" (the timestamp's odd rounding included). */
static void put_extreme(struct outbuf *b, const char *label, uint64_t ns, uint64_t time)
{
	outbuf_puts(b, label);
	put_usecs3(b, ns);
	outbuf_puts(b, " usecs at timestamp: ");
	outbuf_u64(b, time / 1000000000, 0);
	outbuf_putc(b, '.');
	outbuf_u64(b, ((time + 500) % 1000000000) / 1000, 6);
}

/* trace-cmd's show_wakeup_timings(). */
static void put_timings(struct outbuf *b, const struct tcr_lat *l)
{
	outbuf_puts(b, "\nAverage wakeup latency: ");
	put_usecs3(b, l->total / l->count);
	outbuf_puts(b, " usecs");
	put_extreme(b, "\nMaximum Latency: ", l->max, l->max_time);
	put_extreme(b, "\nMinimum Latency: ", l->min, l->min_time);
	outbuf_puts(b, "\n\n");
}

static void finish_wakeup(struct tcr *r)
{
	if (!r->lat.count)
		return;
	put_timings(r->out, &r->lat);
	if (r->rt_lat.count) {
		outbuf_puts(r->out, "RT task timings:\n");
		put_timings(r->out, &r->rt_lat);
	}
}

/*
 * trace_init_profile() with trace-cmd's hook list: the -H hooks newest
 * first, then the file's HOOK options newest first.
 */
static int start_profile(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	size_t n = r->n_hooks + tf->n_hooks, k = 0;
	const struct tcp_hook **list = n ? malloc(n * sizeof(*list)) : NULL;

	if (n && !list)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (size_t i = r->n_hooks; i-- > 0;)
		list[k++] = &r->hooks[i];
	for (size_t i = tf->n_hooks; i-- > 0;)
		list[k++] = &tf->hooks[i];
	/* trace-cmd warns "Event %s not found" and leaves that hook out */
	for (size_t i = 0; i < n && r->o->diag && r->o->diag->warn; i++) {
		const char *missing =
			!tep_find_event_by_name(tf->tep, list[i]->start_system, list[i]->start_event)
				? list[i]->start_event
			: !tep_find_event_by_name(tf->tep, list[i]->end_system, list[i]->end_event)
				? list[i]->end_event
				: NULL;
		if (missing) {
			char msg[300];
			snprintf(msg, sizeof(msg), "%s: -H: event %s not found", tf->f->path, missing);
			r->o->diag->warn(r->o->diag->user, msg);
		}
	}
	tf->profile = tcp_profile_new(tf->tep, tf->cpus, r->o->profile_global, list, n);
	free(list);
	if (!tf->profile)
		return tmx_error_set(err, TMX_ERR_DATA, tf->f->path,
				     "--profile: the sched, irq, syscall, function graph or -H events "
				     "lack the fields that pair them (or out of memory)");
	return TMX_OK;
}

/*
 * Parses hooks, printing the line trace-cmd prints for each; into *out
 * (count *n).  `what` names them in an error.
 */
static int parse_hooks(struct tcr *r, const char *const *texts, const size_t *lens, size_t count,
		       struct tcp_hook **out, size_t *n, const char *what, const char *path,
		       struct tmx_error *err)
{
	if (!count)
		return TMX_OK;
	if (!(*out = calloc(count, sizeof(**out))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (size_t i = 0; i < count; i++) {
		char line[1024], *text = lens ? strndup(texts[i], lens[i]) : NULL;
		bool ok = tcp_hook_parse(lens ? (text ? text : "") : texts[i], &(*out)[*n], line,
					 sizeof(line));
		if (!ok) {
			int ret = tmx_error_set(err, lens ? TMX_ERR_DATA : TMX_ERR_USAGE, path,
						"invalid %s `%s`: [SYSTEM:]START,FIELD[,PID_FIELD]/"
						"[SYSTEM:]END,FIELD[,FLAGS]", what,
						lens ? (text ? text : "") : texts[i]);
			free(text);
			return ret;
		}
		free(text);
		(*n)++;
		outbuf_puts(r->out, line);
	}
	return TMX_OK;
}

/* The HOOK options of a file (libtracecmd parses them, and prints them, at open). */
static int file_hooks(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	const struct tdat_file *f = tf->f;
	const char *texts[TMX_TCREPORT_MAX_FILTERS];
	size_t lens[TMX_TCREPORT_MAX_FILTERS], n = 0;

	for (size_t i = 0; i < f->n_options && n < TMX_TCREPORT_MAX_FILTERS; i++)
		if (f->options[i].id == TDAT_OPT_HOOK) {
			texts[n] = (const char *)f->options[i].data;
			/* a C string in the option (its NUL, if any, ends it) */
			lens[n] = strnlen(texts[n], f->options[i].size);
			n++;
		}
	return parse_hooks(r, texts, lens, n, &tf->hooks, &tf->n_hooks, "HOOK option", f->path,
			   err);
}

/* --ts-check: trace-cmd's warning when a CPU's records go back in time. */
static void check_ts(struct tcr *r, struct tcr_handle *h)
{
	if (!h->last_ts && !(h->last_ts = calloc(h->n_cpus ? h->n_cpus : 1, sizeof(*h->last_ts))))
		return;
	if (h->rec_cursor >= h->n_cpus)
		return;
	if (h->last_ts[h->rec_cursor] > h->ts && r->o->diag && r->o->diag->warn) {
		char msg[200];
		uint64_t last = h->last_ts[h->rec_cursor];
		snprintf(msg, sizeof(msg), "WARNING: Record on cpu %u went backwards: %lld to %lld delta: -%lld",
			 h->rec->cpu, (long long)last, (long long)h->ts, (long long)(last - h->ts));
		r->o->diag->warn(r->o->diag->user, msg);
	}
	h->last_ts[h->rec_cursor] = h->ts;
}

/* A record into its file's profile (a record libtraceevent cannot read is left out). */
static int profile_record(struct tcr *r, struct tcr_handle *h, const struct tdat_record *rec,
			  struct tmx_error *err)
{
	struct tcr_file *tf = h->file;
	struct tep_record tr;
	struct tep_event *ev;

	/* trace-cmd 3.1.6 dies here too ("Handle not found?"): instances have no profile */
	if (h->buffer)
		return tmx_error_set(err, TMX_ERR_UNSUPPORTED, tf->f->path,
				     "--profile: the events of instance buffers cannot be profiled "
				     "(trace-cmd 3.1.6 stops at the first one too)");
	if (!tf->profile || !prepare(r, tf, rec, &tr, &ev))
		return TMX_OK;
	tr.ts = rec_time(tf, rec);
	return tcp_profile_record(tf->profile, &tr, tf->f->path, err);
}

/* trace-cmd's read_data_info(): the header lines, then every record by time. */
static int report(struct tcr *r, struct tmx_error *err)
{
	const struct tmx_tcreport_opts *o = r->o;
	/* trace-cmd: --version overrides --uname (which prints the version too), both --stat */
	bool stat = o->stat && !o->uname && !o->version;
	bool done;
	int ret;

	if ((ret = info_mode(r, &done, err)) || done)
		return ret;
	if (o->align_ts && !stat && !o->uname && !o->version && (ret = align_times(r, err)))
		return ret;
	for (size_t i = 0; i < r->n_files; i++) {
		struct tcr_file *tf = &r->files[i];
		const struct tdat_file *f = tf->f;

		if ((ret = add_handle(r, tf, 0, r->multi ? tf->base : NULL, err)))
			return ret;
		put_label(r, r->multi ? tf->base : NULL);
		outbuf_write(r->out, "cpus=", 5);
		put_int(r->out, tf->cpus);
		outbuf_putc(r->out, '\n');
		/* A latency trace is text: print it and stop there, as trace-cmd. */
		if (f->n_buffers && f->buffers[0].latency) {
			if (r->multi)
				return tmx_error_set(err, TMX_ERR_UNSUPPORTED, f->path,
						     "latency traces do not work with multiple inputs");
			outbuf_write(r->out, f->buffers[0].latency_text.ptr,
				     f->buffers[0].latency_text.len);
			return TMX_OK;
		}
		if (o->uname || o->version) {
			if (!o->version)
				put_option_text(r->out, &f->uname,
						" uname was not recorded in this file\n");
			put_option_text(r->out, &f->version_text,
					" version was not recorded in this file\n");
			continue;
		}
		if (stat) {
			print_stats(r, tf);
			continue;
		}
		if (o->wakeup)
			init_wakeup(tf);
		if (o->profile && (ret = start_profile(r, tf, err)))
			return ret;
		if (tf->profile)
			tcp_profile_set_by_comm(tf->profile, o->profile_by_comm);
		r->instances = f->n_buffers ? f->n_buffers - 1 : 0;
		for (size_t k = 1; k < f->n_buffers; k++)
			if ((ret = add_handle(r, tf, k, f->buffers[k].name, err)))
				return ret;
	}
	if (stat || o->uname || o->version)
		return TMX_OK;
	/* trace-cmd's map_vcpus(): guest symbols in the host's kvm events (guest.h) */
	for (size_t i = 0; i < r->n_files && !ret; i++)
		ret = tcg_add_file(&r->guests, r->files[i].f, r->files[i].tep, err);
	if (ret || (ret = tcg_start(r->guests, o->diag, err)))
		return ret;

	for (;;) {
		struct tcr_handle *best = NULL;

		for (size_t i = 0; i < r->n_handles; i++) {
			struct tcr_handle *h = &r->handles[i];
			if (!h->rec && !h->done && (ret = handle_next(r, h, err)))
				return ret;
			if (h->rec && (!best || h->ts < best->ts))
				best = h;
		}
		if (!best)
			break;
		if (o->ts_check)
			check_ts(r, best);
		if (o->profile) {
			/* trace-cmd's show_data_func: the record goes to the profile, not the output */
			put_label(r, best->label);
			if ((ret = profile_record(r, best, best->rec, err)))
				return ret;
		} else {
			/* a funcgraph entry may take the next record of its handle (funcgraph.h) */
			best->rec = tfg_before_print(r->fg, &best->fg, best->rec_cursor, best->rec);
			emit(r, best, best->rec);
			if ((ret = tfg_after_print(r->fg, err)))
				return ret;
		}
		best->rec = NULL;
	}
	/* do_trace_profile(): the last file's profile first (trace-cmd lists them LIFO) */
	for (size_t i = r->n_files; o->profile && i-- > 0;)
		if (r->files[i].profile)
			tcp_profile_output(r->files[i].profile, r->out);
	if (o->wakeup)
		finish_wakeup(r);
	return TMX_OK;
}

static void tcr_free(struct tcr *r)
{
	for (size_t i = 0; i < r->n_handles; i++) {
		struct tcr_handle *h = &r->handles[i];
		for (size_t k = 0; k < h->n_cpus; k++)
			tdat_cursor_close(h->cur[k]);
		free(h->cur);
		free(h->last_ts);
	}
	free(r->handles);
	tcg_free(r->guests);
	for (size_t i = 0; i < r->n_files; i++) {
		struct tcr_file *tf = &r->files[i];
		for (size_t k = 0; k < tf->n_pos; k++)
			tep_filter_free(tf->pos[k]);
		for (size_t k = 0; k < tf->n_neg; k++)
			tep_filter_free(tf->neg[k]);
		free(tf->pos);
		free(tf->neg);
		free(tf->last_printed);
		for (int k = 0; k < tf->n_plans; k++)
			tcf_free(tf->plans[k]);
		tcp_profile_free(tf->profile);
		for (size_t k = 0; k < tf->n_hooks; k++)
			tcp_hook_free(&tf->hooks[k]);
		free(tf->hooks);
		free(tf->plans);
		if (tf->tep) {
			if (tf->plugins)
				tep_unload_plugins(tf->plugins, tf->tep);
			tep_free(tf->tep);
		}
		if (tf->f)
			tdat_file_close(tf->f);
	}
	free(r->files);
	free(r->cpu_list);
	for (size_t k = 0; k < r->n_hooks; k++)
		tcp_hook_free(&r->hooks[k]);
	free(r->hooks);
	free(r->wakeups.pid);
	free(r->wakeups.start);
	free(r->wakeups.used);
	free(r->pad);
	tfg_free(r->fg);
	trace_seq_destroy(&r->seq);
	free(r->out);
}

int tmx_tcreport_run(const char *const *paths, size_t n_paths, const struct tmx_tcreport_opts *o,
		     struct tmx_error *err)
{
	struct tdat_open_opts topts = { .lenient = o->lenient, .diag = o->diag,
					.skip_texts = !needs_texts(o) };
	struct tcr r;
	int ret = TMX_OK, wret;

	memset(&r, 0, sizeof(r));
	r.o = o;
	trace_seq_init(&r.seq);
	if (!n_paths)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL, "no input trace given");
	r.out = malloc(sizeof(*r.out));
	r.files = calloc(n_paths, sizeof(*r.files));
	r.fg = tfg_new();
	if (!r.out || !r.files || !r.fg) {
		tcr_free(&r);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	outbuf_init(r.out, o->out_fd);
	r.multi = n_paths > 1;
	r.paths = paths;
	if (o->wakeup && r.multi) {
		tcr_free(&r);
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "wakeup latencies (-w) need a single input file");
	}
	if (o->cpus)
		ret = parse_cpu_list(&r, o->cpus, err);
	/* trace-cmd parses -H while reading its options: before any file is opened */
	if (!ret && o->n_hooks)
		ret = parse_hooks(&r, o->hooks, NULL, o->n_hooks, &r.hooks, &r.n_hooks, "-H hook",
				  NULL, err);
	/* Like trace-cmd, every file is read and set up before any output. */
	for (size_t i = 0; i < n_paths && !ret; i++) {
		struct tcr_file *tf = &r.files[i];

		ret = tdat_file_open(paths[i], &topts, &tf->f, err);
		if (ret)
			break;
		r.n_files++;
		if ((ret = file_hooks(&r, tf, err)))
			break;
		tf->base = base_name(paths[i]);
		if (r.multi && strlen(tf->base) > r.max_label)
			r.max_label = strlen(tf->base);
		/* A bad filter stops everything before any output, as in trace-cmd. */
		if ((ret = setup_tep(&r, tf, err)) || o->stat)
			continue;
		if (o->filter_test) {
			/* -T: libtraceevent prints each filter as it parses it; with any, that is all */
			struct filter_setup fs = { &r, tf, err };
			tep_set_test_filters(tf->tep, 1);
			if (!(ret = through_stdout(&r, setup_filters_cb, &fs, err)) && (tf->n_pos || tf->n_neg)) {
				r.filter_test_done = true;
				break;
			}
		} else {
			ret = setup_filters(&r, tf, err);
		}
	}
	if (!ret && !r.filter_test_done)
		ret = report(&r, err);
	/* What was printed before an error stays printed. */
	wret = outbuf_flush(r.out);
	if (!ret && wret)
		ret = tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				    strerror(wret));
	tcr_free(&r);
	return ret;
}
