/*
 * CTF 2 field locations (spec 5.3.1, 6.4.2) bound to value slots, and
 * roles (5.6.1, 5.8.1) turned into field meanings.
 *
 * A scope is resolved as soon as its fragment is read, with the scopes
 * that precede it in decoding order (the trace class's packet header, the
 * data stream class's scopes, the event record class's specific context).
 * A location without an origin starts from the structure that contains
 * the dependent field; its leading nulls go one structure up each, as
 * babeltrace 2.1 normalizes them.  The path is then followed from the
 * scope root:
 *
 *  - in a structure that contains the dependent field, only members before
 *    it can be named (they are decoded first);
 *  - an array or optional is entered only if it contains the dependent
 *    field (its current element is the one being decoded);
 *  - a variant that contains the dependent field is entered through its
 *    current option; any other variant through every option: each must
 *    have the rest of the path, and all the fields found share one slot
 *    (the option decoded last sets it).
 *
 * The fields found must be unsigned integers for lengths, integers of one
 * signedness for variant selectors, booleans or such integers for optional
 * selectors.
 */
#define _GNU_SOURCE   /* qsort_r */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf2.h"
#include "model/field_class.h"

#define TRY(x) do { int ret_ = (x); if (ret_) return ret_; } while (0)
#define MAX_FRAMES (CTF2_MAX_TYPE_DEPTH + 2)

/* A compound class on the way to the current class, and which child leads there. */
struct frame {
	struct tmx_field_class *fc;
	size_t idx;
};

struct resolver {
	struct ctf2_parser *p;
	struct ctf2_scopes *roots;
	enum ctf2_scope scope;
	struct frame frames[MAX_FRAMES];
	size_t n_frames;
	/* The referrer being bound and the fields its location designates. */
	struct tmx_field_class *ref;
	struct tmx_field_class **cands;
	size_t n_cands, cap_cands;
};

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

static size_t append(char *buf, size_t size, size_t n, const char *s)
{
	int k = snprintf(buf + n, n < size ? size - n : 0, "%s", s);

	return n + (k > 0 ? (size_t)k : 0);
}

/* "event-record-payload member `a.b`": where the referrer is. */
static void describe_referrer(const struct resolver *r, char *buf, size_t size)
{
	size_t n = snprintf(buf, size, "%s", ctf2_scope_names[r->scope]);
	bool first = true;

	for (size_t f = 0; f < r->n_frames; f++) {
		const struct tmx_field_class *fc = r->frames[f].fc;
		if (fc->kind != TMX_FC_STRUCT)
			continue;
		n = append(buf, size, n, first ? " member `" : ".");
		n = append(buf, size, n, fc->members[r->frames[f].idx].name);
		first = false;
	}
	if (!first)
		append(buf, size, n, "`");
}

/* The location as written: {origin, path} in short. */
static void describe_loc(const struct ctf2_loc *loc, char *buf, size_t size)
{
	size_t n = 0;

	if (loc->origin >= 0) {
		n = append(buf, size, n, ctf2_scope_names[loc->origin]);
		n = append(buf, size, n, " ");
	}
	n = append(buf, size, n, "[");
	for (size_t i = 0; i < loc->n; i++) {
		n = append(buf, size, n, i ? ", " : "");
		if (loc->path[i]) {
			n = append(buf, size, n, "\"");
			n = append(buf, size, n, loc->path[i]);
			n = append(buf, size, n, "\"");
		} else {
			n = append(buf, size, n, "null");
		}
	}
	append(buf, size, n, "]");
}

/* An error about the current referrer's location, at the referrer. */
static int __attribute__((format(printf, 2, 3))) loc_error(struct resolver *r, const char *fmt, ...)
{
	const struct ctf2_fc *c = ctf2_fc_of(r->ref);
	struct ctf2_pos pos = { c->off, c->fc.line, c->fc.col };
	char who[256], loc[256], what[512];
	va_list ap;

	describe_referrer(r, who, sizeof(who));
	describe_loc(c->loc, loc, sizeof(loc));
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ctf2_error_pos(r->p, TMX_ERR_METADATA, pos, "%s: `%s` %s: %s%s%s%s", who, c->loc_key,
			      loc, what, c->alias ? " (in field class alias `" : "",
			      c->alias ? c->alias : "", c->alias ? "`)" : "");
}

static const char *kind_name(const struct tmx_field_class *fc)
{
	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		return fc->is_signed ? "a signed integer" : "an unsigned integer";
	case TMX_FC_FLOAT: return "a floating point number";
	case TMX_FC_STRING: return "a string";
	case TMX_FC_STRUCT: return "a structure";
	case TMX_FC_ARRAY: return "a static-length array";
	case TMX_FC_SEQUENCE: return "a dynamic-length array";
	case TMX_FC_VARIANT: return "a variant";
	case TMX_FC_BOOL: return "a boolean";
	case TMX_FC_BIT_ARRAY: return fc->n_mappings ? "a bit map" : "a bit array";
	case TMX_FC_BLOB: return "a BLOB";
	case TMX_FC_OPTIONAL: return "an optional";
	}
	return "a field class";
}

/* ------------------------------------------------------------------ */
/* Following a path                                                     */
/* ------------------------------------------------------------------ */

static int cmp_member_names(const void *a, const void *b, void *fc)
{
	const struct tmx_member *m = ((const struct tmx_field_class *)fc)->members;

	return strcmp(m[*(const uint32_t *)a].name, m[*(const uint32_t *)b].name);
}

/* The member named `name` (index), or -1.  Large structures get a sorted index. */
static long member_index(struct resolver *r, struct tmx_field_class *fc, const char *name,
			 int *err)
{
	struct ctf2_fc *c = ctf2_fc_of(fc);
	size_t lo = 0, hi = fc->n_members;

	if (fc->n_members <= 8) {
		for (size_t i = 0; i < fc->n_members; i++)
			if (!strcmp(fc->members[i].name, name))
				return (long)i;
		return -1;
	}
	if (!c->by_name) {
		if (!(c->by_name = tmx_arena_calloc(r->p->arena, fc->n_members, sizeof(uint32_t)))) {
			*err = ctf2_nomem(r->p);
			return -1;
		}
		for (size_t i = 0; i < fc->n_members; i++)
			c->by_name[i] = (uint32_t)i;
		qsort_r(c->by_name, fc->n_members, sizeof(uint32_t), cmp_member_names, fc);
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = strcmp(fc->members[c->by_name[mid]].name, name);
		if (!cmp)
			return c->by_name[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int add_candidate(struct resolver *r, struct tmx_field_class *fc)
{
	if (r->n_cands == r->cap_cands) {
		size_t cap = r->cap_cands ? 2 * r->cap_cands : 8;
		struct tmx_field_class **c = realloc(r->cands, cap * sizeof(*c));
		if (!c)
			return ctf2_nomem(r->p);
		r->cands = c;
		r->cap_cands = cap;
	}
	r->cands[r->n_cands++] = fc;
	return TMX_OK;
}

/*
 * Follows items[k..n) from `fc`.  `fi` >= 0 when `fc` is frames[fi].fc, an
 * ancestor of the referrer (fi == n_frames: the referrer itself); -1 when
 * `fc` does not contain the referrer.
 */
static int walk(struct resolver *r, struct tmx_field_class *fc, const char *const *items,
		size_t n, size_t k, long fi)
{
	if (++r->p->loc_steps > CTF2_MAX_LOC_STEPS)
		return ctf2_error_pos(r->p, TMX_ERR_LIMIT, r->p->frag_pos, "the field locations take "
				      "more than %u steps to follow", CTF2_MAX_LOC_STEPS);
	if (fi == (long)r->n_frames)
		return loc_error(r, "the path leads to the field class that refers to it");
	switch (fc->kind) {
	case TMX_FC_STRUCT: {
		int err = TMX_OK;
		long mi;

		if (k == n)
			return loc_error(r, "locates a structure (expected %s)",
					 r->ref->kind == TMX_FC_SEQUENCE || r->ref->kind == TMX_FC_STRING ||
					 r->ref->kind == TMX_FC_BLOB ? "an unsigned integer length" :
					 "an integer or boolean selector");
		mi = member_index(r, fc, items[k], &err);
		if (err)
			return err;
		if (mi < 0)
			return loc_error(r, "no structure member named `%s` on the way", items[k]);
		if (fi < 0 || (size_t)mi < r->frames[fi].idx)
			return walk(r, fc->members[mi].fc, items, n, k + 1, -1);
		if ((size_t)mi > r->frames[fi].idx)
			return loc_error(r, "member `%s` comes after the field that refers to it "
					 "(expected an earlier field)", items[k]);
		return walk(r, fc->members[mi].fc, items, n, k + 1, fi + 1);
	}
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
	case TMX_FC_OPTIONAL:
		if (fi < 0)
			return loc_error(r, "the path goes into %s that does not contain the field "
					 "that refers to it", kind_name(fc));
		return walk(r, fc->elem, items, n, k, fi + 1);
	case TMX_FC_VARIANT:
		if (fi >= 0)
			return walk(r, fc->members[r->frames[fi].idx].fc, items, n, k, fi + 1);
		for (size_t o = 0; o < fc->n_members; o++)
			TRY(walk(r, fc->members[o].fc, items, n, k, -1));
		return TMX_OK;
	case TMX_FC_INT:
	case TMX_FC_ENUM:
	case TMX_FC_BOOL:
		if (k < n)
			return loc_error(r, "`%s` is %s: the path cannot go on to `%s`",
					 items[k - 1], kind_name(fc), items[k]);
		return add_candidate(r, fc);
	default:
		return loc_error(r, "locates %s (expected an integer or boolean field)",
				 kind_name(fc));
	}
}

/*
 * The absolute path of the referrer's location: `null` elements after a
 * name cancel it; leading ones (relative locations) climb from the
 * structure that contains the referrer.  *scope gets the origin.
 */
static int absolute_path(struct resolver *r, const struct ctf2_loc *loc, const char ***items,
			 size_t *n, enum ctf2_scope *scope)
{
	const char **tmp = malloc((loc->n + r->n_frames) * sizeof(*tmp));
	size_t nt = 0, lead = 0, structs = 0;
	const char **out;

	if (!tmp)
		return ctf2_nomem(r->p);
	for (size_t i = 0; i < loc->n; i++) {
		if (loc->path[i])
			tmp[nt++] = loc->path[i];
		else if (nt)
			nt--;
		else
			lead++;
	}
	*scope = loc->origin >= 0 ? (enum ctf2_scope)loc->origin : r->scope;
	for (size_t f = 0; f < r->n_frames; f++)
		structs += r->frames[f].fc->kind == TMX_FC_STRUCT;
	if ((loc->origin >= 0 && lead) || (loc->origin < 0 && lead >= structs)) {
		free(tmp);
		return loc_error(r, "too many `null` elements: no structure contains that "
				 "one%s", loc->origin >= 0 ? " (the path starts at the scope root)" :
				 "");
	}
	if (!nt) {
		free(tmp);
		return loc_error(r, "the path names no member");
	}
	out = malloc((structs + nt) * sizeof(*out));
	if (!out) {
		free(tmp);
		return ctf2_nomem(r->p);
	}
	*n = 0;
	if (loc->origin < 0) {
		/* The names down to the structure the path starts from. */
		size_t keep = structs - 1 - lead;
		for (size_t f = 0; f < r->n_frames && *n < keep; f++)
			if (r->frames[f].fc->kind == TMX_FC_STRUCT)
				out[(*n)++] = r->frames[f].fc->members[r->frames[f].idx].name;
	}
	memcpy(out + *n, tmp, nt * sizeof(*tmp));
	*n += nt;
	free(tmp);
	*items = out;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Slots                                                                */
/* ------------------------------------------------------------------ */

/*
 * Slots are a union-find while the metadata is read: a location whose
 * fields already have different slots (given by earlier locations) joins
 * them; ctf2_finish_slots() gives every class its final, dense slot.
 */
static int32_t slot_find(struct ctf2_parser *p, int32_t s)
{
	while (p->slot_parent[s] != s) {
		p->slot_parent[s] = p->slot_parent[p->slot_parent[s]];
		s = p->slot_parent[s];
	}
	return s;
}

static int new_slot(struct ctf2_parser *p, int32_t *out)
{
	int32_t n = tmx_tc_impl(p->tc)->n_slots;

	if ((size_t)n == p->cap_slots) {
		size_t cap = p->cap_slots ? 2 * p->cap_slots : 16;
		int32_t *a = realloc(p->slot_parent, cap * sizeof(*a));
		if (!a)
			return ctf2_nomem(p);
		p->slot_parent = a;
		p->cap_slots = cap;
	}
	p->slot_parent[n] = n;
	*out = tmx_tc_impl(p->tc)->n_slots++;
	return TMX_OK;
}

static int give_slot(struct resolver *r)
{
	struct ctf2_parser *p = r->p;
	int32_t slot = -1;

	for (size_t i = 0; i < r->n_cands; i++) {
		int32_t s = r->cands[i]->slot;
		if (s < 0)
			continue;
		s = slot_find(p, s);
		if (slot < 0) {
			slot = s;
		} else if (s != slot) {
			p->slot_parent[s > slot ? s : slot] = s < slot ? s : slot;
			slot = s < slot ? s : slot;
		}
	}
	if (slot < 0)
		TRY(new_slot(p, &slot));
	for (size_t i = 0; i < r->n_cands; i++)
		r->cands[i]->slot = slot;
	r->ref->ref_slot = slot;
	return TMX_OK;
}

static void final_slots(struct ctf2_parser *p, const int32_t *dense, struct tmx_field_class *fc)
{
	if (!fc)
		return;
	if (fc->slot >= 0)
		fc->slot = dense[slot_find(p, fc->slot)];
	if (fc->ref_slot >= 0)
		fc->ref_slot = dense[slot_find(p, fc->ref_slot)];
	for (size_t i = 0; i < fc->n_members; i++)
		final_slots(p, dense, fc->members[i].fc);
	final_slots(p, dense, fc->elem);
}

int ctf2_finish_slots(struct ctf2_parser *p)
{
	struct tmx_trace_class *tc = p->tc;
	int32_t *dense, n = 0;

	if (!tmx_tc_impl(tc)->n_slots)
		return TMX_OK;
	if (!(dense = malloc((size_t)tmx_tc_impl(tc)->n_slots * sizeof(*dense))))
		return ctf2_nomem(p);
	for (int32_t s = 0; s < tmx_tc_impl(tc)->n_slots; s++)
		if (slot_find(p, s) == s)
			dense[s] = n++;
	final_slots(p, dense, tc->packet_header);
	for (size_t s = 0; s < tc->n_stream_classes; s++) {
		struct tmx_stream_class *sc = tc->stream_classes[s];
		final_slots(p, dense, sc->packet_context);
		final_slots(p, dense, sc->event_header);
		final_slots(p, dense, sc->event_common_context);
		for (size_t e = 0; e < sc->n_event_classes; e++) {
			final_slots(p, dense, sc->event_classes[e]->specific_context);
			final_slots(p, dense, sc->event_classes[e]->payload);
		}
	}
	tmx_tc_impl(tc)->n_slots = n;
	free(dense);
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Checking what was found                                              */
/* ------------------------------------------------------------------ */

/* All candidates of one kind: 'b' booleans, 'u' unsigned, 's' signed integers. */
static int candidates_kind(struct resolver *r, char *kind)
{
	for (size_t i = 0; i < r->n_cands; i++) {
		const struct tmx_field_class *fc = r->cands[i];
		char k = fc->kind == TMX_FC_BOOL ? 'b' : fc->is_signed ? 's' : 'u';
		if (i && k != *kind)
			return loc_error(r, "locates fields of different types in different variant "
					 "options (%s and %s)", kind_name(r->cands[0]), kind_name(fc));
		*kind = k;
	}
	return TMX_OK;
}

struct sel_range {
	uint64_t lower, upper;
	size_t opt;
};

static int cmp_sel_range(const void *a, const void *b, void *is_signed)
{
	const struct sel_range *x = a, *y = b;

	if (x->lower == y->lower)
		return 0;
	return *(bool *)is_signed ? ((int64_t)x->lower < (int64_t)y->lower ? -1 : 1) :
	       (x->lower < y->lower ? -1 : 1);
}

static bool above(uint64_t a, uint64_t b, bool is_signed)
{
	return is_signed ? (int64_t)a > (int64_t)b : a > b;
}

/* Spec 5.3.23: the ranges of two options must not intersect (sorted sweep). */
static int check_option_overlaps(struct resolver *r, bool is_signed)
{
	const struct tmx_field_class *v = r->ref;
	struct sel_range *all;
	size_t n = 0, k = 0, cur = 0;
	int ret = TMX_OK;

	for (size_t o = 0; o < v->n_members; o++)
		n += v->members[o].n_ranges;
	if (!(all = malloc(n * sizeof(*all))))
		return ctf2_nomem(r->p);
	for (size_t o = 0; o < v->n_members; o++)
		for (size_t i = 0; i < v->members[o].n_ranges; i++)
			all[k++] = (struct sel_range){ v->members[o].ranges[i].lower,
						       v->members[o].ranges[i].upper, o };
	qsort_r(all, n, sizeof(*all), cmp_sel_range, &is_signed);
	for (size_t i = 1; i < n && !ret; i++) {
		if (above(all[i].lower, all[cur].upper, is_signed)) {
			cur = i;
		} else if (all[i].opt != all[cur].opt) {
			ret = loc_error(r, "the selector ranges of options %zu and %zu intersect (a "
					"value must choose one option)", all[cur].opt + 1, all[i].opt + 1);
		} else if (above(all[i].upper, all[cur].upper, is_signed)) {
			cur = i;
		}
	}
	free(all);
	return ret;
}

static int check_selector(struct resolver *r, char kind)
{
	struct ctf2_fc *c = ctf2_fc_of(r->ref);

	if (r->ref->kind == TMX_FC_OPTIONAL && kind == 'b') {
		/*
		 * Ranges mean nothing to a boolean selector: the field is there
		 * when it is true.  babeltrace 2.1's own writer adds [[1, 1]].
		 */
		r->ref->n_ranges = 0;
		r->ref->ranges = NULL;
		return TMX_OK;
	}
	if (kind == 'b')
		return loc_error(r, "locates a boolean (a variant selector must be an integer)");
	if (r->ref->kind == TMX_FC_OPTIONAL && !c->has_sel_ranges)
		return loc_error(r, "locates an integer selector: `selector-field-ranges` is "
				 "missing");
	if (kind == 'u' && (c->range_sign & CTF2_RANGES_NEG))
		return loc_error(r, "the selector is an unsigned integer but the selector ranges "
				 "have negative bounds");
	if (kind == 's' && (c->range_sign & CTF2_RANGES_BIG))
		return loc_error(r, "the selector is a signed integer but the selector ranges have "
				 "bounds above 2^63-1");
	return r->ref->kind == TMX_FC_VARIANT ? check_option_overlaps(r, kind == 's') : TMX_OK;
}

/* Resolves the location of r->ref, which sits below r->frames. */
static int bind(struct resolver *r, struct tmx_field_class *ref)
{
	const struct ctf2_loc *loc = ctf2_fc_of(ref)->loc;
	const char **items = NULL;
	enum ctf2_scope scope = r->scope;
	size_t n = 0;
	char kind = 0;
	int ret;

	r->ref = ref;
	r->n_cands = 0;
	TRY(absolute_path(r, loc, &items, &n, &scope));
	if (scope > r->scope)
		ret = loc_error(r, "a field cannot depend on a field of the later %s scope",
				ctf2_scope_names[scope]);
	else if (!r->roots->root[scope])
		ret = loc_error(r, "there is no %s scope here", ctf2_scope_names[scope]);
	else
		ret = walk(r, r->roots->root[scope], items, n, 0, scope == r->scope ? 0 : -1);
	free(items);
	TRY(ret);
	if (!r->n_cands)
		return loc_error(r, "locates no field");
	TRY(candidates_kind(r, &kind));
	if ((ref->kind == TMX_FC_SEQUENCE || ref->kind == TMX_FC_STRING || ref->kind == TMX_FC_BLOB) &&
	    kind != 'u')
		return loc_error(r, "the length field must be an unsigned integer, not %s",
				 kind == 'b' ? "a boolean" : "a signed integer");
	if (ref->kind == TMX_FC_VARIANT || ref->kind == TMX_FC_OPTIONAL) {
		TRY(check_selector(r, kind));
		ref->tag = r->cands[0];
	}
	return give_slot(r);
}

static int resolve_fc(struct resolver *r, struct tmx_field_class *fc)
{
	if (ctf2_fc_of(fc)->loc)
		TRY(bind(r, fc));
	if (fc->kind != TMX_FC_STRUCT && fc->kind != TMX_FC_VARIANT && !fc->elem)
		return TMX_OK;
	if (r->n_frames == MAX_FRAMES)   /* the builders bound the depth already */
		return ctf2_error(r->p, NULL, "field classes nested too deeply");
	r->frames[r->n_frames++].fc = fc;
	if (fc->elem) {
		r->frames[r->n_frames - 1].idx = 0;
		TRY(resolve_fc(r, fc->elem));
	}
	for (size_t i = 0; i < fc->n_members; i++) {
		r->frames[r->n_frames - 1].idx = i;
		TRY(resolve_fc(r, fc->members[i].fc));
	}
	r->n_frames--;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Roles                                                                */
/* ------------------------------------------------------------------ */

static const uint32_t scope_roles[CTF2_N_SCOPES] = {
	[CTF2_SCOPE_PH] = CTF2_ROLE_MAGIC | CTF2_ROLE_UUID | CTF2_ROLE_DSC_ID | CTF2_ROLE_DS_ID,
	[CTF2_SCOPE_PC] = CTF2_ROLE_TOTAL_LEN | CTF2_ROLE_CONTENT_LEN | CTF2_ROLE_DEF_CLK_TS |
			  CTF2_ROLE_END_DEF_CLK_TS | CTF2_ROLE_DISC_COUNTER | CTF2_ROLE_SEQ_NUM,
	[CTF2_SCOPE_EH] = CTF2_ROLE_DEF_CLK_TS | CTF2_ROLE_ERC_ID,
};

static const struct {
	uint32_t role;
	const char *name;
	uint8_t meaning;
} role_meanings[] = {
	{ CTF2_ROLE_MAGIC, "packet-magic-number", TMX_MEANING_MAGIC },
	{ CTF2_ROLE_UUID, "metadata-stream-uuid", TMX_MEANING_UUID },
	{ CTF2_ROLE_DSC_ID, "data-stream-class-id", TMX_MEANING_STREAM_ID },
	{ CTF2_ROLE_DS_ID, "data-stream-id", TMX_MEANING_STREAM_INSTANCE_ID },
	{ CTF2_ROLE_TOTAL_LEN, "packet-total-length", TMX_MEANING_PACKET_SIZE },
	{ CTF2_ROLE_CONTENT_LEN, "packet-content-length", TMX_MEANING_CONTENT_SIZE },
	{ CTF2_ROLE_DEF_CLK_TS, "default-clock-timestamp", TMX_MEANING_TS_BEGIN },
	{ CTF2_ROLE_END_DEF_CLK_TS, "packet-end-default-clock-timestamp", TMX_MEANING_TS_END },
	{ CTF2_ROLE_DISC_COUNTER, "discarded-event-record-counter-snapshot",
	  TMX_MEANING_EVENTS_DISCARDED },
	{ CTF2_ROLE_SEQ_NUM, "packet-sequence-number", TMX_MEANING_PACKET_SEQ_NUM },
	{ CTF2_ROLE_ERC_ID, "event-record-class-id", TMX_MEANING_EVENT_ID },
};

struct role_ctx {
	struct ctf2_parser *p;
	enum ctf2_scope scope;
	const struct tmx_field_class *root;
	const struct tmx_clock_class *clock;
};

static int role_error(struct role_ctx *x, const struct tmx_field_class *fc, const char *fmt,
		      const char *role)
{
	const struct ctf2_fc *c = ctf2_fc_of((struct tmx_field_class *)fc);
	struct ctf2_pos pos = { c->off, fc->line, fc->col };
	char what[256];

	snprintf(what, sizeof(what), fmt, role);
	return ctf2_error_pos(x->p, TMX_ERR_METADATA, pos, "%s: %s%s%s%s",
			      ctf2_scope_names[x->scope], what, c->alias ? " (in field class alias `" : "",
			      c->alias ? c->alias : "", c->alias ? "`)" : "");
}

static int set_meaning(struct role_ctx *x, struct tmx_field_class *fc)
{
	uint32_t role = ctf2_fc_of(fc)->roles;
	size_t k = 0;

	while (role_meanings[k].role != role)
		k++;
	if (!(scope_roles[x->scope] & role))
		return role_error(x, fc, "the `%s` role is not allowed in this scope", role_meanings[k].name);
	if ((role & (CTF2_ROLE_DEF_CLK_TS | CTF2_ROLE_END_DEF_CLK_TS)) && !x->clock)
		return role_error(x, fc, "the `%s` role needs a default clock class (the data stream "
				  "class has no `default-clock-class-id`)", role_meanings[k].name);
	if (role == CTF2_ROLE_MAGIC && (x->root->members[0].fc != fc || fc->varlen || fc->size != 32))
		return role_error(x, fc, "the `%s` role belongs to a 32-bit fixed-length unsigned "
				  "integer, the packet header's first member", role_meanings[k].name);
	if (role == CTF2_ROLE_UUID && !x->p->has_uuid)
		return role_error(x, fc, "the `%s` role needs the preamble fragment's `uuid`",
				  role_meanings[k].name);
	fc->meaning = role_meanings[k].meaning;
	if (role == CTF2_ROLE_DEF_CLK_TS && x->scope == CTF2_SCOPE_EH)
		fc->meaning = TMX_MEANING_TIMESTAMP;
	if (role & (CTF2_ROLE_DEF_CLK_TS | CTF2_ROLE_END_DEF_CLK_TS))
		fc->mapped_clock = x->clock;
	return TMX_OK;
}

static int set_meanings(struct role_ctx *x, struct tmx_field_class *fc)
{
	if (ctf2_fc_of(fc)->roles)
		TRY(set_meaning(x, fc));
	for (size_t i = 0; i < fc->n_members; i++)
		TRY(set_meanings(x, fc->members[i].fc));
	return fc->elem ? set_meanings(x, fc->elem) : TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                          */
/* ------------------------------------------------------------------ */

int ctf2_resolve_scope(struct ctf2_parser *p, struct ctf2_scopes *roots, enum ctf2_scope scope,
		       const struct tmx_clock_class *clock)
{
	struct resolver *r;
	struct role_ctx x = { p, scope, roots->root[scope], clock };
	int ret;

	if (!roots->root[scope])
		return TMX_OK;
	if (!(r = calloc(1, sizeof(*r))))
		return ctf2_nomem(p);
	r->p = p;
	r->roots = roots;
	r->scope = scope;
	ret = resolve_fc(r, roots->root[scope]);
	free(r->cands);
	free(r);
	return ret ? ret : set_meanings(&x, roots->root[scope]);
}
