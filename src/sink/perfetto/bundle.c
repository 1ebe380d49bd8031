/*
 * Kernel events into per-CPU FtraceEventBundles, in two steps so that the
 * first can run on the parallel runner's workers (src/sink/split.h):
 *
 *   pf_kformat(msg)   what depends on the event alone: its CPU, its class,
 *                     the FtraceEvent's timestamp and payload fields, its
 *                     pid when the event says it, the task a sched_switch
 *                     puts on the CPU, a state dump's running task, and the
 *                     ProcessTree entry of LTTng's state dump and forks
 *   pf_kemit(piece)   in merged order: the pid of events that do not say
 *                     it (the CPU's task), the event appended to its CPU's
 *                     bundle with the descriptor of its generic class, the
 *                     bundle written at 1,000 events or 256 KiB
 *
 * The sequential path runs both, one after the other, so the bytes are the
 * same whatever the number of jobs.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sink/perfetto/perfetto_impl.h"
#include "sink/perfetto/pf_proto.h"
#include "tracemux/event.h"

#define BUNDLE_EVENTS 1000
#define BUNDLE_BYTES (256 * 1024)

enum { PK_GENERIC = 1, PK_PID = 2, PK_NEXT = 4, PK_RUNNING = 8, PK_UNKNOWN = 16 };

/*
 * A formatted kernel event: this header, then `body_len` bytes of
 * FtraceEvent fields, `tree_len` bytes of a ProcessTree packet and
 * `proc_len` bytes of what ptree.c reads of it.
 */
struct pf_kpiece {
	uint32_t side;               /* PF_SIDE_KERNEL */
	uint64_t cpu;
	uint32_t class_num;
	uint32_t flags;
	int64_t pid;                 /* PK_PID */
	int64_t next;                /* PK_NEXT: the task a sched_switch puts on the CPU */
	int64_t run_cpu, run_tid;    /* PK_RUNNING: a state dump's running task */
	uint32_t ts_len;             /* the timestamp field's bytes, first in the body */
	uint32_t body_len;
	uint32_t tree_len;
	uint32_t proc_len;
};

void pf_fmt_free(struct pf_fmt *f)
{
	pf_render_free(f->render);
	imap_free(&f->stream_of);
	free(f->streams);
	tmx_buf_free(&f->piece);
	tmx_buf_free(&f->ib);
	tmx_buf_free(&f->ext);
	memset(f, 0, sizeof(*f));
}

bool pf_fmt_init(struct pf_fmt *f, const struct tmx_perfetto *sink)
{
	memset(f, 0, sizeof(*f));
	f->sink = sink;
	return (f->render = pf_render_new()) != NULL;
}

struct pf_stream *pf_stream_of(struct pf_fmt *f, const struct tmx_stream *stream)
{
	bool added;
	uint32_t *slot;

	/* most events are of the stream of the event before (a batch, a packet) */
	if (stream == f->last_stream && f->n_streams)
		return &f->streams[f->last_slot];
	if (!(slot = imap_get(&f->stream_of, (uint64_t)(uintptr_t)stream, 0, &added)))
		return NULL;
	if (added) {
		if (!tmx_grow_array((void **)&f->streams, &f->cap_streams, f->n_streams + 1,
				    sizeof(*f->streams), 16))
			return NULL;
		size_t i = tmx_source_stream_index((struct tmx_source *)f->sink->src, stream);

		memset(&f->streams[f->n_streams], 0, sizeof(f->streams[0]));
		/* the source's streams numbered at open: read-only look-ups here */
		f->streams[f->n_streams].pseq =
			(uint32_t)(i < f->sink->n_seqs - 1 ? i : f->sink->n_seqs - 1);
		*slot = (uint32_t)f->n_streams++;
	}
	f->last_stream = stream;
	f->last_slot = *slot;
	return &f->streams[*slot];
}

/* The CPU of an event: its packet's (looked up once per packet), or perf's per-event field. */
static bool event_cpu(struct pf_fmt *f, const struct tmx_msg *msg, uint64_t *cpu_nr)
{
	const struct tmx_event *ev = msg->event;
	struct pf_stream *st = pf_stream_of(f, msg->stream);
	int64_t v;

	if (!st)
		return false;
	*cpu_nr = 0;
	if (st->cached && st->packet == ev->packet && st->seq == ev->packet->seq) {
		*cpu_nr = st->cpu;
		return true;
	}
	st->cached = false;
	if (tmx_event_cpu(ev, cpu_nr))
		st->cached = ev->packet != NULL;
	else if (pf_payload_int(ev, "perf_cpu", &v) && v >= 0)
		*cpu_nr = (uint64_t)v;   /* perf's CTF traces: per event */
	if (*cpu_nr >= PF_MAX_CPUS)   /* a CPU number Perfetto refuses: the last one it takes */
		*cpu_nr = PF_MAX_CPUS - 1;
	if (st->cached)
		st->packet = ev->packet, st->seq = ev->packet->seq;
	st->cpu = *cpu_nr;
	return true;
}

/* The pid an event says (trace.dat's common_pid, LTTng's tid context...), false when none. */
static bool said_pid(const struct pf_class *c, const struct tmx_event *ev, int64_t *pid)
{
	static const uint8_t scope[] = {
		[PF_PID_COMMON] = TMX_SCOPE_COMMON_CONTEXT, [PF_PID_PAYLOAD] = TMX_SCOPE_PAYLOAD,
		[PF_PID_TID_COMMON] = TMX_SCOPE_COMMON_CONTEXT,
		[PF_PID_TID_SPECIFIC] = TMX_SCOPE_SPECIFIC_CONTEXT,
	};
	const struct tmx_value *x;
	uint64_t u;

	if (c->pid_src != PF_PID_NONE &&
	    (x = pf_member(ev->scopes[scope[c->pid_src]], (size_t)c->pid_member))) {
		if (tmx_value_int64(x, pid))
			return true;
		if (tmx_value_uint64(x, &u)) {
			*pid = (int64_t)u;
			return true;
		}
	}
	/* the switch's own task is the one it switches out */
	return c->k.special == PF_SPECIAL_SWITCH && pf_kclass_int(&c->k, ev, PF_SWITCH_PREV_PID, pid);
}

/* ProcessTree entries from LTTng's state dump and forks (a packet body in `b`). */
static void process_tree(struct pf_fmt *f, struct tmx_buf *b, const struct pf_class *c,
			 const struct tmx_event *ev, uint64_t ts)
{
	int64_t tid, pid, ppid = -1;
	const char *name;
	size_t len = 0, at, in;

	if (c->k.special == PF_SPECIAL_STATEDUMP) {
		if (!pf_payload_int(ev, "tid", &tid) || !pf_payload_int(ev, "pid", &pid))
			return;
		pf_payload_int(ev, "ppid", &ppid);
		name = pf_payload_text(ev, "name", &len);
	} else {
		if (!pf_payload_int(ev, "child_tid", &tid) || !pf_payload_int(ev, "child_pid", &pid))
			return;
		pf_payload_int(ev, "parent_pid", &ppid);
		name = pf_payload_text(ev, "child_comm", &len);
	}
	if (!name)
		name = "", len = 0;
	name = pf_utf8(f->render, name, len, &len);
	pb_uint(b, PF_PKT_TIMESTAMP, ts);
	at = pb_open(b, PF_PKT_PROCESS_TREE);
	if (tid == pid) {
		in = pb_open(b, PF_PT_PROCESSES);
		pb_int(b, PF_PROC_PID, pid);
		if (ppid >= 0)
			pb_int(b, PF_PROC_PPID, ppid);
		pb_bytes(b, PF_PROC_CMDLINE, name, len);
		pb_uint(b, PF_PROC_CMDLINE_IS_COMM, 1);
		pb_close(b, in);
	}
	in = pb_open(b, PF_PT_THREADS);
	pb_int(b, PF_THREAD_TID, tid);
	pb_bytes(b, PF_THREAD_NAME, name, len);
	pb_int(b, PF_THREAD_TGID, pid);
	pb_close(b, in);
	pb_close(b, at);
}

/*
 * LTTng's state dump of a task running on a CPU (status LTTNG_RUN = 6,
 * with a `cpu` field in recent lttng-modules): the pid of that CPU's events
 * until its first sched_switch.
 */
static bool statedump_running(const struct tmx_event *ev, int64_t *cpu, int64_t *tid)
{
	int64_t status;

	return pf_payload_int(ev, "status", &status) && status == 6 &&
	       pf_payload_int(ev, "cpu", cpu) && *cpu >= 0 && *cpu < PF_MAX_CPUS &&
	       pf_payload_int(ev, "tid", tid);
}

bool pf_kformat(struct pf_fmt *f, const struct tmx_msg *msg)
{
	const struct tmx_event *ev = msg->event;
	struct pf_kpiece h = { .side = PF_SIDE_KERNEL };
	uint32_t *slot = imap_find(&f->sink->class_of, (uint64_t)(uintptr_t)ev->cls);
	const struct pf_class *c;
	uint64_t ts = pf_ts(f->sink, msg->ns);
	size_t ts_end, body_end;
	bool generic;

	f->piece.len = 0;
	if (!slot) {   /* not one of the source's classes (cannot happen) */
		h.flags = PK_UNKNOWN;
		tmx_buf_put(&f->piece, &h, sizeof(h));
		return !f->piece.oom;
	}
	c = f->sink->classes[*slot];
	if (!event_cpu(f, msg, &h.cpu))
		return false;
	h.class_num = *slot;
	tmx_buf_put(&f->piece, &h, sizeof(h));
	pf_kevent(&f->piece, &c->k, ev, ts, f->render, &generic);
	if (f->piece.oom)
		return false;
	/* the timestamp field is the first one pf_kevent wrote */
	ts_end = sizeof(h) + 1 + pb_varint_size(ts);
	body_end = f->piece.len;
	if (generic)
		h.flags |= PK_GENERIC;
	if (said_pid(c, ev, &h.pid))
		h.flags |= PK_PID;
	if (c->k.special == PF_SPECIAL_SWITCH && pf_kclass_int(&c->k, ev, PF_SWITCH_NEXT_PID, &h.next))
		h.flags |= PK_NEXT;
	if (c->k.special == PF_SPECIAL_STATEDUMP && statedump_running(ev, &h.run_cpu, &h.run_tid))
		h.flags |= PK_RUNNING;
	if (c->k.special == PF_SPECIAL_STATEDUMP || c->k.special == PF_SPECIAL_FORK)
		process_tree(f, &f->piece, c, ev, ts);
	h.tree_len = (uint32_t)(f->piece.len - body_end);
	if (c->proc_kind) {
		size_t at = f->piece.len;

		pf_kproc_format(&f->piece, c->proc_kind, ev, f->render);
		h.proc_len = (uint32_t)(f->piece.len - at);
	}
	h.ts_len = (uint32_t)(ts_end - sizeof(h));
	h.body_len = (uint32_t)(body_end - sizeof(h));
	memcpy(f->piece.p, &h, sizeof(h));
	return !f->piece.oom;
}

/* ---- merged order ---- */

static struct pf_cpu *cpu_of(struct tmx_perfetto *s, uint64_t cpu)
{
	struct pf_cpu *c;

	if ((c = s->cpus[cpu]))
		return c;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	return s->cpus[cpu] = c;
}

static void write_bundle(struct tmx_perfetto *s, uint64_t cpu_nr, struct pf_cpu *c)
{
	size_t body, pkt;
	uint8_t head[32], *e;

	if (!c->n && !c->lost)
		return;
	body = 1 + pb_varint_size(cpu_nr) + c->ev.len + (c->lost ? 2 : 0);
	for (size_t i = 0; i < c->n_gen; i++)
		body += s->classes[c->gen[i]]->k.desc.len;
	pkt = 1 + pb_varint_size(body) + body;
	/* Trace.packet { TracePacket.ftrace_events { cpu, descriptors, events, lost_events } } */
	head[0] = PF_TRACE_PACKET << 3 | PB_LEN;
	e = pb_put_varint(head + 1, pkt);
	*e++ = PF_PKT_FTRACE_EVENTS << 3 | PB_LEN;
	e = pb_put_varint(e, body);
	*e++ = PF_BUNDLE_CPU << 3 | PB_VARINT;
	e = pb_put_varint(e, cpu_nr);
	outbuf_write(&s->out, (const char *)head, (size_t)(e - head));
	for (size_t i = 0; i < c->n_gen; i++) {
		const struct tmx_buf *d = &s->classes[c->gen[i]]->k.desc;

		outbuf_write(&s->out, (const char *)d->p, d->len);
	}
	outbuf_write(&s->out, (const char *)c->ev.p, c->ev.len);
	if (c->lost) {
		head[0] = PF_BUNDLE_LOST_EVENTS << 3 | PB_VARINT;
		head[1] = 1;
		outbuf_write(&s->out, (const char *)head, 2);
	}
	c->ev.len = 0;
	c->n = 0;
	c->n_gen = 0;
	c->lost = false;
	c->serial++;
}

void pf_write_bundles(struct tmx_perfetto *s)
{
	for (uint64_t c = 0; c < PF_MAX_CPUS; c++)
		if (s->cpus[c])
			write_bundle(s, c, s->cpus[c]);
}

/* Notes that the open bundle of `c` holds an event of generic class number `ci`. */
static bool use_descriptor(struct pf_cpu *c, uint32_t ci)
{
	if (!tmx_grow_zeroed((void **)&c->stamp, &c->n_stamp, (size_t)ci + 1, sizeof(*c->stamp), 64))
		return false;
	if (c->stamp[ci] == c->serial + 1)
		return true;
	if (!tmx_grow_array((void **)&c->gen, &c->cap_gen, c->n_gen + 1, sizeof(*c->gen), 16))
		return false;
	c->gen[c->n_gen++] = ci;
	c->stamp[ci] = c->serial + 1;
	return true;
}

bool pf_kemit(struct tmx_perfetto *s, const struct tmx_msg *msg, const uint8_t *piece)
{
	struct pf_kpiece h;
	const uint8_t *body = piece + sizeof(h);
	struct pf_cpu *cpu, *run;
	uint8_t pidf[11], *e;
	int64_t pid;
	bool added;
	uint32_t *slot;

	memcpy(&h, piece, sizeof(h));
	if (h.flags & PK_UNKNOWN)
		return true;
	if (!(cpu = cpu_of(s, h.cpu)) ||
	    !(slot = imap_get(&s->stream_cpu, (uint64_t)(uintptr_t)msg->stream, 0, &added)))
		return false;
	*slot = (uint32_t)h.cpu + 1;
	/* FtraceEvent { timestamp, pid, payload }, in that order (PERFETTO.md) */
	pid = h.flags & PK_PID ? h.pid : cpu->cur_tid;
	pidf[0] = PF_FEV_PID << 3 | PB_VARINT;
	e = pb_put_varint(pidf + 1, (uint64_t)pid);
	pb_tag(&cpu->ev, PF_BUNDLE_EVENT, PB_LEN);
	pb_varint(&cpu->ev, h.body_len + (size_t)(e - pidf));
	tmx_buf_put(&cpu->ev, body, h.ts_len);
	tmx_buf_put(&cpu->ev, pidf, (size_t)(e - pidf));
	tmx_buf_put(&cpu->ev, body + h.ts_len, h.body_len - h.ts_len);
	if (cpu->ev.oom || ((h.flags & PK_GENERIC) && !use_descriptor(cpu, h.class_num)))
		return false;
	if (h.flags & PK_NEXT) {
		cpu->cur_tid = h.next;
		cpu->switched = true;
	}
	if ((h.flags & PK_RUNNING) && (run = cpu_of(s, (uint64_t)h.run_cpu)) && !run->switched)
		run->cur_tid = h.run_tid;
	if (h.tree_len) {
		tmx_buf_put(&s->pkt, body + h.body_len, h.tree_len);
		pf_write_packet(s);
	}
	if (h.proc_len &&
	    !pf_kproc_emit(s, pid, pf_ts(s, msg->ns), body + h.body_len + h.tree_len))
		return false;
	if (++cpu->n >= BUNDLE_EVENTS || cpu->ev.len >= BUNDLE_BYTES)
		write_bundle(s, h.cpu, cpu);
	return true;
}

/* Discarded events: the bundle of the CPU of that stream's events (none seen yet: none). */
void pf_kdiscarded(struct tmx_perfetto *s, const struct tmx_msg *msg)
{
	uint32_t *slot = imap_find(&s->stream_cpu, (uint64_t)(uintptr_t)msg->stream);

	if (slot && *slot && s->cpus[*slot - 1])
		s->cpus[*slot - 1]->lost = true;
}
