/*
 * libtracemux — read binary trace formats into one common model.
 *
 *   struct tmx_source *src;
 *   struct tmx_ctf_fs_opts opts = TMX_CTF_FS_OPTS_INIT;
 *   tmx_ctf_fs_open(paths, n, &opts, &diag, &src, &err);
 *   while (tmx_source_next(src, &msg, &err) == TMX_OK && msg)
 *           ... msg->kind, msg->event ...
 *   tmx_source_free(src);
 *
 * A source merges all the streams of its inputs by time (see
 * include/tracemux/model.h for messages).  Calls return TMX_OK or an error
 * code with `err` filled; messages already returned stay valid output.
 */
#ifndef TRACEMUX_TRACEMUX_H
#define TRACEMUX_TRACEMUX_H

#include "tracemux/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRACEMUX_VERSION_STRING "0.1.0"
/* MAJOR * 1000000 + MINOR * 1000 + PATCH, for comparisons. */
#define TRACEMUX_VERSION_NUMBER 1000

/*
 * The version of the library a program runs with, which may be newer than
 * the headers it was compiled with (TRACEMUX_VERSION_*): as SQLite's
 * sqlite3_libversion(), for a program that must check it at run time.
 */
TMX_API const char *tmx_libversion(void);
TMX_API int tmx_libversion_number(void);

struct tmx_source;

/*
 * Options structs that can grow (tmx_open_opts, its nested structs and
 * tmx_run_opts in tracemux/run.h), as zstd's and SQLite's: each begins with
 * `size_t size`, which the caller sets to sizeof the struct it was compiled
 * with, most simply with the TMX_*_OPTS_INIT initializers (every other
 * member 0, which is its default).  The library reads only `size` bytes:
 *   - a smaller size (a program built against older headers) gives the
 *     members it does not cover their default, 0;
 *   - a larger size (newer headers than the library) is accepted only when
 *     the bytes the library does not know are all zero (options left at
 *     their default), else TMX_ERR_USAGE;
 *   - a size smaller than the `size` member itself (0: never set), or
 *     over 4096 bytes (garbage: never set either), is TMX_ERR_USAGE naming
 *     the struct.
 * A NULL pointer is all defaults.  The layouts only ever grow by appending
 * members at the end; a nested struct keeps its place, and the structs
 * after it are found from its `size` (so it may grow too); no member is
 * more strictly aligned than size_t.
 */

/* Options of the CTF file-system source (babeltrace2's src.ctf.fs). */
struct tmx_ctf_fs_opts {
	size_t size;              /* sizeof(struct tmx_ctf_fs_opts) */
	int64_t clock_offset_s;   /* added to every clock class offset */
	int64_t clock_offset_ns;
	bool force_origin_unix_epoch;
	const char *trace_name;   /* overrides every trace's name when set */
	/*
	 * On a damaged packet, warn (file, offset, reason) and go on with the
	 * next good one, found from the packet size or by looking for the next
	 * packet magic, instead of stopping.
	 */
	bool lenient;
	/* Only find the traces and read their metadata (no data file is opened). */
	bool metadata_only;
	/*
	 * The caller reads no packet end time but each stream's last (its
	 * range, tmx_source_stream_info): the end times that old LTTng
	 * versions write wrong (before 2.9.13/2.11, fixed as babeltrace2 does
	 * to the packet's last event time, which decodes every event at open)
	 * are then fixed only where read: each file's last packet, --begin's
	 * skip, duplicate packets.  Packet and discarded-event messages may
	 * carry the end time as written.  Events are the same.
	 */
	bool packet_ends_unread;
};
#define TMX_CTF_FS_OPTS_INIT { .size = sizeof(struct tmx_ctf_fs_opts) }

/*
 * Opens CTF traces: each path is a trace directory (with a `metadata`
 * file) or a directory containing traces at any depth.  All metadata is
 * parsed and every packet header indexed before this returns, so invalid
 * metadata or packet sizes fail here, before any event is produced.
 */
TMX_API int tmx_ctf_fs_open(const char *const *paths, size_t n_paths,
		    const struct tmx_ctf_fs_opts *opts, const struct tmx_diag *diag,
		    struct tmx_source **out, struct tmx_error *err);

/* Options of the trace-cmd trace.dat reader. */
struct tmx_tracedat_opts {
	size_t size;  /* sizeof(struct tmx_tracedat_opts) */
	/* On a damaged page or chunk, warn and go on with the next one. */
	bool lenient;
};
#define TMX_TRACEDAT_OPTS_INIT { .size = sizeof(struct tmx_tracedat_opts) }

/* Options of the LLVM XRay reader. */
struct tmx_xray_opts {
	size_t size;  /* sizeof(struct tmx_xray_opts) */
	/* ELF binary (its xray_instr_map section) or llvm-xray YAML map; may be NULL. */
	const char *instr_map;
	bool symbolize;  /* name functions from the binary's symbol table */
	/* On a damaged buffer, warn and go on with the next one. */
	bool lenient;
	/*
	 * Records in llvm-xray's --sort=false order (per thread, block order)
	 * instead of its default stable sort by TSC.
	 */
	bool unsorted;
	/*
	 * Threads that find the runs of TSCs and decode the sorted output
	 * ahead of the reading thread (0: the CPUs available; 1: none).  The
	 * records do not depend on it.
	 */
	unsigned jobs;
};
#define TMX_XRAY_OPTS_INIT { .size = sizeof(struct tmx_xray_opts) }

/* Options of tmx_open(): each nested struct has its own `size`. */
struct tmx_open_opts {
	size_t size;  /* sizeof(struct tmx_open_opts) */
	struct tmx_ctf_fs_opts ctf;
	struct tmx_tracedat_opts tracedat;
	struct tmx_xray_opts xray;
};
#define TMX_OPEN_OPTS_INIT { .size = sizeof(struct tmx_open_opts), .ctf = TMX_CTF_FS_OPTS_INIT, \
			     .tracedat = TMX_TRACEDAT_OPTS_INIT, .xray = TMX_XRAY_OPTS_INIT }

/*
 * Opens inputs of any format, each recognized by what it is: a directory
 * holds CTF traces; a file starting with trace-cmd's magic is a trace.dat;
 * a file with an XRay header is an XRay log, and so is llvm-xray's YAML
 * trace (`llvm-xray convert --output-format=yaml`).  Inputs of one format are
 * opened together (several trace.dat files merge as `trace-cmd report -i A
 * -i B` does); inputs of different formats merge by time.  Every opening
 * function copies `opts`; `diag` (may be NULL) is kept: warnings also come
 * while reading, so it must stay valid while the source lives.
 */
TMX_API int tmx_open(const char *const *paths, size_t n_paths, const struct tmx_open_opts *opts,
	     const struct tmx_diag *diag, struct tmx_source **out, struct tmx_error *err);

/*
 * What tmx_open() would read `path` as: a directory is CTF; a file is a
 * trace.dat (by its magic), an XRay log (by its header) or llvm-xray's YAML
 * trace.  Fails (TMX_ERR_UNSUPPORTED, saying what was found) for anything
 * else, or when the path cannot be read.
 */
TMX_API int tmx_detect_format(const char *path, enum tmx_trace_format *fmt,
			      struct tmx_error *err);

/* The trace-cmd trace.dat reader alone: every path is a trace.dat file. */
TMX_API int tmx_tracedat_open(const char *const *paths, size_t n_paths,
		      const struct tmx_tracedat_opts *opts, const struct tmx_diag *diag,
		      struct tmx_source **out, struct tmx_error *err);

/*
 * The XRay reader alone: every path is an XRay log (FDR or basic mode) or
 * llvm-xray's YAML trace.
 */
TMX_API int tmx_xray_open(const char *const *paths, size_t n_paths, const struct tmx_xray_opts *opts,
		  const struct tmx_diag *diag, struct tmx_source **out, struct tmx_error *err);

/* Sets *msg to the next message in time order, or NULL at the end. */
TMX_API int tmx_source_next(struct tmx_source *src, const struct tmx_msg **msg,
		    struct tmx_error *err);

/* Earliest packet beginning time of all streams (from the index). */
TMX_API int tmx_source_first_ns(const struct tmx_source *src, int64_t *ns);
/* Logical traces (physical traces sharing a UUID count once). */
TMX_API size_t tmx_source_logical_trace_count(const struct tmx_source *src);
TMX_API const struct tmx_trace *tmx_source_logical_trace(const struct tmx_source *src, size_t i);
/*
 * babeltrace2's --stream-intersection, per trace: the time range in which
 * every stream of `trace` is active (from each stream's first packet
 * beginning to its last packet end).  Fails when the trace has no stream
 * or its streams have no time in common.
 */
TMX_API int tmx_source_stream_intersection(const struct tmx_source *src, const struct tmx_trace *trace,
				   int64_t *begin, int64_t *end, struct tmx_error *err);
/*
 * Packets that end before `ns` are skipped without being decoded (call
 * before the first tmx_source_next()).  Events before `ns` in the packets
 * that are read still come out: trimming them is the caller's job.
 */
TMX_API void tmx_source_skip_before(struct tmx_source *src, int64_t ns);

/* What babeltrace2's `trace-infos` query tells about a stream. */
struct tmx_stream_info {
	const struct tmx_stream *stream;  /* ->trace is its logical trace */
	bool has_instance_id;             /* else it is named after its first file */
	bool has_range;                   /* first packet beginning, last packet end */
	int64_t begin_ns, end_ns;
	uint64_t n_packets;               /* in its index (duplicates counted once) */
	uint64_t bytes;                   /* their total size */
	size_t n_files;
};
TMX_API size_t tmx_source_stream_count(const struct tmx_source *src);
TMX_API void tmx_source_stream_info(const struct tmx_source *src, size_t i, struct tmx_stream_info *info);

/* Number of physical traces and, for each, its metadata text. */
TMX_API size_t tmx_source_trace_count(const struct tmx_source *src);
TMX_API const char *tmx_source_trace_metadata(const struct tmx_source *src, size_t i);
TMX_API bool tmx_source_trace_packetized(const struct tmx_source *src, size_t i);

/* With `lenient`: how many damaged packets were skipped, and how many bytes. */
TMX_API void tmx_source_skipped(const struct tmx_source *src, uint64_t *packets, uint64_t *bytes);

/*
 * Dense numbers for event classes: every event class that the source's
 * streams can produce, numbered 0..count-1 (in stream order, then by class
 * id), so that a caller can keep per-class data in a plain array.  Made
 * at the first call (0 classes if memory runs out).  The index of a class
 * is SIZE_MAX when the class is not one of the source's; once the numbers
 * are made it costs one or two probes of a hash table, so a caller may
 * ask it for every event instead of keeping its own map of classes.
 */
TMX_API size_t tmx_source_event_class_count(struct tmx_source *src);
TMX_API const struct tmx_event_class *tmx_source_event_class(struct tmx_source *src, size_t i);
TMX_API size_t tmx_source_event_class_index(struct tmx_source *src,
					    const struct tmx_event_class *ec);
/*
 * The number i of a stream, as tmx_source_stream_info(src, i) knows it
 * (0..tmx_source_stream_count-1), or SIZE_MAX for a stream not of `src`.
 */
TMX_API size_t tmx_source_stream_index(struct tmx_source *src, const struct tmx_stream *stream);

/* The format of the source's first input (its first logical trace). */
TMX_API enum tmx_trace_format tmx_source_format(const struct tmx_source *src);

TMX_API void tmx_source_free(struct tmx_source *src);

#ifdef __cplusplus
}
#endif

#endif
