#include <stdlib.h>

#include "sink/member_text.h"

/* Probes of the open-addressing table before it counts as full. */
#define PROBES 8

const struct member_text *member_text_of(struct member_texts *t, const struct tmx_field_class *fc,
					 member_text_make make, void *ctx)
{
	size_t h = ((uintptr_t)fc >> 4) % MEMBER_TEXT_SLOTS;

	for (size_t i = 0; i < PROBES; i++) {
		struct member_text *mt = &t->slot[(h + i) % MEMBER_TEXT_SLOTS];

		if (mt->fc == fc)
			return mt;
		if (mt->fc)
			continue;
		mt->end = NULL;
		mt->text = NULL;
		if (!make(ctx, fc, mt)) {
			free(mt->end);
			free(mt->text);
			mt->end = NULL;
			mt->text = NULL;
			return NULL;
		}
		mt->fc = fc;
		return mt;
	}
	return NULL;
}

void member_texts_free(struct member_texts *t)
{
	for (size_t i = 0; i < MEMBER_TEXT_SLOTS; i++) {
		free(t->slot[i].end);
		free(t->slot[i].text);
	}
}
