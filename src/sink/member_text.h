/*
 * What a formatter writes before each member of a structure class (the
 * text output's `, name = `, JSON's `,"name":`), made once per class and
 * kept in a table of the formatter's own (not shared between threads).
 *
 * Member m's text is text[start(m), end[m]), where start(m) is end[m - 1]
 * (0 for the first member); the text is padded for outbuf_write_padded().
 */
#ifndef TMX_SINK_MEMBER_TEXT_H
#define TMX_SINK_MEMBER_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "sink/outbuf.h"
#include "tracemux/model.h"

struct member_text {
	const struct tmx_field_class *fc;   /* NULL: a free slot */
	uint32_t *end;
	char *text;
};

#define MEMBER_TEXT_SLOTS 512

struct member_texts {
	struct member_text slot[MEMBER_TEXT_SLOTS];
};

/*
 * Fills mt->end (one per member) and mt->text for `fc` with malloc'ed
 * memory; false when it cannot (then the caller formats each time).
 */
typedef bool (*member_text_make)(void *ctx, const struct tmx_field_class *fc,
				 struct member_text *mt);

/* The texts of `fc`, made at its first use; NULL when they cannot be made or kept. */
const struct member_text *member_text_of(struct member_texts *t, const struct tmx_field_class *fc,
					 member_text_make make, void *ctx);
void member_texts_free(struct member_texts *t);

/*
 * A member's text (m < the class's member count) without its first
 * `skip` bytes (the comma of the first member printed, say).
 */
static inline void member_text_put(struct outbuf *b, const struct member_text *mt, uint32_t m,
				   uint32_t skip)
{
	uint32_t start = (m ? mt->end[m - 1] : 0) + skip, len = mt->end[m] - start;

	if (len <= OUTBUF_PAD)
		outbuf_write_padded(b, mt->text + start, len);
	else
		outbuf_write(b, mt->text + start, len);
}

#endif
