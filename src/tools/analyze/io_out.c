/*
 * The I/O latency outputs of lttng-analyses 0.6.1 (cli/io.py), text and
 * MI: system call and disk latency statistics (--stats), the largest
 * latencies per kind of call (--top), their frequency distributions
 * (--freq) and the log of every request (--log); the order of each
 * command's outputs; the usage tables are io_usage.c's.  Requests are
 * listed as lttng-analyses lists them: task by task in the order the
 * period met the tasks, each task's in the order they ended, then sorted
 * stably (by duration, or by start).
 */
#define _GNU_SOURCE   /* pread, pwrite, fseeko */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/heap.h"
#include "tools/analyze/io_impl.h"

/* The kinds of system call requests of the tables */
enum { CAT_OPEN, CAT_READ, CAT_WRITE, CAT_SYNC, CAT_N };
static const char *const cat_name[CAT_N] = { "open", "read", "write", "sync" };
static const char *const cat_title[CAT_N] = { "Open", "Read", "Write", "Sync" };

/* IORequest.is_equivalent_operation(category, op) */
static bool in_cat(int cat, uint8_t op)
{
	switch (cat) {
	case CAT_OPEN: return op == OP_OPEN;
	case CAT_READ: return op == OP_READ || op == OP_READ_WRITE;
	case CAT_WRITE: return op == OP_WRITE || op == OP_READ_WRITE;
	default: return op == OP_SYNC;
	}
}

/* Reads back a file of requests: fn on each with its number (its order of recording). */
typedef void rec_fn(struct an_io *io, const struct io_rec *r, uint64_t seq, void *ctx);
static bool each_rec(struct an_io *io, FILE *f, rec_fn *fn, void *ctx)
{
	struct io_rec buf[256];
	uint64_t seq = 0;
	size_t n;

	if (!f)
		return true;
	if (fflush(f) || fseeko(f, 0, SEEK_SET))
		goto fail;
	while ((n = fread(buf, sizeof(buf[0]), sizeof(buf) / sizeof(buf[0]), f)) > 0)
		for (size_t k = 0; k < n; k++)
			fn(io, &buf[k], seq++, ctx);
	if (!ferror(f))
		return true;
fail:
	io->failed = true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Latency statistics                                                   */
/* ------------------------------------------------------------------ */


static double lat_avg(const struct an_agg *l)
{
	return l->count ? an_agg_avg(l) : 0;
}

static void stats_text_row(FILE *out, const char *name, const struct an_agg *l)
{
	char stdev[48];

	if (l->count < 2)
		snprintf(stdev, sizeof(stdev), "?");
	else
		snprintf(stdev, sizeof(stdev), "%0.03f", an_agg_stdev(l) / 1000);
	fprintf(out, "%-14s %14llu %14.3f %14.3f %14.3f %14s\n", name, (unsigned long long)l->count,
		(double)l->min / 1000, lat_avg(l) / 1000, (double)l->max / 1000, stdev);
}

static void stats_mi_row(FILE *f, const struct an_agg *l)
{
	fprintf(f, ", {\"class\": \"number\", \"value\": %llu}, ", (unsigned long long)l->count);
	an_mi_duration_ns(f, l->count ? l->min : 0);
	fputs(", ", f);
	if (l->count)
		an_mi_duration(f, lat_avg(l));
	else
		an_mi_duration_ns(f, 0);
	fputs(", ", f);
	an_mi_duration_ns(f, l->count ? l->max : 0);
	fputs(", ", f);
	an_mi_duration_or_unknown(f, an_agg_stdev(l));   /* unknown below 2 */
	fputc(']', f);
}

/* the filtered durations of the system calls of each category, of each disk's requests */
static void cat_lat(struct an_io *io, const struct io_rec *r, uint64_t seq, void *ctx)
{
	struct an_agg *l = ctx;

	(void)seq;
	if (!io_filter_rq(io, r))
		return;
	for (int c = 0; c < CAT_N; c++)
		if (in_cat(c, r->op))
			an_agg_add(&l[c], r->end - r->begin);
}

static void disk_lat(struct an_io *io, const struct io_rec *r, uint64_t seq, void *ctx)
{
	(void)seq;
	if (io_filter_rq(io, r))
		an_agg_add(&((struct an_agg *)ctx)[r->tid_idx], r->end - r->begin);
}

static void print_stats(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	FILE *out = io->a->out;
	struct an_agg cl[CAT_N] = { 0 }, *dl;
	const char *sep = "-----------------------------------------------------------------------"
			  "------------------";

	if (!(dl = calloc(io->dstats.n ? io->dstats.n : 1, sizeof(*dl)))) {
		io->a->oom = true;
		return;
	}
	each_rec(io, io->reqs, cat_lat, cl);
	each_rec(io, io->breqs, disk_lat, dl);
	if (mi) {
		FILE *f = an_mi_table(&io->mi, "syscall-latency-stats", "\"syscall-latency-stats\"", b, e);
		if (f) {
			for (int c = 0; c < CAT_N; c++) {
				fprintf(f, "%s[{\"class\": \"string\", \"value\": \"%s\"}", c ? ", " : "",
					cat_title[c]);
				stats_mi_row(f, &cl[c]);
			}
			an_mi_table_end(f);
		}
		f = NULL;
		for (size_t i = 0, k = 0; i < io->dstats.n; i++) {
			const struct io_dstats *d = an_table_at(&io->dstats, i);
			char name[300];
			if (!d->count)
				continue;
			if (!f && !(f = an_mi_table(&io->mi, "disk-latency-stats",
						    "\"disk-latency-stats\"", b, e)))
				break;
			io_disk_name(io, d, name, sizeof(name));
			fputs(k++ ? ", [{\"class\": \"disk\", \"name\": " : "[{\"class\": \"disk\", \"name\": ",
			      f);
			an_json_string(f, name, strlen(name));
			fputc('}', f);
			stats_mi_row(f, &dl[i]);
		}
		if (f)
			an_mi_table_end(f);
	} else {
		bool any = false;
		fputs("\nSyscalls latency statistics (usec):\n", out);
		fprintf(out, "%-14s %14s %14s %14s %14s %14s\n%s\n", "Type", "Count", "Min", "Average",
			"Max", "Stdev", sep);
		for (int c = 0; c < CAT_N; c++)
			stats_text_row(out, cat_title[c], &cl[c]);
		for (size_t i = 0; i < io->dstats.n; i++) {
			const struct io_dstats *d = an_table_at(&io->dstats, i);
			char name[300];
			if (!d->count)
				continue;
			if (!any)
				fprintf(out, "\nDisk latency statistics (usec):\n%-14s %14s %14s %14s %14s %14s\n%s\n",
					"Name", "Count", "Min", "Average", "Max", "Stdev", sep);
			any = true;
			io_disk_name(io, d, name, sizeof(name));
			stats_text_row(out, name, &dl[i]);
		}
	}
	free(dl);
}

/* ------------------------------------------------------------------ */
/* Frequency distributions                                              */
/* ------------------------------------------------------------------ */

/* _fill_freq_result_table's buckets: false when there is no table (no durations, or all equal) */
static bool freq_bounds(const struct an_io *io, const struct an_agg *l, struct an_freq *f)
{
	if (!l->count)
		return false;
	f->res = io->a->o->freq_resolution;
	f->min = (double)l->min / 1000;
	f->max = (double)l->max / 1000;
	f->step = (f->max - f->min) / (double)f->res;
	return f->step != 0 && f->res > 0;
}

static void freq_count(const struct an_freq *f, uint64_t *counts, int64_t d)
{
	double x = ((double)d / 1000 - f->min) / f->step;
	long idx = x < (double)f->res ? (long)x : f->res - 1;

	counts[idx < f->res - 1 ? idx : f->res - 1]++;
}

/* the second pass: the counts of each table (NULL counts: no table) */
struct freq_pass {
	struct an_freq *f;
	uint64_t **counts;
};

static void cat_count(struct an_io *io, const struct io_rec *r, uint64_t seq, void *ctx)
{
	struct freq_pass *p = ctx;

	(void)seq;
	if (!io_filter_rq(io, r))
		return;
	for (int c = 0; c < CAT_N; c++)
		if (p->counts[c] && in_cat(c, r->op))
			freq_count(&p->f[c], p->counts[c], r->end - r->begin);
}

static void disk_count(struct an_io *io, const struct io_rec *r, uint64_t seq, void *ctx)
{
	struct freq_pass *p = ctx;

	(void)seq;
	if (p->counts[r->tid_idx] && io_filter_rq(io, r))
		freq_count(&p->f[r->tid_idx], p->counts[r->tid_idx], r->end - r->begin);
}

static void freq_out(struct an_io *io, int64_t b, int64_t e, bool mi, const char *subtitle,
		     const struct an_freq *f, const uint64_t *counts)
{
	char title[400];

	if (!counts)
		return;
	if (mi) {
		char *cls = NULL;
		size_t len = 0;
		FILE *c = open_memstream(&cls, &len), *t;
		if (c) {
			snprintf(title, sizeof(title), "I/O request latency distribution [%s]", subtitle);
			fputs("{\"inherit\": \"freq\", \"title\": ", c);
			an_json_string(c, title, strlen(title));
			fputc('}', c);
			fclose(c);
			if ((t = an_mi_table(&io->mi, "freq", cls, b, e))) {
				an_freq_mi_rows(t, f, counts);
				an_mi_table_end(t);
			}
			free(cls);
		}
	} else {
		snprintf(title, sizeof(title), "I/O request latency distribution %s", subtitle);
		an_freq_text(io->a->out, title, f, counts);
	}
}

/* tables of `n` groups (the categories, or the disks) from their durations in `file` */
static void freq_tables(struct an_io *io, int64_t b, int64_t e, bool mi, FILE *file, size_t n,
			rec_fn *lat_fn, rec_fn *count_fn)
{
	struct an_agg *l = calloc(n ? n : 1, sizeof(*l));
	struct an_freq *f = calloc(n ? n : 1, sizeof(*f));
	uint64_t **counts = calloc(n ? n : 1, sizeof(*counts));
	struct freq_pass pass = { f, counts };

	if (!l || !f || !counts) {
		io->a->oom = true;
		goto out;
	}
	each_rec(io, file, lat_fn, l);
	for (size_t i = 0; i < n; i++)
		if (freq_bounds(io, &l[i], &f[i]) &&
		    !(counts[i] = calloc((size_t)f[i].res, sizeof(**counts)))) {
			io->a->oom = true;
			goto out;
		}
	each_rec(io, file, count_fn, &pass);
	for (size_t i = 0; i < n; i++) {
		char sub[320], name[300];
		if (lat_fn == cat_lat) {
			freq_out(io, b, e, mi, cat_name[i], &f[i], counts[i]);
			continue;
		}
		io_disk_name(io, an_table_at(&io->dstats, i), name, sizeof(name));
		snprintf(sub, sizeof(sub), "disk: %s", name);
		freq_out(io, b, e, mi, sub, &f[i], counts[i]);
	}
out:
	for (size_t i = 0; counts && i < n; i++)
		free(counts[i]);
	free(counts);
	free(f);
	free(l);
}

static void print_freq(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	freq_tables(io, b, e, mi, io->reqs, CAT_N, cat_lat, cat_count);
	freq_tables(io, b, e, mi, io->breqs, io->dstats.n, disk_lat, disk_count);
}

/* ------------------------------------------------------------------ */
/* Logs and top latencies                                               */
/* ------------------------------------------------------------------ */

/*
 * The log's text rows, built in one buffer (io->line) and written at once,
 * numbers without printf: a log has a row per request.
 */
static void l_put(struct an_io *io, const char *s, size_t len)
{
	if (io->line_len + len + 1 > io->line_cap &&
	    !tmx_grow_array((void **)&io->line, &io->line_cap, io->line_len + len + 1, 1, 256)) {
		io->a->oom = true;
		return;
	}
	memcpy(io->line + io->line_len, s, len);
	io->line_len += len;
}

static void l_spaces(struct an_io *io, size_t n)
{
	static const char sp[] = "                                        ";

	while (n) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;
		l_put(io, sp, k);
		n -= k;
	}
}

/* left- or right-justified in `w` code points (Python's str.format) */
static void l_left(struct an_io *io, const char *s, size_t len, size_t w)
{
	size_t cp = an_utf8_len(s, len);

	l_put(io, s, len);
	l_spaces(io, cp < w ? w - cp : 0);
}

static void l_right(struct an_io *io, const char *s, size_t len, size_t w)
{
	size_t cp = an_utf8_len(s, len);

	l_spaces(io, cp < w ? w - cp : 0);
	l_put(io, s, len);
}

/* format_utils.format_timestamp: the text of each second is kept for the next times */
static size_t fmt_ts(struct an_io *io, char *buf, int64_t ns)
{
	int64_t sec = ns / 1000000000, nsec = ns % 1000000000;
	size_t n;

	if (nsec < 0) {
		nsec += 1000000000;
		sec--;
	}
	if (!io->ts_ok || io->ts_sec != sec) {
		char *p = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&p, &len);
		if (!f)
			return 0;
		an_fmt_timestamp(f, sec * 1000000000, io->a->multi_day, io->a->o->gmt);
		fclose(f);
		/* without the nine zeros of the nanoseconds */
		io->ts_len = len >= 9 && len - 9 < sizeof(io->ts_txt) ? (uint8_t)(len - 9) : 0;
		memcpy(io->ts_txt, p, io->ts_len);
		free(p);
		io->ts_sec = sec;
		io->ts_ok = true;
	}
	memcpy(buf, io->ts_txt, io->ts_len);
	n = io->ts_len;
	{
		/* nine digits, two at a time */
		static const char d2[] = "00010203040506070809101112131415161718192021222324252627282930"
					 "31323334353637383940414243444546474849505152535455565758596061"
					 "62636465666768697071727374757677787980818283848586878889909192"
					 "93949596979899";
		uint32_t v = (uint32_t)nsec;
		for (int i = 7; i >= 1; i -= 2, v /= 100)
			memcpy(buf + n + (size_t)i, d2 + 2 * (v % 100), 2);
		buf[n] = (char)('0' + v);
	}
	return n + 9;
}

/* The file of a request's fd: the task's process' FDStats at the request's end */
static const struct io_fdstats *rq_file(struct an_io *io, const struct io_rec *rq)
{
	const struct io_pstats *ps = io_pstats_find(io, rq->tid);

	if (ps && ps->has_pid)
		ps = io_pstats_find(io, ps->pid);
	return ps ? io_get_fd(ps, rq->fd, true, rq->end) : NULL;
}

static void log_row_text(struct an_io *io, const struct io_rec *rq, bool oor)
{
	const struct io_pstats *ps = io_pstats_find(io, rq->tid);
	int64_t dur = rq->end - rq->begin;
	char buf[160];
	size_t n = 0;

	io->line_len = 0;
	buf[n++] = '[';
	n += fmt_ts(io, buf + n, rq->begin);
	buf[n++] = ',';
	buf[n++] = ' ';
	n += fmt_ts(io, buf + n, rq->end);
	buf[n++] = ']';
	buf[n++] = oor ? '*' : ' ';
	l_left(io, buf, n, 40);
	l_put(io, " ", 1);
	l_left(io, rq->sys, rq->sys_len, 16);
	l_put(io, " ", 1);
	/* '%0.03f' of dur / 1000: its three decimals exactly, for any duration a trace has */
	if (dur >= 0 && dur < 1000000000000000LL) {
		n = an_fmt_u64(buf, (uint64_t)dur / 1000);
		buf[n++] = '.';
		buf[n++] = (char)('0' + dur % 1000 / 100);
		buf[n++] = (char)('0' + dur % 100 / 10);
		buf[n++] = (char)('0' + dur % 10);
	} else {
		n = (size_t)snprintf(buf, sizeof(buf) - 1, "%0.03f", (double)dur / 1000);
	}
	buf[n++] = oor ? '*' : ' ';
	l_right(io, buf, n, 16);
	l_put(io, " ", 1);
	if (rq->has_size)
		io_fmt_size(buf, sizeof(buf), (uint64_t)rq->size);
	else
		memcpy(buf, "N/A", 4);
	l_right(io, buf, strlen(buf), 11);
	l_put(io, "  ", 2);
	l_left(io, ps ? ps->comm.s : "", ps ? ps->comm.len : 0, 24);
	l_put(io, " ", 1);
	if (rq->tid < 0) {
		buf[0] = '-';
		n = 1 + an_fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)rq->tid);
	} else {
		n = an_fmt_u64(buf, (uint64_t)rq->tid);
	}
	l_left(io, buf, n, 8);
	l_put(io, " ", 1);
	if (!rq->has_fd) {
		l_left(io, "N/A", 3, 14);
	} else {
		const struct io_fdstats *f = rq_file(io, rq);
		size_t len = 7, start = io->line_len;
		const char *p = "unknown";
		if (f)
			p = io_str_at(&io->strs, f->filename, &len);
		l_put(io, p, len);
		l_put(io, " (fd=", 5);
		if (rq->fd < 0) {
			buf[0] = '-';
			n = 1 + an_fmt_u64(buf + 1, (uint64_t)0 - (uint64_t)rq->fd);
		} else {
			n = an_fmt_u64(buf, (uint64_t)rq->fd);
		}
		buf[n++] = ')';
		l_put(io, buf, n);
		if (!io->a->oom) {
			size_t cp = an_utf8_len(io->line + start, io->line_len - start);
			l_spaces(io, cp < 14 ? 14 - cp : 0);
		}
	}
	l_put(io, "\n", 1);
	if (!io->a->oom)
		fwrite(io->line, 1, io->line_len, io->a->out);
}

static void log_row_mi(struct an_io *io, FILE *f, const struct io_rec *rq, bool first)
{
	const struct io_pstats *ps = io_pstats_find(io, rq->tid);
	int oor = io_out_of_range(io, rq);

	fprintf(f, "%s[{\"class\": \"time-range\", \"begin\": {\"class\": \"timestamp\", \"value\": %lld}, "
		   "\"end\": {\"class\": \"timestamp\", \"value\": %lld}}, "
		   "{\"class\": \"bool\", \"value\": %s}, ",
		first ? "" : ", ", (long long)rq->begin, (long long)rq->end,
		oor < 0 ? "null" : oor ? "true" : "false");
	an_mi_duration_ns(f, rq->end - rq->begin);
	fputs(", {\"class\": \"syscall\", \"name\": ", f);
	an_json_string(f, rq->sys, rq->sys_len);
	fputs("}, ", f);
	if (rq->has_size)
		fprintf(f, "{\"class\": \"size\", \"value\": %lld}, ", (long long)rq->size);
	else
		fputs("null, ", f);
	fputs("{\"class\": \"process\", \"name\": ", f);
	an_json_string(f, ps ? ps->comm.s : "", ps ? ps->comm.len : 0);
	fprintf(f, ", \"tid\": %lld}, ", (long long)rq->tid);
	if (!rq->has_fd) {
		fputs("null, null]", f);
	} else {
		const struct io_fdstats *fs = rq_file(io, rq);
		if (fs) {
			size_t len;
			const char *p = io_str_at(&io->strs, fs->filename, &len);
			fputs("{\"class\": \"path\", \"path\": ", f);
			an_json_string(f, p, len);
			fputs("}, ", f);
		} else {
			fputs("{\"class\": \"unknown\"}, ", f);
		}
		fprintf(f, "{\"class\": \"fd\", \"fd\": %lld}]", (long long)rq->fd);
	}
}

/* _print_log / the MI log table, a row at a time (nothing without rows) */
struct logw {
	struct an_io *io;
	bool mi, broken, oor_any;
	const char *key, *cls, *title;
	int64_t b, e;
	FILE *f;
	uint64_t n;
};

static void logw_row(struct logw *w, const struct io_rec *r)
{
	struct an_io *io = w->io;
	FILE *out = io->a->out;
	bool oor;

	if (w->broken)
		return;
	if (!w->n) {
		if (w->mi && !(w->f = an_mi_table(&io->mi, w->key, w->cls, w->b, w->e))) {
			w->broken = true;
			return;
		}
		if (!w->mi) {
			fprintf(out, "\n%s (usec)\n", w->title);
			fprintf(out, "%-20s %-20s %-16s %-23s %-5s %-24s %-8s %-14s\n", "Begin", "End",
				"Name", "Duration (usec)", "Size", "Proc", "PID", "Filename");
		}
	}
	if (w->mi) {
		log_row_mi(io, w->f, r, !w->n);
	} else {
		oor = io_out_of_range(io, r) > 0;
		log_row_text(io, r, oor);
		w->oor_any |= oor;
	}
	w->n++;
}

static void logw_end(struct logw *w)
{
	if (!w->n || w->broken)
		return;
	if (w->mi)
		an_mi_table_end(w->f);
	else if (w->oor_any)
		fputs("*: Syscalls started and/or completed outside of the range specified\n", w->io->a->out);
}

/* A request with its order of recording (ties in Python's stable sorts). */
struct seq_rec {
	struct io_rec r;
	uint64_t seq;
};

/* sorted(key=duration, reverse=True) over the tasks' lists: equal ones by task, then recording */
static inline bool top_before(const struct seq_rec *a, const struct seq_rec *b)
{
	int64_t da = a->r.end - a->r.begin, db = b->r.end - b->r.begin;

	if (da != db)
		return da > db;
	if (a->r.tid_idx != b->r.tid_idx)
		return a->r.tid_idx < b->r.tid_idx;
	return a->seq < b->seq;
}
/* the kept ones, the last listed on top */
static inline bool top_after(const struct seq_rec *a, const struct seq_rec *b)
{
	return top_before(b, a);
}
TMX_HEAP_DEFINE(top_heap, struct seq_rec, top_after)

static int top_cmp(const void *x, const void *y)
{
	return top_before(x, y) ? -1 : top_before(y, x) ? 1 : 0;
}

/* the largest latencies of each category: limit + 1 of them (`if count > limit: break`) */
struct top_pass {
	struct seq_rec *h[CAT_N];
	size_t n[CAT_N], k;
};

static void top_add(struct an_io *io, const struct io_rec *r, uint64_t seq, void *ctx)
{
	struct top_pass *p = ctx;
	struct seq_rec x = { *r, seq };

	if (!p->k || !io_filter_rq(io, r))
		return;
	for (int c = 0; c < CAT_N; c++) {
		if (!in_cat(c, r->op))
			continue;
		if (p->n[c] < p->k) {
			p->h[c][p->n[c]] = x;
			top_heap_sift_up(p->h[c], p->n[c]++);
		} else if (top_before(&x, &p->h[c][0])) {
			p->h[c][0] = x;
			top_heap_sift_down(p->h[c], p->n[c], 0);
		}
	}
}

static void print_top(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	long limit = io->a->o->limit;
	struct top_pass p = { .k = 0 };

	p.k = limit < 0 ? 0 : (uint64_t)limit + 1 < io->n_reqs ? (size_t)limit + 1 : (size_t)io->n_reqs;
	for (int c = 0; c < CAT_N; c++)
		if (!(p.h[c] = malloc((p.k ? p.k : 1) * sizeof(*p.h[c])))) {
			io->a->oom = true;
			goto out;
		}
	each_rec(io, io->reqs, top_add, &p);
	for (int c = 0; c < CAT_N; c++) {
		char title[200], cls[300];
		struct logw w = { .io = io, .mi = mi, .key = "top-syscall", .cls = cls, .title = title,
				  .b = b, .e = e };
		qsort(p.h[c], p.n[c], sizeof(*p.h[c]), top_cmp);
		snprintf(title, sizeof(title), "Top system call latencies %s", cat_name[c]);
		snprintf(cls, sizeof(cls),
			 "{\"inherit\": \"top-syscall\", \"title\": \"Top system call latencies [%s]\"}",
			 cat_name[c]);
		for (size_t i = 0; i < p.n[c]; i++)
			logw_row(&w, &p.h[c][i].r);
		logw_end(&w);
	}
out:
	for (int c = 0; c < CAT_N; c++)
		free(p.h[c]);
}

/*
 * The log: sorted(key=begin_ts) over the tasks' lists.  A task's requests
 * do not overlap (one system call at a time), so each task's list is in
 * the order of their starts already: the log is the merge of the tasks'
 * lists (a heap of one cursor per task), each list chained through the
 * records' `next` in the file.  The file is read and the links written
 * through a small cache of blocks of records: the log's order is close to
 * the order of recording, so most reads and writes hit it.
 */
#define RC_BLOCK 128
#define RC_SLOTS 64
struct rec_cache {
	struct an_io *io;
	int fd;
	uint64_t n;
	struct rc_slot {
		uint64_t blk;
		bool valid, dirty;
		struct io_rec r[RC_BLOCK];
	} *slot;
};

static struct io_rec *rc_get(struct rec_cache *c, uint64_t seq, bool write)
{
	uint64_t blk = seq / RC_BLOCK;
	struct rc_slot *s = &c->slot[blk % RC_SLOTS];
	size_t sz = sizeof(s->r[0]);

	if (!s->valid || s->blk != blk) {
		uint64_t first = blk * RC_BLOCK, n = c->n - first < RC_BLOCK ? c->n - first : RC_BLOCK;
		if (s->valid && s->dirty) {
			uint64_t f0 = s->blk * RC_BLOCK, n0 = c->n - f0 < RC_BLOCK ? c->n - f0 : RC_BLOCK;
			if (pwrite(c->fd, s->r, n0 * sz, (off_t)(f0 * sz)) != (ssize_t)(n0 * sz))
				c->io->failed = true;
		}
		s->valid = false;
		if (pread(c->fd, s->r, n * sz, (off_t)(first * sz)) != (ssize_t)(n * sz)) {
			c->io->failed = true;
			return NULL;
		}
		s->blk = blk;
		s->valid = true;
		s->dirty = false;
	}
	s->dirty |= write;
	return &s->r[seq % RC_BLOCK];
}

static inline bool log_before(const struct seq_rec *a, const struct seq_rec *b)
{
	if (a->r.begin != b->r.begin)
		return a->r.begin < b->r.begin;
	if (a->r.tid_idx != b->r.tid_idx)
		return a->r.tid_idx < b->r.tid_idx;
	return a->seq < b->seq;
}
TMX_HEAP_DEFINE(log_heap, struct seq_rec, log_before)

static bool read_rec(struct rec_cache *c, uint64_t seq, struct seq_rec *out)
{
	const struct io_rec *r = rc_get(c, seq, false);

	if (!r)
		return false;
	out->r = *r;
	out->seq = seq;
	return true;
}

static void print_log(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	size_t nt = io->tids.n, n = 0;
	struct rec_cache c = { .io = io, .n = io->n_reqs };
	uint64_t *first = NULL, *last = NULL;
	struct seq_rec *heap = NULL;
	struct logw w = { .io = io, .mi = mi, .key = "log", .cls = "\"log\"",
			  .title = "I/O operations log None", .b = b, .e = e };

	if (!io->reqs)
		return;
	if (fflush(io->reqs)) {
		io->failed = true;
		return;
	}
	c.fd = fileno(io->reqs);
	first = malloc((nt ? nt : 1) * sizeof(*first));
	last = malloc((nt ? nt : 1) * sizeof(*last));
	heap = malloc((nt ? nt : 1) * sizeof(*heap));
	c.slot = calloc(RC_SLOTS, sizeof(*c.slot));
	if (!first || !last || !heap || !c.slot) {
		io->a->oom = true;
		goto out;
	}
	for (size_t t = 0; t < nt; t++)
		first[t] = last[t] = IO_NONE;
	/* each task's listed requests chained */
	for (uint64_t seq = 0; seq < c.n; seq++) {
		const struct io_rec *r = rc_get(&c, seq, false);
		struct io_rec *prev;
		uint32_t t;
		if (!r)
			goto out;
		t = r->tid_idx;
		if (t >= nt || !io_filter_rq(io, r))
			continue;
		if (last[t] == IO_NONE)
			first[t] = seq;
		else if ((prev = rc_get(&c, last[t], true)))
			prev->next = seq;
		else
			goto out;
		last[t] = seq;
	}
	for (size_t t = 0; t < nt; t++)
		if (first[t] != IO_NONE && read_rec(&c, first[t], &heap[n]))
			log_heap_sift_up(heap, n++);
	while (n) {
		struct seq_rec top = heap[0];
		logw_row(&w, &top.r);
		if (top.r.next == IO_NONE || !read_rec(&c, top.r.next, &heap[0]))
			heap[0] = heap[--n];
		log_heap_sift_down(heap, n, 0);
	}
	logw_end(&w);
out:
	free(c.slot);
	free(heap);
	free(first);
	free(last);
}

/* IoAnalysisCommand._analysis_tick */
void io_print(struct an_io *io, int64_t begin, int64_t end)
{
	const struct tmx_an_opts *o = io->a->o;
	FILE *out = io->a->out;

	if (o->mi) {
		if (o->log)
			print_log(io, begin, end, true);
		if (o->stats)
			print_stats(io, begin, end, true);
		if (o->top)
			print_top(io, begin, end, true);
		if (o->usage)
			io_usage(io, begin, end, true);
		if (o->freq)
			print_freq(io, begin, end, true);
		return;
	}
	fputs("Timerange: [", out);
	an_fmt_timestamp(out, begin, true, o->gmt);
	fputs(", ", out);
	an_fmt_timestamp(out, end, true, o->gmt);
	fputs("]\n", out);
	if (o->usage)
		io_usage(io, begin, end, false);
	if (o->stats)
		print_stats(io, begin, end, false);
	if (o->top)
		print_top(io, begin, end, false);
	if (o->freq)
		print_freq(io, begin, end, false);
	if (o->log)
		print_log(io, begin, end, false);
}
