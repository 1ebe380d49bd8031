/*
 * The CTF 1.8 writer's plan of a trace class: for every field class it
 * writes, a node with what the encoder needs (operation, size, alignment,
 * byte order, generated length/tag) and what the metadata needs (escaped
 * name, length/tag reference).  Built once per output trace from the model
 * (tsdl_gen.c), read by the encoder (ctf_writer.c) for every event: the
 * encoder never looks at names or paths.
 *
 * The layout written follows babeltrace2's sink.ctf.fs: a fixed packet
 * header (magic, trace UUID, stream class id, stream id), a packet context
 * with packet_size, content_size, [timestamp_begin, timestamp_end],
 * [events_discarded], packet_seq_num and then the input's own packet
 * context members, an event header with a 64-bit id and a 64-bit timestamp,
 * then the event's common context, specific context and payload as the
 * model describes them.
 */
#ifndef TMX_OUT_CTF_PLAN_H
#define TMX_OUT_CTF_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/arena.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

enum cw_op {
	CW_INT,        /* integer or enumeration */
	CW_FLOAT,
	CW_STRING,
	CW_STRUCT,
	CW_ARRAY,
	CW_SEQUENCE,
	CW_VARIANT,
	CW_TEXT_ARRAY, /* static array of encoded 8-bit integers, written as bytes */
	CW_TEXT_SEQ,   /* sequence of encoded 8-bit integers, written as bytes */
};

struct cw_node {
	const struct tmx_field_class *fc;
	uint8_t op;               /* enum cw_op */
	bool big_endian;
	/*
	 * Packet context member with a meaning (packet_size, timestamps...):
	 * not written as a member, the writer's own fields replace it.
	 */
	bool skip;
	/*
	 * CW_SEQUENCE, CW_TEXT_SEQ: a 32-bit length is written just before;
	 * CW_VARIANT: a 16-bit tag (the option's index) is written just
	 * before.  Used when the model's length/tag field cannot be named in
	 * TSDL (as babeltrace2's sink.ctf.fs does).
	 */
	bool gen_before;
	uint32_t size;            /* bits (CW_INT, CW_FLOAT) */
	uint32_t align;           /* bits */
	uint64_t length;          /* CW_ARRAY, CW_TEXT_ARRAY */
	char *name;               /* TSDL name as a member or option; NULL otherwise */
	char *ref;                /* CW_SEQUENCE/CW_TEXT_SEQ length, CW_VARIANT tag */
	/* CW_VARIANT with a tag of the model: TSDL option names equal to labels. */
	size_t n_children;        /* members, options, or 1 element */
	struct cw_node *children;
};

struct cw_event_plan {
	const struct tmx_event_class *ec;
	struct cw_node *specific_context; /* NULL if none */
	struct cw_node *payload;          /* NULL if none */
};

struct cw_stream_plan {
	const struct tmx_stream_class *sc;
	const struct tmx_clock_class *clock;   /* default clock, may be NULL */
	bool has_ts_begin, has_ts_end, has_discarded;
	struct cw_node *packet_context;       /* input members (meanings skipped); may be NULL */
	struct cw_node *common_context;       /* may be NULL */
	size_t n_events;
	struct cw_event_plan *events;          /* parallel to sc->event_classes */
	/* Event plans by class id when ids are small (the common case); else NULL. */
	size_t n_by_id;
	struct cw_event_plan **by_id;
};

struct cw_trace_plan {
	struct tmx_arena arena;
	const struct tmx_trace_class *tc;
	uint8_t uuid[16];
	bool big_endian;                      /* the trace's byte order */
	size_t n_clocks;
	const struct tmx_clock_class **clocks;
	char **clock_names;                   /* TSDL names, parallel to clocks */
	size_t n_streams;
	struct cw_stream_plan *streams;       /* parallel to tc->stream_classes */
	char *metadata;                       /* the TSDL text */
	size_t metadata_len;
};

/*
 * Builds the plan and the metadata text of a trace class.  `uuid` is the
 * UUID to write (the trace's own when it has one).  Returns TMX_OK, or
 * TMX_ERR_UNSUPPORTED/TMX_ERR_NOMEM with `err` set.
 */
int cw_plan_build(struct cw_trace_plan *p, const struct tmx_trace_class *tc,
		  const uint8_t uuid[16], struct tmx_error *err);
void cw_plan_free(struct cw_trace_plan *p);

/*
 * TSDL names, exported for the unit tests.  A structure member is always
 * written with a leading `_` (TSDL's escape, removed by readers), as
 * babeltrace2 does; characters TSDL identifiers cannot hold become `_`.
 * Writes at most `size` bytes (NUL included) to `out`.
 */
void cw_member_name(const char *name, char *out, size_t size);
/* Whether `name` is a TSDL keyword or starts with `_` (needs the `_` escape). */
bool cw_must_protect(const char *name);
/* Whether `name` is a valid TSDL identifier that is not a keyword. */
bool cw_is_identifier(const char *name);

#endif
