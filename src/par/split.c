/*
 * Long streams read as segments on several threads (the parallel runner's
 * units, par.h).  A trace.dat whose events are nearly all on one CPU is
 * one long stream: read by one thread, it alone sets the run's time.  A
 * reader that can (tmx_source_ops.split_stream: trace.dat cuts at pages
 * or compressed chunks) cuts such a stream into consecutive segments,
 * each an iterator that needs nothing of the others, and the runner
 * treats each segment as a unit of work:
 *
 *   - the workers read any segment, the earliest one not being read
 *     first, so that several threads decode and format one stream at
 *     once, ahead of the merge, within the group's share of the memory
 *     budget (par_groups_size: batches queued over all its segments);
 *   - the merge reads a stream's segments one after the other, as one
 *     stream (merge.c): segment k + 1's messages come after all of k's
 *     whatever their times, the order of the whole stream, so the output
 *     is byte for byte that of one thread reading it;
 *   - a segment ending with dropped messages leaves its last one's place
 *     (a SKIP element, worker.c), where the next segment's first warning
 *     or error is met; warnings said a number of times per stream
 *     (tmx_warn_limit) are counted again in merged order.
 *
 * When: the sink's split must allow it (sink_split.segments: its
 * formatters keep no state along a stream), and the stream must hold
 * more than one thread's share of the data (its decoded bytes over all
 * the streams', times the jobs) and at least two segments.  Segments are
 * cut by the data alone (SEG_BYTES of decoded data, whatever the jobs),
 * large enough that what a segment repeats (its start, reading back to
 * the last record before it) costs little: a page or a chunk.
 */
#include <stdlib.h>
#include <string.h>

#include "source/source.h"
#include "par/par.h"

/*
 * Decoded bytes per segment (trace.dat: pages, or whole compressed
 * chunks).  The workers read ahead within a window of segments (jobs + 1),
 * whose formatted batches are most of the memory a parallel run holds:
 * with 256 KiB rather than 1 MiB, big.dat's Parquet with two jobs had a
 * quarter fewer page faults (8.6 K, not 11.4 K) and 37 MB peak RSS, not
 * 49, for 0.13% more instructions (segment starts), the same wall time;
 * with 128 KiB, 6.8 K faults and 31 MB for 0.4% more instructions.
 */
#define SEG_BYTES (256u << 10)
/* Segments per stream at most: longer streams have longer segments. */
#define SEG_MAX 4096

/*
 * TRACEMUX_SEGMENT_BYTES (for the tests, whose traces are small): segments
 * of that many bytes, and every stream of two or more cut; 0 when unset.
 */
static uint64_t forced_segment_bytes(void)
{
	const char *v = getenv("TRACEMUX_SEGMENT_BYTES");
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return 0;
	n = strtoull(v, &end, 10);
	return *end ? 0 : (uint64_t)n;
}

/* Whether a stream should be cut: more than a thread's share of the data. */
static bool worth_cutting(uint64_t cost, uint64_t total, unsigned jobs, uint64_t forced)
{
	if (forced)
		return cost >= 2 * forced;
	return cost >= 2 * (uint64_t)SEG_BYTES && cost > total / jobs;
}

/* A unit reading `it`, of the input at position `index`. */
static void unit_init(struct par_stream *s, struct tmx_msg_iter *it, const struct tmx_msg *first,
		      int64_t key, size_t index)
{
	s->it = it;
	s->first = first;
	s->last_key = key;
	s->index = index;
}

int par_units_make(struct par_runner *r, struct tmx_source *src, const struct tmx_mux_head *heads,
		   size_t n, unsigned jobs, struct tmx_error *err)
{
	struct tmx_msg_iter ***segs = calloc(n, sizeof(*segs));
	size_t *n_segs = calloc(n, sizeof(*n_segs)), units = 0, groups = 0, u = 0, g = 0;
	uint64_t *cost = calloc(n, sizeof(*cost)), total = 0;
	uint64_t forced = forced_segment_bytes();
	int ret = TMX_OK;

	if (!segs || !n_segs || !cost) {
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		goto out;
	}
	for (size_t i = 0; r->split->segments && jobs > 1 && i < n; i++)
		total += cost[i] = tmx_source_stream_cost(src, heads[i].it);
	for (size_t i = 0; i < n; i++) {
		struct tmx_error ignored;
		uint64_t seg = forced ? forced : SEG_BYTES;

		if (cost[i] / SEG_MAX > seg)
			seg = cost[i] / SEG_MAX;
		n_segs[i] = 1;
		/* A stream that cannot be cut after all is read whole. */
		if (cost[i] && worth_cutting(cost[i], total, jobs, forced) &&
		    !tmx_source_split_stream(src, heads[i].it, seg, &segs[i], &n_segs[i], &ignored) &&
		    n_segs[i] > 1)
			groups++;
		else
			n_segs[i] = 1;
		units += n_segs[i];
	}
	/* Aligned: a stream's worker fields share no cache line with another's (par.h). */
	r->streams = aligned_alloc(_Alignof(struct par_stream), units * sizeof(*r->streams));
	r->groups = groups ? calloc(groups, sizeof(*r->groups)) : NULL;
	if (!r->streams || (groups && !r->groups)) {
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		goto out;
	}
	memset(r->streams, 0, units * sizeof(*r->streams));
	r->n_streams = units;
	r->n_inputs = n;
	r->n_groups = groups;
	for (size_t i = 0; i < n; i++) {
		struct par_group *grp = n_segs[i] > 1 ? &r->groups[g++] : NULL;

		if (!grp) {
			unit_init(&r->streams[u++], heads[i].it, heads[i].msg, heads[i].key, i);
			continue;
		}
		grp->first = &r->streams[u];
		grp->n = n_segs[i];
		/* the merge's segment and one ahead per thread: several MiB formatted at most */
		grp->window = (jobs < n_segs[i] ? jobs : n_segs[i]) + 1;
		for (size_t k = 0; k < n_segs[i]; k++) {
			struct par_stream *s = &r->streams[u++];

			/* The first segment goes on from the message the stream held. */
			unit_init(s, segs[i][k], k ? NULL : heads[i].msg, k ? INT64_MIN : heads[i].key, i);
			s->group = grp;
			s->seg_index = k;
			s->seg_next = k + 1 < n_segs[i] ? s + 1 : NULL;
		}
	}
out:
	for (size_t i = 0; segs && i < n; i++)
		free(segs[i]);
	free(segs);
	free(n_segs);
	free(cost);
	return ret;
}

/*
 * A segment's batches are SEG_BATCH_SCALE times a whole stream's: a
 * thread that takes a segment up again (after merging, or a row group's
 * encoding) finds the reader's state, the chunk it is in and the
 * decompression context out of its caches; with batches of 512 events,
 * big.dat's Parquet with two jobs spent ~10 ms more in the reader than
 * one job, for the same instructions.
 */
#define SEG_BATCH_SCALE 4

void par_groups_size(struct par_runner *r, size_t budget)
{
	size_t batch = r->batch_bytes + r->batch_elems * sizeof(struct par_elem);
	size_t whole = (r->n_inputs - r->n_groups) * (r->depth + 2) * batch, share;

	if (!r->n_groups)
		return;
	share = budget > whole ? (budget - whole) / r->n_groups : 0;
	for (size_t i = 0; i < r->n_groups; i++) {
		/*
		 * Nothing to emit (dummy): batches hold only warnings, as many
		 * as a whole stream's; else as many as fit in the share.  The
		 * whole share, not less: it is the read-ahead that keeps the
		 * workers off the segment the merge is in.  Capped at 4
		 * batches per thread (issue 28), big.dat's Parquet with two
		 * jobs had 35% fewer page faults, a third less peak memory
		 * and 8% less CPU time in all, but the main thread, waiting
		 * for its segment, read 70% of the batches itself instead of
		 * 45% and its own CPU time, the run's length, grew by 16%.
		 */
		size_t cap = r->split->emit ? share / (batch * SEG_BATCH_SCALE) : r->depth;

		r->groups[i].cap = cap > r->depth ? cap : r->depth;
		r->groups[i].batch_elems = r->batch_elems * SEG_BATCH_SCALE;
		r->groups[i].batch_bytes = r->batch_bytes * SEG_BATCH_SCALE;
	}
}
