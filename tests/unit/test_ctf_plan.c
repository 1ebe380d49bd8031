/*
 * Decoding plans (src/ctf/plan.c) against the tree walk they replace.
 *
 * The CTF decoder normally runs each scope's compiled plan; with
 * `walk_only` it walks the field class tree instead.  Both must give the
 * same result on every input: the same values in the same pre-order slots,
 * the same positions, clock values, saved slots and byte order state, and,
 * on damaged data, the same error (code, byte offset, message) after the
 * same partial values.  Two decoders, one of each kind, step through the
 * same bytes in lockstep and are compared after every packet and event:
 *
 *   - every CTF trace of the corpus (babeltrace2's succeed/fail traces,
 *     yactfr's bit-level cases: odd sizes, byte order changes, bit fields,
 *     empty structures, variants...) and the sample trace;
 *   - damaged copies of their data streams: bytes overwritten at
 *     pseudo-random places (fixed seed) and truncations, which drive the
 *     plans' bounds checks and slow paths into every error;
 *   - a few metadata texts written here for run layouts the corpus lacks.
 *
 * The planned decoder is also run as the dummy sink runs it, told that no
 * one reads the values (bodies stepped over where they can be, event
 * headers by their programs either way): the same positions, state and
 * errors.
 *
 * The expected side is the tree walk, whose output the golden tests check
 * against babeltrace2 and yactfr.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "fcbuild.h"
#include "model/field_class.h"
#include "testutil.h"

#include "ctf/decode.h"
#include "ctf/metadata.h"
#include "ctf/plan.h"

/* Damaged copies made of each data stream file. */
#define N_MUTANTS 24
/* Only this much of a data file is used for the damaged copies. */
#define MUTANT_MAX_BYTES (64 * 1024)

struct stats {
	size_t traces, files, packets, events, errors;
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic across runs and platforms. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static void fill_random(uint8_t *data, size_t n)
{
	for (size_t i = 0; i < n; i++)
		data[i] = (uint8_t)rng();
}

/*
 * The end of a test of written layouts: what was compared, and enough
 * events and errors that the comparison meant something.
 */
static void assert_layouts_compared(const struct stats *st)
{
	print_message("compared %zu packets, %zu events, %zu errors\n", st->packets, st->events,
		      st->errors);
	assert_true(st->events > 1000);
	assert_true(st->errors > 100);
}

/* ---- comparison ---- */

static void fail_at(const char *what, const char *name, uint64_t off, const char *detail)
{
	print_message("%s: %s differs (packet at byte %llu): %s\n", name, what,
		      (unsigned long long)off, detail);
	fail();
}

static void compare_values(const struct ctf_values *a, const struct ctf_values *b,
			   const char *what, const char *name, uint64_t off)
{
	char detail[256];

	if (a->n != b->n) {
		snprintf(detail, sizeof(detail), "plan %zu values, walk %zu", a->n, b->n);
		fail_at(what, name, off, detail);
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct tmx_value *x = &a->v[i], *y = &b->v[i];
		bool same;

		if (x->fc != y->fc) {
			snprintf(detail, sizeof(detail), "value %zu has another class", i);
			fail_at(what, name, off, detail);
		}
		/* Only the union member of the class's kind was written. */
		switch (x->fc->kind) {
		case TMX_FC_INT:
		case TMX_FC_ENUM:
		case TMX_FC_BOOL:
		case TMX_FC_BIT_ARRAY:
			same = x->u == y->u;
			break;
		case TMX_FC_FLOAT:
			same = memcmp(&x->d, &y->d, sizeof(x->d)) == 0;
			break;
		case TMX_FC_STRING:
			/* Transcoded text is in each decoder's own storage. */
			if (x->fc->str_encoding != TMX_STR_UTF8 && x->str.len)
				same = x->str.len == y->str.len &&
				       memcmp(x->str.ptr, y->str.ptr, x->str.len) == 0;
			else
				same = x->str.ptr == y->str.ptr && x->str.len == y->str.len;
			break;
		case TMX_FC_BLOB:
			same = x->str.ptr == y->str.ptr && x->str.len == y->str.len;
			break;
		case TMX_FC_OPTIONAL:
			same = x->present == y->present;
			break;
		case TMX_FC_ARRAY:
		case TMX_FC_SEQUENCE:
			same = x->fc->is_text ? x->str.ptr == y->str.ptr && x->str.len == y->str.len :
			       x->count == y->count;
			break;
		case TMX_FC_STRUCT:
			same = x->n_members == y->n_members;
			break;
		case TMX_FC_VARIANT:
			same = x->option == y->option;
			break;
		default:
			same = false;
		}
		if (!same) {
			snprintf(detail, sizeof(detail), "value %zu (kind %d)", i, (int)x->fc->kind);
			fail_at(what, name, off, detail);
		}
	}
}

static void compare_state(const struct ctf_decoder *a, const struct ctf_decoder *b,
			  const char *name, uint64_t off)
{
	char detail[256];

	if (a->pos != b->pos || a->limit != b->limit || a->base != b->base) {
		snprintf(detail, sizeof(detail), "plan at bit %llu, walk at bit %llu",
			 (unsigned long long)a->pos, (unsigned long long)b->pos);
		fail_at("position", name, off, detail);
	}
	if (a->clock != b->clock || a->event_clock != b->event_clock)
		fail_at("clock", name, off, "");
	if (a->bo_end != b->bo_end || (a->bo_end != UINT64_MAX && a->bo_last != b->bo_last))
		fail_at("byte order state", name, off, "");
	if (memcmp(a->slots, b->slots, (size_t)(tmx_tc_n_slots(a->tc) > 0 ? tmx_tc_n_slots(a->tc) : 1) *
		   sizeof(*a->slots)) != 0)
		fail_at("saved slots", name, off, "");
	for (int m = 0; m < TMX_N_MEANINGS; m++)
		if (a->special_set[m] != b->special_set[m] ||
		    (a->special_set[m] && a->special[m] != b->special[m]))
			fail_at("special field", name, off, "");
}

static void compare_errors(int ra, int rb, const struct tmx_error *ea,
			   const struct tmx_error *eb, const char *name, uint64_t off)
{
	char detail[2 * TMX_ERROR_MSG_MAX + 64];

	if (ra != rb) {
		snprintf(detail, sizeof(detail), "plan returns %d (%s), walk %d (%s)", ra,
			 ra ? ea->msg : "", rb, rb ? eb->msg : "");
		fail_at("status", name, off, detail);
	}
	if (!ra)
		return;
	if (ea->code != eb->code || ea->has_offset != eb->has_offset ||
	    ea->offset != eb->offset || strcmp(ea->msg, eb->msg) || strcmp(ea->file, eb->file)) {
		snprintf(detail, sizeof(detail), "plan: at %llu `%s`; walk: at %llu `%s`",
			 (unsigned long long)ea->offset, ea->msg,
			 (unsigned long long)eb->offset, eb->msg);
		fail_at("error", name, off, detail);
	}
}

static void compare_info(const struct ctf_packet_info *a, const struct ctf_packet_info *b,
			 const char *name, uint64_t off)
{
	if (a->offset != b->offset || a->packet_bits != b->packet_bits ||
	    a->content_bits != b->content_bits || a->sc != b->sc ||
	    a->has_stream_instance_id != b->has_stream_instance_id ||
	    a->stream_instance_id != b->stream_instance_id || a->has_ts_begin != b->has_ts_begin ||
	    a->has_ts_end != b->has_ts_end || a->ts_begin != b->ts_begin ||
	    a->ts_end != b->ts_end || a->has_discarded != b->has_discarded ||
	    a->events_discarded != b->events_discarded || a->has_seq_num != b->has_seq_num ||
	    a->seq_num != b->seq_num)
		fail_at("packet info", name, off, "");
}

/*
 * Decodes `data` with a planned and a walking decoder in lockstep and
 * compares them at every step.  Returns true if decoding ended in an error.
 * `unread`: the planned decoder is told that no one reads the values (the
 * dummy sink), so it steps over the bodies it can (decode.c: skip_body):
 * its positions, state and errors must still be the walk's; its values
 * are not compared.  `per_class`: the same for the classes of odd IDs
 * only (ctf_decoder_set_reads, tmx_source_skip_fields_of): the events of
 * the others must be decoded, with the walk's values, and the positions,
 * state and errors be the walk's throughout.
 */
static bool odd_unread(const void *ctx, const struct tmx_event_class *ec)
{
	(void)ctx;
	return ec->id % 2 == 0;
}

static bool compare_stream_as(const struct tmx_trace_class *tc, const char *name,
			      const uint8_t *data, uint64_t size, bool headers_only, bool unread,
			      bool per_class, struct stats *st)
{
	struct ctf_decoder a, b;
	struct tmx_error ea = { 0 }, eb = { 0 };
	uint64_t off = 0;
	bool failed = false;

	assert_int_equal(ctf_decoder_init(&a, tc, name, data, size, &ea), TMX_OK);
	assert_int_equal(ctf_decoder_init(&b, tc, name, data, size, &eb), TMX_OK);
	b.walk_only = true;
	a.values_unread = unread;
	if (per_class)
		ctf_decoder_set_reads(&a, odd_unread, NULL);
	a.headers_only = b.headers_only = headers_only;
	while (!failed && off < size) {
		struct ctf_packet_info ia, ib;
		int ra = ctf_decode_packet_start(&a, off, &ia, &ea);
		int rb = ctf_decode_packet_start(&b, off, &ib, &eb);

		compare_errors(ra, rb, &ea, &eb, name, off);
		/* Unread byte arrays have no elements (a packet header's UUID). */
		if (!unread)
			compare_values(&a.header, &b.header, "packet header", name, off);
		if (ra) {
			failed = true;
			break;
		}
		if (!unread)
			compare_values(&a.packet_context, &b.packet_context, "packet context", name,
				       off);
		compare_info(&ia, &ib, name, off);
		compare_state(&a, &b, name, off);
		st->packets++;
		while (!headers_only) {
			const struct tmx_event_class *eca = NULL, *ecb = NULL;
			size_t sa[TMX_N_SCOPES], sb[TMX_N_SCOPES];
			bool ma = false, mb = false;

			for (int s = 0; s < TMX_N_SCOPES; s++)
				sa[s] = sb[s] = SIZE_MAX;
			ra = ctf_decode_event(&a, &ma, ia.sc, &eca, sa, &ea);
			rb = ctf_decode_event(&b, &mb, ib.sc, &ecb, sb, &eb);
			compare_errors(ra, rb, &ea, &eb, name, off);
			if (ma != mb || eca != ecb ||
			    (!unread && !a.body_skipped && memcmp(sa, sb, sizeof(sa)) != 0))
				fail_at("event", name, off, "more, class or scope starts");
			/* a class read is decoded (one unread may be, when it cannot be stepped over) */
			if (per_class && !ra && ma && a.body_skipped && eca->id % 2 == 0)
				fail_at("event", name, off, "body of a class read stepped over");
			/* What was decoded, also of a failed event (callers show it). */
			if (!unread && !a.body_skipped)
				compare_values(&a.event, &b.event, "event", name, off);
			if (ra) {
				failed = true;
				break;
			}
			compare_state(&a, &b, name, off);
			if (!ma)
				break;
			st->events++;
		}
		off += ia.packet_bits / 8;
	}
	if (failed)
		st->errors++;
	ctf_decoder_fini(&a);
	ctf_decoder_fini(&b);
	return failed;
}

/* compare_stream_as with the values read, then unread. */
static bool compare_stream(const struct tmx_trace_class *tc, const char *name,
			   const uint8_t *data, uint64_t size, bool headers_only,
			   struct stats *st)
{
	struct stats unread_st = { 0 };
	bool failed = compare_stream_as(tc, name, data, size, headers_only, false, false, st);

	if (!headers_only) {
		compare_stream_as(tc, name, data, size, false, true, false, &unread_st);
		compare_stream_as(tc, name, data, size, false, false, true, &unread_st);
	}
	return failed;
}

/* The stream, then damaged copies of (the start of) it. */
static void compare_file(const struct tmx_trace_class *tc, const char *name,
			 const uint8_t *data, size_t size, struct stats *st)
{
	size_t n = size < MUTANT_MAX_BYTES ? size : MUTANT_MAX_BYTES;
	uint8_t *copy;

	compare_stream(tc, name, data, size, false, st);
	compare_stream(tc, name, data, size, true, st);
	st->files++;
	if (n == 0)
		return;
	copy = malloc(n);
	assert_non_null(copy);
	for (int m = 0; m < N_MUTANTS; m++) {
		size_t len = n;

		memcpy(copy, data, n);
		if (m % 4 == 3) {
			len = (size_t)(rng() % n);   /* truncated */
		} else {
			int flips = 1 + (int)(rng() % 3);
			for (int f = 0; f < flips; f++)
				copy[rng() % n] = (uint8_t)rng();
		}
		compare_stream(tc, name, copy, len, false, st);
	}
	free(copy);
}

static bool is_data_file(const char *dir, const char *entry)
{
	char path[2048];
	struct stat sb;

	if (entry[0] == '.' || !strcmp(entry, "metadata") || strstr(entry, ".txt") ||
	    strstr(entry, ".expect") || strstr(entry, ".json"))
		return false;
	snprintf(path, sizeof(path), "%s/%s", dir, entry);
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

/* Compares every data stream file of the trace in `dir`, if it parses. */
static void compare_trace(const char *dir, struct stats *st)
{
	char path[2048];
	struct ctf_metadata_text meta;
	struct tmx_arena arena;
	struct tmx_trace_class *tc = NULL;
	struct tmx_error err = { 0 };
	struct dirent **names;
	int n;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (ctf_metadata_read(path, &meta, &err) != TMX_OK)
		return;
	tmx_arena_init(&arena);
	if (ctf_metadata_parse(meta.text, meta.len, path, NULL, &arena, &tc, &err) != TMX_OK)
		goto out;
	st->traces++;
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (is_data_file(dir, names[i]->d_name)) {
			size_t len = 0;
			char *data;
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			data = read_whole_file(path, &len);
			if (data)
				compare_file(tc, path, (const uint8_t *)data, len, st);
			free(data);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
out:
	tmx_arena_free(&arena);
	ctf_metadata_text_fini(&meta);
}

/* Every directory under `root` that holds a `metadata` file. */
static void compare_tree(const char *root, int depth, struct stats *st)
{
	char path[2048];
	struct dirent **names;
	struct stat sb;
	int n;

	snprintf(path, sizeof(path), "%s/metadata", root);
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))
		compare_trace(root, st);
	if (depth > 12)
		return;
	n = scandir(root, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", root, names[i]->d_name);
			if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
				compare_tree(path, depth + 1, st);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static void test_corpus(void **state)
{
	struct stats st = { 0 };

	(void)state;
	rng_state = UINT64_C(0x9E3779B97F4A7C15);
	compare_tree(TMX_CORPUS "/babeltrace-tests", 0, &st);
	compare_tree(TMX_CORPUS "/yactfr-tests/iter-data", 0, &st);
	compare_tree(TMX_TEST_DATA "/sample-trace", 0, &st);
	print_message("compared %zu traces, %zu files, %zu packets, %zu events, %zu errors\n",
		      st.traces, st.files, st.packets, st.events, st.errors);
	/* The corpus is there (CMake checks): make sure it was really read. */
	assert_true(st.traces > 100);
	assert_true(st.events > 10000);
	assert_true(st.errors > 100);
}

/*
 * The CTF 2 corpus: babeltrace's CTF 2 traces, CTF 1.8 traces converted,
 * the synthetic and hand-made ones with every field class (booleans, bit
 * maps, variable-length integers, UTF-16/32 strings, BLOBs, optionals,
 * variants with signed selectors).
 */
static void test_ctf2_corpus(void **state)
{
	struct stats st = { 0 };

	(void)state;
	rng_state = UINT64_C(0xD1B54A32D192ED03);
	compare_tree(TMX_CORPUS "/ctf2", 0, &st);
	print_message("compared %zu traces, %zu files, %zu packets, %zu events, %zu errors\n",
		      st.traces, st.files, st.packets, st.events, st.errors);
	assert_true(st.traces > 70);
	assert_true(st.events > 10000);
	assert_true(st.errors > 100);
}

/* ---- layouts written for the runs ---- */

struct case_trace {
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
};

static void parse_case(struct case_trace *ct, const char *tsdl)
{
	struct tmx_error err = { 0 };

	tmx_arena_init(&ct->arena);
	if (ctf_metadata_parse(tsdl, strlen(tsdl), "case", NULL, &ct->arena, &ct->tc, &err)) {
		print_message("metadata: %s (line %u)\n", err.msg, err.line);
		fail();
	}
}

#define CASE_HEAD \
	"/* CTF 1.8 */\n" \
	"trace { major = 1; minor = 8; byte_order = le; };\n" \
	"typealias integer { size = 8; align = 8; signed = false; } := u8;\n" \
	"typealias integer { size = 32; align = 8; signed = false; } := u32;\n"

/*
 * Runs whose items are bit fields, sub-byte starts, byte order changes
 * between items, signed values, floats, empty structures and static text,
 * with no packet header or context: the whole buffer is one packet.  Each
 * random buffer is decoded whole, cut at many lengths and with a bit
 * changed in each of its first bytes, by both decoders.
 */
static const char *const layouts[] = {
	CASE_HEAD
	"stream { event.header := struct { u8 id; }; };\n"
	"event { name = e0; id = 0; fields := struct {\n"
	"  integer { size = 3; align = 1; signed = true; } a;\n"
	"  integer { size = 13; align = 1; } b;\n"
	"  integer { size = 4; align = 1; byte_order = be; } c;\n"
	"  integer { size = 4; align = 1; byte_order = be; signed = true; } d;\n"
	"  u32 e; struct { } empty; integer { size = 8; align = 8; encoding = UTF8; } t[3];\n"
	"  floating_point { exp_dig = 8; mant_dig = 24; align = 1; } f;\n"
	"  integer { size = 64; align = 8; signed = true; } g;\n"
	"}; };\n",

	CASE_HEAD
	"stream { event.header := struct {\n"
	"  enum : integer { size = 5; align = 1; } { c = 0 ... 30, x = 31 } id;\n"
	"  variant <id> { struct { integer { size = 27; align = 1; } ts; } c;\n"
	"    struct { u32 id; integer { size = 64; align = 8; } ts; } x; } v;\n"
	"} align(8); };\n"
	"event { name = e0; id = 0; fields := struct { u8 n; u32 s[n]; string str; u8 k; }; };\n"
	"event { name = e31; id = 31; fields := struct { struct { u8 a; } s[2];\n"
	"  integer { size = 16; align = 16; byte_order = be; signed = true; } w; }; };\n",

	CASE_HEAD
	"stream { event.header := struct { u8 id; }; };\n"
	"event { name = e0; id = 0; fields := struct {\n"
	"  integer { size = 1; align = 1; } bit;\n"
	"  integer { size = 64; align = 1; byte_order = be; } wide;\n"
	"  integer { size = 7; align = 1; } rest;\n"
	"  integer { size = 32; align = 32; } aligned;\n"
	"  floating_point { exp_dig = 11; mant_dig = 53; align = 8; byte_order = be; } dbl;\n"
	"}; };\n",

	/*
	 * Arrays whose element is one run: contiguous elements (one loop),
	 * elements padded to their alignment (element after element), and
	 * elements that change the byte order inside a byte where one element
	 * ends and the next begins (an error in element 1, not 0).
	 */
	CASE_HEAD
	"stream { event.header := struct { u8 id; }; };\n"
	"event { name = e0; id = 0; fields := struct {\n"
	"  struct { integer { size = 3; align = 1; } a;\n"
	"    integer { size = 5; align = 1; signed = true; } b; } bits[5];\n"
	"  struct { u8 a; integer { size = 16; align = 16; byte_order = be; } b; } nat[2];\n"
	"  u8 n; struct { integer { size = 16; align = 16; } a; u8 b; } padded[n];\n"
	"  integer { size = 2; align = 1; } odd;\n"
	"  struct { integer { size = 3; align = 1; } a; } tiny[n];\n"
	"}; };\n",

	CASE_HEAD
	"stream { event.header := struct { u8 id; }; };\n"
	"event { name = e0; id = 0; fields := struct {\n"
	"  u8 n; struct { integer { size = 8; align = 1; byte_order = be; } a;\n"
	"    integer { size = 4; align = 1; } b; } arr[n];\n"
	"}; };\n",

	/* GNU/C bitfields (they move to their next unit at run time: not in runs). */
	CASE_HEAD
	"typealias integer { size = 16; align = 8; signed = true; } := short;\n"
	"typealias integer { size = 16; align = 8; } := uint16;\n"
	"stream { event.header := struct { u8 id; }; };\n"
	"event { name = e0; id = 0; fields := struct {\n"
	"  short a:12; short b:5; u32 x:3; u32 y:30; u8 c; uint16 s:9; uint16 t:9;\n"
	"}; };\n",

	/*
	 * Empty arrays (and a structure of one) aligned past the end of the
	 * content when the data is cut: decoded, the position stopped at the
	 * end (decode.c: ctf_align_past); a later read fails there.
	 */
	CASE_HEAD
	"stream { event.header := struct { u8 id; }; };\n"
	"event { name = e0; id = 0; fields := struct {\n"
	"  integer { size = 2; align = 8; } n; integer { size = 64; align = 64; } s[n];\n"
	"  struct { integer { size = 32; align = 32; } x[n]; } t;\n"
	"  integer { size = 8; align = 8; encoding = UTF8; } txt[n]; u8 after[n];\n"
	"}; };\n",

	/* The byte order changes inside a byte in the middle of a run: an error. */
	CASE_HEAD
	"stream { event.header := struct { u8 id; }; };\n"
	"event { name = e0; id = 0; fields := struct {\n"
	"  u8 a; integer { size = 4; align = 1; } b;\n"
	"  integer { size = 4; align = 1; byte_order = be; } c; u8 d;\n"
	"}; };\n",
};

/*
 * A random buffer (its first bytes set by the caller) decoded whole, cut
 * at many lengths and with a bit changed in each of its first bytes.
 */
static void compare_variations(const struct tmx_trace_class *tc, const uint8_t *data, size_t size,
			       struct stats *st)
{
	uint8_t copy[256];

	assert_true(size <= sizeof(copy));
	compare_stream(tc, "case", data, size, false, st);
	for (size_t len = 0; len < size; len += 3)
		compare_stream(tc, "case", data, len, false, st);
	for (size_t i = 0; i < 24; i++) {
		memcpy(copy, data, size);
		copy[i] ^= (uint8_t)(1u << (rng() % 8));
		compare_stream(tc, "case", copy, size, false, st);
	}
}

static void test_layouts(void **state)
{
	struct stats st = { 0 };
	uint8_t data[96];

	(void)state;
	rng_state = UINT64_C(0x2545F4914F6CDD1D);
	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		struct case_trace ct;
		parse_case(&ct, layouts[l]);
		for (int round = 0; round < 64; round++) {
			fill_random(data, sizeof(data));
			/* Event IDs the layouts know (layout 1: a 5-bit ID, low bits first). */
			data[0] = l != 1 ? 0 : (uint8_t)((data[0] & 0xE0) | (round % 3 ? 0 : 31));
			compare_variations(ct.tc, data, sizeof(data), &st);
		}
		tmx_arena_free(&ct.arena);
	}
	assert_layouts_compared(&st);
}

/*
 * Event header programs (src/ctf/plan_header.c): headers of runs and one
 * variant, each with the shape of program expected: NULL (the plan decodes
 * every header), or one letter per case, F (the program) or S (the plan:
 * a byte order change inside a byte).  Random headers (tags that select
 * each option, options past the tag table, tags that select nothing) are
 * then decoded by both decoders, the program's notes and state against
 * the walk's.
 */
struct header_layout {
	const char *tsdl;
	const char *cases;    /* NULL: no program */
	uint16_t tags[3];     /* the first 16 bits of the data, by round */
};

#define HEAD_CLOCK CASE_HEAD \
	"clock { name = c; freq = 1000000000; };\n" \
	"typealias integer { size = 27; align = 1; map = clock.c.value; } := ts27;\n" \
	"typealias integer { size = 64; align = 8; map = clock.c.value; } := ts64;\n"

static const struct header_layout header_layouts[] = {
	/* LTTng's compact header. */
	{ HEAD_CLOCK
	  "stream { event.header := struct {\n"
	  "  enum : integer { size = 5; align = 1; } { c = 0 ... 30, x = 31 } id;\n"
	  "  variant <id> { struct { ts27 timestamp; } c;\n"
	  "    struct { u32 id; ts64 timestamp; } x; } v;\n"
	  "} align(8); };\n"
	  "event { name = e0; id = 0; fields := struct { u8 a; }; };\n"
	  "event { name = e1; id = 1; fields := struct { u32 b; }; };\n",
	  "FF", { 0, 31, 1 } },
	/* LTTng's large header: tags past the table are selected by their ranges. */
	{ HEAD_CLOCK
	  "typealias integer { size = 16; align = 8; } := u16;\n"
	  "stream { event.header := struct {\n"
	  "  enum : u16 { c = 0 ... 65534, x = 65535 } id;\n"
	  "  variant <id> { struct { u32 timestamp; } c;\n"
	  "    struct { u32 id; ts64 timestamp; } x; } v;\n"
	  "} align(8); };\n"
	  "event { name = e0; id = 0; fields := struct { u8 a; }; };\n"
	  "event { name = e100; id = 100; fields := struct { u8 a; }; };\n",
	  "FF", { 100, 65535, 0 } },
	/* Option a changes the byte order inside the tag's byte: the plan's error. */
	{ CASE_HEAD
	  "stream { event.header := struct {\n"
	  "  enum : integer { size = 4; align = 1; } { a = 0, b = 1 } id;\n"
	  "  variant <id> { struct { integer { size = 4; align = 1; byte_order = be; } x; } a;\n"
	  "    struct { integer { size = 4; align = 1; } x; u32 y; } b; } v;\n"
	  "} align(8); };\n"
	  "event { name = e0; id = 0; fields := struct { u8 a; }; };\n"
	  "event { name = e1; id = 1; fields := struct { u8 a; }; };\n",
	  "SF", { 0, 1, 0x10 } },
	/* Tag 1 selects no option; option a is empty. */
	{ CASE_HEAD
	  "stream { event.header := struct {\n"
	  "  enum : u8 { a = 0, b = 2 } id; variant <id> { struct { } a; struct { u8 x; } b; } v;\n"
	  "}; };\n"
	  "event { name = e0; id = 0; fields := struct { u8 a; }; };\n"
	  "event { name = e2; id = 2; fields := struct { u8 a; }; };\n",
	  "FF", { 0, 1, 2 } },
	/* No variant: one case, here the plan's (a byte order change inside a byte). */
	{ CASE_HEAD
	  "stream { event.header := struct { u8 id; integer { size = 3; align = 1; } a;\n"
	  "  integer { size = 5; align = 1; byte_order = be; } b; }; };\n"
	  "event { name = e0; id = 0; fields := struct { u8 a; }; };\n",
	  "S", { 0, 0, 0 } },
	/* A header that ends inside a byte: its byte order state meets the body's first field. */
	{ HEAD_CLOCK
	  "stream { event.header := struct { integer { size = 5; align = 1; } id; ts27 t;\n"
	  "  integer { size = 4; align = 1; } x; } align(8); };\n"
	  "event { name = e0; id = 0; fields := struct {\n"
	  "  integer { size = 4; align = 1; byte_order = be; } a; u8 b; }; };\n"
	  "event { name = e1; id = 1; fields := struct { integer { size = 4; align = 1; } a; }; };\n",
	  "F", { 0, 1, 1 } },
	/* The compact header in big endian: the tag in the high bits of the first byte. */
	{ HEAD_CLOCK
	  "typealias integer { size = 5; align = 1; byte_order = be; } := be5;\n"
	  "typealias integer { size = 27; align = 1; byte_order = be; map = clock.c.value; }\n"
	  "  := bets27;\n"
	  "typealias integer { size = 64; align = 8; byte_order = be; map = clock.c.value; }\n"
	  "  := bets64;\n"
	  "stream { event.header := struct {\n"
	  "  enum : be5 { c = 0 ... 30, x = 31 } id;\n"
	  "  variant <id> { struct { bets27 timestamp; } c;\n"
	  "    struct { integer { size = 32; align = 8; byte_order = be; } id; bets64 timestamp; } x;\n"
	  "  } v; } align(8); };\n"
	  "event { name = e0; id = 0; fields := struct { u8 a; }; };\n"
	  "event { name = e1; id = 1; fields := struct { u32 b; }; };\n",
	  "FF", { 0, 31, 1 } },
	/* Other shapes: no program. */
	{ CASE_HEAD
	  "stream { event.header := struct { u8 id; string s; }; };\n"
	  "event { name = e0; id = 0; fields := struct { u8 a; }; };\n",
	  NULL, { 0, 0, 0 } },
	{ CASE_HEAD
	  "stream { event.header := struct { integer { size = 4; align = 1; } id;\n"
	  "  integer { size = 4; align = 1; } x; }; };\n"
	  "event { name = e0; id = 0; fields := struct { u8 a; }; };\n",
	  NULL, { 0, 0, 0 } },
};

/* The program compiled for the layout's header, as its letters (or NULL). */
static void check_header_shape(const struct tmx_trace_class *tc, const char *want)
{
	struct ctf_plans *ps;
	struct ctf_stream_plans *sp;
	struct tmx_error err = { 0 };
	char got[8] = "";

	assert_int_equal(ctf_plans_new(tc, &ps, &err), TMX_OK);
	assert_int_equal(ctf_plans_stream(ps, tc->stream_classes[0], &sp, &err), TMX_OK);
	if (sp->header_prog) {
		assert_true(sp->header_prog->n_cases < sizeof(got));
		for (size_t c = 0; c < sp->header_prog->n_cases; c++)
			got[c] = sp->header_prog->cases[c].fast ? 'F' : 'S';
	}
	if (want)
		assert_string_equal(got, want);
	else
		assert_null(sp->header_prog);
	ctf_plans_free(ps);
}

static void test_header_progs(void **state)
{
	struct stats st = { 0 };
	uint8_t data[96];

	(void)state;
	rng_state = UINT64_C(0xBB67AE8584CAA73B);
	for (size_t l = 0; l < sizeof(header_layouts) / sizeof(header_layouts[0]); l++) {
		const struct header_layout *hl = &header_layouts[l];
		struct case_trace ct;

		parse_case(&ct, hl->tsdl);
		check_header_shape(ct.tc, hl->cases);
		for (int round = 0; round < 48; round++) {
			uint16_t tag = hl->tags[round % 3];
			fill_random(data, sizeof(data));
			/* The tag's bits (the low ones of the first bytes, little endian). */
			if (l == 0 || l == 5)
				data[0] = (uint8_t)((data[0] & 0xE0) | tag);
			else if (l == 6)
				data[0] = (uint8_t)((data[0] & 0x07) | tag << 3);
			else if (l == 2)
				data[0] = (uint8_t)((data[0] & 0xF0) | tag);
			else
				memcpy(data, &(uint16_t){ tag }, l == 1 ? 2 : 1);
			compare_variations(ct.tc, data, sizeof(data), &st);
		}
		tmx_arena_free(&ct.arena);
	}
	assert_layouts_compared(&st);
}

/*
 * Steps over bodies whose values no one reads (src/ctf/plan_skip.c): event
 * 0's body compiled into steps of the shape expected, one letter per step
 * (F fixed: runs and fixed-length text or byte arrays whose offsets are
 * constants; P the same without notes nor byte order state to set but
 * UINT64_MAX; S a string; A an array stepped over by its length), or NULL
 * (the body is decoded).  Random bodies are then decoded by both
 * decoders, values read and unread (compare_stream): the steps' positions,
 * notes (sequence lengths) and byte order state against the walk's.
 */
struct skip_layout {
	const char *tsdl;
	const char *steps;    /* NULL: no steps */
};

#define SKIP_HEAD CASE_HEAD \
	"typealias integer { size = 8; align = 8; encoding = UTF8; } := ch;\n" \
	"typealias integer { size = 16; align = 16; byte_order = be; } := be16;\n" \
	"stream { event.header := struct { u8 id; }; };\n"

static const struct skip_layout skip_layouts[] = {
	/*
	 * One step: a run (n, the text t), the byte array b (it sets the byte
	 * order state), a 16-bit aligned run (the body is 16-bit aligned), z.
	 */
	{ SKIP_HEAD "event { name = e0; id = 0; fields := struct {\n"
		    "  u8 n; ch t[3]; u8 b[2]; be16 w; u32 x; u8 z[1]; }; };\n",
	  "F" },
	/* Strings and sequences (of bytes and of text) by their noted lengths. */
	{ SKIP_HEAD "event { name = e0; id = 0; fields := struct {\n"
		    "  u8 n; string s; u8 b[n]; u32 after; ch txt[n];\n"
		    "  integer { size = 16; align = 8; byte_order = be; } m; u8 c[m]; }; };\n",
	  "FSAPAFA" },
	/* A byte array after a 16-bit aligned start; a sequence's length in a step. */
	{ SKIP_HEAD "event { name = e0; id = 0; fields := struct {\n"
		    "  integer { size = 16; align = 16; } n; u8 pad; u8 b[3]; u8 s[n]; ch e; }; };\n",
	  "FAP" },
	/* A step that starts with a byte array, after a string; a wider alignment starts the next. */
	{ SKIP_HEAD "event { name = e0; id = 0; fields := struct {\n"
		    "  ch t[4]; u32 x; string s; u8 b[2]; be16 y; }; };\n",
	  "PSFP" },
	/* Arrays of structures and of wider integers: decoded. */
	{ SKIP_HEAD "event { name = e0; id = 0; fields := struct {\n"
		    "  u8 n; struct { u8 a; u32 b; } s[n]; }; };\n",
	  NULL },
	{ SKIP_HEAD "event { name = e0; id = 0; fields := struct {\n"
		    "  u8 a; integer { size = 32; align = 32; } w[2]; u8 z; }; };\n",
	  NULL },
};

static void check_skip_shape(const struct tmx_trace_class *tc, const char *want)
{
	struct ctf_plans *ps;
	struct ctf_stream_plans *sp;
	struct ctf_event_plans *ep;
	struct ctf_skip *sk;
	struct tmx_error err = { 0 };
	char got[16] = "";

	assert_int_equal(ctf_plans_new(tc, &ps, &err), TMX_OK);
	assert_int_equal(ctf_plans_stream(ps, tc->stream_classes[0], &sp, &err), TMX_OK);
	assert_int_equal(ctf_plans_event(sp, 0, &ep, &err), TMX_OK);
	assert_non_null(ep);
	assert_non_null(ep->body);
	assert_int_equal(ctf_skip_compile(ep->body, &sk, &err), TMX_OK);
	if (sk) {
		assert_true(sk->n_steps < sizeof(got));
		for (size_t i = 0; i < sk->n_steps; i++)
			got[i] = "PFSA"[sk->steps[i].kind];
	}
	if (want)
		assert_string_equal(got, want);
	else
		assert_null(sk);
	ctf_skip_free(sk);
	ctf_plans_free(ps);
}

static void test_skip_steps(void **state)
{
	struct stats st = { 0 };
	uint8_t data[96];

	(void)state;
	rng_state = UINT64_C(0x3C6EF372FE94F82B);
	for (size_t l = 0; l < sizeof(skip_layouts) / sizeof(skip_layouts[0]); l++) {
		struct case_trace ct;

		parse_case(&ct, skip_layouts[l].tsdl);
		check_skip_shape(ct.tc, skip_layouts[l].steps);
		for (int round = 0; round < 64; round++) {
			fill_random(data, sizeof(data));
			data[0] = 0;   /* event 0 */
			/* Short strings and sequences, so that events follow. */
			for (size_t i = 1; i < sizeof(data); i++)
				if (round % 2 && data[i] > 8 && rng() % 2)
					data[i] %= 8;
			compare_variations(ct.tc, data, sizeof(data), &st);
		}
		tmx_arena_free(&ct.arena);
	}
	assert_layouts_compared(&st);
}

/*
 * CTF 2 payloads built by hand (tests/unit/fcbuild.h): bit-level booleans,
 * bit arrays and integers of both bit orders, variable-length integers,
 * strings and BLOBs of every kind, optionals and variants nested in arrays
 * and in each other.  Returns the number of event classes (payloads).
 */
static size_t ctf2_layout(int l, struct tmx_field_class **p, int32_t *n_slots)
{
	static const int64_t var_bounds[] = { -128, -1, 0, 63, 64, 100 };
	static const int64_t opt_bounds[] = { -64, -1, 5, 5 };
	struct tmx_field_class *sel, *sel2, *opts[3];

	switch (l) {
	case 0:
		*n_slots = 0;
		p[0] = fcb_struct(8, fcb_fixed(TMX_FC_BOOL, 1, TMX_BO_LE, false, false, 1),
				  fcb_fixed(TMX_FC_BIT_ARRAY, 7, TMX_BO_LE, true, false, 1),
				  fcb_fixed(TMX_FC_INT, 13, TMX_BO_BE, true, true, 1),
				  fcb_fixed(TMX_FC_BOOL, 3, TMX_BO_BE, false, false, 1),
				  fcb_fixed(TMX_FC_FLOAT, 32, TMX_BO_LE, true, false, 8),
				  fcb_fixed(TMX_FC_BIT_ARRAY, 64, TMX_BO_BE, true, false, 1),
				  fcb_fixed(TMX_FC_INT, 5, TMX_BO_LE, false, false, 1),
				  fcb_fixed(TMX_FC_FLOAT, 64, TMX_BO_BE, false, false, 1));
		p[1] = fcb_struct(4, fcb_fixed(TMX_FC_BOOL, 8, TMX_BO_LE, true, false, 8),
				  fcb_fixed(TMX_FC_INT, 16, TMX_BO_LE, true, false, 8),
				  fcb_fixed(TMX_FC_INT, 32, TMX_BO_BE, true, true, 8),
				  fcb_fixed(TMX_FC_BIT_ARRAY, 24, TMX_BO_LE, false, false, 8));
		return 2;
	case 1:
		*n_slots = 3;
		p[0] = fcb_struct(9, fcb_slot(fcb_fixed(TMX_FC_INT, 3, TMX_BO_LE, false, false, 8), 0),
				  fcb_blob(0, 0), fcb_varint(true),
				  fcb_string(TMX_STR_STATIC, TMX_STR_UTF8, 5),
				  fcb_slot(fcb_fixed(TMX_FC_INT, 4, TMX_BO_LE, false, false, 8), 1),
				  fcb_string(TMX_STR_DYNAMIC, TMX_STR_UTF16LE, 1),
				  fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF32BE, 0),
				  fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF16BE, 0),
				  fcb_string(TMX_STR_STATIC, TMX_STR_UTF16LE, 6));
		p[1] = fcb_struct(5, fcb_slot(fcb_varint(false), 2),
				  fcb_string(TMX_STR_DYNAMIC, TMX_STR_UTF8, 2), fcb_blob(3, -1),
				  fcb_string(TMX_STR_NUL_TERMINATED, TMX_STR_UTF8, 0), fcb_varint(false));
		return 2;
	case 2:
		*n_slots = 5;
		sel = fcb_slot(fcb_fixed(TMX_FC_BOOL, 1, TMX_BO_LE, false, false, 1), 0);
		sel2 = fcb_slot(fcb_i8(), 1);
		opts[0] = fcb_u8();
		opts[1] = fcb_struct(2, fcb_fixed(TMX_FC_INT, 16, TMX_BO_BE, false, false, 8),
				     fcb_string(TMX_STR_STATIC, TMX_STR_UTF8, 2));
		opts[2] = fcb_optional(sel, 0, fcb_varint(false), 0, NULL);
		p[0] = fcb_struct(6, sel, fcb_optional(sel, 0, fcb_fixed(TMX_FC_INT, 16, TMX_BO_BE,
									 false, false, 8), 0, NULL),
				  sel2, fcb_variant(sel2, 1, 3, opts, var_bounds),
				  fcb_slot(fcb_varint(true), 2),
				  fcb_optional(fcb_varint(true), 2,
					       fcb_struct(2, fcb_u8(),
							  fcb_string(TMX_STR_STATIC, TMX_STR_UTF8, 3)),
					       2, opt_bounds));
		/* An array of optionals, each with its own boolean selector. */
		sel = fcb_slot(fcb_fixed(TMX_FC_BOOL, 1, TMX_BO_BE, true, false, 1), 4);
		p[1] = fcb_struct(3, fcb_slot(fcb_fixed(TMX_FC_INT, 2, TMX_BO_LE, false, false, 8), 3),
				  fcb_array(fcb_struct(2, sel, fcb_optional(sel, 4, fcb_u8(), 0, NULL)),
					    0, 3),
				  fcb_u8());
		return 2;
	default:
		/* Static BLOBs and strings in runs, an array of BLOBs (a run per element). */
		*n_slots = 0;
		p[0] = fcb_struct(7, fcb_u8(), fcb_blob(3, -1),
				  fcb_fixed(TMX_FC_INT, 16, TMX_BO_LE, false, false, 16),
				  fcb_string(TMX_STR_STATIC, TMX_STR_UTF8, 4), fcb_blob(0, -1),
				  fcb_fixed(TMX_FC_INT, 32, TMX_BO_LE, false, false, 8),
				  fcb_array(fcb_blob(2, -1), 3, -1));
		return 1;
	}
}

static void test_ctf2_layouts(void **state)
{
	struct stats st = { 0 };
	uint8_t data[96];

	(void)state;
	rng_state = UINT64_C(0x6A09E667F3BCC909);
	for (int l = 0; l < 4; l++) {
		struct tmx_field_class *payloads[8];
		struct fcb_trace t;
		int32_t n_slots;
		size_t n = ctf2_layout(l, payloads, &n_slots);

		fcb_trace_init(&t, n_slots, n, payloads);
		for (int round = 0; round < 96; round++) {
			fill_random(data, sizeof(data));
			if (n > 1)
				data[0] = (uint8_t)(round % n);
			/* Some zero bytes: NUL code units, small lengths, false selectors. */
			for (int z = 0; z < 12; z++)
				data[1 + rng() % (sizeof(data) - 1)] = 0;
			compare_variations(&t.tc, data, sizeof(data), &st);
		}
		fcb_free_all();
	}
	assert_layouts_compared(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_ctf2_corpus),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_header_progs),
		cmocka_unit_test(test_skip_steps),
		cmocka_unit_test(test_ctf2_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
