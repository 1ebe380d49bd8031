/*
 * `llvm-xray stack`: call stacks (tools/llvm-xray/xray-stacks.cpp, LLVM 14).
 *
 * ACCOUNTING.  The records come in llvm-xray's unsorted order (the CLI opens
 * the log with opts.unsorted: `stack` does not sort).  Each thread has a
 * stack of (call-tree node, entry TSC); the call tree of a thread has one
 * root per function entered on an empty stack, and below each node one
 * child per function called from it.  An entry pushes the child of the top
 * node (or the root) for its function, created on first use.  An exit looks
 * for the innermost frame of its function: every frame above it (not
 * included) gets an "intermediate" duration, and so does the frame itself
 * when the previous record was also an exit, else a "terminal" one (a leaf
 * call); durations are |exit TSC - entry TSC|.  An exit whose function is
 * not on the stack is an error for llvm-xray (ENTRY_NOT_FOUND: with -k it
 * goes on) and all the same closes the whole stack that way; an exit on an
 * empty stack only is the error.  "Was the previous record an exit" is ONE
 * flag for the whole file, not per thread (llvm's AccountRecordState): the
 * first exit of a thread follows the last record of another thread in
 * llvm's order.  Custom and typed events change nothing.  We keep, per
 * node, the count and the sum (mod 2^64) of each kind of duration, which is
 * all llvm-xray prints.
 *
 * ORDER.  Threads come in the order of llvm's DenseMap<uint32_t> of roots
 * (src/xray/densemap.c), keyed by thread id, inserted when a thread first
 * enters a call on an empty stack.  Roots and callees are in creation
 * order; walks are depth first with an explicit stack, so the callees of a
 * node come out LAST created FIRST.  The top 10 lists keep the 10 largest
 * values, a value going before the equal ones already there
 * (llvm::lower_bound with `>`).
 *
 * --aggregate-threads merges the threads' trees (llvm's mergeAcrossThreads
 * and mergeTrieNodes): roots in thread order, a root whose function is
 * already there merged with it and the merged root MOVED to the end of the
 * list; merging two nodes makes a new node with both nodes' durations whose
 * callees are, in order, those of the right node (merged with the left
 * node's callee of the same function when there is one) then the left
 * node's other callees in the order of a DenseMap<int32_t> of them.  Nodes
 * that are not merged are shared, with their own parent: the "lvl" lines of
 * a stack above an unmerged node show that thread's figures, not the merged
 * ones (as llvm-xray).  llvm-xray 14 erases the old root through an
 * iterator that its push_back of the merged root may have invalidated: when
 * the root list grows from 4 entries (or 9, 19...) it crashes or drops the
 * merged root; we merge as intended (tests/golden/test_xray_stack.py).
 *
 * OUTPUT.  Top stacks ("Unique Stacks", top 10 by leaf sum then by leaf
 * count, each stack from its root: llvm's formatv columns, names over 60
 * bytes cut to 57 + "...", the sums of the "lvl" lines signed as llvm's
 * accumulate into a long long) or, with --all-stacks, one flamegraph.pl
 * line per node: "thread_TID;f;g; VALUE", VALUE the sum of all durations
 * (time) or their number (count).
 *
 * FLAME WITH EXCLUSIVE TIMES (ours, --flame-exclusive).  flamegraph.pl adds
 * the values of a stack's descendants to the stack's own, so llvm-xray's
 * inclusive times count callees twice (llvm-project issue 63676).  With
 * opts.exclusive a line carries the node's time minus its callees' times:
 * the same lines, and flamegraph.pl's widths become the inclusive times.
 * A node whose callees took longer than itself (it never exited: no
 * duration of its own) prints 0 (counted: tmx_xstack_clamped).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sink/outbuf.h"
#include "common/intmap.h"
#include "tools/xray/stack.h"
#include "xray/densemap.h"
#include "model/xray_map.h"
#include "common/errors.h"

#define NONE UINT32_MAX
#define TOP_N 10
#define NAME_COLUMN 60

struct node {
	int32_t func;
	uint32_t parent;              /* NONE: a root */
	uint32_t first, last;         /* callee edges in creation order (NONE: none) */
	uint64_t term_n, term_sum;    /* durations of leaf calls */
	uint64_t inter_n, inter_sum;  /* durations of calls closed after a callee's exit */
};

/* Callee lists are edge lists: an unmerged node is a callee of its parent and of merged nodes. */
struct edge {
	uint32_t node, next;
};

struct frame {
	uint32_t node;
	uint64_t tsc;
};

struct thread {
	uint32_t tid;
	struct frame *stack;
	size_t depth, cap;
	uint32_t roots_first, roots_last;   /* root edges (NONE: none yet) */
	bool in_roots;                      /* a key of llvm's Roots map */
};

struct tmx_xstack {
	struct tmx_xstack_opts opts;
	struct node *nodes;
	size_t n_nodes, cap_nodes;
	struct edge *edges;
	size_t n_edges, cap_edges;
	struct imap child_of;          /* parent node << 32 | func -> node */
	struct imap root_of;           /* thread << 32 | func -> node */
	struct thread *threads;
	size_t n_threads, cap_threads;
	struct imap thread_of;         /* tid -> thread */
	struct thread *last_thread;
	uint32_t *roots_order;         /* threads in the order they became keys of Roots */
	size_t n_roots_order, cap_roots_order;
	struct imap name_of;           /* func id -> names[] */
	char **names;
	size_t n_names, cap_names;
	bool last_exit;                /* llvm's AccountRecordState::wasLastRecordExit */
	const struct tmx_trace_class *last_tc;
	bool last_is_xray;
	uint64_t clamped;
};

static int nomem(struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory while building call stacks");
}

struct tmx_xstack *tmx_xstack_new(const struct tmx_xstack_opts *opts)
{
	struct tmx_xstack *s = calloc(1, sizeof(*s));

	if (s)
		s->opts = *opts;
	return s;
}

void tmx_xstack_free(struct tmx_xstack *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_threads; i++)
		free(s->threads[i].stack);
	for (size_t i = 0; i < s->n_names; i++)
		free(s->names[i]);
	free(s->names);
	free(s->threads);
	free(s->roots_order);
	free(s->nodes);
	free(s->edges);
	imap_free(&s->child_of);
	imap_free(&s->root_of);
	imap_free(&s->thread_of);
	imap_free(&s->name_of);
	free(s);
}

void tmx_xstack_begin_file(struct tmx_xstack *s)
{
	s->last_exit = false;
}

bool tmx_xstack_empty(const struct tmx_xstack *s)
{
	return s->n_roots_order == 0;
}

uint64_t tmx_xstack_clamped(const struct tmx_xstack *s)
{
	return s->clamped;
}

/* ------------------------------------------------------------------ */
/* Call trees                                                           */
/* ------------------------------------------------------------------ */

static uint32_t new_node(struct tmx_xstack *s, int32_t func, uint32_t parent)
{
	/* Indexes stay below NONE, and below 2^32 - 1 as imap keys. */
	if (s->n_nodes >= NONE - 1 ||
	    !tmx_grow_array((void **)&s->nodes, &s->cap_nodes, s->n_nodes + 1,
			    sizeof(*s->nodes), 8))
		return NONE;
	s->nodes[s->n_nodes] = (struct node){ .func = func, .parent = parent, .first = NONE,
					      .last = NONE };
	return (uint32_t)s->n_nodes++;
}

/* Appends `node` to the edge list (*first, *last). */
static bool append_edge(struct tmx_xstack *s, uint32_t *first, uint32_t *last, uint32_t node)
{
	if (s->n_edges >= NONE - 1 ||
	    !tmx_grow_array((void **)&s->edges, &s->cap_edges, s->n_edges + 1,
			    sizeof(*s->edges), 8))
		return false;
	s->edges[s->n_edges] = (struct edge){ node, NONE };
	if (*last == NONE)
		*first = (uint32_t)s->n_edges;
	else
		s->edges[*last].next = (uint32_t)s->n_edges;
	*last = (uint32_t)s->n_edges++;
	return true;
}

static uint64_t key_of(uint32_t owner, int32_t func)
{
	return (uint64_t)owner << 32 | (uint32_t)func;
}

/* The callee of `parent` for `func` (NONE: none). */
static uint32_t find_callee(const struct tmx_xstack *s, uint32_t parent, int32_t func)
{
	const uint32_t *v = imap_find(&s->child_of, key_of(parent, func));

	return v ? *v : NONE;
}

/* Appends `node` to the callees of `parent`, where find_callee finds it. */
static bool add_callee(struct tmx_xstack *s, uint32_t parent, uint32_t node)
{
	bool added;
	uint32_t *v = imap_get(&s->child_of, key_of(parent, s->nodes[node].func), node, &added);

	return v && append_edge(s, &s->nodes[parent].first, &s->nodes[parent].last, node);
}

/* The callee of `parent` for `func`, created on first use (NONE: out of memory). */
static uint32_t callee(struct tmx_xstack *s, uint32_t parent, int32_t func)
{
	uint32_t n = find_callee(s, parent, func);

	if (n != NONE)
		return n;
	n = new_node(s, func, parent);
	if (n == NONE || !add_callee(s, parent, n))
		return NONE;
	return n;
}

/* The root of thread t for `func`, created on first use (NONE: out of memory). */
static uint32_t root(struct tmx_xstack *s, struct thread *t, int32_t func)
{
	uint64_t key = key_of((uint32_t)(t - s->threads), func);
	uint32_t *v = imap_find(&s->root_of, key), n;
	bool added;

	if (v)
		return *v;
	n = new_node(s, func, NONE);
	if (n == NONE || !append_edge(s, &t->roots_first, &t->roots_last, n) ||
	    !imap_get(&s->root_of, key, n, &added))
		return NONE;
	return n;
}

/* ------------------------------------------------------------------ */
/* Records                                                              */
/* ------------------------------------------------------------------ */

static struct thread *thread_of(struct tmx_xstack *s, uint32_t tid)
{
	uint32_t *slot;
	bool added;

	if (s->last_thread && s->last_thread->tid == tid)
		return s->last_thread;
	/* Room first, so that a key in the map always has its thread. */
	if (s->n_threads >= NONE - 1 ||
	    !tmx_grow_array((void **)&s->threads, &s->cap_threads, s->n_threads + 1,
			    sizeof(*s->threads), 8))
		return NULL;
	slot = imap_get(&s->thread_of, tid, (uint32_t)s->n_threads, &added);
	if (!slot)
		return NULL;
	if (added) {
		s->threads[s->n_threads] = (struct thread){ .tid = tid, .roots_first = NONE,
							    .roots_last = NONE };
		s->n_threads++;
	}
	s->last_thread = &s->threads[*slot];
	return s->last_thread;
}

/* The name of a function, kept from the first record that has it. */
static bool remember_name(struct tmx_xstack *s, int32_t func, const struct tmx_value *v)
{
	char *name;
	bool added;

	if (!s->opts.symbolized || imap_find(&s->name_of, (uint32_t)func))
		return true;
	if (!tmx_grow_array((void **)&s->names, &s->cap_names, s->n_names + 1,
			    sizeof(*s->names), 8) ||
	    !(name = malloc(v->str.len + 1)))
		return false;
	if (v->str.len)
		memcpy(name, v->str.ptr, v->str.len);
	name[v->str.len] = '\0';
	if (!imap_get(&s->name_of, (uint32_t)func, (uint32_t)s->n_names, &added)) {
		free(name);
		return false;
	}
	s->names[s->n_names++] = name;
	return true;
}

/* llvm-xray's FuncIdConversionHelper::SymbolOrNumber: the name, or "#ID" without a map. */
static const char *name_of(const struct tmx_xstack *s, int32_t func, char buf[16])
{
	const uint32_t *slot = s->opts.symbolized ? imap_find(&s->name_of, (uint32_t)func) : NULL;

	if (slot)
		return s->names[*slot];
	snprintf(buf, 16, "#%d", func);
	return buf;
}

static int enter(struct tmx_xstack *s, struct thread *t, int32_t func, uint64_t tsc,
		 struct tmx_error *err)
{
	uint32_t n;

	s->last_exit = false;
	if (t->depth == 0) {
		if (!t->in_roots) {
			if (!tmx_grow_array((void **)&s->roots_order, &s->cap_roots_order,
					    s->n_roots_order + 1, sizeof(*s->roots_order), 8))
				return nomem(err);
			s->roots_order[s->n_roots_order++] = (uint32_t)(t - s->threads);
			t->in_roots = true;
		}
		n = root(s, t, func);
	} else {
		n = callee(s, t->stack[t->depth - 1].node, func);
	}
	if (n == NONE ||
	    !tmx_grow_array((void **)&t->stack, &t->cap, t->depth + 1, sizeof(*t->stack), 8))
		return s->n_nodes >= NONE - 1 ?
			tmx_error_set(err, TMX_ERR_LIMIT, NULL, "more than 2^32 call stacks") :
			nomem(err);
	t->stack[t->depth++] = (struct frame){ n, tsc };
	return TMX_OK;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static void add_duration(struct node *n, bool terminal, uint64_t d)
{
	if (terminal) {
		n->term_n++;
		n->term_sum += d;
	} else {
		n->inter_n++;
		n->inter_sum += d;
	}
}

/* Returns false for llvm's ENTRY_NOT_FOUND. */
static bool leave(struct tmx_xstack *s, struct thread *t, int32_t func, uint64_t tsc)
{
	bool after_exit = s->last_exit;
	size_t k = t->depth, from;

	s->last_exit = true;
	if (t->depth == 0)
		return false;
	while (k > 0 && s->nodes[t->stack[k - 1].node].func != func)
		k--;
	from = k ? k - 1 : 0;   /* not on the stack: the whole stack unwinds */
	for (size_t i = from; i + 1 < t->depth; i++)
		add_duration(&s->nodes[t->stack[i].node], false, distance(t->stack[i].tsc, tsc));
	add_duration(&s->nodes[t->stack[t->depth - 1].node], !after_exit,
		     distance(t->stack[t->depth - 1].tsc, tsc));
	t->depth = from;
	return k != 0;
}

static bool is_xray(struct tmx_xstack *s, const struct tmx_trace_class *tc)
{
	if (tc != s->last_tc) {
		const struct tmx_env_entry *e = tmx_trace_class_env(tc, "tracer_name");
		s->last_tc = tc;
		s->last_is_xray = e && !e->is_int && !strcmp(e->str_value, "llvm-xray");
	}
	return s->last_is_xray;
}

int tmx_xstack_consume(struct tmx_xstack *s, const struct tmx_msg *msg, bool *unmatched,
		       struct tmx_xstack_unmatched *um, struct tmx_error *err)
{
	const struct tmx_event *e = msg->event;
	const struct tmx_value *ctx, *pl;
	struct thread *t;
	uint64_t cls;
	int32_t func;

	*unmatched = false;
	if (msg->kind != TMX_MSG_EVENT || !is_xray(s, msg->stream->cls->trace_class))
		return TMX_OK;
	cls = e->cls->id;
	/* Custom and typed events change nothing; wall-time markers are not llvm-xray records. */
	if (cls > TMX_XRAY_EV_ENTER_ARG)
		return TMX_OK;
	ctx = e->scopes[TMX_SCOPE_COMMON_CONTEXT];
	pl = e->scopes[TMX_SCOPE_PAYLOAD];
	if (!ctx || !pl)
		return TMX_OK;
	func = (int32_t)pl[TMX_XRAY_P_FUNC_ID].s;
	t = thread_of(s, (uint32_t)ctx[TMX_XRAY_CTX_TID].u);
	if (!t || !remember_name(s, func, &pl[TMX_XRAY_P_FUNCTION]))
		return nomem(err);
	if (cls == TMX_XRAY_EV_ENTER || cls == TMX_XRAY_EV_ENTER_ARG)
		return enter(s, t, func, msg->cycles, err);
	if (!leave(s, t, func, msg->cycles)) {
		*unmatched = true;
		*um = (struct tmx_xstack_unmatched){
			.tid = t->tid, .func_id = func,
			.record_type = (uint16_t)pl[TMX_XRAY_P_RECORD_TYPE].u, .tsc = msg->cycles,
		};
	}
	return TMX_OK;
}

void tmx_xstack_describe(const struct tmx_xstack *s, const struct tmx_xstack_unmatched *um,
			 char *buf, size_t size)
{
	char num[16];
	/* llvm's format_xray_record decodes RecordType, not the record's kind. */
	const char *type = um->record_type == 0 ? "Fn Entry" :
			   um->record_type == 1 ? "Fn Exit" : "Unknown";

	snprintf(buf, size,
		 "Found record {FuncId: \"%s\", ThreadId: \"%u\", RecordType: \"%s\"} with no "
		 "matching function entry", name_of(s, um->func_id, num), um->tid, type);
}

/* ------------------------------------------------------------------ */
/* --aggregate-threads                                                  */
/* ------------------------------------------------------------------ */

struct merge_task {
	uint32_t merged, left, right;
};

struct merger {
	struct merge_task *tasks;
	size_t n_tasks, cap_tasks;
	/* The left node's callees: nodes, functions, DenseMap order. */
	uint32_t *lnode, *lfunc, *lorder;
	size_t cap_lnode, cap_lfunc, cap_lorder;
};

/* A new node with the durations of both, below `parent`; its callees come from its task. */
static uint32_t merged_node(struct tmx_xstack *s, struct merger *m, uint32_t left, uint32_t right,
			    uint32_t parent)
{
	uint32_t n = new_node(s, s->nodes[left].func, parent);
	struct node *l, *r, *x;

	if (n == NONE || !tmx_grow_array((void **)&m->tasks, &m->cap_tasks, m->n_tasks + 1,
					 sizeof(*m->tasks), 8))
		return NONE;
	l = &s->nodes[left];
	r = &s->nodes[right];
	x = &s->nodes[n];
	x->term_n = l->term_n + r->term_n;
	x->term_sum = l->term_sum + r->term_sum;
	x->inter_n = l->inter_n + r->inter_n;
	x->inter_sum = l->inter_sum + r->inter_sum;
	m->tasks[m->n_tasks++] = (struct merge_task){ n, left, right };
	return n;
}

/* The callees of one merged node (llvm's mergeTrieNodes, its recursion as tasks). */
static bool merge_callees(struct tmx_xstack *s, struct merger *m, struct merge_task t)
{
	size_t nl = 0;

	for (uint32_t e = s->nodes[t.right].first; e != NONE; e = s->edges[e].next) {
		uint32_t c = s->edges[e].node, l = find_callee(s, t.left, s->nodes[c].func);
		if (l != NONE && (c = merged_node(s, m, l, c, t.merged)) == NONE)
			return false;
		if (!add_callee(s, t.merged, c))
			return false;
	}
	/* The left callees not merged, in the order of llvm's DenseMap<int32_t> of them. */
	for (uint32_t e = s->nodes[t.left].first; e != NONE; e = s->edges[e].next, nl++) {
		if (!tmx_grow_array((void **)&m->lnode, &m->cap_lnode, nl + 1,
				    sizeof(*m->lnode), 8) ||
		    !tmx_grow_array((void **)&m->lfunc, &m->cap_lfunc, nl + 1,
				    sizeof(*m->lfunc), 8) ||
		    !tmx_grow_array((void **)&m->lorder, &m->cap_lorder, nl + 1,
				    sizeof(*m->lorder), 8))
			return false;
		m->lnode[nl] = s->edges[e].node;
		m->lfunc[nl] = (uint32_t)s->nodes[m->lnode[nl]].func;
	}
	if (!xr_densemap32_order(m->lfunc, nl, m->lorder))
		return false;
	for (size_t i = 0; i < nl; i++) {
		uint32_t l = m->lnode[m->lorder[i]];
		if (find_callee(s, t.right, s->nodes[l].func) == NONE && !add_callee(s, t.merged, l))
			return false;
	}
	return true;
}

/* mergeTrieNodes(left, right, parent NONE): the merged root. */
static uint32_t merge_roots(struct tmx_xstack *s, struct merger *m, uint32_t left, uint32_t right)
{
	uint32_t top = merged_node(s, m, left, right, NONE);

	while (top != NONE && m->n_tasks)
		if (!merge_callees(s, m, m->tasks[--m->n_tasks]))
			return NONE;
	return top;
}

/* A list of roots, in order, with removal: llvm's MergedByThreadRoots. */
struct root_list {
	struct root_entry {
		uint32_t node, prev, next;
	} *e;
	size_t n, cap;
	uint32_t head, tail;
	struct imap by_func;      /* func -> live entry */
};

static bool root_list_append(struct root_list *l, uint32_t node, int32_t func)
{
	uint32_t *slot;
	bool added;

	if (!tmx_grow_array((void **)&l->e, &l->cap, l->n + 1, sizeof(*l->e), 8))
		return false;
	slot = imap_get(&l->by_func, (uint32_t)func, 0, &added);
	if (!slot)
		return false;
	*slot = (uint32_t)l->n;
	l->e[l->n] = (struct root_entry){ node, l->tail, NONE };
	if (l->tail == NONE)
		l->head = (uint32_t)l->n;
	else
		l->e[l->tail].next = (uint32_t)l->n;
	l->tail = (uint32_t)l->n++;
	return true;
}

static void root_list_unlink(struct root_list *l, uint32_t i)
{
	struct root_entry *x = &l->e[i];

	if (x->prev == NONE)
		l->head = x->next;
	else
		l->e[x->prev].next = x->next;
	if (x->next == NONE)
		l->tail = x->prev;
	else
		l->e[x->next].prev = x->prev;
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

struct nodes {
	uint32_t *v;
	size_t n, cap;
};

static bool push(struct nodes *a, uint32_t x)
{
	if (!tmx_grow_array((void **)&a->v, &a->cap, a->n + 1, sizeof(*a->v), 8))
		return false;
	a->v[a->n++] = x;
	return true;
}

/* The roots of thread t, in creation order. */
static bool thread_roots(const struct tmx_xstack *s, const struct thread *t, struct nodes *out)
{
	for (uint32_t e = t->roots_first; e != NONE; e = s->edges[e].next)
		if (!push(out, s->edges[e].node))
			return false;
	return true;
}

/* The threads of llvm's Roots map in its iteration order. */
static uint32_t *threads_in_order(const struct tmx_xstack *s)
{
	size_t n = s->n_roots_order;
	uint32_t *tids = calloc(n ? n : 1, sizeof(*tids));
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	bool ok = tids && order;

	for (size_t i = 0; ok && i < n; i++)
		tids[i] = s->threads[s->roots_order[i]].tid;
	ok = ok && xr_densemap32_order(tids, n, order);
	for (size_t i = 0; ok && i < n; i++)
		order[i] = s->roots_order[order[i]];
	free(tids);
	if (!ok) {
		free(order);
		return NULL;
	}
	return order;
}

/* llvm's mergeAcrossThreads: the merged roots into *out. */
static bool merge_threads(struct tmx_xstack *s, const uint32_t *threads, struct nodes *out)
{
	struct root_list l = { .head = NONE, .tail = NONE };
	struct merger m = { 0 };
	bool ok = true;

	for (size_t i = 0; ok && i < s->n_roots_order; i++) {
		const struct thread *t = &s->threads[threads[i]];
		for (uint32_t e = t->roots_first; ok && e != NONE; e = s->edges[e].next) {
			uint32_t r = s->edges[e].node;
			int32_t func = s->nodes[r].func;
			uint32_t *slot = imap_find(&l.by_func, (uint32_t)func);
			if (slot) {
				uint32_t was = *slot;
				r = merge_roots(s, &m, l.e[was].node, r);
				root_list_unlink(&l, was);
				ok = r != NONE;
			}
			ok = ok && root_list_append(&l, r, func);
		}
	}
	for (uint32_t i = l.head; ok && i != NONE; i = l.e[i].next)
		ok = push(out, l.e[i].node);
	free(l.e);
	imap_free(&l.by_func);
	free(m.tasks);
	free(m.lnode);
	free(m.lfunc);
	free(m.lorder);
	return ok;
}

/* A name in a column of 60 bytes, cut to 57 bytes + "..." when longer. */
static void put_name_column(struct outbuf *b, const char *name)
{
	size_t len = strlen(name);

	if (len > NAME_COLUMN) {
		outbuf_write(b, name, NAME_COLUMN - 3);
		outbuf_puts(b, "...");
		return;
	}
	outbuf_write(b, name, len);
	for (; len < NAME_COLUMN; len++)
		outbuf_putc(b, ' ');
}

static void put_level(const struct tmx_xstack *s, struct outbuf *b, int level, int32_t func,
		      uint64_t count, uint64_t sum)
{
	char line[64], num[16];

	snprintf(line, sizeof(line), "#%-4d ", level);
	outbuf_puts(b, line);
	put_name_column(b, name_of(s, func, num));
	/* llvm accumulates these sums into a long long: they print signed. */
	snprintf(line, sizeof(line), " %12llu %16lld\n", (unsigned long long)count,
		 (long long)sum);
	outbuf_puts(b, line);
}

/* llvm's printStack: the stack of `leaf` from its root, by parent links. */
static bool print_stack(const struct tmx_xstack *s, struct outbuf *b, uint32_t leaf,
			struct nodes *chain)
{
	char line[128];
	int level = 0;

	chain->n = 0;
	for (uint32_t n = leaf; n != NONE; n = s->nodes[n].parent)
		if (!push(chain, n))
			return false;
	snprintf(line, sizeof(line), "%-5s %-60s %12s %16s\n", "lvl", "function", "count", "sum");
	outbuf_puts(b, line);
	for (size_t i = chain->n - 1; i > 0; i--) {
		const struct node *f = &s->nodes[chain->v[i]];
		put_level(s, b, level++, f->func, f->inter_n, f->inter_sum);
	}
	put_level(s, b, level, s->nodes[leaf].func, s->nodes[leaf].term_n,
		  s->nodes[leaf].term_sum);
	outbuf_putc(b, '\n');
	return true;
}

struct top {
	uint32_t node;
	uint64_t value;
};

/* Inserted before the first value <= it (llvm::lower_bound with `>`), the 11th dropped. */
static void top_insert(struct top *t, size_t *n, uint32_t node, uint64_t value)
{
	size_t i = 0;

	while (i < *n && t[i].value > value)
		i++;
	if (i == TOP_N)
		return;
	memmove(&t[i + 1], &t[i], (*n - i - (*n == TOP_N)) * sizeof(*t));
	t[i] = (struct top){ node, value };
	if (*n < TOP_N)
		(*n)++;
}

/* llvm's print: unique stacks and the top 10 by leaf sum and by leaf count. */
static bool print_top(const struct tmx_xstack *s, struct outbuf *b, const struct nodes *roots,
		      struct nodes *work)
{
	struct top by_sum[TOP_N], by_count[TOP_N];
	size_t n_sum = 0, n_count = 0;
	uint64_t unique = 0;
	char line[64];

	for (size_t r = 0; r < roots->n; r++) {
		work->n = 0;
		if (!push(work, roots->v[r]))
			return false;
		while (work->n) {
			uint32_t top = work->v[--work->n];
			const struct node *x = &s->nodes[top];
			if (x->term_n) {
				unique++;
				top_insert(by_sum, &n_sum, top, x->term_sum);
				top_insert(by_count, &n_count, top, x->term_n);
			}
			for (uint32_t e = x->first; e != NONE; e = s->edges[e].next)
				if (!push(work, s->edges[e].node))
					return false;
		}
	}
	snprintf(line, sizeof(line), "\nUnique Stacks: %llu\n", (unsigned long long)unique);
	outbuf_puts(b, line);
	outbuf_puts(b, "Top 10 Stacks by leaf sum:\n\n");
	for (size_t i = 0; i < n_sum; i++) {
		snprintf(line, sizeof(line), "Sum: %llu\n", (unsigned long long)by_sum[i].value);
		outbuf_puts(b, line);
		if (!print_stack(s, b, by_sum[i].node, work))
			return false;
	}
	outbuf_puts(b, "\nTop 10 Stacks by leaf count:\n\n");
	for (size_t i = 0; i < n_count; i++) {
		snprintf(line, sizeof(line), "Count: %llu\n", (unsigned long long)by_count[i].value);
		outbuf_puts(b, line);
		if (!print_stack(s, b, by_count[i].node, work))
			return false;
	}
	outbuf_putc(b, '\n');
	return true;
}

static uint64_t stack_value(const struct tmx_xstack *s, uint32_t n)
{
	const struct node *x = &s->nodes[n];

	return s->opts.count ? x->term_n + x->inter_n : x->term_sum + x->inter_sum;
}

/* --flame-exclusive: the node's time less its callees' (0 when they took longer). */
static uint64_t exclusive_value(struct tmx_xstack *s, uint32_t n)
{
	uint64_t own = stack_value(s, n), callees = 0;

	for (uint32_t e = s->nodes[n].first; e != NONE; e = s->edges[e].next) {
		uint64_t v = stack_value(s, s->edges[e].node);
		if (v > own - callees) {
			s->clamped++;
			return 0;
		}
		callees += v;
	}
	return own - callees;
}

/* One flame line per node below `roots`, depth first; `path` holds the names above. */
struct flame_walk {
	struct nodes work, depth;
	char *path;
	size_t *ends;               /* ends[d]: length of the path of depth d */
	size_t cap_path, cap_ends;
};

static bool print_flame(struct tmx_xstack *s, struct outbuf *b, const struct nodes *roots,
			const char *prefix, struct flame_walk *w)
{
	char num[24];

	for (size_t r = 0; r < roots->n; r++) {
		w->work.n = w->depth.n = 0;
		if (!push(&w->work, roots->v[r]) || !push(&w->depth, 0))
			return false;
		while (w->work.n) {
			uint32_t top = w->work.v[--w->work.n], d = w->depth.v[--w->depth.n];
			const char *name = name_of(s, s->nodes[top].func, num);
			size_t start = d ? w->ends[d - 1] : 0, len = strlen(name);
			uint64_t v;
			if (!tmx_grow_array((void **)&w->path, &w->cap_path, start + len + 1,
					    1, 8) ||
			    !tmx_grow_array((void **)&w->ends, &w->cap_ends, (size_t)d + 1,
					    sizeof(*w->ends), 8))
				return false;
			memcpy(w->path + start, name, len);
			w->path[start + len] = ';';
			w->ends[d] = start + len + 1;
			v = s->opts.exclusive ? exclusive_value(s, top) : stack_value(s, top);
			outbuf_puts(b, prefix);
			outbuf_write(b, w->path, w->ends[d]);
			outbuf_putc(b, ' ');
			outbuf_u64(b, v, 0);
			outbuf_putc(b, '\n');
			for (uint32_t e = s->nodes[top].first; e != NONE; e = s->edges[e].next)
				if (!push(&w->work, s->edges[e].node) || !push(&w->depth, d + 1))
					return false;
		}
	}
	return true;
}

/* The report into b; false when out of memory. */
static bool write_report(struct tmx_xstack *s, struct outbuf *b, const uint32_t *threads)
{
	struct nodes roots = { 0 }, work = { 0 };
	struct flame_walk w = { 0 };
	bool ok = true;

	if (s->opts.aggregate_threads) {
		ok = merge_threads(s, threads, &roots);
		if (ok && s->opts.all_stacks)
			ok = print_flame(s, b, &roots, "", &w);
		else if (ok)
			ok = print_top(s, b, &roots, &work);
	} else if (s->opts.all_stacks || s->opts.per_thread) {
		for (size_t i = 0; ok && i < s->n_roots_order; i++) {
			const struct thread *t = &s->threads[threads[i]];
			char head[32];
			roots.n = 0;
			ok = thread_roots(s, t, &roots);
			if (ok && s->opts.all_stacks) {
				snprintf(head, sizeof(head), "thread_%u;", t->tid);
				ok = print_flame(s, b, &roots, head, &w);
			} else if (ok) {
				snprintf(head, sizeof(head), "Thread %u:\n", t->tid);
				outbuf_puts(b, head);
				ok = print_top(s, b, &roots, &work);
				outbuf_putc(b, '\n');
			}
		}
	} else {
		for (size_t i = 0; ok && i < s->n_roots_order; i++)
			ok = thread_roots(s, &s->threads[threads[i]], &roots);
		ok = ok && print_top(s, b, &roots, &work);
	}
	free(roots.v);
	free(work.v);
	free(w.work.v);
	free(w.depth.v);
	free(w.path);
	free(w.ends);
	return ok;
}

int tmx_xstack_write(struct tmx_xstack *s, int fd, struct tmx_error *err)
{
	uint32_t *threads = threads_in_order(s);
	struct outbuf *b = malloc(sizeof(*b));
	bool ok;
	int e;

	if (!threads || !b) {
		free(threads);
		free(b);
		return nomem(err);
	}
	outbuf_init(b, fd);
	ok = write_report(s, b, threads);
	e = outbuf_flush(b);
	free(threads);
	free(b);
	if (!ok)
		return nomem(err);
	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return TMX_OK;
}
