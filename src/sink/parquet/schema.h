/*
 * A Parquet schema as the footer lists it: a tree of groups and leaf
 * columns flattened in pre-order (the root first).  Each leaf is a column
 * whose definition and repetition levels come from its ancestors: every
 * OPTIONAL or REPEATED node on its path adds a definition level, every
 * REPEATED one a repetition level.
 */
#ifndef TMX_SINK_PARQUET_SCHEMA_H
#define TMX_SINK_PARQUET_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Physical types (parquet.thrift's Type). */
enum pq_phys { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_FLOAT = 4, PQ_DOUBLE = 5,
	       PQ_BYTE_ARRAY = 6 };
/* FieldRepetitionType. */
enum pq_repetition { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };
/* The logical types this writer uses. */
enum pq_logical { PQ_LT_NONE, PQ_LT_STRING, PQ_LT_INT, PQ_LT_TIMESTAMP_NS, PQ_LT_LIST };

/* What a leaf holds. */
struct pq_type {
	uint8_t phys;          /* enum pq_phys */
	uint8_t logical;       /* enum pq_logical */
	uint8_t int_bits;      /* PQ_LT_INT: 8, 16, 32 or 64 */
	bool is_signed;        /* PQ_LT_INT */
	bool utc;              /* PQ_LT_TIMESTAMP_NS: adjusted to UTC */
};

/* Levels are kept in bytes: deeper nesting than this is refused. */
#define PQ_MAX_LEVEL 255

struct pq_elem {
	char *name;
	int parent;            /* -1 for the root */
	bool leaf;
	uint8_t repetition;    /* enum pq_repetition; unused for the root */
	uint8_t logical;       /* groups: PQ_LT_NONE or PQ_LT_LIST */
	struct pq_type type;   /* leaves */
	uint32_t n_children;   /* groups, counted by pq_schema_finish() */
	int col;               /* leaves: column number; -1 for groups */
};

struct pq_schema {
	size_t n, cap;
	struct pq_elem *elems;
	size_t n_cols;
	int *col_elem;         /* the element of each column */
	uint8_t *max_def, *max_rep;
	bool oom;
};

/* An empty schema with its root (named "schema"). */
void pq_schema_init(struct pq_schema *s);
void pq_schema_free(struct pq_schema *s);
/* A group under `parent` (element index); returns its element index. */
int pq_schema_group(struct pq_schema *s, int parent, const char *name,
		    enum pq_repetition rep, enum pq_logical logical);
/* A leaf under `parent`; returns its column number. */
int pq_schema_leaf(struct pq_schema *s, int parent, const char *name, enum pq_repetition rep,
		   struct pq_type type);
/* Whether `parent` already has a child called `name`. */
bool pq_schema_has_child(const struct pq_schema *s, int parent, const char *name);
/*
 * Counts children and computes each column's levels.  False when memory
 * ran out or the nesting is deeper than PQ_MAX_LEVEL.
 */
bool pq_schema_finish(struct pq_schema *s);
/* FileMetaData.schema (field 2): the list<SchemaElement>. */
struct pq_thrift;
void pq_schema_thrift(const struct pq_schema *s, struct pq_thrift *t);
/* A column's path from the root's child down to the leaf (ColumnMetaData.path_in_schema). */
void pq_schema_path_thrift(const struct pq_schema *s, int col, struct pq_thrift *t, int16_t id);

/* Leaf types. */
static inline struct pq_type pq_type_int(unsigned bits, bool is_signed)
{
	unsigned w = bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64;

	return (struct pq_type){ .phys = w == 64 ? PQ_INT64 : PQ_INT32, .logical = PQ_LT_INT,
				 .int_bits = (uint8_t)w, .is_signed = is_signed };
}

static inline struct pq_type pq_type_string(void)
{
	return (struct pq_type){ .phys = PQ_BYTE_ARRAY, .logical = PQ_LT_STRING };
}

static inline struct pq_type pq_type_plain(enum pq_phys phys)
{
	return (struct pq_type){ .phys = (uint8_t)phys };
}

/* The bytes of an integer column's PLAIN value: INT32 4, INT64 (the other) 8. */
static inline unsigned pq_int_width(unsigned phys)
{
	return phys == PQ_INT32 ? 4 : 8;
}

#endif
