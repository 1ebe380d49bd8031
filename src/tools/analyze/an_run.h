/*
 * What the run of an analysis (an_core.c) and lttng-analyses' kernel state
 * (an_state.c) share: the kinds of events the state reads, event classes
 * bound to them, and the run itself.
 */
#ifndef TMX_TOOLS_ANALYZE_RUN_H
#define TMX_TOOLS_ANALYZE_RUN_H

#include "tools/analyze/an_impl.h"

enum an_kind {
	K_NONE,
	K_SWITCH,
	K_MIGRATE,
	K_WAKEUP,
	K_FORK,
	K_EXEC,
	K_PI_SETPRIO,
	K_STATEDUMP_PROC,
	K_IRQ_ENTRY,
	K_IRQ_EXIT,
	K_SOFTIRQ_RAISE,
	K_SOFTIRQ_ENTRY,
	K_SOFTIRQ_EXIT,
	K_CHECK,         /* read by other state providers: only their KeyErrors matter here */
	K_PAGE_ALLOC,
	K_PAGE_FREE,
	K_SYSCALL_ENTRY, /* sys_NAME, syscall_entry_NAME */
	K_SYSCALL_EXIT,  /* exit_syscall, syscall_exit_NAME */
	/* read by the I/O state (io_state.c) when an I/O command runs */
	K_IO_RQ_ISSUE,
	K_IO_RQ_COMPLETE,
	K_IO_BIO_REMAP,
	K_IO_BIO_BACKMERGE,
	K_IO_NET_XMIT,
	K_IO_NET_RECV,
	K_IO_STATEDUMP_FD,
	K_IO_STATEDUMP_BLOCK,
	K_N,
};

#define AN_MAX_FIELDS 6

/* SLOT_BY_NAME: looked up by name in each event (the payload has arrays or variants before it). */
#define SLOT_BY_NAME (-1)

/* An event class bound to what the state does with its events. */
struct an_class {
	bool bound, checked;
	uint8_t kind;
	uint8_t known;          /* index in known[] */
	bool is_io;             /* a system call of lttng-analyses' IO_SYSCALLS */
	uint8_t sys_len;
	uint32_t sys_id;        /* the name's number (sys_open and syscall_entry_open alike) */
	const char *sys_name;   /* syscall entries: the name after the prefix */
	int32_t slot[AN_MAX_FIELDS];
};

/*
 * The CPU of the events of a packet, worked out once per packet (LTTng:
 * the packet context's cpu_id), in a small table indexed by the packet's
 * address (each stream reuses one address for its packets, the sequence
 * number tells them apart); and the dense number of an event class, by
 * its address: both avoid a hash look-up per event.
 */
#define AN_CACHE 64
struct an_packet_cpu {
	const struct tmx_packet *packet;
	uint64_t seq;
	uint64_t cpu;
};
struct an_class_slot {
	const struct tmx_event_class *ec;
	size_t index;
};

static inline size_t cache_slot(const void *p)
{
	uintptr_t x = (uintptr_t)p;

	return (size_t)((x >> 4) ^ (x >> 10)) & (AN_CACHE - 1);
}

struct an_run {
	struct an a;
	struct tmx_source *src;
	struct an_packet_cpu pcpu[AN_CACHE];
	struct an_class_slot ccache[AN_CACHE];
	const struct an_ops *ops;
	uint32_t seen;           /* the kinds of the events read (1 << K_...) */
	struct tmx_kmap *kmap;   /* trace.dat: events mapped to lttng-modules' (src/model/kmap.c) */
	void *self;
	struct an_class *classes;
	size_t n_classes;
	/* the period */
	bool started, ended, in_period, has_last;
	int64_t period_begin, last_ts;
	bool has_begin, has_end;
	int64_t begin_ts, end_ts;
	/* the field an event lacks (lttng-analyses' KeyError) */
	char missing_field[64];
};

/* Binds an event class once: its kind, where its fields are. */
void an_bind_class(struct an_run *r, struct an_class *c, const struct tmx_event_class *ec);
/* Whether the state or the command may read a value of the class's events (tmx_source_skip_fields_of). */
bool an_class_read(const struct an_run *r, const struct tmx_event_class *ec);
/* The first event of a class: false (r->missing_field set) when a field the handler reads is missing. */
bool an_check_class(struct an_run *r, const struct tmx_event *ev, struct an_class *c);
/* Payload index of `name` when only single-value members come before it, else SLOT_BY_NAME. */
int32_t an_payload_slot(const struct tmx_event_class *ec, const char *name);
/* Field `f` of known[c->known]'s list in `ev` (by its payload slot or by name); NULL when absent. */
const struct tmx_value *an_field(const struct tmx_event *ev, const struct an_class *c, int f);
/* The state's task `tid`, created (sv.Process(tid=...)) when it has none; NULL when out of memory. */
struct an_proc *an_proc_create(struct an_run *r, int64_t tid);

/* The I/O state (io_state.c), run only when a->io is set. */
void an_io_event(struct an_run *r, const struct tmx_event *ev, const struct an_class *c, int64_t ts,
		 int64_t cpu_id);
/* Every system call entry of `p` (a new current system call), and the exit of an I/O one. */
void an_io_syscall_entry(struct an_run *r, const struct tmx_event *ev, const struct an_class *c,
			 struct an_proc *p, int64_t ts, int64_t cpu_id);
void an_io_syscall_exit(struct an_run *r, const struct an_proc *p, int64_t ts, int64_t cpu_id,
			bool has_ret, int64_t ret);
/* A fork: the child gets copies of the fds of `parent_pid`; an exec closes the close-on-exec ones. */
void an_io_fork(struct an_run *r, int64_t parent_pid, int64_t child_tid, int64_t ts);
void an_io_exec(struct an_run *r, int64_t tid, int64_t ts);
/* A state dump of thread `tid` in process `pid` (StatedumpStateProvider: fds to the parent). */
void an_io_statedump_thread(struct an_run *r, int64_t tid, int64_t pid);

/* What the state does with an event (and tells the analysis). */
void an_automaton(struct an_run *r, const struct tmx_event *ev, const struct an_class *c, int64_t ts,
		  int64_t cpu_id);

#endif
