/*
 * User-space events formatted alone (on the parallel runner's workers when
 * it splits, else just before track.c writes them): the part of a track
 * event that depends on its stream only.
 *
 * Each stream is a trusted packet sequence of its own (id: the source's
 * stream number + 1), with Perfetto's interning per sequence (PERFETTO.md:
 * InternedData, sequence_flags): event names (classes and functions),
 * debug annotation names (a class's leaves, all at its first event) and
 * the string values of text fields, as `debug_annotation_string_values` /
 * `string_value_iid` (interned_data.proto 29, debug_annotation.proto 17).
 * A value that is not interned goes in the class's TrackEvent extension
 * (uext.c) when its leaf has a place there, else in a debug annotation.
 * A stream is read by one thread at a time, in its order, so this state
 * is a function of the stream alone and the bytes do not depend on the
 * jobs.  What depends on other streams (which tracks exist, the slice
 * stacks of threads that run on several CPUs) is track.c's, in merged
 * order: the piece says the event's thread and function.
 *
 * Interning is bounded: a text field stops being interned on a sequence
 * when most of its first values were new (unique strings cost more
 * interned), and past PF_SEQ_MAX_STRINGS strings or PF_SEQ_MAX_BYTES the
 * sequence's incremental state is cleared (the next packet says so) and
 * interning starts again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "model/field_class.h"
#include "sink/perfetto/perfetto_impl.h"
#include "sink/perfetto/pf_proto.h"
#include "tracemux/event.h"

#define STR_MIN 3          /* shorter strings cost less inline than as an iid */
/* the same in a class's extension: 2 + n bytes inline against a 7-byte annotation */
#define STR_MIN_EXT 6
#define STR_MAX 256        /* longer ones are never interned */
#define LEAF_TRIAL 128     /* values of a field before its new-value ratio is judged */

void pf_seq_free(struct pf_seq *q)
{
	if (!q)
		return;
	free(q->cls);
	free(q->lstat);
	imap_free(&q->func_iid);
	imap_free(&q->str_iid);
	imap_free(&q->named);
	free(q->str_off);
	tmx_buf_free(&q->strs);
	free(q);
}

static void imap_reset(struct imap *m)
{
	if (m->cap)
		memset(m->keys, 0, m->cap * sizeof(*m->keys));
	m->n = 0;
}

/* Everything interned forgotten: the next packet clears the sequence's incremental state. */
static void seq_reset(struct pf_seq *q, size_t n_classes, size_t n_leaves)
{
	q->started = false;
	q->next_name_iid = q->next_da_iid = q->next_str_iid = 1;
	memset(q->cls, 0, 2 * n_classes * sizeof(*q->cls));
	memset(q->lstat, 0, 2 * n_leaves * sizeof(*q->lstat));
	imap_reset(&q->func_iid);
	imap_reset(&q->str_iid);
	imap_reset(&q->named);
	q->strs.len = 0;
}

/* The sequence of a stream, made at its first event; NULL when out of memory. */
static struct pf_seq *seq_of(struct pf_fmt *f, const struct tmx_stream *stream)
{
	const struct tmx_perfetto *s = f->sink;
	struct pf_stream *st = pf_stream_of(f, stream);
	struct pf_seq *q;

	if (!st)
		return NULL;
	if ((q = s->seqs[st->pseq]))
		return q;
	if (!(q = calloc(1, sizeof(*q))) ||
	    !(q->cls = calloc(2 * s->n_classes + 1, sizeof(*q->cls))) ||
	    !(q->lstat = calloc(2 * s->n_leaves + 1, sizeof(*q->lstat)))) {
		pf_seq_free(q);
		return NULL;
	}
	q->id = st->pseq + 1;
	seq_reset(q, s->n_classes, s->n_leaves);
	return s->seqs[st->pseq] = q;
}

/* ---- interning into f->ib ---- */

static void intern_entry(struct tmx_buf *b, uint32_t field, uint64_t iid, const char *s, size_t n)
{
	size_t in = pb_open(b, field);

	pb_uint(b, PF_EN_IID, iid);
	pb_bytes(b, PF_EN_NAME, s, n);
	pb_close(b, in);
}

/* The iid of a class's name on this sequence. */
static uint64_t class_name(struct pf_fmt *f, struct pf_seq *q, const struct pf_class *c)
{
	uint32_t *slot = &q->cls[2 * c->num];

	if (!*slot) {
		const char *n = c->ec->name ? c->ec->name : "<unknown>";

		*slot = (uint32_t)q->next_name_iid++;
		intern_entry(&f->ib, PF_ID_EVENT_NAMES, *slot, n, strlen(n));
	}
	return *slot;
}

/* The iid of a class's first leaf name (the others follow), interned all at once. */
static uint64_t leaf_names(struct pf_fmt *f, struct pf_seq *q, const struct pf_class *c)
{
	uint32_t *slot = &q->cls[2 * c->num + 1];

	if (!*slot && c->leaves.n) {
		*slot = (uint32_t)q->next_da_iid;
		for (size_t i = 0; i < c->leaves.n; i++)
			intern_entry(&f->ib, PF_ID_DEBUG_ANNOTATION_NAMES, q->next_da_iid++,
				     c->leaves.leaf[i].name, strlen(c->leaves.leaf[i].name));
	}
	return *slot;
}

/* A function's name iid (interned when new); 0 when out of memory. */
static uint64_t func_name(struct pf_fmt *f, struct pf_seq *q, uint64_t key, const char *name,
			  size_t len)
{
	bool added;
	uint32_t *slot = imap_get(&q->func_iid, key, 0, &added);

	if (!slot)
		return 0;
	if (added) {
		*slot = (uint32_t)q->next_name_iid++;
		intern_entry(&f->ib, PF_ID_EVENT_NAMES, *slot, name, len);
	}
	return *slot;
}

/*
 * A hash of a string of STR_MIN (3) bytes or more, eight bytes at a time;
 * the last bytes as one load that overlaps the ones before (the length is
 * in the hash), not a copy of variable size.
 */
static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
	uint32_t lo, hi;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xFF51AFD7ED558CCDull;
		h ^= h >> 32;
	}
	if (i < n) {
		if (n >= 8) {
			memcpy(&w, s + n - 8, 8);
		} else if (n >= 4) {
			memcpy(&lo, s, 4);
			memcpy(&hi, s + n - 4, 4);
			w = (uint64_t)hi << 32 | lo;
		} else {
			w = (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[n / 2] << 8 |
			    (uint64_t)(uint8_t)s[n - 1] << 16;
		}
		h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
	}
	h ^= h >> 29;
	return h & ~(1ull << 63);   /* below imap's reserved key */
}

/* Counts a value of leaf statistics `st`; stops the interning of that leaf when most were new. */
static void leaf_count(uint32_t *st, bool fresh)
{
	st[1] += fresh;
	if (++st[0] == LEAF_TRIAL && st[1] * 2 > st[0])
		st[0] = UINT32_MAX;
}

/*
 * The iid of a string value of leaf `li` (interned when new), or 0: written
 * inline (too short or long, its field mostly new values, a hash collision,
 * out of memory).
 */
static uint64_t str_value(struct pf_fmt *f, struct pf_seq *q, uint32_t li, const char *s, size_t n)
{
	uint32_t *st = &q->lstat[2 * li], *slot;
	bool added;

	if (n < STR_MIN || n > STR_MAX || st[0] == UINT32_MAX)
		return 0;
	if (!(slot = imap_get(&q->str_iid, str_hash(s, n), 0, &added)))
		return 0;
	if (!added) {
		const uint8_t *p;

		if (!*slot)
			return 0;   /* its string could not be stored */
		p = q->strs.p + q->str_off[*slot - 1];
		if (tmx_le_at(p, 4) != n || memcmp(p + 4, s, n))
			return 0;   /* another string of the same hash: this one inline */
		leaf_count(st, false);
		return *slot;
	}
	if (!tmx_grow_array((void **)&q->str_off, &q->cap_str, q->next_str_iid, sizeof(*q->str_off),
			    256))
		return 0;
	*slot = (uint32_t)q->next_str_iid;
	q->str_off[q->next_str_iid - 1] = (uint32_t)q->strs.len;
	tmx_buf_le(&q->strs, n, 4);
	tmx_buf_put(&q->strs, s, n);
	if (q->strs.oom) {
		*slot = 0;
		return 0;
	}
	intern_entry(&f->ib, PF_ID_DEBUG_ANNOTATION_STRINGS, q->next_str_iid, s, n);
	leaf_count(st, true);
	return q->next_str_iid++;
}

/* ---- classes ---- */

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

/* The index of payload member `name`, -1 when absent. */
static int payload_index(const struct tmx_event_class *ec, const char *name)
{
	const struct tmx_field_class *fc = ec->payload;

	for (size_t m = 0; fc && tmx_fc_kind(fc) == TMX_FC_STRUCT && m < tmx_fc_member_count(fc); m++)
		if (!strcmp(tmx_fc_member_name(fc, m), name))
			return (int)m;
	return -1;
}

void pf_user_class_init(struct pf_class *c, const struct tmx_event_class *ec, bool xray)
{
	static const char *const tids[] = { "vtid", "tid", NULL }, *const pids[] = { "vpid", "pid", NULL };
	static const char *const pn[] = { "procname", NULL };
	const char *n = ec->name ? ec->name : "";
	/* LTTng per-process buffers name their process in the env */
	const struct tmx_env_entry *e = tmx_trace_class_env(ec->stream_class->trace_class, "vpid");

	find_ctx(ec, tids, &c->tid_scope, &c->tid_member);
	find_ctx(ec, pids, &c->upid_scope, &c->upid_member);
	find_ctx(ec, pn, &c->pn_scope, &c->pn_member);
	c->has_env_vpid = e && e->is_int;
	c->env_vpid = c->has_env_vpid ? e->int_value : 0;
	c->ukind = PF_U_INSTANT;
	/* XRay's function id and name, cyg-profile's address (looked up once) */
	c->func_member = (int16_t)payload_index(ec, xray ? "func_id" : "addr");
	c->fname_member = (int16_t)payload_index(ec, "function");
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

/* ---- events ---- */

/* The integer of a context member found by find_ctx. */
static bool ctx_int(const struct tmx_event *ev, uint8_t scope, int16_t member, int64_t *v)
{
	const struct tmx_value *x;
	uint64_t u;

	if (scope == TMX_N_SCOPES || !(x = pf_member(ev->scopes[scope], (size_t)member)))
		return false;
	if (x->fc->kind == TMX_FC_INT) {   /* vtid, vpid: read directly (every event) */
		*v = x->fc->is_signed ? x->s : (int64_t)x->u;
		return true;
	}
	if (tmx_value_int64(x, v))
		return true;
	if (!tmx_value_uint64(x, &u))
		return false;
	*v = (int64_t)u;
	return true;
}

/* A payload member found once per class (-1: none), or NULL. */
static const struct tmx_value *payload_member(const struct tmx_event *ev, int16_t m)
{
	return m < 0 ? NULL : pf_member(ev->scopes[TMX_SCOPE_PAYLOAD], (size_t)m);
}

/* The function of an entry or exit: its key and name. */
static bool function_of(const struct pf_class *c, const struct tmx_event *ev,
			struct pf_render *r, uint64_t *key, char *buf, const char **name,
			size_t *len)
{
	const struct tmx_value *v;
	uint64_t id;

	if (c->ukind == PF_U_XRAY_ENTER || c->ukind == PF_U_XRAY_EXIT) {
		v = payload_member(ev, c->func_member);
		if (!v || !tmx_value_uint64(v, &id)) {
			int64_t sid;
			if (!v || !tmx_value_int64(v, &sid))
				return false;
			id = (uint64_t)sid;
		}
		*key = id;
		v = payload_member(ev, c->fname_member);
		*name = v ? tmx_value_text(v, len) : NULL;
		if (*name)
			*name = pf_utf8(r, *name, *len, len);
		if (!*name)
			*len = (size_t)snprintf(buf, 32, "%llu", (unsigned long long)id), *name = buf;
		return true;
	}
	v = payload_member(ev, c->func_member);
	if (!v || !tmx_value_uint64(v, &id))
		return false;
	*key = id;
	*len = (size_t)snprintf(buf, 32, "0x%llx", (unsigned long long)id);
	*name = buf;
	return true;
}

/* A signed integer written in the extension: where its value is, the value. */
struct ext_int {
	size_t at;
	int64_t v;
};

struct ann_ctx {
	struct pf_fmt *f;
	struct pf_seq *q;
	const struct pf_class *c;
	uint64_t first_iid;
	struct ext_int ints[PF_LEAVES_MAX];   /* the extension's signed integers, while int64 */
	size_t n_ints;
	bool zigzag;                         /* they are sint64 (the class's first extension) */
};

/*
 * The extension's signed integers written so far as int64 (none was
 * negative) rewritten zig-zag (sint64: 2v, which may take a byte more),
 * from the last one back, and the event's next ones zig-zag too: a
 * negative one comes.  Rare: the first signed field is negative or all are
 * positive in most events.
 */
static void ext_to_sint(struct ann_ctx *a)
{
	struct tmx_buf *b = &a->f->ext;
	size_t grow = 0, end = b->len, shift;

	a->zigzag = true;
	for (size_t i = 0; i < a->n_ints; i++)
		grow += pb_varint_size(2 * (uint64_t)a->ints[i].v) -
			pb_varint_size((uint64_t)a->ints[i].v);
	if (!tmx_buf_reserve(b, grow))
		return;
	shift = grow;
	for (size_t i = a->n_ints; i-- > 0;) {
		uint64_t v = (uint64_t)a->ints[i].v;
		size_t at = a->ints[i].at, tail = at + pb_varint_size(v);

		memmove(b->p + tail + shift, b->p + tail, end - tail);
		shift -= pb_varint_size(2 * v) - pb_varint_size(v);
		pb_put_varint(b->p + at + shift, 2 * v);
		end = at;
	}
	b->len += grow;
}

/*
 * A value as a field of the class's extension message (uext.c): field
 * leaf index + 1, int64 zig-zag (sint64; else int64, not negative),
 * uint64, double or text; an array
 * of integers as a packed repeated (u)int64.  False (written nothing) for
 * an empty array: it stays a debug annotation, "[]", under the same key.
 */
static bool put_ext(struct tmx_buf *b, const struct pf_leaf *leaf, const struct pf_leaf_value *v,
		    bool zigzag)
{
	uint32_t field = (uint32_t)v->index + 1;
	size_t n, len = 0;
	uint8_t *p;

	if (leaf->int_array) {
		const struct tmx_value *e = v->arr + 1;

		if (!v->arr || !(n = (size_t)v->arr->count))
			return false;
		for (size_t i = 0; i < n; i++)
			len += pb_varint_size(e[i].u);   /* int64: two's complement, as e[i].s */
		pb_tag(b, field, PB_LEN);
		pb_varint(b, len);
		if (!tmx_buf_reserve(b, len))
			return true;
		p = b->p + b->len;
		for (size_t i = 0; i < n; i++)
			p = pb_put_varint(p, e[i].u);
		b->len += len;
		return true;
	}
	switch (leaf->type) {
	case PF_LEAF_INT:
		if (zigzag)
			pb_sint(b, field, v->i);
		else
			pb_uint(b, field, (uint64_t)v->i);   /* int64: never negative here */
		break;
	case PF_LEAF_UINT:
		pb_uint(b, field, v->u);
		break;
	case PF_LEAF_DOUBLE:
		pb_double(b, field, v->d);
		break;
	default:
		pb_bytes(b, field, v->s, v->len);
		break;
	}
	return true;
}

/*
 * One DebugAnnotation { name_iid, value }, written at once: its length is
 * known before its bytes (no placeholder to patch, no body to move), since
 * this runs for every field of every user-space event.
 */
static void put_annotation(void *ctx, const struct pf_leaf *leaf, const struct pf_leaf_value *v)
{
	struct ann_ctx *a = ctx;
	struct tmx_buf *b = &a->f->piece;
	uint64_t name = a->first_iid + v->index, val = 0, iid = 0;
	uint8_t vtag = 0;
	size_t body, vlen = 0;
	uint8_t *p;
	/* the value can go in the class's extension (uext.c) */
	bool ext = v->index < 32 && (a->c->ext_leaves & 1u << v->index);

	switch (leaf->type) {
	case PF_LEAF_INT:
		vtag = PF_DA_INT << 3 | PB_VARINT;
		val = (uint64_t)v->i;   /* int64: two's complement, as protobuf */
		break;
	case PF_LEAF_UINT:
		vtag = PF_DA_UINT << 3 | PB_VARINT;
		val = v->u;
		break;
	case PF_LEAF_DOUBLE:
		vtag = PF_DA_DOUBLE << 3 | PB_FIXED64;
		memcpy(&val, &v->d, 8);
		vlen = 8;
		break;
	default:
		/* text fields interned; compound values (-o json's text) are rarely repeated */
		iid = leaf->rendered || (v->len < STR_MIN_EXT && ext) ? 0 :
		      str_value(a->f, a->q, a->c->leaf_base + (uint32_t)v->index, v->s, v->len);
		break;
	}
	if (!iid && ext) {
		bool sint = leaf->type == PF_LEAF_INT && !leaf->int_array;
		size_t at = a->f->ext.len + pb_varint_size((v->index + 1) << 3);

		if (sint && !a->zigzag && (v->i < 0 || a->n_ints == PF_LEAVES_MAX))
			ext_to_sint(a);
		if (put_ext(&a->f->ext, leaf, v, a->zigzag)) {
			/* int64 so far: where it is, should a negative one come */
			if (sint && !a->zigzag) {
				a->ints[a->n_ints].at = at;
				a->ints[a->n_ints++].v = v->i;
			}
			return;
		}
	}
	body = 1 + pb_varint_size(name);
	if (leaf->type != PF_LEAF_STRING)
		body += 1 + (vlen ? vlen : pb_varint_size(val));
	else if (iid)
		body += 2 + pb_varint_size(iid);   /* field 17: a two-byte tag */
	else
		body += 1 + pb_varint_size(v->len) + v->len;
	if (!tmx_buf_reserve(b, 1 + 10 + body))
		return;
	p = b->p + b->len;
	*p++ = PF_TE_DEBUG_ANNOTATIONS << 3 | PB_LEN;
	p = pb_put_varint(p, body);
	*p++ = PF_DA_NAME_IID << 3 | PB_VARINT;
	p = pb_put_varint(p, name);
	if (leaf->type != PF_LEAF_STRING) {
		*p++ = vtag;
		if (vlen) {
			for (int i = 0; i < 8; i++)
				*p++ = (uint8_t)(val >> 8 * i);
		} else {
			p = pb_put_varint(p, val);
		}
	} else if (iid) {
		p = pb_put_varint(p, PF_DA_STRING_IID << 3 | PB_VARINT);
		p = pb_put_varint(p, iid);
	} else {
		*p++ = PF_DA_STRING << 3 | PB_LEN;
		p = pb_put_varint(p, v->len);
		if (v->len)
			memcpy(p, v->s, v->len);
		p += v->len;
	}
	b->len = (size_t)(p - b->p);
}

/*
 * An instant's body: the class's name, its payload's leaves as debug
 * annotations and fields of one of the class's extensions (after them):
 * its PU_EXT* flag, 0 when there are none.  Which extension is a function
 * of the event's values alone (whatever the jobs or the order): the int64
 * one when it has signed integers there and none is negative.
 */
static uint8_t instant_body(struct pf_fmt *f, struct pf_seq *q, const struct pf_class *c,
			    const struct tmx_event *ev)
{
	struct ann_ctx a;   /* not zeroed whole: `ints` is only read up to n_ints */
	bool pos;

	a.f = f;
	a.q = q;
	a.c = c;
	a.n_ints = 0;
	a.zigzag = !c->ext_field_pos;   /* no int64 extension: sint64 from the start */

	pb_uint(&f->piece, PF_TE_NAME_IID, class_name(f, q, c));
	if (!c->leaves.n)
		return 0;
	a.first_iid = leaf_names(f, q, c);
	f->ext.len = 0;
	pf_leaves_walk(&c->leaves, ev->scopes[TMX_SCOPE_PAYLOAD], f->render, put_annotation, &a);
	if (!f->ext.len || f->ext.oom)
		return 0;
	pos = !a.zigzag && a.n_ints;
	pb_bytes(&f->piece, pos ? c->ext_field_pos : c->ext_field, f->ext.p, f->ext.len);
	return pos ? PU_EXT_POS : PU_EXT;
}

/* The thread's name (procname context), when this is its first event on the sequence. */
static const char *thread_name(struct pf_fmt *f, struct pf_seq *q, const struct pf_class *c,
			       const struct tmx_event *ev, uint64_t key, size_t *len)
{
	const struct tmx_value *v;
	const char *name;
	bool added;

	if (c->pn_scope == TMX_N_SCOPES || imap_find(&q->named, key) ||
	    !(v = pf_member(ev->scopes[c->pn_scope], (size_t)c->pn_member)) ||
	    !(name = tmx_value_text(v, len)) || !imap_get(&q->named, key, 0, &added))
		return NULL;
	return pf_utf8(f->render, name, *len, len);
}

bool pf_uformat(struct pf_fmt *f, const struct pf_class *c, const struct tmx_msg *msg)
{
	const struct tmx_perfetto *s = f->sink;
	const struct tmx_event *ev = msg->event;
	struct pf_upiece h = { .side = PF_SIDE_USER, .class_num = c->num, .ukind = c->ukind };
	struct pf_seq *q = seq_of(f, msg->stream);
	const char *fname = NULL, *pn = NULL;
	size_t flen = 0, pnlen = 0;
	char buf[32];

	f->piece.len = f->ib.len = 0;
	if (!q)
		return false;
	/* the header (filled in last), then the body written in place */
	tmx_buf_put(&f->piece, &h, sizeof(h));
	if (q->next_str_iid > PF_SEQ_MAX_STRINGS || q->strs.len > PF_SEQ_MAX_BYTES || q->strs.oom) {
		tmx_buf_free(&q->strs);
		seq_reset(q, s->n_classes, s->n_leaves);
	}
	if (!q->started)
		h.flags |= PU_CLEARED;
	q->started = true;
	h.seq_id = q->id;
	if (ctx_int(ev, c->tid_scope, c->tid_member, &h.tid)) {
		h.flags |= PU_THREAD;
		if (!ctx_int(ev, c->upid_scope, c->upid_member, &h.pid))
			h.pid = c->has_env_vpid ? c->env_vpid : h.tid;
		/* Linux pids are below 2^22; stream tracks' keys have the top bit */
		h.key = ((uint64_t)h.pid & 0x7FFFFFFF) << 32 | ((uint64_t)h.tid & 0xFFFFFFFF);
	}
	if (c->ukind != PF_U_INSTANT && function_of(c, ev, f->render, &h.func, buf, &fname, &flen)) {
		if (c->ukind == PF_U_XRAY_ENTER || c->ukind == PF_U_CYG_ENTER) {
			uint64_t iid = func_name(f, q, h.func, fname, flen);

			if (!iid)
				return false;
			pb_uint(&f->piece, PF_TE_NAME_IID, iid);
		} else {   /* an exit of no open call is an instant */
			h.flags |= instant_body(f, q, c, ev);
		}
	} else {
		h.ukind = PF_U_INSTANT;
		h.flags |= instant_body(f, q, c, ev);
	}
	/* last: pf_utf8's text lasts until its next call */
	if ((h.flags & PU_THREAD) && (pn = thread_name(f, q, c, ev, h.key, &pnlen)))
		h.flags |= PU_NAMED;
	h.body_len = (uint32_t)(f->piece.len - sizeof(h));
	h.interned_len = (uint32_t)f->ib.len;
	h.name_len = (uint32_t)pnlen;
	tmx_buf_put(&f->piece, f->ib.p, f->ib.len);
	if (pn)
		tmx_buf_put(&f->piece, pn, pnlen);
	if (f->piece.oom || f->ib.oom || f->ext.oom)
		return false;
	memcpy(f->piece.p, &h, sizeof(h));
	return true;
}
