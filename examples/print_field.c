/*
 * Prints one field of every event that has it, whatever the trace's format:
 * a CTF payload or context member, a trace.dat event field (common_pid,
 * prev_comm...), an XRay record field (function id, thread...).  Strings,
 * including C character arrays such as trace.dat's `char prev_comm[16]`,
 * print as text; integers and floats as numbers.
 *
 *   cc print_field.c $(pkg-config --cflags --libs tracemux) -o print_field
 *   ./print_field FIELD TRACE...          e.g. ./print_field prev_comm trace.dat
 */
#include <inttypes.h>
#include <stdio.h>

#include <tracemux/event.h>
#include <tracemux/tracemux.h>

static void print_value(const char *event, int64_t ns, const struct tmx_value *v)
{
	const char *text;
	size_t len;
	int64_t i;
	uint64_t u;
	double d;

	printf("%" PRId64 " %s ", ns, event ? event : "<unknown>");
	if ((text = tmx_value_text(v, &len)))
		printf("\"%.*s\"\n", (int)len, text);
	else if (tmx_value_type(v) == TMX_TYPE_SIGNED && tmx_value_int64(v, &i))
		printf("%" PRId64 "\n", i);
	else if (tmx_value_uint64(v, &u))
		printf("%" PRIu64 "\n", u);
	else if (tmx_value_double(v, &d))
		printf("%g\n", d);
	else
		printf("(%zu items)\n", tmx_value_length(v));
}

int main(int argc, char **argv)
{
	char text[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];
	struct tmx_open_opts opts = TMX_OPEN_OPTS_INIT;   /* sets its size: options can grow */
	struct tmx_source *src;
	struct tmx_error err;
	const struct tmx_msg *msg;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: %s FIELD TRACE...\n", argv[0]);
		return 2;
	}
	status = tmx_open((const char *const *)argv + 2, (size_t)argc - 2,
			  &opts, NULL, &src, &err);
	while (!status && !(status = tmx_source_next(src, &msg, &err)) && msg) {
		const struct tmx_value *v;

		if (msg->kind == TMX_MSG_EVENT && (v = tmx_event_field(msg->event, argv[1])))
			print_value(msg->event->cls->name, msg->ns, v);
	}
	if (status) {
		tmx_error_format(&err, text, sizeof(text));
		fprintf(stderr, "error: %s\n", text);
	}
	tmx_source_free(src);
	return status ? 1 : 0;
}
