#include <errno.h>
#include <unistd.h>

#include "out/outbuf.h"

static const char digit_pairs[201] =
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

static int digit_count(uint64_t v)
{
	int n = 1;

	while (v >= 10000) {
		v /= 10000;
		n += 4;
	}
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Written in place, right to left, two digits at a time. */
void outbuf_u64(struct outbuf *b, uint64_t v, int width)
{
	int n;
	char *p;

	/* Small numbers (array indices, most fields) take the short way. */
	if (v < 100 && width <= 1 && OUTBUF_SIZE - b->len >= 2) {
		if (v < 10) {
			b->data[b->len++] = (char)('0' + v);
		} else {
			memcpy(b->data + b->len, digit_pairs + 2 * v, 2);
			b->len += 2;
		}
		return;
	}
	/* Nanoseconds of a timestamp: exactly nine digits, straight-line. */
	if (width == 9 && v < 1000000000 && OUTBUF_SIZE - b->len >= 9) {
		char *d = b->data + b->len;
		uint32_t x = (uint32_t)v, hi = x / 100000, lo = x % 100000;
		d[0] = (char)('0' + hi / 1000);
		memcpy(d + 1, digit_pairs + 2 * (hi / 10 % 100), 2);
		d[3] = (char)('0' + hi % 10);
		d[4] = (char)('0' + lo / 10000);
		memcpy(d + 5, digit_pairs + 2 * (lo / 100 % 100), 2);
		memcpy(d + 7, digit_pairs + 2 * (lo % 100), 2);
		b->len += 9;
		return;
	}
	n = digit_count(v);

	if (n < width)
		n = width;
	if (OUTBUF_SIZE - b->len < 24)
		outbuf_flush(b);
	p = b->data + b->len + n;
	b->len += (size_t)n;
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * r, 2);
		n -= 2;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * v, 2);
		n -= 2;
	} else {
		*--p = (char)('0' + v);
		n--;
	}
	while (n-- > 0)
		*--p = '0';
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
