/*
 * The tasks a trace's metadata names (tmx_trace.tasks, read through
 * tmx_trace_task_count()/tmx_trace_task()): readers build the list, which
 * points into text that lives as long as the trace.
 */
#ifndef TMX_MODEL_TASKS_H
#define TMX_MODEL_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "tracemux/model.h"

struct tmx_trace_task_entry {
	int64_t tid;
	const char *comm;          /* not NUL-terminated */
	size_t comm_len;
};

struct tmx_trace_tasks {
	size_t n;
	const struct tmx_trace_task_entry *v;
};

/*
 * Parses the text of /sys/kernel/tracing/saved_cmdlines ("TID COMM" lines,
 * as libtraceevent's tep_parse_saved_cmdlines reads them: the comm is the
 * rest of the line after the blanks that follow the number) into a list
 * allocated from `a`, pointing into `text` (which must outlive it).  Lines
 * that do not read so (no number, a sign, no comm, a number past INT32_MAX) are
 * skipped.  *out is NULL when no line reads; returns -1 on allocation
 * failure, else 0.  Memory: one entry per line, bounded by the text.
 */
int tmx_tasks_from_cmdlines(struct tmx_arena *a, const char *text, size_t len,
			    const struct tmx_trace_tasks **out);

#endif
