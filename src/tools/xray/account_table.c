/*
 * xray-account's output: llvm-xray's table (or csv).
 *
 * The functions come in the order of llvm's DenseMap<int32_t, ...>
 * (src/xray/densemap.c), then llvm::sort, i.e. libstdc++'s std::sort
 * (introsort + final insertion sort, not stable), which we reproduce step
 * for step (src/xray/stdsort.c): with ties (same count, same min...) the
 * order is llvm-xray's.  Numbers: latencies in cycles, divided by the
 * header's cycle frequency (seconds) when it is not 0; median = element
 * n/2, 90p = element floor(n*0.9), 99p = element floor(n*0.99) of the
 * sorted latencies; sum accumulated in a double in record order.  Text
 * uses "%9.6f" for the figures, CSV "%.6e" (llvm's raw_ostream << double).
 * -sort=func: llvm-xray 14 reaches llvm_unreachable there (undefined
 * behaviour; its binary prints the DenseMap order unsorted); we sort by
 * name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "sink/outbuf.h"
#include "tools/xray/account_impl.h"
#include "xray/densemap.h"
#include "xray/stdsort.h"

struct row {
	int32_t id;
	uint64_t count;
	double min, median, pct90, pct99, max, sum;
	const struct func *f;
};

static void stats_of(const struct func *f, double freq, struct row *r)
{
	r->id = f->id;
	r->count = f->n;
	r->f = f;
	r->sum = f->sum;
	r->min = (double)f->min;
	r->max = (double)f->max;
	r->median = (double)f->q[Q_MED];
	r->pct90 = (double)f->q[Q_90];
	r->pct99 = (double)f->q[Q_99];
	if (freq != 0) {
		r->min /= freq;
		r->median /= freq;
		r->pct90 /= freq;
		r->pct99 /= freq;
		r->max /= freq;
		r->sum /= freq;
	}
}

/* The functions inserted in `order` (llvm's DenseMap<int32_t, T> of them) in iteration order. */
static bool densemap_order(const struct func *funcs, const uint32_t *order, size_t n,
			   uint32_t *out)
{
	uint32_t *keys = calloc(n ? n : 1, sizeof(*keys));
	bool ok;

	if (!keys)
		return false;
	for (size_t i = 0; i < n; i++)
		keys[i] = (uint32_t)funcs[order[i]].id;
	ok = xr_densemap32_order(keys, n, out);
	for (size_t i = 0; ok && i < n; i++)
		out[i] = order[out[i]];
	free(keys);
	return ok;
}

/* ------------------------------------------------------------------ */
/* llvm-xray's comparators                                              */
/* ------------------------------------------------------------------ */

struct sorter {
	enum tmx_xacct_sort field;
	bool desc;
	const struct row *rows;
};

static double key_of(const struct row *r, enum tmx_xacct_sort f)
{
	switch (f) {
	case TMX_XACCT_SORT_MIN: return r->min;
	case TMX_XACCT_SORT_MED: return r->median;
	case TMX_XACCT_SORT_PCT90: return r->pct90;
	case TMX_XACCT_SORT_PCT99: return r->pct99;
	case TMX_XACCT_SORT_MAX: return r->max;
	case TMX_XACCT_SORT_SUM: return r->sum;
	default: return 0;
	}
}

/* llvm-xray's comp(l, r) on rows l and r (an xr_less_fn): l goes before r. */
static bool before(const void *ctx, uint32_t li, uint32_t ri)
{
	const struct sorter *s = ctx;
	const struct row *l = &s->rows[li], *r = &s->rows[ri];
	int c;

	switch (s->field) {
	case TMX_XACCT_SORT_FUNCID:
		return s->desc ? l->id > r->id : l->id < r->id;
	case TMX_XACCT_SORT_COUNT:
		return s->desc ? l->count > r->count : l->count < r->count;
	case TMX_XACCT_SORT_FUNC:
		c = strcmp(l->f->name ? l->f->name : "", r->f->name ? r->f->name : "");
		return s->desc ? c > 0 : c < 0;
	default: {
		double a = key_of(l, s->field), b = key_of(r, s->field);
		return s->desc ? a > b : a < b;
	}
	}
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

/* llvm::write_double: printf into a 32-byte buffer, "INF"/"nan" spelled its way. */
static void put_double(struct outbuf *b, const char *spec, int width, double v)
{
	char buf[32], out[64];

	if (isnan(v))
		snprintf(buf, sizeof(buf), "nan");
	else if (isinf(v))
		snprintf(buf, sizeof(buf), "%s", signbit(v) ? "-INF" : "INF");
	else
		snprintf(buf, sizeof(buf), spec, v);
	snprintf(out, sizeof(out), "%*s", width, buf);
	outbuf_puts(b, out);
}

static void put_csv_string(struct outbuf *b, const char *s)
{
	outbuf_putc(b, '"');
	outbuf_puts(b, s);
	outbuf_putc(b, '"');
}

/* One function's csv line: id, count, the six figures, debug info and name. */
static void put_csv_row(struct outbuf *b, const struct row *r, const char *dbg, const char *name)
{
	double v[6] = { r->min, r->median, r->pct90, r->pct99, r->max, r->sum };

	outbuf_i64(b, r->id);
	outbuf_putc(b, ',');
	outbuf_u64(b, r->count, 0);
	for (int k = 0; k < 6; k++) {
		outbuf_putc(b, ',');
		put_double(b, "%.6e", 0, v[k]);
	}
	outbuf_putc(b, ',');
	put_csv_string(b, dbg);
	outbuf_putc(b, ',');
	put_csv_string(b, name);
	outbuf_putc(b, '\n');
}

/* One function's table line: "id count [min, med, 90p, 99p, max] sum  debug: name". */
static void put_text_row(struct outbuf *b, const struct row *r, const char *dbg, const char *name)
{
	double v[6] = { r->min, r->median, r->pct90, r->pct99, r->max, r->sum };
	char line[64];

	snprintf(line, sizeof(line), "%9d %10llu [", r->id, (unsigned long long)r->count);
	outbuf_puts(b, line);
	for (int k = 0; k < 5; k++) {
		if (k)
			outbuf_puts(b, ", ");
		put_double(b, "%.6f", 9, v[k]);
	}
	outbuf_puts(b, "] ");
	put_double(b, "%.6f", 9, v[5]);
	outbuf_puts(b, "  ");
	outbuf_puts(b, dbg);
	outbuf_puts(b, ": ");
	outbuf_puts(b, name);
	outbuf_putc(b, '\n');
}

static void put_head(struct outbuf *b, bool csv, size_t n)
{
	char line[128];

	if (csv) {
		outbuf_puts(b, "funcid,count,min,median,90%ile,99%ile,max,sum,debug,function\n");
		return;
	}
	outbuf_puts(b, "Functions with latencies: ");
	outbuf_u64(b, n, 0);
	snprintf(line, sizeof(line), "\n%9s %10s [%9s, %9s, %9s, %9s, %9s] %9s  %-12s\n", "funcid",
		 "count", "min", "med", "90p", "99p", "max", "sum", "function");
	outbuf_puts(b, line);
}

int tmx_xacct_write(struct tmx_xacct *a, int fd, bool symbolized,
		    const char *(*debug_info)(void *user, int32_t func_id), void *user,
		    struct tmx_error *err)
{
	size_t n = a->n_lat_order, shown;
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	struct row *rows = malloc((n ? n : 1) * sizeof(*rows));
	struct outbuf *b = malloc(sizeof(*b));
	struct sorter sorter = { a->opts.sort, a->opts.descending, rows };
	int e;

	if (!order || !rows || !b || !densemap_order(a->funcs, a->lat_order, n, order)) {
		free(order);
		free(rows);
		free(b);
		return xacct_nomem(err);
	}
	/* The rows in DenseMap order, then sorted (as indexes: `order` is free again). */
	for (size_t i = 0; i < n; i++) {
		stats_of(&a->funcs[order[i]], a->freq, &rows[i]);
		order[i] = (uint32_t)i;
	}
	xr_std_sort(order, n, before, &sorter);
	shown = a->opts.top > 0 && (size_t)a->opts.top < n ? (size_t)a->opts.top : n;

	outbuf_init(b, fd);
	put_head(b, a->opts.csv, n);
	for (size_t i = 0; i < shown; i++) {
		const struct row *r = &rows[order[i]];
		const char *dbg = debug_info ? debug_info(user, r->id) : NULL;
		const char *name = r->f->name;
		char num[32];

		if (!symbolized || !name) {
			snprintf(num, sizeof(num), "#%d", r->id);
			name = num;
		}
		if (!dbg)
			dbg = "(unknown)";
		if (a->opts.csv)
			put_csv_row(b, r, dbg, name);
		else
			put_text_row(b, r, dbg, name);
	}
	e = outbuf_flush(b);
	free(order);
	free(rows);
	free(b);
	if (e)
		return tmx_error_set(err, TMX_ERR_IO, NULL, "cannot write the output: %s", strerror(e));
	return TMX_OK;
}
