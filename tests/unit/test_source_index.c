/*
 * Dense numbers of a source's event classes and streams (tracemux.h), on
 * real inputs of each format: every event's class and stream have a number
 * that maps back to them, numbers are dense and distinct, and objects of
 * another source have none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tracemux/tracemux.h"

static void check_input(const char *path)
{
	struct tmx_source *src, *other;
	struct tmx_error err;
	const struct tmx_msg *msg;
	size_t n_classes, n_streams, events = 0;

	assert_int_equal(tmx_open(&path, 1, NULL, NULL, &src, &err), TMX_OK);
	n_classes = tmx_source_event_class_count(src);
	n_streams = tmx_source_stream_count(src);
	assert_true(n_classes > 0 && n_streams > 0);
	/* Distinct classes for distinct numbers, each number its own. */
	for (size_t i = 0; i < n_classes; i++) {
		assert_int_equal(tmx_source_event_class_index(src, tmx_source_event_class(src, i)), i);
		for (size_t j = 0; j < i; j++)
			assert_ptr_not_equal(tmx_source_event_class(src, i), tmx_source_event_class(src, j));
	}
	assert_null(tmx_source_event_class(src, n_classes));
	while (tmx_source_next(src, &msg, &err) == TMX_OK && msg) {
		struct tmx_stream_info info;
		size_t s = tmx_source_stream_index(src, msg->stream);

		assert_true(s < n_streams);
		tmx_source_stream_info(src, s, &info);
		assert_ptr_equal(info.stream, msg->stream);
		if (msg->kind == TMX_MSG_EVENT) {
			size_t c = tmx_source_event_class_index(src, msg->event->cls);

			assert_true(c < n_classes);
			assert_ptr_equal(tmx_source_event_class(src, c), msg->event->cls);
			events++;
		}
	}
	assert_true(events > 0);
	/* Another source's objects are not numbered here. */
	assert_int_equal(tmx_open(&path, 1, NULL, NULL, &other, &err), TMX_OK);
	assert_int_equal(tmx_source_event_class_index(src, tmx_source_event_class(other, 0)), SIZE_MAX);
	{
		struct tmx_stream_info info;

		tmx_source_stream_info(other, 0, &info);
		assert_int_equal(tmx_source_stream_index(src, info.stream), SIZE_MAX);
	}
	tmx_source_free(other);
	tmx_source_free(src);
}

static void test_ctf(void **state)
{
	(void)state;
	check_input(TMX_TEST_DATA "/sample-trace");
}

static void test_tracedat(void **state)
{
	(void)state;
	check_input(TMX_TEST_DATA "/tracedat/rich-fields-be-v7.dat");
}

static void test_xray(void **state)
{
	(void)state;
	check_input(TMX_TEST_DATA "/xray/fdr-log-arg1-version-3.xray");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctf),
		cmocka_unit_test(test_tracedat),
		cmocka_unit_test(test_xray),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
