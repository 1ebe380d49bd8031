/*
 * `trace-cmd report` for trace.dat files: see report.h; the parts are
 * listed in report_impl.h.
 *
 * Who decides what, so that the text is trace-cmd's:
 *   - libtraceevent renders the event text (TEP_PRINT_INFO, or
 *     TEP_PRINT_INFO_RAW for -R) with the plugins it loads from its
 *     plugin directories, exactly as trace-cmd (which links the same
 *     library) does, set up in trace-cmd's order (report_tep.c).
 *   - this file writes what trace-cmd's trace-read.c writes around it:
 *     "%16s-%-5d [%03d]" for comm, pid and CPU, the time as
 *     libtraceevent's print_event_time() formats " %6.1000d:" (usecs),
 *     " %9.1d:" (-t) or "%12d:" (raw counter clocks), then " NAME: "
 *     padded to 20 columns.  These are plain integer and string columns,
 *     written with the output buffer's number formatting instead of four
 *     tep_print_event() calls per record.
 *   - the order of records is libtracecmd's (report_order.c).
 *   - -F / -v: libtraceevent filters matched as libtracecmd's
 *     tracecmd_filter_match() does (report_filter.c), on the first file
 *     only, as trace-cmd 3.1.6.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "sink/tracecmd/columns.h"
#include "tools/tracecmd/fastfmt.h"
#include "tools/tracecmd/guest.h"
#include "tools/tracecmd/profile.h"
#include "tools/tracecmd/report_impl.h"

/*
 * -O: trace-cmd hands each "[plugin:]option[=value]" to libtraceevent, which
 * keeps it for the plugins it loads later (tep_load_plugins, per file).
 */
static int add_plugin_options(const struct tmx_tcreport_opts *o, struct tmx_error *err)
{
	for (size_t i = 0; i < o->n_plugin_options; i++) {
		const char *opt = o->plugin_options[i], *eq = strchr(opt, '=');
		char *name = strndup(opt, eq ? (size_t)(eq - opt) : strlen(opt));
		int ret = name ? tep_plugin_add_option(name, eq ? eq + 1 : NULL) : -1;

		free(name);
		if (ret)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	return TMX_OK;
}

void tmx_tcreport_opts_default(struct tmx_tcreport_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->out_fd = 1;
	o->report_version = TMX_TCREPORT_V33;
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

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* trace-cmd's max_file_size: the widest prefix of the handles added so far. */
static void note_label(struct tcr *r, const char *label)
{
	if (label && strlen(label) > r->max_label)
		r->max_label = strlen(label);
}

/* trace-cmd's print_handle_file(). */
static void put_label(const struct tcr *r, struct outbuf *b, const char *label)
{
	if (!r->multi && !r->instances)
		return;
	if (label) {
		put_right(b, label, r->max_label);
		outbuf_write(b, ": ", 2);
	} else {
		outbuf_spaces(b, r->max_label + 2);
	}
}

/*
 * The parts of one line (trace-cmd's trace_show_data()) that depend on the
 * record alone: report_par.c has worker threads write them ahead, emit()
 * adds what depends on the records printed before (the comm, which the
 * sched plugins register as they print; --ts-diff; text from libtraceevent).
 */

/*
 * The label, the DROPPED line, and for a record shorter than its common
 * fields the whole line: returns false then.
 */
bool tcr_put_head(const struct tcr *r, struct outbuf *b, const struct tcr_file *tf,
		  const char *label, const struct tdat_record *rec)
{
	put_label(r, b, label);
	if (rec->missed_events) {
		outbuf_write(b, "CPU:", 4);
		outbuf_u64(b, rec->cpu, 0);
		if (rec->missed_events > 0) {
			outbuf_write(b, " [", 2);
			outbuf_i64(b, rec->missed_events);
			outbuf_puts(b, " EVENTS DROPPED]\n");
		} else {
			outbuf_puts(b, " [EVENTS DROPPED]\n");
		}
	}
	if (!common_inside(tf, rec)) {
		outbuf_puts(b, "CPU:");
		outbuf_u64(b, rec->cpu, 0);
		outbuf_puts(b, " [INVALID RECORD: ");
		outbuf_u64(b, rec->size, 0);
		outbuf_puts(b, " bytes, shorter than the common fields]\n");
		return false;
	}
	return true;
}

/* "-%-5d [%03d]" after the comm (not with -l). */
void tcr_put_pid_cpu(struct outbuf *b, int pid, uint32_t cpu)
{
	outbuf_commit(b, tmx_tc_put_pid_cpu(outbuf_reserve(b, 64), pid, cpu));
}

/* " %6.1000d:", " %9.1d:" or "%12d:" */
void tcr_put_time_col(const struct tcr *r, struct outbuf *b, const struct tcr_file *tf,
		      uint64_t ts)
{
	if (tf->usecs)
		outbuf_putc(b, ' ');
	tcr_put_ts(r, b, tf, ts);
	outbuf_putc(b, ':');
}

static const char *name_of(const struct tep_event *ev)
{
	return ev && ev->name ? ev->name : "";
}

/* " %s: " with the name padded to 20 columns at p (room for its length + 23); returns the end. */
static char *put_name_col(char *p, const struct tep_event *ev)
{
	const char *name = name_of(ev);
	size_t n = strlen(name);

	*p++ = ' ';
	memcpy(p, name, n);
	p += n;
	memcpy(p, ": ", 2);
	p += 2;
	if (n < 20) {
		memset(p, ' ', 20 - n);
		p += 20 - n;
	}
	return p;
}

char *tcr_name_col(const struct tep_event *ev, uint32_t *len)
{
	/* 32 bytes to spare: tcr_put_name_text() copies short columns 32 bytes at a time */
	size_t room = strlen(name_of(ev)) + 23 + 32;
	char *col = malloc(room);

	if (col) {
		memset(col, ' ', room);
		*len = (uint32_t)(put_name_col(col, ev) - col);
	}
	return col;
}

/*
 * The name column, then the event text when a compiled print fmt renders
 * it: true; false when libtraceevent has to print the text.
 */
bool tcr_put_name_text(struct outbuf *b, const struct tcr_file *tf, const struct tep_event *ev,
		       const struct tdat_record *rec)
{
	bool known = ev && ev->id >= 0 && (size_t)ev->id < tf->n_ev_by_id && tf->col_by_id &&
		     tf->col_by_id[ev->id];
	size_t len = known ? tf->col_len_by_id[ev->id] : strlen(name_of(ev)) + 23;
	char *p;
	uint32_t l32;
	int n;

	if (len + 32 + TCR_TEXT_MAX > OUTBUF_SIZE) {
		/* a name of hundreds of KiB (a damaged format): libtraceevent prints the text */
		if ((p = tcr_name_col(ev, &l32)))
			outbuf_write(b, p, l32);
		free(p);
		return false;
	}
	p = outbuf_reserve(b, len + 32 + TCR_TEXT_MAX);
	if (known && len <= 32)
		memcpy(p, tf->col_by_id[ev->id], 32);
	else if (known)
		memcpy(p, tf->col_by_id[ev->id], len);
	else
		len = (size_t)(put_name_col(p, ev) - p);
	p += len;
	/* trace-cmd drops one newline at the end of the line. */
	if (ev && ev->id >= 0 && ev->id < tf->n_plans && tf->plans[ev->id] &&
	    (n = tcf_render(tf->plans[ev->id], rec->data, rec->size, p, TCR_TEXT_MAX)) >= 0) {
		if (n && p[n - 1] == '\n')
			n--;
		outbuf_commit(b, p + n);
		return true;
	}
	outbuf_commit(b, p);
	return false;
}

/* The comm and pid columns of -l: "%8.8s-%-5d %3d", then libtraceevent's latency flags. */
static void put_latency(struct tcr *r, struct tcr_file *tf, const char *comm, int pid,
			struct tep_record *tr)
{
	struct outbuf *b = r->out;
	char buf[24], *end;
	size_t cl = strnlen(comm, 8);

	outbuf_spaces(b, 8 - cl);
	outbuf_write(b, comm, cl);
	outbuf_putc(b, '-');
	end = tmx_put_i64(buf, pid);
	put_num(b, buf, end, 5, true);
	outbuf_putc(b, ' ');
	end = tmx_put_u64(buf, (uint64_t)tr->cpu);
	put_num(b, buf, end, 3, false);
	if (r->o->raw) {   /* -R: "-0x%x" of them */
		outbuf_write(b, "-0x", 3);
		put_hex(b, (uint32_t)tep_data_flags(tf->tep, tr));
	} else {
		r->comm_gen++;
		trace_seq_reset(&r->seq);
		tep_print_event(tf->tep, &r->seq, tr, "%s", TEP_PRINT_LATENCY);
		outbuf_write(b, r->seq.buffer, r->seq.len);
	}
}

/* tep_data_comm_from_pid(), remembered until the next libtraceevent print. */
static const struct tcr_comm *comm_of(struct tcr *r, const struct tcr_file *tf, int pid)
{
	struct tcr_comm *c = &r->comms[(unsigned)pid % 256];

	if (c->gen != r->comm_gen || c->pid != pid || r->multi) {
		c->pid = pid;
		c->gen = r->comm_gen;
		c->comm = tep_data_comm_from_pid(tf->tep, pid);
		if (!c->comm)
			c->comm = "<...>";
		c->len = strlen(c->comm);
		if (c->len <= 16) {
			memset(c->col, ' ', 16 - c->len);
			memcpy(c->col + 16 - c->len, c->comm, c->len);
		}
	}
	return c;
}

/* "%16s" of the comm */
static void put_comm(struct outbuf *b, const struct tcr_comm *c)
{
	char *p;

	if (c->len > 16) {
		outbuf_write(b, c->comm, c->len);
		return;
	}
	p = outbuf_reserve(b, 16);
	memcpy(p, c->col, 16);
	outbuf_commit(b, p + 16);
}

/* --ts-diff: " %-8s" of "(+DIFF)" in the printed unit, empty for the first record. */
static void put_ts_diff(struct tcr *r, const struct tcr_file *tf, uint64_t ts)
{
	struct outbuf *b = r->out;
	char buf[24], *end;
	size_t dl = 0;

	outbuf_putc(b, ' ');
	/* trace-cmd: use_trace_clock (a TRACECLOCK option, no --ts2secs) and no -t: usecs */
	if (tf->use_trace_clock && !r->o->nsec)
		ts = (ts + 500) / 1000;
	if (r->last_ts) {
		end = tmx_put_i64(buf, (int64_t)(ts - r->last_ts));
		dl = (size_t)(end - buf) + 3;
		outbuf_write(b, "(+", 2);
		outbuf_write(b, buf, dl - 3);
		outbuf_putc(b, ')');
	}
	if (dl < 8)
		outbuf_spaces(b, 8 - dl);
	r->last_ts = ts;
}

/* The event text from libtraceevent, one newline at the end dropped. */
static void put_tep_text(struct tcr *r, struct tcr_file *tf, const struct tdat_record *rec)
{
	struct tep_record tr;
	struct tep_event *ev;
	unsigned len;

	if (!tcr_prepare(r, tf, rec, &tr, &ev)) {
		outbuf_puts(r->out, "[INVALID RECORD: a field lies outside the record]");
		return;
	}
	r->comm_gen++;
	trace_seq_reset(&r->seq);
	tep_print_event(tf->tep, &r->seq, &tr, "%s", r->o->raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	len = r->seq.len;
	if (len && r->seq.buffer[len - 1] == '\n')
		len--;
	outbuf_write(r->out, r->seq.buffer, len);
}

/*
 * One line: trace-cmd's trace_show_data().  With workers the parts that
 * depend on the record alone come written (`ahead`, else NULL).
 */
static void emit(struct tcr *r, struct tcr_handle *h, const struct tdat_record *rec,
		 const struct tcr_parts *ahead)
{
	struct tcr_file *tf = h->file;
	struct outbuf *b = r->out;
	const struct tcr_comm *comm;
	int pid;
	uint64_t ts = rec_time(tf, rec);
	/* trace-cmd 3.3 prints the flags after [CPU] (-l has its own, in put_latency()) */
	bool flags_col = r->o->report_version == TMX_TCREPORT_V33 && !r->o->latency;
	bool rendered;

	if (ahead)
		outbuf_write(b, ahead->base + ahead->at[TCR_HEAD],
			     ahead->at[TCR_PID_CPU] - ahead->at[TCR_HEAD]);
	if (ahead ? ahead->whole : !tcr_put_head(r, b, tf, h->label, rec))
		return;
	pid = ahead ? ahead->pid : tcr_pid(tf, rec);
	comm = comm_of(r, tf, pid);
	if (r->o->latency) {
		struct tep_record tr;

		to_tep_record(rec, &tr);
		put_latency(r, tf, comm->comm, pid, &tr);
	} else {
		put_comm(b, comm);   /* "%16s-%-5d [%03d]" */
	}
	if (ahead) {
		/*
		 * pid, CPU, time, name and text are one run of bytes, written
		 * in one go but for what depends on the main thread
		 */
		const char *base = ahead->base, *end = base + ahead->at[TCR_END];
		const char *from = base + ahead->at[TCR_PID_CPU];

		if (flags_col) {
			/* (pid and CPU are followed by the time and text: read past them) */
			outbuf_write_within(b, from, ahead->at[TCR_TIME] - ahead->at[TCR_PID_CPU],
					    (size_t)(end - from));
			tcr_v33_put_flags(r, tf, rec);
			from = base + ahead->at[TCR_TIME];
		}
		if (r->o->ts_diff) {
			outbuf_write(b, from, (size_t)(base + ahead->at[TCR_TEXT] - from));
			put_ts_diff(r, tf, ts);
			from = base + ahead->at[TCR_TEXT];
		}
		outbuf_write(b, from, (size_t)(end - from));
		rendered = ahead->rendered;
	} else {
		if (!r->o->latency)
			tcr_put_pid_cpu(b, pid, rec->cpu);
		if (flags_col)
			tcr_v33_put_flags(r, tf, rec);
		tcr_put_time_col(r, b, tf, ts);
		if (r->o->ts_diff)
			put_ts_diff(r, tf, ts);
		rendered = tcr_put_name_text(b, tf, tcr_event_of(tf, rec), rec);
	}
	if (!rendered)
		put_tep_text(r, tf, rec);
	if (r->o->wakeup)
		tcr_process_wakeup(r, tf, rec);
	outbuf_putc(b, '\n');
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
	if (!tf->profile || !tcr_prepare(r, tf, rec, &tr, &ev))
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

	if ((ret = tcr_info_mode(r, &done, err)) || done)
		return ret;
	if (o->align_ts && !stat && !o->uname && !o->version && (ret = tcr_align_times(r, err)))
		return ret;
	for (size_t i = 0; i < r->n_files; i++) {
		struct tcr_file *tf = &r->files[i];
		const struct tdat_file *f = tf->f;

		if ((ret = tcr_add_handle(r, tf, 0, r->multi ? tf->base : NULL, err)))
			return ret;
		put_label(r, r->out, r->multi ? tf->base : NULL);
		outbuf_write(r->out, "cpus=", 5);
		outbuf_i64(r->out, tf->cpus);
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
			tcr_print_uname(r, f);
			continue;
		}
		if (stat) {
			tcr_print_stats(r, tf);
			continue;
		}
		if (o->wakeup)
			tcr_init_wakeup(tf);
		if (o->profile && (ret = start_profile(r, tf, err)))
			return ret;
		if (tf->profile)
			tcp_profile_set_by_comm(tf->profile, o->profile_by_comm);
		r->instances = f->n_buffers ? f->n_buffers - 1 : 0;
		for (size_t k = 1; k < f->n_buffers; k++)
			note_label(r, f->buffers[k].name);
	}
	if (stat || o->uname || o->version)
		return TMX_OK;
	/* trace-cmd appends the instances to its handle list: after every file's top buffer */
	for (size_t i = 0; i < r->n_files; i++)
		for (size_t k = 1; k < r->files[i].f->n_buffers; k++)
			if ((ret = tcr_add_handle(r, &r->files[i], k, r->files[i].f->buffers[k].name, err)))
				return ret;
	/* trace-cmd's map_vcpus(): guest symbols in the host's kvm events (guest.h) */
	for (size_t i = 0; i < r->n_files && !ret; i++)
		ret = tcg_add_file(&r->guests, r->files[i].f, r->files[i].tep, err);
	if (ret || (ret = tcg_start(r->guests, o->diag, err)))
		return ret;
	if (!o->profile && (ret = tcr_par_start(r, o->jobs, err)))
		return ret;
	if ((ret = tcr_progress_start(r, err)))
		return ret;

	for (;;) {
		struct tcr_handle *best;

		if ((ret = tcr_next_handle(r, &best, err)))
			return ret;
		if (!best)
			break;
		if (r->progress)
			tcr_progress_record(r, best);
		if (o->ts_check)
			tcr_check_ts(r, best);
		if (o->profile) {
			/* trace-cmd's show_data_func: the record goes to the profile, not the output */
			put_label(r, r->out, best->label);
			if ((ret = profile_record(r, best, best->rec, err)))
				return ret;
		} else {
			const struct tcr_parts *parts = r->par ? tcr_par_parts(best->rec) : NULL;

			/* a funcgraph entry may take the next record of its handle (funcgraph.h) */
			best->rec = tfg_before_print(r->fg, &best->fg, best->rec_cursor, best->rec);
			emit(r, best, best->rec, parts);
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
		tcr_finish_wakeup(r);
	return TMX_OK;
}

static void tcr_free(struct tcr *r)
{
	tcr_par_stop(r);
	for (size_t i = 0; i < r->n_handles; i++) {
		struct tcr_handle *h = &r->handles[i];
		for (size_t k = 0; k < h->n_cpus; k++)
			tdat_cursor_close(h->cur[k]);
		free(h->cur);
		free(h->heads);
		free(h->listed);
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
		tcr_v33_free(tf);
		for (size_t k = 0; k < tf->n_hooks; k++)
			tcp_hook_free(&tf->hooks[k]);
		free(tf->hooks);
		free(tf->plans);
		free(tf->ev_by_id);
		free(tf->need_by_id);
		for (size_t k = 0; tf->col_by_id && k < tf->n_ev_by_id; k++)
			free(tf->col_by_id[k]);
		free(tf->col_by_id);
		free(tf->col_len_by_id);
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
	tcr_free_wakeup(r);
	free(r->pad);
	tfg_free(r->fg);
	trace_seq_destroy(&r->seq);
	free(r->out);
}

int tmx_tcreport_run(const char *const *paths, size_t n_paths, const struct tmx_tcreport_opts *o,
		     struct tmx_tcreport_skipped *skipped, struct tmx_error *err)
{
	struct tdat_open_opts topts = { .lenient = o->lenient, .diag = o->diag,
					.skip_texts = !tcr_needs_texts(o) };
	struct tcr r;
	int ret = TMX_OK, wret;

	if (skipped)
		*skipped = (struct tmx_tcreport_skipped){ 0, 0 };
	if (!n_paths)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL, "no input trace given");
	memset(&r, 0, sizeof(r));
	r.o = o;
	r.comm_gen = 1;
	trace_seq_init(&r.seq);
	r.out = malloc(sizeof(*r.out));
	r.files = calloc(n_paths, sizeof(*r.files));
	r.fg = tfg_new();
	if (!r.out || !r.files || !r.fg) {
		tcr_free(&r);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	outbuf_init(r.out, o->out_fd);
	tfg_set_options(r.fg, o->plugin_options, o->n_plugin_options);
	ret = add_plugin_options(o, err);
	r.multi = n_paths > 1;
	r.paths = paths;
	if (o->wakeup && r.multi) {
		tcr_free(&r);
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "wakeup latencies (-w) need a single input file");
	}
	if (o->cpus)
		ret = tcr_parse_cpu_list(&r, o->cpus, err);
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
		if (r.multi)
			note_label(&r, tf->base);
		ret = tcr_setup_tep(&r, tf, err);
	}
	/*
	 * The filters (-F, -v, --pid, --comm) go to the first file only: trace-cmd
	 * 3.1.6 uses its filter list up on the first handle, and prints the other
	 * files unfiltered.  A bad filter stops everything before any output.
	 */
	if (!ret && !o->stat && o->filter_test) {
		/* -T: the filters as libtraceevent parsed them; with any, that is all */
		ret = tcr_test_filters(&r, &r.files[0], err);
		r.filter_test_done = r.files[0].n_pos || r.files[0].n_neg;
	} else if (!ret && !o->stat) {
		ret = tcr_setup_filters(&r, &r.files[0], err);
	}
	if (!ret && !r.filter_test_done)
		ret = report(&r, err);
	tcr_progress_end(&r, !ret);
	/* What was printed before an error stays printed. */
	wret = outbuf_flush(r.out);
	if (!ret && wret)
		ret = tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				    strerror(wret));
	for (size_t i = 0; skipped && i < r.n_files; i++) {
		uint64_t units, bytes;
		tdat_file_skipped(r.files[i].f, &units, &bytes);
		skipped->units += units;
		skipped->bytes += bytes;
	}
	tcr_free(&r);
	return ret;
}
