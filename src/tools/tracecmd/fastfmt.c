/* Compiled simple print fmts: see fastfmt.h. */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "common/grow.h"
#include "sink/outbuf.h"
#include "tools/tracecmd/fastfmt.h"

/* A segment: literal text (`text`), then what its kind writes. */
enum seg_kind {
	SEG_TEXT,      /* the text alone */
	SEG_NUM,       /* a number read from the record */
	SEG_HEX,       /* the same, %x or %lx without flags or width (the common cases) */
	SEG_DEC,       /* the same, %d, %u, %ld or %lu without flags or width */
	SEG_STR_DYN,   /* __get_str(): __data_loc / __rel_loc string */
	SEG_STR_ARRAY, /* a char array field */
};

struct seg {
	uint8_t kind;
	/* SEG_NUM */
	uint8_t size;        /* bytes read: 1, 2, 4 or 8 */
	bool wide;           /* cast to long / long long (else int) */
	bool is_signed;      /* %d / %i */
	char conv;           /* 'd', 'u', 'x' or 'X' */
	/* SEG_NUM and strings */
	bool left;           /* '-' flag */
	bool zero;           /* '0' flag */
	uint32_t width;
	uint32_t offset;     /* of the field in the record */
	uint32_t len;        /* SEG_STR_ARRAY field size (0: rest of the record) */
	bool relative;       /* SEG_STR_DYN: __rel_loc */
	uint32_t rel_base;   /* SEG_STR_DYN: offset + size of the field */
	char *text;          /* before the rest, with 16 readable bytes more (NULL: none) */
	uint32_t text_len;
};

struct tcf_plan {
	bool swap;
	uint32_t min_size;   /* the record must hold every field read */
	size_t n;
	struct seg *segs;
};

void tcf_free(struct tcf_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->segs[i].text);
	free(p->segs);
	free(p);
}

static struct seg *add_seg(struct tcf_plan *p, size_t *cap)
{
	struct seg *s;

	if (!tmx_grow_array((void **)&p->segs, cap, p->n + 1, sizeof(*p->segs), 8))
		return NULL;
	s = &p->segs[p->n++];
	memset(s, 0, sizeof(*s));
	return s;
}

static void need(struct tcf_plan *p, uint32_t end)
{
	if (end > p->min_size)
		p->min_size = end;
}

/* libtraceevent's parse_arg_string(): text up to the next conversion, escapes resolved. */
static const char *compile_text(struct tcf_plan *p, size_t *cap, const char *f, bool *ok)
{
	size_t n = 0, room = 64;
	char *buf = malloc(room);
	struct seg *s;

	if (!buf) {
		*ok = false;
		return f;
	}
	for (; *f; f++) {
		char c = *f;
		if (c == '\\') {
			f++;
			switch (*f) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case '\0': f--; c = '\\'; break;   /* never read past the end */
			default: c = *f; break;
			}
		} else if (c == '%') {
			if (f[1] != '%')
				break;
			f++;
		}
		if (n + 1 >= room) {
			char *nb = realloc(buf, room *= 2);
			if (!nb) {
				free(buf);
				*ok = false;
				return f;
			}
			buf = nb;
		}
		buf[n++] = c;
	}
	if (!n) {
		free(buf);
		return f;
	}
	/* the renderer copies short texts 16 bytes at a time: those must be readable */
	if (room < n + 16) {
		char *nb = realloc(buf, n + 16);
		if (!nb) {
			free(buf);
			*ok = false;
			return f;
		}
		buf = nb;
	}
	if (!(s = add_seg(p, cap))) {
		free(buf);
		*ok = false;
		return f;
	}
	s->kind = SEG_TEXT;
	s->text = buf;
	s->text_len = (uint32_t)n;
	return f;
}

static bool numeric_size(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static struct tep_format_field *arg_field(struct tep_event *ev, struct tep_print_arg *a)
{
	if (!a->field.field)
		a->field.field = tep_find_any_field(ev, a->field.name);
	return a->field.field;
}

/* The number argument of a digit conversion: a field, or an element of a static array. */
static bool compile_num_arg(struct tcf_plan *p, struct tep_event *ev, struct tep_print_arg *a,
			    struct seg *s)
{
	struct tep_format_field *f;

	if (a->type == TEP_PRINT_FIELD) {
		if (!(f = arg_field(ev, a)) || !numeric_size(f->size) || f->offset < 0)
			return false;
		s->offset = (uint32_t)f->offset;
		s->size = (uint8_t)f->size;
	} else if (a->type == TEP_PRINT_OP && !strcmp(a->op.op, "[")) {
		struct tep_print_arg *l = a->op.left, *r = a->op.right;
		unsigned long long idx;
		char *end;

		if (!l || !r || l->type != TEP_PRINT_FIELD || r->type != TEP_PRINT_ATOM)
			return false;
		if (!(f = arg_field(ev, l)) || f->offset < 0 || !numeric_size((int)f->elementsize))
			return false;
		idx = strtoull(r->atom.atom, &end, 0);
		if (*end || idx > 4096)
			return false;
		s->offset = (uint32_t)(f->offset + idx * f->elementsize);
		s->size = (uint8_t)f->elementsize;
	} else {
		return false;
	}
	need(p, s->offset + s->size);
	return true;
}

static bool compile_str_arg(struct tcf_plan *p, struct tep_event *ev, struct tep_print_arg *a,
			    int long_size, struct seg *s)
{
	struct tep_format_field *f;

	if (a->type == TEP_PRINT_STRING) {
		if (!a->string.field)
			a->string.field = tep_find_any_field(ev, a->string.string);
		if (!(f = a->string.field) || f->offset < 0)
			return false;
		s->kind = SEG_STR_DYN;
		s->offset = (uint32_t)f->offset;
		s->relative = f->flags & TEP_FIELD_IS_RELATIVE;
		s->rel_base = (uint32_t)(f->offset + f->size);
		need(p, s->offset + 4);
		return true;
	}
	if (a->type == TEP_PRINT_FIELD) {
		if (!(f = arg_field(ev, a)) || f->offset < 0)
			return false;
		/* libtraceevent prints a long-sized non-array field as a printk pointer. */
		if (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size == long_size)
			return false;
		s->kind = SEG_STR_ARRAY;
		s->offset = (uint32_t)f->offset;
		s->len = (uint32_t)f->size;
		need(p, s->offset + s->len);
		return true;
	}
	return false;
}

/*
 * libtraceevent's parse_arg_format() for one conversion at f ('%'), in the
 * subset described in fastfmt.h; returns the position after it.
 */
static const char *compile_conv(struct tcf_plan *p, size_t *cap, struct tep_event *ev,
				const char *f, struct tep_print_arg **args, int long_size,
				bool *ok)
{
	struct seg *s;
	int ls = 0;
	bool left = false, zero = false, in_width = false;
	uint32_t width = 0;

	for (f++; *f; f++) {
		switch (*f) {
		case 'l':
			ls++;
			continue;
		case 'L':
			ls = 2;
			continue;
		case 'z':
		case 'Z':
			ls = 1;
			continue;
		case '-':
			if (in_width)
				goto fail;
			left = true;
			continue;
		case '0':
			if (!in_width) {
				zero = true;
				continue;
			}
			/* fall through */
		case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
			in_width = true;
			width = width * 10 + (uint32_t)(*f - '0');
			if (width > 256)
				goto fail;
			continue;
		case 'd':
		case 'i':
		case 'u':
		case 'x':
		case 'X':
			if (ls < 0 || ls > 2 || !*args || !(s = add_seg(p, cap)))
				goto fail;
			s->kind = SEG_NUM;
			s->conv = *f == 'i' ? 'd' : *f;
			s->is_signed = s->conv == 'd';
			s->wide = ls > 0;
			s->left = left;
			s->zero = zero && !left;
			s->width = width;
			if (!compile_num_arg(p, ev, *args, s))
				goto fail;
			if (!width && !left && !zero && (s->conv == 'x' || s->conv == 'd' || s->conv == 'u'))
				s->kind = s->conv == 'x' ? SEG_HEX : SEG_DEC;
			*args = (*args)->next;
			return f + 1;
		case 's':
			if (ls || zero || !*args || !(s = add_seg(p, cap)))
				goto fail;
			s->left = left;
			s->width = width;
			if (!compile_str_arg(p, ev, *args, long_size, s))
				goto fail;
			*args = (*args)->next;
			return f + 1;
		default:   /* h, ., *, +, #, space, p, c, o...: libtraceevent's job */
			goto fail;
		}
	}
fail:
	*ok = false;
	return f;
}

/* Each text goes into the conversion after it: one segment less to walk per record. */
static void merge_texts(struct tcf_plan *p)
{
	size_t k = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (p->segs[i].kind == SEG_TEXT && i + 1 < p->n && !p->segs[i + 1].text) {
			p->segs[i + 1].text = p->segs[i].text;
			p->segs[i + 1].text_len = p->segs[i].text_len;
			continue;
		}
		p->segs[k++] = p->segs[i];
	}
	p->n = k;
}

struct tcf_plan *tcf_compile(struct tep_event *ev, bool swap, int long_size)
{
	struct tep_print_arg *args;
	struct tcf_plan *p;
	const char *f;
	size_t cap = 0;
	bool ok = true;

	if (!ev || !ev->print_fmt.format || ev->handler ||
	    (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_PRINTRAW |
			  TEP_EVENT_FL_NOHANDLE)))
		return NULL;
	if (!(p = calloc(1, sizeof(*p))))
		return NULL;
	p->swap = swap;
	args = ev->print_fmt.args;
	f = ev->print_fmt.format;
	while (*f && ok) {
		if (f[0] == '%' && f[1] != '%')
			f = compile_conv(p, &cap, ev, f, &args, long_size, &ok);
		else
			f = compile_text(p, &cap, f, &ok);
	}
	if (!ok) {
		tcf_free(p);
		return NULL;
	}
	merge_texts(p);
	return p;
}

/* ------------------------------------------------------------------ */
/* Rendering                                                             */
/* ------------------------------------------------------------------ */

static uint64_t read_num(const uint8_t *d, unsigned size, bool swap)
{
	uint64_t v;
	uint32_t v32;
	uint16_t v16;

	switch (size) {
	case 1:
		return d[0];
	case 2:
		memcpy(&v16, d, 2);
		return swap ? __builtin_bswap16(v16) : v16;
	case 4:
		memcpy(&v32, d, 4);
		return swap ? __builtin_bswap32(v32) : v32;
	default:
		memcpy(&v, d, 8);
		return swap ? __builtin_bswap64(v) : v;
	}
}

struct out {
	char *p, *end;
};

/* Room for a number of up to `width` columns, and the fixed-size stores below. */
#define NUM_ROOM 48

static bool put(struct out *o, const char *s, size_t n)
{
	if ((size_t)(o->end - o->p) < n)
		return false;
	memcpy(o->p, s, n);
	o->p += n;
	return true;
}

static bool pad(struct out *o, char c, size_t n)
{
	if ((size_t)(o->end - o->p) < n)
		return false;
	memset(o->p, c, n);
	o->p += n;
	return true;
}

/*
 * The 8 hexadecimal digits of x as the 8 bytes of a word, the first digit
 * in the byte at the lowest address: the nibbles spread to bytes, then
 * '0' added, and 'a' - '0' - 10 (or 'A' - ...) more where a nibble is 10
 * or more.  No loop, no table.
 */
static uint64_t hex8(uint32_t x, bool upper)
{
	uint64_t v = x, ge10;

	v = (v | v << 16) & 0x0000ffff0000ffffULL;
	v = (v | v << 8) & 0x00ff00ff00ff00ffULL;
	v = (v | v << 4) & 0x0f0f0f0f0f0f0f0fULL;   /* byte i: nibble i */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);                   /* the first digit at the lowest address */
#endif
	ge10 = ((v + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	return v + 0x3030303030303030ULL + ge10 * (upper ? 'A' - '0' - 10 : 'a' - '0' - 10);
}

/* The n (1 to 16) hexadecimal digits of v at p (room for 16 bytes: more are written). */
static void put_hex(char *p, uint64_t v, unsigned n, bool upper)
{
	uint64_t w = v << (4 * (16 - n)), hi = hex8((uint32_t)(w >> 32), upper);

	/* the digits at the top of w: the first 8 in hi */
	memcpy(p, &hi, 8);
	if (n > 8) {
		uint64_t lo = hex8((uint32_t)w, upper);
		memcpy(p + 8, &lo, 8);
	}
}

/* printf of one integer conversion: [-][0][width] d/u/x/X, written in place. */
static bool put_num(struct out *o, const struct seg *s, uint64_t raw)
{
	bool neg = false, hex = s->conv == 'x' || s->conv == 'X';
	uint64_t v;
	unsigned n, total, fill;
	char *p = o->p;

	if ((size_t)(o->end - p) < s->width + NUM_ROOM)
		return false;
	if (s->wide) {
		v = raw;
		if (s->is_signed && (int64_t)raw < 0) {
			neg = true;
			v = -raw;
		}
	} else {
		uint32_t w = (uint32_t)raw;
		v = w;
		if (s->is_signed && (int32_t)w < 0) {
			neg = true;
			v = (uint32_t)-w;
		}
	}
	n = hex ? (unsigned)(64 - __builtin_clzll(v | 1) + 3) / 4 : tmx_u64_digits(v);
	total = n + neg;
	fill = total < s->width ? s->width - total : 0;
	if (fill && !s->left) {
		/* a fixed-size store when it covers the padding */
		memset(p, s->zero ? '0' : ' ', fill <= 16 ? 16 : fill);
		if (s->zero) {
			/* "-0042": the sign before the zeros */
			if (neg)
				*p = '-', memset(p + 1, '0', fill);
			p += fill + neg;
		} else {
			p += fill;
			if (neg)
				*p++ = '-';
		}
	} else if (neg) {
		*p++ = '-';
	}
	if (hex)
		put_hex(p, v, n, s->conv == 'X');
	else
		tmx_put_u64(p, v);
	p += n;
	if (fill && s->left) {
		memset(p, ' ', fill <= 16 ? 16 : fill);
		p += fill;
	}
	o->p = p;
	return true;
}

static bool put_str(struct out *o, const struct seg *s, const char *str, size_t n)
{
	if (s->left)
		return put(o, str, n) && (n >= s->width || pad(o, ' ', s->width - n));
	return (n >= s->width || pad(o, ' ', s->width - n)) && put(o, str, n);
}

int tcf_render(const struct tcf_plan *p, const uint8_t *data, uint32_t size, char *buf,
	       size_t cap)
{
	struct out o = { buf, buf + cap };

	if (size < p->min_size)
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		const struct seg *s = &p->segs[i];
		const char *str, *nul;
		uint32_t off, len;
		uint64_t v;
		unsigned n;

		/* short texts (the most) as one fixed-size copy: compile_text() padded them */
		if (!s->text_len) {
			/* a conversion right after another */
		} else if (s->text_len <= 16 && o.end - o.p >= 16) {
			memcpy(o.p, s->text, 16);
			o.p += s->text_len;
		} else if (!put(&o, s->text, s->text_len)) {
			return -1;
		}
		switch (s->kind) {
		case SEG_TEXT:
			break;
		case SEG_NUM:
			if (!put_num(&o, s, read_num(data + s->offset, s->size, p->swap)))
				return -1;
			break;
		case SEG_HEX:
			if (o.end - o.p < 16)
				return -1;
			v = read_num(data + s->offset, s->size, p->swap);
			if (!s->wide)
				v = (uint32_t)v;
			n = (unsigned)(64 - __builtin_clzll(v | 1) + 3) / 4;
			put_hex(o.p, v, n, false);
			o.p += n;
			break;
		case SEG_DEC:
			if (o.end - o.p < 21)
				return -1;
			v = read_num(data + s->offset, s->size, p->swap);
			if (!s->wide)   /* int or unsigned int, then long long */
				v = s->is_signed ? (uint64_t)(int64_t)(int32_t)v : (uint32_t)v;
			if (s->is_signed && (int64_t)v < 0) {
				*o.p++ = '-';
				v = -v;
			}
			o.p = tmx_put_u64(o.p, v);
			break;
		case SEG_STR_DYN:
			off = (uint32_t)read_num(data + s->offset, 4, p->swap) & 0xffff;
			if (s->relative)
				off += s->rel_base;
			if (off >= size)
				return -1;
			str = (const char *)data + off;
			if (!(nul = memchr(str, '\0', size - off)))
				return -1;
			if (!put_str(&o, s, str, (size_t)(nul - str)))
				return -1;
			break;
		case SEG_STR_ARRAY:
			len = s->len ? s->len : size - s->offset;
			str = (const char *)data + s->offset;
			nul = memchr(str, '\0', len);
			if (!put_str(&o, s, str, nul ? (size_t)(nul - str) : len))
				return -1;
			break;
		}
	}
	return (int)(o.p - buf);
}
