/*
 * The sink interface (include/tracemux/sink.h): every output behind one
 * handle.  Two tables drive it: the sinks (how each one is made, fed and
 * finished) and their parameters (how each key=value is checked and
 * stored), so that adding an output or an option is one row.
 */
#include <stdlib.h>
#include <string.h>

#include "tracemux/sink.h"
#include "tracemux/tracemux.h"

#include "sink/ctf/ctf_writer.h"
#include "sink/custom/custom.h"
#include "sink/json/chrome.h"
#include "sink/json/jsonl.h"
#include "sink/parquet/parquet.h"
#include "sink/perfetto/perfetto.h"
#include "sink/split.h"
#include "sink/text/pretty.h"
#include "sink/tracecmd/layout.h"
#include "sink/xray/yaml.h"
#include "common/errors.h"

enum sink_kind { SINK_TEXT, SINK_JSON, SINK_CHROME, SINK_CTF, SINK_TRACECMD, SINK_XRAY_YAML,
		 SINK_PARQUET, SINK_PERFETTO, SINK_DUMMY, SINK_CUSTOM };

struct tmx_sink_params {
	const struct sink_ops *ops;          /* the sink they are for */
	struct tmx_pretty_opts pretty;       /* text */
	bool sched_slices;                   /* chrome */
	char *path;                          /* ctf, parquet: output directory */
	uint64_t packet_size;                /* ctf: 0 for the default */
	int ctf_version;                     /* ctf: TMX_CTF_VERSION_* */
	bool perfetto_zstd;                  /* perfetto: compress=zstd */
	bool lttng_kernel;                   /* ctf: trace.dat as an LTTng kernel trace */
	uint64_t row_group_rows;             /* parquet: 0 for the default */
	uint64_t part_row_groups;            /* parquet: 0 for the default */
	unsigned partition;                  /* parquet: TMX_PARQUET_BY_* */
};

/* ---- the sinks ---- */

struct tmx_sink {
	const struct sink_ops *ops;
	void *out;   /* the output's own handle; NULL for dummy */
};

struct sink_ops {
	const char *name;
	enum sink_kind kind;
	/* Makes the output into *out; returns TMX_OK or the error code. */
	int (*open)(const struct tmx_sink_params *p, const struct tmx_source *src,
		    const struct tmx_sink_io *io, void **out, struct tmx_error *err);
	int (*consume)(void *out, const struct tmx_msg *msg, struct tmx_error *err);
	int (*finish)(void *out, struct tmx_error *err);
	void (*free)(void *out);
	const struct sink_split *split;   /* NULL: no parallel formatting */
};

static int made(void *handle, void **out, struct tmx_error *err)
{
	*out = handle;
	return handle ? TMX_OK : tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

static int open_text(const struct tmx_sink_params *p, const struct tmx_source *src,
		     const struct tmx_sink_io *io, void **out, struct tmx_error *err)
{
	struct tmx_pretty_opts o = p->pretty;

	(void)src;
	o.out_fd = io->out_fd;
	o.err_fd = io->err_fd;
	return made(tmx_pretty_new(&o), out, err);
}

static int open_json(const struct tmx_sink_params *p, const struct tmx_source *src,
		     const struct tmx_sink_io *io, void **out, struct tmx_error *err)
{
	(void)p, (void)src;
	return made(tmx_jsonl_new(io->out_fd), out, err);
}

static int open_chrome(const struct tmx_sink_params *p, const struct tmx_source *src,
		       const struct tmx_sink_io *io, void **out, struct tmx_error *err)
{
	struct tmx_chrome *c = tmx_chrome_new(io->out_fd);

	if (c) {
		tmx_chrome_set_sched_slices(c, p->sched_slices);
		tmx_chrome_note_traces(c, src);
	}
	return made(c, out, err);
}

/* A directory per logical trace, made before any message. */
static int open_ctf(const struct tmx_sink_params *p, const struct tmx_source *src,
		    const struct tmx_sink_io *io, void **out, struct tmx_error *err)
{
	struct tmx_ctf_writer_opts opts = {
		.dir = p->path, .packet_size = p->packet_size, .ctf_version = p->ctf_version,
		.diag = io->diag,
	};
	struct tmx_ctf_writer *w;
	int ret;

	if (!p->path)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "sink `ctf` needs an output directory (parameter `path`)");
	ret = tmx_ctf_writer_new(&opts, &w, err);
	/* the map reads the source's class numbers, which it makes on demand (not a change of the source) */
	if (!ret && p->lttng_kernel)
		ret = tmx_ctf_writer_lttng_kernel(w, (struct tmx_source *)src, err);
	for (size_t i = 0; !ret && i < tmx_source_logical_trace_count(src); i++)
		ret = tmx_ctf_writer_add_trace(w, tmx_source_logical_trace(src, i), err);
	if (ret) {
		tmx_ctf_writer_free(w);
		return ret;
	}
	*out = w;
	return TMX_OK;
}

/* The dataset's directory, made before any message. */
static int open_parquet(const struct tmx_sink_params *p, const struct tmx_source *src,
			const struct tmx_sink_io *io, void **out, struct tmx_error *err)
{
	struct tmx_parquet_opts opts = {
		.dir = p->path, .row_group_rows = p->row_group_rows,
		.part_row_groups = p->part_row_groups, .partition = p->partition,
	};

	(void)io;
	if (!p->path)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "sink `parquet` needs an output directory (parameter `path`)");
	return tmx_parquet_new(&opts, src, (struct tmx_parquet **)out, err);
}

static int open_tracecmd(const struct tmx_sink_params *p, const struct tmx_source *src,
			 const struct tmx_sink_io *io, void **out, struct tmx_error *err)
{
	(void)p, (void)src;
	return made(tmx_tclayout_new(io->out_fd), out, err);
}

static int open_perfetto(const struct tmx_sink_params *p, const struct tmx_source *src,
			 const struct tmx_sink_io *io, void **out, struct tmx_error *err)
{
	return made(tmx_perfetto_new(io->out_fd, src, p->perfetto_zstd), out, err);
}

static int open_xray_yaml(const struct tmx_sink_params *p, const struct tmx_source *src,
			  const struct tmx_sink_io *io, void **out, struct tmx_error *err)
{
	(void)p;
	return made(tmx_xray_yaml_new(io->out_fd, src), out, err);
}

/* Adapters from the outputs' own handle types to the table's void *. */
#define ADAPT(prefix, type, finish)                                                   \
	static int prefix##_consume_any(void *o, const struct tmx_msg *m,             \
					struct tmx_error *e)                          \
	{                                                                             \
		return prefix##_consume((type *)o, m, e);                             \
	}                                                                             \
	static int prefix##_finish_any(void *o, struct tmx_error *e)                  \
	{                                                                             \
		return prefix##_##finish((type *)o, e);                               \
	}                                                                             \
	static void prefix##_free_any(void *o)                                        \
	{                                                                             \
		prefix##_free((type *)o);                                             \
	}
ADAPT(tmx_pretty, struct tmx_pretty, flush)
ADAPT(tmx_jsonl, struct tmx_jsonl, flush)
ADAPT(tmx_chrome, struct tmx_chrome, finish)
ADAPT(tmx_ctf_writer, struct tmx_ctf_writer, finish)
ADAPT(tmx_tclayout, struct tmx_tclayout, flush)
ADAPT(tmx_xray_yaml, struct tmx_xray_yaml, finish)
ADAPT(tmx_parquet, struct tmx_parquet, finish)
ADAPT(tmx_perfetto, struct tmx_perfetto, finish)
#define OUTPUT(name, kind, open, prefix) \
	{ name, kind, open, prefix##_consume_any, prefix##_finish_any, prefix##_free_any, NULL }

/*
 * The splits (src/sink/split.h) of the outputs that have one.  Their
 * worker's functions, for workers of type `wtype` (the output's own type
 * for most: a formatter is a copy of the output's settings).
 */
#define SPLIT_ADAPT(prefix, type, wtype)                                              \
	static void *prefix##_worker_new_any(const void *o)                           \
	{                                                                             \
		return prefix##_worker_new((const type *)o);                          \
	}                                                                             \
	static struct outbuf *prefix##_worker_outbuf_any(void *w)                     \
	{                                                                             \
		return prefix##_worker_outbuf((wtype *)w);                            \
	}                                                                             \
	static void prefix##_format_any(void *w, const struct tmx_msg *m,             \
					uint64_t hole[SINK_HOLES])                    \
	{                                                                             \
		prefix##_format((wtype *)w, m, hole);                                 \
	}                                                                             \
	static int prefix##_emit_any(void *o, const struct sink_piece *pc,            \
				     struct tmx_error *e)                             \
	{                                                                             \
		return prefix##_emit((type *)o, pc, e);                               \
	}
/* Workers of a type of their own, freed by prefix##_worker_free. */
#define WORKER_ADAPT(prefix, type, wtype)                                             \
	SPLIT_ADAPT(prefix, type, wtype)                                              \
	static void prefix##_worker_free_any(void *w)                                 \
	{                                                                             \
		prefix##_worker_free((wtype *)w);                                     \
	}
/* Workers of the output's type, freed as the output is. */
#define SPLIT(prefix, type, applies)                                                  \
	SPLIT_ADAPT(prefix, type, type)                                               \
	static const struct sink_split prefix##_split = {                             \
		prefix##_worker_new_any, prefix##_free_any, prefix##_worker_outbuf_any,  \
		prefix##_format_any, prefix##_emit_any, applies, NULL, true, NULL,    \
	};
SPLIT(tmx_pretty, struct tmx_pretty, NULL)
SPLIT(tmx_jsonl, struct tmx_jsonl, NULL)
SPLIT(tmx_tclayout, struct tmx_tclayout, NULL)
static bool tmx_chrome_splits_any(const void *o)
{
	return tmx_chrome_splits((const struct tmx_chrome *)o);
}
SPLIT(tmx_chrome, struct tmx_chrome, tmx_chrome_splits_any)
/* perfetto's workers are formatters of their own type (src/sink/perfetto/perfetto.c). */
static bool tmx_perfetto_splits_any(const void *o)
{
	return tmx_perfetto_splits((const struct tmx_perfetto *)o);
}
WORKER_ADAPT(tmx_perfetto, struct tmx_perfetto, struct pf_worker)
static const struct sink_split tmx_perfetto_split = {
	tmx_perfetto_worker_new_any, tmx_perfetto_worker_free_any, tmx_perfetto_worker_outbuf_any,
	tmx_perfetto_format_any, tmx_perfetto_emit_any, tmx_perfetto_splits_any, NULL, true, NULL,
};
/* parquet: workers make records of rows, and full row groups are encoded as side work. */
WORKER_ADAPT(tmx_parquet, struct tmx_parquet, struct pq_fmt)
static void tmx_parquet_batch_any(void *w)
{
	tmx_parquet_batch((struct pq_fmt *)w);
}
static void tmx_parquet_side_start_any(void *o, const struct sink_side *side)
{
	tmx_parquet_side_start((struct tmx_parquet *)o, side);
}
static bool tmx_parquet_side_run_any(void *o)
{
	return tmx_parquet_side_run((struct tmx_parquet *)o);
}
static int tmx_parquet_side_end_any(void *o, int status, struct tmx_error *e)
{
	return tmx_parquet_side_end((struct tmx_parquet *)o, status, e);
}
static const struct sink_side_ops tmx_parquet_side = {
	tmx_parquet_side_start_any, tmx_parquet_side_run_any, tmx_parquet_side_end_any,
};
static const struct sink_split tmx_parquet_split = {
	tmx_parquet_worker_new_any, tmx_parquet_worker_free_any, tmx_parquet_worker_outbuf_any,
	tmx_parquet_format_any, tmx_parquet_emit_any, NULL, &tmx_parquet_side, true,
	tmx_parquet_batch_any,
};
#define SPLIT_OUTPUT(name, kind, open, prefix) \
	{ name, kind, open, prefix##_consume_any, prefix##_finish_any, prefix##_free_any, \
	  &prefix##_split }
/* The dummy sink: nothing to format, the streams are read on the workers. */
static const struct sink_split dummy_split = { .segments = true };

static const struct sink_ops sinks[] = {
	SPLIT_OUTPUT("text", SINK_TEXT, open_text, tmx_pretty),
	SPLIT_OUTPUT("json", SINK_JSON, open_json, tmx_jsonl),
	SPLIT_OUTPUT("chrome", SINK_CHROME, open_chrome, tmx_chrome),
	{ "ctf", SINK_CTF, open_ctf, tmx_ctf_writer_consume_any, tmx_ctf_writer_finish_any,
	  tmx_ctf_writer_free_any, &tmx_ctf_writer_split },
	SPLIT_OUTPUT("tracecmd", SINK_TRACECMD, open_tracecmd, tmx_tclayout),
	OUTPUT("xray-yaml", SINK_XRAY_YAML, open_xray_yaml, tmx_xray_yaml),
	SPLIT_OUTPUT("parquet", SINK_PARQUET, open_parquet, tmx_parquet),
	SPLIT_OUTPUT("perfetto", SINK_PERFETTO, open_perfetto, tmx_perfetto),
	{ "dummy", SINK_DUMMY, NULL, NULL, NULL, NULL, &dummy_split },
};

/* A sink of the caller's own (tmx_sink_custom): not named, so not made by tmx_sink_open. */
ADAPT(tmx_custom, struct tmx_custom, finish)
WORKER_ADAPT(tmx_custom, struct tmx_custom, struct custom_worker)
/* format() depends on the message alone (tracemux/sink.h): streams may be cut into segments. */
static const struct sink_split tmx_custom_split = {
	tmx_custom_worker_new_any, tmx_custom_worker_free_any, tmx_custom_worker_outbuf_any,
	tmx_custom_format_any, tmx_custom_emit_any, NULL, NULL, true, NULL,
};
static const struct sink_ops custom_sink = SPLIT_OUTPUT("custom", SINK_CUSTOM, NULL, tmx_custom);

static const struct sink_ops *sink_named(const char *name)
{
	for (size_t i = 0; i < sizeof(sinks) / sizeof(sinks[0]); i++)
		if (!strcmp(sinks[i].name, name))
			return &sinks[i];
	return NULL;
}

/* ---- parameters ---- */

static const char *const true_words[] = { "true", "yes", "1", NULL };
static const char *const false_words[] = { "false", "no", "0", NULL };

static bool word_in(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (!strcmp(s, *words))
			return true;
	return false;
}

static int bad_value(const struct tmx_sink_params *p, const char *key, const char *value,
		     const char *expected, struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_USAGE, NULL,
			     "sink `%s`: invalid value `%s` for parameter `%s`: expected %s",
			     p->ops->name, value ? value : "", key, expected);
}

/* A boolean: no value, or one of the words. */
static int parse_bool(const struct tmx_sink_params *p, const char *key, const char *value,
		      bool *out, struct tmx_error *err)
{
	if (!value || word_in(value, true_words))
		*out = true;
	else if (word_in(value, false_words))
		*out = false;
	else
		return bad_value(p, key, value, "true or false", err);
	return TMX_OK;
}

/* Where a boolean parameter is stored in the parameters. */
static bool *bool_field(struct tmx_sink_params *p, const char *key)
{
	static const struct {
		const char *key;
		size_t offset;
	} bools[] = {
		{ "clock-cycles", offsetof(struct tmx_sink_params, pretty.clock_cycles) },
		{ "clock-seconds", offsetof(struct tmx_sink_params, pretty.clock_seconds) },
		{ "clock-date", offsetof(struct tmx_sink_params, pretty.clock_date) },
		{ "clock-gmt", offsetof(struct tmx_sink_params, pretty.clock_gmt) },
		{ "no-delta", offsetof(struct tmx_sink_params, pretty.no_delta) },
		{ "sched-slices", offsetof(struct tmx_sink_params, sched_slices) },
		{ "lttng-kernel", offsetof(struct tmx_sink_params, lttng_kernel) },
	};

	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
		if (!strcmp(bools[i].key, key))
			return (bool *)((char *)p + bools[i].offset);
	return NULL;
}

static int set_bool(struct tmx_sink_params *p, const char *key, const char *value,
		    struct tmx_error *err)
{
	return parse_bool(p, key, value, bool_field(p, key), err);
}

static int set_names(struct tmx_sink_params *p, const char *key, const char *value,
		     struct tmx_error *err)
{
	(void)key;
	return tmx_pretty_set_names(&p->pretty, value ? value : "", err);
}

static int set_fields(struct tmx_sink_params *p, const char *key, const char *value,
		      struct tmx_error *err)
{
	(void)key;
	return tmx_pretty_set_fields(&p->pretty, value ? value : "", err);
}

static int set_color(struct tmx_sink_params *p, const char *key, const char *value,
		     struct tmx_error *err)
{
	static const char *const modes[] = { "never", "auto", "always" };

	for (int i = 0; value && i < 3; i++)
		if (!strcmp(value, modes[i])) {
			p->pretty.color = (enum tmx_color_mode)i;
			return TMX_OK;
		}
	return bad_value(p, key, value, "never, auto or always", err);
}

static int set_path(struct tmx_sink_params *p, const char *key, const char *value,
		    struct tmx_error *err)
{
	char *copy;

	if (!value || !*value)
		return bad_value(p, key, value, "a directory", err);
	copy = strdup(value);
	if (!copy)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	free(p->path);
	p->path = copy;
	return TMX_OK;
}

/* babeltrace2's sink.ctf.fs spellings. */
static int set_ctf_version(struct tmx_sink_params *p, const char *key, const char *value,
			   struct tmx_error *err)
{
	if (value && (!strcmp(value, "1.8") || !strcmp(value, "1")))
		p->ctf_version = TMX_CTF_VERSION_1_8;
	else if (value && (!strcmp(value, "2") || !strcmp(value, "2.0")))
		p->ctf_version = TMX_CTF_VERSION_2;
	else
		return bad_value(p, key, value, "1.8 or 2", err);
	return TMX_OK;
}

/* perfetto: the whole file compressed, or not. */
static int set_compress(struct tmx_sink_params *p, const char *key, const char *value,
			struct tmx_error *err)
{
	if (value && (!strcmp(value, "zstd") || !strcmp(value, "none")))
		p->perfetto_zstd = !strcmp(value, "zstd");
	else
		return bad_value(p, key, value, "zstd or none", err);
	return TMX_OK;
}

static int set_packet_size(struct tmx_sink_params *p, const char *key, const char *value,
			   struct tmx_error *err)
{
	char *end;
	unsigned long long size;

	if (!value || *value < '0' || *value > '9')
		return bad_value(p, key, value, "a size in bytes, at least 64", err);
	size = strtoull(value, &end, 10);
	if (*end || size < 64 || size > INT64_MAX)
		return bad_value(p, key, value, "a size in bytes, at least 64", err);
	p->packet_size = size;
	return TMX_OK;
}

/* A positive count (parquet's row-group-rows and part-row-groups). */
static int set_count(struct tmx_sink_params *p, const char *key, const char *value,
		     struct tmx_error *err)
{
	char *end;
	unsigned long long n;

	if (!value || *value < '0' || *value > '9')
		return bad_value(p, key, value, "a positive number", err);
	n = strtoull(value, &end, 10);
	if (*end || n == 0 || n > INT32_MAX)
		return bad_value(p, key, value, "a positive number", err);
	if (!strcmp(key, "row-group-rows"))
		p->row_group_rows = n;
	else
		p->part_row_groups = n;
	return TMX_OK;
}

/* Hive partitions of the parquet dataset under event=NAME: host, trace or both. */
static int set_partition(struct tmx_sink_params *p, const char *key, const char *value,
			 struct tmx_error *err)
{
	static const struct { const char *word; unsigned flag; } keys[] = {
		{ "host", TMX_PARQUET_BY_HOST }, { "trace", TMX_PARQUET_BY_TRACE },
	};
	unsigned flags = 0;
	const char *s = value;

	while (s && *s) {
		size_t n = strcspn(s, ","), k = 0;

		while (k < sizeof(keys) / sizeof(keys[0]) &&
		       (strlen(keys[k].word) != n || strncmp(keys[k].word, s, n)))
			k++;
		if (k == sizeof(keys) / sizeof(keys[0]))
			return bad_value(p, key, value, "host, trace or host,trace", err);
		flags |= keys[k].flag;
		s += n + (s[n] == ',');
	}
	if (!flags)
		return bad_value(p, key, value, "host, trace or host,trace", err);
	p->partition = flags;
	return TMX_OK;
}

static const struct param {
	enum sink_kind kind;
	const char *key;
	int (*set)(struct tmx_sink_params *p, const char *key, const char *value,
		   struct tmx_error *err);
} params[] = {
	{ SINK_TEXT, "names", set_names },
	{ SINK_TEXT, "fields", set_fields },
	{ SINK_TEXT, "clock-cycles", set_bool },
	{ SINK_TEXT, "clock-seconds", set_bool },
	{ SINK_TEXT, "clock-date", set_bool },
	{ SINK_TEXT, "clock-gmt", set_bool },
	{ SINK_TEXT, "no-delta", set_bool },
	{ SINK_TEXT, "color", set_color },
	{ SINK_CHROME, "sched-slices", set_bool },
	{ SINK_CTF, "path", set_path },
	{ SINK_CTF, "ctf-version", set_ctf_version },
	{ SINK_CTF, "packet-size", set_packet_size },
	{ SINK_CTF, "lttng-kernel", set_bool },
	{ SINK_PARQUET, "path", set_path },
	{ SINK_PARQUET, "row-group-rows", set_count },
	{ SINK_PARQUET, "part-row-groups", set_count },
	{ SINK_PARQUET, "partition", set_partition },
	{ SINK_PERFETTO, "compress", set_compress },
};

struct tmx_sink_params *tmx_sink_params_new(const char *name, struct tmx_error *err)
{
	const struct sink_ops *s = name ? sink_named(name) : NULL;
	struct tmx_sink_params *p;

	if (!s) {
		tmx_error_set(err, TMX_ERR_USAGE, NULL,
			      "unknown sink `%s` (text, json, chrome, ctf, tracecmd, xray-yaml, parquet, perfetto, dummy)",
			      name ? name : "");
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		return NULL;
	}
	p->ops = s;
	tmx_pretty_opts_default(&p->pretty);
	return p;
}

int tmx_sink_params_set(struct tmx_sink_params *p, const char *key, const char *value,
			struct tmx_error *err)
{
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++)
		if (params[i].kind == p->ops->kind && !strcmp(params[i].key, key))
			return params[i].set(p, key, value, err);
	return bad_value(p, key, value, "a parameter of this sink (see tracemux/sink.h)", err);
}

void tmx_sink_params_free(struct tmx_sink_params *p)
{
	if (p)
		free(p->path);
	free(p);
}

/* ---- the sink handle ---- */

int tmx_sink_open(const struct tmx_sink_params *p, const struct tmx_source *src,
		  const struct tmx_sink_io *io, struct tmx_sink **out, struct tmx_error *err)
{
	const struct sink_ops *s = p->ops;
	struct tmx_sink *sink;

	*out = NULL;
	sink = calloc(1, sizeof(*sink));
	if (!sink)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	sink->ops = s;
	if (s->open) {
		int ret = s->open(p, src, io, &sink->out, err);

		if (ret) {
			free(sink);
			return ret;
		}
	}
	*out = sink;
	return TMX_OK;
}

int tmx_sink_custom(const struct tmx_custom_sink *def, struct tmx_sink **out,
		    struct tmx_error *err)
{
	struct tmx_sink *sink = calloc(1, sizeof(*sink));
	struct tmx_custom *c;
	int ret;

	*out = NULL;
	if (!sink)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	if ((ret = tmx_custom_open(def, &c, err))) {
		free(sink);
		return ret;
	}
	sink->ops = &custom_sink;
	sink->out = c;
	*out = sink;
	return TMX_OK;
}

int tmx_sink_consume(struct tmx_sink *sink, const struct tmx_msg *msg, struct tmx_error *err)
{
	return sink->out ? sink->ops->consume(sink->out, msg, err) : TMX_OK;
}

int tmx_sink_finish(struct tmx_sink *sink, struct tmx_error *err)
{
	return sink->out ? sink->ops->finish(sink->out, err) : TMX_OK;
}

const struct sink_split *tmx_sink_split(const struct tmx_sink *sink, void **out)
{
	const struct sink_split *split = sink->ops->split;

	*out = sink->out;
	return split && split->applies && !split->applies(sink->out) ? NULL : split;
}

void tmx_sink_free(struct tmx_sink *sink)
{
	if (!sink)
		return;
	if (sink->out)
		sink->ops->free(sink->out);
	free(sink);
}
