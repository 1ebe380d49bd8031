/*
 * Typed access to decoded values (include/tracemux/event.h).  Values are a
 * pre-order array (model.h): a structure's members follow it, each one's
 * subtree after the previous one's, so finding a member or an element is a
 * walk with tmx_value_skip().  Variants and present optionals are looked
 * through, so that a reader asks for a field's value, not for its layout.
 */
#include <string.h>

#include "model/field_class.h"
#include "tracemux/event.h"

/* The value itself, or what a variant selects / a present optional holds. */
static const struct tmx_value *through(const struct tmx_value *v)
{
	while (v) {
		if (v->fc->kind == TMX_FC_VARIANT)
			v++;
		else if (v->fc->kind == TMX_FC_OPTIONAL)
			v = v->present ? v + 1 : NULL;
		else
			break;
	}
	return v;
}

/* The type of a value already looked through (NULL: none). */
static enum tmx_value_type type_of(const struct tmx_value *v)
{
	if (!v)
		return TMX_TYPE_NONE;
	/* tmx_fc_is_text() inline: each integer read passes here */
	switch (v->fc->kind) {
	case TMX_FC_STRING:
		return TMX_TYPE_STRING;
	case TMX_FC_INT:
	case TMX_FC_ENUM:
		return v->fc->is_signed ? TMX_TYPE_SIGNED : TMX_TYPE_UNSIGNED;
	case TMX_FC_BIT_ARRAY:
		return TMX_TYPE_UNSIGNED;
	case TMX_FC_FLOAT:
		return TMX_TYPE_DOUBLE;
	case TMX_FC_BOOL:
		return TMX_TYPE_BOOL;
	case TMX_FC_BLOB:
		return TMX_TYPE_BYTES;
	case TMX_FC_ARRAY:
	case TMX_FC_SEQUENCE:
		return v->fc->is_text ? TMX_TYPE_STRING : TMX_TYPE_ARRAY;
	case TMX_FC_STRUCT:
		return TMX_TYPE_STRUCT;
	default:
		return TMX_TYPE_NONE;
	}
}

enum tmx_value_type tmx_value_type(const struct tmx_value *v)
{
	return type_of(through(v));
}

bool tmx_value_int64(const struct tmx_value *v, int64_t *out)
{
	v = through(v);
	switch (type_of(v)) {
	case TMX_TYPE_SIGNED:
		*out = v->s;
		return true;
	case TMX_TYPE_UNSIGNED:
	case TMX_TYPE_BOOL:
		if (v->u > INT64_MAX)
			return false;
		*out = (int64_t)v->u;
		return true;
	default:
		return false;
	}
}

bool tmx_value_uint64(const struct tmx_value *v, uint64_t *out)
{
	v = through(v);
	switch (type_of(v)) {
	case TMX_TYPE_SIGNED:
		if (v->s < 0)
			return false;
		*out = (uint64_t)v->s;
		return true;
	case TMX_TYPE_UNSIGNED:
	case TMX_TYPE_BOOL:
		*out = v->u;
		return true;
	default:
		return false;
	}
}

bool tmx_value_double(const struct tmx_value *v, double *out)
{
	v = through(v);
	switch (type_of(v)) {
	case TMX_TYPE_DOUBLE:
		*out = v->d;
		return true;
	case TMX_TYPE_SIGNED:
		*out = (double)v->s;
		return true;
	case TMX_TYPE_UNSIGNED:
	case TMX_TYPE_BOOL:
		*out = (double)v->u;
		return true;
	default:
		return false;
	}
}

const char *tmx_value_text(const struct tmx_value *v, size_t *len)
{
	v = through(v);
	if (type_of(v) != TMX_TYPE_STRING)
		return NULL;
	/* Text arrays end at their first NUL; strings are already cut there. */
	*len = tmx_value_text_len(v);
	return v->str.ptr ? v->str.ptr : "";
}

const uint8_t *tmx_value_bytes(const struct tmx_value *v, size_t *len)
{
	static const uint8_t none[1];

	v = through(v);
	if (!v || v->fc->kind != TMX_FC_BLOB)
		return NULL;
	*len = (size_t)v->str.len;
	return v->str.ptr ? (const uint8_t *)v->str.ptr : none;
}

/* Whether `map` of an enumeration or bit map `v` (already looked through) holds its value. */
static bool holds(const struct tmx_value *v, const struct tmx_enum_mapping *map)
{
	return tmx_mapping_holds(v->fc, map, v->u);
}

static bool has_mappings(const struct tmx_value *v)
{
	return v && (v->fc->kind == TMX_FC_ENUM || v->fc->kind == TMX_FC_BIT_ARRAY);
}

const char *tmx_value_label(const struct tmx_value *v)
{
	v = through(v);
	if (!has_mappings(v))
		return NULL;
	for (size_t m = 0; m < v->fc->n_mappings; m++)
		if (holds(v, &v->fc->mappings[m]))
			return v->fc->mappings[m].label;
	return NULL;
}

bool tmx_value_has_mapping(const struct tmx_value *v, size_t i)
{
	v = through(v);
	return has_mappings(v) && i < v->fc->n_mappings && holds(v, &v->fc->mappings[i]);
}

size_t tmx_value_length(const struct tmx_value *v)
{
	v = through(v);
	switch (type_of(v)) {
	case TMX_TYPE_ARRAY:
		return (size_t)v->count;
	case TMX_TYPE_STRUCT:
		return v->n_members;
	default:
		return 0;
	}
}

const struct tmx_value *tmx_value_element(const struct tmx_value *v, size_t i)
{
	size_t at = 1;

	v = through(v);
	if (type_of(v) != TMX_TYPE_ARRAY || i >= v->count)
		return NULL;
	while (i--)
		at = tmx_value_skip(v, at);
	return &v[at];
}

const struct tmx_value *tmx_value_member(const struct tmx_value *v, const char *name)
{
	size_t at = 1;

	v = through(v);
	if (type_of(v) != TMX_TYPE_STRUCT)
		return NULL;
	for (uint32_t m = 0; m < v->n_members; m++) {
		if (!strcmp(v->fc->members[m].name, name))
			return &v[at];
		at = tmx_value_skip(v, at);
	}
	return NULL;
}

/* Follows `path` (names separated by dots) from a scope's root structure. */
static const struct tmx_value *follow(const struct tmx_value *root, const char *path)
{
	char name[256];
	const struct tmx_value *v = root;

	while (v && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(name))
			return NULL;
		memcpy(name, path, n);
		name[n] = '\0';
		v = tmx_value_member(v, name);
		path += n + (dot != NULL);
	}
	return v;
}

const struct tmx_value *tmx_event_field_in(const struct tmx_event *ev, enum tmx_scope scope,
					   const char *path)
{
	if ((unsigned)scope >= TMX_N_SCOPES || !ev->scopes[scope] || !*path)
		return NULL;
	return follow(ev->scopes[scope], path);
}

const struct tmx_value *tmx_event_field(const struct tmx_event *ev, const char *path)
{
	static const enum tmx_scope order[] = { TMX_SCOPE_PAYLOAD, TMX_SCOPE_SPECIFIC_CONTEXT,
						TMX_SCOPE_COMMON_CONTEXT,
						TMX_SCOPE_PACKET_CONTEXT };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct tmx_value *v = tmx_event_field_in(ev, order[i], path);

		if (v)
			return v;
	}
	return NULL;
}

/* Where each format keeps the CPU (see event.h). */
static const struct {
	uint8_t format;
	enum tmx_scope scope;
	const char *name;
} cpu_fields[] = {
	{ TMX_FORMAT_CTF, TMX_SCOPE_PACKET_CONTEXT, "cpu_id" },
	{ TMX_FORMAT_TRACEDAT, TMX_SCOPE_PACKET_CONTEXT, "cpu_id" },
	{ TMX_FORMAT_XRAY, TMX_SCOPE_COMMON_CONTEXT, "cpu" },
};

static bool is_int_member(const struct tmx_field_class *st, const char *name)
{
	for (size_t i = 0; st && i < tmx_fc_member_count(st); i++)
		if (tmx_fc_member_name(st, i) && !strcmp(tmx_fc_member_name(st, i), name)) {
			enum tmx_fc_kind k = tmx_fc_kind(tmx_fc_member_class(st, i));
			return k == TMX_FC_INT || k == TMX_FC_ENUM;
		}
	return false;
}

const char *tmx_stream_class_cpu_field(const struct tmx_stream_class *sc, enum tmx_scope *scope)
{
	for (size_t i = 0; i < sizeof(cpu_fields) / sizeof(cpu_fields[0]); i++) {
		const struct tmx_field_class *root;

		if (cpu_fields[i].format != sc->trace_class->format)
			continue;
		root = cpu_fields[i].scope == TMX_SCOPE_PACKET_CONTEXT ? sc->packet_context
								       : sc->event_common_context;
		if (!is_int_member(root, cpu_fields[i].name))
			return NULL;
		*scope = cpu_fields[i].scope;
		return cpu_fields[i].name;
	}
	return NULL;
}

bool tmx_event_cpu(const struct tmx_event *ev, uint64_t *cpu)
{
	enum tmx_scope scope;
	const char *name = tmx_stream_class_cpu_field(ev->cls->stream_class, &scope);

	return name && tmx_value_uint64(tmx_event_field_in(ev, scope, name), cpu);
}
