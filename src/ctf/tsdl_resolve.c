/*
 * TSDL resolution: once the whole metadata is parsed, attach events to
 * their stream classes, resolve `native` byte orders, set field meanings,
 * map timestamps to clocks as babeltrace2 does, and bind every sequence
 * length and variant tag to its target field (CTF 1.8 spec 7.3.2), giving
 * targets value slots for the decoder.
 */
#include <stdlib.h>
#include <string.h>

#include "ctf/tsdl.h"
#include "common/errors.h"
#include "model/field_class.h"

#define TRY(x) do { int ret_ = (x); if (ret_) return ret_; } while (0)
#define MAX_FRAMES 4096

enum { SCOPE_PH, SCOPE_PC, SCOPE_EH, SCOPE_ECC, SCOPE_EC, SCOPE_EF, N_SCOPES };

static const char *const scope_prefix[N_SCOPES] = {
	"trace.packet.header.", "stream.packet.context.", "stream.event.header.",
	"stream.event.context.", "event.context.", "event.fields.",
};

/* An enclosing structure (or variant) and the member (or option) being resolved. */
struct frame {
	const struct tmx_field_class *st;
	size_t idx;      /* struct members before this one are visible */
};

struct resolver {
	struct tsdl_parser *p;
	struct tmx_field_class *roots[N_SCOPES];
	int cur_scope;
	struct frame frames[MAX_FRAMES];
	size_t n_frames;
};

static int meta_error(struct tsdl_parser *p, const char *fmt, const char *arg)
{
	return tmx_error_set(p->err, TMX_ERR_METADATA, p->name, fmt, arg);
}

/* ------------------------------------------------------------------ */
/* Path lookup                                                          */
/* ------------------------------------------------------------------ */

static struct tmx_field_class *member_named(const struct tmx_field_class *st, const char *name,
					    size_t len, size_t limit)
{
	if (!st || st->kind != TMX_FC_STRUCT)
		return NULL;
	for (size_t i = 0; i < limit && i < st->n_members; i++)
		if (strlen(st->members[i].name) == len && !strncmp(st->members[i].name, name, len))
			return st->members[i].fc;
	return NULL;
}

#define MAX_TARGETS 64

/*
 * Follows `.b.c` from `fc` and collects the fields it designates.  A
 * variant on the way designates the field in each of its options (yactfr's
 * multi-location lengths): they all share one slot, and the option decoded
 * last sets it.
 */
static void collect(struct resolver *r, struct tmx_field_class *fc, const char *rest,
		    struct tmx_field_class **out, size_t *n, bool *bad)
{
	struct tmx_field_class *m;
	const char *name;
	size_t len;

	if (!fc)
		return;
	if (fc->kind == TMX_FC_VARIANT) {
		/* Inside this very variant, only the option being read counts. */
		for (size_t f = 0; f < r->n_frames; f++)
			if (r->frames[f].st == fc) {
				collect(r, fc->members[r->frames[f].idx].fc, rest, out, n, bad);
				return;
			}
		for (size_t i = 0; i < fc->n_members; i++)
			collect(r, fc->members[i].fc, rest, out, n, bad);
		return;
	}
	if (*rest == '\0') {
		if (*n < MAX_TARGETS)
			out[(*n)++] = fc;
		return;
	}
	name = rest + 1;
	len = strcspn(name, ".");
	m = member_named(fc, name, len, SIZE_MAX);
	if (!m)
		*bad = true;   /* an option without the rest of the path */
	collect(r, m, name + len, out, n, bad);
}

/* Resolves a path (spec 7.3.2) into the fields it designates; returns their count. */
static size_t lookup(struct resolver *r, const char *path, struct tmx_field_class **out)
{
	size_t len, n = 0;
	bool bad = false;

	for (int s = 0; s < N_SCOPES; s++) {
		size_t l = strlen(scope_prefix[s]);
		if (!strncmp(path, scope_prefix[s], l)) {
			path += l;
			len = strcspn(path, ".");
			collect(r, member_named(r->roots[s], path, len, SIZE_MAX), path + len, out, &n, &bad);
			return bad ? 0 : n;
		}
	}
	len = strcspn(path, ".");
	/* Relative: the enclosing structures, innermost first, earlier members only. */
	for (size_t f = r->n_frames; f-- > 0 && !n;)
		collect(r, member_named(r->frames[f].st, path, len, r->frames[f].idx), path + len, out, &n,
			&bad);
	/* Then the scopes before the current one, nearest first. */
	for (int s = r->cur_scope - 1; s >= 0 && !n; s--)
		collect(r, member_named(r->roots[s], path, len, SIZE_MAX), path + len, out, &n, &bad);
	return bad ? 0 : n;
}

static int fc_error(struct tsdl_parser *p, const struct tmx_field_class *fc, const char *fmt,
		    const char *arg)
{
	return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, fc->line, fc->col, fmt, arg);
}

static void give_slot(struct tsdl_parser *p, struct tmx_field_class *target,
		      struct tmx_field_class *ref)
{
	if (target->slot < 0)
		target->slot = tmx_tc_impl(p->tc)->n_slots++;
	ref->ref_slot = target->slot;
}

/*
 * The option named like the label; failing that, one that matches once a
 * leading `_` (TSDL's keyword escape) is removed from either name.
 */
static int32_t find_option(const struct tmx_field_class *fc, const char *label)
{
	for (size_t o = 0; o < fc->n_members; o++)
		if (!strcmp(fc->members[o].name, label))
			return (int32_t)o;
	for (size_t o = 0; o < fc->n_members; o++) {
		const char *option = fc->members[o].name;
		if ((option[0] == '_' && !strcmp(option + 1, label)) ||
		    (label[0] == '_' && !strcmp(option, label + 1)))
			return (int32_t)o;
	}
	return -1;
}

static int bind_variant(struct resolver *r, struct tmx_field_class *fc)
{
	struct tsdl_parser *p = r->p;
	struct tmx_field_class *targets[MAX_TARGETS], *tag;

	if (!fc->ref_path)
		return fc_error(p, fc, "variant without a tag (options: `%s`...)", fc->members[0].name);
	if (lookup(r, fc->ref_path, targets) != 1)
		return fc_error(p, fc, "cannot find the variant tag field `%s`", fc->ref_path);
	tag = targets[0];
	if (tag->kind != TMX_FC_ENUM)
		return fc_error(p, fc, "Variant field class's tag field class is not an enumeration "
				"field class: tag `%s`", fc->ref_path);
	give_slot(p, tag, fc);
	fc->tag = tag;
	fc->option_for_mapping = tmx_arena_calloc(p->arena, tag->n_mappings, sizeof(int32_t));
	if (!fc->option_for_mapping)
		return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
	for (size_t m = 0; m < tag->n_mappings; m++)
		fc->option_for_mapping[m] = find_option(fc, tag->mappings[m].label);
	for (size_t o = 0; o < fc->n_members; o++) {
		bool found = false;
		for (size_t m = 0; m < tag->n_mappings && !found; m++)
			found = fc->option_for_mapping[m] == (int32_t)o;
		if (!found)
			return fc_error(p, fc, "the variant's tag has no mapping named `%s`",
					fc->members[o].name);
	}
	return TMX_OK;
}

/* `[env.NAME]`: a static array whose length is an environment entry. */
static int bind_env_length(struct tsdl_parser *p, struct tmx_field_class *fc)
{
	const struct tmx_env_entry *e = tmx_trace_class_env(p->tc, fc->ref_path + 4);

	if (!e || !e->is_int || e->int_value < 0)
		return fc_error(p, fc, "array length `%s` is not a non-negative integer environment "
				"entry", fc->ref_path);
	fc->kind = TMX_FC_ARRAY;
	fc->length = (uint64_t)e->int_value;
	return TMX_OK;
}

static int bind_sequence(struct resolver *r, struct tmx_field_class *fc)
{
	struct tsdl_parser *p = r->p;
	struct tmx_field_class *targets[MAX_TARGETS];
	size_t n;

	if (!strncmp(fc->ref_path, "env.", 4))
		return bind_env_length(p, fc);
	n = lookup(r, fc->ref_path, targets);
	if (!n)
		return fc_error(p, fc, "cannot find the sequence length field `%s`", fc->ref_path);
	for (size_t i = 0; i < n; i++)
		if ((targets[i]->kind != TMX_FC_INT && targets[i]->kind != TMX_FC_ENUM) ||
		    targets[i]->is_signed)
			return fc_error(p, fc, "Sequence field class's length field class is not an "
					"unsigned integer field class: length `%s`", fc->ref_path);
	/* Several targets (through variants) share one slot. */
	give_slot(p, targets[0], fc);
	for (size_t i = 1; i < n; i++)
		targets[i]->slot = targets[0]->slot;
	return TMX_OK;
}

static int bind_clock(struct tsdl_parser *p, struct tmx_field_class *fc)
{
	const char *name = fc->ref_path + 6;            /* after "clock." */
	size_t len = strlen(name) - 6;                  /* before ".value" */

	for (size_t i = 0; i < p->tc->n_clocks; i++)
		if (strlen(p->tc->clocks[i]->name) == len && !strncmp(p->tc->clocks[i]->name, name, len)) {
			fc->mapped_clock = p->tc->clocks[i];
			return TMX_OK;
		}
	return fc_error(p, fc, "`map` refers to an undeclared clock (%s)", fc->ref_path);
}

static void resolve_byte_order(struct tsdl_parser *p, struct tmx_field_class *fc)
{
	if (fc->byte_order == TSDL_BO_NATIVE)
		fc->byte_order = p->tc->native_byte_order;
}

static bool is_text_elem(const struct tmx_field_class *e)
{
	return (e->kind == TMX_FC_INT || e->kind == TMX_FC_ENUM) && e->size == 8 &&
	       e->align == 8 && e->encoding != TMX_ENC_NONE;
}

static int resolve_fc(struct resolver *r, struct tmx_field_class *fc);

/* Struct members or variant options, each with its enclosing frame pushed. */
static int resolve_members(struct resolver *r, struct tmx_field_class *fc)
{
	if (r->n_frames == MAX_FRAMES)
		return meta_error(r->p, "types nested too deeply%s", "");
	r->frames[r->n_frames].st = fc;
	r->n_frames++;
	for (size_t i = 0; i < fc->n_members; i++) {
		r->frames[r->n_frames - 1].idx = i;
		TRY(resolve_fc(r, fc->members[i].fc));
	}
	r->n_frames--;
	return TMX_OK;
}

/* Walks a scope tree: byte orders, text arrays, references. */
static int resolve_fc(struct resolver *r, struct tmx_field_class *fc)
{
	resolve_byte_order(r->p, fc);
	switch (fc->kind) {
	case TMX_FC_STRUCT:
		return resolve_members(r, fc);
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		return fc->ref_path && !fc->mapped_clock ? bind_clock(r->p, fc) : TMX_OK;
	case TMX_FC_SEQUENCE:
		TRY(bind_sequence(r, fc));
		/* fall through */
	case TMX_FC_ARRAY:
		fc->is_text = is_text_elem(fc->elem);
		TRY(resolve_fc(r, fc->elem));
		fc->align = fc->elem->align;
		return TMX_OK;
	case TMX_FC_VARIANT:
		TRY(bind_variant(r, fc));
		return resolve_members(r, fc);
	default:
		return TMX_OK;
	}
}

static int resolve_scope(struct resolver *r, int scope)
{
	r->cur_scope = scope;
	r->n_frames = 0;
	return r->roots[scope] ? resolve_fc(r, r->roots[scope]) : TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Meanings and clocks                                                  */
/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	enum tmx_meaning meaning;
} header_meanings[] = {
	{ "magic", TMX_MEANING_MAGIC },
	{ "uuid", TMX_MEANING_UUID },
	{ "stream_id", TMX_MEANING_STREAM_ID },
	{ "stream_instance_id", TMX_MEANING_STREAM_INSTANCE_ID },
	{ "compression_scheme", TMX_MEANING_COMPRESSION },
	{ "encryption_scheme", TMX_MEANING_ENCRYPTION },
	{ "checksum_scheme", TMX_MEANING_CHECKSUM },
}, context_meanings[] = {
	{ "packet_size", TMX_MEANING_PACKET_SIZE },
	{ "content_size", TMX_MEANING_CONTENT_SIZE },
	{ "timestamp_begin", TMX_MEANING_TS_BEGIN },
	{ "timestamp_end", TMX_MEANING_TS_END },
	{ "events_discarded", TMX_MEANING_EVENTS_DISCARDED },
	{ "packet_seq_num", TMX_MEANING_PACKET_SEQ_NUM },
	{ "compression_scheme", TMX_MEANING_COMPRESSION },
	{ "encryption_scheme", TMX_MEANING_ENCRYPTION },
	{ "checksum_scheme", TMX_MEANING_CHECKSUM },
};

static bool is_uint(const struct tmx_field_class *fc)
{
	return (fc->kind == TMX_FC_INT || fc->kind == TMX_FC_ENUM) && !fc->is_signed;
}

/* An integer `magic` must be the packet header's first field, 32 bits wide. */
static int set_packet_header_meanings(struct tsdl_parser *p, struct tmx_field_class *ph)
{
	for (size_t i = 0; ph && i < ph->n_members; i++) {
		struct tmx_field_class *fc = ph->members[i].fc;
		for (size_t k = 0; k < sizeof(header_meanings) / sizeof(header_meanings[0]); k++) {
			if (strcmp(ph->members[i].name, header_meanings[k].name))
				continue;
			if (header_meanings[k].meaning == TMX_MEANING_MAGIC && fc->kind == TMX_FC_INT &&
			    (i != 0 || fc->size != 32))
				return fc_error(p, fc, "packet header `%s` must be the first field and "
						"have 32 bits", "magic");
			if (header_meanings[k].meaning == TMX_MEANING_UUID) {
				if (fc->kind == TMX_FC_ARRAY && fc->length == 16 &&
				    fc->elem->kind == TMX_FC_INT && fc->elem->size == 8)
					fc->meaning = TMX_MEANING_UUID;
			} else if (is_uint(fc)) {
				fc->meaning = (uint8_t)header_meanings[k].meaning;
			}
		}
	}
	return TMX_OK;
}

static void set_packet_context_meanings(struct tmx_field_class *pc)
{
	for (size_t i = 0; pc && i < pc->n_members; i++) {
		struct tmx_field_class *fc = pc->members[i].fc;
		for (size_t k = 0; k < sizeof(context_meanings) / sizeof(context_meanings[0]); k++)
			if (!strcmp(pc->members[i].name, context_meanings[k].name) && is_uint(fc))
				fc->meaning = (uint8_t)context_meanings[k].meaning;
	}
}

/* Event header: `id` and `timestamp` at any depth (compact/extended headers). */
static void set_event_header_meanings(struct tmx_field_class *fc)
{
	for (size_t i = 0; i < fc->n_members; i++) {
		struct tmx_field_class *m = fc->members[i].fc;
		if (m->kind == TMX_FC_STRUCT || m->kind == TMX_FC_VARIANT)
			set_event_header_meanings(m);
		else if (is_uint(m) && !strcmp(fc->members[i].name, "id"))
			m->meaning = TMX_MEANING_EVENT_ID;
		else if (is_uint(m) && !strcmp(fc->members[i].name, "timestamp"))
			m->meaning = TMX_MEANING_TIMESTAMP;
	}
}

/*
 * babeltrace2 maps an unmapped timestamp field to the trace's only clock,
 * creates a 1 GHz "default" clock when there is none, and gives up when
 * there are several.
 */
static int map_to_default_clock(struct tsdl_parser *p, struct tmx_field_class *fc)
{
	struct tmx_trace_class *tc = p->tc;

	if (fc->mapped_clock)
		return TMX_OK;
	if (tc->n_clocks == 0) {
		struct tmx_clock_class *cc = tmx_arena_alloc(p->arena, sizeof(*cc));
		struct tmx_clock_class **all = tmx_arena_calloc(p->arena, 1, sizeof(*all));
		if (!cc || !all || !(cc->name = tmx_arena_strdup(p->arena, "default")))
			return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
		cc->frequency = 1000000000;
		all[0] = cc;
		tc->clocks = all;
		tc->n_clocks = 1;
	} else if (tc->n_clocks > 1) {
		return meta_error(p, "a timestamp field is not mapped to a clock and the trace has "
				  "several clocks%s", "");
	}
	fc->mapped_clock = tc->clocks[0];
	return TMX_OK;
}

static int map_timestamps(struct tsdl_parser *p, struct tmx_field_class *fc)
{
	for (size_t i = 0; fc && i < fc->n_members; i++) {
		struct tmx_field_class *m = fc->members[i].fc;
		if (m->kind == TMX_FC_STRUCT || m->kind == TMX_FC_VARIANT)
			TRY(map_timestamps(p, m));
		else if (m->meaning == TMX_MEANING_TIMESTAMP || m->meaning == TMX_MEANING_TS_BEGIN ||
			 m->meaning == TMX_MEANING_TS_END)
			TRY(map_to_default_clock(p, m));
	}
	return TMX_OK;
}

/*
 * The clock of a scope's first timestamp field.  `timestamp_end` counts:
 * babeltrace2 gives a stream class the clock of any clock-mapped field of
 * its packet context, so a stream whose only mapped field is
 * `timestamp_end` (barectf without event timestamps) has a clock, and its
 * events the stream's clock value as it stands (the previous packet's end,
 * 0 in the first packet: `timestamp_end` only moves the clock at the end of
 * its packet).
 */
static const struct tmx_clock_class *find_clock(const struct tmx_field_class *fc)
{
	for (size_t i = 0; fc && i < fc->n_members; i++) {
		const struct tmx_field_class *m = fc->members[i].fc;
		const struct tmx_clock_class *cc = NULL;
		if (m->kind == TMX_FC_STRUCT || m->kind == TMX_FC_VARIANT)
			cc = find_clock(m);
		else if (m->mapped_clock && (m->meaning == TMX_MEANING_TIMESTAMP ||
					     m->meaning == TMX_MEANING_TS_BEGIN ||
					     m->meaning == TMX_MEANING_TS_END))
			cc = m->mapped_clock;
		if (cc)
			return cc;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Events and stream classes                                            */
/* ------------------------------------------------------------------ */

/* An event block's stream class (index) and ID: events are sorted by both to be attached. */
struct event_slot {
	size_t sc;
	uint64_t id;
	size_t i;        /* index in p->events: the file order */
};

static int cmp_event_slot(const void *a, const void *b)
{
	const struct event_slot *x = a, *y = b;

	if (x->sc != y->sc)
		return x->sc < y->sc ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The index of the event's stream class, or SIZE_MAX if it has none. */
static size_t event_stream_class(const struct tmx_trace_class *tc, const struct tsdl_event *ev)
{
	size_t found = SIZE_MAX;

	if (!ev->has_stream_id)
		return tc->n_stream_classes == 1 ? 0 : SIZE_MAX;
	for (size_t s = 0; s < tc->n_stream_classes; s++)
		if (tc->stream_classes[s]->id == ev->stream_id)
			found = s;
	return found;
}

/* Each stream class gets its events as one array sorted by ID (lookups bisect). */
static int fill_event_classes(struct tsdl_parser *p, const struct event_slot *slots, size_t n)
{
	for (size_t g = 0, end; g < n; g = end) {
		struct tmx_stream_class *sc = p->tc->stream_classes[slots[g].sc];
		struct tmx_event_class **all;

		for (end = g + 1; end < n && slots[end].sc == slots[g].sc; end++)
			;
		all = tmx_arena_calloc(p->arena, end - g, sizeof(*all));
		if (!all)
			return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
		for (size_t k = g; k < end; k++) {
			all[k - g] = p->events[slots[k].i].ec;
			all[k - g]->stream_class = sc;
		}
		sc->event_classes = all;
		sc->n_event_classes = end - g;
	}
	return TMX_OK;
}

/*
 * Events go to their stream classes.  The first faulty event in file order
 * is reported: one with no stream class, or one whose ID an earlier event of
 * its stream class has.  Sorting once keeps this O(N log N) for hostile
 * metadata with many events.
 */
static int attach_events(struct tsdl_parser *p)
{
	const struct tmx_trace_class *tc = p->tc;
	struct event_slot *slots = malloc((p->n_events ? p->n_events : 1) * sizeof(*slots));
	size_t n = 0, dup = SIZE_MAX;
	const struct tsdl_event *ev;
	int ret;

	if (!slots)
		return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
	/* Only the events before the first one without a stream class matter. */
	for (; n < p->n_events; n++) {
		slots[n].sc = event_stream_class(tc, &p->events[n]);
		slots[n].id = p->events[n].ec->id;
		slots[n].i = n;
		if (slots[n].sc == SIZE_MAX)
			break;
	}
	qsort(slots, n, sizeof(*slots), cmp_event_slot);
	for (size_t k = 1; k < n; k++)
		if (slots[k].sc == slots[k - 1].sc && slots[k].id == slots[k - 1].id &&
		    slots[k].i < dup)
			dup = slots[k].i;
	if (dup != SIZE_MAX) {
		ev = &p->events[dup];
		ret = tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, ev->line, ev->col,
					"duplicate event class ID in the stream class of event `%s`",
					ev->ec->name);
	} else if (n < p->n_events) {
		ev = &p->events[n];
		ret = tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name, ev->line, ev->col,
					"event `%s` has no stream class (missing or unknown "
					"`stream_id`)", ev->ec->name);
	} else {
		ret = fill_event_classes(p, slots, n);
	}
	free(slots);
	return ret;
}

static int check_trace_block(struct tsdl_parser *p)
{
	struct tmx_trace_class *tc = p->tc;

	if (!p->has_trace)
		return meta_error(p, "the metadata has no `trace` block%s", "");
	if (!p->has_major || !p->has_minor)
		return meta_error(p, "the `trace` block has no `major`/`minor` version%s", "");
	if (tc->major != 1 || tc->minor != 8) {
		bool major_wrong = tc->major != 1;
		return tmx_error_at_line(p->err, TMX_ERR_METADATA, p->name,
					 major_wrong ? p->major_line : p->minor_line,
					 major_wrong ? p->major_col : p->minor_col,
					 "unsupported CTF version %u.%u: only CTF 1.8 is supported",
					 tc->major, tc->minor);
	}
	if (!p->has_byte_order)
		return meta_error(p, "the `trace` block has no `byte_order`%s", "");
	return TMX_OK;
}

static int add_default_stream_class(struct tsdl_parser *p)
{
	struct tmx_trace_class *tc = p->tc;
	struct tmx_stream_class *sc = tmx_arena_alloc(p->arena, sizeof(*sc));
	struct tmx_stream_class **all = tmx_arena_calloc(p->arena, 1, sizeof(*all));

	if (!sc || !all)
		return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
	sc->trace_class = tc;
	all[0] = sc;
	tc->stream_classes = all;
	tc->n_stream_classes = 1;
	return TMX_OK;
}

/*
 * TSDL escapes names that clash with keywords with a leading underscore;
 * babeltrace2 shows field and option names without it.  Done after the
 * references are resolved, since paths use the names as written.
 */
static void strip_underscores(struct tmx_field_class *fc)
{
	if (!fc)
		return;
	if (fc->kind == TMX_FC_STRUCT || fc->kind == TMX_FC_VARIANT) {
		for (size_t i = 0; i < fc->n_members; i++) {
			if (fc->members[i].name[0] == '_')
				fc->members[i].name++;
			strip_underscores(fc->members[i].fc);
		}
	} else if (fc->elem) {
		strip_underscores(fc->elem);
	}
}

static void strip_all_underscores(struct tmx_trace_class *tc)
{
	strip_underscores(tc->packet_header);
	for (size_t s = 0; s < tc->n_stream_classes; s++) {
		struct tmx_stream_class *sc = tc->stream_classes[s];
		strip_underscores(sc->packet_context);
		strip_underscores(sc->event_header);
		strip_underscores(sc->event_common_context);
		for (size_t e = 0; e < sc->n_event_classes; e++) {
			strip_underscores(sc->event_classes[e]->specific_context);
			strip_underscores(sc->event_classes[e]->payload);
		}
	}
}

int tsdl_resolve(struct tsdl_parser *p)
{
	struct tmx_trace_class *tc = p->tc;
	struct resolver *r;
	int ret = TMX_OK;

	TRY(check_trace_block(p));
	if (tc->n_stream_classes == 0)
		TRY(add_default_stream_class(p));
	TRY(attach_events(p));

	r = calloc(1, sizeof(*r));
	if (!r)
		return tmx_error_set(p->err, TMX_ERR_NOMEM, p->name, "out of memory");
	r->p = p;
	r->roots[SCOPE_PH] = tc->packet_header;
	ret = resolve_scope(r, SCOPE_PH);
	for (size_t s = 0; !ret && s < tc->n_stream_classes; s++) {
		struct tmx_stream_class *sc = tc->stream_classes[s];
		r->roots[SCOPE_PC] = sc->packet_context;
		r->roots[SCOPE_EH] = sc->event_header;
		r->roots[SCOPE_ECC] = sc->event_common_context;
		for (int scope = SCOPE_PC; !ret && scope <= SCOPE_ECC; scope++)
			ret = resolve_scope(r, scope);
		for (size_t e = 0; !ret && e < sc->n_event_classes; e++) {
			r->roots[SCOPE_EC] = sc->event_classes[e]->specific_context;
			r->roots[SCOPE_EF] = sc->event_classes[e]->payload;
			ret = resolve_scope(r, SCOPE_EC);
			if (!ret)
				ret = resolve_scope(r, SCOPE_EF);
		}
	}
	if (!ret)
		ret = set_packet_header_meanings(p, tc->packet_header);
	for (size_t s = 0; !ret && s < tc->n_stream_classes; s++) {
		struct tmx_stream_class *sc = tc->stream_classes[s];
		set_packet_context_meanings(sc->packet_context);
		if (sc->event_header)
			set_event_header_meanings(sc->event_header);
		ret = map_timestamps(p, sc->packet_context);
		if (!ret)
			ret = map_timestamps(p, sc->event_header);
		sc->default_clock = find_clock(sc->event_header);
		if (!sc->default_clock)
			sc->default_clock = find_clock(sc->packet_context);
	}
	free(r);
	if (!ret)
		strip_all_underscores(tc);
	return ret;
}
