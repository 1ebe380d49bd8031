/*
 * The CTF writer's field encoder (see encode.h).  Nothing is allocated per
 * event: the packet buffer only grows, strings are transcoded straight
 * into it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/utf8.h"
#include "model/field_class.h"
#include "sink/ctf/encode.h"
#include "common/errors.h"

int cw_buf_grow(struct cw_buf *b, uint64_t need, struct tmx_error *err)
{
	void *nb = b->buf;

	if (need > (uint64_t)SIZE_MAX / 2)
		return tmx_error_set(err, TMX_ERR_LIMIT, b->path, "packet too large");
	/* Bit-level writes OR into the buffer: it is kept zeroed ahead. */
	if (!tmx_grow_zeroed(&nb, &b->cap, need, 1, 4096))
		return tmx_error_set(err, TMX_ERR_NOMEM, b->path, "out of memory");
	b->buf = nb;
	return TMX_OK;
}

int cw_buf_slots(struct cw_buf *b, int32_t n, struct tmx_error *err)
{
	if (n > 0 && !tmx_grow_zeroed((void **)&b->slots, &b->n_slots, (size_t)n, sizeof(*b->slots),
				      (size_t)n))
		return tmx_error_set(err, TMX_ERR_NOMEM, b->path, "out of memory");
	return TMX_OK;
}

void cw_buf_free(struct cw_buf *b)
{
	free(b->buf);
	free(b->slots);
	b->buf = NULL;
	b->slots = NULL;
	b->cap = b->n_slots = 0;
}

void cw_patch_u64(struct cw_buf *b, size_t off, uint64_t v)
{
	uint64_t save = b->pos;

	b->pos = (uint64_t)off * 8;
	memset(b->buf + off, 0, 8);
	cw_put_bits(b, v, 64, b->trace_be);
	b->pos = save;
}

static inline int put_int(struct cw_buf *b, uint64_t v, unsigned size, uint32_t align, bool be,
			  struct tmx_error *err)
{
	int ret;

	cw_align(b, align);
	ret = cw_reserve(b, size, err);
	if (ret)
		return ret;
	cw_put_bits(b, v, size, be);
	return TMX_OK;
}

/* `len` bytes of `data`, then zeros up to `total` bytes, byte-aligned. */
static int put_bytes(struct cw_buf *b, const void *data, uint64_t len, uint64_t total,
		     struct tmx_error *err)
{
	int ret;

	cw_align(b, 8);
	if (total > UINT64_MAX / 16)
		return tmx_error_set(err, TMX_ERR_LIMIT, b->path, "field too large");
	ret = cw_reserve(b, total * 8, err);
	if (ret)
		return ret;
	if (len > total)
		len = total;
	if (len)
		memcpy(b->buf + (b->pos >> 3), data, len);
	/* The rest (padding of a short text array) is already zero. */
	b->pos += total * 8;
	return TMX_OK;
}

/* LEB128 (CTF 2 variable-length integers): 7 bits a byte, low bits first. */
static int put_leb128(struct cw_buf *b, uint64_t v, bool is_signed, struct tmx_error *err)
{
	uint8_t *p;
	int ret;

	cw_align(b, 8);
	ret = cw_reserve(b, 10 * 8, err);
	if (ret)
		return ret;
	p = b->buf + (b->pos >> 3);
	for (;;) {
		uint8_t byte = v & 0x7f;
		bool done;
		if (is_signed) {
			int64_t s = (int64_t)v >> 7;    /* arithmetic shift */
			done = (s == 0 && !(byte & 0x40)) || (s == -1 && (byte & 0x40));
			v = (uint64_t)s;
		} else {
			v >>= 7;
			done = v == 0;
		}
		*p++ = done ? byte : (uint8_t)(byte | 0x80);
		b->pos += 8;
		if (done)
			return TMX_OK;
	}
}

static int mismatch(struct cw_buf *b, struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_DATA, b->path,
			     "CTF writer: an event's values do not match its class");
}

static void save_slot(struct cw_buf *b, const struct tmx_field_class *fc, uint64_t v)
{
	if (fc->slot >= 0 && (size_t)fc->slot < b->n_slots)
		b->slots[fc->slot] = v;
}

/* The length the model's length field gave (checked against the value's own). */
static bool slot_value(const struct cw_buf *b, const struct cw_node *n, uint64_t *v)
{
	if (n->gen_before || n->ref_slot < 0 || (size_t)n->ref_slot >= b->n_slots)
		return false;
	*v = b->slots[n->ref_slot];
	return true;
}

static int check_length(struct cw_buf *b, const struct cw_node *n, uint64_t len,
			struct tmx_error *err)
{
	uint64_t want;

	if (slot_value(b, n, &want) && want != len)
		return mismatch(b, err);
	return TMX_OK;
}

/* A length written just before its field (generated). */
static int put_gen_length(struct cw_buf *b, uint64_t len, struct tmx_error *err)
{
	if (len > UINT32_MAX)
		return tmx_error_set(err, TMX_ERR_LIMIT, b->path,
				     "CTF writer: a dynamic field of more than 2^32-1 elements");
	return put_int(b, len, 32, 8, b->trace_be, err);
}

/* ------------------------------------------------------------------ */
/* Strings: the model's UTF-8 in the class's encoding                   */
/* ------------------------------------------------------------------ */

/* One code point of UTF-8 text; an invalid byte is U+FFFD. Returns the bytes read. */
static size_t utf8_next(const uint8_t *s, uint64_t n, uint32_t *cp)
{
	size_t len = tmx_utf8_decode(s, n, cp);

	if (!len) {
		*cp = 0xfffd;
		return 1;
	}
	return len;
}

static unsigned unit_size(uint8_t enc)
{
	return enc == TMX_STR_UTF8 ? 1 : enc <= TMX_STR_UTF16LE ? 2 : 4;
}

/* Bytes of `s` in encoding `enc` (UTF-8: as it is). */
static uint64_t encoded_len(const char *s, uint64_t len, uint8_t enc)
{
	uint64_t total = 0;
	uint32_t cp;

	if (enc == TMX_STR_UTF8)
		return len;
	for (uint64_t k = 0; k < len;) {
		k += utf8_next((const uint8_t *)s + k, len - k, &cp);
		total += enc >= TMX_STR_UTF32BE ? 4 : cp >= 0x10000 ? 4 : 2;
	}
	return total;
}

static uint8_t *put_unit(uint8_t *p, uint32_t u, unsigned size, bool be)
{
	for (unsigned k = 0; k < size; k++)
		p[k] = (uint8_t)(u >> (8 * (be ? size - 1 - k : k)));
	return p + size;
}

/*
 * The text of `s` (`len` bytes of UTF-8) in `enc`, zero-padded to `total`
 * bytes (which include the terminator of a null-terminated string).
 */
static int put_text(struct cw_buf *b, const char *s, uint64_t len, uint8_t enc, uint64_t total,
		    struct tmx_error *err)
{
	bool be = enc == TMX_STR_UTF16BE || enc == TMX_STR_UTF32BE;
	uint8_t *p;
	uint32_t cp;
	int ret;

	if (enc == TMX_STR_UTF8)
		return put_bytes(b, s, len, total, err);
	ret = put_bytes(b, NULL, 0, total, err);   /* aligned, reserved, zero */
	if (ret)
		return ret;
	p = b->buf + (b->pos >> 3) - total;
	for (uint64_t k = 0; k < len;) {
		k += utf8_next((const uint8_t *)s + k, len - k, &cp);
		if (enc >= TMX_STR_UTF32BE) {
			p = put_unit(p, cp, 4, be);
		} else if (cp >= 0x10000) {
			p = put_unit(p, 0xd800 | ((cp - 0x10000) >> 10), 2, be);
			p = put_unit(p, 0xdc00 | ((cp - 0x10000) & 0x3ff), 2, be);
		} else {
			p = put_unit(p, cp, 2, be);
		}
	}
	return TMX_OK;
}

static int encode_string(struct cw_buf *b, const struct cw_node *n, const struct tmx_value *val,
			 struct tmx_error *err)
{
	/* A string ends at its first NUL: write what a reader will see. */
	uint64_t len = tmx_value_text_len(val);
	uint64_t enc_len = encoded_len(val->str.ptr, len, n->str_enc);
	uint64_t total;
	int ret;

	switch (n->op) {
	case CW_STATIC_STRING:
		total = n->length;
		break;
	case CW_DYN_STRING:
		if (n->gen_before) {
			total = enc_len;
			ret = put_gen_length(b, total, err);
			if (ret)
				return ret;
		} else if (!slot_value(b, n, &total)) {
			return mismatch(b, err);
		}
		break;
	default:
		total = enc_len + unit_size(n->str_enc);
		break;
	}
	if (enc_len > total)
		return tmx_error_set(err, TMX_ERR_DATA, b->path,
				     "CTF writer: a string of %llu bytes does not fit in its %llu-byte "
				     "field", (unsigned long long)enc_len, (unsigned long long)total);
	return put_text(b, val->str.ptr, len, n->str_enc, total, err);
}

/* ------------------------------------------------------------------ */
/* Selectors                                                            */
/* ------------------------------------------------------------------ */

static bool in_ranges(const struct tmx_enum_range *r, size_t n, uint64_t v, bool is_signed)
{
	for (size_t i = 0; i < n; i++) {
		if (is_signed ? (int64_t)v >= (int64_t)r[i].lower && (int64_t)v <= (int64_t)r[i].upper :
				v >= r[i].lower && v <= r[i].upper)
			return true;
	}
	return false;
}

/* Whether the selector value `v` makes an optional's field present. */
static bool optional_present(const struct cw_node *n, uint64_t v)
{
	if (n->sel_bool || !n->fc->n_ranges)
		return v != 0;
	return in_ranges(n->fc->ranges, n->fc->n_ranges, v, n->sel_signed);
}

/* The option a selector value chooses, or -1. */
static long variant_option(const struct cw_node *n, uint64_t v)
{
	const struct tmx_field_class *fc = n->fc, *tag = fc->tag;

	for (size_t o = 0; o < n->n_children; o++) {
		if (n->opt_ranges && in_ranges(n->opt_ranges[o].r, n->opt_ranges[o].n, v, n->sel_signed))
			return (long)o;
	}
	if (n->opt_ranges || !tag || !fc->option_for_mapping)
		return -1;
	for (size_t m = 0; m < tag->n_mappings; m++)
		if (in_ranges(tag->mappings[m].ranges, tag->mappings[m].n_ranges, v, tag->is_signed))
			return fc->option_for_mapping[m];
	return -1;
}

/* ------------------------------------------------------------------ */
/* Fields                                                               */
/* ------------------------------------------------------------------ */

static int encode_elements(struct cw_buf *b, const struct cw_node *n, uint64_t count,
			   const struct tmx_value *v, size_t *i, struct tmx_error *err)
{
	const struct cw_node *c = n->children;

	if (c->op == CW_INT && count) {
		/* Integer elements: one reservation, no call per element. */
		int ret;
		uint64_t per = (uint64_t)c->size + c->align;   /* bits, padding included */
		if (count > UINT64_MAX / 16 / per)
			return tmx_error_set(err, TMX_ERR_LIMIT, b->path, "array too large");
		ret = cw_reserve(b, count * per, err);
		if (ret)
			return ret;
		if (c->size == 8 && c->align <= 8 && !(b->pos & 7)) {
			/* Bytes (a byte sequence that is not text): stored one by one. */
			uint8_t *p = b->buf + (b->pos >> 3);
			const struct tmx_value *e = v + *i;

			for (uint64_t k = 0; k < count; k++) {
				if (e[k].fc != c->fc && e[k].fc->kind != c->fc->kind)
					return mismatch(b, err);
				p[k] = (uint8_t)e[k].u;
			}
			*i += count;
			b->pos += count * 8;
			return TMX_OK;
		}
		for (uint64_t k = 0; k < count; k++, (*i)++) {
			if (v[*i].fc != c->fc && v[*i].fc->kind != c->fc->kind)
				return mismatch(b, err);
			cw_align(b, c->align);
			cw_put_bits(b, v[*i].u, c->size, c->big_endian);
		}
		return TMX_OK;
	}
	for (uint64_t k = 0; k < count; k++) {
		int ret = cw_encode(b, n->children, v, i, err);
		if (ret)
			return ret;
	}
	return TMX_OK;
}

static int encode_struct(struct cw_buf *b, const struct cw_node *n, const struct tmx_value *val,
			 const struct tmx_value *v, size_t *i, struct tmx_error *err)
{
	int ret;

	cw_align(b, n->align);
	if (val->n_members != n->n_children)
		return mismatch(b, err);
	for (size_t k = 0; k < n->n_children; k++) {
		const struct cw_node *c = &n->children[k];
		if (c->op == CW_INT && !c->skip && v[*i].fc == c->fc) {
			/* Most members are integers: no call for them. */
			cw_align(b, c->align);
			ret = cw_reserve(b, c->size, err);
			if (ret)
				return ret;
			cw_put_bits(b, v[*i].u, c->size, c->big_endian);
			save_slot(b, c->fc, v[*i].u);
			(*i)++;
			continue;
		}
		if (c->skip) {
			*i = tmx_value_skip(v, *i);
			continue;
		}
		ret = cw_encode(b, c, v, i, err);
		if (ret)
			return ret;
	}
	return TMX_OK;
}

static int encode_float(struct cw_buf *b, const struct cw_node *n, double d, struct tmx_error *err)
{
	if (n->size == 32) {
		float f = (float)d;
		uint32_t bits;
		memcpy(&bits, &f, 4);
		return put_int(b, bits, 32, n->align, n->big_endian, err);
	} else {
		uint64_t bits;
		memcpy(&bits, &d, 8);
		return put_int(b, bits, 64, n->align, n->big_endian, err);
	}
}

static int encode_optional(struct cw_buf *b, const struct cw_node *n, const struct tmx_value *val,
			   const struct tmx_value *v, size_t *i, struct tmx_error *err)
{
	uint64_t sel;
	int ret;

	if (n->gen_before) {
		/* CTF 1.8: the none/content tag; CTF 2: a boolean.  Same byte. */
		ret = put_int(b, val->present ? 1 : 0, 8, 8, b->trace_be, err);
		if (ret)
			return ret;
	} else if (slot_value(b, n, &sel) && optional_present(n, sel) != (val->present != 0)) {
		return mismatch(b, err);
	}
	return val->present ? cw_encode(b, n->children, v, i, err) : TMX_OK;
}

static int encode_dynamic(struct cw_buf *b, const struct cw_node *n, const struct tmx_value *val,
			  const struct tmx_value *v, size_t *i, struct tmx_error *err)
{
	uint64_t count = n->op == CW_SEQUENCE ? val->count : val->str.len;
	int ret = n->gen_before ? put_gen_length(b, count, err) : check_length(b, n, count, err);

	if (ret)
		return ret;
	if (n->op == CW_SEQUENCE) {
		cw_align(b, n->align);
		return encode_elements(b, n, count, v, i, err);
	}
	/* Text sequence, dynamic BLOB: the bytes. */
	return put_bytes(b, val->str.ptr, count, count, err);
}

int cw_encode(struct cw_buf *b, const struct cw_node *n, const struct tmx_value *v, size_t *i,
	      struct tmx_error *err)
{
	const struct tmx_value *val = &v[*i];
	int ret;

	/*
	 * The same class, or (for a packet context read through another
	 * physical trace of the same logical trace) one of the same kind: the
	 * counts below are checked too.
	 */
	if (val->fc != n->fc && val->fc->kind != n->fc->kind)
		return mismatch(b, err);
	(*i)++;
	switch (n->op) {
	case CW_INT:
		save_slot(b, n->fc, val->u);
		return put_int(b, val->u, n->size, n->align, n->big_endian, err);
	case CW_VARINT:
		save_slot(b, n->fc, val->u);
		return put_leb128(b, val->u, n->fc->is_signed, err);
	case CW_FLOAT:
		return encode_float(b, n, val->d, err);
	case CW_STRING:
	case CW_STATIC_STRING:
	case CW_DYN_STRING:
		return encode_string(b, n, val, err);
	case CW_BLOB:
		if (val->str.len != n->length)
			return mismatch(b, err);
		return put_bytes(b, val->str.ptr, val->str.len, n->length, err);
	case CW_STRUCT:
		return encode_struct(b, n, val, v, i, err);
	case CW_ARRAY:
		if (val->count != n->length)
			return mismatch(b, err);
		cw_align(b, n->align);
		return encode_elements(b, n, val->count, v, i, err);
	case CW_TEXT_ARRAY:
		cw_align(b, n->align);
		return put_bytes(b, val->str.ptr, val->str.len, n->length, err);
	case CW_SEQUENCE:
	case CW_TEXT_SEQ:
	case CW_DYN_BLOB:
		return encode_dynamic(b, n, val, v, i, err);
	case CW_VARIANT:
		if (val->option >= n->n_children)
			return mismatch(b, err);
		if (n->gen_before) {
			ret = put_int(b, val->option, 16, 8, b->trace_be, err);
			if (ret)
				return ret;
		}
		return cw_encode(b, &n->children[val->option], v, i, err);
	case CW_OPTIONAL:
		return encode_optional(b, n, val, v, i, err);
	}
	return mismatch(b, err);
}

/* ------------------------------------------------------------------ */
/* Zero values                                                          */
/* ------------------------------------------------------------------ */

static int zero_dynamic(struct cw_buf *b, const struct cw_node *n, struct tmx_error *err)
{
	uint64_t count = 0;
	int ret;

	/* Its length field, written before (generated, or zero too), gives the count. */
	if (n->gen_before) {
		ret = put_gen_length(b, 0, err);
		if (ret)
			return ret;
	} else {
		slot_value(b, n, &count);
	}
	switch (n->op) {
	case CW_SEQUENCE:
		cw_align(b, n->align);
		for (uint64_t k = 0; k < count; k++) {
			ret = cw_encode_zero(b, n->children, err);
			if (ret)
				return ret;
		}
		return TMX_OK;
	case CW_DYN_STRING:
		return put_text(b, "", 0, n->str_enc, count, err);
	default:
		return put_bytes(b, NULL, 0, count, err);
	}
}

static int zero_choice(struct cw_buf *b, const struct cw_node *n, struct tmx_error *err)
{
	uint64_t sel = 0;
	long option = 0;
	int ret;

	if (n->gen_before) {
		ret = put_int(b, 0, n->op == CW_VARIANT ? 16 : 8, 8, b->trace_be, err);
		if (ret || n->op == CW_OPTIONAL)
			return ret;   /* an absent optional, the first option */
	} else {
		slot_value(b, n, &sel);
		if (n->op == CW_OPTIONAL)
			return optional_present(n, sel) ? cw_encode_zero(b, n->children, err) : TMX_OK;
		option = variant_option(n, sel);
	}
	if (option < 0 || (size_t)option >= n->n_children)
		return tmx_error_set(err, TMX_ERR_UNSUPPORTED, b->path,
				     "CTF writer: no packet context values to write");
	return cw_encode_zero(b, &n->children[option], err);
}

int cw_encode_zero(struct cw_buf *b, const struct cw_node *n, struct tmx_error *err)
{
	int ret;

	switch (n->op) {
	case CW_INT:
	case CW_FLOAT:
		save_slot(b, n->fc, 0);
		return put_int(b, 0, n->size, n->align, n->big_endian, err);
	case CW_VARINT:
		save_slot(b, n->fc, 0);
		return put_leb128(b, 0, false, err);
	case CW_STRING:
		return put_bytes(b, NULL, 0, unit_size(n->str_enc), err);
	case CW_STATIC_STRING:
	case CW_BLOB:
	case CW_TEXT_ARRAY:
		cw_align(b, n->align);
		return put_bytes(b, NULL, 0, n->length, err);
	case CW_STRUCT:
		cw_align(b, n->align);
		for (size_t k = 0; k < n->n_children; k++) {
			if (n->children[k].skip)
				continue;
			ret = cw_encode_zero(b, &n->children[k], err);
			if (ret)
				return ret;
		}
		return TMX_OK;
	case CW_ARRAY:
		cw_align(b, n->align);
		for (uint64_t k = 0; k < n->length; k++) {
			ret = cw_encode_zero(b, n->children, err);
			if (ret)
				return ret;
		}
		return TMX_OK;
	case CW_SEQUENCE:
	case CW_TEXT_SEQ:
	case CW_DYN_BLOB:
	case CW_DYN_STRING:
		return zero_dynamic(b, n, err);
	case CW_VARIANT:
	case CW_OPTIONAL:
		return zero_choice(b, n, err);
	}
	return tmx_error_set(err, TMX_ERR_UNSUPPORTED, b->path,
			     "CTF writer: no packet context values to write");
}
