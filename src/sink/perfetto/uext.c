/*
 * A user-space class's fields as one TrackEvent extension message, which
 * costs a one-byte tag per value where a debug annotation costs four more
 * (its own tag and length, its name's tag and iid), and which carries
 * signed integers zig-zag encoded (sint64: -100 in two bytes, where
 * DebugAnnotation.int_value takes ten).
 *
 * Each class with leaves gets an extension of TrackEvent (TrackEvent's
 * range "for future use", 3000 to 9899), named `debug`, whose type holds
 * the class's leaves (field = leaf index + 1; int64 leaves as sint64,
 * uint64, double, string;
 * arrays and sequences of integers as packed repeated uint64 / int64, which
 * the importer shows as `debug.NAME[0]`, `debug.NAME[1]`... as it does a
 * debug annotation's array_values, where -o json and a debug annotation
 * would carry the array's JSON text; packed repeated sint64 it does not
 * read, hence int64 there).
 * Perfetto's trace processor (checked with the search tool in google/
 * perfetto src/trace_processor: proto_trace_reader.cc
 * ParseExtensionDescriptor, util/descriptors.cc AddExtensionField,
 * util/proto_to_args_parser.cc, importers/proto/
 * track_event_event_importer.h ParseTrackEventArgs) adds the files of an
 * ExtensionDescriptor packet to its descriptor pool when it tokenizes the
 * packet (so the packet comes before the first event that uses it, in file
 * order), reflects every extension field of a TrackEvent into the event's
 * args, keyed by the extension's simple name then the field's name:
 * `debug.NAME` - the key a debug annotation named NAME gets ("debug" +
 * its name).  So a value lands in the same arg with the same type either
 * way, and each value can take the cheaper form: interned text values stay
 * debug annotations (string_value_iid: three bytes), every other value of
 * a leaf whose name is a proto identifier goes in the extension.  Leaves
 * of nested structures (dotted names) stay debug annotations.
 *
 * A class with signed integer leaves has a second extension, the same
 * but with int64 for them, which an event uses when none of its signed
 * values is negative (int64 is then never longer: prio 120 in one byte,
 * not two); the choice is the event's alone, whatever the jobs or the
 * order.  The importer gives both the same args (AddInteger).
 *
 * Numbers and names come from the content, so that concatenated outputs
 * (which Perfetto reads as one trace, where the first definition of an
 * extension number, message or file name is kept) keep each its own: the
 * number is 3000 + (FNV-1a hash of the serialized fields) mod 6900, the
 * next free one when another content of the output has it (a class of the
 * same fields shares it, described once); the file "tracemux/E<number>_
 * <hash, 16 hex digits>.proto", package "tracemux":
 *   message E<number>_<hash> {
 *     extend .perfetto.protos.TrackEvent { optional E<number>_<hash> debug = <number>; }
 *     optional <type> <leaf name> = <leaf index + 1>; ... }
 * Two outputs whose distinct contents hash to one number still clash when
 * concatenated (6900 numbers: rare, not excluded).
 */
#include <string.h>

#include "sink/perfetto/perfetto_impl.h"
#include "sink/perfetto/pf_proto.h"

/* Whether `s` can be a proto field name ([A-Za-z_][A-Za-z0-9_]*). */
static bool is_ident(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static uint32_t proto_type(uint8_t leaf_type, bool pos)
{
	switch (leaf_type) {
	case PF_LEAF_INT:
		return pos ? PF_TYPE_INT64 : PF_TYPE_SINT64;
	case PF_LEAF_UINT:
		return PF_TYPE_UINT64;
	case PF_LEAF_DOUBLE:
		return PF_TYPE_DOUBLE;
	default:
		return PF_TYPE_STRING;
	}
}

/* An unsigned number in decimal at p; returns the end. */
static char *put_dec(char *p, uint32_t v)
{
	char tmp[10];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* The fields of a class's extension message (DescriptorProto.field), pos: its int64 one. */
static void put_fields(struct tmx_buf *b, const struct pf_class *c, bool pos)
{
	size_t fld, opt;

	for (size_t i = 0; i < c->leaves.n && i < 32; i++) {
		if (!(c->ext_leaves & 1u << i))
			continue;
		const struct pf_leaf *l = &c->leaves.leaf[i];

		fld = pb_open(b, PF_DESC_FIELD);
		pb_string(b, PF_FIELD_NAME, l->name);
		pb_uint(b, PF_FIELD_NUMBER, i + 1);
		if (l->int_array) {
			/* repeated (u)int64 [packed = true] */
			pb_uint(b, PF_FIELD_LABEL, PF_LABEL_REPEATED);
			pb_uint(b, PF_FIELD_TYPE, l->int_array == PF_INT_ARRAY_SIGNED ? PF_TYPE_INT64 :
						  PF_TYPE_UINT64);
			opt = pb_open(b, PF_FIELD_OPTIONS);
			pb_uint(b, PF_FOPT_PACKED, 1);
			pb_close(b, opt);
		} else {
			pb_uint(b, PF_FIELD_LABEL, PF_LABEL_OPTIONAL);
			pb_uint(b, PF_FIELD_TYPE, proto_type(l->type, pos));
		}
		pb_close(b, fld);
	}
}

/* FNV-1a, 64 bits: the same bytes give the same hash on every machine. */
static uint64_t fnv1a(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/*
 * The number of an extension whose fields hash to h: 3000 + h mod 6900, or
 * the next one that no other content of this output took (an extension
 * already numbered for the same content, another class's, is shared);
 * 0 when none is left or out of memory.  `owner`: class number * 2 + pos.
 */
static uint32_t ext_number(struct tmx_perfetto *s, const struct pf_class *c, uint64_t h,
			   uint32_t owner)
{
	const uint32_t span = PF_TE_EXT_LAST - PF_TE_EXT_FIRST + 1;
	uint32_t n = (uint32_t)(h % span);

	for (uint32_t tries = 0; tries < span; tries++, n = (n + 1) % span) {
		bool added;
		uint32_t *slot = imap_get(&s->ext_num, PF_TE_EXT_FIRST + n, owner, &added);
		const struct pf_class *o;

		if (!slot)
			return 0;
		o = *slot / 2 == c->num ? c : s->classes[*slot / 2];   /* c: not listed yet */
		if (added || o->ext_hash[*slot % 2] == h)
			return PF_TE_EXT_FIRST + n;
	}
	return 0;
}

bool pf_uext_init(struct tmx_perfetto *s, struct pf_class *c)
{
	bool sint = false;

	c->ext_field = c->ext_field_pos = 0;
	c->ext_leaves = 0;
	for (size_t i = 0; i < c->leaves.n && i < 32; i++)
		if (is_ident(c->leaves.leaf[i].name)) {
			c->ext_leaves |= 1u << i;
			/* its elements packed, not its -o json text (useq.c) */
			c->leaves.leaf[i].raw = c->leaves.leaf[i].int_array != 0;
			sint |= c->leaves.leaf[i].type == PF_LEAF_INT && !c->leaves.leaf[i].int_array;
		}
	if (!c->ext_leaves)
		return true;
	for (int pos = 0; pos <= (int)sint; pos++) {
		uint32_t *num = pos ? &c->ext_field_pos : &c->ext_field;
		struct tmx_buf b = { 0 };
		bool oom;

		put_fields(&b, c, pos);
		oom = b.oom;
		c->ext_hash[pos] = oom ? 0 : fnv1a(b.p, b.len);
		tmx_buf_free(&b);
		if (oom)
			return false;
		*num = ext_number(s, c, c->ext_hash[pos], 2 * c->num + (uint32_t)pos);
		if (!*num && !pos)
			c->ext_leaves = 0;   /* no number left: debug annotations only */
		if (!*num)
			break;
	}
	return true;
}

/* A hexadecimal digit. */
static char hex(unsigned v)
{
	return (char)(v < 10 ? '0' + v : 'a' + v - 10);
}

/*
 * The extension's name: "E" + its number + "_" + its fields' hash in
 * hexadecimal, the same for the same content in any output and distinct
 * for distinct ones, so that concatenated outputs (which Perfetto reads
 * as one trace, loading a descriptor file name once) keep each its own.
 */
static void ext_name(char *p, uint32_t number, uint64_t h)
{
	*p++ = 'E';
	p = put_dec(p, number);
	*p++ = '_';
	for (int i = 15; i >= 0; i--)
		*p++ = hex((unsigned)(h >> 4 * i) & 15);
	*p = 0;
}

void pf_uext_describe(struct tmx_perfetto *s, struct pf_class *c, bool pos)
{
	struct tmx_buf *b = &s->pkt;
	uint32_t number = pos ? c->ext_field_pos : c->ext_field;
	const uint32_t *owner = imap_find(&s->ext_num, number);
	struct pf_class *o = owner ? s->classes[*owner / 2] : c;
	bool *mine = pos ? &c->ext_pos_described : &c->ext_described;
	bool *first = owner ? (*owner % 2 ? &o->ext_pos_described : &o->ext_described) : mine;
	char name[48], file[64] = "tracemux/", type[64] = ".tracemux.";
	size_t ed, fds, fd, msg, fld;

	*mine = true;
	if (first != mine && *first)
		return;   /* another class of the same fields described it */
	*first = true;
	ext_name(name, number, c->ext_hash[pos]);
	strcat(strcpy(file + 9, name), ".proto");
	strcpy(type + 10, name);
	ed = pb_open(b, PF_PKT_EXTENSION_DESCRIPTOR);
	fds = pb_open(b, PF_ED_EXTENSION_SET);
	fd = pb_open(b, PF_FDS_FILE);
	pb_string(b, PF_FILE_NAME, file);
	pb_string(b, PF_FILE_PACKAGE, "tracemux");
	msg = pb_open(b, PF_FILE_MESSAGE_TYPE);
	pb_string(b, PF_DESC_NAME, name);
	put_fields(b, c, pos);
	fld = pb_open(b, PF_DESC_EXTENSION);
	pb_string(b, PF_FIELD_NAME, "debug");
	pb_string(b, PF_FIELD_EXTENDEE, ".perfetto.protos.TrackEvent");
	pb_uint(b, PF_FIELD_NUMBER, number);
	pb_uint(b, PF_FIELD_LABEL, PF_LABEL_OPTIONAL);
	pb_uint(b, PF_FIELD_TYPE, PF_TYPE_MESSAGE);
	pb_string(b, PF_FIELD_TYPE_NAME, type);
	pb_close(b, fld);
	pb_close(b, msg);
	pb_close(b, fd);
	pb_close(b, fds);
	pb_close(b, ed);
	pf_write_packet(s);
}
