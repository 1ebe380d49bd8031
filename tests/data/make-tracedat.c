/*
 * Writes the small trace.dat files of tests/data/tracedat/ (built from the
 * format description by tests/unit/tdat_build.h).  Their references
 * (NAME.report-t.txt, NAME.report-R.txt) are trace-cmd 3.1.6's own
 * output, made by make-tracedat.sh.
 *   cc -Iinclude -Isrc tests/data/make-tracedat.c -lz -lzstd -o /tmp/mk && /tmp/mk tests/data/tracedat
 */
#include "../unit/tdat_build.h"

static void put(const char *dir, const char *name, const struct bb *b)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s.dat", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->n, f) != b->n) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

static void file(const char *dir, const char *name, struct tb_opts o)
{
	struct bb b = tb_file(&o);
	put(dir, name, &b);
	free(b.p);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	const struct tb_opts base = { .version = 7, .psize = 4096, .klong = 8, .pages = 3,
				      .per_page = 3, .chunk_pages = 2 };
	struct tb_opts o;
	struct bb x;

	/* Big endian, 4-byte long, zstd chunks, missed events with their count. */
	o = base;
	o.be = true;
	o.klong = 4;
	o.algo = TB_ZSTD;
	o.missed = true;
	file(dir, "be4-v7-zstd-missed", o);

	/* v6, missed events without a count, time extends. */
	o = base;
	o.version = 6;
	o.missed = true;
	o.missed_nocount = true;
	o.extend = true;
	file(dir, "le8-v6-nocount-extend", o);

	/* x86-tsc with TSC2NSEC and OFFSET. */
	o = base;
	o.clock = "x86-tsc";
	x = (struct bb){ 0 };
	{
		struct bb t = { 0 };
		bb_u32(&t, 1398101);     /* mult */
		bb_u32(&t, 22);          /* shift */
		bb_u64(&t, 777);         /* offset */
		tb_opt(&x, 14, t.p, (uint32_t)t.n);
		free(t.p);
	}
	tb_opt(&x, 7, "12345", 6);   /* OFFSET */
	o.extra = x.p;
	o.extra_len = x.n;
	o.extend = true;
	file(dir, "tsc2nsec-v7", o);
	free(x.p);

	/* x86-tsc without TSC2NSEC: raw counts. */
	o = base;
	o.version = 6;
	o.clock = "x86-tsc";
	file(dir, "tsc-raw-v6", o);

	/* DATE (usecs) and a negative OFFSET. */
	o = base;
	x = (struct bb){ 0 };
	tb_opt(&x, 1, "0x10", 5);
	tb_opt(&x, 7, "-500", 5);
	o.extra = x.p;
	o.extra_len = x.n;
	file(dir, "date-offset-v7", o);
	free(x.p);

	/* TIME_SHIFT (guest): CPU 0 three samples, interpolated; CPU 1 one sample. */
	o = base;
	o.be = true;
	x = (struct bb){ .be = true };
	{
		struct bb t = { .be = true };
		static const int64_t times[3] = { 0, 1001500, 1003000 };
		static const int64_t offs[3] = { 100, 200, 400 };
		bb_u64(&t, 0x1122334455667788ull);   /* peer trace id */
		bb_u32(&t, 1);                        /* flags: interpolate */
		bb_u32(&t, 2);                        /* CPUs */
		bb_u32(&t, 3);
		for (int i = 0; i < 3; i++) bb_u64(&t, (uint64_t)times[i]);
		for (int i = 0; i < 3; i++) bb_u64(&t, (uint64_t)offs[i]);
		for (int i = 0; i < 3; i++) bb_u64(&t, 1);
		bb_u32(&t, 1);
		bb_u64(&t, 0);
		bb_u64(&t, (uint64_t)-50);
		bb_u64(&t, 1);
		/* Fraction bits per CPU sample. */
		for (int i = 0; i < 4; i++) bb_u64(&t, 0);
		tb_opt(&x, 12, t.p, (uint32_t)t.n);
		free(t.p);
	}
	o.extra = x.p;
	o.extra_len = x.n;
	file(dir, "timeshift-be-v7", o);
	free(x.p);

	/*
	 * Field kinds the corpus lacks: unsigned long array, pointer,
	 * __data_loc u32 array, __rel_loc string, a full char array without
	 * NUL, negative s16, u8; big endian.
	 */
	static const char rich[] =
		"name: rich\nID: 5\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long ptrs[2];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:void * addr;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc unsigned int[] vals;\toffset:32;\tsize:4;\tsigned:0;\n"
		"\tfield:__rel_loc char[] rname;\toffset:36;\tsize:4;\tsigned:0;\n"
		"\tfield:char comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
		"\tfield:s16 small;\toffset:56;\tsize:2;\tsigned:1;\n"
		"\tfield:u8 flag;\toffset:58;\tsize:1;\tsigned:0;\n\n"
		"print fmt: \"addr=%p small=%d\", REC->addr, REC->small\n";
	struct bb r = { .be = true };
	bb_u16(&r, 5);
	bb_put(&r, "\1\2", 2);
	bb_u32(&r, 4242);
	bb_u64(&r, 0xffffffff81000000ull);
	bb_u64(&r, 7);
	bb_u64(&r, 0xffff888000001234ull);
	bb_u32(&r, 12u << 16 | 60);          /* vals: 3 x u32 at 60 */
	bb_u32(&r, 4u << 16 | 32);           /* rname: 4 bytes at 40 + 32 = 72 */
	bb_put(&r, "0123456789abcde", 16);   /* 15 characters and the NUL, as comm */
	bb_u16(&r, (uint16_t)-5);
	bb_put(&r, "\7\0", 2);
	bb_u32(&r, 1);
	bb_u32(&r, 0x80000000u);
	bb_u32(&r, 3);
	bb_put(&r, "hey", 4);
	o = base;
	o.be = true;
	o.format = rich;
	o.record = r.p;
	o.record_len = (uint32_t)r.n;
	o.pages = 2;
	o.per_page = 2;
	file(dir, "rich-fields-be-v7", o);
	free(r.p);
	return 0;
}
