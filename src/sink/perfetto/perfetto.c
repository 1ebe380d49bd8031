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
 *   tid context, else the task that a sched_switch last put on the CPU
 *   (before the first one, the running task of LTTng's state dump, else 0,
 *   the idle task).  LTTng's state dump and forks
 *   also become ProcessTree packets (processes named by their comm, with
 *   cmdline_is_comm).  SystemInfo from the first kernel trace's uname
 *   (trace.dat) or env (LTTng; machine x86_64 when it is not known, the
 *   table its syscall names were numbered with).
 * - Every other trace: track events (track.c).
 * - Times are in one domain (no timestamp_clock_id): the model's ns less
 *   one constant R for the whole output (epoch_rebase: the least epoch
 *   offset of the inputs' clocks, so LTTng's values are its own, ns since
 *   boot; 0 when a clock does not count from the epoch, as trace.dat's).
 *   When the first event's clock counts from the Unix epoch, a
 *   ClockSnapshot says BOOTTIME T = REALTIME T + R (the first event's
 *   time), primary clock BOOTTIME, so that the UI shows wall time.
 *
 * Memory is bounded: one bundle per CPU, per-class descriptors, tracks and
 * interned names, whatever the trace size.  Kernel events are formatted in
 * two steps (bundle.c), the first on the parallel runner's workers when
 * every trace is a kernel trace.  Packets are written whole, so
 * a fault of the source leaves a valid trace of what came before it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "common/errors.h"
#include "common/grow.h"
#include "sink/perfetto/perfetto.h"
#include "sink/perfetto/perfetto_impl.h"
#include "sink/perfetto/pf_proto.h"
#include "sink/split.h"
#include "tracemux/event.h"

static void nomem(struct tmx_perfetto *s)
{
	s->error = TMX_ERR_NOMEM;
}

/* ---- --perfetto-compress=zstd: the output buffer drained through zstd ---- */

#define ZSTD_LEVEL 1   /* level 3 saves another 10% for twice the time */

static void zwrite(struct tmx_perfetto *s, const uint8_t *p, size_t n)
{
	while (n && !s->zerr) {
		ssize_t w = write(s->zfd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->zerr = w < 0 ? errno : EIO;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Compresses `len` bytes (end: and ends the frame), writing what comes out. */
static void zpush(struct tmx_perfetto *s, const char *data, size_t len, ZSTD_EndDirective end)
{
	ZSTD_inBuffer in = { data, len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { s->zbuf, s->zcap, 0 };

		left = ZSTD_compressStream2(s->zctx, &out, &in, end);
		if (ZSTD_isError(left)) {
			s->zerr = EIO;
			return;
		}
		zwrite(s, s->zbuf, out.pos);
	} while (!s->zerr && (end == ZSTD_e_end ? left != 0 : in.pos < in.size));
}

static void zdrain(void *ctx, const char *data, size_t len)
{
	zpush(ctx, data, len, ZSTD_e_continue);
}

static bool zstd_init(struct tmx_perfetto *s, int fd)
{
	s->zfd = fd;
	s->zcap = ZSTD_CStreamOutSize();
	if (!(s->zctx = ZSTD_createCCtx()) || !(s->zbuf = malloc(s->zcap)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(s->zctx, ZSTD_c_compressionLevel, ZSTD_LEVEL)))
		return false;
	outbuf_set_drain(&s->out, zdrain, s);
	return true;
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
static void uname_fields(struct tmx_buf *b, const char *u)
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
			tmx_buf_free(&s->cpus[c]->ev);
			free(s->cpus[c]->stamp);
			free(s->cpus[c]->gen);
			free(s->cpus[c]);
		}
	imap_free(&s->class_of);
	imap_free(&s->stream_cpu);
	imap_free(&s->tgid_of);
	imap_free(&s->parent_of);
	imap_free(&s->ext_num);
	pf_fmt_free(&s->fmt);
	pf_user_free(s);
	tmx_buf_free(&s->pkt);
	pf_render_free(s->render);
	ZSTD_freeCCtx(s->zctx);
	free(s->zbuf);
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

static struct pf_class *class_of(struct tmx_perfetto *s, const struct tmx_event_class *ec,
				 uint32_t generic_id)
{
	bool added;
	uint32_t *slot = imap_get(&s->class_of, (uint64_t)(uintptr_t)ec, 0, &added);
	const struct tmx_trace_class *tc = ec->stream_class->trace_class;
	struct pf_class *c;

	if (!slot)
		return NULL;
	if (!added)
		return s->classes[*slot];
	if (!tmx_grow_array((void **)&s->classes, &s->cap_classes, s->n_classes + 1, sizeof(*s->classes), 64))
		return NULL;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	c->ec = ec;
	if (is_kernel(tc)) {
		c->side = PF_SIDE_KERNEL;
		pid_source(c, ec);
		if (!pf_kclass_init(&c->k, ec, is_lttng_kernel(tc), generic_id)) {
			free(c);
			return NULL;
		}
		c->proc_kind = pf_kproc_kind(&c->k, ec);
	} else {
		const char *t = env_str(tc, "tracer_name");

		c->side = PF_SIDE_USER;
		pf_user_class_init(c, ec, tc->format == TMX_FORMAT_XRAY ||
					  (t && !strcmp(t, "llvm-xray")));
		if (!pf_leaves_of(&c->leaves, ec->payload)) {
			free(c);
			return NULL;
		}
		c->leaf_base = (uint32_t)s->n_leaves;
		s->n_leaves += c->leaves.n;
	}
	*slot = c->num = (uint32_t)s->n_classes;
	if (c->side == PF_SIDE_USER && !pf_uext_init(s, c)) {
		pf_leaves_free(&c->leaves);
		free(c);
		return NULL;
	}
	s->classes[s->n_classes++] = c;
	return c;
}

/*
 * R, the epoch offset taken off every time written: the least offset from
 * the Unix epoch of the clocks of the source's classes, so that the
 * values written are the tracers' own (LTTng: ns since boot, what
 * Perfetto's Linux traces hold) and none goes below 0 (an event's ns is
 * its clock's offset plus its cycles).  One constant for the whole output,
 * every input (one time domain), known before any worker formats: the
 * bytes do not depend on the jobs.  0 when a class's clock is absent or
 * does not count from the epoch (trace.dat, ...): the times are then the
 * model's ns, and there is no wall time to relate them to.
 */
static int64_t epoch_rebase(struct tmx_source *src, size_t n_classes)
{
	int64_t r = INT64_MAX, base;

	for (size_t i = 0; i < n_classes; i++) {
		const struct tmx_clock_class *cc =
			tmx_source_event_class(src, i)->stream_class->default_clock;

		if (!cc || !cc->origin_is_unix_epoch || !tmx_clock_ns_from_origin(cc, 0, &base))
			return 0;
		if (base < r)
			r = base;
	}
	return r == INT64_MAX || r < 0 ? 0 : r;
}

/*
 * The source's classes, made before any message in its dense order (the
 * generic ids follow it): the workers of the parallel runner read them.
 */
struct tmx_perfetto *tmx_perfetto_new(int fd, const struct tmx_source *src, bool zstd)
{
	/* tmx_source_event_class_count numbers the classes at its first call:
	 * before any message, on this thread */
	struct tmx_source *msrc = (struct tmx_source *)src;
	struct tmx_perfetto *s = calloc(1, sizeof(*s));
	size_t n;

	if (!s)
		return NULL;
	outbuf_init(&s->out, fd);
	s->src = src;
	/* the streams numbered now, on this thread: the workers only look them up */
	tmx_source_stream_index(msrc, NULL);
	s->n_seqs = tmx_source_stream_count(src) + 1;
	if (!(s->seqs = calloc(s->n_seqs, sizeof(*s->seqs))) ||
	    !(s->seqdef = calloc(s->n_seqs, sizeof(*s->seqdef)))) {
		free(s->seqs);
		free(s);
		return NULL;
	}
	if (!(s->render = pf_render_new()) || !pf_fmt_init(&s->fmt, s) ||
	    (zstd && !zstd_init(s, fd))) {
		tmx_perfetto_free(s);
		return NULL;
	}
	n = tmx_source_event_class_count(msrc);
	s->rebase = epoch_rebase(msrc, n);
	for (size_t i = 0; i < n; i++)
		if (!class_of(s, tmx_source_event_class(msrc, i),
			      (uint32_t)(PF_GENERIC_FIRST_ID + i))) {
			tmx_perfetto_free(s);
			return NULL;
		}
	for (size_t i = 0; i < tmx_source_logical_trace_count(src); i++) {
		const struct tmx_trace_class *tc = tmx_source_logical_trace(src, i)->cls;

		if (is_kernel(tc)) {
			system_info(s, tc);
			break;
		}
	}
	return s;
}

/*
 * Wall time in the UI: the first event's clock, when it counts from the
 * Unix epoch.  BOOTTIME is the time written (the model's ns less R),
 * REALTIME that plus R: the model's ns, from the epoch.
 */
static void clock_snapshot(struct tmx_perfetto *s, const struct tmx_msg *msg)
{
	const struct tmx_clock_class *cc = msg->stream->cls->default_clock;
	uint64_t ts = pf_ts(s, msg->ns);
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
	pb_uint(&s->pkt, PF_CLOCK_TIMESTAMP, ts + (uint64_t)s->rebase);
	pb_close(&s->pkt, in);
	pb_uint(&s->pkt, PF_CS_PRIMARY_TRACE_CLOCK, PF_CLOCK_BOOTTIME);
	pb_close(&s->pkt, at);
	pf_write_packet(s);
}

static int status(struct tmx_perfetto *s, struct tmx_error *err)
{
	if (s->error)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory (Perfetto output)");
	if (s->out.error || s->zerr)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(s->out.error ? s->out.error : s->zerr));
	return TMX_OK;
}

/*
 * What every message does before its event is written, alone or merged:
 * discarded events mark their CPU's next bundle, the first time gives the
 * clock snapshot.  False for a message that is not an event.
 */
static bool event_ahead(struct tmx_perfetto *s, const struct tmx_msg *msg)
{
	if (msg->kind == TMX_MSG_DISCARDED_EVENTS)
		pf_kdiscarded(s, msg);
	if (msg->kind != TMX_MSG_EVENT)
		return false;
	if (!s->clock_done && msg->has_ts)
		clock_snapshot(s, msg);
	if (msg->has_ts)
		s->last_ns = msg->ns;
	return true;
}

/*
 * An event formatted alone (kernel: bundle.c, user space: useq.c) into
 * f->piece; false when out of memory.  A class that the source did not
 * list (cannot happen) is a kernel piece that emit() skips.
 */
static bool format_event(struct pf_fmt *f, const struct tmx_msg *msg)
{
	const uint32_t *slot = imap_find(&f->sink->class_of, (uint64_t)(uintptr_t)msg->event->cls);
	const struct pf_class *c = slot ? f->sink->classes[*slot] : NULL;

	if (c && c->side == PF_SIDE_USER)
		return pf_uformat(f, c, msg);
	return pf_kformat(f, msg);
}

/* A formatted event written in merged order; false when out of memory. */
static bool emit_event(struct tmx_perfetto *s, const struct tmx_msg *msg, const uint8_t *piece)
{
	if (pf_piece_side(piece) == PF_SIDE_USER)
		return pf_uemit(s, msg, piece);
	return pf_kemit(s, msg, piece);
}

int tmx_perfetto_consume(struct tmx_perfetto *s, const struct tmx_msg *msg, struct tmx_error *err)
{
	if (event_ahead(s, msg) && (!format_event(&s->fmt, msg) || !emit_event(s, msg, s->fmt.piece.p)))
		nomem(s);
	return status(s, err);
}

int tmx_perfetto_finish(struct tmx_perfetto *s, struct tmx_error *err)
{
	int e;

	for (size_t i = 0; i < tmx_source_logical_trace_count(s->src); i++) {
		const struct tmx_trace *t = tmx_source_logical_trace(s->src, i);

		if (is_kernel(t->cls))
			pf_kproc_tasks(s, t, pf_ts(s, s->last_ns));
	}
	pf_write_bundles(s);
	e = outbuf_flush(&s->out);
	if (s->zctx && !e)
		zpush(s, NULL, 0, ZSTD_e_end);
	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return status(s, err);
}

/*
 * The split (src/sink/split.h): a worker formats each event of the stream
 * it reads (kernel: pf_kformat, its FtraceEvent fields and what the
 * merged-order part needs, bundle.c; user space: pf_uformat, the stream's
 * sequence and interning, useq.c), emit() does the rest in merged order
 * (pf_kemit, pf_uemit: bundles, tracks, slice stacks).
 */
struct pf_worker {
	struct pf_fmt f;
	struct outbuf out;
};

/*
 * A source that is one unit for the runner (one XRay log, whatever its
 * threads, or a single stream) runs sequentially: splitting it would only
 * hand each event from one worker to the main thread, for more CPU time
 * and about the same wall time.
 */
bool tmx_perfetto_splits(const struct tmx_perfetto *s)
{
	size_t n = tmx_source_logical_trace_count(s->src);

	if (tmx_source_stream_count(s->src) < 2)
		return false;
	return !(n == 1 && tmx_source_logical_trace(s->src, 0)->cls->format == TMX_FORMAT_XRAY);
}

struct pf_worker *tmx_perfetto_worker_new(const struct tmx_perfetto *s)
{
	struct pf_worker *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	if (!pf_fmt_init(&w->f, s)) {
		free(w);
		return NULL;
	}
	outbuf_init(&w->out, -1);
	return w;
}

void tmx_perfetto_worker_free(struct pf_worker *w)
{
	if (!w)
		return;
	pf_fmt_free(&w->f);
	free(w);
}

struct outbuf *tmx_perfetto_worker_outbuf(struct pf_worker *w)
{
	return &w->out;
}

/* A kernel event: the piece; out of memory: nothing (emit reports it). */
void tmx_perfetto_format(struct pf_worker *w, const struct tmx_msg *msg, uint64_t hole[2])
{
	hole[0] = hole[1] = SINK_NO_POS;
	if (msg->kind == TMX_MSG_EVENT && format_event(&w->f, msg))
		outbuf_write(&w->out, (const char *)w->f.piece.p, w->f.piece.len);
}

int tmx_perfetto_emit(struct tmx_perfetto *s, const struct sink_piece *pc, struct tmx_error *err)
{
	const struct tmx_msg *msg = pc->msg;

	if (!event_ahead(s, msg))
		return status(s, err);
	if (!pc->len || !emit_event(s, msg, (const uint8_t *)pc->text))
		nomem(s);
	return status(s, err);
}
