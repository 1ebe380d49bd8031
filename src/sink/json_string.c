/* JSON strings, one policy for every JSON output: see json_string.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/utf8.h"
#include "sink/json_string.h"
#include "tracemux/sink.h"

/*
 * Whether none of the 8 bytes of `x` needs escaping: each is printable
 * ASCII, neither the quote nor the backslash (bytewise tests without
 * branches: a byte below n sets its high bit in (x - n) & ~x).
 */
static inline bool plain8(uint64_t x)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), highs = ones << 7;
	uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\');

	return !((((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((bs - ones) & ~bs) | x) & highs);
}

/* Bytes copied as they are (the NUL is not: it ends a key). */
static const bool plain_byte[256] = {
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7f] = true,
};

static inline bool plain(unsigned char c)
{
	return plain_byte[c];
}

/* The control characters with a two-character escape, and its letter. */
static const char short_escape[0x20] = {
	['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
};

/* The rest of a string from byte i, escaped where needed, and its closing quote. */
static void string_tail(struct outbuf *b, const char *str, size_t i, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;

	while (i < n) {
		size_t run = i;
		unsigned char c;
		size_t l;

		/* Printable ASCII but the quote and the backslash: copied in runs. */
		for (uint64_t x; run + 8 <= n && (memcpy(&x, s + run, 8), plain8(x));)
			run += 8;
		while (run < n && plain(s[run]))
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
		if (c >= 0x80) {
			l = tmx_utf8_seq_len(s + i, n - i);
			if (l) {
				outbuf_write(b, str + i, l);
				i += l;
				continue;
			}
			/* not UTF-8: the byte's own code point, \u00XX below */
		}
		/* A control character: its short escape; it or a byte that is not UTF-8: \u00XX. */
		if (c < 0x20 && short_escape[c]) {
			outbuf_putc(b, '\\');
			outbuf_putc(b, short_escape[c]);
		} else {
			outbuf_write(b, "\\u00", 4);
			outbuf_putc(b, hex[c >> 4]);
			outbuf_putc(b, hex[c & 15]);
		}
		i++;
	}
	outbuf_putc(b, '"');
}

void json_string(struct outbuf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	char *p = b->data + b->len;
	size_t i = 0;

	if (n + 2 > OUTBUF_SIZE - b->len) {
		outbuf_putc(b, '"');
		string_tail(b, str, 0, n);
		return;
	}
	/* Room for it unescaped: the plain bytes go straight into the buffer. */
	*p++ = '"';
	for (uint64_t x; i + 8 <= n && (memcpy(&x, s + i, 8), plain8(x)); i += 8)
		memcpy(p + i, &x, 8);
	for (; i < n && plain(s[i]); i++)
		p[i] = (char)s[i];
	if (i == n) {
		p[n] = '"';
		b->len += n + 2;
		return;
	}
	b->len += i + 1;
	string_tail(b, str, i, n);
}

/* Longest key written by json_key()'s fast path. */
#define KEY_FAST 64

void json_key(struct outbuf *b, const char *key, bool first)
{
	/* Names are short identifiers: without strlen(), straight into the buffer. */
	if (OUTBUF_SIZE - b->len >= KEY_FAST + 4) {
		char *p = b->data + b->len, *start = p;
		size_t k = 0;

		if (!first)
			*p++ = ',';
		*p++ = '"';
		for (; k < KEY_FAST && plain((unsigned char)key[k]); k++)
			p[k] = key[k];
		if (!key[k]) {
			p += k;
			*p++ = '"';
			*p++ = ':';
			b->len += (size_t)(p - start);
			return;
		}
	}
	if (!first)
		outbuf_putc(b, ',');
	json_string(b, key, strlen(key));
	outbuf_putc(b, ':');
}

/* tmx_json_escape's destination: what fits, and the whole length. */
struct escape_to {
	char *buf;
	size_t size, len;
};

static void escape_drain(void *ctx, const char *data, size_t len)
{
	struct escape_to *e = ctx;

	if (e->len < e->size)
		memcpy(e->buf + e->len, data, len < e->size - e->len ? len : e->size - e->len);
	e->len += len;
}

size_t tmx_json_escape(const char *s, size_t n, char *buf, size_t size)
{
	struct escape_to e = { buf, buf ? size : 0, 0 };
	struct outbuf *b = malloc(sizeof(*b));   /* 256 KiB: not on a caller's stack */

	if (!b)
		return SIZE_MAX;
	outbuf_init(b, -1);
	outbuf_set_drain(b, escape_drain, &e);
	json_string(b, s, n);
	outbuf_flush(b);
	free(b);
	return e.len;
}
