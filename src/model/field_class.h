/*
 * Field classes as the library builds and reads them.  The public model
 * (include/tracemux/model.h) keeps them opaque, with accessors: what is
 * here — how values are located (slots, reference paths), where a class
 * was declared, the decoder's tables — may change without breaking a
 * program or a binding built on the library.
 */
#ifndef TMX_MODEL_FIELD_CLASS_H
#define TMX_MODEL_FIELD_CLASS_H

#include "tracemux/model.h"

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
	/*
	 * CTF 2 variant options: the selector values that choose this option
	 * (inclusive ranges, read as int64 when the selector is signed).
	 */
	size_t n_ranges;
	struct tmx_enum_range *ranges;
};

struct tmx_field_class {
	enum tmx_fc_kind kind;
	uint32_t align;          /* in bits, power of two, >= 1 */

	/* TMX_FC_INT, TMX_FC_ENUM, TMX_FC_FLOAT */
	uint32_t size;           /* in bits: 1..64 (float: 32 or 64) */
	uint8_t byte_order;      /* enum tmx_byte_order (resolved, never native) */
	/*
	 * CTF 2 bit order: false for the byte order's usual one (little-endian:
	 * first-to-last, big-endian: last-to-first), true for the other.
	 */
	bool bit_order_rev;
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
	/*
	 * CTF 2 variable-length integer (LEB128): `size` is 64, the value's
	 * width; the encoded length is 1..10 bytes.
	 */
	bool varlen;
	/* TMX_FC_STRING: enum tmx_str_length and enum tmx_str_encoding */
	uint8_t str_length;
	uint8_t str_encoding;

	/* TMX_FC_ENUM; TMX_FC_BIT_ARRAY flags (ranges of bit indexes) */
	size_t n_mappings;
	struct tmx_enum_mapping *mappings;

	/* TMX_FC_STRUCT members, TMX_FC_VARIANT options */
	size_t n_members;
	struct tmx_member *members;

	/* TMX_FC_ARRAY, TMX_FC_SEQUENCE; TMX_FC_OPTIONAL: the optional class */
	struct tmx_field_class *elem;
	/* TMX_FC_ARRAY; TMX_FC_BLOB and TMX_FC_STRING of static length (bytes) */
	uint64_t length;
	/* TMX_FC_BLOB: IANA media type (NULL: application/octet-stream) */
	char *media_type;
	/*
	 * TMX_FC_OPTIONAL with an integer selector: the selector values for
	 * which the field is present.  A boolean selector has none (present
	 * when true).
	 */
	size_t n_ranges;
	struct tmx_enum_range *ranges;
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
	/*
	 * TMX_FC_SEQUENCE, TMX_FC_VARIANT, TMX_FC_OPTIONAL, and the dynamic
	 * TMX_FC_BLOB / TMX_FC_STRING (-1 for their static forms)
	 */
	int32_t ref_slot;
	/* TMX_FC_VARIANT, TMX_FC_OPTIONAL: the selector's class (enum in CTF 1.8) */
	const struct tmx_field_class *tag;
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

/*
 * The bits of a bit map flag (TMX_FC_BIT_ARRAY mapping, whose ranges are
 * bit indexes): the flag is active when the value has any of them set.
 */
uint64_t tmx_bit_map_flag_mask(const struct tmx_enum_mapping *flag);

/*
 * Whether mapping `m` of `fc` holds the value whose bits are `u`: one of
 * its ranges (compared signed when fc is), or for a bit map any of its
 * flag's bits.  The one test behind every label printed or stored.
 */
bool tmx_mapping_holds(const struct tmx_field_class *fc, const struct tmx_enum_mapping *m,
		       uint64_t u);

/*
 * Every trace class the library makes is one of these: the public class,
 * then what only the readers, the CTF decoder and the CTF writer use (not
 * in the public model, where a program could come to depend on it).
 * Readers that embed a trace class in a struct of theirs embed this one
 * (in a union with the public class when they name it `tc`).
 */
struct tmx_trace_class_impl {
	struct tmx_trace_class pub;   /* first: the library's tmx_trace_class * point here */
	int32_t n_slots;              /* value slots used by dynamic references (fc->slot) */
};

static inline struct tmx_trace_class_impl *tmx_tc_impl(struct tmx_trace_class *tc)
{
	return (struct tmx_trace_class_impl *)tc;
}

static inline int32_t tmx_tc_n_slots(const struct tmx_trace_class *tc)
{
	return ((const struct tmx_trace_class_impl *)tc)->n_slots;
}

struct tmx_arena;

/*
 * A field class in `a`, zeroed but for what every reader's classes start
 * with: `kind`, byte alignment, decimal base, and no value slot (-1) nor
 * length/selector slot.  NULL when the arena is out of memory.
 */
struct tmx_field_class *tmx_fc_new(struct tmx_arena *a, enum tmx_fc_kind kind);

#endif
