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
 * Output: llvm-xray's table.  The functions come in the order of llvm's
 * DenseMap<int32_t, ...> (llvm_densemap.c), then llvm::sort, i.e. libstdc++'s
 * std::sort (introsort + final insertion sort, not stable), which we
 * reproduce step for step: with ties (same count, same min...) the order
 * is llvm-xray's.  Numbers: latencies in cycles, divided by the header's
 * cycle frequency (seconds) when it is not 0; median = element n/2,
 * 90p = element floor(n*0.9), 99p = element floor(n*0.99) of the sorted
 * latencies; sum accumulated in a double in record order.  Text uses
 * "%9.6f" for the figures, CSV "%.6e" (llvm's raw_ostream << double).
 * -sort=func: llvm-xray 14 reaches llvm_unreachable there (undefined
 * behaviour; its binary prints the DenseMap order unsorted); we sort by
 * name.
 *
 * MEMORY.  The order statistics need the latencies, and a log far larger
 * than RAM has more calls than RAM can hold.  So:
 *
 * - Pass 1 keeps count, min, max and sum per function (exact, O(1) each)
 *   and stores the latencies compactly: those below 2^32 cycles as
 *   uint32, the rare others in a uint64 side array (selection only needs
 *   the multiset: a rank below the count of small ones is a small one).
 *   Large arrays are anonymous mappings grown with mremap: no copy, and
 *   the untouched capacity costs no resident memory.
 * - When the stored bytes would pass opts.memory, they are all dropped and
 *   each order statistic becomes a *target*: "the k-th smallest of
 *   function f's latencies in [lo, hi], of which there are n_in", starting
 *   from [min, max], or from 1/16 of an octave when the function got a
 *   log-linear histogram for the rest of pass 1 (7.6 KiB each, given to
 *   functions in order while they fit the budget; the dropped latencies go
 *   in first).  The log is then read again from its start, through
 *   the same stack machine (skip statistics are counted in pass 1 only),
 *   so that every pass sees the same latencies; each pass checks that it
 *   saw the same count and sum of latencies per function as pass 1.
 * - In each later pass, the targets of one function with the same interval
 *   share a *probe*.  A probe either collects the latencies of its interval
 *   (n_in of them, as uint32 offsets from lo when the interval is narrow)
 *   and selects, which resolves its targets; or counts them in a histogram
 *   of B buckets of width 2^s over its interval, after which each target
 *   narrows to its bucket (the rank within it follows from the counts
 *   below).  Probes are planned cheapest collection first: as many
 *   collections as fit the budget while every other probe keeps a
 *   histogram of at least 256 buckets (TMX_XACCT_MIN_PROBE bytes, the one
 *   floor over the budget), then the rest share what is left, up to 65536
 *   buckets each.  A histogram shrinks a range R to below 2R/B <= R/128:
 *   64-bit ranges are down to one value after at most 9 histogram passes:
 *   at most 10 passes in all.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* mremap, qsort_r */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model/grow.h"
#include "sink/outbuf.h"
#include "tools/xray/account.h"
#include "sink/xray/intmap.h"
#include "tools/xray/llvm_densemap.h"
#include "xray/xray.h"
#include "model/errors.h"

/* ------------------------------------------------------------------ */
/* State                                                                */
/* ------------------------------------------------------------------ */

#define DIRECT_MAX (1 << 22)
#define HIST_MIN_BUCKETS 256
#define HIST_MAX_BUCKETS 65536
#define MAX_PASSES 12   /* a guard: 10 is the bound (MEMORY above) */

/* Order statistics: median, 90th, 99th percentile. */
enum { Q_MED, Q_90, Q_99, N_Q };

struct frame {
	int32_t func;
	uint64_t tsc;
};

struct thread {
	uint32_t tid;
	struct frame *stack;
	size_t depth, cap;
	/* --recursive-calls-only: llvm's RecursionStatus per function (depth, sign bit: recursive). */
	struct imap recursion;
};

/*
 * A growing array.  From VEC_MAP_BYTES on, an anonymous mapping grown by
 * mremap: no copy and no resident memory for the capacity not yet written
 * (a heap block could leave its old copy resident).
 */
#define VEC_MAP_BYTES ((size_t)1 << 20)

struct vec {
	void *p;
	size_t n;          /* elements */
	size_t bytes;      /* capacity */
	bool mapped;
};

struct func {
	int32_t id;
	char *name;             /* the records' `function` field, NULL until seen */
	uint64_t n;             /* latencies (calls accounted) */
	uint64_t min, max;
	double sum;             /* in record order, as llvm-xray */
	uint64_t check;         /* sum of the latencies mod 2^64: later passes must see the same */
	uint64_t q[N_Q];        /* the order statistics, once found */
	/* Pass 1 within the budget: latencies < 2^32 (uint32), the others (uint64). */
	struct vec small, big;
	/* Pass 1 over the budget: log-linear histogram of the latencies (NULL: none). */
	uint64_t *lhist;
	/* Later passes: what this pass saw, and the probes that watch this function. */
	uint64_t seen, seen_check;
	uint32_t probe[N_Q];
	uint8_t n_probes;
};

/* An order statistic not known yet: the k-th smallest of the function's latencies in [lo, hi]. */
struct target {
	uint32_t func;
	uint8_t which;          /* Q_* */
	bool done;
	uint64_t lo, hi, k;
	uint64_t n_in;          /* the function's latencies in [lo, hi] */
	uint32_t probe;         /* this pass */
};

enum probe_kind { PROBE_HIST, PROBE_COLLECT };

/* What one pass records about one function's latencies in [lo, hi] (shared by its targets there). */
struct probe {
	uint32_t func;
	enum probe_kind kind;
	uint64_t lo, hi, n_in;
	size_t cost;            /* bytes to collect the n_in latencies */
	/* PROBE_HIST: bucket i counts lo + [i << shift, (i + 1) << shift). */
	unsigned shift;
	size_t n_buckets;
	uint64_t *counts;
	/* PROBE_COLLECT: the latencies, as uint32 offsets from lo when !wide. */
	bool wide;
	struct vec vals;
};

struct tmx_xacct {
	struct tmx_xacct_opts opts;
	struct tmx_xacct_stats stats;
	struct imap thread_of, func_of;     /* tid / func id -> index */
	uint32_t *direct;                   /* func id < DIRECT_MAX -> index + 1 (0: none yet) */
	size_t n_direct;
	struct thread *threads;
	size_t n_threads, cap_threads;
	struct func *funcs;
	size_t n_funcs, cap_funcs;
	/* Functions in the order of their first latency (llvm's insertion order). */
	uint32_t *lat_order;
	size_t n_lat_order, cap_lat_order;
	/* Is the last seen trace class an XRay one? */
	const struct tmx_trace_class *last_tc;
	bool last_is_xray;
	struct thread *last_thread;
	double freq;                        /* cycle frequency of the log (0: figures in cycles) */
	/* Memory. */
	size_t budget;
	size_t stored;                      /* bytes of latencies stored in pass 1 */
	bool over;                          /* pass 1 went over the budget: stored nothing */
	size_t lh_bytes;                    /* pass 1 over the budget: bytes of histograms */
	unsigned pass;                      /* 1, 2... */
	uint64_t total;                     /* latencies of pass 1 */
	uint64_t pass_total, pass_skips;    /* latencies and skipped records of this pass */
	struct target *targets;
	size_t n_targets;
	struct probe *probes;
	size_t n_probes;
};

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	return tmx_grow_array(p, cap, need, elem, 8);
}

/* Room for `need` elements of `elem` bytes. */
static bool vec_reserve(struct vec *v, size_t need, size_t elem)
{
	size_t bytes = v->bytes ? v->bytes : 64 * elem;
	void *q;

	if (need > SIZE_MAX / elem)
		return false;
	if (need * elem <= v->bytes)
		return true;
	while (bytes < need * elem) {
		if (bytes > SIZE_MAX / 2)
			return false;
		bytes *= 2;
	}
	if (bytes < VEC_MAP_BYTES) {
		if (!(q = realloc(v->p, bytes)))
			return false;
	} else if (v->mapped) {
		q = mremap(v->p, v->bytes, bytes, MREMAP_MAYMOVE);
		if (q == MAP_FAILED)
			return false;
	} else {
		q = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (q == MAP_FAILED)
			return false;
		if (v->n)
			memcpy(q, v->p, v->n * elem);
		free(v->p);
		v->mapped = true;
	}
	v->p = q;
	v->bytes = bytes;
	return true;
}

static void vec_free(struct vec *v)
{
	if (v->mapped)
		munmap(v->p, v->bytes);
	else
		free(v->p);
	*v = (struct vec){ 0 };
}

static void free_probes(struct tmx_xacct *a)
{
	for (size_t i = 0; i < a->n_probes; i++) {
		free(a->probes[i].counts);
		vec_free(&a->probes[i].vals);
	}
	free(a->probes);
	a->probes = NULL;
	a->n_probes = 0;
}

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
		vec_free(&a->funcs[i].small);
		vec_free(&a->funcs[i].big);
		free(a->funcs[i].lhist);
	}
	free_probes(a);
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
	if (!grow((void **)&a->threads, &a->cap_threads, a->n_threads + 1, sizeof(*a->threads)))
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
	if (!grow((void **)&a->funcs, &a->cap_funcs, a->n_funcs + 1, sizeof(*a->funcs)))
		return NULL;
	slot = imap_get(&a->func_of, (uint32_t)id, (uint32_t)a->n_funcs, &added);
	if (!slot)
		return NULL;
	if (id >= 0 && id < DIRECT_MAX) {
		if ((size_t)id >= a->n_direct) {
			size_t n = a->n_direct ? a->n_direct : 64;
			uint32_t *d;
			while (n <= (size_t)id)
				n *= 2;
			if (!(d = realloc(a->direct, n * sizeof(*d))))
				return NULL;
			memset(d + a->n_direct, 0, (n - a->n_direct) * sizeof(*d));
			a->direct = d;
			a->n_direct = n;
		}
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

/*
 * Pass 1 over the budget: a log-linear histogram per function (while they
 * fit the budget), so that pass 2 starts from 1/16 of an octave rather
 * than [min, max]: values below 16 exactly, then 16 buckets per power of
 * two.
 */
#define LH_SUB 16
#define LH_BUCKETS (LH_SUB + (64 - 4) * LH_SUB)
#define LH_BYTES (LH_BUCKETS * sizeof(uint64_t))

static unsigned lh_bucket(uint64_t v)
{
	unsigned e;

	if (v < LH_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);   /* >= 4 */
	return LH_SUB + (e - 4) * LH_SUB + (unsigned)((v >> (e - 4)) & (LH_SUB - 1));
}

/* The first value of bucket b, and its width as a shift. */
static uint64_t lh_low(unsigned b, unsigned *shift)
{
	unsigned e;

	if (b < LH_SUB) {
		*shift = 0;
		return b;
	}
	e = (b - LH_SUB) / LH_SUB + 4;
	*shift = e - 4;
	return (uint64_t)(LH_SUB + (b - LH_SUB) % LH_SUB) << (e - 4);
}

/* A histogram for f if the budget has room (f's latencies so far must all go in). */
static bool lh_new(struct tmx_xacct *a, struct func *f)
{
	if (a->lh_bytes + LH_BYTES > a->budget)
		return true;   /* none: pass 2 starts from [min, max] */
	if (!(f->lhist = calloc(LH_BUCKETS, sizeof(*f->lhist))))
		return false;
	a->lh_bytes += LH_BYTES;
	return true;
}

/* Over the budget: the stored latencies go (into the histograms), later passes will find the order statistics. */
static bool drop_stored(struct tmx_xacct *a)
{
	a->over = true;
	for (size_t i = 0; i < a->n_lat_order; i++) {
		struct func *f = &a->funcs[a->lat_order[i]];
		if (!lh_new(a, f))
			return false;
		if (f->lhist) {
			for (size_t j = 0; j < f->small.n; j++)
				f->lhist[lh_bucket(((uint32_t *)f->small.p)[j])]++;
			for (size_t j = 0; j < f->big.n; j++)
				f->lhist[lh_bucket(((uint64_t *)f->big.p)[j])]++;
		}
		vec_free(&f->small);
		vec_free(&f->big);
	}
	a->stored = 0;
	return true;
}

/* Pass 1: count, min, max, sum, and the latency itself while within the budget. */
static bool first_latency(struct tmx_xacct *a, struct func *f, uint64_t latency)
{
	if (f->n == 0) {
		if (!grow((void **)&a->lat_order, &a->cap_lat_order, a->n_lat_order + 1,
			  sizeof(*a->lat_order)))
			return false;
		a->lat_order[a->n_lat_order++] = (uint32_t)(f - a->funcs);
		if (a->over && !lh_new(a, f))
			return false;
		f->min = f->max = latency;
	} else if (latency < f->min) {
		f->min = latency;
	} else if (latency > f->max) {
		f->max = latency;
	}
	f->n++;
	f->sum += (double)latency;
	f->check += latency;
	a->total++;
	if (!a->over) {
		bool narrow = latency <= UINT32_MAX;
		size_t size = narrow ? sizeof(uint32_t) : sizeof(uint64_t);
		struct vec *v = narrow ? &f->small : &f->big;
		if (a->stored + size <= a->budget) {
			if (!vec_reserve(v, v->n + 1, size))
				return false;
			if (narrow)
				((uint32_t *)v->p)[v->n++] = (uint32_t)latency;
			else
				((uint64_t *)v->p)[v->n++] = latency;
			a->stored += size;
			return true;
		}
		if (!drop_stored(a))
			return false;
	}
	if (f->lhist)
		f->lhist[lh_bucket(latency)]++;
	return true;
}

/* Later passes: the latency goes to the probes whose interval holds it. */
static bool probe_latency(struct tmx_xacct *a, struct func *f, uint64_t latency)
{
	f->seen++;
	f->seen_check += latency;
	a->pass_total++;
	for (unsigned i = 0; i < f->n_probes; i++) {
		struct probe *p = &a->probes[f->probe[i]];
		uint64_t off = latency - p->lo;
		if (latency < p->lo || off > p->hi - p->lo)
			continue;
		if (p->kind == PROBE_HIST) {
			p->counts[off >> p->shift]++;
		} else if (p->vals.n < p->n_in) {
			/* Room for n_in was reserved; more would mean another log (caught at the end). */
			if (p->wide)
				((uint64_t *)p->vals.p)[p->vals.n++] = latency;
			else
				((uint32_t *)p->vals.p)[p->vals.n++] = (uint32_t)off;
		} else {
			p->vals.n++;   /* counted only, for the check */
		}
	}
	return true;
}

static bool record_latency(struct tmx_xacct *a, int32_t id, uint64_t latency)
{
	struct func *f = func_of(a, id, NULL, 0);

	if (!f)
		return false;
	return a->pass == 1 ? first_latency(a, f, latency) : probe_latency(a, f, latency);
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

static int nomem(struct tmx_error *err)
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
			return nomem(err);
		if (!ok || !leave(a, t, id))
			return nomem(err);
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
			return nomem(err);
		if (!ok)
			return nomem(err);
	}
	if (a->pass == 1)
		a->stats.deduced += t->depth - k;
	for (size_t i = t->depth; i > k - 1; i--)
		if (!leave(a, t, t->stack[i - 1].func))
			return nomem(err);
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
		return nomem(err);
	if (cls == TMX_XRAY_EV_ENTER || cls == TMX_XRAY_EV_ENTER_ARG) {
		if (!grow((void **)&t->stack, &t->cap, t->depth + 1, sizeof(*t->stack)))
			return nomem(err);
		t->stack[t->depth].func = id;
		t->stack[t->depth].tsc = msg->cycles;
		t->depth++;
		if (a->opts.recursive_calls_only) {
			uint32_t *st = recursion_of(t, id), depth;
			if (!st)
				return nomem(err);
			depth = (*st & ~REC_FLAG) + 1;
			*st = (*st & REC_FLAG) | depth;
			if (!(*st & REC_FLAG) && depth == 2)
				*st |= REC_FLAG;
		}
		return TMX_OK;
	}
	return account_exit(a, t, id, msg->cycles, err);
}

/* ------------------------------------------------------------------ */
/* Order statistics                                                     */
/* ------------------------------------------------------------------ */

/* The k-th smallest of v[0..n) (v is reordered): quickselect, Hoare partition. */
#define DEFINE_SELECT(name, T)                                                         \
	static T name(T *v, size_t n, size_t k)                                         \
	{                                                                               \
		size_t lo = 0, hi = n - 1;                                              \
                                                                                        \
		while (lo < hi) {                                                       \
			size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;                \
			T a = v[lo], b = v[mid], c = v[hi], pivot;                      \
			/* Median of three, so sorted and equal runs stay linear. */   \
			pivot = a < b ? (b < c ? b : (a < c ? c : a))                   \
				      : (a < c ? a : (b < c ? c : b));                  \
			for (;;) {                                                      \
				while (v[i] < pivot)                                    \
					i++;                                            \
				while (v[j] > pivot)                                    \
					j--;                                            \
				if (i >= j)                                             \
					break;                                          \
				T tmp = v[i];                                           \
				v[i] = v[j];                                            \
				v[j] = tmp;                                             \
				i++;                                                    \
				j--;                                                    \
			}                                                               \
			/* v[lo..j] <= pivot <= v[j+1..hi] */                           \
			if (k <= j)                                                     \
				hi = j;                                                 \
			else                                                            \
				lo = j + 1;                                             \
		}                                                                       \
		return v[k];                                                            \
	}

DEFINE_SELECT(select_u32, uint32_t)
DEFINE_SELECT(select_u64, uint64_t)

/* llvm-xray's ranks: element n/2, floor(n*0.9), floor(n*0.99) of the sorted latencies. */
static uint64_t rank_of(uint64_t n, int which)
{
	switch (which) {
	case Q_MED:
		return n / 2;
	case Q_90:
		return (uint64_t)floor((double)n * 0.9);
	default:
		return (uint64_t)floor((double)n * 0.99);
	}
}

/* Pass 1 within the budget: the order statistics from the stored latencies, which then go. */
static void select_stored(struct func *f)
{
	size_t n_small = f->small.n;

	for (int q = 0; q < N_Q; q++) {
		uint64_t k = rank_of(f->n, q);
		f->q[q] = k < n_small ? select_u32(f->small.p, n_small, (size_t)k)
				      : select_u64(f->big.p, f->big.n, (size_t)(k - n_small));
	}
	vec_free(&f->small);
	vec_free(&f->big);
}

static int changed(struct tmx_error *err, const char *what)
{
	return tmx_error_set(err, TMX_ERR_DATA, NULL,
			     "the log changed between passes over it (%s): cannot account it "
			     "within the memory budget", what);
}

/* The target within the bucket of f's pass-1 histogram that holds its rank. */
static bool lh_narrow(const struct func *f, struct target *t)
{
	uint64_t below = 0, lo;
	unsigned b = 0, shift;

	while (b < LH_BUCKETS && below + f->lhist[b] <= t->k)
		below += f->lhist[b++];
	if (b == LH_BUCKETS)
		return false;   /* the counts do not add up to n: cannot be */
	lo = lh_low(b, &shift);
	/* [lo, lo + 2^shift - 1] within [min, max] (the last bucket ends at UINT64_MAX). */
	if (lo > t->lo)
		t->lo = lo;
	if (t->hi - lo > ((uint64_t)1 << shift) - 1)
		t->hi = lo + (((uint64_t)1 << shift) - 1);
	t->k -= below;
	t->n_in = f->lhist[b];
	return true;
}

/* Pass 1 over the budget: every order statistic not obvious from count, min and max is a target. */
static int make_targets(struct tmx_xacct *a, struct tmx_error *err)
{
	if (!(a->targets = malloc((a->n_lat_order ? a->n_lat_order : 1) * N_Q * sizeof(*a->targets))))
		return nomem(err);
	for (size_t i = 0; i < a->n_lat_order; i++) {
		struct func *f = &a->funcs[a->lat_order[i]];
		for (int q = 0; q < N_Q; q++) {
			uint64_t k = rank_of(f->n, q);
			if (k == 0 || f->min == f->max) {
				f->q[q] = f->min;
			} else if (k == f->n - 1) {
				f->q[q] = f->max;
			} else {
				struct target t = {
					.func = a->lat_order[i], .which = (uint8_t)q,
					.lo = f->min, .hi = f->max, .k = k, .n_in = f->n,
				};
				if (f->lhist && !lh_narrow(f, &t))
					return changed(err, "internal histogram");
				if (t.lo == t.hi)
					f->q[q] = t.lo;
				else
					a->targets[a->n_targets++] = t;
			}
		}
		free(f->lhist);
		f->lhist = NULL;
	}
	return TMX_OK;
}

static size_t sat_add(size_t x, size_t y)
{
	return x > SIZE_MAX - y ? SIZE_MAX : x + y;
}

static size_t sat_mul(size_t x, size_t y)
{
	return y && x > SIZE_MAX / y ? SIZE_MAX : x * y;
}

static int cmp_cost(const void *x, const void *y, void *probes)
{
	const struct probe *p = (const struct probe *)probes + *(const uint32_t *)x;
	const struct probe *q = (const struct probe *)probes + *(const uint32_t *)y;

	if (p->cost != q->cost)
		return p->cost < q->cost ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/*
 * The probes of the next pass (see MEMORY at the top): one per function
 * and interval of the unresolved targets; the cheapest collections that
 * leave every other probe TMX_XACCT_MIN_PROBE bytes of histogram, then
 * histograms sharing the rest.
 */
static int plan_pass(struct tmx_xacct *a, struct tmx_error *err)
{
	size_t n = 0, budget = a->budget, floor_bytes = 0, best = 0, prefix = 0, left, per, buckets;
	uint32_t *order;

	free_probes(a);
	if (!(a->probes = calloc(a->n_targets ? a->n_targets : 1, sizeof(*a->probes))))
		return nomem(err);
	for (size_t i = 0; i < a->n_funcs; i++)
		a->funcs[i].n_probes = 0;
	/* Targets of one function are consecutive: its probes are the last few. */
	for (size_t i = 0; i < a->n_targets; i++) {
		struct target *t = &a->targets[i];
		size_t j = n;
		if (t->done)
			continue;
		while (j > 0 && a->probes[j - 1].func == t->func &&
		       (a->probes[j - 1].lo != t->lo || a->probes[j - 1].hi != t->hi))
			j--;
		if (j == 0 || a->probes[j - 1].func != t->func) {
			struct probe *p = &a->probes[n];
			p->func = t->func;
			p->lo = t->lo;
			p->hi = t->hi;
			p->n_in = t->n_in;
			p->wide = t->hi - t->lo > UINT32_MAX;
			p->cost = t->n_in > SIZE_MAX / 8 ? SIZE_MAX
							 : (size_t)t->n_in * (p->wide ? 8 : 4);
			floor_bytes = sat_add(floor_bytes, p->cost < TMX_XACCT_MIN_PROBE
							   ? p->cost : TMX_XACCT_MIN_PROBE);
			j = ++n;
		}
		t->probe = (uint32_t)(j - 1);
	}
	a->n_probes = n;
	if (budget < floor_bytes)
		budget = floor_bytes;
	if (!(order = malloc((n ? n : 1) * sizeof(*order))))
		return nomem(err);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_cost, a->probes);
	/* The most collections that leave the others their floor (i = the cheap ones always does). */
	for (size_t i = 0, sum = 0;; i++) {
		if (sat_add(sum, sat_mul(n - i, TMX_XACCT_MIN_PROBE)) <= budget) {
			best = i;
			prefix = sum;
		}
		if (i == n)
			break;
		sum = sat_add(sum, a->probes[order[i]].cost);
	}
	left = budget - prefix;
	per = n > best ? left / (n - best) / sizeof(uint64_t) : 0;
	for (buckets = HIST_MIN_BUCKETS; buckets < HIST_MAX_BUCKETS && buckets * 2 <= per;)
		buckets *= 2;
	for (size_t i = 0; i < n; i++) {
		struct probe *p = &a->probes[order[i]];
		struct func *f = &a->funcs[p->func];
		if (i < best) {
			p->kind = PROBE_COLLECT;
			if (!vec_reserve(&p->vals, (size_t)p->n_in, p->wide ? 8 : 4))
				goto fail;
		} else {
			uint64_t range = p->hi - p->lo;
			p->kind = PROBE_HIST;
			while ((range >> p->shift) >= buckets)
				p->shift++;
			p->n_buckets = (size_t)(range >> p->shift) + 1;
			if (!(p->counts = calloc(p->n_buckets, sizeof(*p->counts))))
				goto fail;
		}
		f->probe[f->n_probes++] = order[i];
	}
	free(order);
	return TMX_OK;
fail:
	free(order);
	return nomem(err);
}

/* After a later pass: checks that it saw pass 1's latencies, then narrows or resolves the targets. */
static int end_pass(struct tmx_xacct *a, struct tmx_error *err)
{
	uint64_t skipped = 0;

	for (int k = 0; k < TMX_XACCT_N_SKIPS; k++)
		skipped += a->stats.skipped[k];
	if (a->pass_total != a->total || a->pass_skips != skipped)
		return changed(err, "other records");
	for (size_t i = 0; i < a->n_lat_order; i++) {
		const struct func *f = &a->funcs[a->lat_order[i]];
		if (f->seen != f->n || f->seen_check != f->check)
			return changed(err, "other latencies");
	}
	for (size_t i = 0; i < a->n_probes; i++) {
		struct probe *p = &a->probes[i];
		if (p->kind == PROBE_COLLECT && p->vals.n != p->n_in)
			return changed(err, "other latencies");
		if (p->kind == PROBE_HIST) {
			uint64_t in = 0;
			for (size_t b = 0; b < p->n_buckets; b++)
				in += p->counts[b];
			if (in != p->n_in)
				return changed(err, "other latencies");
		}
	}
	for (size_t i = 0; i < a->n_targets; i++) {
		struct target *t = &a->targets[i];
		struct probe *p = &a->probes[t->probe];
		struct func *f = &a->funcs[t->func];
		if (t->done)
			continue;
		if (p->kind == PROBE_COLLECT) {
			f->q[t->which] = p->wide ? select_u64(p->vals.p, p->vals.n, (size_t)t->k)
						 : p->lo + select_u32(p->vals.p, p->vals.n, (size_t)t->k);
			t->done = true;
			continue;
		}
		/* The bucket of the k-th: its bounds, and the rank within it. */
		uint64_t below = 0, width = (uint64_t)1 << p->shift;
		size_t b = 0;
		while (below + p->counts[b] <= t->k)
			below += p->counts[b++];
		t->lo = p->lo + ((uint64_t)b << p->shift);
		t->hi = p->hi - t->lo < width ? p->hi : t->lo + (width - 1);
		t->k -= below;
		t->n_in = p->counts[b];
		if (t->lo == t->hi) {
			f->q[t->which] = t->lo;
			t->done = true;
		}
	}
	free_probes(a);
	return TMX_OK;
}

int tmx_xacct_begin_pass(struct tmx_xacct *a, struct tmx_error *err)
{
	/* A fresh stack machine over the same records. */
	for (size_t i = 0; i < a->n_threads; i++) {
		a->threads[i].depth = 0;
		imap_free(&a->threads[i].recursion);
		a->threads[i].recursion = (struct imap){ 0 };
	}
	for (size_t i = 0; i < a->n_funcs; i++)
		a->funcs[i].seen = a->funcs[i].seen_check = 0;
	a->last_tc = NULL;
	a->last_thread = NULL;
	a->pass_total = a->pass_skips = 0;
	a->pass++;
	return plan_pass(a, err);
}

int tmx_xacct_finish(struct tmx_xacct *a, bool *again, struct tmx_error *err)
{
	int ret;

	*again = false;
	if (a->pass == 1) {
		a->stats.still_open = 0;
		for (size_t i = 0; i < a->n_threads; i++)
			a->stats.still_open += a->threads[i].depth;
		if (!a->over) {
			for (size_t i = 0; i < a->n_lat_order; i++)
				select_stored(&a->funcs[a->lat_order[i]]);
			return TMX_OK;
		}
		if ((ret = make_targets(a, err)))
			return ret;
	} else if ((ret = end_pass(a, err))) {
		return ret;
	}
	for (size_t i = 0; i < a->n_targets; i++)
		if (!a->targets[i].done) {
			if (a->pass >= MAX_PASSES)
				return tmx_error_set(err, TMX_ERR_LIMIT, NULL,
						     "xray-account: order statistics unresolved after "
						     "%u passes (internal error)", a->pass);
			*again = true;
			break;
		}
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Statistics                                                           */
/* ------------------------------------------------------------------ */

struct row {
	int32_t id;
	uint64_t count;
	double min, median, pct90, pct99, max, sum;
	const struct func *f;
};

static void stats_of(const struct func *f, double freq, struct row *r)
{
	r->id = f->id;
	r->count = f->n;
	r->f = f;
	r->sum = f->sum;
	r->min = (double)f->min;
	r->max = (double)f->max;
	r->median = (double)f->q[Q_MED];
	r->pct90 = (double)f->q[Q_90];
	r->pct99 = (double)f->q[Q_99];
	if (freq != 0) {
		r->min /= freq;
		r->median /= freq;
		r->pct90 /= freq;
		r->pct99 /= freq;
		r->max /= freq;
		r->sum /= freq;
	}
}

/* The functions inserted in `order` (llvm's DenseMap<int32_t, T> of them) in iteration order. */
static bool densemap_order(const struct func *funcs, const uint32_t *order, size_t n,
			   uint32_t *out)
{
	uint32_t *keys = calloc(n ? n : 1, sizeof(*keys));
	bool ok;

	if (!keys)
		return false;
	for (size_t i = 0; i < n; i++)
		keys[i] = (uint32_t)funcs[order[i]].id;
	ok = llvm_densemap32_order(keys, n, out);
	for (size_t i = 0; ok && i < n; i++)
		out[i] = order[out[i]];
	free(keys);
	return ok;
}

/* ------------------------------------------------------------------ */
/* libstdc++'s std::sort, step for step (ties end up where llvm's do)   */
/* ------------------------------------------------------------------ */

struct sorter {
	enum tmx_xacct_sort field;
	bool desc;
};

static double key_of(const struct row *r, enum tmx_xacct_sort f)
{
	switch (f) {
	case TMX_XACCT_SORT_MIN: return r->min;
	case TMX_XACCT_SORT_MED: return r->median;
	case TMX_XACCT_SORT_PCT90: return r->pct90;
	case TMX_XACCT_SORT_PCT99: return r->pct99;
	case TMX_XACCT_SORT_MAX: return r->max;
	case TMX_XACCT_SORT_SUM: return r->sum;
	default: return 0;
	}
}

/* comp(l, r): l goes before r. */
static bool before(const struct sorter *s, const struct row *l, const struct row *r)
{
	int c;

	switch (s->field) {
	case TMX_XACCT_SORT_FUNCID:
		return s->desc ? l->id > r->id : l->id < r->id;
	case TMX_XACCT_SORT_COUNT:
		return s->desc ? l->count > r->count : l->count < r->count;
	case TMX_XACCT_SORT_FUNC:
		c = strcmp(l->f->name ? l->f->name : "", r->f->name ? r->f->name : "");
		return s->desc ? c > 0 : c < 0;
	default: {
		double a = key_of(l, s->field), b = key_of(r, s->field);
		return s->desc ? a > b : a < b;
	}
	}
}

static void swap_rows(struct row *a, struct row *b)
{
	struct row t = *a;
	*a = *b;
	*b = t;
}

static void unguarded_linear_insert(const struct sorter *s, struct row *last)
{
	struct row val = *last;
	struct row *next = last - 1;

	while (before(s, &val, next)) {
		*last = *next;
		last = next;
		next--;
	}
	*last = val;
}

static void insertion_sort(const struct sorter *s, struct row *first, struct row *last)
{
	if (first == last)
		return;
	for (struct row *i = first + 1; i != last; i++) {
		if (before(s, i, first)) {
			struct row val = *i;
			memmove(first + 1, first, (size_t)(i - first) * sizeof(*first));
			*first = val;
		} else {
			unguarded_linear_insert(s, i);
		}
	}
}

static void push_heap(const struct sorter *s, struct row *first, ptrdiff_t hole, ptrdiff_t top,
		      struct row val)
{
	ptrdiff_t parent = (hole - 1) / 2;

	while (hole > top && before(s, &first[parent], &val)) {
		first[hole] = first[parent];
		hole = parent;
		parent = (hole - 1) / 2;
	}
	first[hole] = val;
}

static void adjust_heap(const struct sorter *s, struct row *first, ptrdiff_t hole, ptrdiff_t len,
			struct row val)
{
	ptrdiff_t top = hole, child = hole;

	while (child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (before(s, &first[child], &first[child - 1]))
			child--;
		first[hole] = first[child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		first[hole] = first[child - 1];
		hole = child - 1;
	}
	push_heap(s, first, hole, top, val);
}

/* std::__partial_sort(first, last, last): heap sort, the depth-limit fallback. */
static void heap_sort(const struct sorter *s, struct row *first, struct row *last)
{
	ptrdiff_t len = last - first;

	if (len >= 2)
		for (ptrdiff_t parent = (len - 2) / 2;; parent--) {
			adjust_heap(s, first, parent, len, first[parent]);
			if (parent == 0)
				break;
		}
	while (last - first > 1) {
		struct row val;
		last--;
		val = *last;
		*last = *first;
		adjust_heap(s, first, 0, last - first, val);
	}
}

static void move_median_to_first(const struct sorter *s, struct row *result, struct row *a,
				 struct row *b, struct row *c)
{
	if (before(s, a, b)) {
		if (before(s, b, c))
			swap_rows(result, b);
		else if (before(s, a, c))
			swap_rows(result, c);
		else
			swap_rows(result, a);
	} else if (before(s, a, c)) {
		swap_rows(result, a);
	} else if (before(s, b, c)) {
		swap_rows(result, c);
	} else {
		swap_rows(result, b);
	}
}

static struct row *unguarded_partition(const struct sorter *s, struct row *first,
				       struct row *last, struct row *pivot)
{
	for (;;) {
		while (before(s, first, pivot))
			first++;
		last--;
		while (before(s, pivot, last))
			last--;
		if (!(first < last))
			return first;
		swap_rows(first, last);
		first++;
	}
}

enum { SORT_THRESHOLD = 16 };

static void introsort_loop(const struct sorter *s, struct row *first, struct row *last,
			   int depth_limit)
{
	while (last - first > SORT_THRESHOLD) {
		struct row *mid, *cut;
		if (depth_limit == 0) {
			heap_sort(s, first, last);
			return;
		}
		depth_limit--;
		mid = first + (last - first) / 2;
		move_median_to_first(s, first, first + 1, mid, last - 1);
		cut = unguarded_partition(s, first + 1, last, first);
		introsort_loop(s, cut, last, depth_limit);
		last = cut;
	}
}

static void std_sort(const struct sorter *s, struct row *first, struct row *last)
{
	size_t n = (size_t)(last - first);
	int lg = 0;

	if (n < 2)
		return;
	while ((n >> (lg + 1)) != 0)
		lg++;
	introsort_loop(s, first, last, lg * 2);
	if (last - first > SORT_THRESHOLD) {
		insertion_sort(s, first, first + SORT_THRESHOLD);
		for (struct row *i = first + SORT_THRESHOLD; i != last; i++)
			unguarded_linear_insert(s, i);
	} else {
		insertion_sort(s, first, last);
	}
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

/* llvm::write_double: printf into a 32-byte buffer, "INF"/"nan" spelled its way. */
static void put_double(struct outbuf *b, const char *spec, int width, double v)
{
	char buf[32], out[64];

	if (isnan(v))
		snprintf(buf, sizeof(buf), "nan");
	else if (isinf(v))
		snprintf(buf, sizeof(buf), "%s", signbit(v) ? "-INF" : "INF");
	else
		snprintf(buf, sizeof(buf), spec, v);
	snprintf(out, sizeof(out), "%*s", width, buf);
	outbuf_puts(b, out);
}

static void put_csv_string(struct outbuf *b, const char *s)
{
	outbuf_putc(b, '"');
	outbuf_puts(b, s);
	outbuf_putc(b, '"');
}

int tmx_xacct_write(struct tmx_xacct *a, int fd, bool symbolized,
		    const char *(*debug_info)(void *user, int32_t func_id), void *user,
		    struct tmx_error *err)
{
	size_t n = a->n_lat_order, shown;
	struct sorter sorter = { a->opts.sort, a->opts.descending };
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	struct row *rows = malloc((n ? n : 1) * sizeof(*rows));
	struct outbuf *b = malloc(sizeof(*b));
	char line[128];
	int e;

	if (!order || !rows || !b || !densemap_order(a->funcs, a->lat_order, n, order)) {
		free(order);
		free(rows);
		free(b);
		return nomem(err);
	}
	for (size_t i = 0; i < n; i++)
		stats_of(&a->funcs[order[i]], a->freq, &rows[i]);
	std_sort(&sorter, rows, rows + n);
	shown = a->opts.top > 0 && (size_t)a->opts.top < n ? (size_t)a->opts.top : n;

	outbuf_init(b, fd);
	if (a->opts.csv) {
		outbuf_puts(b, "funcid,count,min,median,90%ile,99%ile,max,sum,debug,function\n");
	} else {
		outbuf_puts(b, "Functions with latencies: ");
		outbuf_u64(b, n, 0);
		snprintf(line, sizeof(line), "\n%9s %10s [%9s, %9s, %9s, %9s, %9s] %9s  %-12s\n",
			 "funcid", "count", "min", "med", "90p", "99p", "max", "sum", "function");
		outbuf_puts(b, line);
	}
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[i];
		const char *dbg = debug_info ? debug_info(user, r->id) : NULL;
		char num[32];
		const char *name = r->f->name;
		double v[6] = { r->min, r->median, r->pct90, r->pct99, r->max, r->sum };

		if (!symbolized || !name) {
			snprintf(num, sizeof(num), "#%d", r->id);
			name = num;
		}
		if (!dbg)
			dbg = "(unknown)";
		if (a->opts.csv) {
			outbuf_i64(b, r->id);
			outbuf_putc(b, ',');
			outbuf_u64(b, r->count, 0);
			for (int k = 0; k < 6; k++) {
				outbuf_putc(b, ',');
				put_double(b, "%.6e", 0, v[k]);
			}
			outbuf_putc(b, ',');
			put_csv_string(b, dbg);
			outbuf_putc(b, ',');
			put_csv_string(b, name);
			outbuf_putc(b, '\n');
			continue;
		}
		snprintf(line, sizeof(line), "%9d %10llu [", r->id, (unsigned long long)r->count);
		outbuf_puts(b, line);
		for (int k = 0; k < 5; k++) {
			if (k)
				outbuf_puts(b, ", ");
			put_double(b, "%.6f", 9, v[k]);
		}
		outbuf_puts(b, "] ");
		put_double(b, "%.6f", 9, v[5]);
		outbuf_puts(b, "  ");
		outbuf_puts(b, dbg);
		outbuf_puts(b, ": ");
		outbuf_puts(b, name);
		outbuf_putc(b, '\n');
	}
	e = outbuf_flush(b);
	free(order);
	free(rows);
	free(b);
	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return TMX_OK;
}

