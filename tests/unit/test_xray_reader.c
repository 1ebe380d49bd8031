/*
 * The XRay reader on hand-made logs (byte layouts from
 * /work/shared/spec/xray-format-notes.md): every FDR record kind, the three
 * CustomEventMarker layouts, typed events, TSC wraps, CPU migration,
 * EndOfBuffer in v1, BufferExtents in v3+, basic mode, llvm-xray's order,
 * and damaged files (truncated records and payloads, wrong extents,
 * unknown kinds, bad record sequences): a clear error with the offset,
 * everything before it delivered, nothing read out of bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sink/xray/yaml.h"
#include "tracemux/tracemux.h"
#include "xray/xray.h"

/* ------------------------------------------------------------------ */
/* Building logs                                                        */
/* ------------------------------------------------------------------ */

struct bytes {
	uint8_t d[65536];
	size_t n;
};

static void put(struct bytes *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->d));
	if (n)
		memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void put_le(struct bytes *b, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		b->d[b->n++] = (uint8_t)(v >> (8 * i));
}

static void header(struct bytes *b, unsigned version, unsigned type, uint64_t freq,
		   uint64_t buffer_size)
{
	b->n = 0;
	put_le(b, version, 2);
	put_le(b, type, 2);
	put_le(b, 3, 4);
	put_le(b, freq, 8);
	put_le(b, buffer_size, 8);
	put_le(b, 0, 8);
}

/* A metadata record: kind, payload, unused bytes = 0xA5 (garbage). */
static void meta(struct bytes *b, unsigned kind, const uint8_t *payload, size_t n)
{
	uint8_t rec[16];

	memset(rec, 0xa5, sizeof(rec));
	rec[0] = (uint8_t)(kind << 1 | 1);
	if (n)
		memcpy(rec + 1, payload, n);
	put(b, rec, 16);
}

static void meta_u(struct bytes *b, unsigned kind, uint64_t v, int size)
{
	uint8_t p[15];
	for (int i = 0; i < size; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	meta(b, kind, p, (size_t)size);
}

static void new_buffer(struct bytes *b, int32_t tid) { meta_u(b, 0, (uint32_t)tid, 4); }
static void end_of_buffer(struct bytes *b) { meta(b, 1, NULL, 0); }
static void tsc_wrap(struct bytes *b, uint64_t tsc) { meta_u(b, 3, tsc, 8); }
static void call_arg(struct bytes *b, uint64_t v) { meta_u(b, 6, v, 8); }
static void extents(struct bytes *b, uint64_t n) { meta_u(b, 7, n, 8); }
static void pid_rec(struct bytes *b, int32_t pid) { meta_u(b, 9, (uint32_t)pid, 4); }

static void new_cpu(struct bytes *b, uint16_t cpu, uint64_t tsc)
{
	uint8_t p[10];
	for (int i = 0; i < 2; i++)
		p[i] = (uint8_t)(cpu >> (8 * i));
	for (int i = 0; i < 8; i++)
		p[2 + i] = (uint8_t)(tsc >> (8 * i));
	meta(b, 2, p, sizeof(p));
}

static void walltime(struct bytes *b, uint64_t sec, uint32_t usec)
{
	uint8_t p[12];
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(sec >> (8 * i));
	for (int i = 0; i < 4; i++)
		p[8 + i] = (uint8_t)(usec >> (8 * i));
	meta(b, 4, p, sizeof(p));
}

/* Custom event, v1-v4 layout: size, absolute TSC, (v4) CPU; then the payload. */
static void custom_abs(struct bytes *b, const char *data, uint64_t tsc, uint16_t cpu)
{
	uint8_t p[14];
	uint32_t n = (uint32_t)strlen(data);
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(n >> (8 * i));
	for (int i = 0; i < 8; i++)
		p[4 + i] = (uint8_t)(tsc >> (8 * i));
	p[12] = (uint8_t)cpu;
	p[13] = (uint8_t)(cpu >> 8);
	meta(b, 5, p, sizeof(p));
	put(b, data, n);
}

/* v5 custom event (kind 5) or typed event (kind 8): size, delta, (type); payload. */
static void event_v5(struct bytes *b, unsigned kind, const void *data, uint32_t n, int32_t delta,
		     uint16_t type)
{
	uint8_t p[10];
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(n >> (8 * i));
	for (int i = 0; i < 4; i++)
		p[4 + i] = (uint8_t)((uint32_t)delta >> (8 * i));
	p[8] = (uint8_t)type;
	p[9] = (uint8_t)(type >> 8);
	meta(b, kind, p, kind == 8 ? 10 : 8);
	put(b, data, n);
}

enum { ENTER, EXIT, TAIL, ENTER_ARG };

static void fn(struct bytes *b, unsigned kind, uint32_t id, uint32_t delta)
{
	put_le(b, (uint64_t)id << 4 | kind << 1, 4);
	put_le(b, delta, 4);
}

/* Fills in a BufferExtents written at `at` with the bytes after it. */
static void close_extents(struct bytes *b, size_t at)
{
	uint64_t n = b->n - at - 16;
	for (int i = 0; i < 8; i++)
		b->d[at + 1 + i] = (uint8_t)(n >> (8 * i));
}

static size_t open_buffer(struct bytes *b, int32_t tid, int32_t pid, uint16_t cpu, uint64_t tsc)
{
	size_t at = b->n;
	extents(b, 0);
	new_buffer(b, tid);
	walltime(b, 100, 200);
	pid_rec(b, pid);
	new_cpu(b, cpu, tsc);
	return at;
}

static void basic_rec(struct bytes *b, unsigned kind, int32_t id, uint64_t tsc, uint32_t tid,
		      uint32_t pid, uint8_t cpu)
{
	put_le(b, 0, 2);
	put_le(b, cpu, 1);
	put_le(b, kind, 1);
	put_le(b, (uint32_t)id, 4);
	put_le(b, tsc, 8);
	put_le(b, tid, 4);
	put_le(b, pid, 4);
	put_le(b, 0x5a5a5a5a5a5a5a5aull, 8);
}

static void basic_arg(struct bytes *b, int32_t id, uint32_t tid, uint32_t pid, uint64_t v)
{
	put_le(b, 1, 2);
	put_le(b, 0, 2);
	put_le(b, (uint32_t)id, 4);
	put_le(b, tid, 4);
	put_le(b, pid, 4);
	put_le(b, v, 8);
	put_le(b, 0, 8);
}

/* ------------------------------------------------------------------ */
/* Reading them back                                                    */
/* ------------------------------------------------------------------ */

struct rec {
	unsigned cls;
	uint64_t tsc;
	unsigned cpu, tid, pid, record_type;
	int32_t func_id;
	char function[64];
	unsigned n_args;
	uint64_t args[4];
	char data[128];
	size_t data_len;
	uint64_t wall_sec, wall_usec;
};

struct result {
	int status;
	struct tmx_error err;
	struct rec recs[256];
	size_t n;
	size_t n_streams;
	uint64_t skipped;
	int open_status;
};

static char path_buf[64];

static const char *write_file(const struct bytes *b)
{
	int fd;

	strcpy(path_buf, "/tmp/tmx-xray-test-XXXXXX");
	fd = mkstemp(path_buf);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->d, b->n), (ssize_t)b->n);
	close(fd);
	return path_buf;
}

static void read_log(const struct bytes *b, const struct tmx_xray_opts *opts, struct result *r)
{
	const char *path = write_file(b);
	struct tmx_source *src = NULL;
	const struct tmx_msg *msg;
	static const struct tmx_diag quiet;

	memset(r, 0, sizeof(*r));
	r->open_status = tmx_xray_open(&path, 1, opts, &quiet, &src, &r->err);
	if (r->open_status) {
		unlink(path);
		r->status = r->open_status;
		return;
	}
	r->n_streams = tmx_source_stream_count(src);
	for (;;) {
		r->status = tmx_source_next(src, &msg, &r->err);
		if (r->status || !msg)
			break;
		if (msg->kind != TMX_MSG_EVENT)
			continue;
		assert_true(r->n < 256);
		struct rec *x = &r->recs[r->n++];
		const struct tmx_value *c = msg->event->scopes[TMX_SCOPE_COMMON_CONTEXT];
		const struct tmx_value *p = msg->event->scopes[TMX_SCOPE_PAYLOAD];
		x->cls = (unsigned)msg->event->cls->id;
		x->tsc = msg->cycles;
		x->cpu = (unsigned)c[TMX_XRAY_CTX_CPU].u;
		x->tid = (unsigned)c[TMX_XRAY_CTX_TID].u;
		x->pid = (unsigned)c[TMX_XRAY_CTX_PID].u;
		if (x->cls == TMX_XRAY_EV_WALLTIME) {
			x->wall_sec = p[TMX_XRAY_W_SECONDS].u;
			x->wall_usec = p[TMX_XRAY_W_MICROSECONDS].u;
			continue;
		}
		x->func_id = (int32_t)p[TMX_XRAY_P_FUNC_ID].s;
		x->record_type = (unsigned)p[TMX_XRAY_P_RECORD_TYPE].u;
		snprintf(x->function, sizeof(x->function), "%.*s", (int)p[TMX_XRAY_P_FUNCTION].str.len,
			 p[TMX_XRAY_P_FUNCTION].str.ptr);
		x->data_len = p[TMX_XRAY_P_DATA].str.len;
		assert_int_equal(x->data_len, p[TMX_XRAY_P_DATA_SIZE].u);
		assert_true(x->data_len <= sizeof(x->data));
		if (x->data_len)
			memcpy(x->data, p[TMX_XRAY_P_DATA].str.ptr, x->data_len);
		x->n_args = (unsigned)p[TMX_XRAY_P_N_ARGS].u;
		assert_int_equal(x->n_args, p[TMX_XRAY_P_ARGS].count);
		for (unsigned i = 0; i < x->n_args && i < 4; i++)
			x->args[i] = p[TMX_XRAY_P_ARGS + 1 + i].u;
	}
	{
		uint64_t bytes;
		tmx_source_skipped(src, &r->skipped, &bytes);
	}
	tmx_source_free(src);
	unlink(path);
}

/* The records without wall-time events. */
static size_t records(const struct result *r, const struct rec **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n && n < max; i++)
		if (r->recs[i].cls != TMX_XRAY_EV_WALLTIME)
			out[n++] = &r->recs[i];
	return n;
}

static const struct tmx_xray_opts sorted_opts = TMX_XRAY_OPTS_INIT,
				   unsorted_opts = { .size = sizeof(unsorted_opts), .unsorted = true };

/* ------------------------------------------------------------------ */
/* FDR                                                                  */
/* ------------------------------------------------------------------ */

static void test_fdr_v5_every_record(void **state)
{
	static struct bytes b;
	static struct result r;
	const struct rec *x[32];
	size_t at, n;
	(void)state;

	header(&b, 5, 1, 1000000000, 4096);
	at = open_buffer(&b, 77, 7, 2, 1000);
	fn(&b, ENTER, 1, 0);
	fn(&b, ENTER_ARG, 2, 10);
	call_arg(&b, 42);
	call_arg(&b, UINT64_MAX);
	event_v5(&b, 5, "hello", 5, 5, 0);       /* custom: TSC 1015, unaligned after */
	event_v5(&b, 8, "ty\0pe", 5, -3, 33);    /* typed: TSC 1012, type 33 */
	fn(&b, TAIL, 2, 8);                      /* 1020, record type stays 33 */
	tsc_wrap(&b, 5000);
	fn(&b, EXIT, 1, 0);                      /* 5000 */
	fn(&b, ENTER, 268435455, 4294967295u);   /* 5000 + 2^32 - 1 */
	close_extents(&b, at);
	read_log(&b, &unsorted_opts, &r);
	assert_int_equal(r.status, TMX_OK);
	assert_int_equal(r.n_streams, 1);
	/* The wall-time event first, at the block's first TSC. */
	assert_int_equal(r.recs[0].cls, TMX_XRAY_EV_WALLTIME);
	assert_int_equal(r.recs[0].wall_sec, 100);
	assert_int_equal(r.recs[0].wall_usec, 200);
	assert_int_equal(r.recs[0].tsc, 1000);
	assert_int_equal(r.recs[0].pid, 7);
	n = records(&r, x, 32);
	assert_int_equal(n, 7);
	assert_int_equal(x[0]->cls, TMX_XRAY_EV_ENTER);
	assert_int_equal(x[0]->tsc, 1000);
	assert_int_equal(x[0]->cpu, 2);
	assert_int_equal(x[0]->tid, 77);
	assert_int_equal(x[0]->pid, 7);
	assert_string_equal(x[0]->function, "1");
	assert_int_equal(x[1]->cls, TMX_XRAY_EV_ENTER_ARG);
	assert_int_equal(x[1]->tsc, 1010);
	assert_int_equal(x[1]->n_args, 2);
	assert_int_equal(x[1]->args[0], 42);
	assert_true(x[1]->args[1] == UINT64_MAX);
	assert_int_equal(x[2]->cls, TMX_XRAY_EV_CUSTOM);
	assert_int_equal(x[2]->tsc, 1015);
	assert_int_equal(x[2]->func_id, 2);     /* the last function's id */
	assert_int_equal(x[2]->data_len, 5);
	assert_memory_equal(x[2]->data, "hello", 5);
	assert_int_equal(x[3]->cls, TMX_XRAY_EV_TYPED);
	assert_int_equal(x[3]->tsc, 1012);
	assert_int_equal(x[3]->record_type, 33);
	assert_memory_equal(x[3]->data, "ty\0pe", 5);
	assert_int_equal(x[4]->cls, TMX_XRAY_EV_TAIL_EXIT);
	assert_int_equal(x[4]->tsc, 1020);
	assert_int_equal(x[4]->record_type, 33);   /* llvm-xray keeps it */
	assert_int_equal(x[5]->cls, TMX_XRAY_EV_EXIT);
	assert_int_equal(x[5]->tsc, 5000);
	assert_int_equal(x[6]->func_id, 268435455);
	assert_int_equal(x[6]->tsc, 5000 + 4294967295ull);

	/* Sorted: the typed event (1012) moves before the custom one (1015). */
	read_log(&b, &sorted_opts, &r);
	assert_int_equal(r.status, TMX_OK);
	n = records(&r, x, 32);
	assert_int_equal(n, 7);
	assert_int_equal(x[2]->cls, TMX_XRAY_EV_TYPED);
	assert_int_equal(x[3]->cls, TMX_XRAY_EV_CUSTOM);
}

/* v1-v3: size + absolute TSC (the running TSC unchanged); v4: + CPU. */
static void test_custom_event_layouts(void **state)
{
	static struct bytes b;
	static struct result r;
	const struct rec *x[8];
	(void)state;

	for (unsigned v = 3; v <= 4; v++) {
		size_t at;
		header(&b, v, 1, 1000000000, 4096);
		at = open_buffer(&b, 5, 6, 1, 100);
		fn(&b, ENTER, 3, 5);
		custom_abs(&b, "abs", 90, 9);
		fn(&b, EXIT, 3, 5);              /* 110: the event did not move the TSC */
		close_extents(&b, at);
		read_log(&b, &unsorted_opts, &r);
		assert_int_equal(r.status, TMX_OK);
		assert_int_equal(records(&r, x, 8), 3);
		assert_int_equal(x[1]->cls, TMX_XRAY_EV_CUSTOM);
		assert_int_equal(x[1]->tsc, 90);
		/* llvm-xray 14 reads the v4 CPU field in every version. */
		assert_int_equal(x[1]->cpu, 9);
		assert_memory_equal(x[1]->data, "abs", 3);
		assert_int_equal(x[2]->tsc, 110);
		assert_int_equal(x[2]->cpu, 1);
	}
	/* v5: a signed delta on the running TSC. */
	{
		size_t at;
		header(&b, 5, 1, 1000000000, 4096);
		at = open_buffer(&b, 5, 6, 1, 100);
		fn(&b, ENTER, 3, 5);
		event_v5(&b, 5, "d", 1, -50, 0);    /* 55 */
		fn(&b, EXIT, 3, 5);                 /* 60 */
		close_extents(&b, at);
		read_log(&b, &unsorted_opts, &r);
		assert_int_equal(r.status, TMX_OK);
		assert_int_equal(records(&r, x, 8), 3);
		assert_int_equal(x[1]->tsc, 55);
		assert_int_equal(x[2]->tsc, 60);
	}
}

static void test_tsc_wrap_and_migration(void **state)
{
	static struct bytes b;
	static struct result r;
	const struct rec *x[8];
	size_t at;
	(void)state;

	header(&b, 5, 1, 2445424000u, 4096);
	at = open_buffer(&b, 9, 9, 0, 1ull << 40);
	fn(&b, ENTER, 1, 0);
	fn(&b, ENTER, 2, 2147483647);
	tsc_wrap(&b, (1ull << 40) + (1ull << 33));   /* delta > 2^31-1: a wrap record */
	fn(&b, EXIT, 2, 0);
	new_cpu(&b, 1, 500);                         /* migration to a CPU with another TSC */
	fn(&b, EXIT, 1, 0);
	close_extents(&b, at);
	read_log(&b, &unsorted_opts, &r);
	assert_int_equal(r.status, TMX_OK);
	assert_int_equal(records(&r, x, 8), 4);
	assert_true(x[1]->tsc == (1ull << 40) + 2147483647u);
	assert_true(x[2]->tsc == (1ull << 40) + (1ull << 33));
	assert_int_equal(x[2]->cpu, 0);
	assert_int_equal(x[3]->tsc, 500);
	assert_int_equal(x[3]->cpu, 1);
	/* Sorted: the record after the migration comes first. */
	read_log(&b, &sorted_opts, &r);
	assert_int_equal(records(&r, x, 8), 4);
	assert_int_equal(x[0]->tsc, 500);
}

/* v1: EndOfBuffer, then fill up to buffer_size that need not parse. */
static void test_v1_end_of_buffer(void **state)
{
	static struct bytes b;
	static struct result r;
	const struct rec *x[8];
	size_t start;
	(void)state;

	header(&b, 1, 1, 1000000000, 128);
	start = b.n;
	new_buffer(&b, 3);
	walltime(&b, 1, 1);
	new_cpu(&b, 4, 10);
	fn(&b, ENTER, 1, 0);
	fn(&b, EXIT, 1, 2);
	end_of_buffer(&b);
	while (b.n < start + 128)        /* fill: an invalid metadata kind (0xff) */
		put_le(&b, 0xff, 1);
	new_buffer(&b, 4);
	walltime(&b, 1, 2);
	new_cpu(&b, 5, 20);
	fn(&b, ENTER_ARG, 2, 0);
	call_arg(&b, 8);
	end_of_buffer(&b);
	read_log(&b, &unsorted_opts, &r);
	assert_int_equal(r.status, TMX_OK);
	assert_int_equal(r.n_streams, 2);
	assert_int_equal(records(&r, x, 8), 3);
	assert_int_equal(x[0]->tid, 3);
	assert_int_equal(x[0]->pid, 0);      /* v1: no process id */
	assert_int_equal(x[1]->tsc, 12);
	assert_int_equal(x[2]->tid, 4);
	assert_int_equal(x[2]->cls, TMX_XRAY_EV_ENTER_ARG);
	assert_int_equal(x[2]->args[0], 8);
}

/* v2: process id = thread id (as llvm-xray); v3+: garbage between buffers skipped. */
static void test_v2_pid_and_v3_extents(void **state)
{
	static struct bytes b;
	static struct result r;
	const struct rec *x[8];
	size_t at;
	(void)state;

	header(&b, 2, 1, 1000000000, 4096);
	at = b.n;
	extents(&b, 0);
	new_buffer(&b, 12);
	walltime(&b, 1, 1);
	new_cpu(&b, 0, 10);
	fn(&b, ENTER, 1, 0);
	close_extents(&b, at);
	read_log(&b, &unsorted_opts, &r);
	assert_int_equal(r.status, TMX_OK);
	assert_int_equal(records(&r, x, 8), 1);
	assert_int_equal(x[0]->pid, 12);

	header(&b, 3, 1, 1000000000, 4096);
	at = open_buffer(&b, 13, 130, 0, 10);
	fn(&b, ENTER, 1, 0);
	close_extents(&b, at);
	put(&b, "\x00\x02\x04\xfe\x00", 5);      /* no 0x0f byte in there */
	at = open_buffer(&b, 14, 130, 0, 11);
	fn(&b, ENTER, 2, 0);
	close_extents(&b, at);
	read_log(&b, &sorted_opts, &r);
	assert_int_equal(r.status, TMX_OK);
	assert_int_equal(records(&r, x, 8), 2);
	assert_int_equal(x[1]->tid, 14);
}

/* Records with equal TSCs keep llvm-xray's order; threads are streams. */
static void test_sorted_ties(void **state)
{
	static struct bytes b;
	static struct result r, u;
	const struct rec *x[16], *y[16];
	size_t at;
	(void)state;

	header(&b, 5, 1, 1000000000, 4096);
	for (int t = 0; t < 3; t++) {
		at = open_buffer(&b, 20 + t, 2, 0, 100);
		fn(&b, ENTER, 1 + (unsigned)t, 0);
		fn(&b, EXIT, 1 + (unsigned)t, 0);
		close_extents(&b, at);
	}
	read_log(&b, &sorted_opts, &r);
	read_log(&b, &unsorted_opts, &u);
	assert_int_equal(r.status, TMX_OK);
	assert_int_equal(r.n_streams, 3);
	assert_int_equal(records(&r, x, 16), 6);
	assert_int_equal(records(&u, y, 16), 6);
	/* All TSCs equal: the stable sort keeps the unsorted order. */
	for (int i = 0; i < 6; i++) {
		assert_int_equal(x[i]->tid, y[i]->tid);
		assert_int_equal(x[i]->cls, y[i]->cls);
	}
	/* A thread's records stay together in llvm's order. */
	assert_int_equal(y[0]->tid, y[1]->tid);
	assert_int_not_equal(y[1]->tid, y[2]->tid);
}

/* ------------------------------------------------------------------ */
/* Basic mode                                                           */
/* ------------------------------------------------------------------ */

static void test_basic(void **state)
{
	static struct bytes b;
	static struct result r, u;
	const struct rec *x[16];
	(void)state;

	header(&b, 3, 0, 1000000000, 0);
	basic_rec(&b, ENTER, 5, 300, 2, 1, 3);
	basic_rec(&b, EXIT, 5, 310, 2, 1, 3);
	basic_rec(&b, ENTER_ARG, -7, 100, 3, 1, 0);   /* another thread's chunk, earlier */
	basic_arg(&b, -7, 3, 1, 99);
	basic_arg(&b, -7, 3, 1, 98);
	basic_rec(&b, TAIL, -7, 300, 3, 1, 0);
	read_log(&b, &sorted_opts, &r);
	assert_int_equal(r.status, TMX_OK);
	assert_int_equal(r.n_streams, 2);
	assert_int_equal(records(&r, x, 16), 4);
	assert_int_equal(x[0]->tsc, 100);
	assert_int_equal(x[0]->func_id, -7);
	assert_string_equal(x[0]->function, "-7");
	assert_int_equal(x[0]->n_args, 2);
	assert_int_equal(x[0]->args[1], 98);
	/* Equal TSCs (300): file order. */
	assert_int_equal(x[1]->tid, 2);
	assert_int_equal(x[1]->cpu, 3);
	assert_int_equal(x[2]->tid, 3);
	assert_int_equal(x[2]->cls, TMX_XRAY_EV_TAIL_EXIT);
	read_log(&b, &unsorted_opts, &u);
	assert_int_equal(records(&u, x, 16), 4);
	assert_int_equal(x[0]->tsc, 300);
}

/* ------------------------------------------------------------------ */
/* Damage                                                               */
/* ------------------------------------------------------------------ */

/* A v5 log of two buffers; the second one gets damaged by the tests. */
static size_t two_buffers(struct bytes *b, size_t *second)
{
	size_t at;

	header(b, 5, 1, 1000000000, 4096);
	at = open_buffer(b, 1, 1, 0, 100);
	fn(b, ENTER, 1, 0);
	fn(b, EXIT, 1, 1);
	close_extents(b, at);
	*second = b->n;
	at = open_buffer(b, 2, 1, 0, 200);
	fn(b, ENTER, 2, 0);
	event_v5(b, 5, "payload", 7, 1, 0);
	fn(b, EXIT, 2, 1);
	close_extents(b, at);
	return at;
}

static void expect_error(const struct result *r, uint64_t offset, const char *needle)
{
	assert_int_equal(r->status, TMX_ERR_DATA);
	assert_true(r->err.has_offset);
	if (r->err.offset != offset)
		fail_msg("error at %llu, expected %llu: %s", (unsigned long long)r->err.offset,
			 (unsigned long long)offset, r->err.msg);
	if (!strstr(r->err.msg, needle))
		fail_msg("error `%s` does not say `%s`", r->err.msg, needle);
}

static void test_damaged_truncated(void **state)
{
	static struct bytes b, c;
	static struct result r;
	const struct rec *x[16];
	size_t second, cut;
	(void)state;

	two_buffers(&b, &second);
	/* Inside the last function record. */
	c = b;
	c.n = b.n - 3;
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, b.n - 8, "function record truncated");
	assert_int_equal(records(&r, x, 16), 4);   /* all but the cut record */
	/* Inside the custom event payload. */
	cut = second + 16 * 5 + 8 + 16 + 3;
	c = b;
	c.n = cut;
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, second + 16 * 5 + 8, "payload truncated");
	assert_int_equal(records(&r, x, 16), 3);
	/* Inside a metadata record. */
	c = b;
	c.n = second + 16 + 5;
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, second + 16, "NewBuffer record truncated");
	assert_int_equal(records(&r, x, 16), 2);
	/* Every cut of the file: no crash, records before the cut delivered. */
	for (size_t n = 32; n < b.n; n++) {
		c = b;
		c.n = n;
		read_log(&c, &sorted_opts, &r);
		assert_true(r.status == TMX_OK || r.status == TMX_ERR_DATA);
	}
}

static void test_damaged_extents(void **state)
{
	static struct bytes b, c;
	static struct result r;
	const struct rec *x[16];
	size_t second;
	(void)state;

	two_buffers(&b, &second);
	/* Extents 4 bytes short: the last function record crosses the end. */
	c = b;
	c.d[second + 1] = (uint8_t)(c.d[second + 1] - 4);
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, b.n - 8, "crosses the end of its buffer");
	assert_int_equal(records(&r, x, 16), 4);
	/* Extents longer than the file. */
	c = b;
	c.d[second + 3] = 0x10;
	read_log(&c, &sorted_opts, &r);
	assert_int_equal(r.status, TMX_ERR_DATA);
	/* Lenient: the damaged buffer is skipped, the next one read. */
	{
		static const struct tmx_xray_opts lenient = { .size = sizeof(lenient), .lenient = true };
		size_t at;
		c = b;
		c.d[second + 16 * 5] = 0x1d;   /* first function record -> metadata kind 14 */
		at = open_buffer(&c, 3, 1, 0, 300);
		fn(&c, ENTER, 3, 0);
		close_extents(&c, at);
		read_log(&c, &lenient, &r);
		assert_int_equal(r.status, TMX_OK);
		assert_int_equal(r.skipped, 1);
		assert_int_equal(records(&r, x, 16), 3);
		assert_int_equal(x[2]->tid, 3);
	}
}

/*
 * compiler-rt 14 under-counts typed events in BufferExtents by 16 bytes and
 * writes only that many: a buffer's last record can be cut.  The cut
 * record is dropped (with a warning), the next buffer read.
 */
static void test_typed_event_short_extents(void **state)
{
	static struct bytes b;
	static struct result r;
	const struct rec *x[16];
	(void)state;

	for (int last = 0; last <= 1; last++) {
		size_t at;
		header(&b, 5, 1, 1000000000, 4096);
		at = open_buffer(&b, 1, 1, 0, 100);
		fn(&b, ENTER, 1, 0);
		event_v5(&b, 8, "typed", 5, 1, 7);
		fn(&b, EXIT, 1, 1);
		event_v5(&b, 5, "cust", 4, 1, 0);   /* 20 bytes: the short extents cut it */
		close_extents(&b, at);
		b.d[at + 1] = (uint8_t)(b.d[at + 1] - 16);
		b.n -= 16;
		if (!last) {
			at = open_buffer(&b, 2, 1, 0, 200);
			fn(&b, ENTER, 2, 0);
			close_extents(&b, at);
		}
		read_log(&b, &sorted_opts, &r);
		assert_int_equal(r.status, TMX_OK);
		assert_int_equal(records(&r, x, 16), last ? 3 : 4);
		assert_int_equal(x[2]->cls, TMX_XRAY_EV_EXIT);
		if (!last)
			assert_int_equal(x[3]->tid, 2);
	}
}

static void test_damaged_kinds(void **state)
{
	static struct bytes b, c;
	static struct result r;
	const struct rec *x[16];
	size_t second, first_fn;
	(void)state;

	two_buffers(&b, &second);
	first_fn = second + 16 * 5;
	/* Unknown metadata kind. */
	c = b;
	c.d[first_fn] = 0x1d;
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, first_fn, "unknown metadata record kind 14");
	assert_int_equal(records(&r, x, 16), 2);
	/* Unknown function record kind (5). */
	c = b;
	c.d[first_fn] = 5 << 1;
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, first_fn, "unknown function record kind 5");
	/* EndOfBuffer in a v2+ log. */
	c = b;
	c.d[first_fn] = 0x03;
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, first_fn, "EndOfBuffer record in a version 5 log");
	/* A payload size of 0. */
	c = b;
	memset(c.d + first_fn + 8 + 1, 0, 4);
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, first_fn + 8, "payload size 0");
	/* A buffer that skips its WalltimeMarker: the grammar is checked. */
	c = b;
	c.d[second + 32] = 0x13;   /* WalltimeMarker -> Pid */
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, second + 32, "Pid record after NewBuffer");
	assert_int_equal(records(&r, x, 16), 2);
	/* A record before any NewBuffer. */
	header(&c, 1, 1, 1000000000, 0);
	fn(&c, ENTER, 1, 0);
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, 32, "outside of any buffer");
	/* Basic: unknown record type, orphan and mismatched arguments, a cut record. */
	header(&c, 3, 0, 1000000000, 0);
	basic_rec(&c, ENTER, 1, 10, 1, 1, 0);
	basic_rec(&c, 7, 1, 11, 1, 1, 0);
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, 64, "unknown function record kind 7");
	assert_int_equal(records(&r, x, 16), 1);
	header(&c, 3, 0, 1000000000, 0);
	basic_arg(&c, 1, 1, 1, 5);
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, 32, "no function record before it");
	header(&c, 3, 0, 1000000000, 0);
	basic_rec(&c, ENTER_ARG, 1, 10, 1, 1, 0);
	basic_arg(&c, 2, 1, 1, 5);
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, 64, "argument record for function 2");
	header(&c, 3, 0, 1000000000, 0);
	basic_rec(&c, ENTER, 1, 10, 1, 1, 0);
	put_le(&c, 9, 2);
	c.d[c.n - 2] = 2;
	c.n += 6;
	read_log(&c, &sorted_opts, &r);
	expect_error(&r, 64, "truncated record");
	assert_int_equal(records(&r, x, 16), 1);
}

static void test_header_errors(void **state)
{
	static struct bytes b;
	static struct result r;
	(void)state;

	header(&b, 6, 1, 1000000000, 0);
	read_log(&b, &sorted_opts, &r);
	assert_int_equal(r.open_status, TMX_ERR_UNSUPPORTED);
	assert_non_null(strstr(r.err.msg, "FDR log version 6"));
	header(&b, 4, 0, 1000000000, 0);
	read_log(&b, &sorted_opts, &r);
	assert_int_equal(r.open_status, TMX_ERR_UNSUPPORTED);
	assert_non_null(strstr(r.err.msg, "basic log version 4"));
	header(&b, 1, 7, 1000000000, 0);
	read_log(&b, &sorted_opts, &r);
	assert_non_null(strstr(r.err.msg, "header type 7"));
	header(&b, 5, 1, 1000000000, 0);
	b.n = 20;
	read_log(&b, &sorted_opts, &r);
	assert_int_equal(r.open_status, TMX_ERR_DATA);
	assert_non_null(strstr(r.err.msg, "need 32 bytes"));
	/* A header alone: no thread, no record, no error. */
	header(&b, 5, 1, 1000000000, 0);
	read_log(&b, &sorted_opts, &r);
	assert_int_equal(r.status, TMX_OK);
	assert_int_equal(r.n, 0);
}

/* ------------------------------------------------------------------ */
/* YAML scalars: as llvm-xray 14 printed them (fdr-v5-events.xray)      */
/* ------------------------------------------------------------------ */

static void check_scalar(const char *in, size_t len, const char *want)
{
	char out[512];
	size_t n = tmx_xray_yaml_scalar(in, len, out, sizeof(out));

	assert_true(n < sizeof(out));
	out[n] = '\0';
	assert_string_equal(out, want);
}

static void test_yaml_scalars(void **state)
{
	(void)state;
	check_scalar("", 0, "''");
	check_scalar("leaf", 4, "leaf");
	check_scalar("9", 1, "'9'");
	check_scalar("-3", 2, "'-3'");
	check_scalar("a,b", 3, "a,b");
	check_scalar("a\tb", 3, "a\tb");
	check_scalar("0x1G", 4, "0x1G");
	check_scalar("0x1f", 4, "'0x1f'");
	check_scalar("1e3", 3, "'1e3'");
	check_scalar(".5", 2, "'.5'");
	check_scalar("true", 4, "'true'");
	check_scalar("null", 4, "'null'");
	check_scalar("~", 1, "'~'");
	check_scalar(" lead", 5, "' lead'");
	check_scalar("tail ", 5, "'tail '");
	check_scalar("#c", 2, "'#c'");
	check_scalar("a: b", 4, "'a: b'");
	check_scalar("it's", 4, "'it''s'");
	check_scalar("ns::f(int)", 10, "'ns::f(int)'");
	check_scalar("a\nb", 3, "\"a\\nb\"");
	check_scalar("\0", 1, "\"\\0\"");
	check_scalar("\x01\x0e\x1b\x1f", 4, "\"\\x01\\x0E\\e\\x1F\"");
	check_scalar("\x7f", 1, "\"\x7f\"");
	check_scalar("x\xff\xfey", 4, "\"x\xef\xbf\xbd\"");        /* stops at bad UTF-8 */
	check_scalar("\xc3\xa9 \xe4\xb8\xad", 6, "\"\xc3\xa9 \xe4\xb8\xad\"");
	check_scalar("x\xc2\x85y", 4, "\"x\\Ny\"");
	check_scalar("\xe2\x80\xa8", 3, "\"\\L\"");
	check_scalar("\xc2\x80", 2, "\"\\x80\"");
	check_scalar("q\"\\", 3, "'q\"\\'");
	check_scalar("q\"\\\n", 4, "\"q\\\"\\\\\\n\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdr_v5_every_record),
		cmocka_unit_test(test_custom_event_layouts),
		cmocka_unit_test(test_tsc_wrap_and_migration),
		cmocka_unit_test(test_v1_end_of_buffer),
		cmocka_unit_test(test_v2_pid_and_v3_extents),
		cmocka_unit_test(test_sorted_ties),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_damaged_truncated),
		cmocka_unit_test(test_damaged_extents),
		cmocka_unit_test(test_typed_event_short_extents),
		cmocka_unit_test(test_damaged_kinds),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_yaml_scalars),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
