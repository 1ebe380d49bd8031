/*
 * `tracemux info PATH...`: a human summary of traces — streams, packets,
 * sizes, time ranges, event classes with their counts, discarded events and
 * packets.  Packet figures come from the index; counting events needs one
 * pass over them (at -o dummy speed).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "common/uuid.h"
#include "options.h"
#include "tracemux/filter.h"

/* Event counts by event class: open addressing on the class pointer. */
struct counts {
	const struct tmx_event_class **keys;
	uint64_t *values;
	size_t cap;
};

static uint64_t *count_slot(struct counts *c, const struct tmx_event_class *ec)
{
	size_t i = ((uintptr_t)ec >> 4) * 2654435761u % c->cap;

	while (c->keys[i] && c->keys[i] != ec)
		i = (i + 1) % c->cap;
	c->keys[i] = ec;
	return &c->values[i];
}

static size_t count_event_classes(const struct tmx_source *src)
{
	size_t n = 0;

	for (size_t t = 0; t < tmx_source_logical_trace_count(src); t++) {
		const struct tmx_trace_class *tc = tmx_source_logical_trace(src, t)->cls;
		for (size_t s = 0; s < tc->n_stream_classes; s++)
			n += tc->stream_classes[s]->n_event_classes;
	}
	return n;
}

/* A date when the clock's origin is the Unix epoch, else nanoseconds from its origin. */
static void print_time(int64_t ns, bool unix_epoch)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	char buf[64];

	if (unix_epoch && ns >= 0 && gmtime_r(&s, &tm) && strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		printf("%s.%09lld UTC", buf, (long long)(ns % 1000000000));
	else
		printf("%lld ns from origin", (long long)ns);
}

static void print_size(uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	printf(u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static void print_env_summary(const struct tmx_trace_class *tc)
{
	static const char *const keys[] = { "hostname", "domain", "tracer_name", "procname" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct tmx_env_entry *e = tmx_trace_class_env(tc, keys[i]);
		if (e && !e->is_int)
			printf("  %s: %s\n", keys[i], e->str_value);
	}
	/* what the reader passed over (a trace.dat's BTF, LAST_BOOT_INFO... sections) */
	const struct tmx_env_entry *skipped = tmx_trace_class_env(tc, "skipped");
	if (skipped && !skipped->is_int)
		printf("  skipped by the reader: %s\n", skipped->str_value);
}

static int cmp_stream_info(const void *a, const void *b)
{
	const struct tmx_stream *x = ((const struct tmx_stream_info *)a)->stream;
	const struct tmx_stream *y = ((const struct tmx_stream_info *)b)->stream;

	if (x->cls->id != y->cls->id)
		return x->cls->id < y->cls->id ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

/*
 * The streams of one trace ordered by stream class and stream id as numbers
 * (a source lists them in its own order: CTF data files by name, where
 * "channel0_10" comes before "channel0_2").  NULL when out of memory.
 */
static struct tmx_stream_info *trace_streams(const struct tmx_source *src,
					     const struct tmx_trace *trace, size_t *n)
{
	size_t total = tmx_source_stream_count(src);
	struct tmx_stream_info *v = malloc((total ? total : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < total; i++) {
		tmx_source_stream_info(src, i, &v[*n]);
		if (v[*n].stream->trace == trace)
			(*n)++;
	}
	qsort(v, *n, sizeof(*v), cmp_stream_info);
	return v;
}

static int print_trace(const struct tmx_source *src, const struct tmx_trace *trace,
		       struct counts *counts)
{
	const struct tmx_trace_class *tc = trace->cls;
	uint64_t packets = 0, bytes = 0;
	int64_t begin = INT64_MAX, end = INT64_MIN;
	size_t streams = 0, n_infos;
	bool unix_epoch = tc->n_clocks > 0;
	struct tmx_stream_info *infos = trace_streams(src, trace, &n_infos);

	if (!infos)
		return -1;

	printf("trace \"%s\"", trace->name);
	if (tc->has_uuid) {
		char text[TMX_UUID_TEXT_LEN + 1];

		tmx_uuid_text(text, tc->uuid);
		printf(" (UUID %s)", text);
	}
	printf("\n");
	if (tc->format == TMX_FORMAT_CTF)
		printf("  format: CTF %u.%u\n", (unsigned)tc->major, (unsigned)tc->minor);
	if (tc->uid)
		printf("  trace class: %s%s%s (UID %s)\n", tc->ns ? tc->ns : "", tc->ns ? "/" : "",
		       tc->name ? tc->name : "", tc->uid);
	print_env_summary(tc);
	for (size_t i = 0; i < tc->n_clocks; i++) {
		const struct tmx_clock_class *cc = tc->clocks[i];
		unix_epoch = unix_epoch && cc->origin_is_unix_epoch;
		printf("  clock %s: %llu Hz", cc->name, (unsigned long long)cc->frequency);
		if (cc->origin_is_unix_epoch)
			printf(", origin: Unix epoch");
		else if (cc->origin_name)
			printf(", origin: %s%s%s", cc->origin_ns ? cc->origin_ns : "",
			       cc->origin_ns ? "/" : "", cc->origin_name);
		printf("\n");
	}
	for (size_t i = 0; i < n_infos; i++) {
		const struct tmx_stream_info si = infos[i];
		streams++;
		packets += si.n_packets;
		bytes += si.bytes;
		if (si.has_range) {
			begin = si.begin_ns < begin ? si.begin_ns : begin;
			end = si.end_ns > end ? si.end_ns : end;
		}
		printf("  stream %llu (class %llu): %s: %llu packets, ", (unsigned long long)si.stream->id,
		       (unsigned long long)si.stream->cls->id, si.stream->name,
		       (unsigned long long)si.n_packets);
		print_size(si.bytes);
		if (si.n_files > 1)
			printf(" in %zu files", si.n_files);
		printf("\n");
	}
	printf("  %zu streams, %llu packets, ", streams, (unsigned long long)packets);
	print_size(bytes);
	printf("\n");
	if (begin <= end) {
		printf("  time range: ");
		print_time(begin, unix_epoch);
		printf(" to ");
		print_time(end, unix_epoch);
		printf(" (%.9f s)\n", (double)(end - begin) / 1e9);
	}
	printf("  event classes:\n");
	for (size_t s = 0; s < tc->n_stream_classes; s++)
		for (size_t e = 0; e < tc->stream_classes[s]->n_event_classes; e++) {
			const struct tmx_event_class *ec = tc->stream_classes[s]->event_classes[e];
			printf("    %12llu  %s (stream class %llu, ID %llu)\n",
			       (unsigned long long)*count_slot(counts, ec), ec->name ? ec->name : "<unknown>",
			       (unsigned long long)tc->stream_classes[s]->id,
			       (unsigned long long)ec->id);
		}
	free(infos);
	return 0;
}

/*
 * info's options: --events=GLOB[,GLOB...] (repeatable), --filter=EXPR,
 * --progress and --no-progress (*progress 1, -1).
 */
static int info_options(int argc, char **argv, const char **event_args, size_t *n_event_args,
			const char **expr, int *progress)
{
	static const struct option longs[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "filter", required_argument, NULL, 'f' },
		{ "progress", no_argument, NULL, 'p' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 2;   /* after "tracemux info" */
	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (c == 'p' || c == 'P')
			*progress = c == 'p' ? 1 : -1;
		else if (c == 'e' && *n_event_args < CLI_MAX_EVENT_ARGS)
			event_args[(*n_event_args)++] = optarg;
		else if (c == 'f' && !*expr)
			*expr = optarg;
		else
			return cli_command_usage_error("info", "%s", c == 'e' ? "too many --events options"
						       : c == 'f' ? "--filter can be given once"
								  : "invalid option");
	}
	if (optind >= argc) {
		fputs("Usage: tracemux info [--events=GLOB[,GLOB...]] [--filter=EXPR] [--[no-]progress] "
		      "TRACE...\n", stderr);
		return 2;
	}
	return 0;
}

int cli_info(int argc, char **argv, const struct tmx_diag *diag)
{
	struct tmx_error err = { 0 };
	struct tmx_source *src;
	struct tmx_filter *filter = NULL;
	const struct tmx_msg *msg;
	struct counts counts = { 0 };
	uint64_t discarded_events = 0, discarded_packets = 0, events = 0;
	const char *event_args[CLI_MAX_EVENT_ARGS], *expr = NULL;
	size_t n_event_args = 0;
	struct tmx_progress_meter *meter;
	int status, progress = 0;

	if ((status = info_options(argc, argv, event_args, &n_event_args, &expr, &progress)))
		return status;
	if (tmx_open((const char *const *)&argv[optind], (size_t)(argc - optind), NULL, diag, &src,
		     &err))
		return cli_report(&err);
	/* Only the events that pass are counted. */
	if ((status = cli_filter_setup(event_args, n_event_args, expr, src, &filter)))
		goto out;
	counts.cap = 2 * count_event_classes(src) + 16;
	counts.keys = calloc(counts.cap, sizeof(*counts.keys));
	counts.values = calloc(counts.cap, sizeof(*counts.values));
	if (!counts.keys || !counts.values) {
		fputs("tracemux: error: out of memory\n", stderr);
		status = 1;
		goto out;
	}
	/* The summary goes to standard output, after the read. */
	meter = cli_progress_meter(progress, true, src);
	while (!(status = tmx_source_next(src, &msg, &err)) && msg) {
		if (meter)
			tmx_progress_meter_note(meter, msg);
		if (msg->kind == TMX_MSG_EVENT) {
			(*count_slot(&counts, msg->event->cls))++;
			events++;
		} else if (msg->kind == TMX_MSG_DISCARDED_EVENTS) {
			discarded_events += msg->count;
		} else if (msg->kind == TMX_MSG_DISCARDED_PACKETS) {
			discarded_packets += msg->count;
		}
	}
	tmx_progress_meter_end(meter, !status);
	tmx_progress_meter_free(meter);
	for (size_t t = 0; t < tmx_source_logical_trace_count(src); t++)
		if (print_trace(src, tmx_source_logical_trace(src, t), &counts)) {
			fputs("tracemux: error: out of memory\n", stderr);
			status = 1;
			goto out;
		}
	printf("%llu events; discarded by the tracer: %llu events, %llu packets\n",
	       (unsigned long long)events, (unsigned long long)discarded_events,
	       (unsigned long long)discarded_packets);
	if (status)
		status = cli_report(&err);
out:
	free(counts.keys);
	free(counts.values);
	tmx_source_free(src);
	tmx_filter_free(filter);
	return status;
}
