/*
 * The output pieces of lttng-analyses that every command shares: its
 * time stamps (format_utils.format_timestamp), termgraph's bar graphs,
 * and the JSON values Python's json.dumps writes (floats as repr()).
 * Tables are small: stdio is enough here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/analyze/an_impl.h"

#define NSEC_PER_SEC 1000000000LL

void an_fmt_timestamp(FILE *out, int64_t ns, bool date, bool gmt)
{
	/* Python's // and %: floor division. */
	int64_t sec = ns / NSEC_PER_SEC, nsec = ns % NSEC_PER_SEC;
	struct tm tm;
	time_t t;

	if (nsec < 0) {
		nsec += NSEC_PER_SEC;
		sec--;
	}
	t = (time_t)sec;
	if (gmt)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	if (date)
		fprintf(out, "%04d-%02d-%02d ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
	fprintf(out, "%02d:%02d:%02d.%09lld", tm.tm_hour, tm.tm_min, tm.tm_sec, (long long)nsec);
}

/*
 * repr(float): the shortest digits that read back as `v`, in positional
 * notation when the decimal point falls within -4 < decpt <= 16, else
 * d.ddde±XX (Python's float_repr_style 'short').
 */
void an_json_double(FILE *out, double v)
{
	char buf[48];

	an_repr_double(buf, sizeof(buf), v);
	fputs(buf, out);
}

void an_repr_double(char *res, size_t res_size, double v)
{
	char buf[40], digits[24];
	FILE *out = fmemopen(res, res_size, "w");
	int nd = 0, exp10, decpt;

	if (!out) {
		snprintf(res, res_size, "?");
		return;
	}
	if (v == 0) {
		fputs(signbit(v) ? "-0.0" : "0.0", out);
		fclose(out);
		return;
	}
	if (isnan(v)) {
		fputs("NaN", out);
		fclose(out);
		return;
	}
	if (isinf(v)) {
		fputs(v < 0 ? "-Infinity" : "Infinity", out);
		fclose(out);
		return;
	}
	if (v < 0) {
		fputc('-', out);
		v = -v;
	}
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, sizeof(buf), "%.*e", p - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* buf: d[.ddd]e±XX */
	for (const char *c = buf; *c && *c != 'e'; c++)
		if (*c >= '0' && *c <= '9')
			digits[nd++] = *c;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = 0;
	exp10 = atoi(strchr(buf, 'e') + 1);
	decpt = exp10 + 1;
	if (decpt > -4 && decpt <= 16) {
		if (decpt <= 0) {
			fputs("0.", out);
			for (int i = 0; i < -decpt; i++)
				fputc('0', out);
			fputs(digits, out);
		} else if (decpt >= nd) {
			fputs(digits, out);
			for (int i = nd; i < decpt; i++)
				fputc('0', out);
			fputs(".0", out);
		} else {
			fwrite(digits, 1, (size_t)decpt, out);
			fputc('.', out);
			fputs(digits + decpt, out);
		}
		fclose(out);
		return;
	}
	fputc(digits[0], out);
	if (nd > 1) {
		fputc('.', out);
		fputs(digits + 1, out);
	}
	fprintf(out, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
	fclose(out);
}

/* json.dumps with ensure_ascii: non-ASCII as \uXXXX (surrogate pairs above the BMP). */
void an_json_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	fputc('"', out);
	while (p < end) {
		unsigned c = *p++;
		if (c >= 0x80) {
			unsigned cp = 0xFFFD;
			int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
			if (more > 0 && end - p >= more) {
				cp = c & (0x3F >> more);
				for (int i = 0; i < more; i++)
					cp = (cp << 6) | (p[i] & 0x3F);
				p += more;
			}
			if (cp >= 0x10000) {
				cp -= 0x10000;
				fprintf(out, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
			} else {
				fprintf(out, "\\u%04x", cp);
			}
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (c < 0x20)
				fprintf(out, "\\u%04x", c);
			else
				fputc((int)c, out);
		}
	}
	fputc('"', out);
}

size_t an_utf8_len(const char *s, size_t n)
{
	size_t cont = 0, i = 0, k = 0;
	uint64_t high = 0;

	/* ASCII (the usual cell: the logs pad every one) is its length */
	for (; k + 8 <= n; k += 8) {
		uint64_t w;
		memcpy(&w, s + k, 8);
		high |= w;
	}
	for (; k < n; k++)
		high |= (unsigned char)s[k];
	if (!(high & 0x8080808080808080ull))
		return n;
	/*
	 * n less the continuation bytes (10xxxxxx), eight at a time (bit 6
	 * shifted under bit 7 of the same byte).
	 */
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		cont += (size_t)__builtin_popcountll(w & ~(w << 1) & 0x8080808080808080ull);
	}
	for (; i < n; i++)
		cont += ((unsigned char)s[i] & 0xC0) == 0x80;
	return n - cont;
}

static void repeat(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputs(s, out);
}

#define GRAPH_WIDTH 80
#define BAR_CHAR "\xe2\x96\x88"   /* U+2588 FULL BLOCK */

/*
 * termgraph.BarGraph.print_graph: nothing without rows; the title (and
 * the label header after the value column), 80 '#', one bar per row
 * (its width int(80 * value / max)), the value right-aligned, the label,
 * then an empty line.
 */
void an_bar_graph(FILE *out, const char *title, const char *label_header, const char *unit,
		  struct an_bar *rows, size_t n)
{
	double max = 0;
	size_t max_len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t l;
		if (unit) {
			l = strlen(rows[i].value_str);
			snprintf(rows[i].value_str + l, sizeof(rows[i].value_str) - l, " %s", unit);
		}
		if (rows[i].value > max)
			max = rows[i].value;
		l = an_utf8_len(rows[i].value_str, strlen(rows[i].value_str));
		if (l > max_len)
			max_len = l;
	}
	fputs(title, out);
	if (label_header) {
		repeat(out, " ", GRAPH_WIDTH - strlen(title) + 1 + max_len + 1);
		fputs(label_header, out);
	}
	fputc('\n', out);
	repeat(out, "#", GRAPH_WIDTH);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		size_t w = max == 0 ? 0 : (size_t)(GRAPH_WIDTH * rows[i].value / max);
		repeat(out, BAR_CHAR, w);
		repeat(out, " ", GRAPH_WIDTH - w);
		fputc(' ', out);
		repeat(out, " ", max_len - an_utf8_len(rows[i].value_str, strlen(rows[i].value_str)));
		fputs(rows[i].value_str, out);
		fputc(' ', out);
		fputs(rows[i].label ? rows[i].label : "", out);
		fputc('\n', out);
	}
	fputc('\n', out);
}

void an_prios_print(FILE *out, const struct an_prios *p)
{
	fputc('[', out);
	for (size_t i = 0; i < p->n; i++) {
		if (i)
			fputs(", ", out);
		fprintf(out, "%lld", (long long)p->v[i].prio);
		if (p->v[i].count > 1)
			fprintf(out, " (%llu times)", (unsigned long long)p->v[i].count);
	}
	fputc(']', out);
}

size_t an_fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0, k = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		buf[k++] = tmp[--n];
	return k;
}
