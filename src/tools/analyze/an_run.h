/*
 * What the run of an analysis (an_core.c) and lttng-analyses' kernel state
 * (an_state.c) share: the kinds of events the state reads, event classes
 * bound to them, and the run itself.
 */
#ifndef TMX_TOOLS_ANALYZE_RUN_H
#define TMX_TOOLS_ANALYZE_RUN_H

#include "tools/analyze/an_impl.h"

struct tmx_kmap;

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
/* SLOT_NONE: never read (a system call whose payload has its own pid: no context pid). */
#define SLOT_NONE (-2)

/*
 * How format() reads a payload slot's value whose field class is `fc`
 * (decided when the class is bound): in place, without the type look-up
 * of tmx_value_int64 / _uint64 / _text per value.  AN_R_ANY (and a value
 * of another class): through those.
 */
enum an_ref_kind { AN_R_ANY, AN_R_SIGNED, AN_R_UNSIGNED, AN_R_TEXT };

/*
 * A value an event's record carries (an_event.c): where format() finds it
 * in the event, by its slot in `scope`, else by name in `scope` (with
 * `every`: in every scope, payload first, as tmx_event_field).
 */
struct an_ref {
	const char *name;
	int32_t slot;
	uint8_t scope;
	bool every;
	uint8_t kind;                      /* enum an_ref_kind */
	/*
	 * SLOT_BY_NAME after a member of several values (a sequence): 0, or
	 * the members to skip from index `after` of the slot's scope.
	 */
	uint8_t hops;
	uint32_t after;
	/* the slot's class (AN_R_ANY: NULL); with hops, its scope's */
	const struct tmx_field_class *fc;
};

/*
 * An event class bound to what the state does with its events, once for
 * every class before the run: the formatters read it on every thread, so
 * nothing here changes once the run has begun.
 */
struct an_class {
	uint8_t kind;
	uint8_t known;          /* index in known[] */
	bool is_io;             /* a system call of lttng-analyses' IO_SYSCALLS */
	bool is_connect;        /* syscall_entry_connect (the I/O state names its socket) */
	uint8_t sys_len;
	uint8_t n_refs;
	uint32_t sys_id;        /* the name's number (sys_open and syscall_entry_open alike) */
	const char *sys_name;   /* syscall entries: the name after the prefix */
	/*
	 * The values the handlers read, in the record's order: known[]'s
	 * fields; a system call exit's `ret`; an entry's context pid, then
	 * the fields the I/O state reads (an_io_entry_fields).
	 */
	struct an_ref refs[AN_MAX_FIELDS];
};

/* A value of an event's record: its kind, as the handlers read it (tmx_value_int64, _text...). */
enum an_tag { AN_ABSENT, AN_INT, AN_UINT, AN_TEXT, AN_ADDR, AN_OTHER };
struct an_val {
	uint8_t tag;
	uint32_t len;           /* AN_TEXT: up to its first NUL */
	int64_t i;              /* AN_INT, AN_UINT (as int64) */
	const char *s;          /* AN_TEXT; AN_ADDR: 4 int64 (unaligned) */
};

/*
 * An event as the state reads it: what format() wrote of it on a reading
 * thread (an_event.c), read back on emit's thread.  Text points into the
 * record, valid while it is handled.
 */
struct an_ev {
	size_t ci;              /* the class's number: r->classes[ci] */
	int64_t ts, cpu;
	uint8_t missing;        /* 1 + the word of known[].reads the class lacks, or 0 */
	uint8_t n;
	struct an_val v[AN_MAX_FIELDS];
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

/*
 * A record's bytes: written in place into a reservation of the sink's
 * record (format()), or into `heap` (the state dump's, on emit's thread;
 * a record longer than the reservation moves there).
 */
struct an_bytes {
	char *p;                /* the reservation or `heap` */
	size_t len, cap;
	char *heap;
	size_t heap_cap;
	bool oom;
};

/*
 * A formatter (an_event.c): one per reading thread (tmx_sink_custom's
 * worker_new), and one on emit's thread for the trace.dat state dump.
 * Its caches hold what depends on the class or packet alone, so its
 * records do not depend on which thread wrote them.
 */
struct an_fmt {
	struct an_run *r;          /* read only (its classes are bound before the run) */
	struct tmx_kmap *kmap;     /* trace.dat: this thread's map (one map per thread) */
	struct an_packet_cpu pcpu[AN_CACHE];
	struct an_class_slot ccache[AN_CACHE];
	uint8_t *check;            /* per class: 0 not checked yet, else 1 + an_check_event's */
	struct an_bytes rec;
};

struct an_run {
	struct an a;
	struct tmx_source *src;
	const struct an_ops *ops;
	uint32_t seen;           /* the kinds of the events read (1 << K_...) */
	struct tmx_kmap *kmap;   /* trace.dat: events mapped to lttng-modules' (src/model/kmap.c) */
	struct an_fmt sd;        /* trace.dat: the state dump's formatter (emit's thread) */
	void *self;
	struct an_class *classes;
	bool *checked;           /* per class: its first event was checked (an_check_class) */
	size_t n_classes;
	/* the period */
	bool started, ended, in_period, has_last, first;
	int64_t period_begin, last_ts;
	bool has_begin, has_end;
	int64_t begin_ts, end_ts;
	int64_t ib, ie;          /* the intersection */
	bool stopped;            /* emit() ended the run (not a read error) */
	/* the field an event lacks (lttng-analyses' KeyError) */
	char missing_field[64];
};

/* Binds an event class, before the run: its kind, what its records carry. */
void an_bind_class(struct an_run *r, struct an_class *c, const struct tmx_event_class *ec);
/* Whether the state or the command may read a value of the class's events (tmx_source_skip_fields_of). */
bool an_class_read(const struct an_run *r, const struct tmx_event_class *ec);
/* format(): 1 + the word of the class's reads that `ev` lacks (lttng-analyses' KeyError), or 0. */
uint8_t an_check_event(const struct an_class *c, const struct tmx_event *ev);
/*
 * The first event of a class, with an_check_event's result: false
 * (r->missing_field set) when a field the handler reads is missing.
 */
bool an_check_class(struct an_run *r, const struct an_class *c, uint8_t missing);
/* The state's task `tid`, created (sv.Process(tid=...)) when it has none; NULL when out of memory. */
struct an_proc *an_proc_create(struct an_run *r, int64_t tid);

/* The record of an event (an_event.c). */
/* The formatter's caches and map; false when out of memory.  an_fmt_free frees them. */
bool an_fmt_init(struct an_fmt *f, struct an_run *r, bool map);
void an_fmt_free(struct an_fmt *f);
/*
 * An event message's record into f->rec (mapped first on trace.dat); len
 * 0: no event to feed.  Written at `buf` (cap bytes, at least
 * AN_REC_ROOM) while it fits, else (and for a NULL buf) in f->rec.heap.
 */
void an_fmt_event(struct an_fmt *f, const struct tmx_msg *msg, char *buf, size_t cap);
/* The room format() reserves for a record: any but one with long text. */
#define AN_REC_ROOM 256
/*
 * A record read back: an event of a bound class (AN_READ_EVENT), one whose
 * time is all there is (AN_READ_TIME), or a formatter's out of memory.
 */
enum an_read { AN_READ_TIME, AN_READ_EVENT, AN_READ_OOM };
enum an_read an_ev_read(const struct an_run *r, const void *rec, size_t len, int64_t ts,
			struct an_ev *ev);
/* Value f of the event (AN_ABSENT past its values). */
const struct an_val *an_ev_field(const struct an_ev *ev, int f);
/* Value `name` of the class's refs (system calls' fields, read by name); AN_ABSENT when none. */
const struct an_val *an_ev_named(const struct an_ev *ev, const struct an_class *c, const char *name);
/* An integer (AN_INT, AN_UINT as int64): false for other values. */
bool an_val_int(const struct an_val *v, int64_t *x);
/* Text up to its first NUL (AN_TEXT), else NULL. */
const char *an_val_text(const struct an_val *v, size_t *len);
/* AN_ADDR's four integers. */
void an_val_addr(const struct an_val *v, int64_t b[4]);

/* The I/O state (io_state.c), run only when a->io is set. */
/* The fields an I/O system call's entry reads, in its order (its record's values). */
size_t an_io_entry_fields(const struct an_class *c, const char *names[AN_MAX_FIELDS - 1]);
void an_io_event(struct an_run *r, const struct an_ev *ev, const struct an_class *c);
/* Every system call entry of `p` (a new current system call), and the exit of an I/O one. */
void an_io_syscall_entry(struct an_run *r, const struct an_ev *ev, const struct an_class *c,
			 struct an_proc *p);
void an_io_syscall_exit(struct an_run *r, const struct an_proc *p, int64_t ts, int64_t cpu_id,
			bool has_ret, int64_t ret);
/* A fork: the child gets copies of the fds of `parent_pid`; an exec closes the close-on-exec ones. */
void an_io_fork(struct an_run *r, int64_t parent_pid, int64_t child_tid, int64_t ts);
void an_io_exec(struct an_run *r, int64_t tid, int64_t ts);
/* A state dump of thread `tid` in process `pid` (StatedumpStateProvider: fds to the parent). */
void an_io_statedump_thread(struct an_run *r, int64_t tid, int64_t pid);

/* What the state does with an event (and tells the analysis). */
void an_automaton(struct an_run *r, const struct an_ev *ev, const struct an_class *c);

#endif
