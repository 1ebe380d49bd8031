/*
 * cputop (lttnganalyses core/cputop.py, cli/cputop.py): per-task and
 * per-CPU shares of the period's duration spent running (the idle task
 * excluded), migrations and priorities of each task, and the average
 * over the CPUs the state knows.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/analyze/an_impl.h"
#include "common/grow.h"

struct ct_cpu {
	int64_t id;
	uint64_t total;
	bool has_start;
	int64_t start;
	double usage;
};

struct ct_tid {
	int64_t tid;
	struct an_comm comm;
	uint64_t total, migrations;
	bool has_last;
	int64_t last;
	double usage;
	/* format_prio_list only needs each priority's count: kept sorted */
	struct an_prios prios;
};

struct cputop {
	struct an *a;
	int64_t begin;
	struct an_table cpus, tids;
	bool oom;
	/* MI: the tables of the period, printed by finish() */
	char *mi;
	size_t mi_len;
};

static void *create(struct an *a)
{
	struct cputop *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->a = a;
	c->cpus.size = sizeof(struct ct_cpu);
	c->tids.size = sizeof(struct ct_tid);
	return c;
}

static void destroy(void *self)
{
	struct cputop *c = self;

	for (size_t i = 0; i < c->tids.n; i++)
		free(((struct ct_tid *)an_table_at(&c->tids, i))->prios.v);
	an_table_free(&c->cpus);
	an_table_free(&c->tids);
	free(c->mi);
	free(c);
}

static void begin(void *self, int64_t ts)
{
	((struct cputop *)self)->begin = ts;
}

static void update_prio(struct cputop *c, struct ct_tid *t, int64_t prio)
{
	if (!an_prios_add(&t->prios, prio))
		c->oom = true;
}

/* Cputop._filter_process: the idle task (tid 0) never counts. */
static bool filter_process(const struct cputop *c, const struct an_proc *p)
{
	return !(p && p->tid == 0) && an_filter_process(c->a, p);
}

static struct ct_tid *tid_get(struct cputop *c, int64_t tid, bool *added)
{
	struct ct_tid *t = an_table_get(&c->tids, tid, added);

	if (!t)
		c->oom = true;
	else if (*added)
		t->tid = tid;
	return t;
}

static void sched_switch(void *self, int64_t ts, int64_t cpu_id, int64_t prev_tid,
			 const struct an_comm *prev_comm, int64_t next_tid,
			 const struct an_comm *next_comm, const struct an_proc *wakee)
{
	struct cputop *c = self;
	struct ct_cpu *cpu;
	struct ct_tid *prev, *next;
	bool added;

	if (!an_filter_cpu(c->a, cpu_id))
		return;
	/* per CPU */
	if (!(cpu = an_table_get(&c->cpus, cpu_id, &added))) {
		c->oom = true;
		return;
	}
	if (added) {
		cpu->id = cpu_id;
		cpu->has_start = true;
		cpu->start = c->begin;
	}
	if (cpu->has_start)
		cpu->total += (uint64_t)(ts - cpu->start);
	cpu->has_start = filter_process(c, wakee);
	cpu->start = ts;
	/* per task: a task first seen leaving the CPU ran since the period began */
	if (!(prev = tid_get(c, prev_tid, &added)))
		return;
	if (added) {
		prev->comm = *prev_comm;
		prev->has_last = true;
		prev->last = c->begin;
	}
	if (prev->has_last) {
		prev->total += (uint64_t)(ts - prev->last);
		prev->has_last = false;
	}
	if (!filter_process(c, wakee))
		return;
	if (!(next = tid_get(c, next_tid, &added)))
		return;
	if (added) {
		next->comm = *next_comm;
		if (wakee->has_prio)
			update_prio(c, next, wakee->prio);
	}
	next->has_last = true;
	next->last = ts;
}

static void migrate(void *self, const struct an_proc *p, int64_t cpu_id)
{
	struct cputop *c = self;
	struct ct_tid *t;
	bool added;

	if (!filter_process(c, p) || !an_filter_cpu(c->a, cpu_id))
		return;
	if (!(t = tid_get(c, p->tid, &added)))
		return;
	if (added)
		t->comm = p->comm;
	t->migrations++;
}

static void prio_changed(void *self, int64_t ts, int64_t tid, int64_t prio)
{
	struct cputop *c = self;
	struct ct_tid *t = an_table_find(&c->tids, tid);

	(void)ts;
	if (t)
		update_prio(c, t, prio);
}

static double share(uint64_t total, int64_t duration)
{
	return duration != 0 ? (double)(total * 100) / (double)duration : 0.0;
}

/* Python's sorted(..., key=usage, reverse=True): descending (equal ones in
 * insertion order: an_table_order()). */
static int usage_desc(double a, double b)
{
	return a != b ? (a > b ? -1 : 1) : 0;
}

static int tid_by_usage(const void *x, const void *y)
{
	return usage_desc(((const struct ct_tid *)x)->usage, ((const struct ct_tid *)y)->usage);
}

static int cpu_by_usage(const void *x, const void *y)
{
	return usage_desc(((const struct ct_cpu *)x)->usage, ((const struct ct_cpu *)y)->usage);
}

static int cpu_by_id(const void *x, const void *y)
{
	int64_t a = ((const struct ct_cpu *)x)->id, b = ((const struct ct_cpu *)y)->id;

	return (a > b) - (a < b);
}


static void mi_time_range(FILE *f, int64_t b, int64_t e)
{
	fprintf(f, "\"time-range\": {\"class\": \"time-range\", \"begin\": {\"class\": \"timestamp\", "
		   "\"value\": %lld}, \"end\": {\"class\": \"timestamp\", \"value\": %lld}}",
		(long long)b, (long long)e);
}

/* ", " between MI tables of the results list */
static void mi_table_start(FILE *f, bool *first, const char *cls, int64_t b, int64_t e)
{
	if (!*first)
		fputs(", ", f);
	*first = false;
	fprintf(f, "{\"class\": \"%s\", ", cls);
	mi_time_range(f, b, e);
	fputs(", \"data\": [", f);
}

/* What end() works from: the tables' orders, the rows kept, the total. */
struct end_ctx {
	struct cputop *c;
	size_t *tids_order, *cpus_by_id, n_tids, n_cpus_state;
	double total;
	int64_t b, e;
};

/* The --mi tables, kept until the analysis' document is written. */
static void end_mi(struct end_ctx *x)
{
	struct cputop *c = x->c;
	size_t *tids_order = x->tids_order, *cpus_by_id = x->cpus_by_id, n_tids = x->n_tids;
	int64_t b = x->b, e = x->e;
	bool first = true;
	FILE *f = open_memstream(&c->mi, &c->mi_len);

	if (!f) {
		c->oom = true;
		return;
	}
	if (n_tids) {
		mi_table_start(f, &first, "per-process", b, e);
		for (size_t k = 0; k < n_tids; k++) {
			const struct ct_tid *t = an_table_at(&c->tids, tids_order[k]);
			char *pl = NULL;
			size_t pl_len = 0;
			FILE *pf = open_memstream(&pl, &pl_len);
			if (pf) {
				an_prios_print(pf, &t->prios);
				fclose(pf);
			}
			fputs(k ? ", [" : "[", f);
			fputs("{\"class\": \"process\", \"name\": ", f);
			an_json_string(f, t->comm.s, t->comm.len);
			fprintf(f, ", \"tid\": %lld}, {\"class\": \"number\", \"value\": %llu}, "
				   "{\"class\": \"string\", \"value\": ",
				(long long)t->tid, (unsigned long long)t->migrations);
			an_json_string(f, pl ? pl : "", pl_len);
			fputs("}, {\"class\": \"ratio\", \"value\": ", f);
			an_json_double(f, t->usage / 100);
			fputs("}]", f);
			free(pl);
		}
		fputs("]}", f);
	}
	if (c->cpus.n) {
		mi_table_start(f, &first, "per-cpu", b, e);
		for (size_t k = 0; k < c->cpus.n; k++) {
			const struct ct_cpu *cpu = an_table_at(&c->cpus, cpus_by_id[k]);
			fprintf(f, "%s{\"class\": \"cpu\", \"id\": %lld}, {\"class\": \"ratio\", "
				   "\"value\": ", k ? ", [" : "[", (long long)cpu->id);
			an_json_double(f, cpu->usage / 100);
			fputs("}]", f);
		}
		fputs("]}", f);
	}
	if (x->n_cpus_state) {
		mi_table_start(f, &first, "total", b, e);
		fputs("[{\"class\": \"ratio\", \"value\": ", f);
		an_json_double(f, x->total / 100);
		fputs("}]]}", f);
	}
	fclose(f);
}

/* The per-TID usage bar graph; false: out of memory. */
static bool text_tids(struct end_ctx *x, FILE *f)
{
	struct cputop *c = x->c;
	size_t *tids_order = x->tids_order, n_tids = x->n_tids;
	struct an_bar *rows = calloc(n_tids ? n_tids : 1, sizeof(*rows));
	char header[128];

	if (!rows) {
		c->oom = true;
		return false;
	}
	for (size_t k = 0; k < n_tids; k++) {
		const struct ct_tid *t = an_table_at(&c->tids, tids_order[k]);
		char name[AN_COMM_MAX + 32];
		size_t len, w;
		FILE *lf;
		rows[k].value = t->usage / 100 * 100;
		snprintf(rows[k].value_str, sizeof(rows[k].value_str), "%.2f", rows[k].value);
		lf = open_memstream(&rows[k].label, &len);
		if (!lf)
			continue;
		snprintf(name, sizeof(name), "%.*s (%lld)", (int)t->comm.len, t->comm.s,
			 (long long)t->tid);
		/* '  {:<25} {:>10}   {}': widths in characters */
		fputs("  ", lf);
		fputs(name, lf);
		for (w = an_utf8_len(name, strlen(name)); w < 25; w++)
			fputc(' ', lf);
		fprintf(lf, " %10llu   ", (unsigned long long)t->migrations);
		an_prios_print(lf, &t->prios);
		fclose(lf);
	}
	snprintf(header, sizeof(header), "  %-25s %10s   %s", "Process", "Migrations",
		 "Priorities");
	an_bar_graph(f, "Per-TID Usage", header, "%", rows, n_tids);
	for (size_t k = 0; k < n_tids; k++)
		free(rows[k].label);
	free(rows);
	return true;
}

/* The per-CPU usage bar graph; false: out of memory. */
static bool text_cpus(struct end_ctx *x, FILE *f)
{
	struct cputop *c = x->c;
	struct an_bar *rows = calloc(c->cpus.n ? c->cpus.n : 1, sizeof(*rows));

	if (!rows) {
		c->oom = true;
		return false;
	}
	for (size_t k = 0; k < c->cpus.n; k++) {
		const struct ct_cpu *cpu = an_table_at(&c->cpus, x->cpus_by_id[k]);
		rows[k].value = cpu->usage / 100 * 100;
		snprintf(rows[k].value_str, sizeof(rows[k].value_str), "%.2f", rows[k].value);
		rows[k].label = malloc(32);
		if (rows[k].label)
			snprintf(rows[k].label, 32, "CPU %lld", (long long)cpu->id);
	}
	an_bar_graph(f, "Per-CPU Usage", NULL, "%", rows, c->cpus.n);
	for (size_t k = 0; k < c->cpus.n; k++)
		free(rows[k].label);
	free(rows);
	return true;
}

static void end_text(struct end_ctx *x)
{
	struct an *a = x->c->a;
	FILE *f = a->out;

	fputs("Timerange: [", f);
	an_fmt_timestamp(f, x->b, true, a->o->gmt);
	fputs(", ", f);
	an_fmt_timestamp(f, x->e, true, a->o->gmt);
	fputs("]\n", f);
	if (text_tids(x, f) && text_cpus(x, f) && x->n_cpus_state)
		fprintf(f, "\nTotal CPU Usage: %.2f%%\n\n", x->total / 100 * 100);
}

static void end(void *self, int64_t b, int64_t e)
{
	struct cputop *c = self;
	struct an *a = c->a;
	int64_t duration = e - c->begin;
	struct end_ctx x = { .c = c, .n_cpus_state = an_cpu_count(a), .b = b, .e = e };
	size_t *cpus_by_usage;

	for (size_t i = 0; i < c->cpus.n; i++) {
		struct ct_cpu *cpu = an_table_at(&c->cpus, i);
		if (cpu->has_start)
			cpu->total += (uint64_t)(e - cpu->start);
		cpu->usage = share(cpu->total, duration);
	}
	for (size_t i = 0; i < c->tids.n; i++) {
		struct ct_tid *t = an_table_at(&c->tids, i);
		if (t->has_last)
			t->total += (uint64_t)(e - t->last);
		t->usage = share(t->total, duration);
	}
	x.tids_order = an_table_order(&c->tids, tid_by_usage);
	x.cpus_by_id = an_table_order(&c->cpus, cpu_by_id);
	cpus_by_usage = an_table_order(&c->cpus, cpu_by_usage);
	if (!x.tids_order || !x.cpus_by_id || !cpus_by_usage) {
		c->oom = true;
		goto out;
	}
	x.n_tids = c->tids.n;
	if (a->o->limit > 0 && x.n_tids > (size_t)a->o->limit)
		x.n_tids = (size_t)a->o->limit;
	for (size_t i = 0; i < c->cpus.n; i++)
		x.total += ((struct ct_cpu *)an_table_at(&c->cpus, cpus_by_usage[i]))->usage;
	if (x.n_cpus_state)
		x.total /= (double)x.n_cpus_state;
	if (a->o->mi)
		end_mi(&x);
	else
		end_text(&x);
out:
	free(x.tids_order);
	free(x.cpus_by_id);
	free(cpus_by_usage);
}

static void finish(void *self)
{
	struct cputop *c = self;

	if (!c->a->o->mi)
		return;
	fputs("{\"results\": [", c->a->out);
	if (c->mi)
		fwrite(c->mi, 1, c->mi_len, c->a->out);
	fputs("]}\n", c->a->out);
}

static bool failed(void *self)
{
	return ((struct cputop *)self)->oom;
}

const struct an_ops an_cputop_ops = {
	.create = create,
	.free = destroy,
	.begin = begin,
	.sched_switch = sched_switch,
	.migrate = migrate,
	.prio_changed = prio_changed,
	.end = end,
	.finish = finish,
	.failed = failed,
};
