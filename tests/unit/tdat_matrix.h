/*
 * The hand-built trace.dat files that test_tracedat_ranges and
 * test_tracedat_segments both cut into pieces (runs of pages, segments)
 * and compare with a whole reading: the options they start from, the
 * variants they share, and the walk over the file as built and every
 * single-byte corruption of CPU 0's data.  What each test reads and
 * compares stays in its own file.  Include after <cmocka.h> and
 * tdat_build.h (the builder); this uses the reader to find CPU 0's data.
 */
#ifndef TDAT_MATRIX_H
#define TDAT_MATRIX_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracecmd/internal.h"

/* v7, 9 pages of 3 records, missed events on CPU 0's second page, time extends. */
static const struct tb_opts tm_base = { .version = 7, .psize = 256, .klong = 8, .pages = 9,
					.per_page = 3, .missed = true, .extend = true };

/* The same as a v6 file, big-endian, 4-byte longs. */
static inline struct tb_opts tm_v6_be(void)
{
	struct tb_opts o = tm_base;

	o.version = 6;
	o.be = true;
	o.klong = 4;
	return o;
}

/* Compressed by zstd, one page a chunk. */
static inline struct tb_opts tm_zstd(void)
{
	struct tb_opts o = tm_base;

	o.algo = TB_ZSTD;
	o.chunk_pages = 1;
	return o;
}

/* Compressed by zlib, 2 pages a chunk: an odd `pages` makes the last chunk shorter. */
static inline struct tb_opts tm_zlib(int pages)
{
	struct tb_opts o = tm_base;

	o.algo = TB_ZLIB;
	o.pages = pages;
	o.chunk_pages = 2;
	return o;
}

/*
 * What a test checks on one file's bytes: `at` is -1 for the file as
 * built, else the offset in CPU 0's data of the byte that was flipped.
 */
typedef void tm_check_fn(const uint8_t *p, size_t n, int64_t at, void *ctx);

/*
 * Builds the file of `o` and calls `fn` on it; checks that CPU 0 has more
 * than `min_pieces` pieces (so that the test's cuts cut something); then
 * calls `fn` on copies with every `step`th byte of CPU 0's data (its
 * chunk count included when compressed) flipped, one at a time.
 */
static inline void tm_each_corruption(struct tb_opts o, size_t min_pieces, unsigned step,
				      tm_check_fn *fn, void *ctx)
{
	struct bb b = tb_file(&o);
	struct tdat_file *f;
	struct tmx_error err;
	uint64_t from, to;
	uint8_t *copy = malloc(b.n);

	assert_non_null(copy);
	fn(b.p, b.n, -1, ctx);
	assert_int_equal(tdat_file_open_mem(b.p, b.n, "matrix.dat", NULL, &f, &err), TMX_OK);
	assert_true(tdat_cpu_pieces(f, 0, 0) > min_pieces);
	from = f->buffers[0].cpus[0].offset;
	to = from + f->buffers[0].cpus[0].size + (f->buffers[0].cpus[0].compressed ? 4 : 0);
	tdat_file_close(f);
	for (uint64_t i = from; i < to; i += step) {
		memcpy(copy, b.p, b.n);
		copy[i] ^= 0xff;
		fn(copy, b.n, (int64_t)(i - from), ctx);
	}
	free(copy);
	free(b.p);
}

#endif
