/*
 * irqstats, irqlog, irqfreq (lttnganalyses core/irq.py, cli/irq.py):
 * hard IRQ handler durations, softirq durations and raise latencies per
 * IRQ number / vector, their frequency distributions and log.  Per IRQ
 * aggregates in memory; the log and the distributions read the
 * interrupts back from a temporary file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/analyze/an_impl.h"

struct irq_stats {
	int64_t id;
	char *name;            /* hard: names joined by ", "; soft: the vector's name */
	size_t name_len;
	struct an_agg dur, raise;
	/* frequency distribution */
	bool has_freq;
	struct an_freq fb;
	uint64_t *freq;
};

struct irq_rec {
	int64_t id, cpu, begin, end, raise_ts;
	uint8_t hard, has_raise;
};

struct irqan {
	struct an *a;
	const struct tmx_an_opts *o;
	bool oom;
	struct an_table hard, soft;   /* struct irq_stats by id */
	struct an_agg all;               /* every interrupt counted (uniform buckets) */
	FILE *recs;
	struct an_mi mi;
};

static const char *const soft_names[] = {
	"HI_SOFTIRQ", "TIMER_SOFTIRQ", "NET_TX_SOFTIRQ", "NET_RX_SOFTIRQ", "BLOCK_SOFTIRQ",
	"BLOCK_IOPOLL_SOFTIRQ", "TASKLET_SOFTIRQ", "SCHED_SOFTIRQ", "HRTIMER_SOFTIRQ", "RCU_SOFTIRQ",
};

static void *create(struct an *a)
{
	struct irqan *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->a = a;
	s->o = a->o;
	s->hard.size = s->soft.size = sizeof(struct irq_stats);
	if ((s->o->log || s->o->freq) && !(s->recs = tmpfile())) {
		free(s);
		return NULL;
	}
	return s;
}

static void free_stats(struct an_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct irq_stats *st = an_table_at(t, i);
		free(st->name);
		free(st->freq);
	}
	an_table_free(t);
}

static void destroy(void *self)
{
	struct irqan *s = self;

	free_stats(&s->hard);
	free_stats(&s->soft);
	if (s->recs)
		fclose(s->recs);
	an_mi_free(&s->mi);
	free(s);
}

/* HardIrqStats.names: distinct names in order, joined by ", " */
static bool has_name(const struct irq_stats *st, const char *name, size_t len)
{
	const char *p = st->name, *end = st->name + st->name_len;

	while (p <= end) {
		const char *q = p;
		while (q + 1 < end && !(q[0] == ',' && q[1] == ' '))
			q++;
		if (q + 1 >= end)
			q = end;
		if ((size_t)(q - p) == len && !memcmp(p, name, len))
			return true;
		p = q + 2;
	}
	return false;
}

static bool add_name(struct irq_stats *st, const char *name, size_t len)
{
	char *n = realloc(st->name, st->name_len + len + 3);

	if (!n)
		return false;
	st->name = n;
	if (st->name_len) {
		memcpy(n + st->name_len, ", ", 2);
		st->name_len += 2;
	}
	memcpy(n + st->name_len, name, len);
	st->name_len += len;
	n[st->name_len] = 0;
	return true;
}

static struct irq_stats *hard_get(struct irqan *s, int64_t id, const char *name, size_t len)
{
	bool added;
	struct irq_stats *st = an_table_get(&s->hard, id, &added);

	if (!st || (added && !add_name(st, name, len))) {
		s->oom = true;
		return NULL;
	}
	st->id = id;
	return st;
}

static void irq_entry(void *self, int64_t irq, const char *name, size_t len)
{
	struct irqan *s = self;
	struct irq_stats *st = an_table_find(&s->hard, irq);

	if (!st)
		hard_get(s, irq, name, len);
	else if (!has_name(st, name, len) && !add_name(st, name, len))
		s->oom = true;
}

static bool keep(struct irqan *s, int64_t cpu, int64_t d)
{
	if (!an_filter_cpu(s->a, cpu))
		return false;
	if (s->o->has_min && (double)d < s->o->min_us * 1000)
		return false;
	if (s->o->has_max && (double)d > s->o->max_us * 1000)
		return false;
	return true;
}

static void record(struct irqan *s, const struct irq_rec *r)
{
	an_agg_add(&s->all, r->end - r->begin);
	if (s->recs && fwrite(r, sizeof(*r), 1, s->recs) != 1)
		s->oom = true;
}

static void irq_exit(void *self, int64_t cpu, int64_t irq, int64_t begin, int64_t end)
{
	struct irqan *s = self;
	struct irq_stats *st;
	struct irq_rec r = { .id = irq, .cpu = cpu, .begin = begin, .end = end, .hard = 1 };

	if (!keep(s, cpu, end - begin))
		return;
	record(s, &r);
	if (!(st = an_table_find(&s->hard, irq)) && !(st = hard_get(s, irq, "unknown", 7)))
		return;
	an_agg_add(&st->dur, end - begin);
}

static void softirq_exit(void *self, int64_t cpu, const struct an_softirq *si, int64_t end)
{
	struct irqan *s = self;
	struct irq_stats *st;
	struct irq_rec r = { .id = si->vec, .cpu = cpu, .begin = si->begin_ts, .end = end,
			     .raise_ts = si->raise_ts, .has_raise = si->has_raise };
	bool added;

	/* a softirq raised, never entered, then exited: lttng-analyses adds None */
	if (!si->has_begin) {
		snprintf(s->a->fatal, sizeof(s->a->fatal),
			 "unsupported operand type(s) for -: 'int' and 'NoneType'");
		return;
	}
	if (!keep(s, cpu, end - si->begin_ts))
		return;
	record(s, &r);
	if (!(st = an_table_get(&s->soft, si->vec, &added))) {
		s->oom = true;
		return;
	}
	if (added) {
		/* SoftIrqStats.names[vec]: a KeyError past the 10 vectors it knows */
		if (si->vec < 0 || si->vec > 9) {
			snprintf(s->a->fatal, sizeof(s->a->fatal), "%lld", (long long)si->vec);
			return;
		}
		st->id = si->vec;
		if (!add_name(st, soft_names[si->vec], strlen(soft_names[si->vec]))) {
			s->oom = true;
			return;
		}
	}
	an_agg_add(&st->dur, end - si->begin_ts);
	if (si->has_raise)
		an_agg_add(&st->raise, si->begin_ts - si->raise_ts);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

/* str(id) in the --irq / --softirq list */
static bool in_list(const char *list, int64_t id)
{
	char num[32];
	size_t n = (size_t)snprintf(num, sizeof(num), "%lld", (long long)id);

	while (list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);
		if (len == n && !memcmp(list, num, n))
			return true;
		list = comma ? comma + 1 : NULL;
	}
	return false;
}

/* _filter_irq (for the log) */
static bool filter_irq(const struct irqan *s, bool hard, int64_t id)
{
	const char *mine = hard ? s->o->irq_list : s->o->softirq_list;
	const char *other = hard ? s->o->softirq_list : s->o->irq_list;

	/* `if self._args.irq_filter_list:` - a list of one empty string is true */
	if (mine)
		return in_list(mine, id);
	if (other)
		return false;
	return true;
}

static int64_t *sorted_ids(const struct an_table *t)
{
	int64_t *ids = malloc((t->n ? t->n : 1) * sizeof(*ids));

	if (!ids)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		ids[i] = ((const struct irq_stats *)an_table_at(t, i))->id;
	for (size_t i = 1; i < t->n; i++)
		for (size_t j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
			int64_t x = ids[j];
			ids[j] = ids[j - 1];
			ids[j - 1] = x;
		}
	return ids;
}

static void us3(char *buf, size_t n, double ns)
{
	snprintf(buf, n, "%.3f", ns / 1000);
}

static void irq_do(FILE *f, bool hard, const struct irq_stats *st)
{
	fprintf(f, "{\"class\": \"irq\", \"hard\": %s, \"nr\": %lld, \"name\": ", hard ? "true" : "false",
		(long long)st->id);
	an_json_string(f, st->name, st->name_len);
	fputc('}', f);
}

static void mi_stats_row(FILE *f, bool hard, const struct irq_stats *st, bool first)
{
	fputs(first ? "[" : ", [", f);
	irq_do(f, hard, st);
	fprintf(f, ", {\"class\": \"number\", \"value\": %llu}, ", (unsigned long long)st->dur.count);
	an_mi_duration_ns(f, st->dur.min);
	fputs(", ", f);
	an_mi_duration(f, an_agg_avg(&st->dur));
	fputs(", ", f);
	an_mi_duration_ns(f, st->dur.max);
	fputs(", ", f);
	an_mi_duration_or_unknown(f, an_agg_stdev(&st->dur));
	if (!hard) {
		fprintf(f, ", {\"class\": \"number\", \"value\": %llu}, ", (unsigned long long)st->raise.count);
		if (!st->raise.count) {
			fputs("{\"class\": \"unknown\"}, {\"class\": \"unknown\"}, {\"class\": \"unknown\"}, "
			      "{\"class\": \"unknown\"}", f);
		} else {
			an_mi_duration_ns(f, st->raise.min);
			fputs(", ", f);
			an_mi_duration(f, an_agg_avg(&st->raise));
			fputs(", ", f);
			an_mi_duration_ns(f, st->raise.max);
			fputs(", ", f);
			an_mi_duration_or_unknown(f, an_agg_stdev(&st->raise));
		}
	}
	fputc(']', f);
}

static void text_stats_row(FILE *out, bool hard, const struct irq_stats *st)
{
	char nr[32], name[512], cnt[32], mn[48], av[48], mx[48], sd[48];
	double v = an_agg_stdev(&st->dur);
	size_t w;

	snprintf(nr, sizeof(nr), "%lld:", (long long)st->id);
	snprintf(name, sizeof(name), "<%.*s>", (int)st->name_len, st->name);
	snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)st->dur.count);
	us3(mn, sizeof(mn), (double)st->dur.min);
	us3(av, sizeof(av), an_agg_avg(&st->dur));
	us3(mx, sizeof(mx), (double)st->dur.max);
	if (isnan(v))
		snprintf(sd, sizeof(sd), "?");
	else
		us3(sd, sizeof(sd), v);
	/* '{:<3} {:<18} {:>5} {:>12} {:>12} {:>12} {:>12} {:<2}' */
	fprintf(out, "%-3s ", nr);
	fputs(name, out);
	for (w = an_utf8_len(name, strlen(name)); w < 18; w++)
		fputc(' ', out);
	fprintf(out, " %5s %12s %12s %12s %12s  |", cnt, mn, av, mx, sd);
	if (!hard && st->raise.count) {
		v = an_agg_stdev(&st->raise);
		us3(mn, sizeof(mn), (double)st->raise.min);
		us3(av, sizeof(av), an_agg_avg(&st->raise));
		us3(mx, sizeof(mx), (double)st->raise.max);
		if (isnan(v))
			snprintf(sd, sizeof(sd), "?");
		else
			us3(sd, sizeof(sd), v);
		fprintf(out, " %6llu %12s %12s %12s %12s", (unsigned long long)st->raise.count, mn, av,
			mx, sd);
	}
	fputc('\n', out);
}

/* cli/irq.py's headers, as its format strings make them */
static const char hard_header[] =
	"Hard IRQ                                             Duration (us)\n"
	"                       count          min          avg          max        stdev       \n"
	"----------------------------------------------------------------------------------|";
static const char soft_header[] =
	"Soft IRQ                                             Duration (us)                                        Raise latency (us)\n"
	"                       count          min          avg          max        stdev  |  count          min          avg          max        stdev       \n"
	"----------------------------------------------------------------------------------|------------------------------------------------------------";

typedef void (*rec_fn)(struct irqan *s, const struct irq_rec *r, void *ctx);

static void each_rec(struct irqan *s, rec_fn fn, void *ctx)
{
	struct irq_rec buf[256];
	size_t n;

	if (!s->recs)
		return;
	fflush(s->recs);
	rewind(s->recs);
	while ((n = fread(buf, sizeof(buf[0]), 256, s->recs)) > 0)
		for (size_t i = 0; i < n; i++)
			fn(s, &buf[i], ctx);
	fseek(s->recs, 0, SEEK_END);
}

static void freq_one(struct irqan *s, const struct irq_rec *r, void *ctx)
{
	struct irq_stats *st = an_table_find(r->hard ? &s->hard : &s->soft, r->id);

	(void)ctx;
	if (st && st->has_freq)
		an_freq_add(&st->fb, st->freq, r->end - r->begin);
}

struct log_ctx {
	FILE *f;
	bool mi, first;
};

static void log_one(struct irqan *s, const struct irq_rec *r, void *ctx)
{
	struct log_ctx *c = ctx;
	const struct irq_stats *st = an_table_find(r->hard ? &s->hard : &s->soft, r->id);

	if (!filter_irq(s, r->hard, r->id) || !st)
		return;
	if (c->mi) {
		fprintf(c->f, "%s{\"class\": \"time-range\", \"begin\": {\"class\": \"timestamp\", "
			      "\"value\": %lld}, \"end\": {\"class\": \"timestamp\", \"value\": %lld}}, ",
			c->first ? "[" : ", [", (long long)r->begin, (long long)r->end);
		if (r->hard)
			fputs("null", c->f);
		else if (!r->has_raise)
			fputs("{\"class\": \"unknown\"}", c->f);
		else
			fprintf(c->f, "{\"class\": \"timestamp\", \"value\": %lld}", (long long)r->raise_ts);
		fprintf(c->f, ", {\"class\": \"cpu\", \"id\": %lld}, ", (long long)r->cpu);
		irq_do(c->f, r->hard, st);
		fputc(']', c->f);
	} else {
		/* '[{:<18}, {:<18}] {:>15} {:>4}  {:<9} {:>4}  {:<22}' */
		char a[64], b[64], d[48], cpu[32];
		FILE *m;
		size_t w;
		m = fmemopen(a, sizeof(a), "w");
		an_fmt_timestamp(m, r->begin, s->a->multi_day, s->o->gmt);
		fclose(m);
		m = fmemopen(b, sizeof(b), "w");
		an_fmt_timestamp(m, r->end, s->a->multi_day, s->o->gmt);
		fclose(m);
		us3(d, sizeof(d), (double)(r->end - r->begin));
		snprintf(cpu, sizeof(cpu), "%lld", (long long)r->cpu);
		fprintf(c->f, "[%-18s, %-18s] %15s %4s  %-9s %4lld  ", a, b, d, cpu,
			r->hard ? "IRQ" : "SoftIRQ", (long long)r->id);
		fwrite(st->name, 1, st->name_len, c->f);
		w = an_utf8_len(st->name, st->name_len);
		if (!r->hard && r->has_raise) {
			FILE *rm;
			char rs[96];
			rm = fmemopen(rs, sizeof(rs), "w");
			fputs(" (raised at ", rm);
			an_fmt_timestamp(rm, r->raise_ts, s->a->multi_day, s->o->gmt);
			fputc(')', rm);
			fclose(rm);
			fputs(rs, c->f);
			w += strlen(rs);
		}
		for (; w < 22; w++)
			fputc(' ', c->f);
		fputc('\n', c->f);
	}
	c->first = false;
}

/* the IRQs that get a stats row and a distribution: (hard, stats) in output order */
struct sel {
	bool hard;
	struct irq_stats *st;
};

/* What end() works from: the IRQs selected (--irq, --softirq) in order. */
struct end_ctx {
	struct irqan *s;
	const struct tmx_an_opts *o;
	struct sel *sel;
	size_t n_sel;
	int64_t b, e;
};

/* The IRQs whose statistics or distributions are printed; false: out of memory. */
static bool select_irqs(struct end_ctx *x)
{
	struct irqan *s = x->s;
	const struct tmx_an_opts *o = x->o;
	bool do_hard = o->irq_list || !o->softirq_list;
	bool do_soft = o->softirq_list || !o->irq_list;
	struct sel *sel;

	x->sel = sel = calloc(s->hard.n + s->soft.n + 1, sizeof(*sel));
	if (!sel) {
		s->oom = true;
		return false;
	}
	for (int pass = 0; pass < 2; pass++) {
		bool hard = pass == 0;
		struct an_table *t = hard ? &s->hard : &s->soft;
		const char *list = hard ? o->irq_list : o->softirq_list;
		int64_t *ids;
		if (hard ? !do_hard : !do_soft)
			continue;
		if (!(ids = sorted_ids(t))) {
			s->oom = true;
			return false;
		}
		for (size_t i = 0; i < t->n; i++) {
			struct irq_stats *st = an_table_find(t, ids[i]);
			if ((list && !in_list(list, ids[i])) || !st->dur.count)
				continue;
			sel[x->n_sel++] = (struct sel){ hard, st };
		}
		free(ids);
	}
	return true;
}

/* The selected IRQs' frequency distributions (--freq); false: out of memory. */
static bool freq_count(struct end_ctx *x)
{
	struct irqan *s = x->s;
	const struct tmx_an_opts *o = x->o;
	struct an_freq uni;
	bool uniform = o->freq_uniform || o->freq_series;

	if (uniform)
		an_freq_uniform(&uni, o, s->all.count, s->all.min, s->all.max);
	for (size_t i = 0; i < x->n_sel; i++) {
		struct irq_stats *st = x->sel[i].st;
		st->has_freq = an_freq_bounds(&st->fb, o, true, st->dur.min, st->dur.max,
					      uniform ? &uni : NULL);
		if (st->has_freq && !(st->freq = calloc((size_t)o->freq_resolution, 8)))
			s->oom = true;
	}
	if (s->oom)
		return false;
	each_rec(s, freq_one, NULL);
	return true;
}

/* --mi --log: the log table, only when it has rows (written to memory first). */
static void mi_log(struct end_ctx *x)
{
	struct irqan *s = x->s;
	struct log_ctx c = { NULL, true, true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int64_t b = x->b, e = x->e;

	if ((c.f = open_memstream(&buf, &len))) {
		each_rec(s, log_one, &c);
		fclose(c.f);
		if (!c.first && (f = an_mi_table(&s->mi, "log", "\"log\"", b, e))) {
			fwrite(buf, 1, len, f);
			an_mi_table_end(f);
		}
	}
	free(buf);
}

/* --mi --stats: the hard and soft IRQ tables. */
static void mi_stats(struct end_ctx *x)
{
	struct irqan *s = x->s;
	struct sel *sel = x->sel;
	size_t n_sel = x->n_sel;
	int64_t b = x->b, e = x->e;
	FILE *f = NULL;

	for (int pass = 0; pass < 2; pass++) {
		bool hard = pass == 0, first = true;
		for (size_t i = 0; i < n_sel; i++) {
			if (sel[i].hard != hard)
				continue;
			if (first && !(f = an_mi_table(&s->mi, hard ? "hard-stats" : "soft-stats",
						       hard ? "\"hard-stats\"" : "\"soft-stats\"", b, e)))
				break;
			mi_stats_row(f, hard, sel[i].st, first);
			first = false;
		}
		if (!first)
			an_mi_table_end(f);
	}
}

/* --mi --freq: one distribution table per IRQ. */
static void mi_freq_each(struct end_ctx *x)
{
	struct irqan *s = x->s;
	struct sel *sel = x->sel;
	size_t n_sel = x->n_sel;
	int64_t b = x->b, e = x->e;
	FILE *f;

	for (size_t i = 0; i < n_sel; i++) {
		const struct irq_stats *st = sel[i].st;
		char *cls = NULL;
		size_t len = 0;
		FILE *c;
		if (!st->has_freq || !(c = open_memstream(&cls, &len)))
			continue;
		{
			char title[600];
			snprintf(title, sizeof(title),
				 "Interrupt handler duration frequency distribution [%.*s (%lld)]",
				 (int)st->name_len, st->name, (long long)st->id);
			fputs("{\"inherit\": \"freq\", \"title\": ", c);
			an_json_string(c, title, strlen(title));
			fputc('}', c);
		}
		fclose(c);
		if ((f = an_mi_table(&s->mi, "freq", cls, b, e))) {
			an_freq_mi_rows(f, &st->fb, st->freq);
			an_mi_table_end(f);
		}
		free(cls);
	}
}

/* --mi --freq-series: the IRQs' distributions as columns of one table. */
static void mi_freq_series(struct end_ctx *x)
{
	struct irqan *s = x->s;
	struct sel *sel = x->sel;
	size_t n_sel = x->n_sel;
	int64_t b = x->b, e = x->e;
	FILE *f;

	char *cls = NULL;
	size_t len = 0;
	FILE *c = open_memstream(&cls, &len);
	if (c) {
		fputs("{\"title\": \"Interrupt handlers duration frequency distributions\", "
		      "\"column-descriptions\": [{\"title\": \"Duration (lower bound)\", "
		      "\"class\": \"duration\"}, {\"title\": \"Duration (upper bound)\", "
		      "\"class\": \"duration\"}", c);
		for (size_t i = 0; i < n_sel; i++) {
			char title[600];
			snprintf(title, sizeof(title), "%.*s (%lld)", (int)sel[i].st->name_len,
				 sel[i].st->name, (long long)sel[i].st->id);
			fputs(", {\"title\": ", c);
			an_json_string(c, title, strlen(title));
			fputs(", \"class\": \"number\", \"unit\": \"interrupts\"}", c);
		}
		fputs("]}", c);
		fclose(c);
		if ((f = an_mi_table(&s->mi, NULL, cls, b, e))) {
			const struct an_freq *fb = &sel[0].st->fb;
			for (long r = 0; r < fb->res; r++) {
				fputs(r ? ", [" : "[", f);
				an_mi_duration(f, ((double)r * fb->step + fb->min) * 1000);
				fputs(", ", f);
				an_mi_duration(f, ((double)(r + 1) * fb->step + fb->min) * 1000);
				for (size_t i = 0; i < n_sel; i++)
					fprintf(f, ", {\"class\": \"number\", \"value\": %llu}",
						sel[i].st->has_freq ?
							(unsigned long long)sel[i].st->freq[r] : 0ULL);
				fputc(']', f);
			}
			an_mi_table_end(f);
		}
		free(cls);
	}
}

static void end_mi(struct end_ctx *x)
{
	const struct tmx_an_opts *o = x->o;

	if (o->log)
		mi_log(x);
	if (o->stats)
		mi_stats(x);
	if (o->freq && !o->freq_series)
		mi_freq_each(x);
	else if (o->freq && x->n_sel && x->sel[0].st->has_freq)
		mi_freq_series(x);
}

/* The human text. */
static void end_text(struct end_ctx *x)
{
	struct irqan *s = x->s;
	const struct tmx_an_opts *o = x->o;
	struct sel *sel = x->sel;
	size_t n_sel = x->n_sel;
	FILE *out = s->a->out;
	int64_t b = x->b, e = x->e;

	fputs("Timerange: [", out);
	an_fmt_timestamp(out, b, true, o->gmt);
	fputs(", ", out);
	an_fmt_timestamp(out, e, true, o->gmt);
	fputs("]\n", out);
	if (o->stats || o->freq) {
		if (o->stats && n_sel) {
			if (o->freq) {
				for (size_t i = 0; i < n_sel; i++) {
					fprintf(out, "%s\n", sel[i].hard ? hard_header : soft_header);
					text_stats_row(out, sel[i].hard, sel[i].st);
					if (sel[i].st->has_freq) {
						char title[600];
						fputc('\n', out);
						snprintf(title, sizeof(title),
							 "Handler duration frequency distribution %.*s (%lld)",
							 (int)sel[i].st->name_len, sel[i].st->name,
							 (long long)sel[i].st->id);
						an_freq_text(out, title, &sel[i].st->fb, sel[i].st->freq);
					}
					fputc('\n', out);
				}
			} else {
				bool hard_printed = false, soft_printed = false;
				for (size_t i = 0; i < n_sel; i++) {
					if (sel[i].hard && !hard_printed) {
						fprintf(out, "%s\n", hard_header);
						hard_printed = true;
					} else if (!sel[i].hard && !soft_printed) {
						if (hard_printed)
							fputc('\n', out);
						fprintf(out, "%s\n", soft_header);
						soft_printed = true;
					}
					text_stats_row(out, sel[i].hard, sel[i].st);
				}
			}
		} else if (o->freq) {
			for (size_t i = 0; i < n_sel; i++) {
				char title[600];
				if (!sel[i].st->has_freq)
					continue;
				fputc('\n', out);
				snprintf(title, sizeof(title), "Handler duration frequency distribution %.*s (%lld)",
					 (int)sel[i].st->name_len, sel[i].st->name, (long long)sel[i].st->id);
				an_freq_text(out, title, &sel[i].st->fb, sel[i].st->freq);
			}
		}
		if (o->log)
			fputc('\n', out);
	}
	if (o->log) {
		struct log_ctx c = { out, false, true };
		fprintf(out, "%-20s %-19s %15s %4s  %-9s %4s  %-22s\n", "Begin", "End", "Duration (us)",
			"CPU", "Type", "#", "Name");
		each_rec(s, log_one, &c);
	}
}

static void end(void *self, int64_t b, int64_t e)
{
	struct irqan *s = self;
	struct end_ctx x = { .s = s, .o = s->o, .b = b, .e = e };

	if ((x.o->stats || x.o->freq) && !select_irqs(&x))
		goto out;
	if (x.o->freq && !freq_count(&x))
		goto out;
	(x.o->mi ? end_mi : end_text)(&x);
out:
	free(x.sel);
}

static void finish(void *self)
{
	struct irqan *s = self;

	if (s->o->mi)
		an_mi_print(&s->mi, s->a->out);
}

static bool failed(void *self)
{
	struct irqan *s = self;

	return s->oom || s->mi.oom;
}

const struct an_ops an_irq_ops = {
	.create = create,
	.free = destroy,
	.irq_entry = irq_entry,
	.irq_exit = irq_exit,
	.softirq_exit = softirq_exit,
	.end = end,
	.finish = finish,
	.failed = failed,
};
