/*
 * The CTF 2 metadata stream (spec 5): a JSON text sequence (RFC 7464) of
 * fragments, each preceded by a record separator (0x1E).  As babeltrace
 * 2.1 does, consecutive separators are skipped and a fragment runs to the
 * next separator.
 *
 *   preamble             first, exactly once: version 2, optional UUID,
 *                        extension declarations (none is supported)
 *   field-class-alias    a name for a field class
 *   trace-class          at most one, before any data stream class
 *   clock-class          referred to by data stream classes by `id`
 *   data-stream-class    its scopes resolved against the packet header
 *   event-record-class   its scopes resolved against its data stream class
 *
 * Errors name the fragment (1-based), its byte offset and line:column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf2.h"
#include "common/errors.h"
#include "model/field_class.h"

#define TRY(x) do { int ret_ = (x); if (ret_) return ret_; } while (0)
#define FRAGMENT_KEYS "type", "attributes", "extensions"
#define RS 0x1E

/* ------------------------------------------------------------------ */
/* Name maps                                                            */
/* ------------------------------------------------------------------ */

static size_t map_slot(const struct ctf2_map *m, const char *key)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */
	size_t i;

	for (const char *c = key; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	for (i = (size_t)h & (m->cap - 1); m->keys[i] && strcmp(m->keys[i], key);)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *ctf2_map_get(const struct ctf2_map *m, const char *key)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = map_slot(m, key);
	return m->keys[i] ? m->vals[i] : NULL;
}

static int map_grow(struct ctf2_parser *p, struct ctf2_map *m)
{
	struct ctf2_map g = { .cap = m->cap ? 2 * m->cap : 64 };

	g.keys = calloc(g.cap, sizeof(*g.keys));
	g.vals = calloc(g.cap, sizeof(*g.vals));
	if (!g.keys || !g.vals) {
		ctf2_map_fini(&g);
		return ctf2_nomem(p);
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			size_t j = map_slot(&g, m->keys[i]);
			g.keys[j] = m->keys[i];
			g.vals[j] = m->vals[i];
		}
	g.n = m->n;
	ctf2_map_fini(m);
	*m = g;
	return TMX_OK;
}

int ctf2_map_put(struct ctf2_parser *p, struct ctf2_map *m, const char *key, void *val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap)
		TRY(map_grow(p, m));
	i = map_slot(m, key);
	if (m->keys[i])
		return 1;
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
	return TMX_OK;
}

void ctf2_map_fini(struct ctf2_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* Appends to an arena array whose capacity doubles (old blocks stay in the arena). */
static void *append_slot(struct ctf2_parser *p, void **array, size_t *n, size_t *cap,
			 size_t size)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		void *a = tmx_arena_grow(p->arena, *array, *n, c, size);
		if (!a)
			return NULL;
		*array = a;
		*cap = c;
	}
	return (char *)*array + (*n)++ * size;
}

/* ------------------------------------------------------------------ */
/* Shared properties                                                    */
/* ------------------------------------------------------------------ */

static int check_common(struct ctf2_parser *p, json_object *frag, const char *const *keys,
			const char *what)
{
	TRY(ctf2_check_keys(p, frag, keys, what));
	TRY(ctf2_check_attributes(p, frag));
	return ctf2_check_extensions(p, frag);
}

static int get_ns_name_uid(struct ctf2_parser *p, json_object *obj, char **ns, char **name,
			   char **uid)
{
	TRY(ctf2_get_string(p, obj, "namespace", false, (const char **)ns));
	TRY(ctf2_get_string(p, obj, "name", false, (const char **)name));
	return ctf2_get_string(p, obj, "uid", false, (const char **)uid);
}

/* ------------------------------------------------------------------ */
/* Preamble (5.4) and field class aliases (5.5)                         */
/* ------------------------------------------------------------------ */

static int preamble(struct ctf2_parser *p, json_object *frag)
{
	static const char *const keys[] = { FRAGMENT_KEYS, "version", "uuid", NULL };
	json_object *uuid = NULL, *vv = NULL;
	uint64_t version = 0;

	if (p->frag_no > 1)
		return ctf2_error(p, frag, "the preamble fragment must be the first fragment");
	TRY(check_common(p, frag, keys, "the preamble fragment"));
	TRY(ctf2_get_uint(p, frag, "version", true, 0, UINT64_MAX, &version, NULL));
	if (version != 2) {
		json_object_object_get_ex(frag, "version", &vv);
		return ctf2_error(p, vv, "`version`: expected 2 (CTF 2), got %llu",
				  (unsigned long long)version);
	}
	TRY(ctf2_get_array(p, frag, "uuid", false, &uuid));
	if (!uuid)
		return TMX_OK;
	if (json_object_array_length(uuid) != 16)
		return ctf2_error(p, uuid, "`uuid`: expected an array of 16 integers from 0 to 255");
	for (size_t i = 0; i < 16; i++) {
		json_object *b = json_object_array_get_idx(uuid, i);
		bool neg;
		uint64_t u;
		TRY(ctf2_int_value(p, b, "`uuid` element", &neg, &u));
		if (neg || u > 255)
			return ctf2_error(p, b, "`uuid`: expected integers from 0 to 255");
		p->uuid[i] = (uint8_t)u;
	}
	memcpy(p->tc->uuid, p->uuid, 16);
	p->tc->has_uuid = p->has_uuid = true;
	return TMX_OK;
}

static int field_class_alias(struct ctf2_parser *p, json_object *frag)
{
	static const char *const keys[] = { FRAGMENT_KEYS, "name", "field-class", NULL };
	json_object *nv = NULL, *fv = NULL;
	struct tmx_field_class *fc;
	const char *name;

	TRY(check_common(p, frag, keys, "a field class alias fragment"));
	TRY(ctf2_get_string(p, frag, "name", true, &name));
	if (!json_object_object_get_ex(frag, "field-class", &fv))
		return ctf2_error(p, frag, "missing property `field-class` (a field class)");
	p->member = NULL;
	TRY(ctf2_fc_build(p, fv, 0, &fc));
	json_object_object_get_ex(frag, "name", &nv);
	return ctf2_alias_add(p, nv, name, fc);
}

/* ------------------------------------------------------------------ */
/* Trace class (5.6)                                                    */
/* ------------------------------------------------------------------ */

static int environment(struct ctf2_parser *p, json_object *frag)
{
	struct tmx_trace_class *tc = p->tc;
	json_object *env = NULL;
	size_t i = 0;

	TRY(ctf2_get_object(p, frag, "environment", false, &env));
	if (!env || !(tc->n_env = (size_t)json_object_object_length(env)))
		return TMX_OK;
	if (!(tc->env = tmx_arena_calloc(p->arena, tc->n_env, sizeof(*tc->env))))
		return ctf2_nomem(p);
	json_object_object_foreach(env, key, val) {
		struct tmx_env_entry *e = &tc->env[i++];
		char what[160];
		snprintf(what, sizeof(what), "environment entry `%.100s`", key);
		if (!(e->name = tmx_arena_strdup(p->arena, key)))
			return ctf2_nomem(p);
		if (json_object_is_type(val, json_type_int)) {
			e->is_int = true;
			TRY(ctf2_sint_value(p, val, what, &e->int_value));
		} else if (json_object_is_type(val, json_type_string)) {
			TRY(ctf2_string_value(p, val, what, (const char **)&e->str_value));
		} else {
			return ctf2_error(p, val ? val : env, "%s: expected an integer or a string",
					  what);
		}
	}
	return TMX_OK;
}

static int trace_class(struct ctf2_parser *p, json_object *frag)
{
	static const char *const keys[] = { FRAGMENT_KEYS, "namespace", "name", "uid",
					    "environment", "packet-header-field-class", NULL };
	struct tmx_trace_class *tc = p->tc;
	struct ctf2_scopes roots = { { NULL } };
	const struct tmx_field_class *magic;

	if (p->has_trace_fragment)
		return ctf2_error(p, frag, "a metadata stream has at most one trace class fragment");
	if (tc->n_stream_classes)
		return ctf2_error(p, frag, "the trace class fragment must come before the data "
				  "stream class fragments");
	p->has_trace_fragment = true;
	TRY(check_common(p, frag, keys, "the trace class fragment"));
	TRY(get_ns_name_uid(p, frag, &tc->ns, &tc->name, &tc->uid));
	TRY(environment(p, frag));
	TRY(ctf2_scope_fc_build(p, frag, "packet-header-field-class", &roots.root[CTF2_SCOPE_PH]));
	TRY(ctf2_resolve_scope(p, &roots, CTF2_SCOPE_PH, NULL));
	tc->packet_header = roots.root[CTF2_SCOPE_PH];
	/* The packet magic's byte order is the one a lenient reader looks for. */
	magic = tc->packet_header && tc->packet_header->n_members ?
		tc->packet_header->members[0].fc : NULL;
	if (magic && magic->meaning == TMX_MEANING_MAGIC)
		tc->native_byte_order = magic->byte_order;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Clock class (5.7)                                                    */
/* ------------------------------------------------------------------ */

static int clock_origin(struct ctf2_parser *p, json_object *frag, struct tmx_clock_class *cc)
{
	static const char *const keys[] = { "namespace", "name", "uid", NULL };
	json_object *o = NULL;

	if (!json_object_object_get_ex(frag, "origin", &o))
		return TMX_OK;   /* no known origin */
	if (json_object_is_type(o, json_type_string)) {
		if (strcmp(json_object_get_string(o), "unix-epoch"))
			return ctf2_error(p, o, "`origin`: expected \"unix-epoch\" or a clock origin "
					  "object, got \"%s\"", json_object_get_string(o));
		cc->origin_is_unix_epoch = cc->absolute = true;
		return TMX_OK;
	}
	if (!json_object_is_type(o, json_type_object))
		return ctf2_error(p, o ? o : frag, "`origin`: expected \"unix-epoch\" or a clock "
				  "origin object");
	TRY(ctf2_check_keys(p, o, keys, "a clock origin"));
	TRY(ctf2_get_string(p, o, "namespace", false, (const char **)&cc->origin_ns));
	TRY(ctf2_get_string(p, o, "name", true, (const char **)&cc->origin_name));
	return ctf2_get_string(p, o, "uid", true, (const char **)&cc->origin_uid);
}

static int clock_offset(struct ctf2_parser *p, json_object *frag, struct tmx_clock_class *cc)
{
	static const char *const keys[] = { "seconds", "cycles", NULL };
	json_object *o = NULL, *sv = NULL;

	TRY(ctf2_get_object(p, frag, "offset-from-origin", false, &o));
	if (!o)
		return TMX_OK;
	TRY(ctf2_check_keys(p, o, keys, "a clock offset"));
	if (json_object_object_get_ex(o, "seconds", &sv))
		TRY(ctf2_sint_value(p, sv, "`seconds`", &cc->offset_s));
	/* Spec 5.7.2: the cycles are less than the frequency. */
	return ctf2_get_uint(p, o, "cycles", false, 0, cc->frequency - 1, &cc->offset_cycles, NULL);
}

static int clock_class(struct ctf2_parser *p, json_object *frag)
{
	static const char *const keys[] = {
		FRAGMENT_KEYS, "id", "namespace", "name", "uid", "frequency", "origin",
		"offset-from-origin", "precision", "accuracy", "description", NULL,
	};
	struct tmx_trace_class *tc = p->tc;
	struct tmx_clock_class *cc = tmx_arena_alloc(p->arena, sizeof(*cc)), **slot;
	json_object *idv = NULL;
	int ret;

	if (!cc)
		return ctf2_nomem(p);
	TRY(check_common(p, frag, keys, "a clock class fragment"));
	TRY(ctf2_get_string(p, frag, "id", true, (const char **)&cc->ctf2_id));
	TRY(get_ns_name_uid(p, frag, &cc->ns, &cc->name, &cc->uid));
	TRY(ctf2_get_uint(p, frag, "frequency", true, 1, UINT64_MAX, &cc->frequency, NULL));
	TRY(clock_origin(p, frag, cc));
	TRY(clock_offset(p, frag, cc));
	TRY(ctf2_get_uint(p, frag, "precision", false, 0, UINT64_MAX, &cc->precision,
			  &cc->has_precision));
	TRY(ctf2_get_uint(p, frag, "accuracy", false, 0, UINT64_MAX, &cc->accuracy,
			  &cc->has_accuracy));
	TRY(ctf2_get_string(p, frag, "description", false, (const char **)&cc->description));
	ret = ctf2_map_put(p, &p->clocks, cc->ctf2_id, cc);
	if (ret == 1) {
		json_object_object_get_ex(frag, "id", &idv);
		return ctf2_error(p, idv, "a clock class with ID `%s` already exists", cc->ctf2_id);
	}
	TRY(ret);
	slot = append_slot(p, (void **)&tc->clocks, &tc->n_clocks, &p->cap_clocks, sizeof(*slot));
	if (!slot)
		return ctf2_nomem(p);
	*slot = cc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Data stream class (5.8)                                              */
/* ------------------------------------------------------------------ */

/* A stream class and the capacity of its event class array. */
struct stream_class {
	struct tmx_stream_class sc;
	size_t cap_events;
};

static int default_clock(struct ctf2_parser *p, json_object *frag, struct tmx_stream_class *sc)
{
	const char *id = NULL;
	json_object *idv = NULL;

	TRY(ctf2_get_string(p, frag, "default-clock-class-id", false, &id));
	if (!id)
		return TMX_OK;
	if (!(sc->default_clock = ctf2_map_get(&p->clocks, id))) {
		json_object_object_get_ex(frag, "default-clock-class-id", &idv);
		return ctf2_error(p, idv, "`default-clock-class-id`: no clock class fragment with ID "
				  "`%s` before this fragment", id);
	}
	return TMX_OK;
}

/* The data stream class's scopes, each resolved against those before it. */
static int stream_scopes(struct ctf2_parser *p, json_object *frag, struct tmx_stream_class *sc)
{
	struct ctf2_scopes roots = { { p->tc->packet_header } };
	static const char *const keys[] = {
		[CTF2_SCOPE_PC] = "packet-context-field-class",
		[CTF2_SCOPE_EH] = "event-record-header-field-class",
		[CTF2_SCOPE_ECC] = "event-record-common-context-field-class",
	};

	for (int s = CTF2_SCOPE_PC; s <= CTF2_SCOPE_ECC; s++) {
		TRY(ctf2_scope_fc_build(p, frag, keys[s], &roots.root[s]));
		TRY(ctf2_resolve_scope(p, &roots, (enum ctf2_scope)s, sc->default_clock));
	}
	sc->packet_context = roots.root[CTF2_SCOPE_PC];
	sc->event_header = roots.root[CTF2_SCOPE_EH];
	sc->event_common_context = roots.root[CTF2_SCOPE_ECC];
	return TMX_OK;
}

static int data_stream_class(struct ctf2_parser *p, json_object *frag)
{
	static const char *const keys[] = {
		FRAGMENT_KEYS, "id", "namespace", "name", "uid", "default-clock-class-id",
		"packet-context-field-class", "event-record-header-field-class",
		"event-record-common-context-field-class", NULL,
	};
	struct tmx_trace_class *tc = p->tc;
	struct tmx_stream_class *sc = tmx_arena_alloc(p->arena, sizeof(struct stream_class)), **slot;
	char key[24], *k, *ns = NULL, *name = NULL, *uid = NULL;
	json_object *idv = NULL;
	int ret;

	if (!sc)
		return ctf2_nomem(p);
	TRY(check_common(p, frag, keys, "a data stream class fragment"));
	TRY(ctf2_get_uint(p, frag, "id", false, 0, UINT64_MAX, &sc->id, &sc->id_is_set));
	/* The model keeps no data stream class identity: checked only. */
	TRY(get_ns_name_uid(p, frag, &ns, &name, &uid));
	TRY(default_clock(p, frag, sc));
	snprintf(key, sizeof(key), "%llu", (unsigned long long)sc->id);
	if (!(k = tmx_arena_strdup(p->arena, key)))
		return ctf2_nomem(p);
	ret = ctf2_map_put(p, &p->streams, k, sc);
	if (ret == 1) {
		json_object_object_get_ex(frag, "id", &idv);
		return ctf2_error(p, idv ? idv : frag, "a data stream class with ID %s already exists",
				  key);
	}
	TRY(ret);
	sc->trace_class = tc;
	TRY(stream_scopes(p, frag, sc));
	slot = append_slot(p, (void **)&tc->stream_classes, &tc->n_stream_classes, &p->cap_streams,
			   sizeof(*slot));
	if (!slot)
		return ctf2_nomem(p);
	*slot = sc;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* Event record class (5.9)                                             */
/* ------------------------------------------------------------------ */

/* babeltrace 2.1's log level names, numbered as CTF 1.8/LTTng `loglevel` values. */
static const char *const log_levels[] = {
	"emergency", "alert", "critical", "error", "warning", "notice", "info", "debug:system",
	"debug:program", "debug:process", "debug:module", "debug:unit", "debug:function",
	"debug:line", "debug",
};

/*
 * `attributes`: the log level and EMF URI as babeltrace 2.1 finds them, a
 * string in the babeltrace.org,2020 namespace, else in LTTng's; other
 * values (an integer log level, an unknown name) are ignored as it does.
 */
static const char *attr_string(json_object *attrs, const char *name)
{
	static const char *const namespaces[] = { "babeltrace.org,2020", "lttng.org,2009" };

	for (int i = 0; i < 2; i++) {
		json_object *ns = NULL, *v = NULL;
		if (json_object_object_get_ex(attrs, namespaces[i], &ns) &&
		    json_object_is_type(ns, json_type_object) &&
		    json_object_object_get_ex(ns, name, &v) && json_object_is_type(v, json_type_string))
			return json_object_get_string(v);
	}
	return NULL;
}

static int event_attributes(struct ctf2_parser *p, json_object *frag, struct tmx_event_class *ec)
{
	json_object *attrs = NULL;
	const char *s;

	ec->log_level = TMX_LOG_LEVEL_NONE;
	if (!json_object_object_get_ex(frag, "attributes", &attrs))
		return TMX_OK;
	if ((s = attr_string(attrs, "log-level")))
		for (int i = 0; i < (int)(sizeof(log_levels) / sizeof(log_levels[0])); i++)
			if (!strcmp(s, log_levels[i]))
				ec->log_level = i;
	if ((s = attr_string(attrs, "emf-uri")) && !(ec->emf_uri = tmx_arena_strdup(p->arena, s)))
		return ctf2_nomem(p);
	return TMX_OK;
}

static int parent_stream(struct ctf2_parser *p, json_object *frag, struct tmx_stream_class **out)
{
	uint64_t id = 0;
	char key[24];
	json_object *idv = NULL;

	TRY(ctf2_get_uint(p, frag, "data-stream-class-id", false, 0, UINT64_MAX, &id, NULL));
	snprintf(key, sizeof(key), "%llu", (unsigned long long)id);
	if (!(*out = ctf2_map_get(&p->streams, key))) {
		json_object_object_get_ex(frag, "data-stream-class-id", &idv);
		return ctf2_error(p, idv ? idv : frag, "no data stream class fragment with ID %s "
				  "before this fragment", key);
	}
	return TMX_OK;
}

/* An (data stream class, ID) pair is unique. */
static int unique_event_id(struct ctf2_parser *p, json_object *frag, struct tmx_event_class *ec)
{
	char key[48], *k;
	json_object *idv = NULL;
	int ret;

	snprintf(key, sizeof(key), "%p:%llu", (void *)ec->stream_class, (unsigned long long)ec->id);
	if (!(k = tmx_arena_strdup(p->arena, key)))
		return ctf2_nomem(p);
	ret = ctf2_map_put(p, &p->events, k, ec);
	if (ret == 1) {
		json_object_object_get_ex(frag, "id", &idv);
		return ctf2_error(p, idv ? idv : frag, "an event record class with ID %llu already "
				  "exists in data stream class %llu", (unsigned long long)ec->id,
				  (unsigned long long)ec->stream_class->id);
	}
	return ret;
}

static int event_record_class(struct ctf2_parser *p, json_object *frag)
{
	static const char *const keys[] = {
		FRAGMENT_KEYS, "id", "data-stream-class-id", "namespace", "name", "uid",
		"specific-context-field-class", "payload-field-class", NULL,
	};
	struct tmx_event_class *ec = tmx_arena_alloc(p->arena, sizeof(*ec)), **slot;
	struct tmx_stream_class *sc;
	struct ctf2_scopes roots = { { p->tc->packet_header } };

	if (!ec)
		return ctf2_nomem(p);
	TRY(check_common(p, frag, keys, "an event record class fragment"));
	TRY(parent_stream(p, frag, &sc));
	TRY(ctf2_get_uint(p, frag, "id", false, 0, UINT64_MAX, &ec->id, NULL));
	TRY(get_ns_name_uid(p, frag, &ec->ns, &ec->name, &ec->uid));
	TRY(event_attributes(p, frag, ec));
	ec->stream_class = sc;
	TRY(unique_event_id(p, frag, ec));
	roots.root[CTF2_SCOPE_PC] = sc->packet_context;
	roots.root[CTF2_SCOPE_EH] = sc->event_header;
	roots.root[CTF2_SCOPE_ECC] = sc->event_common_context;
	TRY(ctf2_scope_fc_build(p, frag, "specific-context-field-class", &roots.root[CTF2_SCOPE_ESC]));
	TRY(ctf2_resolve_scope(p, &roots, CTF2_SCOPE_ESC, sc->default_clock));
	TRY(ctf2_scope_fc_build(p, frag, "payload-field-class", &roots.root[CTF2_SCOPE_EP]));
	TRY(ctf2_resolve_scope(p, &roots, CTF2_SCOPE_EP, sc->default_clock));
	ec->specific_context = roots.root[CTF2_SCOPE_ESC];
	ec->payload = roots.root[CTF2_SCOPE_EP];
	/*
	 * Appended now (later locations may merge slots and renumber every
	 * class so far), sorted by ID at the end.
	 */
	slot = append_slot(p, (void **)&sc->event_classes, &sc->n_event_classes,
			   &((struct stream_class *)sc)->cap_events, sizeof(*slot));
	if (!slot)
		return ctf2_nomem(p);
	*slot = ec;
	return TMX_OK;
}

/* ------------------------------------------------------------------ */
/* The fragment stream                                                  */
/* ------------------------------------------------------------------ */

static int fragment(struct ctf2_parser *p)
{
	static const struct {
		const char *type;
		int (*read)(struct ctf2_parser *, json_object *);
	} kinds[] = {
		{ "preamble", preamble },
		{ "field-class-alias", field_class_alias },
		{ "trace-class", trace_class },
		{ "clock-class", clock_class },
		{ "data-stream-class", data_stream_class },
		{ "event-record-class", event_record_class },
	};
	json_object *frag = p->json.root;
	const char *type;

	if (!json_object_is_type(frag, json_type_object))
		return ctf2_error(p, frag, "a fragment is a JSON object (got another JSON value)");
	TRY(ctf2_get_string(p, frag, "type", true, &type));
	if (p->frag_no == 1 && strcmp(type, "preamble"))
		return ctf2_error(p, frag, "the first fragment must be the preamble fragment (got "
				  "\"%s\")", type);
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(type, kinds[k].type)) {
			p->frag_type = kinds[k].type;
			return kinds[k].read(p, frag);
		}
	return ctf2_error(p, frag, "unknown fragment type \"%s\" (expected \"preamble\", "
			  "\"field-class-alias\", \"trace-class\", \"clock-class\", "
			  "\"data-stream-class\" or \"event-record-class\")", type);
}

static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\r\n", s[i]) || !s[i])
			return false;
	return true;
}

static int fragments(struct ctf2_parser *p)
{
	struct ctf2_pos pos = { 0, 1, 1 };
	size_t i = 0;

	while (i < p->len) {
		size_t start, end;
		/* RS is not a newline: the column moves on. */
		for (start = i; start < p->len && p->text[start] == RS; start++)
			;
		pos = ctf2_pos_advance(p->text + i, start - i, pos);
		if (start == p->len)
			break;
		for (end = start; end < p->len && p->text[end] != RS; end++)
			;
		p->frag_no++;
		p->frag_pos = pos;
		p->frag_type = NULL;
		if (blank(p->text + start, end - start))
			return ctf2_error_pos(p, TMX_ERR_METADATA, pos, "empty fragment (expected a JSON "
					      "object after the record separator)");
		TRY(ctf2_json_parse(p, p->text + start, end - start, pos));
		TRY(fragment(p));
		pos = ctf2_pos_advance(p->text + start, end - start, pos);
		i = end;
	}
	return TMX_OK;
}

static int cmp_event_class(const void *a, const void *b)
{
	const struct tmx_event_class *x = *(struct tmx_event_class *const *)a;
	const struct tmx_event_class *y = *(struct tmx_event_class *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int ctf2_metadata_parse(const char *text, size_t len, const char *name,
			const struct tmx_diag *diag, struct tmx_arena *arena,
			struct tmx_trace_class **out, struct tmx_error *err)
{
	struct ctf2_parser p = {
		.arena = arena, .err = err, .diag = diag, .name = name, .text = text, .len = len,
	};
	int ret;

	*out = NULL;
	if (len > CTF_METADATA_MAX_SIZE)
		return tmx_error_set(err, TMX_ERR_LIMIT, name, "metadata larger than %u bytes",
				     CTF_METADATA_MAX_SIZE);
	if (!(p.tc = tmx_arena_alloc(arena, sizeof(struct tmx_trace_class_impl))))
		return tmx_error_set(err, TMX_ERR_NOMEM, name, "out of memory");
	p.tc->major = 2;
	p.tc->minor = 0;
	p.tc->native_byte_order = TMX_BO_LE;
	ret = fragments(&p);
	/* babeltrace 2.1's words: a trace needs at least one data stream class. */
	if (!ret && !p.tc->n_stream_classes)
		ret = tmx_error_set(err, TMX_ERR_METADATA, name,
				    "Missing data stream class fragment in metadata stream.");
	if (!ret)
		ret = ctf2_finish_slots(&p);
	for (size_t s = 0; !ret && s < p.tc->n_stream_classes; s++) {
		struct tmx_stream_class *sc = p.tc->stream_classes[s];
		if (sc->n_event_classes > 1)
			qsort(sc->event_classes, sc->n_event_classes, sizeof(*sc->event_classes),
			      cmp_event_class);
	}
	ctf2_json_fini(&p.json);
	free(p.json.vals);
	free(p.json.keys);
	ctf2_map_fini(&p.aliases);
	ctf2_map_fini(&p.clocks);
	ctf2_map_fini(&p.streams);
	ctf2_map_fini(&p.events);
	free(p.slot_parent);
	if (!ret)
		*out = p.tc;
	return ret;
}
