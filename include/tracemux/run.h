/*
 * tracemux — running a source into a sink, on every core.
 *
 *   struct tmx_run_opts opts = TMX_RUN_OPTS_INIT;   (.jobs 0: every CPU available)
 *   status = tmx_run(src, sink, &opts, &err);
 *   tmx_sink_free(sink);
 *
 * The output does not depend on the number of jobs: with one job the
 * messages are pulled and consumed in turn on the calling thread; with more,
 * worker threads read the streams and format their messages (for the text,
 * json, chrome, ctf, tracecmd, parquet, perfetto and dummy sinks, but for
 * the cases tracemux/sink.h names, which are fed on the calling thread
 * after a sequential read) and the calling thread merges them in the source's
 * order and writes.  An error ends the run as with one job: what comes
 * before it in merged order is written, then the error is returned.
 */
#ifndef TRACEMUX_RUN_H
#define TRACEMUX_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/export.h"
#include "tracemux/error.h"
#include "tracemux/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tmx_source;
struct tmx_sink;

/*
 * How far a run has come, for a progress display (tmx_run_opts.progress).
 * The library fills it; a caller only reads it, so it may grow at its end.
 */
struct tmx_progress {
	/*
	 * The input's bytes read: the packets (CTF), ring-buffer pages or
	 * compressed chunks (trace.dat) that the readers have decoded or
	 * passed over (trimmed away, damaged and skipped), on every stream and
	 * thread; XRay, whose sorted output takes records from every block at
	 * once, counts its records read in proportion to its bytes.  The
	 * readers count per packet, page or chunk, so the figure moves in
	 * those steps; with several jobs it includes what the worker threads
	 * have read ahead of the sink.  Never more than bytes_total, never
	 * smaller than in the call before; bytes_total in the last call of a
	 * run that ended without an error (also when trimming ended it early).
	 */
	uint64_t bytes_read;
	uint64_t bytes_total;   /* every stream's bytes */
	uint64_t events;        /* event messages consumed by the sink so far */
	uint64_t elapsed_ns;    /* since tmx_run began */
	bool done;              /* the last call: the run is over (or failed) */
};

/* Grows as tmx_open_opts (tracemux/tracemux.h): `size` first, set by TMX_RUN_OPTS_INIT. */
struct tmx_run_opts {
	size_t size;  /* sizeof(struct tmx_run_opts) */
	/* Threads that read and format; 0: the CPUs the process may run on; 1: sequential. */
	unsigned jobs;
	/*
	 * Which messages reach the sink (NULL: all), called for each message in
	 * its stream's order, possibly on a worker thread: it must depend on
	 * the message only.  Setting *stop (with false returned) ends the run
	 * at that message in merged order, as if the source ended there
	 * (trimming past its end time).
	 */
	bool (*keep)(void *user, const struct tmx_msg *msg, bool *stop);
	void *keep_user;
	/*
	 * Progress (NULL: none, and the run does nothing for it): called on the
	 * calling thread at most once per `progress_ms` milliseconds (0: 250)
	 * while the run lasts (the clock is read once per 1024 messages), and
	 * once at its end with p->done set.  The dummy sink with several jobs
	 * (whose workers pass nothing to merge) is noted a batch of messages
	 * at a time, as the merge passes each stream's batches.
	 */
	void (*progress)(void *user, const struct tmx_progress *p);
	void *progress_user;
	unsigned progress_ms;
};
#define TMX_RUN_OPTS_INIT { .size = sizeof(struct tmx_run_opts) }

/*
 * The same progress calls for a caller that pulls the messages itself
 * (tmx_source_next) instead of calling tmx_run: `tracemux info`, `analyze`
 * and the xray commands use it.  Only opts->progress, progress_user and
 * progress_ms are read (opts grows as for tmx_run).  NULL when
 * opts->progress is NULL (or memory runs out): the other functions then
 * do nothing, so a loop may call them unconditionally, or test the
 * meter once per message to spare the call.  The source must outlive the
 * meter; its counters may be read on another thread than the one reading
 * it, so the meter may be used there too (the calls are made on the
 * thread that calls note and end).
 */
struct tmx_progress_meter;
TMX_API struct tmx_progress_meter *tmx_progress_meter_new(const struct tmx_source *src,
							  const struct tmx_run_opts *opts);
/* One message consumed (events are counted); the clock is read once per 1024. */
TMX_API void tmx_progress_meter_note(struct tmx_progress_meter *m, const struct tmx_msg *msg);
/*
 * The last call (p->done), made once: later notes and ends do nothing.
 * `complete`: nothing more was to be read (the loop reached the end, or
 * stopped where the caller wanted): the bytes are the total; false (an
 * error): what was read.
 */
TMX_API void tmx_progress_meter_end(struct tmx_progress_meter *m, bool complete);
/* Frees the meter (NULL: nothing), without a last call if end was not called. */
TMX_API void tmx_progress_meter_free(struct tmx_progress_meter *m);

/*
 * Consumes every message of `src` (which must not have been read yet for
 * more than one job to be used) into `sink`, then finishes the sink (also
 * after an error: what was consumed is written).  Returns TMX_OK, or the
 * first error (the source's, the sink's, then the finish's) with `err`
 * filled.
 */
TMX_API int tmx_run(struct tmx_source *src, struct tmx_sink *sink, const struct tmx_run_opts *opts,
		    struct tmx_error *err);

/* The CPUs available to the process (sched_getaffinity), at least 1: jobs = 0. */
TMX_API unsigned tmx_cpu_count(void);

#ifdef __cplusplus
}
#endif

#endif /* TRACEMUX_RUN_H */
