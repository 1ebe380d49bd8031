/*
 * The source layer: src/source/source.c turns one or more readers (each a
 * `struct tmx_source_ops` over its own state, model/reader.h) into the
 * public `struct tmx_source`, merging each reader's per-stream iterators
 * with the muxer and several readers by time; src/source/open.c picks the
 * reader of each input.  It sits above the readers and the muxer.
 */
#ifndef TMX_SOURCE_H
#define TMX_SOURCE_H

#include "model/reader.h"
#include "tracemux/tracemux.h"

/*
 * Wraps one reader into a source: a reader with stream_iters has its
 * streams merged by a muxer, which pulls each stream's first message now
 * (so errors there are the open's).  On failure, `impl` has been freed
 * with ops->free.
 */
int tmx_source_new(const struct tmx_source_ops *ops, void *impl, struct tmx_source **out,
		   struct tmx_error *err);

/*
 * One source of all the readers of `srcs` (which it takes: they are freed
 * even on failure), merging their messages by time.
 */
int tmx_source_merge(struct tmx_source **srcs, size_t n, struct tmx_source **out,
		     struct tmx_error *err);

/*
 * The filter bound to the source's classes (tmx_source_set_filter), or
 * NULL: tmx_filter_match(tmx_source_filter(src), msg) (mux/filter.h) is
 * what tmx_source_next() asks of every message.
 */
struct tmx_filter_bound;
const struct tmx_filter_bound *tmx_source_filter(const struct tmx_source *src);

/*
 * The consumer reads no field of any event (the dummy sink): readers that
 * can (skip_fields) stop decoding them.  Nothing changes when the
 * source's filter reads fields.  Call after tmx_source_set_filter.
 */
void tmx_source_skip_fields(struct tmx_source *src);

/*
 * The consumer reads no field of the events of the classes for which
 * reads(ctx, class) is false (tmx_analyze: the classes its state ignores):
 * readers that can stop decoding them, those events then having no
 * scopes but the packet context.  Nothing changes when the source's filter
 * reads fields.  ctx outlives the source's reading.
 */
void tmx_source_skip_fields_of(struct tmx_source *src,
			       bool (*reads)(const void *ctx, const struct tmx_event_class *ec),
			       const void *ctx);

/*
 * The muxer whose messages are exactly the source's (no filter of the
 * source's own between them), or NULL: the sequential loop (src/par/run.c)
 * pulls from it directly, one call per message instead of three.
 */
struct tmx_muxer *tmx_source_muxer(const struct tmx_source *src);

/*
 * The source's streams taken over for the parallel runner: every iterator
 * still going (each reader's per-stream iterators, or the reader itself
 * when it has no stream_iters), with the message it holds and its muxer
 * key, in the order in which the source's muxers break ties (by reader,
 * then by stream).  Sets *heads (malloc'ed, `index` renumbered 0..n-1) and
 * *n; the source gives no message afterwards and still frees everything.
 * TMX_ERR_USAGE, leaving the source as it was, once a message was pulled.
 */
struct tmx_mux_head;
int tmx_source_take_streams(struct tmx_source *src, struct tmx_mux_head **heads, size_t *n,
			    struct tmx_error *err);

/*
 * Every reader's bytes_read summed (see tmx_source_ops): the input's bytes
 * consumed so far, for tmx_run's progress calls and the progress meter.
 */
uint64_t tmx_source_bytes_read(const struct tmx_source *src);

/*
 * A stream taken over (tmx_source_take_streams) as segments: the reader's
 * stream_cost and split_stream (see struct tmx_source_ops) for whichever
 * reader `it` belongs to; 0 and TMX_ERR_USAGE when none has them for it.
 */
uint64_t tmx_source_stream_cost(const struct tmx_source *src, const struct tmx_msg_iter *it);
int tmx_source_split_stream(struct tmx_source *src, struct tmx_msg_iter *it, uint64_t seg_bytes,
			    struct tmx_msg_iter ***segs, size_t *n, struct tmx_error *err);

/* The reader behind a source of that format, or NULL (for format-specific outputs). */
void *tmx_source_impl(const struct tmx_source *src, const struct tmx_source_ops *ops);

/*
 * Format-specific questions about a source (src/source/open.c), its
 * reader's answers:
 *
 * the trace.dat files behind a source (0 when it has no trace.dat reader;
 * tracecmd/tracedat.h);
 */
struct tdat_file;
size_t tdat_source_file_count(const struct tmx_source *src);
const struct tdat_file *tdat_source_file(const struct tmx_source *src, size_t i);
/*
 * the file header of an XRay source (of its first XRay file when it
 * merges several), or NULL when `src` holds no XRay reader (xray/xray.h).
 */
struct tmx_xray_header;
const struct tmx_xray_header *tmx_xray_source_header(const struct tmx_source *src);

#endif
