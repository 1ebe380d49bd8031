/* The tasks a trace's metadata names: the public accessors and saved_cmdlines' parser. */
#include <string.h>

#include "model/tasks.h"

size_t tmx_trace_task_count(const struct tmx_trace *t)
{
	return t && t->tasks ? t->tasks->n : 0;
}

bool tmx_trace_task(const struct tmx_trace *t, size_t i, int64_t *tid, const char **comm,
		    size_t *comm_len)
{
	const struct tmx_trace_task_entry *e;

	if (i >= tmx_trace_task_count(t))
		return false;
	e = &t->tasks->v[i];
	if (tid)
		*tid = e->tid;
	if (comm)
		*comm = e->comm;
	if (comm_len)
		*comm_len = e->comm_len;
	return true;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* One "TID COMM" line [p, end): false when it does not read so. */
static bool parse_line(const char *p, const char *end, struct tmx_trace_task_entry *e)
{
	int64_t v = 0;
	const char *d;

	/* no sign: a task id is never negative (such a line is damage) */
	while (p < end && blank(*p))
		p++;
	for (d = p; p < end && *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > INT32_MAX)
			return false;
	}
	if (p == d || p == end || !blank(*p))
		return false;
	while (p < end && blank(*p))
		p++;
	while (end > p && blank(end[-1]))
		end--;
	if (p == end)
		return false;
	e->tid = v;
	e->comm = p;
	e->comm_len = (size_t)(end - p);
	return true;
}

int tmx_tasks_from_cmdlines(struct tmx_arena *a, const char *text, size_t len,
			    const struct tmx_trace_tasks **out)
{
	const char *p = text, *end = text + len;
	struct tmx_trace_task_entry *v, e;
	struct tmx_trace_tasks *list;
	size_t n = 0;

	*out = NULL;
	if (!text || !len)
		return 0;
	/* first pass: how many lines read (the list is then sized once) */
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		n += parse_line(p, le, &e);
		p = nl ? nl + 1 : end;
	}
	if (!n)
		return 0;
	if (!(list = tmx_arena_alloc(a, sizeof(*list))) || !(v = tmx_arena_calloc(a, n, sizeof(*v))))
		return -1;
	list->n = 0;
	for (p = text; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (parse_line(p, le, &v[list->n]))
			list->n++;
		p = nl ? nl + 1 : end;
	}
	list->v = v;
	*out = list;
	return 0;
}
