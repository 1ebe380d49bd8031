/* The growable byte buffer: see buf.h. */
#include "common/grow.h"
#include "common/buf.h"

bool tmx_buf_reserve_slow(struct tmx_buf *b, size_t n)
{
	/* Borrowed room outgrown: the bytes move to memory of the buffer's own. */
	void *p = b->borrowed ? NULL : b->p;
	size_t cap = b->borrowed ? 0 : b->cap;

	if (b->oom || n > SIZE_MAX - b->len)
		goto fail;
	if (!tmx_grow_array(&p, &cap, b->len + n, 1, 256))
		goto fail;
	if (b->borrowed && b->len)
		memcpy(p, b->p, b->len);
	b->p = p;
	b->cap = cap;
	b->borrowed = false;
	return true;
fail:
	b->oom = true;
	return false;
}

void tmx_buf_free(struct tmx_buf *b)
{
	if (!b->borrowed)
		free(b->p);
	*b = (struct tmx_buf){ 0 };
}
