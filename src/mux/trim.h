/*
 * Trimming: keep the messages whose time lies in [begin, end], as
 * babeltrace2's flt.utils.trimmer does (--begin, --end, --timerange,
 * --stream-intersection).  The API is include/tracemux/trim.h; here are
 * the trimmer's ranges and the parsing of babeltrace2's time formats.
 */
#ifndef TMX_TRIM_H
#define TMX_TRIM_H

#include <stdbool.h>
#include <stdint.h>

#include "tracemux/error.h"
#include "tracemux/model.h"
#include "tracemux/trim.h"

/*
 * A bound as the user wrote it: an absolute time (ns from origin), or a
 * time of day that takes the date of the trace's first timestamp.
 */
struct tmx_time_bound {
	bool set;
	bool time_of_day;        /* hh:mm[:ss[.ns]] without a date */
	int64_t ns;              /* absolute: ns from origin */
	int hour, minute, second;
	uint32_t frac_ns;
};

/*
 * Parses babeltrace2's formats: `YYYY-MM-DD hh:mm[:ss[.ns]]`,
 * `hh:mm[:ss[.ns]]`, `[-]s[.ns]` (seconds from origin).  Dates and times
 * are local unless `gmt`.  Returns TMX_OK or TMX_ERR_USAGE with a message.
 */
int tmx_time_bound_parse(const char *text, bool gmt, struct tmx_time_bound *b,
			 struct tmx_error *err);
/* Turns a time-of-day bound into an absolute one on the date of `first_ns`. */
int tmx_time_bound_resolve(struct tmx_time_bound *b, int64_t first_ns, bool gmt,
			   struct tmx_error *err);

/* A time range, inclusive; INT64_MIN / INT64_MAX when open. */
struct tmx_time_range {
	const struct tmx_trace *trace;   /* the trace it applies to; NULL: all */
	int64_t begin_ns, end_ns;
};

#define TMX_TRIM_MAX_RANGES 256

struct tmx_trimmer {
	size_t n_ranges;
	struct tmx_time_range ranges[TMX_TRIM_MAX_RANGES];
};

#endif
