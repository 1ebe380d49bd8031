#include <string.h>
#include <time.h>

#include "sink/timefmt.h"

void timefmt_init(struct timefmt *t, bool gmt)
{
	t->gmt = gmt;
	t->valid = false;
}

/* Formats the date and the time of day of `sec` into t->text. */
static bool convert_second(struct timefmt *t, uint64_t sec)
{
	time_t when = (time_t)sec;
	struct tm tm;
	size_t date_len, time_len;

	t->valid = false;
	if ((uint64_t)when != sec || !(t->gmt ? gmtime_r(&when, &tm) : localtime_r(&when, &tm)))
		return false;
	date_len = strftime(t->text, sizeof(t->text), "%Y-%m-%d ", &tm);
	time_len = strftime(t->text + date_len, sizeof(t->text) - date_len, "%H:%M:%S", &tm);
	if (!date_len || !time_len)
		return false;
	t->sec = sec;
	t->date_len = (uint8_t)date_len;
	t->len = (uint8_t)(date_len + time_len);
	t->valid = true;
	return true;
}

bool timefmt_put_clock(struct timefmt *t, struct outbuf *b, uint64_t sec, uint32_t nsec,
		       bool with_date)
{
	size_t from;
	char *p;

	if ((!t->valid || t->sec != sec) && !convert_second(t, sec))
		return false;
	from = with_date ? 0 : t->date_len;
	/* The cached text, the dot and nine digits, straight into the buffer. */
	if (OUTBUF_SIZE - b->len < sizeof(t->text) + 10)
		outbuf_flush(b);
	memcpy(b->data + b->len, t->text + from, sizeof(t->text) - from);
	b->len += t->len - from;
	p = b->data + b->len;
	*p = '.';
	outbuf_commit(b, tmx_put_9digits(p + 1, nsec));
	return true;
}

void timefmt_put_seconds(struct outbuf *b, const struct timefmt_split *ts)
{
	if (ts->negative)
		outbuf_putc(b, '-');
	outbuf_sec_ns(b, ts->sec, ts->nsec);
}
