/*
 * `tracemux xray-account [OPTIONS] --instr-map BIN TRACE`: llvm-xray
 * account's per-function latency table (src/tools/xray/account.c), with
 * llvm-xray's options and spellings (-sort=count, -k, -d...), one call
 * stack per thread whatever the thread order in the file, and a summary of
 * what could not be accounted on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_options.h"
#include "options.h"
#include "tools/xray/account.h"
#include "tools/xray/debuginfo.h"

static void account_usage(FILE *out)
{
	fputs("Usage: tracemux xray-account [OPTIONS] [--instr-map BINARY] XRAY_LOG\n"
	      "\n"
	      "Per-function call latencies of an LLVM XRay log, as `llvm-xray account`\n"
	      "prints them (count, min, median, 90th/99th percentile, max, sum, in seconds),\n"
	      "with one call stack per thread: multi-threaded logs need no --keep-going.\n"
	      "Options take llvm-xray's spellings too (-sort=count, -k, -d, -m BIN...).\n"
	      "\n"
	      "  -m, --instr-map=BINARY   instrumented binary (or llvm-xray's YAML map): names\n"
	      "                           functions (without it: #ID, as llvm-xray)\n"
	      "  -s, --sort=FIELD         funcid (default), count, min, med, 90p, 99p, max,\n"
	      "                           sum, func (by name)\n"
	      "  -r, --sortorder=ORDER    asc (default) or dsc\n"
	      "  -p, --top=N              only the first N functions\n"
	      "  -f, --format=FMT         text (default) or csv\n"
	      "  -o, --output=FILE        write the table to FILE ('-': standard output)\n"
	      "  -d, --deduce-sibling-calls  an exit of a function deeper in the stack also\n"
	      "                           closes the calls above it (llvm-xray -d)\n"
	      "      --recursive-calls-only  only count calls of functions that are recursive\n"
	      "  -k, --keep-going         accepted for llvm-xray compatibility: unmatched\n"
	      "                           records are always skipped and reported\n"
	      "      --strict             stop with an error at the first unmatched record\n"
	      "      --lenient            skip damaged buffers of the log (reported)\n"
	      "      --account-memory=BYTES  memory for the stored latencies (suffix K, M, G;\n"
	      "                           default 64M); over it the percentiles are found\n"
	      "                           exactly by reading the log again (up to 10 passes)\n"
	      "  -j, --jobs=N             decode the log on N threads (default: TRACEMUX_JOBS,\n"
	      "                           else every CPU); the table does not depend on it\n"
	      "      --progress           show the progress of each pass over the log on\n"
	      "                           standard error (bytes read of the total, events,\n"
	      "                           rate, time left; default: when it is a terminal that\n"
	      "                           the table does not go to)\n"
	      "      --no-progress        never show it\n"
	      "\n"
	      "What was not accounted (exits with no matching entry, calls never exited)\n"
	      "is summed up on standard error.  Exit status: 0, 1 on error, 2 on bad usage.\n",
	      out);
}

static bool parse_sort(const char *s, enum tmx_xacct_sort *out)
{
	static const struct {
		const char *name;
		enum tmx_xacct_sort field;
	} fields[] = {
		{ "funcid", TMX_XACCT_SORT_FUNCID }, { "count", TMX_XACCT_SORT_COUNT },
		{ "min", TMX_XACCT_SORT_MIN },       { "med", TMX_XACCT_SORT_MED },
		{ "90p", TMX_XACCT_SORT_PCT90 },     { "99p", TMX_XACCT_SORT_PCT99 },
		{ "max", TMX_XACCT_SORT_MAX },       { "sum", TMX_XACCT_SORT_SUM },
		{ "func", TMX_XACCT_SORT_FUNC },
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strcmp(s, fields[i].name)) {
			*out = fields[i].field;
			return true;
		}
	return false;
}

/* BYTES[K|M|G] (powers of 1024), at least 1. */
static bool parse_bytes(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (*end && !end[1]) {
		switch (*end) {
		case 'k': case 'K': shift = 10; break;
		case 'm': case 'M': shift = 20; break;
		case 'g': case 'G': shift = 30; break;
		default: return false;
		}
		end++;
	}
	if (*end || v == 0 || v > (SIZE_MAX >> shift))
		return false;
	*out = (size_t)v << shift;
	return true;
}

/* The summary of what was not accounted (stderr). */
static void report_unaccounted(const struct tmx_xacct_stats *s)
{
	uint64_t skipped = 0;

	for (int k = 0; k < TMX_XACCT_N_SKIPS; k++)
		skipped += s->skipped[k];
	if (skipped) {
		fprintf(stderr, "tracemux xray-account: skipped %llu of %llu function records:\n",
			(unsigned long long)skipped, (unsigned long long)s->records);
		for (int k = 0; k < TMX_XACCT_N_SKIPS; k++)
			if (s->skipped[k])
				fprintf(stderr, "  %llu %s\n", (unsigned long long)s->skipped[k],
					tmx_xacct_skip_name((enum tmx_xacct_skip)k));
		fprintf(stderr, "  first: thread %u, function id %d, tsc %llu (%s)\n", s->first_tid,
			s->first_func, (unsigned long long)s->first_tsc,
			tmx_xacct_skip_name(s->first_kind));
	}
	if (s->still_open)
		fprintf(stderr, "tracemux xray-account: %llu call%s never exited (not counted)\n",
			(unsigned long long)s->still_open, s->still_open == 1 ? "" : "s");
	if (s->deduced)
		fprintf(stderr, "tracemux xray-account: %llu call%s closed by the exit of a caller "
			"(-d)\n", (unsigned long long)s->deduced, s->deduced == 1 ? "" : "s");
}

/*
 * llvm-xray's debug-info column: "(unknown)" for an id the map does not
 * have (or without a map), "<invalid>:0:0" with a YAML map (llvm-xray
 * hands the YAML file to its symbolizer), else the binary's DWARF line of
 * the function's address.
 */
struct debug_col {
	int32_t id;
	char *text;    /* NULL: "(unknown)" */
};

struct debug_table {
	struct debug_col *cols;
	size_t n;
};

static int col_cmp(const void *a, const void *b)
{
	const struct debug_col *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static const char *debug_of(void *user, int32_t id)
{
	const struct debug_table *t = user;
	struct debug_col key = { id, NULL };
	const struct debug_col *c;

	if (!t->n)
		return NULL;   /* no map */
	c = bsearch(&key, t->cols, t->n, sizeof(key), col_cmp);
	return c ? c->text : NULL;
}

static void debug_free(struct debug_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->cols[i].text);
	free(t->cols);
}

static int debug_columns(const char *map, const struct tmx_xacct *acct, struct debug_table *t,
			 struct tmx_error *err)
{
	size_t n = tmx_xacct_n_functions(acct), n_addrs = 0;
	uint64_t *fn_addrs = NULL, *addrs;
	char **texts;
	size_t *where;
	uint32_t n_fn = 0;
	bool is_elf;
	int ret;

	t->n = 0;
	t->cols = calloc(n ? n : 1, sizeof(*t->cols));
	addrs = malloc((n ? n : 1) * sizeof(*addrs));
	texts = malloc((n ? n : 1) * sizeof(*texts));
	where = malloc((n ? n : 1) * sizeof(*where));
	if (!t->cols || !addrs || !texts || !where) {
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		goto out;
	}
	t->n = n;
	if ((ret = tmx_debuginfo_xray_functions(map, &fn_addrs, &n_fn, &is_elf, err)))
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		char self[16];
		int32_t id = tmx_xacct_function(acct, i, &name);
		t->cols[i].id = id;
		if (is_elf) {
			if (id >= 1 && (uint32_t)id <= n_fn) {
				addrs[n_addrs] = fn_addrs[id - 1];
				where[n_addrs++] = i;
			}
			continue;
		}
		/* YAML map: the reader names an id it does not have "#ID". */
		snprintf(self, sizeof(self), "#%d", id);
		if (name && strcmp(name, self) && !(t->cols[i].text = strdup("<invalid>:0:0"))) {
			ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
			goto out;
		}
	}
	if (n_addrs && (ret = tmx_debuginfo_lookup(map, addrs, n_addrs, texts, err)))
		goto out;
	for (size_t k = 0; k < n_addrs; k++)
		t->cols[where[k]].text = texts[k];
	qsort(t->cols, t->n, sizeof(*t->cols), col_cmp);
out:
	free(fn_addrs);
	free(addrs);
	free(texts);
	free(where);
	return ret;
}

static void account_warning(void *user, const char *msg)
{
	(void)user;
	cli_progress_clear();
	fprintf(stderr, "tracemux: warning: %s\n", msg);
}

/* Later passes: pass 1 said it all. */
static void quiet_warning(void *user, const char *msg)
{
	(void)user;
	(void)msg;
}

/*
 * One pass: every message of `src` into the accounting.  A read error
 * ends the pass (*read_failed, *read_err: what was read before it
 * counts); an accounting error (--strict, out of memory) is returned.
 */
static int account_pass(struct tmx_source *src, struct tmx_xacct *acct, bool *read_failed,
			struct tmx_error *read_err, struct tmx_error *err,
			struct tmx_progress_meter *meter)
{
	const struct tmx_msg *msg;
	int ret;

	for (;;) {
		if (tmx_source_next(src, &msg, read_err)) {
			*read_failed = true;
			ret = TMX_OK;
			break;
		}
		if (!msg) {
			ret = TMX_OK;
			break;
		}
		if (meter)
			tmx_progress_meter_note(meter, msg);
		if ((ret = tmx_xacct_consume(acct, msg, err)))
			break;
	}
	tmx_progress_meter_end(meter, !ret && !*read_failed);
	tmx_progress_meter_free(meter);
	return ret;
}

/* The table into `output` (NULL: standard output), with the map's debug columns; the exit status. */
static int write_table(struct tmx_xacct *acct, const struct tmx_xray_opts *xopts,
		       const char *output)
{
	struct debug_table dt = { NULL, 0 };
	struct tmx_error err = { 0 };
	int out_fd = STDOUT_FILENO, status = 0;

	if (output) {
		out_fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			fprintf(stderr, "tracemux: error: %s: cannot open for writing: %s\n",
				output, strerror(errno));
			return 1;
		}
	}
	if (xopts->instr_map && debug_columns(xopts->instr_map, acct, &dt, &err))
		status = cli_report(&err);
	if (!status && tmx_xacct_write(acct, out_fd, xopts->symbolize, debug_of, &dt, &err))
		status = cli_report(&err);
	debug_free(&dt);
	if (out_fd != STDOUT_FILENO && close(out_fd) && !status) {
		fprintf(stderr, "tracemux: error: %s: %s\n", output, strerror(errno));
		status = 1;
	}
	return status;
}

/* What the options of xray-account fill. */
struct account_args {
	struct tmx_xacct_opts opts;
	struct tmx_xray_opts xopts;
	const char *output;
	int progress;   /* --progress 1, --no-progress -1 */
};

static int account_usage_error(const char *fmt, const char *arg)
{
	return cli_command_usage_error("xray-account", fmt, arg);
}

static int set_sort(void *state, const struct cmd_option *o, const char *arg)
{
	(void)o;
	if (!parse_sort(arg, &((struct account_args *)state)->opts.sort))
		return account_usage_error("invalid -sort value `%s` (funcid, count, min, med, 90p, "
					   "99p, max, sum, func)", arg);
	return 0;
}

static int set_sortorder(void *state, const struct cmd_option *o, const char *arg)
{
	(void)o;
	return cmd_choice("xray-account", "-sortorder", arg, "asc", "dsc",
			  &((struct account_args *)state)->opts.descending);
}

static int set_top(void *state, const struct cmd_option *o, const char *arg)
{
	char *end;
	long top;

	(void)o;
	errno = 0;
	top = strtol(arg, &end, 10);
	if (errno || end == arg || *end)
		return account_usage_error("invalid -top value `%s`", arg);
	((struct account_args *)state)->opts.top = top;
	return 0;
}

static int set_format(void *state, const struct cmd_option *o, const char *arg)
{
	(void)o;
	return cmd_choice("xray-account", "-format", arg, "text", "csv",
			  &((struct account_args *)state)->opts.csv);
}

static int set_memory(void *state, const struct cmd_option *o, const char *arg)
{
	(void)o;
	if (!parse_bytes(arg, &((struct account_args *)state)->opts.memory))
		return account_usage_error("invalid --account-memory value `%s` (bytes, e.g. 65536, "
					   "512K, 64M)", arg);
	return 0;
}

static int set_jobs(void *state, const struct cmd_option *o, const char *arg)
{
	(void)o;
	return cli_parse_jobs("--jobs", arg, &((struct account_args *)state)->xopts.jobs) ? 2 : 0;
}

static int show_help(void *state, const struct cmd_option *o, const char *arg)
{
	(void)state, (void)o, (void)arg;
	account_usage(stdout);
	return CMD_EXIT_OK;
}

static const struct cmd_option account_options[] = {
	CMD_TEXT("instr-map", 'm', struct account_args, xopts.instr_map),
	CMD_TEXT("instr_map", 'm', struct account_args, xopts.instr_map),
	{ "sort", 's', required_argument, set_sort, 0 },
	{ "sortorder", 'r', required_argument, set_sortorder, 0 },
	{ "top", 'p', required_argument, set_top, 0 },
	{ "format", 'f', required_argument, set_format, 0 },
	CMD_OUTPUT("output", 'o', struct account_args, output),
	CMD_FLAG("deduce-sibling-calls", 'd', struct account_args, opts.deduce_sibling_calls),
	/* Always (see the usage): accepted for llvm-xray's command lines. */
	{ "keep-going", 'k', no_argument, cmd_ignore, 0 },
	CMD_FLAG("recursive-calls-only", 0, struct account_args, opts.recursive_calls_only),
	CMD_FLAG("strict", 0, struct account_args, opts.strict),
	CMD_FLAG("lenient", 0, struct account_args, xopts.lenient),
	{ "account-memory", 0, required_argument, set_memory, 0 },
	{ "jobs", 'j', required_argument, set_jobs, 0 },
	CMD_PROGRESS("progress", struct account_args, progress),
	CMD_PROGRESS("no-progress", struct account_args, progress),
	{ "help", 'h', no_argument, show_help, 0 },
};

int cli_xray_account(int argc, char **argv, const struct tmx_diag *diag_in)
{
	struct account_args args = { .xopts = TMX_XRAY_OPTS_INIT };
	struct tmx_xacct_opts *opts = &args.opts;
	struct tmx_xray_opts *xopts = &args.xopts;
	struct tmx_diag diag = diag_in ? *diag_in : (struct tmx_diag){ .warn = account_warning };
	struct tmx_error err = { 0 }, read_err = { 0 };
	bool read_failed = false, again = false;
	const char *output;
	struct tmx_source *src = NULL;
	struct tmx_xacct *acct = NULL;
	int status = 0, first;

	if (getenv("TRACEMUX_JOBS") && *getenv("TRACEMUX_JOBS") &&
	    cli_parse_jobs("TRACEMUX_JOBS", getenv("TRACEMUX_JOBS"), &xopts->jobs))
		return 2;
	argv++, argc--;   /* "xray-account" becomes argv[0] */
	if ((status = cli_cmd_parse("xray-account", account_options,
				    sizeof(account_options) / sizeof(account_options[0]), &args, argc,
				    argv, &first)))
		return status == CMD_EXIT_OK ? 0 : status;
	output = args.output;
	if (first != argc - 1)
		return cli_command_usage_error("xray-account",
					       "%s", first >= argc ? "no XRay log given" : "one XRay log at a time");
	/*
	 * llvm-xray account always names functions from the map.  Records in
	 * TSC order (llvm-xray convert's default): each thread's calls in time
	 * order.  llvm-xray account reads them unsorted, where a thread's FDR
	 * blocks may come out of time order (fdr-v5-large.xray: newest first),
	 * which pairs enters and exits of different blocks.
	 */
	xopts->symbolize = xopts->instr_map != NULL;
	if (tmx_xray_open((const char *const *)&argv[first], 1, xopts, &diag, &src, &err))
		return cli_report(&err);
	acct = tmx_xacct_new(opts);
	if (!acct) {
		tmx_source_free(src);
		fputs("tracemux: error: out of memory\n", stderr);
		return 1;
	}
	/*
	 * A damaged log: the table of what was read before the damage is still
	 * printed, then the error (exit 1).  --strict and out of memory stop
	 * without a table, as llvm-xray without -k does.
	 */
	/* Each pass over the log draws its own progress (the table goes to `output`). */
	if (account_pass(src, acct, &read_failed, &read_err, &err,
			 cli_progress_meter(args.progress, !output, src)))
		status = cli_report(&err);
	/* Also after an error: the calls still open are reported. */
	if (tmx_xacct_finish(acct, &again, &err) && !status)
		status = cli_report(&err);
	/*
	 * Over the --account-memory budget: the percentiles take more passes
	 * over the same log, read the same way (a damaged log: up to the same
	 * damage, its error already known).
	 */
	while (!status && again) {
		struct tmx_diag quiet = { .warn = quiet_warning };
		struct tmx_error pass_err = { 0 };
		bool pass_failed = false;
		tmx_source_free(src);
		src = NULL;
		if (tmx_xray_open((const char *const *)&argv[first], 1, xopts, &quiet, &src, &err) ||
		    tmx_xacct_begin_pass(acct, &err) ||
		    account_pass(src, acct, &pass_failed, &pass_err, &err,
				 cli_progress_meter(args.progress, !output, src)) ||
		    tmx_xacct_finish(acct, &again, &err))
			status = cli_report(&err);
	}
	if (!status && tmx_xacct_passes(acct) > 1)
		fprintf(stderr, "tracemux xray-account: the latencies took more than --account-memory "
			"(%zu bytes): %u passes over the log\n",
			opts->memory ? opts->memory : TMX_XACCT_DEFAULT_MEMORY, tmx_xacct_passes(acct));
	if (!status)
		status = write_table(acct, xopts, output);
	if (read_failed) {
		cli_report(&read_err);
		status = 1;
	}
	report_unaccounted(tmx_xacct_stats(acct));
	tmx_xacct_free(acct);
	tmx_source_free(src);
	return status;
}
