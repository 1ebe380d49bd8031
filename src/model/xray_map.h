/*
 * How LLVM XRay logs map onto the common model: what the XRay reader
 * (src/xray/) produces and what the outputs and tools that know XRay's
 * classes read (chrome's slices, xray-yaml, xray-account, xray-stack),
 * without including the reader.
 *
 * The logs (FDR versions 1-5, basic versions 1-3) in the common model;
 * llvm-xray's YAML traces too (yaml_in.c), mapped the same way from their
 * records: the YAML header is the file header (no buffer_size), one stream
 * per (process, thread) in order of first appearance, no walltime event,
 * llvm's order (stable sort by TSC, or file order with opts.unsorted).
 *
 * Formats: /work/shared/spec/xray-format-notes.md.  What llvm-xray 14 makes of
 * a log is the contract: the reader produces exactly the records that
 * `llvm-xray convert` prints, in the same order, plus one event per block
 * wall-time marker (which llvm-xray drops: outputs that mimic it skip them).
 *
 * MODEL MAPPING
 *
 * - One trace per input file.  Trace name: the file's path.  Several files
 *   are several traces, merged by time by the generic muxer.
 *
 * - Trace class environment (tmx_trace_class_env):
 *     "tracer_name"     "llvm-xray"
 *     "xray_mode"       "fdr" or "basic"
 *     "xray_version"    int: file header version (FDR 1-5, basic 1-3)
 *     "xray_type"       int: file header type (0 basic, 1 FDR)
 *     "constant_tsc"    int 0/1 (header bit 0)
 *     "nonstop_tsc"     int 0/1 (header bit 1)
 *     "cycle_frequency" int: header cycle frequency (ticks per second)
 *     "buffer_size"     int: FDR per-thread buffer size (FDR only)
 *   The same header is also available as a struct: tmx_xray_reader_header()
 *   (tmx_xray_source_header() of source/source.h for a source).
 *
 * - One clock class "xray_tsc": frequency = cycle_frequency (1 GHz when the
 *   header says 0, with a warning), offset 0.  compiler-rt's emulated clock
 *   (no invariant TSC: frequency exactly 1e9) counts CLOCK_REALTIME
 *   nanoseconds, so a 1 GHz clock is taken as having the Unix epoch as
 *   origin; any other frequency is a raw TSC (origin unknown, not absolute).
 *   Message times: msg->cycles = the record's TSC as llvm-xray computes it
 *   (running TSC per thread with NewCPUId/TSCWrap/deltas), msg->ns from it.
 *
 * - One stream class (id 0) with the default clock above.  One stream per
 *   thread as llvm-xray groups records: FDR key (process id from the Pid
 *   record or 0 for v1/v2, thread id from NewBuffer); basic key (pid, tid)
 *   of the records.  Not per CPU: a thread's records stay one sequence even
 *   when it migrates (the CPU is a field).  Stream ids 0,1,2... in order of
 *   first appearance in the file; stream name "tid T" or "pid P tid T".
 *   Each stream has one packet (no packet context) for its whole life:
 *   STREAM_BEGIN and PACKET_BEGIN of every stream come first, then the
 *   events, then PACKET_END and STREAM_END of every stream.
 *
 * - Event order: llvm-xray's.  By default the records stable-sorted by TSC
 *   (`llvm-xray convert`'s default --sort); with opts.unsorted, llvm-xray's
 *   --sort=false order (threads in llvm's DenseMap order, a thread's blocks
 *   sorted by wall time as llvm does, records in block order), which is also
 *   the order `llvm-xray account/stack` work on.
 *
 * - Event classes (ids = llvm's RecordTypes, then one of ours):
 *     0 "function-enter"      1 "function-exit"     2 "function-tail-exit"
 *     3 "function-enter-arg"  4 "custom-event"      5 "typed-event"
 *     6 "walltime"  (tracemux only: a block's WalltimeMarker, at the TSC of
 *                    the block's first NewCPUId; not an llvm-xray record)
 *   Classes 0-5 share ONE layout:
 *     common context  struct { cpu: u16, tid: u32, pid: u32 }
 *        (llvm's CPU, TId, PId of the record; for FDR v2 pid = tid, as
 *         llvm-xray; v1 FDR and basic v1/v2 pid = 0)
 *     payload         struct {
 *        func_id:     s32   function id (FDR: 28 bits; custom/typed events
 *                           keep the thread's last function id, as llvm)
 *        function:    string  exactly llvm-xray's `function`: the id in
 *                           decimal; with opts.symbolize the (demangled)
 *                           symbol name, "#ID" when the id is not in the
 *                           instrumentation map, "@(hexaddr)" when no symbol
 *        record_type: u16   llvm's `type` (0, or the event type of the
 *                           thread's last typed event: llvm keeps it)
 *        data_size:   u32
 *        data:        u8 text sequence (data_size bytes, not NUL-terminated,
 *                           may hold any byte): custom/typed event payload
 *        n_args:      u32
 *        args:        sequence of u64 (n_args), logged call arguments
 *     }
 *   Flat value indexes (see model.h) are fixed up to the args: use the
 *   TMX_XRAY_* constants below.  Class 6 payload: struct { seconds: u64,
 *   microseconds: u32 } (TMX_XRAY_W_*), same common context.
 *
 * - Where tracemux departs from llvm-xray 14 (the records are the same):
 *   a damaged log gives the records before the damage, then an error with
 *   the offset (llvm-xray prints nothing, and often a misleading YAML or
 *   big-endian error); a log with no record (a header alone) gives no
 *   event (llvm-xray refuses it); v1 fill after EndOfBuffer is skipped up
 *   to buffer_size (llvm-xray parses it and fails when it does not parse);
 *   a v3+ log that ends before its last BufferExtents says is an error
 *   (llvm-xray is silent); typed-event sleds in an instrumentation map are
 *   accepted (llvm-xray 14 rejects the binary).  Like llvm-xray 14, the
 *   CPU of a v1-v3 custom event is read from bytes 13-14 of its marker
 *   (garbage before v4).
 *
 * - Bounds: opening reads the file twice (index, then TSC runs) and keeps
 *   ~72 bytes per FDR buffer; the sorted output merges at most 131072
 *   ascending runs of TSCs (~250 bytes each), beyond which it fails with
 *   TMX_ERR_LIMIT (opts.unsorted has no such limit).
 *
 * - Instrumentation map (opts.instr_map): an ELF binary's xray_instr_map
 *   section (ids numbered as llvm-xray/compiler-rt do) or llvm-xray's YAML
 *   map (`llvm-xray extract`).  Only used to name functions with
 *   opts.symbolize, exactly as llvm-xray convert does; but read whenever
 *   given, and refused when llvm-xray refuses it (instrmap.c).
 */
#ifndef TMX_MODEL_XRAY_MAP_H
#define TMX_MODEL_XRAY_MAP_H

#include <stdbool.h>
#include <stdint.h>

enum tmx_xray_event_id {
	TMX_XRAY_EV_ENTER = 0,
	TMX_XRAY_EV_EXIT = 1,
	TMX_XRAY_EV_TAIL_EXIT = 2,
	TMX_XRAY_EV_ENTER_ARG = 3,
	TMX_XRAY_EV_CUSTOM = 4,
	TMX_XRAY_EV_TYPED = 5,
	TMX_XRAY_EV_WALLTIME = 6,
	TMX_XRAY_N_EVENT_CLASSES = 7,
};

/* Indexes in event->scopes[TMX_SCOPE_COMMON_CONTEXT] (0 is the struct). */
enum {
	TMX_XRAY_CTX_CPU = 1,
	TMX_XRAY_CTX_TID = 2,
	TMX_XRAY_CTX_PID = 3,
};

/* Indexes in event->scopes[TMX_SCOPE_PAYLOAD] of classes 0-5. */
enum {
	TMX_XRAY_P_FUNC_ID = 1,      /* .s */
	TMX_XRAY_P_FUNCTION = 2,     /* .str */
	TMX_XRAY_P_RECORD_TYPE = 3,  /* .u */
	TMX_XRAY_P_DATA_SIZE = 4,    /* .u */
	TMX_XRAY_P_DATA = 5,         /* .str (text sequence) */
	TMX_XRAY_P_N_ARGS = 6,       /* .u */
	TMX_XRAY_P_ARGS = 7,         /* .count; argument i is at 8 + i (.u) */
};

/* Indexes in the payload of class 6 (walltime). */
enum {
	TMX_XRAY_W_SECONDS = 1,
	TMX_XRAY_W_MICROSECONDS = 2,
};

/* The file header (32 bytes). */
struct tmx_xray_header {
	uint16_t version;
	uint16_t type;               /* 0 basic, 1 FDR */
	bool constant_tsc, nonstop_tsc;
	uint64_t cycle_frequency;
	uint64_t buffer_size;        /* FDR only (0 for basic) */
};

#endif
