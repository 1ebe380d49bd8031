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
};

static const struct option analyze_options[] = {
	{ "mi", no_argument, NULL, OPT_MI },
	{ "begin", required_argument, NULL, OPT_BEGIN },
	{ "end", required_argument, NULL, OPT_END },
	{ "timerange", required_argument, NULL, OPT_TIMERANGE },
	{ "gmt", no_argument, NULL, OPT_GMT },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "tid", required_argument, NULL, OPT_TID },
	{ "procname", required_argument, NULL, OPT_PROCNAME },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "top", no_argument, NULL, OPT_TOP },
	{ "no-intersection", no_argument, NULL, OPT_NO_INTERSECTION },
	{ "skip-validation", no_argument, NULL, OPT_SKIP_VALIDATION },
	/* lttng-analyses' display options, without effect here */
	{ "no-progress", no_argument, NULL, OPT_IGNORED },
	{ "no-color", no_argument, NULL, OPT_IGNORED },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void analyze_usage(FILE *out)
{
	fputs("Usage: tracemux analyze COMMAND [OPTIONS] TRACE...\n"
	      "\n"
	      "lttng-analyses 0.6.1's analyses of a Linux kernel trace, the same tables and\n"
	      "numbers as lttng-COMMAND (with --mi, the JSON of lttng-COMMAND-mi).\n"
	      "\n"
	      "Commands:\n"
	      "  cputop                   per-task and per-CPU CPU usage, migrations, priorities\n"
	      "\n"
	      "Options (lttng-analyses' spellings):\n"
	      "      --mi                 machine interface: lttng-COMMAND-mi's JSON\n"
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

int cli_analyze(int argc, char **argv, const struct tmx_diag *diag)
{
	struct tmx_an_opts o = { .limit = 10 };
	struct tmx_open_opts oopts = { 0 };
	struct tmx_error err = { 0 };
	struct tmx_source *src = NULL;
	int64_t *cpus = NULL, *tids = NULL;
	const char **names = NULL;
	char *names_buf = NULL;
	int c, status;

	argv++, argc--;   /* "analyze" becomes argv[0] */
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		analyze_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!tmx_an_command(argv[1], &o.cmd))
		return cli_command_usage_error("analyze", "unknown command `%s`", argv[1]);
	argv++, argc--;
	optind = 0;
	status = 2;
	while ((c = getopt_long(argc, argv, "h", analyze_options, NULL)) != -1) {
		char *end;
		switch (c) {
		case OPT_MI: o.mi = true; break;
		case OPT_BEGIN: o.begin = optarg; break;
		case OPT_END: o.end = optarg; break;
		case OPT_TIMERANGE: o.timerange = optarg; break;
		case OPT_GMT: o.gmt = true; break;
		case OPT_TOP: o.top = true; break;
		case OPT_NO_INTERSECTION: o.no_intersection = true; break;
		case OPT_SKIP_VALIDATION: o.skip_validation = true; break;
		case OPT_IGNORED: break;
		case OPT_CPU:
			free(cpus);
			cpus = NULL;
			if (!parse_int_list(optarg, &cpus, &o.n_cpus)) {
				status = cli_command_usage_error("analyze", "invalid --cpu list `%s`", optarg);
				goto out;
			}
			o.cpus = cpus;
			break;
		case OPT_TID:
			free(tids);
			tids = NULL;
			if (!parse_int_list(optarg, &tids, &o.n_tids)) {
				status = cli_command_usage_error("analyze", "invalid --tid list `%s`", optarg);
				goto out;
			}
			o.tids = tids;
			break;
		case OPT_PROCNAME:
			free(names);
			free(names_buf);
			names = NULL;
			if (!(names_buf = strdup(optarg)) || !parse_names(names_buf, &names, &o.n_procnames)) {
				status = cli_command_usage_error("analyze", "out of memory for `%s`", optarg);
				goto out;
			}
			o.procnames = names;
			break;
		case OPT_LIMIT:
			errno = 0;
			o.limit = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end) {
				status = cli_command_usage_error("analyze", "invalid --limit `%s`", optarg);
				goto out;
			}
			break;
		case 'h':
			analyze_usage(stdout);
			status = 0;
			goto out;
		default:
			status = cli_command_usage_error("analyze", "invalid option%s", "");
			goto out;
		}
	}
	if (optind >= argc) {
		status = cli_command_usage_error("analyze", "no trace given%s", "");
		goto out;
	}
	if (tmx_open((const char *const *)argv + optind, (size_t)(argc - optind), &oopts, diag, &src,
		     &err)) {
		status = cli_report(&err);
		goto out;
	}
	status = tmx_analyze(src, &o, stdout, stderr, &err);
	fflush(stdout);
	if (status == 1 && err.code)
		cli_report(&err);
out:
	tmx_source_free(src);
	free(cpus);
	free(tids);
	free(names);
	free(names_buf);
	return status;
}
