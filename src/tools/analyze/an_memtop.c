/*
 * memtop (lttnganalyses core/memtop.py, cli/memtop.py): pages allocated
 * and freed by the task running when the kernel's page allocator was
 * called (mm_page_alloc / mm_page_free), the top --limit tasks of each.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/analyze/an_impl.h"

struct mt_tid {
	int64_t tid;
	struct an_comm comm;
	uint64_t alloc, freed;
};

struct memtop {
	struct an *a;
	struct an_table tids;
	bool oom;
	struct an_mi mi;
};

static void *create(struct an *a)
{
	struct memtop *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->a = a;
	m->tids.size = sizeof(struct mt_tid);
	return m;
}

static void destroy(void *self)
{
	struct memtop *m = self;

	an_table_free(&m->tids);
	an_mi_free(&m->mi);
	free(m);
}

static void page(void *self, const struct an_proc *p, int64_t cpu, bool alloc)
{
	struct memtop *m = self;
	struct mt_tid *t;
	bool added;

	if (!an_filter_process(m->a, p) || !an_filter_cpu(m->a, cpu))
		return;
	if (!(t = an_table_get(&m->tids, p->tid, &added))) {
		m->oom = true;
		return;
	}
	if (added) {
		t->tid = p->tid;
		t->comm = p->comm;
	}
	if (alloc)
		t->alloc++;
	else
		t->freed++;
}

static const struct an_table *sort_tab;
static bool sort_alloc;
static int by_pages(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const struct mt_tid *a = an_table_at(sort_tab, i), *b = an_table_at(sort_tab, j);
	uint64_t va = sort_alloc ? a->alloc : a->freed, vb = sort_alloc ? b->alloc : b->freed;

	if (va != vb)
		return va > vb ? -1 : 1;
	return i < j ? -1 : 1;
}

static void per_tid(struct memtop *m, int64_t b, int64_t e, bool alloc)
{
	struct an *a = m->a;
	size_t n = m->tids.n, *ord = malloc((n ? n : 1) * sizeof(*ord));
	FILE *f;

	if (!ord) {
		m->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	sort_tab = &m->tids;
	sort_alloc = alloc;
	qsort(ord, n, sizeof(*ord), by_pages);
	if (a->o->limit > 0 && n > (size_t)a->o->limit)
		n = (size_t)a->o->limit;
	if (a->o->mi) {
		if (n && (f = an_mi_table(&m->mi, alloc ? "allocd" : "freed",
					  alloc ? "\"allocd\"" : "\"freed\"", b, e))) {
			for (size_t k = 0; k < n; k++) {
				const struct mt_tid *t = an_table_at(&m->tids, ord[k]);
				fputs(k ? ", [" : "[", f);
				fputs("{\"class\": \"process\", \"name\": ", f);
				an_json_string(f, t->comm.s, t->comm.len);
				fprintf(f, ", \"tid\": %lld}, {\"class\": \"number\", \"value\": %llu}]",
					(long long)t->tid, (unsigned long long)(alloc ? t->alloc : t->freed));
			}
			an_mi_table_end(f);
		}
	} else {
		struct an_bar *rows = calloc(n ? n : 1, sizeof(*rows));
		if (!rows) {
			m->oom = true;
			free(ord);
			return;
		}
		for (size_t k = 0; k < n; k++) {
			const struct mt_tid *t = an_table_at(&m->tids, ord[k]);
			uint64_t v = alloc ? t->alloc : t->freed;
			rows[k].value = (double)v;
			snprintf(rows[k].value_str, sizeof(rows[k].value_str), "%llu", (unsigned long long)v);
			if ((rows[k].label = malloc(AN_COMM_MAX + 32)))
				snprintf(rows[k].label, AN_COMM_MAX + 32, "%.*s (%lld)", (int)t->comm.len,
					 t->comm.s, (long long)t->tid);
		}
		an_bar_graph(a->out, alloc ? "Per-TID Memory Allocations" : "Per-TID Memory Deallocations",
			     "Process", "pages", rows, n);
		for (size_t k = 0; k < n; k++)
			free(rows[k].label);
		free(rows);
	}
	free(ord);
}

static void end(void *self, int64_t b, int64_t e)
{
	struct memtop *m = self;
	struct an *a = m->a;
	uint64_t alloc = 0, freed = 0;
	FILE *f;

	for (size_t i = 0; i < m->tids.n; i++) {
		const struct mt_tid *t = an_table_at(&m->tids, i);
		alloc += t->alloc;
		freed += t->freed;
	}
	if (!a->o->mi) {
		fputs("Timerange: [", a->out);
		an_fmt_timestamp(a->out, b, true, a->o->gmt);
		fputs(", ", a->out);
		an_fmt_timestamp(a->out, e, true, a->o->gmt);
		fputs("]\n", a->out);
	}
	per_tid(m, b, e, true);
	per_tid(m, b, e, false);
	if (a->o->mi) {
		if ((f = an_mi_table(&m->mi, "total", "\"total\"", b, e))) {
			fprintf(f, "[{\"class\": \"number\", \"value\": %llu}, {\"class\": \"number\", "
				   "\"value\": %llu}]", (unsigned long long)alloc, (unsigned long long)freed);
			an_mi_table_end(f);
		}
	} else {
		fprintf(a->out, "\nTotal memory usage:\n- %llu pages allocated\n- %llu pages freed\n",
			(unsigned long long)alloc, (unsigned long long)freed);
	}
}

static void finish(void *self)
{
	struct memtop *m = self;

	if (m->a->o->mi)
		an_mi_print(&m->mi, m->a->out);
}

static bool failed(void *self)
{
	struct memtop *m = self;

	return m->oom || m->mi.oom;
}

const struct an_ops an_memtop_ops = {
	.create = create,
	.free = destroy,
	.page = page,
	.end = end,
	.finish = finish,
	.failed = failed,
};
