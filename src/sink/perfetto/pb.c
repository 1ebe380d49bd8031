/* The protocol buffers writer's out-of-line parts: see pb.h. */
#include "sink/perfetto/pb.h"

void pb_close(struct tmx_buf *b, size_t at)
{
	size_t body, n, extra;

	if (b->oom)
		return;
	body = b->len - at - 1;
	n = pb_varint_size(body);
	extra = n - 1;
	if (extra) {
		/* The body moves up by the length's extra bytes (rare: bodies of 128 bytes or more). */
		if (!tmx_buf_reserve(b, extra))
			return;
		memmove(b->p + at + n, b->p + at + 1, body);
		b->len += extra;
	}
	pb_put_varint(b->p + at, body);
}

void pb_packed(struct tmx_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t at;

	if (!n)
		return;
	at = pb_open(b, field);
	for (size_t i = 0; i < n; i++)
		pb_varint(b, v[i]);
	pb_close(b, at);
}
