/*
 * A trace.dat stream read as segments (tmx_source_split_stream, the
 * parallel runner's src/par/split.c; the reader's src/tracecmd/segment.c).
 *
 * The reader: the segments of CPU 0's stream, read one after the other,
 * give the messages of the stream read whole -- kinds, times, the packet's
 * begin and end, discarded-events counts and ranges, events and their
 * values, all naming the stream itself -- and its warnings (the unknown
 * event ids' counted per stream, as the runner's merge counts them) and
 * error, for segments of 1, 2 and 3 pages or chunks, on files built by
 * hand (v6 and v7, no compression, zlib, zstd, time extends, missed
 * events, a page whose time goes back, records of an unknown event) and
 * on every single-byte corruption of the CPU's data, strict and lenient.
 * Read after tmx_source_skip_fields (whole and in segments), the same
 * messages, warnings and error, the events without their values (every
 * event, on the files as built).
 *
 * The runner: tmx_run with the text and json sinks, the stream cut into
 * pages (TRACEMUX_SEGMENT_BYTES), writes with 2 and 4 jobs the bytes,
 * warnings and status of --jobs 1, on the same files and a part of their
 * corruptions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tdat_build.h"
#include "tdat_matrix.h"
#include "testutil.h"
#include "common/errors.h"
#include "model/msg_iter.h"
#include "source/source.h"
#include "mux/muxer.h"
#include "tracecmd/source_impl.h"
#include "tracecmd/tracedat.h"
#include "tracemux/run.h"
#include "tracemux/sink.h"
#include "tracemux/tracemux.h"

/*
 * Warnings as the runner's merge replays them: tmx_warn_limit's counted
 * per key over the whole reading (each segment counts only its own).
 */
struct counting {
	struct log *l;
	const void *keys[8];
	unsigned counts[8];
	size_t n;
};

static void put(void *ctx, const struct tmx_diag *diag, const void *key, const char *msg)
{
	(void)diag;
	(void)key;
	say(((struct counting *)ctx)->l, "warning: %s\n", msg);
}

static void put_limit(void *ctx, const struct tmx_diag *diag, const void *key, unsigned limit,
		      const char *msg)
{
	struct counting *c = ctx;
	size_t k = 0;

	(void)diag;
	while (k < c->n && c->keys[k] != key)
		k++;
	assert_true(k < 8);
	if (k == c->n) {
		c->keys[c->n] = key;
		c->counts[c->n++] = 0;
	}
	if (c->counts[k]++ < limit)
		say(c->l, "warning: %s\n", msg);
}

/* `values`: the events' values too (not when no one reads them: tmx_source_skip_fields). */
static void say_msg(struct log *l, const struct tmx_msg *m, const struct tmx_stream *stream,
		    bool values)
{
	const struct tmx_packet *pk = m->packet;

	say(l, "kind %d own-stream %d ts %d %llu %lld count %llu range %d %llu %llu", (int)m->kind,
	    m->stream == stream, m->has_ts, (unsigned long long)m->cycles, (long long)m->ns,
	    (unsigned long long)m->count, m->has_range, (unsigned long long)m->begin_cycles,
	    (unsigned long long)m->end_cycles);
	if (pk)
		say(l, " packet %d %llu %d %llu cpu %llu own-stream %d", pk->has_begin,
		    (unsigned long long)pk->begin_cycles, pk->has_end,
		    (unsigned long long)pk->end_cycles,
		    (unsigned long long)(pk->context ? pk->context[1].u : 999), pk->stream == stream);
	if (m->kind == TMX_MSG_EVENT && !values) {
		say(l, " event %s", m->event->cls->name);
	} else if (m->kind == TMX_MSG_EVENT) {
		const struct tmx_value *p = m->event->scopes[TMX_SCOPE_PAYLOAD];

		say(l, " event %s value %lld name %.*s", m->event->cls->name, (long long)p[1].s,
		    (int)p[2].str.len, p[2].str.ptr);
	}
	say(l, "\n");
}

static char *write_file(const uint8_t *p, size_t n)
{
	char *path = strdup("/tmp/tmx-segments-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	close(fd);
	return path;
}

/*
 * How a stream is read: its events' values logged (VALUES) or not
 * (BARE), or read after tmx_source_skip_fields and logged without them
 * (UNREAD).
 */
enum reading { VALUES, BARE, UNREAD };

/*
 * CPU 0's stream read whole (seg 0) or as segments of `seg` bytes; the
 * log says whether it was cut.  An open failure is logged as such.
 * Returns the events that came with their values.
 */
static size_t read_stream(const char *path, bool lenient, uint64_t seg, enum reading how,
			  struct log *l)
{
	struct tmx_tracedat_opts o = { .size = sizeof(o), .lenient = lenient };
	struct tmx_diag diag = { warned, l };
	struct counting cnt = { .l = l };
	struct tmx_warn_capture cap = { .put = put, .ctx = &cnt, .put_limit = put_limit };
	struct tmx_source *src;
	struct tmx_mux_head *heads;
	struct tmx_msg_iter **segs = NULL, *whole[1];
	const struct tmx_stream *stream = NULL;
	struct tmx_error err;
	size_t n_heads, n_segs = 1, bare = 0, events = 0;

	if (tmx_tracedat_open(&path, 1, &o, &diag, &src, &err)) {
		say(l, "open failed\n");
		return 0;
	}
	if (how == UNREAD)
		tmx_source_skip_fields(src);
	assert_int_equal(tmx_source_take_streams(src, &heads, &n_heads, &err), TMX_OK);
	assert_true(n_heads >= 1);
	whole[0] = heads[0].it;
	if (seg) {
		assert_true(tmx_source_stream_cost(src, heads[0].it) > 0);
		assert_int_equal(tmx_source_split_stream(src, heads[0].it, seg, &segs, &n_segs, &err),
				 TMX_OK);
		/* the first segment goes on from where the stream was */
		say(l, "segments: %s\n", n_segs > 1 ? "several" : "one");
	} else {
		say(l, "segments: %s\n", "several");
	}
	tmx_warn_capture_set(&cap);
	if (heads[0].msg) {
		stream = heads[0].msg->stream;
		say_msg(l, heads[0].msg, stream, how == VALUES);
	}
	for (size_t k = 0; k < n_segs; k++) {
		struct tmx_msg_iter *it = segs ? segs[k] : whole[0];
		const struct tmx_msg *m;
		int ret;

		while (!(ret = it->next(it, &m, &err)) && m) {
			if (!stream)
				stream = m->stream;
			say_msg(l, m, stream, how == VALUES);
			if (m->kind == TMX_MSG_EVENT) {
				events++;
				bare += !m->event->scopes[TMX_SCOPE_PAYLOAD];
			}
		}
		if (ret) {
			say_error(l, &err);
			break;
		}
	}
	tmx_warn_capture_set(NULL);
	say(l, "end\n");
	free(segs);
	free(heads);
	tmx_source_free(src);
	return events - bare;
}

/*
 * The readings of a file: in segments as whole; without the values
 * (whole and in segments of 2 pieces) as with them, the values aside.
 * `built`: the file as built, whose events (all long enough for the fast
 * path) must then come without their values.
 */
static void same_readings(const uint8_t *p, size_t n, uint32_t psize, bool lenient, bool built)
{
	char *path = write_file(p, n);
	struct log whole = { 0 };

	read_stream(path, lenient, 0, VALUES, &whole);
	for (uint64_t k = 1; k <= 3; k++) {
		struct log cut = { 0 };

		read_stream(path, lenient, k * psize, VALUES, &cut);
		if (log_differs(&cut, &whole))
			fail_msg("segments of %llu bytes (lenient %d):\n%s\nwhole stream:\n%s",
				 (unsigned long long)(k * psize), lenient, cut.p, whole.p);
		free(cut.p);
	}
	for (uint64_t k = 0; k <= 2; k += 2) {
		struct log read = { 0 }, unread = { 0 };

		read_stream(path, lenient, k * psize, BARE, &read);
		size_t decoded = read_stream(path, lenient, k * psize, UNREAD, &unread);
		if (built && decoded)
			fail_msg("values unread: %zu events decoded", decoded);
		if (log_differs(&unread, &read))
			fail_msg("values unread, segments of %llu bytes (lenient %d):\n%s\nread:\n%s",
				 (unsigned long long)(k * psize), lenient, unread.p, read.p);
		free(unread.p);
		free(read.p);
	}
	free(whole.p);
	unlink(path);
	free(path);
}

/* ------------------------------------------------------------------ */
/* The runner                                                            */
/* ------------------------------------------------------------------ */

/* tmx_run into `sink_name`: its bytes, its warnings and its status, as text. */
static void run_once(const char *path, const char *sink_name, bool lenient, unsigned jobs,
		     struct log *l)
{
	struct tmx_tracedat_opts o = { .size = sizeof(o), .lenient = lenient };
	struct tmx_diag diag = { warned, l };
	struct tmx_run_opts ro = { .size = sizeof(ro), .jobs = jobs };
	struct tmx_sink_params *sp;
	struct tmx_source *src;
	struct tmx_sink *sink;
	struct tmx_error err;
	FILE *out = tmpfile(), *errs = tmpfile();
	char buf[4096];
	size_t k;
	int ret;

	assert_non_null(out);
	assert_non_null(errs);
	if (tmx_tracedat_open(&path, 1, &o, &diag, &src, &err)) {
		say(l, "open failed\n");
		fclose(out);
		fclose(errs);
		return;
	}
	assert_non_null(sp = tmx_sink_params_new(sink_name, &err));
	assert_int_equal(tmx_sink_open(sp, src, &(struct tmx_sink_io){ fileno(out), fileno(errs), NULL },
				       &sink, &err), TMX_OK);
	tmx_sink_params_free(sp);
	ret = tmx_run(src, sink, &ro, &err);
	/* with several jobs, CPU 0's stream was read in segments */
	if (jobs > 1)
		assert_non_null(((struct tdm_source *)tmx_source_impl(src, &tdat_source_ops))->segs);
	say(l, "status %d\n", ret);
	if (ret)
		say_error(l, &err);
	tmx_sink_free(sink);
	tmx_source_free(src);
	for (FILE *f = out; f; f = f == out ? errs : NULL) {
		rewind(f);
		while ((k = fread(buf, 1, sizeof(buf), f)))
			say(l, "%.*s", (int)k, buf);
		say(l, "--\n");
		fclose(f);
	}
}

static void same_runs(const uint8_t *p, size_t n, uint32_t psize, bool lenient)
{
	static const char *const sinks[] = { "text", "json" };
	static const unsigned jobs[] = { 2, 4 };
	char *path = write_file(p, n), seg[32];

	snprintf(seg, sizeof(seg), "%u", psize);
	for (size_t s = 0; s < 2; s++) {
		struct log one = { 0 };

		run_once(path, sinks[s], lenient, 1, &one);
		assert_int_equal(setenv("TRACEMUX_SEGMENT_BYTES", seg, 1), 0);
		for (size_t j = 0; j < 2; j++) {
			struct log many = { 0 };

			run_once(path, sinks[s], lenient, jobs[j], &many);
			if (log_differs(&many, &one))
				fail_msg("-o %s --jobs %u, lenient %d:\n%s\n--jobs 1:\n%s", sinks[s],
					 jobs[j], lenient, many.p, one.p);
			free(many.p);
		}
		unsetenv("TRACEMUX_SEGMENT_BYTES");
		free(one.p);
	}
	unlink(path);
	free(path);
}

/* ------------------------------------------------------------------ */
/* Files                                                                 */
/* ------------------------------------------------------------------ */

/* --quick (the ThreadSanitizer build): every 23rd corruption only. */
static bool quick;

/*
 * The file as built (strict and lenient readings, a strict run), then
 * with each byte of CPU 0's data corrupted in turn (every 23rd with
 * --quick): strict and lenient readings, and runs for every 13th byte
 * (all with --quick), lenient for every 26th.
 */
static void readings(const uint8_t *p, size_t n, int64_t at, void *ctx)
{
	uint32_t psize = ((const struct tb_opts *)ctx)->psize;

	same_readings(p, n, psize, false, at < 0);
	same_readings(p, n, psize, true, at < 0);
	if (at < 0)
		same_runs(p, n, psize, false);
	else if (quick || at % 13 == 0)
		same_runs(p, n, psize, at % 26 == 0);
}

/* Segments of up to 3 pieces cut something: more than 6 pieces. */
static void check(struct tb_opts o)
{
	tm_each_corruption(o, 6, quick ? 23 : 1, readings, &o);
}

static void test_plain(void **s)
{
	struct tb_opts o = tm_v6_be();

	(void)s;
	check(tm_base);
	o.extend = false;
	check(o);
}

static void test_compressed(void **s)
{
	struct tb_opts o = tm_zlib(15);

	(void)s;
	check(tm_zstd());
	o.missed_nocount = true;
	check(o);
}

/* Page 4 starts before page 3 ends: the order of the stream, not of the times. */
static void test_time_back(void **s)
{
	struct tb_opts o = tm_base, z = tm_zstd();

	(void)s;
	o.back_page = 4;
	check(o);
	z.back_page = 4;
	z.extend = false;
	check(z);
}

/* Records of an unknown event: 3 warnings per stream, whatever the segments. */
static void test_unknown_events(void **s)
{
	struct tb_opts o = tm_base;
	uint8_t rec[20];

	(void)s;
	tb_record(false, 1, 42, rec);
	rec[0] = 9;   /* common_type 9: no such format */
	o.record = rec;
	o.record_len = 20;
	check(o);
}

int main(int argc, char **argv)
{
	quick = argc > 1 && !strcmp(argv[1], "--quick");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_time_back),
		cmocka_unit_test(test_unknown_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
