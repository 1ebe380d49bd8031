/*
 * `llvm-xray convert --output-format=yaml`, byte for byte.
 *
 * llvm-xray 14 writes its records with llvm::yaml::Output (column wrapping
 * off, default values not written):
 *
 *   ---
 *   header:
 *     version:         5
 *     ...
 *   records:
 *     - { type: 0, func-id: 9, function: '9', args: [ 1, 2 ], cpu: 0, thread: 1,
 *         process: 1, kind: function-enter, tsc: 123, data: '' }      (one line)
 *   ...
 *
 * `args` only when there are some, `thread` and `process` only when not 0;
 * `records:         []` when there is no record.  Strings (function, data)
 * are quoted as yaml::needsQuotes decides, double-quoted ones escaped as
 * yaml::escape does -- including its quirk of ending the string with
 * U+FFFD at the first invalid UTF-8 sequence.  The records come in the
 * reader's order (llvm-xray's, see src/xray/xray.h); the reader's
 * wall-time events are not llvm-xray records and are skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "sink/outbuf.h"
#include "sink/xray/yaml.h"
#include "model/xray_map.h"
#include "source/source.h"

/* Cached ", cpu: C, thread: T, process: P" texts (put_record_fast). */
#define YAML_CTX_SLOTS 64
struct yaml_ctx_slot {
	uint64_t cpu, tid, pid;
	uint8_t len;              /* 0: empty */
	char text[64];            /* at most 53 bytes: cpu 16 bits, thread and process 32 */
};

struct tmx_xray_yaml {
	const struct tmx_source *src;
	const struct tmx_trace *trace;   /* the trace being written */
	bool started;
	bool failed;                     /* a consume error: finish adds nothing */
	uint64_t n_records;
	uint64_t tsc_hi;                 /* the digits of the last TSC above its last eight */
	uint8_t tsc_hi_len;              /* 0: none yet */
	char tsc_hi_text[24];
	struct yaml_ctx_slot ctx_cache[YAML_CTX_SLOTS];
	struct outbuf out;
};

/* ------------------------------------------------------------------ */
/* Scalars                                                              */
/* ------------------------------------------------------------------ */

enum quoting { Q_NONE, Q_SINGLE, Q_DOUBLE };

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static size_t skip_digits(const char *s, size_t i, size_t n)
{
	while (i < n && is_digit(s[i]))
		i++;
	return i;
}

#define eq(s, n, lit) ((n) == sizeof(lit) - 1 && !memcmp((s), (lit), (n)))

/* yaml::isNumeric (LLVM 14). */
static bool is_numeric(const char *s, size_t n)
{
	const char *t;
	size_t tn, i;

	if (n == 0 || eq(s, n, "+") || eq(s, n, "-"))
		return false;
	if (eq(s, n, ".nan") || eq(s, n, ".NaN") || eq(s, n, ".NAN"))
		return true;
	t = s, tn = n;
	if (s[0] == '-' || s[0] == '+')
		t++, tn--;
	if (eq(t, tn, ".inf") || eq(t, tn, ".Inf") || eq(t, tn, ".INF"))
		return true;
	if (n >= 2 && s[0] == '0' && s[1] == 'o') {
		if (n == 2)
			return false;
		for (i = 2; i < n; i++)
			if (s[i] < '0' || s[i] > '7')
				return false;
		return true;
	}
	if (n >= 2 && s[0] == '0' && s[1] == 'x') {
		if (n == 2)
			return false;
		for (i = 2; i < n; i++)
			if (!is_digit(s[i]) && !(s[i] >= 'a' && s[i] <= 'f') &&
			    !(s[i] >= 'A' && s[i] <= 'F'))
				return false;
		return true;
	}
	s = t, n = tn;
	if (n && s[0] == '.' && (n == 1 || !is_digit(s[1])))
		return false;
	if (n && (s[0] == 'E' || s[0] == 'e'))
		return false;
	i = skip_digits(s, 0, n);
	if (i == n)
		return true;
	if (s[i] == '.') {
		i = skip_digits(s, i + 1, n);
		if (i == n)
			return true;
		if (s[i] != 'e' && s[i] != 'E')
			return false;
	} else if (s[i] != 'e' && s[i] != 'E') {
		return false;
	}
	i++;
	if (i == n)
		return false;
	if (s[i] == '+' || s[i] == '-')
		if (++i == n)
			return false;
	return skip_digits(s, i, n) == n;
}

static bool is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_alnum(unsigned char c)
{
	return is_digit((char)c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* yaml::needsQuotes as LLVM 14 has it (control bytes, DEL, non-ASCII: double). */
static enum quoting needs_quotes(const char *s, size_t n)
{
	static const char indicators[] = "-?:\\,[]{}#&*!|>'\"%@`";
	enum quoting q = Q_NONE;

	if (n == 0)
		return Q_SINGLE;
	if (is_space((unsigned char)s[0]) || is_space((unsigned char)s[n - 1]))
		q = Q_SINGLE;
	if (n <= 5 && (eq(s, n, "null") || eq(s, n, "Null") || eq(s, n, "NULL") ||
		       eq(s, n, "~") || eq(s, n, "true") || eq(s, n, "True") ||
		       eq(s, n, "TRUE") || eq(s, n, "false") || eq(s, n, "False") ||
		       eq(s, n, "FALSE")))
		q = Q_SINGLE;
	/* Numbers start with a digit, a sign or a dot. */
	if ((is_digit(s[0]) || s[0] == '.' || s[0] == '+' || s[0] == '-') && is_numeric(s, n))
		q = Q_SINGLE;
	if (memchr(indicators, s[0], sizeof(indicators) - 1))
		q = Q_SINGLE;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (is_alnum(c))
			continue;
		switch (c) {
		case '_': case '-': case '^': case '.': case ',': case ' ': case '\t':
			continue;
		case 0x7f:
			return Q_DOUBLE;
		default:
			if (c <= 0x1f || (c & 0x80))
				return Q_DOUBLE;
			q = Q_SINGLE;
		}
	}
	return q;
}

/* llvm's decodeUTF8 (YAMLParser.cpp): (code point, length), length 0 if invalid. */
static size_t decode_utf8(const unsigned char *p, size_t n, uint32_t *cp)
{
	if (n >= 1 && !(p[0] & 0x80)) {
		*cp = p[0];
		return 1;
	}
	if (n >= 2 && (p[0] & 0xe0) == 0xc0 && (p[1] & 0xc0) == 0x80) {
		*cp = (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
		if (*cp >= 0x80)
			return 2;
	}
	if (n >= 3 && (p[0] & 0xf0) == 0xe0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80) {
		*cp = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
		if (*cp >= 0x800 && (*cp < 0xd800 || *cp > 0xdfff))
			return 3;
	}
	if (n >= 4 && (p[0] & 0xf8) == 0xf0 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80 &&
	    (p[3] & 0xc0) == 0x80) {
		*cp = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
		      (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
		if (*cp >= 0x10000 && *cp <= 0x10ffff)
			return 4;
	}
	return 0;
}

#include "sink/xray/llvm_printable.h"
#include "common/errors.h"

/*
 * sys::unicode::isPrintable of LLVM 14: not printable are the ranges of
 * its table (unassigned code points of its Unicode version, controls,
 * format characters...), generated from libLLVM-14 itself.
 */
static bool is_printable(uint32_t cp)
{
	size_t lo = 0, hi = sizeof(llvm_nonprintable) / sizeof(llvm_nonprintable[0]);

	if (cp > 0x10ffff)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp < llvm_nonprintable[mid].lo)
			hi = mid;
		else if (cp > llvm_nonprintable[mid].hi)
			lo = mid + 1;
		else
			return false;
	}
	return true;
}

static void put_hex_escape(struct outbuf *b, uint32_t v)
{
	static const char hex[] = "0123456789ABCDEF";
	char tmp[8];
	int n = 0, width;

	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	if (n <= 2) {
		outbuf_puts(b, "\\x");
		width = 2;
	} else if (n <= 4) {
		outbuf_puts(b, "\\u");
		width = 4;
	} else {
		outbuf_puts(b, "\\U");
		width = 8;
	}
	for (int i = n; i < width; i++)
		outbuf_putc(b, '0');
	while (n)
		outbuf_putc(b, tmp[--n]);
}

/* yaml::escape(S, EscapePrintable = false). */
static void put_escaped(struct outbuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		unsigned char c = p[i];
		const char *e = NULL;
		switch (c) {
		case '\\': e = "\\\\"; break;
		case '"': e = "\\\""; break;
		case 0: e = "\\0"; break;
		case 7: e = "\\a"; break;
		case 8: e = "\\b"; break;
		case 9: e = "\\t"; break;
		case 10: e = "\\n"; break;
		case 11: e = "\\v"; break;
		case 12: e = "\\f"; break;
		case 13: e = "\\r"; break;
		case 0x1b: e = "\\e"; break;
		default: break;
		}
		if (!e && c >= 0x20 && c < 0x80) {
			i++;
			run++;
			continue;
		}
		outbuf_write(b, s + i - run, run);
		run = 0;
		if (e) {
			outbuf_puts(b, e);
			i++;
		} else if (c < 0x20) {
			put_hex_escape(b, c);
			i++;
		} else {
			uint32_t cp;
			size_t len = decode_utf8(p + i, n - i, &cp);
			if (len == 0) {
				/* llvm writes U+FFFD and stops there. */
				outbuf_write(b, "\xef\xbf\xbd", 3);
				return;
			}
			if (cp == 0x85)
				outbuf_puts(b, "\\N");
			else if (cp == 0xa0)
				outbuf_puts(b, "\\_");
			else if (cp == 0x2028)
				outbuf_puts(b, "\\L");
			else if (cp == 0x2029)
				outbuf_puts(b, "\\P");
			else if (is_printable(cp))
				outbuf_write(b, s + i, len);
			else
				put_hex_escape(b, cp);
			i += len;
		}
	}
	outbuf_write(b, s + i - run, run);
}

/* Output::scalarString. */
static void put_scalar(struct outbuf *b, const char *s, size_t n)
{
	enum quoting q;

	if (n == 0) {
		outbuf_write(b, "''", 2);
		return;
	}
	/* Function ids as text: digits, always single-quoted (numbers). */
	if (n <= 10 && is_digit(s[0])) {
		size_t i = skip_digits(s, 0, n);
		if (i == n) {
			outbuf_putc(b, '\'');
			outbuf_write(b, s, n);
			outbuf_putc(b, '\'');
			return;
		}
	}
	q = needs_quotes(s, n);
	if (q == Q_NONE) {
		outbuf_write(b, s, n);
	} else if (q == Q_DOUBLE) {
		outbuf_putc(b, '"');
		put_escaped(b, s, n);
		outbuf_putc(b, '"');
	} else {
		const char *quote;
		outbuf_putc(b, '\'');
		while ((quote = memchr(s, '\'', n))) {
			size_t k = (size_t)(quote - s) + 1;
			outbuf_write(b, s, k);
			outbuf_putc(b, '\'');
			s += k;
			n -= k;
		}
		outbuf_write(b, s, n);
		outbuf_putc(b, '\'');
	}
}

size_t tmx_xray_yaml_scalar(const char *s, size_t len, char *out, size_t cap)
{
	struct outbuf *b = malloc(sizeof(*b));
	size_t n;

	if (!b)
		return 0;
	outbuf_init(b, -1);
	put_scalar(b, s, len);
	n = b->len;
	memcpy(out, b->data, n < cap ? n : cap);
	free(b);
	return n;
}

/* ------------------------------------------------------------------ */
/* Document                                                             */
/* ------------------------------------------------------------------ */

struct tmx_xray_yaml *tmx_xray_yaml_new(int fd, const struct tmx_source *src)
{
	struct tmx_xray_yaml *y = malloc(sizeof(*y));

	if (y) {
		y->src = src;
		y->trace = NULL;
		y->started = false;
		y->failed = false;
		y->n_records = 0;
		y->tsc_hi_len = 0;
		memset(y->ctx_cache, 0, sizeof(y->ctx_cache));
		outbuf_init(&y->out, fd);
	}
	return y;
}

static void put_header_line(struct outbuf *b, const char *key, const char *text, uint64_t v)
{
	outbuf_puts(b, key);
	if (text)
		outbuf_puts(b, text);
	else
		outbuf_u64(b, v, 0);
	outbuf_putc(b, '\n');
}

static void put_header(struct outbuf *b, const struct tmx_xray_header *h)
{
	outbuf_puts(b, "---\nheader:\n");
	put_header_line(b, "  version:         ", NULL, h->version);
	put_header_line(b, "  type:            ", NULL, h->type);
	put_header_line(b, "  constant-tsc:    ", h->constant_tsc ? "true" : "false", 0);
	put_header_line(b, "  nonstop-tsc:     ", h->nonstop_tsc ? "true" : "false", 0);
	put_header_line(b, "  cycle-frequency: ", NULL, h->cycle_frequency);
}

static int64_t env_int(const struct tmx_trace_class *tc, const char *name)
{
	const struct tmx_env_entry *e = tmx_trace_class_env(tc, name);

	return e && e->is_int ? e->int_value : 0;
}

/* The header from the trace's environment (see src/xray/xray.h). */
static bool header_of_trace(const struct tmx_trace *t, struct tmx_xray_header *h)
{
	const struct tmx_env_entry *tracer = tmx_trace_class_env(t->cls, "tracer_name");

	if (!tracer || !tracer->str_value || strcmp(tracer->str_value, "llvm-xray"))
		return false;
	h->version = (uint16_t)env_int(t->cls, "xray_version");
	h->type = (uint16_t)env_int(t->cls, "xray_type");
	h->constant_tsc = env_int(t->cls, "constant_tsc") != 0;
	h->nonstop_tsc = env_int(t->cls, "nonstop_tsc") != 0;
	h->cycle_frequency = (uint64_t)env_int(t->cls, "cycle_frequency");
	h->buffer_size = (uint64_t)env_int(t->cls, "buffer_size");
	return true;
}

static int start(struct tmx_xray_yaml *y, const struct tmx_trace *t, struct tmx_error *err)
{
	struct tmx_xray_header h;
	const struct tmx_xray_header *hp = NULL;

	if (y->src && tmx_source_logical_trace_count(y->src) > 1)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "-o xray-yaml writes one XRay log: give one input");
	if (t) {
		if (!header_of_trace(t, &h))
			return tmx_error_set(err, TMX_ERR_USAGE, NULL,
					     "-o xray-yaml needs an LLVM XRay log as input");
		hp = &h;
	} else if (y->src) {
		hp = tmx_xray_source_header(y->src);
	}
	if (!hp)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "-o xray-yaml needs an LLVM XRay log as input");
	put_header(&y->out, hp);
	y->trace = t;
	y->started = true;
	return TMX_OK;
}

/* llvm-xray's `kind` of each record class (ids TMX_XRAY_EV_*), with its length. */
static const struct { const char *s; size_t n; } kinds[] = {
#define K(x) { x, sizeof(x) - 1 }
	K("function-enter"), K("function-exit"), K("function-tail-exit"),
	K("function-enter-arg"), K("custom-event"), K("typed-event"),
#undef K
};

static void put_record(struct outbuf *b, const struct tmx_event *e)
{
	const struct tmx_value *ctx = e->scopes[TMX_SCOPE_COMMON_CONTEXT];
	const struct tmx_value *p = e->scopes[TMX_SCOPE_PAYLOAD];
	uint64_t n_args = p[TMX_XRAY_P_ARGS].count;

	outbuf_puts(b, "  - { type: ");
	outbuf_u64(b, p[TMX_XRAY_P_RECORD_TYPE].u, 0);
	outbuf_puts(b, ", func-id: ");
	outbuf_i64(b, p[TMX_XRAY_P_FUNC_ID].s);
	outbuf_puts(b, ", function: ");
	put_scalar(b, p[TMX_XRAY_P_FUNCTION].str.ptr, p[TMX_XRAY_P_FUNCTION].str.len);
	if (n_args) {
		outbuf_puts(b, ", args: [ ");
		for (uint64_t i = 0; i < n_args; i++) {
			if (i)
				outbuf_puts(b, ", ");
			outbuf_u64(b, p[TMX_XRAY_P_ARGS + 1 + i].u, 0);
		}
		outbuf_puts(b, " ]");
	}
	outbuf_puts(b, ", cpu: ");
	outbuf_u64(b, ctx[TMX_XRAY_CTX_CPU].u, 0);
	if (ctx[TMX_XRAY_CTX_TID].u) {
		outbuf_puts(b, ", thread: ");
		outbuf_u64(b, ctx[TMX_XRAY_CTX_TID].u, 0);
	}
	if (ctx[TMX_XRAY_CTX_PID].u) {
		outbuf_puts(b, ", process: ");
		outbuf_u64(b, ctx[TMX_XRAY_CTX_PID].u, 0);
	}
	outbuf_puts(b, ", kind: ");
	outbuf_write(b, kinds[e->cls->id].s, kinds[e->cls->id].n);
	outbuf_puts(b, ", tsc: ");
}

#define PUT_LIT(q, lit) (memcpy((q), (lit), sizeof(lit) - 1), (q) += sizeof(lit) - 1)

/*
 * ", cpu: C, thread: T, process: P" of a (cpu, tid, pid): made once per
 * thread seen, the integers being most of a record's formatting.
 */
static const char *ctx_text(struct tmx_xray_yaml *y, uint64_t cpu, uint64_t tid, uint64_t pid,
			    size_t *len)
{
	struct yaml_ctx_slot *c = &y->ctx_cache[(tid ^ cpu << 7) % YAML_CTX_SLOTS];
	char *q;

	if (c->len && c->cpu == cpu && c->tid == tid && c->pid == pid) {
		*len = c->len;
		return c->text;
	}
	q = c->text;
	PUT_LIT(q, ", cpu: ");
	q = tmx_put_u64(q, cpu);
	if (tid) {
		PUT_LIT(q, ", thread: ");
		q = tmx_put_u64(q, tid);
	}
	if (pid) {
		PUT_LIT(q, ", process: ");
		q = tmx_put_u64(q, pid);
	}
	c->cpu = cpu, c->tid = tid, c->pid = pid;
	*len = c->len = (uint8_t)(q - c->text);
	return c->text;
}

/*
 * A TSC in decimal: consecutive records share the digits above the last
 * eight, kept from the previous one.
 */
static char *put_tsc(struct tmx_xray_yaml *y, char *q, uint64_t tsc)
{
	uint64_t hi = tsc / 100000000;

	if (!hi)
		return tmx_put_u64(q, tsc);
	if (hi != y->tsc_hi || !y->tsc_hi_len) {
		y->tsc_hi = hi;
		y->tsc_hi_len = (uint8_t)(tmx_put_u64(y->tsc_hi_text, hi) - y->tsc_hi_text);
	}
	memcpy(q, y->tsc_hi_text, sizeof(y->tsc_hi_text));
	q += y->tsc_hi_len;
	tmx_put_8digits(q, (uint32_t)(tsc % 100000000));
	return q + 8;
}

/*
 * The common record -- no arguments, no payload, a function text that is
 * plain or digits -- written in one go; false for anything else.
 */
static bool put_record_fast(struct tmx_xray_yaml *y, const struct tmx_event *e, uint64_t tsc)
{
	struct outbuf *b = &y->out;
	const struct tmx_value *ctx = e->scopes[TMX_SCOPE_COMMON_CONTEXT];
	const struct tmx_value *p = e->scopes[TMX_SCOPE_PAYLOAD];
	const char *fn = p[TMX_XRAY_P_FUNCTION].str.ptr, *ct;
	size_t fn_len = p[TMX_XRAY_P_FUNCTION].str.len, i, ct_len;
	int64_t id = p[TMX_XRAY_P_FUNC_ID].s;
	uint64_t type = p[TMX_XRAY_P_RECORD_TYPE].u;
	bool digits;
	char *q;

	if (p[TMX_XRAY_P_ARGS].count || p[TMX_XRAY_P_DATA].str.len || fn_len == 0 || fn_len > 64 ||
	    ctx[TMX_XRAY_CTX_CPU].u > UINT16_MAX || ctx[TMX_XRAY_CTX_TID].u > UINT32_MAX ||
	    ctx[TMX_XRAY_CTX_PID].u > UINT32_MAX)
		return false;
	digits = is_digit(fn[0]);
	for (i = 0; i < fn_len && is_digit(fn[i]) == digits; i++)
		;
	if (i < fn_len || (!digits && needs_quotes(fn, fn_len) != Q_NONE))
		return false;
	if (OUTBUF_SIZE - b->len < 512)
		outbuf_flush(b);
	q = b->data + b->len;
	PUT_LIT(q, "  - { type: ");
	if (type < 10)
		*q++ = (char)('0' + type);
	else
		q = tmx_put_u64(q, type);
	PUT_LIT(q, ", func-id: ");
	if (id < 0) {
		*q++ = '-';
		q = tmx_put_u64(q, 0 - (uint64_t)id);
	} else {
		q = tmx_put_u64(q, (uint64_t)id);
	}
	PUT_LIT(q, ", function: ");
	if (digits)
		*q++ = '\'';
	memcpy(q, fn, fn_len);
	q += fn_len;
	if (digits)
		*q++ = '\'';
	ct = ctx_text(y, ctx[TMX_XRAY_CTX_CPU].u, ctx[TMX_XRAY_CTX_TID].u, ctx[TMX_XRAY_CTX_PID].u,
		      &ct_len);
	memcpy(q, ct, sizeof(y->ctx_cache[0].text));
	q += ct_len;
	PUT_LIT(q, ", kind: ");
	memcpy(q, kinds[e->cls->id].s, kinds[e->cls->id].n);
	q += kinds[e->cls->id].n;
	PUT_LIT(q, ", tsc: ");
	q = put_tsc(y, q, tsc);
	PUT_LIT(q, ", data: '' }\n");
	b->len = (size_t)(q - b->data);
	return true;
}

/* A record line: every XRay record class but the wall-time marks (ours). */
static bool is_record(const struct tmx_msg *msg)
{
	return msg->kind == TMX_MSG_EVENT && msg->event->cls->id <= TMX_XRAY_EV_TYPED;
}

static void put_any_record(struct tmx_xray_yaml *y, const struct tmx_msg *msg)
{
	const struct tmx_event *e = msg->event;
	const struct tmx_value *p = e->scopes[TMX_SCOPE_PAYLOAD];
	struct outbuf *b = &y->out;

	if (put_record_fast(y, e, msg->cycles))
		return;
	put_record(b, e);
	outbuf_u64(b, msg->cycles, 0);
	outbuf_puts(b, ", data: ");
	put_scalar(b, p[TMX_XRAY_P_DATA].str.ptr, p[TMX_XRAY_P_DATA].str.len);
	outbuf_puts(b, " }\n");
}

/* The header before the first message; every message of the same trace. */
static int check_msg(struct tmx_xray_yaml *y, const struct tmx_msg *msg, struct tmx_error *err)
{
	int ret;

	if (y->failed)
		return TMX_ERR_USAGE;
	if (!y->started) {
		if ((ret = start(y, msg->stream->trace, err))) {
			y->failed = true;
			return ret;
		}
	} else if (msg->stream->trace != y->trace) {
		y->failed = true;
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "-o xray-yaml writes one XRay log: give one input");
	}
	return TMX_OK;
}

int tmx_xray_yaml_consume(struct tmx_xray_yaml *y, const struct tmx_msg *msg,
			  struct tmx_error *err)
{
	int ret;

	if ((ret = check_msg(y, msg, err)))
		return ret;
	if (!is_record(msg))
		return TMX_OK;
	if (y->n_records++ == 0)
		outbuf_puts(&y->out, "records:\n");
	put_any_record(y, msg);
	return TMX_OK;
}

int tmx_xray_yaml_finish(struct tmx_xray_yaml *y, struct tmx_error *err)
{
	int ret;

	if (y->failed)
		return outbuf_flush(&y->out) ? TMX_ERR_IO : TMX_OK;
	if (!y->started && (ret = start(y, NULL, err)))
		return ret;
	if (y->n_records == 0)
		outbuf_puts(&y->out, "records:         []\n");
	outbuf_puts(&y->out, "...\n");
	if ((ret = outbuf_flush(&y->out)))
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write: %s", strerror(ret));
	return TMX_OK;
}

void tmx_xray_yaml_free(struct tmx_xray_yaml *y)
{
	free(y);
}
