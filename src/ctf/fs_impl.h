/*
 * Inside the CTF file-system reader: what its files share.  Not an
 * interface (ctf/fs.h is, which src/source/open.c makes tmx_ctf_fs_open()):
 *
 *   fs.c         trace discovery (directories with a `metadata` file),
 *                logical traces, opening, the source operations
 *   fs_index.c   data stream files and their packet index (LTTng index
 *                files, tracer quirks fixed, damage kept for later)
 *   fs_stream.c  files of one stream grouped and ordered, babeltrace2's
 *                message sequence per stream
 *
 * Functions that several files call are prefixed ctf_fs_; the small
 * helpers inlined here keep their names.
 */
#ifndef TMX_CTF_FS_IMPL_H
#define TMX_CTF_FS_IMPL_H

#include <stdlib.h>

#include "ctf/decode.h"
#include "model/reader.h"
#include "ctf/metadata.h"
#include "ctf/quirks.h"
#include "io/mapfile.h"
#include "model/clock.h"
#include "common/errors.h"
#include "model/msg_iter.h"
#include "tracemux/tracemux.h"

struct ctf_trace {
	char *dir;
	char *root;                   /* the input path it was found under */
	struct ctf_metadata_text meta;
	struct tmx_arena arena;
	struct tmx_trace_class *tc;
	struct tmx_trace trace;       /* the logical trace's model instance */
	struct ctf_trace *logical;    /* first physical trace with the same UUID */
	/*
	 * In a logical trace's first physical trace: the trace class of all
	 * its members' data, the one with the most stream and event classes
	 * (the first of those), as babeltrace2 decodes the data streams of
	 * merged traces with the metadata of that one.  So one logical trace
	 * has one set of classes, whichever directory an event comes from.
	 */
	const struct tmx_trace_class *merged_tc;
	struct ctf_quirks quirks;
};

/* The trace class that decodes the data files of `t` (see merged_tc). */
static inline const struct tmx_trace_class *ctf_data_tc(const struct ctf_trace *t)
{
	return t->logical->merged_tc;
}

struct ctf_file {
	struct tmx_mapfile map;
	struct ctf_trace *trace;
	struct ctf_packet_info *packets;
	size_t n_packets;
	struct tmx_error *damage;     /* what stopped the index after n_packets, or NULL */
	/* packet_ends_unread: the packets whose end time is still to be fixed (or NULL) */
	bool *end_pending;
};

struct stream_packet {
	struct ctf_file *file;
	size_t pi;
	size_t file_rank;            /* the file's place in the stream, for ties */
};

enum stream_state {
	ST_BEGIN,
	ST_PACKET_START,
	ST_DISCARDED_PACKETS,
	ST_PACKET_BEGIN,
	ST_EVENTS,
	ST_DONE,
};

struct ctf_stream {
	struct tmx_msg_iter iter;     /* first: the muxer sees this */
	struct ctf_fs *src;
	struct tmx_stream stream;
	struct ctf_file **files;
	size_t n_files;
	const struct tmx_clock_class *clock;
	struct tmx_clock_conv conv;   /* of `clock`, when it has one */

	/*
	 * The stream's packets in reading order: its files merged by time, a
	 * packet found in several files (overlapping snapshots) kept once.  An
	 * entry with pi == file->n_packets stands for the file's damage.
	 */
	struct stream_packet *plist;
	size_t n_plist, next;

	enum stream_state state;
	struct ctf_file *dec_file;   /* the file the decoder reads, NULL if none */
	/*
	 * Packets read but not yet released (advance_packet): one madvise per
	 * RELEASE_BATCH bytes, since each one costs the other CPUs running the
	 * process's threads a TLB shoot-down.
	 */
	struct ctf_file *rel_file;
	uint64_t rel_off, rel_len;
	struct ctf_decoder dec;
	struct ctf_packet_info cur;
	struct ctf_packet_info prev;
	bool has_prev;
	uint64_t n_packets_read;
	/*
	 * tmx_source_ops.bytes_read, read by any thread
	 * (common/progress_count.h): the sizes of the packets passed
	 * (`bytes_packets`: decoded, trimmed away, or damaged and skipped),
	 * plus, every CTF_PROGRESS_EVENTS events, how far the decoder is into
	 * the current one (a packet may be the whole stream).
	 */
	uint64_t bytes_read, bytes_packets;
	uint32_t progress_tick;
	bool skip_set;
	int64_t skip_before_ns;      /* packets that end before this are not read */

	struct tmx_packet packet;
	struct tmx_event event;
	struct tmx_msg msg;
};

struct ctf_fs {
	struct ctf_trace **traces;
	size_t n_traces;
	struct ctf_file **files;
	size_t n_files;
	struct ctf_stream **streams;
	size_t n_streams;
	/*
	 * The caller's options, copied: its structure may be gone once the
	 * source is open, as with the other readers (trace_name is only read
	 * while opening).
	 */
	struct tmx_ctf_fs_opts own_opts;
	const struct tmx_ctf_fs_opts *opts;   /* &own_opts */
	const struct tmx_diag *diag;
	uint64_t skipped_packets, skipped_bytes;   /* lenient mode */
	/* Clocks whose times left int64 nanoseconds from origin: warned about once. */
	const struct tmx_clock_class **out_of_range;
	size_t n_out_of_range;
	const struct tmx_reader_filter *filter;    /* tmx_source_set_filter; NULL: none */
	bool skip_fields;                          /* tmx_source_skip_fields */
	/* tmx_source_skip_fields_of: the classes whose values are read; NULL: all */
	bool (*reads)(const void *ctx, const struct tmx_event_class *ec);
	const void *reads_ctx;
};

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */
/* ------------------------------------------------------------------ */

static inline int nomem(struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

static inline int push_ptr(void ***array, size_t *n, void *p)
{
	void **a;

	if ((*n & (*n - 1)) == 0) {   /* grow at powers of two */
		a = realloc(*array, (*n ? *n * 2 : 1) * sizeof(*a));
		if (!a)
			return -1;
		*array = a;
	}
	(*array)[(*n)++] = p;
	return 0;
}

static inline const struct ctf_packet_info *entry_info(const struct stream_packet *e)
{
	return e->pi < e->file->n_packets ? &e->file->packets[e->pi] : NULL;
}

/* ------------------------------------------------------------------ */
/* Data stream files (fs_index.c)                                       */
/* ------------------------------------------------------------------ */

/* A data stream file mapped and its packets indexed, added to `src`. */
int ctf_fs_file_open(struct ctf_fs *src, struct ctf_trace *t, const char *path,
		     struct tmx_error *err);

void ctf_fs_file_free(struct ctf_file *f);
/* Fixes packet `pi`'s end time now if it was left for later (packet_ends_unread). */
void ctf_fs_fix_end(struct ctf_file *f, size_t pi);

void ctf_fs_skip_damage(struct ctf_fs *src, const struct tmx_error *damage, uint64_t bytes);

/* ------------------------------------------------------------------ */
/* Streams (fs_stream.c)                                                */
/* ------------------------------------------------------------------ */

int ctf_fs_make_streams(struct ctf_fs *src, struct tmx_error *err);

void ctf_fs_stream_destroy(struct ctf_stream *s);
/* The source's filter (src->filter) given to the stream's decoder. */
void ctf_fs_stream_set_filter(struct ctf_stream *s);

#endif
