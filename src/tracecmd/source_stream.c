/*
 * trace.dat files as a source of the common model: a stream's records
 * decoded into values and its message sequence (see source_impl.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tracecmd/source_impl.h"

static struct tdm_event *event_of(const struct tdm_file *tf, uint32_t id)
{
	const struct tmx_event_class *ec = tmx_stream_class_event_class(&tf->sc, id);
	/* ec is the first member of a tdm_event this reader owns (and may change). */
	return ec ? (struct tdm_event *)ec : NULL;
}

/* ------------------------------------------------------------------ */
/* Decoding a record into values                                         */
/* ------------------------------------------------------------------ */

static int grow_vals(struct tdm_stream *s, size_t need, struct tmx_error *err)
{
	void *v = s->vals;

	if (!tmx_grow_array(&v, &s->cap_vals, need, sizeof(*s->vals), 64))
		return tdm_nomem(err);
	s->vals = v;
	return TMX_OK;
}

/* Room for `need` values (s->vals may move). */
static inline int reserve(struct tdm_stream *s, size_t need, struct tmx_error *err)
{
	return need <= s->cap_vals ? TMX_OK : grow_vals(s, need, err);
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

/* `cnt` integers of pf's element class at p, appended at s->vals[*n]. */
static int put_ints(struct tdm_stream *s, const struct plan_field *pf, const uint8_t *p,
		    uint64_t cnt, bool sgn, size_t *n, struct tmx_error *err)
{
	uint32_t es = pf->elem->size / 8;
	int ret;

	if ((ret = reserve(s, *n + cnt, err)))
		return ret;
	for (uint64_t k = 0; k < cnt; k++) {
		struct tmx_value *e = &s->vals[(*n)++];
		e->fc = pf->elem;
		e->u = read_int(s->file->f, p + k * es, es, sgn);
	}
	return TMX_OK;
}

static int bad_field(struct tdm_stream *s, const struct tdat_field *fd, const char *why,
		     struct tmx_error *err)
{
	return tmx_error_at(err, TMX_ERR_DATA, s->file->f->path, s->rec.offset,
			    "record of event %s (%u bytes), field %s: %s",
			    s->rec.event ? s->rec.event->name : "?", s->rec.size, fd->name, why);
}

/* A text value: the `n` bytes at `p` up to their first NUL, if any ("" when n is 0). */
static inline __attribute__((always_inline)) void put_text(struct tmx_value *v, const uint8_t *p,
							  uint64_t n)
{
	const uint8_t *nul = n ? memchr(p, '\0', n) : NULL;

	v->str.ptr = n ? (const char *)p : "";
	v->str.len = nul ? (uint64_t)(nul - p) : n;
}

/*
 * Where the dynamic data of field `pf` is (its location word `loc`):
 * *start and *len in the record, or, lenient, none when beyond its end.
 */
static inline __attribute__((always_inline)) int dyn_data(struct tdm_stream *s,
							 const struct plan_field *pf, uint32_t loc,
							 uint64_t *start, uint64_t *len,
							 struct tmx_error *err)
{
	*start = loc & 0xffff;
	*len = loc >> 16;
	if (pf->fd->flags & TDAT_FIELD_RELATIVE)
		*start += (uint64_t)pf->off + pf->size;
	if (*start + *len > s->rec.size) {
		if (!s->file->lenient)
			return bad_field(s, pf->fd, "dynamic data beyond the end of the record", err);
		*len = 0;
		*start = 0;
	}
	return TMX_OK;
}

/*
 * The values of one plan (a struct) at s->vals[*n], with a bounds check
 * per field: records shorter than the plan's fixed part.
 */
static int decode_checked(struct tdm_stream *s, const struct plan *p, size_t *n,
			  struct tmx_error *err)
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
		case P_TEXT:
			put_text(v, d + off, fd->size);
			break;
		case P_FLEX_TEXT:
			put_text(v, d + off, off < size ? size - off : 0);
			break;
		case P_ARRAY:
		case P_BYTES: {
			uint32_t cnt = (uint32_t)pf->fc->length;
			v->count = cnt;
			if ((ret = put_ints(s, pf, d + off, cnt, pf->elem->is_signed, n, err)))
				return ret;
			break;
		}
		case P_DYN_STRING:
		case P_DYN_SEQ: {
			uint64_t start;
			if ((ret = dyn_data(s, pf, tdat_read32(f, d + off), &start, &len, err)))
				return ret;
			if (pf->kind == P_DYN_STRING) {
				put_text(v, d + start, len);
			} else {
				uint64_t cnt = len / (pf->elem->size / 8);
				v->count = cnt;
				if ((ret = put_ints(s, pf, d + start, cnt, false, n, err)))
					return ret;
			}
			break;
		}
		}
	}
	return TMX_OK;
}

/*
 * The fast path: a record that holds every field's fixed part (one check
 * per plan instead of one per field), values reserved once per plan, and
 * integers read by width in the file's byte order (`swap` is a constant
 * in each of the two copies decode_plan calls).  The values are those
 * decode_checked gives.
 */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE uint16_t ld16(const uint8_t *p, bool swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

ALWAYS_INLINE uint32_t ld32(const uint8_t *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

ALWAYS_INLINE uint64_t ld64(const uint8_t *p, bool swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* cnt integers of es bytes at p as values of class fc at e (put_ints' values). */
ALWAYS_INLINE void put_elems(struct tmx_value *e, const struct tmx_field_class *fc,
			     const uint8_t *p, uint64_t cnt, uint32_t es, bool sgn, bool swap)
{
	const struct tmx_value *end = e + cnt;

	switch (es) {
	case 1:
		for (; e < end; e++, p++)
			e->fc = fc, e->u = sgn ? (uint64_t)(int64_t)(int8_t)p[0] : p[0];
		break;
	case 2:
		for (; e < end; e++, p += 2) {
			uint16_t v = ld16(p, swap);
			e->fc = fc, e->u = sgn ? (uint64_t)(int64_t)(int16_t)v : v;
		}
		break;
	case 4:
		for (; e < end; e++, p += 4) {
			uint32_t v = ld32(p, swap);
			e->fc = fc, e->u = sgn ? (uint64_t)(int64_t)(int32_t)v : v;
		}
		break;
	default:
		for (; e < end; e++, p += 8)
			e->fc = fc, e->u = ld64(p, swap);
		break;
	}
}

/*
 * The values of an event plan (te->all) at s->vals[0]; *pay: where the
 * payload's struct is (the last OP_STRUCT).  Threaded
 * code (GNU labels as values): each operation jumps to the next one's,
 * OP_END ends, with no loop test and no switch bounds check per field.
 */
static __attribute__((noinline)) int decode_fast(struct tdm_stream *s, const struct plan *p,
						 const struct tmx_value **pay, struct tmx_error *err)
{
	static const void *const ops[] = {
		[OP_U8] = &&u8, [OP_S8] = &&s8, [OP_U16] = &&u16, [OP_S16] = &&s16,
		[OP_U32] = &&u32, [OP_S32] = &&s32, [OP_X64] = &&x64,
		[OP_U16_SW] = &&u16_sw, [OP_S16_SW] = &&s16_sw, [OP_U32_SW] = &&u32_sw,
		[OP_S32_SW] = &&s32_sw, [OP_X64_SW] = &&x64_sw,
		[OP_TEXT] = &&text, [OP_FLEX_TEXT] = &&flex_text, [OP_ELEMS] = &&elems,
		[OP_DYN_STRING] = &&dyn, [OP_DYN_SEQ] = &&dyn, [OP_STRUCT] = &&strct, [OP_END] = &&end,
	};
	const uint8_t *d = s->rec.data;
	uint32_t size = s->rec.size;
	bool swap = s->file->swap;
	const struct plan_field *pf = p->f;
	struct tmx_value *vals, *v, *at;
	const uint8_t *q;
	int ret;

	if ((ret = reserve(s, p->n_vals, err)))
		return ret;
	vals = at = v = s->vals;
	/* each operation: the value of field pf at v, from q (its bytes) */
#define NEXT do { pf++; v++; q = d + pf->off; v->fc = pf->fc; goto *ops[pf->op]; } while (0)
	q = d + pf->off;
	v->fc = pf->fc;
	goto *ops[pf->op];
strct:
	v->n_members = pf->len;
	at = v;
	NEXT;
u8:	v->u = q[0]; NEXT;
s8:	v->u = (uint64_t)(int64_t)(int8_t)q[0]; NEXT;
u16:	v->u = ld16(q, false); NEXT;
s16:	v->u = (uint64_t)(int64_t)(int16_t)ld16(q, false); NEXT;
u32:	v->u = ld32(q, false); NEXT;
s32:	v->u = (uint64_t)(int64_t)(int32_t)ld32(q, false); NEXT;
x64:	v->u = ld64(q, false); NEXT;
u16_sw:	v->u = ld16(q, true); NEXT;
s16_sw:	v->u = (uint64_t)(int64_t)(int16_t)ld16(q, true); NEXT;
u32_sw:	v->u = ld32(q, true); NEXT;
s32_sw:	v->u = (uint64_t)(int64_t)(int32_t)ld32(q, true); NEXT;
x64_sw:	v->u = ld64(q, true); NEXT;
text:
	put_text(v, q, pf->size);
	NEXT;
flex_text:
	put_text(v, q, pf->off < size ? size - pf->off : 0);
	NEXT;
elems:
	v->count = pf->len;
	if (swap)
		put_elems(v + 1, pf->elem, q, pf->len, pf->es, pf->esgn, true);
	else
		put_elems(v + 1, pf->elem, q, pf->len, pf->es, pf->esgn, false);
	v += pf->len;
	NEXT;
dyn: {   /* OP_DYN_STRING, OP_DYN_SEQ */
	uint64_t start, len;
	if ((ret = dyn_data(s, pf, ld32(q, swap), &start, &len, err)))
		return ret;
	if (pf->op == OP_DYN_STRING) {
		put_text(v, d + start, len);
	} else {
		uint64_t cnt = len / pf->es;
		size_t k = (size_t)(v - vals) + 1, a = (size_t)(at - vals);
		v->count = cnt;
		if (cnt) {
			/* the elements and what the plan may still need (s->vals may move) */
			if ((ret = reserve(s, k + cnt + p->n_vals, err)))
				return ret;
			vals = s->vals;
			at = vals + a;
			put_elems(vals + k, pf->elem, d + start, cnt, pf->es, false, swap);
			v = vals + k + cnt - 1;
		}
	}
	NEXT;
}
#undef NEXT
end:
	*pay = at;
	return TMX_OK;
}

/*
 * A record long enough for the fast path whose values no one reads
 * (tdm_file.values_unread): what decode_fast would fail on, a dynamic
 * field's data beyond the record, without making its values.
 */
static int check_unread(struct tdm_stream *s, const struct plan *p, struct tmx_error *err)
{
	uint64_t start, len;
	int ret;

	if (!p->dyn || s->file->lenient)
		return TMX_OK;
	for (const struct plan_field *pf = p->f; pf->op != OP_END; pf++)
		if ((pf->op == OP_DYN_STRING || pf->op == OP_DYN_SEQ) &&
		    (ret = dyn_data(s, pf, ld32(s->rec.data + pf->off, s->file->swap), &start, &len,
				    err)))
			return ret;
	return TMX_OK;
}

/*
 * The values of the current record, of event te, at s->vals: the common
 * fields' struct (if the file has common fields) then the payload's at
 * *pay.
 */
static int decode_record(struct tdm_stream *s, const struct tdm_event *te,
			 const struct tmx_value **pay, struct tmx_error *err)
{
	size_t n = 0, at;
	int ret;

	if (s->rec.size >= te->all.fixed_end)
		return decode_fast(s, &te->all, pay, err);
	if (s->file->common.fc && (ret = decode_checked(s, &s->file->common, &n, err)))
		return ret;
	at = n;
	ret = decode_checked(s, &te->payload, &n, err);
	*pay = s->vals + at;   /* after the payload's values: s->vals may have moved */
	return ret;
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

/* An error: the stream (or segment) ends there. */
static int fail(struct tdm_stream *s, int ret)
{
	s->state = S_DONE;
	if (s->seg)
		tdm_seg_end(s->seg);
	return ret;
}

int tdm_stream_next(struct tmx_msg_iter *it, const struct tmx_msg **out, struct tmx_error *err)
{
	struct tdm_stream *s = (struct tdm_stream *)it;
	struct tmx_msg *m = &s->msg;
	int ret;

	*out = NULL;
	for (;;) {
		/*
		 * After an event, the next event sets every field an event
		 * has (the others stay zero): the 104 bytes are cleared only
		 * before other messages (and discarded events, below).
		 */
		if (m->kind != TMX_MSG_EVENT || s->state != S_EVENTS) {
			memset(m, 0, sizeof(*m));
			m->stream = s->as ? s->as : &s->stream;
		}
		switch (s->state) {
		case S_BEGIN:
			m->kind = TMX_MSG_STREAM_BEGIN;
			s->state = S_PACKET;
			*out = m;
			return TMX_OK;
		case S_SEG_START:   /* sets the state it goes on from */
			tdm_seg_start(s->seg);
			continue;
		case S_PACKET:
			if ((ret = tdat_cursor_peek(s->cur, &s->next, err)))
				return fail(s, ret);
			if (!s->next) {
				s->state = s->open_end ? S_DONE : S_END;
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
			if ((ret = tdat_cursor_peek(s->cur, &r, err)))
				return fail(s, ret);
			if (!r) {
				s->state = s->open_end ? S_DONE : S_PACKET_END;
				continue;
			}
			if (r->missed_events && !s->pending_discard_done) {
				memset(m, 0, sizeof(*m));
				m->stream = s->as ? s->as : &s->stream;
				s->pending_discard_done = true;
				s->disc = *r;
				s->disc.file_index = s->file->index;
				s->disc.data = NULL;
				s->disc.size = 0;
				m->kind = TMX_MSG_DISCARDED_EVENTS;
				m->packet = &s->packet;
				m->count = r->missed_events > 0 ? (uint64_t)r->missed_events : 0;
				set_time(m, r->ts);
				if (s->last_pending)
					tdm_seg_last(s);
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
			s->last_pending = false;
			s->last_ts = s->rec.ts;
			if (!s->rec.event)
				te = NULL;
			else if (s->rec.event->id < s->file->n_dense)
				te = s->file->dense[s->rec.event->id];
			else
				te = event_of(s->file, s->rec.event->id);
			if (!te) {
				/* Unknown id or unparsable format: no class to put it in. */
				if (s->warned_ids++ < 3) {
					uint32_t id = 0;
					if (s->rec.size >= 2)
						id = tdat_read16(s->file->f, s->rec.data);
					/* 3 per stream, also when read in segments (segment.c) */
					tmx_warn_limit(s->file->diag, m->stream, 3, "%s: at byte %llu: record "
						       "with unknown event id %u skipped", s->file->f->path,
						       (unsigned long long)s->rec.offset, id);
				}
				continue;
			}
			if (te->unwanted)
				continue;
			const struct tmx_value *pay = NULL;
			if (s->file->values_unread && s->rec.size >= te->all.fixed_end)
				ret = check_unread(s, &te->all, err);
			else
				ret = decode_record(s, te, &pay, err);
			if (ret)
				return fail(s, ret);
			s->event.cls = &te->ec;
			s->event.packet = &s->packet;
			s->event.scopes[TMX_SCOPE_PACKET_CONTEXT] = s->pctx;
			s->event.scopes[TMX_SCOPE_COMMON_CONTEXT] = pay && s->file->common.fc ? s->vals : NULL;
			s->event.scopes[TMX_SCOPE_SPECIFIC_CONTEXT] = NULL;
			s->event.scopes[TMX_SCOPE_PAYLOAD] = pay;
			m->kind = TMX_MSG_EVENT;
			m->packet = &s->packet;
			m->event = &s->event;
			set_time(m, s->rec.ts);
			*out = m;
			return TMX_OK;
		}
		case S_PACKET_END:
			if (s->last_pending)
				tdm_seg_last(s);
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
			if (s->seg)
				tdm_seg_end(s->seg);
			return TMX_OK;
		}
	}
}

/* Streams are owned by the reader (src_free), not the muxer. */
void tdm_stream_keep(struct tmx_msg_iter *it)
{
	(void)it;
}

void tdm_stream_free(struct tdm_stream *s)
{
	if (!s)
		return;
	tdat_cursor_close(s->cur);
	free(s->vals);
	free(s->stream.name);
	free(s);
}

