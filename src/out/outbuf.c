#include <errno.h>
#include <unistd.h>

#include "out/outbuf.h"

const char tmx_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void outbuf_init(struct outbuf *b, int fd)
{
	b->fd = fd;
	b->len = 0;
	b->error = 0;
}

int outbuf_flush(struct outbuf *b)
{
	const char *p = b->data;
	size_t n = b->len;

	while (n && !b->error) {
		ssize_t w = write(b->fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			b->error = errno;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	b->len = 0;
	return b->error;
}

void outbuf_write_slow(struct outbuf *b, const char *s, size_t n)
{
	while (n) {
		size_t room = OUTBUF_SIZE - b->len;
		size_t chunk = n < room ? n : room;
		memcpy(b->data + b->len, s, chunk);
		b->len += chunk;
		s += chunk;
		n -= chunk;
		if (b->len == OUTBUF_SIZE)
			outbuf_flush(b);
	}
}

/* v < 10^8 without leading zeros, right to left, two digits at a time. */
static char *put_upto8(char *p, uint32_t v)
{
	char *end;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		memcpy(p, tmx_digit_pairs + 2 * v, 2);
		return p + 2;
	}
	end = p + 3 + (v >= 1000) + (v >= 10000) + (v >= 100000) + (v >= 1000000) +
	      (v >= 10000000);
	p = end;
	while (v >= 100) {
		p -= 2;
		memcpy(p, tmx_digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(p - 2, tmx_digit_pairs + 2 * v, 2);
	else
		p[-1] = (char)('0' + v);
	return end;
}

/* v < 10^8 as exactly eight digits: four independent pairs, no carried chain. */
static void put8(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(p, tmx_digit_pairs + 2 * (hi / 100), 2);
	memcpy(p + 2, tmx_digit_pairs + 2 * (hi % 100), 2);
	memcpy(p + 4, tmx_digit_pairs + 2 * (lo / 100), 2);
	memcpy(p + 6, tmx_digit_pairs + 2 * (lo % 100), 2);
}

char *tmx_put_u64(char *p, uint64_t v)
{
	if (v < 100000000)
		return put_upto8(p, (uint32_t)v);
	if (v < 10000000000000000ULL) {
		p = put_upto8(p, (uint32_t)(v / 100000000));
	} else {
		p = put_upto8(p, (uint32_t)(v / 10000000000000000ULL));
		v %= 10000000000000000ULL;
		put8(p, (uint32_t)(v / 100000000));
		p += 8;
	}
	put8(p, (uint32_t)(v % 100000000));
	return p + 8;
}

void outbuf_u64(struct outbuf *b, uint64_t v, int width)
{
	char digits[20], *end, *p;
	int n;

	if (OUTBUF_SIZE - b->len < (width > 20 ? (size_t)width : 20))
		outbuf_flush(b);
	p = b->data + b->len;
	/* Nanoseconds of a timestamp: exactly nine digits, straight-line. */
	if (width == 9 && v < 1000000000) {
		*p = (char)('0' + v / 100000000);
		put8(p + 1, (uint32_t)(v % 100000000));
		b->len += 9;
		return;
	}
	if (width <= 1) {
		b->len = (size_t)(tmx_put_u64(p, v) - b->data);
		return;
	}
	/* Zero-padded: rare (fixed-width fields of the text output). */
	end = tmx_put_u64(digits, v);
	n = (int)(end - digits);
	for (; n < width; width--)
		*p++ = '0';
	memcpy(p, digits, (size_t)n);
	b->len = (size_t)(p + n - b->data);
}

void outbuf_i64(struct outbuf *b, int64_t v)
{
	if (v < 0) {
		outbuf_putc(b, '-');
		outbuf_u64(b, 0 - (uint64_t)v, 0);
	} else {
		outbuf_u64(b, (uint64_t)v, 0);
	}
}

void outbuf_hex(struct outbuf *b, uint64_t v)
{
	static const char hex[] = "0123456789ABCDEF";
	char tmp[16];
	int n = 0;

	do {
		tmp[15 - n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	outbuf_write(b, tmp + 16 - n, (size_t)n);
}

void outbuf_oct(struct outbuf *b, uint64_t v)
{
	char tmp[22];
	int n = 0;

	do {
		tmp[21 - n++] = (char)('0' + (v & 7));
		v >>= 3;
	} while (v);
	outbuf_write(b, tmp + 22 - n, (size_t)n);
}

void outbuf_bin(struct outbuf *b, uint64_t v, unsigned bits)
{
	char tmp[64];

	if (bits > 64)
		bits = 64;
	for (unsigned i = 0; i < bits; i++)
		tmp[bits - 1 - i] = (char)('0' + ((v >> i) & 1));
	outbuf_write(b, tmp, bits);
}

/* Runs of bytes that need no escape are copied at once. */
void outbuf_escaped(struct outbuf *b, const char *s, size_t len, outbuf_escapes esc)
{
	const char *run = s, *end = s + len;

	for (const char *c = s; c < end; c++) {
		const char *e = esc[(unsigned char)*c];

		if (!e)
			continue;
		outbuf_write(b, run, (size_t)(c - run));
		outbuf_puts(b, e);
		run = c + 1;
	}
	outbuf_write(b, run, (size_t)(end - run));
}
