/*
 * tracemux — the common model.
 *
 * Every input format (CTF, trace.dat, XRay) maps onto these classes and
 * every output reads them.  The model follows babeltrace2's trace IR:
 * trace → streams (of a stream class) → events (of an event class) whose
 * fields are described by field classes, with clock classes for time.
 *
 * Classes are built once when a trace is opened and are read-only after.
 * Events are *views*: a decoded event is a flat array of tmx_value records
 * (pre-order walk of its field classes) that lives in a buffer owned by the
 * stream's reader and is reused for the next event.  Nothing is allocated
 * per event.
 */
#ifndef TRACEMUX_MODEL_H
#define TRACEMUX_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Clock classes                                                        */
/* ------------------------------------------------------------------ */

struct tmx_clock_class {
	char *name;
	char *description;         /* NULL if absent */
	uint64_t frequency;        /* Hz, > 0 */
	int64_t offset_s;          /* seconds from origin */
	uint64_t offset_cycles;    /* additional cycles, may exceed frequency */
	uint64_t precision;        /* cycles */
	uint8_t uuid[16];
	bool has_uuid;
	bool absolute;
	bool origin_is_unix_epoch; /* CTF: absolute, or forced by a quirk/option */
};

/*
 * Converts a clock value in cycles to nanoseconds from the clock's origin,
 * exactly as babeltrace2 does.  Returns false on int64 overflow.
 */
bool tmx_clock_ns_from_origin(const struct tmx_clock_class *cc, uint64_t cycles,
			      int64_t *ns);
/*
 * Adds `s` seconds and `cycles` cycles to the clock's offset and keeps
 * offset_cycles below the frequency.  The seconds saturate at the int64
 * limits (every conversion then reports overflow) instead of wrapping.
 */
void tmx_clock_add_offset(struct tmx_clock_class *cc, int64_t s, uint64_t cycles);

/* ------------------------------------------------------------------ */
/* Field classes                                                        */
/* ------------------------------------------------------------------ */

enum tmx_fc_kind {
	TMX_FC_INT,
	TMX_FC_ENUM,     /* an integer with mappings */
	TMX_FC_FLOAT,
	TMX_FC_STRING,   /* NUL-terminated */
	TMX_FC_STRUCT,
	TMX_FC_ARRAY,    /* static length */
	TMX_FC_SEQUENCE, /* length from an earlier unsigned integer field */
	TMX_FC_VARIANT,  /* option from an earlier enumeration field */
};

enum tmx_byte_order { TMX_BO_LE = 0, TMX_BO_BE = 1 };

enum tmx_encoding { TMX_ENC_NONE = 0, TMX_ENC_UTF8, TMX_ENC_ASCII };

/*
 * What a field means to its format, set by the reader.  Outputs that mimic
 * babeltrace2 hide packet-context members with a meaning (babeltrace2
 * turns them into packet properties instead of fields).
 */
enum tmx_meaning {
	TMX_MEANING_NONE = 0,
	TMX_MEANING_MAGIC,
	TMX_MEANING_UUID,
	TMX_MEANING_STREAM_ID,
	TMX_MEANING_STREAM_INSTANCE_ID,
	TMX_MEANING_EVENT_ID,
	TMX_MEANING_TIMESTAMP,
	TMX_MEANING_PACKET_SIZE,
	TMX_MEANING_CONTENT_SIZE,
	TMX_MEANING_TS_BEGIN,
	TMX_MEANING_TS_END,
	TMX_MEANING_EVENTS_DISCARDED,
	TMX_MEANING_PACKET_SEQ_NUM,
	TMX_MEANING_COMPRESSION,   /* compression_scheme (spec section 5) */
	TMX_MEANING_ENCRYPTION,    /* encryption_scheme: not supported when set */
	TMX_MEANING_CHECKSUM,      /* checksum_scheme: not supported when set */
	TMX_N_MEANINGS,
};

struct tmx_enum_range {
	/* Inclusive bounds; read as int64 when the container is signed. */
	uint64_t lower;
	uint64_t upper;
};

struct tmx_enum_mapping {
	char *label;
	size_t n_ranges;
	struct tmx_enum_range *ranges;
};

struct tmx_field_class;

/* A named member of a structure or an option of a variant. */
struct tmx_member {
	char *name;
	struct tmx_field_class *fc;
};

struct tmx_field_class {
	enum tmx_fc_kind kind;
	uint32_t align;          /* in bits, power of two, >= 1 */

	/* TMX_FC_INT, TMX_FC_ENUM, TMX_FC_FLOAT */
	uint32_t size;           /* in bits: 1..64 (float: 32 or 64) */
	uint8_t byte_order;      /* enum tmx_byte_order (resolved, never native) */
	bool is_signed;
	uint8_t base;            /* 2, 8, 10 or 16: preferred display base */
	uint8_t encoding;        /* enum tmx_encoding */
	uint8_t meaning;         /* enum tmx_meaning */
	const struct tmx_clock_class *mapped_clock; /* NULL if none */
	uint32_t exp_dig;        /* float */
	uint32_t mant_dig;       /* float */
	/*
	 * GNU/C bitfield (CTF spec 4.1.6, `unit_type name:size`): the unit's
	 * size in bits.  A bitfield that would cross a unit boundary starts at
	 * the next unit instead.  0 for other integers.
	 */
	uint32_t bitfield_unit;

	/* TMX_FC_ENUM */
	size_t n_mappings;
	struct tmx_enum_mapping *mappings;

	/* TMX_FC_STRUCT members, TMX_FC_VARIANT options */
	size_t n_members;
	struct tmx_member *members;

	/* TMX_FC_ARRAY, TMX_FC_SEQUENCE */
	struct tmx_field_class *elem;
	uint64_t length;         /* TMX_FC_ARRAY */
	/*
	 * Array or sequence of 8-bit, byte-aligned integers with an encoding:
	 * decoded as one text value (babeltrace2 prints it as a string).
	 */
	bool is_text;

	/*
	 * Dynamic references.  A field that a sequence length or a variant tag
	 * refers to has a value slot (>= 0): the decoder saves its value there.
	 * The sequence/variant reads the slot of its target.
	 */
	int32_t slot;                      /* -1: no one refers to this field */
	int32_t ref_slot;                  /* TMX_FC_SEQUENCE, TMX_FC_VARIANT */
	const struct tmx_field_class *tag; /* TMX_FC_VARIANT: the enum target */
	/*
	 * The reference as written in the metadata: the length or tag path of
	 * a sequence or variant, `clock.NAME.value` of an integer mapped to a
	 * clock.
	 */
	char *ref_path;
	uint32_t line, col;                /* where declared (metadata), 0 if unknown */
	/*
	 * TMX_FC_VARIANT: for each mapping of `tag`, the index of the option it
	 * selects, or -1 when no option has that label.
	 */
	int32_t *option_for_mapping;
};

/* ------------------------------------------------------------------ */
/* Trace, stream and event classes                                      */
/* ------------------------------------------------------------------ */

struct tmx_env_entry {
	char *name;
	bool is_int;
	int64_t int_value;
	char *str_value;
};

/* Log levels as babeltrace2 numbers them (CTF/LTTng loglevel values). */
#define TMX_LOG_LEVEL_NONE (-1)

struct tmx_event_class {
	uint64_t id;
	char *name;
	int log_level;            /* TMX_LOG_LEVEL_NONE if absent */
	char *emf_uri;            /* NULL if absent */
	struct tmx_field_class *specific_context; /* may be NULL */
	struct tmx_field_class *payload;          /* may be NULL */
	struct tmx_stream_class *stream_class;
};

struct tmx_stream_class {
	uint64_t id;
	bool id_is_set;            /* CTF: `id` given in the stream block */
	struct tmx_field_class *packet_context;   /* may be NULL */
	struct tmx_field_class *event_header;     /* format-specific; may be NULL */
	struct tmx_field_class *event_common_context; /* may be NULL */
	const struct tmx_clock_class *default_clock;  /* may be NULL */
	size_t n_event_classes;
	struct tmx_event_class **event_classes;   /* sorted by id */
	struct tmx_trace_class *trace_class;
};

struct tmx_trace_class {
	uint32_t major, minor;
	uint8_t uuid[16];
	bool has_uuid;
	uint8_t native_byte_order; /* enum tmx_byte_order */
	struct tmx_field_class *packet_header; /* format-specific; may be NULL */
	size_t n_env;
	struct tmx_env_entry *env;
	size_t n_clocks;
	struct tmx_clock_class **clocks;
	size_t n_stream_classes;
	struct tmx_stream_class **stream_classes;
	int32_t n_slots;           /* value slots used by dynamic references */
};

/* Returns NULL when absent. */
const struct tmx_env_entry *tmx_trace_class_env(const struct tmx_trace_class *tc,
						const char *name);
struct tmx_event_class *tmx_stream_class_event_class(const struct tmx_stream_class *sc,
						     uint64_t id);

/* ------------------------------------------------------------------ */
/* Instances: traces and streams                                        */
/* ------------------------------------------------------------------ */

struct tmx_trace {
	char *name;                /* babeltrace2-style trace name, may be "" */
	const struct tmx_trace_class *cls;
};

struct tmx_stream {
	uint64_t id;               /* stream instance id or file order */
	char *name;                /* e.g. the data file's path */
	const struct tmx_stream_class *cls;
	const struct tmx_trace *trace;
};

/* ------------------------------------------------------------------ */
/* Field values                                                         */
/* ------------------------------------------------------------------ */

/*
 * One decoded field.  The values of a scope are laid out in pre-order:
 * a structure is followed by its members' values, an array or sequence by
 * `count` element subtrees, a variant by its selected option's subtree.
 * Text arrays/sequences (fc->is_text) and strings carry their bytes in
 * `str` (not NUL-terminated; they may contain NULs for text arrays).
 */
struct tmx_value {
	const struct tmx_field_class *fc;
	union {
		uint64_t u;            /* TMX_FC_INT/ENUM unsigned */
		int64_t s;             /* TMX_FC_INT/ENUM signed */
		double d;              /* TMX_FC_FLOAT */
		uint64_t count;        /* TMX_FC_ARRAY/SEQUENCE (not text) */
		uint32_t option;       /* TMX_FC_VARIANT: index in fc->members */
		uint32_t n_members;    /* TMX_FC_STRUCT */
		struct {
			const char *ptr;
			uint64_t len;
		} str;                 /* TMX_FC_STRING, text arrays */
	};
};

/*
 * Walks a pre-order value array: returns the index just after the subtree
 * that starts at `i`.
 */
size_t tmx_value_skip(const struct tmx_value *values, size_t i);
/*
 * The length of a string or text-array value as a C string: up to its
 * first NUL (babeltrace2 reads text arrays so).  Safe on empty values
 * whose pointer is NULL.
 */
size_t tmx_value_text_len(const struct tmx_value *v);

/* ------------------------------------------------------------------ */
/* Packets, events and messages                                         */
/* ------------------------------------------------------------------ */

struct tmx_packet {
	const struct tmx_stream *stream;
	const struct tmx_value *context;   /* NULL if no packet context */
	bool has_begin, has_end;           /* default clock snapshots */
	uint64_t begin_cycles, end_cycles;
	int64_t begin_ns, end_ns;
	uint64_t offset;                   /* byte offset in its file */
	/*
	 * Position of the packet in its stream (0, 1, 2...): with the packet's
	 * address (reused by the reader for the next packet), it identifies the
	 * packet, so that outputs can reuse what they made of its context.
	 */
	uint64_t seq;
};

enum tmx_scope {
	TMX_SCOPE_PACKET_CONTEXT,
	TMX_SCOPE_COMMON_CONTEXT,
	TMX_SCOPE_SPECIFIC_CONTEXT,
	TMX_SCOPE_PAYLOAD,
	TMX_N_SCOPES,
};

struct tmx_event {
	const struct tmx_event_class *cls;
	const struct tmx_packet *packet;
	/* Value arrays, NULL when the scope is absent. */
	const struct tmx_value *scopes[TMX_N_SCOPES];
};

enum tmx_msg_kind {
	TMX_MSG_STREAM_BEGIN,
	TMX_MSG_PACKET_BEGIN,
	TMX_MSG_EVENT,
	TMX_MSG_DISCARDED_EVENTS,
	TMX_MSG_DISCARDED_PACKETS,
	TMX_MSG_PACKET_END,
	TMX_MSG_STREAM_END,
};

/*
 * A message, in babeltrace2's sense.  Valid until the next message is
 * requested from the same stream.
 */
struct tmx_msg {
	enum tmx_msg_kind kind;
	const struct tmx_stream *stream;
	/* Time of the message (event time, packet begin/end, discard begin). */
	bool has_ts;
	uint64_t cycles;
	int64_t ns;
	const struct tmx_packet *packet;   /* packet and event messages */
	const struct tmx_event *event;     /* TMX_MSG_EVENT */
	/* TMX_MSG_DISCARDED_*: count (0 = unknown) and time range. */
	uint64_t count;
	bool has_range;
	uint64_t begin_cycles, end_cycles;
	int64_t begin_ns, end_ns;
};

#ifdef __cplusplus
}
#endif

#endif /* TRACEMUX_MODEL_H */
