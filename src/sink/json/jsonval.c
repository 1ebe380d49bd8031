/* JSON values shared by the JSON outputs (jsonl.c, chrome.c): see jsonval.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/utf8.h"
#include "model/field_class.h"
#include "sink/json/jsonval.h"

void json_string(struct outbuf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	outbuf_putc(b, '"');
	while (i < n) {
		size_t run = i;
		unsigned char c;
		size_t l;

		/* Printable ASCII but the quote and the backslash: copied in runs. */
		while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
			run++;
		outbuf_write(b, str + i, run - i);
		if ((i = run) == n)
			break;
		c = s[i];
		if (c == '"' || c == '\\') {
			outbuf_putc(b, '\\');
			outbuf_putc(b, (char)c);
			i++;
			continue;
		}
		l = c >= 0x80 ? tmx_utf8_seq_len(s + i, n - i) : 0;
		if (l) {
			outbuf_write(b, str + i, l);
			i += l;
			continue;
		}
		/* A control character, or a byte that is not valid UTF-8: \u00XX. */
		outbuf_write(b, "\\u00", 4);
		outbuf_putc(b, hex[c >> 4]);
		outbuf_putc(b, hex[c & 15]);
		i++;
	}
	outbuf_putc(b, '"');
}

void json_key(struct outbuf *b, const char *key, bool first)
{
	if (!first)
		outbuf_putc(b, ',');
	json_string(b, key, strlen(key));
	outbuf_putc(b, ':');
}

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
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)v->str.ptr;

	outbuf_putc(b, '"');
	for (uint64_t k = 0; k < v->str.len; k++) {
		outbuf_putc(b, hex[s[k] >> 4]);
		outbuf_putc(b, hex[s[k] & 15]);
	}
	outbuf_putc(b, '"');
}

static void put_float(struct outbuf *b, double d)
{
	char num[32];

	if (!isfinite(d)) {
		outbuf_puts(b, "null");
		return;
	}
	snprintf(num, sizeof(num), "%.17g", d);
	outbuf_puts(b, num);
}

static size_t put_struct(struct outbuf *b, const struct tmx_value *vals, size_t i)
{
	const struct tmx_field_class *fc = vals[i].fc;
	uint32_t n = vals[i].n_members;

	i++;
	outbuf_putc(b, '{');
	for (uint32_t m = 0; m < n; m++) {
		json_key(b, fc->members[m].name, m == 0);
		i = json_value(b, vals, i);
	}
	outbuf_putc(b, '}');
	return i;
}

size_t json_value(struct outbuf *b, const struct tmx_value *vals, size_t i)
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
		return put_struct(b, vals, i);
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
				i = json_value(b, vals, i);
			}
			outbuf_putc(b, ']');
			return i;
		}
	case TMX_FC_VARIANT: {
		const char *name = v->fc->members[v->option].name;
		outbuf_puts(b, "{\"option\":");
		json_string(b, name, strlen(name));
		outbuf_puts(b, ",\"value\":");
		i = json_value(b, vals, i + 1);
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
		return json_value(b, vals, i + 1);
	}
	return i + 1;
}

