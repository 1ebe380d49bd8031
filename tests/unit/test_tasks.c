/*
 * The model's tasks (src/model/tasks.c): saved_cmdlines text parsed as
 * libtraceevent reads it ("TID COMM" lines), damaged lines left out, and the
 * public accessors (tmx_trace_task_count, tmx_trace_task) on a trace with and
 * without tasks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/arena.h"
#include "model/tasks.h"

static void expect_task(const struct tmx_trace *t, size_t i, int64_t tid, const char *comm)
{
	int64_t got_tid = -99;
	const char *c = NULL;
	size_t len = 0;

	assert_true(tmx_trace_task(t, i, &got_tid, &c, &len));
	assert_int_equal(got_tid, tid);
	assert_int_equal(len, strlen(comm));
	assert_memory_equal(c, comm, len);
}

static void test_cmdlines(void **state)
{
	static const char text[] =
		"15 rcu_preempt\n"
		"3303 bash\n"
		"  42\tkworker/1:2 extra\r\n"   /* blanks around; the comm keeps its inner space */
		"\n"                             /* empty */
		"notanumber comm\n"
		"77\n"                           /* no comm */
		"88    \n"                       /* blank comm */
		"99999999999 big\n"              /* beyond int32 */
		"12x bad\n"                      /* no blank after the number */
		"-1 neg\n"                       /* a sign */
		"1532 memfd:\0sealed\n"         /* a NUL inside: kept as bytes */
		"7 last-without-newline";
	struct tmx_arena a;
	struct tmx_trace t = { .name = "t" };

	(void)state;
	tmx_arena_init(&a);
	assert_int_equal(tmx_tasks_from_cmdlines(&a, text, sizeof(text) - 1, &t.tasks), 0);
	assert_int_equal(tmx_trace_task_count(&t), 5);
	expect_task(&t, 0, 15, "rcu_preempt");
	expect_task(&t, 1, 3303, "bash");
	expect_task(&t, 2, 42, "kworker/1:2 extra");
	{
		const char *c;
		size_t len;
		assert_true(tmx_trace_task(&t, 3, NULL, &c, &len));
		assert_int_equal(len, 13);
		assert_memory_equal(c, "memfd:\0sealed", 13);
	}
	expect_task(&t, 4, 7, "last-without-newline");
	assert_false(tmx_trace_task(&t, 5, NULL, NULL, NULL));
	tmx_arena_free(&a);
}

static void test_none(void **state)
{
	struct tmx_arena a;
	struct tmx_trace t = { .name = "t" };
	int64_t tid = 5;

	(void)state;
	tmx_arena_init(&a);
	assert_int_equal(tmx_trace_task_count(&t), 0);
	assert_int_equal(tmx_trace_task_count(NULL), 0);
	assert_false(tmx_trace_task(&t, 0, &tid, NULL, NULL));
	assert_int_equal(tid, 5);
	/* absent or unreadable text: no list */
	assert_int_equal(tmx_tasks_from_cmdlines(&a, NULL, 0, &t.tasks), 0);
	assert_null(t.tasks);
	assert_int_equal(tmx_tasks_from_cmdlines(&a, "x\ny z\n\n", 7, &t.tasks), 0);
	assert_null(t.tasks);
	tmx_arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdlines),
		cmocka_unit_test(test_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
