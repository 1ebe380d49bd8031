/*
 * What the parts of `tracemux analyze` share: lttng-analyses' kernel state
 * (its linuxautomaton: tasks by tid, CPUs) and the notifications an
 * analysis receives from it, with the one period that lttng-analyses makes
 * without --period (from --begin, or the first event, to the last event
 * before --end).
 */
#ifndef TMX_TOOLS_ANALYZE_IMPL_H
#define TMX_TOOLS_ANALYZE_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/analyze/analyze.h"
#include "common/intmap.h"

/* Task names: lttng-modules' comm fields hold 16 bytes; longer ones are cut. */
#define AN_COMM_MAX 64

struct an_comm {
	uint8_t len;
	char s[AN_COMM_MAX];
};

/* sv.Process: a task of the state. */
struct an_proc {
	/*
	 * Which sv.Process object this is: a fork makes a new one for the
	 * child's tid, and what refers to the old one (a scheduling log
	 * entry) still sees the old one's name and pid.
	 */
	uint64_t obj;
	int64_t tid, pid, prio;
	bool has_pid, has_prio;
	struct an_comm comm;
	bool has_wakeup, has_waker;
	int64_t last_wakeup, last_waker;
	/* current_syscall: its name (in the event class's name) and entry time */
	bool in_syscall;
	uint8_t sys_len;
	uint32_t sys_id;          /* the name's number: equal names, equal numbers */
	const char *sys_name;
	int64_t sys_begin;
};

/* a softirq raised or running on a CPU (sv.SoftIRQ) */
struct an_softirq {
	int64_t vec;
	bool has_raise, has_begin;
	int64_t raise_ts, begin_ts;
};

/* sv.CPU */
struct an_cpu {
	int64_t id;
	bool has_tid;
	int64_t current_tid;
	/* current_hard_irq */
	bool in_irq;
	int64_t irq, irq_begin;
	/* current_softirqs: per vector, in raise order (one array, scanned: a few entries) */
	struct an_softirq *soft;
	size_t n_soft, cap_soft;
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
/*
 * The indices of t's records in the order cmp gives the records, equal ones
 * in insertion order (Python's sorted() is stable); NULL when out of memory.
 */
size_t *an_table_order(const struct an_table *t, int (*cmp)(const void *a, const void *b));

/* A task's priorities, ascending, with how many times each was seen (its
 * prio_list in lttng-analyses). */
struct an_prios {
	struct an_prio {
		int64_t prio;
		uint64_t count;
	} *v;
	size_t n, cap;
};
/* Counts `prio` once more; false when out of memory. */
bool an_prios_add(struct an_prios *p, int64_t prio);
/* format_utils.format_prio_list: "[20, 25 (3 times)]". */
void an_prios_print(FILE *out, const struct an_prios *p);

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
	/* sched_switch_per_tid with the waker (NULL when unknown) */
	void (*sched_switch_tid)(void *self, int64_t ts, int64_t cpu, int64_t next_tid,
				 const struct an_proc *wakee, const struct an_proc *waker);
	void (*migrate)(void *self, const struct an_proc *proc, int64_t cpu);
	void (*prio_changed)(void *self, int64_t ts, int64_t tid, int64_t prio);
	/* irq_handler_entry: `name` of `irq` */
	void (*irq_entry)(void *self, int64_t irq, const char *name, size_t len);
	void (*irq_exit)(void *self, int64_t cpu, int64_t irq, int64_t begin, int64_t end);
	void (*softirq_exit)(void *self, int64_t cpu, const struct an_softirq *si, int64_t end);
	/* a page allocated (or freed) while `p` runs on `cpu` */
	void (*page)(void *self, const struct an_proc *p, int64_t cpu, bool alloc);
	/* a system call ends: `p->sys_name` and its duration, its return value when it has one */
	void (*syscall_exit)(void *self, const struct an_proc *p, int64_t cpu, int64_t duration,
			     bool has_ret, int64_t ret);
	/* The period ends; write its tables (or keep them for MI). */
	void (*end)(void *self, int64_t begin_ns, int64_t end_ns);
	/* After the last period: MI's {"results": ...}. */
	void (*finish)(void *self);
	bool (*failed)(void *self);
};

extern const struct an_ops an_cputop_ops;
extern const struct an_ops an_sched_ops;
extern const struct an_ops an_syscalls_ops;
extern const struct an_ops an_irq_ops;
extern const struct an_ops an_memtop_ops;
extern const struct an_ops an_io_ops;

struct an_io;

/* The analysis run. */
struct an {
	const struct tmx_an_opts *o;
	FILE *out;
	struct an_table procs;    /* state.tids */
	struct an_table cpus;     /* state.cpus */
	struct an_table retired;  /* task objects replaced by a fork, by object number */
	uint64_t next_obj;
	bool oom;
	/* tracer version from the trace's env (for sched_wakeup's prio) */
	bool prio_offset;
	bool multi_day;
	uint64_t page_count;      /* state.mm.page_count */
	/* system call names seen, numbered in the order classes were bound */
	size_t n_sys_names;
	/* the I/O state and analysis (io_*.c): NULL unless an I/O command runs */
	struct an_io *io;
	/* an analysis' Python exception: "Cannot run analysis: %s" */
	char fatal[128];
};

/*
 * The task object `obj` (of `tid`) as it is now: the state's task when it
 * is still that object, else the copy kept when a fork replaced it.
 */
const struct an_proc *an_proc_object(const struct an *a, int64_t tid, uint64_t obj);

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
/* v in decimal at buf (20 bytes at most, no terminator): its length; no printf in row loops */
size_t an_fmt_u64(char *buf, uint64_t v);
/* termgraph.BarGraph */
struct an_bar {
	double value;
	char value_str[48];
	char *label;
};
void an_bar_graph(FILE *out, const char *title, const char *label_header, const char *unit,
		  struct an_bar *rows, size_t n);

/*
 * MI results: tables grouped by their class in the order each class first
 * came (lttng-analyses keeps them in a dict of lists), only tables with
 * rows.  an_mi_table() starts one and returns where its rows go ("[...]"
 * each, separated by ", "); an_mi_table_end() closes it.
 */
#define AN_MI_GROUPS 16
struct an_mi {
	struct {
		const char *key;
		char *buf;
		size_t len;
		FILE *f;
	} g[AN_MI_GROUPS];
	size_t n;
	bool oom;
};
/* `cls_json`: the class as JSON ("\"log\"" or an object); `key` groups tables. */
FILE *an_mi_table(struct an_mi *m, const char *key, const char *cls_json, int64_t begin,
		  int64_t end);
void an_mi_table_end(FILE *f);
/* {"results": [...]} and a newline; frees the tables. */
void an_mi_print(struct an_mi *m, FILE *out);
void an_mi_free(struct an_mi *m);
/* MI cells */
void an_mi_duration_ns(FILE *f, int64_t ns);
void an_mi_duration(FILE *f, double ns);
/* a duration, or {"class": "unknown"} when `ns` is NaN (a stdev of fewer than 2) */
void an_mi_duration_or_unknown(FILE *f, double ns);
void an_mi_proc(FILE *f, const struct an_proc *p, bool with_pid);

/*
 * Frequency distributions (lttng-analyses' _fill_freq_result_table): the
 * bucket bounds in µs from a group's min and max (ns), or --min/--max, or
 * the uniform bounds of all groups; false when the step is 0 (no table).
 */
struct an_freq {
	double min, max, step;   /* µs */
	long res;
};
bool an_freq_bounds(struct an_freq *f, const struct tmx_an_opts *o, bool has_stats,
		    int64_t min_ns, int64_t max_ns, const struct an_freq *uniform);
/* _find_uniform_freq_values over all durations (min/max ns; n: how many) */
void an_freq_uniform(struct an_freq *u, const struct tmx_an_opts *o, uint64_t n, int64_t min_ns,
		     int64_t max_ns);
/* Adds a duration (ns) to counts[res]. */
void an_freq_add(const struct an_freq *f, uint64_t *counts, int64_t ns);
/* termgraph.FreqGraph: title " (µs)", the lower bounds and counts */
void an_freq_text(FILE *out, const char *title, const struct an_freq *f, const uint64_t *counts);
/* the MI rows (lower, upper, count) */
void an_freq_mi_rows(FILE *mf, const struct an_freq *f, const uint64_t *counts);

/* Python's errno.errorcode[e], or NULL */
const char *an_errno_name(int64_t e);
/* repr() of a float into buf */
void an_repr_double(char *buf, size_t n, double v);

/* tmx_analyze() without CSV: the text or MI of the run on `out` */
int an_analyze_run(struct tmx_source *src, const struct tmx_an_opts *o, FILE *out, FILE *errout,
		   struct tmx_error *err);
/*
 * --format=csv, parquet (an_rows.c): the run as MI into a temporary file,
 * its tables as CSV on `out` (or one NAME.csv per table in o->rows_dir),
 * or Parquet files in o->rows_dir.
 */
int an_rows_analyze(struct tmx_source *src, const struct tmx_an_opts *o, FILE *out, FILE *errout,
		   struct tmx_error *err);

/* statistics.stdev of n integers from their sum and sum of squares; NaN below 2 */
double an_stdev(uint64_t n, __int128 sum, unsigned __int128 sumsq);

/*
 * Count, min, max, sum and sum of squares of durations (irqstats,
 * schedstats, syscallstats, the I/O latencies).
 */
struct an_agg {
	uint64_t count;
	int64_t min, max;
	__int128 sum;
	unsigned __int128 sumsq;
};

static inline void an_agg_add(struct an_agg *g, int64_t v)
{
	if (!g->count || v < g->min)
		g->min = v;
	if (!g->count || v > g->max)
		g->max = v;
	g->count++;
	g->sum += v;
	g->sumsq += (unsigned __int128)((__int128)v * v);
}

static inline double an_agg_avg(const struct an_agg *g)
{
	return (double)g->sum / (double)g->count;
}

static inline double an_agg_stdev(const struct an_agg *g)
{
	return an_stdev(g->count, g->sum, g->sumsq);
}

#endif
