/*
 * libFuzzer harness: CTF packet and event decoding of an arbitrary data
 * stream, given fixed metadata: the LTTng-like sample trace's (compact and
 * extended headers, variants, sequences, strings, text arrays, enums,
 * floats) or, with TMX_FUZZ_METADATA set, any metadata file.
 */
#include "decode_all.h"

#ifndef TMX_FUZZ_DEFAULT_METADATA
#define TMX_FUZZ_DEFAULT_METADATA "tests/data/sample-trace/metadata"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode_all(fixed_metadata(TMX_FUZZ_DEFAULT_METADATA, "fuzz_ctf_packets"), data, size);
	return 0;
}
