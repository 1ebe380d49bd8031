/*
 * The public source: one or more readers behind their operations.  The
 * per-stream iterators of a reader (stream_iters) are merged by a muxer of
 * the reader's; with several readers (inputs of different formats on one
 * command line) each becomes an iterator of the source's muxer, so their
 * streams merge by time just as the streams of one reader do.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/errors.h"
#include "model/msg_iter.h"
#include "common/ptr_index.h"
#include "source/source.h"
#include "mux/filter.h"
#include "mux/muxer.h"

struct reader {
	struct tmx_msg_iter iter;   /* first: the muxer hands it back */
	const struct tmx_source_ops *ops;
	void *impl;
	struct tmx_muxer *mux;      /* over its stream_iters, or NULL: ops->next */
};

struct tmx_source {
	struct reader *readers;
	size_t n_readers;
	struct tmx_muxer *mux;      /* only with several readers */
	/* Dense numbers, made at the first question about them. */
	struct ptr_index classes, streams;
	bool classes_made, streams_made;
	struct tmx_filter_bound *filter;   /* NULL: every event */
	bool readers_filter;               /* every reader applies it itself */
	struct tmx_reader_filter reader_filter;   /* what the readers are given */
};

static int reader_next(struct tmx_msg_iter *it, const struct tmx_msg **msg,
		       struct tmx_error *err)
{
	struct reader *r = (struct reader *)it;

	return r->mux ? tmx_muxer_next(r->mux, msg, err) : r->ops->next(r->impl, msg, err);
}

/* The source frees its readers itself, after the muxers. */
static void reader_keep(struct tmx_msg_iter *it)
{
	(void)it;
}

/*
 * The muxer over the reader's per-stream iterators, which stay the
 * reader's (their destroy does nothing): it pulls each one's first message.
 */
static int reader_muxer(struct reader *r, struct tmx_error *err)
{
	size_t n = r->ops->stream_count(r->impl);
	struct tmx_msg_iter **iters = malloc((n ? n : 1) * sizeof(*iters));
	int ret;

	if (!iters)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	r->ops->stream_iters(r->impl, iters);
	ret = tmx_muxer_new(iters, n, &r->mux, err);
	free(iters);
	return ret;
}

int tmx_source_new(const struct tmx_source_ops *ops, void *impl, struct tmx_source **out,
		   struct tmx_error *err)
{
	struct tmx_source *src = calloc(1, sizeof(*src));
	int ret;

	*out = NULL;
	if (src)
		src->readers = calloc(1, sizeof(*src->readers));
	if (!src || !src->readers) {
		free(src);
		ops->free(impl);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	src->readers[0] = (struct reader){ { reader_next, reader_keep }, ops, impl, NULL };
	src->n_readers = 1;
	if (ops->stream_iters && (ret = reader_muxer(&src->readers[0], err))) {
		tmx_source_free(src);
		return ret;
	}
	*out = src;
	return TMX_OK;
}

int tmx_source_merge(struct tmx_source **srcs, size_t n, struct tmx_source **out,
		     struct tmx_error *err)
{
	struct tmx_source *m = calloc(1, sizeof(*m));
	struct tmx_msg_iter **iters = NULL;
	size_t total = 0;
	int ret;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		total += srcs[i]->n_readers;
	if (m)
		m->readers = calloc(total ? total : 1, sizeof(*m->readers));
	if (m && m->readers)
		iters = malloc((total ? total : 1) * sizeof(*iters));
	if (!iters) {
		if (m)
			free(m->readers);
		free(m);
		for (size_t i = 0; i < n; i++)
			tmx_source_free(srcs[i]);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < srcs[i]->n_readers; j++)
			m->readers[m->n_readers++] = srcs[i]->readers[j];
		tmx_muxer_free(srcs[i]->mux);
		free(srcs[i]->readers);
		free(srcs[i]);
	}
	for (size_t i = 0; i < m->n_readers; i++)
		iters[i] = &m->readers[i].iter;
	ret = m->n_readers > 1 ? tmx_muxer_new(iters, m->n_readers, &m->mux, err) : TMX_OK;
	free(iters);
	if (ret) {
		tmx_source_free(m);
		return ret;
	}
	*out = m;
	return TMX_OK;
}

void *tmx_source_impl(const struct tmx_source *src, const struct tmx_source_ops *ops)
{
	for (size_t i = 0; i < src->n_readers; i++)
		if (src->readers[i].ops == ops)
			return src->readers[i].impl;
	return NULL;
}

static const struct ptr_index *class_index(struct tmx_source *src);

static int next_message(struct tmx_source *src, const struct tmx_msg **msg, struct tmx_error *err)
{
	if (src->mux)
		return tmx_muxer_next(src->mux, msg, err);
	if (src->n_readers == 0) {
		*msg = NULL;
		return TMX_OK;
	}
	return reader_next(&src->readers[0].iter, msg, err);
}

int tmx_source_next(struct tmx_source *src, const struct tmx_msg **msg, struct tmx_error *err)
{
	int ret;

	while (!(ret = next_message(src, msg, err)) && *msg && src->filter && !src->readers_filter &&
	       !tmx_filter_match(src->filter, *msg))
		;
	return ret;
}

static bool keep_message(const void *ctx, const struct tmx_msg *msg)
{
	return tmx_filter_match(ctx, msg);
}

static bool class_wanted(const void *ctx, const struct tmx_event_class *ec)
{
	const struct tmx_filter_bound *b = ctx;

	return tmx_filter_class_wanted(b, tmx_filter_class_number(b, ec));
}

int tmx_source_set_filter(struct tmx_source *src, const struct tmx_filter *f,
			  struct tmx_error *err)
{
	struct tmx_filter_bound *b = NULL;
	int ret;

	if (f) {
		class_index(src);
		if (!src->classes_made)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		if ((ret = tmx_filter_bind(f, class_index(src), &b, err)))
			return ret;
	}
	/*
	 * Readers drop what does not pass per stream, and their muxers as
	 * each stream gives it, before ordering it; the source does it for
	 * those that cannot.
	 */
	src->readers_filter = true;
	src->reader_filter = (struct tmx_reader_filter){ keep_message, class_wanted, b };
	for (size_t r = 0; r < src->n_readers; r++) {
		struct reader *rd = &src->readers[r];

		if (rd->ops->set_filter)
			rd->ops->set_filter(rd->impl, b ? &src->reader_filter : NULL);
		if (rd->mux)
			tmx_muxer_set_filter(rd->mux, b ? keep_message : NULL, b);
		if (!rd->ops->set_filter && !rd->mux)
			src->readers_filter = false;
	}
	tmx_filter_bound_free(src->filter);
	src->filter = b;
	return TMX_OK;
}

const struct tmx_filter_bound *tmx_source_filter(const struct tmx_source *src)
{
	return src->filter;
}

void tmx_source_skip_fields(struct tmx_source *src)
{
	if (src->filter && tmx_filter_reads_fields(src->filter))
		return;
	for (size_t r = 0; r < src->n_readers; r++)
		if (src->readers[r].ops->skip_fields)
			src->readers[r].ops->skip_fields(src->readers[r].impl);
}

void tmx_source_skip_fields_of(struct tmx_source *src,
			       bool (*reads)(const void *ctx, const struct tmx_event_class *ec),
			       const void *ctx)
{
	if (src->filter && tmx_filter_reads_fields(src->filter))
		return;
	for (size_t r = 0; r < src->n_readers; r++)
		if (src->readers[r].ops->skip_fields_of)
			src->readers[r].ops->skip_fields_of(src->readers[r].impl, reads, ctx);
}

bool tmx_source_event_class_selected(struct tmx_source *src, size_t i)
{
	if (i >= class_index(src)->n)
		return false;
	return !src->filter || tmx_filter_class_wanted(src->filter, i);
}

struct tmx_muxer *tmx_source_muxer(const struct tmx_source *src)
{
	if (src->filter && !src->readers_filter)
		return NULL;
	if (src->mux)
		return src->mux;
	return src->n_readers == 1 ? src->readers[0].mux : NULL;
}

/*
 * Whether messages were pulled already.  With several readers, their own
 * muxers have returned one message each (held by the source's muxer).
 */
static bool started(const struct tmx_source *src)
{
	if (src->mux)
		return tmx_muxer_returned(src->mux);
	if (src->n_readers == 1 && src->readers[0].mux)
		return tmx_muxer_returned(src->readers[0].mux);
	return false;
}

static size_t take_capacity(const struct tmx_source *src)
{
	size_t n = 0;

	for (size_t r = 0; r < src->n_readers; r++) {
		struct tmx_muxer *m = src->readers[r].mux;
		n += m ? tmx_muxer_input_count(m) : 1;
	}
	return n;
}

int tmx_source_take_streams(struct tmx_source *src, struct tmx_mux_head **heads, size_t *n,
			    struct tmx_error *err)
{
	struct tmx_mux_head *out, *outer = NULL;
	size_t n_outer = 0, k = 0;

	*heads = NULL;
	*n = 0;
	if (started(src))
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "the source's streams cannot be taken over once read");
	out = malloc((take_capacity(src) + 1) * sizeof(*out));
	if (src->mux && out)
		outer = malloc((src->n_readers + 1) * sizeof(*outer));
	if (!out || (src->mux && !outer)) {
		free(out);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	/* The source's muxer holds each reader's first message (or none when it ended). */
	if (src->mux)
		n_outer = tmx_muxer_take(src->mux, outer);
	for (size_t r = 0, o = 0; r < src->n_readers; r++) {
		struct tmx_muxer *m = src->readers[r].mux;

		if (m) {
			k += tmx_muxer_take(m, out + k);
			continue;
		}
		while (o < n_outer && outer[o].index < r)
			o++;
		if (!src->mux)   /* one reader, nothing pulled yet */
			out[k++] = (struct tmx_mux_head){ &src->readers[r].iter, NULL, INT64_MIN, 0 };
		else if (o < n_outer && outer[o].index == r)
			out[k++] = outer[o];
	}
	for (size_t i = 0; i < k; i++)
		out[i].index = i;
	free(outer);
	*heads = out;
	*n = k;
	return TMX_OK;
}

uint64_t tmx_source_stream_cost(const struct tmx_source *src, const struct tmx_msg_iter *it)
{
	for (size_t r = 0; r < src->n_readers; r++) {
		const struct reader *rd = &src->readers[r];
		uint64_t cost = rd->ops->stream_cost ? rd->ops->stream_cost(rd->impl, it) : 0;

		if (cost)
			return cost;
	}
	return 0;
}

int tmx_source_split_stream(struct tmx_source *src, struct tmx_msg_iter *it, uint64_t seg_bytes,
			    struct tmx_msg_iter ***segs, size_t *n, struct tmx_error *err)
{
	for (size_t r = 0; r < src->n_readers; r++) {
		struct reader *rd = &src->readers[r];

		if (rd->ops->split_stream && rd->ops->stream_cost && rd->ops->stream_cost(rd->impl, it))
			return rd->ops->split_stream(rd->impl, it, seg_bytes, segs, n, err);
	}
	return tmx_error_set(err, TMX_ERR_USAGE, NULL, "this stream cannot be read in segments");
}

/* Finds the reader of the i-th item when each reader counts its own. */
static const struct reader *locate(const struct tmx_source *src,
				   size_t (*count_of)(const struct reader *), size_t *i)
{
	for (size_t r = 0; r < src->n_readers; r++) {
		size_t n = count_of(&src->readers[r]);
		if (*i < n)
			return &src->readers[r];
		*i -= n;
	}
	return NULL;
}

static size_t count_total(const struct tmx_source *src, size_t (*count_of)(const struct reader *))
{
	size_t n = 0;

	for (size_t r = 0; r < src->n_readers; r++)
		n += count_of(&src->readers[r]);
	return n;
}

static size_t streams_of(const struct reader *r)
{
	return r->ops->stream_count(r->impl);
}

static size_t logical_traces_of(const struct reader *r)
{
	return r->ops->logical_trace_count(r->impl);
}

static size_t traces_of(const struct reader *r)
{
	return r->ops->trace_count ? r->ops->trace_count(r->impl) : 0;
}

size_t tmx_source_stream_count(const struct tmx_source *src)
{
	return count_total(src, streams_of);
}

void tmx_source_stream_info(const struct tmx_source *src, size_t i, struct tmx_stream_info *info)
{
	const struct reader *r = locate(src, streams_of, &i);

	r->ops->stream_info(r->impl, i, info);
}

size_t tmx_source_logical_trace_count(const struct tmx_source *src)
{
	return count_total(src, logical_traces_of);
}

const struct tmx_trace *tmx_source_logical_trace(const struct tmx_source *src, size_t i)
{
	const struct reader *r = locate(src, logical_traces_of, &i);

	return r ? r->ops->logical_trace(r->impl, i) : NULL;
}

size_t tmx_source_trace_count(const struct tmx_source *src)
{
	return count_total(src, traces_of);
}

const char *tmx_source_trace_metadata(const struct tmx_source *src, size_t i)
{
	const struct reader *r = locate(src, traces_of, &i);

	return r ? r->ops->trace_metadata(r->impl, i) : NULL;
}

bool tmx_source_trace_packetized(const struct tmx_source *src, size_t i)
{
	const struct reader *r = locate(src, traces_of, &i);

	return r && r->ops->trace_packetized && r->ops->trace_packetized(r->impl, i);
}

int tmx_source_first_ns(const struct tmx_source *src, int64_t *ns)
{
	bool found = false;

	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;
		tmx_source_stream_info(src, i, &info);
		if (info.has_range && (!found || info.begin_ns < *ns)) {
			*ns = info.begin_ns;
			found = true;
		}
	}
	return found ? TMX_OK : TMX_ERR_DATA;
}

int tmx_source_stream_intersection(const struct tmx_source *src, const struct tmx_trace *trace,
				   int64_t *begin, int64_t *end, struct tmx_error *err)
{
	size_t n = 0;

	*begin = INT64_MIN;
	*end = INT64_MAX;
	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;
		tmx_source_stream_info(src, i, &info);
		if (info.stream->trace != trace)
			continue;
		n++;
		if (!info.has_range)
			return tmx_error_set(err, TMX_ERR_DATA, info.stream->name,
					     "stream has no packet beginning/end times: cannot "
					     "compute the stream intersection");
		if (info.begin_ns > *begin)
			*begin = info.begin_ns;
		if (info.end_ns < *end)
			*end = info.end_ns;
	}
	if (n == 0)
		return tmx_error_set(err, TMX_ERR_DATA, NULL, "Trace has no streams");
	if (*begin > *end)
		return tmx_error_set(err, TMX_ERR_DATA, NULL,
				     "Trimming time range's beginning time is greater than end time: "
				     "the streams of trace \"%s\" have no time in common (begin %lld "
				     "ns, end %lld ns from origin)", trace->name, (long long)*begin,
				     (long long)*end);
	return TMX_OK;
}

void tmx_source_skip_before(struct tmx_source *src, int64_t ns)
{
	for (size_t r = 0; r < src->n_readers; r++)
		if (src->readers[r].ops->skip_before)
			src->readers[r].ops->skip_before(src->readers[r].impl, ns);
}

void tmx_source_skipped(const struct tmx_source *src, uint64_t *units, uint64_t *bytes)
{
	*units = *bytes = 0;
	for (size_t r = 0; r < src->n_readers; r++) {
		uint64_t u = 0, b = 0;
		if (src->readers[r].ops->skipped)
			src->readers[r].ops->skipped(src->readers[r].impl, &u, &b);
		*units += u;
		*bytes += b;
	}
}

uint64_t tmx_source_bytes_read(const struct tmx_source *src)
{
	uint64_t sum = 0;

	for (size_t r = 0; r < src->n_readers; r++)
		if (src->readers[r].ops->bytes_read)
			sum += src->readers[r].ops->bytes_read(src->readers[r].impl);
	return sum;
}

void tmx_source_free(struct tmx_source *src)
{
	if (!src)
		return;
	tmx_muxer_free(src->mux);
	for (size_t r = 0; r < src->n_readers; r++) {
		tmx_muxer_free(src->readers[r].mux);
		src->readers[r].ops->free(src->readers[r].impl);
	}
	free(src->readers);
	ptr_index_free(&src->classes);
	ptr_index_free(&src->streams);
	tmx_filter_bound_free(src->filter);
	free(src);
}

/*
 * Every event class of the stream classes that streams use, once, numbered
 * in stream order and then by class id (each stream class's order).
 */
static const struct ptr_index *class_index(struct tmx_source *src)
{
	const void **list;
	size_t n = 0, total = 0;

	if (src->classes_made)
		return &src->classes;
	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;

		tmx_source_stream_info(src, i, &info);
		total += info.stream->cls->n_event_classes;
	}
	if (!(list = malloc((total ? total : 1) * sizeof(*list))))
		return &src->classes;   /* empty: retried at the next question */
	for (size_t i = 0; i < tmx_source_stream_count(src); i++) {
		struct tmx_stream_info info;

		tmx_source_stream_info(src, i, &info);
		for (size_t e = 0; e < info.stream->cls->n_event_classes; e++)
			list[n++] = info.stream->cls->event_classes[e];
	}
	src->classes_made = ptr_index_build(&src->classes, list, n);
	free(list);
	return &src->classes;
}

size_t tmx_source_event_class_count(struct tmx_source *src)
{
	return class_index(src)->n;
}

const struct tmx_event_class *tmx_source_event_class(struct tmx_source *src, size_t i)
{
	const struct ptr_index *ix = class_index(src);

	return i < ix->n ? ix->dense[i] : NULL;
}

size_t tmx_source_event_class_index(struct tmx_source *src, const struct tmx_event_class *ec)
{
	return ptr_index_find(class_index(src), ec);
}

size_t tmx_source_stream_index(struct tmx_source *src, const struct tmx_stream *stream)
{
	if (!src->streams_made) {
		size_t n = tmx_source_stream_count(src);
		const void **list = malloc((n ? n : 1) * sizeof(*list));

		if (!list)
			return SIZE_MAX;
		for (size_t i = 0; i < n; i++) {
			struct tmx_stream_info info;

			tmx_source_stream_info(src, i, &info);
			list[i] = info.stream;
		}
		src->streams_made = ptr_index_build(&src->streams, list, n);
		free(list);
	}
	return ptr_index_find(&src->streams, stream);
}

enum tmx_trace_format tmx_source_format(const struct tmx_source *src)
{
	const struct tmx_trace *t = tmx_source_logical_trace_count(src)
					    ? tmx_source_logical_trace(src, 0)
					    : NULL;

	return t ? (enum tmx_trace_format)t->cls->format : TMX_FORMAT_CTF;
}
