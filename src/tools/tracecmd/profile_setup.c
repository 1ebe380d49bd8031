/*
 * `trace-cmd report --profile`: hooks (-H, HOOK options) and the event
 * setup of trace_init_profile(); the profile's end.  See profile_impl.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tracecmd/profile_impl.h"

/* ------------------------------------------------------------------ */
/* Hooks                                                                */
/* ------------------------------------------------------------------ */

bool tcp_hook_parse(const char *arg, struct tcp_hook *h, char *line, size_t cap)
{
	char *str, *tok, *save = NULL, *system = NULL;
	size_t index;

	memset(h, 0, sizeof(*h));
	if (!(h->str = str = strdup(arg)))
		return false;
	/* [<start_system>:]<start_event>,<start_match>[,<start_pid>]/ (tracecmd_create_event_hook) */
	if (!(tok = strtok_r(str, ":,", &save)))
		goto invalid;
	index = strlen(tok);   /* (trace-cmd's index into arg, as if tok started it) */
	if (arg[index] == ':') {
		system = tok;
		if (!(tok = strtok_r(NULL, ",", &save)))
			goto invalid;
	}
	h->start_system = system;
	h->start_event = tok;
	if (!(tok = strtok_r(NULL, ",/", &save)))
		goto invalid;
	h->start_match = tok;
	index = strlen(tok) + (size_t)(tok - str);
	if (arg[index] == ',') {
		if (!(tok = strtok_r(NULL, "/", &save)))
			goto invalid;
		h->pid = tok;
	}
	/* [<end_system>:]<end_event>,<end_match>[,<flags>] */
	system = NULL;
	if (!(tok = strtok_r(NULL, ":,", &save)))
		goto invalid;
	index = (size_t)(tok - str) + strlen(tok);
	if (arg[index] == ':') {
		system = tok;
		if (!(tok = strtok_r(NULL, ",", &save)))
			goto invalid;
	}
	h->end_system = system;
	h->end_event = tok;
	if (!(tok = strtok_r(NULL, ",", &save)))
		goto invalid;
	h->end_match = tok;
	index = strlen(tok) + (size_t)(tok - str);
	if (arg[index] == ',') {
		if (!(tok = strtok_r(NULL, "", &save)))
			goto invalid;
		h->flags = tok;
	}
	h->migrate = true;
	for (const char *f = h->flags; f && *f; f++) {
		int ch = tolower((unsigned char)*f);
		if (ch == 'p')
			h->migrate = false;
		else if (ch == 'g')
			h->global = true;
		/* 's' (stacks) and unknown flags (a warning in trace-cmd) change nothing here */
	}
#define NUL_STR(x) ((x) ? (x) : "(null)")
	snprintf(line, cap, "start %s:%s:%s (%s) end %s:%s:%s (%s)\n", NUL_STR(h->start_system),
		 NUL_STR(h->start_event), NUL_STR(h->start_match), NUL_STR(h->pid),
		 NUL_STR(h->end_system), NUL_STR(h->end_event), NUL_STR(h->end_match),
		 NUL_STR(h->flags));
#undef NUL_STR
	return true;
invalid:
	tcp_hook_free(h);
	return false;
}

void tcp_hook_free(struct tcp_hook *h)
{
	free(h->str);
	memset(h, 0, sizeof(*h));
}

/* ------------------------------------------------------------------ */
/* Setup (trace_init_profile)                                           */
/* ------------------------------------------------------------------ */

/*
 * A new event_data for the event; it is the one its records find (hooks
 * that name an event already set up replace it, as trace-cmd's newest-first
 * hash does).  Returns the existing one for a second ordinary add.
 */
static struct pt_evd *add_event(struct tcp_profile *p, const char *sys, const char *name,
				enum ev_type type)
{
	struct tep_event *ev = tep_find_event_by_name(p->tep, sys, name);
	struct pt_evd *ed;

	if (!ev || ev->id < 0 || (size_t)ev->id >= p->n_ids)
		return NULL;
	if (p->by_id[ev->id] && type != T_USER_MATE)
		return p->by_id[ev->id];
	if (!p->common_pid)
		p->common_pid = tep_find_common_field(ev, "common_pid");
	ed = &p->evds[p->n_evds++];
	memset(ed, 0, sizeof(*ed));
	ed->event = ev;
	ed->type = type;
	p->by_id[ev->id] = ed;
	return ed;
}

/* mate_events(): start's end_match field matches end's start_match field. */
static bool mate(struct pt_evd *start, const char *pid_field, const char *end_match,
		 struct pt_evd *end, const char *start_match, bool migrate, bool global)
{
	start->global = end->global = global;
	start->end = end;
	end->start = start;
	if (pid_field && !(start->pid_field = tep_find_field(start->event, pid_field)))
		return false;
	if (!(start->end_match = tep_find_field(start->event, end_match)) ||
	    !(end->start_match = tep_find_field(end->event, start_match)))
		return false;
	start->migrate = end->migrate = migrate;
	return true;
}

struct tcp_profile *tcp_profile_new(struct tep_handle *tep, int cpus, bool global,
				    const struct tcp_hook *const *hooks, size_t n_hooks)
{
	struct tcp_profile *p = calloc(1, sizeof(*p));
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	struct pt_evd *irq_entry, *irq_exit, *sirq_entry, *sirq_exit, *sirq_raise, *wakeup, *sw;
	struct pt_evd *fg_entry, *fg_exit, *sys_enter, *sys_exit, *exec, *stack, *ed;
	size_t n = 0;
	bool ok = true;

	if (!p)
		return NULL;
	p->tep = tep;
	p->global_task.pid = -1;
	p->n_global_cpu = cpus > 0 ? cpus : 0;
	if (p->n_global_cpu && !(p->global_cpu = calloc((size_t)p->n_global_cpu, sizeof(*p->global_cpu)))) {
		free(p);
		return NULL;
	}
	for (int i = 0; i < p->n_global_cpu; i++)
		p->global_cpu[i].pid = -1 - i;
	p->long_size = tep_get_long_size(tep) == 4 ? 4 : 8;
	for (size_t i = 0; evs && evs[i]; i++, n++)
		if (evs[i]->id >= 0 && (size_t)evs[i]->id + 1 > p->n_ids)
			p->n_ids = (size_t)evs[i]->id + 1;
	p->by_id = calloc(p->n_ids ? p->n_ids : 1, sizeof(*p->by_id));
	/* every event once, and two more per hook */
	p->evds = calloc(n + 2 * n_hooks + 1, sizeof(*p->evds));
	if (!p->by_id || !p->evds || !pt_cpu_list(p, cpus > 0 ? cpus - 1 : 0)) {
		tcp_profile_free(p);
		return NULL;
	}
	irq_entry = add_event(p, "irq", "irq_handler_entry", T_IRQ);
	irq_exit = add_event(p, "irq", "irq_handler_exit", T_IRQ);
	sirq_entry = add_event(p, "irq", "softirq_entry", T_SOFTIRQ);
	sirq_exit = add_event(p, "irq", "softirq_exit", T_SOFTIRQ);
	sirq_raise = add_event(p, "irq", "softirq_raise", T_SOFTIRQ_RAISE);
	wakeup = add_event(p, "sched", "sched_wakeup", T_WAKEUP);
	sw = add_event(p, "sched", "sched_switch", T_SWITCH);
	fg_entry = add_event(p, "ftrace", "funcgraph_entry", T_FUNC);
	fg_exit = add_event(p, "ftrace", "funcgraph_exit", T_FUNC);
	sys_enter = add_event(p, "raw_syscalls", "sys_enter", T_SYSCALL);
	sys_exit = add_event(p, "raw_syscalls", "sys_exit", T_SYSCALL);
	exec = add_event(p, "sched", "sched_process_exec", T_EXEC);
	stack = add_event(p, "ftrace", "kernel_stack", T_STACK);
	if (stack) {
		stack->handler = H_STACK;
		ok &= (stack->data_field = tep_find_field(stack->event, "caller")) != NULL &&
		      stack->data_field->offset >= 0;
		p->stack_ed = stack;
	}
	if (exec) {
		exec->handler = H_EXEC;
		exec->data_field = tep_find_field(exec->event, "old_pid");
	}
	if (sw) {
		sw->handler = H_SWITCH;
		sw->print = P_SWITCH;
		ok &= (sw->data_field = tep_find_field(sw->event, "prev_state")) &&
		      (p->prev_comm = tep_find_field(sw->event, "prev_comm")) &&
		      (p->next_comm = tep_find_field(sw->event, "next_comm"));
	}
	if (sw && wakeup) {
		ok &= mate(sw, "prev_pid", "next_pid", wakeup, "pid", true, false);
		ok &= mate(wakeup, "pid", "pid", sw, "prev_pid", true, false);
		wakeup->handler = H_WAKEUP;
		wakeup->data_field = tep_find_field(wakeup->event, "success");
		ok &= (p->wakeup_comm = tep_find_field(wakeup->event, "comm")) != NULL;
	}
	if (irq_entry && irq_exit)
		ok &= mate(irq_entry, NULL, "irq", irq_exit, "irq", false, global);
	if (sirq_entry)
		sirq_entry->print = P_SOFTIRQ;
	if (sirq_exit)
		sirq_exit->print = P_SOFTIRQ;
	if (sirq_raise)
		sirq_raise->print = P_SOFTIRQ;
	if (sirq_entry && sirq_exit)
		ok &= mate(sirq_entry, NULL, "vec", sirq_exit, "vec", false, global);
	if (sirq_entry && sirq_raise)
		ok &= mate(sirq_raise, NULL, "vec", sirq_entry, "vec", false, global);
	if (fg_entry && fg_exit) {
		ok &= mate(fg_entry, NULL, "func", fg_exit, "func", true, false);
		fg_entry->handler = H_FGRAPH_ENTRY;
		fg_exit->handler = H_FGRAPH_EXIT;
	}
	if (sys_enter && sys_exit) {
		ok &= mate(sys_enter, NULL, "id", sys_exit, "id", true, false);
		sys_enter->print = sys_exit->print = P_SYSCALL;
	}
	if ((ed = add_event(p, "ftrace", "function", T_FUNC)))
		ed->data_field = tep_find_field(ed->event, "ip");
	for (size_t i = 0; i < n_hooks; i++) {
		const struct tcp_hook *hk = hooks[i];
		struct pt_evd *s_ed = add_event(p, hk->start_system, hk->start_event, T_USER_MATE);
		struct pt_evd *e_ed = add_event(p, hk->end_system, hk->end_event, T_USER_MATE);
		/* (trace-cmd warns "Event %s not found" and goes on) */
		if (s_ed && e_ed)
			ok &= mate(s_ed, hk->pid, hk->start_match, e_ed, hk->end_match, hk->migrate,
				   hk->global);
	}
	/* every other event: counted by its first field */
	for (size_t i = 0; evs && evs[i]; i++) {
		if (evs[i]->id < 0 || p->by_id[evs[i]->id] ||
		    !(ed = add_event(p, evs[i]->system, evs[i]->name, T_UNDEF)))
			continue;
		ed->data_field = evs[i]->format.fields;
	}
	/* trace-cmd dies when these events lack the fields it pairs them on */
	if (!ok || !p->common_pid) {
		tcp_profile_free(p);
		return NULL;
	}
	return p;
}

/* ------------------------------------------------------------------ */
/* The end                                                              */
/* ------------------------------------------------------------------ */

static void free_task_data(struct pt_task *t)
{
	for (struct pt_event *e = t->events, *en; e; e = en) {
		en = e->tnext;
		for (size_t k = 0; k < e->n_stacks; k++)
			free(e->stacks[k]);
		free(e->stacks);
		free(e);
	}
	free(t->last_stack);
	free(t->comm);
}

void tcp_profile_free(struct tcp_profile *p)
{
	if (!p)
		return;
	free_task_data(&p->global_task);
	for (struct pt_task *g = p->groups, *gn; g; g = gn) {
		gn = g->hnext;
		free_task_data(g);
		free(g);
	}
	for (int i = 0; i < p->n_global_cpu; i++)
		free_task_data(&p->global_cpu[i]);
	free(p->global_cpu);
	for (size_t i = 0; p->tasks.b && i <= p->tasks.mask; i++) {
		struct pt_task *t = p->tasks.b[i], *tn;
		for (; t; t = tn) {
			tn = t->hnext;
			free_task_data(t);
			free(t);
		}
	}
	for (size_t i = 0; p->starts.b && i <= p->starts.mask; i++)
		for (struct pt_start *s = p->starts.b[i], *sn; s; s = sn) {
			sn = s->hnext;
			free(s->stack);
			free(s);
		}
	for (struct pt_start *s = p->free_starts, *sn; s; s = sn) {
		sn = s->hnext;
		free(s);
	}
	free(p->tasks.b);
	free(p->starts.b);
	free(p->events.b);
	free(p->cpu_starts);
	free(p->by_id);
	free(p->evds);
	free(p);
}
