/*
 * CTF 2 references of the CTF writer's plan (see json_gen.c): the field
 * location of each length and selector, the selector ranges of variant
 * options.
 *
 * A location goes from a scope's root through structure member names:
 * variants and optionals are transparent, an array only for a field inside
 * the same element (CTF2-SPEC-2.0 6.4.2).  A length or selector that cannot
 * be located (none in the model, in a scope the writer replaces, behind an
 * array) is generated just before the field, as babeltrace2's sink.ctf.fs
 * does: a 32-bit length `_NAME_len`, a 16-bit variant selector `_NAME_tag`
 * (the option's index), an 8-bit boolean optional selector `_NAME_tag`.
 * So is a variant selector when the options' ranges would intersect (CTF
 * 1.8 enumerations may overlap, CTF 2 options may not).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/field_class.h"
#include "sink/ctf/encode_plan_impl.h"

enum want { WANT_LENGTH, WANT_VARIANT_SELECTOR, WANT_OPTIONAL_SELECTOR };

/*
 * Whether step `i` of the target's path (from `parent` to `c`) can be
 * followed from `n`: a structure member or an optional's field always; a
 * variant's option unless `n` is inside another option of that variant; an
 * array's element only from inside that element (the one being decoded).
 */
static bool step_ok(const struct cw_resolver *r, int scope, size_t i, const struct cw_node *parent,
		    const struct cw_node *c, const struct cw_node *n)
{
	bool ancestor = scope == r->scope && i < r->stack.n && r->stack.nodes[i] == parent;
	const struct cw_node *branch = !ancestor ? NULL : i + 1 < r->stack.n ? r->stack.nodes[i + 1] : n;

	switch (parent->op) {
	case CW_STRUCT:
		return c->name != NULL;
	case CW_OPTIONAL:
		return true;
	case CW_VARIANT:
		return !ancestor || branch == c;
	default:
		return ancestor && branch == c;
	}
}

static bool kind_ok(const struct cw_node *t, enum want want)
{
	const struct tmx_field_class *fc = t->fc;

	if (t->op != CW_INT && t->op != CW_VARINT)
		return false;
	switch (want) {
	case WANT_LENGTH:
		return (fc->kind == TMX_FC_INT || fc->kind == TMX_FC_ENUM) && !fc->is_signed;
	case WANT_VARIANT_SELECTOR:
		return fc->kind == TMX_FC_INT || fc->kind == TMX_FC_ENUM;
	case WANT_OPTIONAL_SELECTOR:
		return fc->kind == TMX_FC_INT || fc->kind == TMX_FC_ENUM || fc->kind == TMX_FC_BOOL;
	}
	return false;
}

/* The location of the length/selector of `n`; its class in `*target_fc`. */
static int locate(struct cw_resolver *r, struct cw_node *n, enum want want,
		  const struct tmx_field_class **target_fc, bool *found)
{
	struct cw_path *target = malloc(sizeof(*target));
	const char **names;
	const struct cw_node *t;
	size_t k = 0;
	int scope;

	*found = false;
	if (!target)
		return cw_nomem(r->bd);
	if (!cw_find_target(r, n, target, &scope))
		goto out;
	t = target->nodes[target->n - 1];
	if (!kind_ok(t, want))
		goto out;
	for (size_t i = 1; i < target->n; i++)
		if (target->nodes[i]->skip ||
		    !step_ok(r, scope, i - 1, target->nodes[i - 1], target->nodes[i], n))
			goto out;
	names = tmx_arena_calloc(&r->bd->p->arena, target->n, sizeof(*names));
	if (!names) {
		free(target);
		return cw_nomem(r->bd);
	}
	for (size_t i = 1; i < target->n; i++)
		if (target->nodes[i - 1]->op == CW_STRUCT)
			names[k++] = target->nodes[i]->name;
	n->loc_scope = (uint8_t)scope;
	n->loc_path = names;
	n->loc_n = k;
	n->ref_slot = t->fc->slot;
	n->sel_signed = t->fc->is_signed && t->fc->kind != TMX_FC_BOOL;
	n->sel_bool = t->fc->kind == TMX_FC_BOOL;
	*target_fc = t->fc;
	*found = true;
out:
	free(target);
	return TMX_OK;
}

/*
 * A generated length/selector `_NAME_SUFFIX` (another `_` in front while a
 * member of the structure has that name), located from the scope's root.
 */
static int generate(struct cw_resolver *r, struct cw_node *n, const char *suffix)
{
	const struct cw_node *parent = r->stack.n ? r->stack.nodes[r->stack.n - 1] : NULL;
	const char *base = cw_node_base_name(r, n), **names;
	size_t len = strlen(base) + strlen(suffix) + 80, k = 0;
	char *name;
	bool clash;

	if (!parent || parent->op != CW_STRUCT)
		return cw_field_error(r, n, "its %s field cannot be referred to and the field is not "
				      "a structure member: no %s can be generated",
				      suffix[1] == 'l' ? "length" : "selector",
				      suffix[1] == 'l' ? "length" : "selector");
	name = tmx_arena_alloc(&r->bd->p->arena, len);
	names = tmx_arena_calloc(&r->bd->p->arena, r->stack.n + 1, sizeof(*names));
	if (!name || !names)
		return cw_nomem(r->bd);
	snprintf(name, len, "_%s%s", base, suffix);
	do {
		clash = false;
		for (size_t i = 0; i < parent->n_children && !clash; i++)
			clash = parent->children[i].name && !strcmp(parent->children[i].name, name);
		if (clash) {
			memmove(name + 1, name, strlen(name) + 1);
			name[0] = '_';
		}
	} while (clash && strlen(name) + 2 < len);
	/* Located from the root: the names down to the structure, then its own. */
	for (size_t i = 1; i < r->stack.n; i++)
		if (r->stack.nodes[i - 1]->op == CW_STRUCT)
			names[k++] = r->stack.nodes[i]->name;
	names[k++] = name;
	n->gen_before = true;
	n->ref = name;
	n->ref_slot = -1;
	/* The generated selectors: an unsigned index, a boolean. */
	n->sel_signed = false;
	n->sel_bool = n->op == CW_OPTIONAL;
	n->loc_scope = (uint8_t)r->scope;
	n->loc_path = names;
	n->loc_n = k;
	return TMX_OK;
}

static bool range_less(bool is_signed, uint64_t a, uint64_t b)
{
	return is_signed ? (int64_t)a < (int64_t)b : a < b;
}

static bool ranges_intersect(bool is_signed, const struct tmx_enum_range *a,
			     const struct tmx_enum_range *b)
{
	return !range_less(is_signed, a->upper, b->lower) && !range_less(is_signed, b->upper, a->lower);
}

#define MAX_CHECKED_RANGES 4096

/* CTF 2: every option has ranges, no two options' ranges intersect. */
static bool options_ranges_ok(const struct cw_node *n, bool is_signed)
{
	size_t total = 0;

	for (size_t o = 0; o < n->n_children; o++) {
		if (!n->opt_ranges[o].n)
			return false;
		total += n->opt_ranges[o].n;
	}
	if (total > MAX_CHECKED_RANGES)
		return false;
	for (size_t o = 0; o < n->n_children; o++)
		for (size_t p = o + 1; p < n->n_children; p++)
			for (size_t i = 0; i < n->opt_ranges[o].n; i++)
				for (size_t j = 0; j < n->opt_ranges[p].n; j++)
					if (ranges_intersect(is_signed, &n->opt_ranges[o].r[i],
							     &n->opt_ranges[p].r[j]))
						return false;
	return true;
}

/*
 * The selector ranges of each option: the option's own (CTF 2), or the
 * ranges of the tag's mappings that select it (CTF 1.8).
 */
static int option_ranges(struct cw_resolver *r, struct cw_node *n)
{
	const struct tmx_field_class *fc = n->fc, *tag = fc->tag;
	struct tmx_arena *a = &r->bd->p->arena;

	n->opt_ranges = tmx_arena_calloc(a, n->n_children ? n->n_children : 1, sizeof(*n->opt_ranges));
	if (!n->opt_ranges)
		return cw_nomem(r->bd);
	for (size_t o = 0; o < n->n_children; o++) {
		struct tmx_enum_range *out;
		size_t k = 0;

		if (!fc->option_for_mapping || !tag) {
			n->opt_ranges[o].n = fc->members[o].n_ranges;
			n->opt_ranges[o].r = fc->members[o].ranges;
			continue;
		}
		for (size_t m = 0; m < tag->n_mappings; m++)
			if (fc->option_for_mapping[m] == (int32_t)o)
				k += tag->mappings[m].n_ranges;
		out = tmx_arena_calloc(a, k ? k : 1, sizeof(*out));
		if (!out)
			return cw_nomem(r->bd);
		k = 0;
		for (size_t m = 0; m < tag->n_mappings; m++)
			for (size_t i = 0; fc->option_for_mapping[m] == (int32_t)o &&
					   i < tag->mappings[m].n_ranges; i++)
				out[k++] = tag->mappings[m].ranges[i];
		n->opt_ranges[o].n = k;
		n->opt_ranges[o].r = out;
	}
	return TMX_OK;
}

/* Generated variant selector: each option chosen by its index. */
static int generated_option_ranges(struct cw_resolver *r, struct cw_node *n)
{
	struct tmx_enum_range *idx;

	if (n->n_children > UINT16_MAX)
		return cw_field_error(r, n, "a variant of %zu options (at most 65535 with a "
				      "generated selector)", n->n_children);
	idx = tmx_arena_calloc(&r->bd->p->arena, n->n_children, sizeof(*idx));
	if (!idx)
		return cw_nomem(r->bd);
	for (size_t o = 0; o < n->n_children; o++) {
		idx[o].lower = idx[o].upper = o;
		n->opt_ranges[o].n = 1;
		n->opt_ranges[o].r = &idx[o];
	}
	return TMX_OK;
}

static int resolve_variant(struct cw_resolver *r, struct cw_node *n)
{
	const struct tmx_field_class *sel = NULL;
	bool found;
	int ret;

	if (!n->n_children)
		return cw_field_error(r, n, "a variant without options");
	ret = locate(r, n, WANT_VARIANT_SELECTOR, &sel, &found);
	if (!ret)
		ret = option_ranges(r, n);
	if (ret)
		return ret;
	if (found && options_ranges_ok(n, sel->is_signed))
		return TMX_OK;
	ret = generate(r, n, "_tag");
	return ret ? ret : generated_option_ranges(r, n);
}

static int resolve_optional(struct cw_resolver *r, struct cw_node *n)
{
	const struct tmx_field_class *sel = NULL;
	bool found;
	int ret = locate(r, n, WANT_OPTIONAL_SELECTOR, &sel, &found);

	if (ret)
		return ret;
	/* An integer selector needs ranges. */
	if (found && (sel->kind == TMX_FC_BOOL || n->fc->n_ranges))
		return TMX_OK;
	return generate(r, n, "_tag");
}

int cw_json_resolve(struct cw_resolver *r, struct cw_node *n)
{
	const struct tmx_field_class *len_fc;
	bool found;
	int ret;

	switch (n->op) {
	case CW_SEQUENCE:
	case CW_TEXT_SEQ:
	case CW_DYN_BLOB:
	case CW_DYN_STRING:
		ret = locate(r, n, WANT_LENGTH, &len_fc, &found);
		return ret || found ? ret : generate(r, n, "_len");
	case CW_VARIANT:
		return resolve_variant(r, n);
	case CW_OPTIONAL:
		return resolve_optional(r, n);
	default:
		return TMX_OK;
	}
}

