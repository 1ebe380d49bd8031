/*
 * trace.dat files as a source of the common model (tmx_tracedat_open).
 *
 * Mapping (docs/ARCHITECTURE.md, "trace.dat"):
 *   - one trace per file, named after the file's path; its environment
 *     holds the file's facts (version, uname, hostname, clock, cpus,
 *     buffers, trace-cmd version, compression, trace id);
 *   - one clock class, named after the top buffer's trace clock, 1 GHz:
 *     times are trace-cmd's record->ts (after TSC2NSEC, OFFSET, DATE,
 *     TIME_SHIFT).  With the x86-tsc or counter clock and no TSC2NSEC the
 *     values are raw counts, passed through as if they were ns;
 *   - one stream class per file; one stream per (buffer, CPU) with id
 *     buffer << 32 | CPU index, a packet context `{ cpu_id }`, and one
 *     packet spanning the CPU's records;
 *   - one event class per parsed format file, id = the format's ID, name
 *     "system:event"; the common_* fields are the event common context,
 *     the others the payload: integers with their size and signedness
 *     (pointers and `long`s print in hex... as integers with base 16 for
 *     pointers), char arrays and __data_loc/__rel_loc char[] as strings,
 *     other static arrays as arrays, other dynamic arrays as sequences;
 *   - a page's missed-events flag becomes TMX_MSG_DISCARDED_EVENTS before
 *     the page's first record (count 0 when the kernel did not store it).
 * The streams of all files are handed out (stream_iters): the source
 * layer merges them by time in the muxer.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/opts.h"
#include "common/grow.h"
#include "tracecmd/source_impl.h"
#include "tracecmd/tracedat.h"

/* ------------------------------------------------------------------ */
/* The source                                                            */
/* ------------------------------------------------------------------ */

static void src_free(void *impl)
{
	struct tdm_source *ts = impl;

	if (!ts)
		return;
	tdm_segments_free(ts);
	for (size_t i = 0; i < ts->n_streams; i++)
		tdm_stream_free(ts->streams[i]);
	free(ts->streams);
	for (size_t i = 0; i < ts->n_files; i++) {
		if (!ts->files[i])
			continue;
		tdat_file_close(ts->files[i]->f);
		tmx_arena_free(&ts->files[i]->arena);
		free(ts->files[i]);
	}
	free(ts->files);
	free(ts);
}

/*
 * Filters drop events per stream (the source's muxer too, before ordering
 * them); the streams do not decode the records of classes that cannot pass.
 */
static void src_set_filter(void *impl, const struct tmx_reader_filter *f)
{
	struct tdm_source *ts = impl;

	ts->filter = f;
	for (size_t i = 0; i < ts->n_files; i++) {
		struct tdm_file *tf = ts->files[i];

		for (size_t e = 0; e < tf->sc.n_event_classes; e++)
			tf->by_id_events[e]->unwanted = f && !f->wanted(f->ctx, &tf->by_id_events[e]->ec);
	}
}

/* Called before the streams are read (tmx_run): the files' flag is then only read. */
static void src_skip_fields(void *impl)
{
	struct tdm_source *ts = impl;

	for (size_t i = 0; i < ts->n_files; i++)
		ts->files[i]->values_unread = true;
}

/*
 * Each stream reads its own cursor (pages, decompression context); what
 * the streams of a file share is read-only but the lenient-mode counters
 * (atomic): they may be read on worker threads.
 */
static void src_stream_iters(void *impl, struct tmx_msg_iter **iters)
{
	const struct tdm_source *ts = impl;

	for (size_t i = 0; i < ts->n_streams; i++)
		iters[i] = &ts->streams[i]->iter;
}

static size_t src_stream_count(const void *impl)
{
	return ((const struct tdm_source *)impl)->n_streams;
}

static void src_stream_info(const void *impl, size_t i, struct tmx_stream_info *info)
{
	const struct tdm_stream *s = ((const struct tdm_source *)impl)->streams[i];
	const struct tdat_cpu_data *cd =
		&s->file->f->buffers[s->buffer].cpus[s->stream.id & 0xffffffffu];

	memset(info, 0, sizeof(*info));
	info->stream = &s->stream;
	info->has_instance_id = true;
	info->has_range = s->has_range;
	info->begin_ns = s->range_begin;
	info->end_ns = s->range_end;
	info->n_packets = 1;
	info->bytes = cd->size;
	info->n_files = 1;
}

/* Each stream is a cursor over its whole CPU: what it has passed of tdat_cpu_data.size. */
static uint64_t src_bytes_read(const void *impl)
{
	const struct tdm_source *ts = impl;
	uint64_t sum = 0;

	for (size_t i = 0; i < ts->n_streams; i++)
		if (ts->streams[i]->cur)
			sum += tdat_cursor_bytes_read(ts->streams[i]->cur);
	return sum + tdm_segments_bytes_read(ts);
}

static size_t src_trace_count(const void *impl)
{
	return ((const struct tdm_source *)impl)->n_files;
}

static const struct tmx_trace *src_trace(const void *impl, size_t i)
{
	const struct tdm_source *ts = impl;
	return i < ts->n_files ? &ts->files[i]->trace : NULL;
}

static void src_skipped(const void *impl, uint64_t *units, uint64_t *bytes)
{
	const struct tdm_source *ts = impl;

	*units = *bytes = 0;
	for (size_t i = 0; i < ts->n_files; i++) {
		uint64_t u, b;
		if (!ts->files[i]->f)
			continue;
		tdat_file_skipped(ts->files[i]->f, &u, &b);
		*units += u;
		*bytes += b;
	}
}

const struct tmx_source_ops tdat_source_ops = {
	.format = "tracedat",
	.free = src_free,
	.stream_count = src_stream_count,
	.stream_info = src_stream_info,
	.bytes_read = src_bytes_read,
	.logical_trace_count = src_trace_count,
	.logical_trace = src_trace,
	.skipped = src_skipped,
	.set_filter = src_set_filter,
	.skip_fields = src_skip_fields,
	.stream_iters = src_stream_iters,
	.stream_cost = tdm_stream_cost,
	.split_stream = tdm_split_stream,
};

static int add_streams(struct tdm_source *ts, struct tdm_file *tf, size_t *cap,
		       struct tmx_error *err)
{
	const struct tdat_file *f = tf->f;
	int ret;

	for (size_t b = 0; b < f->n_buffers; b++) {
		const struct tdat_buffer *buf = &f->buffers[b];
		if (buf->latency) {
			tmx_warn(tf->diag, "%s: buffer \"%s\" holds latency text, not records: it has no "
				 "events in the common model", f->path, buf->name);
			continue;
		}
		for (uint32_t c = 0; c < buf->n_cpus; c++) {
			struct tdm_stream *s = calloc(1, sizeof(*s));
			void *streams = ts->streams;
			size_t nl;
			if (!s)
				return tdm_nomem(err);
			if (!tmx_grow_array(&streams, cap, ts->n_streams + 1, sizeof(*ts->streams), 8)) {
				free(s);
				return tdm_nomem(err);
			}
			ts->streams = streams;
			ts->streams[ts->n_streams++] = s;
			s->iter.next = tdm_stream_next;
			s->iter.destroy = tdm_stream_keep;
			s->file = tf;
			s->buffer = (uint32_t)b;
			s->stream.id = (uint64_t)b << 32 | c;
			s->stream.cls = &tf->sc;
			s->stream.trace = &tf->trace;
			nl = strlen(f->path) + strlen(buf->name) + 32;
			if (!(s->stream.name = malloc(nl)))
				return tdm_nomem(err);
			if (*buf->name)
				snprintf(s->stream.name, nl, "%s/%s/cpu%u", f->path, buf->name, buf->cpus[c].cpu);
			else
				snprintf(s->stream.name, nl, "%s/cpu%u", f->path, buf->cpus[c].cpu);
			s->packet.stream = &s->stream;
			s->packet.context = s->pctx;
			s->packet.offset = buf->cpus[c].offset;
			s->pctx[0].fc = tf->pctx_fc;
			s->pctx[0].n_members = 1;
			s->pctx[1].fc = tf->pctx_fc->members[0].fc;
			s->pctx[1].u = buf->cpus[c].cpu;
			if ((ret = tdat_cursor_open(f, b, c, &s->cur, err)))
				return ret;
			uint64_t first, last;
			if (tdat_cpu_time_range(f, b, c, &first, &last)) {
				uint64_t b0 = tdat_convert_ts_cpu(f, first, buf->cpus[c].cpu);
				uint64_t e0 = tdat_convert_ts_cpu(f, last, buf->cpus[c].cpu);
				s->has_range = b0 <= (uint64_t)INT64_MAX && e0 <= (uint64_t)INT64_MAX;
				s->range_begin = (int64_t)b0;
				s->range_end = (int64_t)e0;
			}
		}
	}
	return TMX_OK;
}

int tdat_reader_open(const char *const *paths, size_t n_paths,
		     const struct tmx_tracedat_opts *in, const struct tmx_diag *diag,
		     void **out, struct tmx_error *err)
{
	struct tmx_tracedat_opts opts;
	struct tdm_source *ts = calloc(1, sizeof(*ts));
	struct tdat_open_opts fo = { 0 };
	size_t cap = 0;
	int ret = TMX_OK;

	*out = NULL;
	if ((ret = tmx_opts_copy(&opts, sizeof(opts), in, "tmx_tracedat_opts", err))) {
		free(ts);
		return ret;
	}
	if (!ts)
		return tdm_nomem(err);
	fo.lenient = opts.lenient;
	fo.diag = diag;
	fo.skip_texts = true;
	ts->files = calloc(n_paths ? n_paths : 1, sizeof(*ts->files));
	if (!ts->files) {
		free(ts);
		return tdm_nomem(err);
	}
	for (size_t i = 0; i < n_paths && !ret; i++) {
		struct tdm_file *tf = calloc(1, sizeof(*tf));
		if (!tf) {
			ret = tdm_nomem(err);
			break;
		}
		ts->files[ts->n_files++] = tf;
		tmx_arena_init(&tf->arena);
		tf->index = i;
		tf->diag = diag;
		tf->lenient = fo.lenient;
		if ((ret = tdat_file_open(paths[i], &fo, &tf->f, err)))
			break;
		if ((ret = tdm_build_file(tf, err)))
			break;
		ret = add_streams(ts, tf, &cap, err);
	}
	if (ret) {
		src_free(ts);
		return ret;
	}
	*out = ts;
	return TMX_OK;
}

size_t tdat_reader_file_count(const void *impl)
{
	const struct tdm_source *ts = impl;
	return ts ? ts->n_files : 0;
}

const struct tdat_file *tdat_reader_file(const void *impl, size_t i)
{
	const struct tdm_source *ts = impl;
	return ts && i < ts->n_files ? ts->files[i]->f : NULL;
}

const struct tdat_record *tdat_record_of(const struct tmx_msg *msg)
{
	const struct tdm_stream *s;

	/* Every stream of a trace.dat trace is one of this reader's. */
	if (!msg || !msg->stream || !msg->stream->trace || !msg->stream->trace->cls ||
	    msg->stream->trace->cls->format != TMX_FORMAT_TRACEDAT)
		return NULL;
	s = (const struct tdm_stream *)((const char *)msg->stream - offsetof(struct tdm_stream, stream));
	if (msg->kind == TMX_MSG_EVENT)
		return &s->rec;
	if (msg->kind == TMX_MSG_DISCARDED_EVENTS)
		return &s->disc;
	return NULL;
}
