/*
 * syscallstats (lttnganalyses core/syscalls.py, cli/syscallstats.py): per
 * task, each system call's count, min/avg/max/stdev duration and return
 * values (success or the errno name), tasks by their number of calls.
 * Aggregates only: memory bounded by tasks and system call names.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "tools/analyze/an_impl.h"

/* a return value's key and count, in first-seen order (a Python dict) */
struct sc_ret {
	int64_t code;     /* 0: success; a negative return value; RET_NONE */
	uint64_t count;
};

#define RET_NONE INT64_MIN

struct sc_call {
	const char *name;
	uint8_t len;
	struct an_agg d;   /* durations */
	struct sc_ret *rets;
	size_t n_rets, cap_rets;
};

struct sc_tid {
	int64_t tid, pid;
	bool has_pid;
	struct an_comm comm;
	uint64_t total;
	struct sc_call *calls;
	size_t n_calls, cap_calls;
	struct imap by_id;    /* system call name number -> index in calls */
};

struct syscalls {
	struct an *a;
	struct an_table tids;
	bool oom;
	struct an_mi mi;
};

static void *create(struct an *a)
{
	struct syscalls *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->a = a;
	s->tids.size = sizeof(struct sc_tid);
	return s;
}

static void destroy(void *self)
{
	struct syscalls *s = self;

	for (size_t i = 0; i < s->tids.n; i++) {
		struct sc_tid *t = an_table_at(&s->tids, i);
		for (size_t k = 0; k < t->n_calls; k++)
			free(t->calls[k].rets);
		free(t->calls);
		imap_free(&t->by_id);
	}
	an_table_free(&s->tids);
	an_mi_free(&s->mi);
	free(s);
}

static void on_exit_(void *self, const struct an_proc *p, int64_t cpu, int64_t d, bool has_ret,
		     int64_t ret)
{
	struct syscalls *s = self;
	struct sc_tid *t;
	struct sc_call *c = NULL;
	int64_t code;
	bool added;

	if (!an_filter_process(s->a, p) || !an_filter_cpu(s->a, cpu))
		return;
	if (!(t = an_table_get(&s->tids, p->tid, &added))) {
		s->oom = true;
		return;
	}
	if (added) {
		t->tid = p->tid;
		t->pid = p->pid;
		t->has_pid = p->has_pid;
		t->comm = p->comm;
	}
	{
		uint32_t *slot = imap_find(&t->by_id, p->sys_id);
		if (slot)
			c = &t->calls[*slot];
	}
	if (!c) {
		if (!tmx_grow_array((void **)&t->calls, &t->cap_calls, t->n_calls + 1, sizeof(*c), 8) ||
		    !imap_get(&t->by_id, p->sys_id, (uint32_t)t->n_calls, &added)) {
			s->oom = true;
			return;
		}
		c = &t->calls[t->n_calls++];
		memset(c, 0, sizeof(*c));
		c->name = p->sys_name;
		c->len = p->sys_len;
	}
	an_agg_add(&c->d, d);
	t->total++;
	/* keys 'success', errno.errorcode[-ret] or str(ret): one per negative value */
	code = !has_ret ? RET_NONE : ret >= 0 ? 0 : ret;
	for (size_t i = 0; i < c->n_rets; i++)
		if (c->rets[i].code == code) {
			c->rets[i].count++;
			return;
		}
	if (!tmx_grow_array((void **)&c->rets, &c->cap_rets, c->n_rets + 1, sizeof(*c->rets), 4)) {
		s->oom = true;
		return;
	}
	/* lttng-analyses counts a key's first call twice (it starts at 1, then adds 1) */
	c->rets[c->n_rets].code = code;
	c->rets[c->n_rets++].count = 2;
}

/* what ret_str() may write for c */
static size_t ret_str_max(const struct sc_call *c)
{
	return 3 + c->n_rets * 72;   /* ", '" name (40 at most) or code "': " count: 66 at most */
}

/* str(dict): {'success': 3, 'EAGAIN': 2}, into buf (ret_str_max(c) bytes): its length */
static size_t ret_str(char *buf, const struct sc_call *c)
{
	size_t n = 0;

	buf[n++] = '{';
	for (size_t i = 0; i < c->n_rets; i++) {
		int64_t code = c->rets[i].code;
		const char *en = code < 0 && code != RET_NONE ? an_errno_name(-code) : NULL;
		if (i)
			buf[n++] = ',', buf[n++] = ' ';
		buf[n++] = '\'';
		if (code == RET_NONE || code == 0 || en) {
			const char *w = code == RET_NONE ? "None" : code == 0 ? "success" : en;
			size_t len = strnlen(w, 40);
			memcpy(buf + n, w, len);
			n += len;
		} else {
			if (code < 0)
				buf[n++] = '-';
			n += an_fmt_u64(buf + n, code < 0 ? (uint64_t)0 - (uint64_t)code : (uint64_t)code);
		}
		memcpy(buf + n, "': ", 3);
		n += 3;
		n += an_fmt_u64(buf + n, c->rets[i].count);
	}
	buf[n++] = '}';
	buf[n] = 0;
	return n;
}

static const struct an_table *sort_tab;
static int by_total(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	uint64_t a = ((const struct sc_tid *)an_table_at(sort_tab, i))->total;
	uint64_t b = ((const struct sc_tid *)an_table_at(sort_tab, j))->total;

	if (a != b)
		return a > b ? -1 : 1;
	return i < j ? -1 : 1;
}

static const struct sc_tid *sort_t;
static int by_count(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	uint64_t a = sort_t->calls[i].d.count, b = sort_t->calls[j].d.count;

	if (a != b)
		return a > b ? -1 : 1;
	return i < j ? -1 : 1;
}

/*
 * '{:>14}'.format(round(us, 3)): repr of the rounded float, which is its
 * three decimals without trailing zeros (one kept) below 1e16, where
 * repr would switch to an exponent.
 */
static void round3(char *buf, size_t n, double us)
{
	char tmp[64];
	size_t len;

	if (!(us < 1e15 && us > -1e15)) {
		snprintf(tmp, sizeof(tmp), "%.3f", us);
		an_repr_double(buf, n, strtod(tmp, NULL));
		return;
	}
	len = (size_t)snprintf(buf, n, "%.3f", us);
	while (len > 0 && buf[len - 1] == '0' && buf[len - 2] != '.')
		buf[--len] = 0;
}

/* round3() of ns / 1000 for integer nanoseconds: exactly its digits, without printf */
static void round3_ns(char *buf, size_t n, int64_t ns)
{
	uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	size_t k = 0;
	unsigned frac = (unsigned)(u % 1000);

	if (n < 32 || u >= 1000000000000000000ull) {
		round3(buf, n, (double)ns / 1000);
		return;
	}
	if (ns < 0)
		buf[k++] = '-';
	k += an_fmt_u64(buf + k, u / 1000);
	buf[k++] = '.';
	buf[k++] = (char)('0' + frac / 100);
	if (frac % 100) {
		buf[k++] = (char)('0' + frac / 10 % 10);
		if (frac % 10)
			buf[k++] = (char)('0' + frac % 10);
	}
	buf[k] = 0;
}

static void subtitle(char *buf, size_t n, const struct sc_tid *t)
{
	if (t->has_pid)
		snprintf(buf, n, "%.*s (%lld, TID: %lld)", (int)t->comm.len, t->comm.s,
			 (long long)t->pid, (long long)t->tid);
	else
		snprintf(buf, n, "%.*s (?, TID: %lld)", (int)t->comm.len, t->comm.s,
			 (long long)t->tid);
}

/* s padded with spaces to w columns (s is ASCII) at buf: the new end */
static char *put_pad(char *buf, const char *s, size_t w, bool right)
{
	size_t len = strlen(s), fill = len < w ? w - len : 0;

	if (right) {
		memset(buf, ' ', fill);
		buf += fill;
	}
	memcpy(buf, s, len);
	buf += len;
	if (!right) {
		memset(buf, ' ', fill);
		buf += fill;
	}
	return buf;
}

/*
 * '{:<38} {:>14} {:>14} {:>14} {:>12} {:>10}  {:<14}' (widths in characters:
 * the name's in code points, the others ASCII), one write per row: a, b..f
 * are under 300, 48 bytes.
 */
static void line(FILE *out, const char *a, const char *b, const char *c, const char *d,
		 const char *e, const char *f, const char *g)
{
	char row[300 + 38 + 6 + 5 * 48 + 14 + 2], *p = row;
	size_t len = strnlen(a, 300), w = an_utf8_len(a, len), glen = strlen(g);

	memcpy(p, a, len);
	p += len;
	p = put_pad(p, "", w < 38 ? 38 - w : 0, true);
	*p++ = ' ';
	p = put_pad(p, b, 14, true);
	*p++ = ' ';
	p = put_pad(p, c, 14, true);
	*p++ = ' ';
	p = put_pad(p, d, 14, true);
	*p++ = ' ';
	p = put_pad(p, e, 12, true);
	*p++ = ' ';
	p = put_pad(p, f, 10, true);
	*p++ = ' ';
	*p++ = ' ';
	if (glen < 14) {
		p = put_pad(p, g, 14, false);
		*p++ = '\n';
		fwrite(row, 1, (size_t)(p - row), out);
		return;
	}
	fwrite(row, 1, (size_t)(p - row), out);
	fwrite(g, 1, glen, out);
	fputc('\n', out);
}

static void end(void *self, int64_t b, int64_t e)
{
	struct syscalls *s = self;
	struct an *a = s->a;
	FILE *out = a->out, *f;
	size_t *ord = malloc((s->tids.n ? s->tids.n : 1) * sizeof(*ord));
	uint64_t total_calls = 0;
	char sub[AN_COMM_MAX + 64];
	char *rs = NULL;   /* the return values of a row (ret_str) */
	size_t rs_cap = 0;

	if (!ord) {
		s->oom = true;
		return;
	}
	for (size_t i = 0; i < s->tids.n; i++)
		ord[i] = i;
	sort_tab = &s->tids;
	qsort(ord, s->tids.n, sizeof(*ord), by_total);
	if (!a->o->mi) {
		fputs("Timerange: [", out);
		an_fmt_timestamp(out, b, true, a->o->gmt);
		fputs(", ", out);
		an_fmt_timestamp(out, e, true, a->o->gmt);
		fputs("]\nPer-TID syscalls statistics (usec)\n", out);
	}
	for (size_t k = 0; k < s->tids.n; k++) {
		const struct sc_tid *t = an_table_at(&s->tids, ord[k]);
		size_t *cord;
		if (!t->total)
			continue;
		if (!(cord = malloc(t->n_calls * sizeof(*cord)))) {
			s->oom = true;
			break;
		}
		for (size_t i = 0; i < t->n_calls; i++)
			cord[i] = i;
		sort_t = t;
		qsort(cord, t->n_calls, sizeof(*cord), by_count);
		subtitle(sub, sizeof(sub), t);
		f = NULL;
		if (a->o->mi) {
			char *cls = NULL;
			size_t len = 0;
			FILE *c = open_memstream(&cls, &len);
			if (!c) {
				s->oom = true;
				free(cord);
				break;
			}
			fputs("{\"inherit\": \"per-tid\", \"title\": ", c);
			{
				char title[AN_COMM_MAX + 128];
				snprintf(title, sizeof(title), "System call statistics [%s]", sub);
				an_json_string(c, title, strlen(title));
			}
			fputc('}', c);
			fclose(c);
			f = an_mi_table(&s->mi, "per-tid", cls, b, e);
			free(cls);
		} else {
			line(out, sub, "Count", "Min", "Average", "Max", "Stdev", "Return values");
		}
		for (size_t i = 0; i < t->n_calls; i++) {
			const struct sc_call *c = &t->calls[cord[i]];
			double avg = an_agg_avg(&c->d);
			/* lttng-analyses: a stdev from 3 calls on */
			double sd = c->d.count > 2 ? an_agg_stdev(&c->d) : NAN;
			size_t rl;
			if (!tmx_grow_array((void **)&rs, &rs_cap, ret_str_max(c), 1, 256)) {
				s->oom = true;
				break;
			}
			rl = ret_str(rs, c);
			if (f) {
				fputs(i ? ", [" : "[", f);
				fputs("{\"class\": \"syscall\", \"name\": ", f);
				an_json_string(f, c->name, c->len);
				fprintf(f, "}, {\"class\": \"number\", \"value\": %llu}, ",
					(unsigned long long)c->d.count);
				an_mi_duration_ns(f, c->d.min);
				fputs(", ", f);
				an_mi_duration(f, avg);
				fputs(", ", f);
				an_mi_duration_ns(f, c->d.max);
				fputs(", ", f);
				an_mi_duration_or_unknown(f, sd);
				fputs(", {\"class\": \"string\", \"value\": ", f);
				an_json_string(f, rs, rl);
				fputs("}]", f);
			} else if (!a->o->mi) {
				char name[300], cnt[32], mn[48], av[48], mx[48], sds[48];
				snprintf(name, sizeof(name), " - %.*s", (int)c->len, c->name);
				cnt[an_fmt_u64(cnt, c->d.count)] = 0;
				round3_ns(mn, sizeof(mn), c->d.min);
				round3(av, sizeof(av), avg / 1000);
				round3_ns(mx, sizeof(mx), c->d.max);
				if (isnan(sd))
					snprintf(sds, sizeof(sds), "?");
				else
					round3(sds, sizeof(sds), sd / 1000);
				line(out, name, cnt, mn, av, mx, sds, rs);
			}
		}
		free(cord);
		if (f)
			an_mi_table_end(f);
		if (!a->o->mi) {
			char cnt[32];
			snprintf(cnt, sizeof(cnt), "%llu", (unsigned long long)t->total);
			line(out, "Total:", cnt, "", "", "", "", "");
			for (int i = 0; i < 113; i++)
				fputc('-', out);
			fputc('\n', out);
		}
		total_calls += t->total;
	}
	if (a->o->mi) {
		bool first = true;
		for (size_t k = 0; k < s->tids.n; k++) {
			const struct sc_tid *t = an_table_at(&s->tids, ord[k]);
			if (!t->total)
				continue;
			if (first && !(f = an_mi_table(&s->mi, "total", "\"total\"", b, e)))
				break;
			fputs(first ? "[" : ", [", f);
			first = false;
			fputs("{\"class\": \"process\", \"name\": ", f);
			an_json_string(f, t->comm.s, t->comm.len);
			if (t->has_pid)
				fprintf(f, ", \"pid\": %lld", (long long)t->pid);
			fprintf(f, ", \"tid\": %lld}, {\"class\": \"number\", \"value\": %llu}]",
				(long long)t->tid, (unsigned long long)t->total);
		}
		if (!first)
			an_mi_table_end(f);
	} else {
		fprintf(out, "\nTotal syscalls: %llu\n", (unsigned long long)total_calls);
	}
	free(ord);
	free(rs);
}

static void finish(void *self)
{
	struct syscalls *s = self;

	if (s->a->o->mi)
		an_mi_print(&s->mi, s->a->out);
}

static bool failed(void *self)
{
	struct syscalls *s = self;

	return s->oom || s->mi.oom;
}

const struct an_ops an_syscalls_ops = {
	.create = create,
	.free = destroy,
	.syscall_exit = on_exit_,
	.end = end,
	.finish = finish,
	.failed = failed,
};
