/*
 * Decoding the CTF 2 field classes that CTF 1.8 lacks (CTF 2 spec 6.4):
 * variable-length integers, strings of static or dynamic length and in
 * UTF-16/32, BLOBs, optionals.  (Fixed-length booleans, bit arrays and the
 * bit order are decode.c's ctf_decode_integer; variants with option ranges are
 * plan.c's ctf_variant_select.)  Each function runs after the field's
 * alignment, for the tree walk and the plans alike, so both give the same
 * values and errors.  Every length read from the data is checked against
 * the packet content before anything is read or reserved.
 */
#include <string.h>

#include "ctf/decode_impl.h"
#include "ctf/plan.h"
#include "common/errors.h"
#include "model/field_class.h"

/* A LEB128 integer takes at most 10 bytes for 64 bits of value. */
#define CTF_VARINT_MAX_BYTES 10

static int field_error(struct ctf_decoder *d, uint64_t pos, const char *what, const char *detail,
		       struct tmx_error *err)
{
	return tmx_error_at(err, TMX_ERR_DATA, d->path, d->base_off + pos / 8, "%s %s", what,
			    detail);
}

static int not_byte_aligned(struct ctf_decoder *d, const char *what, struct tmx_error *err)
{
	return ctf_data_error(d, err, "%s is not byte-aligned", what);
}

/*
 * Unsigned or signed LEB128 (spec 6.4.9, 6.4.10).  A signed value is
 * sign-extended from the last byte's bit 6.  Errors (at the field's first
 * byte): more than 10 bytes, more than 64 bits of value (the 10th byte of
 * an unsigned value above 1, of a signed one other than 0 and 0x7f), the
 * content ending before the last byte.
 */
int ctf_decode_varint(struct ctf_decoder *d, const struct tmx_field_class *fc,
		      struct ctf_values *vals, struct tmx_error *err)
{
	const char *what = "variable-length integer field";
	const uint64_t avail = (d->limit - d->pos) / 8;
	const uint8_t *p = d->base + d->pos / 8;
	struct tmx_value *v;
	uint64_t u = 0;
	unsigned n = 0, bits;
	uint8_t b;

	if (d->pos % 8)
		return not_byte_aligned(d, what, err);
	do {
		if (n == CTF_VARINT_MAX_BYTES)
			return field_error(d, d->pos, what, "is longer than 10 bytes", err);
		if (n == avail)
			return field_error(d, d->pos, what,
					   "ends past the end of the packet content", err);
		b = p[n];
		if (n == CTF_VARINT_MAX_BYTES - 1 &&
		    (fc->is_signed ? (b & 0x7F) != 0 && (b & 0x7F) != 0x7F : (b & 0x7F) > 1))
			return field_error(d, d->pos, what, "has more than 64 bits of value", err);
		u |= (uint64_t)(b & 0x7F) << (7 * n);
		n++;
	} while (b & 0x80);
	bits = 7 * n;
	if (fc->is_signed && bits < 64 && (b & 0x40))
		u |= ~UINT64_C(0) << bits;
	d->pos += 8 * n;
	v = values_push(vals, fc);
	v->u = u;   /* the signed value too: 64 bits, already extended */
	if (fc->slot >= 0 || fc->meaning || fc->mapped_clock)
		note_integer(d, fc, u, bits < 64 ? bits : 64);
	return TMX_OK;
}

/* The number of bytes of a static or dynamic length string or BLOB. */
static int field_length(struct ctf_decoder *d, const struct tmx_field_class *fc, bool dynamic,
			const char *what, uint64_t *len, struct tmx_error *err)
{
	if (!dynamic) {
		*len = fc->length;
	} else if (fc->ref_slot >= 0) {
		*len = d->slots[fc->ref_slot];
	} else {
		return ctf_data_error(d, err, "%s has no length field", what);
	}
	return ctf_need_bytes(d, *len, what, err);
}

/* The first zero code unit of `unit` bytes among `n` units at `p`, or n. */
static uint64_t find_zero_unit(const uint8_t *p, uint64_t n, unsigned unit)
{
	const uint8_t *z;

	if (unit == 1)
		return (z = memchr(p, 0, n)) ? (uint64_t)(z - p) : n;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *q = p + i * unit;
		if (q[0] == 0 && q[1] == 0 && (unit == 2 || (q[2] == 0 && q[3] == 0)))
			return i;
	}
	return n;
}

/* The text of `n` code units at bit `pos` as a UTF-8 string value. */
static int put_text(struct ctf_decoder *d, const struct tmx_field_class *fc, uint64_t pos,
		    uint64_t n, struct ctf_values *vals, struct tmx_error *err)
{
	const uint8_t *src = d->base + pos / 8;
	struct ctf_utf_fault fault;
	struct tmx_value *v;
	size_t len;
	char *dst;
	int ret;

	if (fc->str_encoding == TMX_STR_UTF8 || n == 0) {
		/* UTF-8 is used as it is, in the mapped data. */
		v = values_push(vals, fc);
		v->str.ptr = (const char *)src;
		v->str.len = n;
		return TMX_OK;
	}
	ret = ctf_text_room(&vals->text, ctf_utf8_room(fc->str_encoding, n), &dst, err);
	if (ret)
		return ret;
	len = ctf_utf_to_utf8(src, n, fc->str_encoding, dst, &fault);
	if (len == SIZE_MAX) {
		return tmx_error_at(err, TMX_ERR_DATA, d->path,
				    d->base_off + pos / 8 + fault.index * ctf_str_unit(fc->str_encoding),
				    "string field has %s (0x%04x)", fault.what, fault.value);
	}
	ctf_text_commit(&vals->text, len);
	v = values_push(vals, fc);
	v->str.ptr = dst;
	v->str.len = len;
	return TMX_OK;
}

/*
 * Strings (spec 6.4.11, 6.4.12, 6.4.14): NUL-terminated ones end at the
 * first zero code unit (read unit after unit from the start), those of
 * static or dynamic length take their bytes and their text ends at the
 * first zero code unit in them; they must hold whole code units up to it.
 */
int ctf_decode_string_ext(struct ctf_decoder *d, const struct tmx_field_class *fc,
			  struct ctf_values *vals, struct tmx_error *err)
{
	const char *what = "string field";
	const unsigned unit = ctf_str_unit(fc->str_encoding);
	const uint8_t *p = d->base + d->pos / 8;
	uint64_t field_bytes = 0, units, text_units;
	const uint64_t start = d->pos;
	int ret;

	if (d->pos % 8)
		return not_byte_aligned(d, what, err);
	if (fc->str_length == TMX_STR_NUL_TERMINATED) {
		units = (d->limit - d->pos) / 8 / unit;
		text_units = find_zero_unit(p, units, unit);
		if (text_units == units)
			return ctf_data_error(d, err, "%s has no terminating NUL before the end of the "
					      "packet content", what);
		field_bytes = (text_units + 1) * unit;
	} else {
		ret = field_length(d, fc, fc->str_length == TMX_STR_DYNAMIC, what, &field_bytes, err);
		if (ret)
			return ret;
		units = field_bytes / unit;
		text_units = find_zero_unit(p, units, unit);
		if (text_units == units && field_bytes % unit)
			return field_error(d, start + units * unit * 8, what,
					   "ends with a partial code unit", err);
	}
	ret = put_text(d, fc, start, text_units, vals, err);
	if (ret)
		return ret;
	d->pos = start + field_bytes * 8;
	return TMX_OK;
}

/* Static or dynamic length BLOBs (spec 6.4.13, 6.4.15): bytes of the mapped data. */
int ctf_decode_blob(struct ctf_decoder *d, const struct tmx_field_class *fc,
		    struct ctf_values *vals, struct tmx_error *err)
{
	struct tmx_value *v;
	uint64_t len = 0;
	int ret;

	if (d->pos % 8)
		return not_byte_aligned(d, "BLOB field", err);
	ret = field_length(d, fc, fc->ref_slot >= 0, "BLOB field", &len, err);
	if (ret)
		return ret;
	v = values_push(vals, fc);
	v->str.ptr = (const char *)d->base + d->pos / 8;
	v->str.len = len;
	d->pos += len * 8;
	return TMX_OK;
}

/* Optionals (spec 6.4.19): the value says whether the field follows. */
int ctf_decode_optional(struct ctf_decoder *d, const struct tmx_field_class *fc,
			struct ctf_values *vals, bool *present, struct tmx_error *err)
{
	if (fc->ref_slot < 0)
		return ctf_data_error(d, err, "%s has no selector field", "optional field");
	*present = ctf_optional_present(fc, d->slots[fc->ref_slot]);
	values_push(vals, fc)->present = *present;
	return TMX_OK;
}
