/* JSON values shared by the JSON outputs (jsonl.c, chrome.c): see jsonval.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/jsonval.h"
#include "sink/member_text.h"

static void put_int(struct outbuf *b, const struct tmx_value *v)
{
	if (v->fc->is_signed)
		outbuf_i64(b, v->s);
	else
		outbuf_u64(b, v->u, 0);
}

/* `[...]`: the labels of the mappings that hold the value (enumeration labels, bit map flags). */
static void put_label_list(struct outbuf *b, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	bool first = true;

	outbuf_putc(b, '[');
	for (size_t m = 0; m < fc->n_mappings; m++)
		if (tmx_mapping_holds(fc, &fc->mappings[m], v->u)) {
			if (!first)
				outbuf_putc(b, ',');
			json_string(b, fc->mappings[m].label, strlen(fc->mappings[m].label));
			first = false;
		}
	outbuf_putc(b, ']');
}

static void put_enum(struct outbuf *b, const struct tmx_value *v)
{
	outbuf_puts(b, "{\"value\":");
	put_int(b, v);
	outbuf_puts(b, ",\"labels\":");
	put_label_list(b, v);
	outbuf_putc(b, '}');
}

/* A bit map: its value and the labels of its active flags (any bit of theirs set). */
static void put_bit_array(struct outbuf *b, const struct tmx_value *v)
{
	if (!v->fc->n_mappings) {
		outbuf_u64(b, v->u, 0);
		return;
	}
	outbuf_puts(b, "{\"value\":");
	outbuf_u64(b, v->u, 0);
	outbuf_puts(b, ",\"flags\":");
	put_label_list(b, v);
	outbuf_putc(b, '}');
}

/* A BLOB as a string of lowercase hex digits, two per byte. */
static void put_blob(struct outbuf *b, const struct tmx_value *v)
{
	outbuf_putc(b, '"');
	outbuf_hex_bytes(b, v->str.ptr, v->str.len);
	outbuf_putc(b, '"');
}

/*
 * %.17g of a finite double whose magnitude is in [1e-5, 1e17): 17
 * significant digits, exactly rounded (to nearest, ties to even, as
 * glibc's printf in the default rounding mode), without printf's
 * multi-precision arithmetic: |d| = m / 2^s with m < 2^53 and s <= 70,
 * so |d| * 10^p for the p that gives 17 digits (p <= 21) is m * 10^p,
 * below 2^127, divided by 2^s.  Returns the length, 0 outside the range.
 */
static size_t format_g17(char *out, double d)
{
	static const uint64_t pow10[] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
		10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
		1000000000000000u, 10000000000000000u, 100000000000000000u,
		1000000000000000000u, 10000000000000000000u,
	};
	double a = fabs(d);
	uint64_t bits, m, q = 0;
	int s, e, x;
	char dig[20], *o = out;
	int nd = 17;

	if (!(a >= 1e-5 && a < 1e17))
		return 0;
	memcpy(&bits, &a, 8);
	m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
	s = 1075 - (int)(bits >> 52);    /* a = m / 2^s */
	x = (int)floor(log10(a));        /* decimal exponent, corrected below */
	for (int tries = 0; tries < 3; tries++) {
		int p = 16 - x;
		unsigned __int128 n, r, half;

		if (p < 0 || p > 21)
			return 0;
		n = (unsigned __int128)m * (p > 19 ? pow10[19] : pow10[p]);
		if (p > 19)
			n *= pow10[p - 19];
		if (s <= 0) {
			if (s < -10)
				return 0;
			n <<= -s;
			q = (uint64_t)n;
		} else {
			q = (uint64_t)(n >> s);
			r = n - ((unsigned __int128)q << s);
			half = (unsigned __int128)1 << (s - 1);
			q += r > half || (r == half && (q & 1));
		}
		if (q >= pow10[17])
			x++;
		else if (q < pow10[16])
			x--;
		else
			break;
	}
	if (q < pow10[16] || q >= pow10[17])
		return 0;
	tmx_put_u64(dig, q);
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	if (d < 0)
		*o++ = '-';
	if (x < -4 || x >= 17) {
		*o++ = dig[0];
		if (nd > 1) {
			*o++ = '.';
			memcpy(o, dig + 1, (size_t)nd - 1);
			o += nd - 1;
		}
		e = x < 0 ? -x : x;
		*o++ = 'e';
		*o++ = x < 0 ? '-' : '+';
		*o++ = (char)('0' + e / 10);
		*o++ = (char)('0' + e % 10);
	} else if (x >= 0) {
		memcpy(o, dig, (size_t)x + 1);
		o += x + 1;
		if (nd > x + 1) {
			*o++ = '.';
			memcpy(o, dig + x + 1, (size_t)(nd - x - 1));
			o += nd - x - 1;
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int z = -1; z > x; z--)
			*o++ = '0';
		memcpy(o, dig, (size_t)nd);
		o += nd;
	}
	return (size_t)(o - out);
}

size_t json_double(char out[32], double d)
{
	size_t n;

	if (!isfinite(d))
		return (size_t)snprintf(out, 32, "null");
	/* Integers below 10^17: their digits (printf's %.17g gives the same). */
	if (fabs(d) < 1e17 && d == (double)(int64_t)d && (d != 0 || !signbit(d))) {
		char *o = out;

		if (d < 0)
			*o++ = '-';
		return (size_t)(tmx_put_u64(o, (uint64_t)fabs(d)) - out);
	}
	if ((n = format_g17(out, d)))
		return n;
	return (size_t)snprintf(out, 32, "%.17g", d);
}

static void put_float(struct outbuf *b, double d)
{
	char num[32];

	outbuf_write(b, num, json_double(num, d));
}

struct json_keys {
	struct member_texts sets;
	struct outbuf *scratch;   /* where keys are escaped, made at the first class */
};

struct json_keys *json_keys_new(void)
{
	return calloc(1, sizeof(struct json_keys));
}

void json_keys_free(struct json_keys *k)
{
	if (!k)
		return;
	member_texts_free(&k->sets);
	free(k->scratch);
	free(k);
}

/* The member texts of `fc` (member_text_make): `,"name":`. */
static bool make_keys(void *ctx, const struct tmx_field_class *fc, struct member_text *mt)
{
	struct json_keys *k = ctx;
	struct outbuf *o = k->scratch;

	if (!o && !(o = k->scratch = malloc(sizeof(*o))))
		return false;
	outbuf_init(o, -1);
	if (!(mt->end = malloc(fc->n_members * sizeof(*mt->end))))
		return false;
	for (size_t m = 0; m < fc->n_members; m++) {
		json_key(o, fc->members[m].name, false);
		mt->end[m] = (uint32_t)o->len;
	}
	/* Too long for the scratch buffer, which cannot flush: json_key() each time. */
	if (o->drained || !(mt->text = malloc(o->len + OUTBUF_PAD)))
		return false;
	memcpy(mt->text, o->data, o->len);
	memset(mt->text + o->len, 0, OUTBUF_PAD);
	return true;
}

size_t json_members(struct outbuf *b, struct json_keys *keys, const struct tmx_value *vals,
		    bool *first)
{
	const struct tmx_field_class *fc = vals[0].fc;
	uint32_t n = vals[0].n_members;
	const struct member_text *mt = keys && n ? member_text_of(&keys->sets, fc, make_keys, keys) :
					     NULL;
	size_t i = 1;

	for (uint32_t m = 0; m < n; m++) {
		if (mt)
			member_text_put(b, mt, m, *first);
		else
			json_key(b, fc->members[m].name, *first);
		*first = false;
		i = json_value(b, keys, vals, i);
	}
	return i;
}

static size_t put_struct(struct outbuf *b, struct json_keys *keys, const struct tmx_value *vals,
			 size_t i)
{
	bool first = true;

	outbuf_putc(b, '{');
	i += json_members(b, keys, vals + i, &first);
	outbuf_putc(b, '}');
	return i;
}

size_t json_value(struct outbuf *b, struct json_keys *keys, const struct tmx_value *vals, size_t i)
{
	const struct tmx_value *v = &vals[i];

	switch (v->fc->kind) {
	case TMX_FC_INT:
		put_int(b, v);
		return i + 1;
	case TMX_FC_ENUM:
		put_enum(b, v);
		return i + 1;
	case TMX_FC_FLOAT:
		put_float(b, v->d);
		return i + 1;
	case TMX_FC_STRING:
		json_string(b, v->str.ptr, v->str.len);
		return i + 1;
	case TMX_FC_STRUCT:
		return put_struct(b, keys, vals, i);
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (v->fc->is_text) {
			/* As babeltrace2 reads a text array: up to its first NUL. */
			json_string(b, v->str.ptr, tmx_value_text_len(v));
			return i + 1;
		} else {
			uint64_t count = v->count;
			i++;
			outbuf_putc(b, '[');
			for (uint64_t e = 0; e < count; e++) {
				if (e)
					outbuf_putc(b, ',');
				i = json_value(b, keys, vals, i);
			}
			outbuf_putc(b, ']');
			return i;
		}
	case TMX_FC_VARIANT: {
		const char *name = v->fc->members[v->option].name;
		outbuf_puts(b, "{\"option\":");
		json_string(b, name, strlen(name));
		outbuf_puts(b, ",\"value\":");
		i = json_value(b, keys, vals, i + 1);
		outbuf_putc(b, '}');
		return i;
	}
	case TMX_FC_BOOL:
		outbuf_puts(b, v->u ? "true" : "false");
		return i + 1;
	case TMX_FC_BIT_ARRAY:
		put_bit_array(b, v);
		return i + 1;
	case TMX_FC_BLOB:
		put_blob(b, v);
		return i + 1;
	case TMX_FC_OPTIONAL:
		/* An absent field is null; a present one is its value. */
		if (!v->present) {
			outbuf_puts(b, "null");
			return i + 1;
		}
		return json_value(b, keys, vals, i + 1);
	}
	return i + 1;
}

