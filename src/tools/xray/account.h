/*
 * `llvm-xray account` for XRay traces: per-function call latencies
 * (count, min, median, 90th and 99th percentile, max, sum) with llvm-xray
 * 14's table, sorting and number formatting.  See account.c (and
 * account_impl.h for its parts).
 */
#ifndef TMX_TOOLS_XRAY_ACCOUNT_H
#define TMX_TOOLS_XRAY_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

enum tmx_xacct_sort {
	TMX_XACCT_SORT_FUNCID,
	TMX_XACCT_SORT_COUNT,
	TMX_XACCT_SORT_MIN,
	TMX_XACCT_SORT_MED,
	TMX_XACCT_SORT_PCT90,
	TMX_XACCT_SORT_PCT99,
	TMX_XACCT_SORT_MAX,
	TMX_XACCT_SORT_SUM,
	TMX_XACCT_SORT_FUNC,
};

struct tmx_xacct_opts {
	enum tmx_xacct_sort sort;
	bool descending;
	long top;                    /* <= 0: every function */
	bool csv;
	bool deduce_sibling_calls;   /* llvm-xray -d */
	bool recursive_calls_only;   /* llvm-xray --recursive-calls-only */
	bool strict;                 /* the first unmatched record is an error */
	/*
	 * Bytes for the stored latencies (0: TMX_XACCT_DEFAULT_MEMORY).  Within
	 * it, one pass over the log.  Over it, the order statistics are found
	 * exactly by more passes over the same log (tmx_xacct_finish), whose
	 * histograms and candidates stay within it too, except for a floor of
	 * TMX_XACCT_MIN_PROBE bytes per unresolved percentile.
	 */
	size_t memory;
};

#define TMX_XACCT_DEFAULT_MEMORY ((size_t)64 << 20)
#define TMX_XACCT_MIN_PROBE ((size_t)2048)   /* 256 buckets of 8 bytes */

/* Why a record was not accounted. */
enum tmx_xacct_skip {
	TMX_XACCT_SKIP_EXIT_EMPTY,     /* exit on a thread with no open call */
	TMX_XACCT_SKIP_EXIT_MISMATCH,  /* exit of a function that is not the innermost open call */
	TMX_XACCT_SKIP_EXIT_NOT_OPEN,  /* -d: exit of a function open nowhere in the stack */
	TMX_XACCT_N_SKIPS,
};

struct tmx_xacct_stats {
	uint64_t records;               /* enter/exit records seen */
	uint64_t skipped[TMX_XACCT_N_SKIPS];
	uint64_t still_open;            /* calls never exited at the end (not counted) */
	uint64_t deduced;               /* -d: calls closed by an outer function's exit */
	uint64_t events;                /* custom/typed events (not accounted, as llvm-xray) */
	uint64_t threads;
	/* The first skipped record, for the message. */
	bool has_first_skip;
	enum tmx_xacct_skip first_kind;
	uint32_t first_tid;
	int32_t first_func;
	uint64_t first_tsc;
};

struct tmx_xacct;

struct tmx_xacct *tmx_xacct_new(const struct tmx_xacct_opts *opts);
/*
 * Accounts one message (non-XRay messages and non-event messages are
 * ignored).  Fails only with opts.strict, on the first unmatched record, or
 * when out of memory.
 */
int tmx_xacct_consume(struct tmx_xacct *a, const struct tmx_msg *msg, struct tmx_error *err);
/*
 * The input is done.  After the first pass: counts the calls still open
 * (stats.still_open).  *again is false when the table is ready; true when
 * the latencies did not fit opts.memory and the order statistics need one
 * more pass: call tmx_xacct_begin_pass(), feed the same messages again
 * (the same input from its start, up to the same point: the same read
 * error, if any), then tmx_xacct_finish() again.  Fails when out of memory
 * or when a pass did not see the latencies of the first one (the input
 * changed).  At most 10 passes: see account_passes.c.
 */
int tmx_xacct_finish(struct tmx_xacct *a, bool *again, struct tmx_error *err);
int tmx_xacct_begin_pass(struct tmx_xacct *a, struct tmx_error *err);
/* Passes over the input so far (1 after the first). */
unsigned tmx_xacct_passes(const struct tmx_xacct *a);
/*
 * Writes the table to `fd`.  `debug_info(user, func_id)` gives llvm-xray's
 * "file:line:column" column of a function (NULL: "(unknown)").  Function
 * names are those of the records' `function` field (the reader's
 * symbolization), "#ID" when `symbolized` is false, as llvm-xray does
 * without an instrumentation map.
 */
int tmx_xacct_write(struct tmx_xacct *a, int fd, bool symbolized,
		    const char *(*debug_info)(void *user, int32_t func_id), void *user,
		    struct tmx_error *err);
/* The functions of the table (those with a latency): count, and the id and name of each. */
size_t tmx_xacct_n_functions(const struct tmx_xacct *a);
int32_t tmx_xacct_function(const struct tmx_xacct *a, size_t i, const char **name);
/* The figures of function i (as tmx_xacct_function), in cycles, once tmx_xacct_finish is done. */
struct tmx_xacct_figures {
	uint64_t count, min, median, pct90, pct99, max;
	double sum;
};
void tmx_xacct_get_figures(const struct tmx_xacct *a, size_t i, struct tmx_xacct_figures *out);
const struct tmx_xacct_stats *tmx_xacct_stats(const struct tmx_xacct *a);
const char *tmx_xacct_skip_name(enum tmx_xacct_skip kind);
void tmx_xacct_free(struct tmx_xacct *a);

#endif
