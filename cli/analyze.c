/*
 * `tracemux analyze COMMAND [OPTIONS] TRACE...`: lttng-analyses 0.6.1's
 * commands (lttng-cputop...), their text or, with --mi, the JSON of
 * lttng-COMMAND-mi (src/tools/analyze/).  Options are rows of one table
 * with lttng-analyses' spellings.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "tools/analyze/analyze.h"

enum {
	OPT_MI = 256,
	OPT_BEGIN,
	OPT_END,
	OPT_TIMERANGE,
	OPT_GMT,
	OPT_CPU,
	OPT_TID,
	OPT_PROCNAME,
	OPT_LIMIT,
	OPT_TOP,
	OPT_NO_INTERSECTION,
	OPT_SKIP_VALIDATION,
	OPT_IGNORED,
	OPT_PROGRESS,
	OPT_MIN,
	OPT_MAX,
	OPT_FREQ,
	OPT_FREQ_RESOLUTION,
	OPT_FREQ_UNIFORM,
	OPT_FREQ_SERIES,
	OPT_LOG,
	OPT_STATS,
	OPT_TOTAL,
	OPT_PER_TID,
	OPT_PER_PRIO,
	OPT_IRQ,
	OPT_SOFTIRQ,
	OPT_USAGE,
	OPT_MINSIZE,
	OPT_MAXSIZE,
	OPT_FORMAT,
};

/* Which commands take an option (lttng-analyses adds options per command). */
#define F_ALL (~0u)
#define F_CPUTOP (1u << TMX_AN_CPUTOP)
#define F_SYSCALLS (1u << TMX_AN_SYSCALLSTATS)
#define F_MEMTOP (1u << TMX_AN_MEMTOP)
#define F_IRQ ((1u << TMX_AN_IRQSTATS) | (1u << TMX_AN_IRQLOG) | (1u << TMX_AN_IRQFREQ))
#define F_IO ((1u << TMX_AN_IOLATENCYSTATS) | (1u << TMX_AN_IOLATENCYTOP) | \
	      (1u << TMX_AN_IOLATENCYFREQ) | (1u << TMX_AN_IOLOG) | (1u << TMX_AN_IOUSAGETOP))
#define F_SCHED ((1u << TMX_AN_SCHEDSTATS) | (1u << TMX_AN_SCHEDTOP) | (1u << TMX_AN_SCHEDLOG) | \
		 (1u << TMX_AN_SCHEDFREQ))

/* The options: one row each (getopt's table is made from the rows). */
static const struct an_option {
	const char *name;
	int has_arg;
	int id;
	unsigned commands;
} rows[] = {
	{ "mi", no_argument, OPT_MI, F_ALL },
	{ "format", required_argument, OPT_FORMAT, F_ALL },
	{ "output", required_argument, 'w', F_ALL },
	{ "begin", required_argument, OPT_BEGIN, F_ALL },
	{ "end", required_argument, OPT_END, F_ALL },
	{ "timerange", required_argument, OPT_TIMERANGE, F_ALL },
	{ "gmt", no_argument, OPT_GMT, F_ALL },
	{ "cpu", required_argument, OPT_CPU, F_ALL },
	{ "no-intersection", no_argument, OPT_NO_INTERSECTION, F_ALL },
	{ "skip-validation", no_argument, OPT_SKIP_VALIDATION, F_ALL },
	/* --no-progress is lttng-analyses' too; --progress forces it (cli/progress.c) */
	{ "progress", no_argument, OPT_PROGRESS, F_ALL },
	{ "no-progress", no_argument, OPT_PROGRESS, F_ALL },
	{ "jobs", required_argument, 'j', F_ALL },
	/* lttng-analyses' display option, without effect here */
	{ "no-color", no_argument, OPT_IGNORED, F_ALL },
	{ "tid", required_argument, OPT_TID, F_CPUTOP | F_SCHED | F_SYSCALLS | F_MEMTOP },
	{ "procname", required_argument, OPT_PROCNAME, F_CPUTOP | F_SCHED | F_SYSCALLS | F_MEMTOP },
	{ "limit", required_argument, OPT_LIMIT, F_CPUTOP | F_SCHED | F_MEMTOP | F_IO },
	{ "top", no_argument, OPT_TOP, F_CPUTOP | F_SCHED | F_MEMTOP | F_IO },
	{ "min", required_argument, OPT_MIN, F_SCHED | F_IRQ | F_IO },
	{ "max", required_argument, OPT_MAX, F_SCHED | F_IRQ | F_IO },
	{ "freq", no_argument, OPT_FREQ, F_SCHED | F_IRQ | F_IO },
	{ "freq-resolution", required_argument, OPT_FREQ_RESOLUTION, F_SCHED | F_IRQ | F_IO },
	{ "freq-uniform", no_argument, OPT_FREQ_UNIFORM, F_SCHED | F_IRQ | F_IO },
	{ "freq-series", no_argument, OPT_FREQ_SERIES, F_SCHED | F_IRQ | F_IO },
	{ "log", no_argument, OPT_LOG, F_SCHED | F_IRQ | F_IO },
	{ "stats", no_argument, OPT_STATS, F_SCHED | F_IRQ | F_IO },
	{ "usage", no_argument, OPT_USAGE, F_IO },
	{ "minsize", required_argument, OPT_MINSIZE, F_IO },
	{ "maxsize", required_argument, OPT_MAXSIZE, F_IO },
	{ "total", no_argument, OPT_TOTAL, F_SCHED },
	{ "per-tid", no_argument, OPT_PER_TID, F_SCHED },
	{ "per-prio", no_argument, OPT_PER_PRIO, F_SCHED },
	{ "irq", required_argument, OPT_IRQ, F_IRQ },
	{ "softirq", required_argument, OPT_SOFTIRQ, F_IRQ },
	{ "help", no_argument, 'h', F_ALL },
};
#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

static void analyze_usage(FILE *out)
{
	fputs("Usage: tracemux analyze COMMAND [OPTIONS] TRACE...\n"
	      "\n"
	      "lttng-analyses 0.6.1's analyses of a Linux kernel trace, the same tables and\n"
	      "numbers as lttng-COMMAND (with --mi, the JSON of lttng-COMMAND-mi).\n"
	      "\n"
	      "Commands:\n"
	      "  cputop                   per-task and per-CPU CPU usage, migrations, priorities\n"
	      "  schedstats, schedtop, schedlog, schedfreq\n"
	      "                           wakeup-to-switch latencies: statistics, the largest,\n"
	      "                           all of them, their frequency distribution\n"
	      "  syscallstats             per-task system call counts, durations, return values\n"
	      "  memtop                   pages allocated and freed per task\n"
	      "  irqstats, irqlog, irqfreq\n"
	      "                           hard IRQ and softirq durations, softirq raise latencies:\n"
	      "                           statistics, log, frequency distributions\n"
	      "  iolatencystats, iolatencytop, iolatencyfreq, iolog\n"
	      "                           I/O system call (open, read, write, sync) and disk\n"
	      "                           request latencies: statistics, the largest, frequency\n"
	      "                           distributions, every request with its file\n"
	      "  iousagetop               bytes read and written per process, file, disk and\n"
	      "                           network interface; block I/O per process\n"
	      "\n"
	      "Options (lttng-analyses' spellings):\n"
	      "      --mi                 machine interface: lttng-COMMAND-mi's JSON\n"
	      "      --format=FMT         text (lttng-COMMAND's, the default), mi (= --mi),\n"
	      "                           csv: every MI result table as CSV rows (RFC 4180\n"
	      "                           quoting, LF line ends): columns period_begin,\n"
	      "                           period_end (ns), subtitle, then the table's columns\n"
	      "                           named from their titles (process_name, process_pid,\n"
	      "                           process_tid...); numbers as in the MI (ns, ratios),\n"
	      "                           no units; on standard output each table is\n"
	      "                           \"# table: NAME\", a header and its rows, tables\n"
	      "                           separated by a blank line; or parquet: the same\n"
	      "                           tables as Parquet files in -w DIR (typed columns:\n"
	      "                           INT64, DOUBLE, BOOLEAN, strings)\n"
	      "  -w, --output=DIR         one DIR/NAME.csv (or NAME.parquet: required) per\n"
	      "                           table instead (DIR made if missing)\n"
	      "      --begin=TIME         start of the analysis: [YYYY-MM-DD ]hh:mm:ss[.nnnnnnnnn]\n"
	      "                           or nanoseconds from the epoch (local time)\n"
	      "      --end=TIME           end of the analysis\n"
	      "      --timerange=[B,E]    both at once\n"
	      "      --gmt                times in GMT instead of local time\n"
	      "      --cpu=LIST           only these CPU IDs (comma-separated)\n"
	      "      --tid=LIST           only these TIDs\n"
	      "      --procname=LIST      only these process names\n"
	      "      --limit=N            top N entries (default 10; 0: all)\n"
	      "      --top                accepted (cputop always prints its tables)\n"
	      "      --no-intersection    all events, not only the streams' common time range\n"
	      "      --skip-validation    no \"Checking the trace for lost events...\" line\n"
	      "      --progress           show the progress on standard error (bytes read of the\n"
	      "                           total, events, rate, time left; default: when it is a\n"
	      "                           terminal that standard output is not)\n"
	      "      --no-progress        never show it\n"
	      "  -j, --jobs=N             decode the trace on N threads (default: TRACEMUX_JOBS,\n"
	      "                           else every CPU; the output is the same whatever N)\n"
	      "sched commands (each also takes the others' outputs):\n"
	      "      --stats, --top, --log, --freq  the outputs\n"
	      "      --total, --per-tid, --per-prio  groups of stats and freq (default per TID)\n"
	      "      --min=US, --max=US   only latencies in this range (microseconds)\n"
	      "      --freq-resolution=N  buckets (default 20)\n"
	      "      --freq-uniform       the same buckets for every distribution\n"
	      "      --freq-series        (MI) one table with a column per distribution\n"
	      "irq commands: --stats, --log, --freq, --min, --max, --freq-* as above, and\n"
	      "      --irq=LIST, --softirq=LIST  only these IRQ numbers / softirq vectors\n"
	      "io commands (each also takes the others' outputs; no --tid, --procname: as\n"
	      "lttng-analyses, --cpu only warns):\n"
	      "      --stats, --top, --freq, --log, --usage  the outputs\n"
	      "      --min=US, --max=US   only requests of latencies in this range (microseconds)\n"
	      "      --minsize=B, --maxsize=B  only requests of sizes in this range (bytes)\n"
	      "      --limit=N            top N requests (default 10): N + 1 rows per table, as\n"
	      "                           lttng-iolatencytop; N rows in iousagetop's tables\n"
	      "      --freq-resolution=N  buckets (default 20); --freq-uniform and --freq-series\n"
	      "                           are accepted and change nothing, as in lttng-analyses\n"
	      "\n"
	      "Exit status: 0, 1 on error (the analysis of what was read is printed first),\n"
	      "2 on bad usage.\n",
	      out);
}

/* "1,2,3" into integers (Python's int(): optional sign, digits, spaces around). */
static bool parse_int_list(const char *s, int64_t **out, size_t *n)
{
	char *copy = strdup(s), *save = NULL, *tok;
	int64_t *v = NULL;
	size_t k = 0;

	if (!copy)
		return false;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long long x;
		int64_t *nv;
		errno = 0;
		x = strtoll(tok, &end, 10);
		while (*end == ' ')
			end++;
		if (errno || end == tok || *end || !(nv = realloc(v, (k + 1) * sizeof(*v)))) {
			free(v);
			free(copy);
			return false;
		}
		v = nv;
		v[k++] = x;
	}
	free(copy);
	*out = v;
	*n = k;
	return true;
}

/* "a,b" split on commas, as str.split(','): empty names kept. */
static bool parse_names(char *s, const char ***out, size_t *n)
{
	size_t k = 1;
	const char **v;

	for (const char *p = s; *p; p++)
		k += *p == ',';
	if (!(v = malloc(k * sizeof(*v))))
		return false;
	k = 0;
	v[k++] = s;
	for (char *p = s; *p; p++)
		if (*p == ',') {
			*p = 0;
			v[k++] = p + 1;
		}
	*out = v;
	*n = k;
	return true;
}

/* What the command implies (lttng-schedstats is lttng-sched --stats...). */
static void command_defaults(struct tmx_an_opts *o)
{
	switch (o->cmd) {
	case TMX_AN_SCHEDSTATS: case TMX_AN_IRQSTATS: case TMX_AN_IOLATENCYSTATS: o->stats = true; break;
	case TMX_AN_SCHEDTOP: case TMX_AN_IOLATENCYTOP: o->top = true; break;
	case TMX_AN_SCHEDLOG: case TMX_AN_IRQLOG: case TMX_AN_IOLOG: o->log = true; break;
	case TMX_AN_SCHEDFREQ: case TMX_AN_IRQFREQ: case TMX_AN_IOLATENCYFREQ: o->freq = true; break;
	case TMX_AN_IOUSAGETOP: o->usage = true; break;
	default: break;
	}
}

/* The options' values and what they own. */
struct an_cli {
	struct tmx_an_opts o;
	int64_t *cpus, *tids;
	const char **names;
	char *names_buf;
	int progress;
};

static bool parse_double(const char *s, double *v, bool *has)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	*has = true;
	return !errno && end != s && !*end;
}

static bool parse_long(const char *s, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(s, &end, 10);
	return !errno && end != s && !*end;
}

/* One option applied: -1, or the exit status when it ends the command. */
static int apply_option(struct an_cli *a, int c, const char *optname)
{
	struct tmx_an_opts *o = &a->o;

	switch (c) {
	case OPT_MI: o->mi = true; o->rows = TMX_AN_ROWS_NONE; break;
	case OPT_FORMAT:
		if (strcmp(optarg, "text") && strcmp(optarg, "mi") && strcmp(optarg, "csv") &&
		    strcmp(optarg, "parquet"))
			return cli_command_usage_error("analyze", "unknown format `%s` (text, mi, csv, "
						       "parquet)", optarg);
		o->mi = !strcmp(optarg, "mi");
		o->rows = !strcmp(optarg, "csv") ? TMX_AN_ROWS_CSV
			: !strcmp(optarg, "parquet") ? TMX_AN_ROWS_PARQUET : TMX_AN_ROWS_NONE;
		break;
	case 'w': o->rows_dir = optarg; break;
	case OPT_BEGIN: o->begin = optarg; break;
	case OPT_END: o->end = optarg; break;
	case OPT_TIMERANGE: o->timerange = optarg; break;
	case OPT_GMT: o->gmt = true; break;
	case OPT_TOP: o->top = true; break;
	case OPT_NO_INTERSECTION: o->no_intersection = true; break;
	case OPT_SKIP_VALIDATION: o->skip_validation = true; break;
	case OPT_IGNORED: break;
	case OPT_PROGRESS: a->progress = cli_progress_option(optname); break;
	case 'j':
		if (cli_parse_jobs("--jobs", optarg, &o->run.jobs))
			return 2;
		break;
	case OPT_CPU:
	case OPT_TID: {
		int64_t **list = c == OPT_CPU ? &a->cpus : &a->tids;
		free(*list);
		*list = NULL;
		if (!parse_int_list(optarg, list, c == OPT_CPU ? &o->n_cpus : &o->n_tids))
			return cli_command_usage_error("analyze", c == OPT_CPU ? "invalid --cpu list `%s`"
								       : "invalid --tid list `%s`", optarg);
		*(c == OPT_CPU ? &o->cpus : &o->tids) = *list;
		break;
	}
	case OPT_PROCNAME:
		free(a->names);
		free(a->names_buf);
		a->names = NULL;
		if (!(a->names_buf = strdup(optarg)) ||
		    !parse_names(a->names_buf, &a->names, &o->n_procnames))
			return cli_command_usage_error("analyze", "out of memory for `%s`", optarg);
		o->procnames = a->names;
		break;
	case OPT_LIMIT:
		if (!parse_long(optarg, &o->limit))
			return cli_command_usage_error("analyze", "invalid --limit `%s`", optarg);
		break;
	case OPT_MINSIZE:
	case OPT_MAXSIZE:
		if (!(c == OPT_MINSIZE ? parse_double(optarg, &o->minsize, &o->has_minsize)
				       : parse_double(optarg, &o->maxsize, &o->has_maxsize)))
			return cli_command_usage_error("analyze", "invalid size `%s`", optarg);
		break;
	case OPT_USAGE: o->usage = true; break;
	case OPT_MIN:
	case OPT_MAX:
		if (!(c == OPT_MIN ? parse_double(optarg, &o->min_us, &o->has_min)
				   : parse_double(optarg, &o->max_us, &o->has_max)))
			return cli_command_usage_error("analyze", "invalid duration `%s`", optarg);
		break;
	case OPT_FREQ_RESOLUTION:
		if (!parse_long(optarg, &o->freq_resolution) || o->freq_resolution > 1000000)
			return cli_command_usage_error("analyze", "invalid --freq-resolution `%s`",
						       optarg);
		break;
	case OPT_FREQ: o->freq = true; break;
	case OPT_FREQ_UNIFORM: o->freq_uniform = true; break;
	case OPT_FREQ_SERIES: o->freq_series = o->freq_uniform = true; break;
	case OPT_LOG: o->log = true; break;
	case OPT_STATS: o->stats = true; break;
	case OPT_TOTAL: o->total = true; break;
	case OPT_PER_TID: o->per_tid = true; break;
	case OPT_PER_PRIO: o->per_prio = true; break;
	case OPT_IRQ: o->irq_list = optarg; break;
	case OPT_SOFTIRQ: o->softirq_list = optarg; break;
	case 'h':
		analyze_usage(stdout);
		return 0;
	default:
		return cli_command_usage_error("analyze", "invalid option%s", "");
	}
	return -1;
}

/* Opens the traces and runs the analysis. */
static int run_analysis(struct an_cli *a, char **paths, size_t n, const struct tmx_diag *diag)
{
	struct tmx_open_opts oopts = TMX_OPEN_OPTS_INIT;
	struct tmx_error err = { 0 };
	struct tmx_source *src = NULL;
	int status;

	/* The analyses read events and the streams' ranges, never a packet's end. */
	oopts.ctf.packet_ends_unread = true;
	if (tmx_open((const char *const *)paths, n, &oopts, diag, &src, &err))
		return cli_report(&err);
	cli_progress_setup(a->progress, true, &a->o.run);
	status = tmx_analyze(src, &a->o, stdout, stderr, &err);
	cli_progress_clear();   /* a line left by an analysis that failed before its end */
	fflush(stdout);
	if (status == 1 && err.code)
		cli_report(&err);
	tmx_source_free(src);
	return status;
}

int cli_analyze(int argc, char **argv, const struct tmx_diag *diag)
{
	struct an_cli a = { .o = { .limit = 10, .freq_resolution = 20, .run = TMX_RUN_OPTS_INIT } };
	const char *env = getenv("TRACEMUX_JOBS");
	struct option longopts[N_ROWS + 1];
	int c, longindex = 0, status = -1;

	for (size_t i = 0; i < N_ROWS; i++)
		longopts[i] = (struct option){ rows[i].name, rows[i].has_arg, NULL, rows[i].id };
	longopts[N_ROWS] = (struct option){ NULL, 0, NULL, 0 };
	argv++, argc--;   /* "analyze" becomes argv[0] */
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		analyze_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!tmx_an_command(argv[1], &a.o.cmd))
		return cli_command_usage_error("analyze", "unknown command `%s`", argv[1]);
	argv++, argc--;
	command_defaults(&a.o);
	/* -j/--jobs, else TRACEMUX_JOBS, else every CPU (0), as the other commands */
	if (env && *env && cli_parse_jobs("TRACEMUX_JOBS", env, &a.o.run.jobs))
		return 2;
	optind = 0;
	while (status < 0 && (c = getopt_long(argc, argv, "hw:j:", longopts, &longindex)) != -1) {
		if (c >= OPT_MI && !(rows[longindex].commands & (1u << a.o.cmd)))
			status = cli_command_usage_error("analyze", "option --%s is not one of this "
						       "command's", rows[longindex].name);
		else
			status = apply_option(&a, c, rows[longindex].name);
	}
	if (status < 0 && a.o.rows_dir && !a.o.rows)
		status = cli_command_usage_error("analyze", "-w DIR goes with --format=csv or "
						 "parquet%s", "");
	if (status < 0 && a.o.rows == TMX_AN_ROWS_PARQUET && !a.o.rows_dir)
		status = cli_command_usage_error("analyze", "--format=parquet needs -w DIR%s", "");
	if (status < 0 && optind >= argc)
		status = cli_command_usage_error("analyze", "no trace given%s", "");
	if (status < 0)
		status = run_analysis(&a, argv + optind, (size_t)(argc - optind), diag);
	free(a.cpus);
	free(a.tids);
	free(a.names);
	free(a.names_buf);
	return status;
}
