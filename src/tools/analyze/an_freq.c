/*
 * What the latency commands share: frequency distributions (buckets as
 * lttng-analyses' _fill_freq_result_table and _find_uniform_freq_values
 * compute them, in the same double arithmetic), termgraph's FreqGraph,
 * the standard deviation of statistics.stdev, and MI's table groups.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/analyze/an_impl.h"

bool an_freq_bounds(struct an_freq *f, const struct tmx_an_opts *o, bool has_stats,
		    int64_t min_ns, int64_t max_ns, const struct an_freq *uniform)
{
	f->res = o->freq_resolution;
	if (uniform) {
		f->min = uniform->min;
		f->max = uniform->max;
		f->step = uniform->step;
	} else {
		/* args.min was made ns (*1000), then back to µs here */
		f->min = o->has_min ? o->min_us * 1000 / 1000 : has_stats ? (double)min_ns / 1000 : 0;
		f->max = o->has_max ? o->max_us * 1000 / 1000 : has_stats ? (double)max_ns / 1000 : 0;
		f->step = (f->max - f->min) / (double)f->res;
	}
	return f->step != 0 && f->res > 0;
}

void an_freq_uniform(struct an_freq *u, const struct tmx_an_opts *o, uint64_t n, int64_t min_ns,
		     int64_t max_ns)
{
	/* lttng-analyses uses --min/--max here in ns (not back to µs): kept */
	u->res = o->freq_resolution;
	u->min = o->has_min ? o->min_us * 1000 : n ? (double)min_ns / 1000 : 0;
	u->max = o->has_max ? o->max_us * 1000 : n ? (double)max_ns / 1000 : 0;
	u->step = (u->max - u->min) / (double)u->res;
}

void an_freq_add(const struct an_freq *f, uint64_t *counts, int64_t ns)
{
	double d = (double)ns / 1000;
	double x = (d - f->min) / f->step;
	long long idx;

	if (!(x < 9e18 && x > -9e18))
		return;
	idx = (long long)x;   /* int(): toward zero */
	if (idx >= f->res) {
		/* the max value goes in the last bucket (which includes its upper bound) */
		if (d == f->max && idx - 1 < f->res)
			counts[idx - 1 >= 0 ? idx - 1 : idx - 1 + f->res]++;
		return;
	}
	if (idx < 0)
		idx += f->res;   /* Python's negative index */
	if (idx >= 0)
		counts[idx]++;
}

void an_freq_text(FILE *out, const char *title, const struct an_freq *f, const uint64_t *counts)
{
	uint64_t max = 0;
	size_t max_len = 0;
	char buf[32];

	if (f->res <= 0)
		return;
	for (long i = 0; i < f->res; i++) {
		size_t l = (size_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)counts[i]);
		if (counts[i] > max)
			max = counts[i];
		if (l > max_len)
			max_len = l;
	}
	fprintf(out, "%s (\xc2\xb5s)\n", title);
	for (int i = 0; i < 80; i++)
		fputc('#', out);
	fputc('\n', out);
	for (long i = 0; i < f->res; i++) {
		double lower = ((double)i * f->step + f->min) * 1000 / 1000;
		long w = max ? (long)(72.0 * (double)counts[i] / (double)max) : 0;
		size_t l = (size_t)snprintf(buf, sizeof(buf), "%llu", (unsigned long long)counts[i]);
		fprintf(out, "%7.3f ", lower);
		for (long k = 0; k < w; k++)
			fputs("\xe2\x96\x88", out);
		for (long k = w; k < 72; k++)
			fputc(' ', out);
		fputc(' ', out);
		for (size_t k = l; k < max_len; k++)
			fputc(' ', out);
		fputs(buf, out);
		fputc('\n', out);
	}
	fputc('\n', out);
}

void an_freq_mi_rows(FILE *mf, const struct an_freq *f, const uint64_t *counts)
{
	for (long i = 0; i < f->res; i++) {
		fputs(i ? ", [" : "[", mf);
		an_mi_duration(mf, ((double)i * f->step + f->min) * 1000);
		fputs(", ", mf);
		an_mi_duration(mf, ((double)(i + 1) * f->step + f->min) * 1000);
		fprintf(mf, ", {\"class\": \"number\", \"value\": %llu}]", (unsigned long long)counts[i]);
	}
}

/*
 * statistics.stdev: the correctly rounded square root of the exact
 * (n Σx² - (Σx)²) / (n (n - 1)); long double keeps that to the last bit
 * of a double in all but freak cases.
 */
double an_stdev(uint64_t n, __int128 sum, unsigned __int128 sumsq)
{
	unsigned __int128 num;
	long double v;

	if (n < 2)
		return NAN;
	num = (unsigned __int128)n * sumsq - (unsigned __int128)(sum * sum);
	v = (long double)num / ((long double)n * (long double)(n - 1));
	return (double)sqrtl(v);
}

FILE *an_mi_table(struct an_mi *m, const char *key, const char *cls_json, int64_t begin,
		  int64_t end)
{
	size_t i;
	FILE *f;

	for (i = 0; i < m->n; i++)
		if ((!key && !m->g[i].key) || (key && m->g[i].key && !strcmp(key, m->g[i].key)))
			break;
	if (i == m->n) {
		if (m->n == AN_MI_GROUPS)
			return NULL;
		m->g[i].key = key;
		m->g[i].buf = NULL;
		m->g[i].len = 0;
		if (!(m->g[i].f = open_memstream(&m->g[i].buf, &m->g[i].len))) {
			m->oom = true;
			return NULL;
		}
		m->n++;
	} else {
		fputs(", ", m->g[i].f);
	}
	f = m->g[i].f;
	fprintf(f, "{\"class\": %s, \"time-range\": {\"class\": \"time-range\", \"begin\": "
		   "{\"class\": \"timestamp\", \"value\": %lld}, \"end\": {\"class\": \"timestamp\", "
		   "\"value\": %lld}}, \"data\": [",
		cls_json, (long long)begin, (long long)end);
	return f;
}

void an_mi_table_end(FILE *f)
{
	fputs("]}", f);
}

void an_mi_print(struct an_mi *m, FILE *out)
{
	fputs("{\"results\": [", out);
	for (size_t i = 0; i < m->n; i++) {
		fclose(m->g[i].f);
		m->g[i].f = NULL;
		if (i)
			fputs(", ", out);
		fwrite(m->g[i].buf, 1, m->g[i].len, out);
	}
	fputs("]}\n", out);
	an_mi_free(m);
}

void an_mi_free(struct an_mi *m)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->g[i].f)
			fclose(m->g[i].f);
		free(m->g[i].buf);
	}
	m->n = 0;
}

void an_mi_duration_ns(FILE *f, int64_t ns)
{
	fprintf(f, "{\"class\": \"duration\", \"value\": %lld}", (long long)ns);
}

void an_mi_duration(FILE *f, double ns)
{
	fputs("{\"class\": \"duration\", \"value\": ", f);
	an_json_double(f, ns);
	fputc('}', f);
}

void an_mi_duration_or_unknown(FILE *f, double ns)
{
	if (isnan(ns))
		fputs("{\"class\": \"unknown\"}", f);
	else
		an_mi_duration(f, ns);
}

void an_mi_proc(FILE *f, const struct an_proc *p, bool with_pid)
{
	fputs("{\"class\": \"process\", \"name\": ", f);
	an_json_string(f, p->comm.s, p->comm.len);
	if (with_pid && p->has_pid)
		fprintf(f, ", \"pid\": %lld", (long long)p->pid);
	fprintf(f, ", \"tid\": %lld}", (long long)p->tid);
}
