/*
 * What trace-cmd filters and flags (report_impl.h): -F / -v as one
 * libtraceevent filter per expression, matched as libtracecmd's
 * tracecmd_filter_match() does; --pid / --comm as trace-cmd's pid filter;
 * -T; and the -r / -n regexes that set libtraceevent event flags.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/grow.h"
#include "tools/tracecmd/report_impl.h"

/*
 * -r / -n: trace-cmd's set_event_flags(), each regex matched whole
 * ("^REGEX$", any case) against every event's name and system.
 */
int tcr_set_event_flags(struct tcr_file *tf, const char *const *list, size_t n, int flag,
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

/* Appends "||" (unless first) and trace-cmd's pid filter term for one pid (as text). */
static bool pid_term(char **s, size_t *len, size_t *cap, const char *pid)
{
	char term[256];
	int n = snprintf(term, sizeof(term), "%s(common_pid==%s)||(pid==%s)||(next_pid==%s)",
			 *len ? "||" : ".*:", pid, pid, pid);

	if (n < 0 || (size_t)n >= sizeof(term))
		return false;
	if (!tmx_grow_array((void **)s, cap, *len + (size_t)n + 1, 1, 256))
		return false;
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
	if (!tmx_grow_array((void **)&q->v, &q->cap, q->n + 1, sizeof(*q->v), 16))
		return false;
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

int tcr_setup_filters(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
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

	return tcr_setup_filters(fs->r, fs->tf, fs->err);
}

/* -T: libtraceevent prints each filter as it parses it (to stdout: pointed at the output). */
int tcr_test_filters(struct tcr *r, struct tcr_file *tf, struct tmx_error *err)
{
	struct filter_setup fs = { r, tf, err };

	tep_set_test_filters(tf->tep, 1);
	return tcr_through_stdout(r, setup_filters_cb, &fs, err);
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
bool tcr_filter_pass(struct tcr_file *tf, struct tep_record *tr)
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
