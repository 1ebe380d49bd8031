#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "sink/outbuf.h"

const char tmx_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void outbuf_init(struct outbuf *b, int fd)
{
	b->fd = fd;
	b->len = 0;
	b->error = 0;
	b->drain = NULL;
	b->drain_ctx = NULL;
	b->drained = 0;
	b->data = b->store;
}

void outbuf_set_drain(struct outbuf *b, void (*drain)(void *ctx, const char *data, size_t len),
		      void *ctx)
{
	b->drain = drain;
	b->drain_ctx = ctx;
}

int outbuf_flush(struct outbuf *b)
{
	const char *p = b->data;
	size_t n = b->len;

	if (b->drain) {
		/* drain() may point `data` elsewhere (outbuf_set_data). */
		b->drain(b->drain_ctx, p, n);
		b->drained += n;
		b->len = 0;
		return 0;
	}
	b->drained += n;
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
void tmx_put_8digits(char *p, uint32_t v)
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
		tmx_put_8digits(p, (uint32_t)(v / 100000000));
		p += 8;
	}
	tmx_put_8digits(p, (uint32_t)(v % 100000000));
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
		outbuf_commit(b, tmx_put_9digits(p, (uint32_t)v));
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

char *tmx_put_sec_ns(char *p, uint64_t sec, uint32_t nsec)
{
	if (sec < 10)
		*p++ = (char)('0' + sec);
	else
		p = tmx_put_u64(p, sec);
	*p++ = '.';
	return tmx_put_9digits(p, nsec);
}

void outbuf_sec_ns(struct outbuf *b, uint64_t sec, uint32_t nsec)
{
	outbuf_commit(b, tmx_put_sec_ns(outbuf_reserve(b, 30), sec, nsec));
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

/* "00" "01" ... "FF": two hexadecimal digits at a time. */
static const char hex_pairs[513] =
	"000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
	"202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
	"404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
	"606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
	"808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
	"A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
	"C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
	"E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";

/* Written right to left, a byte at a time: the digit count is known up front. */
char *tmx_put_hex(char *p, uint64_t v)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	char *end = p + n;

	p = end;
	for (; n >= 2; n -= 2, v >>= 8) {
		p -= 2;
		memcpy(p, hex_pairs + 2 * (v & 0xff), 2);
	}
	if (n)
		p[-1] = hex_pairs[2 * (v & 0xf) + 1];
	return end;
}

void outbuf_hex(struct outbuf *b, uint64_t v)
{
	outbuf_commit(b, tmx_put_hex(outbuf_reserve(b, 16), v));
}

void outbuf_hex_bytes(struct outbuf *b, const void *bytes, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = bytes;

	while (n) {
		/* The pairs that fit before the buffer is full; flushed when none does. */
		size_t k = (OUTBUF_SIZE - b->len) / 2;
		char *o = b->data + b->len;

		if (!k) {
			outbuf_flush(b);
			continue;
		}
		if (k > n)
			k = n;
		for (size_t i = 0; i < k; i++) {
			*o++ = hex[s[i] >> 4];
			*o++ = hex[s[i] & 15];
		}
		outbuf_commit(b, o);
		s += k;
		n -= k;
	}
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

/* ------------------------------------------------------------------ */
/* %g                                                                   */
/* ------------------------------------------------------------------ */

/* 1e0 .. 1e22: every one exact in a double. */
static const double exact_pow10[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* a * 10^k with one rounding, or -1 when 10^|k| is not exact. */
static double scale10(double a, int k)
{
	if (k >= 0)
		return k <= 22 ? a * exact_pow10[k] : -1;
	return -k <= 22 ? a / exact_pow10[-k] : -1;
}

/*
 * The 6 significant digits of a > 0, correctly rounded, as an integer in
 * [100000, 999999] and the decimal exponent of the first; false when the
 * fast way cannot be sure.  a * 10^(5 - e) is computed with one rounding
 * (relative error 2^-53, so under 1.2e-10 in absolute terms): the result
 * is exact unless the value lies within that of a rounding tie, and the
 * wide 1e-6 margin sends those to printf.
 */
static bool six_digits(double a, uint32_t *digits, int *exp10)
{
	int e = (int)floor(log10(a));
	double scaled = scale10(a, 5 - e), frac;
	uint64_t m;

	if (scaled >= 0 && scaled < 1e5)        /* log10 a hair low */
		scaled = scale10(a, 5 - --e);
	else if (scaled >= 1e6)                 /* a hair high */
		scaled = scale10(a, 5 - ++e);
	if (!(scaled >= 1e5 && scaled < 1e6))
		return false;
	frac = scaled - floor(scaled);
	if (fabs(frac - 0.5) < 1e-6)
		return false;
	m = (uint64_t)scaled + (frac > 0.5);
	if (m == 1000000) {                    /* 999999.5 and up: next decade */
		m = 100000;
		e++;
	}
	*digits = (uint32_t)m;
	*exp10 = e;
	return true;
}

size_t tmx_format_g(char *p, double d)
{
	char digits[6], *q = p;
	uint32_t m;
	int e, n;

	/* Zero (and its sign), infinities, NaNs and the extremes: printf. */
	if (!(fabs(d) >= 1e-300 && fabs(d) <= 1e300) || !six_digits(fabs(d), &m, &e))
		return (size_t)snprintf(p, 32, "%g", d);
	for (int i = 5; i >= 0; i--, m /= 10)
		digits[i] = (char)('0' + m % 10);
	for (n = 6; digits[n - 1] == '0'; n--)    /* significant digits kept */
		;
	if (d < 0)
		*q++ = '-';
	if (e < -4 || e >= 6) {                   /* d.ddddde+XX */
		*q++ = digits[0];
		if (n > 1) {
			*q++ = '.';
			memcpy(q, digits + 1, (size_t)n - 1);
			q += n - 1;
		}
		*q++ = 'e';
		*q++ = e < 0 ? '-' : '+';
		e = e < 0 ? -e : e;
		if (e >= 100)
			*q++ = (char)('0' + e / 100);
		memcpy(q, tmx_digit_pairs + 2 * (e % 100), 2);
		return (size_t)(q + 2 - p);
	}
	if (e < 0) {                              /* 0.000ddd */
		memcpy(q, "0.0000", (size_t)(1 - e));
		q += 1 - e;
		memcpy(q, digits, (size_t)n);
		return (size_t)(q + n - p);
	}
	memcpy(q, digits, (size_t)e + 1);         /* ddd[.ddd] */
	q += e + 1;
	if (n > e + 1) {
		*q++ = '.';
		memcpy(q, digits + e + 1, (size_t)(n - e - 1));
		q += n - e - 1;
	}
	return (size_t)(q - p);
}
