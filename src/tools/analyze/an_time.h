/* lttng-analyses' --begin, --end and --timerange (common/parse_utils.py). */
#ifndef TMX_TOOLS_ANALYZE_TIME_H
#define TMX_TOOLS_ANALYZE_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/analyze/analyze.h"

struct an_time_ctx {
	bool gmt;
	int64_t trace_begin, trace_end;  /* ns from the epoch */
	bool multi_day;                  /* set by an_time_args */
};

/*
 * The period bounds from the options; non-zero with the message (without
 * its "Command line error: " prefix) in msg on a bad value.
 */
int an_time_args(struct an_time_ctx *ctx, const struct tmx_an_opts *o, bool *has_begin,
		 int64_t *begin, bool *has_end, int64_t *end, char *msg, size_t msg_size);

#endif
