/* Parquet files: row groups as they come, the footer at close (see file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/grow.h"
#include "sink/parquet/file.h"
#include "sink/parquet/thrift.h"
#include "tracemux/tracemux.h"

static const char magic[4] = { 'P', 'A', 'R', '1' };

/* parquet.thrift's Encoding and CompressionCodec values. */
enum { ENC_PLAIN = 0, ENC_RLE = 3, ENC_DELTA_BINARY_PACKED = 5, ENC_RLE_DICTIONARY = 8, CODEC_ZSTD = 6 };

static int write_all(struct pq_file *f, const void *p, size_t n, struct tmx_error *err)
{
	const char *s = p;

	while (n) {
		ssize_t w = write(f->fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return tmx_error_set(err, TMX_ERR_IO, f->path, "cannot write: %s",
					     strerror(errno));
		s += w;
		n -= (size_t)w;
		f->size += (uint64_t)w;
	}
	return TMX_OK;
}

static void file_free(struct pq_file *f)
{
	for (size_t i = 0; i < f->n_groups; i++)
		free(f->groups[i].chunks);
	free(f->groups);
	tmx_buf_free(&f->out);
	free(f->path);
	free(f);
}

int pq_file_open(const char *path, const struct pq_schema *schema, struct pq_file **out,
		 struct tmx_error *err)
{
	struct pq_file *f = calloc(1, sizeof(*f));
	int ret;

	*out = NULL;
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return tmx_error_set(err, TMX_ERR_NOMEM, path, "out of memory");
	}
	f->schema = schema;
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		ret = tmx_error_set(err, TMX_ERR_IO, path, "cannot create: %s", strerror(errno));
		file_free(f);
		return ret;
	}
	ret = write_all(f, magic, 4, err);
	if (ret) {
		close(f->fd);
		file_free(f);
		return ret;
	}
	*out = f;
	return TMX_OK;
}

bool pq_group_encode(struct pq_group *g, struct pq_col *cols, size_t n_cols, int64_t n_rows,
		     struct pq_encoder *enc)
{
	struct pq_chunk lost;
	size_t from = 0;
	bool same = false;   /* cols[c] is pq_col_same as cols[c - 1], encoded at out[from, ...) */

	*g = (struct pq_group){ .num_rows = n_rows, .n_cols = n_cols, .failed = SIZE_MAX };
	/* The pages go into the memory of a group written before (pq_group_recycle), if any. */
	g->out = enc->out_spare;
	g->out.len = 0;
	g->out.oom = false;
	enc->out_spare = (struct tmx_buf){ 0 };
	g->chunks = calloc(n_cols ? n_cols : 1, sizeof(*g->chunks));
	for (size_t c = 0; c < n_cols; c++) {
		/* Compared before cols[c] is emptied (packets' columns: by their instances). */
		bool next_same = g->chunks && c + 1 < n_cols && cols[c].pk == cols[c + 1].pk &&
				 pq_col_same(&cols[c], &cols[c + 1]);
		size_t at = g->out.len;
		struct tmx_buf inst = { 0 };
		bool ok = true, pk = cols[c].pk != 0;
		/* Most packet columns are dictionaries, made from their instances (page.c). */
		bool done = pk && !same && g->chunks && cols[c].pk <= n_cols &&
			    pq_col_encode_pk(&cols[c], &cols[cols[c].pk - 1].pk_rows, enc,
					     &g->out, &g->chunks[c], &ok);

		pk = pk && !done;   /* expanded */
		if (pk) {   /* its rows' values in the encoder's memory, for the chunk */
			ok = cols[c].pk <= n_cols &&
			     pq_col_pk_expand(&cols[c], &cols[cols[c].pk - 1].pk_rows, &enc->expand, 0);
			inst = cols[c].vals;
			cols[c].vals = enc->expand;
			enc->expand = (struct tmx_buf){ 0 };
			cols[c].vals.oom |= !ok;
		}
		/* Every column is emptied, also after a failure. */
		if (done)
			;   /* encoded and emptied */
		else if (same && g->failed == SIZE_MAX)
			ok = pq_col_repeat(&cols[c], &cols[c - 1].type, &g->chunks[c - 1], from, at,
					   &g->out, &g->chunks[c]);
		else
			ok = pq_col_encode(&cols[c], enc, 0, &g->out, g->chunks ? &g->chunks[c] : &lost);
		if (pk) {   /* emptied with its buffers kept (pq_col_reuse), or freed */
			enc->expand = cols[c].vals;
			cols[c].vals = inst;
			cols[c].vals.len = 0;
			cols[c].vals.oom = false;
			if (!cols[c].keep)
				tmx_buf_free(&cols[c].vals);
		}
		if (!ok && g->failed == SIZE_MAX)
			g->failed = c;
		same = next_same;
		from = at;
	}
	if (!g->chunks && g->failed == SIZE_MAX)
		g->failed = 0;
	return g->failed == SIZE_MAX;
}

void pq_group_free(struct pq_group *g)
{
	free(g->chunks);
	tmx_buf_free(&g->out);
	g->chunks = NULL;
}

/* Groups' pages above this size are not kept for the next. */
#define SPARE_MAX (64u << 20)

void pq_group_recycle(struct pq_group *g, struct pq_encoder *enc)
{
	if (!enc->out_spare.p && g->out.cap <= SPARE_MAX) {
		enc->out_spare = g->out;
		g->out = (struct tmx_buf){ 0 };
	}
	pq_group_free(g);
}

int pq_file_put_group(struct pq_file *f, struct pq_group *g, struct tmx_error *err)
{
	void *groups = f->groups;
	struct pq_row_group *rg;
	int ret;

	if (g->failed != SIZE_MAX)
		return tmx_error_set(err, TMX_ERR_NOMEM, f->path,
				     "cannot encode column %zu: out of memory or a page over 2 GiB",
				     g->failed);
	if (!tmx_grow_array(&groups, &f->cap, f->n_groups + 1, sizeof(*rg), 8))
		return tmx_error_set(err, TMX_ERR_NOMEM, f->path, "out of memory");
	f->groups = groups;
	rg = &f->groups[f->n_groups];
	*rg = (struct pq_row_group){ .num_rows = g->num_rows, .offset = (int64_t)f->size };
	for (size_t c = 0; c < g->n_cols; c++) {
		struct pq_chunk *m = &g->chunks[c];
		m->data_offset += (int64_t)f->size;
		if (m->dict_offset >= 0)
			m->dict_offset += (int64_t)f->size;
		rg->uncompressed += m->uncompressed;
		rg->compressed += m->compressed;
	}
	/*
	 * A failed write leaves the group out of the footer: the file still
	 * reads, with the row groups before this one.
	 */
	ret = write_all(f, g->out.p, g->out.len, err);
	if (ret)
		return ret;
	rg->chunks = g->chunks;
	g->chunks = NULL;
	f->n_groups++;
	return TMX_OK;
}

static void chunk_thrift(const struct pq_schema *s, size_t col, const struct pq_chunk *m,
			 struct pq_thrift *t)
{
	pq_t_elem_struct(t);                  /* ColumnChunk */
	pq_t_i64(t, 2, 0);                    /* file_offset: no metadata outside the footer */
	pq_t_struct(t, 3);                    /* ColumnMetaData */
	pq_t_i32(t, 1, m->phys);
	pq_t_list(t, 2, PQ_T_I32, m->dict || m->delta ? 3 : 2);
	pq_t_elem_i32(t, ENC_PLAIN);
	pq_t_elem_i32(t, ENC_RLE);
	if (m->dict)
		pq_t_elem_i32(t, ENC_RLE_DICTIONARY);
	else if (m->delta)
		pq_t_elem_i32(t, ENC_DELTA_BINARY_PACKED);
	pq_schema_path_thrift(s, (int)col, t, 3);
	pq_t_i32(t, 4, CODEC_ZSTD);
	pq_t_i64(t, 5, m->num_values);
	pq_t_i64(t, 6, m->uncompressed);
	pq_t_i64(t, 7, m->compressed);
	pq_t_i64(t, 9, m->data_offset);
	if (m->dict)
		pq_t_i64(t, 11, m->dict_offset);
	pq_chunk_stats_thrift(m, t, 12);
	pq_t_struct_end(t);
	pq_t_struct_end(t);
}

void pq_footer_thrift(const struct pq_schema *schema, const struct pq_row_group *groups,
		      size_t n_groups, struct tmx_buf *out)
{
	struct pq_thrift t;
	int64_t rows = 0;

	for (size_t g = 0; g < n_groups; g++)
		rows += groups[g].num_rows;
	pq_t_begin(&t, out);
	pq_t_i32(&t, 1, 1);                   /* version */
	pq_schema_thrift(schema, &t);
	pq_t_i64(&t, 3, rows);
	pq_t_list(&t, 4, PQ_T_STRUCT, (uint32_t)n_groups);
	for (size_t g = 0; g < n_groups; g++) {
		const struct pq_row_group *rg = &groups[g];
		pq_t_elem_struct(&t);         /* RowGroup */
		pq_t_list(&t, 1, PQ_T_STRUCT, (uint32_t)schema->n_cols);
		for (size_t c = 0; c < schema->n_cols; c++)
			chunk_thrift(schema, c, &rg->chunks[c], &t);
		pq_t_i64(&t, 2, rg->uncompressed);
		pq_t_i64(&t, 3, rg->num_rows);
		pq_t_i64(&t, 5, rg->offset);
		pq_t_i64(&t, 6, rg->compressed);
		pq_t_struct_end(&t);
	}
	pq_t_string(&t, 6, "tracemux version " TRACEMUX_VERSION_STRING);
	/* The order of min_value/max_value: the one of each column's type. */
	pq_t_list(&t, 7, PQ_T_STRUCT, (uint32_t)schema->n_cols);
	for (size_t c = 0; c < schema->n_cols; c++) {
		pq_t_elem_struct(&t);         /* ColumnOrder */
		pq_t_empty(&t, 1);            /* TYPE_ORDER */
		pq_t_struct_end(&t);
	}
	pq_t_struct_end(&t);
}

void pq_file_abandon(struct pq_file *f)
{
	close(f->fd);
	file_free(f);
}

int pq_file_close(struct pq_file *f, struct tmx_error *err)
{
	int ret;

	f->out.len = 0;
	pq_footer_thrift(f->schema, f->groups, f->n_groups, &f->out);
	tmx_buf_le(&f->out, f->out.len, 4);
	tmx_buf_put(&f->out, magic, 4);
	ret = f->out.oom ? tmx_error_set(err, TMX_ERR_NOMEM, f->path, "out of memory")
			 : write_all(f, f->out.p, f->out.len, err);
	if (close(f->fd) && !ret)
		ret = tmx_error_set(err, TMX_ERR_IO, f->path, "cannot write: %s", strerror(errno));
	file_free(f);
	return ret;
}
