/*
 * The column model (include/tracemux/columns.h) on a class built by hand:
 * the names (scope prefixes where a name is taken, dots, _label, _2),
 * kinds, widths, nullability, and the walk of an event's values (options
 * not selected and absent optionals as NULL, the CPU field's value).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fcbuild.h"
#include "tracemux/columns.h"

struct model {
	struct tmx_trace_class tc;
	struct tmx_stream_class sc;
	struct tmx_event_class ec;
};

static void rename_members(struct tmx_field_class *st, ...)
{
	va_list ap;

	va_start(ap, st);
	for (size_t i = 0; i < st->n_members; i++)
		st->members[i].name = va_arg(ap, char *);
	va_end(ap);
}

/*
 * packet context { cpu_id: u32 }
 * payload { ts: i8, s { x: u16, y: float64 }, e: enum u8 {ZERO, ONE},
 *           v: variant { opt: string, opt: u8 }, o: optional u8,
 *           arr: u8[2], seq: u32[], cpu_id: u8, e_label: bool }
 */
static void make(struct model *m)
{
	static const int64_t one_range[] = { 0, 0 }, var_bounds[] = { 0, 0, 1, 1 };
	struct tmx_field_class *pc = fcb_struct(1, fcb_fixed(TMX_FC_INT, 32, TMX_BO_LE, false, false, 8));
	struct tmx_field_class *en = fcb_u8(), *opts[2], *payload, *s;

	en->kind = TMX_FC_ENUM;
	en->n_mappings = 2;
	en->mappings = fcb_alloc(2 * sizeof(*en->mappings));
	en->mappings[0] = (struct tmx_enum_mapping){ .label = (char *)"ZERO", .n_ranges = 1,
						     .ranges = fcb_ranges(1, (int64_t[]){ 0, 0 }) };
	en->mappings[1] = (struct tmx_enum_mapping){ .label = (char *)"ONE", .n_ranges = 1,
						     .ranges = fcb_ranges(1, (int64_t[]){ 1, 1 }) };
	opts[0] = fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0);
	opts[1] = fcb_u8();
	s = fcb_struct(2, fcb_fixed(TMX_FC_INT, 16, TMX_BO_LE, false, false, 8),
		       fcb_fixed(TMX_FC_FLOAT, 64, TMX_BO_LE, false, false, 8));
	rename_members(s, "x", "y");
	payload = fcb_struct(9, fcb_i8(), s, en, fcb_variant(fcb_u8(), 0, 2, opts, var_bounds),
			     fcb_optional(fcb_u8(), 1, fcb_u8(), 1, one_range),
			     fcb_array(fcb_u8(), 2, -1),
			     fcb_array(fcb_fixed(TMX_FC_INT, 32, TMX_BO_LE, false, false, 8), 0, 2),
			     fcb_u8(), fcb_fixed(TMX_FC_BOOL, 8, TMX_BO_LE, false, false, 8));
	rename_members(payload, "ts", "s", "e", "v", "o", "arr", "seq", "cpu_id", "e_label");
	rename_members(pc, "cpu_id");
	memset(m, 0, sizeof(*m));
	m->tc.format = TMX_FORMAT_CTF;
	m->sc.trace_class = &m->tc;
	m->sc.packet_context = pc;
	m->ec.stream_class = &m->sc;
	m->ec.payload = payload;
}

static const struct {
	const char *name;
	enum tmx_column_kind kind;
	unsigned bits;
	bool is_signed, nullable;
} expected[] = {
	{ "ts", TMX_COLUMN_INT, 64, true, true },
	{ "cycles", TMX_COLUMN_INT, 64, false, true },
	{ "event", TMX_COLUMN_TEXT, 0, false, true },
	{ "host", TMX_COLUMN_TEXT, 0, false, true },
	{ "trace", TMX_COLUMN_TEXT, 0, false, false },
	{ "stream_id", TMX_COLUMN_INT, 64, false, false },
	{ "stream_class_id", TMX_COLUMN_INT, 64, false, false },
	{ "cpu", TMX_COLUMN_INT, 32, false, true },
	{ "cpu_id", TMX_COLUMN_INT, 32, false, false },            /* packet context */
	{ "payload.ts", TMX_COLUMN_INT, 8, true, false },
	{ "s.x", TMX_COLUMN_INT, 16, false, false },
	{ "s.y", TMX_COLUMN_FLOAT, 64, false, false },
	{ "e", TMX_COLUMN_INT, 8, false, false },
	{ "e_label", TMX_COLUMN_LABEL, 0, false, true },
	{ "v", TMX_COLUMN_OPTION, 0, false, false },
	{ "v.opt", TMX_COLUMN_TEXT, 0, false, true },
	{ "v.opt_2", TMX_COLUMN_INT, 8, false, true },
	{ "o", TMX_COLUMN_INT, 8, false, true },
	{ "arr", TMX_COLUMN_ARRAY, 0, false, false },
	{ "seq", TMX_COLUMN_ARRAY, 0, false, false },
	{ "payload.cpu_id", TMX_COLUMN_INT, 8, false, false },
	{ "payload.e_label", TMX_COLUMN_BOOL, 0, false, false },
};
#define N_EXPECTED (sizeof(expected) / sizeof(expected[0]))

static void test_names_kinds(void **state)
{
	struct model m;
	struct tmx_columns *cols;

	(void)state;
	make(&m);
	cols = tmx_columns_new(&m.ec);
	assert_non_null(cols);
	assert_int_equal(tmx_columns_count(cols), N_EXPECTED);
	assert_int_equal(tmx_columns_fixed_count(cols), TMX_COLUMN_CPU + 1);
	for (size_t c = 0; c < N_EXPECTED; c++) {
		assert_string_equal(tmx_column_name(cols, c), expected[c].name);
		assert_int_equal(tmx_column_kind(cols, c), expected[c].kind);
		assert_int_equal(tmx_column_bits(cols, c), expected[c].bits);
		assert_int_equal(tmx_column_is_signed(cols, c), expected[c].is_signed);
		assert_int_equal(tmx_column_nullable(cols, c), expected[c].nullable);
		assert_int_equal(tmx_column_fixed(cols, c), c <= TMX_COLUMN_CPU ? (int)c : -1);
		assert_true((tmx_column_field_class(cols, c) == NULL) == (c <= TMX_COLUMN_CPU));
	}
	/* The label column's class is the enumeration's, the option column's the variant's. */
	assert_int_equal(tmx_fc_kind(tmx_column_field_class(cols, 13)), TMX_FC_ENUM);
	assert_int_equal(tmx_fc_kind(tmx_column_field_class(cols, 14)), TMX_FC_VARIANT);
	assert_null(tmx_column_name(cols, N_EXPECTED));
	assert_string_equal(tmx_scope_name(TMX_SCOPE_PACKET_CONTEXT), "packet_context");
	assert_string_equal(tmx_scope_name(TMX_SCOPE_PAYLOAD), "payload");
	assert_null(tmx_scope_name(TMX_N_SCOPES));
	tmx_columns_free(cols);
	fcb_free_all();
}

static void test_walk(void **state)
{
	struct model m;
	struct tmx_columns *cols;
	const struct tmx_field_class *p, *pl;
	const struct tmx_value *cells[N_EXPECTED], *scopes[TMX_N_SCOPES] = { 0 };
	struct tmx_value pkt[2], pay[20];
	size_t n = 0;

	(void)state;
	make(&m);
	cols = tmx_columns_new(&m.ec);
	assert_non_null(cols);
	p = m.sc.packet_context;
	pl = m.ec.payload;
	pkt[0] = (struct tmx_value){ .fc = p, .n_members = 1 };
	pkt[1] = (struct tmx_value){ .fc = p->members[0].fc, .u = 3 };
	/* payload: the variant's second option, the optional absent */
	pay[n++] = (struct tmx_value){ .fc = pl, .n_members = 9 };
	pay[n++] = (struct tmx_value){ .fc = pl->members[0].fc, .s = -5 };           /* ts */
	pay[n++] = (struct tmx_value){ .fc = pl->members[1].fc, .n_members = 2 };    /* s */
	pay[n++] = (struct tmx_value){ .fc = pl->members[1].fc->members[0].fc, .u = 7 };
	pay[n++] = (struct tmx_value){ .fc = pl->members[1].fc->members[1].fc, .d = 1.5 };
	pay[n++] = (struct tmx_value){ .fc = pl->members[2].fc, .u = 1 };            /* e */
	pay[n++] = (struct tmx_value){ .fc = pl->members[3].fc, .option = 1 };       /* v */
	pay[n++] = (struct tmx_value){ .fc = pl->members[3].fc->members[1].fc, .u = 9 };
	pay[n++] = (struct tmx_value){ .fc = pl->members[4].fc, .present = 0 };      /* o */
	pay[n++] = (struct tmx_value){ .fc = pl->members[5].fc, .count = 2 };        /* arr */
	pay[n++] = (struct tmx_value){ .fc = pl->members[5].fc->elem, .u = 1 };
	pay[n++] = (struct tmx_value){ .fc = pl->members[5].fc->elem, .u = 2 };
	pay[n++] = (struct tmx_value){ .fc = pl->members[6].fc, .count = 0 };        /* seq */
	pay[n++] = (struct tmx_value){ .fc = pl->members[7].fc, .u = 4 };            /* cpu_id */
	pay[n++] = (struct tmx_value){ .fc = pl->members[8].fc, .u = 1 };            /* e_label */
	scopes[TMX_SCOPE_PACKET_CONTEXT] = pkt;
	scopes[TMX_SCOPE_PAYLOAD] = pay;
	for (size_t c = 0; c < N_EXPECTED; c++)
		cells[c] = &pay[0];   /* every cell must be written but the fixed ones */
	assert_true(tmx_columns_walk(cols, scopes, cells));
	for (size_t c = 0; c < TMX_COLUMN_CPU; c++)
		assert_ptr_equal(cells[c], &pay[0]);
	assert_ptr_equal(cells[TMX_COLUMN_CPU], &pkt[1]);   /* the packet context's cpu_id */
	assert_ptr_equal(cells[8], &pkt[1]);
	assert_ptr_equal(cells[9], &pay[1]);
	assert_ptr_equal(cells[10], &pay[3]);
	assert_ptr_equal(cells[11], &pay[4]);
	assert_ptr_equal(cells[12], &pay[5]);
	assert_ptr_equal(cells[13], &pay[5]);   /* the label's value is the enumeration's */
	assert_ptr_equal(cells[14], &pay[6]);   /* the option column: the variant */
	assert_null(cells[15]);                  /* option 0, not selected */
	assert_ptr_equal(cells[16], &pay[7]);
	assert_null(cells[17]);                  /* the absent optional */
	assert_ptr_equal(cells[18], &pay[9]);   /* the whole array */
	assert_ptr_equal(cells[19], &pay[12]);  /* after the array's elements */
	assert_ptr_equal(cells[20], &pay[13]);
	assert_ptr_equal(cells[21], &pay[14]);
	/* A scope that is not the class's: false, nothing written. */
	cells[9] = NULL;
	scopes[TMX_SCOPE_PAYLOAD] = pkt;
	assert_false(tmx_columns_walk(cols, scopes, cells));
	assert_null(cells[9]);
	scopes[TMX_SCOPE_PAYLOAD] = NULL;
	assert_false(tmx_columns_walk(cols, scopes, cells));
	tmx_columns_free(cols);
	fcb_free_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_kinds),
		cmocka_unit_test(test_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
