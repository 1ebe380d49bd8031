/*
 * `llvm-xray account`: call latencies per function.
 *
 * What llvm-xray 14 does (tools/llvm-xray/xray-account.cpp), and what we do
 * differently:
 *
 * - Records go through one call stack per thread: an enter pushes
 *   (function, TSC); an exit whose function is the top of the stack pops it
 *   and records the latency |exit TSC - enter TSC| for that function.  With
 *   -d (deduce sibling calls) an exit of a function deeper in the stack
 *   closes it and every call above it, each with the same exit TSC.
 *   Custom and typed events are not accounted.  Same here.
 * - llvm-xray also rejects every record whose TSC is below the TSC of the
 *   *first record it reads*.  Its records come thread after thread (it does
 *   not sort them for `account`), so on a multi-threaded log the threads
 *   that started earlier than the first one read fail: without -k it stops
 *   at once, with -k it leaves those threads out.  And a thread's FDR blocks
 *   may come out of time order there (newest first in fdr-v5-large.xray),
 *   pairing an enter with the exit of another block.  We take the records
 *   in TSC order (the CLI opens the log sorted, as `llvm-xray convert`
 *   sorts it) and have no such check, so the figures are those llvm-xray
 *   gives on the log converted to YAML (sorted) and read back, where its
 *   check never fires (tests/golden/test_xray_account.py does that).
 * - Unmatched records (an exit with no open call, an exit that is not the
 *   innermost open call) make llvm-xray stop without -k; we skip them as
 *   -k does, count them and say so (or stop with `strict`).  Calls still
 *   open at the end are counted too; llvm-xray ignores them silently.
 *
 * Output (account_table.c): llvm-xray's table, in its order.  Memory
 * (account_store.c, account_passes.c): the latencies within a budget, the
 * exact order statistics from more passes over the log beyond it.
 *
 * This file: the stack machine that turns records into latencies, and the
 * handle's life and accessors.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/grow.h"
#include "tools/xray/account_impl.h"
#include "model/xray_map.h"

struct tmx_xacct *tmx_xacct_new(const struct tmx_xacct_opts *opts)
{
	struct tmx_xacct *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->opts = *opts;
	a->budget = opts->memory ? opts->memory : TMX_XACCT_DEFAULT_MEMORY;
	a->pass = 1;
	return a;
}

void tmx_xacct_free(struct tmx_xacct *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n_threads; i++) {
		free(a->threads[i].stack);
		imap_free(&a->threads[i].recursion);
	}
	for (size_t i = 0; i < a->n_funcs; i++) {
		free(a->funcs[i].name);
		xacct_vec_free(&a->funcs[i].small);
		xacct_vec_free(&a->funcs[i].big);
		free(a->funcs[i].lhist);
	}
	xacct_free_probes(a);
	free(a->targets);
	free(a->threads);
	free(a->funcs);
	free(a->lat_order);
	free(a->direct);
	imap_free(&a->thread_of);
	imap_free(&a->func_of);
	free(a);
}

size_t tmx_xacct_n_functions(const struct tmx_xacct *a)
{
	return a->n_lat_order;
}

int32_t tmx_xacct_function(const struct tmx_xacct *a, size_t i, const char **name)
{
	const struct func *f = &a->funcs[a->lat_order[i]];

	*name = f->name;
	return f->id;
}

void tmx_xacct_get_figures(const struct tmx_xacct *a, size_t i, struct tmx_xacct_figures *out)
{
	const struct func *f = &a->funcs[a->lat_order[i]];

	*out = (struct tmx_xacct_figures){
		.count = f->n, .min = f->min, .median = f->q[Q_MED], .pct90 = f->q[Q_90],
		.pct99 = f->q[Q_99], .max = f->max, .sum = f->sum,
	};
}

const struct tmx_xacct_stats *tmx_xacct_stats(const struct tmx_xacct *a)
{
	return &a->stats;
}

unsigned tmx_xacct_passes(const struct tmx_xacct *a)
{
	return a->pass;
}

const char *tmx_xacct_skip_name(enum tmx_xacct_skip kind)
{
	switch (kind) {
	case TMX_XACCT_SKIP_EXIT_EMPTY:
		return "exit with no open call on its thread";
	case TMX_XACCT_SKIP_EXIT_MISMATCH:
		return "exit of a function that is not the innermost open call";
	case TMX_XACCT_SKIP_EXIT_NOT_OPEN:
		return "exit of a function that is not open on its thread";
	default:
		return "?";
	}
}

static struct thread *thread_of(struct tmx_xacct *a, uint32_t tid)
{
	uint32_t *slot;
	bool added;

	if (a->last_thread && a->last_thread->tid == tid)
		return a->last_thread;
	/* Room first, so that a key in the map always has its thread. */
	if (!tmx_grow_array((void **)&a->threads, &a->cap_threads, a->n_threads + 1,
			    sizeof(*a->threads), 8))
		return NULL;
	slot = imap_get(&a->thread_of, tid, (uint32_t)a->n_threads, &added);
	if (!slot)
		return NULL;
	if (added) {
		memset(&a->threads[a->n_threads], 0, sizeof(a->threads[0]));
		a->threads[a->n_threads].tid = tid;
		a->n_threads++;
		a->stats.threads++;
	}
	a->last_thread = &a->threads[*slot];
	return a->last_thread;
}

/* The function of `id`, named from `name` the first time (may be NULL). */
static struct func *func_of(struct tmx_xacct *a, int32_t id, const char *name, size_t len)
{
	uint32_t *slot = NULL;
	struct func *f;
	bool added;

	/* Function ids count from 1: small ones are looked up directly. */
	if (id >= 0 && (size_t)id < a->n_direct && a->direct[id]) {
		f = &a->funcs[a->direct[id] - 1];
		goto named;
	}
	if (!tmx_grow_array((void **)&a->funcs, &a->cap_funcs, a->n_funcs + 1,
			    sizeof(*a->funcs), 8))
		return NULL;
	slot = imap_get(&a->func_of, (uint32_t)id, (uint32_t)a->n_funcs, &added);
	if (!slot)
		return NULL;
	if (id >= 0 && id < DIRECT_MAX) {
		if (!tmx_grow_zeroed((void **)&a->direct, &a->n_direct, (size_t)id + 1,
				     sizeof(*a->direct), 64))
			return NULL;
		a->direct[id] = *slot + 1;
	}
	if (added) {
		memset(&a->funcs[a->n_funcs], 0, sizeof(a->funcs[0]));
		a->funcs[a->n_funcs].id = id;
		a->n_funcs++;
	}
	f = &a->funcs[*slot];
named:
	if (!f->name && name) {
		f->name = malloc(len + 1);
		if (!f->name)
			return NULL;
		memcpy(f->name, name, len);
		f->name[len] = '\0';
	}
	return f;
}

static bool record_latency(struct tmx_xacct *a, int32_t id, uint64_t latency)
{
	struct func *f = func_of(a, id, NULL, 0);

	if (!f)
		return false;
	return a->pass == 1 ? xacct_first_latency(a, f, latency)
			     : xacct_probe_latency(a, f, latency);
}

/* llvm's RecursionStatus: low 31 bits depth, sign bit "is recursive". */
#define REC_FLAG 0x80000000u

static uint32_t *recursion_of(struct thread *t, int32_t id)
{
	bool added;

	return imap_get(&t->recursion, (uint32_t)id, 0, &added);
}

static bool counts(struct tmx_xacct *a, struct thread *t, int32_t id, bool *ok)
{
	uint32_t *st;

	*ok = true;
	if (!a->opts.recursive_calls_only)
		return true;
	st = recursion_of(t, id);
	if (!st) {
		*ok = false;
		return false;
	}
	return (*st & REC_FLAG) != 0;
}

static bool leave(struct tmx_xacct *a, struct thread *t, int32_t id)
{
	uint32_t *st;
	uint32_t depth;

	if (!a->opts.recursive_calls_only)
		return true;
	st = recursion_of(t, id);
	if (!st)
		return false;
	depth = (*st & ~REC_FLAG) - 1;
	if ((*st & REC_FLAG) && depth == 0)
		*st = 0;
	else
		*st = (*st & REC_FLAG) | depth;
	return true;
}

int xacct_nomem(struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory while accounting calls");
}

static int skip(struct tmx_xacct *a, enum tmx_xacct_skip kind, uint32_t tid, int32_t id,
		uint64_t tsc, struct tmx_error *err)
{
	struct tmx_xacct_stats *s = &a->stats;

	if (a->pass > 1) {
		/* Counted in pass 1 (--strict stopped there); only checked here. */
		a->pass_skips++;
		return TMX_OK;
	}
	s->skipped[kind]++;
	if (!s->has_first_skip) {
		s->has_first_skip = true;
		s->first_kind = kind;
		s->first_tid = tid;
		s->first_func = id;
		s->first_tsc = tsc;
	}
	if (a->opts.strict)
		return tmx_error_set(err, TMX_ERR_DATA, NULL,
				     "thread %u: %s (function id %d, tsc %llu)", tid,
				     tmx_xacct_skip_name(kind), id, (unsigned long long)tsc);
	return TMX_OK;
}

static int account_exit(struct tmx_xacct *a, struct thread *t, int32_t id, uint64_t tsc,
		   struct tmx_error *err)
{
	size_t k;
	bool ok;

	if (t->depth == 0)
		return skip(a, TMX_XACCT_SKIP_EXIT_EMPTY, t->tid, id, tsc, err);
	if (t->stack[t->depth - 1].func == id) {
		struct frame *top = &t->stack[t->depth - 1];
		uint64_t lat = top->tsc > tsc ? top->tsc - tsc : tsc - top->tsc;
		if (counts(a, t, id, &ok) && !record_latency(a, id, lat))
			return xacct_nomem(err);
		if (!ok || !leave(a, t, id))
			return xacct_nomem(err);
		t->depth--;
		return TMX_OK;
	}
	if (!a->opts.deduce_sibling_calls)
		return skip(a, TMX_XACCT_SKIP_EXIT_MISMATCH, t->tid, id, tsc, err);
	/* -d: the innermost open call of `id`, and every call above it. */
	for (k = t->depth; k > 0 && t->stack[k - 1].func != id; k--)
		;
	if (k == 0)
		return skip(a, TMX_XACCT_SKIP_EXIT_NOT_OPEN, t->tid, id, tsc, err);
	for (size_t i = k - 1; i < t->depth; i++) {
		struct frame *f = &t->stack[i];
		uint64_t lat = f->tsc > tsc ? f->tsc - tsc : tsc - f->tsc;
		if (counts(a, t, f->func, &ok) && !record_latency(a, f->func, lat))
			return xacct_nomem(err);
		if (!ok)
			return xacct_nomem(err);
	}
	if (a->pass == 1)
		a->stats.deduced += t->depth - k;
	for (size_t i = t->depth; i > k - 1; i--)
		if (!leave(a, t, t->stack[i - 1].func))
			return xacct_nomem(err);
	t->depth = k - 1;
	return TMX_OK;
}

static bool is_xray(struct tmx_xacct *a, const struct tmx_trace_class *tc)
{
	if (tc != a->last_tc) {
		const struct tmx_env_entry *e = tmx_trace_class_env(tc, "tracer_name");
		const struct tmx_env_entry *cf = tmx_trace_class_env(tc, "cycle_frequency");
		a->last_tc = tc;
		a->last_is_xray = e && !e->is_int && !strcmp(e->str_value, "llvm-xray");
		/* The figures' unit: the last trace's (read now: the source may be gone at the end). */
		a->freq = cf && cf->is_int ? (double)(uint64_t)cf->int_value : 0;
	}
	return a->last_is_xray;
}

int tmx_xacct_consume(struct tmx_xacct *a, const struct tmx_msg *msg, struct tmx_error *err)
{
	const struct tmx_event *e = msg->event;
	const struct tmx_value *ctx, *pl;
	struct thread *t;
	uint64_t cls;
	int32_t id;

	if (msg->kind != TMX_MSG_EVENT || !is_xray(a, msg->stream->cls->trace_class))
		return TMX_OK;
	cls = e->cls->id;
	if (cls == TMX_XRAY_EV_CUSTOM || cls == TMX_XRAY_EV_TYPED) {
		if (a->pass == 1)
			a->stats.events++;
		return TMX_OK;
	}
	if (cls > TMX_XRAY_EV_ENTER_ARG)
		return TMX_OK;   /* wall-time markers: not llvm-xray records */
	ctx = e->scopes[TMX_SCOPE_COMMON_CONTEXT];
	pl = e->scopes[TMX_SCOPE_PAYLOAD];
	if (!ctx || !pl)
		return TMX_OK;
	if (a->pass == 1)
		a->stats.records++;
	id = (int32_t)pl[TMX_XRAY_P_FUNC_ID].s;
	t = thread_of(a, (uint32_t)ctx[TMX_XRAY_CTX_TID].u);
	if (!t || !func_of(a, id, pl[TMX_XRAY_P_FUNCTION].str.ptr, pl[TMX_XRAY_P_FUNCTION].str.len))
		return xacct_nomem(err);
	if (cls == TMX_XRAY_EV_ENTER || cls == TMX_XRAY_EV_ENTER_ARG) {
		if (!tmx_grow_array((void **)&t->stack, &t->cap, t->depth + 1,
				    sizeof(*t->stack), 8))
			return xacct_nomem(err);
		t->stack[t->depth].func = id;
		t->stack[t->depth].tsc = msg->cycles;
		t->depth++;
		if (a->opts.recursive_calls_only) {
			uint32_t *st = recursion_of(t, id), depth;
			if (!st)
				return xacct_nomem(err);
			depth = (*st & ~REC_FLAG) + 1;
			*st = (*st & REC_FLAG) | depth;
			if (!(*st & REC_FLAG) && depth == 2)
				*st |= REC_FLAG;
		}
		return TMX_OK;
	}
	return account_exit(a, t, id, msg->cycles, err);
}
