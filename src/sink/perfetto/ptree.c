/*
 * The process tree of ftrace-shaped kernel traces (trace.dat, perf's CTF),
 * which carry no saved tgids: built from the events, in merged order, and
 * at the end named from saved_cmdlines (the model's tasks, pf_kproc_tasks).
 *
 * Perfetto's importer (PERFETTO.md) makes processes and threads from
 * task_newtask itself (a typed payload), names threads from sched_switch,
 * and reads sched_process_fork and sched_process_exec as raw events only.
 * So ProcessTree packets say what those events add:
 *
 *   task_newtask (pid, clone_flags)  the new task's tgid: the emitter's
 *                                    with CLONE_THREAD, else its own
 *   sched_process_fork               the child's parent; when task_newtask
 *    (parent_pid, child_pid)         told whether the child is a thread or
 *                                    a process, its ProcessTree entry (a
 *                                    process named by its comm, with
 *                                    cmdline_is_comm, or a thread of its
 *                                    process); else nothing yet: a clone
 *                                    without flags may be either
 *   sched_process_exec               the task is a process (a thread that
 *    (filename, pid)                 execs becomes its process's leader):
 *                                    process {pid, ppid (the forking
 *                                    task's process), cmdline: filename}
 *   a payload with pid and tgid      (a kernel's sched_process_exit, say):
 *                                    thread {tid, tgid} when they differ
 *
 * The state (tgids, parents) is bounded by the tasks of the trace.
 * LTTng's fork and state dump events have child_tid / tid and pid: bundle.c
 * makes their entries from the event alone.
 */
#include <string.h>

#include "sink/perfetto/perfetto_impl.h"
#include "sink/perfetto/pf_proto.h"
#include "tracemux/event.h"

#define CLONE_THREAD 0x10000

enum { PROC_NONE, PROC_NEWTASK, PROC_FORK, PROC_EXEC, PROC_TGID };

/* What a worker reads of an event for the tree; its text (comm or filename) follows it. */
struct pf_kproc {
	uint32_t kind;
	int64_t a, b, c;             /* newtask: pid, clone_flags; fork: parent, child; exec: pid;
	                                tgid: pid, tgid */
	uint32_t text_len;
};

static bool payload_has(const struct tmx_event_class *ec, const char *name)
{
	const struct tmx_field_class *fc = ec->payload;

	for (size_t m = 0; fc && m < tmx_fc_member_count(fc); m++)
		if (!strcmp(tmx_fc_member_name(fc, m), name))
			return true;
	return false;
}

uint8_t pf_kproc_kind(const struct pf_kclass *k, const struct tmx_event_class *ec)
{
	if (k->lttng)
		return PROC_NONE;
	switch (k->typed) {
	case PF_FEV_TASK_NEWTASK:
		return PROC_NEWTASK;
	case PF_FEV_SCHED_PROCESS_FORK:
		return payload_has(ec, "child_tid") ? PROC_NONE : PROC_FORK;
	case PF_FEV_SCHED_PROCESS_EXEC:
		return PROC_EXEC;
	default:
		return payload_has(ec, "tgid") && payload_has(ec, "pid") ? PROC_TGID : PROC_NONE;
	}
}

void pf_kproc_format(struct tmx_buf *b, uint8_t kind, const struct tmx_event *ev,
		     struct pf_render *r)
{
	struct pf_kproc p = { .kind = kind };
	const char *text = NULL;
	size_t len = 0;
	bool ok = false;

	switch (kind) {
	case PROC_NEWTASK:
		ok = pf_payload_int(ev, "pid", &p.a) && pf_payload_int(ev, "clone_flags", &p.b);
		text = pf_payload_text(ev, "comm", &len);
		break;
	case PROC_FORK:
		ok = pf_payload_int(ev, "parent_pid", &p.a) && pf_payload_int(ev, "child_pid", &p.b);
		text = pf_payload_text(ev, "child_comm", &len);
		break;
	case PROC_EXEC:
		ok = pf_payload_int(ev, "pid", &p.a);
		text = pf_payload_text(ev, "filename", &len);
		break;
	case PROC_TGID:
		ok = pf_payload_int(ev, "pid", &p.a) && pf_payload_int(ev, "tgid", &p.b);
		break;
	}
	if (!ok)
		return;
	if (text)
		text = pf_utf8(r, text, len, &len);
	else
		len = 0;
	p.text_len = (uint32_t)len;
	tmx_buf_put(b, &p, sizeof(p));
	tmx_buf_put(b, text, len);
}

/* The tgid of `tid` (false when unknown). */
static bool tgid_of(const struct tmx_perfetto *s, int64_t tid, int64_t *tgid)
{
	const uint32_t *v = imap_find(&s->tgid_of, (uint64_t)tid & 0xFFFFFFFF);

	if (v)
		*tgid = (int32_t)*v;
	return v != NULL;
}

static bool set_tgid(struct tmx_perfetto *s, int64_t tid, int64_t tgid)
{
	bool added;
	uint32_t *v = imap_get(&s->tgid_of, (uint64_t)tid & 0xFFFFFFFF, 0, &added);

	if (v)
		*v = (uint32_t)tgid;
	return v != NULL;
}

/* The process of the task that forked `tid` (its tgid, else that task), false when unknown. */
static bool parent_process(const struct tmx_perfetto *s, int64_t tid, int64_t *ppid)
{
	const uint32_t *v = imap_find(&s->parent_of, (uint64_t)tid & 0xFFFFFFFF);

	if (!v)
		return false;
	*ppid = (int32_t)*v;
	tgid_of(s, *ppid, ppid);
	return true;
}

/* A ProcessTree packet: a process (when pid >= 0) and a thread (when tid >= 0). */
static void tree_packet(struct tmx_perfetto *s, uint64_t ts, int64_t pid, int64_t ppid,
			const char *cmdline, size_t cmd_len, bool is_comm, int64_t tid,
			const char *name, size_t name_len, int64_t tgid)
{
	struct tmx_buf *b = &s->pkt;
	size_t at, in;

	pb_uint(b, PF_PKT_TIMESTAMP, ts);
	at = pb_open(b, PF_PKT_PROCESS_TREE);
	if (pid >= 0) {
		in = pb_open(b, PF_PT_PROCESSES);
		pb_int(b, PF_PROC_PID, pid);
		if (ppid >= 0)
			pb_int(b, PF_PROC_PPID, ppid);
		pb_bytes(b, PF_PROC_CMDLINE, cmdline, cmd_len);
		if (is_comm)
			pb_uint(b, PF_PROC_CMDLINE_IS_COMM, 1);
		pb_close(b, in);
	}
	if (tid >= 0) {
		in = pb_open(b, PF_PT_THREADS);
		pb_int(b, PF_THREAD_TID, tid);
		if (name)
			pb_bytes(b, PF_THREAD_NAME, name, name_len);
		pb_int(b, PF_THREAD_TGID, tgid);
		pb_close(b, in);
	}
	pb_close(b, at);
	pf_write_packet(s);
}

bool pf_kproc_emit(struct tmx_perfetto *s, int64_t emitter, uint64_t ts, const uint8_t *rec)
{
	struct pf_kproc p;
	const char *text = (const char *)rec + sizeof(p);
	int64_t t, ppid = -1;
	bool added;
	uint32_t *v;

	memcpy(&p, rec, sizeof(p));
	switch (p.kind) {
	case PROC_NEWTASK:
		/* with CLONE_THREAD a thread of the emitter's process (when that is known) */
		if (p.b & CLONE_THREAD)
			return !tgid_of(s, emitter, &t) || set_tgid(s, p.a, t);
		/* else a process, whose parent is the emitter */
		if (!set_tgid(s, p.a, p.a) ||
		    !(v = imap_get(&s->parent_of, (uint64_t)p.a & 0xFFFFFFFF, 0, &added)))
			return false;
		*v = (uint32_t)emitter;
		return true;
	case PROC_FORK:
		if (!(v = imap_get(&s->parent_of, (uint64_t)p.b & 0xFFFFFFFF, 0, &added)))
			return false;
		*v = (uint32_t)p.a;
		if (!tgid_of(s, p.b, &t))
			return true;   /* thread or process: not known yet */
		if (t == p.b) {
			parent_process(s, p.b, &ppid);
			tree_packet(s, ts, p.b, ppid, text, p.text_len, true, p.b, text, p.text_len, p.b);
		} else {
			tree_packet(s, ts, -1, -1, NULL, 0, false, p.b, text, p.text_len, t);
		}
		return true;
	case PROC_EXEC:
		if (!set_tgid(s, p.a, p.a))
			return false;
		parent_process(s, p.a, &ppid);
		tree_packet(s, ts, p.a, ppid, text, p.text_len, false, -1, NULL, 0, 0);
		return true;
	case PROC_TGID:
		if (tgid_of(s, p.a, &t) && t == p.b)
			return true;
		if (!set_tgid(s, p.a, p.b))
			return false;
		if (p.a != p.b)
			tree_packet(s, ts, -1, -1, NULL, 0, false, p.a, NULL, 0, p.b);
		return true;
	}
	return true;
}

/* Threads per ProcessTree packet of pf_kproc_tasks (packets stay small). */
#define TASKS_PER_PACKET 512

/*
 * The names saved_cmdlines gives (tmx_trace_task: each task the kernel
 * knew when the recording stopped, with its comm then), at the trace's
 * end.  A thread entry needs its tgid (PERFETTO.md: threads {tid, name,
 * tgid}; an entry without one would put the thread in process 0), and
 * trace.dat saves no tgids: so only the tasks whose process the events made
 * known (task_newtask, sched_process_exec, a payload with pid and tgid) are
 * written, as thread {tid, name: comm, tgid}.  No process entry: a `[comm]`
 * cmdline would replace the exec'd file name a process may already have.
 */
void pf_kproc_tasks(struct tmx_perfetto *s, const struct tmx_trace *t, uint64_t ts)
{
	struct tmx_buf *b = &s->pkt;
	size_t n = tmx_trace_task_count(t), in_pkt = 0, at = 0;

	for (size_t i = 0; i < n; i++) {
		int64_t tid, tgid;
		const char *comm;
		size_t len, in;

		if (!tmx_trace_task(t, i, &tid, &comm, &len) || tid <= 0 || !tgid_of(s, tid, &tgid))
			continue;
		if (!in_pkt) {
			pb_uint(b, PF_PKT_TIMESTAMP, ts);
			at = pb_open(b, PF_PKT_PROCESS_TREE);
		}
		comm = pf_utf8(s->render, comm, len, &len);
		in = pb_open(b, PF_PT_THREADS);
		pb_int(b, PF_THREAD_TID, tid);
		pb_bytes(b, PF_THREAD_NAME, comm, len);
		pb_int(b, PF_THREAD_TGID, tgid);
		pb_close(b, in);
		if (++in_pkt == TASKS_PER_PACKET) {
			pb_close(b, at);
			pf_write_packet(s);
			in_pkt = 0;
		}
	}
	if (in_pkt) {
		pb_close(b, at);
		pf_write_packet(s);
	}
}
