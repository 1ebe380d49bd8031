/*
 * tracemux — the command-line tool.  Parses options, opens the inputs with
 * libtracemux and feeds the messages to the chosen output.  No format
 * knowledge lives here.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mux/trim.h"
#include "out/tracecmd/report.h"
#include "tracemux/sink.h"
#include "tracemux/tracemux.h"

enum output_format { OUT_TEXT, OUT_DUMMY, OUT_CTF_METADATA, OUT_JSON, OUT_CHROME, OUT_TRACECMD,
		     OUT_CTF, OUT_XRAY_YAML };

struct cli {
	enum output_format format;
	const char *output_path;
	struct tmx_open_opts open;
	/* Parameters of the sinks (checked when given, applied to the chosen one). */
	struct sink_arg {
		const char *sink, *key, *value;
	} sink_args[32];
	size_t n_sink_args;
	bool clock_gmt;                      /* --clock-gmt: also for --begin/--end */
	const char *begin_text, *end_text;   /* --begin, --end, --timerange */
	bool stream_intersection;
	const char **inputs;
	size_t n_inputs;
	struct tmx_tcreport_opts tcreport;   /* -o tracecmd: trace-cmd report's options */
	bool tc_invert;                      /* -v seen: the next -F filters are negated */
	bool tc_options;                     /* one of them was given */
	bool tc_quiet;                       /* -q: no warnings from -o tracecmd */
};

enum {
	OPT_CLOCK_CYCLES = 256,
	OPT_CLOCK_SECONDS,
	OPT_CLOCK_DATE,
	OPT_CLOCK_GMT,
	OPT_NO_DELTA,
	OPT_CLOCK_OFFSET,
	OPT_CLOCK_OFFSET_NS,
	OPT_COLOR,
	OPT_STREAM_INTERSECTION,
	OPT_FORCE_EPOCH,
	OPT_TRACE_NAME,
	OPT_LENIENT,
	OPT_TC_NSEC,
	OPT_TC_CPU,
	OPT_TC_STAT,
	OPT_TC_TS_DIFF,
	OPT_TC_PAGE_SIZE,
	OPT_TC_ENDIAN,
	OPT_TC_CHECK_EVENTS,
	OPT_TC_EVENTS,
	OPT_TC_EVENT,
	OPT_TC_CPUS,
	OPT_TC_FIRST_EVENT,
	OPT_TC_LAST_EVENT,
	OPT_TC_UNAME,
	OPT_TC_VERSION,
	OPT_TC_RAW_TS,
	OPT_TC_ALIGN_TS,
	OPT_TC_NODATE,
	OPT_TC_TS2SECS,
	OPT_TC_WAKEUP,
	OPT_TC_PID,
	OPT_TC_COMM,
	OPT_TC_NO_HANDLER,
	OPT_TC_FUNCS,
	OPT_TC_PROFILE,
	OPT_TC_BY_COMM,
	OPT_TC_TS_CHECK,
	OPT_TC_KALLSYMS,
	OPT_CTF_PACKET_SIZE,
	OPT_CTF_VERSION,
	OPT_INSTR_MAP,
	OPT_SYMBOLIZE,
	OPT_XRAY_SORT,
	OPT_SCHED_SLICES,
};

static const struct option long_options[] = {
	{ "output-format", required_argument, NULL, 'o' },
	{ "output", required_argument, NULL, 'w' },
	{ "names", required_argument, NULL, 'n' },
	{ "fields", required_argument, NULL, 'f' },
	{ "clock-cycles", no_argument, NULL, OPT_CLOCK_CYCLES },
	{ "clock-seconds", no_argument, NULL, OPT_CLOCK_SECONDS },
	{ "clock-date", no_argument, NULL, OPT_CLOCK_DATE },
	{ "clock-gmt", no_argument, NULL, OPT_CLOCK_GMT },
	{ "no-delta", no_argument, NULL, OPT_NO_DELTA },
	{ "clock-offset", required_argument, NULL, OPT_CLOCK_OFFSET },
	{ "clock-offset-ns", required_argument, NULL, OPT_CLOCK_OFFSET_NS },
	{ "clock-class-offset-s", required_argument, NULL, OPT_CLOCK_OFFSET },
	{ "clock-class-offset-ns", required_argument, NULL, OPT_CLOCK_OFFSET_NS },
	{ "force-clock-class-origin-unix-epoch", no_argument, NULL, OPT_FORCE_EPOCH },
	{ "trace-name", required_argument, NULL, OPT_TRACE_NAME },
	{ "lenient", no_argument, NULL, OPT_LENIENT },
	{ "ctf-packet-size", required_argument, NULL, OPT_CTF_PACKET_SIZE },
	{ "ctf-version", required_argument, NULL, OPT_CTF_VERSION },
	{ "instr-map", required_argument, NULL, OPT_INSTR_MAP },
	{ "instr_map", required_argument, NULL, OPT_INSTR_MAP },
	{ "symbolize", no_argument, NULL, OPT_SYMBOLIZE },
	{ "sched-slices", no_argument, NULL, OPT_SCHED_SLICES },
	{ "sort", required_argument, NULL, OPT_XRAY_SORT },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "begin", required_argument, NULL, 'b' },
	{ "end", required_argument, NULL, 'e' },
	{ "timerange", required_argument, NULL, 't' },
	{ "stream-intersection", no_argument, NULL, OPT_STREAM_INTERSECTION },
	{ "raw", no_argument, NULL, 'R' },
	{ "nsec", no_argument, NULL, OPT_TC_NSEC },
	{ "no-plugins", no_argument, NULL, 'N' },
	{ "cpu", required_argument, NULL, OPT_TC_CPU },
	{ "filter", required_argument, NULL, 'F' },
	{ "invert-filter", no_argument, NULL, 'v' },
	{ "stat", no_argument, NULL, OPT_TC_STAT },
	{ "latency", no_argument, NULL, 'l' },
	{ "ts-diff", no_argument, NULL, OPT_TC_TS_DIFF },
	{ "page-size", no_argument, NULL, OPT_TC_PAGE_SIZE },
	{ "endian", no_argument, NULL, OPT_TC_ENDIAN },
	{ "check-events", no_argument, NULL, OPT_TC_CHECK_EVENTS },
	{ "events", no_argument, NULL, OPT_TC_EVENTS },
	{ "event", required_argument, NULL, OPT_TC_EVENT },
	{ "list-events", no_argument, NULL, 'E' },
	{ "cpus", no_argument, NULL, OPT_TC_CPUS },
	{ "first-event", no_argument, NULL, OPT_TC_FIRST_EVENT },
	{ "last-event", no_argument, NULL, OPT_TC_LAST_EVENT },
	{ "uname", no_argument, NULL, OPT_TC_UNAME },
	{ "tracecmd-version", no_argument, NULL, OPT_TC_VERSION },
	{ "raw-ts", no_argument, NULL, OPT_TC_RAW_TS },
	{ "align-ts", no_argument, NULL, OPT_TC_ALIGN_TS },
	{ "nodate", no_argument, NULL, OPT_TC_NODATE },
	{ "ts2secs", required_argument, NULL, OPT_TC_TS2SECS },
	{ "wakeup", no_argument, NULL, OPT_TC_WAKEUP },
	{ "no-irqs", no_argument, NULL, 'I' },
	{ "no-softirqs", no_argument, NULL, 'S' },
	{ "pid", required_argument, NULL, OPT_TC_PID },
	{ "comm", required_argument, NULL, OPT_TC_COMM },
	{ "raw-events", required_argument, NULL, 'r' },
	{ "no-handler", required_argument, NULL, OPT_TC_NO_HANDLER },
	{ "local-plugins", no_argument, NULL, 'L' },
	{ "funcs", no_argument, NULL, OPT_TC_FUNCS },
	{ "printk", no_argument, NULL, 'P' },
	{ "profile", no_argument, NULL, OPT_TC_PROFILE },
	{ "profile-global", no_argument, NULL, 'G' },
	{ "by-comm", no_argument, NULL, OPT_TC_BY_COMM },
	{ "hook", required_argument, NULL, 'H' },
	{ "filter-test", no_argument, NULL, 'T' },
	{ "ts-check", no_argument, NULL, OPT_TC_TS_CHECK },
	{ "kallsyms", required_argument, NULL, OPT_TC_KALLSYMS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("Usage: tracemux [OPTIONS] TRACE...\n"
	      "       tracemux query [--json] trace-infos|metadata-info|support-info PATH...\n"
	      "       tracemux info TRACE...       (summary: streams, packets, sizes, time range,\n"
	      "                                     event counts by class, discarded events)\n"
	      "       tracemux xray-account [--instr-map BIN] XRAY_LOG  (llvm-xray account's\n"
	      "                                     per-function latencies; see its --help)\n"
	      "       tracemux xray-stack [--instr-map BIN] XRAY_LOG...  (llvm-xray stack's\n"
	      "                                     call stacks, flame graphs; see its --help)\n"
	      "\n"
	      "Read traces and print them as babeltrace2 does, or convert them.\n"
	      "Each TRACE is a CTF 1.8 trace directory (or a directory containing\n"
	      "traces), a trace-cmd trace.dat file or an LLVM XRay log; the format is\n"
	      "recognized from the input.  All their streams are merged by time.\n"
	      "\n"
	      "Output:\n"
	      "  -o, --output-format=FMT  text (default), dummy (decode, print nothing),\n"
	      "                           ctf-metadata (print the metadata text),\n"
	      "                           json (JSON Lines: one object per event, typed fields),\n"
	      "                           chrome (Chrome Trace Event / Perfetto JSON; XRay logs\n"
	      "                           as llvm-xray's trace_event; --sched-slices: also\n"
	      "                           sched_switch events as per-CPU slices),\n"
	      "                           tracecmd (trace-cmd report's text, see below),\n"
	      "                           ctf (CTF 1.8 or 2 trace directories, one per input trace,\n"
	      "                           under the directory given with -w),\n"
	      "                           xray-yaml (llvm-xray convert --output-format=yaml)\n"
	      "  -w, --output=PATH        write to PATH instead of standard output\n"
	      "      --ctf-version=VERSION  -o ctf: 1.8 (default; CTF 2 field classes translated\n"
	      "                           where CTF 1.8 can say them) or 2 (JSON metadata)\n"
	      "      --ctf-packet-size=BYTES  -o ctf: close packets at BYTES of content\n"
	      "                           (default: one packet per input packet, as babeltrace2,\n"
	      "                           input packets over 4 MiB split)\n"
	      "\n"
	      "Text output (as babeltrace2's sink.text.pretty):\n"
	      "      --clock-cycles       print timestamps in clock cycles\n"
	      "      --clock-seconds      print timestamps as seconds.nanoseconds\n"
	      "      --clock-date         print the date with the time of day\n"
	      "      --clock-gmt          print times in UTC instead of local time\n"
	      "      --no-delta           do not print the time since the previous event\n"
	      "  -n, --names=LIST         print field names: none, all, payload, context,\n"
	      "                           scope, header (comma-separated)\n"
	      "  -f, --fields=LIST        print optional fields: trace, trace:hostname,\n"
	      "                           trace:domain, trace:procname, trace:vpid,\n"
	      "                           loglevel, emf, callsite, all\n"
	      "      --color=WHEN         never, auto (default), always\n"
	      "\n"
	      "trace-cmd report (-o tracecmd; trace.dat files print exactly as trace-cmd 3.1.6's\n"
	      "report, several files merged as report -i A -i B; other traces print their\n"
	      "events in the same layout, see the manual):\n"
	      "  -R, --raw                fields as name=value (report -R)\n"
	      "      --nsec               nanosecond timestamps (report -t)\n"
	      "  -N, --no-plugins         print fmt only, no libtraceevent plugins (report -N)\n"
	      "      --cpu=LIST           only these CPUs, e.g. 0,2-3 (report --cpu)\n"
	      "  -F, --filter=FILTER      events and field filters, e.g. 'sched_switch: prev_pid != 0'\n"
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
	      "  -q, --quiet              no warnings (report -q)\n"
	      "    Instead of the events:\n"
	      "      --cpus               the CPUs with data (report --cpus)\n"
	      "      --first-event, --last-event  the same, with each CPU's first / last time\n"
	      "      --uname              the recorded uname (report --uname)\n"
	      "      --tracecmd-version   the version of the recording trace-cmd (report --version)\n"
	      "  -E, --list-events        every stored event format, system:name (report -E)\n"
	      "      --events             the stored event format files (report --events)\n"
	      "      --event=REGEX        those of the events REGEX ([SYSTEM:]EVENT) matches\n"
	      "                           (report --event)\n"
	      "      --funcs              the kernel function symbols (report -f)\n"
	      "  -P, --printk             the printk formats (report -P)\n"
	      "      --check-events       fail if an event format cannot be parsed (report\n"
	      "                           --check-events; exit 1 where trace-cmd exits 22)\n"
	      "      --endian             the file's and the host's byte order (report -e)\n"
	      "      --page-size          the file's and the host's page size (report -p)\n"
	      "\n"
	      "Trimming (as babeltrace2's flt.utils.trimmer):\n"
	      "  -b, --begin=TIME         drop what comes before TIME\n"
	      "  -e, --end=TIME           drop what comes after TIME\n"
	      "  -t, --timerange=[B,E]    both at once\n"
	      "      --stream-intersection  only the time range in which every stream is active\n"
	      "  TIME is YYYY-MM-DD hh:mm[:ss[.ns]], hh:mm[:ss[.ns]] (on the trace's first day)\n"
	      "  or [-]s[.ns] (seconds from the clock's origin); local time unless --clock-gmt.\n"
	      "\n"
	      "Input (as babeltrace2's src.ctf.fs):\n"
	      "      --clock-offset=SEC   add SEC seconds to every clock's offset\n"
	      "      --clock-offset-ns=NS add NS nanoseconds to every clock's offset\n"
	      "      (also --clock-class-offset-s / --clock-class-offset-ns)\n"
	      "      --force-clock-class-origin-unix-epoch  take every clock's origin as the Unix epoch\n"
	      "      --trace-name=NAME    name every trace NAME\n"
	      "      --lenient            skip damaged packets (reported) instead of stopping;\n"
	      "                           the exit status is still 1 if any was skipped\n"
	      "\n"
	      "LLVM XRay logs (as llvm-xray convert):\n"
	      "      --instr-map=BIN      instrumentation map: an instrumented ELF binary (its\n"
	      "                           xray_instr_map section) or llvm-xray extract's YAML\n"
	      "      --symbolize          name functions from the binary's symbol table\n"
	      "      --sort=BOOL          true (default): records sorted by TSC; false: per\n"
	      "                           thread, in llvm-xray's block order\n"
	      "\n"
	      "  -h, --help               show this help\n"
	      "  -V, --version            show the version\n"
	      "\n"
	      "Exit status: 0 on success, 1 on error, 2 on bad usage.\n", out);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("tracemux: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'tracemux --help'.\n", stderr);
	return 2;
}

static bool parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

/* `[BEGIN,END]` (brackets optional): split in place. */
static int split_timerange(struct cli *cli, char *arg)
{
	size_t len = strlen(arg);
	char *comma;

	if (len >= 2 && arg[0] == '[' && arg[len - 1] == ']') {
		arg[len - 1] = '\0';
		arg++;
	}
	comma = strchr(arg, ',');
	if (!comma)
		return -1;
	*comma = '\0';
	cli->begin_text = arg;
	cli->end_text = comma + 1;
	return 0;
}

/* The long name of the option whose getopt value is `val`. */
static const char *long_option_name(int val)
{
	for (const struct option *o = long_options; o->name; o++)
		if (o->val == val)
			return o->name;
	return "";
}

/*
 * A parameter of sink `sink`, given by the option whose getopt value is
 * `opt`: checked now (as the option is read) and kept for when the chosen
 * sink is opened.  Returns 2 after a usage message naming the option.
 */
static int sink_arg(struct cli *cli, int opt, const char *sink, const char *key,
		    const char *value)
{
	char what[64];

	struct tmx_error err = { 0 };
	struct tmx_sink_params *p;
	int ret;

	if (cli->n_sink_args == sizeof(cli->sink_args) / sizeof(cli->sink_args[0]))
		return usage_error("%s", "too many output options");
	p = tmx_sink_params_new(sink, &err);
	ret = p ? tmx_sink_params_set(p, key, value, &err) : (int)err.code;
	tmx_sink_params_free(p);
	if (ret) {
		snprintf(what, sizeof(what), "--%s: %%s", long_option_name(opt));
		return usage_error(what, err.msg);
	}
	cli->sink_args[cli->n_sink_args++] = (struct sink_arg){ sink, key, value };
	return 0;
}

static int parse_args(struct cli *cli, int argc, char **argv)
{
	struct tmx_error list_err;
	bool events_seen = false;   /* --events */
	int c;

	tmx_tcreport_opts_default(&cli->tcreport);
	while ((c = getopt_long(argc, argv, "o:w:n:f:b:e:t:hVRNF:vlEISr:LPGH:Tq", long_options, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "text"))
				cli->format = OUT_TEXT;
			else if (!strcmp(optarg, "dummy"))
				cli->format = OUT_DUMMY;
			else if (!strcmp(optarg, "ctf-metadata"))
				cli->format = OUT_CTF_METADATA;
			else if (!strcmp(optarg, "json"))
				cli->format = OUT_JSON;
			else if (!strcmp(optarg, "chrome"))
				cli->format = OUT_CHROME;
			else if (!strcmp(optarg, "tracecmd"))
				cli->format = OUT_TRACECMD;
			else if (!strcmp(optarg, "ctf"))
				cli->format = OUT_CTF;
			else if (!strcmp(optarg, "xray-yaml"))
				cli->format = OUT_XRAY_YAML;
			else
				return usage_error("unknown output format `%s`", optarg);
			break;
		case 'w':
			cli->output_path = optarg;
			break;
		case 'n':
			if (sink_arg(cli, c, "text", "names", optarg))
				return 2;
			break;
		case 'f':
			if (sink_arg(cli, c, "text", "fields", optarg))
				return 2;
			break;
		case 'b':
			cli->begin_text = optarg;
			break;
		case 'e':
			cli->end_text = optarg;
			break;
		case 't':
			if (split_timerange(cli, optarg))
				return usage_error("invalid --timerange value `%s`: expected [BEGIN,END]",
						   optarg);
			break;
		case OPT_FORCE_EPOCH:
			cli->open.ctf.force_origin_unix_epoch = true;
			break;
		case OPT_TRACE_NAME:
			cli->open.ctf.trace_name = optarg;
			break;
		case OPT_CTF_VERSION:
			if (sink_arg(cli, c, "ctf", "ctf-version", optarg))
				return 2;
			break;
		case OPT_CTF_PACKET_SIZE:
			if (sink_arg(cli, c, "ctf", "packet-size", optarg))
				return 2;
			break;
		case OPT_INSTR_MAP:
			cli->open.xray.instr_map = optarg;
			break;
		case OPT_SYMBOLIZE:
			cli->open.xray.symbolize = true;
			break;
		case OPT_SCHED_SLICES:
			if (sink_arg(cli, c, "chrome", "sched-slices", NULL))
				return 2;
			break;
		case OPT_XRAY_SORT:   /* llvm-xray's --sort: true (default) or false */
			if (!strcmp(optarg, "true") || !strcmp(optarg, "1"))
				cli->open.xray.unsorted = false;
			else if (!strcmp(optarg, "false") || !strcmp(optarg, "0"))
				cli->open.xray.unsorted = true;
			else
				return usage_error("invalid --sort value `%s`: true or false", optarg);
			break;
		case OPT_LENIENT:
			cli->open.ctf.lenient = cli->open.tracedat.lenient = cli->open.xray.lenient = true;
			break;
		case OPT_STREAM_INTERSECTION:
			cli->stream_intersection = true;
			break;
		case OPT_CLOCK_CYCLES:
		case OPT_CLOCK_SECONDS:
		case OPT_CLOCK_DATE:
		case OPT_CLOCK_GMT:
		case OPT_NO_DELTA:
			/* The text sink's boolean parameters are named as these options. */
			cli->clock_gmt |= c == OPT_CLOCK_GMT;
			if (sink_arg(cli, c, "text", long_option_name(c), NULL))
				return 2;
			break;
		case OPT_CLOCK_OFFSET:
			if (!parse_int64(optarg, &cli->open.ctf.clock_offset_s))
				return usage_error("invalid --clock-offset value `%s`", optarg);
			break;
		case OPT_CLOCK_OFFSET_NS:
			if (!parse_int64(optarg, &cli->open.ctf.clock_offset_ns))
				return usage_error("invalid --clock-offset-ns value `%s`", optarg);
			break;
		case OPT_COLOR:
			if (sink_arg(cli, c, "text", "color", optarg))
				return 2;
			break;
		case 'R':
			cli->tcreport.raw = cli->tc_options = true;
			break;
		case OPT_TC_NSEC:
			cli->tcreport.nsec = cli->tc_options = true;
			break;
		case 'N':
			cli->tcreport.no_plugins = cli->tc_options = true;
			break;
		case OPT_TC_CPU:
			cli->tcreport.cpus = optarg;
			cli->tc_options = true;
			break;
		case OPT_TC_STAT:
			cli->tcreport.stat = cli->tc_options = true;
			break;
		case 'l':
			cli->tcreport.latency = cli->tc_options = true;
			break;
		case OPT_TC_TS_DIFF:
			cli->tcreport.ts_diff = cli->tc_options = true;
			break;
		case OPT_TC_PAGE_SIZE:
			cli->tcreport.page_size = cli->tc_options = true;
			break;
		case OPT_TC_ENDIAN:
			cli->tcreport.endian = cli->tc_options = true;
			break;
		case OPT_TC_CHECK_EVENTS:
			cli->tcreport.check_events = cli->tc_options = true;
			break;
		case OPT_TC_EVENTS:   /* wins over --event, as in trace-cmd */
			cli->tcreport.event_formats = ".*";
			cli->tc_options = events_seen = true;
			break;
		case OPT_TC_EVENT:
			if (!events_seen)
				cli->tcreport.event_formats = optarg;
			cli->tc_options = true;
			break;
		case 'E':
			cli->tcreport.list_events = cli->tc_options = true;
			break;
		case OPT_TC_CPUS:
			cli->tcreport.cpus_list = cli->tc_options = true;
			break;
		case OPT_TC_FIRST_EVENT:
			cli->tcreport.first_event = cli->tc_options = true;
			break;
		case OPT_TC_LAST_EVENT:
			cli->tcreport.last_event = cli->tc_options = true;
			break;
		case OPT_TC_UNAME:
			cli->tcreport.uname = cli->tc_options = true;
			break;
		case OPT_TC_VERSION:
			cli->tcreport.version = cli->tc_options = true;
			break;
		case OPT_TC_RAW_TS:
			cli->tcreport.raw_ts = cli->tc_options = true;
			break;
		case OPT_TC_ALIGN_TS:
			cli->tcreport.align_ts = cli->tc_options = true;
			break;
		case OPT_TC_NODATE:
			cli->tcreport.no_date = cli->tc_options = true;
			break;
		case OPT_TC_TS2SECS: {
			int64_t hz;
			if (!parse_int64(optarg, &hz) || hz <= 0)
				return usage_error("invalid --ts2secs value `%s`: a clock frequency in Hz "
						   "(a positive integer)", optarg);
			cli->tcreport.ts2secs = (uint64_t)hz;
			cli->tc_options = true;
			break;
		}
		case OPT_TC_WAKEUP:
			cli->tcreport.wakeup = cli->tc_options = true;
			break;
		case 'I':
			cli->tcreport.no_irqs = cli->tc_options = true;
			break;
		case 'S':
			cli->tcreport.no_softirqs = cli->tc_options = true;
			break;
		case OPT_TC_PID:
			cli->tc_options = true;
			if (tmx_tcreport_add_item(cli->tcreport.pids, &cli->tcreport.n_pids, optarg,
						  "--pid", &list_err))
				return usage_error("%s", list_err.msg);
			break;
		case OPT_TC_COMM:
			cli->tc_options = true;
			if (tmx_tcreport_add_item(cli->tcreport.comms, &cli->tcreport.n_comms, optarg,
						  "--comm", &list_err))
				return usage_error("%s", list_err.msg);
			break;
		case 'r':
			cli->tc_options = true;
			if (tmx_tcreport_add_item(cli->tcreport.raw_events, &cli->tcreport.n_raw_events,
						  optarg, "-r", &list_err))
				return usage_error("%s", list_err.msg);
			break;
		case OPT_TC_NO_HANDLER:
			cli->tc_options = true;
			if (tmx_tcreport_add_item(cli->tcreport.no_handler, &cli->tcreport.n_no_handler,
						  optarg, "--no-handler", &list_err))
				return usage_error("%s", list_err.msg);
			break;
		case 'L':
			cli->tcreport.no_sys_plugins = cli->tc_options = true;
			break;
		case OPT_TC_FUNCS:
			cli->tcreport.funcs = cli->tc_options = true;
			break;
		case 'P':
			cli->tcreport.printk_list = cli->tc_options = true;
			break;
		case OPT_TC_PROFILE:
			cli->tcreport.profile = cli->tc_options = true;
			break;
		case 'G':
			cli->tcreport.profile_global = cli->tc_options = true;
			break;
		case OPT_TC_BY_COMM:
			cli->tcreport.profile_by_comm = cli->tc_options = true;
			break;
		case 'T':
			cli->tcreport.filter_test = cli->tc_options = true;
			break;
		case OPT_TC_TS_CHECK:
			cli->tcreport.ts_check = cli->tc_options = true;
			break;
		case OPT_TC_KALLSYMS:
			cli->tcreport.kallsyms = optarg;
			cli->tc_options = true;
			break;
		case 'q':
			cli->tc_quiet = cli->tc_options = true;
			break;
		case 'H':
			cli->tc_options = true;
			if (tmx_tcreport_add_item(cli->tcreport.hooks, &cli->tcreport.n_hooks, optarg, "-H",
						  &list_err))
				return usage_error("%s", list_err.msg);
			break;
		case 'v':
			/* As trace-cmd: one -v, negating the -F filters that follow it. */
			if (cli->tc_invert)
				return usage_error("%s", "only one -v can be used");
			cli->tc_invert = cli->tc_options = true;
			break;
		case 'F':
			cli->tc_options = true;
			if (tmx_tcreport_add_filter(&cli->tcreport, optarg, cli->tc_invert, &list_err))
				return usage_error("%s", list_err.msg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("tracemux %s\n", TRACEMUX_VERSION_STRING);
			exit(0);
		default:
			return usage_error("%s", "invalid option");
		}
	}
	if (optind >= argc)
		return usage_error("%s", "no input trace given");
	if (cli->tc_options && cli->format != OUT_TRACECMD)
		return usage_error("%s", "the trace-cmd report options (-R, --nsec, -N, --cpu, -F, -v, "
				   "--stat, -l, --ts-diff... see --help) go with -o tracecmd");
	cli->inputs = (const char **)&argv[optind];
	cli->n_inputs = (size_t)(argc - optind);
	return 0;
}

static void print_warning(void *user, const char *msg)
{
	(void)user;
	fprintf(stderr, "tracemux: warning: %s\n", msg);
}

int cli_report(const struct tmx_error *err)
{
	char buf[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];

	tmx_error_format(err, buf, sizeof(buf));
	fprintf(stderr, "tracemux: error: %s\n", buf);
	return err->code == TMX_ERR_USAGE ? 2 : 1;
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = write(fd, s, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

static int print_metadata(struct tmx_source *src, int fd)
{
	for (size_t i = 0; i < tmx_source_trace_count(src); i++) {
		const char *text = tmx_source_trace_metadata(src, i);
		/* babeltrace2 ends the text with one more newline. */
		if (write_all(fd, text, strlen(text)) || write_all(fd, "\n", 1)) {
			fprintf(stderr, "tracemux: error: cannot write: %s\n", strerror(errno));
			return 1;
		}
	}
	return 0;
}

/*
 * The trimming range from --begin/--end/--timerange or --stream-intersection,
 * and the packets the source may skip.  Returns whether there is one.
 */
/* --stream-intersection: one range per trace, as babeltrace2 does. */
static int intersection_ranges(struct tmx_source *src, struct tmx_trimmer *t,
			       struct tmx_error *err)
{
	size_t n = tmx_source_logical_trace_count(src);

	if (n > TMX_TRIM_MAX_RANGES)
		return tmx_error_set(err, TMX_ERR_LIMIT, NULL,
				     "--stream-intersection supports at most %d traces",
				     TMX_TRIM_MAX_RANGES);
	if (n == 0)
		return tmx_error_set(err, TMX_ERR_DATA, NULL, "Trace has no streams");
	for (size_t i = 0; i < n; i++) {
		struct tmx_time_range *r = &t->ranges[t->n_ranges++];
		r->trace = tmx_source_logical_trace(src, i);
		if (tmx_source_stream_intersection(src, r->trace, &r->begin_ns, &r->end_ns, err))
			return err->code;
	}
	return TMX_OK;
}

/* --begin/--end/--timerange: one range for everything. */
static int bound_range(struct cli *cli, struct tmx_source *src, struct tmx_trimmer *t,
		       struct tmx_error *err)
{
	struct tmx_time_bound begin = { 0 }, end = { 0 };
	struct tmx_time_range *r = &t->ranges[t->n_ranges++];
	bool gmt = cli->clock_gmt;
	int64_t first_ns = 0;

	r->trace = NULL;
	r->begin_ns = INT64_MIN;
	r->end_ns = INT64_MAX;
	if (cli->begin_text && tmx_time_bound_parse(cli->begin_text, gmt, &begin, err))
		return err->code;
	if (cli->end_text && tmx_time_bound_parse(cli->end_text, gmt, &end, err))
		return err->code;
	/* A time of day takes the date of the trace's first timestamp. */
	if ((begin.time_of_day || end.time_of_day) && tmx_source_first_ns(src, &first_ns))
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "a time of day needs a trace with timestamps");
	if (tmx_time_bound_resolve(&begin, first_ns, gmt, err) ||
	    tmx_time_bound_resolve(&end, first_ns, gmt, err))
		return err->code;
	if (begin.set)
		r->begin_ns = begin.ns;
	if (end.set)
		r->end_ns = end.ns;
	if (r->begin_ns > r->end_ns)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "Trimming time range's beginning time is greater than end time");
	if (begin.set)
		tmx_source_skip_before(src, r->begin_ns);
	return TMX_OK;
}

/* The trimming ranges, if any option asks for trimming. */
static int setup_trimming(struct cli *cli, struct tmx_source *src, struct tmx_trimmer *t,
			  bool *trimming, struct tmx_error *err)
{
	t->n_ranges = 0;
	*trimming = cli->stream_intersection || cli->begin_text || cli->end_text;
	if (!*trimming)
		return TMX_OK;
	if (cli->stream_intersection)
		return intersection_ranges(src, t, err);
	return bound_range(cli, src, t, err);
}

/* --lenient: what was skipped makes the run fail, after all the output. */
static int report_skipped(const struct tmx_source *src)
{
	uint64_t packets, bytes;

	tmx_source_skipped(src, &packets, &bytes);
	if (!packets)
		return 0;
	fprintf(stderr, "tracemux: warning: skipped %llu damaged packet%s (%llu bytes)\n",
		(unsigned long long)packets, packets == 1 ? "" : "s", (unsigned long long)bytes);
	return 1;
}

/* The sink of the chosen output, with the parameters given for it. */
static int sink_open(struct cli *cli, struct tmx_source *src, int out_fd, struct tmx_sink **sink)
{
	static const struct tmx_diag diag = { .warn = print_warning };
	static const char *const names[] = {
		[OUT_TEXT] = "text", [OUT_DUMMY] = "dummy", [OUT_JSON] = "json",
		[OUT_CHROME] = "chrome", [OUT_TRACECMD] = "tracecmd", [OUT_CTF] = "ctf",
		[OUT_XRAY_YAML] = "xray-yaml",
	};
	const struct tmx_sink_io io = { .out_fd = out_fd, .err_fd = STDERR_FILENO, .diag = &diag };
	struct tmx_error err = { 0 };
	struct tmx_sink_params *p = tmx_sink_params_new(names[cli->format], &err);
	int ret = p ? TMX_OK : (int)err.code;

	if (!ret && cli->format == OUT_CTF)   /* -o ctf: -w is the output directory */
		ret = tmx_sink_params_set(p, "path", cli->output_path, &err);
	for (size_t i = 0; !ret && i < cli->n_sink_args; i++)
		if (!strcmp(cli->sink_args[i].sink, names[cli->format]))
			ret = tmx_sink_params_set(p, cli->sink_args[i].key, cli->sink_args[i].value,
						  &err);
	if (!ret)
		ret = tmx_sink_open(p, src, &io, sink, &err);
	tmx_sink_params_free(p);
	return ret ? cli_report(&err) : 0;
}

/* Pulls every message and hands it to the output. */
static int run(struct cli *cli, struct tmx_source *src, int out_fd)
{
	struct tmx_sink *sink;
	struct tmx_error err = { 0 }, ferr = { 0 };
	struct tmx_trimmer trimmer;
	const struct tmx_msg *msg;
	bool trimming, past_end = false;
	int status = 0;

	if (setup_trimming(cli, src, &trimmer, &trimming, &err))
		return cli_report(&err);   /* 2 for a bad time, 1 for a trace without one */
	status = sink_open(cli, src, out_fd, &sink);
	if (status)
		return status;
	for (;;) {
		if (tmx_source_next(src, &msg, &err)) {
			status = 1;
			break;
		}
		if (!msg)
			break;
		if (trimming && !tmx_trimmer_keep(&trimmer, msg, &past_end)) {
			if (past_end)
				break;
			continue;
		}
		if (tmx_sink_consume(sink, msg, &err)) {
			status = 1;
			break;
		}
	}
	/* Everything decoded before an error is still printed. */
	if (tmx_sink_finish(sink, &ferr) && !status) {
		err = ferr;
		status = 1;
	}
	tmx_sink_free(sink);
	if (status)
		cli_report(&err);
	return status ? status : report_skipped(src);
}

int main(int argc, char **argv)
{
	struct cli cli = { 0 };
	struct tmx_diag diag = { .warn = print_warning };
	struct tmx_error err = { 0 };
	struct tmx_source *src;
	int out_fd = STDOUT_FILENO;
	int status;

	if (argc > 1 && !strcmp(argv[1], "query"))
		return cli_query(argc, argv, &diag);
	if (argc > 1 && !strcmp(argv[1], "info"))
		return cli_info(argc, argv, &diag);
	if (argc > 1 && !strcmp(argv[1], "xray-account"))
		return cli_xray_account(argc, argv, &diag);
	if (argc > 1 && !strcmp(argv[1], "xray-stack"))
		return cli_xray_stack(argc, argv, &diag);
	status = parse_args(&cli, argc, argv);
	if (status)
		return status;
	/* trace.dat files are read in trace-cmd's own order by the report (cli/tracecmd.c). */
	if (cli.format == OUT_TRACECMD) {
		bool handled;
		cli.tcreport.lenient = cli.open.tracedat.lenient;
		cli.tcreport.diag = cli.tc_quiet ? NULL : &diag;
		status = cli_tracecmd(cli.inputs, cli.n_inputs, &cli.tcreport, cli.output_path,
				      cli.begin_text || cli.end_text || cli.stream_intersection, &handled);
		if (handled)
			return status;
	}
	/* babeltrace2 reads only the metadata for -o ctf-metadata: so do we. */
	cli.open.ctf.metadata_only = cli.format == OUT_CTF_METADATA;
	if (tmx_open(cli.inputs, cli.n_inputs, &cli.open, &diag, &src, &err))
		return cli_report(&err);
	if (cli.format == OUT_CTF && !cli.output_path) {
		tmx_source_free(src);
		return usage_error("%s", "-o ctf needs an output directory: -w DIR");
	}
	if (cli.output_path && cli.format != OUT_CTF) {   /* -o ctf: -w is a directory */
		out_fd = open(cli.output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			fprintf(stderr, "tracemux: error: %s: cannot open for writing: %s\n",
				cli.output_path, strerror(errno));
			tmx_source_free(src);
			return 1;
		}
	}
	if (cli.format == OUT_CTF_METADATA)
		status = print_metadata(src, out_fd);
	else
		status = run(&cli, src, out_fd);
	if (out_fd != STDOUT_FILENO && close(out_fd) && !status) {
		fprintf(stderr, "tracemux: error: %s: %s\n", cli.output_path, strerror(errno));
		status = 1;
	}
	tmx_source_free(src);
	return status;
}
