/*
 * The kernel event mapping (kmap.h): ftrace's kernel events as
 * lttng-modules 2.13 records them.  Names and field types are those of
 * lttng-modules' probes (checked against the LTTng kernel traces of the
 * corpus: tracecompass/tc-many-threads, babeltrace-tests multi-domains):
 *
 *   sched:sched_switch        sched_switch: prev_comm[16], prev_tid,
 *                             prev_prio, prev_state (s64), next_comm[16],
 *                             next_tid, next_prio
 *   sched:sched_wakeup(_new), sched_waking: comm[16], tid, prio, target_cpu
 *   sched:sched_migrate_task  comm[16], tid, prio, orig_cpu, dest_cpu
 *   sched:sched_process_fork  parent_comm[16], parent_tid, parent_pid,
 *                             child_comm[16], child_tid, child_pid
 *   sched:sched_process_exec  filename, tid, old_tid
 *   sched:sched_pi_setprio    comm[16], tid, oldprio, newprio
 *   other sched: events       their fields, `pid` named `tid`, prios mapped
 *   irq:irq_handler_entry     irq, name;  irq_handler_exit: irq, ret
 *   irq:softirq_*             irq_softirq_entry/exit/raise: vec
 *   raw_syscalls:sys_enter    syscall_entry_NAME (NAME from the x86_64
 *                             table of src/model/syscalls.c), with named
 *                             arguments for lttng-analyses' I/O calls;
 *                             syscall_entry_unknown: id, args[6]
 *   raw_syscalls:sys_exit     syscall_exit_NAME: ret; _unknown: id, ret, args
 *   syscalls:sys_enter_NAME   syscall_entry_NAME: its arguments as ftrace
 *                             has them (pointers as integers);
 *                             sys_exit_NAME: syscall_exit_NAME: ret
 *   block:* (rwbs)            rwbs as lttng-modules' bit flags; rq_issue
 *                             and rq_insert get the current `tid`
 *   other events              SYSTEM_EVENT (the system's prefix once:
 *                             kmem:mm_page_alloc is kmem_mm_page_alloc),
 *                             their payload unchanged
 *
 * Priorities are the kernel's prio - 100 (MAX_RT_PRIO), as lttng-modules
 * >= 2.7.1 records them; ftrace records the kernel's prio.  What ftrace
 * does not record: a task's process id (tgid).  Each task is taken as
 * its own process: parent_pid is the parent's tid and child_pid the
 * child's tid (a new thread looks like a new process).  lttng-modules'
 * namespace fields (parent_ns_inum, vtids...) are left out.
 *
 * The trace's tasks (tmx_trace_task: saved_cmdlines, the comms the kernel
 * knew when the recording stopped) are written as lttng-modules' state
 * dump, lttng_statedump_process_state {tid, pid, ppid, name[16], type,
 * mode, submode, status}, each at the time of the trace's first event, in
 * its stream, before it: lttng-analyses and Trace Compass name the tasks
 * that never ran a sched_switch or exec in the trace so.  By the rule above
 * pid is the tid; ppid (unknown) 0; type 0 (a user thread: unknown), mode
 * 5 (LTTNG_MODE_UNKNOWN), submode 1 (LTTNG_UNKNOWN), status 0
 * (LTTNG_UNNAMED).  The name is the comm up to its first NUL, at most 16
 * bytes (the array).
 *
 * Streams keep their packets, the packet context `{ cpu_id }` and the
 * clock; the trace's environment is lttng-modules' (domain "kernel",
 * tracer_name "lttng-modules" 2.13.0, the host and kernel from the file's
 * uname).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/errors.h"
#include "model/field_class.h"
#include "common/grow.h"
#include "model/syscalls.h"
#include "tracemux/event.h"

#include "model/kmap_impl.h"

/* ------------------------------------------------------------------ */
/* Classes                                                              */
/* ------------------------------------------------------------------ */

static struct tmx_field_class *int_fc(struct tmx_arena *a, uint32_t bits, bool is_signed)
{
	struct tmx_field_class *fc = tmx_fc_new(a, TMX_FC_INT);

	if (fc) {
		fc->size = bits;
		fc->is_signed = is_signed;
	}
	return fc;
}

static bool make_classes(struct tmx_kmap *m)
{
	struct tmx_arena *a = &m->a;
	struct tmx_field_class *c8 = int_fc(a, 8, false);

	m->s32 = int_fc(a, 32, true);
	m->u32 = int_fc(a, 32, false);
	m->s64 = int_fc(a, 64, true);
	m->u64 = int_fc(a, 64, false);
	m->comm = tmx_fc_new(a, TMX_FC_ARRAY);
	m->string = tmx_fc_new(a, TMX_FC_STRING);
	m->args = tmx_fc_new(a, TMX_FC_ARRAY);
	if (!c8 || !m->s32 || !m->u32 || !m->s64 || !m->u64 || !m->comm || !m->string || !m->args)
		return false;
	c8->encoding = TMX_ENC_UTF8;
	m->comm->elem = c8;
	m->comm->length = 16;
	m->comm->is_text = true;
	m->comm->encoding = TMX_ENC_UTF8;
	m->string->encoding = TMX_ENC_UTF8;
	m->args->elem = m->u64;
	m->args->length = 6;
	return true;
}

/* ------------------------------------------------------------------ */
/* The rules                                                            */
/* ------------------------------------------------------------------ */

#define F(n, o, s) { n, o, s }
struct rule_field {
	const char *name;
	uint8_t op;
	const char *src;
};

static const struct rule {
	const char *in, *out;
	struct rule_field f[8];
} rules[] = {
	{ "sched:sched_switch", "sched_switch",
	  { F("prev_comm", OP_TEXT, "prev_comm"), F("prev_tid", OP_INT, "prev_pid"),
	    F("prev_prio", OP_PRIO, "prev_prio"), F("prev_state", OP_INT, "prev_state"),
	    F("next_comm", OP_TEXT, "next_comm"), F("next_tid", OP_INT, "next_pid"),
	    F("next_prio", OP_PRIO, "next_prio") } },
	{ "sched:sched_wakeup", "sched_wakeup",
	  { F("comm", OP_TEXT, "comm"), F("tid", OP_INT, "pid"), F("prio", OP_PRIO, "prio"),
	    F("target_cpu", OP_INT, "target_cpu") } },
	{ "sched:sched_wakeup_new", "sched_wakeup_new",
	  { F("comm", OP_TEXT, "comm"), F("tid", OP_INT, "pid"), F("prio", OP_PRIO, "prio"),
	    F("target_cpu", OP_INT, "target_cpu") } },
	{ "sched:sched_waking", "sched_waking",
	  { F("comm", OP_TEXT, "comm"), F("tid", OP_INT, "pid"), F("prio", OP_PRIO, "prio"),
	    F("target_cpu", OP_INT, "target_cpu") } },
	{ "sched:sched_migrate_task", "sched_migrate_task",
	  { F("comm", OP_TEXT, "comm"), F("tid", OP_INT, "pid"), F("prio", OP_PRIO, "prio"),
	    F("orig_cpu", OP_INT, "orig_cpu"), F("dest_cpu", OP_INT, "dest_cpu") } },
	{ "sched:sched_process_fork", "sched_process_fork",
	  { F("parent_comm", OP_TEXT, "parent_comm"), F("parent_tid", OP_INT, "parent_pid"),
	    F("parent_pid", OP_INT, "parent_pid"), F("child_comm", OP_TEXT, "child_comm"),
	    F("child_tid", OP_INT, "child_pid"), F("child_pid", OP_INT, "child_pid") } },
	{ "sched:sched_process_exec", "sched_process_exec",
	  { F("filename", OP_TEXT, "filename"), F("tid", OP_INT, "pid"),
	    F("old_tid", OP_INT, "old_pid") } },
	{ "sched:sched_pi_setprio", "sched_pi_setprio",
	  { F("comm", OP_TEXT, "comm"), F("tid", OP_INT, "pid"), F("oldprio", OP_PRIO, "oldprio"),
	    F("newprio", OP_PRIO, "newprio") } },
	{ "irq:irq_handler_entry", "irq_handler_entry",
	  { F("irq", OP_INT, "irq"), F("name", OP_TEXT, "name") } },
	{ "irq:irq_handler_exit", "irq_handler_exit",
	  { F("irq", OP_INT, "irq"), F("ret", OP_INT, "ret") } },
	{ "irq:softirq_entry", "irq_softirq_entry", { F("vec", OP_INT, "vec") } },
	{ "irq:softirq_exit", "irq_softirq_exit", { F("vec", OP_INT, "vec") } },
	{ "irq:softirq_raise", "irq_softirq_raise", { F("vec", OP_INT, "vec") } },
};

/* The output class of an OP_INT field by its lttng-modules type. */
static const struct tmx_field_class *int_class(const struct tmx_kmap *m, const char *name)
{
	if (!strcmp(name, "prev_state"))
		return m->s64;
	if (!strcmp(name, "vec"))
		return m->u32;
	return m->s32;
}

/*
 * Named arguments of raw_syscalls' sys_enter: the system calls whose
 * arguments lttng-analyses reads (its I/O calls, sv.SyscallConsts), with
 * lttng-modules' names; a user-space string (a file name, `$`) is empty,
 * an output argument (`-`) is recorded by lttng-modules at the exit.
 * File descriptors, flags and modes are 32-bit integers (is_int32()).
 */
static const struct {
	const char *name;
	const char *args[6];
} sys_args[] = {
	{ "read", { "fd", "-buf", "count" } },
	{ "write", { "fd", "buf", "count" } },
	{ "open", { "$filename", "flags", "mode" } },
	{ "openat", { "dfd", "$filename", "flags", "mode" } },
	{ "close", { "fd" } },
	{ "socket", { "family", "type", "protocol" } },
	{ "fcntl", { "fd", "cmd", "arg" } },
	{ "dup", { "fildes" } },
	{ "dup2", { "oldfd", "newfd" } },
	{ "dup3", { "oldfd", "newfd", "flags" } },
	{ "recvmsg", { "fd", "msg", "flags" } },
	{ "recvfrom", { "fd", "-ubuf", "size", "flags", "-addr", "-addr_len" } },
	{ "readv", { "fd", "vec", "vlen" } },
	{ "pread64", { "fd", "-buf", "count", "pos" } },
	{ "preadv", { "fd", "vec", "vlen", "pos_l", "pos_h" } },
	{ "sendmsg", { "fd", "msg", "flags" } },
	{ "sendto", { "fd", "buff", "len", "flags", "addr", "addr_len" } },
	{ "writev", { "fd", "vec", "vlen" } },
	{ "pwrite64", { "fd", "buf", "count", "pos" } },
	{ "pwritev", { "fd", "vec", "vlen", "pos_l", "pos_h" } },
	{ "sync_file_range", { "fd", "offset", "nbytes", "flags" } },
	{ "fsync", { "fd" } },
	{ "fdatasync", { "fd" } },
	{ "splice", { "fd_in", "off_in", "fd_out", "off_out", "len", "flags" } },
	{ "sendfile64", { "out_fd", "in_fd", "offset", "count" } },
	{ "accept", { "fd", "-upeer_sockaddr", "-upeer_addrlen" } },
	{ "accept4", { "fd", "-upeer_sockaddr", "-upeer_addrlen", "flags" } },
	{ "connect", { "fd", "uservaddr", "addrlen" } },
};

static bool is_int32(const char *arg)
{
	static const char *const names[] = {
		"fd", "dfd", "fildes", "oldfd", "newfd", "fd_in", "fd_out", "in_fd", "out_fd",
		"flags", "mode", "cmd", "family", "type", "protocol", "addrlen", "addr_len",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(arg, names[i]))
			return true;
	return false;
}

/*
 * lttng-modules names system calls after the kernel's functions where
 * <asm/unistd.h> has the old name (sys_newstat for __NR_stat...).
 */
static const char *lttng_sys_name(const char *name)
{
	static const char *const renamed[][2] = {
		{ "stat", "newstat" }, { "fstat", "newfstat" }, { "lstat", "newlstat" },
		{ "uname", "newuname" }, { "sendfile", "sendfile64" },
	};

	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(name, renamed[i][0]))
			return renamed[i][1];
	return name;
}

/*
 * Where field `name` of payload `pl` is in an event's value array: 1 + its
 * position while only single-value members come before it (so that an
 * event's field is read without a look-up by name), else SLOT_BY_NAME.
 */
static int32_t leaf_slot(const struct tmx_field_class *pl, const char *name)
{
	size_t n = pl && tmx_fc_kind(pl) == TMX_FC_STRUCT ? tmx_fc_member_count(pl) : 0;

	for (size_t i = 0; name && i < n && i < INT32_MAX - 1; i++) {
		const struct tmx_field_class *fc = tmx_fc_member_class(pl, i);
		enum tmx_fc_kind kind = tmx_fc_kind(fc);
		if (!strcmp(tmx_fc_member_name(pl, i), name))
			return (int32_t)i + 1;
		if (kind == TMX_FC_STRUCT || kind == TMX_FC_VARIANT || kind == TMX_FC_OPTIONAL ||
		    ((kind == TMX_FC_ARRAY || kind == TMX_FC_SEQUENCE) && !tmx_fc_is_text(fc)))
			break;
	}
	return SLOT_BY_NAME;
}

/* The slots of class `k`'s sources in the payload of input class `in`. */
static void bind_slots(struct kclass *k, const struct tmx_event_class *in)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->f[i].op == OP_INT || k->f[i].op == OP_PRIO || k->f[i].op == OP_TEXT ||
		    k->f[i].op == OP_RWBS)
			k->f[i].slot = leaf_slot(in->payload, k->f[i].src);
}

static struct kclass *add_class(struct tmx_kmap *m, struct ktrace *t, const char *name, size_t n)
{
	struct kclass *k = tmx_arena_calloc(&m->a, 1, sizeof(*k));
	struct tmx_stream_class *sc = &t->sc;

	if (!k || !(k->ec.name = tmx_arena_strdup(&m->a, name)) ||
	    !(k->f = tmx_arena_calloc(&m->a, n ? n : 1, sizeof(*k->f))) ||
	    !(k->payload = tmx_fc_new(&m->a, TMX_FC_STRUCT)) ||
	    !(k->payload->members = tmx_arena_calloc(&m->a, n ? n : 1, sizeof(struct tmx_member))))
		return NULL;
	if (sc->n_event_classes == t->cap_ec) {
		size_t nc = t->cap_ec ? t->cap_ec * 2 : 64;
		void *g = tmx_arena_grow(&m->a, sc->event_classes, t->cap_ec, nc,
					 sizeof(*sc->event_classes));
		if (!g)
			return NULL;
		sc->event_classes = g;
		t->cap_ec = nc;
	}
	k->n = n;
	k->payload->n_members = n;
	k->ec.id = m->n_classes++;
	k->ec.log_level = TMX_LOG_LEVEL_NONE;
	k->ec.stream_class = sc;
	k->ec.payload = k->payload;
	sc->event_classes[sc->n_event_classes++] = &k->ec;
	return k;
}

static void set_field(struct kclass *k, size_t i, const char *name, const struct tmx_field_class *fc,
		      uint8_t op, const char *src, uint8_t arg)
{
	k->f[i] = (struct kfield){ name, fc, op, arg, src, -1, SLOT_BY_NAME };
	k->payload->members[i].name = (char *)name;
	k->payload->members[i].fc = (struct tmx_field_class *)fc;
}

/* syscall_entry_NAME or syscall_exit_NAME of raw_syscalls' number. */
static struct kclass *raw_sys_class(struct tmx_kmap *m, struct ktrace *t, const char *sys, bool entry)
{
	char name[96];
	struct kclass *k;
	size_t n = 0, r;

	snprintf(name, sizeof(name), "%s%s", entry ? "syscall_entry_" : "syscall_exit_", sys);
	if (!entry) {
		if (!(k = add_class(m, t, name, 1)))
			return NULL;
		set_field(k, 0, "ret", m->s64, OP_INT, "ret", 0);
		k->f[0].slot = SLOT_RAW_RET;
		return k;
	}
	for (r = 0; r < sizeof(sys_args) / sizeof(sys_args[0]); r++)
		if (!strcmp(sys_args[r].name, sys))
			break;
	if (r < sizeof(sys_args) / sizeof(sys_args[0]))
		for (int i = 0; i < 6 && sys_args[r].args[i]; i++)
			n += sys_args[r].args[i][0] != '-';
	if (!(k = add_class(m, t, name, n)))
		return NULL;
	n = 0;
	if (r < sizeof(sys_args) / sizeof(sys_args[0]))
		for (int i = 0; i < 6 && sys_args[r].args[i]; i++) {
			const char *a = sys_args[r].args[i];
			if (*a == '-')   /* an output argument: lttng-modules records it at the exit */
				continue;
			if (*a == '$')
				set_field(k, n++, a + 1, m->string, OP_EMPTY, NULL, 0);
			else
				set_field(k, n++, a, is_int32(a) ? m->s32 : m->u64, OP_ARG, NULL,
					  (uint8_t)i);
		}
	return k;
}

/* ftrace's `system:event` as lttng-modules names it: SYSTEM_EVENT, or EVENT when it starts with SYSTEM_. */
static void lttng_name(const char *in, char *out, size_t size)
{
	const char *colon = strchr(in, ':');
	size_t sl;

	if (!colon) {
		snprintf(out, size, "%s", in);
		return;
	}
	sl = (size_t)(colon - in);
	if (!strncmp(colon + 1, in, sl) && colon[1 + sl] == '_')
		snprintf(out, size, "%s", colon + 1);
	else
		snprintf(out, size, "%.*s_%s", (int)sl, in, colon + 1);
}

static bool has_system(const char *name, const char *sys)
{
	size_t l = strlen(sys);

	return !strncmp(name, sys, l) && name[l] == ':';
}

/*
 * `name`, or NAME_2, NAME_3... when one of the first `n` fields has it:
 * some kernels' formats name two fields alike (regmap_regcache_sync's
 * `type`), which CTF readers refuse.
 */
static const char *unique_name(struct tmx_kmap *m, const struct kclass *k, size_t n,
			       const char *name)
{
	char buf[256];

	for (unsigned v = 1; v < 1000; v++) {
		bool used = false;
		if (v > 1)
			snprintf(buf, sizeof(buf), "%s_%u", name, v);
		for (size_t i = 0; i < n && !used; i++)
			used = !strcmp(k->f[i].name, v > 1 ? buf : name);
		if (!used)
			return v > 1 ? tmx_arena_strdup(&m->a, buf) : name;
	}
	return NULL;
}

/* Any other class: its payload, renamed, with lttng-modules' changes of a few fields. */
static struct kclass *generic_class(struct tmx_kmap *m, struct ktrace *t,
				    const struct tmx_event_class *ec, bool raw_syscalls)
{
	const struct tmx_field_class *pl = ec->payload;
	size_t n = pl && tmx_fc_kind(pl) == TMX_FC_STRUCT ? tmx_fc_member_count(pl) : 0;
	bool sched = has_system(ec->name, "sched"), block = has_system(ec->name, "block");
	bool sys = !raw_syscalls && has_system(ec->name, "syscalls");
	bool add_tid = block && (!strcmp(ec->name, "block:block_rq_issue") ||
				 !strcmp(ec->name, "block:block_rq_insert"));
	char name[256];
	struct kclass *k;
	size_t o = 0;

	if (sys && !strncmp(ec->name, "syscalls:sys_enter_", 19))
		snprintf(name, sizeof(name), "syscall_entry_%s", ec->name + 19);
	else if (sys && !strncmp(ec->name, "syscalls:sys_exit_", 18))
		snprintf(name, sizeof(name), "syscall_exit_%s", ec->name + 18);
	else
		lttng_name(ec->name, name, sizeof(name));
	if (!(k = add_class(m, t, name, n + add_tid)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const char *fn = tmx_fc_member_name(pl, i), *on = fn;
		const struct tmx_field_class *fc = tmx_fc_member_class(pl, i);
		uint8_t op = OP_COPY;
		/* the number (older kernels: `nr`), which lttng-modules' names say */
		if (sys && (!strcmp(fn, "__syscall_nr") || (i == 0 && !strcmp(fn, "nr"))))
			continue;
		if (sched && !strcmp(fn, "pid"))
			on = "tid", fc = m->s32, op = OP_INT;
		else if (sched && strstr(fn, "prio"))
			fc = m->s32, op = OP_PRIO;
		else if (block && !strcmp(fn, "rwbs"))
			fc = m->u32, op = OP_RWBS;
		else if (sys && !strcmp(fn, "ret"))
			fc = m->s64, op = OP_INT;
		if (!(on = unique_name(m, k, o, on)))
			return NULL;
		set_field(k, o, on, fc, op, fn, 0);
		k->f[o++].member = (int32_t)i;
		if (add_tid && !strcmp(fn, "bytes"))
			set_field(k, o++, "tid", m->s32, OP_PID, NULL, 0);
	}
	if (add_tid && o == n)   /* no `bytes` to put it after */
		set_field(k, o++, "tid", m->s32, OP_PID, NULL, 0);
	k->n = k->payload->n_members = o;
	return k;
}

static struct kclass *rule_class(struct tmx_kmap *m, struct ktrace *t, const struct rule *r)
{
	size_t n = 0;
	struct kclass *k;

	while (n < 8 && r->f[n].name)
		n++;
	if (!(k = add_class(m, t, r->out, n)))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct tmx_field_class *fc = r->f[i].op == OP_TEXT
			? (strstr(r->f[i].name, "comm") ? m->comm : m->string)
			: int_class(m, r->f[i].name);
		set_field(k, i, r->f[i].name, fc, r->f[i].op, r->f[i].src, 0);
	}
	return k;
}

/* ------------------------------------------------------------------ */
/* Traces                                                               */
/* ------------------------------------------------------------------ */

static bool add_env(struct tmx_kmap *m, struct ktrace *t, const char *name, bool is_int,
		    int64_t iv, const char *sv, size_t sl)
{
	struct tmx_trace_class *tc = &t->tc;
	struct tmx_env_entry *e;
	void *g = tmx_arena_grow(&m->a, tc->env, tc->n_env, tc->n_env + 1, sizeof(*tc->env));

	if (!g)
		return false;
	tc->env = g;
	e = &tc->env[tc->n_env++];
	e->name = (char *)name;
	e->is_int = is_int;
	e->int_value = iv;
	if (!is_int && !(e->str_value = tmx_arena_strndup(&m->a, sv ? sv : "", sv ? sl : 0)))
		return false;
	return true;
}

/* uname's words: "SYSNAME HOST RELEASE [VERSION...] MACHINE" */
static bool uname_env(struct tmx_kmap *m, struct ktrace *t, const char *u)
{
	const char *w[4] = { 0 }, *last = NULL;
	size_t wl[4] = { 0 }, n = 0;
	const char *p = u;

	while (*p) {
		size_t l;
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		l = strcspn(p, " ");
		if (n < 3) {
			w[n] = p;
			wl[n] = l;
		}
		last = p;
		n++;
		p += l;
	}
	/* the kernel's version (#1 SMP ...) between the release and the machine, when given */
	if (n > 4 && w[2]) {
		const char *v = w[2] + wl[2] + 1;
		while (*v == ' ')
			v++;
		w[3] = v;
		wl[3] = (size_t)(last - v);
		while (wl[3] && v[wl[3] - 1] == ' ')
			wl[3]--;
	}
	return add_env(m, t, "sysname", false, 0, w[0] ? w[0] : "Linux", w[0] ? wl[0] : 5) &&
	       add_env(m, t, "kernel_release", false, 0, w[2], wl[2]) &&
	       add_env(m, t, "kernel_version", false, 0, w[3], wl[3]);
}

static bool make_trace(struct tmx_kmap *m, struct ktrace *t, const struct tmx_trace *in)
{
	const struct tmx_trace_class *itc = in->cls;
	const struct tmx_env_entry *host = tmx_trace_class_env(itc, "hostname");
	const struct tmx_env_entry *uname = tmx_trace_class_env(itc, "uname");
	const struct tmx_stream_class *isc = itc->n_stream_classes ? itc->stream_classes[0] : NULL;
	const char *base = strrchr(in->name ? in->name : "", '/');

	t->in = in;
	t->trace.name = in->name;
	t->trace.cls = &t->tc;
	t->trace.tasks = in->tasks;   /* the bridge writes them as the state dump */
	/* the input's format: the CTF writer adds packet times and counts to such traces */
	t->tc.format = itc->format;
	t->tc.major = itc->major;
	t->tc.minor = itc->minor;
	t->tc.native_byte_order = TMX_BO_LE;
	t->tc.n_clocks = itc->n_clocks;
	t->tc.clocks = itc->clocks;
	t->scs[0] = &t->sc;
	t->tc.stream_classes = t->scs;
	t->tc.n_stream_classes = 1;
	t->sc.trace_class = &t->tc;
	t->sc.id_is_set = true;
	t->sc.default_clock = isc ? isc->default_clock : NULL;
	t->sc.packet_context = isc ? isc->packet_context : NULL;
	base = base ? base + 1 : (in->name ? in->name : "");
	return add_env(m, t, "hostname", false, 0, host && !host->is_int ? host->str_value : "",
		       host && !host->is_int ? strlen(host->str_value) : 0) &&
	       add_env(m, t, "domain", false, 0, "kernel", 6) &&
	       uname_env(m, t, uname && !uname->is_int ? uname->str_value : "") &&
	       add_env(m, t, "tracer_name", false, 0, "lttng-modules", 13) &&
	       add_env(m, t, "tracer_major", true, 2, NULL, 0) &&
	       add_env(m, t, "tracer_minor", true, 13, NULL, 0) &&
	       add_env(m, t, "tracer_patchlevel", true, 0, NULL, 0) &&
	       add_env(m, t, "trace_buffering_scheme", false, 0, "global", 6) &&
	       add_env(m, t, "trace_name", false, 0, base, strlen(base)) &&
	       add_env(m, t, "converted_from", false, 0, "trace-cmd.dat", 13);
}

struct ktrace *kmap_trace_of(const struct tmx_kmap *m, const struct tmx_trace *in)
{
	for (size_t i = 0; i < m->n_traces; i++)
		if (m->traces[i].in == in || m->traces[i].in->cls == in->cls)
			return &m->traces[i];
	return NULL;
}

/* lttng_statedump_process_state, for a trace that names tasks (see the top). */
static bool statedump_class(struct tmx_kmap *m, struct ktrace *t)
{
	static const char *const ints[] = { "tid", "pid", "ppid", NULL, "type", "mode", "submode",
					     "status" };
	struct kclass *k;

	if (!tmx_trace_task_count(t->in))
		return true;
	if (!(k = add_class(m, t, "lttng_statedump_process_state", 8)))
		return false;
	for (size_t i = 0; i < 8; i++)
		if (ints[i])
			set_field(k, i, ints[i], m->s32, OP_INT, NULL, 0);
		else
			set_field(k, i, "name", m->comm, OP_TEXT, NULL, 0);
	t->statedump = k;
	return true;
}

/* Every class of a trace, in the input's class order; raw_syscalls' by number after, the state dump's. */
static bool map_trace_classes(struct tmx_kmap *m, struct ktrace *t)
{
	const struct tmx_trace_class *itc = t->in->cls;
	bool raw = false;

	for (size_t s = 0; s < itc->n_stream_classes; s++)
		for (size_t i = 0; i < itc->stream_classes[s]->n_event_classes; i++)
			raw |= has_system(itc->stream_classes[s]->event_classes[i]->name, "raw_syscalls");
	for (size_t s = 0; s < itc->n_stream_classes; s++) {
		const struct tmx_stream_class *sc = itc->stream_classes[s];
		for (size_t i = 0; i < sc->n_event_classes; i++) {
			const struct tmx_event_class *ec = sc->event_classes[i];
			size_t ci = tmx_source_event_class_index(m->src, ec);
			struct kin *kin = ci < m->n_in ? &m->in[ci] : NULL;
			size_t r;
			if (!kin)
				continue;
			kin->bound = true;
			kin->id_slot = leaf_slot(ec->payload, "id");
			kin->args_slot = leaf_slot(ec->payload, "args");
			kin->ret_slot = leaf_slot(ec->payload, "ret");
			if (!strcmp(ec->name, "raw_syscalls:sys_enter")) {
				kin->special = KS_RAW_ENTER;
				continue;
			}
			if (!strcmp(ec->name, "raw_syscalls:sys_exit")) {
				kin->special = KS_RAW_EXIT;
				continue;
			}
			for (r = 0; r < sizeof(rules) / sizeof(rules[0]); r++)
				if (!strcmp(rules[r].in, ec->name))
					break;
			kin->out = r < sizeof(rules) / sizeof(rules[0]) ? rule_class(m, t, &rules[r])
									 : generic_class(m, t, ec, raw);
			if (!kin->out)
				return false;
			bind_slots(kin->out, ec);
		}
	}
	if (!statedump_class(m, t))
		return false;
	if (!raw)
		return true;
	t->entry_nr = tmx_arena_calloc(&m->a, m->n_nr ? m->n_nr : 1, sizeof(*t->entry_nr));
	t->exit_nr = tmx_arena_calloc(&m->a, m->n_nr ? m->n_nr : 1, sizeof(*t->exit_nr));
	if (!t->entry_nr || !t->exit_nr)
		return false;
	for (size_t nr = 0; nr < m->n_nr; nr++)
		if (m->nr_names[nr] &&
		    (!(t->entry_nr[nr] = raw_sys_class(m, t, lttng_sys_name(m->nr_names[nr]), true)) ||
		     !(t->exit_nr[nr] = raw_sys_class(m, t, lttng_sys_name(m->nr_names[nr]), false))))
			return false;
	if (!(t->entry_unknown = add_class(m, t, "syscall_entry_unknown", 2)) ||
	    !(t->exit_unknown = add_class(m, t, "syscall_exit_unknown", 3)))
		return false;
	set_field(t->entry_unknown, 0, "id", m->s32, OP_ID, NULL, 0);
	set_field(t->entry_unknown, 1, "args", m->args, OP_ARGS, NULL, 0);
	set_field(t->exit_unknown, 0, "id", m->s32, OP_ID, NULL, 0);
	set_field(t->exit_unknown, 1, "ret", m->s64, OP_INT, "ret", 0);
	t->exit_unknown->f[1].slot = SLOT_RAW_RET;
	set_field(t->exit_unknown, 2, "args", m->args, OP_ARGS, NULL, 0);
	return true;
}

bool tmx_kmap_applies(const struct tmx_source *src)
{
	size_t n = tmx_source_logical_trace_count(src);

	for (size_t i = 0; i < n; i++)
		if (tmx_source_logical_trace(src, i)->cls->format != TMX_FORMAT_TRACEDAT)
			return false;
	return n > 0;
}

int tmx_kmap_new(struct tmx_source *src, struct tmx_kmap **out, struct tmx_error *err)
{
	struct tmx_kmap *m = calloc(1, sizeof(*m));
	size_t nt = tmx_source_logical_trace_count(src);

	*out = NULL;
	if (!m)
		goto nomem;
	tmx_arena_init(&m->a);
	m->src = src;
	m->n_nr = tmx_syscall_x86_64_names(m->nr_names, MAX_NR);
	if (m->n_nr > MAX_NR)
		m->n_nr = MAX_NR;
	m->n_in = tmx_source_event_class_count(src);
	m->in = calloc(m->n_in ? m->n_in : 1, sizeof(*m->in));
	m->traces = calloc(nt ? nt : 1, sizeof(*m->traces));
	if (!m->in || !m->traces || !make_classes(m))
		goto nomem;
	for (size_t i = 0; i < nt; i++) {
		const struct tmx_trace *in = tmx_source_logical_trace(src, i);
		if (kmap_trace_of(m, in))
			continue;
		if (!make_trace(m, &m->traces[m->n_traces], in))
			goto nomem;
		m->n_traces++;
		if (!map_trace_classes(m, &m->traces[m->n_traces - 1]))
			goto nomem;
	}
	*out = m;
	return TMX_OK;
nomem:
	tmx_kmap_free(m);
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

void tmx_kmap_free(struct tmx_kmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n_streams; i++)
		free(m->streams[i]);
	free(m->streams);
	free(m->in);
	free(m->traces);
	free(m->vals);
	tmx_arena_free(&m->a);
	free(m);
}

const struct tmx_trace *tmx_kmap_trace(const struct tmx_kmap *m, const struct tmx_trace *t)
{
	struct ktrace *k = kmap_trace_of(m, t);

	return k ? &k->trace : NULL;
}

size_t tmx_kmap_class_count(const struct tmx_kmap *m)
{
	return m->n_classes;
}

const struct tmx_event_class *tmx_kmap_class(const struct tmx_kmap *m, size_t id)
{
	/* each trace's classes have consecutive ids, in its stream class */
	for (size_t i = 0; i < m->n_traces; i++) {
		const struct tmx_stream_class *sc = &m->traces[i].sc;
		if (sc->n_event_classes && id >= sc->event_classes[0]->id &&
		    id - sc->event_classes[0]->id < sc->n_event_classes)
			return sc->event_classes[id - sc->event_classes[0]->id];
	}
	return NULL;
}
