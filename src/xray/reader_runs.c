/*
 * The XRay reader's sorted output, first step (at open): the ascending runs
 * of TSCs in llvm's unsorted order, and where the chunks of the sorted
 * output begin.
 *
 * llvm-xray's order is a stable sort by TSC of its unsorted sequence (FDR:
 * the threads in DenseMap order, each thread's blocks in llvm's order).
 * Cut into ascending runs, kept in sequence order, that sequence sorts as
 * the merge of the runs with ties to the earlier run.  A run never crosses
 * from one FDR thread (key) to the next: each thread starts a cursor of
 * its own (llvm's TraceExpander starts afresh there too), so the threads
 * are scanned on several threads, and cutting a run in two at a thread
 * boundary changes nothing to the merge.  Basic logs are one sequence.
 *
 * Every cp_every records a run keeps a checkpoint (the cursor position and
 * the TSC there).  The sorted output is cut by TSC into chunks of up to
 * about XR_CHUNK_RECORDS records (bounds taken from the checkpoints' TSCs): a
 * chunk is the merge of the parts of the runs within its TSC range, each
 * part found from the last checkpoint before the range, so chunks are
 * decoded independently (reader_chunks.c), and the records of equal TSC
 * are always in the same chunk.
 */
#include <stdlib.h>

#include "common/grow.h"
#include "common/errors.h"
#include "tracemux/run.h"
#include "xray/reader_impl.h"

/* What one segment (an FDR key, or a whole basic log) comes to. */
struct seg {
	struct xr_run *runs;
	uint32_t n_runs, cap_runs;
	struct xr_checkpoint *cps;
	uint32_t n_cps, cap_cps;
	int ret;
	struct tmx_error err;
};

struct scan {
	struct xr_reader *r;
	struct seg *segs;
	uint32_t n_segs;
	pthread_mutex_t lock;
	uint32_t next;   /* the next segment to scan, under lock */
};

/* Room for one more element (common/grow.h; a count that stays a uint32_t); NULL when none. */
static void *grow(void *p, uint32_t *cap, size_t elem)
{
	size_t c = *cap;

	if (c > UINT32_MAX / 2 || !tmx_grow_array(&p, &c, c + 1, elem, 16))
		return NULL;
	*cap = (uint32_t)c;
	return p;
}

static int new_run(struct xr_reader *r, struct seg *s, const struct xr_pos *at, uint64_t tsc,
		   struct tmx_error *err)
{
	if (s->n_runs == XR_MAX_RUNS)
		return tmx_error_set(err, TMX_ERR_LIMIT, r->file.map.path,
				     "XRay records go back in time more than %u times: too many "
				     "runs to sort in bounded memory (use --sort=false)", XR_MAX_RUNS);
	if (s->n_runs == s->cap_runs) {
		void *p = grow(s->runs, &s->cap_runs, sizeof(*s->runs));
		if (!p)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		s->runs = p;
	}
	s->runs[s->n_runs++] = (struct xr_run){ .pos = *at, .end_seq = UINT64_MAX,
						.first_tsc = tsc, .cp = s->n_cps };
	return TMX_OK;
}

static int add_checkpoint(struct seg *s, const struct xr_pos *at, uint64_t tsc,
			  struct tmx_error *err)
{
	if (s->n_cps == s->cap_cps) {
		void *p = grow(s->cps, &s->cap_cps, sizeof(*s->cps));
		if (!p)
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		s->cps = p;
	}
	s->cps[s->n_cps++] = (struct xr_checkpoint){ .tsc = tsc, .pos = *at };
	s->runs[s->n_runs - 1].n_cp++;
	return TMX_OK;
}

/* The TSC range [lo, hi] of records of `stream` joins the stream's. */
static void note_range(struct xr_reader *r, uint32_t stream, uint64_t lo, uint64_t hi)
{
	if (stream >= r->n_streams || lo > hi)
		return;
	if (lo < r->ts_min[stream])
		r->ts_min[stream] = lo;
	if (hi > r->ts_max[stream])
		r->ts_max[stream] = hi;
}

/*
 * One segment's records, once: its runs and checkpoints, and the TSC range
 * of its records' streams (a segment's streams are its own).
 */
static int scan_segment(struct xr_reader *r, uint32_t i, struct seg *s, struct tmx_error *err)
{
	struct xr_pos start = { .key_pos = i };
	struct xr_cursor c;
	uint64_t prev = 0, in_run = 0, since_release = 0;
	/* The TSC range of the stream being read, kept here: writing the
	 * arrays at every record shared their cache lines between threads. */
	uint32_t stream = UINT32_MAX;
	uint64_t lo = UINT64_MAX, hi = 0;
	int ret = TMX_OK;

	xr_cursor_init(&c, &start, UINT64_MAX);
	if (r->layout.fdr)
		xr_cursor_stop_at_key(&c, i + 1);
	for (;;) {
		struct xr_pos before = c.pos;
		uint64_t tsc;
		bool got;
		if ((ret = xr_cursor_next(&r->layout, &c, &got, err)) || !got)
			break;
		if ((since_release += 16) >= XR_RELEASE_BYTES) {
			tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
			since_release = 0;
		}
		tsc = c.rec.tsc;
		if (c.rec.stream != stream) {
			note_range(r, stream, lo, hi);
			stream = c.rec.stream, lo = UINT64_MAX, hi = 0;
		}
		lo = tsc < lo ? tsc : lo;
		hi = tsc > hi ? tsc : hi;
		if (s->n_runs == 0 || tsc < prev) {
			if (s->n_runs) {
				s->runs[s->n_runs - 1].end_seq = before.seq;
				s->runs[s->n_runs - 1].last_tsc = prev;
			}
			if ((ret = new_run(r, s, &before, tsc, err)))
				break;
			in_run = 0;
		}
		if (in_run++ % r->cp_every == 0 && (ret = add_checkpoint(s, &before, tsc, err)))
			break;
		prev = tsc;
	}
	if (s->n_runs) {
		s->runs[s->n_runs - 1].end_seq = c.pos.seq;
		s->runs[s->n_runs - 1].last_tsc = prev;
	}
	note_range(r, stream, lo, hi);
	xr_cursor_free(&c);
	return ret;
}

static void *scan_thread(void *arg)
{
	struct scan *sc = arg;

	for (;;) {
		uint32_t i;
		pthread_mutex_lock(&sc->lock);
		i = sc->next++;
		pthread_mutex_unlock(&sc->lock);
		if (i >= sc->n_segs)
			return NULL;
		sc->segs[i].ret = scan_segment(sc->r, i, &sc->segs[i], &sc->segs[i].err);
	}
}

/* Every segment scanned, on up to r->jobs threads (this one included). */
static void scan_all(struct scan *sc, unsigned jobs)
{
	unsigned n = jobs < sc->n_segs ? jobs : sc->n_segs, started = 0;
	pthread_t *th = n > 1 ? calloc(n - 1, sizeof(*th)) : NULL;

	pthread_mutex_init(&sc->lock, NULL);
	for (; th && started < n - 1; started++)
		if (pthread_create(&th[started], NULL, scan_thread, sc))
			break;
	scan_thread(sc);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	free(th);
	pthread_mutex_destroy(&sc->lock);
}

/*
 * The segments' runs and checkpoints, in sequence order, into the reader;
 * the first segment's error (in sequence order: the one a single scan
 * would have stopped at).
 */
static int gather(struct xr_reader *r, struct seg *segs, uint32_t n_segs, struct tmx_error *err)
{
	uint64_t n_runs = 0, n_cps = 0;

	for (uint32_t i = 0; i < n_segs; i++) {
		if (segs[i].ret)
			return *err = segs[i].err, segs[i].ret;
		n_runs += segs[i].n_runs;
		n_cps += segs[i].n_cps;
		if (n_runs > XR_MAX_RUNS)
			return tmx_error_set(err, TMX_ERR_LIMIT, r->file.map.path,
					     "XRay records go back in time more than %u times: too "
					     "many runs to sort in bounded memory (use --sort=false)",
					     XR_MAX_RUNS);
	}
	r->runs = malloc((n_runs ? n_runs : 1) * sizeof(*r->runs));
	r->cps = malloc((n_cps ? n_cps : 1) * sizeof(*r->cps));
	if (!r->runs || !r->cps)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (uint32_t i = 0; i < n_segs; i++) {
		for (uint32_t k = 0; k < segs[i].n_runs; k++) {
			struct xr_run *run = &r->runs[r->n_runs++];
			*run = segs[i].runs[k];
			run->cp += r->n_cps;
		}
		for (uint32_t k = 0; k < segs[i].n_cps; k++)
			r->cps[r->n_cps++] = segs[i].cps[k];
	}
	return TMX_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The chunks' TSC bounds: every so many checkpoints in TSC order (each
 * stands for cp_every records), strictly increasing.  A chunk holds about
 * 1/8 of a job's share of the records, between XR_CHUNK_MIN and
 * XR_CHUNK_RECORDS: enough chunks to keep every decoder busy, and small
 * logs cut too (the cuts never show in the output).
 */
static int chunk_bounds(struct xr_reader *r, struct tmx_error *err)
{
	uint64_t n_recs = 0, want;
	uint32_t per_chunk, n = 0;
	uint64_t *tscs;

	for (uint32_t i = 0; i < r->n_runs; i++)
		n_recs += r->runs[i].end_seq - r->runs[i].pos.seq;
	r->n_recs = n_recs;
	want = n_recs / 8 / (r->jobs ? r->jobs : 1);
	want = want < XR_CHUNK_MIN ? XR_CHUNK_MIN : want > XR_CHUNK_RECORDS ? XR_CHUNK_RECORDS : want;
	per_chunk = (uint32_t)(want / r->cp_every) ? (uint32_t)(want / r->cp_every) : 1;
	r->n_chunks = r->n_runs ? 1 : 0;
	if (r->n_cps <= per_chunk)
		return TMX_OK;
	if (!(tscs = malloc((size_t)r->n_cps * sizeof(*tscs))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	for (uint32_t i = 0; i < r->n_cps; i++)
		tscs[i] = r->cps[i].tsc;
	qsort(tscs, r->n_cps, sizeof(*tscs), cmp_u64);
	/* In place: bound k comes from index (k + 1) * per_chunk > k. */
	for (uint32_t i = per_chunk; i < r->n_cps; i += per_chunk)
		if (tscs[i] > (n ? tscs[n - 1] : tscs[0]))
			tscs[n++] = tscs[i];
	r->bounds = tscs;
	r->n_chunks = n + 1;
	return TMX_OK;
}

int xr_find_runs(struct xr_reader *r, struct tmx_error *err)
{
	struct scan sc = { .r = r, .n_segs = r->layout.fdr ? r->n_keys : 1 };
	uint64_t est = r->file.map.size / XR_FDR_FUNC_SIZE / XR_CP_MAX + 1;
	int ret;

	r->cp_every = est > XR_CP_MIN_EVERY ? (uint32_t)est : XR_CP_MIN_EVERY;
	if (!(sc.segs = calloc(sc.n_segs ? sc.n_segs : 1, sizeof(*sc.segs))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	scan_all(&sc, r->jobs);
	tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
	ret = gather(r, sc.segs, sc.n_segs, err);
	for (uint32_t i = 0; i < sc.n_segs; i++) {
		free(sc.segs[i].runs);
		free(sc.segs[i].cps);
	}
	free(sc.segs);
	r->have_ranges = !ret;
	return ret ? ret : chunk_bounds(r, err);
}
