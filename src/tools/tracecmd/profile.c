/*
 * `trace-cmd report --profile`: see profile.h.
 *
 * The structures follow trace-profile.c: an event_data per event id (how
 * its records are handled, which event starts or ends it, the fields that
 * match a start with its end), tasks by pid, "starts" waiting for their
 * end (per task, found newest first, also listed per CPU so that a page
 * with missed events drops them), and per task one entry per (event,
 * search value, value) with its count and timings.  Hash tables here are
 * only ever looked up by exact key; the output is sorted.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "tools/tracecmd/profile.h"
#include "model/errors.h"

enum ev_type { T_UNDEF, T_STACK, T_SWITCH, T_WAKEUP, T_FUNC, T_SYSCALL, T_IRQ, T_SOFTIRQ,
	       T_SOFTIRQ_RAISE, T_EXEC, T_USER_MATE };
enum ev_print { P_DEFAULT, P_SWITCH, P_SOFTIRQ, P_SYSCALL };
enum ev_handler { H_GENERIC, H_SWITCH, H_WAKEUP, H_EXEC, H_STACK, H_FGRAPH_ENTRY, H_FGRAPH_EXIT };

struct pt_task;

/* A kernel stack trace kept until it is attached (the record's caller bytes and time). */
struct pt_stackrec {
	uint64_t serial, ts;
	size_t size;
	uint8_t caller[];    /* size bytes, then 8 zero bytes (trace-cmd may read a word past) */
};

/* One distinct stack of an entry (stack_data): its count and timings. */
struct pt_stack {
	uint64_t count, time, time_min, ts_min, time_max, ts_max;
	size_t size;
	uint8_t caller[];    /* as pt_stackrec */
};

/* trace-profile.c's event_data */
struct pt_evd {
	struct tep_event *event;
	enum ev_type type;
	enum ev_print print;
	enum ev_handler handler;
	struct pt_evd *start, *end;       /* the event this one ends / starts */
	struct tep_format_field *pid_field, *start_match, *end_match, *data_field;
	bool migrate;                     /* start/end pairs may change CPUs */
	bool global;                      /* -G: counted in the global tasks */
};

/* A start waiting for its end (start_data). */
struct pt_start {
	struct pt_start *hnext;           /* hash chain, newest first */
	struct pt_start *lprev, *lnext;   /* its CPU's list, or the migrate list */
	struct pt_start **lhead;
	struct pt_task *task;
	struct pt_evd *ed;
	uint64_t ts, search_val, val;
	struct pt_stackrec *stack;        /* attached while it waits for its end */
};

/* Counts and timings of one (event, search value, value) of a task (event_hash). */
struct pt_event {
	struct pt_event *hnext, *tnext;
	struct pt_task *task;
	struct pt_evd *ed;
	uint64_t search_val, val;
	uint64_t count, total, max, ts_max, min, ts_min, last_time;
	struct pt_stack **stacks;
	size_t n_stacks, cap_stacks;
};

struct pt_task {
	struct pt_task *hnext;
	uint64_t seq;                     /* creation order (trace-cmd's hash chains: newest first) */
	bool grouped;                     /* --by-comm: its entries moved to its comm's group */
	bool is_group;                    /* --by-comm: a group (comm is its name) */
	int pid;
	bool sleeping;
	char *comm;
	struct pt_event *events;
	size_t n_events;
	struct pt_task *proxy;
	struct pt_start *last_start;
	struct pt_event *last_event;
	struct pt_stackrec *last_stack;
};

/* A chained hash table of pointers whose first member is their `hnext` link. */
struct pt_hash {
	void **b;
	size_t mask, n;
};

struct tcp_profile {
	struct tep_handle *tep;
	struct tep_format_field *common_pid, *wakeup_comm, *prev_comm, *next_comm;
	struct pt_evd **by_id;            /* event id -> its data (ids are 16-bit) */
	size_t n_ids;
	struct pt_evd *evds;
	size_t n_evds;
	struct pt_hash tasks, starts, events;
	struct pt_start **cpu_starts;     /* per CPU id */
	size_t n_cpus;
	struct pt_start *migrate_starts;
	struct pt_start *free_starts;     /* recycled */
	size_t n_tasks;
	struct pt_task *groups;           /* --by-comm, by comm (their hnext links them) */
	bool by_comm;
	struct pt_evd *stack_ed;          /* ftrace:kernel_stack, its data_field is `caller` */
	uint64_t stack_serial;
	int long_size;
	/* -G: "Global Events" (pairs that migrate) and "Global CPU[N] Events" */
	struct pt_task global_task, *global_cpu;
	int n_global_cpu;
};

/* ------------------------------------------------------------------ */
/* Hash tables                                                          */
/* ------------------------------------------------------------------ */

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static uint64_t key_task(int pid)
{
	return mix((uint64_t)(uint32_t)pid);
}

static uint64_t key_start(const struct pt_task *t, const struct pt_evd *ed, uint64_t search_val)
{
	return mix((uintptr_t)t ^ mix((uintptr_t)ed ^ mix(search_val)));
}

static uint64_t key_event(const struct pt_task *t, const struct pt_evd *ed, uint64_t sv, uint64_t v)
{
	return mix(key_start(t, ed, sv) ^ mix(v + 0x9e3779b97f4a7c15ull));
}

typedef uint64_t (*pt_keyfn)(const void *item);

static uint64_t item_key_task(const void *p)
{
	return key_task(((const struct pt_task *)p)->pid);
}

static uint64_t item_key_start(const void *p)
{
	const struct pt_start *s = p;
	return key_start(s->task, s->ed, s->search_val);
}

static uint64_t item_key_event(const void *p)
{
	const struct pt_event *e = p;
	return key_event(e->task, e->ed, e->search_val, e->val);
}

/* Every item begins with its `next` link. */
static void **link_of(void *item)
{
	return (void **)item;
}

/* Grows the table when it holds as many items as buckets; keeps each chain's order. */
static bool hash_reserve(struct pt_hash *h, pt_keyfn keyfn)
{
	size_t nb = h->b ? (h->mask + 1) * 2 : 64;
	void **b;

	if (h->b && h->n < h->mask + 1)
		return true;
	if (!(b = calloc(nb, sizeof(*b))))
		return false;
	for (size_t i = 0; h->b && i <= h->mask; i++) {
		/* Re-link in order: walk the chain, append at each new chain's tail. */
		void *it = h->b[i];
		while (it) {
			void *next = *link_of(it);
			void **tail = &b[keyfn(it) & (nb - 1)];
			while (*tail)
				tail = link_of(*tail);
			*link_of(it) = NULL;
			*tail = it;
			it = next;
		}
	}
	free(h->b);
	h->b = b;
	h->mask = nb - 1;
	return true;
}

/* Inserts at the head of its chain (the newest is found first, as trace_hash_add()). */
static bool hash_add(struct pt_hash *h, void *item, uint64_t key, pt_keyfn keyfn)
{
	void **bucket;

	if (!hash_reserve(h, keyfn))
		return false;
	bucket = &h->b[key & h->mask];
	*link_of(item) = *bucket;
	*bucket = item;
	h->n++;
	return true;
}

static void hash_del(struct pt_hash *h, void *item, uint64_t key)
{
	void **p = &h->b[key & h->mask];

	while (*p && *p != item)
		p = link_of(*p);
	if (*p) {
		*p = *link_of(item);
		h->n--;
	}
}

/* ------------------------------------------------------------------ */
/* Tasks, starts, events                                                */
/* ------------------------------------------------------------------ */

static uint64_t read_field(struct tep_format_field *f, const struct tep_record *rec, uint64_t dflt)
{
	unsigned long long v;

	if (!f || tep_read_number_field(f, rec->data, &v))
		return dflt;
	return v;
}

static struct pt_task *find_task(struct tcp_profile *p, int pid)
{
	uint64_t key = key_task(pid);
	struct pt_task *t;

	for (t = p->tasks.b ? p->tasks.b[key & p->tasks.mask] : NULL; t; t = t->hnext)
		if (t->pid == pid)
			return t;
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->pid = pid;
	t->seq = p->n_tasks;
	if (!hash_add(&p->tasks, t, key, item_key_task)) {
		free(t);
		return NULL;
	}
	p->n_tasks++;
	return t;
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

static struct pt_start **cpu_list(struct tcp_profile *p, int cpu)
{
	if (cpu < 0)
		return &p->migrate_starts;
	if ((size_t)cpu >= p->n_cpus) {
		size_t n = (size_t)cpu + 1;
		struct pt_start **v = realloc(p->cpu_starts, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + p->n_cpus, 0, (n - p->n_cpus) * sizeof(*v));
		p->cpu_starts = v;
		p->n_cpus = n;
	}
	return &p->cpu_starts[cpu];
}

static struct pt_start *add_start(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
				  const struct tep_record *rec, uint64_t search_val, uint64_t val)
{
	struct pt_start *s = p->free_starts;
	struct pt_start **head = cpu_list(p, ed->migrate ? -1 : rec->cpu);

	if (!head)
		return NULL;
	if (s)
		p->free_starts = s->hnext;
	else if (!(s = malloc(sizeof(*s))))
		return NULL;
	memset(s, 0, sizeof(*s));
	s->task = t;
	s->ed = ed;
	s->ts = rec->ts;
	s->search_val = search_val;
	s->val = val;
	if (!hash_add(&p->starts, s, key_start(t, ed, search_val), item_key_start)) {
		free(s);
		return NULL;
	}
	s->lhead = head;
	s->lnext = *head;
	if (*head)
		(*head)->lprev = s;
	*head = s;
	return s;
}

static void free_start(struct tcp_profile *p, struct pt_start *s)
{
	if (s->task->last_start == s)
		s->task->last_start = NULL;
	free(s->stack);
	s->stack = NULL;
	hash_del(&p->starts, s, key_start(s->task, s->ed, s->search_val));
	if (s->lprev)
		s->lprev->lnext = s->lnext;
	else
		*s->lhead = s->lnext;
	if (s->lnext)
		s->lnext->lprev = s->lprev;
	s->hnext = p->free_starts;
	p->free_starts = s;
}

static struct pt_start *find_start(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
				   uint64_t search_val)
{
	uint64_t key = key_start(t, ed, search_val);

	for (struct pt_start *s = p->starts.b ? p->starts.b[key & p->starts.mask] : NULL; s;
	     s = s->hnext)
		if (s->task == t && s->ed == ed && s->search_val == search_val)
			return s;
	return NULL;
}

static struct pt_event *find_event(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
				   uint64_t search_val, uint64_t val)
{
	uint64_t key = key_event(t, ed, search_val, val);
	struct pt_event *e;

	for (e = p->events.b ? p->events.b[key & p->events.mask] : NULL; e; e = e->hnext)
		if (e->task == t && e->ed == ed && e->search_val == search_val && e->val == val)
			return e;
	if (!(e = calloc(1, sizeof(*e))))
		return NULL;
	e->task = t;
	e->ed = ed;
	e->search_val = search_val;
	e->val = val;
	if (!hash_add(&p->events, e, key, item_key_event)) {
		free(e);
		return NULL;
	}
	e->tnext = t->events;
	t->events = e;
	t->n_events++;
	return e;
}

/* add_event_stack(): one more occurrence of this stack under the entry. */
static bool add_event_stack(struct pt_event *e, const uint8_t *caller, size_t size, uint64_t time,
			    uint64_t ts)
{
	struct pt_stack *st = NULL;

	for (size_t i = 0; i < e->n_stacks && !st; i++)
		if (e->stacks[i]->size == size && !memcmp(e->stacks[i]->caller, caller, size))
			st = e->stacks[i];
	if (!st) {
		if (e->n_stacks == e->cap_stacks) {
			size_t nc = e->cap_stacks ? e->cap_stacks * 2 : 4;
			struct pt_stack **v = realloc(e->stacks, nc * sizeof(*v));
			if (!v)
				return false;
			e->stacks = v;
			e->cap_stacks = nc;
		}
		if (!(st = calloc(1, sizeof(*st) + size + 8)))
			return false;
		memcpy(st->caller, caller, size);
		st->size = size;
		e->stacks[e->n_stacks++] = st;
	}
	st->count++;
	st->time += time;
	if (st->count == 1 || time < st->time_min) {
		st->time_min = time;
		st->ts_min = ts;
	}
	if (time > st->time_max) {
		st->time_max = time;
		st->ts_max = ts;
	}
	return true;
}

/* add_and_free_start(): the time from the start to ts into the start's entry. */
static struct pt_event *end_start(struct tcp_profile *p, struct pt_task *t, struct pt_start *s,
				  struct pt_evd *ed, uint64_t ts)
{
	int64_t delta = (int64_t)(ts - s->ts);
	struct pt_event *e;

	/* "because of timestamps being different on different CPUs, we can go back in time" */
	if (delta < 0)
		delta = 0;
	e = find_event(p, t, ed, s->search_val, s->val);
	if (e) {
		e->count++;
		e->total += (uint64_t)delta;
		if ((uint64_t)delta > e->max) {
			e->max = (uint64_t)delta;
			e->ts_max = ts;
		}
		if (e->count == 1 || (uint64_t)delta < e->min) {
			e->min = (uint64_t)delta;
			e->ts_min = ts;
		}
		e->last_time = (uint64_t)delta;
		/* (out of memory: the stack is not counted) */
		if (s->stack)
			add_event_stack(e, s->stack->caller, s->stack->size, (uint64_t)delta, s->stack->ts);
	}
	free_start(p, s);
	return e;
}

static struct pt_event *find_and_update_start(struct tcp_profile *p, struct pt_task *t,
					      struct pt_evd *ed, uint64_t ts, uint64_t search_val)
{
	struct pt_start *s;

	if (!ed || !(s = find_start(p, t, ed, search_val)))
		return NULL;
	return end_start(p, t, s, ed, ts);
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
	return find_task(p, (int)pid);
}

static struct pt_task *handle_end(struct tcp_profile *p, struct pt_evd *ed, const struct tep_record *rec,
				  uint64_t pid)
{
	struct pt_task *t = event_task(p, ed, rec, pid);

	if (!t)
		return NULL;
	t->last_event = find_and_update_start(p, t, ed->start, rec->ts,
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
	if (!(t->last_start = add_start(p, t, ed, rec, val, val)))
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
		if (!(t = find_task(p, (int)read_field(ed->pid_field, rec, 0))))
			return -1;
		proxy->proxy = t;
	}
	val = read_field(ed->data_field, rec, 0);
	/* trace-profile.c matches on the value twice (its search value is set, then not used) */
	if (!(e = find_event(p, t, ed, val, val)))
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
		if (!(t = find_task(p, (int)pid)))
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
	struct pt_task *t = find_task(p, (int)prev_pid);

	if (!t)
		return -1;
	add_task_comm(t, p->prev_comm, rec);
	t->sleeping = prev_state != 0;
	/* scheduled out; prev_state says why */
	if (!(t->last_start = add_start(p, t, ed, rec, prev_pid, prev_state)))
		return -1;
	t->last_event = NULL;
	if (!(t = find_task(p, (int)next_pid)))
		return -1;
	add_task_comm(t, p->next_comm, rec);
	/* blocked: it was woken (ed->start is sched_wakeup); preempted: switched out */
	find_and_update_start(p, t, ed->start, rec->ts, next_pid);
	find_and_update_start(p, t, ed, rec->ts, next_pid);
	return 0;
}

static int handle_wakeup(struct tcp_profile *p, struct pt_evd *ed, const struct tep_record *rec,
			 uint64_t pid)
{
	struct pt_task *proxy = find_task(p, (int)pid), *t;

	if (!proxy)
		return -1;
	if (ed->data_field && !read_field(ed->data_field, rec, 1))
		return 0;   /* not a successful wakeup */
	pid = read_field(ed->pid_field, rec, pid);
	if (!(t = find_task(p, (int)pid)))
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
	find_and_update_start(p, t, ed->start, rec->ts, pid);
	if (!(t->last_start = add_start(p, t, ed, rec, pid, pid)))
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
	if (!(t = find_task(p, (int)pid)))
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
	struct pt_task *t = find_task(p, (int)pid), *orig = NULL, *proxy;
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
	return add_event_stack(e, (const uint8_t *)rec->data + off, (size_t)rec->size - off,
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
		struct pt_start **head = cpu_list(p, rec->cpu);
		while (head && *head)
			free_start(p, *head);
		while (p->migrate_starts)
			free_start(p, p->migrate_starts);
	}
	id = tep_data_type(p->tep, rec);
	if (id < 0 || (size_t)id >= p->n_ids || !(ed = p->by_id[id]))
		return TMX_OK;
	pid = read_field(p->common_pid, rec, 0);
	if (!(t = find_task(p, (int)pid)))
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

/* ------------------------------------------------------------------ */
/* Setup (trace_init_profile)                                           */
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
	if (!p->by_id || !p->evds || !cpu_list(p, cpus > 0 ? cpus - 1 : 0)) {
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
/* Output                                                               */
/* ------------------------------------------------------------------ */

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

/* ---- Stack chains (output_stacks(): a tree of the stacks' callers) ---- */

struct pt_chain {
	struct pt_chain *children;
	uint64_t val, time, time_min, ts_min, time_max, ts_max, time_avg, count;
	int percent, nr_children;
};

#define PT_INDENT 5

/* trace-cmd reads the callers as host words, as they lie in the record */
static uint64_t stack_value(const struct pt_stack *st, int long_size, int level)
{
	const uint8_t *ptr = &st->caller[(size_t)long_size * (size_t)level];

	if (long_size == 8) {
		uint64_t v;
		memcpy(&v, ptr, 8);
		return v;
	}
	uint32_t v;
	memcpy(&v, ptr, 4);
	return v;
}

/* `long_size * level > size - long_size` with trace-cmd's unsigned wrap */
static bool stack_overflows(const struct pt_stack *st, int long_size, int level)
{
	return (unsigned long)(long_size * level) > st->size - (unsigned long)long_size;
}

static int cmp_stacks(const void *a, const void *b)
{
	const struct pt_stack *x = *(const struct pt_stack *const *)a, *y = *(const struct pt_stack *const *)b;
	size_t size = x->size > y->size ? y->size : x->size;

	/* unsigned words up to the smaller size, then the bigger size wins */
	for (size_t i = 0; i < size; i += 4) {
		uint32_t sa, sb;
		memcpy(&sa, x->caller + i, 4);
		memcpy(&sb, y->caller + i, 4);
		if (sa != sb)
			return sa > sb ? 1 : -1;
	}
	return x->size > y->size ? 1 : x->size < y->size ? -1 : 0;
}

static int cmp_chains(const void *a, const void *b)
{
	const struct pt_chain *x = a, *y = b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return 0;
}

static void free_chain(struct pt_chain *c, int n)
{
	if (!c)
		return;
	for (int i = 0; i < n; i++)
		free_chain(c[i].children, c[i].nr_children);
	free(c);
}

/* make_stack_chain(): the distinct callers at `level` of sorted stacks, with their sums. */
static struct pt_chain *make_chain(struct pt_stack **stacks, int cnt, int long_size, int level,
				   int *nr_children)
{
	uint64_t stop = long_size < 8 ? (1ull << (long_size * 8)) - 1 : ~0ull;
	uint64_t total_time = 0, total_count = 0, time = 0, time_min = 0, ts_min = 0, time_max = 0,
		 ts_max = 0, count = 0, last = 0, val;
	struct pt_chain *chain;
	int nr = 0, start = 0, x = 0;

	*nr_children = 0;
	for (int i = 0; i < cnt; i++) {
		if (stack_overflows(stacks[i], long_size, level))
			continue;
		val = stack_value(stacks[i], long_size, level);
		if (val == stop)
			continue;
		if (!nr || val != last)
			nr++;
		last = val;
	}
	if (!nr || !(chain = calloc((size_t)nr, sizeof(*chain))))
		return NULL;
	for (int i = 0; i < cnt; i++) {
		if (stack_overflows(stacks[i], long_size, level)) {
			start = i + 1;
			continue;
		}
		val = stack_value(stacks[i], long_size, level);
		if (val == stop) {
			start = i + 1;
			continue;
		}
		count += stacks[i]->count;
		time += stacks[i]->time;
		if (stacks[i]->time_max > time_max) {
			time_max = stacks[i]->time_max;
			ts_max = stacks[i]->ts_max;
		}
		if (i == start || stacks[i]->time_min < time_min) {
			time_min = stacks[i]->time_min;
			ts_min = stacks[i]->ts_min;
		}
		if (i == cnt - 1 || stack_overflows(stacks[i + 1], long_size, level) ||
		    val != stack_value(stacks[i + 1], long_size, level)) {
			if (x >= nr)
				break;   /* cannot happen: counted above */
			total_time += time;
			total_count += count;
			chain[x].val = val;
			chain[x].time_avg = count ? time / count : 0;
			chain[x].count = count;
			chain[x].time = time;
			chain[x].time_min = time_min;
			chain[x].ts_min = ts_min;
			chain[x].time_max = time_max;
			chain[x].ts_max = ts_max;
			chain[x].children = make_chain(&stacks[start], i - start + 1, long_size, level + 1,
						       &chain[x].nr_children);
			x++;
			start = i + 1;
			count = time = time_min = time_max = 0;
		}
	}
	/* glibc's qsort, as trace-cmd's: the same input order gives the same result */
	qsort(chain, (size_t)nr, sizeof(*chain), cmp_chains);
	*nr_children = nr;
	for (int i = 0; i < nr; i++) {
		if (total_time)
			chain[i].percent = (int)((chain[i].time * 100 + total_time / 2) / total_time);
		else if (total_count)
			chain[i].percent = (int)((chain[i].count * 100 + total_count / 2) / total_count);
	}
	return chain;
}

static void put_fmt(struct outbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put_fmt(struct outbuf *out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		outbuf_write(out, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static bool mask_bit(uint64_t mask, int p)
{
	return p < 64 && (mask & (1ull << p));
}

static void print_indent(struct outbuf *out, int level, uint64_t mask)
{
	for (int p = 0; p < level + 1; p++)
		put_fmt(out, "%*c ", PT_INDENT, mask_bit(mask, p) ? '|' : ' ');
}

static void print_chain_func(struct tep_handle *tep, struct outbuf *out, const struct pt_chain *c)
{
	const char *func = tep_find_function(tep, c->val);

	if (func)
		put_fmt(out, "%s (0x%llx)\n", func, (unsigned long long)c->val);
	else
		put_fmt(out, "0x%llx\n", (unsigned long long)c->val);
}

static void set_bit(uint64_t *mask, int p, bool on)
{
	if (p >= 64)
		return;
	if (on)
		*mask |= 1ull << p;
	else
		*mask &= ~(1ull << p);
}

/* output_chain(): the tree, single children in a column, branches with '+' and '|'. */
static void output_chain(struct tep_handle *tep, struct outbuf *out, struct pt_chain *chain,
			 int level, int nr_chains, uint64_t *mask)
{
	char line = '|';

	if (!nr_chains)
		return;
	set_bit(mask, level + 1, true);
	print_indent(out, level + 1, *mask);
	outbuf_putc(out, '\n');
	for (int i = 0; i < nr_chains; i++) {
		struct pt_chain *child;
		int nr_children;

		print_indent(out, level, *mask);
		put_fmt(out, "%*c ", PT_INDENT, '+');
		if (i == nr_chains - 1) {
			set_bit(mask, level + 1, false);
			line = ' ';
		}
		print_chain_func(tep, out, &chain[i]);
		print_indent(out, level, *mask);
		put_fmt(out, "%*c ", PT_INDENT, line);
		put_fmt(out, "  %d%% (%lld)", chain[i].percent, (long long)chain[i].count);
		if (chain[i].time)
			put_fmt(out, " time:%lld max:%lld(ts:%lld.%06lld) min:%lld(ts:%lld.%06lld) avg:%lld",
				(long long)chain[i].time, (long long)chain[i].time_max,
				(long long)(chain[i].ts_max / 1000000000),
				(long long)((chain[i].ts_max % 1000000000 + 500) / 1000),
				(long long)chain[i].time_min, (long long)(chain[i].ts_min / 1000000000),
				(long long)((chain[i].ts_min % 1000000000 + 500) / 1000),
				(long long)chain[i].time_avg);
		outbuf_putc(out, '\n');
		for (child = chain[i].children, nr_children = chain[i].nr_children;
		     child && nr_children == 1;
		     nr_children = child->nr_children, child = child->children) {
			print_indent(out, level, *mask);
			put_fmt(out, "%*c ", PT_INDENT, line);
			outbuf_write(out, "   ", 3);
			print_chain_func(tep, out, child);
		}
		if (child)
			output_chain(tep, out, child, level + 1, nr_children, mask);
		print_indent(out, level + 1, *mask);
		outbuf_putc(out, '\n');
	}
	set_bit(mask, level + 1, false);
	print_indent(out, level, *mask);
	outbuf_putc(out, '\n');
}

static void output_stacks(struct tcp_profile *p, struct pt_event *e, struct outbuf *out)
{
	struct pt_chain *chain;
	uint64_t mask = 0;
	int nr = 0;

	if (!e->n_stacks)
		return;
	qsort(e->stacks, e->n_stacks, sizeof(*e->stacks), cmp_stacks);
	chain = make_chain(e->stacks, (int)e->n_stacks, p->long_size, 0, &nr);
	output_chain(p->tep, out, chain, 0, nr, &mask);
	free_chain(chain, nr);
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
		output_stacks(p, e, out);
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

static struct pt_event *lookup_event(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
				     uint64_t sv, uint64_t v)
{
	uint64_t key = key_event(t, ed, sv, v);

	for (struct pt_event *e = p->events.b ? p->events.b[key & p->events.mask] : NULL; e; e = e->hnext)
		if (e->task == t && e->ed == ed && e->search_val == sv && e->val == v)
			return e;
	return NULL;
}

/* merge_event_into_group(): wakeups become one entry, sched_switch one per state. */
static void merge_into_group(struct tcp_profile *p, struct pt_task *g, struct pt_event *e)
{
	struct pt_event *x;

	hash_del(&p->events, e, key_event(e->task, e->ed, e->search_val, e->val));
	if (e->ed->type == T_WAKEUP)
		e->search_val = e->val = 0;
	else if (e->ed->type == T_SWITCH)
		e->search_val = e->val;
	if (!(x = lookup_event(p, g, e->ed, e->search_val, e->val))) {
		e->task = g;
		if (hash_add(&p->events, e, key_event(g, e->ed, e->search_val, e->val), item_key_event)) {
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
		/* merge_stacks(): same callers add up (maximum if less, minimum if more) */
		for (size_t i = 0; i < e->n_stacks; i++) {
			struct pt_stack *st = e->stacks[i], *ex = NULL;
			for (size_t k = 0; k < x->n_stacks && !ex; k++)
				if (x->stacks[k]->size == st->size && !memcmp(x->stacks[k]->caller, st->caller, st->size))
					ex = x->stacks[k];
			if (!ex) {
				if (x->n_stacks == x->cap_stacks) {
					size_t nc = x->cap_stacks ? x->cap_stacks * 2 : 4;
					struct pt_stack **v = realloc(x->stacks, nc * sizeof(*v));
					if (!v) {
						free(st);
						continue;
					}
					x->stacks = v;
					x->cap_stacks = nc;
				}
				x->stacks[x->n_stacks++] = st;
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
