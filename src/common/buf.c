/* The growable byte buffer: see buf.h. */
#include "common/grow.h"
#include "common/buf.h"

bool tmx_buf_reserve_slow(struct tmx_buf *b, size_t n)
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

void tmx_buf_free(struct tmx_buf *b)
{
	free(b->p);
	*b = (struct tmx_buf){ 0 };
}
