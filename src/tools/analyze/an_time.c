/*
 * lttng-analyses' dates (common/parse_utils.py): "YYYY-MM-DD hh:mm:ss[.nnnnnnnnn]"
 * (or a T between), "hh:mm:ss[.nnnnnnnnn]" on the trace's day, or
 * nanoseconds from the epoch; local time, or with --gmt the local time
 * shifted by the zone's standard offset as lttng-analyses shifts it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/analyze/an_time.h"

#define NSEC_PER_SEC 1000000000LL

static bool digits(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static int num(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* hh:mm:ss[.nnnnnnnnn] at s, to the end; datetime.time's checks. */
static bool parse_clock(const char *s, struct tm *tm, int64_t *nsec)
{
	size_t n = strlen(s);

	if ((n != 8 && n != 18) || !digits(s, 2) || s[2] != ':' || !digits(s + 3, 2) || s[5] != ':' ||
	    !digits(s + 6, 2))
		return false;
	if (n == 18 && (s[8] != '.' || !digits(s + 9, 9)))
		return false;
	tm->tm_hour = num(s, 2);
	tm->tm_min = num(s + 3, 2);
	tm->tm_sec = num(s + 6, 2);
	*nsec = n == 18 ? num(s + 9, 9) : 0;
	return tm->tm_hour < 24 && tm->tm_min < 60 && tm->tm_sec < 60;
}

/* YYYY-MM-DD[ \tT t]... : the date part; datetime's checks. */
static bool parse_day(const char *s, struct tm *tm)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, m, d;

	if (!digits(s, 4) || s[4] != '-' || !(s[5] == '0' || s[5] == '1') || !digits(s + 6, 1) ||
	    s[7] != '-' || !(s[8] >= '0' && s[8] <= '3') || !digits(s + 9, 1) ||
	    !(isspace((unsigned char)s[10]) || s[10] == 'T' || s[10] == 't'))
		return false;
	y = num(s, 4);
	m = num(s + 5, 2);
	d = num(s + 8, 2);
	if (y < 1 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] + (m == 2 && leap(y)))
		return false;
	tm->tm_year = y - 1900;
	tm->tm_mon = m - 1;
	tm->tm_mday = d;
	return true;
}

/* naive local datetime.timestamp(), with --gmt's shift by time.timezone */
static int64_t local_seconds(struct tm *tm, bool gmt)
{
	tzset();
	if (gmt)
		tm->tm_sec += (int)timezone;
	tm->tm_isdst = -1;
	return (int64_t)mktime(tm);
}

static void local_day(int64_t ns, struct tm *tm)
{
	time_t t = (time_t)(ns >= 0 ? ns / NSEC_PER_SEC : -((-ns + NSEC_PER_SEC - 1) / NSEC_PER_SEC));

	localtime_r(&t, tm);
}

static int parse_date(struct an_time_ctx *ctx, const char *s, int64_t *out, char *msg,
		      size_t msg_size)
{
	struct tm tm = { 0 };
	int64_t nsec = 0;

	if (strlen(s) >= 11 && parse_day(s, &tm) && parse_clock(s + 11, &tm, &nsec)) {
		*out = local_seconds(&tm, ctx->gmt) * NSEC_PER_SEC + nsec;
		return 0;
	}
	if (parse_clock(s, &tm, &nsec)) {
		struct tm day;
		if (ctx->multi_day) {
			snprintf(msg, msg_size, "Invalid date format for multi-day trace: %s", s);
			return 1;
		}
		local_day(ctx->trace_begin, &day);
		tm.tm_year = day.tm_year;
		tm.tm_mon = day.tm_mon;
		tm.tm_mday = day.tm_mday;
		*out = local_seconds(&tm, ctx->gmt) * NSEC_PER_SEC + nsec;
		return 0;
	}
	errno = 0;
	if (*s && strlen(s) <= 19 && digits(s, (int)strlen(s)) && (strtoll(s, NULL, 10), !errno)) {
		int64_t ts = strtoll(s, NULL, 10), sec = ts / NSEC_PER_SEC;
		if (ctx->gmt) {
			time_t t = (time_t)sec;
			localtime_r(&t, &tm);
			sec = local_seconds(&tm, true);
		}
		*out = sec * NSEC_PER_SEC + ts % NSEC_PER_SEC;
		return 0;
	}
	snprintf(msg, msg_size, "Unrecognised date format: %s", s);
	return 1;
}

static char *strip(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int an_time_args(struct an_time_ctx *ctx, const struct tmx_an_opts *o, bool *has_begin,
		 int64_t *begin, bool *has_end, int64_t *end, char *msg, size_t msg_size)
{
	struct tm b, e;

	local_day(ctx->trace_begin, &b);
	local_day(ctx->trace_end, &e);
	ctx->multi_day = b.tm_year != e.tm_year || b.tm_mon != e.tm_mon || b.tm_mday != e.tm_mday;
	*has_begin = *has_end = false;
	if (o->timerange) {
		size_t n = strlen(o->timerange);
		char *copy, *comma;
		int rc;
		if (n < 2 || o->timerange[0] != '[' || o->timerange[n - 1] != ']' ||
		    !(comma = strrchr(o->timerange, ',')) || !(copy = strdup(o->timerange))) {
			snprintf(msg, msg_size, "Invalid time range format: %s", o->timerange);
			return 1;
		}
		copy[n - 1] = 0;
		copy[comma - o->timerange] = 0;
		rc = parse_date(ctx, strip(copy + 1), begin, msg, msg_size);
		if (!rc)
			rc = parse_date(ctx, strip(copy + (comma - o->timerange) + 1), end, msg,
					msg_size);
		free(copy);
		if (rc)
			return rc;
		/* `if self._conf.begin_ts`: a zero time is no bound */
		*has_begin = *begin != 0;
		*has_end = *end != 0;
		return 0;
	}
	if (o->begin) {
		if (parse_date(ctx, o->begin, begin, msg, msg_size))
			return 1;
		*has_begin = *begin != 0;
	}
	if (o->end) {
		if (parse_date(ctx, o->end, end, msg, msg_size))
			return 1;
		if (*end < ctx->trace_begin) {
			snprintf(msg, msg_size, "--end timestamp before beginning of trace");
			return 1;
		}
		*has_end = *end != 0;
	}
	return 0;
}
