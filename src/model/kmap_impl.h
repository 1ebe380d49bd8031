/*
 * What the kernel event mapping's files share: kmap.c (the mapped classes
 * and traces, made once) and kmap_msg.c (each message mapped).
 */
#ifndef TMX_MODEL_KMAP_IMPL_H
#define TMX_MODEL_KMAP_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/arena.h"
#include "model/kmap.h"

#define SLOT_BY_NAME (-1)
#define SLOT_RAW_RET (-2)   /* raw_syscalls' `ret`: the slot of the input class (struct kin) */
#define MAX_NR 1024

enum kop {
	OP_COPY,      /* the source field's subtree, its class kept */
	OP_INT,       /* an integer into the output's integer class */
	OP_PRIO,      /* prio - 100 */
	OP_TEXT,      /* text (comm arrays, strings) */
	OP_PID,       /* the common context's common_pid */
	OP_ARG,       /* raw_syscalls' args[arg] */
	OP_ID,        /* raw_syscalls' id */
	OP_EMPTY,     /* an empty string (a user-space string ftrace does not record) */
	OP_RWBS,      /* block's rwbs text as lttng-modules' flags */
	OP_ARGS,      /* args[6] (sys_enter's, zeros for sys_exit) */
};

enum kspecial { KS_NONE, KS_RAW_ENTER, KS_RAW_EXIT };

struct kfield {
	const char *name;
	const struct tmx_field_class *fc;
	uint8_t op, arg;
	const char *src;       /* the source field's name */
	int32_t member;        /* OP_COPY: the source payload's member index */
	int32_t slot;          /* the source's value index in the payload, or SLOT_* */
};

struct kclass {
	struct tmx_event_class ec;
	size_t n;
	struct kfield *f;
	struct tmx_field_class *payload;
};

/* What an input event class becomes: resolved once, on its first event. */
struct kin {
	bool bound;
	uint8_t special;
	struct kclass *out;           /* NULL: dropped (or special) */
	int32_t args_slot, id_slot, ret_slot;   /* raw_syscalls' fields (or SLOT_BY_NAME) */
};

struct ktrace {
	const struct tmx_trace *in;
	struct tmx_trace trace;
	struct tmx_trace_class tc;
	struct tmx_stream_class sc;
	struct tmx_stream_class *scs[1];
	size_t cap_ec;
	/* raw_syscalls: entry and exit classes by number */
	struct kclass **entry_nr, **exit_nr;
	struct kclass *entry_unknown, *exit_unknown;
	/* lttng_statedump_process_state, when the trace names tasks; written before its first event */
	struct kclass *statedump;
	bool dumped;
};

struct kstream {
	const struct tmx_stream *in;
	struct tmx_stream stream;
	struct tmx_packet packet;
	const struct tmx_packet *in_packet;
	uint64_t in_seq;
};

struct tmx_kmap {
	struct tmx_source *src;
	struct tmx_arena a;
	size_t n_traces;
	struct ktrace *traces;
	size_t n_classes;             /* mapped classes, all traces */
	size_t n_in;
	struct kin *in;               /* by the source's class index */
	struct kstream **streams;
	size_t n_streams, cap_streams;
	struct kstream *last;
	/* the input classes last seen and their kin (sys_enter and sys_exit alternate) */
	struct { const struct tmx_event_class *ec; const struct kin *kin; } cache[16];
	/* output classes */
	struct tmx_field_class *s32, *u32, *s64, *u64, *comm, *string, *args;
	/* the message made */
	struct tmx_msg msg;
	struct tmx_event ev;
	struct tmx_value *vals;
	size_t cap_vals;
	const char *nr_names[MAX_NR];
	size_t n_nr;
};

/* kmap.c: the mapped trace of input trace `in`, NULL when it has none. */
struct ktrace *kmap_trace_of(const struct tmx_kmap *m, const struct tmx_trace *in);

#endif
