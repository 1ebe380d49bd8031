/* Shared by the decoding harnesses: every packet and event of a stream. */
#ifndef TMX_FUZZ_DECODE_ALL_H
#define TMX_FUZZ_DECODE_ALL_H

#include "ctf/decode.h"

static inline void decode_all(const struct tmx_trace_class *tc, const uint8_t *data, size_t size)
{
	struct ctf_decoder d;
	struct tmx_error err;
	uint64_t off = 0;

	if (ctf_decoder_init(&d, tc, "fuzz", data, size, &err))
		return;
	while (off < size) {
		struct ctf_packet_info info;
		if (ctf_decode_packet_start(&d, off, &info, &err))
			break;
		for (;;) {
			const struct tmx_event_class *ec;
			size_t scopes[TMX_N_SCOPES];
			bool more;
			if (ctf_decode_event(&d, &more, info.sc, &ec, scopes, &err) || !more)
				break;
		}
		off += info.packet_bits / 8;
	}
	ctf_decoder_fini(&d);
}

#endif
