/*
 * Kernel events as Perfetto FtraceEvents (kernel.c): what each event class
 * becomes (a typed payload Perfetto builds views from, or a self-described
 * generic event), worked out once per class, and one event's encoding.
 */
#ifndef TMX_SINK_PERFETTO_KERNEL_H
#define TMX_SINK_PERFETTO_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sink/perfetto/fields.h"
#include "sink/perfetto/pb.h"
#include "tracemux/model.h"

#define PF_MAP_FIELDS 8

/* What else an event of a class says (beyond its FtraceEvent). */
enum pf_special {
	PF_SPECIAL_NONE,
	PF_SPECIAL_PRINT,          /* ftrace print: typed when atrace-shaped, else generic */
	PF_SPECIAL_STATEDUMP,      /* lttng_statedump_process_state: a ProcessTree entry */
	PF_SPECIAL_FORK,           /* sched_process_fork with child_pid (LTTng): a ProcessTree entry */
	PF_SPECIAL_SWITCH,         /* sched_switch: the CPU's running task */
	PF_SPECIAL_SYS_ENTER,      /* LTTng syscall_entry_NAME: id from the name, args from the fields */
	PF_SPECIAL_SYS_EXIT,       /* LTTng syscall_exit_NAME */
	PF_SPECIAL_SOFTIRQ,        /* softirq_*: typed for vectors below 10 (PERFETTO.md), else generic */
};

struct pf_kclass {
	uint32_t typed;             /* FtraceEvent payload field, 0 for generic */
	uint8_t special;            /* enum pf_special */
	bool lttng;                 /* lttng-modules names and prio encoding */
	int64_t syscall_id;
	/* Typed: per mapped proto field, the payload member index (-1: absent). */
	uint8_t n_map;
	const void *map;            /* kernel.c's table row */
	int16_t member[PF_MAP_FIELDS];
	/* Generic (also for print): id, leaves, the bundle's descriptor entry. */
	uint32_t generic_id;
	struct pf_leaves leaves;
	struct tmx_buf desc;         /* the whole FtraceEventBundle field 11 */
};

/*
 * Sets up `k` for event class `ec` of a kernel trace (`lttng`: lttng-modules).
 * `generic_id` is the id the class gets when it is generic.  False when out
 * of memory.
 */
bool pf_kclass_init(struct pf_kclass *k, const struct tmx_event_class *ec, bool lttng,
		    uint32_t generic_id);
void pf_kclass_free(struct pf_kclass *k);

/*
 * Appends the timestamp field and the payload field of the FtraceEvent of
 * `ev` at `ts` (bundle.c puts the pid between them, which may depend on
 * the events before).  Sets *generic when it was written as a generic
 * event (its descriptor must be in the bundle).
 */
void pf_kevent(struct tmx_buf *b, const struct pf_kclass *k, const struct tmx_event *ev,
	       uint64_t ts, struct pf_render *r, bool *generic);

/* Member `m` of the structure at vals[0] (NULL when it has fewer). */
const struct tmx_value *pf_member(const struct tmx_value *vals, size_t m);
/*
 * The integer of typed field `f` (its place in kernel.c's row: sched_switch's
 * prev pid is 1, next pid 5), false when the class or event has none.
 */
bool pf_kclass_int(const struct pf_kclass *k, const struct tmx_event *ev, int f, int64_t *v);
#define PF_SWITCH_PREV_PID 1
#define PF_SWITCH_NEXT_PID 5

/* The payload's integer member `name` (any integer kind), false when absent. */
bool pf_payload_int(const struct tmx_event *ev, const char *name, int64_t *v);
/* The payload's text member `name`, NULL when absent. */
const char *pf_payload_text(const struct tmx_event *ev, const char *name, size_t *len);

#endif
