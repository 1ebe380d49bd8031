/*
 * What the CTF writer's files share: ctf_writer.c (packets and messages),
 * cw_setup.c (traces, plans, stream files) and ctf_split.c (the split for
 * the parallel runner: per-stream writers on the workers, whose journals
 * the main thread replays in merged order).
 */
#ifndef TMX_SINK_CTF_CW_IMPL_H
#define TMX_SINK_CTF_CW_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink/ctf/ctf_writer.h"
#include "sink/ctf/encode.h"
#include "sink/ctf/encode_plan.h"
#include "sink/outbuf.h"

/*
 * An output trace.  A logical input trace may span several physical ones
 * (LTTng session rotation chunks, snapshots): each has its own classes, so
 * each gets its own plan; they describe the same layout, and the metadata
 * written is that of the plan with the most event classes.
 */
struct cw_trace {
	const struct tmx_trace *trace;
	enum cw_version version;
	/* Plans built so far, by any thread (a plan is a function of its class). */
	pthread_mutex_t lock;
	size_t n_plans, cap_plans;
	struct cw_trace_plan **plans;
	/*
	 * Plans in use, in the order in which messages first used them: the
	 * metadata follows them.  The main thread's.
	 */
	size_t n_used, cap_used;
	struct cw_trace_plan **used;
	size_t meta_events;            /* event classes in the metadata written */
	uint8_t uuid[16];
	bool big_endian;
	char *path;
	bool warned_discards;
};

/*
 * What a stream's messages change, besides its packet buffer: the part
 * that a worker's journal hands to the main thread after each message.
 */
struct cw_pstate {
	const struct cw_stream_plan *sp;
	bool ended;

	/* The open packet. */
	bool open;
	bool explicit_packet;     /* opened by an input packet (not by an event) */
	bool has_begin;           /* known beginning time */
	uint64_t begin;
	bool has_end;             /* input packet's end time, once known */
	uint64_t end;
	/*
	 * The input packet's end time as its beginning tells it: the end of
	 * the last packet when the input stops (a damage) before its end.
	 */
	bool in_has_end;
	uint64_t in_end;
	uint64_t n_events;
	uint64_t first_ts, last_ts;
	bool has_last_ts;
	uint64_t discarded_at_open;
	size_t off_packet_size, off_content_size, off_ts_begin, off_ts_end;

	/*
	 * After a discard in the middle of an input packet (formats that
	 * report them between events), the rest of the packet continues in new
	 * packets: `cont` (the input packet goes on), the next packet's
	 * beginning, and the time at which the packet that carries the new
	 * count must end (the end of the discarded range, which is what
	 * babeltrace2 shows as its end).
	 */
	bool cont;
	bool has_next_begin, has_pending_end;
	uint64_t next_begin, pending_end;

	uint64_t discarded_total;      /* events discarded so far (the counter written) */
	uint64_t discarded_prev_packet;/* the counter of the previous packet */
	uint64_t seq;                  /* next packet_seq_num */
};

#define CW_STREAM_PLANS 8

struct cw_stream {
	const struct tmx_stream *stream;
	struct cw_trace *t;
	const struct cw_event_plan *last_ep;   /* lookup cache */
	const struct cw_stream_plan *last_sp;  /* the stream plan of last_ep */
	/* The plans this stream used (where its packets' own classes are looked for). */
	const struct cw_trace_plan *plans[CW_STREAM_PLANS];
	size_t n_plans;
	char *path;
	char *file_name;
	int fd;

	struct cw_buf b;          /* the open packet */
	struct cw_pstate st;

	/*
	 * A worker's writer of the stream (ctf_split.c) writes no file: what
	 * the main thread must do goes to `journal`.  `synced`: the packet
	 * buffer's bytes before it are the same in the main thread's copy.
	 */
	struct outbuf *journal;
	size_t synced;
	struct cw_pstate sent;    /* the state the main thread's copy has */
	uint64_t sent_pos;        /* and its packet buffer's position */
};

struct tmx_ctf_writer {
	struct tmx_ctf_writer_opts opts;
	char *dir;
	size_t n_traces, cap_traces;
	struct cw_trace **traces;
	/* The streams written, in order of first message (the main thread's). */
	size_t n_streams, cap_streams;
	struct cw_stream **streams;
	/* Open-addressing table: stream pointer -> index in `streams`. */
	size_t map_cap;
	size_t *map;                   /* SIZE_MAX: empty */
	struct cw_stream *last;        /* lookup cache */
	struct cw_shadows *shadows;    /* the workers' writers of the streams (ctf_split.c) */
	struct tmx_kmap *kmap;         /* lttng-kernel: messages mapped first (lttng_kernel.c) */
};

/* cw_setup.c */
int cw_find_trace(struct tmx_ctf_writer *w, const struct tmx_trace *trace,
		  struct cw_trace **out, struct tmx_error *err);
/* The trace's plan of `tc`, built by the first thread that needs it. */
int cw_plan_get(struct cw_trace *t, const struct tmx_trace_class *tc,
		struct cw_trace_plan **out, struct tmx_error *err);
/* `p` is used from now on: the metadata follows if it knows more event classes. */
int cw_plan_use(struct cw_trace *t, struct cw_trace_plan *p, struct tmx_error *err);
/* The plan of stream class `sc` for stream `s`, its trace's plan used (or journaled). */
int cw_stream_plan_for(struct cw_stream *s, const struct tmx_stream_class *sc,
		       const struct cw_stream_plan **out, struct tmx_error *err);
/* Stream `s` (its trace and plan set) gets its data file and joins the writer's streams. */
int cw_stream_add(struct tmx_ctf_writer *w, struct cw_stream *s, struct tmx_error *err);
/*
 * A new stream of the writer for `st`: its trace found, its plan chosen
 * when `with_plan` (the main thread of the split takes it from the
 * journal instead), added as cw_stream_add says.
 */
int cw_stream_new(struct tmx_ctf_writer *w, const struct tmx_stream *st, bool with_plan,
		  struct cw_stream **out, struct tmx_error *err);
struct cw_stream *cw_stream_find(const struct tmx_ctf_writer *w, const struct tmx_stream *st);
void cw_stream_free(struct cw_stream *s);
void cw_trace_free(struct cw_trace *t);
size_t cw_hash_ptr(const void *p, size_t cap);   /* cap: a power of two */
int cw_write_all(struct cw_stream *s, const uint8_t *p, size_t len, struct tmx_error *err);

/* ctf_writer.c: one message into stream `s` (created for it). */
int cw_consume(struct tmx_ctf_writer *w, struct cw_stream *s, const struct tmx_msg *msg,
	       struct tmx_error *err);
/* What an event written into the open packet changes besides its bits. */
void cw_event_step(struct cw_pstate *st, uint64_t ts);
/* The stream's file is closed (after `ret`, the status so far) and its memory freed. */
int cw_stream_ended(struct cw_stream *s, int ret, struct tmx_error *err);
/* Trace `t` cannot record discarded events: said once. */
void cw_warn_discards(const struct tmx_ctf_writer *w, struct cw_trace *t);

/* lttng_kernel.c: *msg mapped (NULL: nothing to write); non-zero when out of memory. */
int cw_lttng_kernel_msg(struct tmx_ctf_writer *w, const struct tmx_msg **msg,
			struct tmx_error *err);

/* ctf_split.c: a worker's writer journals what the main thread does. */
void cw_journal_use(struct cw_stream *s, struct cw_trace_plan *p);
/* The packet closes: its bytes [lo, hi) were patched, the first `bytes` are written. */
void cw_journal_write(struct cw_stream *s, size_t lo, size_t hi, size_t bytes);
void cw_journal_warn_discards(struct cw_stream *s);
void cw_shadows_free(struct cw_shadows *sh);
/*
 * The main thread's copies of the streams, fed by the journals, hold old
 * bytes beyond their position (packets are not zeroed after their write):
 * zeroed before the writer closes them itself.
 */
void cw_replicas_zero(struct tmx_ctf_writer *w);

#endif
