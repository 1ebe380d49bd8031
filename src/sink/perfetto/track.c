/*
 * User-space events as Perfetto track events (LTTng-UST, barectf, CTF
 * without kernel semantics, XRay), written in merged order from the pieces
 * that useq.c formats per stream (each stream its own trusted packet
 * sequence, with its interning):
 *
 * - a track per thread: a TrackDescriptor with pid and tid (vpid/vtid
 *   contexts, XRay's pid/tid; without a pid context, the trace env's vpid
 *   of LTTng's per-process buffers, else the tid) and the thread's name
 *   (procname context), written before its first event; Perfetto joins it
 *   to the kernel's thread of the same tid.  Tracks are numbered in merged
 *   order, whichever stream (CPU) the thread's events come from.
 *   Events without a thread go on a track per stream, named after it.
 * - XRay function-enter(-arg) / function-exit and -tail-exit, and
 *   LTTng-UST's cyg-profile func_entry / func_exit, as nested slices named
 *   after the function (XRay's `function`, symbolized with --instr-map;
 *   cyg-profile's address in hexadecimal).  An exit closes the innermost
 *   open call of its function and, as llvm-xray does, the calls above it;
 *   an exit of no open call is an instant.  Slices stay LIFO per track:
 *   the stacks are per thread, here, since a thread's calls can be on
 *   several streams.
 * - every other event an instant named after its class, its payload's
 *   leaves (fields.h) as fields of its class's TrackEvent extension
 *   (uext.c: its ExtensionDescriptor packet is written here, before the
 *   class's first event) and debug annotations (interned text).
 *
 * Packets carry their time and sequence id; the first packet of a sequence
 * (and the first after useq.c cleared its state) says
 * SEQ_INCREMENTAL_STATE_CLEARED, and its interned data comes with the
 * packet of the event that first uses it.  A sequence's usual track is its
 * TracePacketDefaults' track_event_defaults.track_uuid (set in the packet
 * of an event, parsed by the importer before the event; cleared with the
 * incremental state, so set again after), and events on that track leave
 * their track_uuid out (names_track).
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sink/perfetto/perfetto_impl.h"
#include "sink/perfetto/pf_proto.h"

#define MAX_DEPTH 65536

void pf_user_free(struct tmx_perfetto *s)
{
	for (size_t i = 0; i < s->n_tracks; i++)
		tmx_buf_free(&s->tracks[i].stack);
	free(s->tracks);
	imap_free(&s->track_of);
	for (size_t i = 0; i < s->n_seqs; i++)
		pf_seq_free(s->seqs[i]);
	free(s->seqs);
	free(s->seqdef);
}

/* The packet's common head: time, sequence and, on its first packet, the state cleared. */
static void packet_head(struct tmx_perfetto *s, uint64_t ts, struct pf_upiece *h)
{
	pb_uint(&s->pkt, PF_PKT_TIMESTAMP, ts);
	pb_uint(&s->pkt, PF_PKT_TRUSTED_SEQ_ID, h->seq_id);
	if (h->flags & PU_CLEARED) {
		pb_uint(&s->pkt, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED);
		h->flags &= (uint8_t)~PU_CLEARED;
	}
}

/* The track of the event's thread (or stream), described when new; NULL when out of memory. */
static struct pf_track *track_of(struct tmx_perfetto *s, struct pf_upiece *h, const char *name,
				 const struct tmx_msg *msg, uint64_t ts)
{
	bool thread = h->flags & PU_THREAD, added;
	uint64_t key = thread ? h->key : 1ull << 63 | (uint64_t)(uintptr_t)msg->stream >> 1;
	uint32_t *slot = imap_get(&s->track_of, key, 0, &added);
	struct pf_track *t;
	size_t at, in;

	if (!slot)
		return NULL;
	if (!added)
		return &s->tracks[*slot];
	if (!tmx_grow_array((void **)&s->tracks, &s->cap_tracks, s->n_tracks + 1, sizeof(*s->tracks), 16))
		return NULL;
	*slot = (uint32_t)s->n_tracks;
	t = &s->tracks[s->n_tracks++];
	memset(t, 0, sizeof(*t));
	t->uuid = s->n_tracks;   /* small uuids: one or two bytes in each event */
	/* TrackDescriptor { uuid, thread { pid, tid, thread_name } } or { uuid, name } */
	packet_head(s, ts, h);
	at = pb_open(&s->pkt, PF_PKT_TRACK_DESCRIPTOR);
	pb_uint(&s->pkt, PF_TD_UUID, t->uuid);
	if (thread) {
		in = pb_open(&s->pkt, PF_TD_THREAD);
		pb_int(&s->pkt, PF_THD_PID, h->pid);
		pb_int(&s->pkt, PF_THD_TID, h->tid);
		if (h->flags & PU_NAMED)
			pb_bytes(&s->pkt, PF_THD_THREAD_NAME, name, h->name_len);
		pb_close(&s->pkt, in);
	} else {
		pb_string(&s->pkt, PF_TD_NAME, msg->stream->name ? msg->stream->name : "stream");
	}
	pb_close(&s->pkt, at);
	pf_write_packet(s);
	return t;
}

/* TracePacketDefaults { track_event_defaults { track_uuid } } at p (room for 16 bytes). */
static uint8_t *put_defaults(uint8_t *p, uint64_t uuid)
{
	size_t n = pb_varint_size(uuid);

	p = pb_put_varint(p, PF_PKT_TRACE_PACKET_DEFAULTS << 3 | PB_LEN);
	*p++ = (uint8_t)(n + 3);
	*p++ = PF_TPD_TRACK_EVENT_DEFAULTS << 3 | PB_LEN;
	*p++ = (uint8_t)(n + 1);
	*p++ = PF_TED_TRACK_UUID << 3 | PB_VARINT;
	return pb_put_varint(p, uuid);
}

/*
 * Whether an event of sequence `sd` on track `uuid` names its track
 * (track_uuid), and whether its packet makes that track the sequence's
 * default first (*set_def).  The default follows the sequence's track once
 * two events in a row are on it, so that a stream that is one thread (the
 * common case: LTTng per-CPU buffers of a pinned thread, XRay) names its
 * track once, and one whose threads alternate does not rewrite it each time.
 */
static bool names_track(struct pf_seqdef *sd, uint64_t uuid, bool *set_def)
{
	bool last = sd->last == uuid;

	sd->last = uuid;
	*set_def = false;
	if (uuid == sd->def)
		return false;
	if (sd->def && !last)
		return true;
	sd->def = uuid;
	*set_def = true;
	return false;
}

/*
 * The event's packet, written straight out (its body is not copied into
 * s->pkt), in as few writes as its parts allow:
 * TracePacket { timestamp, trusted_packet_sequence_id, sequence_flags,
 * trace_packet_defaults, interned_data, track_event { type, track_uuid, body } }
 * (trace_packet_defaults when `def_uuid` is not 0, track_uuid when `uuid` is not 0).
 */
static void write_event(struct tmx_perfetto *s, const struct pf_upiece *h, uint64_t ts,
			unsigned type, uint64_t def_uuid, uint64_t uuid, const uint8_t *interned,
			const uint8_t *body, size_t blen)
{
	/* head: room for Trace.packet's tag and length before the fields at head + 12 */
	uint8_t head[96], te[24], *f = head + 12, *p = f, *e = te, *start;
	size_t te_len, pkt_len, n;

	*e++ = PF_TE_TYPE << 3 | PB_VARINT;
	*e++ = (uint8_t)type;
	if (uuid) {
		*e++ = PF_TE_TRACK_UUID << 3 | PB_VARINT;
		e = pb_put_varint(e, uuid);
	}
	te_len = (size_t)(e - te) + blen;
	*p++ = PF_PKT_TIMESTAMP << 3 | PB_VARINT;
	p = pb_put_varint(p, ts);
	*p++ = PF_PKT_TRUSTED_SEQ_ID << 3 | PB_VARINT;
	p = pb_put_varint(p, h->seq_id);
	if (h->flags & PU_CLEARED) {
		*p++ = PF_PKT_SEQUENCE_FLAGS << 3 | PB_VARINT;
		*p++ = PF_SEQ_INCREMENTAL_STATE_CLEARED;
	}
	if (def_uuid)
		p = put_defaults(p, def_uuid);
	pkt_len = (size_t)(p - f) + 1 + pb_varint_size(te_len) + te_len;
	if (h->interned_len) {
		*p++ = PF_PKT_INTERNED_DATA << 3 | PB_LEN;
		p = pb_put_varint(p, h->interned_len);
		pkt_len += 1 + pb_varint_size(h->interned_len) + h->interned_len;
	}
	n = pb_varint_size(pkt_len);
	start = f - 1 - n;
	start[0] = PF_TRACE_PACKET << 3 | PB_LEN;
	pb_put_varint(start + 1, pkt_len);
	if (h->interned_len) {
		outbuf_write(&s->out, (const char *)start, (size_t)(p - start));
		outbuf_write(&s->out, (const char *)interned, h->interned_len);
		p = start = head;
	}
	*p++ = PF_PKT_TRACK_EVENT << 3 | PB_LEN;
	p = pb_put_varint(p, te_len);
	memcpy(p, te, (size_t)(e - te));
	p += e - te;
	outbuf_write(&s->out, (const char *)start, (size_t)(p - start));
	outbuf_write(&s->out, (const char *)body, blen);
}

bool pf_uemit(struct tmx_perfetto *s, const struct tmx_msg *msg, const uint8_t *piece)
{
	struct pf_upiece h;
	const uint8_t *body = piece + sizeof(h), *interned, *name;
	uint64_t ts = pf_ts(s, msg->ns);
	struct pf_track *t;
	unsigned type = PF_TE_INSTANT, n_end = 0;
	struct pf_seqdef *sd;
	bool set_def, named;
	size_t at;

	memcpy(&h, piece, sizeof(h));
	/* before its first use */
	if ((h.flags & PU_EXT) && !s->classes[h.class_num]->ext_described)
		pf_uext_describe(s, s->classes[h.class_num], false);
	if ((h.flags & PU_EXT_POS) && !s->classes[h.class_num]->ext_pos_described)
		pf_uext_describe(s, s->classes[h.class_num], true);
	interned = body + h.body_len;
	name = interned + h.interned_len;
	sd = &s->seqdef[h.seq_id - 1];
	if (h.flags & PU_CLEARED)
		sd->def = sd->last = 0;   /* the importer drops the defaults with the state */
	if (!(t = track_of(s, &h, (const char *)name, msg, ts)))
		return false;
	if (h.ukind == PF_U_XRAY_ENTER || h.ukind == PF_U_CYG_ENTER) {
		if (t->stack.len / 8 < MAX_DEPTH) {
			type = PF_TE_SLICE_BEGIN;
			tmx_buf_le(&t->stack, h.func, 8);
			if (t->stack.oom)
				return false;
		}
	} else if (h.ukind != PF_U_INSTANT) {
		/* the innermost open call of that function, and those above it */
		size_t d = t->stack.len / 8;

		while (d && tmx_le_at(t->stack.p + 8 * (d - 1), 8) != h.func)
			d--;
		if (d) {
			n_end = (unsigned)(t->stack.len / 8 - d + 1);
			t->stack.len = 8 * (d - 1);
			type = PF_TE_SLICE_END;
		}
	}
	named = names_track(sd, t->uuid, &set_def);
	/* the calls above the one that returns end first, at the same time */
	for (unsigned i = 1; i < n_end; i++) {
		packet_head(s, ts, &h);
		if (set_def && tmx_buf_reserve(&s->pkt, 16)) {
			s->pkt.len = (size_t)(put_defaults(s->pkt.p + s->pkt.len, t->uuid) - s->pkt.p);
			set_def = false;
		}
		at = pb_open(&s->pkt, PF_PKT_TRACK_EVENT);
		pb_uint(&s->pkt, PF_TE_TYPE, PF_TE_SLICE_END);
		if (named)
			pb_uint(&s->pkt, PF_TE_TRACK_UUID, t->uuid);
		pb_close(&s->pkt, at);
		pf_write_packet(s);
	}
	write_event(s, &h, ts, type, set_def ? t->uuid : 0, named ? t->uuid : 0, interned, body,
		    type == PF_TE_SLICE_END ? 0 : h.body_len);
	return true;
}
