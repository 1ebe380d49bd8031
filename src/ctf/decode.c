/*
 * CTF binary decoding: CTF 1.8 (spec sections 4 and 5) and CTF 2 (spec
 * section 6; its own field classes are in decode_ctf2.c).
 *
 * Two ways to decode a scope that give the same result: a recursive walk
 * over the resolved field classes (decode_field), and the scope's plan
 * (ctf/plan.h, run_plan below), which is what normally runs.  The plan's
 * steps call the walk's per-field functions wherever a field needs the
 * general treatment (bit fields, damaged data), so that both report the
 * same errors at the same offsets.  Scopes too large to plan are walked.
 * The class tree depth is bounded by the metadata parser, so recursion is
 * bounded too.  Every read is checked against `limit` (the packet's
 * content size, or the file end while the packet header/context is read).
 */
#include <stdlib.h>
#include <string.h>

#include "ctf/decode_impl.h"
#include "ctf/packet_compression.h"
#include "ctf/plan.h"
#include "io/bitread.h"

#define CTF_PACKET_MAGIC UINT32_C(0xC1FC1FC1)
/*
 * Arrays whose elements may take no bits at all (empty structures) cannot
 * be bounded by the remaining bytes; cap their length instead.
 */
#define CTF_MAX_EMPTY_ELEMENTS (UINT64_C(1) << 20)

int ctf_data_error(struct ctf_decoder *d, struct tmx_error *err, const char *fmt,
		   const char *what)
{
	return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + d->pos / 8, fmt, what);
}

int ctf_values_grow(struct ctf_values *vals, size_t need, struct tmx_error *err)
{
	struct tmx_value *nv;
	size_t cap;

	cap = vals->cap ? vals->cap : 64;
	while (cap < need)
		cap *= 2;
	nv = realloc(vals->v, cap * sizeof(*nv));
	if (!nv)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory for decoded values");
	vals->v = nv;
	vals->cap = cap;
	return TMX_OK;
}

static int decode_field(struct ctf_decoder *d, const struct tmx_field_class *fc,
			struct ctf_values *vals, struct tmx_error *err);

/*
 * Whether `fc` reads no bit at all when decoded now: empty arrays, arrays
 * of such fields, empty structures, variants whose option reads nothing.
 * The lengths and tags it depends on are already in their slots (a field
 * that reads nothing sets none).
 */
static bool reads_nothing(const struct ctf_decoder *d, const struct tmx_field_class *fc)
{
	switch (fc->kind) {
	case TMX_FC_STRUCT:
		for (size_t i = 0; i < fc->n_members; i++)
			if (!reads_nothing(d, fc->members[i].fc))
				return false;
		return true;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE: {
		uint64_t n = fc->kind == TMX_FC_SEQUENCE ? d->slots[fc->ref_slot] : fc->length;
		return n == 0 || (!fc->is_text && reads_nothing(d, fc->elem));
	}
	case TMX_FC_VARIANT: {
		int o = fc->ref_slot >= 0 ? ctf_variant_select(fc, d->slots[fc->ref_slot]) : -1;
		return o >= 0 && reads_nothing(d, fc->members[o].fc);
	}
	default:
		return false;
	}
}

/*
 * A field that reads nothing whose alignment goes past the content's end
 * (an empty array of 64-bit-aligned elements in the last event): nothing
 * is read past the content, and babeltrace2 2.0.4 decodes that event, so
 * CTF 1.8 decoding does too.  The position stops at the content's end
 * (never beyond: every bound check computes limit - pos), which ends the
 * packet after this event and makes any later read in it fail.
 */
int ctf_align_past(struct ctf_decoder *d, uint32_t align, const struct tmx_field_class *fc,
		   struct tmx_error *err)
{
	if (d->lenient_align && fc && reads_nothing(d, fc)) {
		d->pos = d->limit;
		return TMX_OK;
	}
	return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + d->pos / 8,
			    "alignment to %u bits goes past the end of the packet content "
			    "(%llu bits)", align, (unsigned long long)d->limit);
}

int ctf_need_bits(struct ctf_decoder *d, uint64_t bits, const char *what, struct tmx_error *err)
{
	if (bits > d->limit - d->pos) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + d->pos / 8,
				    "%s needs %llu bits but only %llu remain in the packet content",
				    what, (unsigned long long)bits,
				    (unsigned long long)(d->limit - d->pos));
	}
	return TMX_OK;
}

int ctf_need_bytes(struct ctf_decoder *d, uint64_t bytes, const char *what,
		   struct tmx_error *err)
{
	if (bytes > (d->limit - d->pos) / 8) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + d->pos / 8,
				    "%s needs %llu bytes but only %llu remain in the packet content",
				    what, (unsigned long long)bytes,
				    (unsigned long long)((d->limit - d->pos) / 8));
	}
	return TMX_OK;
}

/*
 * Bounds, and the spec's rule that the byte order may only change on a
 * byte boundary (two fields of different byte orders cannot share a byte).
 */
static int check_bit_field(struct ctf_decoder *d, const struct tmx_field_class *fc,
			   const char *what, struct tmx_error *err)
{
	int ret = ctf_need_bits(d, fc->size, what, err);

	if (ret)
		return ret;
	if ((d->pos & 7) && d->pos == d->bo_end && fc->byte_order != d->bo_last)
		return ctf_data_error(d, err, "%s changes the byte order in the middle of a byte",
				      what);
	d->bo_end = d->pos + fc->size;
	d->bo_last = fc->byte_order;
	return TMX_OK;
}

/* What the byte order and bounds errors call a fixed-length field. */
static const char *fixed_name(const struct tmx_field_class *fc)
{
	switch (fc->kind) {
	case TMX_FC_BOOL:
		return "boolean field";
	case TMX_FC_BIT_ARRAY:
		return "bit array field";
	case TMX_FC_FLOAT:
		return "floating point field";
	default:
		return "integer field";
	}
}

/*
 * Fixed-length integers, enumerations, booleans and bit arrays (and the
 * variable-length integers, elsewhere).  A boolean's value is 0 or 1, its
 * slot keeps the bits; a bit order opposite to the byte order's usual one
 * reverses the bits read (slots keep the reversed value, the field's
 * unsigned value).
 */
static int decode_integer(struct ctf_decoder *d, const struct tmx_field_class *fc,
			  struct ctf_values *vals, struct tmx_error *err)
{
	struct tmx_value *v;
	uint64_t u;

	if (fc->varlen)
		return ctf_decode_varint(d, fc, vals, err);
	if (__builtin_expect(fc->size == 0 || fc->size > 64, 0))
		return ctf_data_error(d, err, "%s has an unsupported size", fixed_name(fc));
	/* A GNU/C bitfield that would cross its unit starts at the next unit. */
	if (fc->bitfield_unit && d->pos % fc->bitfield_unit + fc->size > fc->bitfield_unit) {
		int ret = align_to(d, fc->bitfield_unit, NULL, err);
		if (ret)
			return ret;
	}
	if ((d->pos & 7) == 0 && (fc->size & 7) == 0 && fc->size <= d->limit - d->pos) {
		/* The common case: whole bytes on a byte boundary (no shared byte). */
		u = tmx_read_aligned(d->base + d->pos / 8, fc->size / 8, fc->byte_order == TMX_BO_BE);
		d->bo_end = UINT64_MAX;
	} else {
		int ret = check_bit_field(d, fc, fixed_name(fc), err);
		if (ret)
			return ret;
		u = tmx_read_bits(d->base, d->pos, fc->size, fc->byte_order == TMX_BO_BE);
	}
	if (fc->bit_order_rev)
		u = tmx_reverse_bits(u, fc->size);
	d->pos += fc->size;
	v = values_push(vals, fc);
	if (fc->is_signed)
		v->s = tmx_sign_extend(u, fc->size);
	else
		v->u = fc->kind == TMX_FC_BOOL ? u != 0 : u;
	if (fc->slot >= 0 || fc->meaning || fc->mapped_clock)
		note_integer(d, fc, u, fc->size);
	return TMX_OK;
}

static int decode_float(struct ctf_decoder *d, const struct tmx_field_class *fc,
			struct ctf_values *vals, struct tmx_error *err)
{
	struct tmx_value *v;
	uint64_t u;

	int ret = check_bit_field(d, fc, "floating point field", err);

	if (ret)
		return ret;
	u = tmx_read_bits(d->base, d->pos, fc->size, fc->byte_order == TMX_BO_BE);
	if (fc->bit_order_rev)
		u = tmx_reverse_bits(u, fc->size);
	d->pos += fc->size;
	v = values_push(vals, fc);
	if (fc->size == 32) {
		uint32_t u32 = (uint32_t)u;
		float f;
		memcpy(&f, &u32, sizeof(f));
		v->d = f;
	} else {
		memcpy(&v->d, &u, sizeof(v->d));
	}
	return TMX_OK;
}

static int decode_string(struct ctf_decoder *d, const struct tmx_field_class *fc,
			 struct ctf_values *vals, struct tmx_error *err)
{
	const char *start = (const char *)d->base + d->pos / 8;
	uint64_t avail = (d->limit - d->pos) / 8;
	const char *nul = memchr(start, '\0', avail);
	struct tmx_value *v;

	if (d->pos % 8)
		return ctf_data_error(d, err, "%s is not byte-aligned", "string field");
	if (!nul)
		return ctf_data_error(d, err, "%s has no terminating NUL before the end of the "
				      "packet content", "string field");
	v = values_push(vals, fc);
	v->str.ptr = start;
	v->str.len = (uint64_t)(nul - start);
	d->pos += (v->str.len + 1) * 8;
	return TMX_OK;
}

static int decode_text(struct ctf_decoder *d, const struct tmx_field_class *fc,
		       uint64_t length, struct ctf_values *vals, struct tmx_error *err)
{
	struct tmx_value *v;

	if (length > (d->limit - d->pos) / 8)
		return ctf_need_bits(d, length * 8, "text array", err);
	v = values_push(vals, fc);
	v->str.ptr = (const char *)d->base + d->pos / 8;
	v->str.len = length;
	d->pos += length * 8;
	return TMX_OK;
}

static int decode_byte_int_array(struct ctf_decoder *d, const struct tmx_field_class *fc,
				 uint64_t length, struct ctf_values *vals, struct tmx_error *err)
{
	const struct tmx_field_class *e = fc->elem;
	const uint8_t *p = d->base + d->pos / 8;
	unsigned bytes = e->size / 8;
	bool be = e->byte_order == TMX_BO_BE;
	struct tmx_value *v;
	int ret = values_reserve(vals, length + 1, err);

	if (ret)
		return ret;
	values_push(vals, fc)->count = length;
	v = &vals->v[vals->n];
	for (uint64_t i = 0; i < length; i++, p += bytes) {
		uint64_t u = tmx_read_aligned(p, bytes, be);
		v[i].fc = e;
		if (e->is_signed)
			v[i].s = tmx_sign_extend(u, e->size);
		else
			v[i].u = u;
	}
	vals->n += length;
	d->pos += length * e->size;
	d->bo_end = d->pos;
	d->bo_last = e->byte_order;
	return TMX_OK;
}

static int too_many_empty(struct ctf_decoder *d, uint64_t length, struct tmx_error *err)
{
	return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + d->pos / 8,
			    "array or sequence length %llu does not fit in the packet content",
			    (unsigned long long)length);
}

static int decode_array(struct ctf_decoder *d, const struct tmx_field_class *fc,
			uint64_t length, struct ctf_values *vals, struct tmx_error *err)
{
	uint64_t elem_bits;
	int ret;

	/* Element alignment applies even to an empty array. */
	ret = align_to(d, fc->elem->align, fc, err);
	if (ret)
		return ret;
	if (fc->is_text)
		return decode_text(d, fc, length, vals, err);
	/*
	 * Elements that take bits are bounded by the remaining content (each
	 * read is checked, and fails where the data ends); elements that may
	 * take none need an explicit cap.
	 */
	elem_bits = ctf_min_bits(fc->elem);
	if (!elem_bits && length > CTF_MAX_EMPTY_ELEMENTS)
		return too_many_empty(d, length, err);
	if (ctf_is_plain_byte_int(fc->elem) && d->pos % 8 == 0 &&
	    length <= (d->limit - d->pos) / fc->elem->size)
		return decode_byte_int_array(d, fc, length, vals, err);
	ret = values_reserve(vals, 1, err);
	if (ret)
		return ret;
	values_push(vals, fc)->count = length;
	for (uint64_t i = 0; i < length; i++) {
		ret = decode_field(d, fc->elem, vals, err);
		if (ret)
			return ret;
	}
	return TMX_OK;
}

/* CTF 1.8 names the variant's tag, CTF 2 its selector (options by ranges). */
static int no_option(struct ctf_decoder *d, const struct tmx_field_class *fc,
		     uint64_t tag_value, struct tmx_error *err)
{
	const char *tag = fc->ref_path ? fc->ref_path : "?";
	const char *what = fc->option_for_mapping ? "tag" : "selector";

	if (fc->tag && fc->tag->is_signed)
		return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + d->pos / 8,
				    "variant %s `%s` value %lld selects no option", what, tag,
				    (long long)tmx_sign_extend(tag_value, fc->tag->size));
	return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + d->pos / 8,
			    "variant %s `%s` value %llu selects no option", what, tag,
			    (unsigned long long)tag_value);
}

static int decode_variant(struct ctf_decoder *d, const struct tmx_field_class *fc,
			  struct ctf_values *vals, struct tmx_error *err)
{
	uint64_t tag_value = d->slots[fc->ref_slot];
	int option = ctf_variant_select(fc, tag_value);

	if (option < 0)
		return no_option(d, fc, tag_value, err);
	values_push(vals, fc)->option = (uint32_t)option;
	return decode_field(d, fc->members[option].fc, vals, err);
}

/*
 * The most common field by far: a whole-byte integer, byte-aligned, that
 * nothing refers to.  Read in place without the general machinery; returns
 * false (having done nothing) for anything else.
 */
static inline bool read_plain_int(struct ctf_decoder *d, const struct tmx_field_class *fc,
				  struct ctf_values *vals)
{
	uint64_t pos = (d->pos + 7) & ~UINT64_C(7);
	struct tmx_value *v;
	uint64_t u;

	if (fc->kind != TMX_FC_INT || (fc->size & 7) || fc->align > 8 || (fc->align & 7) ||
	    fc->varlen || fc->bit_order_rev ||
	    fc->slot >= 0 || fc->meaning || fc->mapped_clock || pos > d->limit ||
	    fc->size > d->limit - pos || vals->n == vals->cap)
		return false;
	u = tmx_read_aligned(d->base + pos / 8, fc->size / 8, fc->byte_order == TMX_BO_BE);
	d->pos = pos + fc->size;
	d->bo_end = UINT64_MAX;
	v = values_push(vals, fc);
	if (fc->is_signed)
		v->s = tmx_sign_extend(u, fc->size);
	else
		v->u = u;
	return true;
}

static int decode_field(struct ctf_decoder *d, const struct tmx_field_class *fc,
			struct ctf_values *vals, struct tmx_error *err)
{
	bool present;
	int ret = align_to(d, fc->align, fc, err);

	if (ret)
		return ret;
	ret = values_reserve(vals, 1, err);
	if (ret)
		return ret;
	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
		return decode_integer(d, fc, vals, err);
	case TMX_FC_FLOAT:
		return decode_float(d, fc, vals, err);
	case TMX_FC_STRING:
		if (fc->str_length == TMX_STR_NUL_TERMINATED && fc->str_encoding == TMX_STR_UTF8)
			return decode_string(d, fc, vals, err);
		return ctf_decode_string_ext(d, fc, vals, err);
	case TMX_FC_BLOB:
		return ctf_decode_blob(d, fc, vals, err);
	case TMX_FC_OPTIONAL:
		ret = ctf_decode_optional(d, fc, vals, &present, err);
		return ret || !present ? ret : decode_field(d, fc->elem, vals, err);
	case TMX_FC_STRUCT:
		ret = values_reserve(vals, fc->n_members + 1, err);
		if (ret)
			return ret;
		values_push(vals, fc)->n_members = (uint32_t)fc->n_members;
		for (size_t i = 0; i < fc->n_members; i++) {
			const struct tmx_field_class *m = fc->members[i].fc;
			if (read_plain_int(d, m, vals))
				continue;
			ret = decode_field(d, m, vals, err);
			if (ret)
				return ret;
		}
		return TMX_OK;
	case TMX_FC_ARRAY:
		return decode_array(d, fc, fc->length, vals, err);
	case TMX_FC_SEQUENCE:
		return decode_array(d, fc, d->slots[fc->ref_slot], vals, err);
	case TMX_FC_VARIANT:
		return decode_variant(d, fc, vals, err);
	}
	return tmx_error_set(err, TMX_ERR_DATA, d->path, "unknown field class kind");
}

/* ------------------------------------------------------------------ */
/* Running plans (ctf/plan.h)                                           */
/* ------------------------------------------------------------------ */

/*
 * Decodes run items one by one, as the walk does: used when the run does
 * not fit in the packet, or when an item changes the byte order inside a
 * byte, so that the walk reports the error at the exact field.
 */
static int run_items_slowly(struct ctf_decoder *d, const struct ctf_run_item *it,
			    const struct ctf_run_item *end, struct ctf_values *vals,
			    size_t *scope_index, struct tmx_error *err)
{
	for (; it < end; it++) {
		int ret;
		if (it->code == CTF_IC_STRUCT_SCOPE)
			scope_index[it->scope] = vals->n;
		if (it->kind == CTF_ITEM_STRUCT) {
			/* The structure alone: its members are the next items. */
			ret = align_to(d, it->fc->align, it->fc, err);
			if (!ret)
				values_push(vals, it->fc)->n_members = it->len;
		} else {
			ret = decode_field(d, it->fc, vals, err);
		}
		if (ret)
			return ret;
	}
	return TMX_OK;
}

/*
 * tmx_read_bits with one 8-byte load when the 8 bytes from the field's
 * first byte lie inside the content (bits [0, limit) of base).
 */
static inline uint64_t read_bits_fast(const uint8_t *base, uint64_t pos, unsigned len, int be,
				      uint64_t limit)
{
	unsigned shift = (unsigned)(pos & 7);

	if (shift + len <= 64 && (pos & ~UINT64_C(7)) + 64 <= limit) {
		const uint8_t *q = base + pos / 8;
		uint64_t w;
		if (be)
			return (tmx_be64(q) << shift) >> (64 - len);
		w = tmx_le64(q) >> shift;
		return len == 64 ? w : w & ((UINT64_C(1) << len) - 1);
	}
	return tmx_read_bits(base, pos, len, be);
}

/* note_integer with what it does decided at compile time (it->note). */
static inline void note_item(struct ctf_decoder *d, const struct ctf_run_item *it, uint64_t u)
{
	const struct tmx_field_class *fc = it->fc;

	if (it->note & CTF_NOTE_SLOT)
		d->slots[fc->slot] = u;
	if (it->note & CTF_NOTE_MEANING) {
		d->special[fc->meaning] = u;
		d->special_set[fc->meaning] = true;
	}
	if (it->note & CTF_NOTE_CLOCK)
		d->clock = ctf_clock_update(d->clock, u, it->len);
}

static uint64_t put_reversed(struct tmx_value *v, const struct ctf_run_item *it, uint64_t u);

/*
 * An integer or float item's value from its bits, converted as `conv`
 * says; returns the field's unsigned value (what note_item records): the
 * bits as read, or reversed.
 */
static inline uint64_t put_number_as(struct tmx_value *v, const struct ctf_run_item *it,
				     uint8_t conv, uint64_t u)
{
	switch (conv) {
	case CTF_CONV_U:
		v->u = u;
		break;
	case CTF_CONV_S:
		v->s = tmx_sign_extend(u, it->len);
		break;
	case CTF_CONV_BOOL:
		v->u = u != 0;
		break;
	case CTF_CONV_F32: {
		uint32_t u32 = (uint32_t)u;
		float f;
		memcpy(&f, &u32, sizeof(f));
		v->d = f;
		break;
	}
	case CTF_CONV_F64:
		memcpy(&v->d, &u, sizeof(v->d));
		break;
	default:
		return put_reversed(v, it, u);
	}
	return u;
}

/* A CTF 2 field of the opposite bit order: its bits reversed, then converted. */
static __attribute__((noinline)) uint64_t put_reversed(struct tmx_value *v,
						       const struct ctf_run_item *it, uint64_t u)
{
	u = tmx_reverse_bits(u, it->len);
	return put_number_as(v, it, it->rev, u);
}

static inline uint64_t put_number(struct tmx_value *v, const struct ctf_run_item *it, uint64_t u)
{
	return put_number_as(v, it, it->conv, u);
}

/*
 * The items [it, end) of a run that starts at bit `start` and lies inside
 * the content (the caller checked).  The walk's byte order state is kept
 * in bo_end_p and bo_last_p as the last bit-level item left it (aligned
 * items leave no shared byte: see ctf_op.bo_max).  Returns NULL, or the item
 * that would change the byte order inside a byte (nothing of it done).
 */
static inline __attribute__((always_inline)) const struct ctf_run_item *
run_fast(struct ctf_decoder *d, const struct ctf_run_item *it, const struct ctf_run_item *end,
	 uint64_t start, struct tmx_value *v, size_t *scope_index, size_t n0,
	 uint64_t *bo_end_p, uint8_t *bo_last_p)
{
	const struct ctf_run_item *first = it;
	const uint8_t *base = d->base;
	/* Byte-addressed items are only in runs that start on a byte. */
	const uint8_t *p = base + start / 8;
	const uint64_t limit = d->limit;
	uint64_t bo_end = *bo_end_p;
	uint8_t bo_last = *bo_last_p;

	for (; it < end; it++, v++) {
		const uint8_t *q = p + it->off / 8;
		uint64_t u;

		v->fc = it->fc;
		switch (it->code) {
		case CTF_IC_U8:
			v->u = q[0];
			continue;
		case CTF_IC_S8:
			v->s = (int8_t)q[0];
			continue;
		case CTF_IC_LE16U:
			v->u = tmx_le16(q);
			continue;
		case CTF_IC_LE16S:
			v->s = (int16_t)tmx_le16(q);
			continue;
		case CTF_IC_LE32U:
			v->u = tmx_le32(q);
			continue;
		case CTF_IC_LE32S:
			v->s = (int32_t)tmx_le32(q);
			continue;
		case CTF_IC_LE64:
			v->u = tmx_le64(q);
			continue;
		case CTF_IC_BE16U:
			v->u = tmx_be16(q);
			continue;
		case CTF_IC_BE16S:
			v->s = (int16_t)tmx_be16(q);
			continue;
		case CTF_IC_BE32U:
			v->u = tmx_be32(q);
			continue;
		case CTF_IC_BE32S:
			v->s = (int32_t)tmx_be32(q);
			continue;
		case CTF_IC_BE64:
			v->u = tmx_be64(q);
			continue;
		case CTF_IC_STRUCT:
			v->n_members = it->len;
			continue;
		case CTF_IC_STRUCT_SCOPE:
			scope_index[it->scope] = n0 + (size_t)(it - first);
			v->n_members = it->len;
			continue;
		case CTF_IC_TEXT:
			v->str.ptr = (const char *)q;
			v->str.len = it->len;
			continue;
		case CTF_IC_SSTR: {
			/* ctf_decode_string_ext: the text ends at the first NUL. */
			const uint8_t *nul = memchr(q, 0, it->len);
			v->str.ptr = (const char *)q;
			v->str.len = nul ? (uint64_t)(nul - q) : it->len;
			continue;
		}
		case CTF_IC_ALIGNED:
			u = tmx_read_aligned(q, it->len / 8, it->be);
			break;
		default: {
			/* CTF_IC_BITS: decode_integer / decode_float, less the bounds checks. */
			uint64_t pos = start + it->off;
			if (it->conv < CTF_CONV_F32 && (pos & 7) == 0 && (it->len & 7) == 0) {
				u = tmx_read_aligned(base + pos / 8, it->len / 8, it->be);
				bo_end = UINT64_MAX;
				break;
			}
			if ((pos & 7) && pos == bo_end && it->be != bo_last) {
				*bo_end_p = bo_end;
				*bo_last_p = bo_last;
				return it;
			}
			u = read_bits_fast(base, pos, it->len, it->be, limit);
			bo_end = pos + it->len;
			bo_last = it->be;
			break;
		}
		}
		u = put_number(v, it, u);
		if (it->note)
			note_item(d, it, u);
	}
	*bo_end_p = bo_end;
	*bo_last_p = bo_last;
	return NULL;
}

/*
 * The walk's bo_end just before item `it` of a run (after `first`):
 * set by the last bit-level or aligned item before it, else `before`.
 */
static uint64_t bo_end_before(const struct ctf_run_item *first, const struct ctf_run_item *it,
			      uint64_t local, uint64_t before)
{
	while (it > first) {
		--it;
		if (it->kind == CTF_ITEM_ALIGNED)
			return UINT64_MAX;
		if (it->kind == CTF_ITEM_BITS)
			return local;
	}
	return before;
}

/*
 * A run (see ctf/plan.h): when it fits, one bounds check covers every
 * item; else, or at an item that would change the byte order inside a
 * byte, the items are decoded as the walk decodes them, for its error.
 */
static inline __attribute__((always_inline)) int
run_items(struct ctf_decoder *d, const struct ctf_plan *pl, const struct ctf_op *op,
	  struct ctf_values *vals, size_t *scope_index, struct tmx_error *err)
{
	const struct ctf_run_item *first = pl->items + op->a, *end = first + op->b, *it;
	const uint64_t limit = d->limit;
	const uint64_t start = (d->pos + op->align - 1) & ~(uint64_t)(op->align - 1);
	const size_t n0 = vals->n;   /* every item pushes one value */
	uint64_t bo_end = d->bo_end;
	uint8_t bo_last = d->bo_last;

	if (__builtin_expect(start > limit || op->bits > limit - start, 0))
		return run_items_slowly(d, first, end, vals, scope_index, err);
	it = run_fast(d, first, end, start, vals->v + n0, scope_index, n0, &bo_end, &bo_last);
	if (__builtin_expect(it == NULL, 1)) {
		vals->n = n0 + op->b;
		d->pos = start + op->bits;
		d->bo_end = op->bo_max ? UINT64_MAX : bo_end;
		d->bo_last = bo_last;
		return TMX_OK;
	}
	/* Where the walk would be: right after the previous item, in its state. */
	vals->n = n0 + (size_t)(it - first);
	if (it != first)
		d->pos = start + it[-1].end;
	d->bo_end = bo_end_before(first, it, bo_end, bo_end);
	d->bo_last = bo_last;
	return run_items_slowly(d, it, end, vals, scope_index, err);
}

/* run_items, out of line: the hot call site in run_plan keeps it inline. */
static __attribute__((noinline)) int run_items_outlined(struct ctf_decoder *d,
							const struct ctf_plan *pl,
							const struct ctf_op *op,
							struct ctf_values *vals,
							struct tmx_error *err)
{
	return run_items(d, pl, op, vals, NULL, err);
}

/*
 * `count` elements of an array whose element is one run (ops[a] of `op`,
 * the ARRAY op), after its value.  When the element's size is a multiple
 * of its alignment, the elements are contiguous: one bounds check and one
 * loop cover them all.  Otherwise, or when they do not all fit, element
 * after element (each exact, as above).
 */
static __attribute__((noinline)) int run_elements(struct ctf_decoder *d,
						  const struct ctf_plan *pl,
						  const struct ctf_op *eop, uint64_t count,
						  struct ctf_values *vals, struct tmx_error *err)
{
	const struct ctf_run_item *first = pl->items + eop->a, *end = first + eop->b, *it = NULL;
	const uint64_t limit = d->limit, bits = eop->bits;
	const uint64_t start = (d->pos + eop->align - 1) & ~(uint64_t)(eop->align - 1);
	const size_t n0 = vals->n;
	uint64_t bo_end = d->bo_end, k = 0;
	uint8_t bo_last = d->bo_last;
	int ret = TMX_OK;

	if (bits % eop->align == 0 && start <= limit && (bits == 0 || count <= (limit - start) / bits) &&
	    count <= (SIZE_MAX / sizeof(struct tmx_value) - n0) / (eop->b + 1)) {
		ret = values_reserve(vals, (size_t)count * eop->b, err);
		if (ret)
			return ret;
		for (; k < count; k++) {
			it = run_fast(d, first, end, start + k * bits, vals->v + n0 + k * eop->b, NULL,
				      0, &bo_end, &bo_last);
			if (__builtin_expect(it != NULL, 0))
				break;
		}
		if (!it) {
			vals->n = n0 + (size_t)count * eop->b;
			d->pos = start + count * bits;
			d->bo_end = eop->bo_max ? UINT64_MAX : bo_end;
			d->bo_last = bo_last;
			return TMX_OK;
		}
		/* Element k breaks the byte order rule at item `it`: as the walk. */
		vals->n = n0 + (size_t)k * eop->b + (size_t)(it - first);
		if (it != first)
			d->pos = start + k * bits + it[-1].end;
		else if (k > 0)
			d->pos = start + k * bits;
		d->bo_end = bo_end_before(first, it, bo_end,
					  k > 0 && eop->bo_max ? UINT64_MAX : bo_end);
		d->bo_last = bo_last;
		ret = run_items_slowly(d, it, end, vals, NULL, err);
		k++;
	}
	for (; k < count && !ret; k++) {
		ret = values_reserve(vals, eop->b, err);
		if (!ret)
			ret = run_items_outlined(d, pl, eop, vals, err);
	}
	return ret;
}

/*
 * decode_field + decode_array up to the elements.  Returns the number of
 * element blocks still to run in *length (0 when the array was decoded
 * whole: text, plain bytes, or no elements).
 */
static int array_start(struct ctf_decoder *d, const struct ctf_op *op, struct ctf_values *vals,
		       uint64_t *length, struct tmx_error *err)
{
	const struct tmx_field_class *fc = op->fc, *e = fc->elem;
	uint64_t n = fc->kind == TMX_FC_SEQUENCE ? d->slots[fc->ref_slot] : fc->length;
	int ret = align_to(d, op->align, fc, err);

	*length = 0;
	if (ret)
		return ret;
	/* Element alignment applies even to an empty array. */
	ret = align_to(d, e->align, fc, err);
	if (ret)
		return ret;
	if (fc->is_text)
		return decode_text(d, fc, n, vals, err);
	if (!op->bits && n > CTF_MAX_EMPTY_ELEMENTS)
		return too_many_empty(d, n, err);
	if (op->byte_elem && d->pos % 8 == 0 && n <= (d->limit - d->pos) / e->size)
		return decode_byte_int_array(d, fc, n, vals, err);
	values_push(vals, fc)->count = n;
	*length = n;
	return TMX_OK;
}

/* decode_field + decode_variant up to the option: its index in *option. */
static int variant_start(struct ctf_decoder *d, const struct ctf_plan *pl,
			 const struct ctf_op *op, struct ctf_values *vals, uint32_t *option,
			 struct tmx_error *err)
{
	const struct tmx_field_class *fc = op->fc;
	uint64_t tag_value = d->slots[fc->ref_slot];
	int o, ret = align_to(d, op->align, fc, err);

	if (ret)
		return ret;
	o = op->has_table && tag_value < CTF_VARIANT_TABLE ? pl->tags[op->b + tag_value] :
	    ctf_variant_select(fc, tag_value);
	if (o < 0)
		return no_option(d, fc, tag_value, err);
	values_push(vals, fc)->option = (uint32_t)o;
	*option = (uint32_t)o;
	return TMX_OK;
}

/* A nested block being run: the elements of an array, an optional's field. */
struct plan_frame {
	const struct ctf_op *start, *end;  /* the block's ops */
	const struct ctf_op *resume;       /* the op after the array's blocks */
	uint32_t reserve;                  /* the block's own pushes */
	uint32_t after;                    /* the enclosing block's pushes after resume */
	uint64_t left;                     /* runs of the block still to come */
};

/*
 * Runs plan `pl`, appending to `vals`.  No recursion: array elements use a
 * stack of frames, bounded by the plan compiler (CTF_PLAN_MAX_NEST); a
 * variant continues with its option's ops, which jump past the other
 * options at their end.  The room for the values a block's own ops push is
 * reserved once per run of the block; ops that run nested blocks reserve
 * the room for the rest of the enclosing block again afterwards.
 * `scope_index` receives where each scope begins (event body plans).
 */
static int run_plan(struct ctf_decoder *d, const struct ctf_plan *pl, struct ctf_values *vals,
		    size_t *scope_index, struct tmx_error *err)
{
	struct plan_frame stack[CTF_PLAN_MAX_NEST];
	unsigned depth = 0;
	const struct ctf_op *op = pl->ops + pl->blocks[0].start;
	const struct ctf_op *end = op + pl->blocks[0].n_ops, *top_end = end;
	uint64_t runs;   /* ARRAY, OPTIONAL: runs of the nested block */
	int ret = values_reserve(vals, pl->blocks[0].reserve, err);

	while (!ret) {
		if (op == end) {
			struct plan_frame *f;
			if (depth == 0)
				return TMX_OK;
			f = &stack[depth - 1];
			if (f->left) {
				/* The next array element. */
				f->left--;
				op = f->start;
				ret = values_reserve(vals, f->reserve, err);
				continue;
			}
			op = f->resume;
			ret = values_reserve(vals, f->after, err);
			depth--;
			end = depth ? stack[depth - 1].end : top_end;
			continue;
		}
		switch (op->kind) {
		case CTF_OP_RUN:
			ret = run_items(d, pl, op, vals, scope_index, err);
			op++;
			break;
		case CTF_OP_STRUCT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				values_push(vals, op->fc)->n_members = (uint32_t)op->fc->n_members;
			op++;
			break;
		case CTF_OP_INT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = decode_integer(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_FLOAT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = decode_float(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_STRING:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = decode_string(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_SCOPE:
			scope_index[op->a] = vals->n;
			op++;
			break;
		case CTF_OP_VARIANT: {
			/* The option's ops are in this block: no frame, it ends with a jump. */
			uint32_t option = 0;
			const struct ctf_block *b;
			ret = variant_start(d, pl, op, vals, &option, err);
			if (ret)
				break;
			b = &pl->blocks[op->a + option];
			ret = values_reserve(vals, b->reserve, err);
			op = pl->ops + b->start;
			break;
		}
		case CTF_OP_JUMP:
			ret = values_reserve(vals, pl->ops[op->b].after, err);
			op = pl->ops + op->a;
			break;
		case CTF_OP_VARINT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_varint(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_STRING_EXT:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_string_ext(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_BLOB:
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_blob(d, op->fc, vals, err);
			op++;
			break;
		case CTF_OP_OPTIONAL: {
			bool present = false;
			ret = align_to(d, op->align, op->fc, err);
			if (!ret)
				ret = ctf_decode_optional(d, op->fc, vals, &present, err);
			if (ret)
				break;
			/* Its field's block runs once or not at all. */
			runs = present;
			goto nested_block;
		}
		case CTF_OP_ARRAY:
			ret = array_start(d, op, vals, &runs, err);
			if (ret)
				break;
			if (runs && op->elem_run) {
				/* Elements of fixed layout: their run, in one loop. */
				ret = run_elements(d, pl, op + 1, runs, vals, err);
				runs = 0;
				if (ret)
					break;
			}
		nested_block:
			if (runs == 0) {
				/* Decoded whole: on to the next op of this block. */
				ret = values_reserve(vals, op->after, err);
				op += 1 + op->skip;
				break;
			}
			stack[depth].start = pl->ops + pl->blocks[op->a].start;
			stack[depth].end = stack[depth].start + pl->blocks[op->a].n_ops;
			stack[depth].resume = op + 1 + op->skip;
			stack[depth].reserve = pl->blocks[op->a].reserve;
			stack[depth].after = op->after;
			stack[depth].left = runs - 1;
			op = stack[depth].start;
			end = stack[depth].end;
			ret = values_reserve(vals, stack[depth].reserve, err);
			depth++;
			break;
		default:
			return tmx_error_set(err, TMX_ERR_DATA, d->path, "unknown plan op %d",
					     (int)op->kind);
		}
	}
	return ret;
}

/* Appends scope `fc` to `vals` by its plan, or by walking it when it has none. */
static inline int run_scope(struct ctf_decoder *d, const struct ctf_plan *pl,
			    const struct tmx_field_class *fc, struct ctf_values *vals,
			    struct tmx_error *err)
{
	if (pl && !d->walk_only)
		return run_plan(d, pl, vals, NULL, err);
	return fc ? decode_field(d, fc, vals, err) : TMX_OK;
}

/* Decodes one scope into `vals` (cleared first). */
static int decode_scope(struct ctf_decoder *d, const struct ctf_plan *pl,
			const struct tmx_field_class *fc, struct ctf_values *vals,
			struct tmx_error *err)
{
	values_clear(vals);
	return run_scope(d, pl, fc, vals, err);
}

int ctf_decoder_init(struct ctf_decoder *d, const struct tmx_trace_class *tc,
		     const char *path, const uint8_t *data, uint64_t size,
		     struct tmx_error *err)
{
	memset(d, 0, sizeof(*d));
	d->tc = tc;
	d->path = path;
	d->data = data;
	d->size = size;
	d->lenient_align = tc->major < 2;
	d->slots = calloc(tc->n_slots > 0 ? (size_t)tc->n_slots : 1, sizeof(*d->slots));
	if (!d->slots)
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
	if (ctf_plans_new(tc, &d->plans, err)) {
		free(d->slots);
		d->slots = NULL;
		return TMX_ERR_NOMEM;
	}
	return TMX_OK;
}

void ctf_decoder_fini(struct ctf_decoder *d)
{
	free(d->slots);
	free(d->header.v);
	free(d->packet_context.v);
	free(d->event.v);
	ctf_text_fini(&d->header.text);
	ctf_text_fini(&d->packet_context.text);
	ctf_text_fini(&d->event.text);
	free(d->inflated);
	ctf_plans_free(d->plans);
	memset(d, 0, sizeof(*d));
}

static void clear_specials(struct ctf_decoder *d)
{
	memset(d->special_set, 0, sizeof(d->special_set));
}

static int packet_header(struct ctf_decoder *d, uint64_t offset, struct ctf_packet_info *info,
			 struct tmx_error *err)
{
	const struct tmx_trace_class *tc = d->tc;
	struct ctf_plan *pl;
	int ret = ctf_plans_packet_header(d->plans, &pl, err);

	if (!ret)
		ret = decode_scope(d, pl, tc->packet_header, &d->header, err);
	if (ret)
		return ret;
	if (d->special_set[TMX_MEANING_MAGIC] && d->special[TMX_MEANING_MAGIC] != CTF_PACKET_MAGIC) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, offset,
				    "bad packet magic 0x%08llx, expected 0xc1fc1fc1",
				    (unsigned long long)d->special[TMX_MEANING_MAGIC]);
	}
	/*
	 * A packet UUID that differs from the metadata's is not an error:
	 * babeltrace2 reads such traces (corpus: intersection/onestream).
	 */
	if (d->special_set[TMX_MEANING_STREAM_ID]) {
		uint64_t id = d->special[TMX_MEANING_STREAM_ID];
		for (size_t i = 0; i < tc->n_stream_classes; i++)
			if (tc->stream_classes[i]->id == id)
				info->sc = tc->stream_classes[i];
		if (!info->sc)
			return tmx_error_at(err, TMX_ERR_DATA, d->path, offset,
					    "no stream class with ID %llu in the metadata",
					    (unsigned long long)id);
	} else if (tc->n_stream_classes == 1) {
		info->sc = tc->stream_classes[0];
	} else {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, offset,
				    tc->n_stream_classes ? "packet header has no stream_id and the "
				    "metadata has several stream classes" :
				    "the metadata has no stream class");
	}
	info->has_stream_instance_id = d->special_set[TMX_MEANING_STREAM_INSTANCE_ID];
	info->stream_instance_id = d->special[TMX_MEANING_STREAM_INSTANCE_ID];
	return TMX_OK;
}

static int packet_sizes(struct ctf_decoder *d, uint64_t offset, struct ctf_packet_info *info,
			struct tmx_error *err)
{
	uint64_t remaining = (d->size - offset) * 8;

	if (d->special_set[TMX_MEANING_PACKET_SIZE])
		info->packet_bits = d->special[TMX_MEANING_PACKET_SIZE];
	else if (d->special_set[TMX_MEANING_CONTENT_SIZE])
		info->packet_bits = (d->special[TMX_MEANING_CONTENT_SIZE] + 7) & ~UINT64_C(7);
	else
		info->packet_bits = remaining;
	info->content_bits = d->special_set[TMX_MEANING_CONTENT_SIZE] ?
			     d->special[TMX_MEANING_CONTENT_SIZE] : info->packet_bits;
	if (info->packet_bits % 8) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, offset,
				    "packet size (%llu bits) is not a multiple of 8",
				    (unsigned long long)info->packet_bits);
	}
	if (info->content_bits > info->packet_bits) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, offset,
				    "packet content size (%llu bits) is larger than the packet size "
				    "(%llu bits)", (unsigned long long)info->content_bits,
				    (unsigned long long)info->packet_bits);
	}
	if (info->packet_bits > remaining) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, offset,
				    "packet size (%llu bits) goes past the end of the file "
				    "(%llu bits remain)", (unsigned long long)info->packet_bits,
				    (unsigned long long)remaining);
	}
	if (info->content_bits < d->pos) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, offset,
				    "packet content size (%llu bits) is smaller than its header and "
				    "context (%llu bits)", (unsigned long long)info->content_bits,
				    (unsigned long long)d->pos);
	}
	if (info->packet_bits == 0) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, offset,
				    "packet size is zero");
	}
	return TMX_OK;
}

/*
 * A compressed packet: the event records, after the header and context, are
 * decompressed into a buffer that starts with a copy of the header and
 * context, so that positions keep their meaning.
 */
static int inflate_events(struct ctf_decoder *d, uint64_t offset, struct tmx_error *err)
{
	size_t keep = d->pos / 8, out_len;
	int ret;

	if (d->pos % 8)
		return ctf_data_error(d, err, "%s does not end on a byte boundary",
				  "the context of a compressed packet");
	ret = ctf_inflate_packet(d->special[TMX_MEANING_COMPRESSION], d->base, keep,
				 d->base + keep, (size_t)(d->limit / 8) - keep, &d->inflated,
				 &d->inflated_cap, &out_len, d->path, offset + keep, err);
	if (ret)
		return ret;
	d->base = d->inflated;
	d->limit = (keep + (uint64_t)out_len) * 8;
	return TMX_OK;
}

int ctf_decode_packet_start(struct ctf_decoder *d, uint64_t offset,
			    struct ctf_packet_info *info, struct tmx_error *err)
{
	int ret;

	memset(info, 0, sizeof(*info));
	info->offset = offset;
	d->base = d->data + offset;
	d->base_off = offset;
	d->pos = 0;
	d->limit = (d->size - offset) * 8;
	d->bo_end = UINT64_MAX;
	clear_specials(d);

	ret = packet_header(d, offset, info, err);
	if (ret)
		return ret;
	ret = ctf_plans_stream(d->plans, info->sc, &d->sp, err);
	if (ret)
		return ret;
	ret = decode_scope(d, d->sp->packet_context, info->sc->packet_context, &d->packet_context,
			   err);
	if (ret)
		return ret;
	ret = packet_sizes(d, offset, info, err);
	if (ret)
		return ret;
	d->limit = info->content_bits;
	/* Decoding encrypted or checksummed content would print garbage: refuse. */
	if (d->special_set[TMX_MEANING_ENCRYPTION] && d->special[TMX_MEANING_ENCRYPTION])
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, d->path, offset,
				    "packet encryption scheme %llu is not supported",
				    (unsigned long long)d->special[TMX_MEANING_ENCRYPTION]);
	if (d->special_set[TMX_MEANING_CHECKSUM] && d->special[TMX_MEANING_CHECKSUM])
		return tmx_error_at(err, TMX_ERR_UNSUPPORTED, d->path, offset,
				    "packet checksum scheme %llu is not supported",
				    (unsigned long long)d->special[TMX_MEANING_CHECKSUM]);
	if (d->special_set[TMX_MEANING_COMPRESSION] && d->special[TMX_MEANING_COMPRESSION] &&
	    !d->headers_only) {
		ret = inflate_events(d, offset, err);
		if (ret)
			return ret;
	}

	info->has_ts_begin = d->special_set[TMX_MEANING_TS_BEGIN];
	info->ts_begin = d->special[TMX_MEANING_TS_BEGIN];
	info->has_ts_end = d->special_set[TMX_MEANING_TS_END];
	info->ts_end = d->special[TMX_MEANING_TS_END];
	info->has_discarded = d->special_set[TMX_MEANING_EVENTS_DISCARDED];
	info->events_discarded = d->special[TMX_MEANING_EVENTS_DISCARDED];
	info->has_seq_num = d->special_set[TMX_MEANING_PACKET_SEQ_NUM];
	info->seq_num = d->special[TMX_MEANING_PACKET_SEQ_NUM];
	if (info->has_ts_begin)
		d->clock = info->ts_begin;
	return TMX_OK;
}

/* An event scope without a plan: walked (if present), its start recorded. */
static int walk_scope(struct ctf_decoder *d, const struct tmx_field_class *fc,
		      enum tmx_scope scope, size_t scope_index[TMX_N_SCOPES],
		      struct tmx_error *err)
{
	if (!fc)
		return TMX_OK;
	scope_index[scope] = d->event.n;
	return decode_field(d, fc, &d->event, err);
}

int ctf_decode_event(struct ctf_decoder *d, bool *more, const struct tmx_stream_class *sc,
		     const struct tmx_event_class **ecp, size_t scope_index[TMX_N_SCOPES],
		     struct tmx_error *err)
{
	const struct tmx_event_class *ec;
	struct ctf_stream_plans *sp = d->sp;
	struct ctf_event_plans *ep;
	uint64_t start = d->pos;
	uint64_t id;
	int ret;

	*more = d->pos < d->limit;
	if (!*more)
		return TMX_OK;
	if (__builtin_expect(!sp || sp->sc != sc, 0)) {
		ret = ctf_plans_stream(d->plans, sc, &d->sp, err);
		if (ret)
			return ret;
		sp = d->sp;
	}
	d->special_set[TMX_MEANING_EVENT_ID] = false;
	values_clear(&d->event);
	ret = run_scope(d, sp->event_header, sc->event_header, &d->event, err);
	if (ret)
		return ret;
	d->event_clock = d->clock;
	id = d->special_set[TMX_MEANING_EVENT_ID] ? d->special[TMX_MEANING_EVENT_ID] : 0;
	ep = ctf_plans_event_ready(sp, id);
	if (__builtin_expect(!ep, 0)) {
		ret = ctf_plans_event(sp, id, &ep, err);
		if (ret)
			return ret;
	}
	if (!ep) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + start / 8,
				    "no event class with ID %llu in stream class %llu",
				    (unsigned long long)id, (unsigned long long)sc->id);
	}
	ec = ep->ec;
	*ecp = ec;
	scope_index[TMX_SCOPE_PACKET_CONTEXT] = SIZE_MAX;
	scope_index[TMX_SCOPE_COMMON_CONTEXT] = SIZE_MAX;
	scope_index[TMX_SCOPE_SPECIFIC_CONTEXT] = SIZE_MAX;
	scope_index[TMX_SCOPE_PAYLOAD] = SIZE_MAX;
	if (ep->body && !d->walk_only) {
		/* The three scopes in one plan, which sets scope_index[] as it goes. */
		ret = run_plan(d, ep->body, &d->event, scope_index, err);
		if (ret)
			return ret;
	} else {
		ret = walk_scope(d, sc->event_common_context, TMX_SCOPE_COMMON_CONTEXT,
				 scope_index, err);
		if (!ret)
			ret = walk_scope(d, ec->specific_context, TMX_SCOPE_SPECIFIC_CONTEXT,
					 scope_index, err);
		if (!ret)
			ret = walk_scope(d, ec->payload, TMX_SCOPE_PAYLOAD, scope_index, err);
		if (ret)
			return ret;
	}
	if (d->pos == start) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + start / 8,
				    "event record of class `%s` takes no space: cannot make progress",
				    ec->name);
	}
	return TMX_OK;
}
