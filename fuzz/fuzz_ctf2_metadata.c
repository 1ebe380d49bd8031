/*
 * libFuzzer harness: the CTF 2 metadata reader (JSON fragments, field
 * classes, locations, roles) on arbitrary bytes.  A record separator is
 * put first when missing, so that every input reaches the JSON reader.
 * What it accepts must hold the invariants the decoder relies on: every
 * reference has a slot that a target holds, selectors are classes of the
 * right kind, alignments are powers of two no smaller than their parts'.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf2.h"
#include "model/field_class.h"

static void check(int32_t n_slots, const struct tmx_field_class *fc)
{
	if (!fc)
		return;
	if (!fc->align || (fc->align & (fc->align - 1)) || fc->slot >= n_slots ||
	    fc->ref_slot >= n_slots)
		abort();
	switch (fc->kind) {
	case TMX_FC_SEQUENCE:
		if (fc->ref_slot < 0 || fc->elem->align > fc->align)
			abort();
		break;
	case TMX_FC_ARRAY:
	case TMX_FC_STRUCT:
		if (fc->elem && fc->elem->align > fc->align)
			abort();
		for (size_t i = 0; i < fc->n_members; i++)
			if (fc->members[i].fc->align > fc->align)
				abort();
		break;
	case TMX_FC_VARIANT:
	case TMX_FC_OPTIONAL:
		if (fc->ref_slot < 0 || !fc->tag || fc->tag->slot != fc->ref_slot)
			abort();
		break;
	case TMX_FC_STRING:
	case TMX_FC_BLOB:
		if ((fc->ref_slot >= 0) != (fc->kind == TMX_FC_STRING ?
					    fc->str_length == TMX_STR_DYNAMIC : !!ctf2_fc_of(
						    (struct tmx_field_class *)fc)->loc))
			abort();
		break;
	default:
		break;
	}
	for (size_t i = 0; i < fc->n_members; i++)
		check(n_slots, fc->members[i].fc);
	check(n_slots, fc->elem);
}

static void check_trace(const struct tmx_trace_class *tc)
{
	check(tmx_tc_n_slots(tc), tc->packet_header);
	for (size_t s = 0; s < tc->n_stream_classes; s++) {
		const struct tmx_stream_class *sc = tc->stream_classes[s];
		check(tmx_tc_n_slots(tc), sc->packet_context);
		check(tmx_tc_n_slots(tc), sc->event_header);
		check(tmx_tc_n_slots(tc), sc->event_common_context);
		for (size_t e = 0; e < sc->n_event_classes; e++) {
			if (e && sc->event_classes[e - 1]->id >= sc->event_classes[e]->id)
				abort();
			check(tmx_tc_n_slots(tc), sc->event_classes[e]->specific_context);
			check(tmx_tc_n_slots(tc), sc->event_classes[e]->payload);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_error err;
	char *text = malloc(size + 2);

	if (!text)
		return 0;
	text[0] = 0x1E;
	memcpy(text + 1, data, size);
	text[size + 1] = '\0';
	tmx_arena_init(&arena);
	if (!ctf2_metadata_parse(text + (size && data[0] == 0x1E), size + !(size && data[0] == 0x1E),
				 "fuzz", NULL, &arena, &tc, &err))
		check_trace(tc);
	tmx_arena_free(&arena);
	free(text);
	return 0;
}
