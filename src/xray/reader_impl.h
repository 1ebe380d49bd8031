/*
 * Inside the XRay source: what its files share.  Not an interface
 * (tmx_xray_open() in tracemux.h is):
 *
 *   reader.c         the model classes, opening, the source operations
 *   reader_index.c   the index: FDR blocks verified as llvm's BlockVerifier
 *                    does and filed by thread, basic records checked, YAML
 *                    traces' threads; damage reported after the output
 *   reader_output.c  the ascending runs of TSCs merged by a heap (a stable
 *                    sort by TSC in bounded memory), records as messages
 *
 * Functions that several files call are prefixed xr_.
 */
#ifndef TMX_XRAY_READER_IMPL_H
#define TMX_XRAY_READER_IMPL_H

#include "model/arena.h"
#include "model/source.h"
#include "xray/internal.h"

/* Bounds: the positions of the sorted runs are kept in memory. */
#define XR_MAX_RUNS (1u << 17)
#define XR_MAX_BLOCKS (1u << 24)
#define XR_MAX_STREAMS (1u << 20)
/* Mapped pages are given back every so many bytes read. */
#define XR_RELEASE_BYTES ((uint64_t)16 << 20)

struct xr_reader {
	struct xr_file file;
	bool is_yaml;              /* llvm-xray's YAML trace (yaml_in.c) */
	struct xr_ytrace yaml;
	struct tmx_xray_opts opts;
	const struct tmx_diag *diag;
	struct xr_names *names;
	const struct tmx_reader_filter *filter;   /* tmx_source_set_filter; NULL: none */

	/* Index */
	struct xr_block *blocks;
	uint32_t n_blocks, cap_blocks;
	struct xr_key *keys;
	uint32_t n_keys, cap_keys;
	uint32_t *key_order;
	struct xr_densemap map;    /* FDR: (pid, tid) -> key; basic: -> stream */
	struct xr_layout layout;
	bool has_deferred;
	struct tmx_error deferred; /* damage found while indexing, reported last */
	uint64_t skipped_units, skipped_bytes;

	/* Model */
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_stream_class *sc;
	struct tmx_trace trace;
	struct tmx_stream *streams;
	struct tmx_packet *packets;
	uint32_t n_streams;
	/* Per stream: first and last TSC (found by the sorted pass). */
	uint64_t *ts_min, *ts_max;
	bool have_ranges;
	uint64_t *stream_bytes;   /* bytes of the file per stream (info) */
	const struct tmx_field_class *fc_struct_ctx, *fc_cpu, *fc_tid, *fc_pid;
	const struct tmx_field_class *fc_payload, *fc_func_id, *fc_function, *fc_rtype,
		*fc_data_size, *fc_data, *fc_n_args, *fc_args, *fc_arg;
	const struct tmx_field_class *fc_wall, *fc_wall_sec, *fc_wall_usec;

	/* Output */
	struct xr_cursor *cursors;    /* sorted: one per run; unsorted: one */
	uint32_t *heap;
	uint32_t n_heap, n_cursors;
	int phase;
	uint32_t phase_i;
	uint64_t since_release;
	struct tmx_msg msg;
	struct tmx_event ev;
	struct tmx_value ctx[4];
	struct tmx_value *pay;
	size_t cap_pay;
	char fn_buf[32];
};

static inline void maybe_release(struct xr_reader *r, uint64_t bytes)
{
	r->since_release += bytes;
	if (r->since_release >= XR_RELEASE_BYTES) {
		tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
		r->since_release = 0;
	}
}

/* reader.c: the trace, stream and event classes of the log at `path`. */
int xr_build_classes(struct xr_reader *r, const char *path, struct tmx_error *err);

/* reader_index.c: the index of an FDR log, a basic log, a YAML trace. */
int xr_index_fdr(struct xr_reader *r, struct tmx_error *err);
int xr_index_basic(struct xr_reader *r, struct tmx_error *err);
int xr_index_yaml(struct xr_reader *r, struct tmx_error *err);

/* reader_output.c: the runs and their cursors; the next message. */
int xr_setup_output(struct xr_reader *r, struct tmx_error *err);
int xr_reader_next(void *impl, const struct tmx_msg **msg, struct tmx_error *err);
/* Filters: the events that the filter does not keep are dropped here. */
void xr_reader_set_filter(void *impl, const struct tmx_reader_filter *f);

#endif
