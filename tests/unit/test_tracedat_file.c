/*
 * Whole trace.dat files built by hand (tdat_build.h): v6 and v7, both
 * byte orders, 4- and 8-byte longs, no compression, zlib and zstd (chunked
 * flyrecord data, compressed sections); the compressed block decoder with
 * lying sizes, bombs and garbage; every truncation and single-byte
 * corruption of a file (errors name the file and an offset, nothing read
 * outside); the model source over such a file (events, discarded events);
 * and the real corpus files opened through the file layer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdat_build.h"
#include "tracecmd/internal.h"
#include "tracecmd/tracedat.h"

/* Reads every record of every CPU; checks the values and timestamps the builder wrote. */
static void check_records(const struct tdat_file *f, const struct tb_opts *o)
{
	assert_int_equal(f->n_buffers, 1);
	assert_int_equal(f->buffers[0].n_cpus, 2);
	for (uint32_t c = 0; c < 2; c++) {
		struct tdat_cursor *cur;
		struct tmx_error err;
		const struct tdat_record *r;
		int n = 0, pages = c ? 1 : o->pages;
		assert_int_equal(tdat_cursor_open(f, 0, c, &cur, &err), TMX_OK);
		for (;;) {
			assert_int_equal(tdat_cursor_next(cur, &r, &err), TMX_OK);
			if (!r)
				break;
			int page = n / o->per_page, k = n % o->per_page;
			uint64_t want_ts = 1000000 + (uint64_t)page * 1000 + c * 7 + 10 + (uint64_t)k;
			assert_int_equal(r->ts, want_ts);
			assert_int_equal(r->ts_raw, want_ts);
			assert_int_equal(r->cpu, c);
			assert_int_equal(r->size, 20);
			/* Records fill pages from the start: the page ends o.psize - header after it. */
			assert_int_equal(r->avail, o->psize - (8 + o->klong) - (uint32_t)k * 24 - 4);
			assert_non_null(r->event);
			assert_string_equal(r->event->name, "ev");
			assert_int_equal((int32_t)tdat_read32(f, r->data + 8), (int)c * 1000 + n);
			assert_memory_equal(r->data + 16, "abc", 4);
			if (o->missed && c == 0 && n == o->per_page)
				assert_int_equal(r->missed_events, 7);
			else
				assert_int_equal(r->missed_events, 0);
			n++;
		}
		assert_int_equal(n, pages * o->per_page);
		tdat_cursor_close(cur);
	}
}

static void roundtrip(struct tb_opts o)
{
	struct bb b = tb_file(&o);
	struct tdat_file *f;
	struct tmx_error err;

	memset(&err, 0, sizeof(err));
	if (tdat_file_open_mem(b.p, b.n, "built.dat", NULL, &f, &err))
		fail_msg("open: %s at %llu: %s", err.file, (unsigned long long)err.offset, err.msg);
	assert_int_equal(f->version, o.version);
	assert_int_equal(f->big_endian, o.be);
	assert_int_equal(f->long_size, o.klong);
	assert_int_equal(f->kernel_long_size, o.klong);
	assert_int_equal(f->page_size, o.psize);
	assert_int_equal(f->n_events, 1);
	assert_string_equal(f->events[0]->system, "test");
	assert_int_equal(f->events[0]->n_common, 4);
	assert_int_equal(f->events[0]->n_fields, 6);
	assert_true(f->events[0]->fields[5].flags & TDAT_FIELD_DYNAMIC);
	assert_true(f->events[0]->fields[5].flags & TDAT_FIELD_STRING);
	assert_int_equal(f->uname.len, 15);
	assert_memory_equal(f->uname.ptr, "Linux box 6.1 x", 15);
	assert_string_equal(f->buffers[0].clock, "local");
	assert_int_equal(f->buffers[0].cpus[0].compressed, o.algo != TB_NONE);
	assert_int_equal(f->buffers[0].cpus[0].uncompressed_size, (uint64_t)o.pages * o.psize);
	check_records(f, &o);
	tdat_file_close(f);
	free(b.p);
}

static const struct tb_opts base = { .version = 7, .psize = 256, .klong = 8, .pages = 5, .per_page = 4 };

static void test_v7_none(void **s)
{
	struct tb_opts o = base;
	(void)s;
	roundtrip(o);
	o.be = true;
	roundtrip(o);
	o.klong = 4;
	roundtrip(o);
	o.be = false;
	o.psize = 4096;
	roundtrip(o);
}

static void test_v7_zlib_zstd(void **s)
{
	struct tb_opts o = base;
	(void)s;
	for (int a = TB_ZLIB; a <= TB_ZSTD; a++) {
		o.algo = (enum tb_algo)a;
		o.be = false;
		o.klong = 8;
		o.chunk_pages = 2;     /* 5 pages: chunks of 2, 2, 1 */
		roundtrip(o);
		o.be = true;
		o.klong = 4;
		o.chunk_pages = 10;
		roundtrip(o);
		o.missed = true;
		roundtrip(o);
		o.missed = false;
	}
}

static void test_v6(void **s)
{
	struct tb_opts o = base;
	(void)s;
	o.version = 6;
	roundtrip(o);
	o.be = true;
	o.klong = 4;
	roundtrip(o);
	o.missed = true;
	roundtrip(o);
}

static void test_unknown_algorithm(void **s)
{
	struct tb_opts o = base;
	struct bb b;
	struct tdat_file *f;
	struct tmx_error err;
	(void)s;

	o.algo = TB_ZSTD;
	o.algo_name = "lz77x";
	b = tb_file(&o);
	assert_int_equal(tdat_file_open_mem(b.p, b.n, "algo.dat", NULL, &f, &err), TMX_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "lz77x"));
	assert_true(err.has_offset);
	free(b.p);
}

/* ------------------------------------------------------------------ */
/* Compressed blocks                                                     */
/* ------------------------------------------------------------------ */

static void block_case(enum tb_algo a)
{
	enum tdat_algo ta = a == TB_ZSTD ? TDAT_ALGO_ZSTD : TDAT_ALGO_ZLIB;
	size_t n = 100000;
	uint8_t *in = malloc(n), *buf = NULL;
	size_t cap = 0;
	struct bb c = { 0 };
	struct tmx_error err;

	for (size_t i = 0; i < n; i++)
		in[i] = (uint8_t)(i * 7 + i / 300);
	tb_compress(a, in, n, &c);   /* csize, usize, data */
	const uint8_t *data = c.p + 8;
	size_t csize = c.n - 8;
	/* Right size. */
	assert_int_equal(tdat_decompress(ta, data, csize, n, &buf, &cap, "x", 0, &err), TMX_OK);
	assert_memory_equal(buf, in, n);
	/* Lying sizes, both ways. */
	assert_int_equal(tdat_decompress(ta, data, csize, n - 1, &buf, &cap, "x", 5, &err), TMX_ERR_DATA);
	assert_true(err.has_offset && err.offset == 5);
	assert_int_equal(tdat_decompress(ta, data, csize, n + 1, &buf, &cap, "x", 0, &err), TMX_ERR_DATA);
	/* Truncated input. */
	assert_int_equal(tdat_decompress(ta, data, csize / 2, n, &buf, &cap, "x", 0, &err), TMX_ERR_DATA);
	/* Garbage. */
	memset(in, 0x41, 64);
	assert_int_equal(tdat_decompress(ta, in, 64, n, &buf, &cap, "x", 0, &err), TMX_ERR_DATA);
	free(buf);
	free(in);
	free(c.p);
}

static void test_blocks(void **s)
{
	(void)s;
	block_case(TB_ZLIB);
	block_case(TB_ZSTD);
}

/*
 * Decompression with an unpacker kept from block to block (as cursors do)
 * gives what a fresh context gives, block after block, also after errors;
 * zstd frames as trace-cmd writes them (streamed: no content size, a
 * window descriptor, which the one-pass path reads) and as ZSTD_compress
 * writes them (a single segment), frames followed by another frame or by
 * bytes, windows smaller than the block.
 */
static void zstd_stream_frame(const uint8_t *in, size_t n, int window_log, struct bb *out)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(n) + 64;
	uint8_t *tmp = malloc(cap);
	ZSTD_inBuffer ib = { in, n, 0 };
	ZSTD_outBuffer ob = { tmp, cap, 0 };

	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0)));
	if (window_log)
		assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, window_log)));
	assert_int_equal(ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end), 0);
	bb_put(out, tmp, ob.pos);
	free(tmp);
	ZSTD_freeCCtx(cc);
}

static void test_unpacker(void **s)
{
	size_t n = 300000;
	uint8_t *in = malloc(n);
	(void)s;

	for (size_t i = 0; i < n; i++)
		in[i] = (uint8_t)(i * 13 + i / 97);
	for (int a = TB_ZLIB; a <= TB_ZSTD; a++) {
		enum tdat_algo ta = a == TB_ZSTD ? TDAT_ALGO_ZSTD : TDAT_ALGO_ZLIB;
		struct bb blocks[8] = { { 0 } };
		size_t sizes[8], nb = 0;
		struct tdat_file_priv *fp = calloc(1, sizeof(*fp));
		struct tdat_unpacker *u;

		pthread_mutex_init(&fp->unpack_lock, NULL);
		/* whole, small, garbage, whole again */
		tb_compress((enum tb_algo)a, in, n, &blocks[nb]);
		sizes[nb++] = n;
		tb_compress((enum tb_algo)a, in, 5000, &blocks[nb]);
		sizes[nb++] = 5000;
		bb_u32(&blocks[nb], 64);
		bb_u32(&blocks[nb], 64);
		for (int k = 0; k < 64; k++)
			bb_put(&blocks[nb], "\x28\xb5\x2f\xfd" + (k & 3), 1);
		sizes[nb++] = 64;
		tb_compress((enum tb_algo)a, in, n, &blocks[nb]);
		sizes[nb++] = n;
		if (a == TB_ZSTD) {
			/*
			 * streamed (trace-cmd's): a window of 64 KiB holding the block,
			 * then two frames, then a frame and bytes
			 */
			bb_u32(&blocks[nb], 0), bb_u32(&blocks[nb], 0);
			zstd_stream_frame(in, 40000, 16, &blocks[nb]);
			sizes[nb++] = 40000;
			bb_u32(&blocks[nb], 0), bb_u32(&blocks[nb], 0);
			zstd_stream_frame(in, 20000, 16, &blocks[nb]);
			zstd_stream_frame(in, 20000, 16, &blocks[nb]);
			sizes[nb++] = 20000;
			bb_u32(&blocks[nb], 0), bb_u32(&blocks[nb], 0);
			zstd_stream_frame(in, 20000, 16, &blocks[nb]);
			bb_put(&blocks[nb], "tail", 4);
			sizes[nb++] = 20000;
			/* a window of 32 KiB that does not hold the block: streamed */
			bb_u32(&blocks[nb], 0), bb_u32(&blocks[nb], 0);
			zstd_stream_frame(in, n, 15, &blocks[nb]);
			sizes[nb++] = n;
		}
		u = tdat_unpacker_take(&fp->pub);
		assert_non_null(u);
		for (int pass = 0; pass < 2; pass++) {
			for (size_t k = 0; k < nb; k++) {
				uint8_t *b1 = NULL, *b2 = NULL;
				size_t c1 = 0, c2 = 0;
				struct tmx_error e1 = { 0 }, e2 = { 0 };
				const uint8_t *d = blocks[k].p + 8;
				size_t dn = blocks[k].n - 8;
				int r1 = tdat_decompress(ta, d, dn, sizes[k], &b1, &c1, "x", 7, &e1);
				int r2 = tdat_decompress_with(u, ta, d, dn, sizes[k], &b2, &c2, "x", 7, &e2);

				assert_int_equal(r1, r2);
				assert_string_equal(e1.msg, e2.msg);
				if (!r1) {
					assert_memory_equal(b1, in, sizes[k]);
					assert_memory_equal(b2, in, sizes[k]);
				}
				/* the streamed blocks: as made, one frame decodes, two frames or a tail do not */
				if (a == TB_ZSTD && k >= 4)
					assert_int_equal(r1, k == 5 || k == 6 ? TMX_ERR_DATA : TMX_OK);
				/* (the streaming decoder's error, not the one-pass decoder's) */
				if (a == TB_ZSTD && (k == 5 || k == 6))
					assert_non_null(strstr(e2.msg, "after the end of the frame"));
				free(b1);
				free(b2);
			}
		}
		tdat_unpacker_give(&fp->pub, u);
		/* the pool hands the same one back */
		assert_ptr_equal(tdat_unpacker_take(&fp->pub), u);
		tdat_unpacker_give(&fp->pub, u);
		tdat_unpackers_free(fp);
		pthread_mutex_destroy(&fp->unpack_lock);
		free(fp);
		for (size_t k = 0; k < nb; k++)
			free(blocks[k].p);
	}
	free(in);
}

/* 256 MiB of zeros declared as 4 KiB: refused without allocating more than the declaration. */
static void test_bomb(void **s)
{
	size_t n = 256u << 20;
	uint8_t *zeros = calloc(1, n), *buf = NULL;
	struct tmx_error err;
	(void)s;

	for (int a = TB_ZLIB; a <= TB_ZSTD; a++) {
		struct bb c = { 0 };
		size_t cap = 0;
		tb_compress((enum tb_algo)a, zeros, n, &c);
		assert_true(c.n < 1u << 20);
		assert_int_equal(tdat_decompress(a == TB_ZSTD ? TDAT_ALGO_ZSTD : TDAT_ALGO_ZLIB, c.p + 8,
						 c.n - 8, 4096, &buf, &cap, "bomb", 0, &err),
				 TMX_ERR_DATA);
		assert_true(cap <= 4097);
		free(buf);
		buf = NULL;
		free(c.p);
	}
	free(zeros);
}

/* Reads CPU 0 to the end: records read, and the status that stopped it. */
static int read_cpu0(const struct tdat_file *f, int *n, struct tmx_error *err)
{
	struct tdat_cursor *cur;
	const struct tdat_record *r;
	int ret;

	*n = 0;
	assert_int_equal(tdat_cursor_open(f, 0, 0, &cur, err), TMX_OK);
	while (!(ret = tdat_cursor_next(cur, &r, err)) && r)
		(*n)++;
	tdat_cursor_close(cur);
	return ret;
}

/* Chunk headers that lie, in a zstd and a zlib file: at open or at reading, never a crash. */
static void test_chunk_lies(void **s)
{
	(void)s;
	for (int a = TB_ZLIB; a <= TB_ZSTD; a++) {
		struct tb_opts o = base;
		struct bb b;
		struct tdat_file *f;
		struct tmx_error err;
		size_t hdr;
		uint32_t usize;
		int n;

		o.algo = (enum tb_algo)a;
		o.chunk_pages = 1;
		b = tb_file(&o);
		assert_int_equal(tdat_file_open_mem(b.p, b.n, "chunks.dat", NULL, &f, &err), TMX_OK);
		hdr = (size_t)f->buffers[0].cpus[0].offset + 4;   /* first chunk: csize, usize */
		usize = tdat_read32(f, b.p + hdr + 4);
		assert_int_equal(usize, o.psize);
		tdat_file_close(f);

		/* A bomb-sized declaration: refused at open. */
		bb_set_num(&b, hdr + 4, 0x7fffffff, 4);
		assert_int_equal(tdat_file_open_mem(b.p, b.n, "chunks.dat", NULL, &f, &err), TMX_ERR_DATA);
		assert_non_null(strstr(err.msg, "limit"));
		assert_int_equal(err.offset, hdr + 4);
		/* Compressed size beyond the data: refused at open. */
		bb_set_num(&b, hdr + 4, usize, 4);
		bb_set_num(&b, hdr, 0x00ffffff, 4);
		assert_int_equal(tdat_file_open_mem(b.p, b.n, "chunks.dat", NULL, &f, &err), TMX_ERR_DATA);
		free(b.p);

		/* A smaller uncompressed size than the data: the chunk fails when read. */
		b = tb_file(&o);
		bb_set_num(&b, hdr + 4, usize - 16, 4);
		assert_int_equal(tdat_file_open_mem(b.p, b.n, "chunks.dat", NULL, &f, &err), TMX_OK);
		assert_int_equal(read_cpu0(f, &n, &err), TMX_ERR_DATA);
		assert_int_equal(n, 0);
		assert_non_null(strstr(err.msg, "chunk 0"));
		assert_int_equal(err.offset, hdr + 8);
		tdat_file_close(f);
		/* Lenient: the chunk (one page) is skipped, the others are read. */
		struct tdat_open_opts lo = { .lenient = true };
		assert_int_equal(tdat_file_open_mem(b.p, b.n, "chunks.dat", &lo, &f, &err), TMX_OK);
		assert_int_equal(read_cpu0(f, &n, &err), TMX_OK);
		assert_int_equal(n, (o.pages - 1) * o.per_page);
		uint64_t units, bytes;
		tdat_file_skipped(f, &units, &bytes);
		assert_int_equal(units, 1);
		assert_int_equal(bytes, usize - 16);
		tdat_file_close(f);
		free(b.p);
	}
}

/* ------------------------------------------------------------------ */
/* Truncation and corruption                                             */
/* ------------------------------------------------------------------ */

/* Opens and reads everything; returns the records read; never crashes. */
static int read_all(const uint8_t *p, size_t n, int *open_failed)
{
	struct tdat_file *f;
	struct tmx_error err;
	struct tdat_open_opts oo = { .max_section = 1u << 20 };
	int count = 0;

	memset(&err, 0, sizeof(err));
	*open_failed = 0;
	if (tdat_file_open_mem(p, n, "cut.dat", &oo, &f, &err)) {
		*open_failed = 1;
		assert_string_equal(err.file, "cut.dat");
		assert_true(err.msg[0] != '\0');
		return 0;
	}
	for (size_t bi = 0; bi < f->n_buffers; bi++)
		for (uint32_t c = 0; c < f->buffers[bi].n_cpus; c++) {
			struct tdat_cursor *cur;
			const struct tdat_record *r;
			if (tdat_cursor_open(f, bi, c, &cur, &err))
				continue;
			while (!tdat_cursor_next(cur, &r, &err) && r) {
				assert_true(r->size < (1u << 24));
				count++;
			}
			tdat_cursor_close(cur);
		}
	tdat_file_close(f);
	return count;
}

static void truncations(struct tb_opts o)
{
	struct bb b = tb_file(&o);
	int failed;
	int full = read_all(b.p, b.n, &failed);

	assert_int_equal(failed, 0);
	assert_int_equal(full, (o.pages + 1) * o.per_page);
	for (size_t n = 0; n < b.n; n++) {
		uint8_t *copy = malloc(n ? n : 1);   /* exact size: ASan sees any overread */
		memcpy(copy, b.p, n);
		read_all(copy, n, &failed);
		free(copy);
	}
	free(b.p);
}

static void test_truncated(void **s)
{
	struct tb_opts o = base;
	(void)s;
	o.pages = 2;
	truncations(o);
	o.version = 6;
	o.be = true;
	truncations(o);
	o.version = 7;
	o.algo = TB_ZSTD;
	truncations(o);
	o.algo = TB_ZLIB;
	o.klong = 4;
	truncations(o);
}

static void corruptions(struct tb_opts o)
{
	struct bb b = tb_file(&o);
	for (size_t i = 0; i < b.n; i++) {
		static const uint8_t flips[] = { 0x01, 0x80, 0xff };
		for (size_t k = 0; k < sizeof(flips); k++) {
			int failed;
			uint8_t *copy = malloc(b.n);
			memcpy(copy, b.p, b.n);
			copy[i] ^= flips[k];
			read_all(copy, b.n, &failed);
			free(copy);
		}
	}
	free(b.p);
}

static void test_corrupted(void **s)
{
	struct tb_opts o = base;
	(void)s;
	o.pages = 2;
	o.per_page = 2;
	o.algo = TB_ZSTD;
	corruptions(o);
	o.algo = TB_NONE;
	o.version = 6;
	corruptions(o);
}

/* A cut in the CPU data of a real file: the open says where and why. */
static void test_truncated_message(void **s)
{
	struct tb_opts o = base;
	struct bb b = tb_file(&o);
	struct tdat_file *f;
	struct tmx_error err;
	char line[2048];
	(void)s;

	assert_int_equal(tdat_file_open_mem(b.p, b.n - 100, "t.dat", NULL, &f, &err), TMX_ERR_DATA);
	tmx_error_format(&err, line, sizeof(line));
	assert_non_null(strstr(line, "t.dat"));
	assert_true(err.has_offset);
	free(b.p);
}

/* ------------------------------------------------------------------ */
/* The model source                                                      */
/* ------------------------------------------------------------------ */

#include "source/source.h"

/*
 * A v7 CMDLINES option whose offset holds no CMDLINES section (a damaged
 * file): the model's reader (skip_texts) leaves the saved cmdlines out and
 * opens the file; trace-cmd report's (all texts) refuses it.
 */
static void test_damaged_cmdlines(void **s)
{
	static const uint8_t extra[] = { 21, 0, 8, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0 };
	struct tb_opts o = base;
	struct tdat_open_opts oo = { .skip_texts = true };
	struct tdat_file *f;
	struct tmx_error err;
	struct bb b;

	(void)s;
	o.extra = extra;
	o.extra_len = sizeof(extra);
	b = tb_file(&o);
	memset(&err, 0, sizeof(err));
	if (tdat_file_open_mem(b.p, b.n, "built.dat", &oo, &f, &err))
		fail_msg("open: %s at %llu: %s", err.file, (unsigned long long)err.offset, err.msg);
	assert_int_equal(f->cmdlines.len, 0);
	assert_int_equal(f->n_events, 1);
	tdat_file_close(f);
	memset(&err, 0, sizeof(err));
	assert_int_not_equal(tdat_file_open_mem(b.p, b.n, "built.dat", NULL, &f, &err), 0);
	assert_int_equal(err.offset, 10);
	free(b.p);
}

/*
 * The options the reader passes over are named (tdat_skipped_text(), the
 * `skipped` line of tracemux info): a LAST_BOOT_INFO whose v7 section lies
 * past the end of the file, an unknown id; cut to the room given.
 */
static void test_skipped_options(void **s)
{
	static const uint8_t extra[] = {
		24, 0, 8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0,  /* LAST_BOOT_INFO */
		99, 0, 3, 0, 0, 0, 'a', 'b', 'c',                              /* unknown */
	};
	(void)s;
	for (int version = 6; version <= 7; version++) {
		struct tb_opts o = base;
		struct bb b;
		struct tdat_file *f;
		struct tmx_error err;
		char text[256], small[20];
		size_t n;

		o.version = version;
		o.extra = extra;
		o.extra_len = sizeof(extra);
		b = tb_file(&o);
		memset(&err, 0, sizeof(err));
		if (tdat_file_open_mem(b.p, b.n, "built.dat", NULL, &f, &err))
			fail_msg("open: %s at %llu: %s", err.file, (unsigned long long)err.offset, err.msg);
		n = tdat_skipped_text(f, text, sizeof(text));
		assert_int_equal(n, strlen(text));
		if (version == 7)
			assert_non_null(strstr(text, "LAST_BOOT_INFO (option 24: section offset "
						     "281474976710655 outside the file), "));
		else
			assert_non_null(strstr(text, "LAST_BOOT_INFO (option 24, 8 bytes), "));
		assert_non_null(strstr(text, "option 99 (unknown id, 3 bytes at offset "));
		n = tdat_skipped_text(f, small, sizeof(small));
		assert_int_equal(n, sizeof(small) - 1);
		assert_int_equal(strlen(small), sizeof(small) - 1);
		tdat_file_close(f);
		free(b.p);
	}
}

static void test_model(void **s)
{
	struct tb_opts o = base;
	struct bb b;
	char path[] = "/tmp/tmx-tdat-XXXXXX";
	int fd;
	struct tmx_source *src;
	struct tmx_error err = { 0 };   /* read at the end: tmx_source_next sets it on errors only */
	const struct tmx_msg *m;
	int events = 0, discarded = 0;
	uint64_t last = 0;
	int64_t first_of[2] = { -1, -1 }, last_of[2] = { -1, -1 };
	(void)s;

	o.algo = TB_ZSTD;
	o.missed = true;
	b = tb_file(&o);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.p, b.n), (ssize_t)b.n);
	close(fd);
	const char *paths[] = { path };
	if (tmx_tracedat_open(paths, 1, NULL, NULL, &src, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(tdat_source_file_count(src), 1);
	assert_non_null(tdat_source_file(src, 0));
	while (!tmx_source_next(src, &m, &err) && m) {
		const struct tdat_record *r = tdat_record_of(m);
		if (m->kind == TMX_MSG_EVENT) {
			const struct tmx_event *e = m->event;
			assert_non_null(r);
			assert_string_equal(e->cls->name, "test:ev");
			assert_true((uint64_t)m->ns >= last);
			last = (uint64_t)m->ns;
			assert_int_equal(m->ns, (int64_t)r->ts);
			/* Payload: struct, value, name. */
			assert_int_equal(e->scopes[TMX_SCOPE_PAYLOAD][0].n_members, 2);
			assert_int_equal(e->scopes[TMX_SCOPE_PAYLOAD][1].s,
					 (int32_t)tdat_read32(r->file, r->data + 8));
			assert_int_equal(e->scopes[TMX_SCOPE_PAYLOAD][2].str.len, 3);
			assert_memory_equal(e->scopes[TMX_SCOPE_PAYLOAD][2].str.ptr, "abc", 3);
			assert_int_equal(e->scopes[TMX_SCOPE_COMMON_CONTEXT][4].s, 42);
			assert_int_equal(e->scopes[TMX_SCOPE_PACKET_CONTEXT][1].u, r->cpu);
			if (first_of[r->cpu] < 0)
				first_of[r->cpu] = m->ns;
			last_of[r->cpu] = m->ns;
			events++;
		} else if (m->kind == TMX_MSG_DISCARDED_EVENTS) {
			assert_non_null(r);
			assert_null(r->data);
			assert_int_equal(m->count, 7);
			assert_int_equal(r->missed_events, 7);
			discarded++;
		} else {
			assert_null(r);
		}
	}
	assert_int_equal(err.code, TMX_OK);
	assert_int_equal(events, (o.pages + 1) * o.per_page);
	assert_int_equal(discarded, 1);
	/* Stream ranges (from the first and last chunks) are the first and last event times. */
	assert_int_equal(tmx_source_stream_count(src), 2);
	for (size_t i = 0; i < 2; i++) {
		struct tmx_stream_info info;
		tmx_source_stream_info(src, i, &info);
		assert_true(info.has_range);
		assert_int_equal(info.begin_ns, first_of[i]);
		assert_int_equal(info.end_ns, last_of[i]);
	}
	tmx_source_free(src);
	unlink(path);
	free(b.p);
}

/* ------------------------------------------------------------------ */
/* Real files                                                            */
/* ------------------------------------------------------------------ */

static void test_corpus(void **s)
{
	static const struct { const char *name; int events; int version; size_t buffers; } files[] = {
		{ "sched-v6.dat", 1935, 6, 1 },
		{ "sched-v7-zstd.dat", 1996, 7, 1 },
		{ "sched-v7-nocomp.dat", 1961, 7, 1 },
		{ "sched-v7-zstd.converted-to-v6.dat", 1996, 6, 1 },
		{ "multibuf-v7-zstd.dat", 1017, 7, 2 },
		{ "clock-mono-v7-zstd.dat", 222, 7, 1 },
	};
	(void)s;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[1024];
		struct tdat_file *f;
		struct tmx_error err;
		int n = 0;
		snprintf(path, sizeof(path), "%s/tracecmd-samples/%s", TMX_CORPUS, files[i].name);
		if (tdat_file_open(path, NULL, &f, &err))
			fail_msg("%s: %s", path, err.msg);
		assert_int_equal(f->version, files[i].version);
		assert_int_equal(f->n_buffers, files[i].buffers);
		assert_int_equal(f->page_size, 4096);
		assert_int_equal(f->kernel_long_size, 8);
		assert_true(f->kallsyms.len > 1000000);
		for (size_t bi = 0; bi < f->n_buffers; bi++)
			for (uint32_t c = 0; c < f->buffers[bi].n_cpus; c++) {
				struct tdat_cursor *cur;
				const struct tdat_record *r, *p;
				uint64_t last = 0, first_raw = 0, last_raw = 0, rf, rl;
				int k = 0;
				assert_int_equal(tdat_cursor_open(f, bi, c, &cur, &err), TMX_OK);
				for (;;) {
					assert_int_equal(tdat_cursor_peek(cur, &p, &err), TMX_OK);
					assert_int_equal(tdat_cursor_next(cur, &r, &err), TMX_OK);
					assert_ptr_equal(p, r);
					if (!r)
						break;
					if (!k++)
						first_raw = r->ts_raw;
					last_raw = r->ts_raw;
					assert_true(r->ts >= last);
					last = r->ts;
					assert_non_null(r->event);
					n++;
				}
				tdat_cursor_close(cur);
				/* The range from the first and last pages/chunks agrees. */
				assert_int_equal(tdat_cpu_time_range(f, bi, c, &rf, &rl), k > 0);
				if (k) {
					assert_int_equal(rf, first_raw);
					assert_int_equal(rl, last_raw);
				}
			}
		assert_int_equal(n, files[i].events);
		if (!strcmp(files[i].name, "multibuf-v7-zstd.dat"))
			assert_string_equal(f->buffers[1].name, "tcsample");
		if (!strcmp(files[i].name, "clock-mono-v7-zstd.dat"))
			assert_string_equal(f->buffers[0].clock, "mono");
		tdat_file_close(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v7_none),
		cmocka_unit_test(test_v7_zlib_zstd),
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_unknown_algorithm),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_bomb),
		cmocka_unit_test(test_unpacker),
		cmocka_unit_test(test_chunk_lies),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_truncated_message),
		cmocka_unit_test(test_corrupted),
		cmocka_unit_test(test_skipped_options),
		cmocka_unit_test(test_damaged_cmdlines),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
