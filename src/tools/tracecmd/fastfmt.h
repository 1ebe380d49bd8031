/*
 * A compiled form of simple print fmts, for the hot path of `-o tracecmd`.
 *
 * libtraceevent renders an event's text by walking its print fmt and
 * calling vsnprintf() once per argument; on traces of millions of
 * syscall or scheduler events that is most of the time spent.  An event
 * whose print fmt uses only plain conversions (%d %i %u %x %X with the
 * l/ll/z lengths, a width, the '-' and '0' flags, %s with a width) of
 * plain arguments (a numeric field, an element of a static array field,
 * a char array field, __get_str()) is compiled here into segments that
 * are rendered with integer formatting and no libc call.  The semantics
 * are libtraceevent 1.7's (event-parse.c: parse_args(), eval_num_arg(),
 * print_arg_number(), print_str_arg()): a field read as an unsigned
 * number of its size in the file's byte order, then cast to int, long or
 * long long by the length modifier before printf formats it.
 *
 * Anything else (plugin handlers, bprint, pointers %p..., typecasts,
 * operators other than [], __print_symbolic/flags, precision, '*'
 * widths...) is not compiled: the caller uses libtraceevent for that
 * event.  The golden tests compare the whole output with trace-cmd's.
 */
#ifndef TMX_TOOLS_TRACECMD_FASTFMT_H
#define TMX_TOOLS_TRACECMD_FASTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct tcf_plan;

/*
 * The plan for an event, or NULL when its text must come from
 * libtraceevent.  `long_size` is the file's (tep) long size.
 */
struct tcf_plan *tcf_compile(struct tep_event *event, bool swap, int long_size);
void tcf_free(struct tcf_plan *p);

/*
 * Renders the event text of a record (data, size) into buf (capacity
 * cap); returns the length, or -1 when this record needs libtraceevent
 * (record too short for the fields, text longer than cap, a string
 * without its NUL inside the record).
 */
int tcf_render(const struct tcf_plan *p, const uint8_t *data, uint32_t size, char *buf,
	       size_t cap);

#endif
