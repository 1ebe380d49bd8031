/*
 * Writes small trace.dat seeds (built from the format description by
 * tests/unit/tdat_build.h) into DIR: v6 and v7, both byte orders, 4- and
 * 8-byte longs, none/zlib/zstd, with a missed-events page.
 *   make_tracedat_seeds DIR [page]    (page: seeds for fuzz_tracedat_page)
 */
#include <stdio.h>

#include "../tests/unit/tdat_build.h"

static void put(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	static const struct { const char *name; struct tb_opts o; } seeds[] = {
		{ "v7-none-le8", { .version = 7, .psize = 256, .klong = 8, .pages = 2, .per_page = 3 } },
		{ "v7-zstd-be4", { .version = 7, .be = true, .psize = 256, .klong = 4, .pages = 3,
				   .per_page = 2, .algo = TB_ZSTD, .chunk_pages = 2, .missed = true } },
		{ "v7-zlib-le8", { .version = 7, .psize = 128, .klong = 8, .pages = 2, .per_page = 2,
				   .algo = TB_ZLIB, .chunk_pages = 1 } },
		{ "v6-be8", { .version = 6, .be = true, .psize = 256, .klong = 8, .pages = 2,
			      .per_page = 3, .missed = true } },
	};
	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [page]\n", argv[0]);
		return 2;
	}
	if (argc == 2) {
		/* Time options: TSC2NSEC, OFFSET, DATE and a TIME_SHIFT with interpolation. */
		struct bb x = { 0 }, t = { 0 };
		struct tb_opts o = { .version = 7, .psize = 128, .klong = 8, .pages = 2, .per_page = 2,
				     .algo = TB_ZSTD, .chunk_pages = 1, .clock = "x86-tsc" };
		bb_u32(&t, 1398101);
		bb_u32(&t, 22);
		bb_u64(&t, 0);
		tb_opt(&x, 14, t.p, (uint32_t)t.n);
		free(t.p);
		t = (struct bb){ 0 };
		tb_opt(&x, 7, "-500", 5);
		tb_opt(&x, 1, "0x10", 5);
		bb_u64(&t, 1);
		bb_u32(&t, 1);
		bb_u32(&t, 1);
		bb_u32(&t, 2);
		bb_u64(&t, 0);
		bb_u64(&t, 1001500);
		bb_u64(&t, 100);
		bb_u64(&t, 300);
		bb_u64(&t, 1);
		bb_u64(&t, 1);
		tb_opt(&x, 12, t.p, (uint32_t)t.n);
		free(t.p);
		o.extra = x.p;
		o.extra_len = x.n;
		struct bb b = tb_file(&o);
		put(argv[1], "v7-time-options", b.p, b.n);
		free(b.p);
		free(x.p);
	}
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		if (argc > 2) {
			/* One page with a layout byte in front. */
			struct bb b = { 0 };
			const struct tb_opts *o = &seeds[i].o;
			uint8_t layout = (uint8_t)((o->be ? 1 : 0) | (o->klong == 4 ? 2 : 0));
			bb_put(&b, &layout, 1);
			tb_page(&b, o->be, o->klong, o->psize, 12345, 3, 7, o->missed, o->missed, 9);
			put(argv[1], seeds[i].name, b.p, b.n);
			free(b.p);
		} else {
			struct bb b = tb_file(&seeds[i].o);
			put(argv[1], seeds[i].name, b.p, b.n);
			free(b.p);
		}
	}
	return 0;
}
