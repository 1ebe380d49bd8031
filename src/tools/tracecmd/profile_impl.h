/*
 * `trace-cmd report --profile`'s state, shared by its parts (private to
 * src/tools/tracecmd/; see profile.h for what it prints).
 *
 * The structures follow trace-profile.c: an event_data per event id (how
 * its records are handled, which event starts or ends it, the fields that
 * match a start with its end), tasks by pid, "starts" waiting for their
 * end (per task, found newest first, also listed per CPU so that a page
 * with missed events drops them), and per task one entry per (event,
 * search value, value) with its count and timings.  Hash tables here are
 * only ever looked up by exact key; the output is sorted.
 *
 * profile_hash.c: the hash tables, and the tasks, starts and entries in
 * them; profile.c: the record handlers; profile_setup.c: hooks and the
 * event setup (trace_init_profile); profile_print.c: the text, tasks
 * merged by comm; profile_chain.c: the tree of an entry's kernel stacks.
 */
#ifndef TMX_TOOLS_TRACECMD_PROFILE_IMPL_H
#define TMX_TOOLS_TRACECMD_PROFILE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>

#include "sink/outbuf.h"
#include "tools/tracecmd/profile.h"

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

/* profile_hash.c: tasks, starts, entries */

/* The task of pid, created on first use (NULL: out of memory). */
struct pt_task *pt_find_task(struct tcp_profile *p, int pid);
/* The list of starts of a CPU (cpu < 0: those that may migrate), created on first use. */
struct pt_start **pt_cpu_list(struct tcp_profile *p, int cpu);
/* A start of `ed` for task t at rec's time, waiting for its end (NULL: out of memory). */
struct pt_start *pt_add_start(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
			      const struct tep_record *rec, uint64_t search_val, uint64_t val);
/* The start is dropped (recycled), with its stack. */
void pt_free_start(struct tcp_profile *p, struct pt_start *s);
/*
 * The start of `ed` for t and search_val (ed NULL or none: NULL), ended at
 * ts: its time goes to its entry, which is returned.
 */
struct pt_event *pt_find_and_update_start(struct tcp_profile *p, struct pt_task *t,
					  struct pt_evd *ed, uint64_t ts, uint64_t search_val);
/* The entry of (t, ed, search value, value), created on first use (NULL: out of memory). */
struct pt_event *pt_find_event(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
			       uint64_t search_val, uint64_t val);
/* The same entry if it exists (NULL: none). */
struct pt_event *pt_lookup_event(struct tcp_profile *p, struct pt_task *t, struct pt_evd *ed,
				 uint64_t sv, uint64_t v);
/* One more occurrence of a stack under entry e, with its time (false: out of memory). */
bool pt_add_event_stack(struct pt_event *e, const uint8_t *caller, size_t size, uint64_t time,
			uint64_t ts);
/* Entry e out of the hash table (before its key fields change), and into it again. */
void pt_event_unlink(struct tcp_profile *p, struct pt_event *e);
bool pt_event_link(struct tcp_profile *p, struct pt_event *e);

/* profile_chain.c */

/* output_stacks(): the tree of the callers of e's stacks (sorts them). */
void pt_output_stacks(struct tcp_profile *p, struct pt_event *e, struct outbuf *out);

#endif
