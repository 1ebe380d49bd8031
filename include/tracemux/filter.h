/*
 * tracemux — event filters: which events come out of a source.
 *
 *   static const char *const globs[] = { "sched_*", "sched:*" };
 *   struct tmx_filter *f;
 *   tmx_filter_new(globs, 2, "prev_pid != 0 && $cpu == 1", &f, &err);
 *   tmx_source_set_filter(src, f, &err);   // names bound to the classes
 *   while (tmx_source_next(src, &msg, &err) == TMX_OK && msg) ...
 *   tmx_source_free(src);
 *   tmx_filter_free(f);
 *
 * Globs (fnmatch) select event classes by name; a trace.dat class
 * "system:event" is matched by its whole name and by "event" alone.  The
 * expression selects events by their fields:
 *
 *   expr  := expr '||' expr | expr '&&' expr | '!' expr | '(' expr ')' | cmp
 *   cmp   := value ('==' | '!=' | '<' | '<=' | '>' | '>=') value
 *          | value ('=~' | '!~') "POSIX extended regular expression"
 *   value := field.path | $name | $ts | $cpu | $pid | $tid
 *          | 123 | -5 | 0x1f | 1.5e3 | "text with \" \\ \n \t \xHH escapes"
 *
 * A field name is looked up in the payload, then the event's specific
 * context, the common context and the packet context (tmx_event_field's
 * order); `a.b` names member b of structure a.  Integers compare exactly
 * (signed and unsigned 64-bit), floats as doubles, strings (and character
 * arrays) byte by byte; an enumeration compares by value with a number
 * and by label with a string.  $name is the event class name, $ts the time
 * in ns from the clock's origin; $cpu the CPU as tmx_event_cpu() knows it
 * (event.h), $pid vpid, pid or common_pid, $tid vtid, tid or common_pid (the
 * first one an event class has).  A comparison on a field that an event does not have
 * is false (as trace-cmd's filters): `!(x == 1)` is true there, `x != 1`
 * false.
 */
#ifndef TRACEMUX_FILTER_H
#define TRACEMUX_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "tracemux/error.h"
#include "tracemux/export.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tmx_filter;
struct tmx_source;

/*
 * globs: NULL/0 = every class; expr: NULL = no expression.  Parses and
 * checks the syntax: errors (TMX_ERR_USAGE) say "LINE:COLUMN: what was
 * expected" and set err->line and err->col.  Regular expressions are
 * compiled here (regcomp); those whose nested repetitions would make a
 * huge automaton are refused.
 */
TMX_API int tmx_filter_new(const char *const *globs, size_t n_globs, const char *expr,
			   struct tmx_filter **out, struct tmx_error *err);
TMX_API void tmx_filter_free(struct tmx_filter *f);

/*
 * Only matching events come out of tmx_source_next() from now on (other
 * message kinds are unchanged).  Binds names to the source's classes
 * (TMX_ERR_USAGE: a glob that matches no class, a field that no selected
 * class has, a type mismatch such as a regular expression on an integer).
 * The source does not own f; f must outlive the source.  Call before the
 * first tmx_source_next().  A NULL f removes the filter.
 */
TMX_API int tmx_source_set_filter(struct tmx_source *src, const struct tmx_filter *f,
				  struct tmx_error *err);

/*
 * Whether events of the source's class number i (tmx_source_event_class)
 * can come out through its filter: false for the classes its globs leave
 * out and those its expression can never hold for (a field they lack),
 * true for every class without a filter.  For a binding that gives every
 * selected class a table, events or not.
 */
TMX_API bool tmx_source_event_class_selected(struct tmx_source *src, size_t i);

#ifdef __cplusplus
}
#endif

#endif /* TRACEMUX_FILTER_H */
