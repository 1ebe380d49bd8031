/*
 * `trace-cmd report -w` (report_impl.h), trace-cmd's process_wakeup(): the
 * latency from a task's sched_wakeup (or sched_wakeup_new) to the
 * sched_switch to it, appended to that switch's line, and the average,
 * maximum and minimum at the end (all tasks, then RT tasks).
 */
#include <stdlib.h>

#include "tools/tracecmd/report_impl.h"

/* libtracecmd's init_wakeup(): without these events and fields, -w prints nothing. */
void tcr_init_wakeup(struct tcr_file *tf)
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
void tcr_process_wakeup(struct tcr *r, struct tcr_file *tf, const struct tdat_record *rec)
{
	unsigned long long val;
	struct tep_record tr;
	struct tep_event *ev;
	uint64_t ts = rec_time(tf, rec), start;
	int id;

	if (!tf->wakeup || !tcr_prepare(r, tf, rec, &tr, &ev))
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

void tcr_finish_wakeup(struct tcr *r)
{
	if (!r->lat.count)
		return;
	put_timings(r->out, &r->lat);
	if (r->rt_lat.count) {
		outbuf_puts(r->out, "RT task timings:\n");
		put_timings(r->out, &r->rt_lat);
	}
}

void tcr_free_wakeup(struct tcr *r)
{
	free(r->wakeups.pid);
	free(r->wakeups.start);
	free(r->wakeups.used);
}
