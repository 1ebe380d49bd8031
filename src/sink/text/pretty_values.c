/* The text output's field values, as babeltrace2 2.0.4 prints them: see pretty_impl.h. */
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/text/pretty_impl.h"

/* ------------------------------------------------------------------ */
/* Field values                                                         */
/* ------------------------------------------------------------------ */

/* The low `bits` bits of `u`, as babeltrace2 masks signed octal and hex values. */
static uint64_t low_bits(uint64_t u, unsigned bits)
{
	return bits < 64 ? u & ((UINT64_C(1) << bits) - 1) : u;
}

static void put_integer_any(struct tmx_pretty *p, const struct tmx_value *v);

/* Decimal and hexadecimal integers take at most this many bytes. */
#define INT_TEXT_MAX 21

/* Whether int_text() writes the integer (decimal or hexadecimal). */
static bool int_text_base(const struct tmx_field_class *fc)
{
	return fc->base != 2 && fc->base != 8;
}

/* A decimal or hexadecimal integer at q (room for INT_TEXT_MAX bytes); returns the end. */
static inline char *int_text(char *q, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	uint64_t u = v->u;

	if (fc->base == 16) {
		memcpy(q, "0x", 2);
		return tmx_put_hex(q + 2, low_bits(u, (fc->size + 3) & ~3u));
	}
	if (fc->is_signed && v->s < 0) {
		*q++ = '-';
		u = 0 - u;
	}
	if (u < 10) {
		*q = (char)('0' + u);
		return q + 1;
	}
	if (u < 100) {
		memcpy(q, tmx_digit_pairs + 2 * u, 2);
		return q + 2;
	}
	return tmx_put_u64(q, u);
}

static inline void put_integer(struct tmx_pretty *p, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	struct outbuf *b = &p->out;

	if (!p->colors.events && int_text_base(fc)) {
		outbuf_commit(b, int_text(outbuf_reserve(b, INT_TEXT_MAX), v));
		return;
	}
	put_integer_any(p, v);
}

/* Any base, colors included. */
static void put_integer_any(struct tmx_pretty *p, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	struct outbuf *b = &p->out;

	put_color(p, COLOR_BOLD);
	switch (fc->base) {
	case 2:
		outbuf_write(b, "0b", 2);
		outbuf_bin(b, v->u, fc->size);
		break;
	case 8:
		/* A signed value shows its two's complement over whole octal digits. */
		outbuf_putc(b, '0');
		outbuf_oct(b, fc->is_signed ? low_bits(v->u, (fc->size + 2) / 3 * 3) : v->u);
		break;
	case 16:
		outbuf_write(b, "0x", 2);
		outbuf_hex(b, low_bits(v->u, (fc->size + 3) & ~3u));
		break;
	default:
		if (fc->is_signed)
			outbuf_i64(b, v->s);
		else
			outbuf_u64(b, v->u, 0);
	}
	put_color(p, COLOR_RESET);
}

/* Whether a mapping from `from` on also holds the value. */
static bool more_labels(const struct tmx_field_class *fc, size_t from, uint64_t value)
{
	for (size_t m = from; m < fc->n_mappings; m++)
		if (tmx_mapping_holds(fc, &fc->mappings[m], value))
			return true;
	return false;
}

/* `( "A", "B" : container = 5 )`: every label whose ranges hold the value. */
static void put_enum(struct tmx_pretty *p, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	struct outbuf *b = &p->out;
	size_t printed = 0;

	bool braces = false;

	outbuf_write(b, "( ", 2);
	for (size_t m = 0; m < fc->n_mappings; m++) {
		const char *label = fc->mappings[m].label;

		if (!tmx_mapping_holds(fc, &fc->mappings[m], v->u))
			continue;
		if (printed++)
			outbuf_write(b, ", ", 2);
		else if (p->brace_labels && more_labels(fc, m + 1, v->u)) {
			braces = true;
			outbuf_write(b, "{ ", 2);
		}
		put_quoted(p, COLOR_BOLD, label, strlen(label));
	}
	if (braces)
		outbuf_write(b, " }", 2);
	if (!printed) {
		put_color(p, p->colors.unknown);
		outbuf_puts(b, "<unknown>");
		put_color(p, COLOR_RESET);
	}
	outbuf_puts(b, " : container = ");
	put_integer(p, v);
	outbuf_write(b, " )", 2);
}

static void put_float(struct tmx_pretty *p, double d)
{
	char num[32];
	size_t n = tmx_format_g(num, d);   /* babeltrace2 prints "%g" */

	put_color(p, COLOR_BOLD);
	outbuf_write(&p->out, num, n);
	put_color(p, COLOR_RESET);
}

static void put_bool(struct tmx_pretty *p, const struct tmx_value *v)
{
	put_color(p, COLOR_BOLD);
	outbuf_puts(&p->out, v->u ? "true" : "false");
	put_color(p, COLOR_RESET);
}

/* Label comparison for qsort: babeltrace 2.1 sorts active flags by name. */
static int cmp_labels(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * `0x8B { "A", "B", "HIGH" }`: the value in hex, then the labels of the
 * flags with any of their bits set, sorted (babeltrace 2.1's print_bit_array).
 */
static void put_bit_array(struct tmx_pretty *p, const struct tmx_value *v)
{
	const struct tmx_field_class *fc = v->fc;
	const char *stack_labels[64], **labels = stack_labels;
	size_t n = 0;

	put_color(p, COLOR_BOLD);
	outbuf_write(&p->out, "0x", 2);
	outbuf_hex(&p->out, v->u);
	put_color(p, COLOR_RESET);
	if (!fc->n_mappings)
		return;
	if (fc->n_mappings > 64) {
		labels = malloc(fc->n_mappings * sizeof(*labels));
		if (!labels)
			return;
	}
	for (size_t m = 0; m < fc->n_mappings; m++)
		if (tmx_mapping_holds(fc, &fc->mappings[m], v->u))
			labels[n++] = fc->mappings[m].label;
	if (n) {
		qsort(labels, n, sizeof(*labels), cmp_labels);
		outbuf_write(&p->out, " { ", 3);
		for (size_t k = 0; k < n; k++) {
			if (k)
				outbuf_write(&p->out, ", ", 2);
			put_quoted(p, COLOR_BOLD, labels[k], strlen(labels[k]));
		}
		outbuf_write(&p->out, " }", 2);
	}
	if (labels != stack_labels)
		free(labels);
}

/* `{ de ad }`: each byte in lowercase hex followed by a space (babeltrace 2.1). */
static void put_blob(struct tmx_pretty *p, const struct tmx_value *v)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)v->str.ptr;
	struct outbuf *b = &p->out;

	outbuf_write(b, "{ ", 2);
	for (uint64_t k = 0; k < v->str.len; k++) {
		char byte[3] = { hex[s[k] >> 4], hex[s[k] & 15], ' ' };
		outbuf_write(b, byte, 3);
	}
	outbuf_putc(b, '}');
}

static size_t put_value(struct tmx_pretty *p, const struct tmx_value *vals, size_t i, bool names,
			bool hide_meaning);

/* The member texts of `fc` (member_text_make): `, name = `, colors included. */
static bool make_prefixes(void *ctx, const struct tmx_field_class *fc, struct member_text *mt)
{
	const struct tmx_pretty *p = ctx;
	size_t color_len = p->colors.events ? strlen(COLOR_FIELD_NAME) + strlen(COLOR_RESET) : 0;
	size_t total = OUTBUF_PAD, at = 0;

	for (size_t m = 0; m < fc->n_members; m++)
		total += strlen(fc->members[m].name) + color_len + 5;
	if (total > UINT32_MAX || !(mt->end = malloc(fc->n_members * sizeof(*mt->end))) ||
	    !(mt->text = malloc(total)))
		return false;
	for (size_t m = 0; m < fc->n_members; m++) {
		const char *parts[5] = { ", ", p->colors.events ? COLOR_FIELD_NAME : "",
					 fc->members[m].name, p->colors.events ? COLOR_RESET : "",
					 " = " };
		for (int k = 0; k < 5; k++) {
			size_t len = strlen(parts[k]);
			memcpy(mt->text + at, parts[k], len);
			at += len;
		}
		mt->end[m] = (uint32_t)at;
	}
	memset(mt->text + at, 0, OUTBUF_PAD);
	return true;
}

/* The separator before member m (` ` for the first printed, else `, `) and its `name = `. */
static void put_member_name(struct tmx_pretty *p, const struct member_text *mt,
			    const struct tmx_field_class *fc, uint32_t m, bool first)
{
	if (mt) {
		member_text_put(&p->out, mt, m, first);
		return;
	}
	outbuf_write(&p->out, first ? " " : ", ", first ? 1 : 2);
	put_colored_name(p, COLOR_FIELD_NAME, fc->members[m].name);
}

static size_t put_struct(struct tmx_pretty *p, const struct tmx_value *vals, size_t i, bool names,
			 bool hide_meaning)
{
	const struct tmx_field_class *fc = vals[i].fc;
	uint32_t n = vals[i].n_members;
	struct outbuf *b = &p->out;
	size_t printed = 0;
	const struct member_text *mt = names && n ? member_text_of(&p->names, fc, make_prefixes, p) :
					    NULL;

	i++;
	outbuf_putc(b, '{');
	for (uint32_t m = 0; m < n; m++) {
		const struct tmx_member *mem = &fc->members[m];

		if (hide_meaning && mem->fc->meaning != TMX_MEANING_NONE) {
			i = tmx_value_skip(vals, i);
			continue;
		}
		if (names)
			put_member_name(p, mt, fc, m, !printed);
		else
			outbuf_write(b, printed ? ", " : " ", printed ? 2 : 1);
		printed++;
		i = put_value(p, vals, i, names, false);
	}
	outbuf_write(b, " }", 2);
	return i;
}

/*
 * `[k] = V` for integer elements in decimal or hexadecimal, without
 * colors: each element written in place with one bounds check.
 */
static size_t put_int_elements(struct tmx_pretty *p, const struct tmx_value *vals, size_t i,
			       uint64_t count)
{
	struct outbuf *b = &p->out;

	for (uint64_t e = 0; e < count; e++) {
		char *q = outbuf_reserve(b, 3 + 20 + 4 + INT_TEXT_MAX);

		if (e) {
			memcpy(q, ", [", 3);
			q += 3;
		} else {
			memcpy(q, " [", 2);
			q += 2;
		}
		q = e < 10 ? (*q = (char)('0' + e), q + 1) : tmx_put_u64(q, e);
		memcpy(q, "] = ", 4);
		outbuf_commit(b, int_text(q + 4, &vals[i++]));
	}
	return i;
}

static size_t put_array(struct tmx_pretty *p, const struct tmx_value *vals, size_t i, bool names)
{
	uint64_t count = vals[i].count;
	bool plain_ints = count && vals[i].fc->elem->kind == TMX_FC_INT;
	struct outbuf *b = &p->out;

	i++;
	outbuf_putc(b, '[');
	if (plain_ints && names && !p->colors.events && int_text_base(vals[i].fc)) {
		i = put_int_elements(p, vals, i, count);
		count = 0;
	}
	for (uint64_t e = 0; e < count; e++) {
		outbuf_write(b, e ? ", " : " ", e ? 2 : 1);
		if (names) {
			outbuf_putc(b, '[');
			outbuf_u64(b, e, 0);
			outbuf_write(b, "] = ", 4);
		}
		/* Integer elements (byte buffers, ID lists): no dispatch needed. */
		if (plain_ints)
			put_integer(p, &vals[i++]);
		else
			i = put_value(p, vals, i, names, false);
	}
	outbuf_write(b, " ]", 2);
	return i;
}

/* A text array reads as a C string: up to its first NUL. */
static void put_text_array(struct tmx_pretty *p, const struct tmx_value *v)
{
	put_quoted(p, COLOR_BOLD, v->str.ptr, tmx_value_text_len(v));
}

/* Prints the subtree at vals[i]; returns the index just after it. */
static size_t put_value(struct tmx_pretty *p, const struct tmx_value *vals, size_t i, bool names,
			bool hide_meaning)
{
	const struct tmx_value *v = &vals[i];

	switch (v->fc->kind) {
	case TMX_FC_INT:
		put_integer(p, v);
		break;
	case TMX_FC_ENUM:
		put_enum(p, v);
		break;
	case TMX_FC_FLOAT:
		put_float(p, v->d);
		break;
	case TMX_FC_STRING:
		put_quoted(p, COLOR_BOLD, v->str.ptr, v->str.len);
		break;
	case TMX_FC_STRUCT:
		return put_struct(p, vals, i, names, hide_meaning);
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		if (!v->fc->is_text)
			return put_array(p, vals, i, names);
		put_text_array(p, v);
		break;
	case TMX_FC_VARIANT:
		/* babeltrace2 2.0.4 does not name the selected option. */
		outbuf_write(&p->out, "{ ", 2);
		i = put_value(p, vals, i + 1, names, false);
		outbuf_write(&p->out, " }", 2);
		return i;
	case TMX_FC_BOOL:
		put_bool(p, v);
		break;
	case TMX_FC_BIT_ARRAY:
		put_bit_array(p, v);
		break;
	case TMX_FC_BLOB:
		put_blob(p, v);
		break;
	case TMX_FC_OPTIONAL:
		if (!v->present) {
			outbuf_puts(&p->out, "<none>");
			break;
		}
		outbuf_write(&p->out, "{ ", 2);
		i = put_value(p, vals, i + 1, names, false);
		outbuf_write(&p->out, " }", 2);
		return i;
	}
	return i + 1;
}

/* A struct scope with every member hidden is not printed at all. */
static bool has_visible_member(const struct tmx_field_class *fc)
{
	for (size_t m = 0; m < fc->n_members; m++)
		if (fc->members[m].fc->meaning == TMX_MEANING_NONE)
			return true;
	return false;
}

void pretty_put_scope(struct tmx_pretty *p, const struct tmx_value *vals, const char *scope_name,
		      bool names, bool hide_meaning)
{
	if (!vals)
		return;
	if (hide_meaning && !has_visible_member(vals[0].fc))
		return;
	if (!p->start_line)
		outbuf_write(&p->out, ", ", 2);
	p->start_line = false;
	if (p->opts.names_scope)
		put_name_equal(p, scope_name);
	put_value(p, vals, 0, names, hide_meaning);
}
