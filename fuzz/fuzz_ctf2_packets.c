/*
 * libFuzzer harness: CTF 2 packet and event decoding of an arbitrary data
 * stream, given fixed CTF 2 metadata: the corpus's hand-made edge cases
 * (booleans, bit maps, variable-length integers, strings of every length
 * kind in UTF-8/16/32, BLOBs, optionals, variants with signed selectors)
 * or, with TMX_FUZZ_METADATA set, any metadata file.
 *
 * The stream is decoded four ways in lockstep (decode_all.h): besides
 * crashes, a difference in status, error or position between them aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_all.h"

#ifndef TMX_FUZZ_CTF2_METADATA
#define TMX_FUZZ_CTF2_METADATA "../shared/corpus/ctf2/handmade/edge-cases/metadata"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_all(fixed_metadata(TMX_FUZZ_CTF2_METADATA, "fuzz_ctf2_packets"), data, size);
	return 0;
}
