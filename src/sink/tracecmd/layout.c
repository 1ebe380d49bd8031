/* `-o tracecmd` over the common model: see model.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/outbuf.h"
#include "sink/split.h"
#include "sink/tracecmd/columns.h"
#include "sink/tracecmd/layout.h"
#include "common/errors.h"

struct tmx_tclayout {
	struct outbuf out;
};

struct tmx_tclayout *tmx_tclayout_new(int out_fd)
{
	struct tmx_tclayout *m = malloc(sizeof(*m));

	if (m)
		outbuf_init(&m->out, out_fd);
	return m;
}

void tmx_tclayout_free(struct tmx_tclayout *m)
{
	free(m);
}

int tmx_tclayout_flush(struct tmx_tclayout *m, struct tmx_error *err)
{
	int e = outbuf_flush(&m->out);

	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return TMX_OK;
}

/* A member of a structure value by name: its value index, or 0 if none. */
static size_t find_member(const struct tmx_value *vals, const char *name)
{
	const struct tmx_field_class *fc;
	size_t i = 1;

	if (!vals || vals[0].fc->kind != TMX_FC_STRUCT)
		return 0;
	fc = vals[0].fc;
	for (uint32_t m = 0; m < vals[0].n_members; m++) {
		if (!strcmp(fc->members[m].name, name))
			return i;
		i = tmx_value_skip(vals, i);
	}
	return 0;
}

static bool is_int(const struct tmx_value *v)
{
	return v->fc->kind == TMX_FC_INT || v->fc->kind == TMX_FC_ENUM;
}

/* The first context field among `names` (common context, then specific). */
static const struct tmx_value *context_field(const struct tmx_event *ev, const char *const *names,
					     bool want_int)
{
	static const enum tmx_scope scopes[] = { TMX_SCOPE_COMMON_CONTEXT, TMX_SCOPE_SPECIFIC_CONTEXT };

	for (const char *const *n = names; *n; n++)
		for (size_t s = 0; s < 2; s++) {
			const struct tmx_value *vals = ev->scopes[scopes[s]];
			size_t i = find_member(vals, *n);
			if (!i)
				continue;
			if (want_int ? is_int(&vals[i]) : vals[i].fc->kind == TMX_FC_STRING)
				return &vals[i];
		}
	return NULL;
}

static int64_t int_of(const struct tmx_value *v)
{
	return v->fc->is_signed ? v->s : (int64_t)v->u;
}

static size_t put_value(struct outbuf *b, const struct tmx_value *vals, size_t i);

static size_t put_members(struct outbuf *b, const struct tmx_value *vals, size_t i, bool first)
{
	const struct tmx_field_class *fc = vals[i].fc;
	uint32_t n = vals[i].n_members;

	i++;
	for (uint32_t m = 0; m < n; m++) {
		if (!first || m)
			outbuf_putc(b, ' ');
		outbuf_puts(b, fc->members[m].name);
		outbuf_putc(b, '=');
		i = put_value(b, vals, i);
	}
	return i;
}

static size_t put_value(struct outbuf *b, const struct tmx_value *vals, size_t i)
{
	const struct tmx_value *v = &vals[i];
	char num[40];

	switch (v->fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		if (v->fc->is_signed)
			outbuf_i64(b, v->s);
		else
			outbuf_u64(b, v->u, 1);
		return i + 1;
	case TMX_FC_FLOAT:
		snprintf(num, sizeof(num), "%g", v->d);
		outbuf_puts(b, num);
		return i + 1;
	case TMX_FC_STRING:
		outbuf_write(b, v->str.ptr, v->str.len);
		return i + 1;
	case TMX_FC_STRUCT:
		outbuf_putc(b, '{');
		i = put_members(b, vals, i, true);
		outbuf_putc(b, '}');
		return i;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (v->fc->is_text) {
			outbuf_write(b, v->str.ptr, tmx_value_text_len(v));
			return i + 1;
		} else {
			uint64_t count = v->count;
			i++;
			outbuf_putc(b, '[');
			for (uint64_t e = 0; e < count; e++) {
				if (e)
					outbuf_write(b, ", ", 2);
				i = put_value(b, vals, i);
			}
			outbuf_putc(b, ']');
			return i;
		}
	case TMX_FC_VARIANT:
		return put_value(b, vals, i + 1);
	case TMX_FC_BOOL:
		/* As a C bool reads in a print fmt. */
		outbuf_putc(b, v->u ? '1' : '0');
		return i + 1;
	case TMX_FC_BIT_ARRAY:
		outbuf_write(b, "0x", 2);
		outbuf_hex(b, v->u);
		return i + 1;
	case TMX_FC_BLOB:
		/* As trace-cmd's __print_hex: bytes in hex, no separators. */
		outbuf_hex_bytes(b, v->str.ptr, v->str.len);
		return i + 1;
	case TMX_FC_OPTIONAL:
		if (!v->present) {
			outbuf_puts(b, "<none>");
			return i + 1;
		}
		return put_value(b, vals, i + 1);
	}
	return i + 1;
}

static uint64_t packet_cpu(const struct tmx_packet *pkt)
{
	size_t i;

	if (!pkt || !pkt->context || !(i = find_member(pkt->context, "cpu_id")) ||
	    !is_int(&pkt->context[i]))
		return 0;
	return (uint64_t)int_of(&pkt->context[i]);
}

static void put_dropped(struct outbuf *b, const struct tmx_msg *msg)
{
	outbuf_puts(b, "CPU:");
	outbuf_u64(b, packet_cpu(msg->packet), 1);
	if (msg->kind == TMX_MSG_DISCARDED_EVENTS && msg->count) {
		outbuf_puts(b, " [");
		outbuf_u64(b, msg->count, 1);
		outbuf_puts(b, " EVENTS DROPPED]\n");
	} else {
		outbuf_puts(b, " [EVENTS DROPPED]\n");
	}
}

/* libtraceevent's " %6.1000d" time: microseconds, rounded (its older "%12d" up to 1 s). */
static void put_usecs(struct outbuf *b, int64_t ns)
{
	char tmp[48], *p;
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	uint64_t us = (mag + 500) / 1000;

	if (ns < 0 && us <= 1000000) {   /* the sign within the 12 columns: rare */
		snprintf(tmp, sizeof(tmp), "%12lld", -(long long)us);
		outbuf_puts(b, tmp);
		return;
	}
	p = outbuf_reserve(b, 64);
	if (ns < 0)
		*p++ = '-';
	outbuf_commit(b, tmx_tc_put_time(p, us, us > 1000000 ? 6 : 0));
}

int tmx_tclayout_consume(struct tmx_tclayout *m, const struct tmx_msg *msg, struct tmx_error *err)
{
	static const char *const comm_names[] = { "procname", "comm", NULL };
	static const char *const pid_names[] = { "tid", "vtid", "pid", "vpid", NULL };
	struct outbuf *b = &m->out;
	const struct tmx_event *ev;
	const struct tmx_value *comm, *pid;
	const char *name;
	size_t len;
	bool first = true;

	(void)err;
	if (msg->kind == TMX_MSG_DISCARDED_EVENTS || msg->kind == TMX_MSG_DISCARDED_PACKETS) {
		put_dropped(b, msg);
		return TMX_OK;
	}
	if (msg->kind != TMX_MSG_EVENT)
		return TMX_OK;
	ev = msg->event;
	comm = context_field(ev, comm_names, false);
	pid = context_field(ev, pid_names, true);
	/* "%16s-%-5d [%03d]" */
	if (comm) {
		len = comm->str.len;
		if (len < 16)
			outbuf_spaces(b, 16 - len);
		outbuf_write(b, comm->str.ptr, len);
	} else {
		outbuf_spaces(b, 11);
		outbuf_puts(b, "<...>");
	}
	outbuf_commit(b, tmx_tc_put_pid_cpu(outbuf_reserve(b, 64), pid ? int_of(pid) : 0,
					    packet_cpu(msg->packet)));
	outbuf_putc(b, ' ');
	put_usecs(b, msg->has_ts ? msg->ns : 0);
	outbuf_puts(b, ": ");
	name = ev->cls->name ? ev->cls->name : "";
	outbuf_puts(b, name);
	outbuf_puts(b, ": ");
	if (strlen(name) < 20)
		outbuf_spaces(b, 20 - strlen(name));
	for (int s = TMX_SCOPE_SPECIFIC_CONTEXT; s <= TMX_SCOPE_PAYLOAD; s++) {
		const struct tmx_value *vals = ev->scopes[s];
		if (!vals || vals[0].fc->kind != TMX_FC_STRUCT || !vals[0].n_members)
			continue;
		if (!first)
			outbuf_putc(b, ' ');
		put_members(b, vals, 0, true);
		first = false;
	}
	outbuf_putc(b, '\n');
	return TMX_OK;
}

/* The split (src/sink/split.h): every line depends on its message only. */
struct tmx_tclayout *tmx_tclayout_worker_new(const struct tmx_tclayout *sink)
{
	(void)sink;
	return tmx_tclayout_new(-1);
}

struct outbuf *tmx_tclayout_worker_outbuf(struct tmx_tclayout *w)
{
	return &w->out;
}

void tmx_tclayout_format(struct tmx_tclayout *w, const struct tmx_msg *msg, uint64_t hole[2])
{
	hole[0] = hole[1] = SINK_NO_POS;
	(void)tmx_tclayout_consume(w, msg, NULL);   /* fails only on writes, not here */
}

/* Write errors come out at the flush, as with tmx_tclayout_consume. */
int tmx_tclayout_emit(struct tmx_tclayout *m, const struct sink_piece *pc, struct tmx_error *err)
{
	(void)err;
	outbuf_write(&m->out, pc->text, pc->len);
	return TMX_OK;
}
