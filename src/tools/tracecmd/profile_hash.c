/*
 * `trace-cmd report --profile`: the hash tables (chained, newest first in
 * each chain as trace-cmd's trace_hash), and the tasks, starts and entries
 * they hold.  See profile_impl.h.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/tracecmd/profile_impl.h"

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
/* Tasks, starts, entries                                               */
/* ------------------------------------------------------------------ */

struct pt_task *pt_find_task(struct tcp_profile *p, int pid)
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


struct pt_start **pt_cpu_list(struct tcp_profile *p, int cpu)
{
	if (cpu < 0)
		return &p->migrate_starts;
	if (!tmx_grow_zeroed((void **)&p->cpu_starts, &p->n_cpus, (size_t)cpu + 1,
			     sizeof(*p->cpu_starts), 8))
		return NULL;
	return &p->cpu_starts[cpu];
}

struct pt_start *pt_add_start(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
			      const struct tep_record *rec, uint64_t search_val, uint64_t val)
{
	struct pt_start *s = p->free_starts;
	struct pt_start **head = pt_cpu_list(p, ed->migrate ? -1 : rec->cpu);

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

void pt_free_start(struct tcp_profile *p, struct pt_start *s)
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

struct pt_event *pt_find_event(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
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
bool pt_add_event_stack(struct pt_event *e, const uint8_t *caller, size_t size, uint64_t time,
			uint64_t ts)
{
	struct pt_stack *st = NULL;

	for (size_t i = 0; i < e->n_stacks && !st; i++)
		if (e->stacks[i]->size == size && !memcmp(e->stacks[i]->caller, caller, size))
			st = e->stacks[i];
	if (!st) {
		if (!tmx_grow_array((void **)&e->stacks, &e->cap_stacks, e->n_stacks + 1,
				    sizeof(*e->stacks), 4) ||
		    !(st = calloc(1, sizeof(*st) + size + 8)))
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
	e = pt_find_event(p, t, ed, s->search_val, s->val);
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
			pt_add_event_stack(e, s->stack->caller, s->stack->size, (uint64_t)delta, s->stack->ts);
	}
	pt_free_start(p, s);
	return e;
}

struct pt_event *pt_find_and_update_start(struct tcp_profile *p, struct pt_task *t,
					  struct pt_evd *ed, uint64_t ts, uint64_t search_val)
{
	struct pt_start *s;

	if (!ed || !(s = find_start(p, t, ed, search_val)))
		return NULL;
	return end_start(p, t, s, ed, ts);
}

struct pt_event *pt_lookup_event(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
				 uint64_t sv, uint64_t v)
{
	uint64_t key = key_event(t, ed, sv, v);

	for (struct pt_event *e = p->events.b ? p->events.b[key & p->events.mask] : NULL; e; e = e->hnext)
		if (e->task == t && e->ed == ed && e->search_val == sv && e->val == v)
			return e;
	return NULL;
}


void pt_event_unlink(struct tcp_profile *p, struct pt_event *e)
{
	hash_del(&p->events, e, key_event(e->task, e->ed, e->search_val, e->val));
}

bool pt_event_link(struct tcp_profile *p, struct pt_event *e)
{
	return hash_add(&p->events, e, key_event(e->task, e->ed, e->search_val, e->val),
			item_key_event);
}
