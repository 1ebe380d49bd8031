/*
 * tracemux — outputs ("sinks", as babeltrace2 calls them).
 *
 * Every output the CLI has is a sink that consumes the messages of a
 * source, whatever format the source read:
 *
 *   struct tmx_sink_params *p = tmx_sink_params_new("json", &err);
 *   tmx_sink_open(p, src, &(struct tmx_sink_io){ .out_fd = 1, .err_fd = 2 },
 *                 &sink, &err);
 *   tmx_sink_params_free(p);
 *   while (tmx_source_next(src, &msg, &err) == TMX_OK && msg)
 *           tmx_sink_consume(sink, msg, &err);
 *   tmx_sink_finish(sink, &err);
 *   tmx_sink_free(sink);
 *
 * Sinks and their parameters (values are strings, checked when set):
 *
 *   text       babeltrace2's sink.text.pretty, byte for byte.
 *              names=LIST (payload, context, scope, header, all, none),
 *              fields=LIST (trace, trace:hostname, trace:domain,
 *              trace:procname, trace:vpid, loglevel, emf, callsite, all),
 *              clock-cycles, clock-seconds, clock-date, clock-gmt,
 *              no-delta (booleans: true/false, yes/no, 1/0; no value is
 *              true), color=never|auto|always.
 *   json       JSON Lines: one object per message.
 *   chrome     Chrome Trace Event / Perfetto JSON.  sched-slices (boolean):
 *              sched_switch events drawn as per-CPU slices.
 *   ctf        CTF written to a directory per trace, as sink.ctf.fs.
 *              path=DIR (required), ctf-version=1.8|2,
 *              packet-size=BYTES (at least 64), lttng-kernel (boolean:
 *              trace.dat sources written as LTTng kernel traces, their
 *              events as lttng-modules 2.13 records them).
 *   tracecmd   events in trace-cmd report's layout (from the model; the CLI
 *              reads trace.dat files with its own trace-cmd emulation).
 *   xray-yaml  llvm-xray convert --output-format=yaml (XRay sources).
 *   parquet    a Parquet dataset in a directory: one table per event class
 *              (DIR/event=NAME/part-N.parquet), DIR/_streams.parquet,
 *              DIR/_traces.parquet, DIR/_discarded/.  path=DIR (required),
 *              row-group-rows=N (default 65536), part-row-groups=N (row
 *              groups per part file, default 128), partition=host,trace
 *              (Hive levels under event=NAME: host=, trace= or both).
 *   perfetto   Perfetto's protobuf trace (TracePackets): kernel events as
 *              per-CPU ftrace bundles, other events as track events.
 *              compress=zstd|none (default none: zstd writes the whole file
 *              as one zstd frame).
 *   dummy      consumes everything, writes nothing.
 *
 * tmx_run() (tracemux/run.h) feeds a sink on several threads: text, json,
 * chrome, ctf, tracecmd (the layout), parquet, perfetto and dummy are
 * formatted in parallel; xray-yaml, chrome of XRay logs (llvm-xray's B/E
 * stacks) and ctf with lttng-kernel are fed on the calling thread, after
 * a sequential read, with the same output either way.
 */
#ifndef TRACEMUX_SINK_H
#define TRACEMUX_SINK_H

#include <stddef.h>

#include "tracemux/export.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tmx_source;
struct tmx_sink;
struct tmx_sink_params;

/*
 * Parameters for the sink named `name`, at their defaults.  Returns NULL
 * with `err` filled (TMX_ERR_USAGE) for an unknown name, or TMX_ERR_NOMEM.
 * The caller frees it with tmx_sink_params_free() (after tmx_sink_open():
 * the sink keeps a copy of what it needs).
 */
TMX_API struct tmx_sink_params *tmx_sink_params_new(const char *name, struct tmx_error *err);
/*
 * Sets parameter `key` (see above) to `value` (NULL for a boolean means
 * true).  An unknown key or a bad value fills `err` (TMX_ERR_USAGE, naming
 * the sink, the key and what was expected) and leaves `p` as it was.
 */
TMX_API int tmx_sink_params_set(struct tmx_sink_params *p, const char *key, const char *value,
				struct tmx_error *err);
TMX_API void tmx_sink_params_free(struct tmx_sink_params *p);

/* Where a sink writes: events and data to out_fd, warnings to err_fd. */
struct tmx_sink_io {
	int out_fd;
	int err_fd;
	const struct tmx_diag *diag;   /* library warnings (may be NULL) */
};

/*
 * Opens a sink for the messages of `src` (which must outlive the sink).
 * The ctf and parquet sinks create their output directories here, before
 * any message.
 * On failure returns the error code with `err` filled and *out NULL.
 */
TMX_API int tmx_sink_open(const struct tmx_sink_params *p, const struct tmx_source *src,
			  const struct tmx_sink_io *io, struct tmx_sink **out,
			  struct tmx_error *err);
/* Consumes one message of the source, in the source's order. */
TMX_API int tmx_sink_consume(struct tmx_sink *sink, const struct tmx_msg *msg,
			     struct tmx_error *err);
/*
 * Ends the output (closing brackets, last packets) and flushes it.  Call
 * once, after the last message, also after an error of the source: what
 * was consumed before it is still written out.
 */
TMX_API int tmx_sink_finish(struct tmx_sink *sink, struct tmx_error *err);
/* Frees the sink (without finishing it when tmx_sink_finish was not called). */
TMX_API void tmx_sink_free(struct tmx_sink *sink);

/*
 * A sink of the caller's own, fed on every core by tmx_run() as the
 * library's outputs are: format() turns each message into a record, bytes
 * of the caller's own layout, on any of the run's threads; emit() receives
 * the records in the source's order on the thread that called tmx_run().
 * With one job, or through tmx_sink_consume(), each message is formatted
 * and its record emitted in turn on the calling thread.  What emit()
 * receives is then the same whatever the number of jobs, as long as
 * format() depends on the message alone (and on what worker_new() made):
 * a formatter may keep caches, but no state that changes its records.
 *
 *   static void fmt(void *w, const struct tmx_msg *m, struct tmx_record *rec)
 *   {
 *           tmx_record_write(rec, &m->event->cls->id, 8);  (say)
 *   }
 *   struct tmx_custom_sink def = TMX_CUSTOM_SINK_INIT;
 *   def.format = fmt;  def.emit = emit;  def.user = &tables;
 *   tmx_sink_custom(&def, &sink, &err);
 *   tmx_run(src, sink, &(struct tmx_run_opts)TMX_RUN_OPTS_INIT, &err);
 *   tmx_sink_free(sink);
 */
struct tmx_record;   /* where format() writes a message's record */

/* Appends data[0, n) to the record. */
TMX_API void tmx_record_write(struct tmx_record *rec, const void *data, size_t n);
/* tmx_record_reserve's limit: 64 KiB at once. */
#define TMX_RECORD_RESERVE_MAX 65536
/*
 * Room for n more bytes of the record (n <= TMX_RECORD_RESERVE_MAX, else
 * NULL), to be written in place and then counted by tmx_record_commit():
 * one call for several small values.  Valid until the next call on `rec`.
 */
TMX_API void *tmx_record_reserve(struct tmx_record *rec, size_t n);
/* The first n bytes of the last reservation are the record's (n at most what was reserved). */
TMX_API void tmx_record_commit(struct tmx_record *rec, size_t n);

/* Grows as tmx_open_opts (tracemux/tracemux.h): `size` first, set by TMX_CUSTOM_SINK_INIT. */
struct tmx_custom_sink {
	size_t size;   /* sizeof(struct tmx_custom_sink) */
	void *user;    /* given to worker_new, emit and finish */
	/*
	 * A formatter for one thread (NULL: every thread's formatter is
	 * `user`, which format() then may only read).  NULL returned: out of
	 * memory (the run fails with TMX_ERR_NOMEM).  Called on the thread
	 * that calls tmx_run() (one per job), or tmx_sink_consume() (once);
	 * worker_free (NULL: nothing) frees it, on the thread that calls
	 * tmx_run() or tmx_sink_free().
	 */
	void *(*worker_new)(void *user);
	void (*worker_free)(void *worker);
	/*
	 * Writes msg's record (nothing at all is a record of 0 bytes).  msg
	 * and what it points to are valid during the call only; several
	 * threads call it at once, each with its own formatter.  It cannot
	 * fail: a formatter that runs out of memory says so in the record,
	 * and emit() returns the error.  It may read the source's metadata
	 * and ask tmx_source_event_class_index() (tmx_run() makes the
	 * classes' numbers before it starts the threads).  Required.
	 */
	void (*format)(void *worker, const struct tmx_msg *msg, struct tmx_record *rec);
	/*
	 * The record of each message, in the source's order: msg has the
	 * message's own fields (kind, stream, times, counts) but not its views
	 * (packet and event are NULL: read them in format()).  `rec` has no
	 * particular alignment: read its values with memcpy.  Returning
	 * anything but TMX_OK (with err filled) ends the run there: tmx_run()
	 * returns that error.  Required.
	 */
	int (*emit)(void *user, const struct tmx_msg *msg, const void *rec, size_t len,
		    struct tmx_error *err);
	/* After the last message, also after an error (NULL: nothing to do). */
	int (*finish)(void *user, struct tmx_error *err);
};
#define TMX_CUSTOM_SINK_INIT { .size = sizeof(struct tmx_custom_sink) }

/*
 * A sink made of def's functions (copied: def need not outlive the call;
 * `user` must outlive the sink).  TMX_ERR_USAGE without format or emit.
 * tmx_run() formats its messages in parallel with more than one job
 * (jobs 0: every CPU); tmx_sink_consume() formats and emits one message;
 * tmx_sink_finish() calls finish(); tmx_sink_free() frees the formatters.
 */
TMX_API int tmx_sink_custom(const struct tmx_custom_sink *def, struct tmx_sink **out,
			    struct tmx_error *err);

/*
 * s[0, n) as a JSON string, quotes included, escaped as every JSON output
 * of the library writes strings (RFC 8259's short escapes \b \f \n \r
 * \t, other control characters as \u00XX, a byte that is not part of
 * valid UTF-8 as the code point of its value, \u0080..\u00ff), for a
 * program's own JSON beside them.  Writes up to `size` bytes to `buf`
 * (not NUL-terminated; buf may be NULL when size is 0) and returns the
 * string's whole length, as snprintf does; SIZE_MAX when memory runs out.
 */
TMX_API size_t tmx_json_escape(const char *s, size_t n, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* TRACEMUX_SINK_H */
