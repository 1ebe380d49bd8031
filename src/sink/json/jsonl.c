/*
 * JSON Lines: one JSON object per event and per discarded-events/packets
 * record, with every field in its real type.  Keys always come in the same
 * order; integers are printed exactly (64-bit values included); text is
 * always valid UTF-8: a byte that is not part of valid UTF-8 is written as
 * U+FFFD (src/sink/json_string.h, the policy of every JSON output).
 *
 *   {"type":"event","name":"sched:switch","id":0,"trace":"host","stream":
 *    {"class_id":0,"id":0,"name":"/path"},"ts_ns":123,"cycles":456,
 *    "packet_context":{...},"common_context":{...},"specific_context":{...},
 *    "payload":{...}}
 *   {"type":"discarded_events","trace":...,"stream":{...},"count":5,
 *    "begin_ns":...,"end_ns":...}
 *
 * Field values are written by jsonval.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sink/json/jsonl.h"
#include "sink/jsonval.h"
#include "sink/outbuf.h"
#include "sink/split.h"
#include "common/errors.h"

/*
 * A stream's `,"trace":...,"stream":{...}` is the same for each of its
 * messages: formatted once (direct-mapped by the stream's address).
 */
#define STREAM_CACHE_SIZE 64

struct stream_cache {
	const struct tmx_stream *stream;
	size_t len;
	char text[448];
};

/*
 * A packet's `,"packet_context":{...}` is the same for each of its events:
 * formatted once (direct-mapped by the packet's address; `seq` tells a
 * packet object reused for a later packet).
 */
#define CONTEXT_CACHE_SIZE 64

struct context_cache {
	const struct tmx_packet *packet;
	uint64_t seq;
	size_t len;
	char text[512];
};

struct tmx_jsonl {
	struct stream_cache streams[STREAM_CACHE_SIZE];
	struct context_cache contexts[CONTEXT_CACHE_SIZE];
	struct json_keys *keys;
	struct outbuf out;
};

struct tmx_jsonl *tmx_jsonl_new(int fd)
{
	struct tmx_jsonl *j = malloc(sizeof(*j));

	if (j && !(j->keys = json_keys_new())) {
		free(j);
		j = NULL;
	}
	if (j) {
		for (size_t i = 0; i < STREAM_CACHE_SIZE; i++)
			j->streams[i].stream = NULL;
		for (size_t i = 0; i < CONTEXT_CACHE_SIZE; i++)
			j->contexts[i].packet = NULL;
		outbuf_init(&j->out, fd);
	}
	return j;
}

void tmx_jsonl_free(struct tmx_jsonl *j)
{
	if (j)
		json_keys_free(j->keys);
	free(j);
}

int tmx_jsonl_flush(struct tmx_jsonl *j, struct tmx_error *err)
{
	int e = outbuf_flush(&j->out);

	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return TMX_OK;
}

static void put_stream(struct outbuf *b, const struct tmx_stream *s)
{
	outbuf_puts(b, ",\"trace\":");
	json_string(b, s->trace->name, strlen(s->trace->name));
	outbuf_puts(b, ",\"stream\":{\"class_id\":");
	outbuf_u64(b, s->cls->id, 0);
	outbuf_puts(b, ",\"id\":");
	outbuf_u64(b, s->id, 0);
	outbuf_puts(b, ",\"name\":");
	json_string(b, s->name, strlen(s->name));
	outbuf_putc(b, '}');
}

/* put_stream() through the cache: copied when it was formatted before. */
static void put_stream_cached(struct tmx_jsonl *j, const struct tmx_stream *s)
{
	struct stream_cache *c = &j->streams[((uintptr_t)s >> 4) % STREAM_CACHE_SIZE];
	size_t before;

	if (c->stream == s) {
		outbuf_write(&j->out, c->text, c->len);
		return;
	}
	before = j->out.len;
	put_stream(&j->out, s);
	/* Cached unless the buffer was flushed meanwhile or it is too long. */
	if (j->out.len >= before && j->out.len - before <= sizeof(c->text)) {
		c->stream = s;
		c->len = j->out.len - before;
		memcpy(c->text, j->out.data + before, c->len);
	}
}

/* `key` is the scope's `,"name":`. */
static void put_scope(struct tmx_jsonl *j, const char *key, const struct tmx_value *vals)
{
	if (!vals)
		return;
	outbuf_puts(&j->out, key);
	json_value(&j->out, j->keys, vals, 0);
}

/* The packet context scope through the cache: copied when it was formatted before. */
static void put_packet_context(struct tmx_jsonl *j, const struct tmx_event *e)
{
	const struct tmx_packet *pk = e->packet;
	struct context_cache *c = &j->contexts[((uintptr_t)pk >> 4) % CONTEXT_CACHE_SIZE];
	size_t before;

	if (pk && c->packet == pk && c->seq == pk->seq) {
		outbuf_write(&j->out, c->text, c->len);
		return;
	}
	before = j->out.len;
	put_scope(j, ",\"packet_context\":", e->scopes[TMX_SCOPE_PACKET_CONTEXT]);
	/* Cached unless the buffer was flushed meanwhile or it is too long. */
	if (pk && j->out.len >= before && j->out.len - before <= sizeof(c->text)) {
		c->packet = pk;
		c->seq = pk->seq;
		c->len = j->out.len - before;
		memcpy(c->text, j->out.data + before, c->len);
	}
}

static void put_event(struct tmx_jsonl *j, const struct tmx_msg *msg)
{
	const struct tmx_event *e = msg->event;
	struct outbuf *b = &j->out;

	outbuf_puts(b, "{\"type\":\"event\",\"name\":");
	if (e->cls->name)
		json_string(b, e->cls->name, strlen(e->cls->name));
	else
		outbuf_puts(b, "null");   /* CTF 2 names are optional */
	outbuf_puts(b, ",\"id\":");
	outbuf_u64(b, e->cls->id, 0);
	put_stream_cached(j, msg->stream);
	if (msg->has_ts) {
		outbuf_puts(b, ",\"ts_ns\":");
		outbuf_i64(b, msg->ns);
		outbuf_puts(b, ",\"cycles\":");
		outbuf_u64(b, msg->cycles, 0);
	}
	put_packet_context(j, e);
	put_scope(j, ",\"common_context\":", e->scopes[TMX_SCOPE_COMMON_CONTEXT]);
	put_scope(j, ",\"specific_context\":", e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT]);
	put_scope(j, ",\"payload\":", e->scopes[TMX_SCOPE_PAYLOAD]);
	outbuf_puts(b, "}\n");
}

static void put_discarded(struct tmx_jsonl *j, const struct tmx_msg *msg, const char *type)
{
	struct outbuf *b = &j->out;

	outbuf_puts(b, "{\"type\":\"");
	outbuf_puts(b, type);
	outbuf_putc(b, '"');
	put_stream_cached(j, msg->stream);
	outbuf_puts(b, ",\"count\":");
	outbuf_u64(b, msg->count, 0);
	if (msg->has_range) {
		outbuf_puts(b, ",\"begin_ns\":");
		outbuf_i64(b, msg->begin_ns);
		outbuf_puts(b, ",\"end_ns\":");
		outbuf_i64(b, msg->end_ns);
	}
	outbuf_puts(b, "}\n");
}

/* Writes one message; false for the kinds that print nothing. */
static bool put_msg(struct tmx_jsonl *j, const struct tmx_msg *msg)
{
	switch (msg->kind) {
	case TMX_MSG_EVENT:
		put_event(j, msg);
		return true;
	case TMX_MSG_DISCARDED_EVENTS:
		put_discarded(j, msg, "discarded_events");
		return true;
	case TMX_MSG_DISCARDED_PACKETS:
		put_discarded(j, msg, "discarded_packets");
		return true;
	default:
		return false;
	}
}

static int write_error(const struct tmx_jsonl *j, struct tmx_error *err)
{
	if (j->out.error)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(j->out.error));
	return TMX_OK;
}

int tmx_jsonl_consume(struct tmx_jsonl *j, const struct tmx_msg *msg, struct tmx_error *err)
{
	return put_msg(j, msg) ? write_error(j, err) : TMX_OK;
}

/* The split (src/sink/split.h): every line depends on its message only. */
struct tmx_jsonl *tmx_jsonl_worker_new(const struct tmx_jsonl *sink)
{
	(void)sink;
	return tmx_jsonl_new(-1);
}

struct outbuf *tmx_jsonl_worker_outbuf(struct tmx_jsonl *w)
{
	return &w->out;
}

void tmx_jsonl_format(struct tmx_jsonl *w, const struct tmx_msg *msg, uint64_t hole[2])
{
	hole[0] = hole[1] = SINK_NO_POS;
	put_msg(w, msg);
}

int tmx_jsonl_emit(struct tmx_jsonl *j, const struct sink_piece *pc, struct tmx_error *err)
{
	outbuf_write(&j->out, pc->text, pc->len);
	return write_error(j, err);
}
