/*
 * A source as the format readers build it: each reader (CTF file system,
 * trace.dat, XRay) implements these operations over its own state, and
 * src/model/source.c turns one or more readers into the public
 * `struct tmx_source` (merging them by time when there are several).
 */
#ifndef TMX_SOURCE_H
#define TMX_SOURCE_H

#include "tracemux/tracemux.h"

struct tmx_msg_iter;

/* What a reader is told of a filter (see set_filter below). */
struct tmx_reader_filter {
	/* Whether a message passes (every message that is not an event does). */
	bool (*keep)(const void *ctx, const struct tmx_msg *msg);
	/* False when no event of the class can pass: the reader may skip decoding them. */
	bool (*wanted)(const void *ctx, const struct tmx_event_class *ec);
	const void *ctx;
};

struct tmx_source_ops {
	const char *format;   /* "ctf", "tracedat", "xray" */
	/* Required. */
	int (*next)(void *impl, const struct tmx_msg **msg, struct tmx_error *err);
	void (*free)(void *impl);
	size_t (*stream_count)(const void *impl);
	void (*stream_info)(const void *impl, size_t i, struct tmx_stream_info *info);
	size_t (*logical_trace_count)(const void *impl);
	const struct tmx_trace *(*logical_trace)(const void *impl, size_t i);
	/* Optional: NULL when the format has no such thing. */
	void (*skip_before)(void *impl, int64_t ns);
	void (*skipped)(const void *impl, uint64_t *units, uint64_t *bytes);
	/*
	 * The bytes of its streams' data (tmx_stream_info.bytes) consumed so
	 * far: packets, pages or chunks decoded (or passed over: trimmed,
	 * damaged and skipped), all of them once every stream has ended.
	 * Called on any thread while the streams are read (on workers too):
	 * the readers keep per-stream counters (common/progress_count.h)
	 * updated per packet or page, never per event.  NULL: 0 until the end.
	 */
	uint64_t (*bytes_read)(const void *impl);
	/* Per physical trace: its metadata text (CTF). */
	size_t (*trace_count)(const void *impl);
	const char *(*trace_metadata)(const void *impl, size_t i);
	bool (*trace_packetized)(const void *impl, size_t i);
	/*
	 * Filters (tmx_source_set_filter): from now on, drop the events that
	 * `f` does not keep (and nothing else) as early as the reader can, per
	 * stream; f NULL: drop nothing.  f outlives the reader's use of it.
	 * Readers without this have their events filtered by the source.
	 */
	void (*set_filter)(void *impl, const struct tmx_reader_filter *f);
	/*
	 * From now on no one reads the events' field values (tmx_source_skip_fields):
	 * the reader may step over an event's body without decoding it, with
	 * the same errors, the event then having no scopes (NULL).
	 */
	void (*skip_fields)(void *impl);
	/*
	 * The same for the events of the classes for which reads() is false
	 * (NULL: every class is read again); reads() is asked once per class
	 * and stream, from the reader's thread.
	 */
	void (*skip_fields_of)(void *impl,
			       bool (*reads)(const void *ctx, const struct tmx_event_class *ec),
			       const void *ctx);
	/*
	 * The muxer over the reader's per-stream iterators (NULL: none), for
	 * the parallel runner (src/par/), which reads the streams on worker
	 * threads: reading one stream must then touch nothing another stream
	 * touches, except through atomics and tmx_warn (captured per thread).
	 * A reader without it is read as one unit.  A reader with it gives
	 * that muxer's messages as its own (its next is tmx_muxer_next on it).
	 */
	struct tmx_muxer *(*stream_muxer)(void *impl);
	/*
	 * Optional, for the parallel runner (src/par/split.c): a long stream
	 * read as consecutive segments on several threads.  Both are asked of
	 * the iterators that stream_muxer's muxer handed over
	 * (tmx_source_take_streams), before anything past the message each
	 * holds was read.  stream_cost: the bytes that decoding the stream
	 * goes through (decompressed), 0 when `it` is not one of the reader's
	 * or cannot be cut.  split_stream: cuts `it` into segments of about
	 * `seg_bytes` each at places where decoding needs nothing of the data
	 * before (trace.dat: pages, compressed chunks), found from the data
	 * alone; sets *segs (malloc'ed) and *n.  segs[0] takes `it`'s place:
	 * it reads on from `it`, which now ends where the first segment does
	 * (the message `it` held stays valid).  Reading the segments one after the
	 * other gives the stream's messages (all naming `it`'s stream), its
	 * warnings (those said a number of times per stream with
	 * tmx_warn_limit) and its error; reading one touches nothing that
	 * another touches but atomics.  The reader owns the segments (their
	 * destroy() does nothing) and frees them with itself.
	 */
	uint64_t (*stream_cost)(const void *impl, const struct tmx_msg_iter *it);
	int (*split_stream)(void *impl, struct tmx_msg_iter *it, uint64_t seg_bytes,
			    struct tmx_msg_iter ***segs, size_t *n, struct tmx_error *err);
};

/*
 * Wraps one reader into a source.  On failure, `impl` has been freed with
 * ops->free.
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
 * when it has no stream_muxer), with the message it holds and its muxer
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

#endif
