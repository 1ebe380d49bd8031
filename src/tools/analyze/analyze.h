/*
 * `tracemux analyze COMMAND`: lttng-analyses 0.6.1's analyses of Linux
 * kernel traces (Python package lttnganalyses: the definition of every
 * number, rounding and table), read through the library's public API.
 * The CLI (cli/analyze.c) parses the options into struct tmx_an_opts,
 * opens the source, and hands both to tmx_analyze().
 */
#ifndef TMX_TOOLS_ANALYZE_H
#define TMX_TOOLS_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tracemux/error.h"
#include "tracemux/run.h"
#include "tracemux/tracemux.h"

enum tmx_an_cmd {
	TMX_AN_CPUTOP,
	TMX_AN_SCHEDSTATS,
	TMX_AN_SCHEDTOP,
	TMX_AN_SCHEDLOG,
	TMX_AN_SCHEDFREQ,
	TMX_AN_SYSCALLSTATS,
	TMX_AN_IRQSTATS,
	TMX_AN_IRQLOG,
	TMX_AN_IRQFREQ,
	TMX_AN_MEMTOP,
	TMX_AN_IOLATENCYSTATS,
	TMX_AN_IOLATENCYTOP,
	TMX_AN_IOLATENCYFREQ,
	TMX_AN_IOLOG,
	TMX_AN_IOUSAGETOP,
	TMX_AN_N_CMDS,
};

struct tmx_an_opts {
	enum tmx_an_cmd cmd;
	bool mi;                  /* lttng-COMMAND-mi's JSON */
	/*
	 * The MI's tables as rows (an_rows.c): CSV on `out` one after the
	 * other ("# table: NAME", a header, rows; a blank line between), or
	 * with rows_dir set one DIR/NAME.csv per table; Parquet: one
	 * DIR/NAME.parquet per table (rows_dir required).
	 */
	enum tmx_an_rows { TMX_AN_ROWS_NONE, TMX_AN_ROWS_CSV, TMX_AN_ROWS_PARQUET } rows;
	const char *rows_dir;
	bool gmt;
	bool skip_validation;     /* no "Checking the trace for lost events..." line */
	bool no_intersection;     /* else only the streams' common time range */
	/* --begin, --end, --timerange as given (parsed against the trace) */
	const char *begin, *end, *timerange;
	/* --cpu, --tid: lists; --procname: names (NULL: no filter) */
	const int64_t *cpus, *tids;
	size_t n_cpus, n_tids;
	const char *const *procnames;
	size_t n_procnames;
	long limit;               /* --limit (default 10; <= 0: no limit) */
	bool top;                 /* --top (cputop prints its tables anyway) */
	/* the sched commands' outputs (each command implies its own) */
	bool stats, log, freq;
	bool total, per_tid, per_prio;
	/* --min/--max in µs, as given */
	bool has_min, has_max;
	double min_us, max_us;
	long freq_resolution;     /* default 20 */
	bool freq_uniform, freq_series;
	/* irq commands: --irq, --softirq lists as given (NULL: none) */
	const char *irq_list, *softirq_list;
	/* I/O commands: --usage, --minsize/--maxsize in bytes, as given */
	bool usage;
	bool has_minsize, has_maxsize;
	double minsize, maxsize;
	/*
	 * How the events are read (tracemux/run.h; TMX_RUN_OPTS_INIT at
	 * least): the jobs, which decode on every core with the same output
	 * whatever their number, and the progress, whose last call is made
	 * when the events end, before the output.  `keep` is the analysis'.
	 */
	struct tmx_run_opts run;
};

/* The command of `name` ("cputop"...); false when there is none. */
bool tmx_an_command(const char *name, enum tmx_an_cmd *cmd);
const char *tmx_an_command_name(enum tmx_an_cmd cmd);

/*
 * Runs the analysis over every event of `src` and writes its text (or MI
 * JSON, or CSV; or Parquet files) to `out`.  Returns 0, 1 on an error (written to `out` as
 * lttng-analyses writes it: stderr text, or MI's {"error-message"} on
 * stdout, with `errout` for the text), 2 on a command-line error.  A read
 * error of the trace ends the events: the analysis of what was read is
 * written, then the error is returned in `err` (status 1).
 */
int tmx_analyze(struct tmx_source *src, const struct tmx_an_opts *opts, FILE *out, FILE *errout,
		struct tmx_error *err);

#endif
