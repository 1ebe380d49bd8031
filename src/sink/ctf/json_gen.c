/*
 * CTF 2 metadata (a JSON text sequence, CTF2-SPEC-2.0 section 5) of the
 * CTF writer's plan (plan_build.c).
 *
 * Fragments, each a record separator (U+001E), one compact JSON text and a
 * newline: the preamble (the trace UUID), the trace class (namespace, name,
 * UID when the model has them; environment; the packet header with its
 * roles), one clock class per clock class (babeltrace 2.1.2's sink writes
 * one per data stream class, which its own reader then refuses as
 * duplicates), then each data stream class (default clock, packet context
 * and event record header with their roles, common context) followed by
 * its event record classes (log level and EMF URI as LTTng's attributes).
 *
 * Every field class of the model keeps its kind; lengths and selectors
 * are field locations (json_refs.c).
 *
 * The text is serialized here rather than with json-c: exact 64-bit
 * values of both signs, a fixed property order, and names that are not
 * valid UTF-8 made valid (sink/json_string.h) instead of written
 * as they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/ctf/encode_plan_impl.h"
#include "sink/json_string.h"
#include "common/errors.h"
#include "common/uuid.h"

/* ------------------------------------------------------------------ */
/* JSON writer                                                          */
/* ------------------------------------------------------------------ */

#define JW_MAX_DEPTH 4096

struct jw {
	struct tmx_buf *b;
	struct outbuf *ob;      /* strings, drained into b */
	int depth;
	bool after_key;
	bool first[JW_MAX_DEPTH];
	bool too_deep;
};

/* The comma before a value, unless it is the first of its object/array or follows a key. */
static void jw_sep(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth > 0 && !w->first[w->depth])
		cw_sb_put(w->b, ",", 1);
	w->first[w->depth] = false;
}

static void jw_open(struct jw *w, char c)
{
	jw_sep(w);
	cw_sb_put(w->b, &c, 1);
	if (w->depth + 1 >= JW_MAX_DEPTH) {
		w->too_deep = true;
		return;
	}
	w->first[++w->depth] = true;
}

static void jw_close(struct jw *w, char c)
{
	cw_sb_put(w->b, &c, 1);
	if (w->depth > 0)
		w->depth--;
}

/* The buffer takes what the outbuf of json_string() flushes. */
static void jw_drain(void *ctx, const char *data, size_t len)
{
	cw_sb_put(ctx, data, len);
}

/* A JSON string, escaped as every JSON output escapes it (sink/json_string.h). */
static void jw_raw_string(struct jw *w, const char *s)
{
	json_string(w->ob, s, strlen(s));
	outbuf_flush(w->ob);
}

static void jw_key(struct jw *w, const char *k)
{
	jw_sep(w);
	jw_raw_string(w, k);
	cw_sb_put(w->b, ":", 1);
	w->after_key = true;
}

static void jw_str(struct jw *w, const char *s)
{
	jw_sep(w);
	jw_raw_string(w, s);
}

static void jw_u64(struct jw *w, uint64_t v)
{
	jw_sep(w);
	cw_sb_printf(w->b, "%llu", (unsigned long long)v);
}

static void jw_i64(struct jw *w, int64_t v)
{
	jw_sep(w);
	cw_sb_printf(w->b, "%lld", (long long)v);
}

static void jw_kstr(struct jw *w, const char *k, const char *v)
{
	jw_key(w, k);
	jw_str(w, v);
}

static void jw_ku64(struct jw *w, const char *k, uint64_t v)
{
	jw_key(w, k);
	jw_u64(w, v);
}

/* ------------------------------------------------------------------ */
/* Field classes                                                        */
/* ------------------------------------------------------------------ */

struct jgen {
	struct tmx_buf b;
	struct outbuf ob;
	struct jw w;
	const struct cw_trace_plan *p;
};

static const char *const origins[CW_N_SCOPES] = {
	"packet-context", "event-record-common-context", "event-record-specific-context",
	"event-record-payload",
};

static const char *byte_order(bool be)
{
	return be ? "big-endian" : "little-endian";
}

static void put_bound(struct jw *w, bool is_signed, uint64_t v)
{
	if (is_signed)
		jw_i64(w, (int64_t)v);
	else
		jw_u64(w, v);
}

static void put_range_set(struct jw *w, bool is_signed, const struct tmx_enum_range *r, size_t n)
{
	jw_open(w, '[');
	for (size_t i = 0; i < n; i++) {
		jw_open(w, '[');
		put_bound(w, is_signed, r[i].lower);
		put_bound(w, is_signed, r[i].upper);
		jw_close(w, ']');
	}
	jw_close(w, ']');
}

/*
 * Integer mappings or bit map flags: one property per label (TSDL may
 * repeat a label: its ranges are joined), labels without ranges left out.
 */
static bool has_ranges(const struct tmx_field_class *fc)
{
	for (size_t m = 0; m < fc->n_mappings; m++)
		if (fc->mappings[m].n_ranges)
			return true;
	return false;
}

static void put_mappings(struct jw *w, const char *key, const struct tmx_field_class *fc,
			 bool is_signed)
{
	if (!has_ranges(fc))
		return;
	jw_key(w, key);
	jw_open(w, '{');
	for (size_t m = 0; m < fc->n_mappings; m++) {
		const struct tmx_enum_mapping *map = &fc->mappings[m];
		bool seen = !map->n_ranges;
		for (size_t e = 0; e < m && !seen; e++)
			seen = fc->mappings[e].n_ranges && !strcmp(fc->mappings[e].label, map->label);
		if (seen)
			continue;
		jw_key(w, map->label);
		jw_open(w, '[');
		for (size_t e = m; e < fc->n_mappings; e++) {
			if (strcmp(fc->mappings[e].label, map->label))
				continue;
			for (size_t i = 0; i < fc->mappings[e].n_ranges; i++) {
				jw_open(w, '[');
				put_bound(w, is_signed, fc->mappings[e].ranges[i].lower);
				put_bound(w, is_signed, fc->mappings[e].ranges[i].upper);
				jw_close(w, ']');
			}
		}
		jw_close(w, ']');
	}
	jw_close(w, '}');
}

static void put_location(struct jgen *g, const char *key, const struct cw_node *n)
{
	struct jw *w = &g->w;

	jw_key(w, key);
	jw_open(w, '{');
	jw_kstr(w, "origin", origins[n->loc_scope]);
	jw_key(w, "path");
	jw_open(w, '[');
	for (size_t i = 0; i < n->loc_n; i++)
		jw_str(w, n->loc_path[i]);
	jw_close(w, ']');
	jw_close(w, '}');
}

static void put_base(struct jw *w, unsigned base)
{
	if (base == 2 || base == 8 || base == 16)
		jw_ku64(w, "preferred-display-base", base);
}

/* `alignment` of a fixed-length class, `minimum-alignment` of a compound one (default 1). */
static void put_align(struct jw *w, const char *key, uint32_t align)
{
	if (align > 1)
		jw_ku64(w, key, align);
}

static void put_fixed(struct jgen *g, const struct cw_node *n, const char *type)
{
	struct jw *w = &g->w;

	jw_kstr(w, "type", type);
	jw_ku64(w, "length", n->size);
	jw_kstr(w, "byte-order", byte_order(n->big_endian));
	put_align(w, "alignment", n->align);
}

static void put_int(struct jgen *g, const struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc;
	struct jw *w = &g->w;

	switch (fc->kind) {
	case TMX_FC_BOOL:
		put_fixed(g, n, "fixed-length-boolean");
		return;
	case TMX_FC_BIT_ARRAY:
		/* A bit map needs flags: labels without bit ranges do not count. */
		put_fixed(g, n, has_ranges(fc) ? "fixed-length-bit-map" : "fixed-length-bit-array");
		put_mappings(w, "flags", fc, false);
		return;
	default:
		break;
	}
	if (n->op == CW_VARINT)
		jw_kstr(w, "type", fc->is_signed ? "variable-length-signed-integer" :
						   "variable-length-unsigned-integer");
	else
		put_fixed(g, n, fc->is_signed ? "fixed-length-signed-integer" :
						"fixed-length-unsigned-integer");
	put_base(w, fc->base);
	if (fc->kind == TMX_FC_ENUM)
		put_mappings(w, "mappings", fc, fc->is_signed);
}

static const char *const encodings[] = {
	"utf-8", "utf-16be", "utf-16le", "utf-32be", "utf-32le",
};

static void put_string(struct jgen *g, const struct cw_node *n)
{
	struct jw *w = &g->w;

	switch (n->op) {
	case CW_STATIC_STRING:
	case CW_TEXT_ARRAY:
		jw_kstr(w, "type", "static-length-string");
		jw_ku64(w, "length", n->length);
		break;
	case CW_DYN_STRING:
	case CW_TEXT_SEQ:
		jw_kstr(w, "type", "dynamic-length-string");
		put_location(g, "length-field-location", n);
		break;
	default:
		jw_kstr(w, "type", "null-terminated-string");
		break;
	}
	if (n->str_enc != TMX_STR_UTF8 && n->str_enc <= TMX_STR_UTF32LE)
		jw_kstr(w, "encoding", encodings[n->str_enc]);
}

static void put_blob(struct jgen *g, const struct cw_node *n)
{
	struct jw *w = &g->w;

	if (n->op == CW_BLOB) {
		jw_kstr(w, "type", "static-length-blob");
		jw_ku64(w, "length", n->length);
	} else {
		jw_kstr(w, "type", "dynamic-length-blob");
		put_location(g, "length-field-location", n);
	}
	if (n->fc->media_type)
		jw_kstr(w, "media-type", n->fc->media_type);
}

static void put_fc(struct jgen *g, const struct cw_node *n);

/* The generated length/selector member before `c` (see generate()). */
static void put_generated(struct jgen *g, const struct cw_node *c)
{
	struct jw *w = &g->w;

	jw_open(w, '{');
	jw_kstr(w, "name", c->ref);
	jw_key(w, "field-class");
	jw_open(w, '{');
	if (c->op == CW_OPTIONAL) {
		jw_kstr(w, "type", "fixed-length-boolean");
		jw_ku64(w, "length", 8);
	} else {
		jw_kstr(w, "type", "fixed-length-unsigned-integer");
		jw_ku64(w, "length", c->op == CW_VARIANT ? 16 : 32);
	}
	jw_kstr(w, "byte-order", byte_order(g->p->big_endian));
	jw_ku64(w, "alignment", 8);
	jw_close(w, '}');
	jw_close(w, '}');
}

static void put_members(struct jgen *g, const struct cw_node *n)
{
	struct jw *w = &g->w;

	for (size_t i = 0; i < n->n_children; i++) {
		const struct cw_node *c = &n->children[i];
		if (c->skip)
			continue;
		if (c->gen_before)
			put_generated(g, c);
		jw_open(w, '{');
		jw_kstr(w, "name", c->name);
		jw_key(w, "field-class");
		put_fc(g, c);
		jw_close(w, '}');
	}
}

static void put_variant(struct jgen *g, const struct cw_node *n)
{
	struct jw *w = &g->w;

	jw_kstr(w, "type", "variant");
	put_location(g, "selector-field-location", n);
	jw_key(w, "options");
	jw_open(w, '[');
	for (size_t o = 0; o < n->n_children; o++) {
		jw_open(w, '{');
		/* CTF 2 options may be unnamed (the model's empty name): no name then. */
		if (n->children[o].name[0])
			jw_kstr(w, "name", n->children[o].name);
		jw_key(w, "selector-field-ranges");
		put_range_set(w, n->sel_signed, n->opt_ranges[o].r, n->opt_ranges[o].n);
		jw_key(w, "field-class");
		put_fc(g, &n->children[o]);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void put_optional(struct jgen *g, const struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc;
	struct jw *w = &g->w;

	jw_kstr(w, "type", "optional");
	put_location(g, "selector-field-location", n);
	if (!n->sel_bool) {
		jw_key(w, "selector-field-ranges");
		put_range_set(w, n->sel_signed, fc->ranges, fc->n_ranges);
	}
	jw_key(w, "field-class");
	put_fc(g, n->children);
}

static void put_fc(struct jgen *g, const struct cw_node *n)
{
	struct jw *w = &g->w;

	jw_open(w, '{');
	switch (n->op) {
	case CW_INT:
	case CW_VARINT:
		put_int(g, n);
		break;
	case CW_FLOAT:
		put_fixed(g, n, "fixed-length-floating-point-number");
		break;
	case CW_STRING:
	case CW_STATIC_STRING:
	case CW_DYN_STRING:
	case CW_TEXT_ARRAY:
	case CW_TEXT_SEQ:
		put_string(g, n);
		break;
	case CW_BLOB:
	case CW_DYN_BLOB:
		put_blob(g, n);
		break;
	case CW_STRUCT:
		jw_kstr(w, "type", "structure");
		jw_key(w, "member-classes");
		jw_open(w, '[');
		put_members(g, n);
		jw_close(w, ']');
		put_align(w, "minimum-alignment", n->align);
		break;
	case CW_ARRAY:
	case CW_SEQUENCE:
		jw_kstr(w, "type", n->op == CW_ARRAY ? "static-length-array" : "dynamic-length-array");
		if (n->op == CW_ARRAY)
			jw_ku64(w, "length", n->length);
		else
			put_location(g, "length-field-location", n);
		put_align(w, "minimum-alignment", n->align);
		jw_key(w, "element-field-class");
		put_fc(g, n->children);
		break;
	case CW_VARIANT:
		put_variant(g, n);
		break;
	case CW_OPTIONAL:
		put_optional(g, n);
		break;
	}
	jw_close(w, '}');
}

/* ------------------------------------------------------------------ */
/* Fragments                                                            */
/* ------------------------------------------------------------------ */

static void fragment_begin(struct jgen *g, const char *type)
{
	cw_sb_put(&g->b, "\x1e", 1);
	jw_open(&g->w, '{');
	jw_kstr(&g->w, "type", type);
}

static void fragment_end(struct jgen *g)
{
	jw_close(&g->w, '}');
	cw_sb_put(&g->b, "\n", 1);
	/* The next fragment is a new top-level text. */
	g->w.first[0] = true;
}

static void put_preamble(struct jgen *g)
{
	struct jw *w = &g->w;

	fragment_begin(g, "preamble");
	jw_ku64(w, "version", 2);
	jw_key(w, "uuid");
	jw_open(w, '[');
	for (int i = 0; i < 16; i++)
		jw_u64(w, g->p->uuid[i]);
	jw_close(w, ']');
	fragment_end(g);
}

static void put_identity(struct jw *w, const char *ns, const char *name, const char *uid)
{
	if (ns)
		jw_kstr(w, "namespace", ns);
	if (name)
		jw_kstr(w, "name", name);
	if (uid)
		jw_kstr(w, "uid", uid);
}

/* A member of the writer's own: an integer in the trace's byte order, with its role. */
static void own_member(struct jgen *g, const char *name, unsigned size, unsigned base,
		       const char *role)
{
	struct jw *w = &g->w;

	jw_open(w, '{');
	jw_kstr(w, "name", name);
	jw_key(w, "field-class");
	jw_open(w, '{');
	jw_kstr(w, "type", "fixed-length-unsigned-integer");
	jw_ku64(w, "length", size);
	jw_kstr(w, "byte-order", byte_order(g->p->big_endian));
	jw_ku64(w, "alignment", 8);
	put_base(w, base);
	if (role) {
		jw_key(w, "roles");
		jw_open(w, '[');
		jw_str(w, role);
		jw_close(w, ']');
	}
	jw_close(w, '}');
	jw_close(w, '}');
}

static void put_trace_class(struct jgen *g)
{
	const struct tmx_trace_class *tc = g->p->tc;
	struct jw *w = &g->w;

	char uuid[37];

	fragment_begin(g, "trace-class");
	/* babeltrace 2.1 makes a CTF 1.8 trace's UUID its trace class UID. */
	if (!tc->uid && tc->has_uuid)
		tmx_uuid_text(uuid, g->p->uuid);
	put_identity(w, tc->ns, tc->name, tc->uid ? tc->uid : tc->has_uuid ? uuid : NULL);
	if (tc->n_env) {
		jw_key(w, "environment");
		jw_open(w, '{');
		for (size_t i = 0; i < tc->n_env; i++) {
			const struct tmx_env_entry *e = &tc->env[i];
			bool dup = false;
			for (size_t k = 0; k < i && !dup; k++)
				dup = !strcmp(tc->env[k].name, e->name);
			if (dup)
				continue;   /* JSON names are unique: the first one, as TSDL readers keep */
			jw_key(w, e->name);
			if (e->is_int)
				jw_i64(w, e->int_value);
			else
				jw_str(w, e->str_value ? e->str_value : "");
		}
		jw_close(w, '}');
	}
	jw_key(w, "packet-header-field-class");
	jw_open(w, '{');
	jw_kstr(w, "type", "structure");
	jw_key(w, "member-classes");
	jw_open(w, '[');
	own_member(g, "magic", 32, 16, "packet-magic-number");
	jw_open(w, '{');
	jw_kstr(w, "name", "uuid");
	jw_key(w, "field-class");
	jw_open(w, '{');
	jw_kstr(w, "type", "static-length-blob");
	jw_ku64(w, "length", 16);
	jw_key(w, "roles");
	jw_open(w, '[');
	jw_str(w, "metadata-stream-uuid");
	jw_close(w, ']');
	jw_close(w, '}');
	jw_close(w, '}');
	own_member(g, "stream_id", 64, 10, "data-stream-class-id");
	own_member(g, "stream_instance_id", 64, 10, "data-stream-id");
	jw_close(w, ']');
	jw_ku64(w, "minimum-alignment", 8);
	jw_close(w, '}');
	fragment_end(g);
}

static void put_clock_class(struct jgen *g, const struct tmx_clock_class *cc, const char *id)
{
	struct jw *w = &g->w;
	uint64_t freq = cc->frequency ? cc->frequency : 1;
	/* CTF 2: cycles below the frequency, the rest in seconds (saturated). */
	uint64_t extra = cc->offset_cycles / freq;
	int64_t seconds = cc->offset_s;
	char uuid[37];

	if (extra > (uint64_t)INT64_MAX || seconds > INT64_MAX - (int64_t)extra)
		seconds = INT64_MAX;
	else
		seconds += (int64_t)extra;
	fragment_begin(g, "clock-class");
	jw_kstr(w, "id", id);
	/* babeltrace 2.1 makes a CTF 1.8 clock's UUID its UID. */
	if (!cc->uid && cc->has_uuid)
		tmx_uuid_text(uuid, cc->uuid);
	put_identity(w, cc->ns, cc->name, cc->uid ? cc->uid : cc->has_uuid ? uuid : NULL);
	if (cc->description)
		jw_kstr(w, "description", cc->description);
	jw_ku64(w, "frequency", freq);
	jw_key(w, "offset-from-origin");
	jw_open(w, '{');
	jw_key(w, "seconds");
	jw_i64(w, seconds);
	jw_ku64(w, "cycles", cc->offset_cycles % freq);
	jw_close(w, '}');
	if (cc->origin_is_unix_epoch) {
		jw_kstr(w, "origin", "unix-epoch");
	} else if (cc->origin_name && cc->origin_uid) {
		jw_key(w, "origin");
		jw_open(w, '{');
		put_identity(w, cc->origin_ns, cc->origin_name, cc->origin_uid);
		jw_close(w, '}');
	}
	/* A CTF 1.8 clock always has a precision (0 by default). */
	if (cc->has_precision || !tmx_trace_class_is_ctf2(g->p->tc))
		jw_ku64(w, "precision", cc->precision);
	if (cc->has_accuracy)
		jw_ku64(w, "accuracy", cc->accuracy);
	fragment_end(g);
}

static const char *clock_id(const struct cw_trace_plan *p, const struct tmx_clock_class *cc)
{
	for (size_t i = 0; i < p->n_clocks; i++)
		if (p->clocks[i] == cc)
			return p->clock_names[i];
	return "unknown";
}

static void put_packet_context(struct jgen *g, const struct cw_stream_plan *sp)
{
	struct jw *w = &g->w;
	uint32_t align = 8;

	jw_key(w, "packet-context-field-class");
	jw_open(w, '{');
	jw_kstr(w, "type", "structure");
	jw_key(w, "member-classes");
	jw_open(w, '[');
	own_member(g, sp->own_names[0], 64, 10, "packet-total-length");
	own_member(g, sp->own_names[1], 64, 10, "packet-content-length");
	if (sp->has_ts_begin)
		own_member(g, sp->own_names[2], 64, 10, "default-clock-timestamp");
	if (sp->has_ts_end)
		own_member(g, sp->own_names[3], 64, 10, "packet-end-default-clock-timestamp");
	if (sp->has_discarded)
		own_member(g, sp->own_names[4], 64, 10, "discarded-event-record-counter-snapshot");
	own_member(g, sp->own_names[5], 64, 10, "packet-sequence-number");
	if (sp->packet_context) {
		put_members(g, sp->packet_context);
		if (sp->packet_context->align > align)
			align = sp->packet_context->align;
	}
	jw_close(w, ']');
	jw_ku64(w, "minimum-alignment", align);
	jw_close(w, '}');
}

static void put_event_header(struct jgen *g, const struct cw_stream_plan *sp)
{
	struct jw *w = &g->w;

	jw_key(w, "event-record-header-field-class");
	jw_open(w, '{');
	jw_kstr(w, "type", "structure");
	jw_key(w, "member-classes");
	jw_open(w, '[');
	own_member(g, "id", 64, 10, "event-record-class-id");
	if (sp->clock)
		own_member(g, "timestamp", 64, 10, "default-clock-timestamp");
	jw_close(w, ']');
	jw_ku64(w, "minimum-alignment", 8);
	jw_close(w, '}');
}

static void put_root(struct jgen *g, const char *key, const struct cw_node *n)
{
	if (!n)
		return;
	jw_key(&g->w, key);
	put_fc(g, n);
}

/* babeltrace2's log levels, by the model's number (the reader's names). */
static const char *const log_levels[] = {
	"emergency", "alert", "critical", "error", "warning", "notice", "info",
	"debug:system", "debug:program", "debug:process", "debug:module", "debug:unit",
	"debug:function", "debug:line", "debug",
};

static void put_event_class(struct jgen *g, const struct cw_stream_plan *sp,
			    const struct cw_event_plan *ep)
{
	const struct tmx_event_class *ec = ep->ec;
	bool has_level = ec->log_level >= 0 &&
			 (size_t)ec->log_level < sizeof(log_levels) / sizeof(log_levels[0]);
	struct jw *w = &g->w;

	fragment_begin(g, "event-record-class");
	jw_ku64(w, "id", ec->id);
	jw_ku64(w, "data-stream-class-id", sp->sc->id);
	put_identity(w, ec->ns, ec->name, ec->uid);
	if (has_level || ec->emf_uri) {
		jw_key(w, "attributes");
		jw_open(w, '{');
		jw_key(w, "lttng.org,2009");
		jw_open(w, '{');
		if (has_level)
			jw_kstr(w, "log-level", log_levels[ec->log_level]);
		if (ec->emf_uri)
			jw_kstr(w, "emf-uri", ec->emf_uri);
		jw_close(w, '}');
		jw_close(w, '}');
	}
	put_root(g, "specific-context-field-class", ep->specific_context);
	put_root(g, "payload-field-class", ep->payload);
	fragment_end(g);
}

static void put_stream_class(struct jgen *g, const struct cw_stream_plan *sp)
{
	struct jw *w = &g->w;

	fragment_begin(g, "data-stream-class");
	jw_ku64(w, "id", sp->sc->id);
	if (sp->clock)
		jw_kstr(w, "default-clock-class-id", clock_id(g->p, sp->clock));
	put_packet_context(g, sp);
	put_event_header(g, sp);
	put_root(g, "event-record-common-context-field-class", sp->common_context);
	fragment_end(g);
	for (size_t e = 0; e < sp->n_events; e++)
		put_event_class(g, sp, &sp->events[e]);
}

int cw_json_text(struct cw_trace_plan *p, struct tmx_error *err)
{
	struct jgen *g = calloc(1, sizeof(*g));
	int ret = TMX_OK;

	if (!g)
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	g->p = p;
	g->w.b = &g->b;
	outbuf_init(&g->ob, -1);
	outbuf_set_drain(&g->ob, jw_drain, &g->b);
	g->w.ob = &g->ob;
	g->w.first[0] = true;
	put_preamble(g);
	put_trace_class(g);
	for (size_t i = 0; i < p->n_clocks; i++)
		put_clock_class(g, p->clocks[i], p->clock_names[i]);
	for (size_t s = 0; s < p->n_streams; s++)
		put_stream_class(g, &p->streams[s]);
	if (g->w.too_deep)
		ret = tmx_error_set(err, TMX_ERR_LIMIT, NULL, "CTF writer: field classes nested too deeply");
	else if (g->b.oom)
		ret = tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	if (ret) {
		free(g->b.p);
	} else {
		p->metadata = (char *)g->b.p;
		p->metadata_len = g->b.len;
	}
	free(g);
	return ret;
}
