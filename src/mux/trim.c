/* Trimming by time: see trim.h. */
#include <ctype.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "mux/trim.h"
#include "common/errors.h"
#include "model/opts.h"
#include "tracemux/tracemux.h"

#define NS_PER_S INT64_C(1000000000)

/* Exactly `n` digits at *p; advances *p. */
static bool digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	if (isdigit((unsigned char)(*p)[n]))
		return false;
	*p += n;
	*out = v;
	return true;
}

/* `.nnnnnnnnn` (1 to 9 digits, a decimal fraction) or nothing. */
static bool fraction(const char **p, uint32_t *ns)
{
	uint32_t v = 0;
	int n = 0;

	*ns = 0;
	if (**p != '.')
		return true;
	(*p)++;
	while (isdigit((unsigned char)**p) && n < 10) {
		v = v * 10 + (uint32_t)(**p - '0');
		(*p)++;
		n++;
	}
	if (n == 0 || n > 9)
		return false;
	while (n++ < 9)
		v *= 10;
	*ns = v;
	return true;
}

/* hh:mm[:ss[.ns]] */
static bool time_of_day(const char **p, struct tmx_time_bound *b)
{
	b->second = 0;
	b->frac_ns = 0;
	if (!digits(p, 2, &b->hour) || **p != ':')
		return false;
	(*p)++;
	if (!digits(p, 2, &b->minute))
		return false;
	if (**p == ':') {
		(*p)++;
		if (!digits(p, 2, &b->second) || !fraction(p, &b->frac_ns))
			return false;
	}
	return b->hour < 24 && b->minute < 60 && b->second < 61;
}

static bool to_ns(struct tm *tm, const struct tmx_time_bound *b, bool gmt, int64_t *ns)
{
	time_t t;

	tm->tm_hour = b->hour;
	tm->tm_min = b->minute;
	tm->tm_sec = b->second;
	tm->tm_isdst = -1;
	t = gmt ? timegm(tm) : mktime(tm);
	if (t == (time_t)-1)
		return false;
	*ns = (int64_t)t * NS_PER_S + b->frac_ns;
	return true;
}

/* [-]s[.ns]: seconds from the clock's origin. */
static bool seconds_from_origin(const char *p, struct tmx_time_bound *b)
{
	bool negative = *p == '-';
	int64_t s = 0;
	int n = 0;

	if (negative)
		p++;
	while (isdigit((unsigned char)*p)) {
		if (s > (INT64_MAX / NS_PER_S - 10) / 10)
			return false;
		s = s * 10 + (*p++ - '0');
		n++;
	}
	if (n == 0 || !fraction(&p, &b->frac_ns) || *p)
		return false;
	b->ns = s * NS_PER_S + b->frac_ns;
	if (negative)
		b->ns = -b->ns;
	return true;
}

int tmx_time_bound_parse(const char *text, bool gmt, struct tmx_time_bound *b,
			 struct tmx_error *err)
{
	const char *p = text;
	int year, month, day;

	memset(b, 0, sizeof(*b));
	b->set = true;
	if (digits(&p, 4, &year) && *p == '-') {
		struct tm tm = { 0 };
		p++;
		if (digits(&p, 2, &month) && *p++ == '-' && digits(&p, 2, &day) && *p++ == ' ' &&
		    time_of_day(&p, b) && !*p && month >= 1 && month <= 12 && day >= 1 && day <= 31) {
			tm.tm_year = year - 1900;
			tm.tm_mon = month - 1;
			tm.tm_mday = day;
			if (to_ns(&tm, b, gmt, &b->ns))
				return TMX_OK;
		}
	} else {
		p = text;
		if (time_of_day(&p, b) && !*p) {
			b->time_of_day = true;
			return TMX_OK;
		}
		if (seconds_from_origin(text, b))
			return TMX_OK;
	}
	return tmx_error_set(err, TMX_ERR_USAGE, NULL,
			     "Invalid date/time format: \"%s\" (expected YYYY-MM-DD hh:mm[:ss[.ns]], "
			     "hh:mm[:ss[.ns]] or [-]s[.ns])", text);
}

int tmx_time_bound_resolve(struct tmx_time_bound *b, int64_t first_ns, bool gmt,
			   struct tmx_error *err)
{
	time_t t = (time_t)(first_ns / NS_PER_S);
	struct tm tm;

	if (!b->time_of_day)
		return TMX_OK;
	if (!(gmt ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)) || !to_ns(&tm, b, gmt, &b->ns))
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "cannot place the time of day %02d:%02d:%02d on the trace's date",
				     b->hour, b->minute, b->second);
	b->time_of_day = false;
	return TMX_OK;
}

bool tmx_trimmer_keep(const struct tmx_trimmer *t, const struct tmx_msg *msg, bool *past_end)
{
	if (!msg->has_ts)
		return true;
	for (size_t i = 0; i < t->n_ranges; i++) {
		const struct tmx_time_range *r = &t->ranges[i];
		if (r->trace && r->trace != msg->stream->trace)
			continue;
		if (msg->ns > r->end_ns) {
			*past_end = !r->trace;
			return false;
		}
		return msg->ns >= r->begin_ns;
	}
	return true;
}

/* --stream-intersection: one range per trace, as babeltrace2 does. */
static int intersection_ranges(struct tmx_source *src, struct tmx_trimmer *t,
			       struct tmx_error *err)
{
	size_t n = tmx_source_logical_trace_count(src);

	if (n > TMX_TRIM_MAX_RANGES)
		return tmx_error_set(err, TMX_ERR_LIMIT, NULL,
				     "--stream-intersection supports at most %d traces",
				     TMX_TRIM_MAX_RANGES);
	if (n == 0)
		return tmx_error_set(err, TMX_ERR_DATA, NULL, "Trace has no streams");
	for (size_t i = 0; i < n; i++) {
		struct tmx_time_range *r = &t->ranges[t->n_ranges++];
		r->trace = tmx_source_logical_trace(src, i);
		if (tmx_source_stream_intersection(src, r->trace, &r->begin_ns, &r->end_ns, err))
			return err->code;
	}
	return TMX_OK;
}

/* A beginning and an end: one range for everything. */
static int bound_range(const struct tmx_trim_opts *o, struct tmx_source *src,
		       struct tmx_trimmer *t, struct tmx_error *err)
{
	struct tmx_time_bound begin = { 0 }, end = { 0 };
	struct tmx_time_range *r = &t->ranges[t->n_ranges++];
	int64_t first_ns = 0;

	r->trace = NULL;
	r->begin_ns = INT64_MIN;
	r->end_ns = INT64_MAX;
	if (o->begin && tmx_time_bound_parse(o->begin, o->gmt, &begin, err))
		return err->code;
	if (o->end && tmx_time_bound_parse(o->end, o->gmt, &end, err))
		return err->code;
	/* A time of day takes the date of the trace's first timestamp. */
	if ((begin.time_of_day || end.time_of_day) && tmx_source_first_ns(src, &first_ns))
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "a time of day needs a trace with timestamps");
	if (tmx_time_bound_resolve(&begin, first_ns, o->gmt, err) ||
	    tmx_time_bound_resolve(&end, first_ns, o->gmt, err))
		return err->code;
	if (begin.set)
		r->begin_ns = begin.ns;
	if (end.set)
		r->end_ns = end.ns;
	if (r->begin_ns > r->end_ns)
		return tmx_error_set(err, TMX_ERR_USAGE, NULL,
				     "Trimming time range's beginning time is greater than end time");
	if (begin.set)
		tmx_source_skip_before(src, r->begin_ns);
	return TMX_OK;
}

int tmx_trimmer_new(struct tmx_source *src, const struct tmx_trim_opts *opts,
		    struct tmx_trimmer **out, struct tmx_error *err)
{
	struct tmx_trim_opts o;
	struct tmx_trimmer *t;
	int ret;

	*out = NULL;
	if ((ret = tmx_opts_copy(&o, sizeof(o), opts, "tmx_trim_opts", err)))
		return ret;
	if (!(t = calloc(1, sizeof(*t))))
		return tmx_error_set(err, TMX_ERR_NOMEM, NULL, "out of memory");
	ret = o.stream_intersection ? intersection_ranges(src, t, err) : bound_range(&o, src, t, err);
	if (ret) {
		free(t);
		return ret;
	}
	*out = t;
	return TMX_OK;
}

void tmx_trimmer_free(struct tmx_trimmer *t)
{
	free(t);
}
