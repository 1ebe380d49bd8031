/*
 * CTF 2 metadata reader tests: what it makes of metadata streams.
 *
 * 1. tests/data/ctf2-meta/all-kinds: every fragment kind, field class kind,
 *    role and kind of field location, checked against the model.
 * 2. Small metadata streams, one feature each (field locations, selectors,
 *    packetized metadata).
 * 3. Every CTF 2 metadata stream of the shared corpus.
 * The errors are in test_ctf2_meta_errors.c.
 */
#define _XOPEN_SOURCE 700   /* nftw */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/field_class.h"
#include "testutil.h"
#include "ctf2_meta_util.h"

/* ------------------------------------------------------------------ */
/* all-kinds                                                            */
/* ------------------------------------------------------------------ */

static char *read_all_kinds(size_t *len)
{
	char *text = read_whole_file(TMX_TEST_DATA "/ctf2-meta/all-kinds", len);

	assert_non_null(text);
	return text;
}

static void test_all_kinds_trace(void **state)
{
	struct parsed pr;
	size_t len;
	char *text = read_all_kinds(&len);
	const struct tmx_trace_class *tc;
	const struct tmx_field_class *ph;
	const struct tmx_clock_class *cc;
	static const uint8_t uuid[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

	(void)state;
	assert_int_equal(parse_len(&pr, text, len), TMX_OK);
	tc = pr.tc;
	assert_int_equal(tc->major, 2);
	assert_int_equal(tc->minor, 0);
	assert_true(tc->has_uuid);
	assert_memory_equal(tc->uuid, uuid, 16);
	assert_string_equal(tc->ns, "example.org,2024");
	assert_string_equal(tc->name, "all-kinds");
	assert_string_equal(tc->uid, "uid-1");
	/* The packet magic is big-endian: so is the trace's byte order. */
	assert_int_equal(tc->native_byte_order, TMX_BO_BE);
	assert_int_equal(tc->n_env, 3);
	assert_string_equal(tmx_trace_class_env(tc, "hostname")->str_value, "host");
	assert_true(tmx_trace_class_env(tc, "answer")->is_int);
	assert_int_equal(tmx_trace_class_env(tc, "answer")->int_value, 42);
	assert_int_equal(tmx_trace_class_env(tc, "neg")->int_value, -7);

	ph = tc->packet_header;
	assert_int_equal(member(ph, "magic")->meaning, TMX_MEANING_MAGIC);
	assert_int_equal(member(ph, "magic")->base, 16);
	assert_int_equal(member(ph, "magic")->byte_order, TMX_BO_BE);
	assert_int_equal(member(ph, "uuid")->kind, TMX_FC_BLOB);
	assert_int_equal(member(ph, "uuid")->meaning, TMX_MEANING_UUID);
	assert_int_equal(member(ph, "uuid")->length, 16);
	assert_int_equal(member(ph, "stream_id")->meaning, TMX_MEANING_STREAM_ID);
	assert_int_equal(member(ph, "stream_instance_id")->meaning, TMX_MEANING_STREAM_INSTANCE_ID);
	assert_true(member(ph, "stream_instance_id")->varlen);

	assert_int_equal(tc->n_clocks, 1);
	cc = tc->clocks[0];
	assert_string_equal(cc->ctf2_id, "clk");
	assert_string_equal(cc->name, "mono");
	assert_string_equal(cc->ns, "example.org,2024");
	assert_string_equal(cc->uid, "clk-uid");
	assert_int_equal(cc->frequency, 1000000000);
	assert_false(cc->origin_is_unix_epoch);
	assert_string_equal(cc->origin_ns, "example.org,2024");
	assert_string_equal(cc->origin_name, "boot");
	assert_string_equal(cc->origin_uid, "boot-1");
	assert_int_equal(cc->offset_s, -10);
	assert_int_equal(cc->offset_cycles, 500);
	assert_true(cc->has_precision);
	assert_int_equal(cc->precision, 3);
	assert_true(cc->has_accuracy);
	assert_int_equal(cc->accuracy, 7);
	assert_string_equal(cc->description, "a clock");
	tmx_arena_free(&pr.arena);
	free(text);
}

static void test_all_kinds_stream(void **state)
{
	struct parsed pr;
	size_t len;
	char *text = read_all_kinds(&len);
	const struct tmx_stream_class *sc;
	const struct tmx_field_class *pc, *eh;

	(void)state;
	assert_int_equal(parse_len(&pr, text, len), TMX_OK);
	assert_int_equal(pr.tc->n_stream_classes, 1);
	sc = pr.tc->stream_classes[0];
	assert_int_equal(sc->id, 3);
	assert_true(sc->id_is_set);
	assert_ptr_equal(sc->default_clock, pr.tc->clocks[0]);
	assert_ptr_equal(sc->trace_class, pr.tc);
	pc = sc->packet_context;
	/* minimum-alignment 64 is larger than any member's */
	assert_int_equal(pc->align, 64);
	assert_int_equal(member(pc, "packet_size")->meaning, TMX_MEANING_PACKET_SIZE);
	assert_int_equal(member(pc, "content_size")->meaning, TMX_MEANING_CONTENT_SIZE);
	assert_int_equal(member(pc, "timestamp_begin")->meaning, TMX_MEANING_TS_BEGIN);
	assert_ptr_equal(member(pc, "timestamp_begin")->mapped_clock, sc->default_clock);
	assert_int_equal(member(pc, "timestamp_end")->meaning, TMX_MEANING_TS_END);
	assert_ptr_equal(member(pc, "timestamp_end")->mapped_clock, sc->default_clock);
	assert_int_equal(member(pc, "events_discarded")->meaning, TMX_MEANING_EVENTS_DISCARDED);
	assert_int_equal(member(pc, "seq")->meaning, TMX_MEANING_PACKET_SEQ_NUM);
	assert_int_equal(member(pc, "ctx_len")->meaning, TMX_MEANING_NONE);
	eh = sc->event_header;
	assert_int_equal(member(eh, "id")->meaning, TMX_MEANING_EVENT_ID);
	assert_int_equal(member(eh, "timestamp")->meaning, TMX_MEANING_TIMESTAMP);
	assert_int_equal(member(eh, "timestamp")->size, 27);
	assert_ptr_equal(member(eh, "timestamp")->mapped_clock, sc->default_clock);
	assert_true(member(sc->event_common_context, "sel")->is_signed);

	/* Event record classes sorted by ID; attributes give log levels and EMF URIs. */
	assert_int_equal(sc->n_event_classes, 2);
	assert_int_equal(sc->event_classes[0]->id, 2);
	assert_string_equal(sc->event_classes[0]->name, "compound");
	assert_int_equal(sc->event_classes[0]->log_level, 13);   /* debug:line, from lttng.org,2009 */
	assert_null(sc->event_classes[0]->emf_uri);
	assert_int_equal(sc->event_classes[1]->id, 7);
	assert_string_equal(sc->event_classes[1]->ns, "ns");
	assert_string_equal(sc->event_classes[1]->uid, "erc-uid");
	assert_int_equal(sc->event_classes[1]->log_level, 4);    /* warning */
	assert_string_equal(sc->event_classes[1]->emf_uri, "https://example.org/scalars");
	assert_ptr_equal(sc->event_classes[1]->stream_class, sc);
	assert_ptr_equal(tmx_stream_class_event_class(sc, 7), sc->event_classes[1]);
	tmx_arena_free(&pr.arena);
	free(text);
}

static void test_all_kinds_scalars(void **state)
{
	struct parsed pr;
	size_t len;
	char *text = read_all_kinds(&len);
	const struct tmx_field_class *p, *fc;

	(void)state;
	assert_int_equal(parse_len(&pr, text, len), TMX_OK);
	p = tmx_stream_class_event_class(pr.tc->stream_classes[0], 7)->payload;

	fc = member(p, "bits");
	assert_int_equal(fc->kind, TMX_FC_BIT_ARRAY);
	assert_int_equal(fc->size, 12);
	assert_int_equal(fc->byte_order, TMX_BO_BE);
	assert_true(fc->bit_order_rev);     /* first-to-last in big-endian */
	assert_int_equal(fc->n_mappings, 0);
	assert_int_equal(fc->align, 1);

	fc = member(p, "flags");
	assert_int_equal(fc->kind, TMX_FC_BIT_ARRAY);
	assert_false(fc->bit_order_rev);
	assert_int_equal(fc->n_mappings, 2);
	assert_string_equal(fc->mappings[1].label, "B");
	assert_int_equal(fc->mappings[1].n_ranges, 2);
	assert_int_equal(fc->mappings[1].ranges[1].lower, 7);

	assert_int_equal(member(p, "flag")->kind, TMX_FC_BOOL);
	assert_int_equal(member(p, "flag")->size, 1);

	fc = member(p, "e");
	assert_int_equal(fc->kind, TMX_FC_ENUM);
	assert_false(fc->is_signed);
	assert_int_equal(fc->base, 2);
	assert_int_equal(fc->n_mappings, 2);
	assert_string_equal(fc->mappings[0].label, "LOW");
	assert_int_equal(fc->mappings[0].ranges[0].upper, 9);

	fc = member(p, "s");
	assert_int_equal(fc->kind, TMX_FC_ENUM);
	assert_true(fc->is_signed);
	assert_int_equal(fc->align, 32);
	assert_int_equal((int64_t)fc->mappings[0].ranges[0].lower, INT64_MIN);
	assert_int_equal((int64_t)fc->mappings[0].ranges[0].upper, -1);

	fc = member(p, "f32");
	assert_int_equal(fc->kind, TMX_FC_FLOAT);
	assert_int_equal(fc->size, 32);
	assert_int_equal(fc->exp_dig, 8);
	assert_int_equal(fc->mant_dig, 24);
	fc = member(p, "f64");
	assert_int_equal(fc->exp_dig, 11);
	assert_int_equal(fc->mant_dig, 53);
	assert_int_equal(fc->align, 64);

	fc = member(p, "vu");
	assert_int_equal(fc->kind, TMX_FC_ENUM);
	assert_true(fc->varlen);
	assert_int_equal(fc->size, 64);
	assert_int_equal(fc->align, 8);
	assert_int_equal(fc->mappings[0].ranges[0].upper, UINT64_MAX);
	fc = member(p, "vs");
	assert_int_equal(fc->kind, TMX_FC_INT);
	assert_true(fc->varlen && fc->is_signed);
	assert_int_equal(fc->base, 8);
	tmx_arena_free(&pr.arena);
	free(text);
}

static void test_all_kinds_compound(void **state)
{
	struct parsed pr;
	size_t len;
	char *text = read_all_kinds(&len);
	const struct tmx_stream_class *sc;
	const struct tmx_event_class *ec;
	const struct tmx_field_class *p, *fc, *pc, *ecc, *v, *after;

	(void)state;
	assert_int_equal(parse_len(&pr, text, len), TMX_OK);
	sc = pr.tc->stream_classes[0];
	ec = tmx_stream_class_event_class(sc, 2);
	p = ec->payload;
	pc = sc->packet_context;
	ecc = sc->event_common_context;

	fc = member(p, "nt");
	assert_int_equal(fc->kind, TMX_FC_STRING);
	assert_int_equal(fc->str_length, TMX_STR_NUL_TERMINATED);
	assert_int_equal(fc->str_encoding, TMX_STR_UTF16LE);
	assert_int_equal(fc->align, 8);
	fc = member(p, "sl");
	assert_int_equal(fc->str_length, TMX_STR_STATIC);
	assert_int_equal(fc->str_encoding, TMX_STR_UTF32BE);
	assert_int_equal(fc->length, 8);
	assert_int_equal(fc->ref_slot, -1);
	/* Two lengths in another scope, one field: one slot. */
	fc = member(p, "dl");
	assert_int_equal(fc->str_length, TMX_STR_DYNAMIC);
	assert_true(fc->ref_slot >= 0);
	assert_int_equal(fc->ref_slot, member(pc, "ctx_len")->slot);
	assert_int_equal(member(p, "db")->kind, TMX_FC_BLOB);
	assert_int_equal(member(p, "db")->ref_slot, fc->ref_slot);
	assert_null(member(p, "db")->media_type);
	fc = member(p, "sb");
	assert_int_equal(fc->length, 3);
	assert_string_equal(fc->media_type, "text/plain");

	/* Each use of an alias is its own copy. */
	fc = member(p, "p");
	assert_int_equal(fc->kind, TMX_FC_STRUCT);
	assert_ptr_not_equal(fc, member(p, "arr")->elem);
	assert_ptr_not_equal(member(fc, "n"), member(member(p, "arr")->elem, "n"));
	assert_int_equal(member(fc, "data")->kind, TMX_FC_SEQUENCE);
	assert_int_equal(member(fc, "data")->ref_slot, member(fc, "n")->slot);
	assert_int_equal(member(fc, "data")->align, 8);
	fc = member(p, "arr");
	assert_int_equal(fc->kind, TMX_FC_ARRAY);
	assert_int_equal(fc->length, 2);
	assert_int_equal(fc->align, 16);            /* minimum-alignment above the element's 8 */
	assert_false(fc->is_text);
	assert_int_equal(member(fc->elem, "data")->ref_slot, member(fc->elem, "n")->slot);

	fc = member(p, "opt");
	assert_int_equal(fc->kind, TMX_FC_OPTIONAL);
	assert_int_equal(fc->align, 1);
	assert_ptr_equal(fc->tag, member(ec->specific_context, "present"));
	assert_int_equal(fc->ref_slot, fc->tag->slot);
	assert_int_equal(fc->n_ranges, 0);
	assert_int_equal(fc->elem->size, 8);

	fc = member(p, "iopt");
	assert_ptr_equal(fc->tag, member(ecc, "sel"));
	assert_int_equal(fc->n_ranges, 2);
	assert_int_equal((int64_t)fc->ranges[0].lower, -5);
	assert_int_equal(fc->ref_slot, member(ecc, "sel")->slot);

	v = member(p, "v");
	assert_int_equal(v->kind, TMX_FC_VARIANT);
	assert_ptr_equal(v->tag, member(ecc, "sel"));
	assert_null(v->option_for_mapping);
	assert_int_equal(v->n_members, 2);
	assert_string_equal(v->members[0].name, "neg");
	assert_string_equal(v->members[1].name, "");   /* unnamed */
	assert_int_equal((int64_t)v->members[0].ranges[0].lower, -128);
	assert_int_equal(v->align, 1);

	/* `after` follows ["v", "len"]: both options' `len` share its slot. */
	after = member(p, "after");
	assert_int_equal(after->kind, TMX_FC_SEQUENCE);
	assert_true(after->ref_slot >= 0);
	assert_int_equal(member(v->members[0].fc, "len")->slot, after->ref_slot);
	assert_int_equal(member(v->members[1].fc, "len")->slot, after->ref_slot);
	/* [null, "p", "n"] from the element structure: the payload's `p.n`. */
	assert_int_equal(member(after->elem, "inner")->ref_slot, member(member(p, "p"), "n")->slot);
	assert_true(tmx_tc_n_slots(pr.tc) >= 6);
	tmx_arena_free(&pr.arena);
	free(text);
}

/* ------------------------------------------------------------------ */
/* Fragments                                                            */
/* ------------------------------------------------------------------ */

static void test_minimal(void **state)
{
	struct parsed pr;

	(void)state;
	/* Consecutive separators are one; text may follow the last object. */
	parsed_ok(&pr, "\x1e\x1e\n{\"type\":\"preamble\",\"version\":2}\r\n\t" DSC "\x1e");
	assert_int_equal(pr.tc->n_stream_classes, 1);
	assert_int_equal(pr.tc->stream_classes[0]->id, 0);
	assert_false(pr.tc->stream_classes[0]->id_is_set);
	assert_false(pr.tc->has_uuid);
	assert_null(pr.tc->packet_header);
	assert_null(pr.tc->name);
	assert_int_equal(tmx_tc_n_slots(pr.tc), 0);
	tmx_arena_free(&pr.arena);
}

static void test_clock_classes(void **state)
{
	struct parsed pr;

	(void)state;
	/* A clock class before the trace class; unix-epoch and no origin. */
	parsed_ok(&pr, PRE F("{\"type\":\"clock-class\",\"id\":\"a\",\"frequency\":1000,"
			     "\"origin\":\"unix-epoch\",\"offset-from-origin\":{\"seconds\":5}}")
		  F("{\"type\":\"trace-class\"}")
		  F("{\"type\":\"clock-class\",\"id\":\"b\",\"frequency\":1}")
		  F("{\"type\":\"data-stream-class\",\"id\":1,\"default-clock-class-id\":\"b\"}"));
	assert_int_equal(pr.tc->n_clocks, 2);
	assert_true(pr.tc->clocks[0]->origin_is_unix_epoch);
	assert_null(pr.tc->clocks[0]->name);
	assert_int_equal(pr.tc->clocks[0]->offset_s, 5);
	assert_false(pr.tc->clocks[0]->has_precision);
	assert_false(pr.tc->clocks[1]->origin_is_unix_epoch);
	assert_null(pr.tc->clocks[1]->origin_name);
	assert_ptr_equal(pr.tc->stream_classes[0]->default_clock, pr.tc->clocks[1]);
	tmx_arena_free(&pr.arena);
}

static void test_log_levels(void **state)
{
	struct parsed pr;

	(void)state;
	/* babeltrace 2.1 reads string log levels only, its namespace first. */
	parsed_ok(&pr, PRE DSC
		  F("{\"type\":\"event-record-class\",\"id\":1,\"attributes\":{\"lttng.org,2009\":"
		    "{\"log-level\":\"info\"},\"babeltrace.org,2020\":{\"log-level\":\"emergency\"}}}")
		  F("{\"type\":\"event-record-class\",\"id\":2,\"attributes\":{\"lttng.org,2009\":"
		    "{\"log-level\":3,\"emf-uri\":\"u\"}}}")
		  F("{\"type\":\"event-record-class\",\"id\":3,\"attributes\":{\"lttng.org,2009\":"
		    "{\"log-level\":\"loud\"},\"other\":[1]}}"));
	assert_int_equal(pr.tc->stream_classes[0]->event_classes[0]->log_level, 0);
	assert_int_equal(pr.tc->stream_classes[0]->event_classes[1]->log_level, TMX_LOG_LEVEL_NONE);
	assert_string_equal(pr.tc->stream_classes[0]->event_classes[1]->emf_uri, "u");
	assert_int_equal(pr.tc->stream_classes[0]->event_classes[2]->log_level, TMX_LOG_LEVEL_NONE);
	assert_null(pr.tc->stream_classes[0]->event_classes[2]->name);
	tmx_arena_free(&pr.arena);
}

/* babeltrace 2.1's message for the corpus's fail traces. */
static void test_no_data_stream_class(void **state)
{
	struct parsed pr;

	(void)state;
	assert_int_equal(parse(&pr, PRE F("{\"type\":\"trace-class\"}")), TMX_ERR_METADATA);
	assert_string_equal(pr.err.msg, "Missing data stream class fragment in metadata stream.");
	tmx_arena_free(&pr.arena);
	assert_int_equal(parse(&pr, "\x1e\x1e"), TMX_ERR_METADATA);
	assert_string_equal(pr.err.msg, "Missing data stream class fragment in metadata stream.");
	tmx_arena_free(&pr.arena);
}

/* ------------------------------------------------------------------ */
/* Field locations                                                      */
/* ------------------------------------------------------------------ */

static void test_locations(void **state)
{
	struct parsed pr;
	const struct tmx_field_class *p, *a, *b;

	(void)state;
	/* Relative, then with `null` from a nested structure, then absolute. */
	parsed_ok(&pr, PAYLOAD(M("len", U8) "," M("a", DYN(LOC("\"len\""))) ","
			       M("s", ST(M("b", DYN(LOC("null,\"len\""))))) ","
			       M("c", DYN(PLOC("\"len\"")))));
	p = payload(&pr);
	assert_int_equal(member(p, "len")->slot, 0);
	assert_int_equal(member(p, "a")->ref_slot, 0);
	assert_int_equal(member(member(p, "s"), "b")->ref_slot, 0);
	assert_int_equal(member(p, "c")->ref_slot, 0);
	assert_int_equal(tmx_tc_n_slots(pr.tc), 1);
	tmx_arena_free(&pr.arena);

	/* Inside an array element, the element being decoded counts. */
	parsed_ok(&pr, PAYLOAD(M("arr", "{\"type\":\"static-length-array\",\"length\":3,"
			       "\"element-field-class\":" ST(M("n", U8) "," M("d", DYN(PLOC("\"arr\",\"n\""))))
			       "}")));
	p = member(payload(&pr), "arr")->elem;
	assert_int_equal(member(p, "d")->ref_slot, member(p, "n")->slot);
	tmx_arena_free(&pr.arena);
	expect_error(PAYLOAD(M("arr", "{\"type\":\"static-length-array\",\"length\":3,"
			       "\"element-field-class\":" ST(M("n", U8)) "}") "," M("w",
			       DYN(PLOC("\"arr\",\"n\"")))), TMX_ERR_METADATA, 3,
		     "{\"type\":\"dynamic", 0, "event-record-payload member `w`: "
		     "`length-field-location` event-record-payload [\"arr\", \"n\"]: the path goes "
		     "into a static-length array that does not contain the field that refers to it");

	/* Inside a variant option, only that option; after it, every option. */
	parsed_ok(&pr, PAYLOAD(M("sel", U8) "," M("v", "{\"type\":\"variant\","
			       "\"selector-field-location\":" LOC("\"sel\"") ",\"options\":["
			       "{\"selector-field-ranges\":[[0,0]],\"field-class\":" ST(M("len", U8) ","
			       M("d", DYN(PLOC("\"v\",\"len\"")))) "},"
			       "{\"selector-field-ranges\":[[1,1]],\"field-class\":" ST(M("len", U8) ","
			       M("d", DYN(PLOC("\"v\",\"len\"")))) "}]}") ","
			       M("after", DYN(LOC("\"v\",\"len\"")))));
	p = payload(&pr);
	a = member(p, "v")->members[0].fc;
	b = member(p, "v")->members[1].fc;
	/* Each option's `d` saw its own `len` first: two slots, merged by `after`. */
	assert_int_equal(member(a, "len")->slot, member(b, "len")->slot);
	assert_int_equal(member(a, "d")->ref_slot, member(a, "len")->slot);
	assert_int_equal(member(b, "d")->ref_slot, member(a, "len")->slot);
	assert_int_equal(member(p, "after")->ref_slot, member(a, "len")->slot);
	assert_ptr_equal(member(p, "v")->tag, member(p, "sel"));
	assert_int_equal(member(p, "v")->ref_slot, member(p, "sel")->slot);
	assert_int_not_equal(member(p, "sel")->slot, member(a, "len")->slot);
	tmx_arena_free(&pr.arena);

	/* Another scope: the packet context. */
	parsed_ok(&pr, PRE F("{\"type\":\"data-stream-class\",\"packet-context-field-class\":"
			     ST(M("n", U8)) "}")
		  ERC(ST(M("d", DYN("{\"origin\":\"packet-context\",\"path\":[\"n\"]}")))));
	assert_int_equal(member(payload(&pr), "d")->ref_slot,
			 member(pr.tc->stream_classes[0]->packet_context, "n")->slot);
	tmx_arena_free(&pr.arena);
}

static void test_selectors(void **state)
{
	struct parsed pr;
	const struct tmx_field_class *p;

	(void)state;
	parsed_ok(&pr, PAYLOAD(M("b", BOOL8) "," M("o", "{\"type\":\"optional\","
			       "\"selector-field-location\":" LOC("\"b\"") ",\"field-class\":" NT "}") ","
			       M("s", S8) "," M("v", "{\"type\":\"variant\",\"selector-field-location\":"
			       LOC("\"s\"") ",\"options\":[{\"selector-field-ranges\":[[-3,-1],[5,5]],"
			       "\"field-class\":" NT "},{\"selector-field-ranges\":[[0,4]],"
			       "\"field-class\":" U8 "}]}")));
	p = payload(&pr);
	assert_ptr_equal(member(p, "o")->tag, member(p, "b"));
	assert_int_equal(member(p, "o")->ref_slot, member(p, "b")->slot);
	assert_ptr_equal(member(p, "v")->tag, member(p, "s"));
	assert_int_equal(member(p, "v")->members[0].n_ranges, 2);
	tmx_arena_free(&pr.arena);

	expect_error(PAYLOAD(M("s", S8) "," M("o", "{\"type\":\"optional\",\"selector-field-location\":"
			     LOC("\"s\"") ",\"field-class\":" NT "}")), TMX_ERR_METADATA, 3,
		     "{\"type\":\"optional", 0, "`selector-field-ranges` is missing");
	/* Ranges with a boolean selector (babeltrace 2.1's writer adds them): ignored. */
	parsed_ok(&pr, PAYLOAD(M("b", BOOL8) "," M("o", "{\"type\":\"optional\",\"selector-field-location\":"
			       LOC("\"b\"") ",\"selector-field-ranges\":[[1,1]],\"field-class\":" NT "}")));
	assert_int_equal(member(payload(&pr), "o")->n_ranges, 0);
	assert_ptr_equal(member(payload(&pr), "o")->tag, member(payload(&pr), "b"));
	tmx_arena_free(&pr.arena);
	expect_error(PAYLOAD(M("b", BOOL8) "," M("v", "{\"type\":\"variant\",\"selector-field-location\":"
			     LOC("\"b\"") ",\"options\":[{\"selector-field-ranges\":[[0,0]],\"field-class\":"
			     NT "}]}")), TMX_ERR_METADATA, 3, "{\"type\":\"variant", 0,
		     "a variant selector must be an integer");
	expect_error(PAYLOAD(M("u", U8) "," M("v", "{\"type\":\"variant\",\"selector-field-location\":"
			     LOC("\"u\"") ",\"options\":[{\"selector-field-ranges\":[[-1,0]],\"field-class\":"
			     NT "}]}")), TMX_ERR_METADATA, 3, "{\"type\":\"variant", 0,
		     "the selector is an unsigned integer but the selector ranges have negative bounds");
	expect_error(PAYLOAD(M("s", S8) "," M("o", "{\"type\":\"optional\",\"selector-field-location\":"
			     LOC("\"s\"") ",\"selector-field-ranges\":[[1,18446744073709551615]],"
			     "\"field-class\":" NT "}")), TMX_ERR_METADATA, 3, "{\"type\":\"optional", 0,
		     "the selector is a signed integer but the selector ranges have bounds above");
	expect_error(PAYLOAD(M("u", U8) "," M("v", "{\"type\":\"variant\",\"selector-field-location\":"
			     LOC("\"u\"") ",\"options\":[{\"selector-field-ranges\":[[0,0],[5,9]],"
			     "\"field-class\":" NT "},{\"selector-field-ranges\":[[1,4],[9,9]],"
			     "\"field-class\":" NT "}]}")), TMX_ERR_METADATA, 3, "{\"type\":\"variant", 0,
		     "the selector ranges of options 1 and 2 intersect");
	/* Through a variant: fields of different signedness cannot share a slot. */
	expect_error(PAYLOAD(M("u", U8) "," M("v", "{\"type\":\"variant\",\"selector-field-location\":"
			     LOC("\"u\"") ",\"options\":[{\"selector-field-ranges\":[[0,0]],\"field-class\":"
			     ST(M("k", U8)) "},{\"selector-field-ranges\":[[1,1]],\"field-class\":"
			     ST(M("k", S8)) "}]}") "," M("w", "{\"type\":\"variant\","
			     "\"selector-field-location\":" LOC("\"v\",\"k\"") ",\"options\":[{"
			     "\"selector-field-ranges\":[[0,0]],\"field-class\":" NT "}]}")),
		     TMX_ERR_METADATA, 3, "{\"type\":\"variant\",\"selector-field-location\":{\"path\":[\"v\"",
		     0, "different types in different variant options (an unsigned integer and a "
		     "signed integer)");
}

/* ------------------------------------------------------------------ */
/* Packetized metadata (CTF 1.8 framing, as LTTng writes it for CTF 2)  */
/* ------------------------------------------------------------------ */

static size_t put_packet(uint8_t *out, const char *payload, size_t len, size_t padding)
{
	uint32_t content = (uint32_t)(37 + len) * 8, total = content + (uint32_t)padding * 8;
	uint32_t magic = 0x75D11D57;

	memset(out, 0, 37 + len + padding);
	memcpy(out, &magic, 4);         /* host order: the reader takes either */
	memcpy(out + 24, &content, 4);
	memcpy(out + 28, &total, 4);
	out[35] = 1;
	out[36] = 8;
	memcpy(out + 37, payload, len);
	return 37 + len + padding;
}

static void test_packetized(void **state)
{
	static const char text[] = PRE DSC ERC(ST(M("x", NT)));
	uint8_t buf[1024];
	size_t n = 0, half = sizeof(text) / 2;
	struct ctf_metadata_text t;
	struct tmx_error err;
	struct parsed pr;

	(void)state;
	/* Fragments cut across packets. */
	n += put_packet(buf + n, text, half, 3);
	n += put_packet(buf + n, text + half, sizeof(text) - 1 - half, 0);
	assert_int_equal(ctf_metadata_decode(buf, n, "metadata", &t, &err), TMX_OK);
	assert_true(t.packetized);
	assert_int_equal(t.len, sizeof(text) - 1);
	parsed_ok(&pr, t.text);
	assert_string_equal(member(payload(&pr), "x") ? "x" : "", "x");
	tmx_arena_free(&pr.arena);
	ctf_metadata_text_fini(&t);
}

/* ------------------------------------------------------------------ */
/* The corpus                                                           */
/* ------------------------------------------------------------------ */

static int n_ok, n_failed;

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	struct ctf_metadata_text t;
	struct tmx_error err;
	struct parsed pr;
	bool fail_case;

	(void)sb;
	if (type != FTW_F || strcmp(path + ftw->base, "metadata"))
		return 0;
	if (ctf_metadata_read(path, &t, &err))
		fail_msg("%s: %s", path, err.msg);
	if (!t.len || t.text[0] != 0x1E) {   /* CTF 1.8 sources of converted traces */
		ctf_metadata_text_fini(&t);
		return 0;
	}
	fail_case = strstr(path, "/fail/meta-") != NULL;
	parse_len(&pr, t.text, t.len);
	if (fail_case ? pr.ret != TMX_ERR_METADATA ||
	    strcmp(pr.err.msg, "Missing data stream class fragment in metadata stream.") :
	    pr.ret != TMX_OK) {
		char buf[2048];
		tmx_error_format(&pr.err, buf, sizeof(buf));
		print_error("%s: %s\n", path, pr.ret ? buf : "accepted");
		n_failed++;
	} else {
		n_ok++;
	}
	tmx_arena_free(&pr.arena);
	ctf_metadata_text_fini(&t);
	return 0;
}

static void test_corpus(void **state)
{
	(void)state;
	assert_int_equal(nftw(TMX_CORPUS "/ctf2", visit, 16, FTW_PHYS), 0);
	print_message("%d CTF 2 metadata streams of the corpus read as expected\n", n_ok);
	assert_int_equal(n_failed, 0);
	assert_true(n_ok >= 80);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_kinds_trace),
		cmocka_unit_test(test_all_kinds_stream),
		cmocka_unit_test(test_all_kinds_scalars),
		cmocka_unit_test(test_all_kinds_compound),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_clock_classes),
		cmocka_unit_test(test_log_levels),
		cmocka_unit_test(test_no_data_stream_class),
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_packetized),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
