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
#include <stdlib.h>
#include <string.h>

#include "tools/analyze/io_int.h"

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

static int by_task(const void *x, const void *y)
{
	const struct io_req *a = *(const struct io_req *const *)x, *b = *(const struct io_req *const *)y;

	if (a->tid_idx != b->tid_idx)
		return a->tid_idx < b->tid_idx ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* sorted(..., key=duration, reverse=True): stable, so equal ones keep their order */
static int by_duration(const void *x, const void *y)
{
	const struct io_req *a = *(const struct io_req *const *)x, *b = *(const struct io_req *const *)y;
	int64_t da = a->end - a->begin, db = b->end - b->begin;

	if (da != db)
		return da > db ? -1 : 1;
	return by_task(x, y);
}

static int by_begin(const void *x, const void *y)
{
	const struct io_req *a = *(const struct io_req *const *)x, *b = *(const struct io_req *const *)y;

	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	return by_task(x, y);
}

/* The system call requests of a category (-1: all), filtered, in lttng-analyses' order. */
static const struct io_req **select_reqs(struct an_io *io, int cat, size_t *n)
{
	const struct io_req **v = malloc((io->n_reqs ? io->n_reqs : 1) * sizeof(*v));
	size_t k = 0;

	if (!v) {
		io->a->oom = true;
		*n = 0;
		return NULL;
	}
	for (size_t i = 0; i < io->n_reqs; i++)
		if ((cat < 0 || in_cat(cat, io->reqs[i].op)) && io_filter_rq(io, &io->reqs[i]))
			v[k++] = &io->reqs[i];
	qsort(v, k, sizeof(*v), by_task);
	*n = k;
	return v;
}

/* ------------------------------------------------------------------ */
/* Latency statistics                                                   */
/* ------------------------------------------------------------------ */

struct lat {
	uint64_t n;
	int64_t min, max;
	__int128 sum;
	unsigned __int128 sumsq;
};

static void lat_add(struct lat *l, int64_t d)
{
	if (!l->n || d < l->min)
		l->min = d;
	if (!l->n || d > l->max)
		l->max = d;
	l->n++;
	l->sum += d;
	l->sumsq += (unsigned __int128)((__int128)d * d);
}

static double lat_avg(const struct lat *l)
{
	return l->n ? (double)l->sum / (double)l->n : 0;
}

static void stats_text_row(FILE *out, const char *name, const struct lat *l)
{
	char stdev[48];

	if (l->n < 2)
		snprintf(stdev, sizeof(stdev), "?");
	else
		snprintf(stdev, sizeof(stdev), "%0.03f", an_stdev(l->n, l->sum, l->sumsq) / 1000);
	fprintf(out, "%-14s %14llu %14.3f %14.3f %14.3f %14s\n", name, (unsigned long long)l->n,
		(double)l->min / 1000, lat_avg(l) / 1000, (double)l->max / 1000, stdev);
}

static void stats_mi_row(FILE *f, bool first, const struct lat *l)
{
	(void)first;
	fprintf(f, ", {\"class\": \"number\", \"value\": %llu}, ", (unsigned long long)l->n);
	an_mi_duration_ns(f, l->n ? l->min : 0);
	fputs(", ", f);
	if (l->n)
		an_mi_duration(f, lat_avg(l));
	else
		an_mi_duration_ns(f, 0);
	fputs(", ", f);
	an_mi_duration_ns(f, l->n ? l->max : 0);
	fputs(", ", f);
	if (l->n < 2)
		fputs("{\"class\": \"unknown\"}", f);
	else
		an_mi_duration(f, an_stdev(l->n, l->sum, l->sumsq));
	fputc(']', f);
}

static void disk_name(const struct an_io *io, const struct io_dstats *d, char *buf, size_t n)
{
	size_t len;

	if (d->name) {
		const char *s = io_str_at(&io->strs, d->name, &len);
		snprintf(buf, n, "%.*s", (int)len, s);
	} else {
		/* DiskStats._get_name_from_dev */
		snprintf(buf, n, "(%lld,%lld)", (long long)(d->dev >> 20),
			 (long long)(d->dev & ((1 << 20) - 1)));
	}
}

/* the filtered durations of each disk's requests */
static void disk_lats(struct an_io *io, struct lat *l)
{
	for (size_t i = 0; i < io->n_breqs; i++)
		if (io_filter_rq(io, &io->breqs[i]))
			lat_add(&l[io->breqs[i].tid_idx], io->breqs[i].end - io->breqs[i].begin);
}

static void print_stats(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	FILE *out = io->a->out;
	struct lat cl[CAT_N] = { 0 }, *dl;
	const char *sep = "-----------------------------------------------------------------------"
			  "------------------";

	for (int c = 0; c < CAT_N; c++) {
		size_t n;
		const struct io_req **v = select_reqs(io, c, &n);
		for (size_t i = 0; i < n; i++)
			lat_add(&cl[c], v[i]->end - v[i]->begin);
		free((void *)v);
	}
	if (!(dl = calloc(io->dstats.n ? io->dstats.n : 1, sizeof(*dl)))) {
		io->a->oom = true;
		return;
	}
	disk_lats(io, dl);
	if (mi) {
		FILE *f = an_mi_table(&io->mi, "syscall-latency-stats", "\"syscall-latency-stats\"", b, e);
		if (f) {
			for (int c = 0; c < CAT_N; c++) {
				fprintf(f, "%s[{\"class\": \"string\", \"value\": \"%s\"}", c ? ", " : "",
					cat_title[c]);
				stats_mi_row(f, !c, &cl[c]);
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
			disk_name(io, d, name, sizeof(name));
			fputs(k++ ? ", [{\"class\": \"disk\", \"name\": " : "[{\"class\": \"disk\", \"name\": ",
			      f);
			an_json_string(f, name, strlen(name));
			fputc('}', f);
			stats_mi_row(f, false, &dl[i]);
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
			disk_name(io, d, name, sizeof(name));
			stats_text_row(out, name, &dl[i]);
		}
	}
	free(dl);
}

/* ------------------------------------------------------------------ */
/* Frequency distributions                                              */
/* ------------------------------------------------------------------ */

/* _fill_freq_result_table: false when there is no table (no durations, or all equal) */
static bool freq_of(const struct an_io *io, const int64_t *d, size_t n, struct an_freq *f,
		    uint64_t **counts)
{
	double mn, mx;

	*counts = NULL;
	if (!n)
		return false;
	mn = mx = (double)d[0];
	for (size_t i = 1; i < n; i++) {
		if ((double)d[i] < mn)
			mn = (double)d[i];
		if ((double)d[i] > mx)
			mx = (double)d[i];
	}
	f->res = io->a->o->freq_resolution;
	f->min = mn / 1000;
	f->max = mx / 1000;
	f->step = (f->max - f->min) / (double)f->res;
	if (f->step == 0 || f->res <= 0 || !(*counts = calloc((size_t)f->res, sizeof(**counts))))
		return false;
	for (size_t i = 0; i < n; i++) {
		double x = ((double)d[i] / 1000 - f->min) / f->step;
		long idx = x < (double)f->res ? (long)x : f->res - 1;
		(*counts)[idx < f->res - 1 ? idx : f->res - 1]++;
	}
	return true;
}

static void freq_out(struct an_io *io, int64_t b, int64_t e, bool mi, const char *subtitle,
		     const int64_t *d, size_t n)
{
	struct an_freq f;
	uint64_t *counts;
	char title[400];

	if (!freq_of(io, d, n, &f, &counts)) {
		free(counts);
		return;
	}
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
				an_freq_mi_rows(t, &f, counts);
				an_mi_table_end(t);
			}
			free(cls);
		}
	} else {
		snprintf(title, sizeof(title), "I/O request latency distribution %s", subtitle);
		an_freq_text(io->a->out, title, &f, counts);
	}
	free(counts);
}

static void print_freq(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	int64_t *d = malloc(((io->n_reqs > io->n_breqs ? io->n_reqs : io->n_breqs) + 1) * sizeof(*d));

	if (!d) {
		io->a->oom = true;
		return;
	}
	for (int c = 0; c < CAT_N; c++) {
		size_t n;
		const struct io_req **v = select_reqs(io, c, &n);
		for (size_t i = 0; i < n; i++)
			d[i] = v[i]->end - v[i]->begin;
		freq_out(io, b, e, mi, cat_name[c], d, n);
		free((void *)v);
	}
	for (size_t k = 0; k < io->dstats.n; k++) {
		const struct io_dstats *ds = an_table_at(&io->dstats, k);
		char sub[320], name[300];
		size_t n = 0;
		for (size_t i = 0; i < io->n_breqs; i++)
			if (io->breqs[i].tid_idx == k && io_filter_rq(io, &io->breqs[i]))
				d[n++] = io->breqs[i].end - io->breqs[i].begin;
		disk_name(io, ds, name, sizeof(name));
		snprintf(sub, sizeof(sub), "disk: %s", name);
		freq_out(io, b, e, mi, sub, d, n);
	}
	free(d);
}

/* ------------------------------------------------------------------ */
/* Logs and top latencies                                               */
/* ------------------------------------------------------------------ */

/* left-justified in `w` code points (Python's str.format) */
static void put_left(FILE *out, const char *s, size_t len, size_t w)
{
	size_t cp = an_utf8_len(s, len);

	fwrite(s, 1, len, out);
	for (; cp < w; cp++)
		fputc(' ', out);
}

static void put_right(FILE *out, const char *s, size_t w)
{
	size_t len = strlen(s), cp = an_utf8_len(s, len);

	for (; cp < w; cp++)
		fputc(' ', out);
	fwrite(s, 1, len, out);
}

/* The file of a request's fd: the task's process' FDStats at the request's end */
static const struct io_fdstats *rq_file(struct an_io *io, const struct io_req *rq)
{
	const struct io_pstats *ps = io_pstats_find(io, rq->tid);

	if (ps && ps->has_pid)
		ps = io_pstats_find(io, ps->pid);
	return ps ? io_get_fd(ps, rq->fd, true, rq->end) : NULL;
}

static void log_row_text(struct an_io *io, const struct io_req *rq, bool oor)
{
	FILE *out = io->a->out;
	const struct io_pstats *ps = io_pstats_find(io, rq->tid);
	char buf[96], file[1200];
	size_t flen = 0;
	const char *fs = file;
	bool date = io->a->multi_day, gmt = io->a->o->gmt;
	char *tr = NULL;
	size_t trlen = 0;
	FILE *t = open_memstream(&tr, &trlen);

	if (!t) {
		io->a->oom = true;
		return;
	}
	fputc('[', t);
	an_fmt_timestamp(t, rq->begin, date, gmt);
	fputs(", ", t);
	an_fmt_timestamp(t, rq->end, date, gmt);
	fputc(']', t);
	fputc(oor ? '*' : ' ', t);
	fclose(t);
	put_left(out, tr, trlen, 40);
	free(tr);
	fputc(' ', out);
	put_left(out, rq->sys, rq->sys_len, 16);
	fputc(' ', out);
	snprintf(buf, sizeof(buf), "%0.03f%c", (double)(rq->end - rq->begin) / 1000, oor ? '*' : ' ');
	put_right(out, buf, 16);
	fputc(' ', out);
	if (rq->has_size)
		io_fmt_size(buf, sizeof(buf), (uint64_t)rq->size);
	else
		snprintf(buf, sizeof(buf), "N/A");
	put_right(out, buf, 11);
	fputs("  ", out);
	put_left(out, ps ? ps->comm.s : "", ps ? ps->comm.len : 0, 24);
	fputc(' ', out);
	snprintf(buf, sizeof(buf), "%lld", (long long)rq->tid);
	put_left(out, buf, strlen(buf), 8);
	fputc(' ', out);
	if (!rq->has_fd) {
		fs = "N/A";
		flen = 3;
	} else {
		const struct io_fdstats *f = rq_file(io, rq);
		size_t len = 7;
		const char *p = "unknown";
		if (f)
			p = io_str_at(&io->strs, f->filename, &len);
		flen = (size_t)snprintf(file, sizeof(file), "%.*s (fd=%lld)", (int)len, p,
					(long long)rq->fd);
		if (flen >= sizeof(file))
			flen = sizeof(file) - 1;
	}
	put_left(out, fs, flen, 14);
	fputc('\n', out);
}

static void log_row_mi(struct an_io *io, FILE *f, const struct io_req *rq, bool first)
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

/* _print_log / the MI log table of `n` requests */
static void log_out(struct an_io *io, int64_t b, int64_t e, bool mi, const char *key,
		    const char *cls, const char *title, const struct io_req **v, size_t n)
{
	FILE *out = io->a->out;
	bool oor_any = false;

	if (!n)
		return;
	if (mi) {
		FILE *f = an_mi_table(&io->mi, key, cls, b, e);
		if (!f)
			return;
		for (size_t i = 0; i < n; i++)
			log_row_mi(io, f, v[i], !i);
		an_mi_table_end(f);
		return;
	}
	fprintf(out, "\n%s (usec)\n", title);
	fprintf(out, "%-20s %-20s %-16s %-23s %-5s %-24s %-8s %-14s\n", "Begin", "End", "Name",
		"Duration (usec)", "Size", "Proc", "PID", "Filename");
	for (size_t i = 0; i < n; i++) {
		bool oor = io_out_of_range(io, v[i]) > 0;
		log_row_text(io, v[i], oor);
		oor_any |= oor;
	}
	if (oor_any)
		fputs("*: Syscalls started and/or completed outside of the range specified\n", out);
}

static void print_top(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	long limit = io->a->o->limit;

	for (int c = 0; c < CAT_N; c++) {
		size_t n, k;
		const struct io_req **v = select_reqs(io, c, &n);
		char title[200], cls[300];
		if (!v)
			return;
		qsort(v, n, sizeof(*v), by_duration);
		/* `if count > limit: break` after each row: limit + 1 rows */
		k = limit < 0 ? 0 : (size_t)limit + 1 < n ? (size_t)limit + 1 : n;
		snprintf(title, sizeof(title), "Top system call latencies %s", cat_name[c]);
		snprintf(cls, sizeof(cls),
			 "{\"inherit\": \"top-syscall\", \"title\": \"Top system call latencies [%s]\"}",
			 cat_name[c]);
		log_out(io, b, e, mi, "top-syscall", cls, title, v, k);
		free((void *)v);
	}
}

static void print_log(struct an_io *io, int64_t b, int64_t e, bool mi)
{
	size_t n;
	const struct io_req **v = select_reqs(io, -1, &n);

	if (!v)
		return;
	qsort(v, n, sizeof(*v), by_begin);
	log_out(io, b, e, mi, "log", "\"log\"", "I/O operations log None", v, n);
	free((void *)v);
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
