/*
 * The worker side of Reader.read: each selected event made a record of its
 * columns' values (table_impl.h) by the custom sink's format()
 * (tracemux/sink.h), on any of tmx_run's threads at once; table_append
 * (table.c) adds the records to the tables in the read's order, on the
 * thread that reads.  What depends on that order (dictionary codes) is
 * left to it; the rest is done here: finding the values (the library's
 * walk, or a static layout), widths, CPU, labels and option names by
 * number, strings and arrays copied out.
 *
 * No Python, nothing shared that is written: a formatter (one per thread)
 * has its own plan and program per class, found by the class's address.
 */
#include "table_impl.h"

#include <string.h>

#include <tracemux/sink.h>

/*
 * Where the values of a class's columns are.  Most classes' scopes have no
 * variant, optional or sequence: their values are at the same places in
 * every event, learnt from the library's walk of the first event
 * (tmx_columns_walk) and then read there without walking.
 */
enum layout { LAYOUT_UNKNOWN, LAYOUT_STATIC, LAYOUT_WALK };

/*
 * How a field column's entry is written: its op (enum op_code) and, in a
 * static layout, its place.
 */
struct wop {
	uint8_t code;
	uint8_t scope;             /* a static layout's: the value is scopes[scope][off] */
	/*
	 * A static layout's integers of one width, consecutive in a scope: the
	 * first op of the run has their number (0: not the first), written in
	 * one loop.
	 */
	uint16_t run;
	uint32_t off;
	uint32_t col;
	/* OP_TEXT: the class whose values are their text; OP_LABEL, OP_OPTION: the column's class */
	const struct tmx_field_class *fc;
};

/* A class as a formatter writes its events. */
struct wclass {
	const struct tmx_event_class *ec;
	struct plan *p;
	struct wop *ops;           /* the field columns' */
	size_t n_ops;
	size_t room;               /* a record's bytes but its strings', arrays' and BLOBs' */
	enum layout layout;
	/* The scopes the class has: scope_of[i] and their classes (tmx_columns_walk's check) */
	int n_scopes;
	uint8_t scope_of[TMX_N_SCOPES];
	const struct tmx_field_class *scope_fc[TMX_N_SCOPES];
	/* LAYOUT_STATIC: the CPU field at scopes[cpu_scope][cpu_off], -1: none */
	int cpu_scope;
	uint32_t cpu_off;
	const struct tmx_field_class *cpu_fc; /* the CPU field's class when it is an unsigned integer */
};

struct formatter {
	struct wclass **slots;     /* by the class's address's hash (open addressing) */
	size_t n_slots, n_classes;
	struct wclass *last;       /* the last event's */
	const struct tmx_value **cells;   /* the walk's values, room for every class's columns */
	size_t n_cells;
	unsigned char *buf;        /* the record being made */
	size_t cap;
	size_t room;               /* the current class's wclass.room */
	char *labels;              /* scratch for joined labels */
	size_t labels_cap;
};

static void wclass_free(struct wclass *c)
{
	if (!c)
		return;
	plan_free(c->p);
	free(c->ops);
	free(c);
}

void record_worker_free(void *worker)
{
	struct formatter *f = worker;

	if (!f)
		return;
	for (size_t i = 0; i < f->n_slots; i++)
		wclass_free(f->slots[i]);
	free(f->slots);
	free(f->cells);
	free(f->buf);
	free(f->labels);
	free(f);
}

void *record_worker_new(void *unused)
{
	(void)unused;
	return calloc(1, sizeof(struct formatter));
}

/* A text column's class whose values are their text (strings, text arrays), else NULL. */
static const struct tmx_field_class *text_class(const struct tmx_field_class *fc)
{
	enum tmx_fc_kind k = fc ? tmx_fc_kind(fc) : TMX_FC_STRUCT;

	return k == TMX_FC_STRING ||
	       ((k == TMX_FC_ARRAY || k == TMX_FC_SEQUENCE) && tmx_fc_is_text(fc)) ? fc : NULL;
}

static struct wclass *wclass_new(const struct tmx_event_class *ec)
{
	struct wclass *c = calloc(1, sizeof(*c));
	const struct plan *p;
	size_t n_fields;

	if (!c || !(c->p = plan_new(ec)))
		goto fail;
	p = c->p;
	n_fields = p->n_cols - p->n_fixed;
	if (!(c->ops = calloc(n_fields ? n_fields : 1, sizeof(*c->ops))))
		goto fail;
	for (size_t col = p->n_fixed; col < p->n_cols; col++) {
		struct wop *op = &c->ops[c->n_ops++];

		op->code = (uint8_t)op_of(p->cols[col].kind);
		op->col = (uint32_t)col;
		op->fc = tmx_column_field_class(p->model, col);
		if (op->code == OP_TEXT)
			op->fc = text_class(op->fc);
	}
	/* an entry's presence byte, its tag (labels, options, objects) and two 8-byte numbers at most */
	c->room = sizeof(struct rec_head) + c->n_ops * 18;
	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (p->scope_fc[s]) {
			c->scope_of[c->n_scopes] = (uint8_t)s;
			c->scope_fc[c->n_scopes++] = p->scope_fc[s];
		}
	c->ec = ec;
	c->cpu_scope = -1;
	return c;
fail:
	wclass_free(c);
	return NULL;
}

static size_t slot_of(const struct tmx_event_class *ec, size_t n_slots)
{
	return (size_t)(((uintptr_t)ec * 0x9E3779B97F4A7C15ull) >> 32) & (n_slots - 1);
}

/* The formatter's table of classes with twice the slots (false: no memory). */
static bool grow_slots(struct formatter *f)
{
	size_t n = f->n_slots ? 2 * f->n_slots : 64;
	struct wclass **slots = calloc(n, sizeof(*slots));

	if (!slots)
		return false;
	for (size_t i = 0; i < f->n_slots; i++) {
		size_t j;
		if (!f->slots[i])
			continue;
		for (j = slot_of(f->slots[i]->ec, n); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = f->slots[i];
	}
	free(f->slots);
	f->slots = slots;
	f->n_slots = n;
	return true;
}

/* The formatter's class of `ec`, made at its first event (NULL: no memory). */
static struct wclass *class_of(struct formatter *f, const struct tmx_event_class *ec)
{
	struct wclass *c;
	size_t i;

	if (f->last && f->last->ec == ec)
		return f->last;
	for (i = f->n_slots ? slot_of(ec, f->n_slots) : 0; f->n_slots && f->slots[i];
	     i = (i + 1) & (f->n_slots - 1))
		if (f->slots[i]->ec == ec)
			return f->last = f->slots[i];
	if (2 * (f->n_classes + 1) > f->n_slots && !grow_slots(f))
		return NULL;
	if (!(c = wclass_new(ec)))
		return NULL;
	if (c->p->n_cols > f->n_cells) {
		const struct tmx_value **cells = realloc(f->cells, c->p->n_cols * sizeof(*cells));
		if (!cells) {
			wclass_free(c);
			return NULL;
		}
		f->cells = cells;
		f->n_cells = c->p->n_cols;
	}
	for (i = slot_of(ec, f->n_slots); f->slots[i]; i = (i + 1) & (f->n_slots - 1))
		;
	f->slots[i] = c;
	f->n_classes++;
	return f->last = c;
}

/* A record buffer of `need` bytes at least (false: no memory). */
static bool buf_room(struct formatter *f, size_t need)
{
	size_t cap = f->cap ? f->cap : 256;
	unsigned char *b;

	if (need <= f->cap)
		return true;
	while (cap < need)
		cap *= 2;
	if (!(b = realloc(f->buf, cap)))
		return false;
	f->buf = b;
	f->cap = cap;
	return true;
}

/*
 * Room in the record for `n` more bytes at `w` and the class's room after
 * them: where to write them (the buffer may have moved), NULL: no memory.
 */
static unsigned char *more(struct formatter *f, unsigned char *w, size_t n)
{
	size_t at = (size_t)(w - f->buf);

	return buf_room(f, at + n + f->room) ? f->buf + at : NULL;
}

static inline unsigned char *put64(unsigned char *w, uint64_t v)
{
	memcpy(w, &v, 8);
	return w + 8;
}

/* An integer's low bits (a double's bits) in `width` bytes. */
static inline __attribute__((always_inline)) unsigned char *put_int(unsigned char *w,
								   unsigned width, uint64_t bits)
{
	uint16_t v2;
	uint32_t v4;

	switch (width) {
	case 1:
		*w = (uint8_t)bits;
		break;
	case 2:
		v2 = (uint16_t)bits;
		memcpy(w, &v2, 2);
		break;
	case 4:
		v4 = (uint32_t)bits;
		memcpy(w, &v4, 4);
		break;
	default:
		memcpy(w, &bits, 8);
		break;
	}
	return w + width;
}

/* `n` bytes (their length first); NULL: no memory. */
static unsigned char *put_blob(struct formatter *f, unsigned char *w, const void *s, size_t n)
{
	w = put64(w, n);
	if (!n)
		return w;
	if (!(w = more(f, w, n)))
		return NULL;
	memcpy(w, s, n);
	return w + n;
}

/* A byte string (ext_is_bytes): a BLOB's bytes, or an array of uint8's elements. */
static unsigned char *put_byte_string(struct formatter *f, unsigned char *w,
				      const struct tmx_value *v)
{
	size_t count = (size_t)v->count;

	if (tmx_fc_kind(v->fc) == TMX_FC_BLOB)
		return put_blob(f, w, v->str.ptr, (size_t)v->str.len);
	w = put64(w, count);
	if (!(w = more(f, w, count)))
		return NULL;
	for (size_t e = 0; e < count; e++)   /* the elements are the entries after it */
		w[e] = (unsigned char)v[1 + e].u;
	return w + count;
}

/*
 * Labels joined with ", " (plan_labels) into the formatter's scratch:
 * their length, SIZE_MAX: no memory.
 */
static size_t join_labels(struct formatter *f, const struct tmx_value *v)
{
	return plan_labels_grown(v, &f->labels, &f->labels_cap);
}

/* A label or option value: by number when of the column's class, else as text. */
static unsigned char *put_named(struct formatter *f, unsigned char *w, const struct wop *op,
				const struct tmx_value *v)
{
	const char *s;
	size_t len;

	if (v->fc == op->fc) {
		*w++ = REC_BY_VALUE;
		return op->code == OP_LABEL ? put64(w, v->u) : put_int(w, 4, v->option);
	}
	*w++ = REC_BY_TEXT;
	if (op->code == OP_OPTION) {
		s = tmx_fc_member_name(v->fc, v->option);
		len = s ? strlen(s) : 0;
	} else if ((len = join_labels(f, v)) == SIZE_MAX) {
		return NULL;
	} else {
		s = f->labels;
	}
	return put_blob(f, w, s, len);
}

static bool int_array(const struct tmx_value *v)
{
	enum tmx_fc_kind k = tmx_fc_kind(v->fc);

	return (k == TMX_FC_ARRAY || k == TMX_FC_SEQUENCE) && !tmx_fc_is_text(v->fc) &&
	       tmx_fc_kind(tmx_fc_element(v->fc)) == TMX_FC_INT;
}

/*
 * An array or sequence of integers: its own entry, then its elements'
 * 64-bit values packed in the entries after it (a third of the room of an
 * entry each), which byte arrays fill most.
 */
static unsigned char *put_int_array(struct formatter *f, unsigned char *w,
				    const struct tmx_value *v)
{
	size_t count = (size_t)v->count;
	size_t n = 1 + (count * sizeof(uint64_t) + sizeof(*v) - 1) / sizeof(*v);

	*w++ = REC_PACKED;
	w = put64(w, n);
	if (!(w = more(f, w, n * sizeof(*v))))
		return NULL;
	memcpy(w, v, sizeof(*v));
	memset(w + sizeof(*v), 0, (n - 1) * sizeof(*v));
	for (size_t e = 0; e < count; e++)
		memcpy(w + sizeof(*v) + 8 * e, &v[1 + e].u, 8);
	return w + n * sizeof(*v);
}

/* A copy of the value subtree at `v`, its strings' bytes after its entries. */
static unsigned char *put_object(struct formatter *f, unsigned char *w, const struct tmx_value *v)
{
	size_t n, n_bytes = 0;
	unsigned char *bytes;

	if (int_array(v))
		return put_int_array(f, w, v);
	n = tmx_value_skip(v, 0);
	for (size_t i = 0; i < n; i++)
		if (has_bytes(&v[i]) && v[i].str.ptr)
			n_bytes += (size_t)v[i].str.len;
	*w++ = REC_TREE;
	w = put64(put64(w, n), n_bytes);
	if (!(w = more(f, w, n * sizeof(*v) + n_bytes)))
		return NULL;
	bytes = w + n * sizeof(*v);
	n_bytes = 0;
	for (size_t i = 0; i < n; i++) {
		struct tmx_value c = v[i];
		size_t len = (size_t)c.str.len;
		if (has_bytes(&c)) {
			if (!c.str.ptr || !len) {   /* an empty value: NULL (offset 0), as decoders leave some */
				c.str.ptr = NULL;
				c.str.len = 0;
			} else {
				memcpy(bytes + n_bytes, c.str.ptr, len);
				c.str.ptr = (const char *)(uintptr_t)(n_bytes + 1);   /* offset + 1 */
				n_bytes += len;
			}
		}
		memcpy(w + i * sizeof(c), &c, sizeof(c));
	}
	return bytes + n_bytes;
}

/* A run of a static layout's integers (struct wop.run) from their first value. */
static inline __attribute__((always_inline)) unsigned char *put_run(unsigned char *w,
								   const struct wop *op,
								   const struct tmx_value *v)
{
	size_t n = op->run;

	switch (op->code) {
	case OP_W1:
		for (size_t i = 0; i < n; i++)
			w = put_int(w, 1, v[i].u);
		break;
	case OP_W2:
		for (size_t i = 0; i < n; i++)
			w = put_int(w, 2, v[i].u);
		break;
	case OP_W4:
		for (size_t i = 0; i < n; i++)
			w = put_int(w, 4, v[i].u);
		break;
	default:
		for (size_t i = 0; i < n; i++)
			w = put_int(w, 8, v[i].u);
		break;
	}
	return w;
}

/*
 * The field columns' entries at `w`, each value from scopes[op->scope] +
 * op->off (`fixed`: a static layout, whose values are all there) or
 * f->cells[op->col] (the walk's: a presence byte first).  The record's end,
 * NULL: no memory.
 */
static inline __attribute__((always_inline)) unsigned char *
put_fields(struct formatter *f, const struct wclass *c, unsigned char *w,
	   const struct tmx_value *const *scopes, bool fixed)
{
	for (const struct wop *op = c->ops, *end = op + c->n_ops; w && op < end; op++) {
		const struct tmx_value *v = fixed ? scopes[op->scope] + op->off : f->cells[op->col];
		const char *s, *nul;
		size_t len;
		float fl;

		if (fixed && op->run > 1) {
			w = put_run(w, op, v);
			op += op->run - 1;
			continue;
		}
		if (!fixed) {
			*w++ = v != NULL;
			if (!v)
				continue;
		}
		switch (op->code) {
		case OP_W1:
			w = put_int(w, 1, v->u);
			break;
		case OP_W2:
			w = put_int(w, 2, v->u);
			break;
		case OP_W4:
			w = put_int(w, 4, v->u);
			break;
		case OP_W8:   /* a double's bits too (`d` shares them) */
			w = put_int(w, 8, v->u);
			break;
		case OP_F32:
			fl = (float)v->d;
			memcpy(w, &fl, 4);
			w += 4;
			break;
		case OP_BOOL:
			*w++ = v->u != 0;
			break;
		case OP_TEXT:
			if (v->fc == op->fc) {   /* tmx_value_text inline: text arrays end at their first NUL */
				s = v->str.ptr;
				len = (size_t)v->str.len;
				if (len && (nul = memchr(s, '\0', len)))
					len = (size_t)(nul - s);
			} else if (!(s = tmx_value_text(v, &len))) {
				len = 0;
			}
			w = put_blob(f, w, s, len);
			break;
		case OP_LABEL:
		case OP_OPTION:
			w = put_named(f, w, op, v);
			break;
		case OP_BYTES:
			w = put_byte_string(f, w, v);
			break;
		default:   /* OP_OBJECT */
			w = put_object(f, w, v);
			break;
		}
	}
	return w;
}

/* Where `v` is among the scopes' values (n[s] of them): its scope and offset; false: not there. */
static bool locate(const struct tmx_value *const *scopes, const size_t n[TMX_N_SCOPES],
		   const struct tmx_value *v, uint8_t *scope, uint32_t *off)
{
	for (int s = 0; v && s < TMX_N_SCOPES; s++) {
		uintptr_t at = (uintptr_t)v, base = (uintptr_t)scopes[s];
		if (n[s] && at >= base && at < base + n[s] * sizeof(*v)) {
			*scope = (uint8_t)s;
			*off = (uint32_t)((at - base) / sizeof(*v));
			return true;
		}
	}
	return false;
}

/* The runs of a static layout's integer ops (struct wop.run). */
static void mark_runs(struct wclass *c)
{
	struct wop *first = NULL;

	for (struct wop *op = c->ops; op < c->ops + c->n_ops; op++) {
		if (first && op->code == first->code && op->scope == first->scope &&
		    op->off == first->off + first->run && first->run < UINT16_MAX) {
			first->run++;
			continue;
		}
		first = op->code <= OP_W8 ? op : NULL;
		if (first)
			first->run = 1;
	}
}

/*
 * The class's layout, learnt from its first event's walk (`cells`): static
 * when the value of each field column and the CPU field's are among the
 * values at the same places in every event of the class (plan_fixed_values),
 * then they are where the walk found them.
 */
static enum layout learn_layout(struct wclass *c, const struct tmx_value *const *scopes,
				const struct tmx_value **cells)
{
	size_t n[TMX_N_SCOPES] = { 0 };
	uint8_t scope;
	uint32_t off;
	bool whole;

	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (c->p->scope_fc[s])
			n[s] = plan_fixed_values(c->p->scope_fc[s], &whole);
	for (size_t o = 0; o < c->n_ops; o++)
		if (!locate(scopes, n, cells[c->ops[o].col], &c->ops[o].scope, &c->ops[o].off))
			return LAYOUT_WALK;
	if (locate(scopes, n, cells[FIX_CPU], &scope, &off)) {
		c->cpu_scope = scope;
		c->cpu_off = off;
	} else if (cells[FIX_CPU]) {
		return LAYOUT_WALK;
	}
	mark_runs(c);
	return LAYOUT_STATIC;
}

/* Whether every scope of the event is its class's (as tmx_columns_walk checks). */
static bool scopes_match(const struct wclass *c, const struct tmx_value *const *scopes)
{
	for (int i = 0; i < c->n_scopes; i++) {
		const struct tmx_value *v = scopes[c->scope_of[i]];
		if (!v || v->fc != c->scope_fc[i])
			return false;
	}
	return true;
}

/*
 * The scope of an event that is not its class's, for the error (the last
 * such, as the walk tells none).
 */
static uint8_t mismatch_scope(const struct plan *p, const struct tmx_value *const *scopes)
{
	uint8_t scope = REC_NO_SCOPE;

	for (int s = 0; s < TMX_N_SCOPES; s++)
		if (p->scope_fc[s] && (!scopes[s] || scopes[s][0].fc != p->scope_fc[s]))
			scope = (uint8_t)s;
	return scope;
}

void record_format(void *worker, const struct tmx_msg *msg, struct tmx_record *rec)
{
	struct formatter *f = worker;
	const struct tmx_event *ev = msg->event;
	const struct tmx_value *const *scopes;
	const struct tmx_value *cpu;
	struct rec_head h = { 0 };
	struct wclass *c;
	unsigned char *w;
	uint64_t bits = 0;
	bool has_cpu;

	if (msg->kind != TMX_MSG_EVENT)
		return;   /* the read's keep() passes events only */
	scopes = ev->scopes;
	h.ec = (uintptr_t)ev->cls;
	h.status = REC_NOMEM;
	if (!(c = class_of(f, ev->cls)))
		goto head;
	f->room = c->room;
	if (!buf_room(f, c->room))
		goto head;
	w = f->buf + sizeof(h);
	if (c->layout == LAYOUT_STATIC) {
		if (!scopes_match(c, scopes))
			goto mismatch;
		cpu = c->cpu_scope >= 0 ? scopes[c->cpu_scope] + c->cpu_off : NULL;
		w = put_fields(f, c, w, scopes, true);
	} else {
		if (!plan_walk(c->p, scopes, f->cells))
			goto mismatch;
		cpu = f->cells[FIX_CPU];
		if (c->layout == LAYOUT_UNKNOWN) {
			c->layout = learn_layout(c, scopes, f->cells);
			if (cpu && (tmx_fc_kind(cpu->fc) == TMX_FC_INT ||
				    tmx_fc_kind(cpu->fc) == TMX_FC_ENUM) && !tmx_fc_is_signed(cpu->fc))
				c->cpu_fc = cpu->fc;
		}
		h.flags |= REC_WALK;
		w = put_fields(f, c, w, NULL, false);
	}
	if (!w)
		goto head;
	/* tmx_event_cpu: an unsigned integer's value read here, others by the library */
	if (cpu && cpu->fc == c->cpu_fc)
		bits = cpu->u, has_cpu = true;
	else
		has_cpu = c->p->cpu_field && tmx_value_uint64(cpu, &bits);
	if (has_cpu && bits <= UINT32_MAX) {
		h.flags |= REC_HAS_CPU;
		h.cpu = (uint32_t)bits;
	}
	h.status = REC_OK;
	memcpy(f->buf, &h, sizeof(h));
	tmx_record_write(rec, f->buf, (size_t)(w - f->buf));
	return;
mismatch:
	h.status = REC_MISMATCH;
	h.scope = mismatch_scope(c->p, scopes);
head:
	tmx_record_write(rec, &h, sizeof(h));
}
