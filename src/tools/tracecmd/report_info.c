/*
 * What `trace-cmd report` prints instead of the events (report_impl.h), in
 * trace-cmd's order of precedence: -p, -e, --events / --event,
 * --check-events, -f, -P, -E (the first file), --cpus with --first-event
 * and --last-event (every file); and --uname / --version, which the
 * report prints per file after its `cpus=` line.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "tools/tracecmd/report_impl.h"

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

/* --uname (the uname, then the version) or --version, per file after its `cpus=` line. */
void tcr_print_uname(struct tcr *r, const struct tdat_file *f)
{
	if (!r->o->version)
		put_option_text(r->out, &f->uname, " uname was not recorded in this file\n");
	put_option_text(r->out, &f->version_text, " version was not recorded in this file\n");
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
size_t tcr_cpus_by_id(const struct tcr_file *tf, const struct tdat_cpu_data ***out)
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
	size_t n = tcr_cpus_by_id(tf, &cpus);

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
		outbuf_i64(r->out, cd->cpu);
		if (r->o->first_event) {
			outbuf_puts(r->out, "\tFirst event:");
			tcr_put_ts(r, r->out, tf, time_of(tf, first, tdat_convert_ts_cpu(f, first, cd->cpu)));
		}
		if (r->o->last_event) {
			outbuf_puts(r->out, "\tLast event:");
			tcr_put_ts(r, r->out, tf, time_of(tf, last, tdat_convert_ts_cpu(f, last, cd->cpu)));
		}
		outbuf_putc(r->out, '\n');
	}
	free(cpus);
	return TMX_OK;
}

/*
 * -f and -P: libtraceevent's own listings (tep_print_funcs(), tep_print_printk()),
 * which printf() to stdout; stdout is pointed at the output for the call.
 */
int tcr_through_stdout(struct tcr *r, int (*fn)(void *), void *arg, struct tmx_error *err)
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
int tcr_info_mode(struct tcr *r, bool *done, struct tmx_error *err)
{
	const struct tmx_tcreport_opts *o = r->o;
	struct tcr_file *tf = &r->files[0];
	int ret;

	*done = true;
	/* These look at the first file only, in this order (trace-cmd's trace_report()). */
	if (o->page_size) {
		outbuf_puts(r->out, "file page size is ");
		outbuf_i64(r->out, tf->f->page_size);
		outbuf_puts(r->out, ", and host page size is ");
		outbuf_i64(r->out, sysconf(_SC_PAGESIZE));
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
		return tcr_through_stdout(r, print_funcs_cb, tf->tep, err);
	if (o->printk_list)
		return tcr_through_stdout(r, print_printk_cb, tf->tep, err);
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
