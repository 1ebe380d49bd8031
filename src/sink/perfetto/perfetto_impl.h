/* What the Perfetto output's parts share (perfetto.c, track.c). */
#ifndef TMX_SINK_PERFETTO_IMPL_H
#define TMX_SINK_PERFETTO_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sink/outbuf.h"
#include "sink/perfetto/fields.h"
#include "sink/perfetto/kernel.h"
#include "sink/perfetto/pb.h"
#include "common/intmap.h"
#include "tracemux/error.h"
#include "tracemux/model.h"
#include "tracemux/tracemux.h"

enum pf_side { PF_SIDE_KERNEL = 1, PF_SIDE_USER };

/* What a user-space event of a class becomes. */
enum pf_ukind { PF_U_INSTANT, PF_U_XRAY_ENTER, PF_U_XRAY_EXIT, PF_U_CYG_ENTER, PF_U_CYG_EXIT };

/* Where a kernel event's pid is (found once per class). */
enum pf_pid_src {
	PF_PID_NONE, PF_PID_COMMON, PF_PID_PAYLOAD, PF_PID_TID_COMMON, PF_PID_TID_SPECIFIC
};

struct pf_class {
	const struct tmx_event_class *ec;
	uint32_t num;                /* in tmx_perfetto.classes */
	uint8_t side;                /* enum pf_side */
	uint8_t pid_src;             /* kernel: enum pf_pid_src */
	int16_t pid_member;          /* kernel: its member index in that scope */
	uint8_t ukind;               /* user: enum pf_ukind */
	struct pf_kclass k;          /* kernel */
	uint8_t proc_kind;           /* kernel: what its events say of the process tree (ptree.c) */
	struct pf_leaves leaves;     /* user: the debug annotations */
	uint64_t name_iid;           /* user: the interned event name, 0 before its first use */
	/* user: where the thread's tid and pid are (scope, member; scope TMX_N_SCOPES: none) */
	uint8_t tid_scope, upid_scope;
	int16_t tid_member, upid_member;
	bool has_env_vpid;           /* user: the trace env's vpid (LTTng per-process buffers) */
	int64_t env_vpid;
	int16_t func_member;         /* user: XRay's func_id, cyg-profile's addr (payload member, -1) */
	int16_t fname_member;        /* user: XRay's function name (payload member, -1) */
	uint8_t pn_scope;            /* user: the procname context (scope TMX_N_SCOPES: none) */
	int16_t pn_member;
	uint32_t leaf_base;          /* user: its first leaf's number among all classes' leaves */
	/* user: its TrackEvent extensions (uext.c; 0: none): signed integers as sint64, and as
	 * int64 for events whose signed values are all positive (0: the class has none); the leaves
	 * they can carry (bit = index), and whether each one's ExtensionDescriptor was written
	 * (track.c, in merged order) */
	uint32_t ext_field, ext_field_pos;
	uint64_t ext_hash[2];        /* user: the hash of each extension's fields (its name) */
	uint32_t ext_leaves;
	bool ext_described, ext_pos_described;
};

/* The open bundle of a CPU. */
struct pf_cpu {
	struct tmx_buf ev;            /* its FtraceEvents (bundle field 2, each whole) */
	uint32_t n;                  /* events in it */
	bool lost;
	bool used;                   /* the CPU has had events */
	uint32_t serial;             /* bundles written for this CPU */
	int64_t cur_tid;             /* the task running there after the last sched_switch */
	bool switched;               /* a sched_switch was seen (else cur_tid is the state dump's) */
	uint32_t *stamp;             /* per class number: serial + 1 of the bundle using its descriptor */
	size_t n_stamp;
	uint32_t *gen;               /* class numbers whose descriptors this bundle needs */
	size_t n_gen, cap_gen;
};

/*
 * A sequence's TrackEventDefaults.track_uuid as the importer knows it in
 * merged order (0: none since its state was cleared), and the track of its
 * last event: events on the default track leave their track_uuid out.
 */
struct pf_seqdef {
	uint64_t def, last;
};

/* A user-space track: a thread, or a stream where no thread is known. */
struct pf_track {
	uint64_t uuid;
	struct tmx_buf stack;         /* open slices: their function keys (uint64 each) */
};

#define PF_MAX_CPUS 1024

/* A stream's CPU, known from its packet, and its packet sequence (a formatter's cache). */
struct pf_stream {
	const struct tmx_packet *packet;   /* the packet whose CPU `cpu` is */
	uint64_t seq;                      /* that packet's sequence number */
	uint64_t cpu;
	bool cached;
	uint32_t pseq;                     /* its packet sequence: index in tmx_perfetto.seqs */
};

/*
 * A trusted packet sequence: the user-space events of one stream (so that
 * a worker formatting that stream owns it: the bytes do not depend on the
 * jobs), with its own interning (useq.c).  Bounded: past PF_SEQ_MAX_STRINGS
 * strings or PF_SEQ_MAX_BYTES bytes of them, the incremental state is
 * cleared and interning starts again.
 */
struct pf_seq {
	uint32_t id;                 /* trusted_packet_sequence_id */
	bool started;                /* false: the next packet clears the incremental state */
	uint64_t next_name_iid, next_da_iid, next_str_iid;
	uint32_t *cls;               /* per class number: its name's iid, its first leaf name's iid */
	uint32_t *lstat;             /* per leaf: string values seen, new ones (interning stops when
	                                most are new) */
	struct imap func_iid;        /* function key -> its name's iid */
	struct imap str_iid;         /* string hash -> its iid (an index in str_off + 1) */
	uint32_t *str_off;           /* where each interned string is in `strs` */
	size_t cap_str;
	struct tmx_buf strs;          /* the interned strings: a 32-bit length, the bytes */
	struct imap named;           /* track keys whose first event here carried the thread name */
};
#define PF_SEQ_MAX_STRINGS 16384
#define PF_SEQ_MAX_BYTES (512 * 1024)

/* What formats kernel events (bundle.c): one per thread. */
struct pf_fmt {
	const struct tmx_perfetto *sink;   /* its classes, read-only while formatting */
	struct pf_render *render;
	struct imap stream_of;             /* stream address -> number in `streams` */
	struct pf_stream *streams;
	size_t n_streams, cap_streams;
	const struct tmx_stream *last_stream;   /* pf_stream_of's last answer: its slot */
	uint32_t last_slot;
	struct tmx_buf piece;               /* the formatted event */
	struct tmx_buf ib;                  /* user: the event's interned data */
	struct tmx_buf ext;                 /* user: the event's extension message (uext.c) */
};

struct tmx_perfetto {
	struct outbuf out;
	struct pf_render *render;
	struct tmx_buf pkt;           /* a TracePacket being built */
	struct imap class_of;        /* event class address -> number in `classes` */
	struct pf_class **classes;
	size_t n_classes, cap_classes;
	struct pf_cpu *cpus[PF_MAX_CPUS];
	struct imap stream_cpu;      /* stream address -> CPU + 1 of its last event, in merged order */
	struct pf_fmt fmt;           /* the sequential path's formatter */
	struct imap tgid_of;         /* ptree.c: tid -> tgid, where known */
	struct imap parent_of;       /* ptree.c: tid -> the task that forked it */
	bool clock_done;
	/* R: subtracted from every time written (perfetto.c epoch_rebase), known before any
	 * worker formats: the epoch clocks' values as their tracer counted them */
	int64_t rebase;
	int64_t last_ns;             /* the last event's time (the tasks' names are given then) */
	/* user space: a sequence per stream (the last one for streams not of the source) */
	const struct tmx_source *src;
	struct pf_seq **seqs;
	size_t n_seqs;
	struct pf_seqdef *seqdef;    /* track.c, per sequence: its default track (merged order) */
	size_t n_leaves;             /* all user classes' leaves */
	struct imap ext_num;         /* uext.c: extension number -> its first class number * 2 + pos */
	struct imap track_of;        /* (pid, tid) or stream -> number in `tracks` */
	struct pf_track *tracks;
	size_t n_tracks, cap_tracks;
	int error;                   /* TMX_ERR_NOMEM once memory ran out */
	/* --perfetto-compress=zstd: the output's bytes go through this stream */
	struct ZSTD_CCtx_s *zctx;
	uint8_t *zbuf;
	size_t zcap;
	int zfd, zerr;
};

/* A model time as written: its ns less the output's rebase, never below 0. */
static inline uint64_t pf_ts(const struct tmx_perfetto *s, int64_t ns)
{
	return ns > s->rebase ? (uint64_t)(ns - s->rebase) : 0;
}

bool pf_fmt_init(struct pf_fmt *f, const struct tmx_perfetto *sink);
/* The formatter's cache of a stream (its CPU, its sequence); NULL when out of memory. */
struct pf_stream *pf_stream_of(struct pf_fmt *f, const struct tmx_stream *stream);
void pf_fmt_free(struct pf_fmt *f);
/* A kernel event formatted into f->piece (false when out of memory). */
bool pf_kformat(struct pf_fmt *f, const struct tmx_msg *msg);
/* A formatted kernel event into its CPU's bundle, in merged order (false when out of memory). */
bool pf_kemit(struct tmx_perfetto *s, const struct tmx_msg *msg, const uint8_t *piece);
void pf_kdiscarded(struct tmx_perfetto *s, const struct tmx_msg *msg);
/* Writes the open bundles. */
void pf_write_bundles(struct tmx_perfetto *s);

/* ptree.c: the process tree of ftrace-shaped traces (trace.dat, perf). */
uint8_t pf_kproc_kind(const struct pf_kclass *k, const struct tmx_event_class *ec);
/* What an event of a class of that kind says, appended to `b` (nothing when it says nothing). */
void pf_kproc_format(struct tmx_buf *b, uint8_t kind, const struct tmx_event *ev,
		     struct pf_render *r);
/* Its ProcessTree packets, in merged order (`emitter`: the event's pid); false when out of memory. */
bool pf_kproc_emit(struct tmx_perfetto *s, int64_t emitter, uint64_t ts, const uint8_t *rec);

/* The thread names of the trace's tasks (saved_cmdlines) whose tgid is known, at `ts`. */
void pf_kproc_tasks(struct tmx_perfetto *s, const struct tmx_trace *t, uint64_t ts);

/* Writes s->pkt as one Trace.packet and empties it. */
void pf_write_packet(struct tmx_perfetto *s);
/* A user-space event of class `c` formatted into f->piece (useq.c; false when out of memory). */
bool pf_uformat(struct pf_fmt *f, const struct pf_class *c, const struct tmx_msg *msg);
/* A formatted user-space event written, in merged order (track.c; false when out of memory). */
bool pf_uemit(struct tmx_perfetto *s, const struct tmx_msg *msg, const uint8_t *piece);
void pf_user_class_init(struct pf_class *c, const struct tmx_event_class *ec, bool xray);
void pf_user_free(struct tmx_perfetto *s);
void pf_seq_free(struct pf_seq *q);
/* uext.c: a class's extensions (after its leaves), and the ExtensionDescriptor packet of one
 * (pos: the int64 one). */
bool pf_uext_init(struct tmx_perfetto *s, struct pf_class *c);
void pf_uext_describe(struct tmx_perfetto *s, struct pf_class *c, bool pos);

/* Every piece starts with its side (enum pf_side). */
static inline uint32_t pf_piece_side(const uint8_t *piece)
{
	uint32_t side;

	memcpy(&side, piece, sizeof(side));
	return side;
}

/* A formatted user-space event: this header, then its body, interned data and thread name. */
struct pf_upiece {
	uint32_t side;               /* PF_SIDE_USER */
	uint32_t class_num;
	uint32_t seq_id;
	uint8_t ukind;               /* enum pf_ukind (an instant when the function is unknown) */
	uint8_t flags;               /* PU_* */
	int64_t pid, tid;            /* PU_THREAD */
	uint64_t key;                /* its track: (pid, tid), or PU_STREAM_KEY */
	uint64_t func;               /* entry, exit: the function */
	uint32_t interned_len;       /* InternedData fields */
	uint32_t body_len;           /* TrackEvent fields after type and track (name, annotations) */
	uint32_t name_len;           /* the thread's name (PU_NAMED) */
};
enum { PU_THREAD = 1, PU_CLEARED = 2, PU_NAMED = 4, PU_EXT = 8, PU_EXT_POS = 16 };
#define PU_STREAM_KEY UINT64_MAX

#endif
