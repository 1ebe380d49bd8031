/*
 * libFuzzer harness: CTF 2 packet and event decoding of an arbitrary data
 * stream, given fixed CTF 2 metadata: the corpus's hand-made edge cases
 * (booleans, bit maps, variable-length integers, strings of every length
 * kind in UTF-8/16/32, BLOBs, optionals, variants with signed selectors)
 * or, with TMX_FUZZ_METADATA set, any metadata file.
 *
 * The stream is decoded twice in lockstep, by the compiled plans and by
 * the tree walk: besides crashes, a difference in status, error or
 * position between them aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_all.h"

#ifndef TMX_FUZZ_CTF2_METADATA
#define TMX_FUZZ_CTF2_METADATA "../shared/corpus/ctf2/handmade/edge-cases/metadata"
#endif

/* The plan and the walk must agree after every step. */
static void same(int ra, int rb, const struct ctf_decoder *a, const struct ctf_decoder *b,
		 const struct tmx_error *ea, const struct tmx_error *eb, const char *step)
{
	if (ra != rb || (ra && (ea->offset != eb->offset || strcmp(ea->msg, eb->msg))) ||
	    (!ra && a->pos != b->pos) || a->event.n != b->event.n) {
		fprintf(stderr, "fuzz_ctf2_packets: plan and walk differ after %s: %d `%s` / %d `%s`\n",
			step, ra, ra ? ea->msg : "", rb, rb ? eb->msg : "");
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct tmx_trace_class *tc = fixed_metadata(TMX_FUZZ_CTF2_METADATA, "fuzz_ctf2_packets");
	struct ctf_decoder a, b;
	struct tmx_error ea, eb;
	uint64_t off = 0;
	int ra = 0, rb;

	if (ctf_decoder_init(&a, tc, "fuzz", data, size, &ea))
		return 0;
	if (ctf_decoder_init(&b, tc, "fuzz", data, size, &eb)) {
		ctf_decoder_fini(&a);
		return 0;
	}
	b.walk_only = true;
	while (!ra && off < size) {
		struct ctf_packet_info ia, ib;

		ra = ctf_decode_packet_start(&a, off, &ia, &ea);
		rb = ctf_decode_packet_start(&b, off, &ib, &eb);
		same(ra, rb, &a, &b, &ea, &eb, "a packet start");
		while (!ra) {
			const struct tmx_event_class *eca, *ecb;
			size_t sa[TMX_N_SCOPES], sb[TMX_N_SCOPES];
			bool ma = false, mb = false;

			ra = ctf_decode_event(&a, &ma, ia.sc, &eca, sa, &ea);
			rb = ctf_decode_event(&b, &mb, ib.sc, &ecb, sb, &eb);
			same(ra, rb, &a, &b, &ea, &eb, "an event");
			if (ra || !ma)
				break;
		}
		off += ia.packet_bits / 8;
	}
	ctf_decoder_fini(&a);
	ctf_decoder_fini(&b);
	return 0;
}
