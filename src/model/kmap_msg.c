/*
 * The kernel event mapping's messages (kmap.h, kmap.c): each input message
 * as a message of the mapped trace, its event's payload filled by the
 * rules of its mapped class from the input's values (found by slot, made
 * once per class, or by name), in a value array reused for every event.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "model/kmap_impl.h"
#include "tracemux/event.h"

static struct kstream *stream_of(struct tmx_kmap *m, const struct tmx_stream *in)
{
	struct kstream *s;
	struct ktrace *t;

	size_t i;

	if (m->last && m->last->in == in)
		return m->last;
	/* by the source's dense stream number (a CPU's stream, whatever the CPU count) */
	i = tmx_source_stream_index(m->src, in);
	if (i >= tmx_source_stream_count(m->src))
		return NULL;   /* not a stream of the source */
	if (i < m->n_streams && m->streams[i])
		return m->last = m->streams[i];
	if (i >= m->n_streams) {
		/* Zeroed when grown, and never written past n_streams: NULL until made. */
		if (!tmx_grow_zeroed((void **)&m->streams, &m->cap_streams, i + 1, sizeof(*m->streams),
				     16))
			return NULL;
		m->n_streams = i + 1;
	}
	if (!(t = kmap_trace_of(m, in->trace)) || !(s = calloc(1, sizeof(*s))))
		return NULL;
	s->in = in;
	s->stream = *in;
	s->stream.cls = &t->sc;
	s->stream.trace = &t->trace;
	m->streams[i] = s;
	return m->last = s;
}

static const struct tmx_packet *packet_of(struct kstream *s, const struct tmx_packet *in)
{
	if (!in)
		return NULL;
	if (s->in_packet != in || s->in_seq != in->seq) {
		s->packet = *in;
		s->packet.stream = &s->stream;
		s->in_packet = in;
		s->in_seq = in->seq;
	}
	return &s->packet;
}

/* Member `i` of the payload (its values in pre-order). */
static const struct tmx_value *payload_member(const struct tmx_event *ev, int32_t i)
{
	const struct tmx_value *base = ev->scopes[TMX_SCOPE_PAYLOAD];
	size_t at = 1;

	if (!base || i < 0 || (uint32_t)i >= base[0].n_members)
		return NULL;
	for (int32_t k = 0; k < i; k++)
		at = tmx_value_skip(base, at);
	return &base[at];
}

static const struct tmx_value *payload_field(const struct tmx_event *ev, const char *name)
{
	return name ? tmx_event_field_in(ev, TMX_SCOPE_PAYLOAD, name) : NULL;
}

static int64_t int_of(const struct tmx_value *v)
{
	int64_t x = 0;
	uint64_t u;

	if (v && !tmx_value_int64(v, &x) && tmx_value_uint64(v, &u))
		x = (int64_t)u;
	return x;
}

/*
 * lttng-modules' rwbs bit flags (RWBS_FLAG_*) of the letters the kernel's
 * blk_fill_rwbs() writes: an optional F (preflush), the operation (W, D
 * and DE, F, R, N), then F (FUA), A, S, M.
 */
static uint64_t rwbs_bits(const struct tmx_value *v)
{
	enum { WRITE = 1, DISCARD = 2, READ = 4, RAHEAD = 8, SYNC = 32, META = 64, SECURE = 128,
	       FLUSH = 256, FUA = 512, PREFLUSH = 1024 };
	size_t len = 0, i = 0;
	const char *s = v ? tmx_value_text(v, &len) : NULL;
	uint64_t bits = 0;

	if (!s)
		return 0;
	len = tmx_value_text_len(v);
	if (len > 1 && s[0] == 'F' && strchr("WDRFN", s[1])) {
		bits |= PREFLUSH;
		i = 1;
	}
	if (i < len) {
		switch (s[i++]) {
		case 'W': bits |= WRITE; break;
		case 'D':
			bits |= DISCARD;
			if (i < len && s[i] == 'E') {
				bits |= SECURE;
				i++;
			}
			break;
		case 'F': bits |= FLUSH; break;
		case 'R': bits |= READ; break;
		default: break;
		}
	}
	for (; i < len; i++)
		bits |= s[i] == 'F' ? FUA : s[i] == 'A' ? RAHEAD : s[i] == 'S' ? SYNC
			: s[i] == 'M' ? META : 0;
	return bits;
}

static bool reserve(struct tmx_kmap *m, size_t n)
{
	return tmx_grow_array((void **)&m->vals, &m->cap_vals, n, sizeof(*m->vals), 64);
}

static const struct tmx_value *arg_values(const struct tmx_event *ev, const struct kin *kin,
					  size_t *n)
{
	const struct tmx_value *v = kin->args_slot >= 0 && ev->scopes[TMX_SCOPE_PAYLOAD]
		? &ev->scopes[TMX_SCOPE_PAYLOAD][kin->args_slot] : payload_field(ev, "args");

	*n = v ? tmx_value_length(v) : 0;
	return v;
}

/* The payload of mapped class `k` from input event `ev` (raw_syscalls: `id`). */
static const struct tmx_value *source(const struct kfield *f, const struct kin *kin,
				      const struct tmx_event *ev)
{
	int32_t slot = f->slot == SLOT_RAW_RET ? kin->ret_slot : f->slot;

	if (slot >= 0 && ev->scopes[TMX_SCOPE_PAYLOAD])
		return &ev->scopes[TMX_SCOPE_PAYLOAD][slot];
	return payload_field(ev, f->src);
}

static bool fill(struct tmx_kmap *m, const struct kclass *k, const struct kin *kin,
		 const struct tmx_event *ev, int64_t id)
{
	size_t n = 1;

	if (!reserve(m, 1 + k->n))
		return false;
	m->vals[0] = (struct tmx_value){ .fc = k->payload, .n_members = (uint32_t)k->n };
	for (size_t i = 0; i < k->n; i++) {
		const struct kfield *f = &k->f[i];
		const struct tmx_value *v = NULL;
		struct tmx_value out = { .fc = f->fc };
		size_t na;
		if (!reserve(m, n + 1))   /* copies before may have used the room made above */
			return false;
		switch ((enum kop)f->op) {
		case OP_COPY: {
			size_t sub;
			const struct tmx_value *base = ev->scopes[TMX_SCOPE_PAYLOAD];
			v = payload_member(ev, f->member);
			if (!v || !base) {
				/* absent in this event: a zero of its class (an empty subtree) */
				if (!reserve(m, n + 1))
					return false;
				m->vals[n++] = out;
				continue;
			}
			sub = tmx_value_skip(base, (size_t)(v - base)) - (size_t)(v - base);
			if (!reserve(m, n + sub))
				return false;
			memcpy(&m->vals[n], v, sub * sizeof(*v));
			n += sub;
			continue;
		}
		case OP_INT:
			out.s = int_of(source(f, kin, ev));
			break;
		case OP_PRIO:
			out.s = int_of(source(f, kin, ev)) - 100;
			break;
		case OP_TEXT: {
			size_t len = 0;
			const char *s = (v = source(f, kin, ev)) ? tmx_value_text(v, &len) : NULL;
			out.str.ptr = s ? s : "";
			out.str.len = s ? tmx_value_text_len(v) : 0;
			break;
		}
		case OP_PID:
			out.s = int_of(tmx_event_field_in(ev, TMX_SCOPE_COMMON_CONTEXT, "common_pid"));
			break;
		case OP_ARG:
			v = arg_values(ev, kin, &na);
			out.u = v && f->arg < na ? (uint64_t)int_of(tmx_value_element(v, f->arg)) : 0;
			if (f->fc == m->s32)   /* the low 32 bits of the register, as the C argument */
				out.s = (int32_t)(uint32_t)out.u;
			break;
		case OP_ID:
			out.s = id;
			break;
		case OP_EMPTY:
			out.str.ptr = "";
			out.str.len = 0;
			break;
		case OP_RWBS:
			out.u = rwbs_bits(source(f, kin, ev));
			break;
		case OP_ARGS:
			if (!reserve(m, n + 7))
				return false;
			v = arg_values(ev, kin, &na);
			out.count = 6;
			m->vals[n++] = out;
			for (size_t a = 0; a < 6; a++)
				m->vals[n++] = (struct tmx_value){
					.fc = m->u64,
					.u = v && a < na ? (uint64_t)int_of(tmx_value_element(v, a)) : 0,
				};
			continue;
		}
		m->vals[n++] = out;
	}
	return true;
}

bool tmx_kmap_msg(struct tmx_kmap *m, const struct tmx_msg *in, const struct tmx_msg **out)
{
	struct kstream *s = in->stream ? stream_of(m, in->stream) : NULL;
	const struct kclass *k;
	const struct kin *kin;
	struct ktrace *t;
	size_t ci, slot;
	int64_t id = 0;

	*out = NULL;
	if (in->stream && !s)
		return false;
	m->msg = *in;
	m->msg.stream = s ? &s->stream : NULL;
	m->msg.packet = s ? packet_of(s, in->packet) : NULL;
	m->msg.event = NULL;
	if (in->kind != TMX_MSG_EVENT) {
		*out = &m->msg;
		return true;
	}
	slot = (((uintptr_t)in->event->cls >> 4) ^ ((uintptr_t)in->event->cls >> 9)) & 15;
	if (m->cache[slot].ec == in->event->cls) {
		kin = m->cache[slot].kin;
	} else {
		ci = tmx_source_event_class_index(m->src, in->event->cls);
		if (ci >= m->n_in || !(kin = &m->in[ci])->bound)
			return true;
		m->cache[slot].ec = in->event->cls;
		m->cache[slot].kin = kin;
	}
	k = kin->out;
	if (kin->special) {
		t = kmap_trace_of(m, in->stream->trace);
		id = int_of(kin->id_slot >= 0 && in->event->scopes[TMX_SCOPE_PAYLOAD]
				    ? &in->event->scopes[TMX_SCOPE_PAYLOAD][kin->id_slot]
				    : payload_field(in->event, "id"));
		if (id >= 0 && (uint64_t)id < m->n_nr && t->entry_nr && t->entry_nr[id])
			k = kin->special == KS_RAW_ENTER ? t->entry_nr[id] : t->exit_nr[id];
		else
			k = kin->special == KS_RAW_ENTER ? t->entry_unknown : t->exit_unknown;
	}
	if (!k)
		return true;
	if (!fill(m, k, kin, in->event, id))
		return false;
	m->ev.cls = &k->ec;
	m->ev.packet = m->msg.packet;
	m->ev.scopes[TMX_SCOPE_PACKET_CONTEXT] = in->event->scopes[TMX_SCOPE_PACKET_CONTEXT];
	m->ev.scopes[TMX_SCOPE_PAYLOAD] = m->vals;
	m->msg.event = &m->ev;
	*out = &m->msg;
	return true;
}

bool tmx_kmap_statedump(struct tmx_kmap *m, const struct tmx_msg *in, size_t i,
			const struct tmx_msg **out)
{
	struct ktrace *t = in->kind == TMX_MSG_EVENT && in->stream
		? kmap_trace_of(m, in->stream->trace) : NULL;
	const struct tmx_field_class *s32 = m->s32;
	struct kstream *s;
	const char *comm, *nul;
	size_t len;
	int64_t tid;

	*out = NULL;
	if (!t || t->dumped)
		return true;
	if (!t->statedump || !tmx_trace_task(t->in, i, &tid, &comm, &len)) {
		t->dumped = true;
		return true;
	}
	if (!(s = stream_of(m, in->stream)) || !reserve(m, 9))
		return false;
	if (len > 16)
		len = 16;
	if ((nul = memchr(comm, '\0', len)))
		len = (size_t)(nul - comm);
	m->vals[0] = (struct tmx_value){ .fc = t->statedump->payload, .n_members = 8 };
	m->vals[1] = (struct tmx_value){ .fc = s32, .s = tid };
	m->vals[2] = (struct tmx_value){ .fc = s32, .s = tid };        /* pid: each task its own process */
	m->vals[3] = (struct tmx_value){ .fc = s32, .s = 0 };          /* ppid: unknown */
	m->vals[4] = (struct tmx_value){ .fc = m->comm, .str = { comm, len } };
	m->vals[5] = (struct tmx_value){ .fc = s32, .s = 0 };          /* type */
	m->vals[6] = (struct tmx_value){ .fc = s32, .s = 5 };          /* mode: LTTNG_MODE_UNKNOWN */
	m->vals[7] = (struct tmx_value){ .fc = s32, .s = 1 };          /* submode: LTTNG_UNKNOWN */
	m->vals[8] = (struct tmx_value){ .fc = s32, .s = 0 };          /* status: LTTNG_UNNAMED */
	m->msg = *in;
	m->msg.stream = &s->stream;
	m->msg.packet = packet_of(s, in->packet);
	m->ev = (struct tmx_event){ 0 };
	m->ev.cls = &t->statedump->ec;
	m->ev.packet = m->msg.packet;
	m->ev.scopes[TMX_SCOPE_PACKET_CONTEXT] = in->event ? in->event->scopes[TMX_SCOPE_PACKET_CONTEXT]
						       : NULL;
	m->ev.scopes[TMX_SCOPE_PAYLOAD] = m->vals;
	m->msg.event = &m->ev;
	*out = &m->msg;
	return true;
}
