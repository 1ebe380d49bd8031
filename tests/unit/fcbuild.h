/*
 * CTF 2 field classes built by hand for the unit tests (include after
 * <cmocka.h>), as the CTF 2 metadata parser builds them: every class
 * unique, alignments and value slots set.  Everything allocated here is
 * freed by fcb_free_all().
 */
#ifndef TMX_TEST_FCBUILD_H
#define TMX_TEST_FCBUILD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"

#define FCB_MAX_ALLOCS 4096

static void *fcb_allocs[FCB_MAX_ALLOCS];
static size_t fcb_n_allocs;

static inline void *fcb_alloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);

	assert_non_null(p);
	assert_true(fcb_n_allocs < FCB_MAX_ALLOCS);
	fcb_allocs[fcb_n_allocs++] = p;
	return p;
}

static inline void fcb_free_all(void)
{
	while (fcb_n_allocs)
		free(fcb_allocs[--fcb_n_allocs]);
}

static inline struct tmx_field_class *fcb_new(enum tmx_fc_kind kind, uint32_t align)
{
	struct tmx_field_class *fc = fcb_alloc(sizeof(*fc));

	fc->kind = kind;
	fc->align = align;
	fc->slot = -1;
	fc->ref_slot = -1;
	fc->base = 10;
	return fc;
}

/* A fixed-length bit array, boolean, integer or float of `size` bits. */
static inline struct tmx_field_class *fcb_fixed(enum tmx_fc_kind kind, uint32_t size,
						enum tmx_byte_order bo, bool rev, bool is_signed,
						uint32_t align)
{
	struct tmx_field_class *fc = fcb_new(kind, align);

	fc->size = size;
	fc->byte_order = (uint8_t)bo;
	fc->bit_order_rev = rev;
	fc->is_signed = is_signed;
	if (kind == TMX_FC_FLOAT) {
		fc->exp_dig = size == 32 ? 8 : 11;
		fc->mant_dig = size == 32 ? 24 : 53;
	}
	return fc;
}

static inline struct tmx_field_class *fcb_u8(void)
{
	return fcb_fixed(TMX_FC_INT, 8, TMX_BO_LE, false, false, 8);
}

static inline struct tmx_field_class *fcb_i8(void)
{
	return fcb_fixed(TMX_FC_INT, 8, TMX_BO_LE, false, true, 8);
}

static inline struct tmx_field_class *fcb_varint(bool is_signed)
{
	struct tmx_field_class *fc = fcb_fixed(TMX_FC_INT, 64, TMX_BO_LE, false, is_signed, 8);

	fc->varlen = true;
	return fc;
}

/* A string; `length`: bytes (static) or the length's slot (dynamic). */
static inline struct tmx_field_class *fcb_string(enum tmx_str_length how,
						 enum tmx_str_encoding enc, uint64_t length)
{
	struct tmx_field_class *fc = fcb_new(TMX_FC_STRING, 8);

	fc->str_length = (uint8_t)how;
	fc->str_encoding = (uint8_t)enc;
	if (how == TMX_STR_DYNAMIC)
		fc->ref_slot = (int32_t)length;
	else
		fc->length = length;
	return fc;
}

/* A BLOB of static length, or of dynamic length when ref_slot >= 0. */
static inline struct tmx_field_class *fcb_blob(uint64_t length, int32_t ref_slot)
{
	struct tmx_field_class *fc = fcb_new(TMX_FC_BLOB, 8);

	fc->length = length;
	fc->ref_slot = ref_slot;
	return fc;
}

/* `n` inclusive ranges from pairs of bounds. */
static inline struct tmx_enum_range *fcb_ranges(size_t n, const int64_t *bounds)
{
	struct tmx_enum_range *r = fcb_alloc(n * sizeof(*r));

	for (size_t i = 0; i < n; i++) {
		r[i].lower = (uint64_t)bounds[2 * i];
		r[i].upper = (uint64_t)bounds[2 * i + 1];
	}
	return r;
}

/* A structure of `n` members (named a, b, c...), aligned as its most aligned member. */
static inline struct tmx_field_class *fcb_struct(size_t n, ...)
{
	struct tmx_field_class *fc = fcb_new(TMX_FC_STRUCT, 1);
	va_list ap;

	fc->n_members = n;
	fc->members = fcb_alloc(n * sizeof(*fc->members));
	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		struct tmx_field_class *m = va_arg(ap, struct tmx_field_class *);
		char *name = fcb_alloc(4);
		snprintf(name, 4, "%c", (char)('a' + i % 26));
		fc->members[i].name = name;
		fc->members[i].fc = m;
		if (m->align > fc->align)
			fc->align = m->align;
	}
	va_end(ap);
	return fc;
}

/* Gives `fc` value slot `slot` (a length or selector refers to it). */
static inline struct tmx_field_class *fcb_slot(struct tmx_field_class *fc, int32_t slot)
{
	fc->slot = slot;
	return fc;
}

/* A static (ref_slot < 0) or dynamic array; CTF 2 aligns it as its element. */
static inline struct tmx_field_class *fcb_array(struct tmx_field_class *elem, uint64_t length,
						int32_t ref_slot)
{
	struct tmx_field_class *fc = fcb_new(ref_slot >= 0 ? TMX_FC_SEQUENCE : TMX_FC_ARRAY,
					     elem->align);

	fc->elem = elem;
	fc->length = length;
	fc->ref_slot = ref_slot;
	return fc;
}

/* An optional whose selector `sel` is in slot `slot`; ranges for an integer selector. */
static inline struct tmx_field_class *fcb_optional(const struct tmx_field_class *sel, int32_t slot,
						   struct tmx_field_class *elem, size_t n_ranges,
						   const int64_t *bounds)
{
	struct tmx_field_class *fc = fcb_new(TMX_FC_OPTIONAL, 1);

	fc->tag = sel;
	fc->ref_slot = slot;
	fc->elem = elem;
	fc->n_ranges = n_ranges;
	fc->ranges = n_ranges ? fcb_ranges(n_ranges, bounds) : NULL;
	return fc;
}

/*
 * A CTF 2 variant whose selector `sel` is in slot `slot`: option i is
 * chosen by the range [bounds[2i], bounds[2i+1]].
 */
static inline struct tmx_field_class *fcb_variant(const struct tmx_field_class *sel, int32_t slot,
						  size_t n, struct tmx_field_class *const *options,
						  const int64_t *bounds)
{
	struct tmx_field_class *fc = fcb_new(TMX_FC_VARIANT, 1);

	fc->tag = sel;
	fc->ref_slot = slot;
	fc->ref_path = "sel";
	fc->n_members = n;
	fc->members = fcb_alloc(n * sizeof(*fc->members));
	for (size_t i = 0; i < n; i++) {
		fc->members[i].name = "opt";
		fc->members[i].fc = options[i];
		fc->members[i].n_ranges = 1;
		fc->members[i].ranges = fcb_ranges(1, bounds + 2 * i);
	}
	return fc;
}

/*
 * A CTF 2 trace class of one data stream class (no packet header or
 * context: a data stream is one packet) whose event classes 0..n-1 have
 * these payloads; an event header of one byte (the event class ID) when
 * there are several.
 */
struct fcb_trace {
	union {
		struct tmx_trace_class tc;
		struct tmx_trace_class_impl tc_impl;   /* what the library's trace classes are */
	};
	struct tmx_stream_class sc, *scs[1];
	struct tmx_event_class ec[8], *ecs[8];
};

static inline void fcb_trace_init(struct fcb_trace *t, int32_t n_slots, size_t n,
				  struct tmx_field_class *const *payloads)
{
	assert_true(n >= 1 && n <= 8);
	memset(t, 0, sizeof(*t));
	t->tc.major = 2;
	t->tc_impl.n_slots = n_slots;
	t->tc.n_stream_classes = 1;
	t->tc.stream_classes = t->scs;
	t->scs[0] = &t->sc;
	t->sc.trace_class = &t->tc;
	t->sc.n_event_classes = n;
	t->sc.event_classes = t->ecs;
	if (n > 1) {
		struct tmx_field_class *id = fcb_u8();
		id->meaning = TMX_MEANING_EVENT_ID;
		t->sc.event_header = fcb_struct(1, id);
	}
	for (size_t i = 0; i < n; i++) {
		t->ecs[i] = &t->ec[i];
		t->ec[i].id = i;
		t->ec[i].name = "e";
		t->ec[i].log_level = TMX_LOG_LEVEL_NONE;
		t->ec[i].payload = payloads[i];
		t->ec[i].stream_class = &t->sc;
	}
}

#endif
