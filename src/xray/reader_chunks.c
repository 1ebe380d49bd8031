/*
 * The XRay reader's sorted output, second step: the chunks (reader_runs.c)
 * decoded into records, in order.
 *
 * A chunk is the TSC range [bounds[i - 1], bounds[i]) of the sorted
 * output.  Each run that reaches into the range is read by a cursor from
 * its last checkpoint before the range, past its records before it; the
 * cursors are merged by a heap on (TSC, run), ties to the earlier run,
 * until their records leave the range: exactly the stretch of llvm-xray's
 * stable sort that falls in the range, whatever decodes it.
 *
 * With more than one job, jobs - 1 decoder threads fill a ring of chunk
 * slots ahead of the consumer (the thread pulling messages, busy making
 * and writing them), which takes the chunks in order: a slot is reused once the consumer has moved past its chunk, so
 * memory stays at n_slots chunks.  With one job the consumer decodes each
 * chunk itself when it needs it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/errors.h"
#include "common/heap.h"
#include "xray/reader_impl.h"

/* ------------------------------------------------------------------ */
/* One chunk                                                            */
/* ------------------------------------------------------------------ */

static inline bool hent_before(const struct xr_hent *a, const struct xr_hent *b)
{
	return a->tsc < b->tsc || (a->tsc == b->tsc && a->c < b->c);
}

TMX_HEAP_DEFINE(hent, struct xr_hent, hent_before)

/* Room for n cursors and heap entries (their argument buffers kept). */
static int reserve_cursors(struct xr_decoder *d, uint32_t n)
{
	/* Both arrays grow alike from cap_cursors, which moves once both have. */
	size_t cc = d->cap_cursors, ch = d->cap_cursors;

	if (!tmx_grow_zeroed((void **)&d->cursors, &cc, n, sizeof(*d->cursors), 8) ||
	    !tmx_grow_array((void **)&d->heap, &ch, n, sizeof(*d->heap), 8))
		return TMX_ERR_NOMEM;
	d->cap_cursors = (uint32_t)cc;
	return TMX_OK;
}

/* A cursor of the decoder at `pos`, reusing its argument buffer. */
static void reuse_cursor(struct xr_cursor *c, const struct xr_pos *pos, uint64_t end_seq)
{
	uint64_t *args = c->args;
	uint32_t cap = c->cap_args;

	xr_cursor_init(c, pos, end_seq);
	c->args = args;
	c->cap_args = cap;
}

/* The last checkpoint of the run before TSC `lo`, or its first. */
static const struct xr_checkpoint *start_of(const struct xr_reader *r, const struct xr_run *run,
					    uint64_t lo)
{
	uint32_t a = 0, b = run->n_cp;   /* the answer is in [a, b) */

	while (b - a > 1) {
		uint32_t m = a + (b - a) / 2;
		if (r->cps[run->cp + m].tsc < lo)
			a = m;
		else
			b = m;
	}
	return &r->cps[run->cp + a];
}

static int append(struct xr_chunk *ch, const struct xr_record *rec)
{
	void *recs = ch->recs, *args = ch->args;

	if (!tmx_grow_array(&recs, &ch->cap, ch->n + 1, sizeof(*ch->recs), XR_CHUNK_RECORDS))
		return TMX_ERR_NOMEM;
	ch->recs = recs;
	if (rec->n_args > SIZE_MAX - ch->n_args ||
	    !tmx_grow_array(&args, &ch->cap_args, ch->n_args + rec->n_args, sizeof(*ch->args), 256))
		return TMX_ERR_NOMEM;
	ch->args = args;
	if (rec->n_args)
		memcpy(ch->args + ch->n_args, rec->args, rec->n_args * sizeof(*ch->args));
	ch->n_args += rec->n_args;
	ch->recs[ch->n++] = *rec;
	return TMX_OK;
}

static void count_release(struct xr_reader *r, struct xr_decoder *d, uint64_t bytes)
{
	if ((d->since_release += bytes) >= XR_RELEASE_BYTES) {
		tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
		d->since_release = 0;
	}
}

/*
 * The cursors of the runs that reach into [lo, hi), each at its first
 * record there, as a heap.  Returns their number in *n.
 */
static int open_runs(struct xr_reader *r, struct xr_decoder *d, uint64_t lo, bool has_hi,
		     uint64_t hi, uint32_t *n, struct tmx_error *err)
{
	int ret;

	*n = 0;
	for (uint32_t j = 0; j < r->n_runs; j++) {
		const struct xr_run *run = &r->runs[j];
		struct xr_cursor *c;
		bool got;
		if (run->last_tsc < lo || (has_hi && run->first_tsc >= hi))
			continue;
		if (reserve_cursors(d, *n + 1))
			return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
		c = &d->cursors[*n];
		reuse_cursor(c, &start_of(r, run, lo)->pos, run->end_seq);
		count_release(r, d, XR_CURSOR_OPEN_BYTES);
		do {
			if ((ret = xr_cursor_next(&r->layout, c, &got, err)))
				return ret;
		} while (got && c->rec.tsc < lo);
		if (!got || (has_hi && c->rec.tsc >= hi))
			continue;
		d->heap[*n] = (struct xr_hent){ .tsc = c->rec.tsc, .c = *n };
		(*n)++;
	}
	for (uint32_t i = *n / 2; i-- > 0;)
		hent_sift_down(d->heap, *n, i);
	return TMX_OK;
}

/* Chunk i into `ch`: its records, then its error if decoding failed. */
static void fill_chunk(struct xr_reader *r, struct xr_decoder *d, uint32_t i,
		       struct xr_chunk *ch)
{
	uint64_t lo = i ? r->bounds[i - 1] : 0, hi = i + 1 < r->n_chunks ? r->bounds[i] : 0;
	bool has_hi = i + 1 < r->n_chunks;
	uint32_t n;
	int ret;

	ch->index = i;
	ch->n = ch->n_args = ch->next = ch->next_arg = 0;
	ret = open_runs(r, d, lo, has_hi, hi, &n, &ch->err);
	while (!ret && n) {
		struct xr_cursor *c = &d->cursors[d->heap[0].c];
		bool got;
		if (append(ch, &c->rec)) {
			ret = tmx_error_set(&ch->err, TMX_ERR_NOMEM, NULL, "out of memory");
			break;
		}
		count_release(r, d, 16);
		if ((ret = xr_cursor_next(&r->layout, c, &got, &ch->err)))
			break;
		if (!got || (has_hi && c->rec.tsc >= hi))
			d->heap[0] = d->heap[--n];
		else
			d->heap[0].tsc = c->rec.tsc;
		hent_sift_down(d->heap, n, 0);
	}
	ch->ret = ret;
}

/*
 * fill_chunk on copies of the decoder and of the slot that live on this
 * thread's stack, written back at the end: decoders and slots are small
 * neighbouring allocations, and the consumer writes its own slot at every
 * record (that false sharing made decoding 2.5 times slower).  The slot's
 * `ready` is the pool's, under its lock: not written here.
 */
static void decode_chunk(struct xr_reader *r, struct xr_decoder *d, uint32_t i,
			 struct xr_chunk *ch)
{
	struct xr_decoder dl = *d;
	struct xr_chunk cl = { .recs = ch->recs, .cap = ch->cap, .args = ch->args,
			       .cap_args = ch->cap_args };

	fill_chunk(r, &dl, i, &cl);
	*d = dl;
	ch->index = cl.index;
	ch->recs = cl.recs;
	ch->n = cl.n;
	ch->cap = cl.cap;
	ch->args = cl.args;
	ch->n_args = cl.n_args;
	ch->cap_args = cl.cap_args;
	ch->ret = cl.ret;
	ch->err = cl.err;
	ch->next = ch->next_arg = 0;
}

static void decoder_free(struct xr_decoder *d)
{
	for (uint32_t i = 0; i < d->cap_cursors; i++)
		xr_cursor_free(&d->cursors[i]);
	free(d->cursors);
	free(d->heap);
}

static void chunk_free(struct xr_chunk *ch)
{
	free(ch->recs);
	free(ch->args);
}

/* ------------------------------------------------------------------ */
/* Decoder threads                                                      */
/* ------------------------------------------------------------------ */

static void *decoder_thread(void *arg)
{
	struct xr_decoder *d = arg;
	struct xr_reader *r = d->r;
	struct xr_pool *p = &r->pool;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		uint32_t i;
		while (!p->stop && !(p->next_take < r->n_chunks &&
				     p->next_take < p->consuming + p->n_slots))
			pthread_cond_wait(&p->work_cv, &p->lock);
		if (p->stop)
			break;
		i = p->next_take++;
		pthread_mutex_unlock(&p->lock);
		decode_chunk(r, d, i, &p->slots[i % p->n_slots]);
		pthread_mutex_lock(&p->lock);
		p->slots[i % p->n_slots].ready = true;
		pthread_cond_broadcast(&p->ready_cv);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* The decoder threads and their ring; false to decode on the consumer instead. */
static bool pool_start(struct xr_reader *r)
{
	struct xr_pool *p = &r->pool;
	/* The consumer is busy with the messages: the other jobs decode. */
	unsigned n = r->jobs > 1 ? r->jobs - 1 : 0;

	if (n > r->n_chunks)
		n = r->n_chunks;
	if (n < 1 || r->n_chunks < 2)
		return false;
	p->n_slots = n + 2;
	p->slots = calloc(p->n_slots, sizeof(*p->slots));
	p->threads = calloc(n, sizeof(*p->threads));
	p->decoders = calloc(n, sizeof(*p->decoders));
	if (!p->slots || !p->threads || !p->decoders)
		return false;
	p->n_threads = n;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work_cv, NULL);
	pthread_cond_init(&p->ready_cv, NULL);
	p->initialized = true;
	for (; p->started < n; p->started++) {
		p->decoders[p->started].r = r;
		if (pthread_create(&p->threads[p->started], NULL, decoder_thread,
				   &p->decoders[p->started]))
			break;
	}
	return p->started > 0;
}

void xr_chunks_free(struct xr_reader *r)
{
	struct xr_pool *p = &r->pool;

	if (p->initialized) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->work_cv);
		pthread_mutex_unlock(&p->lock);
		for (unsigned t = 0; t < p->started; t++)
			pthread_join(p->threads[t], NULL);
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->work_cv);
		pthread_cond_destroy(&p->ready_cv);
	}
	for (uint32_t i = 0; p->slots && i < p->n_slots; i++)
		chunk_free(&p->slots[i]);
	for (unsigned t = 0; p->decoders && t < p->n_threads; t++)
		decoder_free(&p->decoders[t]);
	free(p->slots);
	free(p->threads);
	free(p->decoders);
	decoder_free(&r->inline_dec);
	chunk_free(&r->inline_chunk);
}

/* ------------------------------------------------------------------ */
/* The consumer                                                         */
/* ------------------------------------------------------------------ */

void xr_next_chunk(struct xr_reader *r)
{
	struct xr_pool *p = &r->pool;
	uint32_t i = r->chunk ? r->chunk->index + 1 : 0;
	struct xr_chunk *ch;

	if (r->chunk)
		xr_count_records(r, r->chunk->n);

	if (!r->chunk && !r->inline_mode)
		r->inline_mode = !pool_start(r);
	if (r->inline_mode) {
		r->chunk = NULL;
		if (i >= r->n_chunks)
			return;
		decode_chunk(r, &r->inline_dec, i, &r->inline_chunk);
		r->chunk = &r->inline_chunk;
		return;
	}
	pthread_mutex_lock(&p->lock);
	if (r->chunk) {
		r->chunk->ready = false;
		p->consuming++;
		pthread_cond_broadcast(&p->work_cv);
	}
	r->chunk = NULL;
	if (i < r->n_chunks) {
		ch = &p->slots[i % p->n_slots];
		while (!ch->ready)
			pthread_cond_wait(&p->ready_cv, &p->lock);
		r->chunk = ch;
	}
	pthread_mutex_unlock(&p->lock);
}
