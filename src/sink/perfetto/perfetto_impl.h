/* What the Perfetto output's parts share (perfetto.c, track.c). */
#ifndef TMX_SINK_PERFETTO_IMPL_H
#define TMX_SINK_PERFETTO_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "sink/outbuf.h"
#include "sink/perfetto/fields.h"
#include "sink/perfetto/kernel.h"
#include "sink/perfetto/pb.h"
#include "common/intmap.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

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
	struct pf_leaves leaves;     /* user: the debug annotations */
	uint64_t name_iid;           /* user: the interned event name, 0 before its first use */
	/* user: where the thread's tid and pid are (scope, member; scope TMX_N_SCOPES: none) */
	uint8_t tid_scope, upid_scope;
	int16_t tid_member, upid_member;
	bool has_env_vpid;           /* user: the trace env's vpid (LTTng per-process buffers) */
	int64_t env_vpid;
	uint64_t leaf_iid;           /* user: the first of its leaves' interned names (0: not yet) */
};

/* The open bundle of a CPU. */
struct pf_cpu {
	struct pq_buf ev;            /* its FtraceEvents (bundle field 2, each whole) */
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

/* A user-space track: a thread, or a stream where no thread is known. */
struct pf_track {
	uint64_t uuid;
	struct pq_buf stack;         /* open slices: their function keys (uint64 each) */
};

#define PF_MAX_CPUS 1024

/* A stream's CPU, known from its packet (a formatter's cache). */
struct pf_stream {
	const struct tmx_packet *packet;   /* the packet whose CPU `cpu` is */
	uint64_t seq;
	uint64_t cpu;
	bool cached;
};

/* What formats kernel events (bundle.c): one per thread. */
struct pf_fmt {
	const struct tmx_perfetto *sink;   /* its classes, read-only while formatting */
	struct pf_render *render;
	struct imap stream_of;             /* stream address -> number in `streams` */
	struct pf_stream *streams;
	size_t n_streams, cap_streams;
	struct pq_buf piece;               /* the formatted event */
};

struct tmx_perfetto {
	struct outbuf out;
	struct pf_render *render;
	struct pq_buf pkt;           /* a TracePacket being built */
	struct imap class_of;        /* event class address -> number in `classes` */
	struct pf_class **classes;
	size_t n_classes, cap_classes;
	bool all_kernel;             /* every trace of the source is a kernel trace (the split applies) */
	struct pf_cpu *cpus[PF_MAX_CPUS];
	struct imap stream_cpu;      /* stream address -> CPU + 1 of its last event, in merged order */
	struct pf_fmt fmt;           /* the sequential path's formatter */
	bool clock_done;
	/* user space */
	struct imap track_of;        /* (pid, tid) or stream -> number in `tracks` */
	struct pf_track *tracks;
	size_t n_tracks, cap_tracks;
	struct imap func_iid;        /* function key -> interned name id */
	uint64_t next_iid;
	uint64_t next_da_iid;        /* debug annotation names */
	bool seq_started;
	int error;                   /* TMX_ERR_NOMEM once memory ran out */
};

bool pf_fmt_init(struct pf_fmt *f, const struct tmx_perfetto *sink);
void pf_fmt_free(struct pf_fmt *f);
/* A kernel event formatted into f->piece (false when out of memory). */
bool pf_kformat(struct pf_fmt *f, const struct tmx_msg *msg);
/* A formatted kernel event into its CPU's bundle, in merged order (false when out of memory). */
bool pf_kemit(struct tmx_perfetto *s, const struct tmx_msg *msg, const uint8_t *piece);
void pf_kdiscarded(struct tmx_perfetto *s, const struct tmx_msg *msg);
/* Writes the open bundles. */
void pf_write_bundles(struct tmx_perfetto *s);

/* Writes s->pkt as one Trace.packet and empties it. */
void pf_write_packet(struct tmx_perfetto *s);
/* A user-space event of class `c`. */
void pf_user_event(struct tmx_perfetto *s, struct pf_class *c, const struct tmx_msg *msg);
void pf_user_class_init(struct pf_class *c, const struct tmx_event_class *ec, bool xray);
void pf_user_free(struct tmx_perfetto *s);

#endif
