/*
 * Inside the XRay reader: what its files share.  Not an interface
 * (xray.h's tmx_xray_reader_open() is, which src/source/open.c makes
 * tmx_xray_open()):
 *
 *   reader.c         the model classes, opening, the source operations
 *   reader_index.c   the index: FDR blocks verified as llvm's BlockVerifier
 *                    does and filed by thread, basic records checked, YAML
 *                    traces' threads; damage reported after the output
 *   reader_runs.c    the ascending runs of TSCs in llvm's unsorted order,
 *                    found per thread (FDR key) on several threads, with
 *                    checkpoints; the TSC ranges of the chunks
 *   reader_chunks.c  a chunk of the sorted output (its runs merged by a
 *                    heap: a stable sort by TSC in bounded memory) decoded
 *                    into records, on decoder threads, handed out in order
 *   reader_output.c  records as messages
 *
 * Functions that several files call are prefixed xr_.
 */
#ifndef TMX_XRAY_READER_IMPL_H
#define TMX_XRAY_READER_IMPL_H

#include <pthread.h>

#include "common/arena.h"
#include "model/reader.h"
#include "xray/internal.h"

/* Bounds: the positions of the sorted runs are kept in memory. */
#define XR_MAX_RUNS (1u << 17)
#define XR_MAX_BLOCKS (1u << 24)
#define XR_MAX_STREAMS (1u << 20)
/* Mapped pages are given back every so many bytes read. */
#define XR_RELEASE_BYTES ((uint64_t)16 << 20)
/*
 * What a cursor opened at a checkpoint counts toward the next release: its
 * first read may fault in a whole large page-cache folio (up to 2 MiB on
 * recent kernels).  Counting less (256 KiB) gave the same times and, with
 * large folios, 115 MB of peak RSS on a 256 MiB log instead of 45 MB.
 */
#define XR_CURSOR_OPEN_BYTES ((uint64_t)2 << 20)
/*
 * Checkpoints in a run every so many records at least, about 2^16 of them
 * at most (plus one per run).
 */
#define XR_CP_MIN_EVERY 8u
#define XR_CP_MAX 65536u
/* Records of a chunk of the sorted output (about): at least, at most. */
#define XR_CHUNK_MIN 64u
#define XR_CHUNK_RECORDS 32768u

/*
 * An ascending run of TSCs in llvm's unsorted order, inside one FDR key
 * (thread): its first record's position (seq counted from the key's
 * start), where it ends, its TSC range and its checkpoints.
 */
struct xr_run {
	struct xr_pos pos;
	uint64_t end_seq;
	uint64_t first_tsc, last_tsc;
	uint32_t cp, n_cp;        /* in xr_reader.cps */
};

/* Where the record at index i * cp_every of a run is, and its TSC. */
struct xr_checkpoint {
	uint64_t tsc;
	struct xr_pos pos;
};

/* A chunk of the sorted output, decoded: its records and their arguments. */
struct xr_chunk {
	uint32_t index;           /* which chunk the slot holds */
	bool ready;
	struct xr_record *recs;
	size_t n, cap;
	uint64_t *args;           /* the records' arguments one after the other */
	size_t n_args, cap_args;
	int ret;                  /* an error after the records, or TMX_OK */
	struct tmx_error err;
	size_t next, next_arg;    /* the consumer's place */
};

/* A function text made from its id alone (reader_output.c). */
#define XR_FN_SLOTS 256
struct xr_fn_slot {
	int32_t id;
	uint8_t len;              /* 0: empty */
	char text[23];
};

struct xr_hent {
	uint64_t tsc;
	uint32_t c;               /* the cursor, in run order */
};

/* What one decoding thread (or the consumer, with one job) keeps between chunks. */
struct xr_decoder {
	struct xr_reader *r;
	struct xr_cursor *cursors;
	uint32_t cap_cursors;
	struct xr_hent *heap;
	uint64_t since_release;
};

/* The decoder threads and the ring of chunks they fill. */
struct xr_pool {
	pthread_mutex_t lock;
	pthread_cond_t work_cv;   /* a slot was freed, or stop */
	pthread_cond_t ready_cv;  /* a chunk was decoded */
	pthread_t *threads;
	struct xr_decoder *decoders;
	unsigned n_threads, started;
	bool initialized;         /* the lock and conditions */
	struct xr_chunk *slots;
	uint32_t n_slots;
	uint32_t next_take;       /* the next chunk to decode */
	uint32_t consuming;       /* the chunk the consumer reads */
	bool stop;
};

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
	/*
	 * Progress (tmx_source_ops.bytes_read): the sorted output's records
	 * (n_recs, from the runs) handed out so far, in whole chunks, and the
	 * bytes of the streams in that proportion (all of them once the events
	 * have ended), written by the thread reading the source, read by any
	 * (common/progress_count.h).  The records come from every block at
	 * once in TSC order, so no file offset says how far the read is.
	 */
	uint64_t n_recs, recs_done, bytes_done;
	uint64_t total_bytes;         /* xr_total_bytes(), once known (have_total) */
	bool have_total;
	uint32_t unsorted_tick;       /* unsorted and YAML: records since the last count */
	const struct tmx_field_class *fc_struct_ctx, *fc_cpu, *fc_tid, *fc_pid;
	const struct tmx_field_class *fc_payload, *fc_func_id, *fc_function, *fc_rtype,
		*fc_data_size, *fc_data, *fc_n_args, *fc_args, *fc_arg;
	const struct tmx_field_class *fc_wall, *fc_wall_sec, *fc_wall_usec;

	/* Output */
	unsigned jobs;                /* threads for the runs and the chunks */
	struct xr_run *runs;          /* sorted: the runs, in sequence order */
	uint32_t n_runs;
	struct xr_checkpoint *cps;
	uint32_t n_cps, cp_every;
	uint64_t *bounds;             /* chunk i > 0 starts at TSC bounds[i - 1] */
	uint32_t n_chunks;
	struct xr_pool pool;
	bool inline_mode;             /* one job: chunks decoded by the consumer, */
	struct xr_decoder inline_dec; /* with this, */
	struct xr_chunk inline_chunk; /* into this */
	struct xr_chunk *chunk;       /* being consumed */
	bool started_chunks;          /* r->chunk NULL: at the end */
	struct xr_cursor cursor;      /* unsorted and YAML: the one cursor */
	int phase;
	uint32_t phase_i;
	uint64_t since_release;
	struct tmx_msg msg;           /* stream and packet messages */
	struct tmx_msg ev_msg;        /* events */
	struct tmx_event ev;
	struct tmx_value ctx[4];
	struct tmx_value *pay;        /* function records (init_values) */
	size_t cap_pay;
	struct tmx_value wall[3];     /* wall-time events */
	char fn_buf[32];
	struct xr_fn_slot fn_cache[XR_FN_SLOTS];
};

static inline void maybe_release(struct xr_reader *r, uint64_t bytes)
{
	r->since_release += bytes;
	if (r->since_release >= XR_RELEASE_BYTES) {
		tmx_mapfile_release(&r->file.map, 0, r->file.map.size);
		r->since_release = 0;
	}
}

/* The bytes of every stream (tmx_stream_info.bytes summed). */
uint64_t xr_total_bytes(const struct xr_reader *r);
/* reader_output.c: `n` more records handed out (n_recs: every one, the end). */
void xr_count_records(struct xr_reader *r, uint64_t n);

/* reader.c: the trace, stream and event classes of the log at `path`. */
int xr_build_classes(struct xr_reader *r, const char *path, struct tmx_error *err);

/* reader_index.c: the index of an FDR log, a basic log, a YAML trace. */
int xr_index_fdr(struct xr_reader *r, struct tmx_error *err);
int xr_index_basic(struct xr_reader *r, struct tmx_error *err);
int xr_index_yaml(struct xr_reader *r, struct tmx_error *err);

/* reader_runs.c: the runs, checkpoints, stream ranges and chunk bounds (sorted output). */
int xr_find_runs(struct xr_reader *r, struct tmx_error *err);

/*
 * reader_chunks.c: r->chunk becomes the next chunk of the sorted output
 * (NULL after the last); decoding errors come in the chunk, after its records.
 */
void xr_next_chunk(struct xr_reader *r);
void xr_chunks_free(struct xr_reader *r);

/* reader_output.c: the output's set-up; the next message. */
int xr_setup_output(struct xr_reader *r, struct tmx_error *err);
int xr_reader_next(void *impl, const struct tmx_msg **msg, struct tmx_error *err);
/* Filters: the events that the filter does not keep are dropped here. */
void xr_reader_set_filter(void *impl, const struct tmx_reader_filter *f);

#endif
