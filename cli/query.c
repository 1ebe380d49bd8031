/*
 * `tracemux query OBJECT [--json] PATH...`: babeltrace2's src.ctf.fs query
 * objects (trace-infos, metadata-info, support-info), printed in the same
 * YAML-like text as `babeltrace2 query`, or as JSON.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common/uuid.h"
#include "tracemux/sink.h"

static void print_uuid(FILE *out, const uint8_t *u)
{
	char text[TMX_UUID_TEXT_LEN + 1];

	tmx_uuid_text(text, u);
	fputs(text, out);
}

/* babeltrace2's port name: "UUID (or trace directory) | stream class ID | stream ID (or file)". */
static void print_port_name(FILE *out, const struct tmx_stream_info *si)
{
	const struct tmx_stream *s = si->stream;
	const char *slash = strrchr(s->name, '/');

	if (s->trace->cls->has_uuid)
		print_uuid(out, s->trace->cls->uuid);
	else
		fprintf(out, "%.*s", slash ? (int)(slash - s->name) : 0, s->name);
	fprintf(out, " | %llu | ", (unsigned long long)s->cls->id);
	if (si->has_instance_id)
		fprintf(out, "%llu", (unsigned long long)s->id);
	else
		fputs(s->name, out);
}

/* `--json`'s strings, escaped as every JSON output of the library (tmx_json_escape). */
static void print_json_string(FILE *out, const char *s)
{
	char small[256], *buf = small;
	size_t n = strlen(s), len = tmx_json_escape(s, n, small, sizeof(small));

	if (len > sizeof(small) && len != SIZE_MAX && (buf = malloc(len)))
		tmx_json_escape(s, n, buf, len);
	if (len == SIZE_MAX || !buf) {
		fputs("\"\"", out);   /* no memory: an empty string, the JSON still valid */
		return;
	}
	fwrite(buf, 1, len, out);
	if (buf != small)
		free(buf);
}

/* The port name as a JSON string (it holds a path: any byte). */
static void print_json_port_name(FILE *out, const struct tmx_stream_info *si)
{
	char *name = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&name, &len);

	if (m) {
		print_port_name(m, si);
		if (fclose(m) == 0) {
			print_json_string(out, name);
			free(name);
			return;
		}
	}
	free(name);
	fputs("\"\"", out);   /* no memory */
}

static void trace_infos(FILE *out, struct tmx_source *src, bool json)
{
	size_t n_traces = tmx_source_logical_trace_count(src);

	if (json)
		fputs("[", out);
	for (size_t t = 0; t < n_traces; t++) {
		const struct tmx_trace *trace = tmx_source_logical_trace(src, t);
		bool first = true;

		if (json) {
			fprintf(out, "%s{\"name\": ", t ? ", " : "");
			print_json_string(out, trace->name);
			fputs(", \"stream-infos\": [", out);
		} else {
			fputs("- \n  stream-infos: \n", out);
		}
		for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
			struct tmx_stream_info si;
			tmx_source_stream_info(src, i, &si);
			if (si.stream->trace != trace)
				continue;
			if (json) {
				fprintf(out, "%s{\"port-name\": ", first ? "" : ", ");
				print_json_port_name(out, &si);
				if (si.has_range)
					fprintf(out, ", \"range-ns\": {\"begin\": %lld, \"end\": %lld}",
						(long long)si.begin_ns, (long long)si.end_ns);
				fputc('}', out);
			} else {
				fputs("    - \n      port-name: ", out);
				print_port_name(out, &si);
				fputc('\n', out);
				if (si.has_range)
					fprintf(out, "      range-ns: \n        begin: %lld\n        end: %lld\n",
						(long long)si.begin_ns, (long long)si.end_ns);
			}
			first = false;
		}
		if (json)
			fputs("]}", out);
	}
	if (json)
		fputs("]\n", out);
}

static void metadata_info(FILE *out, struct tmx_source *src, bool json)
{
	for (size_t i = 0; i < tmx_source_trace_count(src); i++) {
		bool packetized = tmx_source_trace_packetized(src, i);
		if (json) {
			fprintf(out, "{\"is-packetized\": %s, \"text\": ", packetized ? "true" : "false");
			print_json_string(out, tmx_source_trace_metadata(src, i));
			fputs("}\n", out);
		} else {
			fprintf(out, "is-packetized: %s\ntext: %s\n", packetized ? "yes" : "no",
				tmx_source_trace_metadata(src, i));
		}
	}
}

/* babeltrace2 gives a CTF trace directory the weight 0.75, its group being the UUID. */
static int support_info(FILE *out, const char *path, const struct tmx_diag *diag, bool json)
{
	char meta[4096];
	struct stat st;
	struct tmx_source *src;
	struct tmx_error err;
	const struct tmx_trace *trace = NULL;

	snprintf(meta, sizeof(meta), "%s/metadata", path);
	if (stat(meta, &st) == 0 && tmx_ctf_fs_open(&path, 1, NULL, diag, &src, &err) == TMX_OK) {
		if (tmx_source_logical_trace_count(src) == 1)
			trace = tmx_source_logical_trace(src, 0);
		if (json) {
			fputs("{", out);
			if (trace && trace->cls->has_uuid) {
				fputs("\"group\": \"", out);
				print_uuid(out, trace->cls->uuid);
				fputs("\", ", out);
			}
			fputs("\"weight\": 0.75}\n", out);
		} else {
			if (trace && trace->cls->has_uuid) {
				fputs("group: ", out);
				print_uuid(out, trace->cls->uuid);
				fputc('\n', out);
			}
			fputs("weight: 0.750000\n", out);
		}
		tmx_source_free(src);
		return 0;
	}
	fputs(json ? "{\"weight\": 0}\n" : "weight: 0.000000\n", out);
	return 0;
}

int cli_query(int argc, char **argv, const struct tmx_diag *diag)
{
	const char *object = NULL;
	const char *paths[256];
	size_t n_paths = 0;
	bool json = false;
	struct tmx_source *src;
	struct tmx_error err = { 0 };

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!object)
			object = argv[i];
		else if (n_paths < sizeof(paths) / sizeof(paths[0]))
			paths[n_paths++] = argv[i];
	}
	if (!object || !n_paths) {
		fputs("Usage: tracemux query [--json] trace-infos|metadata-info|support-info PATH...\n",
		      stderr);
		return 2;
	}
	if (!strcmp(object, "support-info")) {
		for (size_t i = 0; i < n_paths; i++)
			support_info(stdout, paths[i], diag, json);
		return 0;
	}
	if (strcmp(object, "trace-infos") && strcmp(object, "metadata-info")) {
		fprintf(stderr, "tracemux: unknown query object `%s` (trace-infos, metadata-info, "
			"support-info)\n", object);
		return 2;
	}
	if (tmx_ctf_fs_open(paths, n_paths, NULL, diag, &src, &err))
		return cli_report(&err);
	if (!strcmp(object, "trace-infos"))
		trace_infos(stdout, src, json);
	else
		metadata_info(stdout, src, json);
	tmx_source_free(src);
	return 0;
}
