/*
 * `trace-cmd report --profile`: the text (do_trace_profile()), and tasks
 * merged into groups by comm (--by-comm).  See profile_impl.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/tracecmd/profile_impl.h"

static int cmp_tasks(const void *a, const void *b)
{
	const struct pt_task *x = *(const struct pt_task *const *)a, *y = *(const struct pt_task *const *)b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * trace-profile.c's compare_events(): sched_switch first (by state), then
 * the wakeups, then by event id and the longest total first.  Equal
 * entries (left in hash order there) by value, then search value.
 */
static int cmp_events(const void *a, const void *b)
{
	const struct pt_event *x = *(const struct pt_event *const *)a;
	const struct pt_event *y = *(const struct pt_event *const *)b;
	int tx = x->ed->type, ty = y->ed->type;

	if (tx == T_SWITCH || ty == T_SWITCH) {
		if (tx != ty)
			return tx == T_SWITCH ? -1 : 1;
	} else if (tx == T_WAKEUP || ty == T_WAKEUP) {
		if (tx != ty)
			return tx == T_WAKEUP ? -1 : 1;
	} else {
		if (x->ed->event->id != y->ed->event->id)
			return x->ed->event->id < y->ed->event->id ? -1 : 1;
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
	}
	if (x->val != y->val)
		return x->val < y->val ? -1 : 1;
	return x->search_val < y->search_val ? -1 : x->search_val > y->search_val;
}

static const char *const softirqs[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "BLOCK_IOPOLL",
					"TASKLET", "SCHED", "HRTIMER", "RCU" };

/* The entry's name: print_func, func_print or "%s:0x%llx". */
static void event_name(const struct pt_event *e, char *buf, size_t cap)
{
	const struct pt_evd *ed = e->ed;
	const char *name = ed->event->name;

	if (ed->print == P_SWITCH) {
		static const char states[] = "RSDTtXZxKWP";
		size_t n = (size_t)snprintf(buf, cap, "%s:", name);
		int val = (int)e->val;
		if (!val && n + 1 < cap)
			buf[n++] = 'R';
		for (int i = 0; val && i < (int)sizeof(states) - 1; i++, val >>= 1)
			if ((val & 1) && n + 1 < cap)
				buf[n++] = states[i + 1];
		buf[n < cap ? n : cap - 1] = '\0';
	} else if (ed->print == P_SOFTIRQ) {
		int v = (int)e->val;
		if (v >= 0 && v < (int)(sizeof(softirqs) / sizeof(softirqs[0])))
			snprintf(buf, cap, "%s:%s", name, softirqs[v]);
		else
			snprintf(buf, cap, "%s:%d", name, v);
	} else if (ed->print == P_SYSCALL) {
		/* trace-cmd built without libaudit (Debian's): no syscall names */
		snprintf(buf, cap, "%s:%d", name, (int)e->val);
	} else if (ed->type == T_FUNC) {
		const char *func = tep_find_function(ed->event->tep, e->val);
		if (func)
			snprintf(buf, cap, "func: %s()", func);
		else
			snprintf(buf, cap, "func: 0x%llx", (unsigned long long)e->val);
	} else {
		snprintf(buf, cap, "%s:0x%llx", name, (unsigned long long)e->val);
	}
}

static void output_task(struct tcp_profile *p, struct pt_task *t, struct outbuf *out)
{
	struct pt_event **v = t->n_events ? malloc(t->n_events * sizeof(*v)) : NULL;
	const char *comm = t->comm;
	char line[512];
	size_t n = 0;

	if (!comm && t->pid >= 0)
		comm = tep_data_comm_from_pid(p->tep, t->pid);
	if (t->is_group)
		snprintf(line, sizeof(line), "\ngroup: %s\n", t->comm);
	else if (t == &p->global_task)
		snprintf(line, sizeof(line), "Global Events\n");
	else if (p->global_cpu && t >= p->global_cpu && t < p->global_cpu + p->n_global_cpu)
		snprintf(line, sizeof(line), "Global CPU[%d] Events\n", (int)(t - p->global_cpu));
	else if (t->pid < 0)
		snprintf(line, sizeof(line), "%s\n", comm ? comm : "(null)");
	else
		snprintf(line, sizeof(line), "\ntask: %s-%d\n", comm ? comm : "(null)", t->pid);
	outbuf_puts(out, line);
	if (!v)
		return;   /* no entries (or no memory for sorting them) */
	for (struct pt_event *e = t->events; e; e = e->tnext)
		v[n++] = e;
	qsort(v, n, sizeof(*v), cmp_events);
	for (size_t i = 0; i < n; i++) {
		struct pt_event *e = v[i];
		char name[300];
		event_name(e, name, sizeof(name));
		snprintf(line, sizeof(line), "  Event: %s (%lld)", name, (long long)e->count);
		outbuf_puts(out, line);
		if (e->total) {
			/* nsecs_per_sec() and mod_to_usec() (which may give 1000000) */
			snprintf(line, sizeof(line),
				 " Total: %lld Avg: %lld Max: %lld(ts:%lld.%06lld) Min:%lld(ts:%lld.%06lld)",
				 (long long)e->total, (long long)(e->total / e->count), (long long)e->max,
				 (long long)(e->ts_max / 1000000000),
				 (long long)((e->ts_max % 1000000000 + 500) / 1000), (long long)e->min,
				 (long long)(e->ts_min / 1000000000),
				 (long long)((e->ts_min % 1000000000 + 500) / 1000));
			outbuf_puts(out, line);
		}
		outbuf_putc(out, '\n');
		pt_output_stacks(p, e, out);
	}
	free(v);
}

/* libtracecmd's trace_hash() (trace-hash-local.h): where a pid's task sits in its hash. */
static uint32_t tc_trace_hash(uint32_t val)
{
	uint32_t hash = 12546869, tmp;

	hash += val & 0xffff;
	tmp = (val >> 16) ^ hash;
	hash = (hash << 16) ^ tmp;
	hash += hash >> 11;
	hash ^= hash << 3;
	hash += hash >> 5;
	hash ^= hash << 4;
	hash += hash >> 17;
	hash ^= hash << 25;
	hash += hash >> 6;
	return hash;
}

/*
 * trace-profile.c walks its task hash (1024 buckets by trace_hash(pid),
 * newest first in each) when it merges tasks into groups: the first task
 * of a group keeps the times of equal maxima and minima.
 */
static int cmp_tasks_hash_order(const void *a, const void *b)
{
	const struct pt_task *x = *(const struct pt_task *const *)a, *y = *(const struct pt_task *const *)b;
	uint32_t bx = tc_trace_hash((uint32_t)x->pid) & 1023, by = tc_trace_hash((uint32_t)y->pid) & 1023;

	if (bx != by)
		return bx < by ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

/*
 * merge_stacks(): e's stacks go to x, those with the same callers add up
 * (the maximum if x's is less, the minimum if x's is more).
 */
static void merge_stacks(struct pt_event *x, struct pt_event *e)
{
	for (size_t i = 0; i < e->n_stacks; i++) {
		struct pt_stack *st = e->stacks[i], *ex = NULL;
		for (size_t k = 0; k < x->n_stacks && !ex; k++)
			if (x->stacks[k]->size == st->size &&
			    !memcmp(x->stacks[k]->caller, st->caller, st->size))
				ex = x->stacks[k];
		if (!ex) {
			if (tmx_grow_array((void **)&x->stacks, &x->cap_stacks, x->n_stacks + 1,
					   sizeof(*x->stacks), 4))
				x->stacks[x->n_stacks++] = st;
			else
				free(st);   /* out of memory: the stack is lost */
			continue;
		}
		ex->count += st->count;
		ex->time += st->time;
		if (ex->time_max < st->time_max) {
			ex->time_max = st->time_max;
			ex->ts_max = st->ts_max;
		}
		if (ex->time_min > st->time_min) {
			ex->time_min = st->time_min;
			ex->ts_min = st->ts_min;
		}
		free(st);
	}
}

/* merge_event_into_group(): wakeups become one entry, sched_switch one per state. */
static void merge_into_group(struct tcp_profile *p, struct pt_task *g, struct pt_event *e)
{
	struct pt_event *x;

	pt_event_unlink(p, e);
	if (e->ed->type == T_WAKEUP)
		e->search_val = e->val = 0;
	else if (e->ed->type == T_SWITCH)
		e->search_val = e->val;
	if (!(x = pt_lookup_event(p, g, e->ed, e->search_val, e->val))) {
		e->task = g;
		if (pt_event_link(p, e)) {
			e->tnext = g->events;
			g->events = e;
			g->n_events++;
			return;
		}
		x = NULL;   /* out of memory: the entry is lost */
	}
	if (x) {
		x->count += e->count;
		x->total += e->total;
		if (x->max < e->max) {
			x->max = e->max;
			x->ts_max = e->ts_max;
		}
		if (x->min > e->min) {
			x->min = e->min;
			x->ts_min = e->ts_min;
		}
		merge_stacks(x, e);
	} else {
		for (size_t i = 0; i < e->n_stacks; i++)
			free(e->stacks[i]);
	}
	free(e->stacks);
	free(e);
}

/* --by-comm: trace-cmd's merge_tasks(): every task with a comm into its comm's group. */
static void merge_tasks(struct tcp_profile *p, struct pt_task **v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_tasks_hash_order);
	for (size_t i = 0; i < n; i++) {
		struct pt_task *t = v[i], *g;
		if (!t->comm)
			continue;
		for (g = p->groups; g && strcmp(g->comm, t->comm); g = g->hnext)
			;
		if (!g) {
			if (!(g = calloc(1, sizeof(*g))) || !(g->comm = strdup(t->comm))) {
				free(g);
				continue;   /* out of memory: the task prints alone */
			}
			g->pid = -1;
			g->is_group = true;
			g->hnext = p->groups;
			p->groups = g;
		}
		t->grouped = true;
		for (struct pt_event *e = t->events, *en; e; e = en) {
			en = e->tnext;
			merge_into_group(p, g, e);
		}
		t->events = NULL;
		t->n_events = 0;
	}
}

static int cmp_groups(const void *a, const void *b)
{
	return strcmp((*(const struct pt_task *const *)a)->comm, (*(const struct pt_task *const *)b)->comm);
}

void tcp_profile_set_by_comm(struct tcp_profile *p, bool on)
{
	p->by_comm = on;
}

void tcp_profile_output(struct tcp_profile *p, struct outbuf *out)
{
	struct pt_task **v = p->n_tasks ? malloc(p->n_tasks * sizeof(*v)) : NULL;
	size_t n = 0;

	/* show_global_task(): the global ones first, when they have entries */
	if (p->global_task.n_events)
		output_task(p, &p->global_task, out);
	for (int i = 0; i < p->n_global_cpu; i++)
		if (p->global_cpu[i].n_events)
			output_task(p, &p->global_cpu[i], out);
	if (!v)
		return;
	for (size_t i = 0; p->tasks.b && i <= p->tasks.mask; i++)
		for (struct pt_task *t = p->tasks.b[i]; t; t = t->hnext)
			v[n++] = t;
	if (p->by_comm && !p->groups) {
		size_t ng = 0;
		struct pt_task **gv;
		merge_tasks(p, v, n);
		for (struct pt_task *g = p->groups; g; g = g->hnext)
			ng++;
		/* trace-cmd sorts them by their addresses (a bug): here by comm */
		if (ng && (gv = malloc(ng * sizeof(*gv)))) {
			ng = 0;
			for (struct pt_task *g = p->groups; g; g = g->hnext)
				gv[ng++] = g;
			qsort(gv, ng, sizeof(*gv), cmp_groups);
			for (size_t i = 0; i < ng; i++)
				output_task(p, gv[i], out);
			free(gv);
		}
	}
	qsort(v, n, sizeof(*v), cmp_tasks);
	for (size_t i = 0; i < n; i++)
		if (!v[i]->grouped)
			output_task(p, v[i], out);
	free(v);
}
