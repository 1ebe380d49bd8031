/*
 * Perfetto's protobuf trace format (-o perfetto), written in one pass as a
 * stream of Trace.packet records (what ../shared/PERFETTO.md says Perfetto's
 * trace processor needs; field numbers in pf_proto.h):
 *
 * - Kernel traces (trace.dat; CTF with env domain "kernel": LTTng, perf):
 *   each event an FtraceEvent (timestamp, pid, one payload: kernel.c) in
 *   the open FtraceEventBundle of its CPU, written as a packet at 1,000
 *   events or 256 KiB, with the descriptors of the generic events it holds
 *   and lost_events when events of that CPU were discarded since the last
 *   one.  The pid is trace.dat's common_pid (perf's in the payload), LTTng's
 *   tid context, else the task that a sched_switch last put on the CPU (0,
 *   the idle task, before the first one).  LTTng's state dump and forks
 *   also become ProcessTree packets (processes named by their comm, with
 *   cmdline_is_comm).  SystemInfo from the first kernel trace's uname
 *   (trace.dat) or env (LTTng; machine x86_64 when it is not known, the
 *   table its syscall names were numbered with).
 * - Every other trace: track events (track.c).
 * - Times are the model's ns, in one domain (no timestamp_clock_id); when
 *   the first event's clock counts from the Unix epoch, a ClockSnapshot
 *   says BOOTTIME = REALTIME so that the UI shows wall time.
 *
 * Memory is bounded: one bundle per CPU, per-class descriptors, tracks and
 * interned names, whatever the trace size.  Packets are written whole, so
 * a fault of the source leaves a valid trace of what came before it.
 */
#include <stdlib.h>
#include <string.h>

#include "model/errors.h"
#include "sink/perfetto/perfetto.h"
#include "sink/perfetto/perfetto_impl.h"
#include "sink/perfetto/pf_proto.h"
#include "tracemux/event.h"

#define BUNDLE_EVENTS 1000
#define BUNDLE_BYTES (256 * 1024)

static void nomem(struct tmx_perfetto *s)
{
	s->error = TMX_ERR_NOMEM;
}

void pf_write_packet(struct tmx_perfetto *s)
{
	uint8_t head[11], *e;

	if (s->pkt.oom) {
		nomem(s);
		s->pkt.oom = false;
		s->pkt.len = 0;
		return;
	}
	head[0] = PF_TRACE_PACKET << 3 | PB_LEN;
	e = pb_put_varint(head + 1, s->pkt.len);
	outbuf_write(&s->out, (const char *)head, (size_t)(e - head));
	outbuf_write(&s->out, (const char *)s->pkt.p, s->pkt.len);
	s->pkt.len = 0;
}

/* ---- system info ---- */

static const char *env_str(const struct tmx_trace_class *tc, const char *name)
{
	const struct tmx_env_entry *e = tmx_trace_class_env(tc, name);

	return e && !e->is_int ? e->str_value : NULL;
}

static bool is_kernel(const struct tmx_trace_class *tc)
{
	const char *d = env_str(tc, "domain");

	return tc->format == TMX_FORMAT_TRACEDAT || (d && !strcmp(d, "kernel"));
}

static bool is_lttng_kernel(const struct tmx_trace_class *tc)
{
	const char *t = env_str(tc, "tracer_name");

	return t && !strcmp(t, "lttng-modules");
}

/* trace.dat's uname: "SYSNAME NODENAME RELEASE [VERSION...] MACHINE". */
static void uname_fields(struct pq_buf *b, const char *u)
{
	const char *w[3], *end = u + strlen(u), *last;
	size_t n = 0;

	for (const char *p = u; n < 3 && p < end; n++) {
		w[n] = p;
		p = strchr(p, ' ');
		p = p ? p + 1 : end;
	}
	last = strrchr(u, ' ');
	if (n < 3 || !last)
		return;
	pb_bytes(b, PF_UTS_SYSNAME, w[0], (size_t)(w[1] - 1 - w[0]));
	{
		const char *rel_end = strchr(w[2], ' ');

		pb_bytes(b, PF_UTS_RELEASE, w[2], (size_t)((rel_end ? rel_end : end) - w[2]));
		if (rel_end && rel_end < last)
			pb_bytes(b, PF_UTS_VERSION, rel_end + 1, (size_t)(last - rel_end - 1));
	}
	pb_string(b, PF_UTS_MACHINE, last + 1);
}

static void system_info(struct tmx_perfetto *s, const struct tmx_trace_class *tc)
{
	const struct tmx_env_entry *cpus = tmx_trace_class_env(tc, "cpus");
	const char *u = env_str(tc, "uname");
	size_t si = pb_open(&s->pkt, PF_PKT_SYSTEM_INFO), uts = pb_open(&s->pkt, PF_SI_UTSNAME);

	if (u) {
		uname_fields(&s->pkt, u);
	} else {
		const char *sysname = env_str(tc, "sysname");
		const char *rel = env_str(tc, "kernel_release");
		const char *ver = env_str(tc, "kernel_version");

		pb_string(&s->pkt, PF_UTS_SYSNAME, sysname ? sysname : "Linux");
		if (ver)
			pb_string(&s->pkt, PF_UTS_VERSION, ver);
		if (rel)
			pb_string(&s->pkt, PF_UTS_RELEASE, rel);
		if (is_lttng_kernel(tc))
			pb_string(&s->pkt, PF_UTS_MACHINE, "x86_64");
	}
	pb_close(&s->pkt, uts);
	if (cpus && cpus->is_int && cpus->int_value > 0)
		pb_uint(&s->pkt, PF_SI_NUM_CPUS, (uint64_t)cpus->int_value);
	pb_close(&s->pkt, si);
	pf_write_packet(s);
}

struct tmx_perfetto *tmx_perfetto_new(int fd, const struct tmx_source *src)
{
	struct tmx_perfetto *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (!(s->render = pf_render_new())) {
		free(s);
		return NULL;
	}
	outbuf_init(&s->out, fd);
	s->next_iid = 1;
	for (size_t i = 0; i < tmx_source_logical_trace_count(src); i++) {
		const struct tmx_trace_class *tc = tmx_source_logical_trace(src, i)->cls;

		if (is_kernel(tc)) {
			system_info(s, tc);
			break;
		}
	}
	return s;
}

void tmx_perfetto_free(struct tmx_perfetto *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_classes; i++) {
		pf_kclass_free(&s->classes[i]->k);
		pf_leaves_free(&s->classes[i]->leaves);
		free(s->classes[i]);
	}
	free(s->classes);
	for (size_t c = 0; c < PF_MAX_CPUS; c++)
		if (s->cpus[c]) {
			pq_buf_free(&s->cpus[c]->ev);
			free(s->cpus[c]->stamp);
			free(s->cpus[c]->gen);
			free(s->cpus[c]);
		}
	free(s->class_of.keys);
	free(s->class_of.vals);
	free(s->stream_of.keys);
	free(s->stream_of.vals);
	free(s->streams);
	pf_user_free(s);
	pq_buf_free(&s->pkt);
	pf_render_free(s->render);
	free(s);
}

/* ---- classes ---- */

static int member_index(const struct tmx_field_class *fc, const char *name)
{
	for (size_t m = 0; fc && m < tmx_fc_member_count(fc); m++)
		if (!strcmp(tmx_fc_member_name(fc, m), name))
			return (int)m;
	return -1;
}

/* Where a class's events say their pid: the first of these that it has. */
static void pid_source(struct pf_class *c, const struct tmx_event_class *ec)
{
	const struct { uint8_t src; const struct tmx_field_class *fc; const char *name; } ways[] = {
		{ PF_PID_COMMON, ec->stream_class->event_common_context, "common_pid" },
		{ PF_PID_PAYLOAD, ec->payload, "common_pid" },        /* perf's CTF */
		{ PF_PID_TID_COMMON, ec->stream_class->event_common_context, "tid" },
		{ PF_PID_TID_SPECIFIC, ec->specific_context, "tid" }, /* LTTng's tid context */
	};

	c->pid_src = PF_PID_NONE;
	for (size_t i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		int m = member_index(ways[i].fc, ways[i].name);

		if (m >= 0) {
			c->pid_src = ways[i].src;
			c->pid_member = (int16_t)m;
			return;
		}
	}
}

static struct pf_class *class_of(struct tmx_perfetto *s, const struct tmx_event_class *ec)
{
	bool added;
	uint32_t *slot = imap_get(&s->class_of, (uint64_t)(uintptr_t)ec, 0, &added);
	const struct tmx_trace_class *tc = ec->stream_class->trace_class;
	struct pf_class *c;

	if (!slot)
		return NULL;
	if (!added)
		return s->classes[*slot];
	if (s->n_classes == s->cap_classes) {
		size_t cap = s->cap_classes ? 2 * s->cap_classes : 64;
		struct pf_class **p = realloc(s->classes, cap * sizeof(*p));
		if (!p)
			return NULL;
		s->classes = p;
		s->cap_classes = cap;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	c->ec = ec;
	if (is_kernel(tc)) {
		c->side = PF_SIDE_KERNEL;
		pid_source(c, ec);
		if (!pf_kclass_init(&c->k, ec, is_lttng_kernel(tc),
				    PF_GENERIC_FIRST_ID + s->n_generic)) {
			free(c);
			return NULL;
		}
		s->n_generic += !c->k.typed || c->k.special == PF_SPECIAL_PRINT;
	} else {
		const char *t = env_str(tc, "tracer_name");

		c->side = PF_SIDE_USER;
		pf_user_class_init(c, ec, tc->format == TMX_FORMAT_XRAY ||
					  (t && !strcmp(t, "llvm-xray")));
		if (!pf_leaves_of(&c->leaves, ec->payload)) {
			free(c);
			return NULL;
		}
	}
	*slot = c->num = (uint32_t)s->n_classes;
	s->classes[s->n_classes++] = c;
	return c;
}

/* ---- bundles ---- */

static struct pf_cpu *cpu_of(struct tmx_perfetto *s, uint64_t cpu)
{
	struct pf_cpu *c;

	if (cpu >= PF_MAX_CPUS)   /* a CPU number Perfetto refuses: the last one it takes */
		cpu = PF_MAX_CPUS - 1;
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
		const struct pq_buf *d = &s->classes[c->gen[i]]->k.desc;

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

/* Notes that the open bundle of `c` holds an event of generic class number `ci`. */
static bool use_descriptor(struct pf_cpu *c, uint32_t ci)
{
	if (ci >= c->n_stamp) {
		size_t n = c->n_stamp ? c->n_stamp : 64;
		uint32_t *p;

		while (n <= ci)
			n *= 2;
		if (!(p = realloc(c->stamp, n * sizeof(*p))))
			return false;
		memset(p + c->n_stamp, 0, (n - c->n_stamp) * sizeof(*p));
		c->stamp = p;
		c->n_stamp = n;
	}
	if (c->stamp[ci] == c->serial + 1)
		return true;
	if (c->n_gen == c->cap_gen) {
		size_t cap = c->cap_gen ? 2 * c->cap_gen : 16;
		uint32_t *p = realloc(c->gen, cap * sizeof(*p));
		if (!p)
			return false;
		c->gen = p;
		c->cap_gen = cap;
	}
	c->gen[c->n_gen++] = ci;
	c->stamp[ci] = c->serial + 1;
	return true;
}

static int64_t event_pid(const struct pf_class *c, const struct tmx_event *ev,
			 const struct pf_cpu *cpu)
{
	static const uint8_t scope[] = {
		[PF_PID_COMMON] = TMX_SCOPE_COMMON_CONTEXT, [PF_PID_PAYLOAD] = TMX_SCOPE_PAYLOAD,
		[PF_PID_TID_COMMON] = TMX_SCOPE_COMMON_CONTEXT,
		[PF_PID_TID_SPECIFIC] = TMX_SCOPE_SPECIFIC_CONTEXT,
	};
	const struct tmx_value *x;
	int64_t pid;
	uint64_t u;

	if (c->pid_src != PF_PID_NONE &&
	    (x = pf_member(ev->scopes[scope[c->pid_src]], (size_t)c->pid_member))) {
		if (tmx_value_int64(x, &pid))
			return pid;
		if (tmx_value_uint64(x, &u))
			return (int64_t)u;
	}
	/* the switch's own task is the one it switches out */
	if (c->k.special == PF_SPECIAL_SWITCH && pf_kclass_int(&c->k, ev, PF_SWITCH_PREV_PID, &pid))
		return pid;
	return cpu->cur_tid;
}

/*
 * LTTng's state dump of a task running on a CPU (status LTTNG_RUN = 6,
 * with a `cpu` field in recent lttng-modules): the pid of that CPU's events
 * until its first sched_switch.
 */
static void statedump_running(struct tmx_perfetto *s, const struct tmx_event *ev)
{
	int64_t status, cpu_nr, tid;
	struct pf_cpu *cpu;

	if (pf_payload_int(ev, "status", &status) && status == 6 &&
	    pf_payload_int(ev, "cpu", &cpu_nr) && cpu_nr >= 0 && cpu_nr < PF_MAX_CPUS &&
	    pf_payload_int(ev, "tid", &tid) && (cpu = cpu_of(s, (uint64_t)cpu_nr)) &&
	    !cpu->switched)
		cpu->cur_tid = tid;
}

/* ProcessTree entries from LTTng's state dump and forks. */
static void process_tree(struct tmx_perfetto *s, const struct pf_class *c,
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
	name = pf_utf8(s->render, name, len, &len);
	pb_uint(&s->pkt, PF_PKT_TIMESTAMP, ts);
	at = pb_open(&s->pkt, PF_PKT_PROCESS_TREE);
	if (tid == pid) {
		in = pb_open(&s->pkt, PF_PT_PROCESSES);
		pb_int(&s->pkt, PF_PROC_PID, pid);
		if (ppid >= 0)
			pb_int(&s->pkt, PF_PROC_PPID, ppid);
		pb_bytes(&s->pkt, PF_PROC_CMDLINE, name, len);
		pb_uint(&s->pkt, PF_PROC_CMDLINE_IS_COMM, 1);
		pb_close(&s->pkt, in);
	}
	in = pb_open(&s->pkt, PF_PT_THREADS);
	pb_int(&s->pkt, PF_THREAD_TID, tid);
	pb_bytes(&s->pkt, PF_THREAD_NAME, name, len);
	pb_int(&s->pkt, PF_THREAD_TGID, pid);
	pb_close(&s->pkt, in);
	pb_close(&s->pkt, at);
	pf_write_packet(s);
}

/* The state of a kernel stream; NULL when out of memory. */
static struct pf_stream *stream_of(struct tmx_perfetto *s, const struct tmx_stream *stream)
{
	bool added;
	uint32_t *slot = imap_get(&s->stream_of, (uint64_t)(uintptr_t)stream, 0, &added);

	if (!slot)
		return NULL;
	if (added) {
		if (s->n_streams == s->cap_streams) {
			size_t cap = s->cap_streams ? 2 * s->cap_streams : 16;
			struct pf_stream *p = realloc(s->streams, cap * sizeof(*p));
			if (!p)
				return NULL;
			s->streams = p;
			s->cap_streams = cap;
		}
		memset(&s->streams[s->n_streams], 0, sizeof(s->streams[0]));
		*slot = (uint32_t)s->n_streams++;
	}
	return &s->streams[*slot];
}

static void kernel_event(struct tmx_perfetto *s, struct pf_class *c, const struct tmx_msg *msg)
{
	const struct tmx_event *ev = msg->event;
	uint64_t cpu_nr = 0, ts = msg->ns > 0 ? (uint64_t)msg->ns : 0;
	struct pf_stream *st = stream_of(s, msg->stream);
	int64_t v;
	struct pf_cpu *cpu;
	bool generic;

	if (!st) {
		nomem(s);
		return;
	}
	/* the CPU is the packet's (packet context): looked up once per packet */
	if (st->cached && st->packet == ev->packet && st->seq == ev->packet->seq) {
		cpu_nr = st->cpu;
	} else {
		st->cached = false;
		if (tmx_event_cpu(ev, &cpu_nr))
			st->cached = ev->packet != NULL;
		else if (pf_payload_int(ev, "perf_cpu", &v) && v >= 0)
			cpu_nr = (uint64_t)v;   /* perf's CTF traces: per event */
		if (cpu_nr >= PF_MAX_CPUS)
			cpu_nr = PF_MAX_CPUS - 1;
		if (st->cached)
			st->packet = ev->packet, st->seq = ev->packet->seq;
	}
	st->cpu = cpu_nr;
	st->seen = true;
	if (!(cpu = cpu_of(s, cpu_nr))) {
		nomem(s);
		return;
	}
	pf_kevent(&cpu->ev, &c->k, ev, ts, event_pid(c, ev, cpu), s->render, &generic);
	if (generic && !use_descriptor(cpu, c->num))
		nomem(s);
	if (cpu->ev.oom)
		nomem(s);
	cpu->used = true;
	if (c->k.special == PF_SPECIAL_SWITCH && pf_kclass_int(&c->k, ev, PF_SWITCH_NEXT_PID, &v)) {
		cpu->cur_tid = v;
		cpu->switched = true;
	}
	if (c->k.special == PF_SPECIAL_STATEDUMP)
		statedump_running(s, ev);
	if (c->k.special == PF_SPECIAL_STATEDUMP || c->k.special == PF_SPECIAL_FORK)
		process_tree(s, c, ev, ts);
	if (++cpu->n >= BUNDLE_EVENTS || cpu->ev.len >= BUNDLE_BYTES)
		write_bundle(s, cpu_nr, cpu);
}

/* Wall time in the UI: the first event's clock, when it counts from the Unix epoch. */
static void clock_snapshot(struct tmx_perfetto *s, const struct tmx_msg *msg)
{
	const struct tmx_clock_class *cc = msg->stream->cls->default_clock;
	uint64_t ts = msg->ns > 0 ? (uint64_t)msg->ns : 0;
	size_t at, in;

	s->clock_done = true;
	if (!cc || !cc->origin_is_unix_epoch)
		return;
	at = pb_open(&s->pkt, PF_PKT_CLOCK_SNAPSHOT);
	in = pb_open(&s->pkt, PF_CS_CLOCKS);
	pb_uint(&s->pkt, PF_CLOCK_ID, PF_CLOCK_BOOTTIME);
	pb_uint(&s->pkt, PF_CLOCK_TIMESTAMP, ts);
	pb_close(&s->pkt, in);
	in = pb_open(&s->pkt, PF_CS_CLOCKS);
	pb_uint(&s->pkt, PF_CLOCK_ID, PF_CLOCK_REALTIME);
	pb_uint(&s->pkt, PF_CLOCK_TIMESTAMP, ts);   /* the model's ns are from the epoch already */
	pb_close(&s->pkt, in);
	pb_uint(&s->pkt, PF_CS_PRIMARY_TRACE_CLOCK, PF_CLOCK_BOOTTIME);
	pb_close(&s->pkt, at);
	pf_write_packet(s);
}

static int status(struct tmx_perfetto *s, struct tmx_error *err)
{
	if (s->error)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory (Perfetto output)");
	if (s->out.error)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(s->out.error));
	return TMX_OK;
}

int tmx_perfetto_consume(struct tmx_perfetto *s, const struct tmx_msg *msg, struct tmx_error *err)
{
	struct pf_class *c;

	if (msg->kind == TMX_MSG_DISCARDED_EVENTS) {
		/* the CPU of that stream's events (none seen yet: nothing marked) */
		struct pf_stream *st = stream_of(s, msg->stream);

		if (st && st->seen && s->cpus[st->cpu])
			s->cpus[st->cpu]->lost = true;
		return status(s, err);
	}
	if (msg->kind != TMX_MSG_EVENT)
		return TMX_OK;
	if (!s->clock_done && msg->has_ts)
		clock_snapshot(s, msg);
	if (!(c = class_of(s, msg->event->cls)))
		nomem(s);
	else if (c->side == PF_SIDE_KERNEL)
		kernel_event(s, c, msg);
	else
		pf_user_event(s, c, msg);
	return status(s, err);
}

int tmx_perfetto_finish(struct tmx_perfetto *s, struct tmx_error *err)
{
	int e;

	for (uint64_t c = 0; c < PF_MAX_CPUS; c++)
		if (s->cpus[c])
			write_bundle(s, c, s->cpus[c]);
	e = outbuf_flush(&s->out);
	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return status(s, err);
}
