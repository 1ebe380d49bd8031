/*
 * The worker pool of src/par/pool.h: batches of a unit filled by any
 * worker, several at a time and finishing out of order, reach the main
 * thread in order; a unit whose fill says "nothing after this" ends there
 * (the batches filled after it are dropped); memory stays bounded (at
 * most `depth` batches per unit in the pool, plus the ones handed out);
 * units without batches end at once.  Run under ThreadSanitizer too
 * (label tsan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "par/pool.h"

struct batch {
	size_t unit, k;
};

struct ctx {
	size_t end_at[8];        /* per unit: fill(k) at this k says "last" (SIZE_MAX: never) */
	atomic_size_t live;      /* batches allocated and not freed */
	atomic_size_t max_live;
	atomic_size_t fills;
};

static void *worker_new(void *ctx)
{
	(void)ctx;
	return malloc(1);
}

static void worker_free(void *ctx, void *ws)
{
	(void)ctx;
	free(ws);
}

static void *batch_new(void *p)
{
	struct ctx *c = p;
	size_t live = atomic_fetch_add(&c->live, 1) + 1, max = atomic_load(&c->max_live);

	while (live > max && !atomic_compare_exchange_weak(&c->max_live, &max, live))
		;
	return calloc(1, sizeof(struct batch));
}

static void batch_free(void *p, void *b)
{
	struct ctx *c = p;

	atomic_fetch_sub(&c->live, 1);
	free(b);
}

/* A batch says which (unit, k) it is; fills take varied times, so they end out of order. */
static bool fill(void *p, void *ws, size_t unit, size_t k, void *b)
{
	struct ctx *c = p;
	struct batch *bt = b;
	struct timespec t = { 0, (long)((unit * 7 + k * 13) % 5) * 100000 };

	(void)ws;
	nanosleep(&t, NULL);
	bt->unit = unit;
	bt->k = k;
	atomic_fetch_add(&c->fills, 1);
	return k == c->end_at[unit];
}

static const struct par_pool_ops ops = { worker_new, worker_free, batch_new, batch_free, fill };

static void run(size_t workers, size_t depth)
{
	static const size_t counts[] = { 40, 1, 0, 25, 60 };
	enum { N = sizeof(counts) / sizeof(counts[0]) };
	struct ctx c = { .end_at = { SIZE_MAX, SIZE_MAX, SIZE_MAX, 9, SIZE_MAX } };
	struct par_pool *p;
	struct tmx_error err;
	size_t next[N] = { 0 };
	bool ended[N] = { false };
	size_t left = N;

	assert_int_equal(par_pool_start(&p, N, counts, workers, depth, &ops, &c, &err), TMX_OK);
	/* the units taken in turns, one batch at a time, as a merge would */
	for (size_t turn = 0; left; turn++) {
		size_t u = turn % N;
		struct batch *b;

		if (ended[u])
			continue;
		if (!(b = par_pool_take(p, u))) {
			/* the unit's end: all its batches, or up to the fill that ended it */
			size_t want = c.end_at[u] != SIZE_MAX ? c.end_at[u] + 1 : counts[u];
			assert_int_equal(next[u], want);
			ended[u] = true;
			left--;
			continue;
		}
		assert_int_equal(b->unit, u);
		assert_int_equal(b->k, next[u]);
		next[u]++;
		par_pool_give_back(p, b);
	}
	par_pool_stop(p);
	assert_int_equal(atomic_load(&c.live), 0);
	/* per unit `depth` in the pool, one handed out, and one per worker being filled */
	assert_true(atomic_load(&c.max_live) <= N * (depth + 1) + workers);
}

static void test_one_worker(void **s)
{
	(void)s;
	run(1, 1);
	run(1, 3);
}

static void test_several_workers(void **s)
{
	(void)s;
	run(2, 4);
	run(4, 2);
	run(8, 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_worker),
		cmocka_unit_test(test_several_workers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
