/*
 * CTF decoding plans: a field class tree compiled once into a flat list of
 * steps, so that decoding an event runs the steps instead of walking the
 * tree (src/ctf/decode_plan.c runs them).
 *
 * A plan is a list of ops in pre-order.  Ops that run other ops a variable
 * number of times (array elements, the selected variant option) own
 * "blocks": ranges of the op list laid out right after them, which the
 * enclosing block jumps over (`skip`).  A variant option's block ends
 * with a CTF_OP_JUMP past the other options.  Every block knows how many values
 * it pushes itself, so that the value buffer is grown once per block
 * instead of once per field.
 *
 * The hot step is CTF_OP_RUN: a stretch of fields, in pre-order, whose
 * sizes are fixed (fixed-length integers, booleans, bit arrays and floats,
 * structure headers, text arrays, BLOBs and UTF-8 strings of static
 * length) and whose alignments divide the alignment of the first.
 * Their offsets from the run's start are then compile-time constants, so
 * when the whole run fits in the packet its fields are read with one
 * bounds check and no alignment arithmetic.  When it does not fit (or a
 * field would change the byte order inside a byte), the remaining fields
 * are decoded one by one exactly as the tree walk does, which gives the
 * same error at the same offset.
 */
#ifndef TMX_CTF_PLAN_H
#define TMX_CTF_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "model/field_class.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

enum ctf_op_kind {
	CTF_OP_RUN,      /* fixed-size fields at fixed offsets (items a..a+b) */
	CTF_OP_INT,      /* an integer that cannot be in a run (GNU/C bitfield) */
	CTF_OP_FLOAT,    /* a float that cannot be in a run (not 32 or 64 bits) */
	CTF_OP_STRING,
	/* A structure outside a run (structures always fit one today); its
	 * members' ops follow. */
	CTF_OP_STRUCT,
	CTF_OP_ARRAY,    /* array or sequence; its element block follows */
	CTF_OP_VARIANT,  /* one block per option follows */
	CTF_OP_SCOPE,    /* event body plans: scope `a` begins here */
	CTF_OP_JUMP,     /* ends a variant option: on to op `a` (variant op `b`) */
	/* CTF 2 */
	CTF_OP_VARINT,   /* a variable-length integer (LEB128) */
	CTF_OP_STRING_EXT, /* a string of static or dynamic length, or UTF-16/32 */
	CTF_OP_BLOB,     /* a BLOB of dynamic length (static ones are TEXT items) */
	CTF_OP_OPTIONAL, /* its field's block (block `a`) follows */
};

/* What a run item is. */
enum ctf_item_kind {
	CTF_ITEM_ALIGNED, /* whole-byte integer at a byte offset known to be aligned */
	CTF_ITEM_BITS,    /* any other integer, or a float: ctf_decode_integer/_float rules */
	CTF_ITEM_STRUCT,  /* a structure's own value (its members are the next items) */
	CTF_ITEM_TEXT,    /* a text array of static length, a static-length BLOB */
	CTF_ITEM_SSTR,    /* a UTF-8 string of static length (the text ends at a NUL) */
};

/* How an integer or float item's bits become a value. */
enum ctf_conv {
	CTF_CONV_U,      /* unsigned integer, bit array */
	CTF_CONV_S,      /* signed integer: sign-extended from its size */
	CTF_CONV_BOOL,   /* boolean: 1 when any bit is set */
	/*
	 * CTF 2 bit order opposite to the usual one: the bits are reversed,
	 * then converted as `rev` says (one of the above, or a float's).
	 */
	CTF_CONV_INT_REV,
	/* Floats last: ctf_decode_float has no whole-byte shortcut. */
	CTF_CONV_F32,
	CTF_CONV_F64,
	CTF_CONV_FLOAT_REV,
};

/*
 * What the run loop does for an item: one case per common integer layout
 * (a load and a store), general cases for the others.
 */
enum ctf_item_code {
	CTF_IC_U8, CTF_IC_S8,
	CTF_IC_LE16U, CTF_IC_LE16S, CTF_IC_LE32U, CTF_IC_LE32S, CTF_IC_LE64,
	CTF_IC_BE16U, CTF_IC_BE16S, CTF_IC_BE32U, CTF_IC_BE32S, CTF_IC_BE64,
	CTF_IC_ALIGNED,   /* CTF_ITEM_ALIGNED of another size, or noted */
	CTF_IC_BITS,      /* CTF_ITEM_BITS */
	CTF_IC_STRUCT,
	CTF_IC_STRUCT_SCOPE, /* a structure that begins scope `scope` (event bodies) */
	CTF_IC_TEXT,
	CTF_IC_SSTR,
};

/* What an integer item's value is noted for. */
#define CTF_NOTE_SLOT 1     /* a sequence length or variant tag: saved in its slot */
#define CTF_NOTE_MEANING 2  /* a special field (packet size, event ID...) */
#define CTF_NOTE_CLOCK 4    /* updates the stream's clock */

struct ctf_run_item {
	const struct tmx_field_class *fc;
	uint32_t off;    /* bits from the start of the run */
	uint32_t end;    /* bits from the start of the run to the end of the field */
	uint32_t len;    /* integer/float: size in bits; text: bytes; structure: members */
	uint8_t kind;    /* enum ctf_item_kind */
	uint8_t code;    /* enum ctf_item_code */
	uint8_t conv;    /* enum ctf_conv */
	uint8_t be;      /* big endian */
	uint8_t note;    /* integer: CTF_NOTE_* (what decode_impl.h's note_integer does) */
	uint8_t scope;   /* CTF_IC_STRUCT_SCOPE: enum tmx_scope */
	uint8_t rev;     /* CTF_CONV_*_REV: the conversion after the bits are reversed */
};

/* A range of ops run as a unit (a whole plan, an array element, a variant option). */
struct ctf_block {
	uint32_t start;    /* first op */
	uint32_t n_ops;    /* ops in the range, nested blocks included */
	uint32_t reserve;  /* values pushed by the block's own ops */
};

/* Tag values below this select their variant option through a table. */
#define CTF_VARIANT_TABLE 64

struct ctf_op {
	uint8_t kind;             /* enum ctf_op_kind */
	bool byte_elem;           /* ARRAY: elements are plain whole-byte integers */
	bool has_table;           /* VARIANT: tags[] below is filled */
	bool elem_run;            /* ARRAY: the element block is one RUN op */
	/*
	 * RUN: the last item that sets the byte order state (bo_end) is an
	 * aligned one, which leaves no byte shared: bo_end = UINT64_MAX after.
	 */
	bool bo_max;
	bool noted;               /* RUN: some item has a note (CTF_NOTE_*) */
	bool has_bits;            /* RUN: some item is a CTF_IC_BITS one */
	uint32_t align;           /* bits: the alignment applied first */
	const struct tmx_field_class *fc;  /* RUN, JUMP: NULL (see items) */
	uint32_t skip;            /* ARRAY, VARIANT, OPTIONAL: ops of the blocks that follow */
	/*
	 * ARRAY, VARIANT, OPTIONAL: values that the rest of the enclosing block
	 * pushes after this op; reserved again once the nested blocks have run.
	 */
	uint32_t after;
	/* RUN: first item and item count; ARRAY, OPTIONAL: the nested block (b
	 * unused); VARIANT: first option block (one per option) and first table
	 * entry. */
	uint32_t a, b;
	/* RUN: bits from the aligned start to the end of the last item;
	 * ARRAY: the fewest bits an element can take (ctf_min_bits). */
	uint64_t bits;
};

struct ctf_plan {
	struct ctf_op *ops;
	size_t n_ops;
	struct ctf_block *blocks;  /* blocks[0]: the whole plan */
	size_t n_blocks;
	struct ctf_run_item *items;
	size_t n_items;
	int32_t *tags;             /* VARIANT tables: option index or -1 */
	size_t n_tags;
};

/*
 * Plans beyond this many ops, or with arrays and variants nested deeper
 * than this, are not built: such scopes are walked instead.
 */
#define CTF_PLAN_MAX_OPS (UINT32_C(1) << 16)
#define CTF_PLAN_MAX_NEST 48

/*
 * Compiles the scope `fc`.  Sets *out to NULL (and returns TMX_OK) when
 * `fc` is NULL or the plan would exceed the limits above.
 */
int ctf_plan_compile(const struct tmx_field_class *fc, struct ctf_plan **out,
		     struct tmx_error *err);
/*
 * Compiles the scopes of an event record that follow its header (common
 * context, specific context, payload: each may be NULL) into one plan,
 * which records where each scope begins (CTF_OP_SCOPE or
 * CTF_IC_STRUCT_SCOPE).  *out is NULL when there is no scope or the plan
 * would exceed the limits.
 */
int ctf_plan_compile_body(const struct tmx_field_class *const scopes[TMX_N_SCOPES],
			  struct ctf_plan **out, struct tmx_error *err);
void ctf_plan_free(struct ctf_plan *pl);

/* The smallest number of bits a field of this class can take. */
uint64_t ctf_min_bits(const struct tmx_field_class *fc);
/*
 * The option a variant's tag value (its raw bits, as read) selects, or -1:
 * through the tag's mappings (CTF 1.8 spec 4.2.2) or the options' ranges
 * (CTF 2 spec 6.4.20).
 */
int ctf_variant_select(const struct tmx_field_class *fc, uint64_t tag_value);
/*
 * Whether an optional's field is present for its selector's value (raw
 * bits as read): a boolean selector when not zero, an integer one when
 * the value is in the optional's ranges (CTF 2 spec 6.4.19).
 */
bool ctf_optional_present(const struct tmx_field_class *fc, uint64_t sel_value);

/*
 * A whole-byte fixed-length integer that nothing refers to: arrays of
 * those (byte buffers, ID lists) are read in one tight loop.
 */
static inline bool ctf_is_plain_byte_int(const struct tmx_field_class *e)
{
	return e->kind == TMX_FC_INT && e->size % 8 == 0 && e->align <= 8 && e->slot < 0 &&
	       !e->mapped_clock && !e->meaning && !e->varlen && !e->bit_order_rev;
}

/* ------------------------------------------------------------------ */
/* Event headers: what they note, per variant option (plan_header.c).   */
/* ------------------------------------------------------------------ */

/*
 * No one reads the values of an event record header (the model's events
 * have none): what matters is what its integers note (the event ID, the
 * clock, the tags of its variant) and where it ends.  The usual header
 * (LTTng's compact and large ones, barectf's) is runs, then a variant
 * selected by an integer of those runs whose options are runs, then runs.
 * Compiled from its plan, each option of such a header becomes one
 * "case": the bits from the header's aligned start to its end and the
 * noted items at constant offsets, so that an event's header is one
 * bounds check, the tag, and the noted integers read: no value pushed, no
 * op run.  A case is left to the plan (fast = false) when it has something
 * the plan must check field by field (a byte order change in a byte, an
 * op that is not a run); the plan also runs whenever the header does not
 * fit, for its error.
 */
struct ctf_header_case {
	bool fast;
	/* Its notes lie in the header's first 64 bits, all of byte order `big`. */
	bool in_word, big;
	/* The byte order state after the header: unchanged, UINT64_MAX, or
	 * the header's start + bo_end. */
	uint8_t bo_end_kind;      /* CTF_HBO_* */
	bool bo_last_set;
	uint8_t bo_last;
	uint32_t bo_end;
	uint32_t bits;            /* from the aligned start to the end */
	uint32_t first, n;        /* its noted items: notes[first .. first + n) */
};

enum { CTF_HBO_KEEP, CTF_HBO_MAX, CTF_HBO_AT };

struct ctf_header_prog {
	uint64_t align_m1;        /* the header's alignment (a multiple of 8), minus one */
	/* The variant's tag (none: one case): where it is, how it selects. */
	const struct tmx_field_class *variant;
	uint32_t tag_off;         /* bits from the aligned start */
	uint32_t tag_end;         /* tag_off + tag_len */
	uint8_t tag_len, tag_be;
	bool tag_in_word;         /* in the first 64 bits: (w << tag_lsh) >> (64 - tag_len) */
	uint8_t tag_lsh;
	int32_t table[CTF_VARIANT_TABLE];   /* option of small tag values, or -1 */
	size_t n_cases;
	struct ctf_header_case *cases;      /* one per option (one without a variant) */
	struct ctf_header_note *notes;
};

/* A noted integer of a header case or a body step: what note_item does, decided here. */
struct ctf_header_note {
	uint32_t off;             /* bits from the header's aligned start */
	uint8_t len, be;
	/* In the first 64 bits (the case's in_word): its bits are (w << lsh) >> rsh,
	 * w the 64 bits read in its byte order. */
	uint8_t lsh, rsh;
	int32_t slot;             /* -1: none */
	uint8_t meaning;          /* 0: none */
	uint64_t clock_mask;      /* the clock's N bits (ctf_clock_mask); 0: does not update it */
	bool is_tag;              /* the variant's tag: its value is known already */
};

/*
 * Noted run item `it` at `off` bits, as note_item (decode_impl.h) would
 * note it: off, len, be, slot, meaning, clock_mask (the rest zero), for
 * header programs and body steps alike.
 */
void ctf_note_of_item(struct ctf_header_note *n, const struct ctf_run_item *it, uint64_t off);

/*
 * The header program of event header plan `pl`; *out is NULL when the
 * header has another shape (then the plan decodes every header).
 */
int ctf_header_prog_compile(const struct ctf_plan *pl, struct ctf_header_prog **out,
			    struct tmx_error *err);
void ctf_header_prog_free(struct ctf_header_prog *hp);

/* ------------------------------------------------------------------ */
/* Stepping over an event body whose values no one reads.               */
/* ------------------------------------------------------------------ */

/*
 * A body plan made of runs of fixed-size fields (each leaving the byte
 * order state as skipping it would), NUL-terminated strings, and text or
 * plain byte arrays and sequences compiled into steps (plan_skip.c), run
 * by decode.c (skip_body).  Consecutive runs and fixed-length arrays
 * whose alignments divide the first one's are one step: their offsets
 * are constants, so one bounds check covers them all, and the integers
 * they note (a sequence's length, a variant's tag) are read at constant
 * offsets, whole bytes.
 */
enum ctf_skip_kind {
	CTF_SKIP_PLAIN,    /* FIXED without notes, byte order state unchanged or UINT64_MAX */
	CTF_SKIP_FIXED,    /* `bits` from the aligned start, notes[first .. first + n) */
	CTF_SKIP_STRING,   /* to the NUL, byte-aligned */
	CTF_SKIP_ARRAY,    /* elements of `bits`, aligned to elem_align */
};

struct ctf_skip_step {
	uint8_t kind;             /* enum ctf_skip_kind */
	/* FIXED: the byte order state after it: unchanged, UINT64_MAX, or
	 * the aligned start + bo_end; ARRAY (bytes): set to its end. */
	uint8_t bo_end_kind;      /* CTF_HBO_* */
	bool bo_last_set;
	uint8_t bo_last;
	bool text;                /* ARRAY: of characters (no byte order state, any bit) */
	int32_t len_slot;         /* ARRAY: the sequence's length slot; -1: `length` */
	uint32_t first, n;        /* FIXED: its noted integers */
	uint32_t bo_end;          /* FIXED, CTF_HBO_AT */
	uint64_t align_m1;        /* the alignment applied first, minus one */
	uint64_t bits;            /* FIXED: from the aligned start to the end; ARRAY: an element's */
	uint64_t elem_align_m1;   /* ARRAY: the elements' alignment, minus one */
	uint64_t length;          /* ARRAY, len_slot -1 */
	const struct ctf_header_note *notes;   /* FIXED: notes + first (set once compiled) */
};

struct ctf_skip {
	size_t n_steps;
	struct ctf_skip_step *steps;
	struct ctf_header_note *notes;   /* off, len, be, slot, meaning, clock_mask */
};

/*
 * The steps of body plan `pl`: *out is NULL when the body cannot be
 * stepped over (then it is decoded).
 */
int ctf_skip_compile(const struct ctf_plan *pl, struct ctf_skip **out, struct tmx_error *err);
void ctf_skip_free(struct ctf_skip *sk);

/* ------------------------------------------------------------------ */
/* Plans of a trace class, compiled when first needed.                  */
/* ------------------------------------------------------------------ */

/*
 * Each decoder owns one cache (decoders of the same trace do not share
 * their plans): only the event classes a data stream file uses are
 * compiled, once per file.
 */

struct ctf_event_plans {
	const struct tmx_event_class *ec;
	bool compiled;
	struct ctf_plan *body;     /* ctf_plan_compile_body; NULL: walk the scopes */
	/* Filters (decode.c): whether the class is wanted, for decoder generation `wanted_gen`. */
	uint32_t wanted_gen;
	bool unwanted;
	/* Whether the values of its events are unread, for decoder generation `reads_gen`. */
	uint32_t reads_gen;
	bool unread;
	bool skip_known;
	struct ctf_skip *skip;     /* how to step over the body; NULL: it cannot be */
};

struct ctf_stream_plans {
	const struct tmx_stream_class *sc;
	bool compiled;
	bool dense_ids;            /* event_classes[i]->id == i for every i */
	struct ctf_plan *packet_context, *event_header;
	struct ctf_header_prog *header_prog;   /* NULL: the plan decodes every header */
	size_t n_events;
	struct ctf_event_plans *events;   /* one per sc->event_classes[i] */
};

struct ctf_plans {
	const struct tmx_trace_class *tc;
	bool header_compiled;
	struct ctf_plan *packet_header;
	struct ctf_stream_plans *streams; /* one per tc->stream_classes[i] */
	struct ctf_stream_plans *last;    /* the one found last */
};

int ctf_plans_new(const struct tmx_trace_class *tc, struct ctf_plans **out,
		  struct tmx_error *err);
void ctf_plans_free(struct ctf_plans *ps);
/* The packet header plan (compiled on first use). */
int ctf_plans_packet_header(struct ctf_plans *ps, struct ctf_plan **out,
			    struct tmx_error *err);
/* The plans of stream class `sc` (compiled on first use). */
int ctf_plans_stream(struct ctf_plans *ps, const struct tmx_stream_class *sc,
		     struct ctf_stream_plans **out, struct tmx_error *err);
/*
 * The plans of event class `id` of a stream class; *out is NULL when the
 * stream class has no such event class.
 */
int ctf_plans_event(struct ctf_stream_plans *sp, uint64_t id, struct ctf_event_plans **out,
		    struct tmx_error *err);

/* ctf_plans_event for the usual case: dense IDs, plans already compiled. */
static inline struct ctf_event_plans *ctf_plans_event_ready(struct ctf_stream_plans *sp,
							     uint64_t id)
{
	if (sp->dense_ids && id < sp->n_events && sp->events[id].compiled)
		return &sp->events[id];
	return NULL;
}

#endif
