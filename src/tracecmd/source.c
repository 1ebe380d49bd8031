/*
 * trace.dat files as a source of the common model (tmx_tracedat_open).
 *
 * Mapping (docs/ARCHITECTURE.md, "trace.dat"):
 *   - one trace per file, named after the file's path; its environment
 *     holds the file's facts (version, uname, hostname, clock, cpus,
 *     buffers, trace-cmd version, compression, trace id);
 *   - one clock class, named after the top buffer's trace clock, 1 GHz:
 *     times are trace-cmd's record->ts (after TSC2NSEC, OFFSET, DATE,
 *     TIME_SHIFT).  With the x86-tsc or counter clock and no TSC2NSEC the
 *     values are raw counts, passed through as if they were ns;
 *   - one stream class per file; one stream per (buffer, CPU) with id
 *     buffer << 32 | CPU index, a packet context `{ cpu_id }`, and one
 *     packet spanning the CPU's records;
 *   - one event class per parsed format file, id = the format's ID, name
 *     "system:event"; the common_* fields are the event common context,
 *     the others the payload: integers with their size and signedness
 *     (pointers and `long`s print in hex... as integers with base 16 for
 *     pointers), char arrays and __data_loc/__rel_loc char[] as strings,
 *     other static arrays as arrays, other dynamic arrays as sequences;
 *   - a page's missed-events flag becomes TMX_MSG_DISCARDED_EVENTS before
 *     the page's first record (count 0 when the kernel did not store it).
 * Streams of all files merge by time in the muxer.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/arena.h"
#include "model/opts.h"
#include "model/field_class.h"
#include "model/msg_iter.h"
#include "model/source.h"
#include "mux/muxer.h"
#include "tracecmd/internal.h"
#include "model/errors.h"

/* Marks the stream classes of this reader (see tdat_record_of). */
static struct tmx_field_class event_header_marker = {
	.kind = TMX_FC_INT, .align = 32, .size = 32, .base = 16, .slot = -1, .ref_slot = -1,
};

enum plan_kind {
	P_INT,        /* 1, 2, 4 or 8 bytes */
	P_TEXT,       /* static char array: one text value */
	P_FLEX_TEXT,  /* char NAME[] of size 0: the rest of the record */
	P_ARRAY,      /* static array of integers */
	P_BYTES,      /* a field of another size: bytes */
	P_DYN_STRING, /* __data_loc / __rel_loc char[] */
	P_DYN_SEQ,    /* __data_loc / __rel_loc other[] */
};

struct plan_field {
	const struct tdat_field *fd;
	struct tmx_field_class *fc;
	struct tmx_field_class *elem;   /* arrays, sequences */
	uint8_t kind;
};

struct plan {
	size_t n;
	struct plan_field *f;
	struct tmx_field_class *fc;     /* the struct */
};

struct tdm_event {
	struct tmx_event_class ec;
	const struct tdat_event *ev;
	struct plan payload;
	bool unwanted;                  /* a filter never keeps its events: not decoded */
};

struct tdm_file;

struct tdm_stream {
	struct tmx_msg_iter iter;       /* first: the muxer hands it back */
	struct tdm_file *file;
	struct tmx_stream stream;
	struct tdat_cursor *cur;
	uint32_t buffer;
	enum { S_BEGIN, S_PACKET, S_EVENTS, S_PACKET_END, S_END, S_DONE } state;
	bool pending_discard_done;
	struct tmx_packet packet;
	struct tmx_value pctx[2];
	struct tmx_event event;
	struct tmx_msg msg;
	const struct tdat_record *next;  /* peeked record */
	struct tdat_record rec;          /* the record of the current message */
	struct tdat_record disc;         /* for discarded-events messages */
	bool have_last;
	uint64_t last_ts;
	struct tmx_value *vals;
	size_t cap_vals;
	uint64_t warned_ids;             /* unknown event ids warned about (count) */
	bool has_range;                  /* first and last record times (converted) */
	int64_t range_begin, range_end;
};

struct tdm_file {
	struct tdat_file *f;
	size_t index;
	struct tmx_arena arena;
	struct tmx_trace_class tc;
	struct tmx_trace trace;
	struct tmx_clock_class clock;
	struct tmx_clock_class *clocks[1];
	struct tmx_stream_class sc;
	struct tmx_stream_class *scs[1];
	struct tmx_field_class *pctx_fc;
	struct plan common;
	struct tdm_event **by_id_events;  /* parallel to the stream class's sorted classes */
	const struct tmx_diag *diag;
	bool lenient;
};

struct tdm_source {
	struct tdm_file **files;
	size_t n_files;
	struct tdm_stream **streams;
	size_t n_streams;
	struct tmx_muxer *mux;
	const struct tmx_reader_filter *filter;   /* tmx_source_set_filter; NULL: none */
};

static int nomem(struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

/* ------------------------------------------------------------------ */
/* Classes                                                               */
/* ------------------------------------------------------------------ */

static struct tmx_field_class *new_fc(struct tmx_arena *a, enum tmx_fc_kind kind)
{
	struct tmx_field_class *fc = tmx_arena_calloc(a, 1, sizeof(*fc));
	if (fc) {
		fc->kind = kind;
		fc->align = 8;
		fc->slot = -1;
		fc->ref_slot = -1;
		fc->base = 10;
	}
	return fc;
}

static struct tmx_field_class *int_fc(struct tmx_arena *a, const struct tdat_file *f,
				      uint32_t bytes, bool is_signed, uint8_t base)
{
	struct tmx_field_class *fc = new_fc(a, TMX_FC_INT);
	if (fc) {
		fc->size = bytes * 8;
		fc->is_signed = is_signed;
		fc->byte_order = f->big_endian ? TMX_BO_BE : TMX_BO_LE;
		fc->base = base;
	}
	return fc;
}

static int plan_field(struct tmx_arena *a, const struct tdat_file *f, const struct tdat_field *fd,
		      struct plan_field *pf)
{
	bool sgn = (fd->flags & TDAT_FIELD_SIGNED) != 0;
	uint8_t base = (fd->flags & TDAT_FIELD_POINTER) ? 16 : 10;

	pf->fd = fd;
	if (fd->flags & TDAT_FIELD_DYNAMIC) {
		if (fd->flags & TDAT_FIELD_STRING) {
			pf->kind = P_DYN_STRING;
			pf->fc = new_fc(a, TMX_FC_STRING);
			if (pf->fc)
				pf->fc->encoding = TMX_ENC_UTF8;
		} else {
			uint32_t es = fd->elem_size == 1 || fd->elem_size == 2 || fd->elem_size == 4 ||
				      fd->elem_size == 8 ? fd->elem_size : 1;
			pf->kind = P_DYN_SEQ;
			pf->elem = int_fc(a, f, es, false, es == 1 ? 16 : 10);
			pf->fc = new_fc(a, TMX_FC_SEQUENCE);
			if (pf->fc)
				pf->fc->elem = pf->elem;
		}
	} else if (fd->flags & TDAT_FIELD_ARRAY) {
		if ((fd->flags & TDAT_FIELD_STRING) && fd->elem_size == 1) {
			pf->kind = fd->size ? P_TEXT : P_FLEX_TEXT;
			pf->elem = int_fc(a, f, 1, sgn, 10);
			pf->fc = new_fc(a, fd->size ? TMX_FC_ARRAY : TMX_FC_STRING);
			if (pf->fc) {
				pf->fc->elem = fd->size ? pf->elem : NULL;
				pf->fc->length = fd->size;
				pf->fc->is_text = fd->size != 0;
				pf->fc->encoding = TMX_ENC_UTF8;
			}
			if (pf->elem)
				pf->elem->encoding = TMX_ENC_UTF8;
		} else {
			uint32_t es = fd->elem_size;
			bool ok = es == 1 || es == 2 || es == 4 || es == 8;
			pf->kind = P_ARRAY;
			pf->elem = int_fc(a, f, ok ? es : 1, ok && sgn, ok ? base : 16);
			pf->fc = new_fc(a, TMX_FC_ARRAY);
			if (pf->fc) {
				pf->fc->elem = pf->elem;
				pf->fc->length = ok ? fd->count : fd->size;
			}
		}
	} else if (fd->size == 1 || fd->size == 2 || fd->size == 4 || fd->size == 8) {
		pf->kind = P_INT;
		pf->fc = int_fc(a, f, fd->size, sgn, base);
	} else {
		pf->kind = P_BYTES;
		pf->elem = int_fc(a, f, 1, false, 16);
		pf->fc = new_fc(a, TMX_FC_ARRAY);
		if (pf->fc) {
			pf->fc->elem = pf->elem;
			pf->fc->length = fd->size;
		}
	}
	if (!pf->fc || ((pf->kind == P_ARRAY || pf->kind == P_DYN_SEQ || pf->kind == P_BYTES ||
			 pf->kind == P_TEXT) && !pf->elem))
		return -1;
	return 0;
}

static int build_plan(struct tmx_arena *a, const struct tdat_file *f, const struct tdat_field *fds,
		      size_t n, struct plan *p)
{
	p->n = n;
	p->f = tmx_arena_calloc(a, n ? n : 1, sizeof(*p->f));
	p->fc = new_fc(a, TMX_FC_STRUCT);
	if (!p->f || !p->fc)
		return -1;
	p->fc->n_members = n;
	p->fc->members = tmx_arena_calloc(a, n ? n : 1, sizeof(*p->fc->members));
	if (!p->fc->members)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (plan_field(a, f, &fds[i], &p->f[i]))
			return -1;
		p->fc->members[i].name = (char *)fds[i].name;
		p->fc->members[i].fc = p->f[i].fc;
	}
	return 0;
}

static int add_env(struct tdm_file *tf, size_t *cap, const char *name, bool is_int, int64_t iv,
		   const char *sv, size_t slen)
{
	struct tmx_trace_class *tc = &tf->tc;
	struct tmx_env_entry *e;

	if (tc->n_env == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		tc->env = tmx_arena_grow(&tf->arena, tc->env, *cap, nc, sizeof(*tc->env));
		if (!tc->env)
			return -1;
		*cap = nc;
	}
	e = &tc->env[tc->n_env++];
	e->name = (char *)name;
	e->is_int = is_int;
	e->int_value = iv;
	e->str_value = NULL;
	if (!is_int && !(e->str_value = tmx_arena_strndup(&tf->arena, sv ? sv : "", sv ? slen : 0)))
		return -1;
	return 0;
}

static int cmp_ec(const void *a, const void *b)
{
	const struct tmx_event_class *x = *(const struct tmx_event_class *const *)a;
	const struct tmx_event_class *y = *(const struct tmx_event_class *const *)b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int build_file(struct tdm_file *tf, struct tmx_error *err)
{
	const struct tdat_file *f = tf->f;
	struct tmx_arena *a = &tf->arena;
	size_t cap = 0, n = 0;
	char *buffers = NULL;
	size_t blen = 0;
	bool fail = false;

	tf->tc.format = TMX_FORMAT_TRACEDAT;
	tf->tc.major = (uint32_t)f->version;
	tf->tc.native_byte_order = f->big_endian ? TMX_BO_BE : TMX_BO_LE;
	tf->trace.name = (char *)f->path;
	tf->trace.cls = &tf->tc;

	tf->clock.name = tmx_arena_strdup(a, f->buffers[0].clock);
	tf->clock.description = "trace-cmd trace clock (record timestamps as trace-cmd reports them)";
	tf->clock.frequency = 1000000000;
	tf->clocks[0] = &tf->clock;
	tf->tc.clocks = tf->clocks;
	tf->tc.n_clocks = 1;

	/* Environment. */
	fail |= add_env(tf, &cap, "trace_format", false, 0, "trace-cmd.dat", 13) != 0;
	fail |= add_env(tf, &cap, "file_version", true, f->version, NULL, 0) != 0;
	if (f->uname.len) {
		/* "Linux HOST RELEASE MACHINE": the second word is the host name. */
		const char *p = memchr(f->uname.ptr, ' ', f->uname.len);
		fail |= add_env(tf, &cap, "uname", false, 0, f->uname.ptr, f->uname.len) != 0;
		if (p) {
			const char *s = p + 1, *e = memchr(s, ' ', f->uname.len - (size_t)(s - f->uname.ptr));
			size_t hl = e ? (size_t)(e - s) : f->uname.len - (size_t)(s - f->uname.ptr);
			if (hl)
				fail |= add_env(tf, &cap, "hostname", false, 0, s, hl) != 0;
		}
	}
	fail |= add_env(tf, &cap, "trace_clock", false, 0, f->buffers[0].clock,
			strlen(f->buffers[0].clock)) != 0;
	fail |= add_env(tf, &cap, "cpus", true, f->max_cpu, NULL, 0) != 0;
	for (size_t i = 0; i < f->n_buffers; i++)
		blen += strlen(f->buffers[i].name) + 1;
	buffers = tmx_arena_alloc(a, blen + 1);
	if (buffers) {
		size_t o = 0;
		for (size_t i = 0; i < f->n_buffers; i++) {
			size_t l = strlen(f->buffers[i].name);
			if (i)
				buffers[o++] = ',';
			memcpy(buffers + o, f->buffers[i].name, l);
			o += l;
		}
		buffers[o] = '\0';
		fail |= add_env(tf, &cap, "buffers", false, 0, buffers, o) != 0;
	} else {
		fail = true;
	}
	if (f->version_text.len)
		fail |= add_env(tf, &cap, "tracecmd_version", false, 0, f->version_text.ptr,
				f->version_text.len) != 0;
	fail |= add_env(tf, &cap, "compression", false, 0, f->compression, strlen(f->compression)) != 0;
	if (f->has_trace_id)
		fail |= add_env(tf, &cap, "trace_id", true, (int64_t)f->trace_id, NULL, 0) != 0;
	if (f->has_tsc2nsec)
		fail |= add_env(tf, &cap, "tsc2nsec_mult", true, f->tsc2nsec_mult, NULL, 0) != 0;
	{
		/* what the reader passed over (trace-cmd 3.4's BTF...): `tracemux info` names it */
		char skipped[1024];
		size_t sl = tdat_skipped_text(f, skipped, sizeof(skipped));
		if (sl)
			fail |= add_env(tf, &cap, "skipped", false, 0, skipped, sl) != 0;
	}
	if (fail || !tf->clock.name)
		return nomem(err);

	/* Stream class: packet context { cpu_id }, common context, events. */
	tf->sc.trace_class = &tf->tc;
	tf->sc.default_clock = &tf->clock;
	tf->sc.event_header = &event_header_marker;
	tf->scs[0] = &tf->sc;
	tf->tc.stream_classes = tf->scs;
	tf->tc.n_stream_classes = 1;
	tf->pctx_fc = new_fc(a, TMX_FC_STRUCT);
	if (!tf->pctx_fc || !(tf->pctx_fc->members = tmx_arena_calloc(a, 1, sizeof(struct tmx_member))))
		return nomem(err);
	tf->pctx_fc->n_members = 1;
	tf->pctx_fc->members[0].name = "cpu_id";
	if (!(tf->pctx_fc->members[0].fc = int_fc(a, f, 4, false, 10)))
		return nomem(err);
	tf->sc.packet_context = tf->pctx_fc;

	/* Common fields: those of the first event (they are the same for all). */
	const struct tdat_event *first = NULL;
	for (size_t i = 0; i < f->n_events && !first; i++)
		if (f->events[i]->n_common)
			first = f->events[i];
	if (first) {
		if (build_plan(a, f, first->fields, first->n_common, &tf->common))
			return nomem(err);
		tf->sc.event_common_context = tf->common.fc;
	}

	tf->sc.event_classes = tmx_arena_calloc(a, f->n_events ? f->n_events : 1,
						sizeof(*tf->sc.event_classes));
	tf->by_id_events = tmx_arena_calloc(a, f->n_events ? f->n_events : 1,
					    sizeof(*tf->by_id_events));
	if (!tf->sc.event_classes || !tf->by_id_events)
		return nomem(err);
	for (size_t i = 0; i < f->n_events; i++) {
		const struct tdat_event *ev = f->events[i];
		struct tdm_event *te;
		size_t sl, nl;
		if (n && tf->by_id_events[n - 1]->ev->id == ev->id)
			continue;   /* same id twice: the first format wins */
		te = tmx_arena_calloc(a, 1, sizeof(*te));
		if (!te)
			return nomem(err);
		te->ev = ev;
		sl = strlen(ev->system);
		nl = strlen(ev->name);
		te->ec.name = tmx_arena_alloc(a, sl + nl + 2);
		if (!te->ec.name)
			return nomem(err);
		memcpy(te->ec.name, ev->system, sl);
		te->ec.name[sl] = ':';
		memcpy(te->ec.name + sl + 1, ev->name, nl + 1);
		te->ec.id = ev->id;
		te->ec.log_level = TMX_LOG_LEVEL_NONE;
		te->ec.stream_class = &tf->sc;
		if (build_plan(a, f, ev->n_fields ? ev->fields + ev->n_common : NULL,
			       ev->n_fields - ev->n_common, &te->payload))
			return nomem(err);
		te->ec.payload = te->payload.fc;
		tf->by_id_events[n] = te;
		tf->sc.event_classes[n++] = &te->ec;
	}
	tf->sc.n_event_classes = n;
	qsort(tf->sc.event_classes, n, sizeof(*tf->sc.event_classes), cmp_ec);
	return TMX_OK;
}

static struct tdm_event *event_of(const struct tdm_file *tf, uint32_t id)
{
	const struct tmx_event_class *ec = tmx_stream_class_event_class(&tf->sc, id);
	/* ec is the first member of a tdm_event this reader owns (and may change). */
	return ec ? (struct tdm_event *)ec : NULL;
}

/* ------------------------------------------------------------------ */
/* Decoding a record into values                                         */
/* ------------------------------------------------------------------ */

static int reserve(struct tdm_stream *s, size_t need, struct tmx_error *err)
{
	struct tmx_value *v;
	size_t nc;

	if (need <= s->cap_vals)
		return TMX_OK;
	nc = s->cap_vals ? s->cap_vals : 64;
	while (nc < need)
		nc *= 2;
	v = realloc(s->vals, nc * sizeof(*v));
	if (!v)
		return nomem(err);
	s->vals = v;
	s->cap_vals = nc;
	return TMX_OK;
}

static uint64_t read_int(const struct tdat_file *f, const uint8_t *p, uint32_t size, bool sgn)
{
	uint64_t v;

	switch (size) {
	case 1: v = p[0]; return sgn ? (uint64_t)(int64_t)(int8_t)v : v;
	case 2: v = tdat_read16(f, p); return sgn ? (uint64_t)(int64_t)(int16_t)v : v;
	case 4: v = tdat_read32(f, p); return sgn ? (uint64_t)(int64_t)(int32_t)v : v;
	default: return tdat_read64(f, p);
	}
}

static int bad_field(struct tdm_stream *s, const struct tdat_field *fd, const char *why,
		     struct tmx_error *err)
{
	return tmx_error_at(err, TMX_ERR_DATA, s->file->f->path, s->rec.offset,
			    "record of event %s (%u bytes), field %s: %s",
			    s->rec.event ? s->rec.event->name : "?", s->rec.size, fd->name, why);
}

/* Appends the values of one plan (a struct) at s->vals[*n]. */
static int decode_plan(struct tdm_stream *s, const struct plan *p, size_t *n, struct tmx_error *err)
{
	const struct tdat_file *f = s->file->f;
	const uint8_t *d = s->rec.data;
	uint32_t size = s->rec.size;
	int ret;

	if ((ret = reserve(s, *n + 1 + p->n, err)))
		return ret;
	s->vals[*n].fc = p->fc;
	s->vals[*n].n_members = (uint32_t)p->n;
	(*n)++;
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_field *pf = &p->f[i];
		const struct tdat_field *fd = pf->fd;
		struct tmx_value *v;
		uint64_t off = fd->offset, len;

		if ((ret = reserve(s, *n + 1, err)))
			return ret;
		v = &s->vals[(*n)++];
		v->fc = pf->fc;
		if (pf->kind != P_FLEX_TEXT && off + (pf->kind >= P_DYN_STRING ? 4 : fd->size) > size) {
			if (!s->file->lenient)
				return bad_field(s, fd, "beyond the end of the record", err);
			/* Lenient: an empty value of the right shape. */
			if (pf->kind == P_INT)
				v->u = 0;
			else if (pf->kind == P_DYN_STRING || pf->kind == P_TEXT) {
				v->str.ptr = "";
				v->str.len = 0;
			} else {
				v->count = 0;
			}
			if (pf->kind == P_ARRAY || pf->kind == P_BYTES)
				v->fc = pf->fc, v->count = 0;
			continue;
		}
		switch (pf->kind) {
		case P_INT:
			v->u = read_int(f, d + off, fd->size, pf->fc->is_signed);
			break;
		case P_TEXT: {
			const uint8_t *nul = memchr(d + off, '\0', fd->size);
			v->str.ptr = (const char *)d + off;
			v->str.len = nul ? (uint64_t)(nul - (d + off)) : fd->size;
			break;
		}
		case P_FLEX_TEXT: {
			uint64_t avail = off < size ? size - off : 0;
			const uint8_t *nul = avail ? memchr(d + off, '\0', avail) : NULL;
			v->str.ptr = avail ? (const char *)d + off : "";
			v->str.len = nul ? (uint64_t)(nul - (d + off)) : avail;
			break;
		}
		case P_ARRAY:
		case P_BYTES: {
			uint32_t es = pf->elem->size / 8, cnt = (uint32_t)pf->fc->length;
			v->count = cnt;
			if ((ret = reserve(s, *n + cnt, err)))
				return ret;
			for (uint32_t k = 0; k < cnt; k++) {
				struct tmx_value *e = &s->vals[(*n)++];
				e->fc = pf->elem;
				e->u = read_int(f, d + off + (uint64_t)k * es, es, pf->elem->is_signed);
			}
			break;
		}
		case P_DYN_STRING:
		case P_DYN_SEQ: {
			uint32_t loc = tdat_read32(f, d + off);
			uint64_t start = loc & 0xffff;
			len = loc >> 16;
			if (fd->flags & TDAT_FIELD_RELATIVE)
				start += off + fd->size;
			if (start + len > size) {
				if (!s->file->lenient)
					return bad_field(s, fd, "dynamic data beyond the end of the record",
							 err);
				len = 0;
				start = 0;
			}
			if (pf->kind == P_DYN_STRING) {
				const uint8_t *nul = len ? memchr(d + start, '\0', len) : NULL;
				v->str.ptr = len ? (const char *)d + start : "";
				v->str.len = nul ? (uint64_t)(nul - (d + start)) : len;
			} else {
				uint32_t es = pf->elem->size / 8;
				uint64_t cnt = len / es;
				v->count = cnt;
				if ((ret = reserve(s, *n + cnt, err)))
					return ret;
				for (uint64_t k = 0; k < cnt; k++) {
					struct tmx_value *e = &s->vals[(*n)++];
					e->fc = pf->elem;
					e->u = read_int(f, d + start + k * es, es, false);
				}
			}
			break;
		}
		}
	}
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Stream iterators                                                      */
/* ------------------------------------------------------------------ */

static void set_time(struct tmx_msg *m, uint64_t ts)
{
	m->has_ts = true;
	m->cycles = ts;
	m->ns = ts > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ts;
}

static int stream_next(struct tmx_msg_iter *it, const struct tmx_msg **out, struct tmx_error *err)
{
	struct tdm_stream *s = (struct tdm_stream *)it;
	struct tmx_msg *m = &s->msg;
	int ret;

	*out = NULL;
	for (;;) {
		memset(m, 0, sizeof(*m));
		m->stream = &s->stream;
		switch (s->state) {
		case S_BEGIN:
			m->kind = TMX_MSG_STREAM_BEGIN;
			s->state = S_PACKET;
			*out = m;
			return TMX_OK;
		case S_PACKET:
			if ((ret = tdat_cursor_peek(s->cur, &s->next, err))) {
				s->state = S_DONE;
				return ret;
			}
			if (!s->next) {
				s->state = S_END;
				continue;
			}
			s->packet.has_begin = true;
			s->packet.begin_cycles = s->next->ts;
			s->packet.begin_ns = s->next->ts > (uint64_t)INT64_MAX ? INT64_MAX
										: (int64_t)s->next->ts;
			m->kind = TMX_MSG_PACKET_BEGIN;
			m->packet = &s->packet;
			set_time(m, s->next->ts);
			s->state = S_EVENTS;
			*out = m;
			return TMX_OK;
		case S_EVENTS: {
			const struct tdat_record *r;
			struct tdm_event *te;
			size_t n = 0;
			if ((ret = tdat_cursor_peek(s->cur, &r, err))) {
				s->state = S_DONE;
				return ret;
			}
			if (!r) {
				s->state = S_PACKET_END;
				continue;
			}
			if (r->missed_events && !s->pending_discard_done) {
				s->pending_discard_done = true;
				s->disc = *r;
				s->disc.file_index = s->file->index;
				s->disc.data = NULL;
				s->disc.size = 0;
				m->kind = TMX_MSG_DISCARDED_EVENTS;
				m->packet = &s->packet;
				m->count = r->missed_events > 0 ? (uint64_t)r->missed_events : 0;
				set_time(m, r->ts);
				if (s->have_last) {
					m->has_range = true;
					m->begin_cycles = s->last_ts;
					m->begin_ns = (int64_t)(s->last_ts > (uint64_t)INT64_MAX ? INT64_MAX
												  : s->last_ts);
					m->end_cycles = r->ts;
					m->end_ns = m->ns;
				}
				*out = m;
				return TMX_OK;
			}
			s->pending_discard_done = false;
			s->rec = *r;
			s->rec.file_index = s->file->index;
			tdat_cursor_next(s->cur, &r, err);   /* consume the peeked record */
			s->have_last = true;
			s->last_ts = s->rec.ts;
			te = s->rec.event ? event_of(s->file, s->rec.event->id) : NULL;
			if (!te) {
				/* Unknown id or unparsable format: no class to put it in. */
				if (s->warned_ids++ < 3) {
					uint32_t id = 0;
					if (s->rec.size >= 2)
						id = tdat_read16(s->file->f, s->rec.data);
					tmx_warn(s->file->diag, "%s: at byte %llu: record with unknown event id %u "
						 "skipped", s->file->f->path, (unsigned long long)s->rec.offset,
						 id);
				}
				continue;
			}
			if (te->unwanted)
				continue;
			if (s->file->common.fc && (ret = decode_plan(s, &s->file->common, &n, err))) {
				s->state = S_DONE;
				return ret;
			}
			size_t pay = n;
			if ((ret = decode_plan(s, &te->payload, &n, err))) {
				s->state = S_DONE;
				return ret;
			}
			s->event.cls = &te->ec;
			s->event.packet = &s->packet;
			s->event.scopes[TMX_SCOPE_PACKET_CONTEXT] = s->pctx;
			s->event.scopes[TMX_SCOPE_COMMON_CONTEXT] = s->file->common.fc ? s->vals : NULL;
			s->event.scopes[TMX_SCOPE_SPECIFIC_CONTEXT] = NULL;
			s->event.scopes[TMX_SCOPE_PAYLOAD] = s->vals + pay;
			m->kind = TMX_MSG_EVENT;
			m->packet = &s->packet;
			m->event = &s->event;
			set_time(m, s->rec.ts);
			*out = m;
			return TMX_OK;
		}
		case S_PACKET_END:
			s->packet.has_end = true;
			s->packet.end_cycles = s->last_ts;
			s->packet.end_ns = s->last_ts > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)s->last_ts;
			m->kind = TMX_MSG_PACKET_END;
			m->packet = &s->packet;
			set_time(m, s->last_ts);
			s->state = S_END;
			*out = m;
			return TMX_OK;
		case S_END:
			m->kind = TMX_MSG_STREAM_END;
			s->state = S_DONE;
			*out = m;
			return TMX_OK;
		case S_DONE:
			return TMX_OK;
		}
	}
}

/* Streams are owned by the source, not the muxer. */
static void stream_keep(struct tmx_msg_iter *it)
{
	(void)it;
}

static void stream_free(struct tdm_stream *s)
{
	if (!s)
		return;
	tdat_cursor_close(s->cur);
	free(s->vals);
	free(s->stream.name);
	free(s);
}

/* ------------------------------------------------------------------ */
/* The source                                                            */
/* ------------------------------------------------------------------ */

static void src_free(void *impl)
{
	struct tdm_source *ts = impl;

	if (!ts)
		return;
	tmx_muxer_free(ts->mux);
	for (size_t i = 0; i < ts->n_streams; i++)
		stream_free(ts->streams[i]);
	free(ts->streams);
	for (size_t i = 0; i < ts->n_files; i++) {
		if (!ts->files[i])
			continue;
		tdat_file_close(ts->files[i]->f);
		tmx_arena_free(&ts->files[i]->arena);
		free(ts->files[i]);
	}
	free(ts->files);
	free(ts);
}

static int src_next(void *impl, const struct tmx_msg **msg, struct tmx_error *err)
{
	struct tdm_source *ts = impl;

	return tmx_muxer_next(ts->mux, msg, err);
}

/*
 * Filters drop events per stream, before the muxer orders them; the
 * streams do not decode the records of classes that cannot pass.
 */
static void src_set_filter(void *impl, const struct tmx_reader_filter *f)
{
	struct tdm_source *ts = impl;

	ts->filter = f;
	for (size_t i = 0; i < ts->n_files; i++) {
		struct tdm_file *tf = ts->files[i];

		for (size_t e = 0; e < tf->sc.n_event_classes; e++)
			tf->by_id_events[e]->unwanted = f && !f->wanted(f->ctx, &tf->by_id_events[e]->ec);
	}
	tmx_muxer_set_filter(ts->mux, f ? f->keep : NULL, f ? f->ctx : NULL);
}

/*
 * Each stream reads its own cursor (pages, decompression context); what
 * the streams of a file share is read-only but the lenient-mode counters
 * (atomic): they may be read on worker threads.
 */
static struct tmx_muxer *src_stream_muxer(void *impl)
{
	return ((struct tdm_source *)impl)->mux;
}

static size_t src_stream_count(const void *impl)
{
	return ((const struct tdm_source *)impl)->n_streams;
}

static void src_stream_info(const void *impl, size_t i, struct tmx_stream_info *info)
{
	const struct tdm_stream *s = ((const struct tdm_source *)impl)->streams[i];
	const struct tdat_cpu_data *cd =
		&s->file->f->buffers[s->buffer].cpus[s->stream.id & 0xffffffffu];

	memset(info, 0, sizeof(*info));
	info->stream = &s->stream;
	info->has_instance_id = true;
	info->has_range = s->has_range;
	info->begin_ns = s->range_begin;
	info->end_ns = s->range_end;
	info->n_packets = 1;
	info->bytes = cd->size;
	info->n_files = 1;
}

static size_t src_trace_count(const void *impl)
{
	return ((const struct tdm_source *)impl)->n_files;
}

static const struct tmx_trace *src_trace(const void *impl, size_t i)
{
	const struct tdm_source *ts = impl;
	return i < ts->n_files ? &ts->files[i]->trace : NULL;
}

static void src_skipped(const void *impl, uint64_t *units, uint64_t *bytes)
{
	const struct tdm_source *ts = impl;

	*units = *bytes = 0;
	for (size_t i = 0; i < ts->n_files; i++) {
		uint64_t u, b;
		if (!ts->files[i]->f)
			continue;
		tdat_file_skipped(ts->files[i]->f, &u, &b);
		*units += u;
		*bytes += b;
	}
}

const struct tmx_source_ops tdat_source_ops = {
	.format = "tracedat",
	.next = src_next,
	.free = src_free,
	.stream_count = src_stream_count,
	.stream_info = src_stream_info,
	.logical_trace_count = src_trace_count,
	.logical_trace = src_trace,
	.skipped = src_skipped,
	.set_filter = src_set_filter,
	.stream_muxer = src_stream_muxer,
};

static int add_streams(struct tdm_source *ts, struct tdm_file *tf, size_t *cap,
		       struct tmx_error *err)
{
	const struct tdat_file *f = tf->f;
	int ret;

	for (size_t b = 0; b < f->n_buffers; b++) {
		const struct tdat_buffer *buf = &f->buffers[b];
		if (buf->latency) {
			tmx_warn(tf->diag, "%s: buffer \"%s\" holds latency text, not records: it has no "
				 "events in the common model", f->path, buf->name);
			continue;
		}
		for (uint32_t c = 0; c < buf->n_cpus; c++) {
			struct tdm_stream *s = calloc(1, sizeof(*s));
			size_t nl;
			if (!s)
				return nomem(err);
			if (ts->n_streams == *cap) {
				size_t nc = *cap ? *cap * 2 : 8;
				struct tdm_stream **ns = realloc(ts->streams, nc * sizeof(*ns));
				if (!ns) {
					free(s);
					return nomem(err);
				}
				ts->streams = ns;
				*cap = nc;
			}
			ts->streams[ts->n_streams++] = s;
			s->iter.next = stream_next;
			s->iter.destroy = stream_keep;
			s->file = tf;
			s->buffer = (uint32_t)b;
			s->stream.id = (uint64_t)b << 32 | c;
			s->stream.cls = &tf->sc;
			s->stream.trace = &tf->trace;
			nl = strlen(f->path) + strlen(buf->name) + 32;
			if (!(s->stream.name = malloc(nl)))
				return nomem(err);
			if (*buf->name)
				snprintf(s->stream.name, nl, "%s/%s/cpu%u", f->path, buf->name, buf->cpus[c].cpu);
			else
				snprintf(s->stream.name, nl, "%s/cpu%u", f->path, buf->cpus[c].cpu);
			s->packet.stream = &s->stream;
			s->packet.context = s->pctx;
			s->packet.offset = buf->cpus[c].offset;
			s->pctx[0].fc = tf->pctx_fc;
			s->pctx[0].n_members = 1;
			s->pctx[1].fc = tf->pctx_fc->members[0].fc;
			s->pctx[1].u = buf->cpus[c].cpu;
			if ((ret = tdat_cursor_open(f, b, c, &s->cur, err)))
				return ret;
			uint64_t first, last;
			if (tdat_cpu_time_range(f, b, c, &first, &last)) {
				uint64_t b0 = tdat_convert_ts_cpu(f, first, buf->cpus[c].cpu);
				uint64_t e0 = tdat_convert_ts_cpu(f, last, buf->cpus[c].cpu);
				s->has_range = b0 <= (uint64_t)INT64_MAX && e0 <= (uint64_t)INT64_MAX;
				s->range_begin = (int64_t)b0;
				s->range_end = (int64_t)e0;
			}
		}
	}
	return TMX_OK;
}

int tmx_tracedat_open(const char *const *paths, size_t n_paths,
		      const struct tmx_tracedat_opts *in, const struct tmx_diag *diag,
		      struct tmx_source **out, struct tmx_error *err)
{
	struct tmx_tracedat_opts opts;
	struct tdm_source *ts = calloc(1, sizeof(*ts));
	struct tdat_open_opts fo = { 0 };
	struct tmx_msg_iter **iters = NULL;
	size_t cap = 0;
	int ret = TMX_OK;

	*out = NULL;
	if ((ret = tmx_opts_copy(&opts, sizeof(opts), in, "tmx_tracedat_opts", err))) {
		free(ts);
		return ret;
	}
	if (!ts)
		return nomem(err);
	fo.lenient = opts.lenient;
	fo.diag = diag;
	fo.skip_texts = true;
	ts->files = calloc(n_paths ? n_paths : 1, sizeof(*ts->files));
	if (!ts->files) {
		free(ts);
		return nomem(err);
	}
	for (size_t i = 0; i < n_paths && !ret; i++) {
		struct tdm_file *tf = calloc(1, sizeof(*tf));
		if (!tf) {
			ret = nomem(err);
			break;
		}
		ts->files[ts->n_files++] = tf;
		tmx_arena_init(&tf->arena);
		tf->index = i;
		tf->diag = diag;
		tf->lenient = fo.lenient;
		if ((ret = tdat_file_open(paths[i], &fo, &tf->f, err)))
			break;
		if ((ret = build_file(tf, err)))
			break;
		ret = add_streams(ts, tf, &cap, err);
	}
	if (!ret && !(iters = malloc((ts->n_streams ? ts->n_streams : 1) * sizeof(*iters))))
		ret = nomem(err);
	if (ret) {
		src_free(ts);
		return ret;
	}
	for (size_t i = 0; i < ts->n_streams; i++)
		iters[i] = &ts->streams[i]->iter;
	ret = tmx_muxer_new(iters, ts->n_streams, &ts->mux, err);
	free(iters);
	if (ret) {
		ts->mux = NULL;
		src_free(ts);
		return ret;
	}
	return tmx_source_new(&tdat_source_ops, ts, out, err);
}

size_t tdat_source_file_count(const struct tmx_source *src)
{
	const struct tdm_source *ts = src ? tmx_source_impl(src, &tdat_source_ops) : NULL;
	return ts ? ts->n_files : 0;
}

const struct tdat_file *tdat_source_file(const struct tmx_source *src, size_t i)
{
	const struct tdm_source *ts = src ? tmx_source_impl(src, &tdat_source_ops) : NULL;
	return ts && i < ts->n_files ? ts->files[i]->f : NULL;
}

const struct tdat_record *tdat_record_of(const struct tmx_msg *msg)
{
	const struct tdm_stream *s;

	if (!msg || !msg->stream || !msg->stream->cls ||
	    msg->stream->cls->event_header != &event_header_marker)
		return NULL;
	s = (const struct tdm_stream *)((const char *)msg->stream - offsetof(struct tdm_stream, stream));
	if (msg->kind == TMX_MSG_EVENT)
		return &s->rec;
	if (msg->kind == TMX_MSG_DISCARDED_EVENTS)
		return &s->disc;
	return NULL;
}
