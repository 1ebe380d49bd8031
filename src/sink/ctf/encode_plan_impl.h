/*
 * What the CTF writer's plan builder (plan_build.c) shares with its two
 * metadata generators (tsdl_gen.c, json_gen.c): the builder, the walk
 * over dependent fields (sequences, variants, optionals, dynamic BLOBs and
 * strings) with the ancestors of the current node, and the search for the
 * field a length or selector refers to.
 */
#ifndef TMX_SINK_CTF_ENCODE_PLAN_IMPL_H
#define TMX_SINK_CTF_ENCODE_PLAN_IMPL_H

#include "sink/ctf/encode_plan.h"
#include "sink/ctf/sbuf.h"

#define CW_MAX_DEPTH 258

struct cw_builder {
	struct cw_trace_plan *p;
	struct tmx_error *err;
	/* Where the node being built is, for errors: scope, then member names. */
	char where[160];
	const char *names[CW_MAX_DEPTH];
};

struct cw_path {
	size_t n;
	struct cw_node *nodes[CW_MAX_DEPTH];   /* root first */
};

struct cw_resolver {
	struct cw_builder *bd;
	struct cw_node *roots[CW_N_SCOPES];
	int scope;                             /* the scope being resolved */
	struct cw_path stack;                  /* ancestors of the current node */
	const struct tmx_stream_class *sc;
	const struct tmx_event_class *ec;      /* NULL in the stream's scopes */
};

int cw_nomem(struct cw_builder *bd);
char *cw_strdup(struct cw_builder *bd, const char *s);

/* Whether `n` needs a length or selector field (sequence, variant...). */
bool cw_is_dependent(const struct cw_node *n);
/*
 * The field the length/selector of dependent node `n` refers to: the tag
 * class itself when the model names it, else the field whose slot is
 * n->fc->ref_slot, searched in the scopes up to the current one.  Fills
 * `target` (root first) and `scope`; false when it is in no scope the
 * writer writes (the event header, or no field at all).
 */
bool cw_find_target(struct cw_resolver *r, const struct cw_node *n, struct cw_path *target,
		    int *scope);
/*
 * An UNSUPPORTED error about the field `n` being resolved, named by its
 * event class (or stream class), scope and member path:
 * "CTF writer: event class `x` (id 3), payload field `a.b`: ...".
 */
int cw_field_error(struct cw_resolver *r, const struct cw_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The name of `n` as written (a member or option), the parent's element otherwise. */
const char *cw_node_base_name(const struct cw_resolver *r, const struct cw_node *n);

/* Per version: references of dependent node `n` (the walk calls it in field order). */
int cw_tsdl_resolve(struct cw_resolver *r, struct cw_node *n);
int cw_json_resolve(struct cw_resolver *r, struct cw_node *n);
/* Per version: the metadata text into p->metadata. */
int cw_tsdl_text(struct cw_trace_plan *p, struct tmx_error *err);
int cw_json_text(struct cw_trace_plan *p, struct tmx_error *err);

/* Whether the model's input is CTF (1.8 or 2): its packets say which properties they have. */
bool cw_input_is_ctf(const struct tmx_trace_class *tc);

#endif
