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

#include "tracemux/export.h"

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
	/*
	 * CTF 2 identity (NULL when absent): the clock class's namespace and
	 * UID, its fragment `id` (what data stream classes refer to), and a
	 * custom origin's namespace/name/UID (origin_is_unix_epoch false).
	 */
	char *ns;
	char *uid;
	char *ctf2_id;
	char *origin_ns, *origin_name, *origin_uid;
	bool has_accuracy;
	uint64_t accuracy;         /* cycles (CTF 2) */
	bool has_precision;        /* precision given (CTF 2 makes it optional) */
};

/*
 * Converts a clock value in cycles to nanoseconds from the clock's origin,
 * exactly as babeltrace2 does.  Returns false on int64 overflow.
 */
TMX_API bool tmx_clock_ns_from_origin(const struct tmx_clock_class *cc, uint64_t cycles,
			      int64_t *ns);

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
	TMX_FC_VARIANT,  /* option from an earlier enumeration field (CTF 1.8) or
			    integer field whose value falls in an option's ranges (CTF 2) */
	/* CTF 2 kinds */
	TMX_FC_BOOL,      /* fixed-length boolean: `size` bits, false when all zero */
	TMX_FC_BIT_ARRAY, /* fixed-length bit array; with mappings (flags of bit
			     index ranges) it is a bit map */
	TMX_FC_BLOB,      /* static-length (`length` bytes) or dynamic-length
			     (`ref_slot`) sequence of bytes */
	TMX_FC_OPTIONAL,  /* `elem` present when the selector (ref_slot, a boolean
			     or an integer in `ranges`) says so */
};

/* How a string's length is known (TMX_FC_STRING). */
enum tmx_str_length {
	TMX_STR_NUL_TERMINATED = 0,
	TMX_STR_STATIC,      /* `length` bytes; the text ends at the first NUL */
	TMX_STR_DYNAMIC,     /* byte count from an earlier field (ref_slot) */
};

/* How a string's bytes encode its text (CTF 2: TMX_FC_STRING). */
enum tmx_str_encoding {
	TMX_STR_UTF8 = 0,
	TMX_STR_UTF16BE, TMX_STR_UTF16LE,
	TMX_STR_UTF32BE, TMX_STR_UTF32LE,
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


/*
 * Field classes are opaque: what a reader needs of them is here.  Each
 * accessor takes any field class and answers for the kinds it names (0,
 * false or NULL for the others).
 */
struct tmx_field_class;
TMX_API enum tmx_fc_kind tmx_fc_kind(const struct tmx_field_class *fc);
/* Fixed-length kinds (integers, enumerations, floats, booleans, bit arrays): bits. */
TMX_API uint32_t tmx_fc_size(const struct tmx_field_class *fc);
TMX_API bool tmx_fc_is_signed(const struct tmx_field_class *fc);
/* Preferred display base of an integer: 2, 8, 10 or 16. */
TMX_API unsigned tmx_fc_base(const struct tmx_field_class *fc);
/* Strings, and arrays/sequences of 8-bit characters read as one text. */
TMX_API bool tmx_fc_is_text(const struct tmx_field_class *fc);
/* Structure members and variant options: how many, their names and classes. */
TMX_API size_t tmx_fc_member_count(const struct tmx_field_class *fc);
TMX_API const char *tmx_fc_member_name(const struct tmx_field_class *fc, size_t i);
TMX_API const struct tmx_field_class *tmx_fc_member_class(const struct tmx_field_class *fc,
							  size_t i);
/* The element class of an array or sequence, the field class of an optional. */
TMX_API const struct tmx_field_class *tmx_fc_element(const struct tmx_field_class *fc);
/* Static length: elements of an array, bytes of a BLOB or a static string. */
TMX_API uint64_t tmx_fc_length(const struct tmx_field_class *fc);
/* Enumeration mappings and bit map flags: how many, and their labels. */
TMX_API size_t tmx_fc_mapping_count(const struct tmx_field_class *fc);
TMX_API const char *tmx_fc_mapping_label(const struct tmx_field_class *fc, size_t i);
/* The clock an integer's value updates (CTF timestamps), or NULL. */
TMX_API const struct tmx_clock_class *tmx_fc_mapped_clock(const struct tmx_field_class *fc);

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
	char *ns, *uid;           /* CTF 2 (NULL when absent) */
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

/* What format a trace was read from. */
enum tmx_trace_format {
	TMX_FORMAT_CTF = 0,
	TMX_FORMAT_TRACEDAT,
	TMX_FORMAT_XRAY,
};

struct tmx_trace_class {
	uint8_t format;            /* enum tmx_trace_format */
	/* CTF: 1.8 or 2.0; trace.dat: the file version; XRay: the log version */
	uint32_t major, minor;
	uint8_t uuid[16];
	bool has_uuid;
	uint8_t native_byte_order; /* enum tmx_byte_order */
	/* CTF 2 trace class identity (NULL when absent). */
	char *ns, *name, *uid;
	struct tmx_field_class *packet_header; /* format-specific; may be NULL */
	size_t n_env;
	struct tmx_env_entry *env;
	size_t n_clocks;
	struct tmx_clock_class **clocks;
	size_t n_stream_classes;
	struct tmx_stream_class **stream_classes;
};

/* Whether the trace was read from CTF 2 (JSON) metadata. */
static inline bool tmx_trace_class_is_ctf2(const struct tmx_trace_class *tc)
{
	return tc->format == TMX_FORMAT_CTF && tc->major >= 2;
}

/* Returns NULL when absent. */
TMX_API const struct tmx_env_entry *tmx_trace_class_env(const struct tmx_trace_class *tc,
						const char *name);
/* The class with that ID, NULL when absent. */
TMX_API const struct tmx_event_class *tmx_stream_class_event_class(const struct tmx_stream_class *sc,
							   uint64_t id);

/* ------------------------------------------------------------------ */
/* Instances: traces and streams                                        */
/* ------------------------------------------------------------------ */

/* The tasks a trace's metadata names (opaque: read through tmx_trace_task()). */
struct tmx_trace_tasks;

struct tmx_trace {
	char *name;                /* babeltrace2-style trace name, may be "" */
	const struct tmx_trace_class *cls;
	const struct tmx_trace_tasks *tasks;  /* NULL: none (readers leave it zeroed) */
};

/*
 * The tasks (threads) the trace's metadata names, as the traced system knew
 * them when the trace was recorded: trace.dat's saved_cmdlines (tid and
 * comm, in file order; lines that do not read as "TID COMM" are left out).
 * CTF and XRay traces name none (0).  These are instance data of the
 * recorded system, hence on the trace, not on its class.
 *
 * tmx_trace_task() gives task `i` (< count): its tid and its comm (not
 * NUL-terminated, `comm_len` bytes, valid while the trace is open); false
 * when `i` is out of range.  Any of the out pointers may be NULL.  Later
 * versions may add accessors for more per-task facts (tgid...).
 */
TMX_API size_t tmx_trace_task_count(const struct tmx_trace *t);
TMX_API bool tmx_trace_task(const struct tmx_trace *t, size_t i, int64_t *tid,
			    const char **comm, size_t *comm_len);

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
 * `count` element subtrees, a variant by its selected option's subtree,
 * an optional by its field's subtree when present.
 * Text arrays/sequences (fc->is_text) and strings carry their bytes in
 * `str` (not NUL-terminated; they may contain NULs for text arrays).
 */
struct tmx_value {
	const struct tmx_field_class *fc;
	union {
		uint64_t u;            /* TMX_FC_INT/ENUM unsigned */
		int64_t s;             /* TMX_FC_INT/ENUM signed */
		double d;              /* TMX_FC_FLOAT */
		/* TMX_FC_BOOL (0 or 1 after decoding), TMX_FC_BIT_ARRAY: in `u` */
		uint32_t present;      /* TMX_FC_OPTIONAL: 1 when its field follows */
		uint64_t count;        /* TMX_FC_ARRAY/SEQUENCE (not text) */
		uint32_t option;       /* TMX_FC_VARIANT: index in fc->members */
		uint32_t n_members;    /* TMX_FC_STRUCT */
		struct {
			const char *ptr;
			uint64_t len;
		} str;                 /* TMX_FC_STRING (UTF-8), text arrays, TMX_FC_BLOB */
	};
};

/*
 * Walks a pre-order value array: returns the index just after the subtree
 * that starts at `i`.
 */
TMX_API size_t tmx_value_skip(const struct tmx_value *values, size_t i);
/*
 * The length of a string or text-array value as a C string: up to its
 * first NUL (babeltrace2 reads text arrays so).  Safe on empty values
 * whose pointer is NULL.
 */
TMX_API size_t tmx_value_text_len(const struct tmx_value *v);

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
