/*
 * Cursors over ranges of a CPU's pieces (tdat_cpu_pieces(),
 * tdat_cursor_range(), used by the workers of -o tracecmd --jobs N):
 * reading a CPU as consecutive runs of pages (or compressed chunks) gives
 * what one cursor over the whole CPU gives -- records (times, offsets,
 * sizes, bytes, missed events), warnings of the lenient reading and the
 * error where a strict reading stops -- for runs of 1, 2, 3 and 5 pieces,
 * on files built by hand (v6 and v7, no compression, zlib, zstd, time
 * extends, missed events) and on every single-byte corruption of their
 * CPU data, so that damage falls at the start, in the middle and at the
 * end of runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tdat_build.h"
#include "tdat_matrix.h"
#include "testutil.h"
#include "tracecmd/internal.h"
#include "tracecmd/tracedat.h"

/* One record: everything a reader of the cursor sees. */
static void say_record(struct log *l, const struct tdat_record *r)
{
	say(l, "cpu %u ts %llu raw %llu off %llu size %u avail %u missed %lld event %s:", r->cpu,
	    (unsigned long long)r->ts, (unsigned long long)r->ts_raw,
	    (unsigned long long)r->offset, r->size, r->avail, (long long)r->missed_events,
	    r->event ? r->event->name : "-");
	for (uint32_t i = 0; i < r->size; i++)
		say(l, "%02x", r->data[i]);
	say(l, "\n");
}

/*
 * Reads CPU `cpu` into the log: one cursor over all of it (run 0), or
 * runs of `run` pieces, each through tdat_cursor_range() on the same
 * cursor; stops at the first error as a reader does.
 */
static void read_cpu(const struct tdat_file *f, uint32_t cpu, size_t run, struct log *l)
{
	size_t pieces = tdat_cpu_pieces(f, 0, cpu);
	struct tdat_cursor *cur;
	struct tmx_error err;

	assert_int_equal(tdat_cursor_open(f, 0, cpu, &cur, &err), TMX_OK);
	for (size_t at = 0; at < pieces || (!run && !at); at += run ? run : pieces + 1) {
		const struct tdat_record *r;
		int ret;

		if (run)
			tdat_cursor_range(cur, at, at + run);
		while (!(ret = tdat_cursor_next(cur, &r, &err)) && r)
			say_record(l, r);
		if (ret) {
			say_error(l, &err);
			break;
		}
	}
	say(l, "end of cpu %u\n", cpu);
	tdat_cursor_close(cur);
}

/* The whole reading of a file's bytes, every CPU; open errors too. */
static void read_file(const uint8_t *p, size_t n, bool lenient, size_t run, struct log *l)
{
	struct tdat_open_opts oo = { .lenient = lenient, .diag = &(struct tmx_diag){ warned, l } };
	struct tdat_file *f;
	struct tmx_error err;

	if (tdat_file_open_mem(p, n, "runs.dat", &oo, &f, &err)) {
		say(l, "open failed\n");
		return;
	}
	for (uint32_t c = 0; c < f->buffers[0].n_cpus; c++)
		read_cpu(f, c, run, l);
	tdat_file_close(f);
}

/* Runs of 1, 2, 3 and 5 pieces give the whole CPU's reading. */
static void same_readings(const uint8_t *p, size_t n, bool lenient)
{
	static const size_t runs[] = { 1, 2, 3, 5 };
	struct log whole = { 0 };

	read_file(p, n, lenient, 0, &whole);
	for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		struct log cut = { 0 };

		read_file(p, n, lenient, runs[k], &cut);
		if (log_differs(&cut, &whole))
			fail_msg("runs of %zu pieces (lenient %d):\n%s\nwhole CPU:\n%s", runs[k], lenient,
				 cut.p, whole.p);
		free(cut.p);
	}
	free(whole.p);
}

/*
 * The file as built (strict), then with each byte of its CPU data
 * corrupted in turn (strict and lenient); the runs cut something: more
 * pieces than the longest run.
 */
static void readings(const uint8_t *p, size_t n, int64_t at, void *ctx)
{
	(void)ctx;
	same_readings(p, n, false);
	if (at >= 0)
		same_readings(p, n, true);
}

static void check(struct tb_opts o)
{
	tm_each_corruption(o, 5, 1, readings, NULL);
}

static void test_plain(void **s)
{
	(void)s;
	check(tm_base);
	check(tm_v6_be());
}

static void test_compressed(void **s)
{
	(void)s;
	check(tm_zstd());
	check(tm_zlib(13));
}

/* A range past the end, or empty: no record, no error. */
static void test_empty_ranges(void **s)
{
	struct tb_opts o = tm_base;
	struct bb b = tb_file(&o);
	struct tdat_file *f;
	struct tdat_cursor *cur;
	struct tmx_error err;
	const struct tdat_record *r;
	size_t n;

	(void)s;
	assert_int_equal(tdat_file_open_mem(b.p, b.n, "runs.dat", NULL, &f, &err), TMX_OK);
	n = tdat_cpu_pieces(f, 0, 0);
	assert_int_equal(n, (size_t)o.pages);
	assert_int_equal(tdat_cursor_open(f, 0, 0, &cur, &err), TMX_OK);
	tdat_cursor_range(cur, 3, 3);
	assert_int_equal(tdat_cursor_next(cur, &r, &err), TMX_OK);
	assert_null(r);
	tdat_cursor_range(cur, n, n + 4);
	assert_int_equal(tdat_cursor_next(cur, &r, &err), TMX_OK);
	assert_null(r);
	/* and back to a real range after them */
	tdat_cursor_range(cur, n - 1, n);
	assert_int_equal(tdat_cursor_next(cur, &r, &err), TMX_OK);
	assert_non_null(r);
	tdat_cursor_close(cur);
	tdat_file_close(f);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_empty_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
