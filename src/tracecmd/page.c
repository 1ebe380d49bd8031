/*
 * Ring-buffer pages and per-CPU cursors.
 *
 * A page is the kernel's sub-buffer: a 64-bit timestamp, the `commit` word
 * (a kernel long: data size in the low 27 bits, bit 31 "events were
 * missed before this page", bit 30 "their count is stored after the
 * data"), then the events.  Each event starts with a 32-bit word: type_len
 * (5 bits) and time_delta (27 bits), their order depending on the byte
 * order.  The decoding follows libtraceevent's kbuffer exactly (so that
 * timestamps and record sizes are what trace-cmd shows), with every read
 * checked against the commit instead of trusted.
 *
 * A cursor walks the pages of one CPU: straight from the mapped file, or
 * one decompressed chunk at a time (chunks hold whole pages).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracecmd/internal.h"
#include "common/errors.h"
#include "common/progress_count.h"

#define COMMIT_MASK ((1u << 27) - 1)
#define MISSING_EVENTS (1ull << 31)
#define MISSING_STORED (1ull << 30)
#define TS_SHIFT 27
#define TS_MSB (0xf8ull << 56)

enum {
	TYPE_PADDING = 29,
	TYPE_TIME_EXTEND = 30,
	TYPE_TIME_STAMP = 31,
};

static int page_fail(struct tdat_page *pg, struct tmx_error *err, uint64_t file_offset,
		     uint32_t at, const char *what)
{
	return tmx_error_at(err, TMX_ERR_DATA, pg->file->path, file_offset + at,
			    "ring-buffer page: %s", what);
}

int tdat_page_start(struct tdat_page *pg, const struct tdat_file *f, const uint8_t *page,
		    uint32_t size, struct tmx_error *err, uint64_t file_offset)
{
	uint32_t hdr = f->page_header_size, klong = f->kernel_long_size;
	uint64_t flags;

	pg->file = f;
	pg->page = page;
	pg->size = size;
	pg->pos = 0;
	pg->commit = 0;
	pg->missed_events = 0;
	if (klong != 4 && klong != 8)
		klong = 8;
	if (hdr < 8 + klong)
		hdr = 8 + klong;
	if (size < hdr)
		return page_fail(pg, err, file_offset, 0, "shorter than its header");
	pg->ts = tdat_read64(f, page);
	flags = klong == 8 ? tdat_read64(f, page + 8) : tdat_read32(f, page + 8);
	pg->commit = (uint32_t)flags & COMMIT_MASK;
	if (pg->commit > size - hdr) {
		char msg[120];
		snprintf(msg, sizeof(msg), "commit of %u data bytes, the page holds %u", pg->commit,
			 size - hdr);
		pg->commit = 0;
		return page_fail(pg, err, file_offset, 8, msg);
	}
	if (flags & MISSING_EVENTS) {
		pg->missed_events = -1;
		if (flags & MISSING_STORED) {
			/* The count follows the data, when the page has room for it. */
			if ((uint64_t)hdr + pg->commit + klong <= size) {
				const uint8_t *p = page + hdr + pg->commit;
				pg->missed_events = (int64_t)(klong == 8 ? tdat_read64(f, p)
									 : tdat_read32(f, p));
			}
		}
	}
	/* pos counts from the start of the page data. */
	pg->page = page + hdr;
	pg->header_size = hdr;
	return TMX_OK;
}

int tdat_page_next(struct tdat_page *pg, const uint8_t **data, uint32_t *len,
		   struct tmx_error *err, uint64_t file_offset)
{
	const struct tdat_file *f = pg->file;

	for (;;) {
		uint32_t pos = pg->pos, w, type_len, delta, p;
		uint64_t next, length;

		if (pos >= pg->commit) {
			*data = NULL;
			*len = 0;
			return TMX_OK;
		}
		if (pg->commit - pos < 4) {
			pg->pos = pg->commit;
			return tmx_error_at(err, TMX_ERR_DATA, f->path,
					    file_offset + pg->header_size + pos,
					    "ring-buffer page: event header crosses the end of the data");
		}
		w = tdat_read32(f, pg->page + pos);
		if (f->big_endian) {
			type_len = w >> 27;
			delta = w & ((1u << 27) - 1);
		} else {
			type_len = w & 31;
			delta = w >> 5;
		}
		p = pos + 4;
		switch (type_len) {
		case TYPE_PADDING:
			/*
			 * Discarded event (length in the next word) or the end of
			 * the page; its delta still counts (kbuffer).
			 */
			if (pg->commit - p < 4) {
				pg->ts += delta;
				pg->pos = pg->commit;
				continue;
			}
			length = tdat_read32(f, pg->page + p);
			pg->ts += delta;
			next = (uint64_t)p + length;
			break;
		case TYPE_TIME_EXTEND:
		case TYPE_TIME_STAMP: {
			uint64_t ext;
			if (pg->commit - p < 4) {
				pg->pos = pg->commit;
				return tmx_error_at(err, TMX_ERR_DATA, f->path,
						    file_offset + pg->header_size + pos,
						    "ring-buffer page: time %s crosses the end of the data",
						    type_len == TYPE_TIME_STAMP ? "stamp" : "extend");
			}
			ext = (uint64_t)tdat_read32(f, pg->page + p) << TS_SHIFT;
			ext += delta;
			if (type_len == TYPE_TIME_STAMP)
				pg->ts = ext | (pg->ts & TS_MSB);
			else
				pg->ts += ext;
			next = (uint64_t)p + 4;
			break;
		}
		case 0: {
			uint32_t l;
			if (pg->commit - p < 4) {
				pg->pos = pg->commit;
				return tmx_error_at(err, TMX_ERR_DATA, f->path,
						    file_offset + pg->header_size + pos,
						    "ring-buffer page: event length crosses the end of the data");
			}
			l = tdat_read32(f, pg->page + p);
			if (l < 4) {
				pg->pos = pg->commit;
				return tmx_error_at(err, TMX_ERR_DATA, f->path,
						    file_offset + pg->header_size + p,
						    "ring-buffer page: event length %u (at least 4 expected)", l);
			}
			length = ((uint64_t)l - 4 + 3) & ~3ull;
			p += 4;
			pg->ts += delta;
			next = (uint64_t)p + length;
			break;
		}
		default:
			length = (uint64_t)type_len * 4;
			pg->ts += delta;
			next = (uint64_t)p + length;
			break;
		}
		if (next > pg->commit) {
			pg->pos = pg->commit;
			return tmx_error_at(err, TMX_ERR_DATA, f->path,
					    file_offset + pg->header_size + pos,
					    "ring-buffer page: event of %llu bytes runs past the end of the "
					    "data (%u bytes)", (unsigned long long)(next - pos), pg->commit);
		}
		pg->pos = (uint32_t)next;
		if (type_len >= TYPE_PADDING)
			continue;
		*data = pg->page + p;
		*len = (uint32_t)(next - p);
		return TMX_OK;
	}
}

/* ------------------------------------------------------------------ */
/* Cursors                                                               */
/* ------------------------------------------------------------------ */

#define RELEASE_STEP (4u << 20)

struct tdat_cursor {
	const struct tdat_file *f;
	struct tdat_file_priv *fp;
	uint32_t buffer;
	const struct tdat_cpu_data *cd;
	const struct tdat_cpu_priv *cp;
	uint32_t page_size;

	/* Uncompressed: offset in the CPU data of the next page, and where the range ends. */
	uint64_t pos, end;
	uint64_t released;    /* bytes of the CPU data handed back to the kernel */

	/* Compressed: the current chunk, decompressed; the range ends before end_chunk. */
	uint32_t next_chunk, end_chunk;
	uint8_t *cbuf;
	size_t ccap, clen, cpos;
	uint64_t cbase;       /* offset of cbuf[0] in the CPU's decompressed data */
	uint64_t chunk_file_off;
	uint32_t chunk_index;
	uint64_t fail_bytes;  /* size of what the last failed load covered */
	struct tdat_unpacker *unp;   /* the file's, from the first chunk to the end (or NULL) */
	tdat_hand_fn hand;          /* cbuf handed there before it is reused (or NULL) */
	void *hand_ctx;
	bool chunk_in_buf;          /* cbuf holds a chunk (whose records may be in use) */

	bool have_page;
	bool first_in_page;
	struct tdat_page pg;
	uint64_t page_off;    /* file offset (plain) or decompressed offset of the page */

	bool done;
	bool has_peek;
	struct tdat_record rec;

	/*
	 * tdat_cursor_bytes_read(): the bytes of the range's pieces passed, as
	 * stored, from bytes_base (where the range starts); written by the
	 * reading thread per page or chunk, read by any (progress_count.h).
	 */
	uint64_t bytes_base, bytes_read;
};

int tdat_cursor_open(const struct tdat_file *f, size_t buffer, size_t cpu_index,
		     struct tdat_cursor **out, struct tmx_error *err)
{
	struct tdat_file_priv *fp = tdat_priv(f);
	struct tdat_cursor *c;

	*out = NULL;
	if (buffer >= f->n_buffers || cpu_index >= f->buffers[buffer].n_cpus)
		return tmx_error_set(err, TMX_ERR_USAGE, f->path, "no CPU %zu in buffer %zu",
				     cpu_index, buffer);
	c = calloc(1, sizeof(*c));
	if (!c)
		return tmx_error_set(err, TMX_ERR_NOMEM, f->path, "out of memory");
	c->f = f;
	c->fp = fp;
	c->buffer = (uint32_t)buffer;
	c->cd = &f->buffers[buffer].cpus[cpu_index];
	c->cp = fp->cpu_priv[buffer] ? &fp->cpu_priv[buffer][cpu_index] : NULL;
	c->page_size = f->buffers[buffer].page_size ? f->buffers[buffer].page_size : f->page_size;
	c->rec.file = f;
	c->rec.buffer = (uint32_t)buffer;
	c->rec.cpu = c->cd->cpu;
	tdat_cursor_range(c, 0, tdat_cpu_pieces(f, buffer, cpu_index));
	*out = c;
	return TMX_OK;
}

size_t tdat_cpu_pieces(const struct tdat_file *f, size_t buffer, size_t cpu_index)
{
	const struct tdat_buffer *b = &f->buffers[buffer];
	const struct tdat_cpu_data *cd = &b->cpus[cpu_index];
	uint32_t psize = b->page_size ? b->page_size : f->page_size;

	if (cd->compressed)
		return cd->n_chunks;
	return psize ? (size_t)((cd->size + psize - 1) / psize) : 0;
}

/*
 * Where piece k starts in the CPU's data as stored (cd->size at the end):
 * pages at multiples of the page size, chunks at their compressed bytes
 * (headers counted with the chunk before), so that a cursor over the
 * whole CPU ends at cd->size, what tmx_stream_info.bytes says.
 */
static uint64_t piece_start(const struct tdat_cursor *c, size_t k, size_t n)
{
	if (k >= n)
		return c->cd->size;
	if (!c->cd->compressed)
		return (uint64_t)k * c->page_size;
	return c->cp ? c->cp->chunks[k].offset - c->cp->chunks[0].offset : 0;
}

uint64_t tdat_cursor_bytes_read(const struct tdat_cursor *c)
{
	return tmx_count_get(&c->bytes_read);
}

void tdat_cursor_range(struct tdat_cursor *c, size_t first, size_t end)
{
	size_t n = tdat_cpu_pieces(c->f, c->buffer, (size_t)(c->cd - c->f->buffers[c->buffer].cpus));

	if (end > n)
		end = n;
	if (first > end)
		first = end;
	c->have_page = c->done = c->has_peek = false;
	c->bytes_base = piece_start(c, first, n);
	tmx_count_set(&c->bytes_read, 0);
	if (!c->cd->compressed) {
		c->pos = c->released = (uint64_t)first * c->page_size;
		c->end = end == n ? c->cd->size : (uint64_t)end * c->page_size;
		return;
	}
	c->next_chunk = (uint32_t)first;
	c->end_chunk = (uint32_t)end;
	c->clen = c->cpos = 0;
	/* the chunk's place in the CPU's decompressed data: the records' offsets count from 0 */
	c->cbase = c->cp && first < n ? c->cp->chunks[first].ubase : 0;
}

void tdat_cursor_close(struct tdat_cursor *c)
{
	if (!c)
		return;
	free(c->cbuf);
	tdat_unpacker_give(c->f, c->unp);
	free(c);
}

void tdat_cursor_drop_buffers(struct tdat_cursor *c)
{
	free(c->cbuf);
	c->cbuf = NULL;
	c->chunk_in_buf = false;
	c->ccap = c->clen = c->cpos = 0;
	tdat_unpacker_give(c->f, c->unp);
	c->unp = NULL;
	c->has_peek = false;
	c->have_page = false;
	c->done = true;
}

void tdat_cursor_hand_buffers(struct tdat_cursor *c, tdat_hand_fn hand, void *ctx)
{
	c->hand = hand;
	c->hand_ctx = ctx;
}

void tdat_cursor_hand_over(struct tdat_cursor *c)
{
	size_t cap = 0;

	if (!c->hand || !c->chunk_in_buf)
		return;
	c->chunk_in_buf = false;
	c->cbuf = c->hand(c->hand_ctx, c->cbuf, c->ccap, &cap);
	c->ccap = c->cbuf ? cap : 0;
	/* (the chunk went with it) */
	c->cbase += c->clen;
	c->clen = c->cpos = 0;
	c->have_page = false;
}

/*
 * Hands the consumed part of the CPU data back to the kernel (bounded RSS),
 * RELEASE_STEP at a time (each madvise() is a TLB shoot-down on the other
 * CPUs).  A cursor over a short range releases nothing: its reader does
 * (tdat_cpu_release()).
 */
static void release_consumed(struct tdat_cursor *c)
{
	if (!c->fp->mapped || c->pos - c->released < RELEASE_STEP)
		return;
	tmx_mapfile_release(&c->fp->map, (size_t)(c->cd->offset + c->released),
			    (size_t)(c->pos - c->released));
	c->released = c->pos;
}

void tdat_cpu_release(const struct tdat_file *f, size_t buffer, size_t cpu_index, size_t first,
		      size_t end)
{
	struct tdat_file_priv *fp = tdat_priv(f);
	const struct tdat_buffer *b = &f->buffers[buffer];
	const struct tdat_cpu_data *cd = &b->cpus[cpu_index];
	uint64_t psize = b->page_size ? b->page_size : f->page_size, from = first * psize,
		 to = end * psize < cd->size ? end * psize : cd->size;

	if (fp->mapped && !cd->compressed && from < to)
		tmx_mapfile_release(&fp->map, (size_t)(cd->offset + from), (size_t)(to - from));
}

/* Loads the next page; sets c->done at the end of the CPU data. */
static int load_page(struct tdat_cursor *c, struct tmx_error *err)
{
	const uint8_t *page;
	uint64_t avail;
	int ret;

	c->have_page = false;
	if (!c->cd->compressed) {
		/* The pages before c->pos were read (or skipped as damaged). */
		tmx_count_set(&c->bytes_read, (c->pos < c->end ? c->pos : c->end) - c->bytes_base);
		if (c->pos >= c->end) {
			c->done = true;
			return TMX_OK;
		}
		avail = c->cd->size - c->pos;
		c->fail_bytes = avail < c->page_size ? avail : c->page_size;
		page = c->f->data + c->cd->offset + c->pos;
		c->page_off = c->cd->offset + c->pos;
		release_consumed(c);   /* the pages before this one (re-read from the file if needed) */
		c->pos += c->page_size;
		ret = tdat_page_start(&c->pg, c->f, page,
				      (uint32_t)(avail < c->page_size ? avail : c->page_size), err,
				      c->page_off);
		if (ret)
			tmx_error_prefix(err, "buffer \"%s\" CPU %u", c->f->buffers[c->buffer].name,
					 c->cd->cpu);
	} else {
		while (c->cpos >= c->clen) {
			const struct tdat_chunk *ch;
			/* The chunks before next_chunk were read (or skipped as damaged). */
			tmx_count_set(&c->bytes_read,
				      piece_start(c, c->cp && c->next_chunk < c->end_chunk ?
						     c->next_chunk : c->end_chunk, c->cd->n_chunks) -
				      c->bytes_base);
			if (!c->cp || c->next_chunk >= c->end_chunk) {
				c->done = true;
				return TMX_OK;
			}
			ch = &c->cp->chunks[c->next_chunk];
			c->cbase += c->clen;
			c->clen = 0;
			c->cpos = 0;
			c->chunk_index = c->next_chunk++;
			c->chunk_file_off = ch->offset;
			if (!c->unp)
				c->unp = tdat_unpacker_take(c->f);   /* (NULL: one per chunk) */
			tdat_cursor_hand_over(c);
			if ((ret = tdat_decompress_with(c->unp, c->fp->algo, c->f->data + ch->offset,
							ch->csize, ch->usize, &c->cbuf, &c->ccap,
							c->f->path, ch->offset, err))) {
				/* Lenient reading goes on with the next chunk. */
				c->cbase += ch->usize;
				c->fail_bytes = ch->usize;
				tmx_error_prefix(err, "buffer \"%s\" CPU %u, chunk %u",
						 c->f->buffers[c->buffer].name, c->cd->cpu, c->chunk_index);
				return ret;
			}
			c->chunk_in_buf = true;
			c->clen = ch->usize;
		}
		avail = c->clen - c->cpos;
		c->fail_bytes = avail < c->page_size ? avail : c->page_size;
		page = c->cbuf + c->cpos;
		c->page_off = c->cbase + c->cpos;
		c->cpos += c->page_size;
		ret = tdat_page_start(&c->pg, c->f, page,
				      (uint32_t)(avail < c->page_size ? avail : c->page_size), err, 0);
		if (ret) {
			/* Offsets inside decompressed data: name the chunk and the place in it. */
			err->offset = c->chunk_file_off;
			tmx_error_prefix(err, "buffer \"%s\" CPU %u, compressed chunk %u, page at byte %llu "
					 "of the CPU's decompressed data", c->f->buffers[c->buffer].name,
					 c->cd->cpu, c->chunk_index, (unsigned long long)c->page_off);
		}
	}
	if (ret)
		return ret;
	c->have_page = true;
	c->first_in_page = true;
	return TMX_OK;
}

static int advance(struct tdat_cursor *c, struct tmx_error *err)
{
	for (;;) {
		const uint8_t *data;
		uint32_t len;
		int ret;

		if (c->done)
			return TMX_OK;
		if (!c->have_page) {
			ret = load_page(c, err);
			if (ret && c->fp->opts.lenient) {
				char buf[TMX_ERROR_MSG_MAX + 600];
				tmx_error_format(err, buf, sizeof(buf));
				tmx_warn(c->fp->opts.diag, "%s (skipped)", buf);
				/* Streams may be read on several threads (src/par/). */
				__atomic_fetch_add(&c->fp->skipped_units, 1, __ATOMIC_RELAXED);
				__atomic_fetch_add(&c->fp->skipped_bytes, c->fail_bytes,
						   __ATOMIC_RELAXED);
				continue;
			}
			if (ret)
				return ret;
			continue;
		}
		ret = tdat_page_next(&c->pg, &data, &len, err, c->cd->compressed ? 0 : c->page_off);
		if (ret) {
			if (c->cd->compressed) {
				err->offset = c->chunk_file_off;
				tmx_error_prefix(err, "buffer \"%s\" CPU %u, compressed chunk %u, page at byte "
						 "%llu of the CPU's decompressed data",
						 c->f->buffers[c->buffer].name, c->cd->cpu, c->chunk_index,
						 (unsigned long long)c->page_off);
			} else {
				tmx_error_prefix(err, "buffer \"%s\" CPU %u", c->f->buffers[c->buffer].name,
						 c->cd->cpu);
			}
			c->have_page = false;
			if (c->fp->opts.lenient) {
				char buf[TMX_ERROR_MSG_MAX + 600];
				tmx_error_format(err, buf, sizeof(buf));
				tmx_warn(c->fp->opts.diag, "%s (rest of the page skipped)", buf);
				__atomic_fetch_add(&c->fp->skipped_units, 1, __ATOMIC_RELAXED);
				__atomic_fetch_add(&c->fp->skipped_bytes, c->pg.commit - c->pg.pos,
						   __ATOMIC_RELAXED);
				continue;
			}
			return ret;
		}
		if (!data) {
			c->have_page = false;
			continue;
		}
		struct tdat_record *r = &c->rec;
		r->ts_raw = c->pg.ts;
		r->ts = tdat_convert_ts_cpu(c->f, c->pg.ts, c->cd->cpu);
		r->data = data;
		r->size = len;
		/* The page's bytes after the data (pg.size counts the header). */
		r->avail = (uint32_t)(c->pg.page + (c->pg.size - c->pg.header_size) - data);
		r->missed_events = c->first_in_page ? c->pg.missed_events : 0;
		c->first_in_page = false;
		r->offset = c->page_off + c->pg.header_size + (uint64_t)(data - c->pg.page);
		r->event = NULL;
		if (len >= c->fp->type_offset + c->fp->type_size) {
			const uint8_t *t = data + c->fp->type_offset;
			uint32_t id = c->fp->type_size == 1 ? t[0]
				      : c->fp->type_size == 2 ? tdat_read16(c->f, t) : tdat_read32(c->f, t);
			r->event = tdat_file_event(c->f, id);
		}
		c->has_peek = true;
		return TMX_OK;
	}
}

int tdat_cursor_peek(struct tdat_cursor *c, const struct tdat_record **rec, struct tmx_error *err)
{
	int ret;

	*rec = NULL;
	if (!c->has_peek && (ret = advance(c, err)))
		return ret;
	if (c->has_peek)
		*rec = &c->rec;
	return TMX_OK;
}

int tdat_cursor_next(struct tdat_cursor *c, const struct tdat_record **rec, struct tmx_error *err)
{
	int ret = tdat_cursor_peek(c, rec, err);

	c->has_peek = false;
	return ret;
}

void tdat_file_skipped(const struct tdat_file *f, uint64_t *units, uint64_t *bytes)
{
	*units = tdat_priv(f)->skipped_units;
	*bytes = tdat_priv(f)->skipped_bytes;
}

/* ------------------------------------------------------------------ */
/* Time range of a CPU                                                   */
/* ------------------------------------------------------------------ */

/* Times of the first and last records of one page; false if it has none or is damaged. */
static bool page_range(const struct tdat_file *f, const uint8_t *page, uint32_t size,
		       uint64_t *first, uint64_t *last)
{
	struct tdat_page pg;
	struct tmx_error err;
	const uint8_t *d;
	uint32_t len;
	bool any = false;

	if (tdat_page_start(&pg, f, page, size, &err, 0))
		return false;
	while (!tdat_page_next(&pg, &d, &len, &err, 0) && d) {
		if (!any)
			*first = pg.ts;
		*last = pg.ts;
		any = true;
	}
	return any;
}

/* Scans the pages of a buffer `data` (n bytes) forwards or backwards for a record time. */
static bool scan_pages(const struct tdat_file *f, const uint8_t *data, uint64_t n, uint32_t psize,
		       bool backwards, uint64_t *ts)
{
	uint64_t pages = (n + psize - 1) / psize;

	for (uint64_t k = 0; k < pages; k++) {
		uint64_t i = backwards ? pages - 1 - k : k, off = i * psize;
		uint64_t a, b, avail = n - off;
		if (page_range(f, data + off, (uint32_t)(avail < psize ? avail : psize), &a, &b)) {
			*ts = backwards ? b : a;
			return true;
		}
	}
	return false;
}

bool tdat_cpu_time_range(const struct tdat_file *f, size_t buffer, size_t cpu_index,
			 uint64_t *first, uint64_t *last)
{
	const struct tdat_file_priv *fp = tdat_priv(f);
	const struct tdat_buffer *b;
	const struct tdat_cpu_data *cd;
	uint32_t psize;

	if (buffer >= f->n_buffers || cpu_index >= f->buffers[buffer].n_cpus)
		return false;
	b = &f->buffers[buffer];
	cd = &b->cpus[cpu_index];
	psize = b->page_size ? b->page_size : f->page_size;
	if (!cd->compressed) {
		/* An empty CPU's offset is not checked at open: do not touch it. */
		if (!cd->size)
			return false;
		const uint8_t *data = f->data + cd->offset;
		return scan_pages(f, data, cd->size, psize, false, first) &&
		       scan_pages(f, data, cd->size, psize, true, last);
	}
	/* Compressed: the first and the last chunks that hold a record. */
	const struct tdat_cpu_priv *cp = fp->cpu_priv[buffer] ? &fp->cpu_priv[buffer][cpu_index] : NULL;
	uint8_t *buf = NULL;
	size_t cap = 0;
	struct tdat_unpacker *u = tdat_unpacker_take(f);
	bool got_first = false, got_last = false;
	struct tmx_error err;

	for (int pass = 0; cp && pass < 2; pass++) {
		for (uint32_t k = 0; k < cd->n_chunks; k++) {
			const struct tdat_chunk *ch = &cp->chunks[pass ? cd->n_chunks - 1 - k : k];
			if (tdat_decompress_with(u, fp->algo, f->data + ch->offset, ch->csize, ch->usize,
						 &buf, &cap, f->path, ch->offset, &err))
				continue;
			if (scan_pages(f, buf, ch->usize, psize, pass == 1, pass ? last : first)) {
				if (pass)
					got_last = true;
				else
					got_first = true;
				break;
			}
		}
	}
	free(buf);
	tdat_unpacker_give(f, u);
	return got_first && got_last;
}
