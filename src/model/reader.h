/*
 * What a format reader is (CTF file system, trace.dat, XRay): operations
 * over its own state and, for the readers whose streams can be read apart,
 * per-stream message iterators (model/msg_iter.h).  The readers hand these
 * out and know nothing above them: the source layer (src/source/) makes
 * them a `struct tmx_source`, merging the streams with the muxer.
 */
#ifndef TMX_READER_H
#define TMX_READER_H

#include "model/msg_iter.h"
#include "tracemux/tracemux.h"

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
	/*
	 * Required but for next, which a reader with stream_iters leaves NULL
	 * (the source merges its streams).
	 */
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
	 * Readers without this have their events filtered by the source (and
	 * those with stream_iters by the muxer over their streams, after them).
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
	 * The reader's per-stream message iterators (NULL: the reader is one
	 * iterator, its next): writes stream_count() of them into `iters`, in
	 * stream_info's order (the muxer's input order, which the parallel
	 * runner's units keep: tmx_source_take_streams).  The
	 * source merges them by time (src/mux/muxer.c) and gives the result as
	 * the reader's messages; the parallel runner (src/par/) reads them on
	 * worker threads: reading one stream must then touch nothing another
	 * stream touches, except through atomics and tmx_warn (captured per
	 * thread).  They stay the reader's: their destroy does nothing, free
	 * frees them (after the source has freed its muxer over them).
	 */
	void (*stream_iters)(void *impl, struct tmx_msg_iter **iters);
	/*
	 * Optional, for the parallel runner (src/par/split.c): a long stream
	 * read as consecutive segments on several threads.  Both are asked of
	 * the iterators that stream_iters handed out (taken over by
	 * tmx_source_take_streams), before anything past the message each
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

#endif
