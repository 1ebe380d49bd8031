/*
 * Counts the events of each class in any trace (CTF directory, trace.dat,
 * XRay log): what `babeltrace2 -c flt.utils.counter` or a per-class
 * `trace-cmd report | sort | uniq -c` tell, decoded on every core by a
 * sink of our own (tmx_sink_custom): each event's record is its class's
 * number, written on the reading threads; the counts are kept in emit(),
 * which tmx_run() calls on this thread in the trace's order.
 *
 *   cc count_events.c $(pkg-config --cflags --libs tracemux) -o count_events
 *   ./count_events TRACE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracemux/run.h>
#include <tracemux/sink.h>
#include <tracemux/tracemux.h>

struct counter {
	struct tmx_source *src;
	uint64_t *counts;   /* by the source's dense class number */
	size_t n;           /* classes */
};

static void print_error(const struct tmx_error *err)
{
	char text[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];

	tmx_error_format(err, text, sizeof(text));
	fprintf(stderr, "error: %s\n", text);
}

/* On any reading thread: an event's record is its class's number; other messages have none. */
static void format(void *user, const struct tmx_msg *msg, struct tmx_record *rec)
{
	const struct counter *c = user;
	size_t i;

	if (msg->kind != TMX_MSG_EVENT)
		return;
	i = tmx_source_event_class_index(c->src, msg->event->cls);
	tmx_record_write(rec, &i, sizeof(i));
}

static int emit(void *user, const struct tmx_msg *msg, const void *rec, size_t len,
		struct tmx_error *err)
{
	struct counter *c = user;
	size_t i;

	(void)msg;
	(void)err;
	if (len != sizeof(i))
		return TMX_OK;
	memcpy(&i, rec, sizeof(i));   /* records have no particular alignment */
	if (i < c->n)               /* SIZE_MAX: a class the source does not number */
		c->counts[i]++;
	return TMX_OK;
}

int main(int argc, char **argv)
{
	struct tmx_open_opts opts = TMX_OPEN_OPTS_INIT;   /* sets its size: options can grow */
	struct tmx_run_opts run = TMX_RUN_OPTS_INIT;      /* jobs 0: every CPU */
	struct tmx_custom_sink def = TMX_CUSTOM_SINK_INIT;
	struct counter c;
	struct tmx_sink *sink;
	struct tmx_error err;
	size_t n;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
		return 2;
	}
	if (tmx_open((const char *const *)argv + 1, (size_t)argc - 1, &opts,
		     NULL, &c.src, &err)) {
		print_error(&err);
		return 1;
	}
	/* One counter per class: the source numbers its classes densely. */
	n = c.n = tmx_source_event_class_count(c.src);
	c.counts = calloc(n ? n : 1, sizeof(*c.counts));
	def.user = &c;
	def.format = format;   /* no worker_new: every thread's formatter is `user`, only read */
	def.emit = emit;
	if (!c.counts || tmx_sink_custom(&def, &sink, &err)) {
		free(c.counts);
		tmx_source_free(c.src);
		return 1;
	}
	status = tmx_run(c.src, sink, &run, &err);
	for (size_t i = 0; i < n; i++) {
		const char *name = tmx_source_event_class(c.src, i)->name;

		if (c.counts[i])
			printf("%llu %s\n", (unsigned long long)c.counts[i], name ? name : "<unknown>");
	}
	if (status)   /* what was counted before the fault is printed above */
		print_error(&err);
	tmx_sink_free(sink);
	free(c.counts);
	tmx_source_free(c.src);
	return status ? 1 : 0;
}
