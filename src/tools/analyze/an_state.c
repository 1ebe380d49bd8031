/*
 * lttng-analyses' kernel state (its linuxautomaton: the sched, statedump,
 * IRQ, system call and memory providers) over tracemux events: each event
 * class bound once to the handler of its lttng-modules name and the payload
 * index of each field the handler reads; tasks by tid (task objects that a
 * fork replaces), CPUs, current IRQ and softirqs, current system call; the
 * notifications to the analysis while its period runs.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tracemux/event.h"
#include "tools/analyze/an_run.h"


/*
 * The lttng-modules events the state reads, the fields it reads of them,
 * and the fields lttng-analyses' handler always reads, in its order: the
 * first that an event lacks is the KeyError that stops lttng-analyses
 * ("Cannot run analysis: 'tid'").
 */
static const struct {
	const char *name;
	enum an_kind kind;
	const char *fields[AN_MAX_FIELDS];
	const char *reads;
} known[] = {
	{ "sched_switch", K_SWITCH,
	  { "prev_comm", "prev_tid", "prev_prio", "next_comm", "next_tid", "next_prio" },
	  "cpu_id next_tid next_comm next_prio prev_tid prev_prio prev_comm" },
	{ "sched_migrate_task", K_MIGRATE, { "comm", "tid", "prio" }, "tid prio" },
	{ "sched_wakeup", K_WAKEUP, { "tid", "prio", "target_cpu" }, "target_cpu cpu_id prio tid" },
	{ "sched_wakeup_new", K_WAKEUP, { "tid", "prio", "target_cpu" }, "target_cpu cpu_id prio tid" },
	{ "sched_waking", K_WAKEUP, { "tid", "prio", "target_cpu" }, "target_cpu cpu_id prio tid" },
	{ "sched_process_fork", K_FORK,
	  { "parent_comm", "parent_pid", "child_comm", "child_tid", "child_pid" },
	  "child_tid child_pid child_comm parent_pid parent_comm" },
	{ "sched_process_exec", K_EXEC, { "tid" }, "tid" },
	{ "sched_pi_setprio", K_PI_SETPRIO, { "tid", "newprio" }, "newprio tid" },
	{ "lttng_statedump_process_state", K_STATEDUMP_PROC, { "tid", "pid", "name", "prio" },
	  "tid pid name" },
	{ "irq_handler_entry", K_IRQ_ENTRY, { "irq", "name" }, "cpu_id irq name" },
	{ "irq_handler_exit", K_IRQ_EXIT, { "irq", "ret" }, "cpu_id" },
	{ "softirq_raise", K_SOFTIRQ_RAISE, { "vec" }, "cpu_id vec" },
	{ "softirq_entry", K_SOFTIRQ_ENTRY, { "vec" }, "cpu_id vec" },
	{ "softirq_exit", K_SOFTIRQ_EXIT, { "vec" }, "cpu_id vec" },
	{ "block_rq_issue", K_IO_RQ_ISSUE, { "dev", "sector", "nr_sector", "tid", "rwbs" },
	  "dev sector nr_sector tid rwbs" },
	{ "block_rq_complete", K_IO_RQ_COMPLETE, { "dev", "sector", "nr_sector" },
	  "dev sector nr_sector" },
	{ "block_bio_remap", K_IO_BIO_REMAP, { "dev", "sector", "old_dev", "old_sector" },
	  "dev sector old_dev old_sector" },
	{ "block_bio_backmerge", K_IO_BIO_BACKMERGE, { "dev", "sector" }, "dev sector" },
	{ "mm_page_alloc", K_PAGE_ALLOC, { 0 }, "cpu_id" },
	{ "kmem_mm_page_alloc", K_PAGE_ALLOC, { 0 }, "cpu_id" },
	{ "mm_page_free", K_PAGE_FREE, { 0 }, "" },
	{ "kmem_mm_page_free", K_PAGE_FREE, { 0 }, "" },
	{ "net_dev_xmit", K_IO_NET_XMIT, { "name", "len" }, "name len cpu_id" },
	{ "netif_receive_skb", K_IO_NET_RECV, { "name", "len" }, "name len cpu_id" },
	{ "lttng_statedump_file_descriptor", K_IO_STATEDUMP_FD, { "pid", "fd", "filename", "flags" },
	  "pid fd filename flags cpu_id" },
	{ "lttng_statedump_block_device", K_IO_STATEDUMP_BLOCK, { "dev", "diskname" }, "dev diskname" },
	{ "mm_vmscan_wakeup_kswapd", K_CHECK, { 0 }, "cpu_id" },
};

/* sv.SyscallConsts.IO_SYSCALLS */
static bool is_io_syscall(const char *name)
{
	static const char *const io[] = {
		"open", "openat", "socket", "fcntl", "dup", "dup2", "dup3", "close", "read",
		"recvmsg", "recvfrom", "readv", "pread", "pread64", "preadv", "write", "sendmsg",
		"sendto", "writev", "pwrite", "pwrite64", "pwritev", "sync", "sync_file_range",
		"fsync", "fdatasync", "splice", "sendfile64",
	};

	for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
		if (!strcmp(name, io[i]))
			return true;
	return false;
}

static bool fc_is_leaf(const struct tmx_field_class *fc)
{
	switch (tmx_fc_kind(fc)) {
	case TMX_FC_INT: case TMX_FC_ENUM: case TMX_FC_FLOAT: case TMX_FC_STRING:
	case TMX_FC_BOOL: case TMX_FC_BIT_ARRAY: case TMX_FC_BLOB:
		return true;
	case TMX_FC_ARRAY: case TMX_FC_SEQUENCE:
		return tmx_fc_is_text(fc);
	default:
		return false;
	}
}

/*
 * Where each field the state reads is in its scope's value array (the
 * payload, or the context of a system call's pid): directly at 1 + its
 * position while only single-value members come before it (the usual
 * LTTng payload), else by name in each event.
 */
static int32_t struct_slot(const struct tmx_field_class *st, const char *name)
{
	size_t n = st && tmx_fc_kind(st) == TMX_FC_STRUCT ? tmx_fc_member_count(st) : 0;

	for (size_t m = 0; m < n; m++) {
		if (!strcmp(tmx_fc_member_name(st, m), name))
			return (int32_t)m + 1;
		if (!fc_is_leaf(tmx_fc_member_class(st, m)))
			break;
	}
	return SLOT_BY_NAME;
}

/* How tmx_value_int64 / _uint64 / _text read a value of class `fc` (an_ref_kind). */
static uint8_t ref_kind(const struct tmx_field_class *fc)
{
	switch (tmx_fc_kind(fc)) {
	case TMX_FC_INT: case TMX_FC_ENUM:
		return tmx_fc_is_signed(fc) ? AN_R_SIGNED : AN_R_UNSIGNED;
	case TMX_FC_BOOL: case TMX_FC_BIT_ARRAY:
		return AN_R_UNSIGNED;
	case TMX_FC_STRING:
		return AN_R_TEXT;
	case TMX_FC_ARRAY: case TMX_FC_SEQUENCE:
		return tmx_fc_is_text(fc) ? AN_R_TEXT : AN_R_ANY;
	default:
		return AN_R_ANY;
	}
}

/*
 * A field after a member of several values: reached in each event by
 * skipping the members from the first such one (ref->hops), rather than
 * by tmx_event_field, which compares every name before it.
 */
static void struct_walk(const struct tmx_field_class *st, struct an_ref *ref)
{
	size_t n = st && tmx_fc_kind(st) == TMX_FC_STRUCT ? tmx_fc_member_count(st) : 0;
	size_t first = n;

	for (size_t m = 0; m < n; m++) {
		if (first == n && !fc_is_leaf(tmx_fc_member_class(st, m)))
			first = m;
		if (strcmp(tmx_fc_member_name(st, m), ref->name))
			continue;
		if (first < m && m - first <= UINT8_MAX) {
			ref->after = (uint32_t)first + 1;
			ref->hops = (uint8_t)(m - first);
			ref->fc = st;
		}
		return;
	}
}

/*
 * The ref of field `name` of structure `st` (the class of scope `scope`;
 * `every`: looked up by name in every scope): its slot, and how a value
 * of its slot's class is read.
 */
static struct an_ref field_ref(const struct tmx_field_class *st, const char *name, uint8_t scope,
			       bool every)
{
	struct an_ref ref = { name, struct_slot(st, name), scope, every, AN_R_ANY, 0, 0, NULL };

	if (ref.slot >= 0) {
		ref.fc = tmx_fc_member_class(st, (size_t)ref.slot - 1);
		ref.kind = ref_kind(ref.fc);
	} else {
		struct_walk(st, &ref);
	}
	return ref;
}

static struct an_ref payload_ref(const struct tmx_event_class *ec, const char *name)
{
	return field_ref(ec->payload, name, TMX_SCOPE_PAYLOAD, true);
}

/*
 * The number of a system call name: the classes bound before `self` (in
 * the classes' order) are searched, once per class.
 */
static uint32_t sys_name_id(struct an_run *r, const struct an_class *self, const char *name,
			    size_t len)
{
	for (const struct an_class *k = r->classes; k < self; k++)
		if (k->kind == K_SYSCALL_ENTRY && k->sys_len == len && !memcmp(k->sys_name, name, len))
			return k->sys_id;
	return (uint32_t)r->a.n_sys_names++;
}

/*
 * What the state makes of a class, by its name (StateProvider.process_event):
 * a known[] row (*known set), a system call's entry or exit, or K_NONE.
 */
static int kind_of(const char *n, size_t *known_idx)
{
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (!strcmp(n, known[k].name)) {
			*known_idx = k;
			return known[k].kind;
		}
	/* the system call prefixes */
	if (!strncmp(n, "sys_", 4) || !strncmp(n, "syscall_entry_", 14))
		return K_SYSCALL_ENTRY;
	if (!strncmp(n, "exit_syscall", 12) || !strncmp(n, "syscall_exit_", 13))
		return K_SYSCALL_EXIT;
	return K_NONE;
}

static const char *sys_name_of(const char *n)
{
	return n + (n[3] == '_' ? 4 : 14);
}

static bool has_member(const struct tmx_field_class *st, const char *name)
{
	size_t n = st && tmx_fc_kind(st) == TMX_FC_STRUCT ? tmx_fc_member_count(st) : 0;

	for (size_t m = 0; m < n; m++)
		if (!strcmp(tmx_fc_member_name(st, m), name))
			return true;
	return false;
}

bool an_class_read(const struct an_run *r, const struct tmx_event_class *ec)
{
	enum tmx_scope scope;
	size_t k;

	/* an_check_class finds cpu_id by name, in the payload first: keep them all */
	if (!tmx_stream_class_cpu_field(ec->stream_class, &scope) || scope != TMX_SCOPE_PACKET_CONTEXT)
		return true;
	switch (kind_of(ec->name, &k)) {
	case K_NONE:
		return false;   /* feed() stops at the kind */
	case K_SYSCALL_ENTRY:
		/* the I/O state's arguments; fix_context_pid's context pid */
		return r->a.io || (is_io_syscall(sys_name_of(ec->name)) &&
				   has_member(ec->stream_class->event_common_context, "pid"));
	case K_SYSCALL_EXIT:
		/* event.get('ret'): no error when it is absent */
		return r->a.io || r->ops->syscall_exit;
	default:
		return true;
	}
}

/*
 * fix_context_pid's `pid` context, where its class puts it: none in any
 * event when the stream class has no common context (trace.dat's mapped
 * classes), else by its slot there (or by name).
 */
static void bind_context_pid(const struct tmx_event_class *ec, struct an_ref *ref)
{
	const struct tmx_field_class *cc;

	if (!ec->stream_class) {
		ref->slot = SLOT_BY_NAME;
		return;
	}
	cc = ec->stream_class->event_common_context;
	if (cc)
		*ref = field_ref(cc, "pid", TMX_SCOPE_COMMON_CONTEXT, false);
}

/* What the handler of a system call's entry reads: the context pid of an I/O call, the I/O state's fields. */
static void bind_entry(struct an_run *r, struct an_class *c, const struct tmx_event_class *ec)
{
	const char *names[AN_MAX_FIELDS - 1];
	size_t n = r->a.io ? an_io_entry_fields(c, names) : 0;

	/* fix_context_pid: the `pid` context, unless the payload has a pid of its own */
	c->refs[0] = (struct an_ref){ "pid", SLOT_NONE, TMX_SCOPE_COMMON_CONTEXT, false, AN_R_ANY, 0, 0,
				      NULL };
	if (c->is_io && !has_member(ec->payload, "pid"))
		bind_context_pid(ec, &c->refs[0]);
	for (size_t i = 0; i < n; i++)
		c->refs[1 + i] = payload_ref(ec, names[i]);
	c->n_refs = (uint8_t)(1 + n);
}

void an_bind_class(struct an_run *r, struct an_class *c, const struct tmx_event_class *ec)
{
	size_t k = 0;

	c->kind = (uint8_t)kind_of(ec->name, &k);
	c->known = (uint8_t)k;
	if (c->kind == K_SYSCALL_ENTRY) {
		c->sys_name = sys_name_of(ec->name);
		c->sys_len = (uint8_t)(strlen(c->sys_name) > 255 ? 255 : strlen(c->sys_name));
		c->is_io = is_io_syscall(c->sys_name);
		c->is_connect = !strcmp(ec->name, "syscall_entry_connect");
		c->sys_id = sys_name_id(r, c, c->sys_name, c->sys_len);
		bind_entry(r, c, ec);
		return;
	}
	if (c->kind == K_SYSCALL_EXIT) {
		/* event.get('ret'), which only these read (else the values are not decoded: an_class_read) */
		if (r->ops->syscall_exit || r->a.io)
			c->refs[c->n_refs++] = payload_ref(ec, "ret");
		return;
	}
	if (c->kind == K_NONE)
		return;
	for (int f = 0; f < AN_MAX_FIELDS && known[c->known].fields[f]; f++) {
		const char *want = known[c->known].fields[f];
		c->refs[f] = payload_ref(ec, want);
		c->n_refs = (uint8_t)(f + 1);
	}
}

static int64_t int_field(const struct an_ev *ev, int f)
{
	int64_t x = 0;

	an_val_int(an_ev_field(ev, f), &x);
	return x;
}

static void text_field(const struct an_ev *ev, int f, struct an_comm *out)
{
	size_t len;
	const char *s = an_val_text(an_ev_field(ev, f), &len);

	if (len > AN_COMM_MAX)
		len = AN_COMM_MAX;
	out->len = (uint8_t)len;
	if (len)
		memcpy(out->s, s, len);
}

static bool has_field(const struct an_ev *ev, int f)
{
	return an_ev_field(ev, f)->tag != AN_ABSENT;
}

/* ------------------------------------------------------------------ */
/* The state (linuxautomaton)                                           */
/* ------------------------------------------------------------------ */

static struct an_proc *proc_get(struct an_run *r, int64_t tid, bool *added)
{
	struct an_proc *p = an_table_get(&r->a.procs, tid, added);

	if (!p)
		r->a.oom = true;
	return p;
}

static struct an_cpu *cpu_get(struct an_run *r, int64_t id)
{
	bool added;
	struct an_cpu *c = an_table_get(&r->a.cpus, id, &added);

	if (!c) {
		r->a.oom = true;
		return NULL;
	}
	if (added)
		c->id = id;
	return c;
}

const struct an_proc *an_proc_object(const struct an *a, int64_t tid, uint64_t obj)
{
	const struct an_proc *p = an_table_find(&a->procs, tid);

	if (p && p->obj == obj)
		return p;
	return an_table_find(&a->retired, (int64_t)obj);
}

/* sv.Process(tid=...) */
static struct an_proc *create_proc(struct an_run *r, int64_t tid)
{
	bool added;
	struct an_proc *p = proc_get(r, tid, &added);

	if (p && added) {
		p->obj = r->a.next_obj++;
		p->tid = tid;
		if (tid == 0) {
			p->pid = 0;
			p->has_pid = true;
		}
	}
	return p;
}

struct an_proc *an_proc_create(struct an_run *r, int64_t tid)
{
	return create_proc(r, tid);
}

/* SchedStateProvider._check_prio_changed */
static void check_prio_changed(struct an_run *r, int64_t ts, int64_t tid, int64_t prio)
{
	struct an_proc *p;

	if (tid == 0 || !(p = an_table_find(&r->a.procs, tid)))
		return;
	if (!p->has_prio || p->prio != prio) {
		p->prio = prio;
		p->has_prio = true;
		if (r->in_period && r->ops->prio_changed)
			r->ops->prio_changed(r->self, ts, tid, prio);
	}
}

static void on_switch(struct an_run *r, const struct an_ev *ev, int64_t ts, int64_t cpu_id)
{
	struct an_comm prev_comm, next_comm;
	int64_t prev_tid = int_field(ev, 1), prev_prio = int_field(ev, 2);
	int64_t next_tid = int_field(ev, 4), next_prio = int_field(ev, 5);
	struct an_cpu *cpu = cpu_get(r, cpu_id);
	struct an_proc *next;

	text_field(ev, 0, &prev_comm);
	text_field(ev, 3, &next_comm);
	if (!cpu)
		return;
	cpu->has_tid = next_tid != 0;
	cpu->current_tid = next_tid;
	if (!create_proc(r, prev_tid) || !(next = create_proc(r, next_tid)))
		return;
	next->comm = next_comm;
	check_prio_changed(r, ts, prev_tid, prev_prio);
	check_prio_changed(r, ts, next_tid, next_prio);
	next = an_table_find(&r->a.procs, next_tid);
	if (r->in_period) {
		const struct an_proc *waker =
			next->has_waker ? an_table_find(&r->a.procs, next->last_waker) : NULL;
		if (r->ops->sched_switch)
			r->ops->sched_switch(r->self, ts, cpu_id, prev_tid, &prev_comm, next_tid,
					     &next_comm, next);
		if (r->ops->sched_switch_tid)
			r->ops->sched_switch_tid(r->self, ts, cpu_id, next_tid, next, waker);
	}
	next->has_wakeup = next->has_waker = false;
}

static void on_migrate(struct an_run *r, const struct an_ev *ev, int64_t ts, int64_t cpu_id)
{
	int64_t tid = int_field(ev, 1), prio = int_field(ev, 2);
	bool added;
	struct an_proc *p = proc_get(r, tid, &added);

	if (!p)
		return;
	if (added) {
		p->obj = r->a.next_obj++;
		p->tid = tid;
		text_field(ev, 0, &p->comm);
	}
	if (r->in_period && r->ops->migrate)
		r->ops->migrate(r->self, p, cpu_id);
	check_prio_changed(r, ts, tid, prio);
}

static void on_wakeup(struct an_run *r, const struct an_ev *ev, int64_t ts, int64_t cpu_id)
{
	int64_t tid = int_field(ev, 0), prio = int_field(ev, 1);
	int64_t target = int_field(ev, 2);
	struct an_cpu *cur;
	struct an_proc *p;

	if (r->a.prio_offset)
		prio -= 100;
	if (!cpu_get(r, target) || !(cur = cpu_get(r, cpu_id)))
		return;
	/* A task already running on a CPU: the wakeup is ignored. */
	for (size_t i = 0; i < r->a.cpus.n; i++) {
		const struct an_cpu *k = an_table_at(&r->a.cpus, i);
		if (k->has_tid && k->current_tid == tid)
			return;
	}
	if (!(p = create_proc(r, tid)))
		return;
	check_prio_changed(r, ts, tid, prio);
	p = an_table_find(&r->a.procs, tid);
	cur = an_table_find(&r->a.cpus, cpu_id);
	if (!p->has_wakeup) {
		p->has_wakeup = true;
		p->last_wakeup = ts;
		if (cur->has_tid) {
			p->has_waker = true;
			p->last_waker = cur->current_tid;
		}
	}
}

static void on_fork(struct an_run *r, const struct an_ev *ev)
{
	struct an_comm parent_comm, child_comm;
	int64_t parent_pid = int_field(ev, 1);
	int64_t child_tid = int_field(ev, 3), child_pid = int_field(ev, 4);
	bool added;
	struct an_proc *p;

	text_field(ev, 0, &parent_comm);
	text_field(ev, 2, &child_comm);
	/* lttng-analyses keys the parent by its pid (parent_tid = event['parent_pid']). */
	if (!(p = proc_get(r, parent_pid, &added)))
		return;
	if (added) {
		p->obj = r->a.next_obj++;
		p->tid = parent_pid;
	}
	p->pid = parent_pid;
	p->has_pid = true;
	p->comm = parent_comm;
	/* A new sv.Process replaces whatever the child tid had (kept for what refers to it). */
	if (!(p = proc_get(r, child_tid, &added)))
		return;
	if (!added) {
		bool radded;
		struct an_proc *old = an_table_get(&r->a.retired, (int64_t)p->obj, &radded);
		if (!old) {
			r->a.oom = true;
			return;
		}
		p = an_table_find(&r->a.procs, child_tid);
		*old = *p;
	}
	memset(p, 0, sizeof(*p));
	p->obj = r->a.next_obj++;
	p->tid = child_tid;
	p->pid = child_pid;
	p->has_pid = true;
	p->comm = child_comm;
}

static void on_statedump_proc(struct an_run *r, const struct an_ev *ev)
{
	int64_t tid = int_field(ev, 0), pid = int_field(ev, 1);
	struct an_comm name;
	bool added;
	struct an_proc *p;

	text_field(ev, 2, &name);
	if (!(p = create_proc(r, tid)))
		return;
	p->pid = pid;
	p->has_pid = true;
	p->comm = name;
	/* prio: absent before lttng-modules 2.8 (None); sched_* events win. */
	if (!p->has_prio && has_field(ev, 3)) {
		p->prio = int_field(ev, 3);
		p->has_prio = true;
	}
	if (pid != tid) {
		struct an_proc *parent = proc_get(r, pid, &added);
		if (parent && added) {
			parent->obj = r->a.next_obj++;
			parent->tid = pid;
			parent->pid = pid;
			parent->has_pid = true;
			parent->comm = name;
		}
		if (parent && r->a.io)
			an_io_statedump_thread(r, tid, pid);
	}
}

/* IrqStateProvider */
static void on_irq_entry(struct an_run *r, const struct an_ev *ev, int64_t ts, int64_t cpu_id)
{
	struct an_cpu *cpu = cpu_get(r, cpu_id);
	int64_t irq = int_field(ev, 0);
	const char *name;
	size_t len;

	if (!cpu)
		return;
	cpu->in_irq = true;
	cpu->irq = irq;
	cpu->irq_begin = ts;
	if (r->in_period && r->ops->irq_entry) {
		name = an_val_text(an_ev_field(ev, 1), &len);
		r->ops->irq_entry(r->self, irq, name ? name : "", len);
	}
}

static void on_irq_exit(struct an_run *r, const struct an_ev *ev, int64_t ts, int64_t cpu_id)
{
	struct an_cpu *cpu = cpu_get(r, cpu_id);

	if (!cpu)
		return;
	if (cpu->in_irq && cpu->irq == int_field(ev, 0) && r->in_period && r->ops->irq_exit)
		r->ops->irq_exit(r->self, cpu_id, cpu->irq, cpu->irq_begin, ts);
	cpu->in_irq = false;
}

static struct an_softirq *soft_first(struct an_cpu *cpu, int64_t vec)
{
	for (size_t i = 0; i < cpu->n_soft; i++)
		if (cpu->soft[i].vec == vec)
			return &cpu->soft[i];
	return NULL;
}

static void on_softirq(struct an_run *r, const struct an_ev *ev, const struct an_class *c,
		       int64_t ts, int64_t cpu_id)
{
	struct an_cpu *cpu = cpu_get(r, cpu_id);
	int64_t vec = int_field(ev, 0);
	struct an_softirq *first, *n;

	if (!cpu)
		return;
	first = soft_first(cpu, vec);
	switch ((enum an_kind)c->kind) {
	case K_SOFTIRQ_RAISE:
		/* level-triggered: one pending raise, unless the first already entered */
		if (first && !first->has_begin)
			return;
		/* fall through */
	case K_SOFTIRQ_ENTRY:
		if (c->kind == K_SOFTIRQ_ENTRY && first) {
			first->has_begin = true;
			first->begin_ts = ts;
			return;
		}
		if (!tmx_grow_array((void **)&cpu->soft, &cpu->cap_soft, cpu->n_soft + 1,
				    sizeof(*cpu->soft), 4)) {
			r->a.oom = true;
			return;
		}
		n = &cpu->soft[cpu->n_soft++];
		memset(n, 0, sizeof(*n));
		n->vec = vec;
		if (c->kind == K_SOFTIRQ_RAISE) {
			n->has_raise = true;
			n->raise_ts = ts;
		} else {
			n->has_begin = true;
			n->begin_ts = ts;
		}
		return;
	default:
		if (!first)
			return;
		if (r->in_period && r->ops->softirq_exit)
			r->ops->softirq_exit(r->self, cpu_id, first, ts);
		memmove(first, first + 1, (size_t)(cpu->soft + cpu->n_soft - first - 1) * sizeof(*first));
		cpu->n_soft--;
		return;
	}
}

/* the task running on cpu_id, when the state knows one */
static struct an_proc *current_proc(struct an_run *r, int64_t cpu_id)
{
	const struct an_cpu *cpu = an_table_find(&r->a.cpus, cpu_id);

	return cpu && cpu->has_tid ? an_table_find(&r->a.procs, cpu->current_tid) : NULL;
}

/*
 * IoStateProvider._fix_context_pid: an I/O system call's `pid` context
 * gives a task without one its pid, and a thread's process a new state
 * object (replacing the one it had, as lttng-analyses does).
 */
static void fix_context_pid(struct an_run *r, const struct an_ev *ev, struct an_proc *p)
{
	const struct an_val *v = an_ev_field(ev, 0);   /* bind_entry's ref */
	int64_t pid = 0, tid = p->tid;
	struct an_comm comm;
	int64_t prio = p->prio;
	bool has_prio = p->has_prio, added;
	struct an_proc *parent;

	/* a task's pid, once known, is not looked up again */
	if (p->has_pid || v->tag == AN_ABSENT)
		return;
	comm = p->comm;
	if (v->tag == AN_INT)   /* tmx_value_int64's: an unsigned pid beyond it stays 0 */
		pid = v->i;
	p->pid = pid;
	p->has_pid = true;
	if (pid == tid || !(parent = proc_get(r, pid, &added)))
		return;
	if (!added) {
		bool radded;
		struct an_proc *old = an_table_get(&r->a.retired, (int64_t)parent->obj, &radded);
		if (!old) {
			r->a.oom = true;
			return;
		}
		parent = an_table_find(&r->a.procs, pid);
		*old = *parent;
	}
	memset(parent, 0, sizeof(*parent));
	parent->obj = r->a.next_obj++;
	parent->tid = parent->pid = pid;
	parent->has_pid = true;
	parent->comm = comm;
	parent->prio = prio;
	parent->has_prio = has_prio;
}

static void on_syscall_entry(struct an_run *r, const struct an_ev *ev,
			     const struct an_class *c, int64_t ts, int64_t cpu_id)
{
	struct an_proc *p = current_proc(r, cpu_id);

	if (!p)
		return;
	p->in_syscall = true;
	p->sys_name = c->sys_name;
	p->sys_len = c->sys_len;
	p->sys_id = c->sys_id;
	p->sys_begin = ts;
	if (c->is_io)
		fix_context_pid(r, ev, p);
	if (r->a.io && (p = current_proc(r, cpu_id)))
		an_io_syscall_entry(r, ev, c, p);
}

static void on_syscall_exit(struct an_run *r, const struct an_ev *ev, int64_t ts,
			    int64_t cpu_id)
{
	struct an_proc *p = current_proc(r, cpu_id);
	int64_t ret = 0;
	bool has_ret;

	if (!p || !p->in_syscall)
		return;
	/* event.get('ret'): absent unless the command or the I/O state reads it (an_bind_class) */
	has_ret = an_val_int(an_ev_field(ev, 0), &ret);
	if (r->in_period && r->ops->syscall_exit)
		r->ops->syscall_exit(r->self, p, cpu_id, ts - p->sys_begin, has_ret, ret);
	if (r->a.io)
		an_io_syscall_exit(r, p, ts, cpu_id, has_ret, ret);
	/* cleared by the syscalls provider, or by the I/O one for I/O calls */
	p->in_syscall = false;
}

/* The names of the fields the handler of class `c` reads, in its order. */
static const char *reads_of(const struct an_class *c)
{
	return c->kind == K_SYSCALL_ENTRY || c->kind == K_SYSCALL_EXIT ? "cpu_id" : known[c->known].reads;
}

/*
 * On a reading thread, once per class: the fields the handler reads, in
 * its order (a class has the same fields in all its events); 1 + the
 * number of the first one `ev` lacks, or 0.
 */
uint8_t an_check_event(const struct an_class *c, const struct tmx_event *ev)
{
	const char *p = reads_of(c);

	for (uint8_t k = 1; *p; k++) {
		char name[64];
		size_t n = strcspn(p, " ");
		uint64_t cpu;
		memcpy(name, p, n);
		name[n] = 0;
		p += n + (p[n] == ' ');
		if (!tmx_event_field(ev, name) && (strcmp(name, "cpu_id") || !tmx_event_cpu(ev, &cpu)))
			return k;
	}
	return 0;
}

bool an_check_class(struct an_run *r, const struct an_class *c, uint8_t missing)
{
	const char *p = reads_of(c);

	if (!missing)
		return true;
	while (--missing)
		p += strcspn(p, " ") + 1;
	snprintf(r->missing_field, sizeof(r->missing_field), "%.*s", (int)strcspn(p, " "), p);
	return false;
}

void an_automaton(struct an_run *r, const struct an_ev *ev, const struct an_class *c)
{
	int64_t ts = ev->ts, cpu_id = ev->cpu;

	switch ((enum an_kind)c->kind) {
	case K_SWITCH:
		on_switch(r, ev, ts, cpu_id);
		break;
	case K_MIGRATE:
		on_migrate(r, ev, ts, cpu_id);
		break;
	case K_WAKEUP:
		on_wakeup(r, ev, ts, cpu_id);
		break;
	case K_FORK:
		on_fork(r, ev);
		if (r->a.io)
			an_io_fork(r, int_field(ev, 1), int_field(ev, 3), ts);
		break;
	case K_EXEC:
		create_proc(r, int_field(ev, 0));
		if (r->a.io)
			an_io_exec(r, int_field(ev, 0), ts);
		break;
	case K_PI_SETPRIO:
		check_prio_changed(r, ts, int_field(ev, 0), int_field(ev, 1));
		break;
	case K_STATEDUMP_PROC:
		on_statedump_proc(r, ev);
		break;
	case K_IRQ_ENTRY:
		on_irq_entry(r, ev, ts, cpu_id);
		break;
	case K_IRQ_EXIT:
		on_irq_exit(r, ev, ts, cpu_id);
		break;
	case K_SOFTIRQ_RAISE:
	case K_SOFTIRQ_ENTRY:
	case K_SOFTIRQ_EXIT:
		on_softirq(r, ev, c, ts, cpu_id);
		break;
	case K_SYSCALL_ENTRY:
		on_syscall_entry(r, ev, c, ts, cpu_id);
		break;
	case K_PAGE_ALLOC:
	case K_PAGE_FREE:
		/* MemStateProvider: a free below zero pages is ignored */
		if (c->kind == K_PAGE_FREE) {
			if (!r->a.page_count)
				break;
			r->a.page_count--;
		} else {
			r->a.page_count++;
		}
		{
			struct an_proc *p = current_proc(r, cpu_id);
			if (p && r->in_period && r->ops->page)
				r->ops->page(r->self, p, cpu_id, c->kind == K_PAGE_ALLOC);
		}
		break;
	case K_SYSCALL_EXIT:
		on_syscall_exit(r, ev, ts, cpu_id);
		break;
	case K_IO_RQ_ISSUE: case K_IO_RQ_COMPLETE: case K_IO_BIO_REMAP: case K_IO_BIO_BACKMERGE:
	case K_IO_NET_XMIT: case K_IO_NET_RECV: case K_IO_STATEDUMP_FD: case K_IO_STATEDUMP_BLOCK:
		if (r->a.io)
			an_io_event(r, ev, c);
		break;
	default:
		break;
	}
}
