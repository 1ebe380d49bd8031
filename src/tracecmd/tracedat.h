/*
 * trace-cmd trace.dat files (versions 6 and 7): the internal API.
 *
 * Two layers:
 *
 *  1. The FILE layer (tdat_file_*, tdat_cursor_*): one trace.dat opened from
 *     a path (mmap'ed) or from memory, every header, section and option read
 *     and checked at open; per (buffer, CPU) cursors that walk the
 *     ring-buffer pages and hand out raw records exactly as libtraceevent's
 *     kbuffer does (record bytes in the file's byte order, timestamps as
 *     trace-cmd's record->ts).  The `-o tracecmd` output drives its own
 *     reading order with these cursors.
 *
 *  2. The MODEL layer (tdat_reader_open(), which src/source/open.c makes
 *     tmx_tracedat_open() of tracemux.h): one reader over one or more
 *     files, one stream per (file, buffer, CPU), which the source layer
 *     merges by time.
 *     From a message of that source, tdat_record_of() gives back the raw
 *     record and the file it came from.
 *
 * Texts (struct tdat_text) point into the mapped file or into buffers the
 * file object owns (decompressed sections); they are NOT NUL-terminated
 * unless said otherwise and stay valid until tdat_file_close().
 *
 * Conventions: functions return TMX_OK or a tmx_status code with `err`
 * filled (file name, byte offset, what was expected).
 *
 * Stability: this header is read by src/sink/tracecmd/; fields and functions
 * are only ever added.
 */
#ifndef TMX_TRACEDAT_H
#define TMX_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/tracemux.h"

struct tmx_source_ops;

/* Option ids (trace-cmd.dat.v7(5)). */
enum tdat_option_id {
	TDAT_OPT_DONE = 0,
	TDAT_OPT_DATE = 1,
	TDAT_OPT_CPUSTAT = 2,
	TDAT_OPT_BUFFER = 3,
	TDAT_OPT_TRACECLOCK = 4,
	TDAT_OPT_UNAME = 5,
	TDAT_OPT_HOOK = 6,
	TDAT_OPT_OFFSET = 7,
	TDAT_OPT_CPUCOUNT = 8,
	TDAT_OPT_VERSION = 9,
	TDAT_OPT_PROCMAPS = 10,
	TDAT_OPT_TRACEID = 11,
	TDAT_OPT_TIME_SHIFT = 12,
	TDAT_OPT_GUEST = 13,
	TDAT_OPT_TSC2NSEC = 14,
	TDAT_OPT_STRINGS = 15,
	TDAT_OPT_HEADER_INFO = 16,
	TDAT_OPT_FTRACE_EVENTS = 17,
	TDAT_OPT_EVENT_FORMATS = 18,
	TDAT_OPT_KALLSYMS = 19,
	TDAT_OPT_PRINTK = 20,
	TDAT_OPT_CMDLINES = 21,
	TDAT_OPT_BUFFER_TEXT = 22,
};

/* Section ids of v7 section headers (same numbers as the options). */
enum tdat_section_id {
	TDAT_SEC_OPTIONS = 0,
	TDAT_SEC_FLYRECORD = 3,     /* BUFFER FLYRECORD data */
	TDAT_SEC_STRINGS = 15,
	TDAT_SEC_HEADER_INFO = 16,
	TDAT_SEC_FTRACE_EVENTS = 17,
	TDAT_SEC_EVENT_FORMATS = 18,
	TDAT_SEC_KALLSYMS = 19,
	TDAT_SEC_PRINTK = 20,
	TDAT_SEC_CMDLINES = 21,
	TDAT_SEC_BUFFER_TEXT = 22,  /* BUFFER LATENCY data */
};

struct tdat_text {
	const char *ptr;   /* NULL and len 0 when absent */
	size_t len;
};

/* One option as stored (v6: the options after the CPU count; v7: every options section). */
struct tdat_option {
	uint16_t id;
	uint32_t size;
	const uint8_t *data;   /* `size` bytes, in the file's byte order */
	uint64_t offset;       /* file offset of the option's data */
};

/* One format file (ftrace or event system), as stored, plus what was parsed from it. */
struct tdat_format_file {
	const char *system;    /* NUL-terminated: "ftrace" for the ftrace formats */
	struct tdat_text text;
	const struct tdat_event *event;  /* parsed, NULL if it could not be parsed */
};

/* Field of an event format (`field:TYPE NAME; offset:N; size:N; signed:N;`). */
enum tdat_field_flags {
	TDAT_FIELD_SIGNED = 1 << 0,
	TDAT_FIELD_ARRAY = 1 << 1,    /* static array: NAME[N] */
	TDAT_FIELD_STRING = 1 << 2,   /* char array or __data_loc/__rel_loc char[] */
	TDAT_FIELD_DYNAMIC = 1 << 3,  /* __data_loc: u32 = len << 16 | offset in the record */
	TDAT_FIELD_RELATIVE = 1 << 4, /* __rel_loc: offset from the end of this field */
	TDAT_FIELD_POINTER = 1 << 5,  /* TYPE ends with '*' */
	TDAT_FIELD_COMMON = 1 << 6,   /* common_* (before the first blank line) */
	TDAT_FIELD_LONG = 1 << 7,     /* type is long / unsigned long */
};

struct tdat_field {
	const char *type;      /* NUL-terminated, e.g. "unsigned long", "__data_loc char[]" */
	const char *name;      /* NUL-terminated, without [N] */
	uint32_t offset;       /* in the record payload */
	uint32_t size;         /* whole field (array: all elements; dynamic: 4) */
	uint32_t elem_size;    /* element size for arrays (size / count), else size */
	uint32_t count;        /* static array element count, 0 if not an array */
	uint32_t flags;        /* enum tdat_field_flags */
};

struct tdat_event {
	uint32_t id;
	const char *system;    /* NUL-terminated */
	const char *name;      /* NUL-terminated */
	size_t n_common;       /* fields[0 .. n_common) are the common_* fields */
	size_t n_fields;       /* all fields, common first */
	struct tdat_field *fields;
	struct tdat_text print_fmt;  /* text after "print fmt: ", verbatim */
	struct tdat_text format;     /* the whole format file */
};

struct tdat_cpu_data {
	uint32_t cpu;               /* CPU id as stored (lists may be sparse) */
	uint64_t offset;            /* file offset of the data (compressed: the chunk count) */
	uint64_t size;              /* as stored (compressed: without the 4-byte chunk count) */
	bool compressed;
	uint64_t uncompressed_size; /* sum of the chunks' uncompressed sizes; == size if not compressed */
	uint32_t n_chunks;          /* compressed data: number of chunks */
};

struct tdat_buffer {
	const char *name;      /* NUL-terminated, "" for the top buffer */
	const char *clock;     /* NUL-terminated trace clock name, e.g. "local" */
	uint32_t page_size;
	bool latency;          /* BUFFER_TEXT / v6 "latency": text, no CPU data */
	struct tdat_text latency_text;
	uint64_t section_offset;    /* v7: BUFFER FLYRECORD/LATENCY section offset, 0 for v6 */
	uint32_t n_cpus;
	struct tdat_cpu_data *cpus;
};

struct tdat_file {
	const char *path;           /* NUL-terminated, as given */
	const uint8_t *data;        /* the whole file (mapped) */
	uint64_t size;
	int version;                /* 6 or 7 */
	bool big_endian;
	uint8_t long_size;          /* from the initial format (user space long) */
	uint32_t page_size;
	const char *compression;    /* NUL-terminated, "none" for v6 / uncompressed */
	const char *compression_version;

	struct tdat_text header_page;
	struct tdat_text header_event;
	/* From header_page: kernel long size (commit field size) and data offset. */
	uint32_t kernel_long_size;  /* 4 or 8 */
	uint32_t page_header_size;  /* offset of the data in a page (16 or 12) */

	size_t n_ftrace_formats;
	struct tdat_format_file *ftrace_formats;
	size_t n_event_formats;     /* all systems, in file order */
	struct tdat_format_file *event_formats;
	size_t n_systems;

	/* All parsed events (ftrace and others), sorted by id for tdat_file_event(). */
	size_t n_events;
	const struct tdat_event **events;

	struct tdat_text kallsyms, printk, cmdlines;

	/* Options, raw, in file order. */
	size_t n_options;
	struct tdat_option *options;
	size_t n_cpustats;
	struct tdat_text *cpustats;
	struct tdat_text uname, version_text, date, offset_text, hook, procmaps;
	bool has_traceclock;
	struct tdat_text traceclock;  /* the trace_clock file, e.g. "[local] global ..." */
	bool has_cpucount;
	uint32_t cpucount;          /* CPUCOUNT option (v6: the CPU count field) */
	uint32_t max_cpu;           /* what trace-cmd calls max_cpu: CPUCOUNT, else the v6 count */
	bool has_trace_id;
	uint64_t trace_id;
	bool has_tsc2nsec;
	uint32_t tsc2nsec_mult, tsc2nsec_shift;
	uint64_t tsc2nsec_offset;
	bool has_time_shift;        /* TIME_SHIFT parsed (applied only with a peer: see tracedat.c) */
	int64_t ts_offset;          /* OFFSET + DATE options, added to every timestamp */
	/*
	 * Whether timestamps are nanoseconds: TSC2NSEC applied, or a clock other
	 * than x86-tsc/counter.  trace-cmd prints usecs when true, raw integers when false.
	 */
	bool ts_in_ns;

	/* Buffers in file order: [0] is the top buffer (name ""), then instances. */
	size_t n_buffers;
	struct tdat_buffer *buffers;

	/* v7: section count (as `dump --summary` says) and STRINGS text. */
	size_t n_sections;
	struct tdat_text strings;
};

/* Limits on sizes read from a file (no decompression bombs). */
/* Every trace.dat starts with these 10 bytes. */
#define TDAT_MAGIC "\x17\x08\x44tracing"
#define TDAT_MAGIC_LEN 10

#define TDAT_MAX_SECTION_UNCOMPRESSED (1ULL << 30)  /* one metadata section */
#define TDAT_MAX_CHUNK_UNCOMPRESSED (64u << 20)     /* one flyrecord chunk */
#define TDAT_MAX_PAGE_SIZE (1u << 24)

struct tdat_open_opts {
	/* Damaged pages/chunks: warn and skip instead of failing (cursors). */
	bool lenient;
	const struct tmx_diag *diag;
	/* Cap on one decompressed metadata section; 0: TDAT_MAX_SECTION_UNCOMPRESSED. */
	uint64_t max_section;
	/*
	 * v7: leave the KALLSYMS and PRINTK sections unread (their texts stay
	 * empty): the model needs neither, and a compressed kallsyms costs
	 * megabytes.  CMDLINES is read (the model's tasks, tmx_trace_task():
	 * the kernel keeps at most saved_cmdlines_size entries, 128 by default).
	 */
	bool skip_texts;
};

int tdat_file_open(const char *path, const struct tdat_open_opts *opts,
		   struct tdat_file **out, struct tmx_error *err);
/* Same, over bytes in memory (kept, not copied: they must outlive the file). */
int tdat_file_open_mem(const uint8_t *data, size_t size, const char *name,
		       const struct tdat_open_opts *opts, struct tdat_file **out,
		       struct tmx_error *err);
void tdat_file_close(struct tdat_file *f);

/* The event with this id (common_type), or NULL. */
const struct tdat_event *tdat_file_event(const struct tdat_file *f, uint32_t id);

/* Reads numbers in the file's byte order (p must hold the bytes). */
uint16_t tdat_read16(const struct tdat_file *f, const void *p);
uint32_t tdat_read32(const struct tdat_file *f, const void *p);
uint64_t tdat_read64(const struct tdat_file *f, const void *p);

/* ------------------------------------------------------------------ */
/* Records                                                              */
/* ------------------------------------------------------------------ */

struct tdat_record {
	const struct tdat_file *file;
	size_t file_index;          /* in the source (tdat_source_file), 0 for a lone file */
	uint32_t buffer;            /* index in file->buffers */
	uint32_t cpu;               /* CPU id */
	uint64_t ts;                /* trace-cmd's record->ts: TSC2NSEC, OFFSET/DATE applied */
	uint64_t ts_raw;            /* the ring buffer's time, before any conversion */
	const uint8_t *data;        /* the event payload (tep_record.data) */
	uint32_t size;              /* its size (tep_record.size, kbuffer_event_size) */
	/*
	 * kbuffer_missed_events() for the page: > 0 count stored, -1 flag
	 * without a count, 0 none.  Set only on the first record of a page
	 * that carries the flag.
	 */
	int64_t missed_events;
	uint64_t offset;            /* offset of the record (uncompressed data: file offset;
				       compressed: offset in the CPU's decompressed data) */
	const struct tdat_event *event;  /* from the first 2 bytes (common_type), NULL if unknown */
	/*
	 * Bytes readable from `data` to the end of its page (>= size): records
	 * shorter than their format are read past their end by libtraceevent,
	 * inside the page.
	 */
	uint32_t avail;
};

struct tdat_cursor;

/* A cursor over one CPU of one buffer (cpu_index in buffer->cpus). */
int tdat_cursor_open(const struct tdat_file *f, size_t buffer, size_t cpu_index,
		     struct tdat_cursor **out, struct tmx_error *err);
/*
 * The next record, *rec = NULL at the end.  The record (and its data) stays
 * valid until the next call on this cursor.
 */
int tdat_cursor_next(struct tdat_cursor *c, const struct tdat_record **rec, struct tmx_error *err);
/* The record that the next tdat_cursor_next() will return, without advancing. */
int tdat_cursor_peek(struct tdat_cursor *c, const struct tdat_record **rec, struct tmx_error *err);
void tdat_cursor_close(struct tdat_cursor *c);
/*
 * The bytes of the cursor's range (its CPU's data as stored) passed so far:
 * pages or compressed chunks read or skipped as damaged, the whole range
 * once the cursor has ended (the CPU's tdat_cpu_data.size for a cursor over
 * all of it).  Any thread may ask while another reads the cursor.
 */
uint64_t tdat_cursor_bytes_read(const struct tdat_cursor *c);
/*
 * A CPU's data is made of pieces that decode independently: its
 * ring-buffer pages (each has its own timestamp) or, compressed, its
 * chunks (each holds whole pages).  tdat_cpu_pieces() counts them;
 * tdat_cursor_range() sets a cursor to read pieces [first, end) from the
 * start of `first` (what it read before is forgotten).  A cursor opens on
 * all of them.  Records, offsets, warnings and errors are those of a
 * cursor over the whole CPU at the same place, so cursors over
 * consecutive ranges give the whole CPU's sequence.
 */
size_t tdat_cpu_pieces(const struct tdat_file *f, size_t buffer, size_t cpu_index);
void tdat_cursor_range(struct tdat_cursor *c, size_t first, size_t end);
/*
 * Hands pieces [first, end) of a mapped file's uncompressed CPU data back
 * to the kernel (a cursor does it itself as it goes, a few MiB at a time;
 * cursors over short ranges leave it to their reader).  Records there stay
 * readable: the pages are read from the file again if needed.
 */
void tdat_cpu_release(const struct tdat_file *f, size_t buffer, size_t cpu_index, size_t first,
		      size_t end);
/*
 * Frees what a cursor that has ended holds for reading (a compressed
 * chunk's buffer, the decompression context); its counts stay readable.
 * For the many short-lived cursors of a stream read in segments.
 */
void tdat_cursor_drop_buffers(struct tdat_cursor *c);
/*
 * A compressed CPU's records keep their bytes after the cursor has moved
 * on: before it decompresses a chunk into the buffer that holds the
 * records it gave (and when tdat_cursor_hand_over is called), it hands
 * that buffer to hand(ctx, buf, cap), which owns it from then on (frees
 * it) and returns another one for the cursor to use (*new_cap its size,
 * or NULL: the cursor makes one).  For readers that keep records of a
 * whole range (-o tracecmd's workers, src/tools/tracecmd/report_par.c)
 * instead of copying them.  Nothing changes for uncompressed data, whose
 * records are in the mapped file.
 */
typedef uint8_t *(*tdat_hand_fn)(void *ctx, uint8_t *buf, size_t cap, size_t *new_cap);
void tdat_cursor_hand_buffers(struct tdat_cursor *c, tdat_hand_fn hand, void *ctx);
/* Its buffer handed now (at the end of a range: the chunk in it is not read further). */
void tdat_cursor_hand_over(struct tdat_cursor *c);
/*
 * With tdat_open_opts.lenient, cursors warn (diag) and skip a damaged page
 * or compressed chunk instead of failing: how many were skipped so far,
 * and their bytes (uncompressed).
 */
void tdat_file_skipped(const struct tdat_file *f, uint64_t *units, uint64_t *bytes);

/*
 * The options (and v7 sections) the reader passes over -- BTF,
 * LAST_BOOT_INFO, MODULES_FILE of trace-cmd 3.4, unknown ids -- named in
 * `out` ("BTF (option 23: section 23 at offset N, M bytes), ..."), cut to
 * cap; returns its length, 0 when there are none.
 */
size_t tdat_skipped_text(const struct tdat_file *f, char *out, size_t cap);
/*
 * Ring-buffer times (ts_raw) of the first and last records of one CPU,
 * from its first and last pages (or chunks) holding a record; false when
 * it has none (or they cannot be read: the cursor will say why).
 */
bool tdat_cpu_time_range(const struct tdat_file *f, size_t buffer, size_t cpu_index,
			 uint64_t *first, uint64_t *last);

/*
 * The page decoder alone (used by cursors, unit tests and fuzzing).
 * `page` holds one ring-buffer page of `size` bytes.
 */
struct tdat_page {
	const struct tdat_file *file;   /* byte order, kernel long size, header size */
	const uint8_t *page;            /* after tdat_page_start(): the page data */
	uint32_t size;
	uint64_t ts;                    /* current time (page timestamp + deltas) */
	uint32_t commit;                /* data bytes after the header */
	uint32_t pos;                   /* next event, offset in the page data */
	int64_t missed_events;
	uint32_t header_size;           /* bytes before the data (16 or 12) */
};
/* Starts a page: reads the timestamp and commit word, checks the commit. */
int tdat_page_start(struct tdat_page *pg, const struct tdat_file *f, const uint8_t *page,
		    uint32_t size, struct tmx_error *err, uint64_t file_offset);
/*
 * The next data event of the page: data and len set, pg->ts updated; returns
 * TMX_OK with *data = NULL at the end of the page.
 */
int tdat_page_next(struct tdat_page *pg, const uint8_t **data, uint32_t *len,
		   struct tmx_error *err, uint64_t file_offset);

/*
 * Applies the file's time conversions to a ring-buffer time, as trace-cmd's
 * timestamp_calc(): TIME_SHIFT (per CPU, when usable), TSC2NSEC (mult,
 * shift), then OFFSET and DATE, for CPU `cpu`'s ring buffer.
 */
uint64_t tdat_convert_ts_cpu(const struct tdat_file *f, uint64_t raw, uint32_t cpu);

/* ------------------------------------------------------------------ */
/* The model reader (tmx_tracedat_open, src/source/open.c)              */
/* ------------------------------------------------------------------ */

/* Its operations: per-stream iterators (stream_iters), no next. */
extern const struct tmx_source_ops tdat_source_ops;

/*
 * Opens the files, builds their classes and one stream per buffer and CPU;
 * sets *impl, the reader behind tdat_source_ops.  `opts` is copied
 * (tmx_opts_copy's size rule).
 */
int tdat_reader_open(const char *const *paths, size_t n_paths,
		     const struct tmx_tracedat_opts *opts, const struct tmx_diag *diag,
		     void **impl, struct tmx_error *err);

/*
 * The trace.dat files behind the reader `impl` (tdat_source_file() of
 * source/source.h for a source).  It opens them with skip_texts: no
 * kallsyms, printk.
 */
size_t tdat_reader_file_count(const void *impl);
const struct tdat_file *tdat_reader_file(const void *impl, size_t i);

/*
 * The raw record behind a TMX_MSG_EVENT message of a trace.dat source, or
 * behind a TMX_MSG_DISCARDED_EVENTS message (then `data` is NULL and
 * `missed_events` the count, -1 when unknown); NULL for any other message.
 * Not for the messages of a stream that the parallel runner reads in
 * segments (segment.c): they name the stream, not their segment.
 */
const struct tdat_record *tdat_record_of(const struct tmx_msg *msg);

#endif
