/*
 * `-o tracecmd --jobs N` on trace.dat files: each CPU of each handle (a
 * cursor of the sequential report) is a unit of the worker pool
 * (src/par/pool.h), cut into runs of its pieces (ring-buffer pages, or
 * compressed chunks of whole pages: tdat_cpu_pieces()), which decode
 * independently since each page carries its own time.  A worker reads a
 * run with a cursor of its own into a batch: each record (its bytes stay
 * in the mapped file, or, compressed, in the buffers of the run's chunks
 * decompressed, which the cursor hands to the batch:
 * tdat_cursor_hand_buffers) and the parts of its line that depend on it
 * alone, written ahead (report.c's tcr_put_*: label, DROPPED line, pid and
 * CPU, time, name and the text of a compiled print fmt), and the cursor's
 * warnings, end or error where it met them.
 * So a trace whose events are nearly all on one CPU keeps every worker
 * busy too.
 *
 * The main thread reads the batches of a CPU in order as it would read
 * its cursor (tcr_par_peek/next, called by report_order.c's libtracecmd
 * order), so the order, the filters, and where warnings and errors come
 * are those of the sequential report; emit() adds what depends on the
 * records printed before: the comm (the sched plugins register comms as
 * they print), --ts-diff, -l's latency columns, text from libtraceevent
 * (its handle is the main thread's alone: its event cache, its comm list
 * and the plugins' state are written as it prints), -w.
 *
 * The workers touch libtraceevent only through what set-up made read-only:
 * the event table by id, the common field offsets (index_events() in
 * report_tep.c), the formats' field lists and the compiled print fmts.
 * The function graph look-ahead reads the CPUs through tcr_par_peek/next
 * too (funcgraph.h's tfg_handle), on the main thread.  Not with --profile,
 * nor without a usable event table: one job then.
 */
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "common/grow.h"
#include "par/pool.h"
#include "tools/tracecmd/report_impl.h"
#include "tracemux/run.h"

#define PAR_BUDGET (32u << 20)      /* all units' batches, at most (about) */
#define PAR_RUN_MAX (256u << 10)    /* ring-buffer bytes of a run, at most */
#define RELEASE_BYTES (4u << 20)    /* printed pages handed back to the kernel at a time */
/*
 * A batch's bytes (items, lines, copies) per byte of ring buffer: about 5
 * on usual traces (big-v6.dat of bench/tracecmd.sh), up to some 30 for
 * records of a few bytes with long lines; runs are sized for 16.
 */
#define PAR_TEXT_RATIO 16

enum item_kind { IT_REC, IT_WARN, IT_END, IT_ERROR };

struct item {
	enum item_kind kind;
	struct tcr_parts parts;      /* REC: its line's (base: the batch's bytes, once filled) */
	struct tdat_record rec;      /* REC */
	char *warning;               /* WARN: malloc'ed */
};

struct batch {
	struct item *items;
	size_t n, cap;
	char *bytes;
	size_t len, cap_bytes;
	bool oom;
	bool warnings;               /* it has IT_WARN items */
	struct tmx_error err;        /* ERROR's */
	/*
	 * Buffers of decompressed chunks: [0, n_used) hold the run's chunks
	 * (its records' bytes), the others are spare, for the cursor.
	 */
	struct chunk_buf {
		uint8_t *p;
		size_t cap;
	} *bufs;
	size_t n_used, n_bufs, cap_bufs;
};

struct worker {
	struct tcr_par *par;
	struct tdat_cursor **cur;    /* per unit, opened when first needed */
	struct batch *b;             /* being filled: the outbuf drains into it */
	uint64_t base;               /* outbuf_pos() at its first byte */
	bool sealing;                /* the batch's last flush: no room wanted after it */
	struct tmx_warn_capture capture;
	struct outbuf out;
};

/* Where the main thread is in a unit's batches. */
struct reader {
	struct batch *b;
	size_t pos;
	const struct tdat_record *head;  /* the record at pos, once peeked */
	bool ended;                  /* took NULL from the pool */
	size_t taken;                /* batches taken: runs before it are printed */
	size_t released;             /* pieces handed back to the kernel (tdat_cpu_release()) */
};

/* A unit as its workers see it: copies of what they read of the handle and of the report. */
struct unit {
	const struct tcr_file *tf;
	size_t buffer, cpu_index;    /* its cursor's */
	const char *label;
	/*
	 * Its records' bytes are in buffers of decompressed chunks, which its
	 * cursors hand to the batches; else they stay in the mapped file, valid
	 * until it is closed.
	 */
	bool compressed;
	/*
	 * Its runs: run k is pieces [runs[k], runs[k + 1]).  The first ones
	 * are small (the main thread starts early, short traces have several
	 * runs), doubling up to the run size.
	 */
	size_t *runs;
	size_t n_runs;
	uint64_t piece_bytes;        /* of ring buffer, on average */
};

struct tcr_par {
	struct tcr *r;
	struct tcr rc;               /* the report's settings for the workers: a copy */
	struct par_pool *pool;
	struct unit *units;
	struct reader *readers;
	size_t n_units;
};

/* ---- Batches (worker side) ---- */

static void batch_reset(struct batch *b)
{
	/* (the items are not walked without warnings: the main thread's core has them) */
	for (size_t i = 0; b->warnings && i < b->n; i++)
		if (b->items[i].kind == IT_WARN)
			free(b->items[i].warning);
	b->warnings = false;
	b->n = 0;
	b->len = 0;
	b->oom = false;
	b->n_used = 0;   /* every chunk buffer spare */
}

/* With room for two items: what ends a batch always fits (add_item()). */
static void *batch_new(void *ctx)
{
	struct batch *b = calloc(1, sizeof(*b));

	(void)ctx;
	if (b && !tmx_grow_array((void **)&b->items, &b->cap, 2, sizeof(*b->items), 64)) {
		free(b);
		b = NULL;
	}
	return b;
}

static void batch_free(void *ctx, void *p)
{
	struct batch *b = p;

	(void)ctx;
	batch_reset(b);
	for (size_t i = 0; i < b->n_bufs; i++)
		free(b->bufs[i].p);
	free(b->bufs);
	free(b->items);
	free(b->bytes);
	free(b);
}

/*
 * When the batch's bytes have OUTBUF_SIZE bytes of room left, the worker's
 * outbuf writes there: each record's copy and line parts are written where
 * they stay, and a flush only counts them (as the parallel runner's
 * workers do, src/par/worker.c).  Else it writes to its own buffer and
 * drain() copies.  The batch is not grown for it: a batch grows only as
 * its bytes need (its memory bounded by PAR_BUDGET), and a batch handed
 * back keeps its size, so that the batches of long runs are written in
 * place from their second use on.
 */
static void aim(struct worker *w, struct batch *b)
{
	if (b->cap_bytes >= b->len && b->cap_bytes - b->len >= OUTBUF_SIZE)
		outbuf_set_data(&w->out, b->bytes + b->len);
	else
		outbuf_set_data(&w->out, w->out.store);
}

/* The worker's outbuf flushes here. */
static void drain(void *ctx, const char *data, size_t len)
{
	struct worker *w = ctx;
	struct batch *b = w->b;

	if (!b || b->oom)
		return;
	if (data == b->bytes + b->len)   /* written in place (aim) */
		b->len += len;
	else if (len && !tmx_grow_append(&b->bytes, &b->cap_bytes, &b->len, data, len, 64 * 1024))
		b->oom = true;
	if (!w->sealing && !b->oom)
		aim(w, b);
}

/* A new item; one more slot is always kept for the error or end that closes a batch. */
static inline struct item *add_item(struct batch *b, enum item_kind kind)
{
	struct item *it;

	/* (the common case, room for it, without tmx_grow_array's call) */
	if (__builtin_expect(b->n + 2 > b->cap, 0) &&
	    !tmx_grow_array((void **)&b->items, &b->cap, b->n + 2, sizeof(*b->items), 64)) {
		b->oom = true;
		return NULL;
	}
	it = &b->items[b->n++];
	it->kind = kind;
	it->warning = NULL;
	return it;
}

/* The cursor's warnings, in their place among its records. */
static void capture_warning(void *ctx, const struct tmx_diag *diag, const void *key,
			    const char *msg)
{
	struct worker *w = ctx;
	struct item *it = add_item(w->b, IT_WARN);

	(void)diag;   /* the report's own (o->diag), replayed with it */
	(void)key;    /* the cursors warn with tmx_warn(): no key */
	w->b->warnings = true;
	if (it && !(it->warning = strdup(msg)))
		w->b->oom = true;
}

static void *worker_new(void *ctx)
{
	struct tcr_par *par = ctx;
	struct worker *w = malloc(sizeof(*w));

	if (w && !(w->cur = calloc(par->n_units, sizeof(*w->cur)))) {
		free(w);
		w = NULL;
	}
	if (w) {
		w->par = par;
		w->b = NULL;
		w->sealing = false;
		w->capture = (struct tmx_warn_capture){ .put = capture_warning, .ctx = w };
		outbuf_init(&w->out, -1);
		outbuf_set_drain(&w->out, drain, w);
	}
	return w;
}

static void worker_free(void *ctx, void *p)
{
	struct tcr_par *par = ctx;
	struct worker *w = p;

	for (size_t u = 0; u < par->n_units; u++)
		tdat_cursor_close(w->cur[u]);
	free(w->cur);
	free(w);
}

static uint32_t rel(const struct worker *w)
{
	return (uint32_t)(outbuf_pos(&w->out) - w->base);
}

/*
 * The cursor's buffer of decompressed data, which holds records of the
 * batch, becomes the batch's; a spare one goes to the cursor (room was made
 * for it: chunk_room()).
 */
static uint8_t *hand(void *ctx, uint8_t *buf, size_t cap, size_t *new_cap)
{
	struct batch *b = ((struct worker *)ctx)->b;
	struct chunk_buf spare = { NULL, 0 };

	if (b->n_used < b->n_bufs)
		spare = b->bufs[b->n_used];
	else
		b->n_bufs++;
	b->bufs[b->n_used++] = (struct chunk_buf){ buf, cap };
	*new_cap = spare.cap;
	return spare.p;
}

/* Room in b for the buffers of `chunks` chunks; false: out of memory. */
static bool chunk_room(struct batch *b, size_t chunks)
{
	return tmx_grow_array((void **)&b->bufs, &b->cap_bufs, b->n_bufs + chunks, sizeof(*b->bufs),
			      8);
}

/* One record into the batch: the parts of its line. */
static void add_record(struct worker *w, const struct unit *un, const struct tdat_record *rec)
{
	const struct tcr *r = &w->par->rc;
	const struct tcr_file *tf = un->tf;
	struct item *it = add_item(w->b, IT_REC);
	const struct tep_event *ev = common_inside(tf, rec) ? tcr_event_of(tf, rec) : NULL;
	struct tcr_parts *p;

	if (!it)
		return;
	it->rec = *rec;
	p = &it->parts;
	p->at[TCR_HEAD] = rel(w);
	p->whole = !tcr_put_head(r, &w->out, tf, un->label, rec);
	p->at[TCR_PID_CPU] = p->at[TCR_TIME] = p->at[TCR_TEXT] = p->at[TCR_END] = rel(w);
	p->rendered = false;
	p->pid = 0;
	if (p->whole)
		return;
	p->pid = tcr_pid(tf, rec);
	if (!r->o->latency)
		tcr_put_pid_cpu(&w->out, p->pid, rec->cpu);
	p->at[TCR_TIME] = rel(w);
	tcr_put_time_col(r, &w->out, tf, rec_time(tf, rec));
	p->at[TCR_TEXT] = rel(w);
	p->rendered = tcr_put_name_text(&w->out, tf, ev, rec);
	p->at[TCR_END] = rel(w);
}

/* The worker's cursor of unit u, over run k (an error item when it cannot be opened). */
static struct tdat_cursor *run_cursor(struct worker *w, const struct unit *un, size_t u, size_t k,
				      struct tmx_error *err)
{
	if (!w->cur[u]) {
		if (tdat_cursor_open(un->tf->f, un->buffer, un->cpu_index, &w->cur[u], err))
			return NULL;
		if (un->compressed)
			tdat_cursor_hand_buffers(w->cur[u], hand, w);
	}
	tdat_cursor_range(w->cur[u], un->runs[k], un->runs[k + 1]);
	return w->cur[u];
}

/* pool fill(): run k of unit u, then its end if it is the last run, or its error. */
static bool fill(void *ctx, void *ws, size_t u, size_t k, void *p)
{
	struct tcr_par *par = ctx;
	struct worker *w = ws;
	struct batch *b = p;
	const struct unit *un = &par->units[u];
	struct tdat_cursor *cur;
	struct tmx_error err = { 0 };
	bool last = false, failed = false;

	batch_reset(b);
	w->b = b;
	w->base = outbuf_pos(&w->out);
	aim(w, b);
	tmx_warn_capture_set(&w->capture);
	/* (the run's chunks, and the one its cursor holds from the run before) */
	if (un->compressed && !chunk_room(b, un->runs[k + 1] - un->runs[k] + 1))
		b->oom = true;
	cur = b->oom ? NULL : run_cursor(w, un, u, k, &err);
	failed = !cur && !b->oom;
	while (!last && !failed && !b->oom) {
		const struct tdat_record *rec;

		if (tdat_cursor_next(cur, &rec, &err))
			failed = true;
		else if (!rec)
			last = true;
		else
			add_record(w, un, rec);
	}
	tmx_warn_capture_set(NULL);
	if (cur)
		tdat_cursor_hand_over(cur);   /* its last chunk's records are the batch's */
	w->sealing = true;
	outbuf_flush(&w->out);
	w->sealing = false;
	/* Nothing written between batches reaches one. */
	outbuf_set_data(&w->out, w->out.store);
	w->b = NULL;
	if (b->oom) {
		/* what lost its bytes goes; the error closes the unit where it happened */
		while (b->n && b->items[b->n - 1].kind == IT_REC &&
		       b->items[b->n - 1].parts.at[TCR_END] > b->len)
			b->n--;
		tmx_error_set(&err, TMX_ERR_NOMEM, NULL, "out of memory for the worker threads");
		failed = true;
	}
	if (failed) {
		b->err = err;
		b->items[b->n++] = (struct item){ .kind = IT_ERROR };
	} else if (k + 1 == un->n_runs) {
		b->items[b->n++] = (struct item){ .kind = IT_END };
	}
	for (size_t i = 0; i < b->n; i++)
		b->items[i].parts.base = b->bytes;
	return failed;
}

static const struct par_pool_ops pool_ops = {
	.worker_new = worker_new,
	.worker_free = worker_free,
	.batch_new = batch_new,
	.batch_free = batch_free,
	.fill = fill,
};

/* ---- The main thread ---- */

/*
 * The mapped pages of the runs printed so far handed back to the kernel,
 * RELEASE_BYTES at a time: a worker's cursor over a short run does not
 * (each madvise() is a TLB shoot-down on the other CPUs).
 */
static void release_printed(struct tcr_par *par, size_t u)
{
	struct reader *rd = &par->readers[u];
	const struct unit *un = &par->units[u];
	size_t upto = un->runs[rd->taken < un->n_runs ? rd->taken : un->n_runs];

	if ((upto - rd->released) * un->piece_bytes >= RELEASE_BYTES) {
		tdat_cpu_release(un->tf->f, un->buffer, un->cpu_index, rd->released, upto);
		rd->released = upto;
	}
}

/* The unit's next record, past its warnings (replayed now), as tdat_cursor_peek(). */
static int peek_slow(struct tcr *r, size_t u, const struct tdat_record **rec,
		     struct tmx_error *err)
{
	struct tcr_par *par = r->par;
	struct reader *rd = &par->readers[u];

	*rec = NULL;
	for (;;) {
		struct item *it;

		if (!rd->b) {
			if (rd->ended)
				return TMX_OK;
			release_printed(par, u);
			if (!(rd->b = par_pool_take(par->pool, u))) {
				rd->ended = true;
				return tmx_error_set(err, TMX_ERR_NOMEM, NULL,
						     "out of memory for the worker threads");
			}
			rd->taken++;
			rd->pos = 0;
		}
		if (rd->pos == rd->b->n) {
			/* the batch's last record has been printed (report_order.c asks after) */
			par_pool_give_back(par->pool, rd->b);
			rd->b = NULL;
			continue;
		}
		it = &rd->b->items[rd->pos];
		switch (it->kind) {
		case IT_WARN:
			if (r->o->diag && r->o->diag->warn)
				r->o->diag->warn(r->o->diag->user, it->warning);
			rd->pos++;
			continue;
		case IT_REC:
			*rec = rd->head = &it->rec;
			return TMX_OK;
		case IT_END:
			return TMX_OK;
		case IT_ERROR:
			*err = rd->b->err;
			return err->code;
		}
	}
}

int tcr_par_peek(struct tcr *r, struct tcr_handle *h, size_t i, const struct tdat_record **rec,
		 struct tmx_error *err)
{
	const struct tdat_record *head = r->par->readers[h->unit + i].head;

	if (head) {
		*rec = head;
		return TMX_OK;
	}
	return peek_slow(r, h->unit + i, rec, err);
}

int tcr_par_next(struct tcr *r, struct tcr_handle *h, size_t i, const struct tdat_record **rec,
		 const struct tdat_record **head, struct tmx_error *err)
{
	struct reader *rd = &r->par->readers[h->unit + i];
	int ret = rd->head ? (*rec = rd->head, TMX_OK) : peek_slow(r, h->unit + i, rec, err);

	*head = NULL;
	if (!ret && *rec) {
		/* the next record is the next peek's when it follows in the batch (else peek_slow()) */
		rd->pos++;
		*head = rd->head = rd->pos < rd->b->n && rd->b->items[rd->pos].kind == IT_REC
					   ? &rd->b->items[rd->pos].rec : NULL;
	}
	return ret;
}

const struct tcr_parts *tcr_par_parts(const struct tdat_record *rec)
{
	return &((const struct item *)((const char *)rec - offsetof(struct item, rec)))->parts;
}

/* Whether workers may read ahead for this report (see the top of the file). */
static bool par_applies(const struct tcr *r)
{
	for (size_t i = 0; i < r->n_files; i++) {
		const struct tcr_file *tf = &r->files[i];

		if (!tf->primed || !tf->ids_all)
			return false;
	}
	return !r->o->profile;
}

static void par_free(struct tcr_par *par)
{
	for (size_t u = 0; u < par->n_units; u++)
		free(par->units[u].runs);
	free(par->units);
	free(par->readers);
	free(par);
}

/*
 * Unit un's runs: one piece, then twice as many each time up to the run
 * size: `bytes` of ring buffer, and at most an eighth of a worker's share
 * of the CPU (so that a CPU holding most of the trace keeps every worker
 * busy to its end), at least one piece.  A CPU without data has one empty
 * run (its end).
 */
static bool cut_runs(struct unit *un, size_t bytes, size_t workers)
{
	const struct tdat_file *f = un->tf->f;
	const struct tdat_buffer *b = &f->buffers[un->buffer];
	const struct tdat_cpu_data *cd = &b->cpus[un->cpu_index];
	size_t pieces = tdat_cpu_pieces(f, un->buffer, un->cpu_index), max, step = 1, n = 0;
	uint64_t piece_bytes = pieces ? cd->uncompressed_size / pieces : 1;

	un->piece_bytes = piece_bytes;

	max = piece_bytes && bytes / piece_bytes > 1 ? (size_t)(bytes / piece_bytes) : 1;
	if (max > pieces / (8 * workers))
		max = pieces / (8 * workers) ? pieces / (8 * workers) : 1;
	for (size_t at = 0; at < pieces; at += step, step = step * 2 < max ? step * 2 : max)
		n++;
	if (!(un->runs = malloc(((n ? n : 1) + 1) * sizeof(*un->runs))))
		return false;
	un->n_runs = n ? n : 1;
	un->runs[0] = 0;
	un->runs[1] = 0;
	step = 1;
	for (size_t k = 0, at = 0; k < n; k++, at += step, step = step * 2 < max ? step * 2 : max)
		un->runs[k + 1] = at + step < pieces ? at + step : pieces;
	return true;
}

int tcr_par_start(struct tcr *r, unsigned jobs, struct tmx_error *err)
{
	struct tcr_par *par;
	size_t n_cur = 0, workers, depth, run_bytes, *counts;
	int ret;

	if (!jobs)
		jobs = tmx_cpu_count();
	if (jobs <= 1 || !par_applies(r))
		return TMX_OK;
	for (size_t k = 0; k < r->n_handles; k++)
		n_cur += r->handles[k].n_cpus;
	if (!n_cur)
		return TMX_OK;
	if (!(par = calloc(1, sizeof(*par))) ||
	    !(par->units = calloc(n_cur, sizeof(*par->units)))) {
		if (par)
			par_free(par);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	par->r = r;
	par->rc = *r;
	workers = jobs;
	/* every worker on the CPU the main thread reads, and as many runs waiting for it */
	depth = 2 * workers;
	/* every unit's batches within the budget, but runs never below one piece */
	run_bytes = PAR_BUDGET / PAR_TEXT_RATIO / (n_cur * (depth + 1));
	if (run_bytes > PAR_RUN_MAX)
		run_bytes = PAR_RUN_MAX;
	for (size_t k = 0; k < r->n_handles; k++) {
		struct tcr_handle *h = &r->handles[k];

		/*
		 * Every CPU, also those that --cpu leaves out: the function graph
		 * look-ahead reads them (what is never asked for costs `depth`
		 * batches, its warnings and errors never come out).
		 */
		h->unit = par->n_units;
		for (size_t i = 0; i < h->n_cpus; i++) {
			struct unit *un = &par->units[par->n_units++];

			*un = (struct unit){ h->file, h->buffer, i, h->label,
					     h->file->f->buffers[h->buffer].cpus[i].compressed, NULL, 0, 0 };
			if (!cut_runs(un, run_bytes, workers)) {
				par_free(par);
				return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
			}
		}
	}
	if (!(par->readers = calloc(par->n_units, sizeof(*par->readers))) ||
	    !(counts = malloc(par->n_units * sizeof(*counts)))) {
		par_free(par);
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	}
	for (size_t u = 0; u < par->n_units; u++)
		counts[u] = par->units[u].n_runs;
	ret = par_pool_start(&par->pool, par->n_units, counts, workers, depth, &pool_ops, par, err);
	free(counts);
	if (ret) {
		par_free(par);
		return ret;
	}
	r->par = par;
	return TMX_OK;
}

void tcr_par_stop(struct tcr *r)
{
	struct tcr_par *par = r->par;

	if (!par)
		return;
	par_pool_stop(par->pool);
	for (size_t u = 0; u < par->n_units; u++)
		if (par->readers[u].b)
			batch_free(NULL, par->readers[u].b);
	par_free(par);
	r->par = NULL;
}
