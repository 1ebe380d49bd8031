/* babeltrace2 2.0's muxer comparison (common_muxing_compare_messages()). */
#include <string.h>

#include "mux/order.h"

/* babeltrace2: SB < PB < EV < DE < PE < DP < SE */
static int type_rank(enum tmx_msg_kind k)
{
	switch (k) {
	case TMX_MSG_STREAM_BEGIN: return 0;
	case TMX_MSG_PACKET_BEGIN: return 1;
	case TMX_MSG_EVENT: return 2;
	case TMX_MSG_DISCARDED_EVENTS: return 3;
	case TMX_MSG_PACKET_END: return 4;
	case TMX_MSG_DISCARDED_PACKETS: return 5;
	case TMX_MSG_STREAM_END: return 6;
	}
	return 7;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_str(const char *a, const char *b)
{
	if (a && b)
		return strcmp(a, b);
	return a ? 1 : b ? -1 : 0;
}

static int compare_events(const struct tmx_event_class *a, const struct tmx_event_class *b)
{
	int r = cmp_u64(a->id, b->id);

	if (r)
		return r;
	r = cmp_str(a->name, b->name);
	if (r)
		return r;
	if (a->log_level != b->log_level) {
		if (a->log_level == TMX_LOG_LEVEL_NONE)
			return 1;
		if (b->log_level == TMX_LOG_LEVEL_NONE)
			return -1;
		return a->log_level < b->log_level ? -1 : 1;
	}
	return cmp_str(a->emf_uri, b->emf_uri);
}

int tmx_mux_compare(const struct tmx_mux_pos *a, const struct tmx_mux_pos *b)
{
	const struct tmx_trace_class *ta, *tb;
	int r;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	ta = a->stream->trace->cls;
	tb = b->stream->trace->cls;
	if (ta->has_uuid != tb->has_uuid)
		return ta->has_uuid ? -1 : 1;
	if (ta->has_uuid) {
		r = memcmp(ta->uuid, tb->uuid, 16);
		if (r)
			return r;
	}
	r = cmp_str(a->stream->trace->name, b->stream->trace->name);
	if (r)
		return r;
	r = cmp_u64(a->stream->cls->id, b->stream->cls->id);
	if (r)
		return r;
	r = cmp_u64(a->stream->id, b->stream->id);
	if (r)
		return r;
	if (a->kind != b->kind)
		return type_rank(a->kind) - type_rank(b->kind);
	if (a->kind == TMX_MSG_EVENT)
		return compare_events(a->ec, b->ec);
	return 0;
}
