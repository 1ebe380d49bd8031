/*
 * JSON Lines: one JSON object per event and per discarded-events/packets
 * record, with every field in its real type.  Keys always come in the same
 * order; integers are printed exactly (64-bit values included); text is
 * always valid UTF-8: a byte that is not part of valid UTF-8 is written as
 * the code point of the same value (\u00XX), so nothing is lost.
 *
 *   {"type":"event","name":"sched:switch","id":0,"trace":"host","stream":
 *    {"class_id":0,"id":0,"name":"/path"},"ts_ns":123,"cycles":456,
 *    "packet_context":{...},"common_context":{...},"specific_context":{...},
 *    "payload":{...}}
 *   {"type":"discarded_events","trace":...,"stream":{...},"count":5,
 *    "begin_ns":...,"end_ns":...}
 *
 * Enumerations are {"value":N,"labels":[...]}, variants {"option":"name",
 * "value":...}, floats numbers (null when not finite).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/json/jsonl.h"
#include "out/outbuf.h"

struct tmx_jsonl {
	struct outbuf out;
};

struct tmx_jsonl *tmx_jsonl_new(int fd)
{
	struct tmx_jsonl *j = malloc(sizeof(*j));

	if (j)
		outbuf_init(&j->out, fd);
	return j;
}

void tmx_jsonl_free(struct tmx_jsonl *j)
{
	free(j);
}

int tmx_jsonl_flush(struct tmx_jsonl *j, struct tmx_error *err)
{
	int e = outbuf_flush(&j->out);

	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return TMX_OK;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

static void put_json_string(struct outbuf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	outbuf_putc(b, '"');
	while (i < n) {
		unsigned char c = s[i];
		size_t l;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			outbuf_putc(b, (char)c);
			i++;
			continue;
		}
		if (c == '"' || c == '\\') {
			outbuf_putc(b, '\\');
			outbuf_putc(b, (char)c);
			i++;
			continue;
		}
		l = c >= 0x80 ? utf8_len(s + i, n - i) : 0;
		if (l) {
			outbuf_write(b, str + i, l);
			i += l;
			continue;
		}
		/* A control character, or a byte that is not valid UTF-8: \u00XX. */
		outbuf_write(b, "\\u00", 4);
		outbuf_putc(b, hex[c >> 4]);
		outbuf_putc(b, hex[c & 15]);
		i++;
	}
	outbuf_putc(b, '"');
}

static void put_key(struct outbuf *b, const char *key, bool first)
{
	if (!first)
		outbuf_putc(b, ',');
	put_json_string(b, key, strlen(key));
	outbuf_putc(b, ':');
}

static void put_int(struct outbuf *b, const struct tmx_value *v)
{
	if (v->fc->is_signed)
		outbuf_i64(b, v->s);
	else
		outbuf_u64(b, v->u, 0);
}

static bool in_range(const struct tmx_field_class *fc, const struct tmx_enum_range *r,
		     uint64_t u)
{
	if (fc->is_signed)
		return (int64_t)u >= (int64_t)r->lower && (int64_t)u <= (int64_t)r->upper;
	return u >= r->lower && u <= r->upper;
}

static void put_enum(struct outbuf *b, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	bool first = true;

	outbuf_puts(b, "{\"value\":");
	put_int(b, v);
	outbuf_puts(b, ",\"labels\":[");
	for (size_t m = 0; m < fc->n_mappings; m++)
		for (size_t r = 0; r < fc->mappings[m].n_ranges; r++)
			if (in_range(fc, &fc->mappings[m].ranges[r], v->u)) {
				if (!first)
					outbuf_putc(b, ',');
				put_json_string(b, fc->mappings[m].label, strlen(fc->mappings[m].label));
				first = false;
				break;
			}
	outbuf_puts(b, "]}");
}

static void put_float(struct outbuf *b, double d)
{
	char num[32];

	if (!isfinite(d)) {
		outbuf_puts(b, "null");
		return;
	}
	snprintf(num, sizeof(num), "%.17g", d);
	outbuf_puts(b, num);
}

static size_t put_value(struct outbuf *b, const struct tmx_value *vals, size_t i);

static size_t put_struct(struct outbuf *b, const struct tmx_value *vals, size_t i)
{
	const struct tmx_field_class *fc = vals[i].fc;
	uint32_t n = vals[i].n_members;

	i++;
	outbuf_putc(b, '{');
	for (uint32_t m = 0; m < n; m++) {
		put_key(b, fc->members[m].name, m == 0);
		i = put_value(b, vals, i);
	}
	outbuf_putc(b, '}');
	return i;
}

static size_t put_value(struct outbuf *b, const struct tmx_value *vals, size_t i)
{
	const struct tmx_value *v = &vals[i];

	switch (v->fc->kind) {
	case TMX_FC_INT:
		put_int(b, v);
		return i + 1;
	case TMX_FC_ENUM:
		put_enum(b, v);
		return i + 1;
	case TMX_FC_FLOAT:
		put_float(b, v->d);
		return i + 1;
	case TMX_FC_STRING:
		put_json_string(b, v->str.ptr, v->str.len);
		return i + 1;
	case TMX_FC_STRUCT:
		return put_struct(b, vals, i);
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (v->fc->is_text) {
			/* As babeltrace2 reads a text array: up to its first NUL. */
			const char *nul = memchr(v->str.ptr, '\0', v->str.len);
			put_json_string(b, v->str.ptr, nul ? (size_t)(nul - v->str.ptr) : v->str.len);
			return i + 1;
		} else {
			uint64_t count = v->count;
			i++;
			outbuf_putc(b, '[');
			for (uint64_t e = 0; e < count; e++) {
				if (e)
					outbuf_putc(b, ',');
				i = put_value(b, vals, i);
			}
			outbuf_putc(b, ']');
			return i;
		}
	case TMX_FC_VARIANT: {
		const char *name = v->fc->members[v->option].name;
		outbuf_puts(b, "{\"option\":");
		put_json_string(b, name, strlen(name));
		outbuf_puts(b, ",\"value\":");
		i = put_value(b, vals, i + 1);
		outbuf_putc(b, '}');
		return i;
	}
	}
	return i + 1;
}

static void put_stream(struct outbuf *b, const struct tmx_stream *s)
{
	outbuf_puts(b, ",\"trace\":");
	put_json_string(b, s->trace->name, strlen(s->trace->name));
	outbuf_puts(b, ",\"stream\":{\"class_id\":");
	outbuf_u64(b, s->cls->id, 0);
	outbuf_puts(b, ",\"id\":");
	outbuf_u64(b, s->id, 0);
	outbuf_puts(b, ",\"name\":");
	put_json_string(b, s->name, strlen(s->name));
	outbuf_putc(b, '}');
}

static void put_scope(struct outbuf *b, const char *key, const struct tmx_value *vals)
{
	if (!vals)
		return;
	outbuf_putc(b, ',');
	put_key(b, key, true);
	put_value(b, vals, 0);
}

static void put_event(struct outbuf *b, const struct tmx_msg *msg)
{
	const struct tmx_event *e = msg->event;

	outbuf_puts(b, "{\"type\":\"event\",\"name\":");
	put_json_string(b, e->cls->name, strlen(e->cls->name));
	outbuf_puts(b, ",\"id\":");
	outbuf_u64(b, e->cls->id, 0);
	put_stream(b, msg->stream);
	if (msg->has_ts) {
		outbuf_puts(b, ",\"ts_ns\":");
		outbuf_i64(b, msg->ns);
		outbuf_puts(b, ",\"cycles\":");
		outbuf_u64(b, msg->cycles, 0);
	}
	put_scope(b, "packet_context", e->scopes[TMX_SCOPE_PACKET_CONTEXT]);
	put_scope(b, "common_context", e->scopes[TMX_SCOPE_COMMON_CONTEXT]);
	put_scope(b, "specific_context", e->scopes[TMX_SCOPE_SPECIFIC_CONTEXT]);
	put_scope(b, "payload", e->scopes[TMX_SCOPE_PAYLOAD]);
	outbuf_puts(b, "}\n");
}

static void put_discarded(struct outbuf *b, const struct tmx_msg *msg, const char *type)
{
	outbuf_puts(b, "{\"type\":\"");
	outbuf_puts(b, type);
	outbuf_putc(b, '"');
	put_stream(b, msg->stream);
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

int tmx_jsonl_consume(struct tmx_jsonl *j, const struct tmx_msg *msg, struct tmx_error *err)
{
	switch (msg->kind) {
	case TMX_MSG_EVENT:
		put_event(&j->out, msg);
		break;
	case TMX_MSG_DISCARDED_EVENTS:
		put_discarded(&j->out, msg, "discarded_events");
		break;
	case TMX_MSG_DISCARDED_PACKETS:
		put_discarded(&j->out, msg, "discarded_packets");
		break;
	default:
		return TMX_OK;
	}
	if (j->out.error)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s",
				     strerror(j->out.error));
	return TMX_OK;
}
