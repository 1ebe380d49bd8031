/*
 * `trace-cmd report --profile`: the kernel stacks of an entry as
 * trace-cmd's output_stacks() prints them, a tree of their callers
 * (make_stack_chain(), output_chain()).  See profile_impl.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/tracecmd/profile_impl.h"

struct pt_chain {
	struct pt_chain *children;
	uint64_t val, time, time_min, ts_min, time_max, ts_max, time_avg, count;
	int percent, nr_children;
};

#define PT_INDENT 5

/* trace-cmd reads the callers as host words, as they lie in the record */
static uint64_t stack_value(const struct pt_stack *st, int long_size, int level)
{
	const uint8_t *ptr = &st->caller[(size_t)long_size * (size_t)level];

	if (long_size == 8) {
		uint64_t v;
		memcpy(&v, ptr, 8);
		return v;
	}
	uint32_t v;
	memcpy(&v, ptr, 4);
	return v;
}

/* `long_size * level > size - long_size` with trace-cmd's unsigned wrap */
static bool stack_overflows(const struct pt_stack *st, int long_size, int level)
{
	return (unsigned long)(long_size * level) > st->size - (unsigned long)long_size;
}

static int cmp_stacks(const void *a, const void *b)
{
	const struct pt_stack *x = *(const struct pt_stack *const *)a, *y = *(const struct pt_stack *const *)b;
	size_t size = x->size > y->size ? y->size : x->size;

	/* unsigned words up to the smaller size, then the bigger size wins */
	for (size_t i = 0; i < size; i += 4) {
		uint32_t sa, sb;
		memcpy(&sa, x->caller + i, 4);
		memcpy(&sb, y->caller + i, 4);
		if (sa != sb)
			return sa > sb ? 1 : -1;
	}
	return x->size > y->size ? 1 : x->size < y->size ? -1 : 0;
}

static int cmp_chains(const void *a, const void *b)
{
	const struct pt_chain *x = a, *y = b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return 0;
}

static void free_chain(struct pt_chain *c, int n)
{
	if (!c)
		return;
	for (int i = 0; i < n; i++)
		free_chain(c[i].children, c[i].nr_children);
	free(c);
}

/* make_stack_chain(): the distinct callers at `level` of sorted stacks, with their sums. */
static struct pt_chain *make_chain(struct pt_stack **stacks, int cnt, int long_size, int level,
				   int *nr_children)
{
	uint64_t stop = long_size < 8 ? (1ull << (long_size * 8)) - 1 : ~0ull;
	uint64_t total_time = 0, total_count = 0, time = 0, time_min = 0, ts_min = 0, time_max = 0,
		 ts_max = 0, count = 0, last = 0, val;
	struct pt_chain *chain;
	int nr = 0, start = 0, x = 0;

	*nr_children = 0;
	for (int i = 0; i < cnt; i++) {
		if (stack_overflows(stacks[i], long_size, level))
			continue;
		val = stack_value(stacks[i], long_size, level);
		if (val == stop)
			continue;
		if (!nr || val != last)
			nr++;
		last = val;
	}
	if (!nr || !(chain = calloc((size_t)nr, sizeof(*chain))))
		return NULL;
	for (int i = 0; i < cnt; i++) {
		if (stack_overflows(stacks[i], long_size, level)) {
			start = i + 1;
			continue;
		}
		val = stack_value(stacks[i], long_size, level);
		if (val == stop) {
			start = i + 1;
			continue;
		}
		count += stacks[i]->count;
		time += stacks[i]->time;
		if (stacks[i]->time_max > time_max) {
			time_max = stacks[i]->time_max;
			ts_max = stacks[i]->ts_max;
		}
		if (i == start || stacks[i]->time_min < time_min) {
			time_min = stacks[i]->time_min;
			ts_min = stacks[i]->ts_min;
		}
		if (i == cnt - 1 || stack_overflows(stacks[i + 1], long_size, level) ||
		    val != stack_value(stacks[i + 1], long_size, level)) {
			if (x >= nr)
				break;   /* cannot happen: counted above */
			total_time += time;
			total_count += count;
			chain[x].val = val;
			chain[x].time_avg = count ? time / count : 0;
			chain[x].count = count;
			chain[x].time = time;
			chain[x].time_min = time_min;
			chain[x].ts_min = ts_min;
			chain[x].time_max = time_max;
			chain[x].ts_max = ts_max;
			chain[x].children = make_chain(&stacks[start], i - start + 1, long_size, level + 1,
						       &chain[x].nr_children);
			x++;
			start = i + 1;
			count = time = time_min = time_max = 0;
		}
	}
	/* glibc's qsort, as trace-cmd's: the same input order gives the same result */
	qsort(chain, (size_t)nr, sizeof(*chain), cmp_chains);
	*nr_children = nr;
	for (int i = 0; i < nr; i++) {
		if (total_time)
			chain[i].percent = (int)((chain[i].time * 100 + total_time / 2) / total_time);
		else if (total_count)
			chain[i].percent = (int)((chain[i].count * 100 + total_count / 2) / total_count);
	}
	return chain;
}

static void put_fmt(struct outbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put_fmt(struct outbuf *out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		outbuf_write(out, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static bool mask_bit(uint64_t mask, int p)
{
	return p < 64 && (mask & (1ull << p));
}

static void print_indent(struct outbuf *out, int level, uint64_t mask)
{
	for (int p = 0; p < level + 1; p++)
		put_fmt(out, "%*c ", PT_INDENT, mask_bit(mask, p) ? '|' : ' ');
}

static void print_chain_func(struct tep_handle *tep, struct outbuf *out, const struct pt_chain *c)
{
	const char *func = tep_find_function(tep, c->val);

	if (func)
		put_fmt(out, "%s (0x%llx)\n", func, (unsigned long long)c->val);
	else
		put_fmt(out, "0x%llx\n", (unsigned long long)c->val);
}

static void set_bit(uint64_t *mask, int p, bool on)
{
	if (p >= 64)
		return;
	if (on)
		*mask |= 1ull << p;
	else
		*mask &= ~(1ull << p);
}

/* output_chain(): the tree, single children in a column, branches with '+' and '|'. */
static void output_chain(struct tep_handle *tep, struct outbuf *out, struct pt_chain *chain,
			 int level, int nr_chains, uint64_t *mask)
{
	char line = '|';

	if (!nr_chains)
		return;
	set_bit(mask, level + 1, true);
	print_indent(out, level + 1, *mask);
	outbuf_putc(out, '\n');
	for (int i = 0; i < nr_chains; i++) {
		struct pt_chain *child;
		int nr_children;

		print_indent(out, level, *mask);
		put_fmt(out, "%*c ", PT_INDENT, '+');
		if (i == nr_chains - 1) {
			set_bit(mask, level + 1, false);
			line = ' ';
		}
		print_chain_func(tep, out, &chain[i]);
		print_indent(out, level, *mask);
		put_fmt(out, "%*c ", PT_INDENT, line);
		put_fmt(out, "  %d%% (%lld)", chain[i].percent, (long long)chain[i].count);
		if (chain[i].time)
			put_fmt(out, " time:%lld max:%lld(ts:%lld.%06lld) min:%lld(ts:%lld.%06lld) avg:%lld",
				(long long)chain[i].time, (long long)chain[i].time_max,
				(long long)(chain[i].ts_max / 1000000000),
				(long long)((chain[i].ts_max % 1000000000 + 500) / 1000),
				(long long)chain[i].time_min, (long long)(chain[i].ts_min / 1000000000),
				(long long)((chain[i].ts_min % 1000000000 + 500) / 1000),
				(long long)chain[i].time_avg);
		outbuf_putc(out, '\n');
		for (child = chain[i].children, nr_children = chain[i].nr_children;
		     child && nr_children == 1;
		     nr_children = child->nr_children, child = child->children) {
			print_indent(out, level, *mask);
			put_fmt(out, "%*c ", PT_INDENT, line);
			outbuf_write(out, "   ", 3);
			print_chain_func(tep, out, child);
		}
		if (child)
			output_chain(tep, out, child, level + 1, nr_children, mask);
		print_indent(out, level + 1, *mask);
		outbuf_putc(out, '\n');
	}
	set_bit(mask, level + 1, false);
	print_indent(out, level, *mask);
	outbuf_putc(out, '\n');
}

void pt_output_stacks(struct tcp_profile *p, struct pt_event *e, struct outbuf *out)
{
	struct pt_chain *chain;
	uint64_t mask = 0;
	int nr = 0;

	if (!e->n_stacks)
		return;
	qsort(e->stacks, e->n_stacks, sizeof(*e->stacks), cmp_stacks);
	chain = make_chain(e->stacks, (int)e->n_stacks, p->long_size, 0, &nr);
	output_chain(p->tep, out, chain, 0, nr, &mask);
	free_chain(chain, nr);
}
