/*
 * Inside the trace.dat model reader: what its files share.  Not an
 * interface (tracedat.h's tdat_reader_open() is, which src/source/open.c
 * makes tmx_tracedat_open()):
 *
 *   source.c          the source: files opened, streams per buffer and
 *                     CPU, the source operations, tdat_record_of
 *   source_classes.c  the model's classes of a file: trace, clock, stream
 *                     class, an event class per format with its decoding
 *                     plan
 *   source_stream.c   a stream's records decoded into values and its
 *                     message sequence
 *
 * Functions that several files call are prefixed tdm_.
 */
#ifndef TMX_TRACECMD_SOURCE_IMPL_H
#define TMX_TRACECMD_SOURCE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/errors.h"
#include "model/field_class.h"
#include "model/msg_iter.h"
#include "model/reader.h"
#include "tracecmd/internal.h"

enum plan_kind {
	P_INT,        /* 1, 2, 4 or 8 bytes */
	P_TEXT,       /* static char array: one text value */
	P_FLEX_TEXT,  /* char NAME[] of size 0: the rest of the record */
	P_ARRAY,      /* static array of integers */
	P_BYTES,      /* a field of another size: bytes */
	P_DYN_STRING, /* __data_loc / __rel_loc char[] */
	P_DYN_SEQ,    /* __data_loc / __rel_loc other[] */
};

/*
 * What the fast path (a record long enough for every field's fixed part)
 * does with a field: integers by width and signedness, so that it reads
 * them without testing the field's kind, size and sign one after another.
 */
enum plan_op {
	OP_U8, OP_S8, OP_U16, OP_S16, OP_U32, OP_S32, OP_X64,
	/* the same in the other byte order than the host's */
	OP_U16_SW, OP_S16_SW, OP_U32_SW, OP_S32_SW, OP_X64_SW,
	OP_TEXT,      /* P_TEXT */
	OP_FLEX_TEXT, /* P_FLEX_TEXT */
	OP_ELEMS,     /* P_ARRAY, P_BYTES: `len` integers of es bytes */
	OP_DYN_STRING,
	OP_DYN_SEQ,
	OP_STRUCT,    /* an event plan's struct: its value (fc, len members) */
	OP_END,       /* after an event plan's last field */
};

struct plan_field {
	const struct tdat_field *fd;
	struct tmx_field_class *fc;
	struct tmx_field_class *elem;   /* arrays, sequences */
	uint32_t off, size;             /* fd->offset, fd->size */
	uint32_t len;                   /* OP_ELEMS: the element count (fc->length);
					   OP_STRUCT: the member count */
	uint8_t kind;
	uint8_t op;                     /* enum plan_op */
	uint8_t es;                     /* element bytes (1, 2, 4, 8) */
	bool esgn;                      /* elements signed (static arrays) */
};

struct plan {
	size_t n;
	struct plan_field *f;
	struct tmx_field_class *fc;     /* the struct */
	/*
	 * The record bytes every field's fixed part needs (dynamic fields:
	 * their 4-byte location; a flexible text: none): records at least
	 * this long are decoded without a bounds check per field.
	 */
	uint64_t fixed_end;
	size_t n_vals;                  /* values of one record but dynamic sequences' elements */
	bool dyn;                       /* has __data_loc / __rel_loc fields */
};

struct tdm_event {
	struct tmx_event_class ec;
	const struct tdat_event *ev;
	struct plan payload;
	/*
	 * The fast path's plan of a record: the common fields' struct then
	 * the payload's, each an OP_STRUCT followed by its fields, then an
	 * OP_END (n counts it; fc unused).
	 */
	struct plan all;
	bool unwanted;                  /* a filter never keeps its events: not decoded */
};

struct tdm_file;
struct tdm_seg;

struct tdm_stream {
	struct tmx_msg_iter iter;       /* first: the muxer hands it back */
	struct tdm_file *file;
	struct tmx_stream stream;
	struct tdat_cursor *cur;
	uint32_t buffer;
	enum { S_BEGIN, S_SEG_START, S_PACKET, S_EVENTS, S_PACKET_END, S_END, S_DONE } state;
	bool pending_discard_done;
	struct tmx_packet packet;
	struct tmx_value pctx[2];
	struct tmx_event event;
	struct tmx_msg msg;
	const struct tdat_record *next;  /* peeked record */
	struct tdat_record rec;          /* the record of the current message */
	struct tdat_record disc;         /* for discarded-events messages */
	bool have_last;
	bool last_pending;               /* last_ts is the record's before a segment: tdm_seg_last */
	uint64_t last_ts;
	struct tmx_value *vals;
	size_t cap_vals;
	uint64_t warned_ids;             /* unknown event ids warned about (count) */
	bool has_range;                  /* first and last record times (converted) */
	int64_t range_begin, range_end;
	/* Read in segments (segment.c): the stream its messages name (NULL: its own). */
	const struct tmx_stream *as;
	bool open_end;                   /* a segment but the last: no packet or stream end */
	/*
	 * The segment it reads (NULL: the whole stream): started at its
	 * first call (S_SEG_START) and ended at its last, by
	 * tdm_seg_start and tdm_seg_end, so that the runner calls the
	 * stream's own iterator.
	 */
	struct tdm_seg *seg;
};

struct tdm_file {
	struct tdat_file *f;
	size_t index;
	struct tmx_arena arena;
	union {
		struct tmx_trace_class tc;
		struct tmx_trace_class_impl tc_impl;   /* what the library's trace classes are */
	};
	struct tmx_trace trace;
	struct tmx_clock_class clock;
	struct tmx_clock_class *clocks[1];
	struct tmx_stream_class sc;
	struct tmx_stream_class *scs[1];
	struct tmx_field_class *pctx_fc;
	struct plan common;
	struct tdm_event **by_id_events;  /* parallel to the stream class's sorted classes */
	struct tdm_event **dense;         /* by event id below n_dense (NULL: no such event) */
	size_t n_dense;
	bool swap;                        /* the file's byte order is not the host's */
	const struct tmx_diag *diag;
	bool lenient;
	/*
	 * tmx_source_skip_fields: no one reads the values, so the records
	 * long enough for the fast path are not decoded (their events have
	 * no scopes); set before any stream is read.
	 */
	bool values_unread;
};

struct tdm_source {
	struct tdm_file **files;
	size_t n_files;
	struct tdm_stream **streams;
	size_t n_streams;
	const struct tmx_reader_filter *filter;   /* tmx_source_set_filter; NULL: none */
	struct tdm_segs *segs;           /* streams cut into segments (segment.c), or NULL */
};

/* Whether f's integers are in the other byte order than the host's. */
static inline bool tdm_swapped(const struct tdat_file *f)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return !f->big_endian;
#else
	return f->big_endian;
#endif
}

static inline int tdm_nomem(struct tmx_error *err)
{
	return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
}

/* The classes of file tf (its trace, clock, stream class, event classes). */
int tdm_build_file(struct tdm_file *tf, struct tmx_error *err);
/* The stream iterator's operations (struct tmx_msg_iter). */
int tdm_stream_next(struct tmx_msg_iter *it, const struct tmx_msg **out, struct tmx_error *err);
void tdm_stream_keep(struct tmx_msg_iter *it);
void tdm_stream_free(struct tdm_stream *s);
/* A segment's start (state S_SEG_START) and end (nothing more, or an error): segment.c. */
void tdm_seg_start(struct tdm_seg *g);
void tdm_seg_last(struct tdm_stream *s);
void tdm_seg_end(struct tdm_seg *g);

/*
 * segment.c: a stream read as segments of its pages or compressed chunks
 * (tmx_source_ops.stream_cost, split_stream); the bytes its segments
 * read, and freeing them with the source.
 */
uint64_t tdm_stream_cost(const void *impl, const struct tmx_msg_iter *it);
int tdm_split_stream(void *impl, struct tmx_msg_iter *it, uint64_t seg_bytes,
		     struct tmx_msg_iter ***segs, size_t *n, struct tmx_error *err);
uint64_t tdm_segments_bytes_read(const struct tdm_source *ts);
void tdm_segments_free(struct tdm_source *ts);

#endif
