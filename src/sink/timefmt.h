/*
 * Timestamps as text, from nanoseconds since the Unix epoch: the time of
 * day (local time or UTC, optionally after the date) or plain seconds.
 *
 * Events come in bursts within the same second, so the calendar conversion
 * (localtime_r/gmtime_r and the date/time digits) is done once per distinct
 * second and the text is reused; only the nanoseconds change.
 */
#ifndef TMX_SINK_TIMEFMT_H
#define TMX_SINK_TIMEFMT_H

#include <stdbool.h>
#include <stdint.h>

#include "sink/outbuf.h"

#define TIMEFMT_NS_PER_S UINT64_C(1000000000)

/* A time split as babeltrace2 prints it: a sign, then whole seconds and ns. */
struct timefmt_split {
	bool negative;
	uint64_t sec;
	uint32_t nsec;
};

static inline struct timefmt_split timefmt_split(int64_t ns)
{
	/* Negated in unsigned arithmetic: INT64_MIN has no positive twin. */
	uint64_t abs_ns = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	struct timefmt_split t = {
		.negative = ns < 0,
		.sec = abs_ns / TIMEFMT_NS_PER_S,
		.nsec = (uint32_t)(abs_ns % TIMEFMT_NS_PER_S),
	};

	return t;
}

struct timefmt {
	bool gmt;
	bool valid;          /* `text` holds second `sec` */
	uint64_t sec;
	uint8_t date_len;    /* "YYYY-MM-DD " */
	uint8_t len;         /* the date, then "HH:MM:SS" */
	char text[48];
};

/* Local time, or UTC when `gmt`. */
void timefmt_init(struct timefmt *t, bool gmt);

/*
 * Appends "HH:MM:SS.nnnnnnnnn" for `sec` seconds and `nsec` ns after the
 * epoch, preceded by "YYYY-MM-DD " when `with_date`.  Returns false, having
 * appended nothing, when the C library cannot convert that second.
 */
bool timefmt_put_clock(struct timefmt *t, struct outbuf *b, uint64_t sec, uint32_t nsec,
		       bool with_date);

/* Appends "[-]S.nnnnnnnnn". */
void timefmt_put_seconds(struct outbuf *b, const struct timefmt_split *ts);

#endif
