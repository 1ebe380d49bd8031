/*
 * An event's record: what the state, the I/O state and the commands read
 * of it, written by format() on the reading threads (tmx_sink_custom) and
 * read back by emit() in the trace's order (an_core.c).  Each class is
 * bound before the run (an_state.c: its refs[], the values its handlers
 * read); a record is
 *
 *   u32 class number                 AN_REC_IGNORED: the state reads no
 *                                    value of the event (only its time
 *                                    counts), AN_REC_OOM: out of memory
 *   i64 cpu, u8 check                the CPU (the packet context's cpu_id);
 *                                    an_check_event's result
 *   per ref: u8 tag, then            AN_INT, AN_UINT: i64; AN_TEXT: u32
 *                                    length and the bytes (up to the first
 *                                    NUL); AN_ADDR: 4 x i64
 *
 * unaligned (memcpy).  The formatter's caches (the CPU of a packet, the
 * number and check of a class) depend on the packet or class alone: a
 * record is the same whichever thread writes it.
 */
#include <stdlib.h>
#include <string.h>

#include "model/kmap.h"
#include "tracemux/event.h"
#include "tools/analyze/an_run.h"

#define AN_REC_IGNORED UINT32_MAX
#define AN_REC_OOM (UINT32_MAX - 1)

bool an_fmt_init(struct an_fmt *f, struct an_run *r, bool map)
{
	struct tmx_error err;

	memset(f, 0, sizeof(*f));
	f->r = r;
	f->check = calloc(r->n_classes ? r->n_classes : 1, 1);
	/* room for any record but long text: an out-of-memory record always fits */
	f->rec.heap_cap = AN_REC_ROOM;
	f->rec.heap = malloc(f->rec.heap_cap);
	if (!f->check || !f->rec.heap || (map && tmx_kmap_new(r->src, &f->kmap, &err))) {
		free(f->check);
		free(f->rec.heap);
		f->check = NULL;
		f->rec.heap = NULL;
		return false;
	}
	return true;
}

void an_fmt_free(struct an_fmt *f)
{
	tmx_kmap_free(f->kmap);
	free(f->check);
	free(f->rec.heap);
}

/*
 * room()'s slow path: the record moved to (a larger) `heap`, n more bytes
 * counted in it; NULL (b->oom) when out of memory.
 */
static char *grow(struct an_bytes *b, size_t n)
{
	bool in_heap = b->p == b->heap;
	size_t cap = b->heap_cap;
	char *p = b->heap;

	while (cap - b->len < n)
		cap *= 2;
	if (cap != b->heap_cap) {
		if (!(p = realloc(b->heap, cap))) {
			b->oom = true;
			return NULL;
		}
		b->heap = p;
		b->heap_cap = cap;
	}
	if (!in_heap)   /* out of the reservation (realloc kept what the heap held) */
		memcpy(p, b->p, b->len);
	b->p = p;
	b->cap = cap;
	b->len += n;
	return b->p + b->len - n;
}

/* Room for n more bytes of the record, counted in it (per value: inline, one test). */
static inline char *room(struct an_bytes *b, size_t n)
{
	if (__builtin_expect(n > b->cap - b->len, 0))
		return grow(b, n);
	b->len += n;
	return b->p + b->len - n;
}

static bool value_int(const struct tmx_value *v, int64_t *x, uint8_t *tag)
{
	uint64_t u;

	if (tmx_value_int64(v, x)) {
		*tag = AN_INT;
		return true;
	}
	if (tmx_value_uint64(v, &u)) {
		*x = (int64_t)u;
		*tag = AN_UINT;
		return true;
	}
	return false;
}

/* A tag and its 8-byte value. */
static void put_int(struct an_bytes *b, uint8_t tag, int64_t x)
{
	char *p = room(b, 9);

	if (p) {
		p[0] = (char)tag;
		memcpy(p + 1, &x, 8);
	}
}

/* Text up to its first NUL, as babeltrace reads text arrays. */
static void put_text(struct an_bytes *b, const char *s, size_t len)
{
	const char *nul = memchr(s, 0, len);
	uint32_t n = (uint32_t)(nul ? (size_t)(nul - s) : len > UINT32_MAX ? UINT32_MAX : len);
	char *p = room(b, 5 + (size_t)n);

	if (p) {
		p[0] = AN_TEXT;
		memcpy(p + 1, &n, 4);
		memcpy(p + 5, s, n);
	}
}

/* connect's v4addr: its first four elements */
static void put_addr(struct an_bytes *b, const struct tmx_value *v)
{
	char *p = room(b, 33);
	uint8_t tag;

	if (!p)
		return;
	p[0] = AN_ADDR;
	for (size_t i = 0; i < 4; i++) {
		int64_t x = 0;
		value_int(tmx_value_element(v, i), &x, &tag);
		memcpy(p + 1 + 8 * i, &x, 8);
	}
}

/* A value as the handlers read it: an integer, else text, else an address's four bytes. */
static void put_value(struct an_bytes *b, const struct tmx_value *v)
{
	size_t len = 0;
	const char *s;
	int64_t x;
	uint8_t tag = AN_ABSENT;
	char *p;

	if (v && value_int(v, &x, &tag)) {
		put_int(b, tag, x);
		return;
	}
	if (v && (s = tmx_value_text(v, &len)))
		put_text(b, s, len);
	else if (v && tmx_value_length(v) >= 4)
		put_addr(b, v);
	else if ((p = room(b, 1)))
		p[0] = (char)(v ? AN_OTHER : AN_ABSENT);
}

/*
 * A slot's value of the class the bind saw, read in place as
 * value_int / tmx_value_text would (an unsigned beyond INT64_MAX is
 * AN_UINT); false for any other value (put_value then).
 */
static bool put_bound(struct an_bytes *b, const struct tmx_value *v, const struct an_ref *ref)
{
	if (v->fc != ref->fc)
		return false;
	switch (ref->kind) {
	case AN_R_SIGNED:
		put_int(b, AN_INT, v->s);
		return true;
	case AN_R_UNSIGNED:
		put_int(b, v->u > INT64_MAX ? AN_UINT : AN_INT, (int64_t)v->u);
		return true;
	case AN_R_TEXT:
		put_text(b, v->str.ptr ? v->str.ptr : "", (size_t)v->str.len);
		return true;
	default:
		return false;
	}
}

static const struct tmx_value *ref_value(const struct tmx_event *ev, const struct an_ref *ref)
{
	const struct tmx_value *in = ev->scopes[ref->scope];

	if (ref->slot >= 0 && in)
		return &in[ref->slot];
	if (ref->slot == SLOT_NONE)
		return NULL;
	if (ref->hops && in && in->fc == ref->fc) {   /* the member tmx_value_member would find */
		size_t at = ref->after;
		for (uint8_t h = 0; h < ref->hops; h++)
			at = tmx_value_skip(in, at);
		return &in[at];
	}
	return ref->every ? tmx_event_field(ev, ref->name)
			  : tmx_event_field_in(ev, ref->scope, ref->name);
}

/* event['cpu_id']: the packet context's cpu_id in LTTng traces (per packet, cached) */
static int64_t event_cpu(struct an_fmt *f, const struct tmx_msg *msg)
{
	struct an_packet_cpu *k;
	uint64_t cpu = 0;

	if (!msg->packet) {
		tmx_event_cpu(msg->event, &cpu);
		return (int64_t)cpu;
	}
	k = &f->pcpu[cache_slot(msg->packet)];
	if (k->packet != msg->packet || k->seq != msg->packet->seq) {
		k->packet = msg->packet;
		k->seq = msg->packet->seq;
		k->cpu = 0;
		tmx_event_cpu(msg->event, &k->cpu);
	}
	return (int64_t)k->cpu;
}

static size_t class_index(struct an_fmt *f, const struct tmx_event_class *ec)
{
	struct an_class_slot *k = &f->ccache[cache_slot(ec)];

	if (f->r->kmap)   /* the mapped classes are numbered by their ids */
		return ec->id;
	if (k->ec != ec) {
		k->ec = ec;
		k->index = tmx_source_event_class_index(f->r->src, ec);
	}
	return k->index;
}

/* The record of an event of the lttng-modules model (mapped, on trace.dat). */
static void put_event(struct an_fmt *f, const struct tmx_msg *msg)
{
	const struct tmx_event *ev = msg->event;
	size_t ci = class_index(f, ev->cls);
	const struct an_class *c = ci < f->r->n_classes ? &f->r->classes[ci] : NULL;
	uint32_t head = c && c->kind != K_NONE ? (uint32_t)ci : AN_REC_IGNORED;
	int64_t cpu;
	char *p;

	if (head == AN_REC_IGNORED) {
		if ((p = room(&f->rec, 4)))
			memcpy(p, &head, 4);
		return;
	}
	cpu = event_cpu(f, msg);
	if (!f->check[ci])   /* a class has the same fields in all its events */
		f->check[ci] = (uint8_t)(1 + an_check_event(c, ev));
	if (!(p = room(&f->rec, 13)))
		return;
	memcpy(p, &head, 4);
	memcpy(p + 4, &cpu, 8);
	p[12] = (char)(f->check[ci] - 1);
	for (size_t i = 0; i < c->n_refs; i++) {
		const struct an_ref *ref = &c->refs[i];
		const struct tmx_value *in = ev->scopes[ref->scope];
		if (!(ref->kind && in && put_bound(&f->rec, &in[ref->slot], ref)))
			put_value(&f->rec, ref_value(ev, ref));
	}
}

void an_fmt_event(struct an_fmt *f, const struct tmx_msg *msg, char *buf, size_t cap)
{
	char *start = buf ? buf : f->rec.heap;

	f->rec.p = start;
	f->rec.cap = buf ? cap : f->rec.heap_cap;
	f->rec.len = 0;
	f->rec.oom = false;
	if (f->kmap && !tmx_kmap_msg(f->kmap, msg, &msg))
		f->rec.oom = true;
	else if (msg)   /* NULL: no lttng-modules equivalent, nothing to feed */
		put_event(f, msg);
	if (f->rec.oom) {
		uint32_t head = AN_REC_OOM;
		/* at the start again: both buf and the heap hold AN_REC_ROOM bytes */
		f->rec.p = start;
		f->rec.cap = buf ? cap : f->rec.heap_cap;
		f->rec.len = 0;
		f->rec.oom = false;
		memcpy(room(&f->rec, 4), &head, 4);
	}
}

/*
 * The values of a record from q to end, as many as are whole (a short or
 * garbled record is read no further).  Only what the tag says is set: the
 * accessors read no more.
 */
static uint8_t read_values(struct an_val *v, const char *q, const char *end)
{
	uint8_t n = 0;

	for (; n < AN_MAX_FIELDS && q < end; n++, v++) {
		v->tag = (uint8_t)*q++;
		switch (v->tag) {
		case AN_INT: case AN_UINT:
			if (end - q < 8)
				return n;
			memcpy(&v->i, q, 8);
			q += 8;
			break;
		case AN_TEXT:
			if (end - q < 4)
				return n;
			memcpy(&v->len, q, 4);
			q += 4;
			if ((size_t)(end - q) < v->len)
				return n;
			v->s = q;
			q += v->len;
			break;
		case AN_ADDR:
			if (end - q < 32)
				return n;
			v->s = q;
			q += 32;
			break;
		default:
			break;
		}
	}
	return n;
}

enum an_read an_ev_read(const struct an_run *r, const void *rec, size_t len, int64_t ts,
			struct an_ev *ev)
{
	const char *p = rec;
	uint32_t head;

	if (len < sizeof(head))
		return AN_READ_TIME;
	memcpy(&head, p, 4);
	if (head == AN_REC_OOM)
		return AN_READ_OOM;
	if (len < 13 || head >= r->n_classes)
		return AN_READ_TIME;
	ev->ts = ts;
	ev->ci = head;
	memcpy(&ev->cpu, p + 4, 8);
	ev->missing = (uint8_t)p[12];
	ev->n = read_values(ev->v, p + 13, p + len);
	return AN_READ_EVENT;
}

const struct an_val *an_ev_field(const struct an_ev *ev, int f)
{
	static const struct an_val absent = { .tag = AN_ABSENT };

	return f >= 0 && f < ev->n ? &ev->v[f] : &absent;
}

const struct an_val *an_ev_named(const struct an_ev *ev, const struct an_class *c, const char *name)
{
	for (int i = 0; i < c->n_refs; i++)
		if (!strcmp(c->refs[i].name, name))
			return an_ev_field(ev, i);
	return an_ev_field(ev, -1);
}

bool an_val_int(const struct an_val *v, int64_t *x)
{
	if (v->tag != AN_INT && v->tag != AN_UINT)
		return false;
	*x = v->i;
	return true;
}

const char *an_val_text(const struct an_val *v, size_t *len)
{
	*len = v->tag == AN_TEXT ? v->len : 0;
	return v->tag == AN_TEXT ? v->s : NULL;
}

void an_val_addr(const struct an_val *v, int64_t b[4])
{
	memcpy(b, v->s, 4 * sizeof(*b));
}
