/*
 * The kernel event mapping (src/model/kmap.c) on tests/data/analyze/
 * kernel-v6.dat, whose records make-analyze-tracedat.c wrote: each mapped
 * event's name and fields are what lttng-modules 2.13 records for the same
 * kernel event (its probes' definitions: prio - 100, tid for pid, rwbs
 * flags, syscall_entry_NAME with its arguments), the trace's env is
 * LTTng's, and its saved_cmdlines are the state dump.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/kmap.h"
#include "tracemux/event.h"
#include "tracemux/tracemux.h"

/* tests/data/analyze/kernel-v6.dat, from this file's path */
static char *data_path(void)
{
	static const char rel[] = "data/analyze/kernel-v6.dat";
	const char *f = __FILE__, *unit = strstr(f, "unit/test_kmap.c");
	size_t n = unit ? (size_t)(unit - f) : 0;
	char *p = malloc(n + sizeof(rel));

	assert_non_null(unit);
	memcpy(p, f, n);
	memcpy(p + n, rel, sizeof(rel));
	return p;
}

struct seen {
	char name[64];
	int64_t v[4];
};

/* The `nth` (from 0) mapped event named `name`: its fields `f` as integers. */
static bool find(const char *name, int nth, const char *const f[4], struct seen *out,
		 const struct tmx_trace_class **tc)
{
	char *path = data_path();
	const char *paths[1] = { path };
	struct tmx_open_opts o = TMX_OPEN_OPTS_INIT;
	struct tmx_source *src = NULL;
	struct tmx_kmap *m = NULL;
	struct tmx_error err = { 0 };
	const struct tmx_msg *msg;
	bool found = false;

	assert_int_equal(tmx_open(paths, 1, &o, NULL, &src, &err), 0);
	assert_true(tmx_kmap_applies(src));
	assert_int_equal(tmx_kmap_new(src, &m, &err), 0);
	while (!found && !tmx_source_next(src, &msg, &err) && msg) {
		const struct tmx_msg *mm;
		assert_true(tmx_kmap_msg(m, msg, &mm));
		if (!mm || mm->kind != TMX_MSG_EVENT || strcmp(mm->event->cls->name, name) || nth--)
			continue;
		found = true;
		snprintf(out->name, sizeof(out->name), "%s", mm->event->cls->name);
		for (int i = 0; i < 4 && f[i]; i++) {
			const struct tmx_value *v = tmx_event_field_in(mm->event, TMX_SCOPE_PAYLOAD, f[i]);
			uint64_t u;
			assert_non_null(v);
			if (!tmx_value_int64(v, &out->v[i]) && tmx_value_uint64(v, &u))
				out->v[i] = (int64_t)u;
		}
		if (tc) {
			const struct tmx_trace_class *c = tmx_kmap_trace(m, tmx_source_logical_trace(src, 0))->cls;
			*tc = c;
			/* checked here: the map owns it */
			assert_string_equal(tmx_trace_class_env(c, "domain")->str_value, "kernel");
			assert_string_equal(tmx_trace_class_env(c, "tracer_name")->str_value, "lttng-modules");
			assert_int_equal(tmx_trace_class_env(c, "tracer_major")->int_value, 2);
			assert_int_equal(tmx_trace_class_env(c, "tracer_minor")->int_value, 13);
			assert_string_equal(tmx_trace_class_env(c, "hostname")->str_value, "analyzehost");
			assert_string_equal(tmx_trace_class_env(c, "sysname")->str_value, "Linux");
			assert_string_equal(tmx_trace_class_env(c, "kernel_release")->str_value, "6.1.0-test");
		}
	}
	tmx_kmap_free(m);
	tmx_source_free(src);
	free(path);
	return found;
}

#define FIELDS(...) ((const char *const[4]){ __VA_ARGS__ })

static void test_sched(void **state)
{
	struct seen s;
	const struct tmx_trace_class *tc;

	(void)state;
	/* swapper/0 (prio 120) to app: prio - 100 */
	assert_true(find("sched_switch", 0, FIELDS("prev_tid", "prev_prio", "next_tid", "next_prio"), &s, &tc));
	assert_int_equal(s.v[0], 0);
	assert_int_equal(s.v[1], 20);
	assert_int_equal(s.v[2], 100);
	assert_int_equal(s.v[3], 20);
	/* the RT task (kernel prio 9) woken on CPU 1 */
	assert_true(find("sched_waking", 1, FIELDS("tid", "prio", "target_cpu"), &s, NULL));
	assert_int_equal(s.v[0], 103);
	assert_int_equal(s.v[1], -91);
	assert_int_equal(s.v[2], 1);
	/* app forks 104: each task its own process */
	assert_true(find("sched_process_fork", 0,
			 FIELDS("parent_tid", "parent_pid", "child_tid", "child_pid"), &s, NULL));
	assert_int_equal(s.v[0], 100);
	assert_int_equal(s.v[1], 100);
	assert_int_equal(s.v[2], 104);
	assert_int_equal(s.v[3], 104);
	assert_true(find("sched_migrate_task", 0, FIELDS("tid", "prio", "orig_cpu", "dest_cpu"), &s, NULL));
	assert_int_equal(s.v[0], 103);
	assert_int_equal(s.v[1], -91);
}

static void test_syscalls(void **state)
{
	struct seen s;

	(void)state;
	assert_true(find("syscall_entry_read", 0, FIELDS("fd", "count"), &s, NULL));
	assert_int_equal(s.v[0], 3);
	assert_int_equal(s.v[1], 4096);
	assert_true(find("syscall_exit_read", 0, FIELDS("ret"), &s, NULL));
	assert_int_equal(s.v[0], 4096);
	/* openat(AT_FDCWD, ..., O_CLOEXEC, 0): the descriptor as a 32-bit int */
	assert_true(find("syscall_entry_openat", 0, FIELDS("dfd", "flags", "mode"), &s, NULL));
	assert_int_equal(s.v[0], -100);
	assert_int_equal(s.v[1], 0x80000);
	assert_true(find("syscall_entry_sendto", 0, FIELDS("fd", "len", "flags"), &s, NULL));
	assert_int_equal(s.v[0], 5);
	assert_int_equal(s.v[1], 200);
	assert_int_equal(s.v[2], 0x40);
	/* 999: no name in the x86_64 table */
	assert_true(find("syscall_entry_unknown", 0, FIELDS("id"), &s, NULL));
	assert_int_equal(s.v[0], 999);
	assert_true(find("syscall_exit_unknown", 0, FIELDS("id", "ret"), &s, NULL));
	assert_int_equal(s.v[0], 999);
	assert_int_equal(s.v[1], -38);
	assert_true(find("syscall_entry_nanosleep", 0, FIELDS(NULL), &s, NULL));
}

static void test_irq_mem_block(void **state)
{
	struct seen s;

	(void)state;
	assert_true(find("irq_handler_entry", 0, FIELDS("irq"), &s, NULL));
	assert_int_equal(s.v[0], 25);
	assert_true(find("irq_handler_exit", 1, FIELDS("irq", "ret"), &s, NULL));
	assert_int_equal(s.v[0], 24);
	assert_int_equal(s.v[1], 1);
	assert_true(find("irq_softirq_entry", 0, FIELDS("vec"), &s, NULL));
	assert_int_equal(s.v[0], 3);
	assert_true(find("kmem_mm_page_alloc", 1, FIELDS("pfn", "order"), &s, NULL));
	assert_int_equal(s.v[0], 1001);
	assert_int_equal(s.v[1], 0);
	assert_true(find("kmem_mm_page_free", 0, FIELDS("pfn"), &s, NULL));
	assert_int_equal(s.v[0], 2000);
	/* "R": RWBS_FLAG_READ; "WS": WRITE | SYNC; the task issuing it */
	assert_true(find("block_rq_issue", 0, FIELDS("rwbs", "tid", "sector"), &s, NULL));
	assert_int_equal(s.v[0], 4);
	assert_int_equal(s.v[1], 100);
	assert_int_equal(s.v[2], 2048);
	assert_true(find("block_rq_issue", 1, FIELDS("rwbs", "tid"), &s, NULL));
	assert_int_equal(s.v[0], 1 | 32);
	assert_int_equal(s.v[1], 101);
	assert_true(find("block_rq_complete", 1, FIELDS("rwbs", "error"), &s, NULL));
	assert_int_equal(s.v[0], 1 | 32);
	assert_int_equal(s.v[1], 0);
}

/*
 * The saved_cmdlines tasks (100 app, 101 worker, 103 rt, 104 child, as
 * `trace-cmd dump --cmd-lines` prints them) as lttng-modules' state dump:
 * before the first event, in its stream and at its time, once.
 */
static void test_statedump(void **state)
{
	static const struct { int64_t tid; const char *name; } want[] = {
		{ 100, "app" }, { 101, "worker" }, { 103, "rt" }, { 104, "child" },
	};
	char *path = data_path();
	const char *paths[1] = { path };
	struct tmx_open_opts o = TMX_OPEN_OPTS_INIT;
	struct tmx_source *src = NULL;
	struct tmx_kmap *m = NULL;
	struct tmx_error err = { 0 };
	const struct tmx_msg *msg, *sd;
	size_t events = 0, dumped = 0;

	(void)state;
	assert_int_equal(tmx_open(paths, 1, &o, NULL, &src, &err), 0);
	assert_int_equal(tmx_trace_task_count(tmx_source_logical_trace(src, 0)), 4);
	assert_int_equal(tmx_kmap_new(src, &m, &err), 0);
	while (!tmx_source_next(src, &msg, &err) && msg) {
		for (size_t i = 0;; i++) {
			const struct tmx_value *v;
			const char *text;
			size_t len;
			int64_t x;

			assert_true(tmx_kmap_statedump(m, msg, i, &sd));
			if (!sd)
				break;
			assert_int_equal(events, 0);   /* before the first event only */
			assert_true(i < 4);
			assert_string_equal(sd->event->cls->name, "lttng_statedump_process_state");
			assert_int_equal(sd->ns, msg->ns);
			assert_ptr_equal(sd->stream->trace,
					 tmx_kmap_trace(m, tmx_source_logical_trace(src, 0)));
			assert_non_null(v = tmx_event_field_in(sd->event, TMX_SCOPE_PAYLOAD, "tid"));
			assert_true(tmx_value_int64(v, &x));
			assert_int_equal(x, want[i].tid);
			assert_non_null(v = tmx_event_field_in(sd->event, TMX_SCOPE_PAYLOAD, "pid"));
			assert_true(tmx_value_int64(v, &x));
			assert_int_equal(x, want[i].tid);   /* each task its own process */
			assert_non_null(v = tmx_event_field_in(sd->event, TMX_SCOPE_PAYLOAD, "name"));
			assert_non_null(text = tmx_value_text(v, &len));
			assert_int_equal(tmx_value_text_len(v), strlen(want[i].name));
			assert_memory_equal(text, want[i].name, strlen(want[i].name));
			dumped++;
		}
		events += msg->kind == TMX_MSG_EVENT;
	}
	assert_int_equal(dumped, 4);
	assert_true(events > 1);
	tmx_kmap_free(m);
	tmx_source_free(src);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statedump),
		cmocka_unit_test(test_sched),
		cmocka_unit_test(test_syscalls),
		cmocka_unit_test(test_irq_mem_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
