/*
 * `trace-cmd report --profile` (trace-cmd 3.1.6's trace-profile.c): per
 * task, how long it stayed scheduled out by state, how long its wakeups
 * took, its syscalls, softirqs, irqs and function graph calls, and how
 * many of every other event it had.
 *
 * Pairs of events are timed from start to end: sched_switch out to the
 * wakeup (blocked) or to the switch in (preempted), sched_wakeup to the
 * switch in, sys_enter/sys_exit by id, softirq_raise/entry/exit by vector,
 * irq_handler_entry/exit by irq, funcgraph_entry/exit by function; the
 * rest are counted by the value of their first field.  Kernel stack traces
 * (ftrace:kernel_stack) are attached to what their task did last and
 * printed under each entry as trace-cmd's tree of callers.  The text is
 * trace-cmd's; where trace-cmd orders equal entries by hashes of heap
 * addresses (so its own output changes from run to run), the order here is
 * fixed: by value, then by search value.
 *
 * With --by-comm, tasks of the same comm are merged into groups (printed
 * by comm; trace-cmd's order of them comes from heap addresses).
 *
 * Hooks (-H) pair more events; their times print as EVENT:0xVALUE.
 */
#ifndef TMX_TOOLS_TRACECMD_PROFILE_H
#define TMX_TOOLS_TRACECMD_PROFILE_H

#include <stdbool.h>

#include <event-parse.h>

#include "sink/outbuf.h"
#include "tracemux/error.h"

struct tcp_profile;

/*
 * An event pair to time (report -H, or a HOOK option that `trace-cmd
 * record -H` stored): [SYSTEM:]START,START_FIELD[,PID_FIELD]/
 * [SYSTEM:]END,END_FIELD[,FLAGS], FLAGS among P (pinned to its CPU), G
 * (global), S (stacks, ignored as by trace-cmd).
 */
struct tcp_hook {
	char *str;   /* owned: the strings below point into it */
	const char *start_system, *start_event, *start_match, *pid;
	const char *end_system, *end_event, *end_match, *flags;
	bool migrate, global;
};

/*
 * Parses a hook as libtracecmd's tracecmd_create_event_hook() (strtok and
 * all); false when it is invalid.  `line` gets what trace-cmd prints for
 * it ("start SYS:EVENT:MATCH (PID) end SYS:EVENT:MATCH (FLAGS)\n", absent
 * parts as "(null)").
 */
bool tcp_hook_parse(const char *arg, struct tcp_hook *h, char *line, size_t cap);
void tcp_hook_free(struct tcp_hook *h);

/*
 * trace_init_profile() for one file's libtraceevent handle; `global` (-G):
 * irqs and softirqs counted per CPU, not per task; `hooks` in trace-cmd's
 * list order (each one's events override what an earlier one set up).
 * NULL when out of memory or when the events lack the fields that pair them.
 */
struct tcp_profile *tcp_profile_new(struct tep_handle *tep, int cpus, bool global,
				    const struct tcp_hook *const *hooks, size_t n_hooks);
/*
 * One record (its ts is trace-cmd's record->ts, its cpu the CPU id),
 * as trace_profile_record().  Fails on a kernel stack trace or out of memory.
 */
int tcp_profile_record(struct tcp_profile *p, struct tep_record *rec, const char *path,
		       struct tmx_error *err);
/* --by-comm: tasks with the same comm printed as one group (before the output). */
void tcp_profile_set_by_comm(struct tcp_profile *p, bool on);
/* The profile text (do_trace_profile()). */
void tcp_profile_output(struct tcp_profile *p, struct outbuf *out);
void tcp_profile_free(struct tcp_profile *p);

#endif
