/*
 * Inside the CTF decoder: the helpers and per-field decoding functions
 * that decode.c (the tree walk, packets and events), decode_plan.c (the
 * plan runner) and decode_ctf2.c (the CTF 2 field classes) share.  Not an
 * interface: only those include it.
 */
#ifndef TMX_CTF_DECODE_IMPL_H
#define TMX_CTF_DECODE_IMPL_H

#include "ctf/decode.h"
#include "ctf/plan.h"
#include "model/field_class.h"

int ctf_data_error(struct ctf_decoder *d, struct tmx_error *err, const char *fmt,
		   const char *what);
int ctf_values_grow(struct ctf_values *vals, size_t need, struct tmx_error *err);

static inline int values_reserve(struct ctf_values *vals, size_t extra, struct tmx_error *err)
{
	if (vals->n + extra <= vals->cap)
		return TMX_OK;
	return ctf_values_grow(vals, vals->n + extra, err);
}

static inline struct tmx_value *values_push(struct ctf_values *vals,
					     const struct tmx_field_class *fc)
{
	struct tmx_value *v = &vals->v[vals->n++];
	v->fc = fc;
	return v;
}

/* Starts over (a new scope or event): the values and their text are gone. */
static inline void values_clear(struct ctf_values *vals)
{
	vals->n = 0;
	ctf_text_clear(&vals->text);
}

/*
 * Alignment to `align` bits that would go past the content: an error, or
 * (CTF 1.8) the content's end when field `fc` reads nothing.  `fc` is NULL
 * where the alignment is not a field's own.
 */
int ctf_align_past(struct ctf_decoder *d, uint32_t align, const struct tmx_field_class *fc,
		   struct tmx_error *err);

static inline int align_to(struct ctf_decoder *d, uint32_t align, const struct tmx_field_class *fc,
			   struct tmx_error *err)
{
	uint64_t aligned = (d->pos + align - 1) & ~(uint64_t)(align - 1);

	if (__builtin_expect(aligned > d->limit, 0))
		return ctf_align_past(d, align, fc, err);
	d->pos = aligned;
	return TMX_OK;
}

/* `bits` more bits must lie in the content. */
int ctf_need_bits(struct ctf_decoder *d, uint64_t bits, const char *what, struct tmx_error *err);
/* `bytes` more bytes must lie in the content (lengths read from the data). */
int ctf_need_bytes(struct ctf_decoder *d, uint64_t bytes, const char *what,
		   struct tmx_error *err);

/*
 * Records what an integer field means for the packet/event machinery:
 * `u` is its unsigned value (the raw bits of a fixed-length field),
 * `bits` the width of what the field holds (the clock update rule).
 */
static inline void note_integer(struct ctf_decoder *d, const struct tmx_field_class *fc,
				uint64_t u, unsigned bits)
{
	if (fc->slot >= 0)
		d->slots[fc->slot] = u;
	if (fc->meaning) {
		d->special[fc->meaning] = u;
		d->special_set[fc->meaning] = true;
	}
	/*
	 * A field mapped to a clock sets the low bits of the stream's clock.
	 * The packet end time does not move the clock: events that follow
	 * are relative to the packet's beginning.
	 */
	if (fc->mapped_clock && fc->meaning != TMX_MEANING_TS_END)
		d->clock = ctf_clock_update(d->clock, u, bits);
}

/*
 * note_integer with what it does decided at compile time: the slot (or
 * -1), the meaning (or 0) and the clock update's width (or 0).
 */
static inline void note_value(struct ctf_decoder *d, int32_t slot, unsigned meaning,
			      unsigned clock_bits, uint64_t u)
{
	if (slot >= 0)
		d->slots[slot] = u;
	if (meaning) {
		d->special[meaning] = u;
		d->special_set[meaning] = true;
	}
	if (clock_bits)
		d->clock = ctf_clock_update(d->clock, u, clock_bits);
}

/* A header's or a body step's noted integer (ctf/plan.h: struct ctf_header_note). */
static inline void note_header(struct ctf_decoder *d, const struct ctf_header_note *n, uint64_t u)
{
	if (n->slot >= 0)
		d->slots[n->slot] = u;
	if (n->meaning) {
		d->special[n->meaning] = u;
		d->special_set[n->meaning] = true;
	}
	if (n->clock_mask)
		d->clock = ctf_clock_update_mask(d->clock, u, n->clock_mask);
}

/* A run item's note (ctf/plan.h: it->note). */
static inline void note_item(struct ctf_decoder *d, const struct ctf_run_item *it, uint64_t u)
{
	const struct tmx_field_class *fc = it->fc;

	note_value(d, it->note & CTF_NOTE_SLOT ? fc->slot : -1,
		   it->note & CTF_NOTE_MEANING ? fc->meaning : 0,
		   it->note & CTF_NOTE_CLOCK ? it->len : 0, u);
}

/*
 * Arrays whose elements may take no bits at all (empty structures) cannot
 * be bounded by the remaining bytes; cap their length instead.
 */
#define CTF_MAX_EMPTY_ELEMENTS (UINT64_C(1) << 20)

/* decode.c: the tree walk; one field (aligned first) and its subtree. */
int ctf_decode_field(struct ctf_decoder *d, const struct tmx_field_class *fc,
		     struct ctf_values *vals, struct tmx_error *err);
/* decode.c: the walk's per-field steps that the plans share, after the alignment. */
int ctf_decode_integer(struct ctf_decoder *d, const struct tmx_field_class *fc,
		       struct ctf_values *vals, struct tmx_error *err);
int ctf_decode_float(struct ctf_decoder *d, const struct tmx_field_class *fc,
		     struct ctf_values *vals, struct tmx_error *err);
/* NUL-terminated UTF-8 strings (CTF 1.8's only kind). */
int ctf_decode_string(struct ctf_decoder *d, const struct tmx_field_class *fc,
		      struct ctf_values *vals, struct tmx_error *err);
/* A text array or sequence of `length` bytes: one value. */
int ctf_decode_text(struct ctf_decoder *d, const struct tmx_field_class *fc, uint64_t length,
		    struct ctf_values *vals, struct tmx_error *err);
/* An array of plain whole-byte integers (ctf_is_plain_byte_int) that fits. */
int ctf_decode_byte_int_array(struct ctf_decoder *d, const struct tmx_field_class *fc,
			      uint64_t length, struct ctf_values *vals, struct tmx_error *err);
int ctf_too_many_empty(struct ctf_decoder *d, uint64_t length, struct tmx_error *err);
int ctf_no_option(struct ctf_decoder *d, const struct tmx_field_class *fc, uint64_t tag_value,
		  struct tmx_error *err);

/*
 * decode_plan.c: runs plan `pl`, appending to `vals`; `scope_index` (event
 * body plans) receives where each scope begins.
 */
struct ctf_plan;
int ctf_run_plan(struct ctf_decoder *d, const struct ctf_plan *pl, struct ctf_values *vals,
		 size_t *scope_index, struct tmx_error *err);

/* decode_ctf2.c: the CTF 2 field classes, each after its alignment. */
int ctf_decode_varint(struct ctf_decoder *d, const struct tmx_field_class *fc,
		      struct ctf_values *vals, struct tmx_error *err);
/* Strings of static or dynamic length, or UTF-16/32 (any string, in fact). */
int ctf_decode_string_ext(struct ctf_decoder *d, const struct tmx_field_class *fc,
			  struct ctf_values *vals, struct tmx_error *err);
int ctf_decode_blob(struct ctf_decoder *d, const struct tmx_field_class *fc,
		    struct ctf_values *vals, struct tmx_error *err);
/* Pushes an optional's value; *present: whether its field follows. */
int ctf_decode_optional(struct ctf_decoder *d, const struct tmx_field_class *fc,
			struct ctf_values *vals, bool *present, struct tmx_error *err);

#endif
