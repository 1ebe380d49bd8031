/*
 * trace-cmd report's options (with -o tracecmd), as a table for
 * cli/options.c: most set a flag or a value of struct tmx_tcreport_opts,
 * the rest (lists, filters, -v, --events) have a handler.  Every one marks
 * the command line as asking for trace-cmd report's output.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

#define TC_AT(field) offsetof(struct tmx_tcreport_opts, field)

static int tc_flag(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)arg;
	*(bool *)((char *)&cli->tcreport + o->at) = true;
	cli->tc_options = true;
	return 0;
}

static int tc_string(struct cli *cli, const struct cli_option *o, const char *arg)
{
	*(const char **)((char *)&cli->tcreport + o->at) = arg;
	cli->tc_options = true;
	return 0;
}

/* --pid, --comm, -r, --no-handler, -H: comma-separated lists that add up. */
static int tc_list(struct cli *cli, const struct cli_option *o, const char *arg)
{
	const char **list = (const char **)((char *)&cli->tcreport + o->at);
	size_t *n = (size_t *)((char *)&cli->tcreport + o->count_at);
	struct tmx_error err;
	char what[32];

	if (o->key)
		snprintf(what, sizeof(what), "--%s", o->key);
	else
		snprintf(what, sizeof(what), "-%c", o->short_name);
	cli->tc_options = true;
	if (tmx_tcreport_add_item(list, n, arg, what, &err))
		return cli_usage_error("%s", err.msg);
	return 0;
}

static int tc_quiet(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	cli->tc_quiet = cli->tc_options = true;
	return 0;
}

/* As trace-cmd: one -v, negating the -F filters that follow it. */
static int tc_invert(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	if (cli->tc_invert)
		return cli_usage_error("%s", "only one -v can be used");
	cli->tc_invert = cli->tc_options = true;
	return 0;
}

static int tc_filter(struct cli *cli, const struct cli_option *o, const char *arg)
{
	struct tmx_error err;

	(void)o;
	cli->tc_options = true;
	if (tmx_tcreport_add_filter(&cli->tcreport, arg, cli->tc_invert, &err))
		return cli_usage_error("%s", err.msg);
	return 0;
}

/*
 * --events wins over --event, as in trace-cmd.  `--events` without a value
 * (the general options' row, which hands it here) is report's; with one
 * (`--events=GLOB`) it selects event classes for every output.
 */
int cli_tracecmd_events(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o, (void)arg;
	cli->tcreport.event_formats = ".*";
	cli->tc_options = cli->tc_events_seen = true;
	return 0;
}

static int tc_event(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	if (!cli->tc_events_seen)
		cli->tcreport.event_formats = arg;
	cli->tc_options = true;
	return 0;
}

static int tc_ts2secs(struct cli *cli, const struct cli_option *o, const char *arg)
{
	char *end;
	long long hz;

	(void)o;
	errno = 0;
	hz = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || hz <= 0)
		return cli_usage_error("invalid --ts2secs value `%s`: a clock frequency in Hz "
				       "(a positive integer)", arg);
	cli->tcreport.ts2secs = (uint64_t)hz;
	cli->tc_options = true;
	return 0;
}

/* "3.1" or "3.3" (--report-version, TRACEMUX_REPORT_VERSION): which trace-cmd report is printed. */
int cli_tracecmd_version(const char *what, const char *arg, enum tmx_tcreport_version *v)
{
	char msg[200];

	if (!strcmp(arg, "3.1")) {
		*v = TMX_TCREPORT_V31;
		return 0;
	}
	if (!strcmp(arg, "3.3")) {
		*v = TMX_TCREPORT_V33;
		return 0;
	}
	snprintf(msg, sizeof(msg), "invalid %s `%.64s`: 3.1 (trace-cmd 3.1.6, Debian 12) or 3.3 "
		 "(trace-cmd 3.3.x/3.4 with libtraceevent 1.8)", what, arg);
	return cli_usage_error("%s", msg);
}

static int tc_version(struct cli *cli, const struct cli_option *o, const char *arg)
{
	(void)o;
	return cli_tracecmd_version("--report-version", arg, &cli->tcreport.report_version);
}

#define FLAG(name, short_name, field) { name, short_name, false, tc_flag, NULL, NULL, TC_AT(field), 0 }
#define STRING(name, short_name, field) \
	{ name, short_name, true, tc_string, NULL, NULL, TC_AT(field), 0 }
/* Lists name themselves in errors by their long name, or by their letter when `key` is NULL. */
#define LIST(name, short_name, key, field, count) \
	{ name, short_name, true, tc_list, NULL, key, TC_AT(field), TC_AT(count) }
#define DO(name, short_name, has_arg, fn) { name, short_name, has_arg, fn, NULL, NULL, 0, 0 }

const struct cli_option cli_tracecmd_options[] = {
	FLAG("raw", 'R', raw),
	FLAG("nsec", 0, nsec),
	FLAG("no-plugins", 'N', no_plugins),
	STRING("cpu", 0, cpus),
	/* -F's long name is not --filter, which selects events for every output. */
	DO("tracecmd-filter", 'F', true, tc_filter),
	DO("invert-filter", 'v', false, tc_invert),
	FLAG("stat", 0, stat),
	FLAG("latency", 'l', latency),
	FLAG("ts-diff", 0, ts_diff),
	FLAG("page-size", 0, page_size),
	FLAG("endian", 0, endian),
	FLAG("check-events", 0, check_events),
	DO("event", 0, true, tc_event),
	FLAG("list-events", 'E', list_events),
	FLAG("cpus", 0, cpus_list),
	FLAG("first-event", 0, first_event),
	FLAG("last-event", 0, last_event),
	FLAG("uname", 0, uname),
	FLAG("tracecmd-version", 0, version),
	FLAG("raw-ts", 0, raw_ts),
	FLAG("align-ts", 0, align_ts),
	FLAG("nodate", 0, no_date),
	DO("ts2secs", 0, true, tc_ts2secs),
	FLAG("wakeup", 0, wakeup),
	FLAG("no-irqs", 'I', no_irqs),
	FLAG("no-softirqs", 'S', no_softirqs),
	LIST("pid", 0, "pid", pids, n_pids),
	LIST("comm", 0, "comm", comms, n_comms),
	LIST("raw-events", 'r', NULL, raw_events, n_raw_events),
	LIST("no-handler", 0, "no-handler", no_handler, n_no_handler),
	FLAG("local-plugins", 'L', no_sys_plugins),
	FLAG("funcs", 0, funcs),
	FLAG("printk", 'P', printk_list),
	FLAG("profile", 0, profile),
	FLAG("profile-global", 'G', profile_global),
	FLAG("by-comm", 0, profile_by_comm),
	LIST("hook", 'H', NULL, hooks, n_hooks),
	FLAG("filter-test", 'T', filter_test),
	FLAG("ts-check", 0, ts_check),
	STRING("kallsyms", 0, kallsyms),
	LIST("plugin-option", 'O', NULL, plugin_options, n_plugin_options),
	DO("quiet", 'q', false, tc_quiet),
	DO("report-version", 0, true, tc_version),
};
const size_t cli_n_tracecmd_options = sizeof(cli_tracecmd_options) / sizeof(cli_tracecmd_options[0]);

const char cli_tracecmd_usage[] =
	      "trace-cmd report (-o tracecmd; trace.dat files print exactly as trace-cmd 3.3's or\n"
	      "3.1.6's report, several files merged as report -i A -i B; other traces print their\n"
	      "events in the same layout, see the manual):\n"
	      "  -R, --raw                fields as name=value (report -R)\n"
	      "      --nsec               nanosecond timestamps (report -t)\n"
	      "  -N, --no-plugins         print fmt only, no libtraceevent plugins (report -N)\n"
	      "      --cpu=LIST           only these CPUs, e.g. 0,2-3 (report --cpu)\n"
	      "  -F FILTER                events and field filters, e.g. 'sched_switch: prev_pid != 0'\n"
	      "                           (report -F; also --tracecmd-filter=FILTER)\n"
	      "                           (report -F; several -F: any may match)\n"
	      "  -v, --invert-filter      the -F filters after it remove what they match (report -v)\n"
	      "      --stat               the recorded buffer statistics only (report --stat)\n"
	      "  -l, --latency            latency columns: irqs-off, need-resched, irq and\n"
	      "                           preempt flags (report -l)\n"
	      "      --ts-diff            time since the previous event (report --ts-diff)\n"
	      "      --raw-ts             ring-buffer timestamps, no conversion (report --raw-ts)\n"
	      "      --align-ts           times from the first event of all files (report --align-ts)\n"
	      "      --ts2secs=HZ         timestamps count a HZ clock (report --ts2secs)\n"
	      "      --nodate             ignore the recorded --date offset (report --nodate)\n"
	      "  -I, --no-irqs            drop events in hard interrupt context (report -I)\n"
	      "  -S, --no-softirqs        drop events in soft interrupt context (report -S)\n"
	      "      --pid=LIST           only events of these pids (common_pid, pid or next_pid)\n"
	      "      --comm=LIST          only events of the pids of these comms (report --pid,\n"
	      "                           --comm; with -F: either matches)\n"
	      "  -r, --raw-events=REGEX   these events as name=value (report -r)\n"
	      "      --no-handler=REGEX   these events without their plugin (report -n)\n"
	      "  -L, --local-plugins      no system-wide libtraceevent plugins (report -L)\n"
	      "      --wakeup             wakeup latency after each sched_switch, a summary at\n"
	      "                           the end; one file only (report -w)\n"
	      "      --profile            per task: time scheduled out by state, wakeup, syscall,\n"
	      "                           softirq, irq times, event counts (report --profile)\n"
	      "  -G, --profile-global     --profile: irqs and softirqs per CPU (report -G)\n"
	      "      --by-comm            --profile: the tasks of a comm as one group (report\n"
	      "                           --by-comm)\n"
	      "  -H, --hook=HOOK          --profile: time another event pair, [SYS:]START,FIELD\n"
	      "                           [,PID_FIELD]/[SYS:]END,FIELD[,FLAGS P|G] (report -H)\n"
	      "  -T, --filter-test        print the -F filters as parsed, nothing else (report -T)\n"
	      "      --ts-check           warn when a CPU's time goes backwards (report --ts-check)\n"
	      "      --kallsyms=FILE      more kernel symbols, a /proc/kallsyms text (report\n"
	      "                           --kallsyms)\n"
	      "  -O, --plugin-option=[PLUGIN:]OPTION[=VALUE]  a libtraceevent plugin option;\n"
	      "                           fgraph:tailprint and fgraph:depth for function graphs\n"
	      "                           (report -O)\n"
	      "  -q, --quiet              no warnings (report -q)\n"
	      "      --report-version=V   3.3 (the default): what trace-cmd 3.3.x/3.4 with\n"
	      "                           libtraceevent 1.8 prints (a flags column after [CPU],\n"
	      "                           -0x%x of the flags with -R, sched_switch states from the\n"
	      "                           file's print fmt); 3.1: trace-cmd 3.1.6's report\n"
	      "                           (Debian 12); also TRACEMUX_REPORT_VERSION\n"
	      "    Instead of the events:\n"
	      "      --cpus               the CPUs with data (report --cpus)\n"
	      "      --first-event, --last-event  the same, with each CPU's first / last time\n"
	      "      --uname              the recorded uname (report --uname)\n"
	      "      --tracecmd-version   the version of the recording trace-cmd (report --version)\n"
	      "  -E, --list-events        every stored event format, system:name (report -E)\n"
	      "      --events             the stored event format files (report --events; with\n"
	      "                           a value, --events=GLOB selects events, see below)\n"
	      "      --event=REGEX        those of the events REGEX ([SYSTEM:]EVENT) matches\n"
	      "                           (report --event)\n"
	      "      --funcs              the kernel function symbols (report -f)\n"
	      "  -P, --printk             the printk formats (report -P)\n"
	      "      --check-events       fail if an event format cannot be parsed (report\n"
	      "                           --check-events; exit 1 where trace-cmd exits 22)\n"
	      "      --endian             the file's and the host's byte order (report -e)\n"
	      "      --page-size          the file's and the host's page size (report -p)\n"
	      "\n";
