/*
 * The parallel runner (tmx_run with more than one job): what the worker
 * threads (worker.c) and the merging main thread (merge.c) share.
 *
 * Units of work are the source's streams (tmx_source_take_streams).  A
 * worker takes a stream that has room in its queue, reads a batch of its
 * messages and formats them with its own formatter (src/sink/split.h) into
 * the batch; the main thread merges the batch heads of all streams by the
 * muxer's order (src/mux/order.h), replays warnings and errors where the
 * sequential muxer would have met them, and has the sink emit each piece.
 */
#ifndef TMX_PAR_H
#define TMX_PAR_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "tracemux/run.h"
#include "common/errors.h"
#include "model/msg_iter.h"
#include "mux/muxer.h"
#include "mux/order.h"
#include "sink/split.h"
#include "par/progress.h"

struct tmx_source;

enum par_kind {
	PE_MSG,     /* a message that reaches the sink */
	PE_SKIP,    /* a message the keep predicate dropped, just before a warning or an error */
	PE_STOP,    /* the message at which keep() said stop */
	PE_WARN,    /* a warning met while reading the next element */
	PE_ERROR,   /* the stream's error: always its last element */
};

/*
 * Written by a worker, read by the merge on another core: kept small (two
 * cache lines), the message's own fields copied only as far as its kind
 * has them (par_elem_msg() makes the message again).
 */
struct par_elem {
	struct tmx_mux_pos pos;          /* MSG, SKIP, STOP (pos.kind: the message's kind) */
	enum par_kind kind;
	bool has_ts, has_range;          /* MSG: the message's */
	uint32_t text_off, len;          /* MSG: its text in the batch */
	uint32_t hole[SINK_HOLES];       /* MSG: offsets in its text */
	uint64_t cycles;                 /* MSG: the message's */
	int64_t ns;
	union {
		struct {                 /* MSG of discarded items: the message's */
			uint64_t count;
			uint64_t begin_cycles, end_cycles;
			int64_t begin_ns, end_ns;
		} disc;
		struct {                 /* WARN */
			const struct tmx_diag *diag;
			const void *key;   /* tmx_warn_once's key, or NULL */
			unsigned limit;    /* tmx_warn_limit's limit for `key`, 0: once */
			char *warning;     /* malloc'ed text */
		} warn;
	} u;
};

/*
 * The message of a MSG element, its views (packet, event) NULL, made in
 * `m`, which holds zeros or the message of an earlier element: only the
 * fields that differ from message to message are written, so that every
 * field this does not name stays zero (also the ones a later version of
 * the public struct tmx_msg adds) without clearing the whole struct per
 * message.  *disc: `m` holds a discarded-items message's count and range
 * (cleared when the next message is not one).
 */
static inline void par_elem_msg(const struct par_elem *e, struct tmx_msg *m, bool *disc)
{
	m->kind = e->pos.kind;
	m->stream = e->pos.stream;
	m->has_ts = e->has_ts;
	m->cycles = e->cycles;
	m->ns = e->ns;
	if (m->kind == TMX_MSG_DISCARDED_EVENTS || m->kind == TMX_MSG_DISCARDED_PACKETS) {
		m->count = e->u.disc.count;
		m->has_range = e->has_range;
		m->begin_cycles = e->u.disc.begin_cycles;
		m->end_cycles = e->u.disc.end_cycles;
		m->begin_ns = e->u.disc.begin_ns;
		m->end_ns = e->u.disc.end_ns;
		*disc = true;
	} else if (*disc) {
		m->count = 0;
		m->has_range = false;
		m->begin_cycles = m->end_cycles = 0;
		m->begin_ns = m->end_ns = 0;
		*disc = false;
	}
}

struct par_batch {
	struct par_batch *next;
	struct par_elem *elems;
	size_t n, cap;
	char *text;                      /* the pieces' bytes, one after the other */
	size_t len, text_cap;
	bool last;                       /* the stream has nothing after this batch */
	bool oom;                        /* the text could not grow */
	bool warnings;                   /* it has PE_WARN elements (their text to free) */
	uint64_t sparse_events;          /* nothing to emit (dummy): the events kept, for the progress */
	struct tmx_error err;            /* PE_ERROR's */
};

/*
 * A stream read as consecutive segments (split.c): one unit each, next to
 * each other in the runner's array, in the stream's order.  The merge
 * reads them one after the other as one stream; the workers read ahead
 * in the `window` segments from the one the merge is in, the earliest
 * first, as long as the group's batches queued stay within its share of
 * the memory budget.
 */
struct par_group {
	struct par_stream *first;        /* its units: first[0 .. n) */
	size_t n;
	size_t window;
	/* Under the runner's lock. */
	size_t merging;                  /* the segment the merge is in */
	size_t queued;                   /* batches queued in all its units */
	size_t cap;                      /* the workers read ahead up to that many */
	struct par_batch *spare;         /* consumed batches, for any of its units */
	size_t batch_elems, batch_bytes; /* when its batches are sealed (split.c: par_groups_size) */
};

struct par_stream {
	struct tmx_msg_iter *it;
	const struct tmx_msg *first;     /* the message taken over with the stream, until read */
	size_t index;                    /* the stream's input position (tie-break) */
	struct par_group *group;         /* its segments, or NULL for a whole stream */
	struct par_stream *seg_next;     /* the stream's next segment, NULL after its last */
	size_t seg_index;                /* its place among them */
	/* Under the runner's lock. */
	struct par_batch *q_head, *q_tail, *spare;
	size_t queued;
	bool busy;                       /* a worker is reading it */
	bool done;                       /* its last batch is queued */
	/*
	 * The reading worker's, written for every message: on cache lines of
	 * their own, away from the fields above (which the merge reads) and
	 * from the other streams (read by other threads).
	 */
	int64_t last_key __attribute__((aligned(64))); /* of its previous message (src/mux/order.h) */
	bool has_skip;                   /* a dropped message not followed by a kept one */
	struct tmx_mux_pos skip;
	const void *warned[8];           /* tmx_warn_once keys met in this stream */
	size_t n_warned;
} __attribute__((aligned(64)));

struct par_runner;

struct par_worker {
	struct par_runner *r;
	pthread_t thread;
	bool started;
	void *fmt;                       /* the sink's formatter; NULL for the dummy sink */
	struct outbuf *out;              /* its output, drained into `batch` */
	struct par_stream *stream;       /* being read */
	struct par_batch *batch;         /* being filled */
	uint64_t base;                   /* outbuf_pos() at the batch's first byte */
	bool sealing;                    /* the batch's last flush: no room wanted after it */
	struct tmx_warn_capture capture;
};

struct par_runner {
	pthread_mutex_t lock;
	pthread_cond_t main_cv;          /* a batch was queued */
	pthread_cond_t work_cv;          /* a queue has room again, or stop */
	bool stop;
	struct par_stream *streams;      /* units: streams, or segments of one (split.c) */
	size_t n_streams;
	size_t n_inputs;                 /* the source's streams (merge cursors) */
	struct par_group *groups;
	size_t n_groups;
	/*
	 * workers[0] is the main thread's: it reads a stream itself when the
	 * merge waits for one that no worker is reading.
	 */
	struct par_worker *workers;
	size_t n_workers;
	const struct sink_split *split;
	void *sink_out;                  /* the sink's output handle */
	const struct tmx_run_opts *opts;
	const struct tmx_filter_bound *filter; /* the source's event filter, or NULL */
	struct par_progress *progress;   /* the merge notes each message it emits */
	size_t batch_elems, batch_bytes; /* when a batch is sealed */
	size_t depth;                    /* batches queued per stream at most */
	unsigned side_gen;               /* the sink's side work: counts its wake-ups */
};

/* worker.c */
/*
 * Reads one batch of `s` (marked busy by the caller) with w's formatter
 * and queues it; called and returns with the runner's lock held.
 */
void par_read_batch(struct par_worker *w, struct par_stream *s);
/*
 * The stream to read next (under the runner's lock): not being read, with
 * room in its queue, the fewest batches queued (`prev` on a tie: the
 * caller's last one, still warm in its caches); NULL when there is none.
 * *all_done: every stream has queued its last batch.
 */
struct par_stream *par_pick(struct par_runner *r, struct par_stream *prev, bool *all_done);
/* Sets up every formatter and starts a thread for each but workers[0], the main thread's. */
int par_workers_start(struct par_runner *r, struct tmx_error *err);
void par_workers_stop(struct par_runner *r);
void par_batch_free(struct par_batch *b);
/*
 * The sink's side work (src/sink/split.h), called with the runner's lock
 * held, released meanwhile: runs what is queued; true when it ran any or
 * more was queued meanwhile (look again before waiting).
 */
bool par_side_work(struct par_runner *r);

/* merge.c: the main thread's part, until the end, a stop or an error. */
int par_merge(struct par_runner *r, struct tmx_error *err);

/*
 * split.c: the runner's units from the source's streams (r->streams,
 * n_streams, n_inputs, groups), long streams cut into segments when the
 * sink's split allows it and `jobs` threads would otherwise wait for them.
 */
int par_units_make(struct par_runner *r, struct tmx_source *src, const struct tmx_mux_head *heads,
		   size_t n, unsigned jobs, struct tmx_error *err);
/* How many batches each group may hold queued: its share of `budget` bytes (after size_batches). */
void par_groups_size(struct par_runner *r, size_t budget);
/* Where a unit's consumed batches wait for reuse (under the runner's lock). */
static inline struct par_batch **par_spares(struct par_stream *s)
{
	return s->group ? &s->group->spare : &s->spare;
}
/* A batch queued on s, taken off by the merge (under the runner's lock). */
static inline void par_queued(struct par_stream *s, int delta)
{
	s->queued += (size_t)delta;
	if (s->group)
		s->group->queued += (size_t)delta;
}

#endif
