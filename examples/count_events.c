/*
 * Counts the events of each class in any trace (CTF directory, trace.dat,
 * XRay log): what `babeltrace2 -c flt.utils.counter` or a per-class
 * `trace-cmd report | sort | uniq -c` tell.
 *
 *   cc count_events.c $(pkg-config --cflags --libs tracemux) -o count_events
 *   ./count_events TRACE...
 */
#include <stdio.h>
#include <stdlib.h>

#include <tracemux/tracemux.h>

static void print_error(const struct tmx_error *err)
{
	char text[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];

	tmx_error_format(err, text, sizeof(text));
	fprintf(stderr, "error: %s\n", text);
}

int main(int argc, char **argv)
{
	struct tmx_open_opts opts = TMX_OPEN_OPTS_INIT;   /* sets its size: options can grow */
	struct tmx_source *src;
	struct tmx_error err;
	const struct tmx_msg *msg;
	uint64_t *counts;
	size_t n;
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
		return 2;
	}
	if (tmx_open((const char *const *)argv + 1, (size_t)argc - 1, &opts,
		     NULL, &src, &err)) {
		print_error(&err);
		return 1;
	}
	/* One counter per class: the source numbers its classes densely. */
	n = tmx_source_event_class_count(src);
	counts = calloc(n ? n : 1, sizeof(*counts));
	if (!counts) {
		tmx_source_free(src);
		return 1;
	}
	while (!(status = tmx_source_next(src, &msg, &err)) && msg)
		if (msg->kind == TMX_MSG_EVENT)
			counts[tmx_source_event_class_index(src, msg->event->cls)]++;
	for (size_t i = 0; i < n; i++) {
		const char *name = tmx_source_event_class(src, i)->name;

		if (counts[i])
			printf("%llu %s\n", (unsigned long long)counts[i], name ? name : "<unknown>");
	}
	if (status)   /* what was counted before the fault is printed above */
		print_error(&err);
	free(counts);
	tmx_source_free(src);
	return status ? 1 : 0;
}
