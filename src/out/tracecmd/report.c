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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "out/outbuf.h"
#include "out/tracecmd/fastfmt.h"
#include "out/tracecmd/report.h"
#include "tracecmd/tracedat.h"

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
};

/* One buffer of one file: trace-cmd's tracecmd_input handle. */
struct tcr_handle {
	struct tcr_file *file;
	size_t buffer;
	const char *label;           /* prefix name, NULL for a lone file's top buffer */
	size_t n_cpus;
	struct tdat_cursor **cur;
	const struct tdat_record *rec;   /* taken from its cursor, not printed yet */
	bool done;
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

/* "%0*d" for a non-negative value. */
static void put_zero_padded(struct outbuf *b, uint64_t v, int width)
{
	char buf[24], *p = fmt_u64(buf, v);
	size_t len = (size_t)(buf + 24 - p);

	for (; (size_t)width > len; width--)
		outbuf_putc(b, '0');
	outbuf_write(b, p, len);
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
		put_zero_padded(b, ts % p10, prec);
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

static bool file_in_usecs(const struct tdat_file *f)
{
	bool found, usecs = true;

	/* The TRACECLOCK option: the whole trace_clock file. */
	if (f->has_traceclock && f->traceclock.len &&
	    !clock_text_in_usecs(f->traceclock.ptr, f->traceclock.len, &found) && found)
		usecs = false;
	/* v6 with TRACECLOCK: the "[clock]" text after "flyrecord" too. */
	if (f->version < 7 && f->has_traceclock && f->n_buffers && f->buffers[0].clock) {
		char tmp[80];
		int n = snprintf(tmp, sizeof(tmp), "[%s]", f->buffers[0].clock);
		if (n > 0 && (size_t)n < sizeof(tmp) &&
		    !clock_text_in_usecs(tmp, (size_t)n, &found) && found)
			usecs = false;
	}
	/* TSC2NSEC converts to nanoseconds: usecs again. */
	if (f->has_tsc2nsec)
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
	for (size_t i = 0; evs[i]; i++)
		if (evs[i]->id >= 0 && evs[i]->id <= max_id)
			tf->plans[evs[i]->id] = tcf_compile(evs[i], tf->swap, tep_get_long_size(tf->tep));
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
	if (!r->o->no_plugins)
		tf->plugins = tep_load_plugins(tep);
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
		tep_parse_event(tep, f->ftrace_formats[i].text.ptr, f->ftrace_formats[i].text.len,
				"ftrace");
	for (size_t i = 0; i < f->n_event_formats; i++)
		tep_parse_event(tep, f->event_formats[i].text.ptr, f->event_formats[i].text.len,
				f->event_formats[i].system);
	if ((ret = parse_text(tep, &f->kallsyms, tep_parse_kallsyms, "kallsyms", f->path, err)) ||
	    (ret = parse_text(tep, &f->printk, tep_parse_printk_formats, "printk formats", f->path,
			      err)) ||
	    (ret = parse_text(tep, &f->cmdlines, tep_parse_saved_cmdlines, "saved cmdlines",
			      f->path, err)))
		return ret;

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
	tf->usecs = file_in_usecs(f);
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
	if (!r->o->raw)
		return compile_plans(tf, err);
	return TMX_OK;
}

static int setup_filters(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	const struct tmx_tcreport_opts *o = r->o;
	struct tep_event *ev;

	if (!o->n_filters)
		return TMX_OK;
	tf->pos = calloc(o->n_filters, sizeof(*tf->pos));
	tf->neg = calloc(o->n_filters, sizeof(*tf->neg));
	if (!tf->pos || !tf->neg)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (size_t i = 0; i < o->n_filters; i++) {
		struct tep_event_filter *flt = tep_filter_alloc(tf->tep);
		enum tep_errno e;
		char msg[200];

		if (!flt)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		if (o->filters[i].negated)
			tf->neg[tf->n_neg++] = flt;
		else
			tf->pos[tf->n_pos++] = flt;
		e = tep_filter_add_filter_str(flt, o->filters[i].expr);
		if (e < 0) {
			if (tep_strerror(tf->tep, e, msg, sizeof(msg)))
				snprintf(msg, sizeof(msg), "error %d", (int)e);
			return tmx_error_set(err, TMX_ERR_USAGE, tf->f->path,
					     "Error filtering: %s: %s", o->filters[i].expr, msg);
		}
	}
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

/* Cursor index of a CPU id in a handle, or -1. */
static long cpu_index(const struct tcr_handle *h, unsigned cpu)
{
	const struct tdat_buffer *b = &h->file->f->buffers[h->buffer];

	for (uint32_t i = 0; i < b->n_cpus && i < h->n_cpus; i++)
		if (b->cpus[i].cpu == cpu)
			return (long)i;
	return -1;
}

/* The handle's next record that passes the filters, into h->rec (NULL at the end). */
static int handle_next(struct tcr *r, struct tcr_handle *h, struct tmx_error *err)
{
	for (;;) {
		const struct tdat_record *best = NULL, *rec;
		size_t best_i = 0, n = r->n_cpu_list ? r->n_cpu_list : h->n_cpus;
		struct tep_record tr;
		int ret;

		for (size_t k = 0; k < n; k++) {
			long i = r->n_cpu_list ? cpu_index(h, r->cpu_list[k]) : (long)k;
			if (i < 0)
				continue;
			if ((ret = tdat_cursor_peek(h->cur[i], &rec, err)))
				return ret;
			if (rec && (!best || rec->ts < best->ts)) {
				best = rec;
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
		h->rec = rec;
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

	put_label(r, h->label);
	if (rec->missed_events) {
		outbuf_write(b, "CPU:", 4);
		p = fmt_u64(buf, rec->cpu);
		outbuf_write(b, p, (size_t)(buf + 24 - p));
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
		p = fmt_u64(buf, rec->cpu);
		outbuf_write(b, p, (size_t)(buf + 24 - p));
		outbuf_puts(b, " [INVALID RECORD: ");
		p = fmt_u64(buf, rec->size);
		outbuf_write(b, p, (size_t)(buf + 24 - p));
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
		put_zero_padded(b, rec->cpu, 3);
		outbuf_putc(b, ']');
	}
	/* " %6.1000d:", " %9.1d:" or "%12d:" */
	if (!tf->usecs) {
		put_time(b, rec->ts, 0, 1);
	} else {
		outbuf_putc(b, ' ');
		if (r->o->nsec)
			put_time(b, rec->ts, 9, 1);
		else
			put_time(b, rec->ts, 6, 1000);
	}
	outbuf_putc(b, ':');
	if (r->o->ts_diff) {
		/* " %-8s" of "(+DIFF)" in the printed unit, empty for the first record */
		uint64_t ts = rec->ts;
		size_t dl = 0;
		outbuf_putc(b, ' ');
		/* trace-cmd: use_trace_clock (a TRACECLOCK option) and no -t: microseconds */
		if (tf->f->has_traceclock && !r->o->nsec)
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
	char buf[24], *p;

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
		p = fmt_u64(buf, id);
		outbuf_write(b, p, (size_t)(buf + 24 - p));
		outbuf_puts(b, " data recorded at offset=0x");
		put_hex(b, off);
		outbuf_puts(b, "\n    ");
		p = fmt_u64(buf, size);
		outbuf_write(b, p, (size_t)(buf + 24 - p));
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
	return TMX_OK;
}

/* trace-cmd's read_data_info(): the header lines, then every record by time. */
static int report(struct tcr *r, struct tmx_error *err)
{
	int ret;

	for (size_t i = 0; i < r->n_files; i++) {
		struct tcr_file *tf = &r->files[i];
		const struct tdat_file *f = tf->f;
		char buf[24], *p;

		if ((ret = add_handle(r, tf, 0, r->multi ? tf->base : NULL, err)))
			return ret;
		put_label(r, r->multi ? tf->base : NULL);
		outbuf_write(r->out, "cpus=", 5);
		p = fmt_i64(buf, tf->cpus);
		outbuf_write(r->out, p, (size_t)(buf + 24 - p));
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
		if (r->o->stat) {
			print_stats(r, tf);
			continue;
		}
		r->instances = f->n_buffers ? f->n_buffers - 1 : 0;
		for (size_t k = 1; k < f->n_buffers; k++)
			if ((ret = add_handle(r, tf, k, f->buffers[k].name, err)))
				return ret;
	}
	if (r->o->stat)
		return TMX_OK;

	for (;;) {
		struct tcr_handle *best = NULL;

		for (size_t i = 0; i < r->n_handles; i++) {
			struct tcr_handle *h = &r->handles[i];
			if (!h->rec && !h->done && (ret = handle_next(r, h, err)))
				return ret;
			if (h->rec && (!best || h->rec->ts < best->rec->ts))
				best = h;
		}
		if (!best)
			return TMX_OK;
		emit(r, best, best->rec);
		best->rec = NULL;
	}
}

static void tcr_free(struct tcr *r)
{
	for (size_t i = 0; i < r->n_handles; i++) {
		struct tcr_handle *h = &r->handles[i];
		for (size_t k = 0; k < h->n_cpus; k++)
			tdat_cursor_close(h->cur[k]);
		free(h->cur);
	}
	free(r->handles);
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
	free(r->pad);
	trace_seq_destroy(&r->seq);
	free(r->out);
}

int tmx_tcreport_run(const char *const *paths, size_t n_paths, const struct tmx_tcreport_opts *o,
		     struct tmx_error *err)
{
	struct tdat_open_opts topts = { .lenient = o->lenient, .diag = o->diag };
	struct tcr r;
	int ret = TMX_OK, wret;

	memset(&r, 0, sizeof(r));
	r.o = o;
	trace_seq_init(&r.seq);
	if (!n_paths)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL, "no input trace given");
	r.out = malloc(sizeof(*r.out));
	r.files = calloc(n_paths, sizeof(*r.files));
	if (!r.out || !r.files) {
		tcr_free(&r);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	outbuf_init(r.out, o->out_fd);
	r.multi = n_paths > 1;
	if (o->cpus)
		ret = parse_cpu_list(&r, o->cpus, err);
	/* Like trace-cmd, every file is read and set up before any output. */
	for (size_t i = 0; i < n_paths && !ret; i++) {
		struct tcr_file *tf = &r.files[i];

		ret = tdat_file_open(paths[i], &topts, &tf->f, err);
		if (ret)
			break;
		r.n_files++;
		tf->base = base_name(paths[i]);
		if (r.multi && strlen(tf->base) > r.max_label)
			r.max_label = strlen(tf->base);
		/* A bad filter stops everything before any output, as in trace-cmd. */
		if (!(ret = setup_tep(&r, tf, err)) && !o->stat)
			ret = setup_filters(&r, tf, err);
	}
	if (!ret)
		ret = report(&r, err);
	/* What was printed before an error stays printed. */
	wret = outbuf_flush(r.out);
	if (!ret && wret)
		ret = tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				    strerror(wret));
	tcr_free(&r);
	return ret;
}
