/*
 * Inside opening a trace.dat: what its files share.  Not an interface
 * (see tracedat.h and internal.h for those):
 *
 *   file.c          the initial format, the v6 fixed layout and the v7
 *                   sections in order, the metadata both share (header
 *                   info, formats, kallsyms, printk, cmdlines), events by
 *                   id, opening and closing
 *   file_read.c     numbers in the file's byte order, bounds-checked reads
 *                   (rd_*) over the file or a decompressed section, v7
 *                   section headers
 *   file_options.c  the options (v6 list, v7 chain of options sections),
 *                   buffers, TIME_SHIFT
 *   file_cpu.c      where each CPU's data is, checked, compressed chunk
 *                   headers scanned; v6 flyrecord/latency data
 *   file_time.c     raw timestamps converted (TIME_SHIFT, TSC2NSEC, offsets)
 *
 * Functions that several files call are prefixed tdat_ (the reads: rd_);
 * the small helpers inlined here keep their names.
 */
#ifndef TMX_TRACECMD_FILE_IMPL_H
#define TMX_TRACECMD_FILE_IMPL_H

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "tracecmd/internal.h"

/* What a hostile file cannot get past. */
#define MAX_OPTIONS_SECTIONS 4096
#define MAX_OPTIONS 65536
#define MAX_FORMATS 65536
#define MAX_BUFFERS 4096
#define MAX_CPUS 65536
#define MAX_CHUNKS (1u << 24)

/* ------------------------------------------------------------------ */
/* A bounds-checked reader over the file or a decompressed section      */
/* ------------------------------------------------------------------ */

struct rd {
	struct tdat_file_priv *fp;
	const uint8_t *p;
	size_t n, pos;
	uint64_t base;        /* file offset of p[0]; for decompressed data, of the section */
	bool unpacked;        /* p is decompressed data: report base and the position inside */
	const char *what;
	struct tmx_error *err;
};

void rd_init_file(struct rd *r, struct tdat_file_priv *fp, uint64_t off, const char *what,
		  struct tmx_error *err);
__attribute__((format(printf, 2, 3)))
int rd_fail(struct rd *r, const char *fmt, ...);
int rd_need(struct rd *r, uint64_t n, const char *item);
int rd_u16(struct rd *r, uint16_t *v, const char *item);
int rd_u32(struct rd *r, uint32_t *v, const char *item);
int rd_u64(struct rd *r, uint64_t *v, const char *item);
int rd_bytes(struct rd *r, uint64_t n, const uint8_t **out, const char *item);
int rd_str(struct rd *r, const char **out, const char *item);

/* A size of `size_bytes` (4 or 8) bytes, then that many bytes of text. */
int tdat_read_sized_text(struct rd *r, int size_bytes, struct tdat_text *t, const char *item);

static inline int nomem(struct tdat_file_priv *fp, struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, fp->pub.path, "out of memory");
}

/* `p` (malloc'ed) freed with the file; freed at once if it cannot be kept. */
int tdat_own(struct tdat_file_priv *fp, void *p, struct tmx_error *err);

static inline struct tdat_text text_of(const void *p, size_t n)
{
	return (struct tdat_text){ p, n };
}

/* ------------------------------------------------------------------ */
/* v7 sections                                                          */
/* ------------------------------------------------------------------ */

struct section {
	uint16_t id, flags;
	uint32_t desc;
	uint64_t offset;       /* of the header */
	uint64_t data_off;     /* of the data in the file */
	uint64_t size;         /* in the file */
};

/* The section header at `off`, of id `expect_id` (-1: any). */
int tdat_section_header(struct tdat_file_priv *fp, uint64_t off, int expect_id,
			struct section *s, struct tmx_error *err);

int tdat_section_reader(struct tdat_file_priv *fp, const struct section *s, struct rd *r,
			struct tmx_error *err);

/* ------------------------------------------------------------------ */
/* Options (file_options.c)                                             */
/* ------------------------------------------------------------------ */

struct open_state {
	uint64_t sec_off[32];          /* v7: section offsets from the options, by id */
	struct tdat_buffer *bufs;      /* buffers in option order */
	size_t n_bufs, cap_bufs;
	bool have_top;
	size_t cap_options, cap_cpustats;
	uint64_t last_options_end;
};

const char *tdat_clock_from_text(struct tdat_file_priv *fp, const char *p, size_t n);
struct tdat_buffer *tdat_new_buffer(struct tdat_file_priv *fp, struct open_state *st,
				    struct tmx_error *err);
int tdat_read_options_v7(struct tdat_file_priv *fp, struct open_state *st, uint64_t off,
			 struct tmx_error *err);
int tdat_read_options_v6(struct tdat_file_priv *fp, struct open_state *st, struct rd *r);

/* ------------------------------------------------------------------ */
/* CPU data (file_cpu.c)                                                */
/* ------------------------------------------------------------------ */

int tdat_check_cpu_data(struct tdat_file_priv *fp, struct tdat_buffer *b, size_t bi,
			struct tmx_error *err);
int tdat_read_buffer_sections(struct tdat_file_priv *fp, struct tmx_error *err);
int tdat_read_v6_data(struct tdat_file_priv *fp, struct tdat_buffer *b, struct rd *r,
		      uint32_t cpus);

#endif
