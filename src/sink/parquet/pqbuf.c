/* The Parquet writer's byte buffer: see pqbuf.h. */
#include "common/grow.h"
#include "sink/parquet/pqbuf.h"

bool pq_buf_reserve_slow(struct pq_buf *b, size_t n)
{
	void *p = b->p;

	if (b->oom || n > SIZE_MAX - b->len)
		goto fail;
	if (!tmx_grow_array(&p, &b->cap, b->len + n, 1, 256))
		goto fail;
	b->p = p;
	return true;
fail:
	b->oom = true;
	return false;
}

void pq_buf_free(struct pq_buf *b)
{
	free(b->p);
	*b = (struct pq_buf){ 0 };
}
