/*
 * schedstats, schedtop, schedlog, schedfreq (lttnganalyses core/sched.py,
 * cli/sched.py): the latency from a task's wakeup to its switch in, per
 * period, per task (wakee), per priority.  Memory: aggregates per task
 * and priority, the top --limit entries in a heap; the log and the
 * frequency distributions read back the latencies from a temporary file,
 * so memory stays bounded by the tasks, not by the events.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/analyze/an_impl.h"

/* One wakeup-to-switch latency (SchedEvent), as written to the temporary file. */
struct sd_ev {
	int64_t wakeup, sw, prio, cpu;
	int64_t wakee_tid, waker_tid;
	uint64_t wakee_obj, waker_obj, seq;
	uint8_t has_waker, has_prio;
};

/* ProcessSchedStats: period tasks (wakees and their wakers), in insertion order */
struct sd_tid {
	int64_t tid;
	struct an_comm comm;
	struct an_agg agg;
	struct an_prios prios;
	uint64_t *freq;      /* per-TID distribution */
	struct an_freq fb;
	bool has_freq;
};

struct sd_pr {
	int64_t prio;
	struct an_agg agg;
	uint64_t *freq;
	struct an_freq fb;
	bool has_freq;
};

struct sched {
	struct an *a;
	const struct tmx_an_opts *o;
	bool oom;
	struct an_agg total;
	struct an_table tids;    /* struct sd_tid */
	struct an_table prios;   /* struct sd_pr, by priority */
	FILE *events;            /* struct sd_ev records (log, freq) */
	uint64_t n_events;
	/* top: a min-heap of the --limit largest (latency, earliest first) */
	struct sd_ev *top;
	size_t n_top, cap_top;
	bool top_all;            /* --limit <= 0: Python's [:limit] slice, kept whole */
	double min_ns, max_ns;
	struct an_mi mi;
	bool want_total, want_tid, want_prio;
};

static void *create(struct an *a)
{
	struct sched *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->a = a;
	s->o = a->o;
	s->tids.size = sizeof(struct sd_tid);
	s->prios.size = sizeof(struct sd_pr);
	s->min_ns = s->o->min_us * 1000;
	s->max_ns = s->o->max_us * 1000;
	s->want_tid = s->o->per_tid || !(s->o->total || s->o->per_prio);
	s->want_total = s->o->total;
	s->want_prio = s->o->per_prio;
	s->top_all = s->o->limit <= 0;
	if ((s->o->log || s->o->freq || (s->o->top && s->top_all)) && !(s->events = tmpfile())) {
		free(s);
		return NULL;
	}
	return s;
}

static void destroy(void *self)
{
	struct sched *s = self;

	for (size_t i = 0; i < s->tids.n; i++) {
		struct sd_tid *t = an_table_at(&s->tids, i);
		free(t->prios.v);
		free(t->freq);
	}
	for (size_t i = 0; i < s->prios.n; i++)
		free(((struct sd_pr *)an_table_at(&s->prios, i))->freq);
	an_table_free(&s->tids);
	an_table_free(&s->prios);
	if (s->events)
		fclose(s->events);
	free(s->top);
	an_mi_free(&s->mi);
	free(s);
}

static void update_prio(struct sched *s, struct sd_tid *t, bool has, int64_t prio)
{
	if (has && !an_prios_add(&t->prios, prio))
		s->oom = true;
}

static struct sd_tid *tid_add(struct sched *s, const struct an_proc *p, bool *added)
{
	struct sd_tid *t = an_table_get(&s->tids, p->tid, added);

	if (!t) {
		s->oom = true;
		return NULL;
	}
	if (*added) {
		t->tid = p->tid;
		t->comm = p->comm;
	}
	return t;
}

/* top: the larger latency first, then the earlier event */
static bool top_before(const struct sd_ev *x, const struct sd_ev *y)
{
	int64_t lx = x->sw - x->wakeup, ly = y->sw - y->wakeup;

	return lx != ly ? lx > ly : x->seq < y->seq;
}

/* min-heap on top_before: the root is the entry that goes first */
static void heap_down(struct sd_ev *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && top_before(&h[m], &h[l]))
			m = l;
		if (l + 1 < n && top_before(&h[m], &h[l + 1]))
			m = l + 1;
		if (m == i)
			return;
		struct sd_ev t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void top_add(struct sched *s, const struct sd_ev *e)
{
	size_t lim = (size_t)s->o->limit;

	if (s->n_top < lim) {
		size_t i;
		if (!tmx_grow_array((void **)&s->top, &s->cap_top, s->n_top + 1, sizeof(*s->top), 16)) {
			s->oom = true;
			return;
		}
		i = s->n_top++;
		s->top[i] = *e;
		while (i && top_before(&s->top[(i - 1) / 2], &s->top[i])) {
			struct sd_ev t = s->top[i];
			s->top[i] = s->top[(i - 1) / 2];
			s->top[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
		return;
	}
	if (top_before(e, &s->top[0])) {
		s->top[0] = *e;
		heap_down(s->top, s->n_top, 0);
	}
}

/* SchedAnalysis._process_sched_switch */
static void on_switch(void *self, int64_t ts, int64_t cpu, int64_t next_tid,
		      const struct an_proc *wakee, const struct an_proc *waker)
{
	struct sched *s = self;
	struct sd_ev e = { 0 };
	struct sd_tid *t;
	struct sd_pr *pr;
	int64_t latency;
	bool added;

	if (!an_filter_process(s->a, wakee) || !an_filter_cpu(s->a, cpu) || !wakee->has_wakeup)
		return;
	latency = ts - wakee->last_wakeup;
	if (s->o->has_min && (double)latency < s->min_ns)
		return;
	if (s->o->has_max && (double)latency > s->max_ns)
		return;
	if (waker && !an_table_find(&s->tids, waker->tid)) {
		if (!(t = tid_add(s, waker, &added)))
			return;
		update_prio(s, t, waker->has_prio, waker->prio);
	}
	if (!(t = an_table_find(&s->tids, next_tid))) {
		if (!(t = tid_add(s, wakee, &added)))
			return;
		update_prio(s, t, wakee->has_prio, wakee->prio);
	}
	e.wakeup = wakee->last_wakeup;
	e.sw = ts;
	e.prio = wakee->prio;
	e.has_prio = wakee->has_prio;
	e.cpu = cpu;
	e.wakee_tid = wakee->tid;
	e.wakee_obj = wakee->obj;
	if (waker) {
		e.has_waker = 1;
		e.waker_tid = waker->tid;
		e.waker_obj = waker->obj;
	}
	e.seq = s->n_events++;
	an_agg_add(&t->agg, latency);
	an_agg_add(&s->total, latency);
	if (!(pr = an_table_get(&s->prios, e.prio, &added))) {
		s->oom = true;
		return;
	}
	pr->prio = e.prio;
	an_agg_add(&pr->agg, latency);
	if (s->events && fwrite(&e, sizeof(e), 1, s->events) != 1)
		s->oom = true;
	if (s->o->top && !s->top_all)
		top_add(s, &e);
}

static void prio_changed(void *self, int64_t ts, int64_t tid, int64_t prio)
{
	struct sched *s = self;
	struct sd_tid *t = an_table_find(&s->tids, tid);

	(void)ts;
	if (t)
		update_prio(s, t, true, prio);
}


/* ------------------------------------------------------------------ */
/* Reading the events back                                              */
/* ------------------------------------------------------------------ */

typedef void (*ev_fn)(struct sched *s, const struct sd_ev *e, void *ctx);

static void each_event(struct sched *s, ev_fn fn, void *ctx)
{
	struct sd_ev buf[256];
	size_t n;

	if (!s->events)
		return;
	fflush(s->events);
	rewind(s->events);
	while ((n = fread(buf, sizeof(buf[0]), 256, s->events)) > 0)
		for (size_t i = 0; i < n; i++)
			fn(s, &buf[i], ctx);
	fseek(s->events, 0, SEEK_END);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

static void us3(char *buf, size_t n, double ns)
{
	snprintf(buf, n, "%.3f", ns / 1000);
}

static void stdev_str(char *buf, size_t n, double sd)
{
	if (isnan(sd))
		snprintf(buf, n, "?");
	else
		us3(buf, n, sd);
}

/* Python's '%s (%d)' % (name, tid), padded with '{:<25}' */
static void proc_label(FILE *out, const struct an_comm *c, int64_t tid, int width, bool left)
{
	char buf[AN_COMM_MAX + 32];
	size_t w;

	snprintf(buf, sizeof(buf), "%.*s (%lld)", (int)c->len, c->s, (long long)tid);
	w = an_utf8_len(buf, strlen(buf));
	if (!left)
		for (size_t k = w; k < (size_t)width; k++)
			fputc(' ', out);
	fputs(buf, out);
	if (left)
		for (size_t k = w; k < (size_t)width; k++)
			fputc(' ', out);
}

static void ts_str(struct sched *s, FILE *out, int64_t ts)
{
	an_fmt_timestamp(out, ts, s->a->multi_day, s->o->gmt);
}

/* one row of the log or the top: text, or MI cells */
static void event_row(struct sched *s, FILE *out, const struct sd_ev *e, bool mi, bool first)
{
	const struct an_proc *wakee = an_proc_object(s->a, e->wakee_tid, e->wakee_obj);
	const struct an_proc *waker =
		e->has_waker ? an_proc_object(s->a, e->waker_tid, e->waker_obj) : NULL;
	int64_t latency = e->sw - e->wakeup;

	if (mi) {
		fprintf(out, "%s{\"class\": \"timestamp\", \"value\": %lld}, {\"class\": \"timestamp\", "
			     "\"value\": %lld}, ", first ? "[" : ", [", (long long)e->wakeup,
			(long long)e->sw);
		an_mi_duration_ns(out, latency);
		if (e->has_prio)
			fprintf(out, ", {\"class\": \"number\", \"value\": %lld}", (long long)e->prio);
		else
			fputs(", {\"class\": \"number\"}", out);
		fprintf(out, ", {\"class\": \"cpu\", \"id\": %lld}, ", (long long)e->cpu);
		if (wakee)
			an_mi_proc(out, wakee, true);
		else
			fputs("null", out);
		fputs(", ", out);
		if (waker)
			an_mi_proc(out, waker, true);
		else
			fputs("null", out);
		fputc(']', out);
		return;
	}
	/* '[{:<18}, {:<18}] {:>15} {:>10}  {:>3}   {:<25}  {:<25}' */
	{
		char a[64], b[64], lat[64];
		FILE *m;
		size_t l;
		m = fmemopen(a, sizeof(a), "w");
		ts_str(s, m, e->wakeup);
		fclose(m);
		m = fmemopen(b, sizeof(b), "w");
		ts_str(s, m, e->sw);
		fclose(m);
		us3(lat, sizeof(lat), (double)latency);
		fprintf(out, "[%-18s, %-18s] %15s %10lld  %3lld   ", a, b, lat, (long long)e->prio,
			(long long)e->cpu);
		proc_label(out, &wakee->comm, wakee->tid, 25, true);
		fputs("  ", out);
		if (waker) {
			proc_label(out, &waker->comm, waker->tid, 25, true);
		} else {
			l = strlen("Unknown (N/A)");
			fputs("Unknown (N/A)", out);
			for (; l < 25; l++)
				fputc(' ', out);
		}
		fputc('\n', out);
	}
}

struct log_ctx {
	FILE *out;
	bool mi, first;
};

static void log_one(struct sched *s, const struct sd_ev *e, void *ctx)
{
	struct log_ctx *c = ctx;

	event_row(s, c->out, e, c->mi, c->first);
	c->first = false;
}

static void events_header(FILE *out, const char *title)
{
	fprintf(out, "\n%s\n%-20s %-19s %15s %10s  %3s   %-25s  %-25s\n", title, "Wakeup", "Switch",
		"Latency (us)", "Priority", "CPU", "Wakee", "Waker");
}

static int cmp_top(const void *x, const void *y)
{
	return top_before(x, y) ? -1 : top_before(y, x) ? 1 : 0;
}

static void top_all_one(struct sched *s, const struct sd_ev *e, void *ctx)
{
	(void)ctx;
	if (!tmx_grow_array((void **)&s->top, &s->cap_top, s->n_top + 1, sizeof(*s->top), 64)) {
		s->oom = true;
		return;
	}
	s->top[s->n_top++] = *e;
}

/* the top entries in order (Python's sorted(..., reverse=True)[:limit]) */
static size_t top_sorted(struct sched *s)
{
	if (s->top_all) {
		long lim = s->o->limit;
		s->n_top = 0;
		each_event(s, top_all_one, NULL);
		if (s->n_top)
			qsort(s->top, s->n_top, sizeof(*s->top), cmp_top);
		if (lim == 0)
			return 0;
		/* a negative limit drops that many from the end */
		return (size_t)-lim >= s->n_top ? 0 : s->n_top - (size_t)-lim;
	}
	if (s->n_top)
		qsort(s->top, s->n_top, sizeof(*s->top), cmp_top);
	return s->n_top;
}

struct freq_ctx {
	struct an_freq total_fb;
	uint64_t *total;
	bool has_total;
};

static void freq_one(struct sched *s, const struct sd_ev *e, void *ctx)
{
	struct freq_ctx *c = ctx;
	int64_t lat = e->sw - e->wakeup;
	struct sd_tid *t;
	struct sd_pr *p;

	if (c->has_total)
		an_freq_add(&c->total_fb, c->total, lat);
	if (s->want_tid && (t = an_table_find(&s->tids, e->wakee_tid)) && t->has_freq)
		an_freq_add(&t->fb, t->freq, lat);
	if (s->want_prio && (p = an_table_find(&s->prios, e->prio)) && p->has_freq)
		an_freq_add(&p->fb, p->freq, lat);
}

/* By comm, ASCII letters folded to lower case (Python's str.lower() on
 * these names), shorter first. */
static int by_comm_lower(const void *x, const void *y)
{
	const struct sd_tid *a = x, *b = y;
	size_t n = a->comm.len < b->comm.len ? a->comm.len : b->comm.len;

	for (size_t i = 0; i < n; i++) {
		int ca = (unsigned char)a->comm.s[i], cb = (unsigned char)b->comm.s[i];
		if (ca >= 'A' && ca <= 'Z')
			ca += 32;
		if (cb >= 'A' && cb <= 'Z')
			cb += 32;
		if (ca != cb)
			return ca - cb;
	}
	return (a->comm.len > b->comm.len) - (a->comm.len < b->comm.len);
}

static int by_tid(const void *x, const void *y)
{
	int64_t a = ((const struct sd_tid *)x)->tid, b = ((const struct sd_tid *)y)->tid;

	return (a > b) - (a < b);
}

static int by_prio(const void *x, const void *y)
{
	int64_t a = ((const struct sd_pr *)x)->prio, b = ((const struct sd_pr *)y)->prio;

	return (a > b) - (a < b);
}

static void print_freq_text(FILE *out, const char *subtitle, const struct an_freq *fb,
			    const uint64_t *counts)
{
	char title[128];

	snprintf(title, sizeof(title), "Scheduling latency frequency distribution - %s", subtitle);
	an_freq_text(out, title, fb, counts);
}

static void freq_class(char *buf, size_t n, const char *subtitle)
{
	snprintf(buf, n, "{\"inherit\": \"freq\", \"title\": \"Scheduling latency frequency "
			 "distribution [%s]\"}", subtitle);
}

/* --freq-series: one MI table, a column of counts per TID or priority */
static void mi_series(struct sched *s, int64_t b, int64_t e, const char *what, size_t n,
		      const char *const *subtitles, const struct an_freq *fb,
		      uint64_t *const *counts)
{
	char *cls = NULL;
	size_t len = 0;
	FILE *c = open_memstream(&cls, &len), *f;

	if (!c) {
		s->oom = true;
		return;
	}
	fputs("{\"title\": \"Scheduling latencies frequency distributions\", \"column-descriptions\": "
	      "[{\"title\": \"Duration (lower bound)\", \"class\": \"duration\"}, {\"title\": "
	      "\"Duration (upper bound)\", \"class\": \"duration\"}", c);
	for (size_t i = 0; i < n; i++)
		fprintf(c, ", {\"title\": \"%s\", \"class\": \"number\", \"unit\": \"schedulings\"}",
			subtitles[i]);
	fputs("]}", c);
	fclose(c);
	(void)what;
	if ((f = an_mi_table(&s->mi, NULL, cls, b, e))) {
		for (long r = 0; n && r < fb->res; r++) {
			fputs(r ? ", [" : "[", f);
			an_mi_duration(f, ((double)r * fb->step + fb->min) * 1000);
			fputs(", ", f);
			an_mi_duration(f, ((double)(r + 1) * fb->step + fb->min) * 1000);
			for (size_t i = 0; i < n; i++)
				fprintf(f, ", {\"class\": \"number\", \"value\": %llu}",
					(unsigned long long)counts[i][r]);
			fputc(']', f);
		}
		an_mi_table_end(f);
	}
	free(cls);
}

/* What end() works from: the tables' orders and the frequency counts. */
struct end_ctx {
	struct sched *s;
	const struct tmx_an_opts *o;
	size_t *tord, *tidord, *pord, n_top;
	struct freq_ctx fc;
	int64_t b, e;
};

/* The frequency distributions' bounds and counts (--freq); false: out of memory. */
static bool freq_count(struct end_ctx *x)
{
	struct sched *s = x->s;
	const struct tmx_an_opts *o = x->o;
	struct freq_ctx *fcp = &x->fc;
	struct an_freq uni;
	bool uniform = o->freq_uniform || o->freq_series;

	if (uniform)
		an_freq_uniform(&uni, o, s->total.count, s->total.min, s->total.max);
	if (s->want_total) {
		fcp->has_total = an_freq_bounds(&fcp->total_fb, o, s->total.count, s->total.min,
						s->total.max, uniform ? &uni : NULL);
		if (fcp->has_total && !(fcp->total = calloc((size_t)o->freq_resolution, 8)))
			s->oom = true;
	}
	for (size_t i = 0; s->want_tid && i < s->tids.n; i++) {
		struct sd_tid *t = an_table_at(&s->tids, i);
		if (!t->agg.count)
			continue;
		t->has_freq = an_freq_bounds(&t->fb, o, true, t->agg.min, t->agg.max,
					     uniform ? &uni : NULL);
		if (t->has_freq && !(t->freq = calloc((size_t)o->freq_resolution, 8)))
			s->oom = true;
	}
	for (size_t i = 0; s->want_prio && i < s->prios.n; i++) {
		struct sd_pr *p = an_table_at(&s->prios, i);
		p->has_freq = an_freq_bounds(&p->fb, o, true, p->agg.min, p->agg.max,
					     uniform ? &uni : NULL);
		if (p->has_freq && !(p->freq = calloc((size_t)o->freq_resolution, 8)))
			s->oom = true;
	}
	if (s->oom)
		return false;
	each_event(s, freq_one, fcp);
	return true;
}

/* An aggregate's MI cells: min, avg, max (durations), stdev. */
static void mi_agg(FILE *f, const struct an_agg *g)
{
	an_mi_duration_ns(f, g->min);
	fputs(", ", f);
	an_mi_duration(f, an_agg_avg(g));
	fputs(", ", f);
	an_mi_duration_ns(f, g->max);
	fputs(", ", f);
	an_mi_duration_or_unknown(f, an_agg_stdev(g));
}

/* --mi --stats: the total, per-TID and per-priority tables. */
static void mi_stats(struct end_ctx *x)
{
	struct sched *s = x->s;
	int64_t b = x->b, e = x->e;
	size_t *tord = x->tord, *pord = x->pord;
	FILE *f;

	if (s->want_total &&
	    (f = an_mi_table(&s->mi, "total_stats", "\"total_stats\"", b, e))) {
		const struct an_agg *g = &s->total;
		fprintf(f, "[{\"class\": \"number\", \"value\": %llu}, ",
			(unsigned long long)g->count);
		an_mi_duration_ns(f, g->count ? g->min : 0);
		fputs(", ", f);
		if (g->count)
			an_mi_duration(f, an_agg_avg(g));
		else
			an_mi_duration_ns(f, 0);
		fputs(", ", f);
		an_mi_duration_ns(f, g->count ? g->max : 0);
		fputs(", ", f);
		an_mi_duration_or_unknown(f, an_agg_stdev(g));
		fputc(']', f);
		an_mi_table_end(f);
	}
	if (s->want_tid) {
		bool first = true;
		f = NULL;
		for (size_t k = 0; k < s->tids.n; k++) {
			const struct sd_tid *t = an_table_at(&s->tids, tord[k]);
			char *pl = NULL;
			size_t pl_len = 0;
			FILE *pf;
			if (!t->agg.count)
				continue;
			if (first && !(f = an_mi_table(&s->mi, "per_tid_stats", "\"per_tid_stats\"",
						       b, e)))
				break;
			fputs(first ? "[" : ", [", f);
			first = false;
			fputs("{\"class\": \"process\", \"name\": ", f);
			an_json_string(f, t->comm.s, t->comm.len);
			fprintf(f, ", \"tid\": %lld}, {\"class\": \"number\", \"value\": %llu}, ",
				(long long)t->tid, (unsigned long long)t->agg.count);
			mi_agg(f, &t->agg);
			fputs(", {\"class\": \"string\", \"value\": ", f);
			if ((pf = open_memstream(&pl, &pl_len))) {
				an_prios_print(pf, &t->prios);
				fclose(pf);
			}
			an_json_string(f, pl ? pl : "", pl_len);
			free(pl);
			fputs("}]", f);
		}
		if (f)
			an_mi_table_end(f);
	}
	if (s->want_prio && s->prios.n &&
	    (f = an_mi_table(&s->mi, "per_prio_stats", "\"per_prio_stats\"", b, e))) {
		for (size_t k = 0; k < s->prios.n; k++) {
			const struct sd_pr *p = an_table_at(&s->prios, pord[k]);
			fprintf(f, "%s{\"class\": \"number\", \"value\": %lld}, {\"class\": "
				   "\"number\", \"value\": %llu}, ", k ? ", [" : "[",
				(long long)p->prio, (unsigned long long)p->agg.count);
			mi_agg(f, &p->agg);
			fputc(']', f);
		}
		an_mi_table_end(f);
	}
}

/* --mi --freq: the total's distribution, then per TID and per priority (or as series). */
static void mi_freq(struct end_ctx *x)
{
	struct sched *s = x->s;
	const struct tmx_an_opts *o = x->o;
	int64_t b = x->b, e = x->e;
	size_t *tidord = x->tidord, *pord = x->pord;
	FILE *f;

	if (x->fc.has_total && (f = an_mi_table(&s->mi, "freq", "\"freq\"", b, e))) {
		an_freq_mi_rows(f, &x->fc.total_fb, x->fc.total);
		an_mi_table_end(f);
	}
	for (int pass = 0; pass < 2; pass++) {
		bool per_tid = pass == 0;
		size_t n = per_tid ? s->tids.n : s->prios.n, k_series = 0;
		const char **subs = NULL;
		uint64_t **cols = NULL;
		const struct an_freq *fb0 = NULL;
		char (*subbuf)[48] = NULL;
		if (per_tid ? !s->want_tid : !s->want_prio)
			continue;
		if (o->freq_series) {
			subs = calloc(n ? n : 1, sizeof(*subs));
			cols = calloc(n ? n : 1, sizeof(*cols));
			subbuf = calloc(n ? n : 1, sizeof(*subbuf));
			if (!subs || !cols || !subbuf) {
				s->oom = true;
				free(subs);
				free(cols);
				free(subbuf);
				return;
			}
		}
		for (size_t k = 0; k < n; k++) {
			const uint64_t *counts;
			const struct an_freq *fb;
			char sub[48], cls[160];
			if (per_tid) {
				const struct sd_tid *t = an_table_at(&s->tids, tidord[k]);
				if (!t->agg.count)
					continue;
				snprintf(sub, sizeof(sub), "TID: %lld", (long long)t->tid);
				if (!t->has_freq)
					continue;
				counts = t->freq;
				fb = &t->fb;
			} else {
				const struct sd_pr *p = an_table_at(&s->prios, pord[k]);
				snprintf(sub, sizeof(sub), "Priority: %lld", (long long)p->prio);
				if (!p->has_freq)
					continue;
				counts = p->freq;
				fb = &p->fb;
			}
			if (o->freq_series) {
				memcpy(subbuf[k_series], sub, sizeof(sub));
				subs[k_series] = subbuf[k_series];
				cols[k_series++] = (uint64_t *)counts;
				fb0 = fb0 ? fb0 : fb;
				continue;
			}
			freq_class(cls, sizeof(cls), sub);
			if ((f = an_mi_table(&s->mi, "freq", cls, b, e))) {
				an_freq_mi_rows(f, fb, counts);
				an_mi_table_end(f);
			}
		}
		if (o->freq_series && fb0)
			mi_series(s, b, e, per_tid ? "tid" : "prio", k_series, subs, fb0,
				  cols);
		free(subs);
		free(cols);
		free(subbuf);
	}
}

/* The --mi tables. */
static void end_mi(struct end_ctx *x)
{
	struct sched *s = x->s;
	size_t n_top = x->n_top;
	const struct tmx_an_opts *o = x->o;
	int64_t b = x->b, e = x->e;
	FILE *f;

	if (o->log && s->n_events && (f = an_mi_table(&s->mi, "log", "\"log\"", b, e))) {
		struct log_ctx c = { f, true, true };
		each_event(s, log_one, &c);
		an_mi_table_end(f);
	}
	if (o->top && n_top && (f = an_mi_table(&s->mi, "top", "\"top\"", b, e))) {
		for (size_t i = 0; i < n_top; i++)
			event_row(s, f, &s->top[i], true, i == 0);
		an_mi_table_end(f);
	}
	if (o->stats)
		mi_stats(x);
	if (o->freq)
		mi_freq(x);
}

/* The human text. */
static void end_text(struct end_ctx *x)
{
	struct sched *s = x->s;
	const struct tmx_an_opts *o = x->o;
	FILE *out = s->a->out;
	int64_t b = x->b, e = x->e;
	size_t *tord = x->tord, *tidord = x->tidord, *pord = x->pord, n_top = x->n_top;
	char buf[64], buf2[64], buf3[64], buf4[64], buf5[64];

	fputs("Timerange: [", out);
	an_fmt_timestamp(out, b, true, o->gmt);
	fputs(", ", out);
	an_fmt_timestamp(out, e, true, o->gmt);
	fputs("]\n", out);
	if (o->stats) {
		if (s->want_total) {
			const struct an_agg *g = &s->total;
			us3(buf, sizeof(buf), g->count ? (double)g->min : 0);
			us3(buf2, sizeof(buf2), g->count ? an_agg_avg(g) : 0);
			us3(buf3, sizeof(buf3), g->count ? (double)g->max : 0);
			stdev_str(buf4, sizeof(buf4), an_agg_stdev(g));
			snprintf(buf5, sizeof(buf5), "%llu", (unsigned long long)g->count);
			fprintf(out, "\nScheduling latency stats (total) (us)\n%-12s %-12s %-12s %-12s %-12s\n"
				     "%-12s %-12s %-12s %-12s %-12s\n",
				"Count", "Min", "Avg", "Max", "Stdev", buf5, buf, buf2, buf3, buf4);
		}
		if (s->want_tid) {
			bool first = true;
			for (size_t k = 0; k < s->tids.n; k++) {
				const struct sd_tid *t = an_table_at(&s->tids, tord[k]);
				if (!t->agg.count)
					continue;
				if (first)
					fprintf(out, "\nScheduling latency stats (per-TID) (us)\n"
						     "%-25s %8s  %12s  %12s  %12s  %12s   %s\n",
						"Process", "Count", "Min", "Avg", "Max", "Stdev",
						"Priorities");
				first = false;
				proc_label(out, &t->comm, t->tid, 25, true);
				us3(buf, sizeof(buf), (double)t->agg.min);
				us3(buf2, sizeof(buf2), an_agg_avg(&t->agg));
				us3(buf3, sizeof(buf3), (double)t->agg.max);
				stdev_str(buf4, sizeof(buf4),
					  an_agg_stdev(&t->agg));
				fprintf(out, " %8llu  %12s  %12s  %12s  %12s   ",
					(unsigned long long)t->agg.count, buf, buf2, buf3, buf4);
				an_prios_print(out, &t->prios);
				fputc('\n', out);
			}
		}
		if (s->want_prio && s->prios.n) {
			fprintf(out, "\nScheduling latency stats (per-prio) (us)\n"
				     "%4s %8s  %12s  %12s  %12s  %12s\n",
				"Prio", "Count", "Min", "Avg", "Max", "Stdev");
			for (size_t k = 0; k < s->prios.n; k++) {
				const struct sd_pr *p = an_table_at(&s->prios, pord[k]);
				us3(buf, sizeof(buf), (double)p->agg.min);
				us3(buf2, sizeof(buf2), an_agg_avg(&p->agg));
				us3(buf3, sizeof(buf3), (double)p->agg.max);
				stdev_str(buf4, sizeof(buf4),
					  an_agg_stdev(&p->agg));
				fprintf(out, "%4lld %8llu  %12s  %12s  %12s  %12s\n", (long long)p->prio,
					(unsigned long long)p->agg.count, buf, buf2, buf3, buf4);
			}
		}
	}
	if (o->freq) {
		if (x->fc.has_total)
			print_freq_text(out, "None", &x->fc.total_fb, x->fc.total);
		for (size_t k = 0; s->want_tid && k < s->tids.n; k++) {
			const struct sd_tid *t = an_table_at(&s->tids, tidord[k]);
			char sub[48];
			if (!t->agg.count || !t->has_freq)
				continue;
			snprintf(sub, sizeof(sub), "TID: %lld", (long long)t->tid);
			print_freq_text(out, sub, &t->fb, t->freq);
		}
		for (size_t k = 0; s->want_prio && k < s->prios.n; k++) {
			const struct sd_pr *p = an_table_at(&s->prios, pord[k]);
			char sub[48];
			if (!p->has_freq)
				continue;
			snprintf(sub, sizeof(sub), "Priority: %lld", (long long)p->prio);
			print_freq_text(out, sub, &p->fb, p->freq);
		}
	}
	if (o->log) {
		struct log_ctx c = { out, false, true };
		events_header(out, "Scheduling log");
		each_event(s, log_one, &c);
	}
	if (o->top) {
		events_header(out, "Scheduling top");
		for (size_t i = 0; i < n_top; i++)
			event_row(s, out, &s->top[i], false, i == 0);
	}
}

static void end(void *self, int64_t b, int64_t e)
{
	struct sched *s = self;
	struct end_ctx x = { .s = s, .o = s->o, .b = b, .e = e };

	x.tord = an_table_order(&s->tids, by_comm_lower);
	x.tidord = an_table_order(&s->tids, by_tid);
	x.pord = an_table_order(&s->prios, by_prio);
	if (!x.tord || !x.tidord || !x.pord)
		s->oom = true;
	else {
		if (x.o->top)
			x.n_top = top_sorted(s);
		if (!x.o->freq || freq_count(&x))
			(x.o->mi ? end_mi : end_text)(&x);
	}
	free(x.fc.total);
	free(x.tord);
	free(x.tidord);
	free(x.pord);
}

static void finish(void *self)
{
	struct sched *s = self;

	if (s->o->mi)
		an_mi_print(&s->mi, s->a->out);
}

static bool failed(void *self)
{
	struct sched *s = self;

	return s->oom || s->mi.oom;
}

const struct an_ops an_sched_ops = {
	.create = create,
	.free = destroy,
	.sched_switch_tid = on_switch,
	.prio_changed = prio_changed,
	.end = end,
	.finish = finish,
	.failed = failed,
};
