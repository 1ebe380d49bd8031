/*
 * Row groups of the event tables between the moment they are full and
 * the moment they are written.  A full group leaves its table (which
 * starts an empty one) and joins one queue, in the order in which groups
 * fill up, the same with any number of threads; its columns are encoded
 * (statistics, levels, dictionaries, zstd: most of the output's work) by
 * whichever thread takes it, and the thread that owns the files writes
 * the encoded groups in queue order.  Parts are opened, numbered and
 * closed at that point, so the files are the same as when each group is
 * encoded and written at once (what the queue does without threads).
 *
 * Threads: the parallel runner's (src/par/, through the split's side
 * work, src/sink/split.h) call pq_groupq_run(); everything else is the
 * owning thread's.  Memory: at most `max_groups` groups and
 * PQ_GROUPQ_BYTES of buffered columns wait or are being encoded (at least
 * one group); beyond it, the owning thread encodes or waits.
 */
#ifndef TMX_SINK_PARQUET_GROUPQ_H
#define TMX_SINK_PARQUET_GROUPQ_H

#include <stdbool.h>
#include <stddef.h>

#include "tracemux/error.h"
#include "sink/parquet/table.h"

/*
 * 16 MiB held the merge back on trace.dat (its groups of 8 MiB and more:
 * --jobs 2 no faster than 1); 64 MiB lets two wait, at no more peak memory.
 */
#define PQ_GROUPQ_BYTES (64u << 20)

struct pq_groupq;

/* A queue that encodes and writes each group when it is submitted (no threads yet). */
struct pq_groupq *pq_groupq_new(int zstd_level);
/* Frees the groups not written (their rows are lost) and the encoders. */
void pq_groupq_free(struct pq_groupq *q);

/*
 * From now on, groups wait for other threads: wake(ctx) is called when
 * one is queued; at most `max_groups` wait.  pq_groupq_sync() goes back.
 */
void pq_groupq_async(struct pq_groupq *q, void (*wake)(void *ctx), void *ctx, size_t max_groups);
/* Back to encoding on submission, after every queued group is written. */
int pq_groupq_sync(struct pq_groupq *q, struct tmx_error *err);

/* Whether groups wait for other threads (owning thread). */
bool pq_groupq_is_async(const struct pq_groupq *q);

/*
 * The columns of `t`'s group, its rows in them and their counts set
 * (pq_table_flush), become a queued group; the table starts without
 * columns.  Returns the error of a group
 * written meanwhile (of any table), if any.
 */
int pq_groupq_submit(struct pq_groupq *q, struct pq_table *t, struct tmx_error *err);
/*
 * Columns of an encoded group, emptied with their buffers kept, for
 * table t's next group (t's own first, pq_colsets_take; *cols and *n left
 * alone when none is kept), and t's columns given back (any thread).
 */
void pq_groupq_take_cols(struct pq_groupq *q, const struct pq_table *t, struct pq_col **cols,
			 size_t *n);
void pq_groupq_give_cols(struct pq_groupq *q, const struct pq_table *t, struct pq_col *cols,
			 size_t n);

/* Any thread: encodes one queued group; false when none waits. */
bool pq_groupq_run(struct pq_groupq *q);
/* Encodes (helping the other threads) and writes every queued group. */
int pq_groupq_drain(struct pq_groupq *q, struct tmx_error *err);

#endif
