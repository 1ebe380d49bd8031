/*
 * libtraceevent set up for one file as trace-cmd sets it up (report_impl.h),
 * in trace-cmd's order: plugins (they attach to events as they are
 * parsed), --kallsyms, byte orders, long size, header page, ftrace and
 * event formats, kallsyms, printk formats, saved cmdlines; then what the
 * report derives from it (libtracecmd's max_cpu and usecs flag, the
 * timestamp options, -r / -n flags, compiled print fmts).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/grow.h"
#include "tools/tracecmd/fastfmt.h"
#include "tools/tracecmd/kallsyms.h"
#include "tools/tracecmd/report_impl.h"

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
 * tep_find_event() of every id up to the largest (ids_all when that covers
 * every format: at most 65536 ids), and libtraceevent's common field
 * offsets (found at its first tep_data_type(), tep_data_pid()...) found now:
 * worker threads read records with them (report_par.c), which must not be
 * what writes them.
 */
/*
 * Where libtraceevent reads common_type and common_pid: the fields of its
 * first event by id (get_common_info()), used only if they give what it
 * gives on records of distinct bytes (tf->common_fast, report_impl.h).
 */
static void find_common(struct tcr_file *tf, struct tep_event *first)
{
	const struct tep_format_field *type = tep_find_common_field(first, "common_type");
	const struct tep_format_field *pid = tep_find_common_field(first, "common_pid");
	uint8_t probe[64];

	if (!type || !pid || type->offset < 0 || pid->offset < 0 ||
	    (uint64_t)type->offset + type->size > tf->common_end ||
	    (uint64_t)pid->offset + pid->size > tf->common_end)
		return;
	tf->type_off = (uint32_t)type->offset;
	tf->type_size = (uint32_t)type->size;
	tf->pid_off = (uint32_t)pid->offset;
	tf->pid_size = (uint32_t)pid->size;
	tf->common_fast = true;
	for (int k = 0; k < 3 && tf->common_fast; k++) {
		struct tdat_record rec = { .data = probe, .size = sizeof(probe) };
		struct tep_record tr;

		for (size_t i = 0; i < sizeof(probe); i++)
			probe[i] = (uint8_t)(i * 37 + k * 101 + 1);
		to_tep_record(&rec, &tr);
		tf->common_fast = tcr_type(tf, &rec) == tep_data_type(tf->tep, &tr) &&
				  tcr_pid(tf, &rec) == tep_data_pid(tf->tep, &tr);
	}
}

static int index_events(struct tcr_file *tf, struct tmx_error *err)
{
	struct tep_event **evs = tep_list_events(tf->tep, TEP_EVENT_SORT_ID);
	int max_id = -1;
	bool all = true;
	uint8_t zeros[64] = { 0 };
	struct tep_record tr = { .data = zeros, .size = sizeof(zeros) };

	for (size_t i = 0; evs && evs[i]; i++) {
		if (evs[i]->id < 0 || evs[i]->id >= 65536)
			all = false;
		else if (evs[i]->id > max_id)
			max_id = evs[i]->id;
	}
	if (max_id < 0)   /* no events: libtraceevent warns at every lookup, leave it so */
		return TMX_OK;
	if (!(tf->ev_by_id = calloc((size_t)max_id + 1, sizeof(*tf->ev_by_id))) ||
	    !(tf->need_by_id = calloc((size_t)max_id + 1, sizeof(*tf->need_by_id))) ||
	    !(tf->col_by_id = calloc((size_t)max_id + 1, sizeof(*tf->col_by_id))) ||
	    !(tf->col_len_by_id = calloc((size_t)max_id + 1, sizeof(*tf->col_len_by_id))))
		return tmx_error_set(err, TMX_ERR_NOMEM, tf->f->path, "out of memory");
	tf->n_ev_by_id = (size_t)max_id + 1;
	for (size_t i = 0; evs[i]; i++) {
		int id = evs[i]->id;
		if (id >= 0 && id <= max_id && !tf->ev_by_id[id]) {
			tf->ev_by_id[id] = tep_find_event(tf->tep, id);
			tf->need_by_id[id] = tcr_fixed_need(tf->ev_by_id[id]);
			/* (without memory, the column is made at each use) */
			tf->col_by_id[id] = tcr_name_col(tf->ev_by_id[id], &tf->col_len_by_id[id]);
		}
	}
	tf->ids_all = all;
	/*
	 * libtraceevent takes the offsets from its first event by id and looks
	 * again at every call while the size it found is 0: then not primed.
	 */
	for (size_t i = 0; i < 3 && all; i++) {
		static const char *const names[] = { "common_type", "common_pid", "common_flags" };
		const struct tep_format_field *fl = tep_find_common_field(evs[0], names[i]);
		all = !fl || fl->size > 0;
	}
	if (all && tf->common_end <= sizeof(zeros)) {
		tep_data_type(tf->tep, &tr);
		tep_data_pid(tf->tep, &tr);
		tep_data_flags(tf->tep, &tr);
		tf->primed = true;
		find_common(tf, evs[0]);
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
bool tcr_needs_texts(const struct tmx_tcreport_opts *o)
{
	return prints_events(o) || o->funcs || o->printk_list;
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
		/* room for 64 KiB more and the NUL */
		if (len > (1u << 30)) {
			fclose(fp);
			free(buf);
			return tmx_error_set(err, TMX_ERR_LIMIT, path, "--kallsyms file larger than 1 GiB");
		}
		if (!tmx_grow_array((void **)&buf, &cap, len + 65536 + 1, 1, 65536)) {
			fclose(fp);
			free(buf);
			return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
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
	tcr_parse_kallsyms(tep, buf);
	free(buf);
	return TMX_OK;
}

int tcr_setup_tep(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
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
	if (r->o->kallsyms && tcr_needs_texts(r->o) && (ret = extra_kallsyms(r, tep, err)))
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
	if (tcr_needs_texts(r->o) &&
	    ((ret = parse_text(tep, &f->kallsyms, tcr_parse_kallsyms, "kallsyms", f->path, err)) ||
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
	if ((ret = tcr_setup_times(r, tf, err)))
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
	    ((ret = tcr_set_event_flags(tf, r->o->no_handler, r->o->n_no_handler,
					TEP_EVENT_FL_NOHANDLE, "-n", err)) ||
	     (ret = tcr_set_event_flags(tf, r->o->raw_events, r->o->n_raw_events,
					TEP_EVENT_FL_PRINTRAW, "-r", err))))
		return ret;
	/* --report-version=3.3: sched_switch's handler replaced before the plans are compiled */
	if (prints_events(r->o) && (ret = tcr_v33_setup(r, tf, err)))
		return ret;
	if ((ret = index_events(tf, err)))
		return ret;
	/* (after the flags: events printed raw or without their handler are not compiled) */
	if (!r->o->raw && prints_events(r->o))
		return compile_plans(tf, err);
	return TMX_OK;
}
