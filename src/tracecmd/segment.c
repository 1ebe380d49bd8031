/*
 * A trace.dat stream read as segments (tmx_source_ops.stream_cost and
 * split_stream, for the parallel runner's src/par/split.c): consecutive
 * runs of its CPU's pieces, ring-buffer pages or compressed chunks of
 * whole pages, which decode independently (each page has its own time
 * base, and a record's missed-events flag is its page's).  Cursors over
 * consecutive ranges give the records, offsets, warnings and errors of
 * one cursor over the whole CPU (tdat_cursor_range).
 *
 * What the stream's message sequence carries from a page to the next is
 * worked out from the pieces, decoded here without a cursor (no warnings,
 * no skipped counts: the segment before reads them):
 *   - the stream's first record, found once when the stream is cut: the
 *     packet's begin time (one packet per CPU, from its first record to
 *     its last), begun before a segment that starts after it;
 *   - the time of the last record before a segment (on the thread that
 *     reads it, nearly always in the piece just before): the begin of a
 *     discarded-events range, the packet end of a last segment without
 *     records; looked for only when one of these needs it before the
 *     segment's first record gives it (tdm_seg_last: else a chunk more
 *     would be decompressed per segment);
 *   - the first segment is the stream's own iterator, from its
 *     beginning; only the last one ends the packet and the stream;
 *   - the "unknown event id" warnings, 3 per stream, are counted per
 *     segment and again in merged order by the runner (tmx_warn_limit).
 * Damaged pieces are passed over as a lenient cursor passes them (a
 * page up to its fault); without leniency the stream fails there anyway,
 * before any later segment's message is used.
 */
#include <stdlib.h>
#include <string.h>

#include "tracecmd/internal.h"
#include "tracecmd/source_impl.h"

struct tdm_seg {
	struct tdm_stream *s;       /* the stream itself for the first segment, else owned; the runner reads its iterator (s->seg is this) */
	const struct tdm_stream *parent;
	size_t cpu_index;
	size_t first, end;          /* its pieces */
	/* The stream's first record: its piece and ring-buffer time (found when cut). */
	bool has_first;
	size_t first_piece;
	uint64_t first_raw;
	bool owned;
	bool ended;
};

struct tdm_segs {
	struct tdm_seg **v;
	size_t n, cap;
};

static const struct tdat_cpu_data *cpu_of(const struct tdm_stream *s, size_t *cpu_index)
{
	*cpu_index = (size_t)(s->stream.id & 0xffffffffu);
	return &s->file->f->buffers[s->buffer].cpus[*cpu_index];
}

/* The stream of `it` when it is one of ts's and nothing of its data was read. */
static struct tdm_stream *unread_stream(const struct tdm_source *ts, const struct tmx_msg_iter *it)
{
	for (size_t i = 0; i < ts->n_streams; i++) {
		struct tdm_stream *s = ts->streams[i];

		if (&s->iter == it)
			return (s->state == S_BEGIN || s->state == S_PACKET) && !s->open_end ? s : NULL;
	}
	return NULL;
}

/* Bytes of piece k as decoded: a page, or a chunk decompressed. */
static uint64_t piece_bytes(const struct tdat_file *f, size_t buffer, size_t cpu_index, size_t k)
{
	const struct tdat_buffer *b = &f->buffers[buffer];
	const struct tdat_cpu_data *cd = &b->cpus[cpu_index];
	const struct tdat_cpu_priv *cp = tdat_priv(f)->cpu_priv[buffer] ?
					 &tdat_priv(f)->cpu_priv[buffer][cpu_index] : NULL;

	if (cd->compressed)
		return cp ? cp->chunks[k].usize : 0;
	return b->page_size ? b->page_size : f->page_size;
}

uint64_t tdm_stream_cost(const void *impl, const struct tmx_msg_iter *it)
{
	const struct tdm_stream *s = unread_stream(impl, it);
	const struct tdat_cpu_data *cd;
	size_t c;

	if (!s)
		return 0;
	cd = cpu_of(s, &c);
	if (tdat_cpu_pieces(s->file->f, s->buffer, c) < 2)
		return 0;
	return cd->compressed ? cd->uncompressed_size : cd->size;
}

/* ------------------------------------------------------------------ */
/* Records before a segment                                              */
/* ------------------------------------------------------------------ */

/* What a look at pieces before a segment reads them with. */
struct scan {
	const struct tdat_file *f;
	size_t buffer, cpu_index;
	uint32_t psize;
	uint8_t *buf;               /* a chunk decompressed */
	size_t cap;
	struct tdat_unpacker *u;    /* the file's, taken at the first chunk */
};

static void scan_end(struct scan *sc)
{
	free(sc->buf);
	tdat_unpacker_give(sc->f, sc->u);
}

/*
 * The ring-buffer times of the first and last records of the pages in
 * data[0, n), as a cursor reads them (a damaged page up to its fault);
 * false when none has a record.
 */
static bool pages_range(const struct tdat_file *f, const uint8_t *data, uint64_t n, uint32_t psize,
			uint64_t *first, uint64_t *last)
{
	bool any = false;

	for (uint64_t off = 0; off < n; off += psize) {
		struct tdat_page pg;
		struct tmx_error err;
		const uint8_t *d;
		uint32_t len;
		uint64_t avail = n - off;

		if (tdat_page_start(&pg, f, data + off, (uint32_t)(avail < psize ? avail : psize), &err,
				    0))
			continue;
		while (!tdat_page_next(&pg, &d, &len, &err, 0) && d) {
			if (!any)
				*first = pg.ts;
			*last = pg.ts;
			any = true;
		}
	}
	return any;
}

/* Times of the first and last records of piece k; false when it has none. */
static bool piece_range(struct scan *sc, size_t k, uint64_t *first, uint64_t *last)
{
	const struct tdat_file *f = sc->f;
	const struct tdat_cpu_data *cd = &f->buffers[sc->buffer].cpus[sc->cpu_index];
	const struct tdat_cpu_priv *cp;
	const struct tdat_chunk *ch;
	struct tmx_error err;

	if (!cd->compressed) {
		uint64_t off = (uint64_t)k * sc->psize;

		if (off >= cd->size)
			return false;
		return pages_range(f, f->data + cd->offset + off,
				   cd->size - off < sc->psize ? cd->size - off : sc->psize, sc->psize,
				   first, last);
	}
	cp = tdat_priv(f)->cpu_priv[sc->buffer] ? &tdat_priv(f)->cpu_priv[sc->buffer][sc->cpu_index]
						: NULL;
	if (!cp || k >= cd->n_chunks)
		return false;
	ch = &cp->chunks[k];
	/* A chunk that does not decompress is passed over, as a lenient cursor passes it. */
	if (!sc->u)
		sc->u = tdat_unpacker_take(f);
	if (tdat_decompress_with(sc->u, tdat_priv(f)->algo, f->data + ch->offset, ch->csize,
				 ch->usize, &sc->buf, &sc->cap, f->path, ch->offset, &err))
		return false;
	return pages_range(f, sc->buf, ch->usize, sc->psize, first, last);
}

/*
 * What the stream's sequence holds when segment g starts: the packet
 * begun (first record's time) and a last record, whose time
 * tdm_seg_last finds when asked; or nothing.
 */
void tdm_seg_start(struct tdm_seg *g)
{
	struct tdm_stream *s = g->s;
	const struct tdat_file *f = s->file->f;
	uint64_t first;

	s->state = S_PACKET;
	if (!g->has_first || g->first_piece >= g->first)
		return;
	first = tdat_convert_ts_cpu(f, g->first_raw, f->buffers[s->buffer].cpus[g->cpu_index].cpu);
	s->have_last = true;
	s->last_pending = true;
	s->packet.has_begin = true;
	s->packet.begin_cycles = first;
	s->packet.begin_ns = first > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)first;
	s->state = S_EVENTS;
}

/* s->last_ts: the time of the last record before its segment (s->last_pending). */
void tdm_seg_last(struct tdm_stream *s)
{
	const struct tdm_seg *g = s->seg;
	const struct tdat_file *f = s->file->f;
	const struct tdat_buffer *b = &f->buffers[s->buffer];
	struct scan sc = { f, s->buffer, g->cpu_index, b->page_size ? b->page_size : f->page_size,
			   NULL, 0, NULL };
	uint64_t a, last = 0;
	bool found = false;

	s->last_pending = false;
	/* Nearly always in the piece just before; the first record is in first_piece. */
	for (size_t k = g->first; k-- > g->first_piece && !found;)
		found = piece_range(&sc, k, &a, &last);
	scan_end(&sc);
	s->have_last = found;   /* (not found: out of memory) */
	s->last_ts = found ? tdat_convert_ts_cpu(f, last, b->cpus[g->cpu_index].cpu) : 0;
}

/* ------------------------------------------------------------------ */
/* Segments                                                              */
/* ------------------------------------------------------------------ */

/* At its end (or error): the pages it mapped and its buffers go (once). */
void tdm_seg_end(struct tdm_seg *g)
{
	const struct tdm_stream *s = g->s;

	if (g->ended)
		return;
	g->ended = true;
	tdat_cursor_drop_buffers(s->cur);
	tdat_cpu_release(s->file->f, s->buffer, g->cpu_index, g->first, g->end);
}

static void seg_free(struct tdm_seg *g)
{
	if (!g)
		return;
	if (g->owned)
		tdm_stream_free(g->s);
	free(g);
}

/* A stream of its own over pieces [g->first, g->end) of p's CPU, naming p's stream. */
static int seg_stream(struct tdm_seg *g, const struct tdm_stream *p, struct tmx_error *err)
{
	struct tdm_stream *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return tdm_nomem(err);
	g->s = s;
	g->owned = true;
	s->iter.next = tdm_stream_next;
	s->iter.destroy = tdm_stream_keep;
	s->state = S_SEG_START;
	s->file = p->file;
	s->buffer = p->buffer;
	s->stream = p->stream;
	s->stream.name = NULL;    /* p's; messages name p->stream */
	s->as = &p->stream;
	s->packet = p->packet;
	s->packet.stream = &p->stream;
	s->packet.context = s->pctx;
	memcpy(s->pctx, p->pctx, sizeof(s->pctx));
	if ((ret = tdat_cursor_open(p->file->f, p->buffer, g->cpu_index, &s->cur, err)))
		return ret;
	tdat_cursor_range(s->cur, g->first, g->end);
	return TMX_OK;
}

static int segs_add(struct tdm_source *ts, struct tdm_seg *g, struct tmx_error *err)
{
	struct tdm_segs *l = ts->segs;

	if (!l && !(l = ts->segs = calloc(1, sizeof(*l))))
		return tdm_nomem(err);
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		void *v = realloc(l->v, cap * sizeof(*l->v));

		if (!v)
			return tdm_nomem(err);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = g;
	return TMX_OK;
}

/*
 * Where the segments end: pieces taken until they hold seg_bytes, a last
 * run shorter than half of it joined to the one before.  From the data's
 * layout alone.  Returns the count; ends[] has room for n_pieces.
 */
static size_t cut(const struct tdat_file *f, size_t buffer, size_t cpu_index, size_t n_pieces,
		  uint64_t seg_bytes, size_t *ends)
{
	uint64_t acc = 0;
	size_t n = 0;

	for (size_t k = 0; k < n_pieces; k++) {
		acc += piece_bytes(f, buffer, cpu_index, k);
		if (acc >= seg_bytes) {
			ends[n++] = k + 1;
			acc = 0;
		}
	}
	if (acc && n && acc < seg_bytes / 2)
		ends[n - 1] = n_pieces;
	else if (acc || !n)
		ends[n++] = n_pieces;
	return n;
}

int tdm_split_stream(void *impl, struct tmx_msg_iter *it, uint64_t seg_bytes,
		     struct tmx_msg_iter ***segs, size_t *n, struct tmx_error *err)
{
	struct tdm_source *ts = impl;
	struct tdm_stream *p = unread_stream(ts, it);
	size_t cpu_index, n_pieces, n_segs, first_piece, *ends = NULL;
	uint64_t first_raw = 0;
	bool has_first = false;
	struct tmx_msg_iter **out = NULL;
	int ret = TMX_OK;

	*segs = NULL;
	*n = 0;
	if (!p)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL, "this stream cannot be read in segments");
	cpu_of(p, &cpu_index);
	n_pieces = tdat_cpu_pieces(p->file->f, p->buffer, cpu_index);
	if (!(ends = malloc((n_pieces ? n_pieces : 1) * sizeof(*ends))))
		return tdm_nomem(err);
	n_segs = cut(p->file->f, p->buffer, cpu_index, n_pieces, seg_bytes ? seg_bytes : 1, ends);
	/* The stream's first record, for every segment's packet. */
	{
		const struct tdat_buffer *b = &p->file->f->buffers[p->buffer];
		struct scan sc = { p->file->f, p->buffer, cpu_index,
				   b->page_size ? b->page_size : p->file->f->page_size, NULL, 0, NULL };
		uint64_t z;

		for (first_piece = 0; first_piece < n_pieces; first_piece++)
			if ((has_first = piece_range(&sc, first_piece, &first_raw, &z)))
				break;
		scan_end(&sc);
	}
	if (!(out = calloc(n_segs, sizeof(*out)))) {
		free(ends);
		return tdm_nomem(err);
	}
	for (size_t k = 0; k < n_segs && !ret; k++) {
		struct tdm_seg *g = calloc(1, sizeof(*g));

		if (!g) {
			ret = tdm_nomem(err);
			break;
		}
		g->parent = p;
		g->cpu_index = cpu_index;
		g->first = k ? ends[k - 1] : 0;
		g->end = ends[k];
		g->has_first = has_first;
		g->first_piece = first_piece;
		g->first_raw = first_raw;
		if (k == 0) {
			g->s = p;                 /* the stream itself, from where it is */
			tdat_cursor_range(p->cur, 0, g->end);
		} else if ((ret = seg_stream(g, p, err))) {
			seg_free(g);
			break;
		}
		g->s->open_end = k + 1 < n_segs;
		g->s->seg = g;
		if ((ret = segs_add(ts, g, err))) {
			seg_free(g);
			break;
		}
		out[k] = &g->s->iter;
	}
	free(ends);
	if (ret) {
		/* The stream is read whole again; segments made are freed with the source. */
		p->open_end = false;
		p->seg = NULL;
		tdat_cursor_range(p->cur, 0, n_pieces);
		free(out);
		return ret;
	}
	*segs = out;
	*n = n_segs;
	return TMX_OK;
}

uint64_t tdm_segments_bytes_read(const struct tdm_source *ts)
{
	uint64_t sum = 0;

	for (size_t i = 0; ts->segs && i < ts->segs->n; i++)
		if (ts->segs->v[i]->owned && ts->segs->v[i]->s->cur)
			sum += tdat_cursor_bytes_read(ts->segs->v[i]->s->cur);
	return sum;
}

void tdm_segments_free(struct tdm_source *ts)
{
	if (!ts->segs)
		return;
	for (size_t i = 0; i < ts->segs->n; i++)
		seg_free(ts->segs->v[i]);
	free(ts->segs->v);
	free(ts->segs);
	ts->segs = NULL;
}
