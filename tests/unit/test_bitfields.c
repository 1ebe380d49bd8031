/*
 * GNU/C bitfields (CTF spec 4.1.6, `unit_type name:size`), which
 * babeltrace2 rejects.  The reference layout is the compiler's own: C
 * structures with bitfields are filled, their bytes decoded with the
 * matching TSDL, and every value must come back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ctf/decode.h"
#include "ctf/metadata.h"

/* The spec's example: b does not fit in a's unit and starts the next one. */
struct example {
	short a : 12;
	short b : 5;
};

struct mixed {
	unsigned int x : 3;
	unsigned int y : 30;      /* crosses 32 bits: next unit */
	unsigned char c;
	unsigned short s : 9;
	unsigned short t : 9;     /* crosses 16 bits: next unit */
};

#define PRELUDE "/* CTF 1.8 */\n" \
	"typealias integer { size = 16; signed = true; } := short;\n" \
	"typealias integer { size = 32; signed = false; } := uint32;\n" \
	"typealias integer { size = 16; signed = false; } := uint16;\n" \
	"typealias integer { size = 8; signed = false; } := uint8;\n" \
	"trace { major = 1; minor = 8; byte_order = le; };\n"

static const char *const example_tsdl = PRELUDE
	"event { name = e; fields := struct { short a:12; short b:5; }; };\n";

static const char *const mixed_tsdl = PRELUDE
	"event { name = e; fields := struct { uint32 x:3; uint32 y:30; uint8 c; "
	"uint16 s:9; uint16 t:9; }; };\n";

/* Decodes one event of `tsdl` from `bytes`; returns its payload values. */
static void decode(const char *tsdl, const void *bytes, size_t len, struct tmx_arena *arena,
		   struct ctf_decoder *d, const struct tmx_value **payload)
{
	struct tmx_trace_class *tc;
	struct tmx_error err = { 0 };
	struct ctf_packet_info info;
	const struct tmx_event_class *ec;
	size_t scopes[TMX_N_SCOPES];
	bool more;

	tmx_arena_init(arena);
	if (ctf_metadata_parse(tsdl, strlen(tsdl), "bitfields", NULL, arena, &tc, &err))
		fail_msg("%u:%u: %s", err.line, err.col, err.msg);
	assert_int_equal(ctf_decoder_init(d, tc, "bitfields", bytes, len, &err), TMX_OK);
	assert_int_equal(ctf_decode_packet_start(d, 0, &info, &err), TMX_OK);
	if (ctf_decode_event(d, &more, info.sc, &ec, scopes, &err))
		fail_msg("%s", err.msg);
	assert_true(more);
	*payload = &d->event.v[scopes[TMX_SCOPE_PAYLOAD]];
}

static void test_spec_example(void **state)
{
	struct example ex = { .a = -1234, .b = 9 };
	struct tmx_arena arena;
	struct ctf_decoder d;
	const struct tmx_value *v;

	(void)state;
	decode(example_tsdl, &ex, sizeof(ex), &arena, &d, &v);
	assert_int_equal(v[0].n_members, 2);
	assert_int_equal(v[1].s, ex.a);
	assert_int_equal(v[2].s, ex.b);
	assert_int_equal(d.pos, 16 + 5);   /* b starts at the second unit */
	ctf_decoder_fini(&d);
	tmx_arena_free(&arena);
}

static void test_mixed_units(void **state)
{
	struct mixed m;
	struct tmx_arena arena;
	struct ctf_decoder d;
	const struct tmx_value *v;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.x = 5;
	m.y = 0x2ABCDEF1;
	m.c = 0x7E;
	m.s = 0x1A5;
	m.t = 0x0F3;
	decode(mixed_tsdl, &m, sizeof(m), &arena, &d, &v);
	assert_int_equal(v[1].u, m.x);
	assert_int_equal(v[2].u, m.y);
	assert_int_equal(v[3].u, m.c);
	assert_int_equal(v[4].u, m.s);
	assert_int_equal(v[5].u, m.t);
	ctf_decoder_fini(&d);
	tmx_arena_free(&arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_example),
		cmocka_unit_test(test_mixed_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
