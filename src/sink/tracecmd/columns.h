/*
 * The columns of a `trace-cmd report` line that the tracecmd sink (the
 * layout of model events, layout.c) and the report emulation
 * (src/tools/tracecmd/report*.c) both write: one copy, so both print the
 * same bytes for the same pid, CPU and time.
 */
#ifndef TMX_SINK_TRACECMD_COLUMNS_H
#define TMX_SINK_TRACECMD_COLUMNS_H

#include <stdint.h>
#include <string.h>

#include "sink/outbuf.h"

/* "-%-5d [%03d]" after the comm, at p (room for 64 bytes); returns the end. */
static inline char *tmx_tc_put_pid_cpu(char *p, int64_t pid, uint64_t cpu)
{
	char *start;

	*p++ = '-';
	start = p;
	/* spaces first (a fixed-size store), the digits over them */
	memset(p, ' ', 8);
	p = tmx_put_i64(p, pid);
	if (p < start + 5)
		p = start + 5;
	*p++ = ' ';
	*p++ = '[';
	p = tmx_put_u64_padded(p, cpu, 3, '0');
	*p++ = ']';
	return p;
}

/*
 * libtraceevent's print_event_time() digits of a time already divided
 * (t = (ts + div/2) / div): "%5llu.%0<prec>llu" for prec 6 or 9, "%12llu"
 * for prec 0, at p (room for 64 bytes); returns the end.  Inlined with a
 * constant prec where speed matters.
 */
static inline __attribute__((always_inline)) char *tmx_tc_put_time(char *p, uint64_t t, int prec)
{
	uint64_t frac;

	if (!prec)
		return tmx_put_u64_padded(p, t, 12, ' ');
	frac = t % (prec == 9 ? 1000000000u : 1000000u);
	p = tmx_put_u64_padded(p, t / (prec == 9 ? 1000000000u : 1000000u), 5, ' ');
	*p++ = '.';
	/* prec digits, leading zeros included */
	if (prec == 9)
		*p++ = (char)('0' + frac / 100000000), frac %= 100000000;
	else
		frac *= 100;
	tmx_put_8digits(p, (uint32_t)frac);
	return p + (prec == 9 ? 8 : 6);
}

#endif
