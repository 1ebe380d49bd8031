/*
 * XRay reader internals: record decoding (fdr.c, basic.c), llvm-xray's
 * ordering (order.c), instrumentation maps (instrmap.c) and the source
 * (reader.c).  See xray.h for the model mapping.
 */
#ifndef TMX_XRAY_INTERNAL_H
#define TMX_XRAY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/mapfile.h"
#include "tracemux/error.h"
#include "xray/densemap.h"
#include "xray/xray.h"

#define XR_HEADER_SIZE 32
#define XR_FDR_FUNC_SIZE 8
#define XR_FDR_META_SIZE 16
#define XR_BASIC_RECORD_SIZE 32

/*
 * The first byte of an FDR record: a function record's low bit is 0 (a
 * metadata record's is 1), its kind in bits 1-3; llvm knows kinds 0 enter,
 * 1 exit, 2 tail exit, 3 enter with arguments.  The one test of the
 * decoder (fdr.c), the cursors (cursor.c) and the block index
 * (reader_index.c).
 */
static inline bool xr_fdr_is_function(uint8_t b)
{
	return !(b & 1);
}

static inline unsigned xr_fdr_func_kind(uint8_t b)
{
	return (b >> 1) & 7;
}

/* A function record of a kind llvm knows (what xr_fdr_produce accepts). */
static inline bool xr_fdr_function_ok(uint8_t b)
{
	return xr_fdr_is_function(b) && xr_fdr_func_kind(b) <= 3;
}

static inline uint16_t xr_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t xr_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t xr_u64(const uint8_t *p)
{
	return (uint64_t)xr_u32(p) | (uint64_t)xr_u32(p + 4) << 32;
}

/* Parses and checks the 32-byte header; fills `h`. */
int xr_parse_header(const uint8_t *data, size_t size, const char *path,
		    struct tmx_xray_header *h, struct tmx_error *err);

/* ------------------------------------------------------------------ */
/* Records as llvm-xray's XRayRecord                                    */
/* ------------------------------------------------------------------ */

struct xr_record {
	uint8_t kind;            /* enum tmx_xray_event_id */
	uint16_t record_type;    /* llvm's RecordType (sticky typed-event type) */
	uint16_t cpu;
	int32_t func_id;
	uint32_t tid, pid;
	uint64_t tsc;
	const uint8_t *data;     /* custom/typed payload, in the mapping */
	uint32_t data_size;
	uint32_t n_args;
	const uint64_t *args;    /* owned by the cursor */
	uint64_t wall_sec;       /* walltime events */
	uint32_t wall_usec;
	uint32_t stream;         /* index of the record's stream */
};

/* ------------------------------------------------------------------ */
/* FDR                                                                  */
/* ------------------------------------------------------------------ */

enum xr_raw_kind {
	XR_RAW_FUNCTION,
	XR_RAW_NEW_BUFFER,
	XR_RAW_END_OF_BUFFER,
	XR_RAW_NEW_CPU,
	XR_RAW_TSC_WRAP,
	XR_RAW_WALLTIME,
	XR_RAW_CUSTOM,
	XR_RAW_CALL_ARG,
	XR_RAW_EXTENTS,
	XR_RAW_TYPED,
	XR_RAW_PID,
};

extern const char *const xr_raw_names[];

/* One record as read from the file (FDRRecords.h). */
struct xr_raw {
	uint8_t kind;            /* enum xr_raw_kind */
	uint8_t fkind;           /* function record: 0 enter .. 3 enter-arg */
	uint16_t cpu;            /* NewCPUId, v4 custom event */
	uint16_t event_type;     /* typed event */
	bool has_tsc;            /* v1-v4 custom event: absolute tsc */
	uint32_t func_id;
	int32_t i32;             /* tid, pid, delta (v5 custom, typed) */
	uint32_t delta;          /* function record */
	uint64_t u64;            /* tsc, argument, extents, seconds */
	uint32_t usec;           /* walltime */
	uint64_t off;            /* offset of the record in the file */
	const uint8_t *data;
	uint32_t data_size;
	/* Set with the error of a record that crosses the end of its buffer. */
	bool crosses;
};

/* Where the record producer stands (FileBasedRecordProducer). */
struct xr_prod {
	uint64_t off;
	uint64_t extent_left;    /* v3+: bytes left in the current buffer */
	uint64_t block_start;    /* v1: offset of the last NewBuffer */
};

struct xr_file {
	struct tmx_mapfile map;
	struct tmx_xray_header h;
};

/*
 * Reads the record at p->off (v3+: first looks for the next BufferExtents
 * when the current one is used up).  Call only while p->off < size.
 */
int xr_fdr_produce(const struct xr_file *f, struct xr_prod *p, struct xr_raw *r,
		   struct tmx_error *err);

/* A block: the records from a NewBuffer to the next one (BlockIndexer). */
struct xr_block {
	struct xr_prod start;    /* producer state at the NewBuffer */
	uint64_t end;            /* offset where the next block begins */
	uint64_t wall_sec;
	uint32_t wall_usec;
	uint64_t pid;            /* llvm's key: (uint64)pid from Pid, else 0 */
	int32_t tid;
	uint32_t key;            /* index of its (pid, tid) key */
	uint64_t first_tsc;      /* of its first NewCPUId (walltime event time) */
};

/* Per thread key: llvm's vector<Block> after llvm::sort. */
struct xr_key {
	uint64_t pid;
	int32_t tid;
	uint32_t stream;
	uint32_t n_blocks, cap_blocks;
	uint32_t *blocks;        /* indexes into the block array */
};

/* ------------------------------------------------------------------ */
/* Ordering (order.c; the DenseMap: densemap.h)                        */
/* ------------------------------------------------------------------ */

/*
 * libstdc++'s std::sort of block indexes with llvm-xray's (not strict-weak)
 * wall-time comparator: the order llvm-xray 14 (built against libstdc++)
 * leaves a thread's blocks in.
 */
void xr_sort_blocks(uint32_t *idx, size_t n, const struct xr_block *blocks);

/* ------------------------------------------------------------------ */
/* Instrumentation map and names (instrmap.c)                           */
/* ------------------------------------------------------------------ */

struct xr_names;

int xr_names_load(const char *path, bool symbolize, const struct tmx_diag *diag,
		  struct xr_names **out, struct tmx_error *err);
/*
 * llvm-xray's `function` text for an id: decimal (n NULL or not
 * symbolizing), the name, "#id" or "@(hex)".  The text is either owned by
 * `n` or written to `buf`.
 */
const char *xr_names_get(const struct xr_names *n, int32_t func_id, char buf[32], size_t *len);
void xr_names_free(struct xr_names *n);

/* ------------------------------------------------------------------ */
/* Cursors over llvm-xray's unsorted record sequence (cursor.c)         */
/* ------------------------------------------------------------------ */

/* What a cursor reads: the file and, for FDR, the indexed blocks. */
struct xr_layout {
	const struct xr_file *file;
	bool fdr;
	const struct xr_ytrace *yaml;  /* a YAML trace: its records, in memory */
	/* FDR */
	const struct xr_block *blocks;
	const struct xr_key *keys;
	const uint32_t *key_order;  /* keys in llvm's DenseMap order */
	uint32_t n_keys;
	/* basic */
	uint64_t basic_end;         /* end of the valid records */
	const struct xr_densemap *basic_streams; /* (pid, tid) -> stream */
};

/*
 * Where a cursor stands: everything needed to resume llvm's TraceExpander
 * there (copied to start a sorted run).  Between two calls no record is
 * being built, so no call argument is pending.
 */
struct xr_pos {
	uint64_t seq;               /* records produced before this point */
	uint64_t off;               /* basic: next record */
	struct xr_prod prod;        /* FDR: in the current block */
	uint64_t blk_end;
	uint32_t key_pos, blk_pos;
	bool in_block, ignoring;
	uint16_t cpu;
	uint16_t record_type;       /* llvm's CurrentRecord: sticky fields */
	int32_t func_id;
	int32_t tid;
	uint32_t pid;
	uint64_t base_tsc;
};

struct xr_cursor {
	struct xr_pos pos;
	uint64_t end_seq;           /* stop before this record (run end) */
	uint32_t key_end;           /* FDR: stop at this key (UINT32_MAX: none) */
	/*
	 * The record read but given back (it ended the record being built):
	 * used again when the cursor is at la_at, instead of parsing twice.
	 */
	bool la_valid;
	struct xr_prod la_at, la_next;
	struct xr_raw la;
	struct xr_record rec;       /* the record last returned */
	uint64_t *args;
	uint32_t cap_args;
	/* FDR: the bytes of the blocks left behind, and where the current one starts (progress). */
	uint64_t blocks_bytes, blk_start;
};

/* key_end is UINT32_MAX: xr_cursor_stop_at_key() sets it. */
void xr_cursor_init(struct xr_cursor *c, const struct xr_pos *pos, uint64_t end_seq);
/* FDR: the cursor ends with the records of the key before key position `key_end`. */
static inline void xr_cursor_stop_at_key(struct xr_cursor *c, uint32_t key_end)
{
	c->key_end = key_end;
}
void xr_cursor_free(struct xr_cursor *c);
/*
 * The next record in llvm-xray's unsorted order into c->rec; *got is false
 * at the end (or at end_seq).
 */
int xr_cursor_next(const struct xr_layout *l, struct xr_cursor *c, bool *got,
		   struct tmx_error *err);

/* ------------------------------------------------------------------ */
/* llvm-xray's YAML traces (yaml_in.c)                                  */
/* ------------------------------------------------------------------ */

/* One record as llvm's YAMLXRayRecord holds it. */
struct xr_yrec {
	uint64_t tsc;
	uint64_t data_off;          /* in xr_ytrace.bytes */
	uint64_t args_off;          /* in xr_ytrace.args */
	uint32_t data_size, n_args;
	int32_t func_id;
	uint32_t tid, pid;
	uint32_t stream;            /* set by the reader */
	uint32_t span;              /* bytes of the file it takes (info) */
	uint16_t cpu, record_type;
	uint8_t kind;               /* enum tmx_xray_event_id */
};

struct xr_ytrace {
	struct tmx_xray_header h;
	bool has_header;
	struct xr_yrec *recs;
	size_t n_recs, cap_recs;
	uint8_t *bytes;             /* the records' data */
	size_t n_bytes, cap_bytes;
	uint64_t *args;
	size_t n_args, cap_args;
	uint32_t *order;            /* output order: indexes into recs */
	uint64_t skipped;           /* lenient: records left out, */
	uint64_t skipped_bytes;     /* and their bytes */
};

/*
 * Reads the YAML trace in `data`.  On a fault the records before it are
 * kept: the caller outputs them when t->has_header (a TMX_ERR_DATA error),
 * then reports the error.  `lenient`: records at fault are left out with a
 * warning instead.
 */
int xr_yaml_load(const char *path, const uint8_t *data, size_t size, bool lenient,
		 const struct tmx_diag *diag, struct xr_ytrace *t, struct tmx_error *err);
void xr_yaml_free(struct xr_ytrace *t);
/* t->order: the records stable-sorted by TSC (llvm's --sort), or in file order. */
int xr_yaml_order(struct xr_ytrace *t, bool unsorted, struct tmx_error *err);
/* The record at the cursor's position in t->order into c->rec. */
void xr_yaml_next(const struct xr_ytrace *t, struct xr_cursor *c, bool *got);

#endif
