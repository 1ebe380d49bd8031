/*
 * `-o parquet -w DIR`: a Parquet dataset that SQL engines and dataframes
 * read directly.  One table per event class, Hive-style:
 *
 *   DIR/event=NAME/part-N.parquet     NAME percent-encoded (bytes other
 *                                     than A-Z a-z 0-9 - _ . as %XX);
 *                                     __HIVE_DEFAULT_PARTITION__ without one
 *   DIR/_streams.parquet, DIR/_traces.parquet, DIR/_discarded/  (meta.h)
 *
 * With `partition`, the parts of a class are further split by trace, as
 * DIR/event=NAME/host=HOST/trace=TRACE/part-N.parquet (either level alone
 * too): one dataset for a fleet of traces, queried with Hive partitioning.
 * The partition keys are columns of the files too (event, host, trace):
 * DuckDB's read_parquet of every `.parquet` file under DIR (a recursive
 * glob, union_by_name = true) also reads the meta tables, which have no
 * Hive keys, so DuckDB reads that glob
 * without Hive partitioning and needs them in the files.  Readers that do
 * use the paths take the overlapping columns' values from them (Spark since
 * 2.3, SPARK-22356; not tried here); Apache DataFusion refused such
 * overlaps (its issue 17420).
 *
 * Columns of an event table, of one type whatever the input's format: ts
 * (BIGINT, ns from the clock's origin, null without a clock; not a
 * TIMESTAMP: see parquet_sink.c), cycles, event, host, trace, stream_id,
 * stream_class_id, cpu (tmx_event_cpu, null where the format does not know
 * it), then the fields of the packet context, the common context, the specific context and the
 * payload (fmap.h), each by its name, or `SCOPE.NAME` when an earlier
 * column has that name.  Classes of one name with the same columns share
 * a table; a class of the same name with other columns writes other parts
 * in the same directory.
 *
 * Rows are buffered per table (as records, record.h, on the parallel
 * path; sequentially in the table's columns, counted as their records
 * would be) and written as row groups of at most `row_group_rows` rows or
 * 32 MiB of records; when all the tables together buffer more than 8 MiB
 * of them, the largest one is written.  Parts hold at most `part_row_groups` row groups or 1 GiB.
 * Column chunks are zstd-compressed.  With the parallel runner, workers
 * make the records and encode full row groups (groupq.h); the files are
 * the same whatever the number of jobs.
 */
#ifndef TMX_SINK_PARQUET_PARQUET_H
#define TMX_SINK_PARQUET_PARQUET_H

#include <stdbool.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

struct tmx_source;
struct tmx_parquet;

/* Hive partitions under event=NAME, in this order. */
enum {
	TMX_PARQUET_BY_HOST = 1,     /* host=HOSTNAME (the trace environment's `hostname`) */
	TMX_PARQUET_BY_TRACE = 2,    /* trace=NAME; the `trace` column is then left out */
};

struct tmx_parquet_opts {
	const char *dir;
	uint64_t row_group_rows;     /* 0: 65536 */
	uint64_t part_row_groups;    /* 0: 128 */
	unsigned partition;          /* TMX_PARQUET_BY_* */
};

int tmx_parquet_new(const struct tmx_parquet_opts *opts, const struct tmx_source *src,
		    struct tmx_parquet **out, struct tmx_error *err);
int tmx_parquet_consume(struct tmx_parquet *p, const struct tmx_msg *msg, struct tmx_error *err);
/* The split for the parallel runner (src/sink/split.h): workers make rows' records. */
struct pq_fmt;
struct outbuf;
struct sink_piece;
struct sink_side;
struct pq_fmt *tmx_parquet_worker_new(const struct tmx_parquet *p);
void tmx_parquet_worker_free(struct pq_fmt *w);
struct outbuf *tmx_parquet_worker_outbuf(struct pq_fmt *w);
void tmx_parquet_format(struct pq_fmt *w, const struct tmx_msg *msg, uint64_t hole[2]);
/* A batch starts: what the worker knows of packets forgotten (format.c). */
void tmx_parquet_batch(struct pq_fmt *w);
int tmx_parquet_emit(struct tmx_parquet *p, const struct sink_piece *pc, struct tmx_error *err);
/* Side work: full row groups encoded on the runner's threads. */
void tmx_parquet_side_start(struct tmx_parquet *p, const struct sink_side *side);
bool tmx_parquet_side_run(struct tmx_parquet *p);
int tmx_parquet_side_end(struct tmx_parquet *p, int status, struct tmx_error *err);
/* Writes what is buffered, every footer, _streams and _traces. */
int tmx_parquet_finish(struct tmx_parquet *p, struct tmx_error *err);
void tmx_parquet_free(struct tmx_parquet *p);

#endif
