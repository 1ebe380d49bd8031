/*
 * The dataset's tables about the trace rather than its events:
 *
 *   DIR/_streams.parquet   one row per stream: trace, stream_id,
 *                          stream_class_id, name, events (written), packets,
 *                          bytes, begin_ns/end_ns (from the index), and its
 *                          default clock: clock, clock_frequency,
 *                          clock_offset_s, clock_offset_cycles,
 *                          clock_precision, clock_origin_unix_epoch,
 *                          clock_uuid, clock_description
 *   DIR/_traces.parquet    one row per trace: name, format (ctf, tracedat,
 *                          xray), version_major, version_minor, uuid, host
 *                          (as the events' `host`), env, a LIST of {name,
 *                          int_value, str_value}, and clocks, a LIST of
 *                          {name, description, frequency, offset_s,
 *                          offset_cycles, precision, origin_unix_epoch,
 *                          origin}: the origin of the events' `ts`
 *                          (origin: "unix-epoch", a CTF 2 custom origin
 *                          as "NAMESPACE/NAME/UID", null when unknown)
 *   DIR/_discarded/part-N.parquet
 *                          one row per discarded-events/packets message:
 *                          kind (events, packets), trace, stream_id,
 *                          stream_class_id, count (0: unknown), begin_ns,
 *                          end_ns, begin_cycles, end_cycles (null when the
 *                          range is unknown)
 *
 * Their names start with `_`, so that engines reading DIR as a dataset of
 * events (Spark, Hive) leave them out.
 */
#ifndef TMX_SINK_PARQUET_META_H
#define TMX_SINK_PARQUET_META_H

#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"
#include "sink/parquet/fmap.h"
#include "sink/parquet/table.h"

struct tmx_source;

/* What the meta tables share with the event tables. */
struct pq_meta_ctx {
	const char *dir;
	const struct pq_limits *lim;
	struct pq_encoder *enc;
	struct tmx_buf *scratch;
};

/* A trace's host: its environment's `hostname` text, NULL when it has none. */
const char *pq_trace_host(const struct tmx_trace_class *tc);

/* Events written per stream, for _streams.parquet. */
typedef uint64_t (*pq_stream_events_fn)(void *user, const struct tmx_stream *stream);

int pq_write_streams(const struct pq_meta_ctx *ctx, const struct tmx_source *src,
		     pq_stream_events_fn events, void *user, struct tmx_error *err);
int pq_write_traces(const struct pq_meta_ctx *ctx, const struct tmx_source *src,
		    struct tmx_error *err);

/* _discarded: made with its first row. */
struct pq_discarded {
	struct pq_table t;
	bool made;
	unsigned next_part;
};

int pq_discarded_add(struct pq_discarded *d, const struct pq_meta_ctx *ctx,
		     const struct tmx_msg *msg, struct tmx_error *err);
int pq_discarded_close(struct pq_discarded *d, const struct pq_meta_ctx *ctx,
		       struct tmx_error *err);
void pq_discarded_free(struct pq_discarded *d);

#endif
