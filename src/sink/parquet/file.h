/*
 * One Parquet file being written: "PAR1", the row groups' column chunks as
 * they come, and at close the footer (FileMetaData in Thrift's compact
 * protocol, its length on 4 bytes LE, "PAR1").  The footer's row group
 * metadata is kept in memory until then: the table that writes the file
 * starts another part before that grows large.
 */
#ifndef TMX_SINK_PARQUET_FILE_H
#define TMX_SINK_PARQUET_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "sink/parquet/column.h"
#include "sink/parquet/schema.h"

struct pq_row_group {
	int64_t num_rows, offset, uncompressed, compressed;
	struct pq_chunk *chunks;   /* one per column */
};

struct pq_file {
	int fd;
	char *path;
	uint64_t size;             /* bytes written so far */
	const struct pq_schema *schema;
	size_t n_groups, cap;
	struct pq_row_group *groups;
	struct tmx_buf out;         /* one column chunk, then the footer */
};

/*
 * A row group encoded, not yet written: its column chunks one after the
 * other in `out`, their offsets counted from the start of `out` (shifted
 * by the file offset where the group is written).  Encoding needs only
 * the columns and an encoder, so it runs on any thread; writing is in
 * order, on the thread that owns the file.
 */
struct pq_group {
	int64_t num_rows;
	size_t n_cols;
	struct pq_chunk *chunks;   /* one per column */
	struct tmx_buf out;
	size_t failed;             /* the column that could not be encoded, or SIZE_MAX */
};

/*
 * Encodes `n_cols` columns of `n_rows` rows into `g` (zeroed or freed
 * before) and empties the columns.  False when memory ran out (g->failed
 * says where, or SIZE_MAX for the chunk table itself).
 */
bool pq_group_encode(struct pq_group *g, struct pq_col *cols, size_t n_cols, int64_t n_rows,
		     struct pq_encoder *enc);
void pq_group_free(struct pq_group *g);
/*
 * The same, its pages' memory kept by `enc` for the next group it
 * encodes: a group's megabyte of fresh memory each time was page faults
 * (the sequential path; the parallel one frees its groups elsewhere).
 */
void pq_group_recycle(struct pq_group *g, struct pq_encoder *enc);

/* Creates (or truncates) `path` and writes the magic. */
int pq_file_open(const char *path, const struct pq_schema *schema, struct pq_file **out,
		 struct tmx_error *err);
/*
 * Writes an encoded group (one chunk per schema column) as the next row
 * group; its chunk table goes to the footer (g->chunks is taken).  An
 * encoding failure is reported here, naming the file and the column.
 */
int pq_file_put_group(struct pq_file *f, struct pq_group *g, struct tmx_error *err);
/* Closes the file without its footer (the output was not finished); frees `f`. */
void pq_file_abandon(struct pq_file *f);
/* Writes the footer and closes the file; frees `f` in any case. */
int pq_file_close(struct pq_file *f, struct tmx_error *err);

/* The footer alone (FileMetaData), for the unit tests and pq_file_close(). */
void pq_footer_thrift(const struct pq_schema *schema, const struct pq_row_group *groups,
		      size_t n_groups, struct tmx_buf *out);

#endif
