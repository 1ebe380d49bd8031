/*
 * `trace-cmd report --profile`: see profile.h, and profile_impl.h for the
 * structures and the other parts.  This file: trace_profile_record() and
 * the handlers it calls per kind of event.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "tools/tracecmd/profile_impl.h"

static uint64_t read_field(struct tep_format_field *f, const struct tep_record *rec, uint64_t dflt)
{
	unsigned long long v;

	if (!f || tep_read_number_field(f, rec->data, &v))
		return dflt;
	return v;
}

/* A comm field copied whole (trace-cmd prints it up to its NUL). */
static void add_task_comm(struct pt_task *t, struct tep_format_field *f, const struct tep_record *rec)
{
	/* (the caller made the record's static fields readable, as libtraceevent reads them) */
	if (t->comm || !f || f->size < 0 || f->offset < 0)
		return;
	if (!(t->comm = malloc((size_t)f->size + 1)))
		return;
	memcpy(t->comm, (const char *)rec->data + f->offset, (size_t)f->size);
	t->comm[f->size] = '\0';
}

/* ------------------------------------------------------------------ */
/* Record handlers                                                      */
/* ------------------------------------------------------------------ */

static struct pt_task *event_task(struct tcp_profile *p, struct pt_evd *ed,
				  const struct tep_record *rec, uint64_t pid)
{
	if (ed->global) {
		if (!ed->migrate && rec->cpu >= 0 && rec->cpu < p->n_global_cpu)
			return &p->global_cpu[rec->cpu];
		return &p->global_task;   /* (a CPU past the count: trace-cmd overflows) */
	}
	if (ed->pid_field)
		pid = read_field(ed->pid_field, rec, pid);
	return pt_find_task(p, (int)pid);
}

static struct pt_task *handle_end(struct tcp_profile *p, struct pt_evd *ed, const struct tep_record *rec,
				  uint64_t pid)
{
	struct pt_task *t = event_task(p, ed, rec, pid);

	if (!t)
		return NULL;
	t->last_event = pt_find_and_update_start(p, t, ed->start, rec->ts,
						 read_field(ed->start_match, rec, 0));
	t->last_start = NULL;
	return t;
}

static struct pt_task *handle_start(struct tcp_profile *p, struct pt_evd *ed,
				    const struct tep_record *rec, uint64_t pid)
{
	struct pt_task *t = event_task(p, ed, rec, pid);
	uint64_t val;

	if (!t)
		return NULL;
	val = read_field(ed->end_match, rec, 0);
	if (!(t->last_start = pt_add_start(p, t, ed, rec, val, val)))
		return NULL;
	t->last_event = NULL;
	return t;
}

/* account_task(): an event without a pair is counted by its value. */
static int account(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
		   const struct tep_record *rec)
{
	struct pt_event *e;
	uint64_t val = 0;

	if (ed->pid_field) {
		struct pt_task *proxy = t;
		if (!(t = pt_find_task(p, (int)read_field(ed->pid_field, rec, 0))))
			return -1;
		proxy->proxy = t;
	}
	val = read_field(ed->data_field, rec, 0);
	/* trace-profile.c matches on the value twice (its search value is set, then not used) */
	if (!(e = pt_find_event(p, t, ed, val, val)))
		return -1;
	e->count++;
	t->last_event = e;
	return 0;
}

static int handle_generic(struct tcp_profile *p, struct pt_evd *ed, const struct tep_record *rec,
			  uint64_t pid)
{
	struct pt_task *t = NULL;

	if (ed->start && !(t = handle_end(p, ed, rec, pid)))
		return -1;
	if (ed->end && !(t = handle_start(p, ed, rec, pid)))
		return -1;
	if (!t) {
		if (!(t = pt_find_task(p, (int)pid)))
			return -1;
		t->proxy = NULL;
		t->last_start = NULL;
		t->last_event = NULL;
		return account(p, t, ed, rec);
	}
	return 0;
}

static int handle_switch(struct tcp_profile *p, struct pt_evd *ed, const struct tep_record *rec)
{
	uint64_t prev_pid = read_field(ed->pid_field, rec, 0);
	uint64_t prev_state = read_field(ed->data_field, rec, 0) & (1024 - 1);
	uint64_t next_pid = read_field(ed->end_match, rec, 0);
	struct pt_task *t = pt_find_task(p, (int)prev_pid);

	if (!t)
		return -1;
	add_task_comm(t, p->prev_comm, rec);
	t->sleeping = prev_state != 0;
	/* scheduled out; prev_state says why */
	if (!(t->last_start = pt_add_start(p, t, ed, rec, prev_pid, prev_state)))
		return -1;
	t->last_event = NULL;
	if (!(t = pt_find_task(p, (int)next_pid)))
		return -1;
	add_task_comm(t, p->next_comm, rec);
	/* blocked: it was woken (ed->start is sched_wakeup); preempted: switched out */
	pt_find_and_update_start(p, t, ed->start, rec->ts, next_pid);
	pt_find_and_update_start(p, t, ed, rec->ts, next_pid);
	return 0;
}

static int handle_wakeup(struct tcp_profile *p, struct pt_evd *ed, const struct tep_record *rec,
			 uint64_t pid)
{
	struct pt_task *proxy = pt_find_task(p, (int)pid), *t;

	if (!proxy)
		return -1;
	if (ed->data_field && !read_field(ed->data_field, rec, 1))
		return 0;   /* not a successful wakeup */
	pid = read_field(ed->pid_field, rec, pid);
	if (!(t = pt_find_task(p, (int)pid)))
		return -1;
	add_task_comm(t, p->wakeup_comm, rec);
	if (!t->sleeping) {
		proxy->proxy = NULL;
		proxy->last_start = NULL;
		proxy->last_event = NULL;
		return 0;
	}
	t->sleeping = false;
	proxy->proxy = t;
	pt_find_and_update_start(p, t, ed->start, rec->ts, pid);
	if (!(t->last_start = pt_add_start(p, t, ed, rec, pid, pid)))
		return -1;
	t->last_event = NULL;
	return 0;
}

static int handle_exec(struct tcp_profile *p, struct pt_evd *ed, const struct tep_record *rec,
		       uint64_t pid)
{
	struct pt_task *t;

	if (ed->data_field)
		pid = read_field(ed->data_field, rec, pid);
	if (!(t = pt_find_task(p, (int)pid)))
		return -1;
	free(t->comm);
	t->comm = NULL;
	return 0;
}

/* A copy of a kernel stack record's caller words (NULL: out of memory). */
static struct pt_stackrec *stack_copy(struct tcp_profile *p, const struct tep_record *rec)
{
	size_t off = (size_t)p->stack_ed->data_field->offset;
	size_t size = (size_t)rec->size - off;
	struct pt_stackrec *sr = calloc(1, sizeof(*sr) + size + 8);

	if (!sr)
		return NULL;
	memcpy(sr->caller, (const uint8_t *)rec->data + off, size);
	sr->size = size;
	sr->ts = rec->ts;
	sr->serial = ++p->stack_serial;
	return sr;
}

/* handle_stacktrace_event(): attach the stack to what the task did last. */
static int handle_stack(struct tcp_profile *p, const struct tep_record *rec, uint64_t pid)
{
	struct pt_task *t = pt_find_task(p, (int)pid), *orig = NULL, *proxy;
	struct pt_event *e;
	size_t off = (size_t)p->stack_ed->data_field->offset;

	if (!t)
		return -1;
	free(t->last_stack);
	t->last_stack = NULL;
	if ((proxy = t->proxy)) {
		t->proxy = NULL;
		orig = t;
		t = proxy;
	}
	if (!t->last_start && !t->last_event) {
		/* kept in case a function graph entry follows (of the task itself) */
		if (proxy)
			t = orig;
		return (t->last_stack = stack_copy(p, rec)) ? 0 : -1;
	}
	if (t->last_start) {
		/* attached to the start until its end comes */
		free(t->last_start->stack);
		if (!(t->last_start->stack = stack_copy(p, rec)))
			return -1;
		t->last_start = NULL;
		t->last_event = NULL;
		return 0;
	}
	e = t->last_event;
	t->last_event = NULL;
	return pt_add_event_stack(e, (const uint8_t *)rec->data + off, (size_t)rec->size - off,
				  e->last_time, rec->ts) ? 0 : -1;
}

int tcp_profile_record(struct tcp_profile *p, struct tep_record *rec, const char *path,
		       struct tmx_error *err)
{
	struct pt_evd *ed;
	struct pt_task *t;
	uint64_t pid, stack_serial;
	int id, ret = 0;

	if (rec->missed_events) {
		/* the starts of this CPU and those that may migrate are lost */
		struct pt_start **head = pt_cpu_list(p, rec->cpu);
		while (head && *head)
			pt_free_start(p, *head);
		while (p->migrate_starts)
			pt_free_start(p, p->migrate_starts);
	}
	id = tep_data_type(p->tep, rec);
	if (id < 0 || (size_t)id >= p->n_ids || !(ed = p->by_id[id]))
		return TMX_OK;
	pid = read_field(p->common_pid, rec, 0);
	if (!(t = pt_find_task(p, (int)pid)))
		goto nomem;
	stack_serial = t->last_stack ? t->last_stack->serial : 0;
	switch (ed->handler) {
	case H_SWITCH:
		ret = handle_switch(p, ed, rec);
		break;
	case H_WAKEUP:
		ret = handle_wakeup(p, ed, rec, pid);
		break;
	case H_EXEC:
		ret = handle_exec(p, ed, rec, pid);
		break;
	case H_STACK:
		/* trace-cmd dies on a stack of less than an int ("Stack size of less than sizeof(int)??") */
		if (rec->size < 0 || (size_t)rec->size < (size_t)ed->data_field->offset + sizeof(int))
			return tmx_error_set(err, TMX_ERR_DATA, path,
					     "--profile: a kernel stack record of %d bytes holds no "
					     "caller", rec->size);
		ret = handle_stack(p, rec, pid);
		break;
	case H_FGRAPH_ENTRY: {
		struct pt_task *ft = handle_start(p, ed, rec, pid);
		if (!ft)
			goto nomem;
		/* the stack trace before a function graph entry is its stack */
		if (ft->last_stack && ft->last_start) {
			free(ft->last_start->stack);
			ft->last_start->stack = ft->last_stack;
			ft->last_stack = NULL;
			ft->last_event = NULL;
		}
		ft->last_start = NULL;   /* no stack after this maps to it */
		break;
	}
	case H_FGRAPH_EXIT: {
		struct pt_task *ft = handle_end(p, ed, rec, pid);
		if (!ft)
			goto nomem;
		ft->last_event = NULL;   /* no stack maps to a function graph exit */
		break;
	}
	default:
		ret = handle_generic(p, ed, rec, pid);
	}
	if (ret)
		goto nomem;
	/* a kept stack that this record did not replace is dropped */
	if (stack_serial && t->last_stack && t->last_stack->serial == stack_serial) {
		free(t->last_stack);
		t->last_stack = NULL;
	}
	return TMX_OK;
nomem:
	return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory for --profile");
}
