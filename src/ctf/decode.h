/*
 * CTF binary decoding (CTF 1.8 and CTF 2): packets of a data stream file
 * and the events in them, driven by the resolved field classes of the
 * metadata.
 *
 * Values are decoded into reusable buffers of tmx_value (no allocation per
 * event once the buffers have grown to the largest event).  Every read is
 * checked against the packet's content size.  Each scope is decoded by its
 * precompiled plan (ctf/plan.h), compiled when first needed.
 */
#ifndef TMX_CTF_DECODE_H
#define TMX_CTF_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "ctf/decode_text.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

/*
 * A growable array of decoded values, reused for every event, and the
 * UTF-8 text of its transcoded (UTF-16/32) strings.
 */
struct ctf_values {
	struct tmx_value *v;
	size_t n, cap;
	struct ctf_text text;
};

/* What the header and context of one packet say (the packet index entry). */
struct ctf_packet_info {
	uint64_t offset;            /* byte offset of the packet in its file */
	uint64_t packet_bits;       /* total size */
	uint64_t content_bits;      /* header + context + events */
	const struct tmx_stream_class *sc;
	bool has_stream_instance_id;
	uint64_t stream_instance_id;
	bool has_ts_begin, has_ts_end;
	uint64_t ts_begin, ts_end;  /* cycles */
	bool has_discarded;
	uint64_t events_discarded;  /* counter snapshot */
	bool has_seq_num;
	uint64_t seq_num;
};

struct ctf_plans;
struct ctf_stream_plans;

/* Decoding state of one data stream file. */
struct ctf_decoder {
	const struct tmx_trace_class *tc;
	const char *path;          /* for errors */
	const uint8_t *data;       /* whole file */
	uint64_t size;             /* bytes */

	/* Current position: bits from `base` (the packet start), bounded by `limit`. */
	const uint8_t *base;
	uint64_t base_off;         /* byte offset of base in the file */
	uint64_t pos, limit;

	uint64_t bo_end;           /* where the last bit field ended... */
	uint8_t bo_last;           /* ...and its byte order */

	uint64_t *slots;           /* tmx_tc_n_slots(tc) saved values */
	uint64_t clock;            /* current default clock value, cycles */
	uint64_t event_clock;      /* clock value after the last event header */
	uint64_t special[TMX_N_MEANINGS];
	bool special_set[TMX_N_MEANINGS];
	/* Packet index only: compressed packets are not decompressed. */
	bool headers_only;
	uint8_t *inflated;         /* header + context + decompressed events */
	size_t inflated_cap;

	struct ctf_values header, packet_context, event;
	/* The event record header's values when its plan decodes it (no one reads them). */
	struct ctf_values event_header;

	struct ctf_plans *plans;        /* compiled plans of tc */
	struct ctf_stream_plans *sp;    /* plans of the current packet's stream class */
	/* Tests only: decode by walking the class trees, as if no plan existed. */
	bool walk_only;
	/*
	 * Tests only: event headers decoded by their plan into event_header,
	 * never by their program (ctf/plan.h), which makes no values.
	 */
	bool header_values;
	/*
	 * CTF 1.8: a field that reads nothing (an empty array) may be aligned
	 * past the content's end; the position stops at the end (decode.c:
	 * ctf_align_past).  CTF 2 makes that alignment an error (spec 6.4.1).
	 */
	bool lenient_align;
	/*
	 * Filters: the events of classes for which wanted() is false are
	 * skipped (`skipped` set, the event's values not to be read); their
	 * bodies are not even decoded when their size is fixed.  NULL: every
	 * event is decoded.  Set with ctf_decoder_set_wanted().
	 */
	bool (*wanted)(const void *ctx, const struct tmx_event_class *ec);
	const void *wanted_ctx;
	uint32_t wanted_gen;       /* the event plans' cached answers are of this generation */
	bool skipped;              /* the last event decoded was skipped */
	/*
	 * Nothing reads the events' field values (the dummy sink): bodies of
	 * fixed size are stepped over as the filter steps over unwanted ones,
	 * and such an event has no scopes.  Errors are the same: a body that
	 * does not fit is decoded, for its error.
	 */
	bool values_unread;
	/*
	 * The same per class: the events of classes for which reads() is
	 * false have their bodies stepped over (body_skipped set: the event
	 * has no scopes).  NULL: every class is read.  ctf_decoder_set_reads().
	 */
	bool (*reads)(const void *ctx, const struct tmx_event_class *ec);
	const void *reads_ctx;
	uint32_t reads_gen;        /* the event plans' cached answers are of this generation */
	bool body_skipped;         /* the last event's body was stepped over (reads or values_unread) */
};

/* The decoder's filter (see above); the answers per class are asked again. */
void ctf_decoder_set_wanted(struct ctf_decoder *d,
			    bool (*wanted)(const void *ctx, const struct tmx_event_class *ec),
			    const void *ctx);

/* The decoder's classes whose values are read (see above); the answers per class are asked again. */
void ctf_decoder_set_reads(struct ctf_decoder *d,
			   bool (*reads)(const void *ctx, const struct tmx_event_class *ec),
			   const void *ctx);

int ctf_decoder_init(struct ctf_decoder *d, const struct tmx_trace_class *tc,
		     const char *path, const uint8_t *data, uint64_t size,
		     struct tmx_error *err);
void ctf_decoder_fini(struct ctf_decoder *d);

/*
 * Decodes the packet header and context of the packet at byte `offset`
 * and validates its sizes against the file.  On success the decoder is
 * positioned at the first event and d->packet_context holds the context.
 */
int ctf_decode_packet_start(struct ctf_decoder *d, uint64_t offset,
			    struct ctf_packet_info *info, struct tmx_error *err);

/*
 * Decodes the next event of the current packet.  Returns TMX_OK and sets
 * *more = false when the packet's content is exhausted.  On success the
 * event's scopes (not its header) are in d->event, its time in d->event_clock; *ec is set and
 * scope_index[] gives each scope's start in d->event (SIZE_MAX if absent),
 * unless the event was skipped (d->skipped) or d->values_unread: then the
 * event has no scopes and scope_index[] is not to be read.
 * On a decoding error after the event class is known, *ec and the
 * scope_index[] of the scopes begun are set too (what was decoded stays in
 * d->event), so that callers can show the partial event.
 */
int ctf_decode_event(struct ctf_decoder *d, bool *more,
		     const struct tmx_stream_class *sc,
		     const struct tmx_event_class **ec, size_t scope_index[TMX_N_SCOPES],
		     struct tmx_error *err);

/*
 * The N-bit clock update rule (at most one wrap), CTF spec 8, with the
 * mask of the N bits (all ones for 64: then the value, as mask + 1 is 0).
 */
static inline uint64_t ctf_clock_update_mask(uint64_t cur, uint64_t value, uint64_t mask)
{
	if (value < (cur & mask))
		cur += mask + 1;
	return (cur & ~mask) | value;
}

static inline uint64_t ctf_clock_mask(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

static inline uint64_t ctf_clock_update(uint64_t cur, uint64_t value, unsigned bits)
{
	return ctf_clock_update_mask(cur, value, ctf_clock_mask(bits));
}

#endif
