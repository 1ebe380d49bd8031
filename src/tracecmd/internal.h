/*
 * trace.dat reader internals shared by file*.c, format.c, page.c and
 * source.c (not part of the API that outputs read: see tracedat.h).
 */
#ifndef TMX_TRACECMD_INTERNAL_H
#define TMX_TRACECMD_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/mapfile.h"
#include "common/arena.h"
#include "tracecmd/tracedat.h"

/* Compression algorithms a trace.dat can name in its v7 header. */
enum tdat_algo { TDAT_ALGO_NONE = 0, TDAT_ALGO_ZSTD, TDAT_ALGO_ZLIB };

/* One TIME_SHIFT sample (trace-cmd's struct ts_offset_sample). */
struct tdat_ts_sample {
	int64_t time;
	int64_t offset;
	uint64_t scaling;
	uint32_t fraction;
};

struct tdat_ts_cpu {
	uint32_t count;
	struct tdat_ts_sample *samples;   /* in the arena */
};

/* Where a compressed CPU stream's chunks are (from the scan at open). */
struct tdat_chunk {
	uint64_t offset;       /* file offset of the compressed bytes */
	uint32_t csize;
	uint32_t usize;
	uint64_t ubase;        /* offset of its first byte in the CPU's decompressed data */
};

struct tdat_cpu_priv {
	struct tdat_chunk *chunks;   /* in the arena, n_chunks of them */
	uint32_t max_usize;
};

struct tdat_file_priv {
	struct tdat_file pub;            /* first: tdat_file* casts to this */
	struct tmx_mapfile map;
	bool mapped;
	struct tdat_open_opts opts;
	struct tmx_arena arena;          /* events, fields, options, buffers */
	void **owned;                    /* malloc'ed decompressed sections */
	size_t n_owned, cap_owned;
	enum tdat_algo algo;
	uint64_t max_section;            /* cap on one decompressed section */
	/* TIME_SHIFT, applied when the samples are usable (trace-cmd's sync_enable). */
	bool tsync;
	uint32_t tsync_flags;
	uint32_t tsync_cpus;
	struct tdat_ts_cpu *tsync_cpu;
	/* Events by id: direct table when ids are small. */
	const struct tdat_event **by_id;
	size_t n_by_id;
	/* Per buffer, per CPU private data (parallel to pub.buffers[b].cpus). */
	struct tdat_cpu_priv **cpu_priv;
	/* Lenient reading: damaged pages or chunks skipped by cursors, and their bytes. */
	uint64_t skipped_units, skipped_bytes;
	/* Where common_type sits in a record (from the formats). */
	uint32_t type_offset, type_size;
	/* Decompression contexts not in use (compress.c), for any thread. */
	pthread_mutex_t unpack_lock;
	struct tdat_unpacker *unpackers;
};

static inline struct tdat_file_priv *tdat_priv(const struct tdat_file *f)
{
	return (struct tdat_file_priv *)f;
}

/*
 * Decompresses `in` (one zstd frame or one zlib stream) into *buf (grown
 * with realloc as output appears, never beyond `expect`), and checks that
 * exactly `expect` bytes come out.  Memory follows the real output, so a
 * lying size costs nothing.  *cap is the buffer's allocated size.
 */
int tdat_decompress(enum tdat_algo algo, const uint8_t *in, size_t in_len, size_t expect,
		    uint8_t **buf, size_t *cap, const char *path, uint64_t offset,
		    struct tmx_error *err);
/*
 * Same, with the contexts that unpacker u keeps from block to block (NULL:
 * made for this block alone).  For a cursor's many chunks.
 */
struct tdat_unpacker;
int tdat_decompress_with(struct tdat_unpacker *u, enum tdat_algo algo, const uint8_t *in,
			 size_t in_len, size_t expect, uint8_t **buf, size_t *cap, const char *path,
			 uint64_t offset, struct tmx_error *err);
/*
 * An unpacker of f's pool, or a new one (NULL: out of memory), for one
 * thread at a time until given back to the pool, which the file frees
 * (tdat_unpackers_free, at its close).  Any thread.
 */
struct tdat_unpacker *tdat_unpacker_take(const struct tdat_file *f);
void tdat_unpacker_give(const struct tdat_file *f, struct tdat_unpacker *u);
void tdat_unpackers_free(struct tdat_file_priv *fp);

/* Parses one `format` file into an event (arena-owned); NULL + err on failure. */
int tdat_parse_format(struct tmx_arena *a, const char *system, const char *text, size_t len,
		      uint32_t kernel_long, const struct tdat_event **out, const char **why);

/* Parses header_page: kernel long size and page data offset. */
bool tdat_parse_header_page(const char *text, size_t len, uint32_t *long_size,
			    uint32_t *data_offset);

#endif
