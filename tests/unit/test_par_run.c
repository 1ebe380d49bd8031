/*
 * tmx_run (include/tracemux/run.h) on scripted streams: with one job and
 * with several, the same events reach the sink, warnings come in merged
 * order, and an error or a stop ends the run where the sequential muxer
 * would end it -- including after a message the keep predicate dropped
 * (the stream is read again, and fails, only when that message's turn
 * comes).
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

#include "model/field_class.h"
#include "tracemux/run.h"
#include "tracemux/sink.h"
#include "tracemux/tracemux.h"
#include "common/errors.h"
#include "source/source.h"

/* One step of a stream: an event named `name` at `ts`, or an error. */
struct step {
	const char *name;     /* NULL: the stream fails here */
	int64_t ts;
	const char *warning;  /* said while reading this step */
};

#define MAX_STEPS 8

struct fake_stream {
	struct tmx_msg_iter iter;   /* first: the muxer hands it back */
	const struct step *steps;
	size_t n, at;
	struct tmx_stream stream;
	struct tmx_event_class ec[MAX_STEPS];
	struct tmx_event event;
	struct tmx_msg msg;
};

static struct tmx_trace_class_impl trace_class;
static struct tmx_trace trace = { .name = "t", .cls = &trace_class.pub };
static struct tmx_stream_class stream_class;
static char warnings[512];

static void on_warning(void *user, const char *msg)
{
	(void)user;
	strncat(warnings, msg, sizeof(warnings) - strlen(warnings) - 2);
	strcat(warnings, ";");
}

static const struct tmx_diag diag = { on_warning, NULL };

static int stream_next(struct tmx_msg_iter *it, const struct tmx_msg **msg, struct tmx_error *err)
{
	struct fake_stream *s = (struct fake_stream *)it;
	const struct step *st;

	*msg = NULL;
	if (s->at == s->n)
		return TMX_OK;
	st = &s->steps[s->at];
	if (st->warning)
		tmx_warn(&diag, "%s", st->warning);
	if (!st->name)
		return tmx_error_set(err, TMX_ERR_DATA, s->stream.name, "boom");
	s->event.cls = &s->ec[s->at];
	s->msg = (struct tmx_msg){ .kind = TMX_MSG_EVENT, .stream = &s->stream, .has_ts = true,
				   .ns = st->ts, .cycles = (uint64_t)st->ts, .event = &s->event };
	s->at++;
	*msg = &s->msg;
	return TMX_OK;
}

static void stream_keep(struct tmx_msg_iter *it)
{
	(void)it;
}

struct fake {
	struct fake_stream streams[2];
};

static void fake_free(void *impl)
{
	free(impl);
}

static size_t fake_stream_count(const void *impl)
{
	(void)impl;
	return 2;
}

static void fake_stream_info(const void *impl, size_t i, struct tmx_stream_info *info)
{
	memset(info, 0, sizeof(*info));
	info->stream = &((const struct fake *)impl)->streams[i].stream;
}

static size_t fake_trace_count(const void *impl)
{
	(void)impl;
	return 1;
}

static const struct tmx_trace *fake_trace(const void *impl, size_t i)
{
	(void)impl, (void)i;
	return &trace;
}

/* The source merges the two streams. */
static void fake_stream_iters(void *impl, struct tmx_msg_iter **iters)
{
	for (int i = 0; i < 2; i++)
		iters[i] = &((struct fake *)impl)->streams[i].iter;
}

static const struct tmx_source_ops fake_ops = {
	.format = "fake", .free = fake_free,
	.stream_count = fake_stream_count, .stream_info = fake_stream_info,
	.logical_trace_count = fake_trace_count, .logical_trace = fake_trace,
	.stream_iters = fake_stream_iters,
};

static struct tmx_source *open_fake(const struct step *a, size_t na, const struct step *b,
				    size_t nb)
{
	struct fake *f = calloc(1, sizeof(*f));
	const struct step *steps[2] = { a, b };
	size_t n[2] = { na, nb };
	struct tmx_source *src;
	struct tmx_error err;

	assert_non_null(f);
	for (int i = 0; i < 2; i++) {
		struct fake_stream *s = &f->streams[i];
		s->iter = (struct tmx_msg_iter){ stream_next, stream_keep };
		s->steps = steps[i];
		s->n = n[i];
		s->stream = (struct tmx_stream){ (uint64_t)i, i ? "b" : "a", &stream_class, &trace };
		for (size_t k = 0; k < n[i]; k++)
			s->ec[k] = (struct tmx_event_class){ .id = k, .name = (char *)steps[i][k].name,
							     .log_level = TMX_LOG_LEVEL_NONE };
	}
	warnings[0] = '\0';
	assert_int_equal(tmx_source_new(&fake_ops, f, &src, &err), TMX_OK);
	return src;
}

/* Drops events named "drop"; stops at the one named "stop". */
static bool keep(void *user, const struct tmx_msg *msg, bool *stop)
{
	const char *name = msg->event->cls->name;

	(void)user;
	*stop = !strcmp(name, "stop");
	return strcmp(name, "drop") && !*stop;
}

/* Runs the scripted source with `jobs` into the json sink: the text, the status, the warnings. */
static int run_fake(const struct step *a, size_t na, const struct step *b, size_t nb,
		    unsigned jobs, char *out, size_t size)
{
	struct tmx_source *src = open_fake(a, na, b, nb);
	struct tmx_sink_params *p;
	struct tmx_sink *sink;
	struct tmx_error err;
	struct tmx_run_opts opts = { .size = sizeof(opts), .jobs = jobs, .keep = keep };
	FILE *f = tmpfile();
	int ret;
	size_t len;

	assert_non_null(f);
	assert_non_null(p = tmx_sink_params_new("json", &err));
	assert_int_equal(tmx_sink_open(p, src, &(struct tmx_sink_io){ fileno(f), 2, NULL }, &sink,
				       &err), TMX_OK);
	tmx_sink_params_free(p);
	ret = tmx_run(src, sink, &opts, &err);
	tmx_sink_free(sink);
	tmx_source_free(src);
	rewind(f);
	len = fread(out, 1, size - 1, f);
	out[len] = '\0';
	fclose(f);
	return ret;
}

/* The event names in the json text, in order, joined by spaces. */
static void names_of(const char *json, char *names, size_t size)
{
	const char *p = json;

	names[0] = '\0';
	while ((p = strstr(p, "{\"type\":\"event\",\"name\":\""))) {
		p += strlen("{\"type\":\"event\",\"name\":\"");
		strncat(names, p, strcspn(p, "\""));
		strncat(names, " ", size - strlen(names) - 1);
	}
}

static void check_same(const struct step *a, size_t na, const struct step *b, size_t nb,
		       int want_status, const char *want_names, const char *want_warnings)
{
	static const unsigned jobs[] = { 1, 2, 3, 8 };
	char out[4096], names[512];

	/* Several rounds: the workers' timing must not show. */
	for (int round = 0; round < 20; round++)
		for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
			assert_int_equal(run_fake(a, na, b, nb, jobs[j], out, sizeof(out)), want_status);
			names_of(out, names, sizeof(names));
			assert_string_equal(names, want_names);
			assert_string_equal(warnings, want_warnings);
		}
}

#define N(x) (sizeof(x) / sizeof((x)[0]))

/* a fails right after a message that keep() dropped: b's earlier event still comes first. */
static void test_error_after_dropped(void **state)
{
	static const struct step a[] = { { "a1", 1, NULL }, { "drop", 5, NULL }, { NULL, 0, NULL } };
	static const struct step b[] = { { "b3", 3, NULL }, { "b7", 7, NULL } };

	(void)state;
	check_same(a, N(a), b, N(b), TMX_ERR_DATA, "a1 b3 ", "");
}

/* The error of a stream is met when its previous message has been handed out. */
static void test_error_position(void **state)
{
	static const struct step a[] = { { "a1", 1, NULL }, { "a6", 6, NULL }, { NULL, 0, NULL } };
	static const struct step b[] = { { "b2", 2, NULL }, { "b4", 4, NULL }, { "b8", 8, NULL } };

	(void)state;
	check_same(a, N(a), b, N(b), TMX_ERR_DATA, "a1 b2 b4 a6 ", "");
}

/* A stop ends everything at its place in merged order. */
static void test_stop(void **state)
{
	static const struct step a[] = { { "a1", 1, NULL }, { "stop", 4, NULL }, { "a6", 6, NULL } };
	static const struct step b[] = { { "b2", 2, NULL }, { "b5", 5, NULL } };

	(void)state;
	check_same(a, N(a), b, N(b), TMX_OK, "a1 b2 ", "");
}

/* Warnings said while reading come in merged order, with the events around them. */
static void test_warnings(void **state)
{
	static const struct step a[] = { { "a1", 1, NULL }, { "a3", 3, "wa3" }, { "a9", 9, "wa9" } };
	static const struct step b[] = { { "b2", 2, NULL }, { "b4", 4, "wb4" }, { NULL, 0, "wb-end" } };

	(void)state;
	/* a3 is read when a1 is handed out, b4 after b2, a9 after a3, b's error after b4. */
	check_same(a, N(a), b, N(b), TMX_ERR_DATA, "a1 b2 a3 b4 ", "wa3;wb4;wa9;wb-end;");
}

/*
 * Pieces longer than the formatter's buffer (OUTBUF_SIZE, 256 KiB): a
 * worker formats in place in its batch, and a piece that does not fit in
 * the room left moves it on (src/par/worker.c, aim()); the bytes are those
 * of one job.
 */
static void test_long_pieces(void **state)
{
	static const size_t lens[] = { 100000, 300000, 600000, 5, 200000 };
	char *names[N(lens)];
	struct step a[N(lens)], b[3];
	size_t size = 4 << 20, len1;
	char *one = malloc(size), *out = malloc(size);

	(void)state;
	assert_non_null(one);
	assert_non_null(out);
	for (size_t i = 0; i < N(lens); i++) {
		assert_non_null(names[i] = malloc(lens[i] + 1));
		memset(names[i], 'a' + (int)i, lens[i]);
		names[i][lens[i]] = '\0';
		a[i] = (struct step){ names[i], (int64_t)(2 * i + 1), NULL };
	}
	for (size_t i = 0; i < N(b); i++)
		b[i] = (struct step){ i == 1 ? names[2] : "b", (int64_t)(2 * i + 2), NULL };
	assert_int_equal(run_fake(a, N(a), b, N(b), 1, one, size), TMX_OK);
	len1 = strlen(one);
	assert_true(len1 > 2 * 600000);
	for (unsigned jobs = 2; jobs <= 4; jobs++) {
		assert_int_equal(run_fake(a, N(a), b, N(b), jobs, out, size), TMX_OK);
		assert_int_equal(strlen(out), len1);
		assert_memory_equal(out, one, len1);
	}
	for (size_t i = 0; i < N(lens); i++)
		free(names[i]);
	free(one);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_after_dropped),
		cmocka_unit_test(test_error_position),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_long_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
