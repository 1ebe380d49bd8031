/*
 * CTF binary decoding: CTF 1.8 (spec sections 4 and 5) and CTF 2 (spec
 * section 6; its own field classes are in decode_ctf2.c).
 *
 * Two ways to decode a scope that give the same result: a recursive walk
 * over the resolved field classes (ctf_decode_field), and the scope's plan
 * (ctf/plan.h, run by decode_plan.c), which is what normally runs.  The plan's
 * steps call the walk's per-field functions wherever a field needs the
 * general treatment (bit fields, damaged data), so that both report the
 * same errors at the same offsets.  Scopes too large to plan are walked.
 * The class tree depth is bounded by the metadata parser, so recursion is
 * bounded too.  Every read is checked against `limit` (the packet's
 * content size, or the file end while the packet header/context is read).
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "ctf/decode_impl.h"
#include "ctf/packet_compression.h"
#include "ctf/plan.h"
#include "io/bitread.h"
#include "common/errors.h"
#include "model/field_class.h"

/* Bytes ahead of the event being decoded that are fetched into the cache. */
#define CTF_PREFETCH_AHEAD 512

#define CTF_PACKET_MAGIC UINT32_C(0xC1FC1FC1)

int ctf_data_error(struct ctf_decoder *d, struct tmx_error *err, const char *fmt,
		   const char *what)
{
	return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + d->pos / 8, fmt, what);
}

int ctf_values_grow(struct ctf_values *vals, size_t need, struct tmx_error *err)
{
	void *v = vals->v;

	if (!tmx_grow_array(&v, &vals->cap, need, sizeof(*vals->v), 64))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory for decoded values");
	vals->v = v;
	return TMX_OK;
}

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
int ctf_decode_integer(struct ctf_decoder *d, const struct tmx_field_class *fc,
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

int ctf_decode_float(struct ctf_decoder *d, const struct tmx_field_class *fc,
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

int ctf_decode_string(struct ctf_decoder *d, const struct tmx_field_class *fc,
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

int ctf_decode_text(struct ctf_decoder *d, const struct tmx_field_class *fc,
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

int ctf_decode_byte_int_array(struct ctf_decoder *d, const struct tmx_field_class *fc,
				 uint64_t length, struct ctf_values *vals, struct tmx_error *err)
{
	const struct tmx_field_class *e = fc->elem;
	const uint8_t *p = d->base + d->pos / 8;
	unsigned bytes = e->size / 8;
	bool be = e->byte_order == TMX_BO_BE;
	/* No one reads the elements: none is made (the event will have no scopes). */
	uint64_t made = d->values_unread ? 0 : length;
	struct tmx_value *v;
	int ret = values_reserve(vals, made + 1, err);

	if (ret)
		return ret;
	values_push(vals, fc)->count = made;
	v = &vals->v[vals->n];
	if (bytes == 1 && !e->is_signed) {
		/* Bytes (buffers, addresses): the common case, without the general read. */
		for (uint64_t i = 0; i < made; i++) {
			v[i].fc = e;
			v[i].u = p[i];
		}
	} else {
		for (uint64_t i = 0; i < made; i++, p += bytes) {
			uint64_t u = tmx_read_aligned(p, bytes, be);
			v[i].fc = e;
			if (e->is_signed)
				v[i].s = tmx_sign_extend(u, e->size);
			else
				v[i].u = u;
		}
	}
	vals->n += made;
	d->pos += length * e->size;
	d->bo_end = d->pos;
	d->bo_last = e->byte_order;
	return TMX_OK;
}

int ctf_too_many_empty(struct ctf_decoder *d, uint64_t length, struct tmx_error *err)
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
		return ctf_decode_text(d, fc, length, vals, err);
	/*
	 * Elements that take bits are bounded by the remaining content (each
	 * read is checked, and fails where the data ends); elements that may
	 * take none need an explicit cap.
	 */
	elem_bits = ctf_min_bits(fc->elem);
	if (!elem_bits && length > CTF_MAX_EMPTY_ELEMENTS)
		return ctf_too_many_empty(d, length, err);
	if (ctf_is_plain_byte_int(fc->elem) && d->pos % 8 == 0 &&
	    length <= (d->limit - d->pos) / fc->elem->size)
		return ctf_decode_byte_int_array(d, fc, length, vals, err);
	ret = values_reserve(vals, 1, err);
	if (ret)
		return ret;
	values_push(vals, fc)->count = length;
	for (uint64_t i = 0; i < length; i++) {
		ret = ctf_decode_field(d, fc->elem, vals, err);
		if (ret)
			return ret;
	}
	return TMX_OK;
}

/* CTF 1.8 names the variant's tag, CTF 2 its selector (options by ranges). */
int ctf_no_option(struct ctf_decoder *d, const struct tmx_field_class *fc,
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
		return ctf_no_option(d, fc, tag_value, err);
	values_push(vals, fc)->option = (uint32_t)option;
	return ctf_decode_field(d, fc->members[option].fc, vals, err);
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

int ctf_decode_field(struct ctf_decoder *d, const struct tmx_field_class *fc,
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
		return ctf_decode_integer(d, fc, vals, err);
	case TMX_FC_FLOAT:
		return ctf_decode_float(d, fc, vals, err);
	case TMX_FC_STRING:
		if (fc->str_length == TMX_STR_NUL_TERMINATED && fc->str_encoding == TMX_STR_UTF8)
			return ctf_decode_string(d, fc, vals, err);
		return ctf_decode_string_ext(d, fc, vals, err);
	case TMX_FC_BLOB:
		return ctf_decode_blob(d, fc, vals, err);
	case TMX_FC_OPTIONAL:
		ret = ctf_decode_optional(d, fc, vals, &present, err);
		return ret || !present ? ret : ctf_decode_field(d, fc->elem, vals, err);
	case TMX_FC_STRUCT:
		ret = values_reserve(vals, fc->n_members + 1, err);
		if (ret)
			return ret;
		values_push(vals, fc)->n_members = (uint32_t)fc->n_members;
		for (size_t i = 0; i < fc->n_members; i++) {
			const struct tmx_field_class *m = fc->members[i].fc;
			if (read_plain_int(d, m, vals))
				continue;
			ret = ctf_decode_field(d, m, vals, err);
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

/* Appends scope `fc` to `vals` by its plan, or by walking it when it has none. */
static inline int run_scope(struct ctf_decoder *d, const struct ctf_plan *pl,
			    const struct tmx_field_class *fc, struct ctf_values *vals,
			    struct tmx_error *err)
{
	if (pl && !d->walk_only)
		return ctf_run_plan(d, pl, vals, NULL, err);
	return fc ? ctf_decode_field(d, fc, vals, err) : TMX_OK;
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
	d->slots = calloc(tmx_tc_n_slots(tc) > 0 ? (size_t)tmx_tc_n_slots(tc) : 1, sizeof(*d->slots));
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
	free(d->event_header.v);
	ctf_text_fini(&d->event_header.text);
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
	return ctf_decode_field(d, fc, &d->event, err);
}

void ctf_decoder_set_wanted(struct ctf_decoder *d,
			    bool (*wanted)(const void *ctx, const struct tmx_event_class *ec),
			    const void *ctx)
{
	d->wanted = wanted;
	d->wanted_ctx = ctx;
	d->wanted_gen++;
}

void ctf_decoder_set_reads(struct ctf_decoder *d,
			   bool (*reads)(const void *ctx, const struct tmx_event_class *ec),
			   const void *ctx)
{
	d->reads = reads;
	d->reads_ctx = ctx;
	d->reads_gen++;
}

/*
 * Past a body by its steps (ctf/plan.h: struct ctf_skip) without decoding
 * it; false when it does not fit (then decoding it gives the error: the
 * integers noted on the way are noted again, to the same values).
 */
static bool run_skip(struct ctf_decoder *d, const struct ctf_skip *sk)
{
	const struct ctf_skip_step *st = sk->steps, *end = st + sk->n_steps;
	const uint64_t limit = d->limit;
	uint64_t pos = d->pos, bo_end = d->bo_end;
	uint8_t bo_last = d->bo_last;

	for (; st < end; st++) {
		const uint64_t align_m1 = st->align_m1;
		const struct ctf_header_note *n, *nend;
		uint64_t count;
		const char *nul;

		pos = (pos + align_m1) & ~align_m1;
		switch (st->kind) {
		case CTF_SKIP_PLAIN:
			/* pos > limit or not room for the step (no overflow: both well below 2^63). */
			if (pos + st->bits > limit)
				return false;
			if (st->bo_end_kind == CTF_HBO_MAX)
				bo_end = UINT64_MAX;
			pos += st->bits;
			break;
		case CTF_SKIP_FIXED:
			if (pos + st->bits > limit)
				return false;
			for (n = st->notes, nend = n + st->n; n < nend; n++)
				note_header(d, n, tmx_read_aligned(d->base + (pos + n->off) / 8,
								   n->len / 8, n->be));
			if (st->bo_end_kind != CTF_HBO_KEEP)
				bo_end = st->bo_end_kind == CTF_HBO_MAX ? UINT64_MAX : pos + st->bo_end;
			if (st->bo_last_set)
				bo_last = st->bo_last;
			pos += st->bits;
			break;
		case CTF_SKIP_STRING:
			/* As ctf_decode_string: byte-aligned, a NUL within the content. */
			if (pos > limit || pos % 8 ||
			    !(nul = memchr(d->base + pos / 8, '\0', (limit - pos) / 8)))
				return false;
			pos = (uint64_t)((const uint8_t *)nul + 1 - d->base) * 8;
			break;
		default:
			/* As array_start (decode_plan.c) and the byte array or text decoding. */
			count = st->len_slot >= 0 ? d->slots[st->len_slot] : st->length;
			pos = (pos + st->elem_align_m1) & ~st->elem_align_m1;
			/* count * bits > limit - pos, without a division. */
			if (pos > limit || (!st->text && pos % 8) ||
			    __builtin_mul_overflow(count, st->bits, &count) || count > limit - pos)
				return false;
			pos += count;
			if (!st->text) {
				bo_end = pos;
				bo_last = st->bo_last;
			}
			break;
		}
	}
	d->pos = pos;
	d->bo_end = bo_end;
	d->bo_last = bo_last;
	return true;
}

/*
 * Filters: whether this event is skipped; and whether its body is stepped
 * over without decoding it (an unwanted event's, or any when no one reads
 * the values).
 */
static inline __attribute__((always_inline)) bool skip_body(struct ctf_decoder *d,
							     struct ctf_event_plans *ep)
{
	bool unread = d->values_unread;

	if (d->wanted) {
		if (ep->wanted_gen != d->wanted_gen) {
			ep->unwanted = !d->wanted(d->wanted_ctx, ep->ec);
			ep->wanted_gen = d->wanted_gen;
		}
		d->skipped = ep->unwanted;
	}
	if (!unread && d->reads) {
		if (ep->reads_gen != d->reads_gen) {
			ep->unread = !d->reads(d->reads_ctx, ep->ec);
			ep->reads_gen = d->reads_gen;
		}
		unread = ep->unread;
	}
	if (!(d->skipped || unread) || d->walk_only)
		return false;
	if (__builtin_expect(!ep->skip_known, 0)) {
		/* Without memory for the steps, the body is decoded: the same outcome. */
		struct tmx_error ignored;
		if (ep->body)
			(void)ctf_skip_compile(ep->body, &ep->skip, &ignored);
		ep->skip_known = true;
	}
	return ep->skip && run_skip(d, ep->skip);
}

/*
 * An event header by its program (ctf/plan.h): one bounds check, the tag,
 * the noted integers.  Returns false, having changed nothing, when the
 * header does not fit, its tag selects no option or its case is the
 * plan's: the plan then decodes it (for its values, state and error).
 */
static inline bool run_header_prog(struct ctf_decoder *d, const struct ctf_header_prog *hp)
{
	const uint64_t start = (d->pos + hp->align_m1) & ~hp->align_m1;
	const uint8_t *p = d->base + start / 8;
	const struct ctf_header_case *c = hp->cases;
	const struct ctf_header_note *n, *end;
	uint64_t room, tag = 0;
	/* Usually the tag and the compact timestamp are in the first 64 bits. */
	bool word;

	if (__builtin_expect(start > d->limit, 0))
		return false;
	room = d->limit - start;
	word = room >= 64;
	if (hp->variant) {
		int o;
		if (__builtin_expect(hp->tag_end > room, 0))
			return false;
		if (word && hp->tag_in_word)
			tag = ((hp->tag_be ? tmx_be64(p) : tmx_le64(p)) << hp->tag_lsh) >>
			      (64 - hp->tag_len);
		else
			tag = tmx_read_bits(d->base, start + hp->tag_off, hp->tag_len, hp->tag_be);
		o = tag < CTF_VARIANT_TABLE ? hp->table[tag] : ctf_variant_select(hp->variant, tag);
		if (__builtin_expect(o < 0, 0))
			return false;
		c += o;
	}
	if (__builtin_expect(!c->fast || c->bits > room, 0))
		return false;
	n = hp->notes + c->first;
	end = n + c->n;
	if (word && c->in_word) {
		/* One byte order for all the notes: one load. */
		const uint64_t w = c->big ? tmx_be64(p) : tmx_le64(p);
		for (; n < end; n++)
			note_header(d, n, n->is_tag ? tag : (w << n->lsh) >> n->rsh);
	} else {
		for (; n < end; n++)
			note_header(d, n, n->is_tag ? tag :
					  tmx_read_bits(d->base, start + n->off, n->len, n->be));
	}
	d->pos = start + c->bits;
	if (c->bo_end_kind != CTF_HBO_KEEP)
		d->bo_end = c->bo_end_kind == CTF_HBO_MAX ? UINT64_MAX : start + c->bo_end;
	if (c->bo_last_set)
		d->bo_last = c->bo_last;
	return true;
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

	if (!(*more = d->pos < d->limit))
		return TMX_OK;
	if (__builtin_expect(!sp || sp->sc != sc, 0)) {
		ret = ctf_plans_stream(d->plans, sc, &d->sp, err);
		if (ret)
			return ret;
		sp = d->sp;
	}
	d->special_set[TMX_MEANING_EVENT_ID] = false;
	/*
	 * The data a few events ahead, which the hardware's prefetchers miss
	 * (they stop at page ends and lose track of several interleaved
	 * streams): about 8% of `-o dummy`, whose decoding waited on memory.
	 * An address past the mapping is not an error for a prefetch.
	 */
	__builtin_prefetch((const void *)((uintptr_t)d->base + d->pos / 8 + CTF_PREFETCH_AHEAD));
	if (!sp->header_prog || d->walk_only || d->header_values ||
	    !run_header_prog(d, sp->header_prog)) {
		ret = decode_scope(d, sp->event_header, sc->event_header, &d->event_header, err);
		if (ret)
			return ret;
	}
	values_clear(&d->event);
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
	d->skipped = false;
	d->body_skipped = false;
	/* Stepped over: scope_index[] is not to be read (ctf/decode.h). */
	if (__builtin_expect(d->wanted != NULL || d->values_unread || d->reads != NULL, 0) &&
	    skip_body(d, ep)) {
		d->body_skipped = true;
		goto decoded;
	}
	scope_index[TMX_SCOPE_PACKET_CONTEXT] = SIZE_MAX;
	scope_index[TMX_SCOPE_COMMON_CONTEXT] = SIZE_MAX;
	scope_index[TMX_SCOPE_SPECIFIC_CONTEXT] = SIZE_MAX;
	scope_index[TMX_SCOPE_PAYLOAD] = SIZE_MAX;
	if (ep->body && !d->walk_only) {
		/* The three scopes in one plan, which sets scope_index[] as it goes. */
		ret = ctf_run_plan(d, ep->body, &d->event, scope_index, err);
		if (ret)
			return ret;
		/* Values unread: its byte arrays have no elements (ctf_decode_byte_int_array). */
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
decoded:
	if (d->pos == start) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + start / 8,
				    "event record of class `%s` takes no space: cannot make progress",
				    ec->name);
	}
	return TMX_OK;
}
