/*
 * Converts any trace to JSON Lines on standard output through the sink
 * interface: the same output as `tracemux -o json`.  Any other sink works
 * the same way (text, chrome, ctf with path=DIR...): see tracemux/sink.h.
 *
 *   cc to_json.c $(pkg-config --cflags --libs tracemux) -o to_json
 *   ./to_json TRACE... > trace.jsonl
 */
#include <stdio.h>
#include <unistd.h>

#include <tracemux/sink.h>
#include <tracemux/tracemux.h>

int main(int argc, char **argv)
{
	char text[TMX_ERROR_MSG_MAX + TMX_ERROR_FILE_MAX + 64];
	const struct tmx_sink_io io = { .out_fd = STDOUT_FILENO, .err_fd = STDERR_FILENO };
	struct tmx_open_opts opts = TMX_OPEN_OPTS_INIT;   /* sets its size: options can grow */
	struct tmx_source *src = NULL;
	struct tmx_sink_params *params = NULL;
	struct tmx_sink *sink = NULL;
	struct tmx_error err, ferr;
	const struct tmx_msg *msg;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
		return 2;
	}
	status = tmx_open((const char *const *)argv + 1, (size_t)argc - 1,
			  &opts, NULL, &src, &err);
	if (!status && !(params = tmx_sink_params_new("json", &err)))
		status = err.code;
	if (!status)
		status = tmx_sink_open(params, src, &io, &sink, &err);
	tmx_sink_params_free(params);
	while (!status && !(status = tmx_source_next(src, &msg, &err)) && msg)
		status = tmx_sink_consume(sink, msg, &err);
	/* Everything consumed before an error is still written out. */
	if (sink && tmx_sink_finish(sink, &ferr) && !status) {
		err = ferr;
		status = err.code;
	}
	if (status) {
		tmx_error_format(&err, text, sizeof(text));
		fprintf(stderr, "error: %s\n", text);
	}
	tmx_sink_free(sink);
	tmx_source_free(src);
	return status ? 1 : 0;
}
