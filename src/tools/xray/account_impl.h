/*
 * xray-account's state, shared by its parts (private to src/tools/xray/):
 * account.c the per-thread stack machine that turns records into
 * latencies (-d, --recursive-calls-only) and the public accessors;
 * account_store.c pass 1's latencies within the memory budget (stored
 * compactly, or log-linear histograms over it) and their selection;
 * account_passes.c the exact order statistics from more passes when the
 * latencies did not fit; account_table.c llvm-xray's table and csv.
 */
#ifndef TMX_TOOLS_XRAY_ACCOUNT_IMPL_H
#define TMX_TOOLS_XRAY_ACCOUNT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/intmap.h"
#include "tools/xray/account.h"

#define DIRECT_MAX (1 << 22)
#define HIST_MIN_BUCKETS 256
#define HIST_MAX_BUCKETS 65536
#define MAX_PASSES 12   /* a guard: 10 is the bound (account_passes.c) */

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

/* account.c */
int xacct_nomem(struct tmx_error *err);

/* account_store.c: pass 1, and selection */
bool xacct_vec_reserve(struct vec *v, size_t need, size_t elem);
void xacct_vec_free(struct vec *v);
/* Pass 1: count, min, max, sum, and the latency itself while within the budget. */
bool xacct_first_latency(struct tmx_xacct *a, struct func *f, uint64_t latency);
/* llvm-xray's rank of order statistic `which` (Q_*) among n sorted latencies. */
uint64_t xacct_rank(uint64_t n, int which);
/* The k-th smallest of v[0..n) (v is reordered). */
uint32_t xacct_select_u32(uint32_t *v, size_t n, size_t k);
uint64_t xacct_select_u64(uint64_t *v, size_t n, size_t k);
/* Pass 1 within the budget: the order statistics from the stored latencies, which then go. */
void xacct_select_stored(struct func *f);
/*
 * Pass 1 over the budget: narrows target t of f to the bucket of f's
 * histogram that holds its rank.  False when the counts do not add up.
 */
bool lh_narrow(const struct func *f, struct target *t);

/* account_passes.c: later passes */
/* The latency goes to the probes of f whose interval holds it. */
bool xacct_probe_latency(struct tmx_xacct *a, struct func *f, uint64_t latency);
void xacct_free_probes(struct tmx_xacct *a);

#endif
