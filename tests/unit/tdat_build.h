/*
 * Builders of trace.dat pieces for the unit tests, written from the format
 * description (trace-cmd.dat.v7(5), the kernel's ring-buffer layout), not
 * from tracemux's reader: byte buffers in either byte order, ring-buffer
 * pages, and whole v6/v7 files with one event format.
 */
#ifndef TDAT_BUILD_H
#define TDAT_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

struct bb {
	uint8_t *p;
	size_t n, cap;
	bool be;
};

static inline void bb_put(struct bb *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		while (nc < b->n + n)
			nc *= 2;
		b->p = realloc(b->p, nc);
		b->cap = nc;
	}
	if (n)
		memcpy(b->p + b->n, d, n);
	b->n += n;
}

static inline void bb_num(struct bb *b, uint64_t v, int bytes)
{
	uint8_t t[8];
	for (int i = 0; i < bytes; i++)
		t[b->be ? bytes - 1 - i : i] = (uint8_t)(v >> (8 * i));
	bb_put(b, t, (size_t)bytes);
}

static inline void bb_u16(struct bb *b, uint64_t v) { bb_num(b, v, 2); }
static inline void bb_u32(struct bb *b, uint64_t v) { bb_num(b, v, 4); }
static inline void bb_u64(struct bb *b, uint64_t v) { bb_num(b, v, 8); }
static inline void bb_str(struct bb *b, const char *s) { bb_put(b, s, strlen(s) + 1); }
static inline void bb_zero(struct bb *b, size_t n)
{
	static const uint8_t z[64];
	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);
		bb_put(b, z, k);
		n -= k;
	}
}
static inline void bb_set_num(struct bb *b, size_t at, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		b->p[at + (size_t)(b->be ? bytes - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

/* ------------------------------------------------------------------ */
/* Ring-buffer pages                                                    */
/* ------------------------------------------------------------------ */

struct pagebuild {
	struct bb b;
	int klong;          /* 4 or 8 */
	uint32_t size;      /* page size */
};

static inline void page_begin(struct pagebuild *pb, bool be, int klong, uint32_t size, uint64_t ts)
{
	memset(pb, 0, sizeof(*pb));
	pb->b.be = be;
	pb->klong = klong;
	pb->size = size;
	bb_u64(&pb->b, ts);
	bb_num(&pb->b, 0, klong);   /* commit, set by page_end */
}

static inline uint32_t event_word(bool be, uint32_t type_len, uint32_t delta)
{
	/* As the kernel's bitfield: type_len in the low 5 bits (LE) or the top 5 (BE). */
	return be ? (type_len << 27 | (delta & ((1u << 27) - 1))) : (delta << 5 | type_len);
}

/* A data event of len bytes (a multiple of 4 up to 112: type_len = len/4). */
static inline void page_event(struct pagebuild *pb, uint32_t delta, const void *d, uint32_t len)
{
	bb_u32(&pb->b, event_word(pb->b.be, len / 4, delta));
	bb_put(&pb->b, d, len);
}

/* A data event with type_len 0: length word (len + 4), then the data padded to 4. */
static inline void page_event_long(struct pagebuild *pb, uint32_t delta, const void *d, uint32_t len)
{
	bb_u32(&pb->b, event_word(pb->b.be, 0, delta));
	bb_u32(&pb->b, len + 4);
	bb_put(&pb->b, d, len);
	bb_zero(&pb->b, (4 - len % 4) % 4);
}

static inline void page_time_extend(struct pagebuild *pb, uint64_t delta)
{
	bb_u32(&pb->b, event_word(pb->b.be, 30, (uint32_t)(delta & ((1u << 27) - 1))));
	bb_u32(&pb->b, delta >> 27);
}

static inline void page_abs_time(struct pagebuild *pb, uint64_t ts)
{
	bb_u32(&pb->b, event_word(pb->b.be, 31, (uint32_t)(ts & ((1u << 27) - 1))));
	bb_u32(&pb->b, ts >> 27);
}

/* A discarded event: padding with a delta and a length (bytes after the length word + 4). */
static inline void page_padding(struct pagebuild *pb, uint32_t delta, uint32_t body)
{
	bb_u32(&pb->b, event_word(pb->b.be, 29, delta));
	bb_u32(&pb->b, body + 4);
	bb_zero(&pb->b, body);
}

/*
 * Sets the commit (data bytes so far) with the missed-events flags, appends
 * the missed count when `stored`, and pads the page to its size.
 */
static inline void page_end(struct pagebuild *pb, bool missed, bool stored, uint64_t count)
{
	uint64_t hdr = 8 + (uint64_t)pb->klong;
	uint64_t commit = pb->b.n - hdr;
	if (missed)
		commit |= 1ull << 31;
	if (stored)
		commit |= 1ull << 30;
	if (pb->klong == 8 && missed)
		commit |= 0xffffffff00000000ull;   /* the kernel's sign extension of local_t */
	bb_set_num(&pb->b, 8, commit, pb->klong);
	if (stored)
		bb_num(&pb->b, count, pb->klong);
	if (pb->b.n < pb->size)
		bb_zero(&pb->b, pb->size - pb->b.n);
}

/* ------------------------------------------------------------------ */
/* Whole files                                                          */
/* ------------------------------------------------------------------ */

#define TB_HEADER_PAGE_8 \
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" \
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" \
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" \
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"
#define TB_HEADER_PAGE_4 \
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" \
	"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" \
	"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n"
#define TB_HEADER_EVENT \
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n" \
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n" \
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n"

/* Event "test:ev" (id 5): common fields, int value, __data_loc char[] name. */
#define TB_FORMAT \
	"name: ev\nID: 5\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n" \
	"print fmt: \"value=%d name=%s\", REC->value, __get_str(name)\n"

/* The 20-byte payload of a test:ev record: value, name "abc". */
static inline void tb_record(bool be, int32_t value, int32_t pid, uint8_t out[20])
{
	struct bb b = { .be = be };
	bb_u16(&b, 5);
	bb_put(&b, "\0\0", 2);
	bb_u32(&b, (uint32_t)pid);
	bb_u32(&b, (uint32_t)value);
	bb_u32(&b, 4u << 16 | 16);   /* __data_loc: len 4 at offset 16 */
	bb_put(&b, "abc", 4);
	memcpy(out, b.p, 20);
	free(b.p);
}

/*
 * A page with `n` test:ev records, first at page ts + 10, then +1 each
 * (with `extend`, + 2^30 before the second).
 */
static inline void tb_page_x(struct bb *out, bool be, int klong, uint32_t psize, uint64_t ts,
			     int n, int first_value, bool missed, bool stored, uint64_t count,
			     bool extend, const uint8_t *fixed, uint32_t fixed_len)
{
	struct pagebuild pb;
	uint8_t rec[20];
	page_begin(&pb, be, klong, psize, ts);
	for (int i = 0; i < n; i++) {
		tb_record(be, first_value + i, 42, rec);
		if (extend && i == 1)
			page_time_extend(&pb, 1ull << 30);
		if (fixed)   /* a record given as bytes (a multiple of 4, up to 112) */
			page_event(&pb, i ? 1 : 10, fixed, fixed_len);
		else
			page_event(&pb, i ? 1 : 10, rec, 20);
	}
	page_end(&pb, missed, stored, count);
	bb_put(out, pb.b.p, pb.b.n);
	free(pb.b.p);
}

static inline void tb_page(struct bb *out, bool be, int klong, uint32_t psize, uint64_t ts,
			   int n, int first_value, bool missed, bool stored, uint64_t count)
{
	tb_page_x(out, be, klong, psize, ts, n, first_value, missed, stored, count, false, NULL, 0);
}

enum tb_algo { TB_NONE, TB_ZLIB, TB_ZSTD };

struct tb_opts {
	int version;          /* 6 or 7 */
	bool be;
	int klong;            /* 4 or 8: long size and commit size */
	uint32_t psize;       /* page size */
	enum tb_algo algo;
	int pages;            /* pages of CPU 0 (CPU 1 gets one page) */
	int per_page;         /* records per page */
	uint32_t chunk_pages; /* compressed: pages per chunk */
	const char *algo_name;  /* overrides the algorithm name */
	bool missed;          /* CPU 0's second page: missed events, count 7 stored */
	bool missed_nocount;  /* with `missed`: the flag only, no count */
	bool extend;          /* a time extend (2^30 ns) before each page's second record */
	const char *clock;    /* trace clock (default "local"; v6: TRACECLOCK + the text after flyrecord) */
	const uint8_t *extra; /* raw options (id, size, data) added before DONE */
	size_t extra_len;
	const char *format;   /* the event format (default TB_FORMAT, system "test") */
	const uint8_t *record;  /* every record's bytes (default: tb_record) */
	uint32_t record_len;
	int back_page;        /* > 0: that page of CPU 0 starts before the page before it ends */
};

/* Appends one raw option (id, size, data) in the file's byte order. */
static inline void tb_opt(struct bb *o, uint16_t id, const void *data, uint32_t len)
{
	bb_u16(o, id);
	bb_u32(o, len);
	bb_put(o, data, len);
}

static inline void tb_compress(enum tb_algo a, const uint8_t *in, size_t n, struct bb *out)
{
	size_t cap = a == TB_ZSTD ? ZSTD_compressBound(n) : compressBound((uLong)n);
	uint8_t *tmp = malloc(cap ? cap : 1);
	size_t got = cap;
	if (a == TB_ZSTD) {
		got = ZSTD_compress(tmp, cap, in, n, 3);
	} else {
		uLongf dl = (uLongf)cap;
		compress2(tmp, &dl, in, (uLong)n, 6);
		got = dl;
	}
	bb_u32(out, got);
	bb_u32(out, n);
	bb_put(out, tmp, got);
	free(tmp);
}

/* A v7 section: header (id, flags, desc, size) then the data, compressed or not. */
static inline void tb_section(struct bb *f, uint16_t id, enum tb_algo a, const struct bb *data)
{
	size_t at;
	bb_u16(f, id);
	bb_u16(f, a != TB_NONE);
	bb_u32(f, 0);
	at = f->n;
	bb_u64(f, 0);
	if (a == TB_NONE)
		bb_put(f, data->p, data->n);
	else
		tb_compress(a, data->p, data->n, f);
	bb_set_num(f, at, f->n - at - 8, 8);
}

static inline void tb_metadata(struct bb *hi, struct bb *ev, bool be, int klong, const char *fmt)
{
	if (!fmt)
		fmt = TB_FORMAT;
	const char *hp = klong == 8 ? TB_HEADER_PAGE_8 : TB_HEADER_PAGE_4;
	hi->be = ev->be = be;
	bb_str(hi, "header_page");
	bb_u64(hi, strlen(hp));
	bb_put(hi, hp, strlen(hp));
	bb_str(hi, "header_event");
	bb_u64(hi, strlen(TB_HEADER_EVENT));
	bb_put(hi, TB_HEADER_EVENT, strlen(TB_HEADER_EVENT));
	bb_u32(ev, 1);
	bb_str(ev, "test");
	bb_u32(ev, 1);
	bb_u64(ev, strlen(fmt));
	bb_put(ev, fmt, strlen(fmt));
}

/* CPU data of the test files: CPU 0 values from 0, CPU 1 values from 1000. */
static inline void tb_cpu_pages(const struct tb_opts *o, int cpu, struct bb *out)
{
	int pages = cpu ? 1 : o->pages;
	out->be = o->be;
	for (int p = 0; p < pages; p++)
		tb_page_x(out, o->be, o->klong, o->psize,
			  1000000 + (uint64_t)p * (o->extend ? 2000000000ull : 1000) + (uint64_t)cpu * 7 -
				  (o->back_page && !cpu && p == o->back_page ?
				   (o->extend ? 2000000500ull : 1500) : 0),
			  o->per_page, cpu * 1000 + p * o->per_page, o->missed && !cpu && p == 1,
			  o->missed && !o->missed_nocount && !cpu && p == 1, 7, o->extend, o->record,
			  o->record_len);
}

static inline struct bb tb_file(const struct tb_opts *o)
{
	struct bb f = { .be = o->be }, hi = { 0 }, ev = { 0 }, cpu[2] = { { 0 }, { 0 } };
	const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	tb_metadata(&hi, &ev, o->be, o->klong, o->format);
	for (int c = 0; c < 2; c++)
		tb_cpu_pages(o, c, &cpu[c]);
	bb_put(&f, magic, 10);
	bb_str(&f, o->version == 6 ? "6" : "7");
	bb_put(&f, o->be ? "\1" : "\0", 1);
	uint8_t ls = (uint8_t)o->klong;
	bb_put(&f, &ls, 1);
	bb_u32(&f, o->psize);
	if (o->version == 6) {
		bb_put(&f, hi.p, hi.n);
		bb_u32(&f, 0);                 /* ftrace formats */
		bb_put(&f, ev.p, ev.n);
		bb_u32(&f, 0);                 /* kallsyms */
		bb_u32(&f, 0);                 /* printk */
		bb_u64(&f, 0);                 /* cmdlines */
		bb_u32(&f, 2);                 /* CPUs */
		bb_put(&f, "options  ", 10);
		bb_u16(&f, 5);                 /* UNAME */
		bb_u32(&f, 17);
		bb_put(&f, "Linux box 6.1 x\0", 17);
		char clk[64];
		snprintf(clk, sizeof(clk), "local global [%s]\n", o->clock ? o->clock : "local");
		if (o->clock)
			tb_opt(&f, 4, clk, (uint32_t)strlen(clk) + 1);
		if (o->extra_len)
			bb_put(&f, o->extra, o->extra_len);
		bb_u16(&f, 0);
		bb_put(&f, "flyrecord", 10);
		size_t at = f.n;
		bb_zero(&f, 32);
		if (o->clock) {
			bb_u64(&f, strlen(clk));
			bb_put(&f, clk, strlen(clk));
		}
		size_t off = (f.n + o->psize - 1) / o->psize * o->psize;
		bb_zero(&f, off - f.n);
		for (int c = 0; c < 2; c++) {
			bb_set_num(&f, at + (size_t)c * 16, f.n, 8);
			bb_set_num(&f, at + (size_t)c * 16 + 8, cpu[c].n, 8);
			bb_put(&f, cpu[c].p, cpu[c].n);
		}
	} else {
		const char *an = o->algo_name ? o->algo_name
				 : o->algo == TB_ZSTD ? "zstd" : o->algo == TB_ZLIB ? "zlib" : "none";
		bb_str(&f, an);
		bb_str(&f, o->algo == TB_NONE ? "" : "1");
		size_t first = f.n;
		bb_u64(&f, 0);
		size_t hi_off = f.n;
		tb_section(&f, 16, o->algo, &hi);
		size_t ev_off = f.n;
		tb_section(&f, 18, o->algo, &ev);
		/* Flyrecord section: CPU data page-aligned, compressed in chunks. */
		size_t fly_off = f.n, cpu_off[2], cpu_size[2];
		bb_u16(&f, 3);
		bb_u16(&f, o->algo != TB_NONE);
		bb_u32(&f, 0);
		size_t fly_size_at = f.n;
		bb_u64(&f, 0);
		for (int c = 0; c < 2; c++) {
			size_t off = (f.n + o->psize - 1) / o->psize * o->psize;
			bb_zero(&f, off - f.n);
			cpu_off[c] = f.n;
			if (o->algo == TB_NONE) {
				bb_put(&f, cpu[c].p, cpu[c].n);
				cpu_size[c] = cpu[c].n;
			} else {
				size_t cp = o->chunk_pages ? o->chunk_pages : 2;
				size_t chunk = cp * o->psize, nch = (cpu[c].n + chunk - 1) / chunk;
				bb_u32(&f, nch);
				for (size_t k = 0; k < nch; k++) {
					size_t len = cpu[c].n - k * chunk < chunk ? cpu[c].n - k * chunk : chunk;
					tb_compress(o->algo, cpu[c].p + k * chunk, len, &f);
				}
				cpu_size[c] = f.n - cpu_off[c] - 4;
			}
		}
		bb_set_num(&f, fly_size_at, f.n - fly_size_at - 8, 8);
		/* Options section. */
		size_t opt_off = f.n;
		struct bb opt = { .be = o->be };
		bb_u16(&opt, 16); bb_u32(&opt, 8); bb_u64(&opt, hi_off);
		bb_u16(&opt, 18); bb_u32(&opt, 8); bb_u64(&opt, ev_off);
		bb_u16(&opt, 5); bb_u32(&opt, 17); bb_put(&opt, "Linux box 6.1 x\0", 17);
		bb_u16(&opt, 3);
		bb_u32(&opt, 8 + 1 + strlen(o->clock ? o->clock : "local") + 1 + 4 + 4 + 2 * 20);
		bb_u64(&opt, fly_off);
		bb_str(&opt, "");
		bb_str(&opt, o->clock ? o->clock : "local");
		bb_u32(&opt, o->psize);
		bb_u32(&opt, 2);
		for (int c = 0; c < 2; c++) {
			bb_u32(&opt, (uint64_t)c);
			bb_u64(&opt, cpu_off[c]);
			bb_u64(&opt, cpu_size[c]);
		}
		if (o->clock) {
			char clk[64];
			snprintf(clk, sizeof(clk), "local global [%s]\n", o->clock);
			tb_opt(&opt, 4, clk, (uint32_t)strlen(clk) + 1);
		}
		if (o->extra_len)
			bb_put(&opt, o->extra, o->extra_len);
		bb_u16(&opt, 0); bb_u32(&opt, 8); bb_u64(&opt, 0);
		tb_section(&f, 0, TB_NONE, &opt);
		bb_set_num(&f, first, opt_off, 8);
		free(opt.p);
	}
	free(hi.p);
	free(ev.p);
	free(cpu[0].p);
	free(cpu[1].p);
	return f;
}

#endif
