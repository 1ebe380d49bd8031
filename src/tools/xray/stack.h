/*
 * `llvm-xray stack` for XRay traces: call stacks per thread or across
 * threads, their top 10 by leaf sum and count, or every stack in
 * flamegraph.pl's folded format, with llvm-xray 14's output byte for byte.
 * See stack.c.
 */
#ifndef TMX_TOOLS_XRAY_STACK_H
#define TMX_TOOLS_XRAY_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

struct tmx_xstack_opts {
	bool all_stacks;          /* --all-stacks: every stack in flame format */
	bool per_thread;          /* --per-thread-stacks: the top stacks of each thread */
	bool aggregate_threads;   /* --aggregate-threads: the threads' call trees merged */
	bool count;               /* --aggregation-type=count (else time) */
	/*
	 * --flame-exclusive (ours): each flame line carries the time spent in
	 * the stack's own function only (its callees' time taken off), which
	 * is what flamegraph.pl sums; llvm-xray prints inclusive times.
	 */
	bool exclusive;
	/*
	 * Names are the records' `function` field (the reader's symbolization);
	 * false: "#ID", as llvm-xray without an instrumentation map.
	 */
	bool symbolized;
};

/* An exit record with no matching entry on its thread's stack (llvm's ENTRY_NOT_FOUND). */
struct tmx_xstack_unmatched {
	uint32_t tid;
	int32_t func_id;
	uint16_t record_type;     /* llvm's XRayRecord::RecordType, which its message shows */
	uint64_t tsc;
};

struct tmx_xstack;

struct tmx_xstack *tmx_xstack_new(const struct tmx_xstack_opts *opts);
/*
 * A new input file begins: llvm-xray's "was the last record an exit" state
 * starts over (the threads' stacks and call trees go on).
 */
void tmx_xstack_begin_file(struct tmx_xstack *s);
/*
 * Accounts one message (non-XRay messages and non-event messages are
 * ignored).  *unmatched: the message was an exit record with no matching
 * entry, described in *um (accounted as llvm-xray does all the same: an
 * exit of a function not on the stack closes the whole stack).  Fails only
 * when out of memory or past 2^32 call-tree nodes.
 */
int tmx_xstack_consume(struct tmx_xstack *s, const struct tmx_msg *msg, bool *unmatched,
		       struct tmx_xstack_unmatched *um, struct tmx_error *err);
/* llvm-xray's message for an unmatched record, into buf (NUL-terminated, truncated to size). */
void tmx_xstack_describe(const struct tmx_xstack *s, const struct tmx_xstack_unmatched *um,
			 char *buf, size_t size);
/* No call was entered: llvm-xray's "No instrumented calls were accounted". */
bool tmx_xstack_empty(const struct tmx_xstack *s);
/*
 * Writes the report to `fd`.  Call once, at the end (--aggregate-threads
 * merges the call trees for it).  Fails when out of memory or on a write
 * error.
 */
int tmx_xstack_write(struct tmx_xstack *s, int fd, struct tmx_error *err);
/* Flame lines whose exclusive time was negative (a call never exited), printed as 0. */
uint64_t tmx_xstack_clamped(const struct tmx_xstack *s);
void tmx_xstack_free(struct tmx_xstack *s);

#endif
