/*
 * A buffered writer on a file descriptor with hand-rolled number
 * formatting: the hot path of every text output.  Appends never fail; a
 * write error is remembered and reported by outbuf_flush().
 */
#ifndef TMX_OUTBUF_H
#define TMX_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define OUTBUF_SIZE (256 * 1024)

struct outbuf {
	int fd;
	size_t len;
	int error;              /* errno of the first failed write, 0 if none */
	/*
	 * Set: flushing hands the bytes to drain() instead of writing them
	 * (a worker of the parallel runner formats into memory, src/par/).
	 */
	void (*drain)(void *ctx, const char *data, size_t len);
	void *drain_ctx;
	uint64_t drained;       /* bytes handed to drain() so far */
	/*
	 * Where appends go: `store`, or OUTBUF_SIZE bytes of the drain's own
	 * (outbuf_set_data: the parallel runner's workers format straight
	 * into their batches, whose bytes drain() then only counts).
	 */
	char *data;
	char store[OUTBUF_SIZE];
};

void outbuf_init(struct outbuf *b, int fd);
/* Flushes go to drain(ctx, ...) from now on. */
void outbuf_set_drain(struct outbuf *b, void (*drain)(void *ctx, const char *data, size_t len),
		      void *ctx);

/*
 * Appends go to data[0, OUTBUF_SIZE) from now on (nothing buffered: len
 * 0); `store` gives the outbuf its own buffer back.  For a drain, which
 * may call it from drain() to say where the next bytes go.
 */
static inline void outbuf_set_data(struct outbuf *b, char *data)
{
	b->data = data;
}

/* Bytes appended since outbuf_init (whether flushed, drained or buffered). */
static inline uint64_t outbuf_pos(const struct outbuf *b)
{
	return b->drained + b->len;
}
/* Writes everything buffered; returns 0 or the errno of a failed write. */
int outbuf_flush(struct outbuf *b);
void outbuf_write_slow(struct outbuf *b, const char *s, size_t n);

static inline void outbuf_write(struct outbuf *b, const char *s, size_t n)
{
	/* An empty text may be a NULL pointer, which memcpy() must not see. */
	if (n == 0)
		return;
	if (n <= OUTBUF_SIZE - b->len) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
	} else {
		outbuf_write_slow(b, s, n);
	}
}

/*
 * Room for `n` more bytes (n <= OUTBUF_SIZE), flushed first when there is
 * less; returns where they go.  outbuf_commit() then says where they end:
 * one bounds check for several small pieces written in place.
 */
static inline char *outbuf_reserve(struct outbuf *b, size_t n)
{
	if (OUTBUF_SIZE - b->len < n)
		outbuf_flush(b);
	return b->data + b->len;
}

static inline void outbuf_commit(struct outbuf *b, const char *end)
{
	b->len = (size_t)(end - b->data);
}

/*
 * s[0, n) for n <= OUTBUF_PAD, where s may be read up to s + OUTBUF_PAD
 * (a table padded for it): one copy of a fixed size, no call.
 */
#define OUTBUF_PAD 32
static inline void outbuf_write_padded(struct outbuf *b, const char *s, size_t n)
{
	memcpy(outbuf_reserve(b, OUTBUF_PAD), s, OUTBUF_PAD);
	b->len += n;
}

/*
 * s[0, n) where s may be read up to s + avail (a part followed by more of
 * the same buffer): a short one in one copy of a fixed size, no call.
 */
static inline void outbuf_write_within(struct outbuf *b, const char *s, size_t n, size_t avail)
{
	if (n <= OUTBUF_PAD && avail >= OUTBUF_PAD) {
		memcpy(outbuf_reserve(b, OUTBUF_PAD), s, OUTBUF_PAD);
		b->len += n;
	} else {
		outbuf_write(b, s, n);
	}
}

static inline void outbuf_puts(struct outbuf *b, const char *s)
{
	outbuf_write(b, s, strlen(s));
}

static inline void outbuf_putc(struct outbuf *b, char c)
{
	if (b->len == OUTBUF_SIZE)
		outbuf_flush(b);
	b->data[b->len++] = c;
}

/* `n` spaces (column padding). */
static inline void outbuf_spaces(struct outbuf *b, size_t n)
{
	static const char spaces[] = "                                ";

	while (n) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		outbuf_write(b, spaces, k);
		n -= k;
	}
}

/* "00" "01" ... "99": two decimal digits at a time. */
extern const char tmx_digit_pairs[201];
/* Decimal v at p (room for 20 bytes), no leading zeros; returns the end. */
char *tmx_put_u64(char *p, uint64_t v);
/* "%lld" at p (room for 21 bytes); returns the end. */
static inline char *tmx_put_i64(char *p, int64_t v)
{
	if (v >= 0)
		return tmx_put_u64(p, (uint64_t)v);
	*p++ = '-';
	return tmx_put_u64(p, 0 - (uint64_t)v);
}
/* The number of decimal digits of v (1 for 0). */
static inline unsigned tmx_u64_digits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* floor(log10(2^bits)) is bits * 1233 >> 12; one more when v reaches the next power */
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + (v >= pow10[t]) + (v == 0);
}
/*
 * v right-aligned in `width` columns at p (room for max(width, 20)
 * bytes, and 16 more), padded with `pad`; returns the end.
 */
static inline char *tmx_put_u64_padded(char *p, uint64_t v, unsigned width, char pad)
{
	unsigned n = tmx_u64_digits(v);

	if (n < width) {
		/* a fixed-size store, then the digits over what is not padding */
		memset(p, pad, 16);
		if (width > 16)
			memset(p + 16, pad, width - 16);
		p += width - n;
	}
	return tmx_put_u64(p, v);
}
/* v < 10^8 as exactly eight digits at p, leading zeros included. */
void tmx_put_8digits(char *p, uint32_t v);
/* v < 10^9 as exactly nine digits at p (nanoseconds); returns the end. */
static inline char *tmx_put_9digits(char *p, uint32_t v)
{
	*p = (char)('0' + v / 100000000);
	tmx_put_8digits(p + 1, v % 100000000);
	return p + 9;
}
/* "S.nnnnnnnnn" at p (room for 30 bytes): seconds, then nsec < 10^9; returns the end. */
char *tmx_put_sec_ns(char *p, uint64_t sec, uint32_t nsec);
/*
 * What printf("%g", d) writes (6 significant digits, trailing zeros
 * removed, an exponent below 1e-4 and from 1e6), at p (room for 32
 * bytes); returns the length.
 */
size_t tmx_format_g(char *p, double d);
/* Decimal, zero-padded to at least `width` digits. */
void outbuf_u64(struct outbuf *b, uint64_t v, int width);
/* "S.nnnnnnnnn": whole seconds, then nanoseconds (nsec < 10^9) as nine digits. */
void outbuf_sec_ns(struct outbuf *b, uint64_t sec, uint32_t nsec);
void outbuf_i64(struct outbuf *b, int64_t v);
/* Upper-case hexadecimal digits of v at p (room for 16 bytes), no prefix; returns the end. */
char *tmx_put_hex(char *p, uint64_t v);
/* Upper-case hexadecimal digits, no prefix. */
void outbuf_hex(struct outbuf *b, uint64_t v);
/*
 * Lower-case hexadecimal digits of bytes[0, n), two a byte, no separator:
 * a BLOB as the JSON outputs' string and trace-cmd's __print_hex write it.
 */
void outbuf_hex_bytes(struct outbuf *b, const void *bytes, size_t n);
void outbuf_oct(struct outbuf *b, uint64_t v);
/* The low `bits` bits of `v` (1 to 64), leading zeros included. */
void outbuf_bin(struct outbuf *b, uint64_t v, unsigned bits);

/*
 * Escaping by table: `esc[c]` is the text that byte c becomes, or NULL when
 * the byte is copied as is.  Each output defines its own table (C-style
 * escapes for the text output, u00XX-style ones for JSON...).
 */
typedef const char *const outbuf_escapes[256];

void outbuf_escaped(struct outbuf *b, const char *s, size_t len, outbuf_escapes esc);

#endif
