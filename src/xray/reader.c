/*
 * The XRay source: opens a log, indexes it, and gives its records as model
 * messages in llvm-xray's order (see xray.h for the mapping).
 *
 * Memory stays bounded on huge logs: nothing is decoded ahead.  Opening
 * reads the file once to index it (FDR: one small descriptor per block;
 * basic: nothing) and, unless unsorted output is asked for, once more to
 * find the ascending runs of TSCs in llvm's unsorted order.  The sorted
 * output is then a merge of those runs, each read again from the mapping
 * by its own cursor: ties go to the earlier run, which is exactly a stable
 * sort by TSC.  Pages of the mapping are released as the reading goes.
 *
 * A damaged file: what comes before the damage is indexed and output, then
 * the error (offset, record) is returned; with `lenient` the reader warns
 * and resumes at the next buffer when it can.
 *
 * This file: the model classes, opening and the source operations; the
 * other parts are listed in reader_impl.h.
 */
#include <stdlib.h>

#include "tracemux/run.h"
#include "common/errors.h"
#include "common/progress_count.h"
#include "model/field_class.h"
#include "xray/reader_impl.h"

/* ------------------------------------------------------------------ */
/* Model classes                                                        */
/* ------------------------------------------------------------------ */

static struct tmx_field_class *fc_int(struct xr_reader *r, uint32_t bits, bool is_signed)
{
	struct tmx_field_class *fc = tmx_fc_new(&r->arena, TMX_FC_INT);

	if (fc) {
		fc->size = bits;
		fc->is_signed = is_signed;
		fc->byte_order = TMX_BO_LE;
	}
	return fc;
}

static struct tmx_field_class *fc_struct(struct xr_reader *r, size_t n, const char *const *names,
					 struct tmx_field_class **fcs)
{
	struct tmx_field_class *fc = tmx_fc_new(&r->arena, TMX_FC_STRUCT);

	if (!fc || !(fc->members = tmx_arena_calloc(&r->arena, n, sizeof(*fc->members))))
		return NULL;
	fc->n_members = n;
	for (size_t i = 0; i < n; i++) {
		if (!fcs[i] || !(fc->members[i].name = tmx_arena_strdup(&r->arena, names[i])))
			return NULL;
		fc->members[i].fc = fcs[i];
	}
	return fc;
}

static int add_env(struct xr_reader *r, size_t *n, const char *name, bool is_int, int64_t iv,
		   const char *sv)
{
	struct tmx_env_entry *e = &r->tc->env[(*n)++];

	e->name = tmx_arena_strdup(&r->arena, name);
	e->is_int = is_int;
	e->int_value = iv;
	e->str_value = sv ? tmx_arena_strdup(&r->arena, sv) : NULL;
	return e->name && (!sv || e->str_value) ? 0 : -1;
}

int xr_build_classes(struct xr_reader *r, const char *path, struct tmx_error *err)
{
	static const char *const ev_names[TMX_XRAY_N_EVENT_CLASSES] = {
		"function-enter", "function-exit", "function-tail-exit", "function-enter-arg",
		"custom-event", "typed-event", "walltime",
	};
	static const char *const ctx_names[] = { "cpu", "tid", "pid" };
	static const char *const pay_names[] = { "func_id", "function", "record_type",
						 "data_size", "data", "n_args", "args" };
	static const char *const wall_names[] = { "seconds", "microseconds" };
	const struct tmx_xray_header *h = &r->file.h;
	struct tmx_arena *a = &r->arena;
	struct tmx_clock_class *cc;
	struct tmx_field_class *m[7], *data, *args, *u8;
	size_t n_env = 0;
	int bad = 0;

	r->tc = tmx_arena_calloc(a, 1, sizeof(struct tmx_trace_class_impl));
	r->sc = tmx_arena_calloc(a, 1, sizeof(*r->sc));
	cc = tmx_arena_calloc(a, 1, sizeof(*cc));
	if (!r->tc || !r->sc || !cc)
		goto nomem;
	r->tc->format = TMX_FORMAT_XRAY;
	cc->name = tmx_arena_strdup(a, "xray_tsc");
	cc->description = tmx_arena_strdup(a, "XRay time stamp counter (header cycle_frequency)");
	cc->frequency = h->cycle_frequency ? h->cycle_frequency : UINT64_C(1000000000);
	if (!h->cycle_frequency)
		tmx_warn(r->diag, "%s: XRay header cycle frequency is 0: taking 1 GHz", path);
	cc->origin_is_unix_epoch = cc->frequency == UINT64_C(1000000000);
	if (!cc->name || !cc->description)
		goto nomem;

	r->tc->native_byte_order = TMX_BO_LE;
	tmx_tc_impl(r->tc)->n_slots = 2;
	if (!(r->tc->env = tmx_arena_calloc(a, 8, sizeof(*r->tc->env))))
		goto nomem;
	bad |= add_env(r, &n_env, "tracer_name", false, 0, "llvm-xray");
	bad |= add_env(r, &n_env, "xray_mode", false, 0, h->type ? "fdr" : "basic");
	bad |= add_env(r, &n_env, "xray_version", true, h->version, NULL);
	bad |= add_env(r, &n_env, "xray_type", true, h->type, NULL);
	bad |= add_env(r, &n_env, "constant_tsc", true, h->constant_tsc, NULL);
	bad |= add_env(r, &n_env, "nonstop_tsc", true, h->nonstop_tsc, NULL);
	bad |= add_env(r, &n_env, "cycle_frequency", true, (int64_t)h->cycle_frequency, NULL);
	if (h->type && !r->is_yaml)   /* a YAML trace has no buffers */
		bad |= add_env(r, &n_env, "buffer_size", true, (int64_t)h->buffer_size, NULL);
	if (bad)
		goto nomem;
	r->tc->n_env = n_env;
	if (!(r->tc->clocks = tmx_arena_calloc(a, 1, sizeof(*r->tc->clocks))) ||
	    !(r->tc->stream_classes = tmx_arena_calloc(a, 1, sizeof(*r->tc->stream_classes))))
		goto nomem;
	r->tc->clocks[0] = cc;
	r->tc->n_clocks = 1;
	r->tc->stream_classes[0] = r->sc;
	r->tc->n_stream_classes = 1;

	/* Common context: cpu, tid, pid. */
	m[0] = fc_int(r, 16, false);
	m[1] = fc_int(r, 32, false);
	m[2] = fc_int(r, 32, false);
	r->fc_cpu = m[0], r->fc_tid = m[1], r->fc_pid = m[2];
	if (!(r->fc_struct_ctx = fc_struct(r, 3, ctx_names, m)))
		goto nomem;

	/* Payload of the record classes. */
	u8 = fc_int(r, 8, false);
	data = tmx_fc_new(&r->arena, TMX_FC_SEQUENCE);
	args = tmx_fc_new(&r->arena, TMX_FC_SEQUENCE);
	m[0] = fc_int(r, 32, true);
	m[1] = tmx_fc_new(&r->arena, TMX_FC_STRING);
	m[2] = fc_int(r, 16, false);
	m[3] = fc_int(r, 32, false);
	m[4] = data;
	m[5] = fc_int(r, 32, false);
	m[6] = args;
	if (!u8 || !data || !args || !m[1] || !m[3] || !m[5])
		goto nomem;
	m[1]->encoding = TMX_ENC_UTF8;
	u8->encoding = TMX_ENC_UTF8;
	m[3]->slot = 0;
	m[5]->slot = 1;
	data->elem = u8;
	data->is_text = true;
	data->ref_slot = 0;
	data->ref_path = tmx_arena_strdup(a, "data_size");
	args->elem = fc_int(r, 64, false);
	args->ref_slot = 1;
	args->ref_path = tmx_arena_strdup(a, "n_args");
	if (!args->elem || !data->ref_path || !args->ref_path)
		goto nomem;
	r->fc_func_id = m[0], r->fc_function = m[1], r->fc_rtype = m[2];
	r->fc_data_size = m[3], r->fc_data = m[4], r->fc_n_args = m[5], r->fc_args = m[6];
	r->fc_arg = args->elem;
	if (!(r->fc_payload = fc_struct(r, 7, pay_names, m)))
		goto nomem;
	m[0] = fc_int(r, 64, false);
	m[1] = fc_int(r, 32, false);
	r->fc_wall_sec = m[0], r->fc_wall_usec = m[1];
	if (!(r->fc_wall = fc_struct(r, 2, wall_names, m)))
		goto nomem;

	r->sc->default_clock = cc;
	r->sc->event_common_context = (struct tmx_field_class *)r->fc_struct_ctx;
	r->sc->trace_class = r->tc;
	r->sc->n_event_classes = TMX_XRAY_N_EVENT_CLASSES;
	if (!(r->sc->event_classes = tmx_arena_calloc(a, TMX_XRAY_N_EVENT_CLASSES,
						      sizeof(*r->sc->event_classes))))
		goto nomem;
	for (unsigned i = 0; i < TMX_XRAY_N_EVENT_CLASSES; i++) {
		struct tmx_event_class *ec = tmx_arena_calloc(a, 1, sizeof(*ec));
		if (!ec || !(ec->name = tmx_arena_strdup(a, ev_names[i])))
			goto nomem;
		ec->id = i;
		ec->log_level = TMX_LOG_LEVEL_NONE;
		ec->payload = (struct tmx_field_class *)(i == TMX_XRAY_EV_WALLTIME ? r->fc_wall
										   : r->fc_payload);
		ec->stream_class = r->sc;
		r->sc->event_classes[i] = ec;
	}
	if (!(r->trace.name = tmx_arena_strdup(a, path)))
		goto nomem;
	r->trace.cls = r->tc;
	return TMX_OK;
nomem:
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

/* ------------------------------------------------------------------ */
/* Source operations                                                    */
/* ------------------------------------------------------------------ */

static void reader_free(void *impl)
{
	struct xr_reader *r = impl;

	if (!r)
		return;
	xr_chunks_free(r);
	xr_cursor_free(&r->cursor);
	free(r->runs);
	free(r->cps);
	free(r->bounds);
	for (uint32_t k = 0; k < r->n_keys; k++)
		free(r->keys[k].blocks);
	free(r->keys);
	free(r->key_order);
	free(r->blocks);
	xr_densemap_free(&r->map);
	free(r->streams);
	free(r->packets);
	free(r->ts_min);
	free(r->ts_max);
	free(r->stream_bytes);
	free(r->pay);
	xr_names_free(r->names);
	xr_yaml_free(&r->yaml);
	tmx_arena_free(&r->arena);
	tmx_mapfile_close(&r->file.map);
	free(r);
}

static size_t reader_stream_count(const void *impl)
{
	return ((const struct xr_reader *)impl)->n_streams;
}

static void reader_stream_info(const void *impl, size_t i, struct tmx_stream_info *info)
{
	const struct xr_reader *r = impl;

	*info = (struct tmx_stream_info){ .stream = &r->streams[i], .n_packets = 1,
					  .n_files = 1, .bytes = r->stream_bytes[i] };
	/* Time range: known after the sorted pass (not with opts.unsorted). */
	if (r->have_ranges && r->ts_min[i] <= r->ts_max[i] &&
	    tmx_clock_ns_from_origin(r->tc->clocks[0], r->ts_min[i], &info->begin_ns) &&
	    tmx_clock_ns_from_origin(r->tc->clocks[0], r->ts_max[i], &info->end_ns))
		info->has_range = true;
}

uint64_t xr_total_bytes(const struct xr_reader *r)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < r->n_streams; i++)
		sum += r->stream_bytes[i];
	return sum;
}

static uint64_t reader_bytes_read(const void *impl)
{
	return tmx_count_get(&((const struct xr_reader *)impl)->bytes_done);
}

static size_t reader_logical_trace_count(const void *impl)
{
	(void)impl;
	return 1;
}

static const struct tmx_trace *reader_logical_trace(const void *impl, size_t i)
{
	(void)i;
	return &((const struct xr_reader *)impl)->trace;
}

static void reader_skipped(const void *impl, uint64_t *units, uint64_t *bytes)
{
	const struct xr_reader *r = impl;

	*units = r->skipped_units;
	*bytes = r->skipped_bytes;
}

const struct tmx_source_ops tmx_xray_source_ops = {
	.format = "xray",
	.next = xr_reader_next,
	.free = reader_free,
	.stream_count = reader_stream_count,
	.stream_info = reader_stream_info,
	.bytes_read = reader_bytes_read,
	.logical_trace_count = reader_logical_trace_count,
	.logical_trace = reader_logical_trace,
	.skipped = reader_skipped,
	.set_filter = xr_reader_set_filter,
};

const struct tmx_xray_header *tmx_xray_reader_header(const void *impl)
{
	const struct xr_reader *r = impl;

	return r ? &r->file.h : NULL;
}

static int open_one(const char *path, const struct tmx_xray_opts *opts,
		    const struct tmx_diag *diag, struct xr_names *names, void **out,
		    struct tmx_error *err)
{
	struct xr_reader *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		xr_names_free(names);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	r->opts = *opts;
	r->jobs = opts->jobs ? opts->jobs : tmx_cpu_count();
	r->diag = diag;
	r->names = names;
	tmx_arena_init(&r->arena);
	xr_densemap_init(&r->map);
	if ((ret = tmx_mapfile_open(&r->file.map, path, err)))
		goto fail;
	tmx_mapfile_advise_sequential(&r->file.map);
	r->is_yaml = tmx_xray_looks_like_yaml(r->file.map.data, r->file.map.size, true);
	if (r->is_yaml)
		ret = xr_index_yaml(r, err);
	else if (!(ret = xr_parse_header(r->file.map.data, r->file.map.size, path, &r->file.h,
					 err)) &&
		 !(ret = xr_build_classes(r, path, err)))
		ret = r->file.h.type ? xr_index_fdr(r, err) : xr_index_basic(r, err);
	if (ret)
		goto fail;
	if (!(r->packets = calloc(r->n_streams ? r->n_streams : 1, sizeof(*r->packets)))) {
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < r->n_streams; i++)
		r->packets[i] = (struct tmx_packet){ .stream = &r->streams[i] };
	if ((ret = xr_setup_output(r, err)))
		goto fail;
	*out = r;
	return TMX_OK;
fail:
	reader_free(r);
	return ret;
}

int tmx_xray_reader_open(const char *path, const struct tmx_xray_opts *opts,
			 const struct tmx_diag *diag, void **impl, struct tmx_error *err)
{
	struct xr_names *names = NULL;
	int ret;

	*impl = NULL;
	if ((opts->instr_map || opts->symbolize) &&
	    (ret = xr_names_load(opts->instr_map, opts->symbolize, diag, &names, err)))
		return ret;
	return open_one(path, opts, diag, names, impl, err);
}
