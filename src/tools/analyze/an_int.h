/*
 * What the parts of `tracemux analyze` share: lttng-analyses' kernel state
 * (its linuxautomaton: tasks by tid, CPUs) and the notifications an
 * analysis receives from it, with the one period that lttng-analyses makes
 * without --period (from --begin, or the first event, to the last event
 * before --end).
 */
#ifndef TMX_TOOLS_ANALYZE_INT_H
#define TMX_TOOLS_ANALYZE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/analyze/analyze.h"
#include "sink/xray/intmap.h"

/* Task names: lttng-modules' comm fields hold 16 bytes; longer ones are cut. */
#define AN_COMM_MAX 64

struct an_comm {
	uint8_t len;
	char s[AN_COMM_MAX];
};

/* sv.Process: a task of the state. */
struct an_proc {
	int64_t tid, pid, prio;
	bool has_pid, has_prio;
	struct an_comm comm;
	bool has_wakeup, has_waker;
	int64_t last_wakeup, last_waker;
};

/* sv.CPU */
struct an_cpu {
	int64_t id;
	bool has_tid;
	int64_t current_tid;
};

/* A growing array of fixed-size records with a tid/id map into it: Python dict order. */
struct an_table {
	struct imap map;
	char *rec;
	size_t n, cap, size;
};

void *an_table_get(struct an_table *t, int64_t key, bool *added);
void *an_table_find(const struct an_table *t, int64_t key);
static inline void *an_table_at(const struct an_table *t, size_t i)
{
	return t->rec + i * t->size;
}
void an_table_free(struct an_table *t);

struct an;

/* What an analysis is told (only while its period runs). */
struct an_ops {
	void *(*create)(struct an *a);
	void (*free)(void *self);
	/* The period begins at `ts`. */
	void (*begin)(void *self, int64_t ts);
	void (*sched_switch)(void *self, int64_t ts, int64_t cpu, int64_t prev_tid,
			     const struct an_comm *prev_comm, int64_t next_tid,
			     const struct an_comm *next_comm, const struct an_proc *wakee);
	void (*migrate)(void *self, const struct an_proc *proc, int64_t cpu);
	void (*prio_changed)(void *self, int64_t ts, int64_t tid, int64_t prio);
	/* The period ends; write its tables (or keep them for MI). */
	void (*end)(void *self, int64_t begin_ns, int64_t end_ns);
	/* After the last period: MI's {"results": ...}. */
	void (*finish)(void *self);
	bool (*failed)(void *self);
};

extern const struct an_ops an_cputop_ops;

/* The analysis run. */
struct an {
	const struct tmx_an_opts *o;
	FILE *out;
	struct an_table procs;    /* state.tids */
	struct an_table cpus;     /* state.cpus */
	bool oom;
	/* tracer version from the trace's env (for sched_wakeup's prio) */
	bool prio_offset;
	bool multi_day;
};

/* Analysis._filter_process: --procname and --tid. */
bool an_filter_process(const struct an *a, const struct an_proc *p);
bool an_filter_cpu(const struct an *a, int64_t cpu);
size_t an_cpu_count(const struct an *a);

/* Output helpers (an_fmt.c). */
/* "[2014-10-07 08:36:01.211260539, ...]" as format_utils.format_time_range. */
void an_fmt_timestamp(FILE *out, int64_t ns, bool date, bool gmt);
/* Python's repr() of a float (json.dumps). */
void an_json_double(FILE *out, double v);
void an_json_string(FILE *out, const char *s, size_t len);
/* Code points of UTF-8 text (Python's str width). */
size_t an_utf8_len(const char *s, size_t n);
/* termgraph.BarGraph */
struct an_bar {
	double value;
	char value_str[48];
	char *label;
};
void an_bar_graph(FILE *out, const char *title, const char *label_header, const char *unit,
		  struct an_bar *rows, size_t n);

#endif
