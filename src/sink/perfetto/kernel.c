/*
 * Kernel events as Perfetto FtraceEvents (see kernel.h and PERFETTO.md).
 *
 * The typed payloads are the ones Perfetto's trace processor builds views
 * from; their field numbers are from Perfetto's protos (the file of each is
 * named in pf_proto.h and in the table below).  Fields are found by name,
 * ftrace's first, then lttng-modules' (prev_tid for prev_pid...).
 * lttng-modules stores task priorities minus 100 (MAX_RT_PRIO) in most of
 * its sched events but not in all versions of all of them (sched_wakeup
 * kept the kernel's value for a while): an LTTng priority below 100 gets
 * 100 added back, which is right for every subtracted value (-100..39) and
 * for every unsubtracted one of a normal task (100..139).  prev_state is
 * the kernel's task state bits in both tracers and is passed as it is.
 * Every other class is a generic event: field id from 65536, the payload's
 * leaves (fields.h) as fields 1..31, its descriptor in the bundle.
 */
#include <stdlib.h>
#include <string.h>

#include "sink/perfetto/kernel.h"
#include "sink/perfetto/pf_proto.h"
#include "model/syscalls.h"
#include "tracemux/event.h"

enum conv { CV_NONE, CV_INT, CV_STR, CV_PRIO, CV_ARGS };

struct map_field {
	uint8_t pf;                 /* proto field number in the payload message */
	uint8_t conv;
	const char *names[2];       /* ftrace's name, then lttng-modules' */
};

struct map_row {
	const char *names[2];       /* ftrace's event name, lttng-modules' */
	uint32_t payload;           /* FtraceEvent field */
	uint8_t special;
	struct map_field f[PF_MAP_FIELDS];
};

#define WAKEUP_FIELDS                                                                        \
	{ { 1, CV_STR, { "comm" } }, { 2, CV_INT, { "pid", "tid" } }, { 3, CV_PRIO, { "prio" } }, \
	  { 4, CV_INT, { "success" } }, { 5, CV_INT, { "target_cpu" } } }

static const struct map_row rows[] = {
	/* sched.proto */
	{ { "sched_switch" }, PF_FEV_SCHED_SWITCH, PF_SPECIAL_SWITCH,
	  { { 1, CV_STR, { "prev_comm" } }, { 2, CV_INT, { "prev_pid", "prev_tid" } },
	    { 3, CV_PRIO, { "prev_prio" } }, { 4, CV_INT, { "prev_state" } },
	    { 5, CV_STR, { "next_comm" } }, { 6, CV_INT, { "next_pid", "next_tid" } },
	    { 7, CV_PRIO, { "next_prio" } } } },
	{ { "sched_waking" }, PF_FEV_SCHED_WAKING, 0, WAKEUP_FIELDS },
	{ { "sched_wakeup" }, PF_FEV_SCHED_WAKEUP, 0, WAKEUP_FIELDS },
	{ { "sched_wakeup_new" }, PF_FEV_SCHED_WAKEUP_NEW, 0, WAKEUP_FIELDS },
	{ { "sched_process_exec" }, PF_FEV_SCHED_PROCESS_EXEC, 0,
	  { { 1, CV_STR, { "filename" } }, { 2, CV_INT, { "pid", "tid" } },
	    { 3, CV_INT, { "old_pid", "old_tid" } } } },
	{ { "sched_process_exit" }, PF_FEV_SCHED_PROCESS_EXIT, 0,
	  { { 1, CV_STR, { "comm" } }, { 2, CV_INT, { "pid", "tid" } }, { 3, CV_INT, { "tgid" } },
	    { 4, CV_PRIO, { "prio" } } } },
	/* lttng-modules: parent_pid and child_pid are the processes, *_tid the threads */
	{ { "sched_process_fork" }, PF_FEV_SCHED_PROCESS_FORK, PF_SPECIAL_FORK,
	  { { 1, CV_STR, { "parent_comm" } }, { 2, CV_INT, { "parent_tid", "parent_pid" } },
	    { 3, CV_STR, { "child_comm" } }, { 4, CV_INT, { "child_tid", "child_pid" } } } },
	{ { "sched_process_free" }, PF_FEV_SCHED_PROCESS_FREE, 0,
	  { { 1, CV_STR, { "comm" } }, { 2, CV_INT, { "pid", "tid" } }, { 3, CV_PRIO, { "prio" } } } },
	{ { "sched_migrate_task" }, PF_FEV_SCHED_MIGRATE_TASK, 0,
	  { { 1, CV_STR, { "comm" } }, { 2, CV_INT, { "pid", "tid" } }, { 3, CV_PRIO, { "prio" } },
	    { 4, CV_INT, { "orig_cpu" } }, { 5, CV_INT, { "dest_cpu" } } } },
	/* task.proto */
	{ { "task_newtask" }, PF_FEV_TASK_NEWTASK, 0,
	  { { 1, CV_INT, { "pid", "tid" } }, { 2, CV_STR, { "comm" } },
	    { 3, CV_INT, { "clone_flags" } }, { 4, CV_INT, { "oom_score_adj" } } } },
	{ { "task_rename" }, PF_FEV_TASK_RENAME, 0,
	  { { 1, CV_INT, { "pid", "tid" } }, { 2, CV_STR, { "oldcomm" } },
	    { 3, CV_STR, { "newcomm" } }, { 4, CV_INT, { "oom_score_adj" } } } },
	/* power.proto */
	{ { "cpu_frequency", "power_cpu_frequency" }, PF_FEV_CPU_FREQUENCY, 0,
	  { { 1, CV_INT, { "state" } }, { 2, CV_INT, { "cpu_id" } } } },
	{ { "cpu_idle", "power_cpu_idle" }, PF_FEV_CPU_IDLE, 0,
	  { { 1, CV_INT, { "state" } }, { 2, CV_INT, { "cpu_id" } } } },
	/* irq.proto */
	{ { "irq_handler_entry" }, PF_FEV_IRQ_HANDLER_ENTRY, 0,
	  { { 1, CV_INT, { "irq" } }, { 2, CV_STR, { "name" } }, { 3, CV_INT, { "handler" } } } },
	{ { "irq_handler_exit" }, PF_FEV_IRQ_HANDLER_EXIT, 0,
	  { { 1, CV_INT, { "irq" } }, { 2, CV_INT, { "ret" } } } },
	{ { "softirq_entry", "irq_softirq_entry" }, PF_FEV_SOFTIRQ_ENTRY, PF_SPECIAL_SOFTIRQ,
	  { { 1, CV_INT, { "vec" } } } },
	{ { "softirq_exit", "irq_softirq_exit" }, PF_FEV_SOFTIRQ_EXIT, PF_SPECIAL_SOFTIRQ,
	  { { 1, CV_INT, { "vec" } } } },
	{ { "softirq_raise", "irq_softirq_raise" }, PF_FEV_SOFTIRQ_RAISE, PF_SPECIAL_SOFTIRQ,
	  { { 1, CV_INT, { "vec" } } } },
	/* workqueue.proto */
	{ { "workqueue_execute_start" }, PF_FEV_WORKQUEUE_EXECUTE_START, 0,
	  { { 1, CV_INT, { "work" } }, { 2, CV_INT, { "function" } } } },
	{ { "workqueue_execute_end" }, PF_FEV_WORKQUEUE_EXECUTE_END, 0,
	  { { 1, CV_INT, { "work" } }, { 2, CV_INT, { "function" } } } },
	/* raw_syscalls.proto (LTTng: syscall_entry_unknown / syscall_exit_unknown have an id) */
	{ { "sys_enter", "syscall_entry_unknown" }, PF_FEV_SYS_ENTER, 0,
	  { { 1, CV_INT, { "id" } }, { 2, CV_ARGS, { "args" } } } },
	{ { "sys_exit", "syscall_exit_unknown" }, PF_FEV_SYS_EXIT, 0,
	  { { 1, CV_INT, { "id" } }, { 2, CV_INT, { "ret" } } } },
	/* ftrace.proto */
	{ { "print" }, PF_FEV_PRINT, PF_SPECIAL_PRINT,
	  { { 1, CV_INT, { "ip" } }, { 2, CV_STR, { "buf" } } } },
};

/* The event name without its `system:` part. */
static const char *short_name(const char *name)
{
	const char *c = strrchr(name, ':');

	return c ? c + 1 : name;
}

static int member_index(const struct tmx_field_class *pl, const char *name)
{
	for (size_t m = 0; name && m < tmx_fc_member_count(pl); m++)
		if (!strcmp(tmx_fc_member_name(pl, m), name))
			return (int)m;
	return -1;
}

/* LTTng's syscall_entry_NAME / syscall_exit_NAME: the x86_64 number of NAME, or -1. */
static int lttng_syscall(const char *name, const char *prefix)
{
	size_t pl = strlen(prefix);
	int nr;

	if (strncmp(name, prefix, pl))
		return -1;
	name += pl;
	nr = tmx_syscall_x86_64(name);
	/* lttng-modules names some after the kernel's functions: newfstat, newuname */
	if (nr < 0 && !strncmp(name, "new", 3))
		nr = tmx_syscall_x86_64(name + 3);
	return nr;
}

static bool make_descriptor(struct pf_kclass *k, const struct tmx_event_class *ec)
{
	const char *name = ec->name ? ec->name : "<unknown>";
	const char *sn = short_name(name);
	struct tmx_buf d = { 0 };
	size_t at;

	/* DescriptorProto { name, field { name, number, label, type }... } */
	pb_string(&d, PF_DESC_NAME, sn);
	for (size_t i = 0; i < k->leaves.n; i++) {
		static const uint8_t types[] = {
			[PF_LEAF_INT] = PF_TYPE_INT64, [PF_LEAF_UINT] = PF_TYPE_UINT64,
			[PF_LEAF_DOUBLE] = PF_TYPE_DOUBLE, [PF_LEAF_STRING] = PF_TYPE_STRING,
		};

		at = pb_open(&d, PF_DESC_FIELD);
		pb_string(&d, PF_FIELD_NAME, k->leaves.leaf[i].name);
		pb_uint(&d, PF_FIELD_NUMBER, i + 1);
		pb_uint(&d, PF_FIELD_LABEL, 1);
		pb_uint(&d, PF_FIELD_TYPE, types[k->leaves.leaf[i].type]);
		pb_close(&d, at);
	}
	at = pb_open(&k->desc, PF_BUNDLE_GENERIC_DESCRIPTORS);
	pb_uint(&k->desc, PF_GENDESC_FIELD_ID, k->generic_id);
	pb_bytes(&k->desc, PF_GENDESC_DESCRIPTOR, d.p, d.len);
	if (sn != name)
		pb_bytes(&k->desc, PF_GENDESC_GROUP_NAME, name, (size_t)(sn - 1 - name));
	else
		pb_string(&k->desc, PF_GENDESC_GROUP_NAME, k->lttng ? "lttng" : "ctf");
	pb_close(&k->desc, at);
	tmx_buf_free(&d);
	return !d.oom && !k->desc.oom;
}

bool pf_kclass_init(struct pf_kclass *k, const struct tmx_event_class *ec, bool lttng,
		    uint32_t generic_id)
{
	const char *name = ec->name ? ec->name : "<unknown>";
	const char *sn = short_name(name);
	const struct tmx_field_class *pl = ec->payload;
	const struct map_row *row = NULL;
	int nr;

	memset(k, 0, sizeof(*k));
	k->lttng = lttng;
	k->generic_id = generic_id;
	for (size_t i = 0; !row && i < sizeof(rows) / sizeof(rows[0]); i++)
		for (int n = 0; n < 2; n++)
			if (rows[i].names[n] && !strcmp(rows[i].names[n], sn))
				row = &rows[i];
	/* print is ftrace's (ftrace:print), not a custom event of that name */
	if (row && row->special == PF_SPECIAL_PRINT && sn != name && strncmp(name, "ftrace:", 7))
		row = NULL;
	if (!strcmp(sn, "lttng_statedump_process_state"))
		k->special = PF_SPECIAL_STATEDUMP;
	if (lttng && !row && (nr = lttng_syscall(sn, "syscall_entry_")) >= 0) {
		k->typed = PF_FEV_SYS_ENTER;
		k->special = PF_SPECIAL_SYS_ENTER;
		k->syscall_id = nr;
	} else if (lttng && !row && (nr = lttng_syscall(sn, "syscall_exit_")) >= 0) {
		k->typed = PF_FEV_SYS_EXIT;
		k->special = PF_SPECIAL_SYS_EXIT;
		k->syscall_id = nr;
	}
	if (row && pl && tmx_fc_kind(pl) == TMX_FC_STRUCT) {
		k->typed = row->payload;
		k->special = row->special;
		k->map = row;
		for (int f = 0; f < PF_MAP_FIELDS && row->f[f].pf; f++) {
			int m = member_index(pl, row->f[f].names[0]);

			if (m < 0)
				m = member_index(pl, row->f[f].names[1]);
			k->member[f] = (int16_t)m;
			k->n_map = (uint8_t)(f + 1);
		}
	}
	/* generic, or print and softirqs (generic when an event does not fit the typed payload) */
	if (!k->typed || k->special == PF_SPECIAL_PRINT || k->special == PF_SPECIAL_SOFTIRQ) {
		if (!pf_leaves_of(&k->leaves, pl) || !make_descriptor(k, ec)) {
			pf_kclass_free(k);
			return false;
		}
		if (k->special != PF_SPECIAL_PRINT && k->special != PF_SPECIAL_SOFTIRQ)
			k->typed = 0;
	}
	return true;
}

void pf_kclass_free(struct pf_kclass *k)
{
	pf_leaves_free(&k->leaves);
	tmx_buf_free(&k->desc);
}

/* ---- reading the payload ---- */

static bool int_of(const struct tmx_value *v, int64_t *out)
{
	switch (v->fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		*out = v->fc->is_signed ? v->s : (int64_t)v->u;
		return true;
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
		*out = (int64_t)v->u;
		return true;
	default:
		return false;
	}
}

const struct tmx_value *pf_member(const struct tmx_value *vals, size_t m)
{
	const struct tmx_value *v;

	if (!vals || vals[0].fc->kind != TMX_FC_STRUCT || m >= vals[0].n_members)
		return NULL;
	for (v = vals + 1; m--;)
		v = pf_value_after(v);
	return v;
}

bool pf_kclass_int(const struct pf_kclass *k, const struct tmx_event *ev, int f, int64_t *v)
{
	const struct tmx_value *x;

	if (f >= k->n_map || k->member[f] < 0 ||
	    !(x = pf_member(ev->scopes[TMX_SCOPE_PAYLOAD], (size_t)k->member[f])))
		return false;
	return int_of(x, v);
}

bool pf_payload_int(const struct tmx_event *ev, const char *name, int64_t *v)
{
	const struct tmx_value *x = tmx_event_field_in(ev, TMX_SCOPE_PAYLOAD, name);

	return x && tmx_value_int64(x, v) ? true : x ? tmx_value_uint64(x, (uint64_t *)v) : false;
}

const char *pf_payload_text(const struct tmx_event *ev, const char *name, size_t *len)
{
	const struct tmx_value *x = tmx_event_field_in(ev, TMX_SCOPE_PAYLOAD, name);

	return x ? tmx_value_text(x, len) : NULL;
}

/* Whether a print's text is atrace-shaped: B|pid|..., E|pid..., C|..., S|..., F|..., I|... */
static bool atrace_shaped(const char *s, size_t n)
{
	return n >= 3 && strchr("BECSFI", s[0]) && s[1] == '|' && s[2] >= '0' && s[2] <= '9';
}

struct gen_ctx {
	struct tmx_buf *b;
};

static void put_leaf(void *ctx, const struct pf_leaf *leaf, const struct pf_leaf_value *v)
{
	struct tmx_buf *b = ((struct gen_ctx *)ctx)->b;
	uint32_t f = (uint32_t)v->index + 1;

	switch (leaf->type) {
	case PF_LEAF_INT:
		pb_int(b, f, v->i);
		break;
	case PF_LEAF_UINT:
		pb_uint(b, f, v->u);
		break;
	case PF_LEAF_DOUBLE:
		pb_double(b, f, v->d);
		break;
	default:
		pb_bytes(b, f, v->s, v->len);
		break;
	}
}

/* The value index of each member of the payload structure (at most 64 members). */
static size_t member_values(const struct tmx_value *pl, size_t *idx, size_t max)
{
	size_t n = pl && pl[0].fc->kind == TMX_FC_STRUCT ? pl[0].n_members : 0;
	const struct tmx_value *v = pl ? pl + 1 : NULL;

	if (n > max)
		n = max;
	for (size_t m = 0; m < n; m++) {
		idx[m] = (size_t)(v - pl);
		v = pf_value_after(v);
	}
	return n;
}

/*
 * LTTng syscall_entry_NAME: its fields are the system call's arguments in
 * order, as sys_enter's args (PERFETTO.md: id and args, the raw register
 * values).  lttng-modules records what a pointer argument points to (a
 * path, a structure) instead of the pointer: such an argument keeps its
 * place as 0, so that the ones after it stay in their registers' places.
 */
static void lttng_args(struct tmx_buf *b, const struct tmx_value *pl)
{
	size_t idx[64], n = member_values(pl, idx, 64);
	int64_t v;

	for (size_t m = 0; m < n && m < 6; m++)
		pb_uint(b, 2, int_of(&pl[idx[m]], &v) ? (uint64_t)v : 0);
}

static void typed_payload(struct tmx_buf *b, const struct pf_kclass *k, const struct tmx_value *pl,
			  struct pf_render *r)
{
	const struct map_row *row = k->map;
	size_t idx[64], n = member_values(pl, idx, 64);
	const char *s;
	size_t len;
	int64_t v;

	for (int f = 0; f < k->n_map; f++) {
		const struct map_field *mf = &row->f[f];
		const struct tmx_value *x;

		if (k->member[f] < 0 || (size_t)k->member[f] >= n)
			continue;
		x = &pl[idx[k->member[f]]];
		switch (mf->conv) {
		case CV_STR:
			if ((s = tmx_value_text(x, &len))) {
				s = pf_utf8(r, s, len, &len);
				pb_bytes(b, mf->pf, s, len);
			}
			break;
		case CV_PRIO:
			if (int_of(x, &v))
				pb_int(b, mf->pf, k->lttng && v < 100 ? v + 100 : v);
			break;
		case CV_ARGS:
			/* repeated uint64, not packed (proto2); the elements walked, not each
			 * looked up (sys_enter: every system call) */
			if ((len = tmx_value_length(x)) > 6)
				len = 6;
			for (const struct tmx_value *el = len ? tmx_value_element(x, 0) : NULL;
			     el && len--; el = pf_value_after(el))
				if (int_of(el, &v))
					pb_uint(b, mf->pf, (uint64_t)v);
			break;
		default:
			if (int_of(x, &v))
				pb_int(b, mf->pf, v);
			break;
		}
	}
}

void pf_kevent(struct tmx_buf *b, const struct pf_kclass *k, const struct tmx_event *ev,
	       uint64_t ts, struct pf_render *r, bool *generic)
{
	const struct tmx_value *pl = ev->scopes[TMX_SCOPE_PAYLOAD];
	uint32_t payload = k->typed;
	size_t in;

	pb_uint(b, PF_FEV_TIMESTAMP, ts);
	if (k->special == PF_SPECIAL_PRINT) {
		size_t len = 0;
		const char *s = pf_payload_text(ev, "buf", &len);

		if (!s || !atrace_shaped(s, len))
			payload = 0;
	} else if (k->special == PF_SPECIAL_SOFTIRQ) {
		int64_t vec;

		/* Perfetto's importer indexes a table of 10 names with it */
		if (!pf_kclass_int(k, ev, 0, &vec) || vec < 0 || vec >= 10)
			payload = 0;
	}
	*generic = !payload;
	in = pb_open(b, payload ? payload : k->generic_id);
	if (!payload) {
		struct gen_ctx g = { b };

		pf_leaves_walk(&k->leaves, pl, r, put_leaf, &g);
	} else if (k->special == PF_SPECIAL_SYS_ENTER) {
		pb_int(b, 1, k->syscall_id);
		lttng_args(b, pl);
	} else if (k->special == PF_SPECIAL_SYS_EXIT) {
		int64_t ret;

		pb_int(b, 1, k->syscall_id);
		if (pf_payload_int(ev, "ret", &ret))
			pb_int(b, 2, ret);
	} else {
		typed_payload(b, k, pl, r);
	}
	pb_close(b, in);
}
