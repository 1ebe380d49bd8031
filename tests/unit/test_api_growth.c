/*
 * The options structs can grow (include/tracemux/tracemux.h): a program
 * built with older headers (a smaller `size`) gets the defaults of the
 * members it does not know, one built with newer headers (a larger `size`)
 * is accepted when the bytes this library does not know are zero, and a
 * size never set (0) is refused naming the struct.  The older and newer
 * layouts are written byte by byte here, as such programs would lay them out.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tracemux/run.h"
#include "tracemux/sink.h"
#include "tracemux/tracemux.h"
#include "tracemux/trim.h"

#define SAMPLE TMX_TEST_DATA "/sample-trace"

static const char *const sample[] = { SAMPLE };

/* Events read from `src` (freed). */
static size_t count_events(struct tmx_source *src)
{
	struct tmx_error err = { 0 };
	const struct tmx_msg *msg;
	size_t n = 0;

	while (tmx_source_next(src, &msg, &err) == TMX_OK && msg)
		n += msg->kind == TMX_MSG_EVENT;
	assert_int_equal(err.code, TMX_OK);
	tmx_source_free(src);
	return n;
}

/* The trace name is trace_name (after the hostname babeltrace2 puts first). */
static bool named(const struct tmx_source *src, const char *name)
{
	const char *n = tmx_source_logical_trace(src, 0)->name, *slash = strrchr(n, '/');

	return strcmp(slash ? slash + 1 : n, name) == 0;
}

static size_t align_up(size_t off, size_t align)
{
	return (off + align - 1) / align * align;
}

/*
 * A tmx_open_opts as a program would lay it out whose tmx_ctf_fs_opts has
 * `ctf_size` bytes (taken from `ctf`, zero past sizeof) and which has
 * `tail` more bytes at the end (zero): its tracedat and xray structs
 * follow at their place after that ctf struct.  Returns its size.
 */
static size_t layout(unsigned char *buf, size_t cap, const struct tmx_ctf_fs_opts *ctf,
		     size_t ctf_size, size_t tail)
{
	struct tmx_tracedat_opts td = TMX_TRACEDAT_OPTS_INIT;
	struct tmx_xray_opts xr = TMX_XRAY_OPTS_INIT;
	size_t off = offsetof(struct tmx_open_opts, ctf), size;

	memset(buf, 0, cap);
	memcpy(buf + off, ctf, ctf_size < sizeof(*ctf) ? ctf_size : sizeof(*ctf));
	memcpy(buf + off, &ctf_size, sizeof(size_t));
	off = align_up(off + ctf_size, alignof(struct tmx_tracedat_opts));
	memcpy(buf + off, &td, sizeof(td));
	off = align_up(off + sizeof(td), alignof(struct tmx_xray_opts));
	memcpy(buf + off, &xr, sizeof(xr));
	size = align_up(off + sizeof(xr), alignof(struct tmx_open_opts)) + tail;
	assert_true(size <= cap);
	memcpy(buf, &size, sizeof(size));
	return size;
}

static int open_layout(const unsigned char *buf, struct tmx_source **src, struct tmx_error *err)
{
	return tmx_open(sample, 1, (const struct tmx_open_opts *)(const void *)buf, NULL, src, err);
}

/* The current layout, filled with the initializers, reads the trace. */
static void current_layout(void **state)
{
	struct tmx_open_opts o = TMX_OPEN_OPTS_INIT;
	struct tmx_error err = { 0 };
	struct tmx_source *src;

	(void)state;
	o.ctf.trace_name = "named";
	assert_int_equal(tmx_open(sample, 1, &o, NULL, &src, &err), TMX_OK);
	assert_true(named(src, "named"));
	assert_true(count_events(src) > 0);
	/* metadata_only is read: no event. */
	o.ctf.metadata_only = true;
	assert_int_equal(tmx_open(sample, 1, &o, NULL, &src, &err), TMX_OK);
	assert_int_equal(count_events(src), 0);
}

/* Size 0 (never set) is refused, naming the struct, the nested ones too. */
static void size_zero_refused(void **state)
{
	struct tmx_open_opts o = TMX_OPEN_OPTS_INIT;
	struct tmx_ctf_fs_opts ctf = { 0 };
	struct tmx_xray_opts xr = { .jobs = 1 };
	struct tmx_error err = { 0 };
	struct tmx_source *src = NULL;

	(void)state;
	o.size = 0;
	assert_int_equal(tmx_open(sample, 1, &o, NULL, &src, &err), TMX_ERR_USAGE);
	assert_null(src);
	assert_non_null(strstr(err.msg, "struct tmx_open_opts: size is 0"));
	o = (struct tmx_open_opts)TMX_OPEN_OPTS_INIT;
	o.ctf.size = 0;
	assert_int_equal(tmx_open(sample, 1, &o, NULL, &src, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_ctf_fs_opts: size is 0"));
	o = (struct tmx_open_opts)TMX_OPEN_OPTS_INIT;
	o.xray.size = 0;
	assert_int_equal(tmx_open(sample, 1, &o, NULL, &src, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_xray_opts: size is 0"));
	assert_int_equal(tmx_ctf_fs_open(sample, 1, &ctf, NULL, &src, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_ctf_fs_opts: size is 0"));
	assert_int_equal(tmx_xray_open(sample, 1, &xr, NULL, &src, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_xray_opts: size is 0"));
	assert_int_equal(tmx_tracedat_open(sample, 1, &(struct tmx_tracedat_opts){ 0 }, NULL, &src,
					   &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_tracedat_opts: size is 0"));
	/* A size never set but not 0 (garbage): refused, not read up to. */
	o = (struct tmx_open_opts)TMX_OPEN_OPTS_INIT;
	o.size = (size_t)0xdeadbeef;
	assert_int_equal(tmx_open(sample, 1, &o, NULL, &src, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_open_opts: size is 3735928559"));
	ctf.size = (size_t)-1;
	assert_int_equal(tmx_ctf_fs_open(sample, 1, &ctf, NULL, &src, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_ctf_fs_opts: size is"));
	/* NULL is still all defaults. */
	assert_int_equal(tmx_open(sample, 1, NULL, NULL, &src, &err), TMX_OK);
	assert_true(count_events(src) > 0);
}

/*
 * An older program whose tmx_ctf_fs_opts ended before metadata_only: the
 * member is its default (false) whatever lies past the size, and the
 * structs after it are found where that program put them.
 */
static void older_caller_gets_defaults(void **state)
{
	unsigned char buf[512];
	struct tmx_ctf_fs_opts ctf = TMX_CTF_FS_OPTS_INIT;
	size_t old = offsetof(struct tmx_ctf_fs_opts, metadata_only);
	struct tmx_error err = { 0 };
	struct tmx_source *src;

	(void)state;
	ctf.trace_name = "old";
	ctf.metadata_only = true;
	/* Alone: the bytes past its size (metadata_only = true) are not read. */
	ctf.size = old;
	assert_int_equal(tmx_ctf_fs_open(sample, 1, &ctf, NULL, &src, &err), TMX_OK);
	assert_true(named(src, "old"));
	assert_true(count_events(src) > 0);
	ctf.size = sizeof(ctf);   /* the control: at full size it is read */
	assert_int_equal(tmx_ctf_fs_open(sample, 1, &ctf, NULL, &src, &err), TMX_OK);
	assert_int_equal(count_events(src), 0);
	/* Nested in an older tmx_open_opts. */
	layout(buf, sizeof(buf), &ctf, old, 0);
	assert_int_equal(open_layout(buf, &src, &err), TMX_OK);
	assert_true(named(src, "old"));
	assert_true(count_events(src) > 0);
	/* An older tmx_open_opts that ends inside its xray struct: still read. */
	{
		size_t size = offsetof(struct tmx_open_opts, xray) + sizeof(size_t);
		struct tmx_open_opts o = TMX_OPEN_OPTS_INIT;
		o.size = size;
		o.xray.size = sizeof(size_t);
		assert_int_equal(tmx_open(sample, 1, &o, NULL, &src, &err), TMX_OK);
		assert_true(count_events(src) > 0);
	}
}

/*
 * A newer program: its structs are larger.  Zero bytes past what this
 * library knows (options at their default) are accepted, and the structs
 * after a grown nested one are found after it; a set byte is refused.
 */
static void newer_caller_zero_tail(void **state)
{
	unsigned char buf[512];
	struct tmx_ctf_fs_opts ctf = TMX_CTF_FS_OPTS_INIT;
	struct tmx_error err = { 0 };
	struct tmx_source *src = NULL;
	size_t size, at;

	(void)state;
	ctf.trace_name = "new";
	ctf.metadata_only = true;
	size = layout(buf, sizeof(buf), &ctf, sizeof(ctf) + 16, 24);
	assert_int_equal(open_layout(buf, &src, &err), TMX_OK);
	assert_true(named(src, "new"));
	assert_int_equal(count_events(src), 0);   /* metadata_only read */
	/* A byte set in the ctf struct's unknown part. */
	at = offsetof(struct tmx_open_opts, ctf) + sizeof(ctf) + 3;
	buf[at] = 1;
	src = NULL;
	assert_int_equal(open_layout(buf, &src, &err), TMX_ERR_USAGE);
	assert_null(src);
	assert_non_null(strstr(err.msg, "struct tmx_ctf_fs_opts: size"));
	assert_non_null(strstr(err.msg, "not zero"));
	buf[at] = 0;
	/* A byte set in the outer struct's unknown tail. */
	buf[size - 1] = 1;
	assert_int_equal(open_layout(buf, &src, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_open_opts: size"));
	assert_non_null(strstr(err.msg, "not zero"));
	/* A nested size past the outer struct's end. */
	layout(buf, sizeof(buf), &ctf, sizeof(ctf), 0);
	at = 400;
	memcpy(buf + offsetof(struct tmx_open_opts, ctf), &at, sizeof(at));
	assert_int_equal(open_layout(buf, &src, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "tmx_ctf_fs_opts"));
}

static bool count_keep(void *user, const struct tmx_msg *msg, bool *stop)
{
	(void)msg;
	(void)stop;
	++*(size_t *)user;
	return true;
}

/*
 * An options struct `o` (of osize bytes) as a program with another layout
 * hands it over: `size` bytes, the size member says so, and past osize
 * zeros but the last byte, `tail`.
 */
static void lay_out(unsigned char *buf, size_t cap, const void *o, size_t osize, size_t size,
		    unsigned char tail)
{
	assert_true(size <= cap);
	memcpy(buf, o, size < osize ? size : osize);
	memcpy(buf, &size, sizeof(size));
	if (size > osize)
		buf[size - 1] = tail;
}

/* tmx_run into the dummy sink with options of `size` bytes laid out as `o` then zeros. */
static int run_with(const struct tmx_run_opts *o, size_t size, unsigned char tail_byte,
		    struct tmx_error *err)
{
	unsigned char buf[256] = { 0 };
	struct tmx_source *src;
	struct tmx_sink_params *p;
	struct tmx_sink *sink;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC), ret;

	assert_true(fd >= 0);
	lay_out(buf, sizeof(buf), o, sizeof(*o), size, tail_byte);
	assert_int_equal(tmx_open(sample, 1, NULL, NULL, &src, err), TMX_OK);
	assert_non_null(p = tmx_sink_params_new("dummy", err));
	assert_int_equal(tmx_sink_open(p, src, &(struct tmx_sink_io){ fd, 2, NULL }, &sink, err),
			 TMX_OK);
	tmx_sink_params_free(p);
	ret = tmx_run(src, sink, (const struct tmx_run_opts *)(const void *)buf, err);
	tmx_sink_free(sink);
	tmx_source_free(src);
	close(fd);
	return ret;
}

static void run_opts_growth(void **state)
{
	struct tmx_run_opts o = TMX_RUN_OPTS_INIT;
	struct tmx_error err = { 0 };
	size_t calls = 0;

	(void)state;
	o.jobs = 1;
	o.keep = count_keep;
	o.keep_user = &calls;
	assert_int_equal(run_with(&o, sizeof(o), 0, &err), TMX_OK);
	assert_true(calls > 0);
	/* Older: keep (and keep_user) past the size are not read. */
	calls = 0;
	assert_int_equal(run_with(&o, offsetof(struct tmx_run_opts, keep), 0, &err), TMX_OK);
	assert_int_equal(calls, 0);
	/* Newer: a zero tail is accepted, a set byte refused. */
	assert_int_equal(run_with(&o, sizeof(o) + 16, 0, &err), TMX_OK);
	assert_true(calls > 0);
	assert_int_equal(run_with(&o, sizeof(o) + 16, 7, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_run_opts: size"));
	assert_int_equal(run_with(&o, 0, 0, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_run_opts: size is 0"));
}

/* Events of the sample trace that a trimmer of options `o` (`size` bytes, then `tail`) keeps. */
static int trim_count(const struct tmx_trim_opts *o, size_t size, unsigned char tail, size_t *kept,
		      struct tmx_error *err)
{
	unsigned char buf[256] = { 0 };
	struct tmx_source *src;
	struct tmx_trimmer *t;
	const struct tmx_msg *msg;
	bool past = false;
	int ret;

	lay_out(buf, sizeof(buf), o, sizeof(*o), size, tail);
	assert_int_equal(tmx_open(sample, 1, NULL, NULL, &src, err), TMX_OK);
	ret = tmx_trimmer_new(src, (const struct tmx_trim_opts *)(const void *)buf, &t, err);
	*kept = 0;
	while (!ret && tmx_source_next(src, &msg, err) == TMX_OK && msg)
		*kept += msg->kind == TMX_MSG_EVENT && tmx_trimmer_keep(t, msg, &past);
	tmx_trimmer_free(t);
	tmx_source_free(src);
	return ret;
}

static void trim_opts_growth(void **state)
{
	struct tmx_trim_opts o = TMX_TRIM_OPTS_INIT;
	struct tmx_error err = { 0 };
	struct tmx_source *src;
	char begin[64];
	int64_t first;
	size_t all, kept;
	const struct tmx_msg *msg;

	(void)state;
	assert_int_equal(tmx_open(sample, 1, NULL, NULL, &src, &err), TMX_OK);
	do
		assert_int_equal(tmx_source_next(src, &msg, &err), TMX_OK);
	while (msg && msg->kind != TMX_MSG_EVENT);
	assert_non_null(msg);
	first = msg->ns;
	tmx_source_free(src);
	assert_int_equal(tmx_open(sample, 1, NULL, NULL, &src, &err), TMX_OK);
	all = count_events(src);
	/* One nanosecond after the first event: at least that one is left out. */
	snprintf(begin, sizeof(begin), "%lld.%09lld", (long long)((first + 1) / 1000000000),
		 (long long)((first + 1) % 1000000000));
	o.begin = begin;
	assert_int_equal(trim_count(&o, sizeof(o), 0, &kept, &err), TMX_OK);
	assert_true(kept > 0 && kept < all);
	/* Older callers (no gmt, no stream_intersection) get the same range. */
	assert_int_equal(trim_count(&o, offsetof(struct tmx_trim_opts, gmt), 0, &all, &err), TMX_OK);
	assert_int_equal(all, kept);
	assert_int_equal(trim_count(&o, sizeof(o) + 8, 0, &all, &err), TMX_OK);
	assert_int_equal(trim_count(&o, sizeof(o) + 8, 1, &all, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_trim_opts: size"));
	assert_int_equal(trim_count(&o, 0, 0, &all, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "struct tmx_trim_opts: size is 0"));
	/* babeltrace2's refusals come through. */
	o.end = "1.0";
	assert_int_equal(trim_count(&o, sizeof(o), 0, &all, &err), TMX_ERR_USAGE);
	assert_non_null(strstr(err.msg, "beginning time is greater than end time"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(current_layout),
		cmocka_unit_test(size_zero_refused),
		cmocka_unit_test(older_caller_gets_defaults),
		cmocka_unit_test(newer_caller_zero_tail),
		cmocka_unit_test(run_opts_growth),
		cmocka_unit_test(trim_opts_growth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
