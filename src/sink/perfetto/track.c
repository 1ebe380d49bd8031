/*
 * User-space events as Perfetto track events (LTTng-UST, barectf, CTF
 * without kernel semantics, XRay), on one trusted packet sequence (id 1)
 * with interned event names:
 *
 * - a track per thread: a TrackDescriptor with pid and tid (vpid/vtid
 *   contexts, XRay's pid/tid; without a pid context, the trace env's vpid
 *   of LTTng's per-process buffers, else the tid) and the thread's name
 *   (procname context), written before its first event; Perfetto joins it
 *   to the kernel's thread of the same tid.
 *   Events without a thread go on a track per stream, named after it.
 * - XRay function-enter(-arg) / function-exit and -tail-exit, and
 *   LTTng-UST's cyg-profile func_entry / func_exit, as nested slices named
 *   after the function (XRay's `function`, symbolized with --instr-map;
 *   cyg-profile's address in hexadecimal).  An exit closes the innermost
 *   open call of its function and, as llvm-xray does, the calls above it;
 *   an exit of no open call is an instant.  Slices stay LIFO per track.
 * - every other event an instant named after its class, its payload's
 *   leaves (fields.h) as debug annotations, their names interned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sink/perfetto/perfetto_impl.h"
#include "sink/perfetto/pf_proto.h"
#include "tracemux/event.h"

#define TRACK_UUID_BASE 0   /* small uuids: one or two bytes in each event */
#define MAX_DEPTH 65536
#define SEQ_ID 1

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* The first of `names` that the common or specific context has: its scope and member. */
static void find_ctx(const struct tmx_event_class *ec, const char *const *names, uint8_t *scope,
		     int16_t *member)
{
	const struct tmx_field_class *fc[2] = { ec->stream_class->event_common_context,
						ec->specific_context };
	const uint8_t sc[2] = { TMX_SCOPE_COMMON_CONTEXT, TMX_SCOPE_SPECIFIC_CONTEXT };

	*scope = TMX_N_SCOPES;
	for (; *names; names++)
		for (int i = 0; i < 2; i++)
			for (size_t m = 0; fc[i] && m < tmx_fc_member_count(fc[i]); m++)
				if (!strcmp(tmx_fc_member_name(fc[i], m), *names)) {
					*scope = sc[i];
					*member = (int16_t)m;
					return;
				}
}

void pf_user_class_init(struct pf_class *c, const struct tmx_event_class *ec, bool xray)
{
	static const char *const tids[] = { "vtid", "tid", NULL }, *const pids[] = { "vpid", "pid", NULL };
	const char *n = ec->name ? ec->name : "";

	find_ctx(ec, tids, &c->tid_scope, &c->tid_member);
	find_ctx(ec, pids, &c->upid_scope, &c->upid_member);
	{
		/* LTTng per-process buffers name their process in the env */
		const struct tmx_env_entry *e =
			tmx_trace_class_env(ec->stream_class->trace_class, "vpid");

		c->has_env_vpid = e && e->is_int;
		c->env_vpid = c->has_env_vpid ? e->int_value : 0;
	}

	c->ukind = PF_U_INSTANT;
	if (xray) {
		if (!strcmp(n, "function-enter") || !strcmp(n, "function-enter-arg"))
			c->ukind = PF_U_XRAY_ENTER;
		else if (!strcmp(n, "function-exit") || !strcmp(n, "function-tail-exit"))
			c->ukind = PF_U_XRAY_EXIT;
	} else if (strstr(n, "cyg_profile")) {
		if (ends_with(n, ":func_entry"))
			c->ukind = PF_U_CYG_ENTER;
		else if (ends_with(n, ":func_exit"))
			c->ukind = PF_U_CYG_EXIT;
	}
}

void pf_user_free(struct tmx_perfetto *s)
{
	for (size_t i = 0; i < s->n_tracks; i++)
		pq_buf_free(&s->tracks[i].stack);
	free(s->tracks);
	free(s->track_of.keys);
	free(s->track_of.vals);
	free(s->func_iid.keys);
	free(s->func_iid.vals);
}

/* The integer of a context member found by find_ctx. */
static bool ctx_int(const struct tmx_event *ev, uint8_t scope, int16_t member, int64_t *v)
{
	const struct tmx_value *x;
	uint64_t u;

	if (scope == TMX_N_SCOPES || !(x = pf_member(ev->scopes[scope], (size_t)member)))
		return false;
	if (tmx_value_int64(x, v))
		return true;
	if (!tmx_value_uint64(x, &u))
		return false;
	*v = (int64_t)u;
	return true;
}

/* The packet's common head: time and sequence. */
static void packet_head(struct tmx_perfetto *s, uint64_t ts)
{
	pb_uint(&s->pkt, PF_PKT_TIMESTAMP, ts);
	pb_uint(&s->pkt, PF_PKT_TRUSTED_SEQ_ID, SEQ_ID);
}

/* The track of the event's thread (or stream), described when new; NULL when out of memory. */
static struct pf_track *track_of(struct tmx_perfetto *s, const struct pf_class *c,
				 const struct tmx_msg *msg, uint64_t ts)
{
	const struct tmx_event *ev = msg->event;
	int64_t pid = -1, tid = -1;
	uint64_t key;
	bool added, thread;
	uint32_t *slot;
	struct pf_track *t;

	thread = ctx_int(ev, c->tid_scope, c->tid_member, &tid);
	if (thread && !ctx_int(ev, c->upid_scope, c->upid_member, &pid))
		pid = c->has_env_vpid ? c->env_vpid : tid;
	if (thread)   /* Linux pids are below 2^22 */
		key = ((uint64_t)pid & 0xFFFFFFFF) << 32 | ((uint64_t)tid & 0xFFFFFFFF);
	else
		key = 1ull << 63 | (uint64_t)(uintptr_t)msg->stream >> 1;
	if (!(slot = imap_get(&s->track_of, key, 0, &added)))
		return NULL;
	if (!added)
		return &s->tracks[*slot];
	if (!tmx_grow_array((void **)&s->tracks, &s->cap_tracks, s->n_tracks + 1, sizeof(*s->tracks), 16))
		return NULL;
	*slot = (uint32_t)s->n_tracks;
	t = &s->tracks[s->n_tracks++];
	memset(t, 0, sizeof(*t));
	t->uuid = TRACK_UUID_BASE + s->n_tracks;
	/* TrackDescriptor { uuid, thread { pid, tid, thread_name } } or { uuid, name } */
	packet_head(s, ts);
	{
		size_t at = pb_open(&s->pkt, PF_PKT_TRACK_DESCRIPTOR), in;

		pb_uint(&s->pkt, PF_TD_UUID, t->uuid);
		if (thread) {
			const struct tmx_value *pn =
				tmx_event_field_in(ev, TMX_SCOPE_COMMON_CONTEXT, "procname");
			const char *name;
			size_t len = 0;

			if (!pn)
				pn = tmx_event_field_in(ev, TMX_SCOPE_SPECIFIC_CONTEXT, "procname");
			in = pb_open(&s->pkt, PF_TD_THREAD);
			pb_int(&s->pkt, PF_THD_PID, pid);
			pb_int(&s->pkt, PF_THD_TID, tid);
			if (pn && (name = tmx_value_text(pn, &len))) {
				name = pf_utf8(s->render, name, len, &len);
				pb_bytes(&s->pkt, PF_THD_THREAD_NAME, name, len);
			}
			pb_close(&s->pkt, in);
		} else {
			pb_string(&s->pkt, PF_TD_NAME, msg->stream->name ? msg->stream->name : "stream");
		}
		pb_close(&s->pkt, at);
	}
	pf_write_packet(s);
	return t;
}

/* An interned event name (in this packet's interned data when new). */
static uint64_t intern(struct tmx_perfetto *s, size_t *interned_at, uint64_t *iid_slot,
		       const char *name, size_t len)
{
	size_t in;

	if (*iid_slot)
		return *iid_slot;
	*iid_slot = s->next_iid++;
	if (*interned_at == SIZE_MAX)
		*interned_at = pb_open(&s->pkt, PF_PKT_INTERNED_DATA);
	in = pb_open(&s->pkt, PF_ID_EVENT_NAMES);
	pb_uint(&s->pkt, PF_EN_IID, *iid_slot);
	pb_bytes(&s->pkt, PF_EN_NAME, name, len);
	pb_close(&s->pkt, in);
	return *iid_slot;
}

/* The names of a class's leaves, interned all at once at its first instant. */
static void intern_leaves(struct tmx_perfetto *s, size_t *interned_at, struct pf_class *c)
{
	if (c->leaf_iid || !c->leaves.n)
		return;
	c->leaf_iid = s->next_da_iid + 1;
	if (*interned_at == SIZE_MAX)
		*interned_at = pb_open(&s->pkt, PF_PKT_INTERNED_DATA);
	for (size_t i = 0; i < c->leaves.n; i++) {
		size_t in = pb_open(&s->pkt, PF_ID_DEBUG_ANNOTATION_NAMES);

		pb_uint(&s->pkt, PF_EN_IID, ++s->next_da_iid);
		pb_string(&s->pkt, PF_EN_NAME, c->leaves.leaf[i].name);
		pb_close(&s->pkt, in);
	}
}

struct ann_ctx {
	struct pq_buf *b;
	uint64_t first_iid;
};

static void put_annotation(void *ctx, const struct pf_leaf *leaf, const struct pf_leaf_value *v)
{
	struct ann_ctx *a = ctx;
	struct pq_buf *b = a->b;
	size_t at = pb_open(b, PF_TE_DEBUG_ANNOTATIONS);

	pb_uint(b, PF_DA_NAME_IID, a->first_iid + v->index);
	switch (leaf->type) {
	case PF_LEAF_INT:
		pb_int(b, PF_DA_INT, v->i);
		break;
	case PF_LEAF_UINT:
		pb_uint(b, PF_DA_UINT, v->u);
		break;
	case PF_LEAF_DOUBLE:
		pb_double(b, PF_DA_DOUBLE, v->d);
		break;
	default:
		pb_bytes(b, PF_DA_STRING, v->s, v->len);
		break;
	}
	pb_close(b, at);
}

/* The function of an entry or exit: its key and name. */
static bool function_of(const struct pf_class *c, const struct tmx_event *ev,
			struct pf_render *s_render, uint64_t *key, char *buf, const char **name,
			size_t *len)
{
	const struct tmx_value *v;
	uint64_t id;

	if (c->ukind == PF_U_XRAY_ENTER || c->ukind == PF_U_XRAY_EXIT) {
		v = tmx_event_field_in(ev, TMX_SCOPE_PAYLOAD, "func_id");
		if (!v || !tmx_value_uint64(v, &id)) {
			int64_t sid;
			if (!v || !tmx_value_int64(v, &sid))
				return false;
			id = (uint64_t)sid;
		}
		*key = id;
		v = tmx_event_field_in(ev, TMX_SCOPE_PAYLOAD, "function");
		*name = v ? tmx_value_text(v, len) : NULL;
		if (*name)
			*name = pf_utf8(s_render, *name, *len, len);
		if (!*name)
			*len = (size_t)snprintf(buf, 32, "%llu", (unsigned long long)id), *name = buf;
		return true;
	}
	v = tmx_event_field_in(ev, TMX_SCOPE_PAYLOAD, "addr");
	if (!v || !tmx_value_uint64(v, &id))
		return false;
	*key = id;
	*len = (size_t)snprintf(buf, 32, "0x%llx", (unsigned long long)id);
	*name = buf;
	return true;
}

void pf_user_event(struct tmx_perfetto *s, struct pf_class *c, const struct tmx_msg *msg)
{
	const struct tmx_event *ev = msg->event;
	uint64_t ts = msg->ns > 0 ? (uint64_t)msg->ns : 0, key = 0, iid = 0;
	size_t interned = SIZE_MAX, at, len = 0;
	struct pf_track *t = track_of(s, c, msg, ts);
	bool enter = c->ukind == PF_U_XRAY_ENTER || c->ukind == PF_U_CYG_ENTER;
	bool func = c->ukind != PF_U_INSTANT;
	const char *fname = NULL;
	unsigned type = PF_TE_INSTANT, n_end = 0;
	char buf[32];

	if (!t) {
		s->error = TMX_ERR_NOMEM;
		return;
	}
	if (func && !function_of(c, ev, s->render, &key, buf, &fname, &len))
		func = false;
	if (func && enter) {
		if (t->stack.len / 8 < MAX_DEPTH) {
			type = PF_TE_SLICE_BEGIN;
			pq_buf_le(&t->stack, key, 8);
		}
	} else if (func) {
		/* the innermost open call of that function, and those above it */
		size_t d = t->stack.len / 8;

		while (d && pq_le_at(t->stack.p + 8 * (d - 1), 8) != key)
			d--;
		if (d) {
			n_end = (unsigned)(t->stack.len / 8 - d + 1);
			t->stack.len = 8 * (d - 1);
			type = PF_TE_SLICE_END;
		}
	}
	packet_head(s, ts);
	pb_uint(&s->pkt, PF_PKT_SEQUENCE_FLAGS,
		PF_SEQ_NEEDS_INCREMENTAL_STATE |
		(s->seq_started ? 0 : PF_SEQ_INCREMENTAL_STATE_CLEARED));
	s->seq_started = true;
	if (type == PF_TE_SLICE_BEGIN) {
		bool added;
		uint32_t *slot = imap_get(&s->func_iid, key, 0, &added);
		uint64_t iid64 = slot && !added ? *slot : 0;

		if (!slot) {
			s->error = TMX_ERR_NOMEM;
			s->pkt.len = 0;
			return;
		}
		iid = intern(s, &interned, &iid64, fname, len);
		*slot = (uint32_t)iid;
	} else if (type == PF_TE_INSTANT) {
		const char *n = c->ec->name ? c->ec->name : "<unknown>";

		iid = c->name_iid ? c->name_iid : intern(s, &interned, &c->name_iid, n, strlen(n));
		intern_leaves(s, &interned, c);
	}
	if (interned != SIZE_MAX)
		pb_close(&s->pkt, interned);
	/* the calls above the one that returns end first, at the same time */
	for (unsigned i = 1; i < n_end; i++) {
		at = pb_open(&s->pkt, PF_PKT_TRACK_EVENT);
		pb_uint(&s->pkt, PF_TE_TYPE, PF_TE_SLICE_END);
		pb_uint(&s->pkt, PF_TE_TRACK_UUID, t->uuid);
		pb_close(&s->pkt, at);
		pf_write_packet(s);
		packet_head(s, ts);
		pb_uint(&s->pkt, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_NEEDS_INCREMENTAL_STATE);
	}
	at = pb_open(&s->pkt, PF_PKT_TRACK_EVENT);
	pb_uint(&s->pkt, PF_TE_TYPE, type);
	pb_uint(&s->pkt, PF_TE_TRACK_UUID, t->uuid);
	if (iid)
		pb_uint(&s->pkt, PF_TE_NAME_IID, iid);
	if (type == PF_TE_INSTANT) {
		struct ann_ctx a = { &s->pkt, c->leaf_iid };

		pf_leaves_walk(&c->leaves, ev->scopes[TMX_SCOPE_PAYLOAD], s->render,
			       put_annotation, &a);
	}
	pb_close(&s->pkt, at);
	pf_write_packet(s);
}
