/* Parquet schemas: see schema.h. */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sink/parquet/schema.h"
#include "sink/parquet/thrift.h"

/* parquet.thrift's ConvertedType values written beside the logical types. */
enum { CT_UTF8 = 0, CT_LIST = 3, CT_UINT_8 = 11, CT_INT_8 = 15 };

void pq_schema_init(struct pq_schema *s)
{
	*s = (struct pq_schema){ 0 };
	pq_schema_group(s, -1, "schema", PQ_REQUIRED, PQ_LT_NONE);
}

void pq_schema_free(struct pq_schema *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->elems[i].name);
	free(s->elems);
	free(s->col_elem);
	free(s->max_def);
	free(s->max_rep);
	*s = (struct pq_schema){ 0 };
}

static int add(struct pq_schema *s, int parent, const char *name, enum pq_repetition rep)
{
	void *p = s->elems;
	struct pq_elem *e;
	char *copy = strdup(name);

	if (s->oom || !copy || !tmx_grow_array(&p, &s->cap, s->n + 1, sizeof(*e), 16)) {
		free(copy);
		s->oom = true;
		return -1;
	}
	s->elems = p;
	e = &s->elems[s->n];
	*e = (struct pq_elem){ .name = copy, .parent = parent, .repetition = (uint8_t)rep,
			       .col = -1 };
	return (int)s->n++;
}

int pq_schema_group(struct pq_schema *s, int parent, const char *name, enum pq_repetition rep,
		    enum pq_logical logical)
{
	int i = add(s, parent, name, rep);

	if (i >= 0)
		s->elems[i].logical = (uint8_t)logical;
	return i;
}

int pq_schema_leaf(struct pq_schema *s, int parent, const char *name, enum pq_repetition rep,
		   struct pq_type type)
{
	int i = add(s, parent, name, rep);

	if (i < 0)
		return -1;
	s->elems[i].leaf = true;
	s->elems[i].type = type;
	s->elems[i].col = (int)s->n_cols++;
	return s->elems[i].col;
}

bool pq_schema_has_child(const struct pq_schema *s, int parent, const char *name)
{
	for (size_t i = (size_t)parent + 1; i < s->n; i++)
		if (s->elems[i].parent == parent && !strcmp(s->elems[i].name, name))
			return true;
	return false;
}

bool pq_schema_finish(struct pq_schema *s)
{
	if (s->oom)
		return false;
	s->col_elem = malloc((s->n_cols ? s->n_cols : 1) * sizeof(*s->col_elem));
	s->max_def = malloc(s->n_cols ? s->n_cols : 1);
	s->max_rep = malloc(s->n_cols ? s->n_cols : 1);
	if (!s->col_elem || !s->max_def || !s->max_rep)
		return !(s->oom = true);
	for (size_t i = 1; i < s->n; i++) {
		struct pq_elem *e = &s->elems[i];
		unsigned def = 0, rep = 0, depth = 0;

		s->elems[e->parent].n_children++;
		if (!e->leaf)
			continue;
		for (int a = (int)i; a > 0; a = s->elems[a].parent) {
			def += s->elems[a].repetition != PQ_REQUIRED;
			rep += s->elems[a].repetition == PQ_REPEATED;
			depth++;
		}
		if (depth > PQ_MAX_LEVEL)   /* def and rep are never above the depth */
			return false;
		s->col_elem[e->col] = (int)i;
		s->max_def[e->col] = (uint8_t)def;
		s->max_rep[e->col] = (uint8_t)rep;
	}
	return true;
}

/* LogicalType (field 10) and ConvertedType (field 6) of a leaf. */
static void leaf_types(const struct pq_type *ty, struct pq_thrift *t)
{
	switch (ty->logical) {
	case PQ_LT_STRING:
		pq_t_i32(t, 6, CT_UTF8);
		pq_t_struct(t, 10);
		pq_t_empty(t, 1);                 /* STRING */
		pq_t_struct_end(t);
		break;
	case PQ_LT_INT: {
		int log2 = ty->int_bits == 8 ? 0 : ty->int_bits == 16 ? 1 : ty->int_bits == 32 ? 2 : 3;
		pq_t_i32(t, 6, (ty->is_signed ? CT_INT_8 : CT_UINT_8) + log2);
		pq_t_struct(t, 10);
		pq_t_struct(t, 10);               /* INTEGER: IntType */
		pq_t_byte(t, 1, (int8_t)ty->int_bits);
		pq_t_bool(t, 2, ty->is_signed);
		pq_t_struct_end(t);
		pq_t_struct_end(t);
		break;
	}
	case PQ_LT_TIMESTAMP_NS:              /* no ConvertedType for nanoseconds */
		pq_t_struct(t, 10);
		pq_t_struct(t, 8);                /* TIMESTAMP: TimestampType */
		pq_t_bool(t, 1, ty->utc);
		pq_t_struct(t, 2);                /* unit: TimeUnit */
		pq_t_empty(t, 3);                 /* NANOS */
		pq_t_struct_end(t);
		pq_t_struct_end(t);
		pq_t_struct_end(t);
		break;
	default:
		break;
	}
}

void pq_schema_thrift(const struct pq_schema *s, struct pq_thrift *t)
{
	pq_t_list(t, 2, PQ_T_STRUCT, (uint32_t)s->n);
	for (size_t i = 0; i < s->n; i++) {
		const struct pq_elem *e = &s->elems[i];

		pq_t_elem_struct(t);
		if (e->leaf)
			pq_t_i32(t, 1, e->type.phys);
		if (i > 0)
			pq_t_i32(t, 3, e->repetition);
		pq_t_string(t, 4, e->name);
		if (!e->leaf)
			pq_t_i32(t, 5, (int32_t)e->n_children);
		if (e->leaf) {
			leaf_types(&e->type, t);
		} else if (e->logical == PQ_LT_LIST) {
			pq_t_i32(t, 6, CT_LIST);
			pq_t_struct(t, 10);
			pq_t_empty(t, 3);         /* LIST */
			pq_t_struct_end(t);
		}
		pq_t_struct_end(t);
	}
}

void pq_schema_path_thrift(const struct pq_schema *s, int col, struct pq_thrift *t, int16_t id)
{
	int path[PQ_MAX_LEVEL];
	uint32_t n = 0;

	for (int a = s->col_elem[col]; a > 0; a = s->elems[a].parent)   /* depth checked by finish */
		path[n++] = a;
	pq_t_list(t, id, PQ_T_BINARY, n);
	while (n)
		pq_t_elem_string(t, s->elems[path[--n]].name);
}
