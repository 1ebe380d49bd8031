/*
 * The CTF writer's plan of a trace class: for every field class it
 * writes, a node with what the encoder needs (operation, size, alignment,
 * byte order, generated length/tag) and what the metadata needs (name,
 * length/tag reference as a TSDL name or a CTF 2 field location).  Built
 * once per output trace from the model (plan_build.c), read by the encoder
 * (ctf_writer.c) for every event: the encoder never looks at names or
 * paths.  The metadata text is TSDL (tsdl_gen.c) or CTF 2 JSON
 * (json_gen.c).
 *
 * The layout written follows babeltrace2's sink.ctf.fs: a fixed packet
 * header (magic, trace UUID, stream class id, stream id), a packet context
 * with packet_size, content_size, [timestamp_begin, timestamp_end],
 * [events_discarded], packet_seq_num and then the input's own packet
 * context members, an event header with a 64-bit id and a 64-bit timestamp,
 * then the event's common context, specific context and payload as the
 * model describes them.  Both CTF versions get the same layout; only the
 * field classes CTF 1.8 lacks are translated for it (see plan_build.c).
 */
#ifndef TMX_SINK_CTF_ENCODE_PLAN_H
#define TMX_SINK_CTF_ENCODE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

/* The CTF version written. */
enum cw_version {
	CW_CTF_1_8 = 1,
	CW_CTF_2 = 2,
};

enum cw_op {
	CW_INT,           /* fixed-length integer, enumeration, boolean or bit array: `u` */
	CW_VARINT,        /* CTF 2 variable-length integer (LEB128) */
	CW_FLOAT,
	CW_STRING,        /* null-terminated, in `str_enc` */
	CW_STATIC_STRING, /* CTF 2: `length` bytes, in `str_enc` */
	CW_DYN_STRING,    /* CTF 2: a byte count (slot or generated), then the bytes */
	CW_BLOB,          /* `length` bytes (CTF 1.8: an array of 8-bit integers) */
	CW_DYN_BLOB,      /* a byte count (slot or generated), then the bytes */
	CW_STRUCT,
	CW_ARRAY,
	CW_SEQUENCE,
	CW_VARIANT,
	CW_OPTIONAL,      /* CTF 1.8: a variant of `none` (empty structure) and `content` */
	CW_TEXT_ARRAY,    /* static array of encoded 8-bit integers, written as bytes */
	CW_TEXT_SEQ,      /* sequence of encoded 8-bit integers, written as bytes */
};

/* Scopes the writer writes, in order (field location origins). */
enum cw_scope {
	CW_SCOPE_PACKET_CONTEXT,
	CW_SCOPE_COMMON_CONTEXT,
	CW_SCOPE_SPECIFIC_CONTEXT,
	CW_SCOPE_PAYLOAD,
	CW_N_SCOPES,
};

/* A CTF 2 integer range set (variant options). */
struct cw_ranges {
	size_t n;
	const struct tmx_enum_range *r;
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
	 * CW_SEQUENCE, CW_TEXT_SEQ, CW_DYN_BLOB, CW_DYN_STRING: a 32-bit
	 * length is written just before; CW_VARIANT: a 16-bit tag (the
	 * option's index); CW_OPTIONAL: an 8-bit tag (CTF 1.8: enumeration
	 * none/content; CTF 2: boolean).  Used when the model's length/tag
	 * field cannot be referred to (as babeltrace2's sink.ctf.fs does).
	 */
	bool gen_before;
	uint8_t str_enc;          /* strings: enum tmx_str_encoding written */
	uint32_t size;            /* bits (CW_INT, CW_FLOAT) */
	uint32_t align;           /* bits */
	uint64_t length;          /* CW_ARRAY, CW_TEXT_ARRAY, CW_BLOB, CW_STATIC_STRING */
	/* Member or option name as written (TSDL: escaped); NULL otherwise. */
	char *name;
	/* TSDL: length/tag reference or generated name; CTF 2: generated name. */
	char *ref;
	/*
	 * Dependent fields whose length/selector the model gives (not
	 * gen_before): its slot, which the encoder fills as it writes fields
	 * with a slot.  CTF 2: its field location (origin scope, then the
	 * structure member names from that scope's root).
	 */
	int32_t ref_slot;
	uint8_t loc_scope;        /* enum cw_scope */
	size_t loc_n;
	const char **loc_path;
	/* CTF 2 variants: the selector ranges of each option (parallel to children). */
	struct cw_ranges *opt_ranges;
	bool sel_signed;          /* CTF 2 selector: ranges read as signed */
	bool sel_bool;            /* CTF 2 optional: a boolean selector (no ranges) */
	size_t n_children;        /* members, options, or 1 element / optional field */
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
	int32_t n_slots;                      /* value slots the encoder keeps */
	size_t n_events;
	struct cw_event_plan *events;          /* parallel to sc->event_classes */
	/* Event plans by class id when ids are small (the common case); else NULL. */
	size_t n_by_id;
	struct cw_event_plan **by_id;
	/* CTF 2: names of the writer's own packet context members (no clash with the input's). */
	const char *own_names[6];
};

struct cw_trace_plan {
	struct tmx_arena arena;
	const struct tmx_trace_class *tc;
	enum cw_version version;
	uint8_t uuid[16];
	bool big_endian;                      /* the trace's byte order */
	size_t n_clocks;
	const struct tmx_clock_class **clocks;
	char **clock_names;                   /* TSDL names / CTF 2 ids, parallel to clocks */
	size_t n_streams;
	struct cw_stream_plan *streams;       /* parallel to tc->stream_classes */
	char *metadata;                       /* the TSDL or JSON text */
	size_t metadata_len;
};

/*
 * Builds the plan and the metadata text of a trace class.  `uuid` is the
 * UUID to write (the trace's own when it has one).  Returns TMX_OK, or
 * TMX_ERR_UNSUPPORTED/TMX_ERR_LIMIT/TMX_ERR_NOMEM with `err` set (what
 * CTF 1.8 cannot express is named: event class, scope and field).
 */
int cw_plan_build(struct cw_trace_plan *p, const struct tmx_trace_class *tc,
		  const uint8_t uuid[16], enum cw_version version, struct tmx_error *err);
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
