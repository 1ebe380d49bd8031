/*
 * tracemux — trimming: the messages of a time range, as babeltrace2's
 * flt.utils.trimmer keeps them (the CLI's --begin, --end, --timerange,
 * --stream-intersection).
 *
 *   struct tmx_trim_opts to = TMX_TRIM_OPTS_INIT;
 *   struct tmx_trimmer *t;
 *   to.begin = "12:00:05";          // a time of day: the trace's first date
 *   tmx_trimmer_new(src, &to, &t, &err);
 *   run_opts.keep = my_keep;        // calls tmx_trimmer_keep(t, msg, stop)
 *   ...
 *   tmx_trimmer_free(t);
 *
 * Times are babeltrace2's formats: `YYYY-MM-DD hh:mm[:ss[.ns]]`,
 * `hh:mm[:ss[.ns]]` (on the date of the trace's first timestamp),
 * `[-]s[.ns]` (seconds from the clock's origin); local unless `gmt`.
 */
#ifndef TRACEMUX_TRIM_H
#define TRACEMUX_TRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/export.h"
#include "tracemux/model.h"

struct tmx_source;
struct tmx_trimmer;

/* The range to keep.  Can grow (see tracemux.h): set `size`, TMX_TRIM_OPTS_INIT. */
struct tmx_trim_opts {
	size_t size;                /* sizeof(struct tmx_trim_opts) */
	const char *begin, *end;    /* NULL: open on that side */
	bool gmt;                   /* dates and times of day in UTC */
	/*
	 * One range per trace, where all of its streams have data; begin and
	 * end are then not read.
	 */
	bool stream_intersection;
};

#define TMX_TRIM_OPTS_INIT { .size = sizeof(struct tmx_trim_opts) }

/*
 * The trimmer of `src` for the range `opts` says.  The source is told to
 * skip the packets before a beginning (its index allows it), so make the
 * trimmer before reading.  TMX_ERR_USAGE for a bad time or a beginning
 * after the end, TMX_ERR_DATA for a trace without streams (intersection).
 */
TMX_API int tmx_trimmer_new(struct tmx_source *src, const struct tmx_trim_opts *opts,
			    struct tmx_trimmer **out, struct tmx_error *err);
/*
 * Whether to pass `msg` on: messages without a time pass, the others when
 * their time is in the range of their trace.  *past_end is set once a
 * timed message is past a range that applies to all traces: messages come
 * in time order, so nothing later can be kept.  Reads nothing but `t`
 * and `msg` (threads may call it at once).
 */
TMX_API bool tmx_trimmer_keep(const struct tmx_trimmer *t, const struct tmx_msg *msg,
			      bool *past_end);
TMX_API void tmx_trimmer_free(struct tmx_trimmer *t);

#endif
