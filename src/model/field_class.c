/*
 * The public accessors of field classes (include/tracemux/model.h): the
 * class itself is private (model/field_class.h).
 */
#include "model/field_class.h"
#include "common/arena.h"

enum tmx_fc_kind tmx_fc_kind(const struct tmx_field_class *fc)
{
	return fc->kind;
}

static bool is_fixed(const struct tmx_field_class *fc)
{
	switch (fc->kind) {
	case TMX_FC_INT:
	case TMX_FC_ENUM:
	case TMX_FC_FLOAT:
	case TMX_FC_BOOL:
	case TMX_FC_BIT_ARRAY:
		return true;
	default:
		return false;
	}
}

uint32_t tmx_fc_size(const struct tmx_field_class *fc)
{
	return is_fixed(fc) ? fc->size : 0;
}

bool tmx_fc_is_signed(const struct tmx_field_class *fc)
{
	return (fc->kind == TMX_FC_INT || fc->kind == TMX_FC_ENUM || fc->kind == TMX_FC_FLOAT) &&
	       fc->is_signed;
}

unsigned tmx_fc_base(const struct tmx_field_class *fc)
{
	return (fc->kind == TMX_FC_INT || fc->kind == TMX_FC_ENUM) && fc->base ? fc->base : 10;
}

bool tmx_fc_is_text(const struct tmx_field_class *fc)
{
	return fc->kind == TMX_FC_STRING ||
	       ((fc->kind == TMX_FC_ARRAY || fc->kind == TMX_FC_SEQUENCE) && fc->is_text);
}

size_t tmx_fc_member_count(const struct tmx_field_class *fc)
{
	return fc->kind == TMX_FC_STRUCT || fc->kind == TMX_FC_VARIANT ? fc->n_members : 0;
}

const char *tmx_fc_member_name(const struct tmx_field_class *fc, size_t i)
{
	return i < tmx_fc_member_count(fc) ? fc->members[i].name : NULL;
}

const struct tmx_field_class *tmx_fc_member_class(const struct tmx_field_class *fc, size_t i)
{
	return i < tmx_fc_member_count(fc) ? fc->members[i].fc : NULL;
}

const struct tmx_field_class *tmx_fc_element(const struct tmx_field_class *fc)
{
	switch (fc->kind) {
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
	case TMX_FC_OPTIONAL:
		return fc->elem;
	default:
		return NULL;
	}
}

uint64_t tmx_fc_length(const struct tmx_field_class *fc)
{
	switch (fc->kind) {
	case TMX_FC_ARRAY:
		return fc->length;
	case TMX_FC_BLOB:
		return fc->ref_slot < 0 ? fc->length : 0;
	case TMX_FC_STRING:
		return fc->str_length == TMX_STR_STATIC ? fc->length : 0;
	default:
		return 0;
	}
}

size_t tmx_fc_mapping_count(const struct tmx_field_class *fc)
{
	return fc->kind == TMX_FC_ENUM || fc->kind == TMX_FC_BIT_ARRAY ? fc->n_mappings : 0;
}

const char *tmx_fc_mapping_label(const struct tmx_field_class *fc, size_t i)
{
	return i < tmx_fc_mapping_count(fc) ? fc->mappings[i].label : NULL;
}

const struct tmx_clock_class *tmx_fc_mapped_clock(const struct tmx_field_class *fc)
{
	return fc->mapped_clock;
}

struct tmx_field_class *tmx_fc_new(struct tmx_arena *a, enum tmx_fc_kind kind)
{
	struct tmx_field_class *fc = tmx_arena_calloc(a, 1, sizeof(*fc));

	if (fc) {
		fc->kind = kind;
		fc->align = 8;
		fc->slot = -1;
		fc->ref_slot = -1;
		fc->base = 10;
	}
	return fc;
}
